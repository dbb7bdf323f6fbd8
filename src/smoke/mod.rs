//! The GPU smoke test: a short, bounded run of the real stack on the real GPUs.
//!
//! The test itself is the Python package under `script/`, compiled into the
//! binary and run by the interpreter the job will use (`harness`). It reports
//! one JSON event per step (`events`); envdoctor enforces every deadline, so a
//! hung GPU or a rank stuck in a collective cannot hang the doctor. What the
//! steps found becomes findings in `diagnose`. A node without torch or
//! without a GPU is no place to run it (`unsupported`).

mod causes;
mod diagnose;
mod events;
mod harness;
pub mod progress;
mod unsupported;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use diagnose::{Diagnosis, findings, live_run};

use crate::builtin_checks::smoke_test::CHECK;
pub use harness::{Options, SmokeError, default_timeout, run};
pub use unsupported::{Reason, Unsupported, torch_saw_no_gpu, unsupported};

/// The JSON document `envdoctor smoke --format json` writes.
pub const SMOKE_SCHEMA: &str = "envdoctor.smoke/1";

/// One run of the smoke test: every step that started, in order, and how the
/// test's process ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmokeRun {
    /// The interpreter that ran it.
    pub python: PathBuf,
    pub timeout_s: f64,
    /// Whether the long steps (`--deep`) were asked for.
    pub deep: bool,
    pub duration_ms: u64,
    pub ending: Ending,
    /// How the process ended, in words: "exit status 0", "signal SIGSEGV",
    /// "killed after 120 s".
    pub ending_detail: String,
    /// The step the ending happened in (a timeout, a crash), if it happened in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_during: Option<String>,
    pub steps: Vec<Step>,
    /// The last lines the test wrote to stderr, kept when it did not complete
    /// or a step failed: a crash's own last words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr_tail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Every stage ran (each step may still have failed).
    Completed,
    /// A step, or the whole run, passed its deadline; the process group was killed.
    TimedOut,
    /// The interpreter died by a signal.
    Crashed,
    /// The interpreter exited before the test finished.
    Exited,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Stable dotted name: `torch.import`, `gpu0.fp16`, `nccl.all_reduce`.
    pub name: String,
    pub title: String,
    pub status: Status,
    pub duration_ms: u64,
    pub detail: String,
    /// The CUDA ordinal a per-GPU step ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    /// Measured values: `import_s`, `tflops`, `max_relative_error`, `bus_gbps`, ...
    #[serde(default)]
    pub figures: BTreeMap<String, serde_json::Value>,
    /// The exception a failed step raised, or the signal that killed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
    Timeout,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Timeout => "timeout",
        }
    }

    /// A verdict against the node: it failed, or it hung.
    pub fn is_problem(self) -> bool {
        matches!(self, Status::Fail | Status::Timeout)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepError {
    /// The exception's qualified type (`torch.OutOfMemoryError`) or the signal's name.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub traceback: String,
}

impl Step {
    pub fn figure_f64(&self, key: &str) -> Option<f64> {
        self.figures.get(key).and_then(serde_json::Value::as_f64)
    }

    pub fn figure_str(&self, key: &str) -> Option<&str> {
        self.figures.get(key).and_then(serde_json::Value::as_str)
    }
}

impl SmokeRun {
    pub fn step(&self, name: &str) -> Option<&Step> {
        self.steps.iter().find(|step| step.name == name)
    }

    pub fn count(&self, status: Status) -> usize {
        self.steps.iter().filter(|step| step.status == status).count()
    }
}

/// `envdoctor smoke` on its own: the run and what it means.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SmokeReport {
    pub schema: String,
    pub envdoctor_version: String,
    #[serde(flatten)]
    pub run: SmokeRun,
    pub findings: Vec<crate::findings::Finding>,
    pub fail_on: crate::findings::FailOn,
    /// `true` when some finding is at or above `fail_on`: exit code 1.
    pub failed: bool,
}

impl SmokeReport {
    pub fn new(run: SmokeRun, diagnosis: &Diagnosis, fail_on: crate::findings::FailOn) -> SmokeReport {
        let findings: Vec<crate::findings::Finding> = findings(&run, diagnosis)
            .into_iter()
            .map(|finding| crate::findings::Finding {
                origin: CHECK.id.to_string(),
                ..finding
            })
            .collect();
        SmokeReport {
            schema: SMOKE_SCHEMA.to_string(),
            envdoctor_version: env!("CARGO_PKG_VERSION").to_string(),
            failed: findings.iter().any(|finding| fail_on.fails(finding.severity)),
            run,
            findings,
            fail_on,
        }
    }
}

/// `envdoctor smoke --format json` where the test cannot run (no torch, no
/// GPU): the same schema, with `not_run` in place of the run; exit code 2.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SmokeNotRun {
    pub schema: String,
    pub envdoctor_version: String,
    /// The interpreter it would have run.
    pub python: PathBuf,
    pub not_run: Unsupported,
}

impl SmokeNotRun {
    pub fn new(python: PathBuf, not_run: Unsupported) -> SmokeNotRun {
        SmokeNotRun {
            schema: SMOKE_SCHEMA.to_string(),
            envdoctor_version: env!("CARGO_PKG_VERSION").to_string(),
            python,
            not_run,
        }
    }
}
