//! How one environment differs from another: a lock and the node probed now
//! (`verify`), or any two Snapshots or locks (`diff`). Each difference is one
//! typed item with a severity, the two values, a message and, where one
//! command fixes it, that command.
//!
//! Severities follow what the difference does to a training job: a package at
//! another version or a driver below what the locked torch needs breaks
//! reproducibility or the job itself (error); a changed GPU count, toolkit or
//! variable may (warning); a new driver patch in the same branch rarely does (info).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::model::{GpuGroup, Lock, Package, Source, index_for_local_version};
use crate::facts::dotted;
use crate::findings::Severity;
use crate::knowledge::tables::{MajorMinor, Tables};
use crate::shell;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    System,
    Nvidia,
    Gpus,
    Cuda,
    Python,
    Packages,
    Files,
    Frameworks,
    Env,
}

impl Area {
    /// Every area, in the order reports show them.
    pub const ALL: [Area; 9] = [
        Area::System,
        Area::Nvidia,
        Area::Gpus,
        Area::Cuda,
        Area::Python,
        Area::Packages,
        Area::Files,
        Area::Frameworks,
        Area::Env,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Area::System => "System",
            Area::Nvidia => "NVIDIA driver",
            Area::Gpus => "GPUs",
            Area::Cuda => "CUDA toolkits and libraries",
            Area::Python => "Python",
            Area::Packages => "Packages",
            Area::Files => "Installed files",
            Area::Frameworks => "Framework builds",
            Area::Env => "Environment variables",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// Stable kebab-case kind: `package-version`, `driver-too-old`, ...
    pub id: &'static str,
    pub area: Area,
    pub severity: Severity,
    /// What differs: a package name, a variable, `driver`, a file.
    pub subject: String,
    /// The value in the lock (or in A); `None` when it has none.
    pub expected: Option<String>,
    /// The value on the node (or in B); `None` when it has none.
    pub found: Option<String>,
    pub message: String,
    pub fix: Option<String>,
}

impl Drift {
    pub(crate) fn new(id: &'static str, area: Area, severity: Severity, subject: impl Into<String>) -> Drift {
        Drift {
            id,
            area,
            severity,
            subject: subject.into(),
            expected: None,
            found: None,
            message: String::new(),
            fix: None,
        }
    }

    pub(crate) fn values(mut self, expected: Option<String>, found: Option<String>) -> Drift {
        self.expected = expected;
        self.found = found;
        self
    }

    pub(crate) fn message(mut self, message: String) -> Drift {
        self.message = message;
        self
    }

