//! Folds node reports, one at a time, into what a fleet report needs, then
//! compares every configuration with the reference: the majority value of each
//! fact, or a lock.
//!
//! Memory grows with the number of nodes only by a name and a few integers
//! each; a node's facts are interned, so a configuration shared by a thousand
//! nodes is held once, and a value shared by many configurations is held once.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use sha2::{Digest, Sha256};

use super::config::{self, FactKey, FactValue};
use super::hostlist;
use super::reports::NodeReport;
use super::{
    Configuration, Contested, ContestedValue, Deviation, FleetFinding, FleetReport, FleetSummary, MajorityFact,
    NodeCounts, NodeProblem, Reference, ReferenceInfo,
};
use crate::compare::{self, Drift, NodeFacts, Sides};
use crate::findings::FailOn;
use crate::findings::{Finding, Severity};
use crate::knowledge::tables::Tables;
use crate::lock::model::Lock;

type FactValues = Box<[(u32, u32)]>;

#[derive(Debug)]
struct Interner<T> {
    items: Vec<T>,
    ids: HashMap<T, u32>,
}

impl<T: Clone + Eq + Hash> Interner<T> {
    fn new() -> Interner<T> {
        Interner {
            items: Vec::new(),
            ids: HashMap::new(),
        }
    }

    fn id(&mut self, item: T) -> u32 {
        if let Some(&id) = self.ids.get(&item) {
            return id;
        }
        let id = u32::try_from(self.items.len()).expect("fewer than 2^32 distinct facts");
        self.items.push(item.clone());
        self.ids.insert(item, id);
        id
    }

    fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

#[derive(Debug)]
struct Group {
    facts: FactValues,
    nodes: Vec<u32>,
}

#[derive(Debug)]
struct FindingGroup {
    severity: Severity,
    title: String,
    example: String,
    fix: Option<String>,
    nodes: Vec<u32>,
}

/// A node's report reduced to what the aggregate keeps; made on a worker
/// thread, so the Snapshot is dropped there.
#[derive(Debug)]
pub struct Prepared {
    pub name: String,
    pub facts: Vec<(FactKey, FactValue)>,
    pub findings: Option<Vec<Finding>>,
}

impl Prepared {
    pub fn of(report: NodeReport) -> Prepared {
        Prepared {
            facts: config::facts_of(&report.snapshot),
            name: report.name,
            findings: report.findings,
        }
    }
}

#[derive(Debug)]
pub struct Aggregator {
    keys: Interner<FactKey>,
    values: Interner<FactValue>,
    groups: Vec<Group>,
    group_of: HashMap<FactValues, u32>,
    names: Vec<String>,
    seen: HashMap<String, u32>,
    duplicates: Vec<String>,
    findings: BTreeMap<String, FindingGroup>,
    judged: usize,
    not_answered: Vec<NodeProblem>,
    unreadable: Vec<NodeProblem>,
}

impl Default for Aggregator {
    fn default() -> Self {
        Aggregator::new()
    }
}

impl Aggregator {
    pub fn new() -> Aggregator {
        Aggregator {
            keys: Interner::new(),
            values: Interner::new(),
            groups: Vec::new(),
            group_of: HashMap::new(),
            names: Vec::new(),
            seen: HashMap::new(),
            duplicates: Vec::new(),
            findings: BTreeMap::new(),
            judged: 0,
            not_answered: Vec::new(),
            unreadable: Vec::new(),
        }
    }

    /// Nothing was heard at all: no report, and no node or file that failed to send one.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.not_answered.is_empty() && self.unreadable.is_empty()
    }

    pub fn add(&mut self, report: Prepared) {
        let node = u32::try_from(self.names.len()).expect("fewer than 2^32 nodes");
        let name = self.unique_name(report.name);
        let facts: FactValues = report
            .facts
            .into_iter()
            .map(|(key, value)| (self.keys.id(key), self.values.id(value)))
            .collect();
        let next = u32::try_from(self.groups.len()).expect("fewer than 2^32 configurations");
        let group = *self.group_of.entry(facts.clone()).or_insert(next);
        if group == next {
            self.groups.push(Group {
                facts,
                nodes: Vec::new(),
            });
        }
        self.groups[group as usize].nodes.push(node);
        self.names.push(name);
        if let Some(findings) = report.findings {
            self.judged += 1;
            for finding in findings {
                self.add_finding(node, finding);
            }
        }
    }

