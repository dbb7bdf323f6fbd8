//! The machine itself, as `system` records it.

use serde::{Deserialize, Serialize};

/// Every key is optional when read: the public contract names `system` only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct System {
    pub hostname: Option<String>,
    /// `PRETTY_NAME` from os-release, such as `Debian GNU/Linux 12 (bookworm)`.
    pub os: Option<String>,
    pub os_id: Option<String>,
    pub os_version_id: Option<String>,
    pub kernel: Option<String>,
    pub architecture: String,
    pub glibc_version: Option<String>,
    pub cpu_model: Option<String>,
    /// Logical CPUs online on the machine.
    pub cpu_count: Option<usize>,
    /// Logical CPUs this process may run on (cgroup or affinity limits).
    pub cpus_usable: Option<usize>,
    pub memory_total_mib: Option<u64>,
    pub memory_available_mib: Option<u64>,
    #[serde(default)]
    pub limits: Limits,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub shm_total_mib: Option<u64>,
    pub shm_available_mib: Option<u64>,
    /// `ulimit -n`.
    pub open_files: Option<Limit>,
    /// `ulimit -l`, in KiB.
    pub locked_memory_kib: Option<Limit>,
}

/// A soft and a hard limit; `null` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    pub soft: Option<u64>,
    pub hard: Option<u64>,
}
