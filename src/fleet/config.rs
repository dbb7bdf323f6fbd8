//! A node's configuration as a list of facts, each one thing that must match
//! across a fleet for a job to behave the same on every node.
//!
//! Most facts are pieces of the node's lock (`lock::model`): the lock already
//! leaves out what differs between healthy nodes by design (host names, GPU
//! UUIDs, job variables). A package, a framework and a variable are one fact
//! each, so the majority is taken per package rather than per package set; the
//! rest are whole parts (`system`, `gpus`, ...), because their pieces mean
//! nothing apart. A few facts come from the Snapshot alone: per-node limits the
//! lock leaves out because they are the machine's, not the environment's, yet
//! a job feels them (`/dev/shm`, `ulimit`, the kernel).
//!
//! Values are the lock's own types, so the configuration a fleet is compared
//! against, and each configuration that differs, are rebuilt as a `Lock` and
//! handed to `compare`, which already knows how much each difference weighs.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::{NodeFact, NodeFacts};
use crate::lock::model::{self, Fact, GpuGroup, Library, Lock, Toolkit};
use crate::snapshot::Snapshot;

/// Which fact: the part of the lock, or the node fact, and a name where a part
/// has many (a package, a variable).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FactKey {
    System,
    Nvidia,
    Gpus,
    CudaToolkits,
    CudaLibraries,
    Python,
    Package(String),
    Framework(String),
    Env(String),
    Node(NodeFact),
}

impl std::fmt::Display for FactKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FactKey::System => f.write_str("system"),
            FactKey::Nvidia => f.write_str("driver"),
            FactKey::Gpus => f.write_str("GPUs"),
            FactKey::CudaToolkits => f.write_str("CUDA toolkits"),
            FactKey::CudaLibraries => f.write_str("CUDA libraries"),
            FactKey::Python => f.write_str("Python"),
            FactKey::Package(name) => f.write_str(name),
            FactKey::Framework(name) => write!(f, "{name} build"),
            FactKey::Env(name) => f.write_str(name),
            FactKey::Node(fact) => f.write_str(fact.spec().title),
        }
    }
}

/// A fact's value, typed as the lock holds it: equal values are equal facts.
/// Serialized as the lock's own JSON of the value (untagged).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum FactValue {
    System(model::System),
    Nvidia(model::Nvidia),
    Gpus(Vec<GpuGroup>),
    CudaToolkits(Vec<Toolkit>),
    CudaLibraries(Vec<Library>),
    Python(model::Python),
    Package(model::Package),
    Framework(BTreeMap<String, Fact>),
    /// A variable's value, or a machine fact as `compare::node_facts` shows it.
    Text(String),
}

impl FactValue {
    /// The value as a person reads it: `2.11.0` for a package, `580.65.06
    /// (CUDA 13.0)` for the driver.
    pub fn describe(&self) -> String {
        let known = |value: &Option<String>| value.clone().unwrap_or_else(|| "unknown".to_string());
        match self {
            FactValue::Package(package) => known(&package.version),
            FactValue::Nvidia(nvidia) => format!("{} (CUDA {})", known(&nvidia.driver), known(&nvidia.cuda_driver)),
            FactValue::Python(python) => python.version.clone(),
            FactValue::Framework(facts) => match facts.get("version") {
                Some(Fact::Text(version)) => version.clone(),
                _ => "unknown".to_string(),
            },
            FactValue::Gpus(groups) => groups
                .iter()
                .map(|group| format!("{} × {}", group.count, group.name))
                .collect::<Vec<_>>()
                .join(" + "),
            FactValue::System(system) => format!("{} {}", known(&system.os), system.architecture),
            // Toolkits have no name of their own; libraries do (`cudnn`).
            FactValue::CudaToolkits(toolkits) => toolkits
                .iter()
                .map(|toolkit| format!("toolkit {}", known(&toolkit.version)))
                .collect::<Vec<_>>()
                .join(", "),
            FactValue::CudaLibraries(libraries) => libraries
                .iter()
                .map(|library| format!("{} {}", library.name, known(&library.version)))
                .collect::<Vec<_>>()
                .join(", "),
            FactValue::Text(text) => text.clone(),
        }
    }

    /// The bytes a configuration's fingerprint covers: the lock's JSON of the
    /// value, the text itself for a variable or machine fact.
    pub fn fingerprint_bytes(&self) -> Vec<u8> {
        match self {
            FactValue::Text(text) => text.as_bytes().to_vec(),
            // The lock's types are plain data with string keys: serializing them cannot fail.
            value => serde_json::to_vec(value).unwrap_or_default(),
        }
    }
}

