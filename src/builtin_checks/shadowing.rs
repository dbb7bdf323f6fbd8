//! A distribution with more than one copy on `sys.path`.
//!
//! Python imports the first copy on `sys.path`; the package inventory keeps the
//! later ones as `shadowed` (see `probe::packages`). That is by design when both
//! copies sit in the interpreter's own site-packages directories, in their
//! order (a venv made with `--system-site-packages` over the system's packages,
//! Debian's `/usr/local` over `/usr/lib`). It is a trap when the first copy
//! comes from elsewhere (`PYTHONPATH`, the user site, a directory a `.pth` file
//! adds): `pip install --upgrade` then changes the copy in site-packages that
//! Python never imports, and a process started without that path (a launcher
//! that clears `PYTHONPATH`, another user) imports the other version.
//!
//! One finding per shadowed copy:
//! - `distribution-shadowed` (warning): a different version, and the copy
//!   Python imports lies outside the interpreter's site-packages;
//! - `distribution-shadowed-benign` (info): the same version, or the copy Python
//!   imports is the one in the interpreter's site-packages (which pip manages);
//! - `distribution-metadata-duplicated` (warning): two versions' metadata in one
//!   directory, usually an interrupted upgrade; the code on disk is one of them.

use std::path::Path;

use super::BuiltinCheck;
use crate::facts::Facts;
use crate::findings::{Finding, Severity};
use crate::shell;
use crate::snapshot::packages::{Package, ShadowedCopy};

const SHADOWED: &str = "distribution-shadowed";
const BENIGN: &str = "distribution-shadowed-benign";
const DUPLICATED: &str = "distribution-metadata-duplicated";

const SYS_PATH_INIT: &str = "https://docs.python.org/3/library/sys_path_init.html";
const SITE: &str = "https://docs.python.org/3/library/site.html";
const RECORDING_INSTALLED: &str = "https://packaging.python.org/en/latest/specifications/recording-installed-packages/";

pub(super) const CHECKS: &[BuiltinCheck] = &[BuiltinCheck {
    id: "shadowed-distributions",
    title: "No distribution is installed twice on sys.path",
    produces: &[SHADOWED, BENIGN, DUPLICATED],
    explanation: "Lists distributions with a second copy later on sys.path, which Python never imports. When the \
        imported copy comes from PYTHONPATH, the user site or a .pth-added directory, upgrades made with pip \
        land in the copy that is not imported, and a process started without that path imports the other \
        version. Two versions' metadata in one directory mean an interrupted install.",
    run: |facts, _| run(facts),
}];

fn run(facts: &Facts) -> Vec<Finding> {
    facts
        .packages
        .values()
        .flat_map(|package| {
            package
                .shadowed
                .iter()
                .filter_map(move |copy| finding_for(facts, package, copy))
        })
        .collect()
}

/// Where the imported copy came from, as far as the Snapshot tells.
enum Origin<'a> {
    /// One of the interpreter's own site-packages directories.
    SitePackages,
    /// The user site (`pip install --user`).
    UserSite,
    /// An entry of `PYTHONPATH`; the other entries, to keep.
    PythonPath { others: Vec<&'a str> },
    /// Anything else: a `.pth` file, `sitecustomize`, `PYTHONHOME` tricks.
    Other,
}

fn origin_of<'a>(facts: &Facts<'a>, location: &Path) -> Origin<'a> {
    let python = &facts.snapshot.python;
    if python.site_packages.iter().any(|site| site == location) {
        return Origin::SitePackages;
    }
    if python.user_site_enabled && python.user_site.as_deref() == Some(location) {
        return Origin::UserSite;
    }
    if let Some(pythonpath) = facts.env("PYTHONPATH") {
        let entries: Vec<&str> = pythonpath.split(':').filter(|entry| !entry.is_empty()).collect();
        if entries.iter().any(|entry| Path::new(entry) == location) {
            let others = entries
                .into_iter()
                .filter(|entry| Path::new(entry) != location)
                .collect();
            return Origin::PythonPath { others };
        }
    }
    Origin::Other
}