    /// A node that was asked but sent no report (it hung, or its launch failed).
    pub fn not_answered(&mut self, node: String, problem: String) {
        self.not_answered.push(NodeProblem { node, problem });
    }

    /// A report that could not be read: `source` names the file and line, or the node.
    pub fn unreadable(&mut self, source: String, problem: String) {
        self.unreadable.push(NodeProblem { node: source, problem });
    }

    /// Two reports for one name are both kept (a stale file is a finding in
    /// itself); the second is named apart.
    fn unique_name(&mut self, name: String) -> String {
        let count = self.seen.entry(name.clone()).or_insert(0);
        *count += 1;
        if *count == 1 {
            return name;
        }
        let renamed = format!("{name}#{count}");
        // Named once, however many reports claim it.
        if *count == 2 {
            self.duplicates.push(name);
        }
        renamed
    }

    fn add_finding(&mut self, node: u32, finding: Finding) {
        let group = self.findings.entry(finding.id).or_insert_with(|| FindingGroup {
            severity: finding.severity,
            title: finding.title,
            example: finding.detail,
            fix: finding.fix,
            nodes: Vec::new(),
        });
        group.severity = group.severity.max(finding.severity);
        if group.nodes.last() != Some(&node) {
            group.nodes.push(node);
        }
    }

