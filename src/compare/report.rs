//! The result of `verify` and `diff`: the drift between two sides, each named,
//! with a summary that decides the exit code. Renderers live in `report::drift`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::installed_files::{FileProblem, verify_many};
use super::{Area, Drift};
use crate::findings::FailOn;
use crate::findings::Severity;
use crate::lock::model::Lock;
use crate::packaging::record::RecordError;
use crate::shell;
use crate::snapshot::Snapshot;

pub const VERIFY_SCHEMA: &str = "envdoctor.verify/1";
pub const DIFF_SCHEMA: &str = "envdoctor.diff/1";

#[derive(Debug, Serialize)]
pub struct DriftReport {
    pub schema: &'static str,
    /// The lock (verify) or A (diff).
    pub expected: Side,
    /// This node or the Snapshot given (verify), or B (diff).
    pub found: Side,
    pub drift: Vec<Drift>,
    /// With `verify --files`: how much was re-hashed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_checked: Option<FilesChecked>,
    pub summary: DriftSummary,
}

#[derive(Debug, Serialize)]
pub struct Side {
    /// `lock`, `node`, `A`, `B`: how messages and tables name it.
    pub label: String,
    /// The file it was read from; `None` for the node probed now.
    pub path: Option<PathBuf>,
    pub fingerprint: String,
}

impl Side {
    pub fn new(label: &str, path: Option<&Path>, lock: &Lock) -> Side {
        Side {
            label: label.to_string(),
            path: path.map(Path::to_path_buf),
            fingerprint: lock.fingerprint.clone(),
        }
    }

    /// `envdoctor.lock`, `this node`, `node7.json`.
    pub fn describe(&self) -> String {
        match &self.path {
            Some(path) => format!("`{}`", path.display()),
            None => "this node".to_string(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct FilesChecked {
    pub distributions: usize,
    /// Distributions without a RECORD to check against (egg-info, some installers).
    pub without_record: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct DriftSummary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub fail_on: FailOn,
    /// Some drift is at or above `fail_on`: exit 1.
    pub failed: bool,
}

impl DriftReport {
    pub fn new(schema: &'static str, expected: Side, found: Side, drift: Vec<Drift>, fail_on: FailOn) -> DriftReport {
        let count = |severity| drift.iter().filter(|item| item.severity == severity).count();
        let summary = DriftSummary {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            fail_on,
            failed: drift.iter().any(|item| fail_on.fails(item.severity)),
        };
        DriftReport {
            schema,
            expected,
            found,
            drift,
            files_checked: None,
            summary,
        }
    }
}

/// Re-hashes every installed file of the node's distributions against their
/// RECORDs: what `pip check` and `uv` never look at. Each file changed in
/// place is an error: the code that runs is not the code that was installed.
pub fn file_drift(snapshot: &Snapshot) -> (Vec<Drift>, FilesChecked) {
    let jobs: Vec<(&Path, &Path)> = snapshot
        .packages
        .iter()
        .map(|package| (package.metadata_path.as_path(), package.location.as_path()))
        .collect();
    let mut drift = Vec::new();
    let mut without_record = Vec::new();
    for (package, result) in snapshot.packages.iter().zip(verify_many(&jobs)) {
        let files = match result {
            Ok(files) => files,
            Err(RecordError::NoRecord { .. }) => {
                without_record.push(package.name.clone());
                continue;
            }
            Err(error) => {
                drift.push(Drift {
                    id: "record-unreadable",
                    area: Area::Files,
                    severity: Severity::Warning,
                    subject: package.name.clone(),
                    expected: None,
                    found: None,
                    message: format!("{}'s files cannot be checked: {error}", package.name),
                    fix: None,
                });
                continue;
            }
        };
        for file in files {
            let (id, expected, found) = match &file.problem {
                FileProblem::Modified { .. } | FileProblem::SizeChanged { .. } => {
                    let (expected, found) = file.problem.changed_values().unzip();
                    ("file-modified", expected, found)
                }
                FileProblem::ScriptRewritten { expected, found, .. } => {
                    ("file-script-rewritten", Some(expected.clone()), Some(found.clone()))
                }
                FileProblem::Missing => ("file-missing", Some("present".to_string()), None),
                FileProblem::Unreadable(_) => ("file-unreadable", None, None),
                FileProblem::NotRegular(kind) => (
                    "file-not-regular",
                    Some("a regular file".to_string()),
                    Some(kind.to_string()),
                ),
                FileProblem::OutsideEnvironment { resolved, allowed, .. } => (
                    "file-outside-environment",
                    Some(format!(
                        "inside {}",
                        allowed
                            .iter()
                            .map(|root| root.display().to_string())
                            .collect::<Vec<_>>()
                            .join(" or ")
                    )),
                    Some(resolved.display().to_string()),
                ),
            };
            let version = package.version.as_deref().unwrap_or("");
            // pip uninstall removes what RECORD lists, outside files included
            // unless it runs in a virtual environment: a RECORD that names
            // them must be fixed by hand first, so no reinstall is offered.
            let fix = match &file.problem {
                FileProblem::OutsideEnvironment { .. } => None,
                _ => Some(format!(
                    "python -m pip install --no-deps --force-reinstall {}",
                    shell::quote(&format!("{}=={version}", package.name))
                )),
            };
            drift.push(Drift {
                id,
                area: Area::Files,
                // A script's first line is the installer's: moved environments differ there.
                severity: match file.problem {
                    FileProblem::ScriptRewritten { .. } => Severity::Warning,
                    _ => Severity::Error,
                },
                subject: format!("{} {}", package.name, file.path.display()),
                expected,
                found,
                message: format!("{} {version}: {file}", package.name),
                fix,
            });
        }
    }
    let checked = FilesChecked {
        distributions: snapshot.packages.len() - without_record.len(),
        without_record,
    };
    (drift, checked)
}
