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
//! Values are compact JSON of the lock's own types, so the reference a fleet is
//! compared against can be rebuilt as a `Lock` and handed to `lock::drift`,
//! which already knows how much each difference weighs.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::findings::Severity;
use crate::lock::model::{self, Lock};
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

impl FactKey {
    /// A fact's value as a person reads it: `2.11.0` for a package, `580.65.06
    /// (CUDA 13.0)` for the driver, rather than the JSON it is compared as.
    pub fn describe(&self, value: &str) -> String {
        let json = || serde_json::from_str::<serde_json::Value>(value).unwrap_or_default();
        let text = |value: &serde_json::Value| value.as_str().unwrap_or("unknown").to_string();
        match self {
            FactKey::Package(_) => text(&json()["version"]),
            FactKey::Nvidia => {
                let nvidia = json();
                format!("{} (CUDA {})", text(&nvidia["driver"]), text(&nvidia["cuda-driver"]))
            }
            FactKey::Python => text(&json()["version"]),
            FactKey::Framework(_) => text(&json()["version"]),
            FactKey::Gpus => json()
                .as_array()
                .map(|groups| {
                    let groups: Vec<String> = groups
                        .iter()
                        .map(|group| format!("{} × {}", group["count"], text(&group["name"])))
                        .collect();
                    groups.join(" + ")
                })
                .unwrap_or_default(),
            FactKey::System => {
                let system = json();
                format!("{} {}", text(&system["os"]), text(&system["architecture"]))
            }
            FactKey::CudaToolkits | FactKey::CudaLibraries => {
                // Toolkits have no name of their own; libraries do (`cudnn`).
                let items = json();
                let items: Vec<String> = items
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|item| {
                        let name = item["name"].as_str().unwrap_or("toolkit");
                        format!("{name} {}", text(&item["version"]))
                    })
                    .collect();
                items.join(", ")
            }
            FactKey::Env(_) | FactKey::Node(_) => value.to_string(),
        }
    }
}

/// Facts of the machine a job feels but a lock does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeFact {
    SharedMemory,
    OpenFiles,
    LockedMemory,
    Kernel,
}

/// How a node fact is named, weighed and explained.
pub struct NodeFactSpec {
    pub id: &'static str,
    pub title: &'static str,
    pub severity: Severity,
    pub why: &'static str,
    /// The action that brings a node in line, given the reference value.
    pub fix: Option<fn(&str) -> String>,
}

impl NodeFact {
    pub const ALL: [NodeFact; 4] = [
        NodeFact::SharedMemory,
        NodeFact::OpenFiles,
        NodeFact::LockedMemory,
        NodeFact::Kernel,
    ];

    pub fn spec(self) -> &'static NodeFactSpec {
        match self {
            NodeFact::SharedMemory => &SHARED_MEMORY,
            NodeFact::OpenFiles => &OPEN_FILES,
            NodeFact::LockedMemory => &LOCKED_MEMORY,
            NodeFact::Kernel => &KERNEL,
        }
    }

    /// The value on this node, as compared and shown; `None` when unknown.
    fn read(self, snapshot: &Snapshot) -> Option<String> {
        let limits = &snapshot.system.limits;
        let soft = |limit: Option<crate::snapshot::system::Limit>, unit: &str| {
            limit.map(|limit| match limit.soft {
                Some(value) => format!("{value}{unit}"),
                None => "unlimited".to_string(),
            })
        };
        match self {
            NodeFact::SharedMemory => limits.shm_total_mib.map(rounded_size),
            NodeFact::OpenFiles => soft(limits.open_files, ""),
            NodeFact::LockedMemory => soft(limits.locked_memory_kib, " KiB"),
            NodeFact::Kernel => snapshot.system.kernel.clone(),
        }
    }
}

static SHARED_MEMORY: NodeFactSpec = NodeFactSpec {
    id: "node-shared-memory",
    title: "/dev/shm",
    severity: Severity::Warning,
    why: "DataLoader workers pass batches through /dev/shm and NCCL uses it between the GPUs of a node; \
          a smaller one fails with \"bus error\" on that node alone.",
    fix: Some(|size| {
        format!(
            "mount -o remount,size={} /dev/shm",
            size.replace(' ', "").trim_end_matches("iB")
        )
    }),
};

static OPEN_FILES: NodeFactSpec = NodeFactSpec {
    id: "node-open-files",
    title: "open files limit (ulimit -n)",
    severity: Severity::Warning,
    why: "every DataLoader worker, NCCL channel and CUDA IPC handle holds descriptors; a lower limit fails \
          with \"Too many open files\" on that node alone.",
    fix: None,
};

static LOCKED_MEMORY: NodeFactSpec = NodeFactSpec {
    id: "node-locked-memory",
    title: "locked memory limit (ulimit -l)",
    severity: Severity::Warning,
    why: "NCCL over InfiniBand pins its buffers; a lower limit makes that node fail to register memory or fall \
          back to slower transport.",
    fix: None,
};