    /// The driver floors come from `tables`.
    pub fn finish(self, reference: Reference, fail_on: FailOn, tables: &Tables) -> FleetReport {
        let total = self.names.len();
        let counts = self.value_counts();
        let consensus = self.consensus(&counts);
        let contested = self.contested(&counts);
        let compare_lock = matches!(reference, Reference::Lock { .. });
        // Where some fact has no value on more than half the nodes (two nodes that
        // differ, an even split), the consensus is only the largest part, the
        // first read among equals: the nodes that hold it are named, not called most.
        let standing_in = (!contested.is_empty())
            .then(|| self.groups.iter().find(|group| group.facts == consensus))
            .flatten()
            .map(|group| hostlist::compress(names_of(&self.names, &group.nodes)));
        let majority_side = match (&standing_in, contested.is_empty()) {
            (_, true) => "on most nodes".to_string(),
            (Some(nodes), false) => format!("on {nodes}"),
            (None, false) => "in the fleet's most common configuration".to_string(),
        };
        // Machine facts are always compared with the majority: a lock does not hold them.
        let (majority_lock, majority_facts) = config::node_from(self.resolve(&consensus));
        let (reference_lock, reference_info) = match reference {
            Reference::Majority => {
                let info = ReferenceInfo {
                    kind: "majority",
                    lock: None,
                    // No report read, no configuration: the hash of nothing is no fingerprint.
                    fingerprint: (total > 0).then(|| fingerprint(self.resolve(&consensus))),
                    nodes: standing_in,
                };
                (majority_lock, info)
            }
            Reference::Lock { path, lock } => {
                let info = ReferenceInfo {
                    kind: "lock",
                    lock: Some(path),
                    fingerprint: Some(lock.fingerprint.clone()),
                    nodes: None,
                };
                (*lock, info)
            }
        };

        let mut worst: Vec<Option<Severity>> = vec![None; total];
        let mut deviations = Vec::new();
        let mut configurations = Vec::new();
        let mut matching = 0;
        for group in &self.groups {
            let differences = if !compare_lock && group.facts == consensus {
                Vec::new()
            } else {
                let reference_side = if compare_lock { "in the lock" } else { &majority_side };
                let sides = (reference_side, majority_side.as_str());
                self.differences(group, &majority_facts, &reference_lock, sides, tables)
            };
            let names = names_of(&self.names, &group.nodes);
            let hostlist = hostlist::compress(names.iter().copied());
            configurations.push(Configuration {
                fingerprint: fingerprint(self.resolve(&group.facts)),
                nodes: group.nodes.len(),
                hostlist: hostlist.clone(),
                matches_reference: differences.is_empty(),
            });
            let Some(severity) = differences.iter().map(|drift| drift.severity).max() else {
                matching += group.nodes.len();
                continue;
            };
            for &node in &group.nodes {
                raise(&mut worst[node as usize], severity);
            }
            deviations.push(Deviation {
                hostlist,
                nodes: names.iter().map(|name| name.to_string()).collect(),
                severity,
                differences,
            });
        }
        configurations.sort_by(|a, b| b.nodes.cmp(&a.nodes).then_with(|| a.fingerprint.cmp(&b.fingerprint)));
        deviations.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.nodes.len().cmp(&b.nodes.len()))
                .then_with(|| a.nodes.cmp(&b.nodes))
        });

        let majority = self
            .resolve(&consensus)
            .filter(|(key, _)| summary_fact(key))
            .map(|(key, value)| MajorityFact {
                subject: key.to_string(),
                value: value.describe(),
            })
            .collect();
        let mut findings: Vec<FleetFinding> = self
            .findings
            .into_iter()
            .map(|(id, group)| {
                for &node in &group.nodes {
                    raise(&mut worst[node as usize], group.severity);
                }
                let names = names_of(&self.names, &group.nodes);
                FleetFinding {
                    id,
                    severity: group.severity,
                    title: group.title,
                    example: group.example,
                    fix: group.fix,
                    count: names.len(),
                    hostlist: hostlist::compress(names.iter().copied()),
                    nodes: names.iter().map(|name| name.to_string()).collect(),
                }
            })
            .collect();
        findings.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.id.cmp(&b.id)));

        let missing = self.not_answered.len() + self.unreadable.len();
        let count = |severity: Severity| worst.iter().filter(|worst| **worst == Some(severity)).count();
        let errors = count(Severity::Error) + missing;
        let failing = worst
            .iter()
            .filter(|worst| worst.is_some_and(|severity| fail_on.fails(severity)))
            .count()
            + if fail_on.fails(Severity::Error) { missing } else { 0 };
        FleetReport {
            schema: super::SCHEMA,
            envdoctor_version: env!("CARGO_PKG_VERSION"),
            reference: reference_info,
            nodes: NodeCounts {
                reported: total,
                matching,
                deviating: total - matching,
                judged: self.judged,
                not_answered: self.not_answered.len(),
                unreadable: self.unreadable.len(),
            },
            majority,
            contested,
            deviations,
            findings,
            configurations,
            not_answered: self.not_answered,
            unreadable: self.unreadable,
            duplicates: self.duplicates,
            summary: FleetSummary {
                nodes_with_errors: errors,
                nodes_with_warnings: count(Severity::Warning),
                nodes_with_info: count(Severity::Info),
                failing_nodes: failing,
                fail_on,
                failed: failing > 0,
            },
            node_names: self.names,
        }
    }

    /// The value most nodes have for each fact; a fact most nodes lack is left out.
    /// Ties go to the value seen first, so the result does not depend on hashing.
    fn consensus(&self, counts: &[HashMap<u32, usize>]) -> FactValues {
        let total = self.names.len();
        let mut consensus: Vec<(u32, u32)> = counts
            .iter()
            .enumerate()
            .filter_map(|(key, counts)| {
                let present: usize = counts.values().sum();
                let (&value, &count) = counts.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))?;
                (count > total - present).then_some((key as u32, value))
            })
            .collect();
        consensus.sort_by(|a, b| self.keys.get(a.0).cmp(self.keys.get(b.0)));
        consensus.into()
    }

    /// Per fact, how many nodes hold each value.
    fn value_counts(&self) -> Vec<HashMap<u32, usize>> {
        let mut counts: Vec<HashMap<u32, usize>> = vec![HashMap::new(); self.keys.items.len()];
        for group in &self.groups {
            for &(key, value) in group.facts.iter() {
                *counts[key as usize].entry(value).or_default() += group.nodes.len();
            }
        }
        counts
    }

    /// FactValues on which no value is held by more than half the nodes: the fleet is
    /// split, and "the majority" there is only the largest part.
    fn contested(&self, counts: &[HashMap<u32, usize>]) -> Vec<Contested> {
        let total = self.names.len();
        let mut contested: Vec<(&FactKey, Contested)> = Vec::new();
        for (key, counts) in counts.iter().enumerate() {
            let present: usize = counts.values().sum();
            let absent = total - present;
            let top = counts.values().copied().max().unwrap_or(0).max(absent);
            if total < 2 || top * 2 > total {
                continue;
            }
            let key = self.keys.get(key as u32);
            let mut values: Vec<ContestedValue> = counts
                .iter()
                .map(|(&value, &nodes)| ContestedValue {
                    value: self.values.get(value).describe(),
                    nodes,
                })
                .collect();
            if absent > 0 {
                values.push(ContestedValue {
                    value: "absent".to_string(),
                    nodes: absent,
                });
            }
            values.sort_by(|a, b| b.nodes.cmp(&a.nodes).then_with(|| a.value.cmp(&b.value)));
            contested.push((
                key,
                Contested {
                    subject: key.to_string(),
                    values,
                },
            ));
        }
        contested.sort_by(|a, b| a.0.cmp(b.0));
        contested.into_iter().map(|(_, contested)| contested).collect()
    }

    fn resolve<'a>(&'a self, facts: &'a [(u32, u32)]) -> impl Iterator<Item = (&'a FactKey, &'a FactValue)> + 'a {
        facts
            .iter()
            .map(|&(key, value)| (self.keys.get(key), self.values.get(value)))
    }

    /// How a configuration differs from the reference, as `compare` weighs
    /// it: the lock's parts against the reference, the machine facts against
    /// the majority's. `(reference_side, majority_side)` say where each is
    /// found (`in the lock`, `on most nodes`).
    fn differences(
        &self,
        group: &Group,
        majority_facts: &NodeFacts,
        reference: &Lock,
        (reference_side, majority_side): (&str, &str),
        tables: &Tables,
    ) -> Vec<Drift> {
        let many = group.nodes.len() > 1;
        let sides = Sides {
            expected: reference_side.to_string(),
            found: if many { "on these nodes" } else { "on this node" }.to_string(),
        };
        let (lock, node_facts) = config::node_from(self.resolve(&group.facts));
        let mut differences = compare::environment::compare(reference, &lock, &sides, tables);
        let node_sides = Sides {
            expected: majority_side.to_string(),
            found: sides.found.clone(),
        };
        differences.extend(compare::node_facts::compare(majority_facts, &node_facts, &node_sides));
        differences.sort_by_key(|item| item.area);
        differences
    }
}

