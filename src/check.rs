//! `envdoctor check`: evaluate the matrix rules and the built-in checks against
//! one Snapshot, apply the user's ignores, and produce the Report every output
//! format renders (`envdoctor.report/1`).

use serde::{Deserialize, Serialize};

use crate::findings::{Finding, Severity};
use crate::snapshot::Snapshot;

pub const REPORT_SCHEMA: &str = "envdoctor.report/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub envdoctor_version: String,
    pub snapshot: Snapshot,
    /// Ordered error, warning, info; within a severity, by id.
    pub findings: Vec<Finding>,
    /// Findings the user silenced, with the reason they gave.
    pub ignored: Vec<Ignored>,
    /// Every rule and check that ran, so a CI system can show what passed.
    pub evaluated: Vec<Evaluated>,
    /// Training config files that were read.
    pub configs: ConfigsRead,
    /// The GPU smoke test; `null` when it did not run (`--no-smoke`, a replay).
    pub smoke: Option<serde_json::Value>,
    pub summary: Summary,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ignored {
    pub finding: Finding,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvaluatedKind {
    Rule,
    Check,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Evaluated {
    /// The rule id or check id; findings name it in `origin`.
    pub id: String,
    pub kind: EvaluatedKind,
    pub title: String,
    /// Where a site rule came from (`--matrix DIR`); `None` for built-in ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ConfigsRead {
    pub deepspeed: Option<std::path::PathBuf>,
    pub accelerate: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

impl FailOn {
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity >= Severity::Error,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Never => false,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub ignored: usize,
    pub rules_evaluated: usize,
    pub checks_evaluated: usize,
    pub fail_on: FailOn,
    /// `true` when some finding is at or above `fail_on`: exit code 1.
    pub failed: bool,
}
