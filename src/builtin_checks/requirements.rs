//! Dependency consistency, as `pip check` reports it: every `Requires-Dist` of
//! every installed distribution names a distribution that is installed, at a
//! version its specifier accepts.
//!
//! The semantics are pip's (`pip/_internal/operations/check.py`, and
//! `iter_dependencies` in `pip/_internal/metadata/`), so that every problem pip
//! reports is reported here, and nothing else:
//! - a requirement applies when its marker holds for this interpreter with
//!   `extra` empty: requirements of an extra (`; extra == "test"`) are never
//!   checked, since nothing records which extras were asked for at install time;
//! - names compare PEP 503-normalized; a requirement's own extras (`y[sub]`) are
//!   not followed: only `y` itself must be installed;
//! - the installed version is compared with pre-releases allowed, and a local
//!   label (`+cu121`) ignored unless the specifier has one (PEP 440);
//! - a URL requirement (`y @ https://...`) accepts any installed version of `y`;
//! - only the copy Python imports counts (a shadowed copy is the shadowing check's).
//!
//! Where it differs from pip, on purpose:
//! - a `Requires-Dist` line that is not valid PEP 508 is its own finding; pip
//!   logs "Error parsing requirements" and then treats the whole distribution as
//!   not installed, reporting each package that needs it as missing it;
//! - an installed version that is not valid PEP 440 is not compared (the
//!   package inventory already records that problem); pip's older `LegacyVersion`
//!   fails most specifiers;
//! - `pip check` also reports installed wheels whose `WHEEL` tags this platform
//!   does not support ("X 1.0 is not supported on this platform"; added in
//!   pypa/pip#11088, shipped with pip 24.2 by the account of pypa/pip#12884).
//!   That needs the interpreter's full list of supported tags
//!   (`packaging.tags.sys_tags()`: manylinux glibc probing, ABI flags), which
//!   cannot be rebuilt from a Snapshot without guessing, and pypa/pip#12884 and
//!   pypa/pip#13709 show it flagging wheels that work (tags missing or split
//!   by a blank line in `WHEEL`). It is not covered here;
//! - string comparisons in markers (`platform_release >= "5"`) are lexicographic
//!   in `pep508_rs`; `packaging` tries a version comparison first. Markers like
//!   that are rare in published metadata.
//!
//! The marker values come from the interpreter (`python.markers` in the
//! Snapshot). A Snapshot from an envdoctor that did not record them has the
//! values rebuilt from what it did record (the Python version, implementation,
//! kernel and architecture); `platform_version` cannot be rebuilt, and a
//! requirement whose marker needs a value that could not be rebuilt is not
//! evaluated. Either way an info finding (`requirement-markers-reconstructed`)
//! says so, and each finding that rested on a rebuilt value says so too.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, MarkerEnvironmentBuilder, MarkerTree, MarkerTreeKind, Requirement, VersionOrUrl};

use super::BuiltinCheck;
use crate::facts::{Facts, dotted};
use crate::findings::{Finding, Severity};
use crate::knowledge::tables::Tables;
use crate::packaging::normalize_name;
use crate::shell;
use crate::snapshot::Snapshot;
use crate::snapshot::packages::Package;
use crate::snapshot::python::MarkerValues;
use crate::torch_install::{self, Prefer};

const NOT_INSTALLED: &str = "requirement-not-installed";
const VERSION_MISMATCH: &str = "requirement-version-mismatch";
const UNPARSABLE: &str = "requirement-unparsable";
const MARKERS_RECONSTRUCTED: &str = "requirement-markers-reconstructed";

const PIP_CHECK: &str = "https://pip.pypa.io/en/stable/cli/pip_check/";
const DEPENDENCY_SPECIFIERS: &str = "https://packaging.python.org/en/latest/specifications/dependency-specifiers/";
const VERSION_SPECIFIERS: &str = "https://packaging.python.org/en/latest/specifications/version-specifiers/";
const CORE_METADATA_REQUIRES_DIST: &str =
    "https://packaging.python.org/en/latest/specifications/core-metadata/#requires-dist-multiple-use";