/// Every fact of a node, sorted by key.
pub fn facts_of(snapshot: &Snapshot) -> Vec<(FactKey, FactValue)> {
    // RECORD digests, where a Snapshot holds them, differ with local builds;
    // the fleet compares what every node reports alike.
    let mut lock = Lock::from_snapshot(snapshot);
    for package in &mut lock.packages {
        package.record_digest = None;
    }
    let mut facts = lock_facts(lock);
    for (fact, value) in NodeFacts::of(snapshot).0 {
        facts.push((FactKey::Node(fact), FactValue::Text(value)));
    }
    facts.sort_by(|a, b| a.0.cmp(&b.0));
    facts
}

/// The lock's parts as facts: its identity, so a fleet splits nodes only on
/// what runs (as the fingerprint and `compare` do).
fn lock_facts(lock: Lock) -> Vec<(FactKey, FactValue)> {
    let lock = lock.identity();
    let mut facts = vec![
        (FactKey::System, FactValue::System(lock.system)),
        (FactKey::Python, FactValue::Python(lock.python)),
    ];
    if let Some(nvidia) = lock.nvidia {
        facts.push((FactKey::Nvidia, FactValue::Nvidia(nvidia)));
    }
    if !lock.gpus.is_empty() {
        facts.push((FactKey::Gpus, FactValue::Gpus(lock.gpus)));
    }
    if !lock.cuda.toolkits.is_empty() {
        facts.push((FactKey::CudaToolkits, FactValue::CudaToolkits(lock.cuda.toolkits)));
    }
    if !lock.cuda.libraries.is_empty() {
        facts.push((FactKey::CudaLibraries, FactValue::CudaLibraries(lock.cuda.libraries)));
    }
    for package in lock.packages {
        facts.push((FactKey::Package(package.normalized_name()), FactValue::Package(package)));
    }
    for (name, framework) in lock.frameworks {
        facts.push((FactKey::Framework(name), FactValue::Framework(framework)));
    }
    for (name, value) in lock.env {
        facts.push((FactKey::Env(name), FactValue::Text(value)));
    }
    facts
}

