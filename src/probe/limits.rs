//! Resource limits that multi-GPU training runs into before the GPU does.
//!
//! - `/dev/shm`: PyTorch DataLoader workers hand batches to the trainer through
//!   shared memory, and NCCL uses it between GPUs of one node; Docker gives a
//!   container 64 MiB unless told otherwise (`docker run --shm-size`, Docker
//!   docs, "Runtime constraints on resources"), and workers then die with
//!   "bus error".
//! - Open files: every DataLoader worker, NCCL channel and CUDA IPC handle holds
//!   descriptors.
//! - Locked memory: NCCL over InfiniBand/RDMA registers (pins) buffers, which
//!   `ulimit -l` caps.

use std::ffi::CString;

use crate::snapshot::system::{Limit, Limits};

const SHARED_MEMORY: &str = "/dev/shm";
const MIB: u64 = 1024 * 1024;

pub fn probe() -> Limits {
    let (shm_total_mib, shm_available_mib) = filesystem_size(SHARED_MEMORY).unzip();
    Limits {
        shm_total_mib,
        shm_available_mib,
        open_files: resource_limit(libc::RLIMIT_NOFILE, 1),
        locked_memory_kib: resource_limit(libc::RLIMIT_MEMLOCK, 1024),
    }
}

/// Total and available MiB of the filesystem at `path`.
#[allow(clippy::unnecessary_cast)] // statvfs fields are `c_ulong`: 32 bits on some targets
fn filesystem_size(path: &str) -> Option<(u64, u64)> {
    let path = CString::new(path).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is NUL-terminated and `stats` is a valid out pointer.
    if unsafe { libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled `stats`.
    let stats = unsafe { stats.assume_init() };
    let block = stats.f_frsize as u64;
    Some((stats.f_blocks as u64 * block / MIB, stats.f_bavail as u64 * block / MIB))
}

/// The type of getrlimit's resource parameter, which the C libraries declare
/// differently: glibc and uClibc as `__rlimit_resource_t` (an unsigned int),
/// musl (and the libc crate's other targets) as a plain `int`. The `RLIMIT_*`
/// constants have the same type as the parameter, so naming it per target keeps
/// a musl build (for containers that want one) compiling.
#[cfg(any(target_env = "gnu", target_env = "uclibc"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(any(target_env = "gnu", target_env = "uclibc")))]
type Resource = libc::c_int;

fn resource_limit(resource: Resource, unit: u64) -> Option<Limit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid out pointer.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0 {
        return None;
    }
    let finite = |value: libc::rlim_t| (value != libc::RLIM_INFINITY).then(|| value / unit);
    Some(Limit {
        soft: finite(limit.rlim_cur),
        hard: finite(limit.rlim_max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_limits_and_a_shared_memory_size() {
        let limits = probe();
        let open_files = limits.open_files.expect("getrlimit(RLIMIT_NOFILE) works everywhere");
        assert!(open_files.soft.is_some_and(|soft| soft > 0));
        assert!(limits.locked_memory_kib.is_some());
        if std::path::Path::new(SHARED_MEMORY).exists() {
            assert!(limits.shm_total_mib.is_some());
        }
    }

    #[test]
    fn a_missing_filesystem_has_no_size() {
        assert_eq!(filesystem_size("/nonexistent/envdoctor"), None);
    }
}
