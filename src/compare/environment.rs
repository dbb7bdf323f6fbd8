//! The environment part of a comparison: everything a lock records, from the
//! system and the GPU side to the packages and variables.

use super::{Drift, Sides, platform, python};
use crate::knowledge::tables::Tables;
use crate::lock::model::Lock;

/// Every difference between `expected` and `found`, in area order; the
/// driver floors come from `tables`.
pub fn compare(expected: &Lock, found: &Lock, sides: &Sides, tables: &Tables) -> Vec<Drift> {
    let mut drift = Vec::new();
    platform::system(expected, found, sides, &mut drift);
    platform::nvidia(expected, found, sides, tables, &mut drift);
    platform::gpus(&expected.gpus, &found.gpus, sides, &mut drift);
    platform::cuda(expected, found, sides, &mut drift);
    python::python(expected, found, sides, &mut drift);
    python::packages(expected, found, sides, &mut drift);
    python::frameworks(expected, found, sides, &mut drift);
    python::env(expected, found, sides, &mut drift);
    drift.sort_by_key(|item| item.area);
    drift
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::python::{Dependencies, install_command};
    use crate::findings::Severity;

    /// `compare` with the compiled-in tables, as `verify` does.
    fn compare(expected: &Lock, found: &Lock, sides: &Sides) -> Vec<Drift> {
        super::compare(expected, found, sides, &crate::matrix::builtin_tables().unwrap())
    }
    use crate::lock::model::{Nvidia, sample_lock};

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
        let install = install_command(&locked.packages[0], Dependencies::Untouched).unwrap();
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
