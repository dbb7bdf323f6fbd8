//! Facts about the machine itself, read from `/proc`, `/sys` and `/etc`: no
//! subprocesses, so this part of a probe costs well under a millisecond.

use std::fs;

use crate::probe::limits;
use crate::snapshot::system::System;

pub fn probe() -> System {
    // An image's /etc is anyone's: read as any outside file is.
    let os_release = ["/etc/os-release", "/usr/lib/os-release"]
        .iter()
        .find_map(|path| {
            crate::bounded_read::read_to_string(std::path::Path::new(path), crate::bounded_read::CONFIG_LIMIT).ok()
        })
        .unwrap_or_default();
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    System {
        hostname: read_trimmed("/proc/sys/kernel/hostname"),
        os: os_release_field(&os_release, "PRETTY_NAME"),
        os_id: os_release_field(&os_release, "ID"),
        os_version_id: os_release_field(&os_release, "VERSION_ID"),
        kernel: read_trimmed("/proc/sys/kernel/osrelease"),
        architecture: std::env::consts::ARCH.to_string(),
        glibc_version: glibc_version(),
        cpu_model: cpu_model(&cpuinfo),
        cpu_count: Some(cpuinfo.lines().filter(|line| line.starts_with("processor")).count())
            .filter(|count| *count > 0),
        cpus_usable: std::thread::available_parallelism().ok().map(usize::from),
        memory_total_mib: meminfo_mib(&meminfo, "MemTotal"),
        memory_available_mib: meminfo_mib(&meminfo, "MemAvailable"),
        limits: limits::probe(),
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty())
}

/// os-release(5): `KEY=value`, the value optionally quoted.
fn os_release_field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix('=')?;
        Some(value.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// x86 kernels say `model name`; Arm kernels often give only `CPU part`, so
/// fall back to the device tree's model, then to what there is.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    let field = |key: &str| {
        cpuinfo.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            (name.trim() == key)
                .then(|| value.trim().to_string())
                .filter(|value| !value.is_empty())
        })
    };
    field("model name")
        .or_else(|| field("Model"))
        .or_else(|| read_trimmed("/proc/device-tree/model").map(|model| model.trim_end_matches('\0').to_string()))
        .or_else(|| field("CPU part").map(|part| format!("CPU part {part}")))
}

fn meminfo_mib(meminfo: &str, key: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib / 1024)
    })
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glibc_version() -> Option<String> {
    unsafe extern "C" {
        fn gnu_get_libc_version() -> *const libc::c_char;
    }
    // SAFETY: glibc returns a pointer to a static, NUL-terminated string.
    let version = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) };
    version.to_str().ok().map(str::to_string)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn glibc_version() -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release_values_lose_their_quotes() {
        let text = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID='12'\n";
        assert_eq!(
            os_release_field(text, "PRETTY_NAME").as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(os_release_field(text, "ID").as_deref(), Some("debian"));
        assert_eq!(os_release_field(text, "VERSION_ID").as_deref(), Some("12"));
    }

    #[test]
    fn meminfo_is_read_in_mib() {
        assert_eq!(meminfo_mib("MemTotal:       24576000 kB\n", "MemTotal"), Some(24000));
    }

    #[test]
    fn this_machine_reports_its_basics() {
        let system = probe();
        assert!(system.kernel.is_some() && system.cpu_count.is_some() && system.memory_total_mib.is_some());
    }
}