pub(super) const CHECKS: &[BuiltinCheck] = &[BuiltinCheck {
    id: "dependency-consistency",
    title: "Every installed distribution's requirements are installed, at versions they accept",
    produces: &[NOT_INSTALLED, VERSION_MISMATCH, UNPARSABLE, MARKERS_RECONSTRUCTED],
    explanation: "Reads each installed distribution's Requires-Dist, evaluates its environment markers for \
        this interpreter (with no extra, as pip does), and reports a requirement whose distribution is not \
        installed or is installed at a version outside its specifier: what `pip check` reports, without \
        starting pip. A package whose declared dependency is missing or at the wrong version may fail at \
        import or misbehave at run time.",
    run,
}];

fn run(facts: &Facts, tables: &Tables) -> Vec<Finding> {
    let markers = MarkerContext::for_snapshot(facts.snapshot);
    let mut findings = Vec::new();
    let mut tally = MarkerTally::default();
    for package in facts.packages.values() {
        check_package(facts, tables, package, &markers, &mut tally, &mut findings);
    }
    if let Some(rebuilt) = &markers.rebuilt
        && (tally.evaluated > 0 || !tally.skipped.is_empty())
    {
        findings.push(reconstruction_finding(rebuilt, &markers, &tally));
    }
    findings
}

#[derive(Default)]
struct MarkerTally {
    /// Requirements whose marker named an environment variable and was evaluated.
    evaluated: usize,
    /// Requirements not evaluated because their marker needs an unknown value, as
    /// `package: requirement`.
    skipped: Vec<String>,
}

fn check_package(
    facts: &Facts,
    tables: &Tables,
    package: &Package,
    markers: &MarkerContext,
    tally: &mut MarkerTally,
    findings: &mut Vec<Finding>,
) {
    let project = &package.normalized_name;
    let project_version = package.version.as_deref().unwrap_or("(no version)");
    // pip keeps a set per package: a requirement listed twice is one problem.
    let mut seen = BTreeSet::new();
    for line in &package.requires_dist {
        let parsed = parsed(line);
        let (requirement, variables) = match &*parsed {
            Ok(parsed) => parsed,
            Err(error) => {
                findings.push(unparsable(package, line, error));
                continue;
            }
        };
        if let Some(unknown) = variables.iter().find(|name| markers.unknown.contains(name.as_str())) {
            tally.skipped.push(format!("{project}: `{line}` (needs {unknown})"));
            continue;
        }
        if !variables.is_empty() {
            tally.evaluated += 1;
        }
        // No extra: pip evaluates with `extra` empty, so a requirement of an extra never applies.
        if !requirement.marker.evaluate(&markers.environment, &[]) {
            continue;
        }
        if !seen.insert(requirement.clone()) {
            continue;
        }
        let dependency = normalize_name(requirement.name.as_ref());
        let marker_note = (!variables.is_empty()).then(|| marker_note(line, markers));
        match facts.packages.get(dependency.as_str()) {
            None => findings.push(Finding {
                id: NOT_INSTALLED.to_string(),
                origin: String::new(),
                severity: Severity::Error,
                title: format!("{project} needs {dependency}, which is not installed"),
                // The first sentence is pip check's own line, word for word.
                detail: format!(
                    "{project} {project_version} requires {dependency}, which is not installed. \
                     Its metadata says `Requires-Dist: {line}` ({}).{}",
                    package.metadata_path.display(),
                    marker_note.unwrap_or_default()
                ),
                why: format!(
                    "{project} declares it needs {dependency}: where {project} imports it, Python raises \
                     ModuleNotFoundError, often already at `import {project}`. `pip check` reports the same."
                ),
                fix: Some(format!("pip install {}", shell::quote(&install_argument(requirement)))),
                references: vec![PIP_CHECK.to_string(), CORE_METADATA_REQUIRES_DIST.to_string()],
                fix_note: None,
                unsettled: None,
            }),
            Some(installed) => {
                let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &requirement.version_or_url else {
                    continue;
                };
                let Some(installed_version) = installed.version.as_deref() else {
                    continue;
                };
                let Ok(parsed) = Version::from_str(installed_version) else {
                    continue;
                };
                if specifiers.contains(&parsed) {
                    continue;
                }
                let requirement_text = line.split(';').next().unwrap_or(line).trim();
                let torch_fix = torch_fix(facts, tables, &dependency, specifiers).unwrap_or_else(|| {
                    (
                        format!("pip install {}", shell::quote(&install_argument(requirement))),
                        None,
                    )
                });
                findings.push(Finding {
                    id: VERSION_MISMATCH.to_string(),
                    origin: String::new(),
                    severity: Severity::Error,
                    title: format!(
                        "{project} needs {requirement_text}, but {dependency} {installed_version} is installed"
                    ),
                    detail: format!(
                        "{project} {project_version} has requirement {line}, but you have {dependency} \
                         {installed_version}. ({dependency} is in {}; {project}'s metadata is {}.){}",
                        installed.location.display(),
                        package.metadata_path.display(),
                        marker_note.unwrap_or_default()
                    ),
                    why: format!(
                        "{project} {project_version} declares it works with {dependency} {specifiers} only; with {dependency} \
                         {installed_version} it may fail at import or behave differently where {dependency}'s API \
                         changed. pip's resolver would not have chosen this pair: something installed one of them \
                         afterwards without resolving both (a later install with --no-deps, another installer, a \
                         manual copy). `pip check` reports the same."
                    ),
                    fix: Some(torch_fix.0),
                    references: vec![PIP_CHECK.to_string(), VERSION_SPECIFIERS.to_string()],
                    fix_note: torch_fix.1,
                    unsettled: None,
                });
            }
        }
    }
}