    pub(crate) fn fix(mut self, fix: Option<String>) -> Drift {
        self.fix = fix;
        self
    }
}

/// How messages name the two sides: `in the lock` and `here` for `verify`,
/// the two file names for `diff`.
pub struct Sides {
    pub expected: String,
    pub found: String,
}

impl Sides {
    pub fn verify() -> Sides {
        Sides {
            expected: "in the lock".to_string(),
            found: "here".to_string(),
        }
    }
}

/// Every difference between `expected` and `found`, in area order.
/// The driver floors come from `tables`.
pub fn compare(expected: &Lock, found: &Lock, sides: &Sides, tables: &Tables) -> Vec<Drift> {
    let mut drift = Vec::new();
    system(expected, found, sides, &mut drift);
    nvidia(expected, found, sides, tables, &mut drift);
    gpus(&expected.gpus, &found.gpus, sides, &mut drift);
    cuda(expected, found, sides, &mut drift);
    python(expected, found, sides, &mut drift);
    packages(expected, found, sides, &mut drift);
    frameworks(expected, found, sides, &mut drift);
    env(expected, found, sides, &mut drift);
    drift.sort_by_key(|item| item.area);
    drift
}

fn text(value: &Option<String>) -> String {
    value.clone().unwrap_or_else(|| "unknown".to_string())
}

fn system(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let (a, b) = (&expected.system, &found.system);
    if a.architecture != b.architecture {
        drift.push(
            Drift::new("system-architecture", Area::System, Severity::Error, "architecture")
                .values(Some(a.architecture.clone()), Some(b.architecture.clone()))
                .message(format!(
                    "The CPU architecture is {} {}, {} {}: compiled wheels of one do not run on the other.",
                    b.architecture, sides.found, a.architecture, sides.expected
                )),
        );
    }
    if a.glibc != b.glibc {
        let older = match (a.glibc.as_deref().and_then(dotted), b.glibc.as_deref().and_then(dotted)) {
            (Some(locked), Some(here)) => here < locked,
            _ => false,
        };
        let consequence = if older {
            "older: manylinux wheels built for the newer glibc may not install or load"
        } else {
            "newer: wheels built for the older glibc still load"
        };
        drift.push(
            Drift::new("system-glibc", Area::System, Severity::Warning, "glibc")
                .values(a.glibc.clone(), b.glibc.clone())
                .message(format!(
                    "glibc is {} {}, {} {}: {consequence}.",
                    text(&b.glibc),
                    sides.found,
                    text(&a.glibc),
                    sides.expected
                )),
        );
    }
    if (&a.os_id, &a.os_version_id) != (&b.os_id, &b.os_version_id) {
        let describe = |system: &super::model::System| {
            system
                .os
                .clone()
                .or_else(|| system.os_id.clone())
                .unwrap_or_else(|| "unknown".to_string())
        };
        drift.push(
            Drift::new("system-os", Area::System, Severity::Info, "operating system")
                .values(Some(describe(a)), Some(describe(b)))
                .message(format!(
                    "The operating system is {} {}, {} {}.",
                    describe(b),
                    sides.found,
                    describe(a),
                    sides.expected
                )),
        );
    }
}

fn nvidia(expected: &Lock, found: &Lock, sides: &Sides, tables: &Tables, drift: &mut Vec<Drift>) {
    let locked_driver = expected.nvidia.as_ref().and_then(|nvidia| nvidia.driver.clone());
    let found_driver = found.nvidia.as_ref().and_then(|nvidia| nvidia.driver.clone());
    if locked_driver.is_some() && found_driver.is_none() {
        drift.push(
            Drift::new("driver-missing", Area::Nvidia, Severity::Error, "driver")
                .values(locked_driver, None)
                .message(format!(
                    "There is an NVIDIA driver {}; {} NVML reports none.",
                    sides.expected, sides.found
                ))
                .fix(Some("install the NVIDIA driver, or run on a GPU node".to_string())),
        );
        return;
    }
    if let Some(too_old) = driver_below_torch_floor(expected, found, sides, tables) {
        drift.push(too_old);
    } else if locked_driver != found_driver {
        let same_branch = match (&locked_driver, &found_driver) {
            (Some(a), Some(b)) => a.split('.').next() == b.split('.').next(),
            _ => false,
        };
        let (severity, consequence) = if same_branch {
            (Severity::Info, "the same driver branch, which runs the same CUDA")
        } else {
            (
                Severity::Warning,
                "another driver branch: it still runs the torch, but CUDA behaviour can differ",
            )
        };
        drift.push(
            Drift::new("driver-changed", Area::Nvidia, severity, "driver")
                .values(locked_driver.clone(), found_driver.clone())
                .message(format!(
                    "The NVIDIA driver is {} {}, {} {}: {consequence}.",
                    text(&found_driver),
                    sides.found,
                    text(&locked_driver),
                    sides.expected
                )),
        );
    }
}

/// An error when the node's driver cannot run the CUDA the locked torch was
/// built with: below NVIDIA's minor-version compatibility floor for that
/// CUDA major, or reporting an older CUDA major.
fn driver_below_torch_floor(expected: &Lock, found: &Lock, sides: &Sides, tables: &Tables) -> Option<Drift> {
    let torch_cuda = match expected.frameworks.get("torch")?.get("cuda")? {
        super::model::Fact::Text(cuda) => MajorMinor::parse(cuda)?,
        _ => return None,
    };
    let nvidia = found.nvidia.as_ref()?;
    let floor = tables.drivers.floor(torch_cuda.major);
    let driver = nvidia.driver.as_deref().and_then(dotted);
    let below_floor =
        matches!((&driver, floor), (Some(driver), Some(floor)) if *driver < floor.linux_min_driver.version);
    let cuda_behind = nvidia
        .cuda_driver
        .as_deref()
        .and_then(MajorMinor::parse)
        .is_some_and(|cuda| cuda.major < torch_cuda.major);
    if !below_floor && !cuda_behind {
        return None;
    }
    let needed = match floor {
        Some(floor) => format!("NVIDIA driver {} or newer", floor.linux_min_driver),
        None => format!("an NVIDIA driver that supports CUDA {}", torch_cuda.major),
    };
    let locked_driver = expected.nvidia.as_ref().and_then(|nvidia| nvidia.driver.clone());
    Some(
        Drift::new("driver-too-old", Area::Nvidia, Severity::Error, "driver")
            .values(locked_driver, nvidia.driver.clone())
            .message(format!(
                "The NVIDIA driver {} {} cannot run the torch {}, built with CUDA {torch_cuda}, which needs {needed}: \
                 torch.cuda.is_available() will be False.",
                text(&nvidia.driver),
                sides.found,
                sides.expected
            ))
            .fix(Some(format!("install {needed}"))),
    )
}

fn gpus(expected: &[GpuGroup], found: &[GpuGroup], sides: &Sides, drift: &mut Vec<Drift>) {
    if expected == found {
        return;
    }
    let describe = |groups: &[GpuGroup]| {
        if groups.is_empty() {
            return "no GPU".to_string();
        }
        groups
            .iter()
            .map(|group| match &group.compute_capability {
                Some(cc) => format!("{} × {} (compute capability {cc})", group.count, group.name),
                None => format!("{} × {}", group.count, group.name),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let count = |groups: &[GpuGroup]| groups.iter().map(|group| group.count).sum::<u32>();
    let models = |groups: &[GpuGroup]| {
        groups
            .iter()
            .map(|group| (group.name.clone(), group.compute_capability.clone()))
            .collect::<BTreeSet<_>>()
    };
    if models(expected) != models(found) {
        let capabilities = |groups: &[GpuGroup]| {
            groups
                .iter()
                .map(|group| group.compute_capability.clone())
                .collect::<BTreeSet<_>>()
        };
        let severity = if found.is_empty() && !expected.is_empty() {
            Severity::Error
        } else {
            Severity::Warning
        };
        let consequence = if found.is_empty() {
            "nothing runs CUDA"
        } else if capabilities(expected) != capabilities(found) {
            "another compute capability: kernels built for one may not run on the other, and memory-sized settings may not fit"
        } else {
            "the same compute capability, but memory-sized settings (batch size, offload) may not fit"
        };
        drift.push(
            Drift::new("gpu-model", Area::Gpus, severity, "GPU model")
                .values(Some(describe(expected)), Some(describe(found)))
                .message(format!(
                    "The GPUs are {} {}, {} {}: {consequence}.",
                    describe(found),
                    sides.found,
                    describe(expected),
                    sides.expected
                )),
        );
    }
    if count(expected) != count(found) {
        drift.push(
            Drift::new("gpu-count", Area::Gpus, Severity::Warning, "GPU count")
                .values(Some(count(expected).to_string()), Some(count(found).to_string()))
                .message(format!(
                    "There are {} GPUs {}, {} {}: launchers sized for one (--nproc_per_node, \
                     num_processes, world size) start the wrong number of ranks on the other.",
                    count(found),
                    sides.found,
                    count(expected),
                    sides.expected
                )),
        );
    }
}

fn cuda(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let toolkit_versions = |lock: &Lock| {
        lock.cuda
            .toolkits
            .iter()
            .map(|toolkit| toolkit.version.clone().unwrap_or_else(|| toolkit.root.clone()))
            .collect::<BTreeSet<_>>()
    };
    let (a, b) = (toolkit_versions(expected), toolkit_versions(found));
    if a != b {
        let list = |set: &BTreeSet<String>| {
            if set.is_empty() {
                "none".to_string()
            } else {
                set.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        };
        drift.push(
            Drift::new("cuda-toolkit-changed", Area::Cuda, Severity::Warning, "CUDA toolkits")
                .values(Some(list(&a)), Some(list(&b)))
                .message(format!(
                    "CUDA toolkits {}: {}; {}: {}. Extensions built at run time (DeepSpeed ops, \
                     flash-attn, bitsandbytes from source) compile against the toolkit.",
                    sides.found,
                    list(&b),
                    sides.expected,
                    list(&a)
                )),
        );
    }
    let libraries = |lock: &Lock| {
        lock.cuda
            .libraries
            .iter()
            .map(|library| {
                (
                    (library.name.clone(), library.provided_by.clone()),
                    library.version.clone(),
                )
            })
            .collect::<BTreeMap<_, _>>()
    };
    let (a, b) = (libraries(expected), libraries(found));
    for key in a.keys().chain(b.keys()).collect::<BTreeSet<_>>() {
        let (locked, here) = (a.get(key).cloned().flatten(), b.get(key).cloned().flatten());
        let (in_lock, on_node) = (a.contains_key(key), b.contains_key(key));
        if in_lock == on_node && locked == here {
            continue;
        }
        let (name, provider) = key;
        let show = |present: bool, version: &Option<String>| match (present, version) {
            (false, _) => "absent".to_string(),
            (true, Some(version)) => version.clone(),
            (true, None) => "present, version unknown".to_string(),
        };
        drift.push(
            Drift::new(
                "cuda-library-changed",
                Area::Cuda,
                Severity::Warning,
                format!("{name} ({provider})"),
            )
            .values(Some(show(in_lock, &locked)), Some(show(on_node, &here)))
            .message(format!(
                "{name} from {provider} is {} {}, {} {}.",
                show(on_node, &here),
                sides.found,
                show(in_lock, &locked),
                sides.expected
            )),
        );
    }
}

fn python(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
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

fn packages(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
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
                    .fix(install_command(locked)),
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
                    .fix(install_command(locked)),
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
    install_command(package).map(|command| command.replacen("install", "install --force-reinstall", 1))
}

/// The pip command that puts a package back as the lock has it.
pub fn install_command(package: &Package) -> Option<String> {
    let requirement = match &package.source {
        Source::Index => {
            let version = package.version.as_ref()?;
            let index = index_for_local_version(version)
                .map(|index| format!(" --extra-index-url {index}"))
                .unwrap_or_default();
            return Some(format!(
                "python -m pip install --no-deps {}{index}",
                shell::quote(&format!("{}=={version}", package.name))
            ));
        }
        Source::Directory {
            url, editable: true, ..
        } => return Some(format!("python -m pip install --no-deps -e {}", shell::quote(url))),
        _ => package.direct_reference()?,
    };
    Some(format!(
        "python -m pip install --no-deps {}",
        shell::quote(&requirement)
    ))
}

fn frameworks(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
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
            let show = |fact: Option<&super::model::Fact>| fact.map(ToString::to_string);
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

fn env(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::model::{Nvidia, sample_lock};

    /// `compare` with the compiled-in tables, as `verify` does.
    fn compare(expected: &Lock, found: &Lock, sides: &Sides) -> Vec<Drift> {
        super::compare(expected, found, sides, &crate::matrix::builtin_tables().unwrap())
    }

    fn ids(drift: &[Drift]) -> Vec<&'static str> {
        drift.iter().map(|item| item.id).collect()
    }

    fn with_driver(driver: &str, cuda: &str) -> Lock {
        let mut lock = sample_lock();
        lock.nvidia = Some(Nvidia {
            driver: Some(driver.to_string()),
            cuda_driver: Some(cuda.to_string()),
        });
        lock
    }

    #[test]
    fn the_same_lock_has_no_drift() {
        assert!(compare(&sample_lock(), &sample_lock(), &Sides::verify()).is_empty());
    }

    #[test]
    fn a_driver_below_the_floor_of_the_locked_torch_is_an_error() {
        // torch built with CUDA 13.0 needs the 13.x floor (580.65.06).
        let drift = compare(
            &with_driver("580.95.05", "13.0"),
            &with_driver("575.57.08", "12.9"),
            &Sides::verify(),
        );
        assert_eq!(ids(&drift), ["driver-too-old"]);
        assert_eq!(drift[0].severity, Severity::Error);
    }

    #[test]
    fn a_newer_driver_is_information_within_a_branch_and_a_warning_across() {
        let locked = with_driver("580.65.06", "13.0");
        let patch = compare(&locked, &with_driver("580.95.05", "13.0"), &Sides::verify());
        assert_eq!(
            (ids(&patch), patch[0].severity),
            (vec!["driver-changed"], Severity::Info)
        );
        let branch = compare(&locked, &with_driver("590.44.01", "13.1"), &Sides::verify());
        assert_eq!(
            (ids(&branch), branch[0].severity),
            (vec!["driver-changed"], Severity::Warning)
        );
    }

    #[test]
    fn packages_missing_extra_and_at_another_version_are_told_apart() {
        let locked = sample_lock();
        let mut here = sample_lock();
        here.packages[0].version = Some("2.11.0+cu128".to_string());
        let drift = compare(&locked, &here, &Sides::verify());
        assert_eq!(ids(&drift), ["package-version"]);
        assert_eq!(
            drift[0].fix.as_deref(),
            Some(
                "python -m pip install --no-deps 'torch==2.11.0+cu130' --extra-index-url https://download.pytorch.org/whl/cu130"
            )
        );
        here.packages[0].name = "torchvision".to_string();
        let drift = compare(&locked, &here, &Sides::verify());
        assert_eq!(ids(&drift), ["package-missing", "package-extra"]);
        assert_eq!(drift[1].severity, Severity::Warning);
    }

    /// Issue 20 D13: a lock is a stranger's file; a crafted name in it must
    /// reach pip as one argument, not as shell code.
    #[test]
    fn a_crafted_package_name_stays_one_shell_word_in_the_fix() {
        let directory = tempfile::tempdir().unwrap();
        let marker = directory.path().join("PWNED");
        let name = format!("x';touch {};'", marker.display());
        let mut here = sample_lock();
        here.packages[0].name = name.clone();
        let drift = compare(&sample_lock(), &here, &Sides::verify());
        let extra = drift.iter().find(|drift| drift.id == "package-extra").unwrap();
        let fix = extra.fix.clone().unwrap();
        // Run it with pip replaced by printf: the shell must hand over the name intact.
        let echoed = std::process::Command::new("sh")
            .arg("-c")
            .arg(fix.replace("python -m pip uninstall -y", "printf '%s'"))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(echoed.stdout).unwrap(), name, "{fix}");
        assert!(!marker.exists(), "the fix ran shell code: {fix}");
        let mut locked = sample_lock();
        locked.packages[0].name = name.clone();
        let install = install_command(&locked.packages[0]).unwrap();
        let echoed = std::process::Command::new("sh")
            .arg("-c")
            .arg(install.replace("python -m pip install --no-deps", "printf '%s '"))
            .output()
            .unwrap();
        assert!(
            String::from_utf8(echoed.stdout)
                .unwrap()
                .starts_with(&format!("{name}==")),
            "{install}"
        );
        assert!(!marker.exists(), "the fix ran shell code: {install}");
    }

    #[test]
    fn the_same_version_with_other_files_is_a_content_warning() {
        let mut locked = sample_lock();
        locked.packages[0].record_digest = Some("sha256:aa".to_string());
        let mut here = locked.clone();
        here.packages[0].record_digest = Some("sha256:bb".to_string());
        let drift = compare(&locked, &here, &Sides::verify());
        assert_eq!(ids(&drift), ["package-content"]);
        here.packages[0].record_digest = None;
        assert!(
            compare(&locked, &here, &Sides::verify()).is_empty(),
            "no digest, nothing to compare"
        );
    }

    #[test]
    fn gpus_env_and_python_changes_are_reported_with_their_weight() {
        let locked = sample_lock();
        let mut here = sample_lock();
        here.gpus[0].count = 4;
        here.env.insert("NCCL_DEBUG".to_string(), "INFO".to_string());
        here.env.insert("HF_HOME".to_string(), "/data/hf".to_string());
        here.python.version = "3.12.7".to_string();
        let drift = compare(&locked, &here, &Sides::verify());
        let weights: Vec<(&str, Severity)> = drift.iter().map(|item| (item.id, item.severity)).collect();
        assert_eq!(
            weights,
            [
                ("gpu-count", Severity::Warning),
                ("python-version", Severity::Warning),
                ("env-changed", Severity::Info),
                ("env-changed", Severity::Warning),
            ]
        );
        here.python.version = "3.11.9".to_string();
        let drift = compare(&locked, &here, &Sides::verify());
        assert!(
            drift
                .iter()
                .any(|item| item.id == "python-version" && item.severity == Severity::Error)
        );
    }
}
