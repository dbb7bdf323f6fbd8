//! pip's own account of a requirement it could not install: `Could not find a
//! version that satisfies the requirement torch==1.13.1 (from versions: 2.0.0,
//! ..., 2.4.1)`. The list is every release of which the index offers a file this
//! interpreter and platform can install (a wheel whose tags fit, or an sdist),
//! less the releases whose Requires-Python excludes the interpreter, which pip
//! names just above (`Ignored the following versions that require a different
//! python version: 1.21.2 Requires-Python >=3.7,<3.11`). So where the pin falls
//! against the list says which side is wrong: a pin older than every release
//! offered is a release made before this interpreter (it is too new for it);
//! one newer than every release offered is an interpreter or a platform the
//! release no longer builds for; an empty list is nothing at all for it here,
//! or an index pip never reached.

use std::cmp::Ordering;
use std::str::FromStr;

use pep508_rs::VersionOrUrl;
use pep508_rs::pep440_rs::{Version, VersionSpecifiers};

use super::{Context, Reading, text};

use crate::knowledge::tables::{MajorMinor, Tables, TorchRelease};
use crate::packaging::{names::parse_requirement, normalize_name};

/// torch's release does not publish for this interpreter.
pub const TORCH_PYTHON: &str = "python-supported-by-torch";
/// Any package: the index has no file of the pinned release for this
/// interpreter and platform.
pub const NO_RELEASE: &str = "pip-finds-no-release-here";

/// Released together with torch, for the same interpreters (RELEASE.md's
/// compatibility matrix lists them beside it).
const TORCH_FAMILY: [&str; 3] = ["torch", "torchvision", "torchaudio"];

const NOT_FOUND: &str = "satisfies the requirement ";
const OFFERED: &str = "(from versions: ";
const SKIPPED: &str = "require a different python version: ";
/// pip's words when it could not read the index: then an empty list says
/// nothing of what the index holds.
const NETWORK_TROUBLE: [&str; 6] = [
    "Retrying (Retry(",
    "NewConnectionError",
    "Could not fetch URL",
    "ProxyError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
];

/// What lets pip read an index, for a fix to name.
const REACHING_THE_INDEX: &str =
    "the network, the proxy (HTTPS_PROXY) and the index URLs pip uses (python -m pip config list)";

