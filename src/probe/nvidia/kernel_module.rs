//! The NVIDIA kernel module, as the kernel itself reports it. Read beside NVML
//! because the two disagree exactly when an install is broken: a loaded module
//! with no working NVML is a driver problem, not a node without a GPU.

use std::fs;
use std::path::Path;

use crate::snapshot::nvidia::KernelModule;

/// Written by the loaded module; absent when no NVIDIA module is loaded.
const PROC_VERSION: &str = "/proc/driver/nvidia/version";
/// The module's version alone; present on kernels that expose module versions in sysfs.
const SYSFS_VERSION: &str = "/sys/module/nvidia/version";

/// The loaded module, or `None` when neither file exists.
pub fn probe() -> Option<KernelModule> {
    read(Path::new(PROC_VERSION), Path::new(SYSFS_VERSION))
}

fn read(proc_version: &Path, sysfs_version: &Path) -> Option<KernelModule> {
    if let Ok(text) = fs::read_to_string(proc_version) {
        return Some(parse_proc_version(&text, proc_version));
    }
    let version = fs::read_to_string(sysfs_version).ok()?;
    Some(KernelModule {
        version: Some(version.trim().to_string()).filter(|version| !version.is_empty()),
        flavor: None,
        built_with: None,
        read_from: sysfs_version.to_path_buf(),
    })
}

/// Parses `/proc/driver/nvidia/version`. Its first line has two shapes:
/// `NVRM version: NVIDIA UNIX x86_64 Kernel Module  <version>  <build date>` for
/// the proprietary module and `NVRM version: NVIDIA UNIX Open Kernel Module for
/// x86_64  <version>  Release Build  (<builder>)  <date>` for the open one. In
/// both the version is the first token after "Module" that starts with a digit
/// (the open module puts "for x86_64" in between).
fn parse_proc_version(text: &str, read_from: &Path) -> KernelModule {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let after_module = first.split_once("Kernel Module").map_or("", |(_, rest)| rest);
    let version = after_module
        .split_whitespace()
        .find(|token| token.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string);
    let flavor = if first.contains("Open Kernel Module") {
        "open"
    } else {
        "proprietary"
    };
    let built_with = lines
        .find_map(|line| line.strip_prefix("GCC version:"))
        .map(|compiler| compiler.trim().to_string())
        .filter(|compiler| !compiler.is_empty());
    KernelModule {
        version,
        flavor: first.contains("Kernel Module").then(|| flavor.to_string()),
        built_with,
        read_from: read_from.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user's `cat /proc/driver/nvidia/version` on an Ubuntu 22.04 cloud
    /// node, quoted verbatim in a public repository's notes (driver 580.95.05).
    const OPEN_580: &str = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  \
                            (dvs-builder@U22-I3-B17-02-5)  Tue Sep 23 09:55:41 UTC 2025\n\
                            GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04.2) \n";

    /// DIAMBRA Arena's installation docs, "CUDA Installation Test" (driver 440.95.01).
    const PROPRIETARY_440: &str = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  440.95.01  Thu May 28 07:03:08 UTC 2020\n\
                                   GCC version:  gcc version 7.5.0 (Ubuntu 7.5.0-3ubuntu1~18.04) \n";

    #[test]
    fn reads_the_open_module() {
        let module = parse_proc_version(OPEN_580, Path::new(PROC_VERSION));
        assert_eq!(module.version.as_deref(), Some("580.95.05"));
        assert_eq!(module.flavor.as_deref(), Some("open"));
        assert_eq!(
            module.built_with.as_deref(),
            Some("gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04.2)")
        );
    }

    #[test]
    fn reads_the_proprietary_module() {
        let module = parse_proc_version(PROPRIETARY_440, Path::new(PROC_VERSION));
        assert_eq!(module.version.as_deref(), Some("440.95.01"));
        assert_eq!(module.flavor.as_deref(), Some("proprietary"));
    }

    #[test]
    fn unknown_text_yields_no_version_rather_than_a_wrong_one() {
        let module = parse_proc_version("something else entirely 1.2.3\n", Path::new(PROC_VERSION));
        assert_eq!(module.version, None);
        assert_eq!(module.flavor, None);
    }

    #[test]
    fn falls_back_to_sysfs_and_to_nothing() {
        let directory = tempfile::tempdir().unwrap();
        let proc_version = directory.path().join("proc-version");
        let sysfs_version = directory.path().join("sysfs-version");
        assert_eq!(read(&proc_version, &sysfs_version), None);

        fs::write(&sysfs_version, "550.54.14\n").unwrap();
        let module = read(&proc_version, &sysfs_version).unwrap();
        assert_eq!(module.version.as_deref(), Some("550.54.14"));
        assert_eq!(module.read_from, sysfs_version);

        fs::write(&proc_version, PROPRIETARY_440).unwrap();
        assert_eq!(read(&proc_version, &sysfs_version).unwrap().read_from, proc_version);
    }
}
