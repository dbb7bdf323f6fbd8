//! Python, its packages, the frameworks' build facts and the environment variables.

use std::collections::{BTreeMap, BTreeSet};

use super::{Area, Drift, Sides, text};
use crate::findings::Severity;
use crate::lock::model::{self, Lock, Package, Source, index_for_local_version};
use crate::shell;

pub(super) fn python(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let (a, b) = (&expected.python, &found.python);
    if a.implementation != b.implementation {
        drift.push(
            Drift::new("python-implementation", Area::Python, Severity::Error, "implementation")
                .values(Some(a.implementation.clone()), Some(b.implementation.clone()))
                .message(format!(
                    "Python is {} {}, {} {}.",
                    b.implementation, sides.found, a.implementation, sides.expected
                )),
        );
    }
    if a.version != b.version {
        let minor = |version: &str| version.split('.').take(2).collect::<Vec<_>>().join(".");
        let same_minor = minor(&a.version) == minor(&b.version);
        let (severity, consequence) = if same_minor {
            (Severity::Warning, "the same minor release, so the same wheels install")
        } else {
            (
                Severity::Error,
                "another minor release: compiled (cp-tagged) wheels of one do not install on the other",
            )
        };
        drift.push(
            Drift::new("python-version", Area::Python, severity, "Python")
                .values(Some(a.version.clone()), Some(b.version.clone()))
                .message(format!(
                    "Python is {} {}, {} {}: {consequence}.",
                    b.version, sides.found, a.version, sides.expected
                )),
        );
    }
}

pub(super) fn packages(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let (a, b) = (by_name(expected), by_name(found));
    for (name, locked) in &a {
        let Some(here) = b.get(name) else {
            drift.push(
                Drift::new("package-missing", Area::Packages, Severity::Error, &locked.name)
                    .values(locked.version.clone(), None)
                    .message(format!(
                        "{} {} is installed {} but not {}.",
                        locked.name,
                        text(&locked.version),
                        sides.expected,
                        sides.found
                    ))
                    .fix(install_command(locked, Dependencies::Untouched)),
            );
            continue;
        };
        if locked.version != here.version {
            drift.push(
                Drift::new("package-version", Area::Packages, Severity::Error, &locked.name)
                    .values(locked.version.clone(), here.version.clone())
                    .message(format!(
                        "{} is {} {}, {} {}.",
                        locked.name,
                        text(&here.version),
                        sides.found,
                        text(&locked.version),
                        sides.expected
                    ))
                    .fix(install_command(locked, Dependencies::Untouched)),
            );
        } else if locked.source != here.source {
            let severity = match (&locked.source, &here.source) {
                (Source::Vcs { .. }, Source::Vcs { .. }) => Severity::Error,
                _ => Severity::Warning,
            };
            drift.push(
                Drift::new("package-source", Area::Packages, severity, &locked.name)
                    .values(Some(locked.source.describe()), Some(here.source.describe()))
                    .message(format!(
                        "{} {} came from {} {}, from {} {}: the same version number need not be the same code.",
                        locked.name,
                        text(&locked.version),
                        here.source.describe(),
                        sides.found,
                        locked.source.describe(),
                        sides.expected
                    ))
                    .fix(reinstall_command(locked)),
            );
        } else if let (Some(locked_digest), Some(here_digest)) = (&locked.record_digest, &here.record_digest)
            && locked_digest != here_digest
            && !matches!(locked.source, Source::Directory { .. })
        {
            drift.push(
                Drift::new("package-content", Area::Packages, Severity::Warning, &locked.name)
                    .values(Some(locked_digest.clone()), Some(here_digest.clone()))
                    .message(format!(
                        "{} {} installed other files {} than {} (its RECORD differs): another build of \
                         the same version, such as a wheel rebuilt locally or a different CUDA variant.",
                        locked.name,
                        text(&locked.version),
                        sides.found,
                        sides.expected
                    ))
                    .fix(reinstall_command(locked)),
            );
        } else if !locked.wheel_tags.is_empty() && !here.wheel_tags.is_empty() && locked.wheel_tags != here.wheel_tags {
            // Same version and, where known, the same files: still another
            // wheel of it (manylinux_2_17 against manylinux_2_28, say).
            let tags = |package: &Package| package.wheel_tags.join(".");
            drift.push(
                Drift::new("package-wheel", Area::Packages, Severity::Warning, &locked.name)
                    .values(Some(tags(locked)), Some(tags(here)))
                    .message(format!(
                        "{} {} was installed from a wheel tagged {} {}, {} {}: another build of the same version.",
                        locked.name,
                        text(&locked.version),
                        tags(here),
                        sides.found,
                        tags(locked),
                        sides.expected
                    ))
                    .fix(reinstall_command(locked)),
            );
        }
    }
    for (name, here) in &b {
        if !a.contains_key(name) {
            drift.push(
                Drift::new("package-extra", Area::Packages, Severity::Warning, &here.name)
                    .values(None, here.version.clone())
                    .message(format!(
                        "{} {} is installed {} but not {}; an extra package can change what imports resolve to.",
                        here.name,
                        text(&here.version),
                        sides.found,
                        sides.expected
                    ))
                    .fix(Some(format!("python -m pip uninstall -y {}", shell::quote(&here.name)))),
            );
        }
    }
}