fn finding_for(facts: &Facts, package: &Package, copy: &ShadowedCopy) -> Option<Finding> {
    let name = &package.name;
    let imported_version = package.version.as_deref().unwrap_or("(no version)");
    let other_version = copy.version.as_deref().unwrap_or("(no version)");
    let imported_at = package.location.display();
    let other_at = copy.location.display();
    let executable = facts.snapshot.python.executable.display().to_string();

    if copy.location == package.location {
        // Debian ships a dist-info and an egg-info of one version side by side: not broken.
        if copy.version == package.version {
            return None;
        }
        return Some(Finding {
            id: DUPLICATED.to_string(),
            origin: String::new(),
            severity: Severity::Warning,
            title: format!("{name} has metadata of two versions in {imported_at}"),
            detail: format!(
                "{} says {name} {imported_version}, {} says {name} {other_version}; both are in {imported_at}.",
                package.metadata_path.display(),
                copy.metadata_path.display()
            ),
            why: format!(
                "An install or upgrade of {name} was interrupted, or two installers wrote to one directory. \
                 There is one copy of the code but two records of it: which version Python's metadata and pip \
                 report depends on directory order, and uninstalling one version removes files the other needs."
            ),
            fix: Some(format!(
                "rm -r {} && {} -m pip install --force-reinstall --no-deps {}",
                shell::quote(&copy.metadata_path.display().to_string()),
                shell::quote(&executable),
                shell::quote(&format!("{name}=={imported_version}"))
            )),
            references: vec![RECORDING_INSTALLED.to_string()],
            fix_note: None,
            unsettled: None,
        });
    }

    let origin = origin_of(facts, &package.location);
    let imported_from_site = matches!(origin, Origin::SitePackages);
    let same_version = copy.version == package.version;
    let how = match &origin {
        Origin::SitePackages => "one of the interpreter's site-packages directories".to_string(),
        Origin::UserSite => "the user site-packages (`pip install --user`)".to_string(),
        Origin::PythonPath { .. } => "a PYTHONPATH entry".to_string(),
        Origin::Other => "a directory that a .pth file or sitecustomize adds to sys.path".to_string(),
    };
    let detail = format!(
        "Python imports {name} {imported_version} from {imported_at} ({how}); {name} {other_version} in \
         {other_at}, later on sys.path, is never imported."
    );
    let fix = match &origin {
        // The copy in site-packages is the one in use and the one pip manages.
        Origin::SitePackages => None,
        Origin::PythonPath { others } if others.is_empty() => Some("unset PYTHONPATH".to_string()),
        Origin::PythonPath { others } => Some(format!("export PYTHONPATH={}", shell::quote(&others.join(":")))),
        // pip uninstalls the first copy it finds, the user site's: Python's order.
        Origin::UserSite => Some(format!(
            "{} -m pip uninstall {}",
            shell::quote(&executable),
            shell::quote(name)
        )),
        // With no site directory to search, grep would wait on standard input.
        Origin::Other => pth_globs(facts).map(|globs| {
            format!(
                "grep -lF {} {globs}  # then delete that line, or that directory's copy of the package",
                shell::quote(&imported_at.to_string())
            )
        }),
    };
    if same_version || imported_from_site {
        let why = if imported_from_site {
            format!(
                "The copy in use is the one in the interpreter's site-packages, the one pip installs, \
                 upgrades and reports; the earlier directory wins by design (a virtual environment with \
                 --system-site-packages over the system's packages, /usr/local over /usr/lib). It matters \
                 only if {other_at} was meant to be used."
            )
        } else {
            format!(
                "The same version today, so nothing breaks now; but pip upgrades and uninstalls one copy at a \
                 time, so after the next `pip install --upgrade {name}` the two can differ, and a process \
                 started without {imported_at} on sys.path imports the other."
            )
        };
        return Some(Finding {
            id: BENIGN.to_string(),
            origin: String::new(),
            severity: Severity::Info,
            title: format!("{name} is installed twice on sys.path; the first copy is used"),
            detail,
            why,
            fix,
            references: vec![SYS_PATH_INIT.to_string(), SITE.to_string()],
            fix_note: None,
            unsettled: None,
        });
    }
    Some(Finding {
        id: SHADOWED.to_string(),
        origin: String::new(),
        severity: Severity::Warning,
        title: format!("{name} {imported_version} from {imported_at} hides {name} {other_version}"),
        detail,
        why: format!(
            "Python imports the first copy on sys.path, {name} {imported_version}. A pip that runs without \
             that path (another shell, a launcher that resets the environment) reports {other_version}, and \
             `pip install --upgrade {name}` into {other_at} changes a copy this interpreter never imports, \
             so an upgrade seems to have no effect."
        ),
        fix,
        references: vec![SYS_PATH_INIT.to_string(), SITE.to_string()],
        fix_note: None,
        unsettled: None,
    })
}