/// Where the pin falls against what pip offers.
#[derive(Debug, PartialEq, Eq)]
enum Side {
    /// pip names the pinned release among those it skipped for Requires-Python.
    Skipped(String),
    /// Older than every release offered: made before this interpreter. Settled
    /// where a release of the pin's major is offered, or where the interpreter
    /// is known to be newer than the release's range: otherwise a pin of a
    /// major nothing here shares may be a platform the release never built
    /// for, a version that does not exist, or one on another index.
    Older { same_major_offered: bool },
    /// Newer than every release offered.
    Newer,
    /// Between releases offered, none of which it admits (`cumm<0.5.0,>=0.4.5`
    /// beside 0.1.0 and 0.5.0): the releases it admits have no file here.
    Between,
    /// Nothing offered at all.
    Nothing,
    /// A local build (`+cu113`) of a release that is offered without it.
    LocalBuild(String),
}

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let rest = text::after_marker(text, NOT_FOUND)?;
    let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
    // Who asked comes before the list: `torch==1.13.1 (from foo) (from
    // versions: ...)`, `-r requirements.txt (line 3)`, or older pip's
    // `spconv (from pcdet)` with no list at all.
    let pinned = rest[..rest.find(" (").unwrap_or(rest.len())].trim();
    let requirement = parse_requirement(pinned).ok()?;
    let name = normalize_name(requirement.name.as_ref());
    let torch = TORCH_FAMILY.contains(&name.as_str());
    let Some(listed) = rest.find(OFFERED).map(|open| &rest[open + OFFERED.len()..]) else {
        return Some(unlisted(
            &name,
            torch,
            older_than_its_python(context, torch, &requirement),
        ));
    };
    let listed = &listed[..listed.find(')')?];
    let offered: Vec<Version> = listed
        .split(',')
        .filter_map(|version| Version::from_str(version.trim()).ok())
        .collect();
    let specifiers = match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(specifiers)) => Some(specifiers),
        _ => None,
    };
    // The versions the requirement names, without a local build's tag.
    let pins: Vec<Version> = specifiers
        .iter()
        .flat_map(|specifiers| specifiers.iter())
        .map(|specifier| specifier.version().clone().without_local())
        .collect();
    let skipped = skipped_list(text, context);
    let side = side(skipped, specifiers, &pins, &offered)?;
    // A torch pin between releases offered is most often one that does not
    // exist (torch 2.1.5), which the interpreter does not decide.
    if torch && side == Side::Between {
        return None;
    }
    let (lowest, highest) = (offered.first(), offered.last());
    // The oldest release newer than the pin (not PyPI's torch 0.1.2 placeholder).
    let nearest_newer = offered
        .iter()
        .find(|version| pins.iter().all(|pin| *version > pin))
        .or(lowest);
    let range = match (lowest, highest) {
        (Some(low), Some(high)) if low != high => format!("{name} {low} to {high}"),
        (Some(only), _) => format!("only {name} {only}"),
        _ => format!("no release of {name}"),
    };
    let mut interpreter = interpreter_note(context, torch, specifiers, &side);
    let reach_a_release = nearest_newer
        .map(|low| {
            format!(", or pin a release this interpreter has (pip offers {range} here): pip install \"{name}>={low}\"")
        })
        .unwrap_or_default();
    let (said, fix, settles) = match &side {
        Side::Skipped(requires) => (
            format!("pip skipped {pinned}: it requires Python {requires}, which this interpreter is not"),
            format!(
                "run the job with a Python that {requires} admits, in a new environment (python3.X -m venv, or conda create -n NAME python=3.X){reach_a_release}"
            ),
            true,
        ),
        Side::Older { same_major_offered } => (
            format!(
                "pip offers {range} for this interpreter and platform, none as old as {pinned}: that release publishes no file for this interpreter, which is newer than the ones it was built for"
            ),
            format!(
                "run the job with an older Python that {pinned} was built for, in a new environment (python3.X -m venv, or conda create -n NAME python=3.X){reach_a_release} (code written for the old release may need changes)"
            ),
            // The interpreter beyond the release's range settles it as well as
            // a newer release of the same major does, where the list is the
            // one PyPI gives that interpreter (see `list_begins_with_the_interpreter`);
            // an interpreter inside that range leaves the release or the
            // platform to blame.
            (*same_major_offered
                || (interpreter.iter().any(|(holds, _)| *holds == Some(true))
                    && list_begins_with_the_interpreter(context, nearest_newer, &offered)))
                && !interpreter.iter().any(|(holds, _)| *holds == Some(false)),
        ),
        Side::Newer => (
            format!(
                "pip offers {range} for this interpreter and platform, none as new as {pinned}: the release publishes no file for this interpreter (an older Python than it supports) or for this platform"
            ),
            format!(
                "check the interpreter and platform pip ran for (python -c 'import sys, platform; print(sys.version, platform.machine())'): run the job with a Python that {pinned} supports, or on a platform it publishes for{reach_a_release}"
            ),
            interpreter.iter().any(|(holds, _)| *holds == Some(true)),
        ),
        Side::Between => (
            format!(
                "pip offers {range} for this interpreter and platform, none that {pinned} admits: the releases it asks for publish no file this interpreter and platform can install there"
            ),
            format!(
                "check the interpreter and platform pip ran for (python -c 'import sys, platform; print(sys.version, platform.machine())'): run the job with a Python the releases {pinned} admits were built for, or loosen the requirement to a release pip lists here"
            ),
            false,
        ),
        Side::Nothing => (
            format!(
                "pip finds no release of {name} at all for this interpreter and platform on the index it read: {name} publishes no file this interpreter and platform can install there, or is not on that index"
            ),
            format!(
                "check that the interpreter is a 64-bit Python on a platform {name} publishes files for (python -c 'import sys, platform; print(sys.version, platform.machine())'), and that {name} is on the index under that name: a package its project builds from source or hosts elsewhere is installed as its README says (a build such as +cu121 is on the index that hosts it; torch: --index-url https://download.pytorch.org/whl/cu121); a 'Retrying' warning above the error means pip never reached the index (the network or a proxy)"
            ),
            // The list is pip's own account of the index it read: that is the
            // cause whatever its reason (no file for this interpreter or
            // platform, a name the index does not hold), except for torch,
            // whose empty list is an interpreter its releases skip
            // (`TORCH_PYTHON`, settled by the node's interpreter when it
            // speaks for the log).
            !torch,
        ),
        Side::LocalBuild(local) => (
            format!(
                "pip offers {name} without the local build +{local}: builds such as +{local} are only on the index that hosts them"
            ),
            match torch {
                true => format!(
                    "python -m pip install \"{pinned}\" --extra-index-url https://download.pytorch.org/whl/{local}"
                ),
                false => format!(
                    "python -m pip install \"{pinned}\" --extra-index-url URL, with the index the project's install page gives for +{local}"
                ),
            },
            true,
        ),
    };
    // For any package but torch, the list is pip's own account of what the
    // index holds for this interpreter and platform, and none of it is what
    // the requirement admits: that is the cause, whichever side the pin is
    // on (the side only says why). torch's missing release is its own cause,
    // which the interpreter settles. A pin beyond or between them may instead
    // be a release that never existed (open3d==1.10.0 in a requirements
    // file): the list settles it where another package's published
    // requirement asked for it (`(from spconv)`), which names releases that exist.
    let settles = settles || (!torch && side != Side::Nothing && asked_by_a_package(rest));
    // What is left open then is whether the release exists at all: the index
    // knows, and no interpreter here needs to ask it.
    if !settles && !torch && matches!(side, Side::Newer | Side::Between) {
        interpreter.push((
            None,
            format!(
                "whether {pinned} exists at all (https://pypi.org/project/{name}/#history, or the index the project names): if it does, it publishes no file for this interpreter or platform; if it does not, the requirement is mistaken and a release pip lists here is the fix"
            ),
        ));
    }
    // Unless pip says it could not read an index: then its list is not all
    // the index holds, and says nothing of what is missing from it.
    let (said, fix, settles) = match unreached_index(text, context, &name) {
        Some(words) => {
            interpreter.push((
                None,
                format!("whether pip can read the index: it printed '{words}' before the failure; rerun the install where {REACHING_THE_INDEX} let it through"),
            ));
            (
                format!(
                    "{said}; but pip says before it that it could not read an index ('{words}'), so the list is not all that index holds"
                ),
                format!(
                    "first let pip reach the index: check {REACHING_THE_INDEX}, and rerun the install; if it then still fails: {fix}"
                ),
                false,
            )
        }
        None => (said, fix, settles),
    };
    // A real torch release offered (not PyPI's 0.1.2 placeholder, a source
    // archive any interpreter installs) says the index serves this interpreter
    // and platform; where the pinned release itself publishes for the node's
    // interpreter, strictly inside its Python range, what is missing is the
    // release's file for this platform or on this index, not the interpreter
    // (alwaysonaiassistant2: torch 2.5.1 on Python 3.11, where pip offered up
    // to 2.2.2, the last release with Intel-macOS wheels). An empty list, or
    // the placeholder alone, may be a log from before torch published for the
    // interpreter, which a table of today's releases cannot tell.
    let for_this_interpreter = name == "torch"
        && side == Side::Newer
        && offered.iter().any(|version| !is_placeholder(version))
        && pinned_release_serves_interpreter(context, specifiers);
    let (said, fix, settles) = match for_this_interpreter {
        true => (
            format!(
                "{said}; that release publishes for this interpreter, so what is missing is its file for this platform or on this index"
            ),
            format!(
                "check the platform pip ran for (python -c 'import sys, platform; print(sys.version, platform.machine(), platform.system())'): install {pinned} from PyTorch's own index for this platform and CUDA (https://pytorch.org/get-started/previous-versions/ gives each release's command), or run the job on a platform the release publishes for (a 64-bit Python)"
            ),
            true,
        ),
        false => (said, fix, settles),
    };
    let (cause, rules_out) = match (torch, &side) {
        (true, Side::LocalBuild(_)) => (NO_RELEASE, vec![TORCH_PYTHON]),
        (true, _) if for_this_interpreter => (NO_RELEASE, vec![TORCH_PYTHON]),
        (true, _) => (TORCH_PYTHON, Vec::new()),
        (false, _) => (NO_RELEASE, vec![TORCH_PYTHON]),
    };
    Some(Reading {
        cause,
        said,
        node: interpreter,
        fix,
        stated: !matches!(side, Side::Nothing),
        settles,
        rules_out,
    })
}