fn by_name(lock: &Lock) -> BTreeMap<String, &Package> {
    lock.packages
        .iter()
        .map(|package| (package.normalized_name(), package))
        .collect()
}

/// For the same version from elsewhere: pip calls a plain install of a version
/// already there "already satisfied" and does nothing.
fn reinstall_command(package: &Package) -> Option<String> {
    install_command(package, Dependencies::Untouched)
        .map(|command| command.replacen("install", "install --force-reinstall", 1))
}

/// What an install of a locked package may do to the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dependencies {
    /// `--no-deps`: this package alone, as `verify` prints one fix per package.
    Untouched,
    /// Its requirements resolved too, as `fix --lock` merges every locked pin
    /// into one install.
    Resolved,
}

/// The pip command that puts a package back as the lock has it.
pub fn install_command(package: &Package, dependencies: Dependencies) -> Option<String> {
    let install = match dependencies {
        Dependencies::Untouched => "python -m pip install --no-deps",
        Dependencies::Resolved => "python -m pip install",
    };
    let requirement = match &package.source {
        Source::Index => {
            let version = package.version.as_ref()?;
            let index = index_for_local_version(version)
                .map(|index| format!(" --extra-index-url {index}"))
                .unwrap_or_default();
            return Some(format!(
                "{install} {}{index}",
                shell::quote(&format!("{}=={version}", package.name))
            ));
        }
        Source::Directory {
            url, editable: true, ..
        } => return Some(format!("{install} -e {}", shell::quote(url))),
        _ => package.direct_reference()?,
    };
    Some(format!("{install} {}", shell::quote(&requirement)))
}

pub(super) fn frameworks(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    for (name, locked) in &expected.frameworks {
        let Some(here) = found.frameworks.get(name) else {
            continue; // the package comparison already says it is missing
        };
        // A version change is the package's drift; the build facts are what a
        // version number does not show (the CUDA a wheel was built with).
        if locked.get("version") != here.get("version") {
            continue;
        }
        for key in locked.keys().chain(here.keys()).collect::<BTreeSet<_>>() {
            let (a, b) = (locked.get(key), here.get(key));
            if a == b {
                continue;
            }
            let show = |fact: Option<&model::Fact>| fact.map(ToString::to_string);
            drift.push(
                Drift::new(
                    "framework-build",
                    Area::Frameworks,
                    Severity::Warning,
                    format!("{name} {key}"),
                )
                .values(show(a), show(b))
                .message(format!(
                    "{name}'s build records {key} = {} {}, {} {}: the same version, built differently.",
                    show(b).unwrap_or_else(|| "nothing".to_string()),
                    sides.found,
                    show(a).unwrap_or_else(|| "nothing".to_string()),
                    sides.expected
                )),
            );
        }
    }
}

/// Variables whose change alters what loads or which GPUs a job sees.
fn env_severity(name: &str) -> Severity {
    const LOUD: &[&str] = &[
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "CUDA_VISIBLE_DEVICES",
    ];
    const LOUD_PREFIXES: &[&str] = &["NCCL_", "PYTORCH_", "TORCH_", "CUDA_"];
    if LOUD.contains(&name) || LOUD_PREFIXES.iter().any(|prefix| name.starts_with(prefix)) {
        Severity::Warning
    } else {
        Severity::Info
    }
}

pub(super) fn env(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let names: BTreeSet<&String> = expected.env.keys().chain(found.env.keys()).collect();
    for name in names {
        let (a, b) = (expected.env.get(name), found.env.get(name));
        if a == b {
            continue;
        }
        let show = |value: Option<&String>| match value {
            Some(value) => format!("`{value}`"),
            None => "unset".to_string(),
        };
        let fix = match a {
            Some(value) => format!("export {name}='{value}'"),
            None => format!("unset {name}"),
        };
        drift.push(
            Drift::new("env-changed", Area::Env, env_severity(name), name.clone())
                .values(a.cloned(), b.cloned())
                .message(format!(
                    "{name} is {} {}, {} {}.",
                    show(b),
                    sides.found,
                    show(a),
                    sides.expected
                ))
                .fix(Some(fix)),
        );
    }
}
