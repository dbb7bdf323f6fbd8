//! `envdoctor fleet`: many nodes' reports at once, the configuration most of
//! them share, and every node that differs from it (or from a lock), with
//! what differs and how much it weighs.
//!
//! - `reports`: one node's report (a Snapshot or a check report) and its name;
//! - `documents`: the JSON objects in a stream (files, standard input, srun);
//! - `input`: reports from files, directories and standard input;
//! - `slurm`: reports from every node of an allocation, through `srun`;
//! - `pipeline`: reading, parsing and folding on their own threads;
//! - `config`: a node's configuration as facts;
//! - `aggregate`: the fold over reports, and the comparison;
//! - `hostlist`: node names in Slurm's compressed form.

pub mod aggregate;
pub mod config;
pub mod documents;
pub mod hostlist;
pub mod input;
pub mod pipeline;
pub mod reports;
pub mod slurm;

use serde::Serialize;

use crate::compare::Drift;
use crate::findings::Severity;
use crate::lock::model::Lock;

pub use aggregate::Aggregator;

pub const SCHEMA: &str = "envdoctor.fleet/1";

/// What nodes are compared against.
pub enum Reference {
    /// Each fact's most common value across the nodes.
    Majority,
    /// A lock (`--lock FILE`); node facts, which a lock does not hold, are
    /// still compared with the majority.
    Lock { path: String, lock: Box<Lock> },
}

#[derive(Debug, Serialize)]
pub struct FleetReport {
    pub schema: &'static str,
    pub envdoctor_version: &'static str,
    pub reference: ReferenceInfo,
    pub nodes: NodeCounts,
    /// The reference's headline facts: driver, GPUs, Python, the training packages.
    pub majority: Vec<MajorityFact>,
    /// Facts no value of which is held by more than half the nodes.
    pub contested: Vec<Contested>,
    /// One entry per configuration that differs from the reference, worst first.
    pub deviations: Vec<Deviation>,
    /// The nodes' check findings, one entry per finding id.
    pub findings: Vec<FleetFinding>,
    /// Every distinct configuration, the largest first.
    pub configurations: Vec<Configuration>,
    pub not_answered: Vec<NodeProblem>,
    pub unreadable: Vec<NodeProblem>,
    /// Names more than one report claimed; the later reports are named `NAME#2`, ...
    pub duplicates: Vec<String>,
    pub summary: FleetSummary,
    /// Every reported node, for renderers that list them all (JUnit); the JSON
    /// names them through `configurations[].hostlist`.
    #[serde(skip)]
    pub node_names: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct ReferenceInfo {
    /// `majority` or `lock`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// `null` when no node's report could be read: there is no configuration.
    pub fingerprint: Option<String>,
    /// Set where some fact has no value on more than half the nodes (see
    /// `contested`; two nodes that differ, an even split): the majority is then
    /// only the largest part, and these nodes (the first read of it, in
    /// Slurm's hostlist form) hold the configuration the others are compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct NodeCounts {
    /// Nodes whose report was read.
    pub reported: usize,
    /// Reported nodes that match the reference in every fact.
    pub matching: usize,
    pub deviating: usize,
    /// Reported nodes whose check findings are known (they sent check reports,
    /// or their Snapshots were checked here).
    pub judged: usize,
    pub not_answered: usize,
    pub unreadable: usize,
}

#[derive(Debug, Serialize)]
pub struct MajorityFact {
    pub subject: String,
    pub value: String,
}

#[derive(Debug, Serialize)]
pub struct Contested {
    pub subject: String,
    pub values: Vec<ContestedValue>,
}

#[derive(Debug, Serialize)]
pub struct ContestedValue {
    pub value: String,
    pub nodes: usize,
}

#[derive(Debug, Serialize)]
pub struct Deviation {
    pub nodes: Vec<String>,
    /// The same nodes in Slurm's hostlist form, for `--exclude`.
    pub hostlist: String,
    pub severity: Severity,
    pub differences: Vec<Drift>,
}

#[derive(Debug, Serialize)]
pub struct FleetFinding {
    pub id: String,
    pub severity: Severity,
    pub title: String,
    /// The detail of the first node that had it.
    pub example: String,
    pub fix: Option<String>,
    pub count: usize,
    pub hostlist: String,
    pub nodes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Configuration {
    pub fingerprint: String,
    pub nodes: usize,
    pub hostlist: String,
    pub matches_reference: bool,
}

#[derive(Debug, Serialize)]
pub struct NodeProblem {
    /// The node's name, or for an unreadable report the file and line it came from.
    pub node: String,
    pub problem: String,
}

#[derive(Debug, Serialize)]
pub struct FleetSummary {
    /// Nodes whose worst difference or finding is an error; nodes that did not
    /// answer and reports that could not be read count here too.
    pub nodes_with_errors: usize,
    pub nodes_with_warnings: usize,
    pub nodes_with_info: usize,
    /// Nodes with something at or above `fail_on`.
    pub failing_nodes: usize,
    pub fail_on: crate::findings::FailOn,
    pub failed: bool,
}