/// Whether pip names a package whose requirement this is (`cumm<0.5.0,>=0.4.5
/// (from spconv)`), not a requirements file or the command line.
fn asked_by_a_package(rest: &str) -> bool {
    rest.match_indices(" (from ").any(|(at, marker)| {
        let asker = &rest[at + marker.len()..];
        !asker.starts_with("versions:") && !asker.starts_with("-r ")
    })
}

/// pip's failure without the releases it found (older pip): which package,
/// but not why; torch's Python support is left open, anything else's ruled
/// out. An interpreter newer than every one the pinned torch release was
/// built for settles it (deeprlalgorithms64: torch==0.4.1 on Python 3.8).
fn unlisted(name: &str, torch: bool, too_new: Option<(Option<bool>, String)>) -> Reading {
    if let Some((Some(true), fact)) = &too_new {
        return Reading {
            cause: TORCH_PYTHON,
            said: format!("pip found no release of {name} it could install here: {fact}"),
            node: vec![(Some(true), fact.clone())],
            fix: "run the job with a Python the pinned torch release was built for, in a new environment (python3.X -m venv, or conda create -n NAME python=3.X), or pin a torch release made for this interpreter (code written for the old release may need changes)".to_string(),
            stated: true,
            settles: true,
            rules_out: Vec::new(),
        };
    }
    Reading {
        cause: if torch { TORCH_PYTHON } else { NO_RELEASE },
        said: format!("pip found no release of {name} it could install here, and does not list what it found"),
        node: Vec::new(),
        fix: format!(
            "rerun the install with python -m pip install -v, which lists the releases the index offers this interpreter and platform, and compare them with the one {name} needs"
        ),
        stated: false,
        settles: false,
        rules_out: if torch { Vec::new() } else { vec![TORCH_PYTHON] },
    }
}

/// Where the pin falls against `offered`; `None` where the list says nothing
/// of it: a release offered that the requirement admits (pip then failed
/// it for another reason: its build, its hash, a yank), or no pin at all
/// beside a list that is not empty.
fn side(
    skipped: Option<&str>,
    specifiers: Option<&VersionSpecifiers>,
    pins: &[Version],
    offered: &[Version],
) -> Option<Side> {
    let Some(specifiers) = specifiers.filter(|specifiers| !specifiers.is_empty()) else {
        // Nothing offered, and every release skipped for its Requires-Python.
        let requires = skipped.and_then(|listed| skipped_for_python(listed, None));
        return offered
            .is_empty()
            .then(|| requires.map_or(Side::Nothing, Side::Skipped));
    };
    if let Some(requires) = skipped.and_then(|listed| skipped_for_python(listed, Some(specifiers))) {
        return Some(Side::Skipped(requires));
    }
    if offered.is_empty() {
        return Some(Side::Nothing);
    }
    if let [only] = specifiers.iter().collect::<Vec<_>>().as_slice()
        && let Some(local) = only.version().local().first()
        && offered.contains(&pins[0])
    {
        return Some(Side::LocalBuild(local.to_string()));
    }
    // Judged within the pin's major version: a package's first releases are
    // often source archives any interpreter may install (torch 0.1.2 on PyPI
    // is a placeholder that only says to install from pytorch.org), listed
    // below a pin that has no file here.
    let same_major = |version: &&Version| {
        pins.iter()
            .any(|pin| version.release().first() == pin.release().first())
    };
    if offered.iter().any(|version| pins.iter().all(|pin| version > pin))
        && offered
            .iter()
            .filter(same_major)
            .all(|version| pins.iter().all(|pin| version > pin))
    {
        return Some(Side::Older {
            same_major_offered: offered.iter().any(|version| same_major(&version)),
        });
    }
    if offered.iter().all(|version| pins.iter().all(|pin| version < pin)) {
        return Some(Side::Newer);
    }
    (!offered.iter().any(|version| specifiers.contains(version))).then_some(Side::Between)
}