fn names_of<'a>(names: &'a [String], nodes: &[u32]) -> Vec<&'a str> {
    nodes.iter().map(|&node| names[node as usize].as_str()).collect()
}

fn raise(worst: &mut Option<Severity>, severity: Severity) {
    *worst = Some(worst.map_or(severity, |current| current.max(severity)));
}

/// The facts the report's first lines name the majority configuration by.
fn summary_fact(key: &FactKey) -> bool {
    match key {
        FactKey::Nvidia | FactKey::Gpus | FactKey::Python => true,
        FactKey::Package(name) => [
            "torch",
            "deepspeed",
            "transformers",
            "accelerate",
            "peft",
            "bitsandbytes",
        ]
        .contains(&name.as_str()),
        _ => false,
    }
}

/// `sha256:` over the facts, which are sorted: one configuration, one fingerprint.
pub(super) fn fingerprint<'a>(facts: impl Iterator<Item = (&'a FactKey, &'a FactValue)>) -> String {
    let mut hasher = Sha256::new();
    for (key, value) in facts {
        hasher.update(format!("{key:?}").as_bytes());
        hasher.update([0]);
        hasher.update(value.fingerprint_bytes());
        hasher.update([0]);
    }
    format!("sha256:{}", crate::digest::hex(&hasher.finalize()))
}