/// The version specifiers `owner`'s Requires-Dist puts on `dependency` where
/// they apply here, read as this check reads them (pip's markers, no extra; a
/// marker on an unknown variable is not evaluated): what explain judges an
/// installed dependency by.
pub(crate) fn specifiers_on(
    facts: &Facts,
    owner: &Package,
    dependency: &str,
) -> Option<pep508_rs::pep440_rs::VersionSpecifiers> {
    let markers = MarkerContext::for_snapshot(facts.snapshot);
    owner.requires_dist.iter().find_map(|line| {
        let parsed = parsed(line);
        let (requirement, variables) = parsed.as_ref().as_ref().ok()?;
        let applies = !variables.iter().any(|name| markers.unknown.contains(name.as_str()))
            && requirement.marker.evaluate(&markers.environment, &[]);
        if !applies || normalize_name(requirement.name.as_ref()) != dependency {
            return None;
        }
        match &requirement.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(specifiers)) => Some(specifiers.clone()),
            _ => None,
        }
    })
}

/// `name[extras]specifiers` or `name[extras] @ url`: the requirement without its
/// marker, which is what to hand to `pip install`.
/// Where the wrong version is torch's, reinstalling torch alone would break
/// the torchvision and torchaudio that pin it: the fix installs a consistent
/// set the node runs (see `torch_install`). `None` for any other dependency,
/// or where the tables know no such set.
fn torch_fix(
    facts: &Facts,
    tables: &Tables,
    dependency: &str,
    specifiers: &pep508_rs::pep440_rs::VersionSpecifiers,
) -> Option<(String, Option<String>)> {
    if dependency != "torch" {
        return None;
    }
    let needed = torch_install::visible_capabilities(facts, tables);
    torch_install::choose(
        facts,
        tables,
        &needed,
        &|version| specifiers.contains(version),
        Prefer::Lowest,
    )
    .map(|install| (install.command.clone(), Some(install.note())))
}

fn install_argument(requirement: &Requirement) -> String {
    let mut text = requirement.name.to_string();
    if !requirement.extras.is_empty() {
        let extras: Vec<String> = requirement.extras.iter().map(ToString::to_string).collect();
        text.push_str(&format!("[{}]", extras.join(",")));
    }
    match &requirement.version_or_url {
        None => {}
        Some(VersionOrUrl::VersionSpecifier(specifiers)) => {
            let parts: Vec<String> = specifiers.iter().map(ToString::to_string).collect();
            text.push_str(&parts.join(","));
        }
        Some(VersionOrUrl::Url(url)) => text.push_str(&format!(" @ {url}")),
    }
    text
}

fn marker_note(line: &str, markers: &MarkerContext) -> String {
    let marker = line.split_once(';').map_or("", |(_, marker)| marker.trim());
    match &markers.rebuilt {
        None => format!(" Its marker `{marker}` holds for this interpreter."),
        Some(_) => format!(
            " Its marker `{marker}` was evaluated against values rebuilt from an older Snapshot \
             (see {MARKERS_RECONSTRUCTED})."
        ),
    }
}