/// pip's list of the releases it passed over for their Requires-Python
/// (`1.21.2 Requires-Python >=3.7,<3.11; 1.21.3 Requires-Python ...`), which
/// it prints on the line just before the failure it belongs to: the list
/// names no package, so one printed earlier may be another requirement's.
fn skipped_list<'t>(text: &'t str, context: Context<'t>) -> Option<&'t str> {
    let listed = text::after_marker(text, SKIPPED).or_else(|| text::after_marker(context.earlier.last()?, SKIPPED))?;
    listed.lines().next()
}

/// The Requires-Python of the first release in pip's `skipped` list that
/// the requirement admits (any, for a requirement with no version).
fn skipped_for_python(skipped: &str, specifiers: Option<&VersionSpecifiers>) -> Option<String> {
    skipped.split(';').find_map(|item| {
        let (version, requires) = item.trim().split_once(" Requires-Python ")?;
        let version = Version::from_str(version.trim()).ok()?;
        specifiers
            .is_none_or(|specifiers| specifiers.contains(&version))
            .then(|| requires.trim().to_string())
    })
}

/// pip's (or urllib3's) words that say it could not read the index for
/// `name`: in the failure itself, or on a line printed before it that names
/// the package's page there (`... connection broken by ...: /simple/numpy/`,
/// `/whl/cu118/torch/`). A retry of another package's page, or of one pip
/// then read, says nothing of this list.
fn unreached_index(text: &str, context: Context, name: &str) -> Option<&'static str> {
    let page = format!("/{name}/");
    NETWORK_TROUBLE.into_iter().find(|words| {
        text.contains(words)
            || context
                .earlier
                .iter()
                .any(|line| line.contains(words) && crate::ascii_case::contains(line, &page))
    })
}

/// The interpreter the log ran, where this node speaks for it, against the
/// Python range of torch's release (PyTorch's compatibility matrix).
fn interpreter_note(
    context: Context,
    torch: bool,
    specifiers: Option<&VersionSpecifiers>,
    side: &Side,
) -> Vec<(Option<bool>, String)> {
    let (Some(facts), Some(tables), true) = (context.facts, context.tables, torch) else {
        return Vec::new();
    };
    // A local build's index says nothing of the interpreter.
    if matches!(side, Side::LocalBuild(_)) {
        return Vec::new();
    }
    let Some(python) = facts.python_version.as_ref().and_then(MajorMinor::of) else {
        return Vec::new();
    };
    let pinned = pinned_release(specifiers);
    let release = pinned.and_then(|release| tables.torch.release(release));
    match release {
        Some(row) => {
            // The side the reading says the interpreter is on, where it says one.
            // The rows are a release's minor as a whole, and a patch can lack
            // its newest or oldest Python (torch 1.7.0 has no wheel for 3.9,
            // 1.7.1 has), so the edge of the range decides nothing; nor does a
            // Python the release has wheels for on some platforms only.
            let holds = match side {
                _ if row.python_experimental.contains(&python) => None,
                Side::Older { .. } => edge(python.cmp(&row.python_max), Ordering::Greater),
                Side::Newer => edge(python.cmp(&row.python_min), Ordering::Less),
                _ => Some(!(row.python_min..=row.python_max).contains(&python)),
            };
            vec![(
                holds,
                format!(
                    "the interpreter is Python {python}; torch {} supports Python {} to {}",
                    row.torch, row.python_min, row.python_max
                ),
            )]
        }
        None => match (side, pinned.and_then(|pinned| oldest_row_after(tables, pinned))) {
            (Side::Older { .. }, Some((first, text))) => vec![(
                edge(python.cmp(&first.python_max), Ordering::Greater),
                format!("the interpreter is Python {python}; {text}"),
            )],
            _ => vec![(None, format!("the interpreter is Python {python}"))],
        },
    }
}

/// PyPI's torch 0.1.2 (and its .post releases): a source archive any
/// interpreter installs, which only says to install from pytorch.org.
fn is_placeholder(version: &Version) -> bool {
    version.release().first() == Some(&0) && version.release().get(1).is_some_and(|minor| *minor < 2)
}

