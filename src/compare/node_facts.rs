//! The machine facts a lock leaves out, because they are the machine's rather
//! than the environment's, yet a job feels them: /dev/shm, the open-files and
//! locked-memory limits, the kernel. Only a Snapshot holds them, so they are
//! compared only where both sides are Snapshots (`diff`, `fleet`).

use std::collections::BTreeMap;

use super::{Area, Drift, Sides};
use crate::findings::Severity;
use crate::snapshot::Snapshot;

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
    pub fn read(self, snapshot: &Snapshot) -> Option<String> {
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

/// The machine facts of one node, each as compared and shown; an unknown one is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeFacts(pub BTreeMap<NodeFact, String>);

impl NodeFacts {
    pub fn of(snapshot: &Snapshot) -> NodeFacts {
        NodeFacts(
            NodeFact::ALL
                .into_iter()
                .filter_map(|fact| Some((fact, fact.read(snapshot)?)))
                .collect(),
        )
    }
}

/// Every machine fact on which the two sides differ. A fact one side did
/// not record (an older envdoctor, a file it could not read) is no
/// difference of the machines: the built-in checks judge a missing one.
pub fn compare(expected: &NodeFacts, found: &NodeFacts, sides: &Sides) -> Vec<Drift> {
    NodeFact::ALL
        .into_iter()
        .filter_map(|fact| {
            let (expected, found) = (expected.0.get(&fact)?, found.0.get(&fact)?);
            (expected != found).then(|| drift(fact, expected, found, sides))
        })
        .collect()
}

fn drift(fact: NodeFact, expected: &str, found: &str, sides: &Sides) -> Drift {
    let spec = fact.spec();
    // A larger /dev/shm or a higher limit fails nothing the other side runs:
    // said, never "fixed" by shrinking it.
    let roomier = matches!((amount(expected), amount(found)), (Some(expected), Some(found)) if found > expected);
    let (severity, fix) = if roomier {
        (Severity::Info, None)
    } else {
        (spec.severity, spec.fix.map(|fix| fix(expected)))
    };
    let message = format!(
        "{} is {found} {}, {expected} {}: {}",
        spec.title, sides.found, sides.expected, spec.why
    );
    Drift::new(spec.id, Area::System, severity, spec.title)
        .values(Some(expected.to_string()), Some(found.to_string()))
        .message(message)
        .fix(fix)
}

/// A size or limit as shown (`64 GiB`, `512 MiB`, `20000`, `8192 KiB`,
/// `unlimited`), in one unit per fact, to tell which side has more; `None`
/// for what has no order (the kernel).
fn amount(value: &str) -> Option<u64> {
    if value == "unlimited" {
        return Some(u64::MAX);
    }
    let (number, scale) = match value.split_once(' ') {
        Some((number, "GiB")) => (number, 1024),
        Some((number, "MiB" | "KiB")) => (number, 1),
        Some(_) => return None,
        None => (value, 1),
    };
    number.parse::<u64>().ok().map(|number| number.saturating_mul(scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(shm: Option<&str>, open_files: &str, kernel: &str) -> NodeFacts {
        let mut facts = BTreeMap::from([
            (NodeFact::OpenFiles, open_files.to_string()),
            (NodeFact::Kernel, kernel.to_string()),
        ]);
        if let Some(shm) = shm {
            facts.insert(NodeFact::SharedMemory, shm.to_string());
        }
        NodeFacts(facts)
    }

    fn sides() -> Sides {
        Sides {
            expected: "in A".to_string(),
            found: "in B".to_string(),
        }
    }

    #[test]
    fn less_is_a_warning_with_the_fix_and_more_is_said_without_one() {
        let smaller = compare(
            &facts(Some("128 GiB"), "20000", "6.8"),
            &facts(Some("64 MiB"), "1024", "6.8"),
            &sides(),
        );
        let weights: Vec<_> = smaller
            .iter()
            .map(|drift| (drift.id, drift.severity, drift.fix.is_some()))
            .collect();
        assert_eq!(
            weights,
            [
                ("node-shared-memory", Severity::Warning, true),
                ("node-open-files", Severity::Warning, false)
            ]
        );
        let larger = compare(
            &facts(Some("64 MiB"), "1024", "6.8"),
            &facts(Some("128 GiB"), "unlimited", "6.8"),
            &sides(),
        );
        let weights: Vec<_> = larger
            .iter()
            .map(|drift| (drift.id, drift.severity, drift.fix.is_some()))
            .collect();
        assert_eq!(
            weights,
            [
                ("node-shared-memory", Severity::Info, false),
                ("node-open-files", Severity::Info, false)
            ]
        );
    }

    #[test]
    fn a_fact_one_side_did_not_record_is_no_difference() {
        let drift = compare(
            &facts(Some("128 GiB"), "1024", "6.8"),
            &facts(None, "1024", "6.9"),
            &sides(),
        );
        let ids: Vec<_> = drift.iter().map(|drift| drift.id).collect();
        assert_eq!(ids, ["node-kernel"]);
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