fn unparsable(package: &Package, line: &str, error: &str) -> Finding {
    let project = &package.normalized_name;
    let version = package.version.as_deref().unwrap_or("(no version)");
    let reason = error.lines().next().unwrap_or(error);
    Finding {
        id: UNPARSABLE.to_string(),
        origin: String::new(),
        severity: Severity::Warning,
        title: format!("{project} declares a requirement that is not valid PEP 508"),
        detail: format!(
            "{project} {version}'s metadata ({}) has `Requires-Dist: {line}`, which does not parse: {reason}.",
            package.metadata_path.display()
        ),
        why: format!(
            "No installer can tell what {project} needs from it. pip fails the same way: `pip check` logs \
             \"Error parsing requirements for {project}\", exits with an error, and treats {project} as not \
             installed when checking the packages that need it."
        ),
        fix: Some(format!("pip install --upgrade {}", shell::quote(project))),
        references: vec![
            DEPENDENCY_SPECIFIERS.to_string(),
            CORE_METADATA_REQUIRES_DIST.to_string(),
        ],
        fix_note: None,
        unsettled: None,
    }
}

fn reconstruction_finding(rebuilt: &str, markers: &MarkerContext, tally: &MarkerTally) -> Finding {
    let mut detail = format!(
        "This Snapshot does not record the interpreter's marker values (it predates them). {} requirement(s) \
         with environment markers were evaluated against values rebuilt from it: {rebuilt}.",
        tally.evaluated
    );
    if !tally.skipped.is_empty() {
        let unknown: Vec<&str> = markers.unknown.iter().copied().collect();
        detail.push_str(&format!(
            " {} requirement(s) need a value that could not be rebuilt ({}) and were not checked: {}.",
            tally.skipped.len(),
            unknown.join(", "),
            tally.skipped.join("; ")
        ));
    }
    Finding {
        id: MARKERS_RECONSTRUCTED.to_string(),
        origin: String::new(),
        severity: Severity::Info,
        title: "Requirement markers were evaluated from values rebuilt from an older Snapshot".to_string(),
        detail,
        why: "Which requirements apply depends on the interpreter's marker values (python_version, sys_platform, \
              platform_machine, ...). Rebuilt values match the interpreter's for the common markers; a marker on \
              a value that was not recorded cannot be decided, so the dependency check may miss a problem there."
            .to_string(),
        fix: Some("envdoctor probe --format json -o snapshot.json".to_string()),
        references: vec![DEPENDENCY_SPECIFIERS.to_string()],
        fix_note: None,
        unsettled: None,
    }
}

/// The environment markers are evaluated against, and what is not known of it.
struct MarkerContext {
    environment: MarkerEnvironment,
    /// Variables with no known value; a marker naming one is not evaluated.
    unknown: BTreeSet<&'static str>,
    /// `Some(how)` when the values were rebuilt rather than recorded: which
    /// values, from which Snapshot fields.
    rebuilt: Option<String>,
}

/// The variable names, in `MarkerEnvironmentBuilder`'s order.
const VARIABLES: [&str; 11] = [
    "implementation_name",
    "implementation_version",
    "os_name",
    "platform_machine",
    "platform_python_implementation",
    "platform_release",
    "platform_system",
    "platform_version",
    "python_full_version",
    "python_version",
    "sys_platform",
];

const VERSION_VARIABLES: [&str; 3] = ["implementation_version", "python_full_version", "python_version"];

impl MarkerContext {
    fn for_snapshot(snapshot: &Snapshot) -> MarkerContext {
        match &snapshot.python.markers {
            Some(recorded) => MarkerContext::from_values(recorded_values(recorded), None),
            None => {
                let values = rebuilt_values(snapshot);
                let known: Vec<String> = values
                    .iter()
                    .filter_map(|(name, value)| Some(format!("{name} `{}`", value.as_deref()?)))
                    .collect();
                MarkerContext::from_values(values, Some(known.join(", ")))
            }
        }
    }