/// The release a requirement asks for: the version of its first specifier
/// that the specifiers admit (`torch<1.2.0,>=1.1.0` asks for 1.1, not 1.2),
/// else its first specifier's.
fn pinned_release(specifiers: Option<&VersionSpecifiers>) -> Option<MajorMinor> {
    let specifiers = specifiers?;
    let admitted = specifiers
        .iter()
        .map(|specifier| specifier.version())
        .find(|version| specifiers.contains(version));
    admitted
        .or_else(|| specifiers.iter().next().map(|specifier| specifier.version()))
        .and_then(MajorMinor::of)
}

/// Whether the pinned torch release publishes for the node's interpreter,
/// strictly inside its row's Python range: a patch may lack the range's
/// newest or oldest Python (torch 1.7.0 has no wheel for 3.9), and an
/// experimental Python is no promise either.
fn pinned_release_serves_interpreter(context: Context, specifiers: Option<&VersionSpecifiers>) -> bool {
    let (Some(facts), Some(tables)) = (context.facts, context.tables) else {
        return false;
    };
    let python = facts.python_version.as_ref().and_then(MajorMinor::of);
    let row = pinned_release(specifiers).and_then(|pinned| tables.torch.release(pinned));
    match (python, row) {
        (Some(python), Some(row)) => {
            row.python_min < python && python < row.python_max && !row.python_experimental.contains(&python)
        }
        _ => false,
    }
}

/// For a torch release older than the table's first row, that row, which
/// bounds it: an old release was never built for an interpreter that came
/// after a newer release's newest.
fn oldest_row_after(tables: &Tables, pinned: MajorMinor) -> Option<(&TorchRelease, String)> {
    let first = tables.torch.releases.iter().min_by_key(|row| row.torch)?;
    (pinned < first.torch).then(|| {
        (
            first,
            format!(
                "torch {}, the oldest release envdoctor's table lists and newer than {pinned}, supports Python {} at the newest",
                first.torch, first.python_max
            ),
        )
    })
}

/// The interpreter against the pinned torch release where pip lists nothing:
/// newer than its newest Python settles it. A release older than the table's
/// first row supports no Python newer than that row's newest: an old release
/// was never built for an interpreter that came after a newer one's.
fn older_than_its_python(
    context: Context,
    torch: bool,
    requirement: &pep508_rs::Requirement,
) -> Option<(Option<bool>, String)> {
    let (Some(facts), Some(tables), true) = (context.facts, context.tables, torch) else {
        return None;
    };
    let python = facts.python_version.as_ref().and_then(MajorMinor::of)?;
    let pinned = match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(specifiers)) => specifiers
            .iter()
            .find(|specifier| matches!(specifier.operator(), pep508_rs::pep440_rs::Operator::Equal))
            .and_then(|specifier| MajorMinor::of(specifier.version()))?,
        _ => return None,
    };
    let (newest, text) = match tables.torch.release(pinned) {
        Some(row) if row.python_experimental.contains(&python) => return None,
        Some(row) => (
            row.python_max,
            format!("torch {} supports Python {} at the newest", row.torch, row.python_max),
        ),
        None => {
            let (first, text) = oldest_row_after(tables, pinned)?;
            (first.python_max, text)
        }
    };
    Some((
        Some(python > newest),
        format!("the interpreter is Python {python}; {text}"),
    ))
}

/// Beyond the range (`beyond`) holds, inside it does not, at its edge is open.
fn edge(against_the_edge: Ordering, beyond: Ordering) -> Option<bool> {
    match against_the_edge {
        Ordering::Equal => None,
        found => Some(found == beyond),
    }
}

