//! `cuda-drivers.toml`: which driver runs which CUDA. NVIDIA's
//! minor-version compatibility floors, the driver each toolkit release shipped
//! with, and the driver branches with the GPUs they drive.

use std::fmt;
use std::str::FromStr;

use pep440_rs::Version;
use toml_edit::Table;

use super::{MajorMinor, major_minor, source_url};
use crate::knowledge::reader::{Reader, Row};

/// A driver version as NVIDIA writes it (`580.65.06`), with its numeric value
/// for comparison (where `06` is 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverVersion {
    pub text: String,
    pub version: Version,
}

impl DriverVersion {
    /// A driver version as a node reports it (`580.65.06`), its text kept
    /// for display; `None` for anything not dotted digits.
    pub fn reported(text: &str) -> Option<DriverVersion> {
        let text = text.trim();
        let dotted = !text.is_empty()
            && text
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
        let version = dotted.then(|| Version::from_str(text).ok()).flatten()?;
        Some(DriverVersion {
            text: text.to_string(),
            version,
        })
    }
}

impl fmt::Display for DriverVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[derive(Debug, Clone, Default)]
pub struct CudaDrivers {
    pub minor_version_compatibility: Vec<MvcFloor>,
    pub toolkit_releases: Vec<ToolkitRelease>,
    pub driver_branches: Vec<DriverBranch>,
}

/// The oldest Linux driver that runs software built with a CUDA major.
#[derive(Debug, Clone)]
pub struct MvcFloor {
    pub cuda_major: u64,
    pub linux_min_driver: DriverVersion,
    pub source: String,
}

/// The driver a CUDA toolkit release shipped with.
#[derive(Debug, Clone)]
pub struct ToolkitRelease {
    pub cuda: MajorMinor,
    pub linux_driver: DriverVersion,
    pub source: String,
}

#[derive(Debug, Clone)]
pub struct DriverBranch {
    /// `R580`.
    pub branch: String,
    /// `long-term support branch`, `production branch`.
    pub support: String,
    /// The newest CUDA major the branch runs.
    pub cuda_major: u64,
    /// The oldest GPUs the branch drives: R580 is the last for Maxwell,
    /// Pascal and Volta, so later branches start at Turing (7.5).
    pub min_compute_capability: MajorMinor,
    /// `YYYY-MM`, when NVIDIA ends support.
    pub end_of_life: String,
    pub source: String,
}

impl CudaDrivers {
    pub fn floor(&self, cuda_major: u64) -> Option<&MvcFloor> {
        self.minor_version_compatibility
            .iter()
            .find(|row| row.cuda_major == cuda_major)
    }

    pub fn release(&self, cuda: MajorMinor) -> Option<&ToolkitRelease> {
        self.toolkit_releases.iter().find(|row| row.cuda == cuda)
    }

    /// The newest toolkit release whose driver is not newer than `driver`: the
    /// CUDA version a driver reports, for a Snapshot that did not record it.
    pub fn newest_release_for(&self, driver: &Version) -> Option<&ToolkitRelease> {
        self.toolkit_releases
            .iter()
            .filter(|row| row.linux_driver.version <= *driver)
            .max_by_key(|row| row.cuda)
    }

    /// The branch to name in a fix for a CUDA major: of those that run it and
    /// drive the oldest GPU here (`None`: unknown, so the oldest any branch
    /// drives), the one NVIDIA supports longest.
    pub fn branch_for(&self, cuda_major: u64, oldest_gpu: Option<MajorMinor>) -> Option<&DriverBranch> {
        let drives_oldest = self.driver_branches.iter().map(|row| row.min_compute_capability).min();
        let oldest = oldest_gpu.or(drives_oldest)?;
        self.driver_branches
            .iter()
            .filter(|row| row.cuda_major >= cuda_major && row.min_compute_capability <= oldest)
            .max_by(|a, b| a.end_of_life.cmp(&b.end_of_life))
    }
}