/// The `.pth` files `site` reads: those in the site-packages and user site directories.
fn pth_globs(facts: &Facts) -> Option<String> {
    let python = &facts.snapshot.python;
    let mut directories: Vec<String> = python
        .site_packages
        .iter()
        .map(|directory| format!("{}/*.pth", shell::quote(&directory.display().to_string())))
        .collect();
    if let (true, Some(user_site)) = (python.user_site_enabled, &python.user_site) {
        directories.push(format!("{}/*.pth", shell::quote(&user_site.display().to_string())));
    }
    (!directories.is_empty()).then(|| directories.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::configs::TrainingConfigs;
    use crate::packaging::normalize_name;
    use crate::snapshot::Snapshot;

    const SITE: &str = "/opt/venvs/train/lib/python3.11/site-packages";

    fn snapshot(packages: Vec<Package>) -> Snapshot {
        let mut snapshot: Snapshot = serde_json::from_str(include_str!(
            "../../tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json"
        ))
        .unwrap();
        snapshot.packages = packages;
        snapshot
    }

    /// `name` at `version` imported from `location`, with other copies later on sys.path.
    fn package(name: &str, version: &str, location: &str, shadowed: &[(&str, &str)]) -> Package {
        let shadowed: Vec<serde_json::Value> = shadowed
            .iter()
            .map(|(version, location)| {
                serde_json::json!({
                    "version": version, "location": location,
                    "metadata_path": format!("{location}/{name}-{version}.dist-info"),
                })
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "name": name, "normalized_name": normalize_name(name), "version": version,
            "version_as_written": null, "location": location,
            "metadata_path": format!("{location}/{name}-{version}.dist-info"), "metadata_format": "dist_info",
            "installer": "pip", "requested": false, "source": null, "editable_project_location": null,
            "editable_hooks": [], "requires_python": null, "requires_dist": [], "wheel_tags": [],
            "shadowed": shadowed, "problems": []
        }))
        .unwrap()
    }

    fn findings_of(snapshot: &Snapshot) -> Vec<Finding> {
        let configs = TrainingConfigs::default();
        run(&Facts::new(snapshot, &configs))
    }

    #[test]
    fn a_pythonpath_copy_hiding_another_version_is_a_warning_with_the_path_to_drop() {
        let mut node = snapshot(vec![package(
            "transformers",
            "4.30.0",
            "/home/me/old",
            &[("4.44.2", SITE)],
        )]);
        node.env
            .insert("PYTHONPATH".into(), "/home/me/old:/home/me/tools".into());
        let findings = findings_of(&node);
        assert_eq!(findings.len(), 1);
        let finding = &findings[0];
        assert_eq!((finding.id.as_str(), finding.severity), (SHADOWED, Severity::Warning));
        assert_eq!(
            finding.detail,
            format!(
                "Python imports transformers 4.30.0 from /home/me/old (a PYTHONPATH entry); transformers 4.44.2 \
                 in {SITE}, later on sys.path, is never imported."
            )
        );
        assert_eq!(finding.fix.as_deref(), Some("export PYTHONPATH='/home/me/tools'"));

        node.env.insert("PYTHONPATH".into(), "/home/me/old".into());
        assert_eq!(findings_of(&node)[0].fix.as_deref(), Some("unset PYTHONPATH"));
    }

    #[test]
    fn a_user_site_copy_is_uninstalled_with_this_interpreters_pip() {
        let mut node = snapshot(vec![package(
            "torch",
            "2.1.0",
            "/root/.local/lib/python3.11/site-packages",
            &[("2.3.1", SITE)],
        )]);
        node.python.user_site_enabled = true;
        let findings = findings_of(&node);
        assert_eq!(findings[0].id, SHADOWED);
        assert!(
            findings[0].detail.contains("the user site-packages"),
            "{}",
            findings[0].detail
        );
        assert_eq!(
            findings[0].fix.as_deref(),
            Some("'/opt/venvs/train/bin/python' -m pip uninstall 'torch'")
        );
    }

    #[test]
    fn a_pth_added_copy_points_at_the_pth_files() {
        let findings = findings_of(&snapshot(vec![package(
            "peft",
            "0.10.0",
            "/src/peft",
            &[("0.12.0", SITE)],
        )]));
        assert_eq!(findings[0].id, SHADOWED);
        assert!(
            findings[0]
                .fix
                .as_deref()
                .unwrap()
                .starts_with(&format!("grep -lF '/src/peft' '{SITE}'/*.pth"))
        );
    }

    #[test]
    fn site_packages_winning_or_one_version_twice_is_only_information() {
        let findings = findings_of(&snapshot(vec![
            // A --system-site-packages venv: its own copy wins by design.
            package("numpy", "1.26.4", SITE, &[("1.24.4", "/usr/lib/python3/dist-packages")]),
            package("peft", "0.12.0", "/src/peft", &[("0.12.0", SITE)]),
        ]));
        let summary: Vec<(&str, Severity, bool)> = findings
            .iter()
            .map(|finding| (finding.id.as_str(), finding.severity, finding.fix.is_some()))
            .collect();
        assert_eq!(
            summary,
            [(BENIGN, Severity::Info, false), (BENIGN, Severity::Info, true)]
        );
    }

    #[test]
    fn two_versions_in_one_directory_are_a_broken_install_and_one_version_twice_is_debian() {
        let findings = findings_of(&snapshot(vec![
            package("accelerate", "0.33.0", SITE, &[("0.30.1", SITE)]),
            package("six", "1.16.0", SITE, &[("1.16.0", SITE)]),
        ]));
        assert_eq!(findings.len(), 1);
        assert_eq!(
            (findings[0].id.as_str(), findings[0].severity),
            (DUPLICATED, Severity::Warning)
        );
        assert_eq!(
            findings[0].fix.as_deref(),
            Some(
                format!(
                    "rm -r '{SITE}/accelerate-0.30.1.dist-info' && '/opt/venvs/train/bin/python' -m pip install \
                     --force-reinstall --no-deps 'accelerate==0.33.0'"
                )
                .as_str()
            )
        );
    }

    #[test]
    fn nothing_shadowed_says_nothing() {
        assert!(findings_of(&snapshot(vec![package("torch", "2.3.1", SITE, &[])])).is_empty());
    }
}