/// Whether pip's list is what PyPI offers this interpreter: its oldest torch
/// after the pin is the first release made for the interpreter (Python 3.11's
/// list begins at 2.0, 3.12's at 2.2). A list of local builds (`2.1.0+cu121`)
/// comes from a PyTorch index, which may lack the pinned release for every
/// interpreter, and a list that begins later is another index's or platform's.
fn list_begins_with_the_interpreter(context: Context, nearest_newer: Option<&Version>, offered: &[Version]) -> bool {
    let (Some(facts), Some(tables)) = (context.facts, context.tables) else {
        return false;
    };
    let Some(python) = facts.python_version.as_ref().and_then(MajorMinor::of) else {
        return false;
    };
    if offered.iter().any(|version| !version.local().is_empty()) {
        return false;
    }
    let first_for_python = tables
        .torch
        .releases
        .iter()
        .find(|row| (row.python_min..=row.python_max).contains(&python) || row.python_experimental.contains(&python))
        .map(|row| row.torch);
    first_for_python.is_some() && nearest_newer.and_then(MajorMinor::of) == first_for_python
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_alone(text: &str) -> Option<Reading> {
        read(text, Context::alone())
    }

    /// groqcasters1: torch 1.13.1 pinned on Python 3.11, whose first torch is 2.0.
    #[test]
    fn a_pin_older_than_every_release_offered_is_an_interpreter_too_new_for_it() {
        let found = read_alone("ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: 2.0.0, 2.0.1, 2.4.1)\nERROR: No matching distribution found for torch==1.13.1").unwrap();
        assert_eq!(found.cause, TORCH_PYTHON);
        assert!(found.stated);
        assert!(found.said.contains("torch 2.0.0 to 2.4.1"), "{}", found.said);
        assert!(found.fix.contains("pip install \"torch>=2.0.0\""), "{}", found.fix);
        // No torch 1.x is offered: a platform torch 1.13 never built for
        // reads the same, so the words alone do not settle it.
        assert!(!found.settles);
        // opennmtpy2018: Python 3.9, whose first torch is 1.7.1, beside the placeholder 0.1.2.
        let placeholder = read_alone("ERROR: Could not find a version that satisfies the requirement torch==1.6.0 (from versions: 0.1.2, 0.1.2.post1, 0.1.2.post2, 1.7.1, 1.8.0, 1.8.1)").unwrap();
        assert_eq!(placeholder.cause, TORCH_PYTHON);
        assert!(placeholder.settles);
        assert!(
            placeholder.fix.contains("pip install \"torch>=1.7.1\""),
            "{}",
            placeholder.fix
        );
        // A dependency another package asked for: pip names the asker first.
        let asked = read_alone("ERROR: Could not find a version that satisfies the requirement torch==1.6.0 (from mypkg==0.1) (from versions: 1.7.1, 1.8.0)").unwrap();
        assert_eq!(asked.cause, TORCH_PYTHON);
        assert!(asked.said.contains("torch==1.6.0"), "{}", asked.said);
        let other = read_alone("ERROR: Could not find a version that satisfies the requirement tensorflow==1.15.5 (from versions: 2.12.0, 2.13.0)").unwrap();
        assert_eq!(other.cause, NO_RELEASE);
        assert_eq!(other.rules_out, vec![TORCH_PYTHON]);
    }

    /// What the reading says with a node whose interpreter is `python`: the
    /// recorded H100's Snapshot with its Python version changed.
    fn read_on_python(text: &str, python: &str) -> Reading {
        super::super::read_on_recorded_h100(
            |snapshot| snapshot["python"]["version"] = serde_json::json!(python),
            |context| read(text, context).unwrap(),
        )
    }

    /// A pin older than the whole list, with the interpreter known: beyond
    /// the release's range it settles what the list alone does not, where
    /// the list is the one PyPI gives that interpreter (Python 3.12's begins
    /// at torch 2.2). groqcasters1's Python 3.11 has torch 1.13 wheels on
    /// Linux, not on Windows, so it stays open; so do an interpreter inside
    /// the range, a list of a PyTorch index's local builds, and a list that
    /// begins later than the interpreter's first release.
    #[test]
    fn an_interpreter_beyond_the_pinned_releases_range_settles_only_with_pypis_own_list() {
        let pin = "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: ";
        let beyond = read_on_python(&format!("{pin}2.2.0, 2.2.1, 2.4.1)"), "3.12.3");
        assert!(beyond.settles, "{beyond:#?}");
        assert_eq!(beyond.node[0].0, Some(true));
        assert!(
            beyond.node[0].1.contains("torch 1.13 supports Python 3.7 to 3.10"),
            "{:?}",
            beyond.node
        );
        let linux_only = read_on_python(&format!("{pin}2.0.0, 2.0.1, 2.4.1)"), "3.11.9");
        assert!(!linux_only.settles, "{linux_only:#?}");
        assert_eq!(linux_only.node[0].0, None);
        let inside = read_on_python(&format!("{pin}2.0.0, 2.4.1)"), "3.9.18");
        assert!(!inside.settles, "{inside:#?}");
        assert_eq!(inside.node[0].0, Some(false));
        let variant_index = read_on_python(&format!("{pin}2.2.0+cu121, 2.4.1+cu121)"), "3.12.3");
        assert!(!variant_index.settles, "{variant_index:#?}");
        let later = read_on_python(&format!("{pin}2.4.0, 2.5.1)"), "3.12.3");
        assert!(!later.settles, "{later:#?}");
        // torch 1.7.0 has no wheel for Python 3.9, 1.7.1 has: the edge of the
        // minor's range decides nothing, and the list settles it.
        let edge = read_on_python(
            "ERROR: Could not find a version that satisfies the requirement torch==1.7.0 (from versions: 0.1.2, 0.1.2.post1, 1.7.1, 1.8.0)",
            "3.9.18",
        );
        assert!(edge.settles, "{edge:#?}");
        assert_eq!(edge.node[0].0, None);
    }

    /// alwaysonaiassistant2: torch 2.5.1 where pip offers up to 2.2.2 (macOS
    /// on x86_64, which torch stopped building for): interpreter or platform,
    /// not settled by the words.
    #[test]
    fn a_pin_newer_than_every_release_offered_is_not_settled() {
        let found = read_alone(
            "ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.0.0, 2.2.2)",
        )
        .unwrap();
        assert_eq!(found.cause, TORCH_PYTHON);
        assert!(!found.settles);
    }

    /// alwaysonaiassistant2: torch 2.5.1 on Python 3.11, where pip offered up
    /// to 2.2.2. The pinned release publishes for that interpreter, strictly
    /// inside its range, and a real release offered says the index serves it:
    /// the platform or the index lacks the file, which settles
    /// pip-finds-no-release-here. Not so for an interpreter older than the
    /// release, at its range's edge (snorkel1558: torch 1.1 on 3.7), or
    /// outside it (torch 1.9 on 3.10); nor beside the 0.1.2 placeholder
    /// alone, nor for torchvision, whose releases are not torch's.
    #[test]
    fn a_pin_newer_than_every_release_offered_to_an_interpreter_it_serves_is_the_platforms() {
        let served = read_on_python(
            "ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.0.0, 2.1.0, 2.2.2)",
            "3.11.6",
        );
        assert_eq!((served.cause, served.settles), (NO_RELEASE, true), "{served:#?}");
        assert_eq!(served.rules_out, vec![TORCH_PYTHON]);
        assert!(
            served.said.contains("its file for this platform or on this index"),
            "{}",
            served.said
        );
        let placeholder = "(from versions: 0.1.2, 0.1.2.post1, 0.1.2.post2)";
        for (requirement, list, python) in [
            ("torch==2.5.1", "(from versions: 2.0.0, 2.4.1)", "3.8.18"),
            (
                "torch<1.2.0,>=1.1.0 (from snorkel)",
                "(from versions: 1.0.0, 1.0.1)",
                "3.7.4",
            ),
            ("torch==1.9.1+cu111", placeholder, "3.10.4"),
            ("torch==2.5.1", placeholder, "3.11.6"),
            ("torchvision==0.16.0", "(from versions: 0.1.6, 0.14.1)", "3.11.6"),
        ] {
            let text = format!("ERROR: Could not find a version that satisfies the requirement {requirement} {list}");
            let found = read_on_python(&text, python);
            assert!(
                !found.said.contains("for this platform or on this index"),
                "{text}: {found:#?}"
            );
        }
        let empty = read_on_python(
            "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from versions: none)",
            "3.12.0",
        );
        assert_eq!(empty.cause, TORCH_PYTHON, "{empty:#?}");
    }

    /// decord335, qiskitaer841, quip685, langcell8, havln16: an empty list
    /// is the index holding nothing this interpreter can install.
    #[test]
    fn nothing_offered_settles_and_names_the_unreached_index_as_what_would_undo_it() {
        let found =
            read_alone("ERROR: Could not find a version that satisfies the requirement numpy (from versions: none)")
                .unwrap();
        assert_eq!(found.cause, NO_RELEASE);
        assert!(found.settles);
        assert!(found.fix.contains("Retrying"), "{}", found.fix);
    }

    /// What the reader makes of pip's failure with `earlier` lines printed before it.
    fn read_after(earlier: &[&str], text: &str) -> Option<Reading> {
        let earlier: Vec<String> = earlier.iter().map(|line| line.to_string()).collect();
        read(
            text,
            Context {
                earlier: &earlier,
                ..Context::alone()
            },
        )
    }

    const RETRYING: &str = "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError(...)': /simple/numpy/";

    #[test]
    fn a_list_from_an_index_pip_could_not_read_settles_nothing_and_asks_for_the_index() {
        for (retrying, text) in [
            (
                RETRYING,
                "ERROR: Could not find a version that satisfies the requirement numpy (from versions: none)",
            ),
            (
                "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ConnectTimeoutError(...)': /whl/cu113/torch/",
                "ERROR: Could not find a version that satisfies the requirement torch==1.11.0+cu113 (from versions: 1.10.0, 1.11.0, 1.12.0)",
            ),
        ] {
            let found = read_after(&[retrying], text).unwrap();
            assert_eq!(found.cause, NO_RELEASE);
            assert!(!found.settles, "{found:?}");
            assert!(
                found
                    .node
                    .iter()
                    .any(|(holds, fact)| holds.is_none() && fact.contains("whether pip can read the index")),
                "{found:?}"
            );
            assert!(read_after(&[], text).unwrap().settles);
        }
        // A retry of another package's page says nothing of this list.
        let other = read_after(
            &[RETRYING],
            "ERROR: Could not find a version that satisfies the requirement scipy (from versions: none)",
        )
        .unwrap();
        assert!(other.settles, "{other:?}");
    }

    /// lunar226: torch's empty list is its own cause, which the node settles.
    #[test]
    fn nothing_offered_of_torch_is_not_settled_by_the_list() {
        let found = read_alone(
            "ERROR: Could not find a version that satisfies the requirement torch==1.8.1 (from versions: none)",
        )
        .unwrap();
        assert_eq!(found.cause, TORCH_PYTHON);
        assert!(!found.settles);
    }

    #[test]
    fn a_local_build_of_a_release_offered_is_on_another_index() {
        let found = read_alone("ERROR: Could not find a version that satisfies the requirement torch==1.11.0+cu113 (from versions: 1.10.0, 1.11.0, 1.12.0)").unwrap();
        assert_eq!(found.cause, NO_RELEASE);
        assert!(found.settles);
        assert!(
            found.fix.contains("https://download.pytorch.org/whl/cu113"),
            "{}",
            found.fix
        );
    }

    const IGNORED: &str = "ERROR: Ignored the following versions that require a different python version: 1.21.2 Requires-Python >=3.7,<3.11; 1.21.3 Requires-Python >=3.7,<3.11";

    #[test]
    fn a_release_pip_skipped_for_its_requires_python_is_named_with_it() {
        let failure = "ERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from versions: 1.3.0, 1.26.4)";
        for found in [
            read_after(&[IGNORED], failure).unwrap(),
            read_alone(&format!("{IGNORED}\n{failure}")).unwrap(),
        ] {
            assert_eq!(found.cause, NO_RELEASE);
            assert!(found.said.contains("requires Python >=3.7,<3.11"), "{}", found.said);
            assert!(found.settles);
        }
        // pip's list names no package: printed before another line, it may be another requirement's.
        let found = read_after(&[IGNORED, RETRYING], failure).unwrap();
        assert!(!found.said.contains("requires Python"), "{}", found.said);
    }

    /// havln16: every release of an unpinned requirement needs a newer Python.
    #[test]
    fn a_requirement_whose_every_release_pip_skipped_names_their_python() {
        let found = read_after(
            &["ERROR: Ignored the following versions that require a different python version: 0.1.0 Requires-Python >=3.9; 0.1.1 Requires-Python >="],
            "ERROR: Could not find a version that satisfies the requirement puccinialin (from versions: none)",
        )
        .unwrap();
        assert_eq!(found.cause, NO_RELEASE);
        assert!(found.said.contains("requires Python >=3.9"), "{}", found.said);
        assert!(found.stated && found.settles);
    }

    /// centerpointkitti23: older pip names who asked, not what it found.
    #[test]
    fn pips_older_words_name_the_package_and_settle_nothing() {
        let found =
            read_alone("ERROR: Could not find a version that satisfies the requirement spconv (from pcdet)").unwrap();
        assert_eq!(found.cause, NO_RELEASE);
        assert!(!found.settles);
        assert_eq!(found.rules_out, vec![TORCH_PYTHON]);
    }

    /// deeprlalgorithms64: older pip lists nothing; an interpreter newer than
    /// every one the pinned torch release was built for settles it, even for
    /// a release older than the table's first row.
    #[test]
    fn a_pinned_torch_older_than_the_interpreter_settles_without_pips_list() {
        let log = "ERROR: Could not find a version that satisfies the requirement torch==0.4.1\nERROR: No matching distribution found for torch==0.4.1";
        let newer = read_on_python(log, "3.8.5");
        assert_eq!(newer.cause, TORCH_PYTHON);
        assert!(newer.settles && newer.stated, "{newer:?}");
        assert!(newer.said.contains("Python 3.8"), "{}", newer.said);
        // Within the oldest row's range, an older release may still lack it: open.
        assert!(!read_on_python(log, "3.6.9").settles);
        // A listed release judged by its own row.
        let listed = "ERROR: Could not find a version that satisfies the requirement torch==1.4.0\nERROR: No matching distribution found for torch==1.4.0";
        assert!(read_on_python(listed, "3.12.1").settles);
        assert!(!read_on_python(listed, "3.7.3").settles);
        // pip's list beside it: the same bound is the interpreter's note.
        let offered = read_on_python(
            "ERROR: Could not find a version that satisfies the requirement torch==0.4.1 (from versions: 1.4.0, 1.5.0, 2.0.0)",
            "3.8.5",
        );
        assert!(
            offered
                .node
                .iter()
                .any(|(holds, text)| *holds == Some(true) && text.contains("oldest release")),
            "{offered:?}"
        );
    }

    /// Unicode whose lowercase is longer or shorter than itself moves no offset.
    #[test]
    fn text_before_pips_words_in_any_script_reads_the_same() {
        let found = read_alone("\u{130} ERROR: Could not find a version that satisfies the requirement torch==1.6.0 (from versions: 1.7.1)").unwrap();
        assert_eq!(found.cause, TORCH_PYTHON);
        assert!(read_alone("\u{130} Could not find a version that satisfies the requirement \u{e9}").is_none());
    }

    /// cumm28, genes2genes19: whichever side of the list the releases a
    /// package's requirement admits are on, none of them has a file here.
    #[test]
    fn a_requirement_no_release_offered_admits_settles_for_any_package_but_torch() {
        for log in [
            "ERROR: Could not find a version that satisfies the requirement cumm<0.5.0,>=0.4.5 (from spconv) (from versions: 0.1.0, 0.5.0, 0.5.1, 0.6.3)",
            "ERROR: Could not find a version that satisfies the requirement pandas>=2.0.3 (from genes2genes) (from versions: 0.1, 1.1.4, 1.1.5)",
        ] {
            let found = read_alone(log).unwrap();
            assert_eq!(found.cause, NO_RELEASE, "{log}");
            assert!(found.settles, "{log}");
        }
        // Asked for by a requirements file or the command line, a pin beyond
        // every release may be one that never existed (pointmamba1).
        let typo = read_alone("ERROR: Could not find a version that satisfies the requirement open3d==1.10.0 (from versions: 0.14.1, 0.18.0)").unwrap();
        assert!(!typo.settles, "{typo:?}");
        // What would settle it is named: whether the release exists.
        assert!(
            typo.node
                .iter()
                .any(|(holds, fact)| holds.is_none() && fact.contains("pypi.org/project/open3d/#history")),
            "{typo:?}"
        );
        // A release offered that the requirement admits failed for another reason.
        assert!(read_alone("ERROR: Could not find a version that satisfies the requirement checklist==0.0.11 (from versions: 0.0.1, 0.0.11)").is_none());
    }

    /// A torch pin inside the range offered says nothing of the interpreter,
    /// and a message that is not pip's is not read.
    #[test]
    fn a_pin_inside_the_range_offered_or_another_message_reads_as_nothing() {
        assert!(read_alone("ERROR: Could not find a version that satisfies the requirement torch==2.1.5 (from versions: 2.0.0, 2.4.1)").is_none());
        assert!(read_alone("RuntimeError: requires torch>=2.0").is_none());
    }
}