/// A lock holding exactly the given facts, and the machine facts among them.
///
/// A key holds only the value kind `lock_facts` gives it; any other pairing
/// cannot be built, and is skipped rather than guessed at.
pub fn node_from<'a>(facts: impl IntoIterator<Item = (&'a FactKey, &'a FactValue)>) -> (Lock, NodeFacts) {
    let mut lock = Lock {
        format_version: model::FORMAT_VERSION.to_string(),
        created_by: format!("envdoctor {}", env!("CARGO_PKG_VERSION")),
        fingerprint: String::new(),
        system: model::System::default(),
        nvidia: None,
        gpus: Vec::new(),
        cuda: model::Cuda::default(),
        python: model::Python {
            version: String::new(),
            implementation: String::new(),
        },
        packages: Vec::new(),
        frameworks: BTreeMap::new(),
        env: BTreeMap::new(),
    };
    let mut node_facts = NodeFacts::default();
    for (key, value) in facts {
        match (key, value.clone()) {
            (FactKey::System, FactValue::System(system)) => lock.system = system,
            (FactKey::Nvidia, FactValue::Nvidia(nvidia)) => lock.nvidia = Some(nvidia),
            (FactKey::Gpus, FactValue::Gpus(gpus)) => lock.gpus = gpus,
            (FactKey::CudaToolkits, FactValue::CudaToolkits(toolkits)) => lock.cuda.toolkits = toolkits,
            (FactKey::CudaLibraries, FactValue::CudaLibraries(libraries)) => lock.cuda.libraries = libraries,
            (FactKey::Python, FactValue::Python(python)) => lock.python = python,
            (FactKey::Package(_), FactValue::Package(package)) => lock.packages.push(package),
            (FactKey::Framework(name), FactValue::Framework(framework)) => {
                lock.frameworks.insert(name.clone(), framework);
            }
            (FactKey::Env(name), FactValue::Text(value)) => {
                lock.env.insert(name.clone(), value);
            }
            (FactKey::Node(fact), FactValue::Text(value)) => {
                node_facts.0.insert(*fact, value);
            }
            _ => {}
        }
    }
    lock.packages.sort_by_key(model::Package::normalized_name);
    lock.fingerprint = lock.content_fingerprint();
    (lock, node_facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_survives_the_trip_through_facts() {
        let lock = model::sample_lock();
        let facts = lock_facts(lock.clone());
        let (rebuilt, node_facts) = node_from(facts.iter().map(|(key, value)| (key, value)));
        assert_eq!(rebuilt.fingerprint, lock.fingerprint);
        assert_eq!(rebuilt.packages, lock.packages);
        assert_eq!(rebuilt.env, lock.env);
        assert_eq!(node_facts, NodeFacts::default());
    }

    /// The kind of defect where two nodes `diff` calls the same get two
    /// fingerprints or two fleet configurations (pip's REQUESTED marker did):
    /// each change to a lock either moves all three, or none.
    #[test]
    fn fingerprint_fleet_and_compare_agree_on_every_change() {
        use crate::compare::Sides;
        use model::{Nvidia, Source};
        let mut base = model::sample_lock();
        base.nvidia = Some(Nvidia {
            driver: Some("580.95.05".to_string()),
            cuda_driver: Some("13.0".to_string()),
        });
        base.system.os_id = Some("ubuntu".to_string());
        base.system.os_version_id = Some("24.04".to_string());
        base.cuda.toolkits.push(Toolkit {
            version: Some("12.8".to_string()),
            root: "/usr/local/cuda-12.8".to_string(),
            nvcc_version: Some("12.8.93".to_string()),
        });
        base.cuda.libraries.push(Library {
            name: "cudnn".to_string(),
            version: Some("9.10.2".to_string()),
            provided_by: "wheel".to_string(),
            distribution: Some("nvidia-cudnn-cu12".to_string()),
        });
        base.packages[0].record_digest = Some("sha256:aa".to_string());
        type Change = fn(&mut Lock);
        let changes: &[(&str, Change, bool)] = &[
            (
                "installer",
                |lock| lock.packages[0].installer = Some("uv".to_string()),
                false,
            ),
            ("REQUESTED", |lock| lock.packages[0].requested = Some(true), false),
            (
                "who wrote it",
                |lock| lock.created_by = "envdoctor 9".to_string(),
                false,
            ),
            (
                "version",
                |lock| lock.packages[0].version = Some("2.11.1".to_string()),
                true,
            ),
            (
                "package added",
                |lock| {
                    let mut other = lock.packages[0].clone();
                    other.name = "numpy".to_string();
                    lock.packages.push(other);
                },
                true,
            ),
            (
                "source",
                |lock| {
                    lock.packages[0].source = Source::Archive {
                        url: "https://example.org/torch.whl".to_string(),
                        hash: None,
                        subdirectory: None,
                    }
                },
                true,
            ),
            (
                "wheel tags",
                |lock| lock.packages[0].wheel_tags = vec!["cp312-cp312-manylinux_2_17_x86_64".to_string()],
                true,
            ),
            (
                "RECORD digest",
                |lock| lock.packages[0].record_digest = Some("sha256:bb".to_string()),
                true,
            ),
            (
                "driver",
                |lock| lock.nvidia.as_mut().unwrap().driver = Some("575.57.08".to_string()),
                true,
            ),
            ("GPU count", |lock| lock.gpus[0].count = 4, true),
            ("GPU memory", |lock| lock.gpus[0].memory_total_mib = Some(81_559), true),
            (
                "toolkit",
                |lock| lock.cuda.toolkits[0].version = Some("12.9".to_string()),
                true,
            ),
            (
                "library",
                |lock| lock.cuda.libraries[0].version = Some("9.8.0".to_string()),
                true,
            ),
            ("Python", |lock| lock.python.version = "3.12.7".to_string(), true),
            ("glibc", |lock| lock.system.glibc = Some("2.39".to_string()), true),
            ("OS", |lock| lock.system.os_version_id = Some("22.04".to_string()), true),
            (
                "framework fact",
                |lock| {
                    lock.frameworks
                        .get_mut("torch")
                        .unwrap()
                        .insert("cuda".to_string(), Fact::Text("12.8".to_string()));
                },
                true,
            ),
            (
                "variable",
                |lock| {
                    lock.env.insert("NCCL_DEBUG".to_string(), "INFO".to_string());
                },
                true,
            ),
        ];
        let tables = crate::matrix::builtin_tables().unwrap();
        let fleet_fingerprint = |lock: &Lock| {
            let facts = lock_facts(lock.clone());
            super::super::aggregate::fingerprint(facts.iter().map(|(key, value)| (key, value)))
        };
        for (name, change, changes_identity) in changes {
            let mut changed = base.clone();
            change(&mut changed);
            let moved = [
                (
                    "fingerprint",
                    changed.content_fingerprint() != base.content_fingerprint(),
                ),
                ("fleet", fleet_fingerprint(&changed) != fleet_fingerprint(&base)),
                (
                    "compare",
                    !crate::compare::environment::compare(&base, &changed, &Sides::verify(), &tables).is_empty(),
                ),
            ];
            for (judge, moved) in moved {
                assert_eq!(moved, *changes_identity, "{name}: {judge} says moved = {moved}");
            }
        }
    }

    #[test]
    fn values_read_as_people_name_them() {
        let facts = lock_facts(model::sample_lock());
        let described: BTreeMap<String, String> = facts
            .iter()
            .map(|(key, value)| (key.to_string(), value.describe()))
            .collect();
        assert_eq!(described["torch"], "2.11.0+cu130");
        assert_eq!(described["Python"], "3.12.1");
        assert_eq!(described["GPUs"], "8 × NVIDIA H200");
        let nvidia = FactValue::Nvidia(model::Nvidia {
            driver: Some("580.95.05".to_string()),
            cuda_driver: None,
        });
        assert_eq!(nvidia.describe(), "580.95.05 (CUDA unknown)");
    }
}