    fn from_values(mut values: BTreeMap<&'static str, Option<String>>, rebuilt: Option<String>) -> MarkerContext {
        // An untagged build reports `3.14.0+`, which is not PEP 440. `packaging`
        // (`_repair_python_full_version`) reads it as `3.14.0+local`, and its
        // specifiers ignore a local label, so every comparison with a release
        // (`==`, `>`, `<=`, ...) comes out as for `3.14.0`. `pep508_rs` orders
        // local versions above their release instead, so the label is dropped
        // here to get packaging's answers. Anything else unreadable falls back
        // to its numeric part the same way.
        for name in VERSION_VARIABLES {
            if let Some(value) = values.get_mut(name) {
                *value = value.take().and_then(|text| match Version::from_str(&text) {
                    Ok(_) => Some(text),
                    Err(_) => dotted(&text).map(|version| version.to_string()),
                });
            }
        }
        let unknown: BTreeSet<&'static str> = VARIABLES
            .into_iter()
            .filter(|name| values.get(name).is_none_or(Option::is_none))
            .collect();
        // Unknown values get placeholders that no marker is ever evaluated against.
        let value = |name: &str| -> String {
            let placeholder = if VERSION_VARIABLES.contains(&name) { "0" } else { "" };
            values
                .get(name)
                .cloned()
                .flatten()
                .unwrap_or_else(|| placeholder.to_string())
        };
        let texts: Vec<String> = VARIABLES.iter().map(|name| value(name)).collect();
        let builder = MarkerEnvironmentBuilder {
            implementation_name: &texts[0],
            implementation_version: &texts[1],
            os_name: &texts[2],
            platform_machine: &texts[3],
            platform_python_implementation: &texts[4],
            platform_release: &texts[5],
            platform_system: &texts[6],
            platform_version: &texts[7],
            python_full_version: &texts[8],
            python_version: &texts[9],
            sys_platform: &texts[10],
        };
        // Every version text was checked above or is the placeholder `0`.
        let environment = MarkerEnvironment::try_from(builder).unwrap_or_else(|_| placeholder_environment());
        MarkerContext {
            environment,
            unknown,
            rebuilt,
        }
    }
}

fn placeholder_environment() -> MarkerEnvironment {
    MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
        implementation_name: "",
        implementation_version: "0",
        os_name: "",
        platform_machine: "",
        platform_python_implementation: "",
        platform_release: "",
        platform_system: "",
        platform_version: "",
        python_full_version: "0",
        python_version: "0",
        sys_platform: "",
    })
    .expect("`0` is a valid PEP 440 version")
}

fn recorded_values(markers: &MarkerValues) -> BTreeMap<&'static str, Option<String>> {
    [
        ("implementation_name", &markers.implementation_name),
        ("implementation_version", &markers.implementation_version),
        ("os_name", &markers.os_name),
        ("platform_machine", &markers.platform_machine),
        (
            "platform_python_implementation",
            &markers.platform_python_implementation,
        ),
        ("platform_release", &markers.platform_release),
        ("platform_system", &markers.platform_system),
        ("platform_version", &markers.platform_version),
        ("python_full_version", &markers.python_full_version),
        ("python_version", &markers.python_version),
        ("sys_platform", &markers.sys_platform),
    ]
    .into_iter()
    .map(|(name, value)| (name, Some(value.clone())))
    .collect()
}

/// What an older Snapshot still tells: `python.version` is `sys.version`'s first
/// word, which is `platform.python_version()`, so `python_full_version`; its
/// first two parts are `python_version`; `python.implementation` is
/// `sys.implementation.name`, and for CPython `sys.implementation.version` is
/// `sys.version_info`. The kernel release is read from
/// `/proc/sys/kernel/osrelease`, which only Linux has and which is `uname -r`;
/// envdoctor runs only on Unix, where `os.name` is `posix`. The architecture
/// is the one envdoctor was built for, whose Rust name equals `uname -m` on
/// x86_64 and aarch64 Linux only. `platform_version` (`uname -v`) was never
/// recorded.
fn rebuilt_values(snapshot: &Snapshot) -> BTreeMap<&'static str, Option<String>> {
    let python = &snapshot.python;
    let system = &snapshot.system;
    let full_version = Some(python.version.clone()).filter(|version| !version.is_empty());
    let python_version = full_version
        .as_deref()
        .map(|version| version.split('.').take(2).collect::<Vec<_>>().join("."));
    let is_cpython = python.implementation == "cpython";
    let python_implementation = match python.implementation.as_str() {
        "cpython" => Some("CPython"),
        "pypy" => Some("PyPy"),
        _ => None,
    };
    let linux = system.kernel.is_some();
    let machine = ["x86_64", "aarch64"]
        .contains(&system.architecture.as_str())
        .then(|| system.architecture.clone());
    BTreeMap::from([
        (
            "implementation_name",
            Some(python.implementation.clone()).filter(|name| !name.is_empty()),
        ),
        ("implementation_version", full_version.clone().filter(|_| is_cpython)),
        ("os_name", Some("posix".to_string())),
        ("platform_machine", machine.filter(|_| linux)),
        (
            "platform_python_implementation",
            python_implementation.map(str::to_string),
        ),
        ("platform_release", system.kernel.clone()),
        ("platform_system", linux.then(|| "Linux".to_string())),
        ("platform_version", None),
        ("python_full_version", full_version),
        ("python_version", python_version),
        ("sys_platform", linux.then(|| "linux".to_string())),
    ])
}

