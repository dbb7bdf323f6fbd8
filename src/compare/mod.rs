//! How one node differs from another, asked in one place: `verify` (a lock and
//! the node probed now), `diff` (any two Snapshots or locks) and `fleet` (each
//! configuration and the majority, or a lock). Each difference is one typed
//! [`Drift`] with a severity, the two values, a message and, where one command
//! fixes it, that command.
//!
//! Severities follow what the difference does to a training job: a package at
//! another version or a driver below what the locked torch needs breaks
//! reproducibility or the job itself (error); a changed GPU count, toolkit or
//! variable may (warning); a new driver patch in the same branch rarely does (info).
//!
//! A node is compared in three parts: its environment, as a lock records it
//! (`environment`); the facts of the machine a lock leaves out but a job feels
//! (`node_facts`: /dev/shm, ulimits, the kernel), where both sides recorded
//! them; and, for `verify --files`, its installed files against their RECORDs
//! (`installed_files`).

pub mod environment;
pub mod installed_files;
pub mod node_facts;
mod platform;
mod python;
pub mod report;

use serde::Serialize;

use crate::findings::Severity;
use crate::knowledge::tables::Tables;
use crate::lock::model::Lock;
use crate::snapshot::Snapshot;

pub use node_facts::{NodeFact, NodeFacts};
pub use python::{Dependencies, install_command};

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

/// One side of a comparison: the node's environment as its lock records it,
/// and the machine facts when the side is a Snapshot (a lock holds none).
#[derive(Debug, Clone)]
pub struct NodeState {
    pub lock: Lock,
    pub node_facts: Option<NodeFacts>,
    /// The interpreter a Snapshot was taken through: the one whose pip a fix
    /// must run. A lock names none.
    pub interpreter: Option<std::path::PathBuf>,
}

impl NodeState {
    pub fn of_snapshot(snapshot: &Snapshot) -> NodeState {
        let executable = &snapshot.python.executable;
        NodeState {
            lock: Lock::from_snapshot(snapshot),
            node_facts: Some(NodeFacts::of(snapshot)),
            interpreter: (!executable.as_os_str().is_empty()).then(|| executable.clone()),
        }
    }

    pub fn of_lock(lock: Lock) -> NodeState {
        NodeState {
            lock,
            node_facts: None,
            interpreter: None,
        }
    }

    /// Makes every pip the fixes run this node's interpreter's
    /// (`fix_command::address`); where the node is a lock, they stay `python -m pip`.
    pub fn address(&self, drift: &mut [Drift]) {
        let Some(python) = &self.interpreter else { return };
        for item in drift {
            crate::fix_command::address_in_place(&mut item.fix, python);
        }
    }
}

/// Every difference between two nodes, in area order: the environment (the
/// driver floors from `tables`), then the machine facts where both sides
/// recorded them.
pub fn nodes(expected: &NodeState, found: &NodeState, sides: &Sides, tables: &Tables) -> Vec<Drift> {
    let mut drift = environment::compare(&expected.lock, &found.lock, sides, tables);
    if let (Some(expected), Some(found)) = (&expected.node_facts, &found.node_facts) {
        drift.extend(node_facts::compare(expected, found, sides));
        drift.sort_by_key(|item| item.area);
    }
    drift
}

fn text(value: &Option<String>) -> String {
    value.clone().unwrap_or_else(|| "unknown".to_string())
}