pub(super) fn read(root: &Table, reader: &mut Reader) -> CudaDrivers {
    reader.only_kinds(
        root,
        &["minor_version_compatibility", "toolkit_release", "driver_branch"],
    );
    let mut drivers = CudaDrivers::default();

    let mut order = Vec::new();
    for table in reader.rows(root, "minor_version_compatibility") {
        let mut row = reader.row(
            table,
            "minor_version_compatibility",
            &["cuda_major", "linux_min_driver", "source"],
        );
        let cuda_major = row.integer("cuda_major", "the CUDA major, such as 12");
        let driver = driver_version(&mut row, "linux_min_driver");
        let source = source_url(&mut row);
        if let Some(cuda_major) = cuda_major {
            order.push((cuda_major, row.span()));
        }
        if let (Some(cuda_major), Some(linux_min_driver), Some(source)) = (cuda_major, driver, source) {
            drivers.minor_version_compatibility.push(MvcFloor {
                cuda_major,
                linux_min_driver,
                source,
            });
        }
    }
    reader.check_order(&order, "minor_version_compatibility", "cuda_major");

    let mut order = Vec::new();
    for table in reader.rows(root, "toolkit_release") {
        let mut row = reader.row(table, "toolkit_release", &["cuda", "linux_driver", "source"]);
        let cuda = major_minor(&mut row, "cuda", "the CUDA release, such as \"12.8\"");
        let driver = driver_version(&mut row, "linux_driver");
        let source = source_url(&mut row);
        if let Some(cuda) = cuda {
            order.push((cuda, row.span()));
        }
        if let (Some(cuda), Some(linux_driver), Some(source)) = (cuda, driver, source) {
            drivers.toolkit_releases.push(ToolkitRelease {
                cuda,
                linux_driver,
                source,
            });
        }
    }
    reader.check_order(&order, "toolkit_release", "cuda");
    // A newer toolkit never shipped with an older driver; a row that says so is a typo.
    for pair in drivers.toolkit_releases.windows(2) {
        if pair[1].linux_driver.version < pair[0].linux_driver.version {
            let span = order
                .iter()
                .find(|(cuda, _)| *cuda == pair[1].cuda)
                .and_then(|(_, span)| span.clone());
            reader.problem(
                span,
                format!(
                    "CUDA {} has driver {}, older than CUDA {}'s {}",
                    pair[1].cuda, pair[1].linux_driver, pair[0].cuda, pair[0].linux_driver
                ),
            );
        }
    }

    let mut order = Vec::new();
    for table in reader.rows(root, "driver_branch") {
        let mut row = reader.row(
            table,
            "driver_branch",
            &[
                "branch",
                "support",
                "cuda_major",
                "min_compute_capability",
                "end_of_life",
                "source",
            ],
        );
        let branch = row.string("branch", "the branch name, such as \"R580\"");
        let min_compute_capability = major_minor(
            &mut row,
            "min_compute_capability",
            "the oldest GPUs the branch drives, such as \"7.5\"",
        );
        let support = row.string("support", "the kind of branch, such as \"long-term support branch\"");
        let cuda_major = row.integer("cuda_major", "the newest CUDA major the branch runs");
        let end_of_life = row.string("end_of_life", "\"YYYY-MM\"");
        if let Some(end) = end_of_life {
            let valid = end.len() == 7
                && end.as_bytes()[4] == b'-'
                && end.bytes().enumerate().all(|(i, b)| i == 4 || b.is_ascii_digit());
            if !valid {
                row.wrong("end_of_life", format!("`{end}` is not YYYY-MM"));
            }
        }
        let source = source_url(&mut row);
        if let Some(branch) = branch {
            order.push((branch.to_string(), row.span()));
        }
        if let (
            Some(branch),
            Some(support),
            Some(cuda_major),
            Some(min_compute_capability),
            Some(end_of_life),
            Some(source),
        ) = (branch, support, cuda_major, min_compute_capability, end_of_life, source)
        {
            drivers.driver_branches.push(DriverBranch {
                branch: branch.to_string(),
                support: support.to_string(),
                cuda_major,
                min_compute_capability,
                end_of_life: end_of_life.to_string(),
                source,
            });
        }
    }
    reader.check_order(&order, "driver_branch", "branch");
    drivers
}

fn driver_version(row: &mut Row, key: &str) -> Option<DriverVersion> {
    let text = row.string(key, "a driver version such as \"580.65.06\"")?;
    match DriverVersion::reported(text) {
        Some(driver) => Some(driver),
        None => {
            row.wrong(
                key,
                format!("`{text}` is not a dotted driver version such as \"580.65.06\""),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::builtin;
    use super::*;
    #[test]
    fn floors_are_nvidias_table_2() {
        let drivers = &builtin().drivers;
        let floor = |major| drivers.floor(major).map(|row| row.linux_min_driver.text.as_str());
        assert_eq!(floor(11), Some("450.80.02"));
        assert_eq!(floor(12), Some("525.60.13"));
        assert_eq!(floor(13), Some("580.65.06"));
        assert_eq!(floor(10), None);
    }

    #[test]
    fn a_driver_reports_the_newest_release_it_shipped_with() {
        let drivers = &builtin().drivers;
        let version = |text| Version::from_str(text).unwrap();
        let cuda = |driver| {
            drivers
                .newest_release_for(&version(driver))
                .map(|row| row.cuda.to_string())
        };
        assert_eq!(cuda("535.183.01").as_deref(), Some("12.2"));
        assert_eq!(cuda("570.26").as_deref(), Some("12.8"));
        assert_eq!(cuda("580.65.06").as_deref(), Some("13.0"));
        assert_eq!(cuda("400.1"), None);
        let branch = |cuda, gpu: Option<&str>| {
            drivers
                .branch_for(cuda, gpu.and_then(MajorMinor::parse))
                .map(|row| row.branch.as_str())
        };
        // R620 is supported longest, but R580 is the last branch for Volta and older.
        assert_eq!(branch(12, Some("9.0")), Some("R620"));
        assert_eq!(branch(13, Some("7.5")), Some("R620"));
        assert_eq!(branch(12, Some("7.0")), Some("R580"));
        assert_eq!(branch(13, None), Some("R580"));
        assert_eq!(branch(14, Some("9.0")), None);
    }
}