type ParsedLine = Result<(Requirement<pep508_rs::VerbatimUrl>, BTreeSet<String>), String>;

/// Entries the per-thread cache of parsed lines keeps before starting over.
const PARSED_CACHE_LIMIT: usize = 100_000;

thread_local! {
    static PARSED: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<ParsedLine>>> =
        std::cell::RefCell::default();
}

/// A `Requires-Dist` line parsed, with the marker variables it reads; once per
/// thread per distinct line, because `fleet` checks thousands of Snapshots whose
/// packages declare the same lines, and parsing them was most of its time.
fn parsed(line: &str) -> std::rc::Rc<ParsedLine> {
    PARSED.with_borrow_mut(|cache| {
        if let Some(parsed) = cache.get(line) {
            return parsed.clone();
        }
        if cache.len() >= PARSED_CACHE_LIMIT {
            cache.clear();
        }
        let parsed = std::rc::Rc::new(crate::packaging::names::parse_requirement(line).map(|requirement| {
            let variables = marker_variables(&requirement.marker);
            (requirement, variables)
        }));
        cache.insert(line.to_string(), parsed.clone());
        parsed
    })
}

/// The environment variables a marker reads (`extra` is not one of them).
fn marker_variables(marker: &MarkerTree) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    collect_variables(marker, &mut names);
    names
}

