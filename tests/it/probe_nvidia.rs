//! The NVIDIA probe on a machine without a GPU: it reports the absence
//! honestly, and a sick driver (a hang, a crash, a missing kernel module) becomes
//! an error entry with a reason, never a hung or failed probe.
//!
//! The sick drivers are a small C library standing in for `libnvidia-ml.so.1`
//! (tests/fixtures/nvml/sick_nvml.c), loaded through `ENVDOCTOR_NVML_LIBRARY`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{probe_json, system_python};
use serde_json::Value;

/// Whether this machine has an NVIDIA kernel module loaded; the expected
/// classification of a failing NVML depends on it.
fn kernel_module_loaded() -> bool {
    Path::new("/proc/driver/nvidia/version").exists() || Path::new("/sys/module/nvidia/version").exists()
}

fn build_sick_nvml(directory: &Path, sickness: u32) -> PathBuf {
    let library = directory.join(format!("libnvidia-ml-sick{sickness}.so"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nvml/sick_nvml.c");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O0", &format!("-DSICKNESS={sickness}"), "-o"])
        .arg(&library)
        .arg(&source)
        .status()
        .expect("a C compiler (cc) is needed to build the stand-in NVML library");
    assert!(status.success(), "cc failed on {}", source.display());
    library
}

fn probe_with_nvml(library: &Path, arguments: &[&str]) -> Value {
    let cache = tempfile::tempdir().unwrap();
    probe_json(
        cache.path(),
        system_python(),
        arguments,
        &[("ENVDOCTOR_NVML_LIBRARY", library)],
    )
}

fn error_kind(snapshot: &Value) -> &str {
    snapshot["nvidia_error"]["kind"]
        .as_str()
        .unwrap_or_else(|| panic!("no nvidia_error in {snapshot:#}"))
}

#[test]
fn a_node_without_a_driver_says_so_and_exits_zero() {
    let snapshot = probe_with_nvml(Path::new("/nonexistent/libnvidia-ml.so.1"), &[]);
    assert_eq!(snapshot["nvidia"], Value::Null);
    assert_eq!(snapshot["cuda_devices"], Value::Null);
    let message = snapshot["nvidia_error"]["message"].as_str().unwrap();
    assert!(message.contains("cannot load the NVML library"), "{message}");
    let expected = if kernel_module_loaded() {
        "broken_install"
    } else {
        "no_driver"
    };
    assert_eq!(error_kind(&snapshot), expected);
}

#[test]
fn this_machine_is_reported_as_it_is() {
    let cache = tempfile::tempdir().unwrap();
    let snapshot = probe_json(cache.path(), system_python(), &[], &[]);
    if snapshot["nvidia"].is_null() {
        assert!(
            snapshot["nvidia_error"]["message"]
                .as_str()
                .is_some_and(|message| !message.is_empty())
        );
    } else {
        assert_eq!(snapshot["nvidia_error"], Value::Null);
        assert!(
            snapshot["nvidia"]["driver_version"]
                .as_str()
                .is_some_and(|version| !version.is_empty())
        );
    }
}

#[test]
fn a_hung_nvml_is_stopped_at_the_deadline() {
    let directory = tempfile::tempdir().unwrap();
    let library = build_sick_nvml(directory.path(), 1);
    let started = Instant::now();
    let snapshot = probe_with_nvml(&library, &["--nvml-timeout", "1"]);
    let elapsed = started.elapsed();
    assert_eq!(error_kind(&snapshot), "timeout");
    assert!(
        snapshot["nvidia_error"]["message"]
            .as_str()
            .unwrap()
            .contains("--nvml-timeout")
    );
    assert_eq!(snapshot["nvidia"], Value::Null);
    // Bounded by the deadline, not by the hang (the harness kills at 60 s).
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
}

#[test]
fn nvml_without_its_kernel_module_is_told_apart_from_no_driver() {
    let directory = tempfile::tempdir().unwrap();
    let library = build_sick_nvml(directory.path(), 2);
    let snapshot = probe_with_nvml(&library, &[]);
    let expected = if kernel_module_loaded() {
        "broken_install"
    } else {
        "module_not_loaded"
    };
    assert_eq!(error_kind(&snapshot), expected);
    let message = snapshot["nvidia_error"]["message"].as_str().unwrap();
    assert!(
        message.contains("modprobe nvidia") || kernel_module_loaded(),
        "{message}"
    );
}

#[test]
fn a_crashing_nvml_is_an_error_entry_not_a_crashed_doctor() {
    let directory = tempfile::tempdir().unwrap();
    let library = build_sick_nvml(directory.path(), 3);
    let snapshot = probe_with_nvml(&library, &[]);
    let message = snapshot["nvidia_error"]["message"].as_str().unwrap();
    assert!(message.contains("SIGSEGV"), "{message}");
    // The rest of the Snapshot is intact.
    assert!(
        snapshot["packages"]
            .as_array()
            .is_some_and(|packages| !packages.is_empty())
    );
}