static KERNEL: NodeFactSpec = NodeFactSpec {
    id: "node-kernel",
    title: "kernel",
    severity: Severity::Info,
    why: "the NVIDIA kernel module is built for one kernel; a node booted into another is often one that \
          was updated apart from the rest.",
    fix: None,
};

/// A size in MiB as compared across nodes: whole GiB from 1 GiB up, because
/// tmpfs sizes follow memory, which differs by a few MiB between identical machines.
fn rounded_size(mib: u64) -> String {
    if mib >= 1024 {
        format!("{} GiB", (mib + 512) / 1024)
    } else {
        format!("{mib} MiB")
    }
}

/// Every fact of a node, sorted by key.
pub fn facts_of(snapshot: &Snapshot) -> Vec<(FactKey, String)> {
    // RECORD digests, where a Snapshot holds them, differ with local builds;
    // the fleet compares what every node reports alike.
    let mut lock = Lock::from_snapshot(snapshot);
    for package in &mut lock.packages {
        package.record_digest = None;
    }
    let mut facts = lock_facts(&lock);
    for fact in NodeFact::ALL {
        if let Some(value) = fact.read(snapshot) {
            facts.push((FactKey::Node(fact), value));
        }
    }
    facts.sort_by(|a, b| a.0.cmp(&b.0));
    facts
}

/// The lock's parts as facts.
pub fn lock_facts(lock: &Lock) -> Vec<(FactKey, String)> {
    let mut facts = vec![
        (FactKey::System, compact(&lock.system)),
        (FactKey::Python, compact(&lock.python)),
    ];
    if let Some(nvidia) = &lock.nvidia {
        facts.push((FactKey::Nvidia, compact(nvidia)));
    }
    if !lock.gpus.is_empty() {
        facts.push((FactKey::Gpus, compact(&lock.gpus)));
    }
    if !lock.cuda.toolkits.is_empty() {
        facts.push((FactKey::CudaToolkits, compact(&lock.cuda.toolkits)));
    }
    if !lock.cuda.libraries.is_empty() {
        facts.push((FactKey::CudaLibraries, compact(&lock.cuda.libraries)));
    }
    for package in &lock.packages {
        facts.push((FactKey::Package(package.normalized_name()), compact(package)));
    }
    for (name, framework) in &lock.frameworks {
        facts.push((FactKey::Framework(name.clone()), compact(framework)));
    }
    for (name, value) in &lock.env {
        facts.push((FactKey::Env(name.clone()), value.clone()));
    }
    facts
}

/// A lock holding exactly the given facts (node facts are not the lock's and are skipped).
///
/// The facts were written by `lock_facts` in this process, so a value that does
/// not read back is a bug, not bad input.
pub fn lock_from<'a>(facts: impl IntoIterator<Item = (&'a FactKey, &'a str)>) -> Lock {
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
    for (key, value) in facts {
        match key {
            FactKey::System => lock.system = parsed(value),
            FactKey::Nvidia => lock.nvidia = Some(parsed(value)),
            FactKey::Gpus => lock.gpus = parsed(value),
            FactKey::CudaToolkits => lock.cuda.toolkits = parsed(value),
            FactKey::CudaLibraries => lock.cuda.libraries = parsed(value),
            FactKey::Python => lock.python = parsed(value),
            FactKey::Package(_) => lock.packages.push(parsed(value)),
            FactKey::Framework(name) => {
                lock.frameworks.insert(name.clone(), parsed(value));
            }
            FactKey::Env(name) => {
                lock.env.insert(name.clone(), value.to_string());
            }
            FactKey::Node(_) => {}
        }
    }
    lock.packages.sort_by_key(model::Package::normalized_name);
    lock.fingerprint = lock.content_fingerprint();
    lock
}

fn compact<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("lock parts always serialize")
}

fn parsed<T: DeserializeOwned>(value: &str) -> T {
    serde_json::from_str(value).expect("a fact written by lock_facts reads back")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_survives_the_trip_through_facts() {
        let lock = model::sample_lock();
        let facts = lock_facts(&lock);
        let rebuilt = lock_from(facts.iter().map(|(key, value)| (key, value.as_str())));
        assert_eq!(rebuilt.fingerprint, lock.fingerprint);
        assert_eq!(rebuilt.packages, lock.packages);
        assert_eq!(rebuilt.env, lock.env);
    }

    #[test]
    fn shared_memory_is_compared_in_whole_gib_so_identical_machines_agree() {
        assert_eq!(rounded_size(1_031_712), rounded_size(1_031_700));
        assert_eq!(rounded_size(64), "64 MiB");
        assert_eq!(rounded_size(65_536), "64 GiB");
    }

    #[test]
    fn the_shared_memory_fix_names_the_size_mount_takes() {
        let fix = NodeFact::SharedMemory.spec().fix.unwrap();
        assert_eq!(fix("1008 GiB"), "mount -o remount,size=1008G /dev/shm");
        assert_eq!(fix("64 MiB"), "mount -o remount,size=64M /dev/shm");
    }
}