fn collect_variables(marker: &MarkerTree, names: &mut BTreeSet<String>) {
    match marker.kind() {
        MarkerTreeKind::True | MarkerTreeKind::False => {}
        MarkerTreeKind::Version(node) => {
            names.insert(node.key().to_string());
            for (_, child) in node.edges() {
                collect_variables(&child, names);
            }
        }
        MarkerTreeKind::String(node) => {
            names.insert(node.key().to_string());
            for (_, child) in node.children() {
                collect_variables(&child, names);
            }
        }
        MarkerTreeKind::In(node) => {
            names.insert(node.key().to_string());
            for (_, child) in node.children() {
                collect_variables(&child, names);
            }
        }
        MarkerTreeKind::Contains(node) => {
            names.insert(node.key().to_string());
            for (_, child) in node.children() {
                collect_variables(&child, names);
            }
        }
        MarkerTreeKind::Extra(node) => {
            for (_, child) in node.children() {
                collect_variables(&child, names);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::configs::TrainingConfigs;

    const SITE: &str = "/opt/venvs/train/lib/python3.11/site-packages";

    /// The recorded node, with the marker values a CPython 3.11.7 on x86_64
    /// Linux reports (as `interpreter_info.py` printed them on such a machine).
    fn snapshot(packages: Vec<Package>) -> Snapshot {
        let mut snapshot: Snapshot = serde_json::from_str(include_str!(
            "../../tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json"
        ))
        .unwrap();
        snapshot.python.markers = Some(MarkerValues {
            implementation_name: "cpython".into(),
            implementation_version: "3.11.7".into(),
            os_name: "posix".into(),
            platform_machine: "x86_64".into(),
            platform_python_implementation: "CPython".into(),
            platform_release: "5.15.0-105-generic".into(),
            platform_system: "Linux".into(),
            platform_version: "#115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024".into(),
            python_full_version: "3.11.7".into(),
            python_version: "3.11".into(),
            sys_platform: "linux".into(),
        });
        snapshot.packages = packages;
        snapshot
    }

    fn package(name: &str, version: &str, requires: &[&str]) -> Package {
        serde_json::from_value(serde_json::json!({
            "name": name, "normalized_name": normalize_name(name), "version": version,
            "version_as_written": null, "location": SITE,
            "metadata_path": format!("{SITE}/{name}-{version}.dist-info"), "metadata_format": "dist_info",
            "installer": "pip", "requested": false, "source": null, "editable_project_location": null,
            "editable_hooks": [], "requires_python": null, "requires_dist": requires, "wheel_tags": [],
            "shadowed": [], "problems": []
        }))
        .unwrap()
    }

    fn findings_of(snapshot: &Snapshot) -> Vec<Finding> {
        let configs = TrainingConfigs::default();
        run(
            &Facts::new(snapshot, &configs),
            &crate::matrix::builtin_tables().unwrap(),
        )
    }

    /// (id, first sentence of the detail): the part that mirrors pip check's line.
    fn summary(findings: &[Finding]) -> Vec<(String, String)> {
        findings
            .iter()
            .map(|finding| {
                let sentence = finding.detail.split(". ").next().unwrap_or_default();
                (finding.id.clone(), sentence.trim_end_matches('.').to_string())
            })
            .collect()
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn a_missing_dependency_is_reported_with_pips_words_and_the_install_command() {
        let findings = findings_of(&snapshot(vec![package(
            "transformers",
            "4.44.2",
            &["tokenizers<0.20,>=0.19"],
        )]));
        assert_eq!(
            summary(&findings),
            pairs(&[(
                NOT_INSTALLED,
                "transformers 4.44.2 requires tokenizers, which is not installed"
            )])
        );
        assert_eq!(findings[0].severity, Severity::Error);
        assert_eq!(findings[0].fix.as_deref(), Some("pip install 'tokenizers>=0.19,<0.20'"));
    }

    #[test]
    fn a_version_outside_the_specifier_is_reported() {
        let findings = findings_of(&snapshot(vec![
            package("peft", "0.12.0", &["torch>=2.4"]),
            package("torch", "2.3.1+cu121", &[]),
        ]));
        assert_eq!(
            summary(&findings),
            pairs(&[(
                VERSION_MISMATCH,
                "peft 0.12.0 has requirement torch>=2.4, but you have torch 2.3.1+cu121"
            )])
        );
        // torch's own version is wrong: the fix is a set the node runs, not torch alone.
        let fix = findings[0].fix.as_deref().unwrap();
        assert!(
            fix.starts_with("pip install \"torch==2.4.1\" --index-url https://download.pytorch.org/whl/cu121"),
            "{fix}"
        );
    }

    #[test]
    fn a_local_label_is_ignored_and_prereleases_are_allowed_as_pip_allows_them() {
        let findings = findings_of(&snapshot(vec![
            package("a", "1.0", &["torch==2.3.1", "torch>=2.0", "b>=1.5", "c<2"]),
            package("torch", "2.3.1+cu121", &[]),
            // A pre-release inside the range is accepted (pip: prereleases=True)...
            package("b", "2.0rc1", &[]),
            // ...but `<2` excludes pre-releases of 2 itself (PEP 440).
            package("c", "2.0rc1", &[]),
        ]));
        assert_eq!(
            summary(&findings),
            pairs(&[(VERSION_MISMATCH, "a 1.0 has requirement c<2, but you have c 2.0rc1")])
        );
    }

    #[test]
    fn markers_are_evaluated_for_this_interpreter_with_no_extra() {
        let findings = findings_of(&snapshot(vec![package(
            "a",
            "1.0",
            &[
                "old-backport; python_version < \"3.8\"",
                "windows-only; sys_platform == \"win32\"",
                "test-only; extra == \"test\"",
                "linux-x86; sys_platform == \"linux\" and platform_machine == \"x86_64\"",
                // With `extra` empty, `extra != "doc"` holds: pip checks this one.
                "not-doc; extra != \"doc\"",
            ],
        )]));
        assert_eq!(
            summary(&findings),
            pairs(&[
                (NOT_INSTALLED, "a 1.0 requires linux-x86, which is not installed"),
                (NOT_INSTALLED, "a 1.0 requires not-doc, which is not installed"),
            ])
        );
        assert!(
            findings[0].detail.contains("holds for this interpreter"),
            "{}",
            findings[0].detail
        );
    }

    #[test]
    fn names_are_compared_normalized_and_a_repeated_requirement_is_one_problem() {
        let findings = findings_of(&snapshot(vec![
            package(
                "a",
                "1.0",
                &[
                    "Zope.Interface>=5",
                    "zope-interface>=5",
                    "Missing_Thing",
                    "missing-thing",
                ],
            ),
            package("zope.interface", "6.4", &[]),
        ]));
        // One requirement once normalized: pip counts it once where its vendored
        // `packaging` compares requirements by value; pip 23.2 (packaging 21.3,
        // compared by identity) prints a line per repetition of the same problem.
        assert_eq!(
            summary(&findings),
            pairs(&[(NOT_INSTALLED, "a 1.0 requires missing-thing, which is not installed")])
        );
    }

    #[test]
    fn a_url_requirement_accepts_any_installed_version() {
        let findings = findings_of(&snapshot(vec![
            package("a", "1.0", &["b @ https://example.org/b-1.0-py3-none-any.whl"]),
            package("b", "7.0", &[]),
        ]));
        assert_eq!(summary(&findings), vec![]);
    }

    #[test]
    fn an_unparsable_requirement_is_its_own_warning() {
        let findings = findings_of(&snapshot(vec![package("a", "1.0", &["b >= = 1", "c"])]));
        let ids: Vec<&str> = findings.iter().map(|finding| finding.id.as_str()).collect();
        assert_eq!(ids, [UNPARSABLE, NOT_INSTALLED]);
        assert_eq!(findings[0].severity, Severity::Warning);
        assert!(
            findings[0].detail.contains("`Requires-Dist: b >= = 1`"),
            "{}",
            findings[0].detail
        );
    }

    #[test]
    fn a_snapshot_without_marker_values_is_checked_from_rebuilt_ones_and_says_so() {
        let mut old = snapshot(vec![package(
            "a",
            "1.0",
            &[
                "needed; python_version >= \"3.8\" and platform_machine == \"x86_64\"",
                "unknowable; platform_version == \"#1 SMP\"",
                "old; python_version < \"3.8\"",
            ],
        )]);
        old.python.markers = None;
        let findings = findings_of(&old);
        assert_eq!(
            summary(&findings),
            pairs(&[
                (NOT_INSTALLED, "a 1.0 requires needed, which is not installed"),
                (
                    MARKERS_RECONSTRUCTED,
                    "This Snapshot does not record the interpreter's marker values (it predates them)"
                ),
            ])
        );
        assert!(
            findings[0].detail.contains("rebuilt from an older Snapshot"),
            "{}",
            findings[0].detail
        );
        let note = &findings[1].detail;
        assert!(
            note.contains("2 requirement(s) with environment markers were evaluated"),
            "{note}"
        );
        assert!(note.contains("python_full_version `3.11.7`"), "{note}");
        assert!(note.contains("platform_release `5.15.0-105-generic`"), "{note}");
        assert!(
            note.contains("a: `unknowable; platform_version == \"#1 SMP\"`"),
            "{note}"
        );
        assert_eq!(findings[1].severity, Severity::Info);
    }

    #[test]
    fn an_old_snapshot_without_markered_requirements_needs_no_note() {
        let mut old = snapshot(vec![package("a", "1.0", &["b; extra == \"test\""])]);
        old.python.markers = None;
        assert_eq!(summary(&findings_of(&old)), vec![]);
    }

    #[test]
    fn an_untagged_build_version_is_read_as_packaging_reads_it() {
        // `3.10.0+` is `3.10.0+local` to packaging: equal to 3.10.0 for `==`, not greater for `>`.
        let mut dev = snapshot(vec![package(
            "a",
            "1.0",
            &[
                "tomli; python_version < \"3.11\"",
                "exact; python_full_version == \"3.10.0\"",
                "later; python_full_version > \"3.10.0\"",
            ],
        )]);
        if let Some(markers) = dev.python.markers.as_mut() {
            markers.python_full_version = "3.10.0+".into();
            markers.python_version = "3.10".into();
        }
        assert_eq!(
            summary(&findings_of(&dev)),
            pairs(&[
                (NOT_INSTALLED, "a 1.0 requires tomli, which is not installed"),
                (NOT_INSTALLED, "a 1.0 requires exact, which is not installed"),
            ])
        );
    }

    #[test]
    fn extras_of_a_requirement_are_kept_in_the_fix_but_not_checked() {
        let findings = findings_of(&snapshot(vec![
            package("a", "1.0", &["b[fast]>=2"]),
            package("b", "1.0", &[]),
        ]));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].fix.as_deref(), Some("pip install 'b[fast]>=2'"));
    }
}
