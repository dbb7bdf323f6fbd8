//! The built-in checks through the binary: `envdoctor check --snapshot FILE`
//! on the recorded H100 node, and on copies of it changed in one fact each.
//! Every finding id a built-in check declares has a Snapshot that makes it
//! fire and a near miss that must not; the unchanged node gives no error.

use crate::common;

use std::path::{Path, PathBuf};

use envdoctor::check::Report;
use envdoctor::findings::Severity;
use envdoctor::probe::cuda_devices;
use envdoctor::probe::frameworks;
use envdoctor::snapshot::cuda::{Toolkit, ToolkitFoundVia};
use envdoctor::snapshot::frameworks::Build;
use envdoctor::snapshot::nvidia::{NvidiaError, NvidiaErrorKind, RemappedRows, Toggle, UnreadableGpu};
use envdoctor::snapshot::{self, Snapshot};

const H100: &str = "tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json";
/// A current torch (2.11, CUDA 13.0) on Hopper with a current driver (580.65.06).
const H200: &str = "tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json";
const FRAMEWORK_FIXTURES: &str = "tests/fixtures/frameworks";

fn repository(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn healthy() -> Snapshot {
    snapshot::read(&repository(H100)).expect("the H100 fixture reads")
}

/// Replays `snapshot` through `envdoctor check --format json` and returns the report.
fn check(snapshot: &Snapshot) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("node.json");
    std::fs::write(&file, serde_json::to_vec_pretty(snapshot).unwrap()).unwrap();
    let assert = common::envdoctor(&dir.path().join("cache"))
        .current_dir(dir.path())
        .args(["check", "--fail-on", "never", "--format", "json", "--snapshot"])
        .arg(&file)
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).expect("check --format json prints a Report")
}

/// The findings with `id`, as (severity, origin).
fn found(report: &Report, id: &str) -> Vec<(Severity, String)> {
    report
        .findings
        .iter()
        .filter(|finding| finding.id == id)
        .map(|finding| (finding.severity, finding.origin.clone()))
        .collect()
}

fn assert_fires(snapshot: &Snapshot, id: &str, severity: Severity, check_id: &str) {
    let report = check(snapshot);
    assert_eq!(
        found(&report, id),
        [(severity, check_id.to_string())],
        "{id}: {:#?}",
        report.findings
    );
}

fn assert_quiet(snapshot: &Snapshot, id: &str) {
    let report = check(snapshot);
    assert_eq!(found(&report, id), [], "{id} must not fire: {:#?}", report.findings);
}

fn torch(snapshot: &mut Snapshot, version: &str, cuda: Option<&str>) {
    let Some(Build::Torch(build)) = snapshot.frameworks.get_mut("torch").and_then(|f| f.build.as_mut()) else {
        panic!("the fixture has a torch build");
    };
    build.version = Some(version.to_string());
    build.variant = version.split_once('+').map(|(_, variant)| variant.to_string());
    build.cuda = cuda.map(str::to_string);
}

fn driver(snapshot: &mut Snapshot, version: &str, cuda: &str) {
    let nvidia = snapshot.nvidia.as_mut().unwrap();
    nvidia.driver_version = Some(version.to_string());
    nvidia.cuda_driver_version = Some(cuda.to_string());
}

fn gpus(snapshot: &mut Snapshot) -> &mut Vec<envdoctor::snapshot::nvidia::Gpu> {
    &mut snapshot.nvidia.as_mut().unwrap().gpus
}

/// Sets the variables and maps `cuda:N` again, as a probe under them would have.
fn visible(snapshot: &mut Snapshot, devices: Option<&str>, order: Option<&str>) {
    for (name, value) in [("CUDA_VISIBLE_DEVICES", devices), ("CUDA_DEVICE_ORDER", order)] {
        match value {
            Some(value) => snapshot.env.insert(name.to_string(), value.to_string()),
            None => snapshot.env.remove(name),
        };
    }
    let mapped = cuda_devices::map(&snapshot.nvidia.as_ref().unwrap().gpus, devices, order);
    snapshot.cuda_devices = Some(mapped);
}

/// Installs DeepSpeed and bitsandbytes from the real files of the named
/// fixtures into a package directory and reads them with the framework probe.
fn install(snapshot: &mut Snapshot, deepspeed: Option<&str>, bitsandbytes: Option<&str>) {
    let site = tempfile::tempdir().unwrap();
    if let Some(fixture) = deepspeed {
        common::write_file(&site.path().join("deepspeed/__init__.py"), "");
        std::fs::copy(
            repository(FRAMEWORK_FIXTURES).join(fixture),
            site.path().join("deepspeed/git_version_info_installed.py"),
        )
        .unwrap();
    }
    if let Some(fixture) = bitsandbytes {
        common::write_file(&site.path().join("bitsandbytes/__init__.py"), "");
        let names = std::fs::read_to_string(repository(FRAMEWORK_FIXTURES).join(fixture)).unwrap();
        for name in names.lines() {
            common::write_file(&site.path().join("bitsandbytes").join(name), "");
        }
    }
    let mut found = frameworks::probe(&[site.path().to_path_buf()], &[]);
    // The release, from the fixture's wheel name (`bitsandbytes-0.43.1-...`), as the
    // probe reads it from the installed distribution.
    if let (Some(framework), Some(fixture)) = (found.get_mut("bitsandbytes"), bitsandbytes) {
        framework.version = fixture.split('-').nth(1).map(str::to_string);
    }
    snapshot.frameworks.extend(found);
}

#[test]
fn the_recorded_healthy_nodes_have_no_error_and_no_built_in_finding() {
    let built_in: Vec<&str> = our_checks()
        .into_iter()
        .flat_map(|check| check.produces.iter().copied())
        .collect();
    for fixture in [H100, H200] {
        let report = check(&snapshot::read(&repository(fixture)).unwrap());
        assert!(
            report.findings.iter().all(|finding| finding.severity < Severity::Error),
            "{fixture}: {:#?}",
            report.findings
        );
        let fired: Vec<&str> = report
            .findings
            .iter()
            .map(|finding| finding.id.as_str())
            .filter(|id| built_in.contains(id))
            .collect();
        assert_eq!(fired, Vec::<&str>::new(), "{fixture}");
        // Every built-in check ran.
        for check in envdoctor::builtin_checks::all() {
            assert!(
                report.evaluated.iter().any(|evaluated| evaluated.id == check.id),
                "{fixture}: {} not evaluated",
                check.id
            );
        }
    }
}

#[test]
fn driver_too_old_for_a_cuda_13_torch() {
    let mut snapshot = healthy();
    torch(&mut snapshot, "2.9.1+cu130", Some("13.0"));
    assert_fires(
        &snapshot,
        "driver-too-old-for-torch-cuda",
        Severity::Error,
        "driver-runs-torch-cuda",
    );
    driver(&mut snapshot, "580.65.06", "13.0");
    assert_quiet(&snapshot, "driver-too-old-for-torch-cuda");
}

#[test]
fn driver_older_than_torchs_cuda_minor() {
    let mut snapshot = healthy();
    torch(&mut snapshot, "2.5.1+cu124", Some("12.4"));
    assert_fires(
        &snapshot,
        "driver-older-than-torch-cuda-minor",
        Severity::Warning,
        "driver-runs-torch-cuda",
    );
    driver(&mut snapshot, "550.54.14", "12.4");
    assert_quiet(&snapshot, "driver-older-than-torch-cuda-minor");
}

#[test]
fn a_too_old_driver_exits_1_under_the_default_fail_on() {
    let mut snapshot = healthy();
    torch(&mut snapshot, "2.9.1+cu130", Some("13.0"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("node.json");
    std::fs::write(&file, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let assert = common::envdoctor(&dir.path().join("cache"))
        .args(["check", "--snapshot"])
        .arg(&file)
        .assert()
        .code(1);
    let text = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(text.contains("[driver-too-old-for-torch-cuda]"), "{text}");
    assert!(text.contains("580.65.06"), "{text}");
}

#[test]
fn python_outside_the_torch_release_range() {
    let mut snapshot = healthy();
    snapshot.python.version = "3.13.1".to_string();
    assert_fires(
        &snapshot,
        "python-outside-torch-range",
        Severity::Warning,
        "python-supported-by-torch",
    );
    snapshot.python.version = "3.8.18".to_string();
    assert_quiet(&snapshot, "python-outside-torch-range");
}

#[test]
fn a_gpu_the_torch_build_has_no_code_for() {
    let mut snapshot = healthy();
    torch(&mut snapshot, "2.8.0+cu128", Some("12.8"));
    driver(&mut snapshot, "570.124.06", "12.8");
    for gpu in gpus(&mut snapshot) {
        gpu.name = Some("Tesla P100-PCIE-16GB".to_string());
        gpu.compute_capability = Some("6.0".to_string());
    }
    assert_fires(
        &snapshot,
        "gpu-arch-not-in-torch-build",
        Severity::Error,
        "torch-runs-on-gpus",
    );
    torch(&mut snapshot, "2.8.0+cu126", Some("12.6"));
    assert_quiet(&snapshot, "gpu-arch-not-in-torch-build");
}

#[test]
fn a_cpu_torch_on_a_gpu_node() {
    let mut snapshot = healthy();
    torch(&mut snapshot, "2.3.1+cpu", None);
    assert_fires(
        &snapshot,
        "torch-not-built-for-cuda",
        Severity::Error,
        "torch-runs-on-gpus",
    );
    snapshot.nvidia.as_mut().unwrap().gpus.clear();
    visible(&mut snapshot, None, None);
    assert_quiet(&snapshot, "torch-not-built-for-cuda");
}

#[test]
fn a_torch_build_the_table_does_not_list() {
    let mut snapshot = healthy();
    torch(&mut snapshot, "2.6.0.dev20241001+cu125", Some("12.5"));
    assert_fires(
        &snapshot,
        "torch-build-not-in-table",
        Severity::Info,
        "torch-runs-on-gpus",
    );
    torch(&mut snapshot, "2.6.0+cu126", Some("12.6"));
    assert_quiet(&snapshot, "torch-build-not-in-table");
}

#[test]
fn deepspeed_ops_prebuilt_for_another_torch() {
    let mut snapshot = healthy();
    // Its record: cpu_vertin pre-built against torch 2.2 with CUDA 12.1; the node has torch 2.3.1+cu121.
    install(
        &mut snapshot,
        Some("deepspeed-0.16.1+7384483.git_version_info_installed.py"),
        None,
    );
    assert_fires(
        &snapshot,
        "deepspeed-ops-built-for-other-torch",
        Severity::Error,
        "deepspeed-matches-torch",
    );
    torch(&mut snapshot, "2.2.2+cu121", Some("12.1"));
    assert_quiet(&snapshot, "deepspeed-ops-built-for-other-torch");
}

#[test]
fn bitsandbytes_without_a_library_of_torchs_cuda_major() {
    let mut snapshot = healthy();
    install(
        &mut snapshot,
        None,
        Some("bitsandbytes-0.43.1-py3-none-manylinux_2_24_x86_64.native-libraries.txt"),
    );
    torch(&mut snapshot, "2.9.1+cu130", Some("13.0"));
    driver(&mut snapshot, "580.65.06", "13.0");
    assert_fires(
        &snapshot,
        "bitsandbytes-no-library-for-torch-cuda",
        Severity::Error,
        "bitsandbytes-library",
    );
    torch(&mut snapshot, "2.5.1+cu124", Some("12.4"));
    assert_quiet(&snapshot, "bitsandbytes-no-library-for-torch-cuda");
}

#[test]
fn bitsandbytes_with_only_another_minor_of_torchs_cuda() {
    let mut snapshot = healthy();
    install(
        &mut snapshot,
        None,
        Some("bitsandbytes-0.43.1-py3-none-manylinux_2_24_x86_64.native-libraries.txt"),
    );
    torch(&mut snapshot, "2.7.1+cu126", Some("12.6"));
    driver(&mut snapshot, "560.28.03", "12.6");
    // 0.43.1 ships 12.5 but not 12.6, and loads only the exact library: the
    // same-major fallback is 0.50.0's (PR #1980).
    assert_fires(
        &snapshot,
        "bitsandbytes-no-library-for-torch-cuda",
        Severity::Error,
        "bitsandbytes-library",
    );
    install(
        &mut snapshot,
        None,
        Some("bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.native-libraries.txt"),
    );
    assert_quiet(&snapshot, "bitsandbytes-library-fallback");
    // 0.50.2 has no 12.9 library; it loads 12.8's, of the same major, and warns.
    torch(&mut snapshot, "2.8.0+cu129", Some("12.9"));
    driver(&mut snapshot, "575.51.03", "12.9");
    assert_fires(
        &snapshot,
        "bitsandbytes-library-fallback",
        Severity::Warning,
        "bitsandbytes-library",
    );
}

#[test]
fn bnb_cuda_version_forcing_another_library() {
    let mut snapshot = healthy();
    install(
        &mut snapshot,
        None,
        Some("bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.native-libraries.txt"),
    );
    snapshot.env.insert("BNB_CUDA_VERSION".to_string(), "124".to_string());
    assert_fires(
        &snapshot,
        "bitsandbytes-cuda-version-override",
        Severity::Warning,
        "bitsandbytes-library",
    );
    snapshot.env.insert("BNB_CUDA_VERSION".to_string(), "121".to_string());
    assert_quiet(&snapshot, "bitsandbytes-cuda-version-override");
}

fn toolkit(root: &str, version: &str, via: ToolkitFoundVia) -> Toolkit {
    Toolkit {
        root: PathBuf::from(root),
        found_via: vec![via],
        aliases: Vec::new(),
        version: Some(version.to_string()),
        version_source: None,
        version_file: None,
        nvcc: Some(PathBuf::from(root).join("bin/nvcc")),
        nvcc_version: None,
        problems: Vec::new(),
    }
}

#[test]
fn nvcc_of_another_cuda_major_than_torch() {
    let mut snapshot = healthy();
    install(
        &mut snapshot,
        Some("deepspeed-0.16.3.git_version_info_installed.py"),
        None,
    );
    snapshot.cuda.toolkits = vec![toolkit("/usr/local/cuda-11.8", "11.8.89", ToolkitFoundVia::Path)];
    assert_fires(
        &snapshot,
        "nvcc-major-differs-from-torch-cuda",
        Severity::Error,
        "nvcc-matches-torch-cuda",
    );
    snapshot.cuda.toolkits = vec![toolkit("/usr/local/cuda-12.4", "12.4.131", ToolkitFoundVia::Path)];
    assert_quiet(&snapshot, "nvcc-major-differs-from-torch-cuda");
}

#[test]
fn cuda_visible_devices_naming_a_gpu_that_does_not_exist() {
    let mut snapshot = healthy();
    visible(&mut snapshot, Some("0,1,6"), None);
    assert_fires(
        &snapshot,
        "cuda-visible-devices-invalid",
        Severity::Error,
        "cuda-visible-devices",
    );
    visible(&mut snapshot, Some("0,1,5"), None);
    assert_quiet(&snapshot, "cuda-visible-devices-invalid");
}

#[test]
fn mixed_gpus_without_pci_bus_order() {
    let mut snapshot = healthy();
    gpus(&mut snapshot)[0].name = Some("Tesla T4".to_string());
    gpus(&mut snapshot)[0].compute_capability = Some("7.5".to_string());
    visible(&mut snapshot, None, None);
    assert_fires(
        &snapshot,
        "cuda-device-order-unset-mixed-gpus",
        Severity::Warning,
        "cuda-device-order",
    );
    visible(&mut snapshot, None, Some("PCI_BUS_ID"));
    assert_quiet(&snapshot, "cuda-device-order-unset-mixed-gpus");
}

#[test]
fn no_gpu_visible_in_a_container_started_without_gpus() {
    let mut snapshot = healthy();
    snapshot.nvidia = None;
    snapshot.cuda_devices = None;
    snapshot.nvidia_error = Some(NvidiaError {
        kind: NvidiaErrorKind::NoDeviceNodes,
        message: "/dev/nvidiactl is missing".to_string(),
    });
    assert_fires(&snapshot, "no-gpu-visible", Severity::Error, "gpu-visible");
    let report = check(&snapshot);
    let finding = report.findings.iter().find(|f| f.id == "no-gpu-visible").unwrap();
    assert!(
        finding.detail.contains("a container started without GPUs"),
        "{}",
        finding.detail
    );
    // CUDA_VISIBLE_DEVICES selecting one GPU still leaves one visible.
    let mut snapshot = healthy();
    visible(&mut snapshot, Some("2"), None);
    assert_quiet(&snapshot, "no-gpu-visible");
}

#[test]
fn small_dev_shm_on_a_multi_gpu_node() {
    let mut snapshot = healthy();
    snapshot.system.limits.shm_total_mib = Some(64);
    assert_fires(&snapshot, "shm-too-small", Severity::Warning, "shared-memory");
    visible(&mut snapshot, Some("3"), None);
    assert_quiet(&snapshot, "shm-too-small");
}

#[test]
fn uncorrectable_ecc_errors_since_the_driver_loaded() {
    let mut snapshot = healthy();
    gpus(&mut snapshot)[2].ecc_uncorrectable_volatile = Some(1);
    gpus(&mut snapshot)[2].ecc_uncorrectable_aggregate = Some(1);
    assert_fires(
        &snapshot,
        "gpu-uncorrectable-ecc-errors",
        Severity::Warning,
        "gpu-memory-health",
    );
    gpus(&mut snapshot)[2].ecc_uncorrectable_volatile = Some(0);
    gpus(&mut snapshot)[2].ecc_uncorrectable_aggregate = Some(0);
    assert_quiet(&snapshot, "gpu-uncorrectable-ecc-errors");
}

#[test]
fn a_row_remap_waiting_for_a_reset() {
    let mut snapshot = healthy();
    let rows = RemappedRows {
        correctable: 0,
        uncorrectable: 1,
        pending: true,
        failed: false,
    };
    gpus(&mut snapshot)[1].remapped_rows = Some(rows);
    assert_fires(
        &snapshot,
        "gpu-memory-repair-pending",
        Severity::Warning,
        "gpu-memory-health",
    );
    gpus(&mut snapshot)[1].remapped_rows = Some(RemappedRows { pending: false, ..rows });
    assert_quiet(&snapshot, "gpu-memory-repair-pending");
}

#[test]
fn a_failed_row_remap() {
    let mut snapshot = healthy();
    let rows = RemappedRows {
        correctable: 3,
        uncorrectable: 9,
        pending: false,
        failed: true,
    };
    gpus(&mut snapshot)[5].remapped_rows = Some(rows);
    assert_fires(&snapshot, "gpu-row-remap-failed", Severity::Error, "gpu-memory-health");
    gpus(&mut snapshot)[5].remapped_rows = Some(RemappedRows { failed: false, ..rows });
    assert_quiet(&snapshot, "gpu-row-remap-failed");
}

#[test]
fn a_pcie_link_narrower_than_its_maximum_under_load() {
    let mut snapshot = healthy();
    // GPU 3 is busy in the fixture (no clock event reason).
    gpus(&mut snapshot)[3].pcie.width_current = Some(8);
    assert_fires(&snapshot, "gpu-pcie-link-degraded", Severity::Warning, "gpu-pcie-link");
    gpus(&mut snapshot)[3].pcie.width_current = Some(16);
    // A lower generation on an idle GPU is power saving, not a fault.
    gpus(&mut snapshot)[0].pcie.generation_current = Some(1);
    assert_quiet(&snapshot, "gpu-pcie-link-degraded");
}

#[test]
fn thermal_slowdown() {
    let mut snapshot = healthy();
    gpus(&mut snapshot)[4].clock_event_reasons = Some(vec!["sw_thermal_slowdown".to_string()]);
    assert_fires(&snapshot, "gpu-clocks-slowed", Severity::Warning, "gpu-clock-slowdown");
    gpus(&mut snapshot)[4].clock_event_reasons = Some(vec!["sw_power_cap".to_string()]);
    assert_quiet(&snapshot, "gpu-clocks-slowed");
}

#[test]
fn mig_mode_on() {
    let mut snapshot = healthy();
    gpus(&mut snapshot)[0].mig_mode = Some(Toggle {
        current: true,
        pending: true,
    });
    assert_fires(&snapshot, "gpu-mig-enabled", Severity::Warning, "gpu-mig-mode");
    gpus(&mut snapshot)[0].mig_mode = Some(Toggle {
        current: false,
        pending: true,
    });
    assert_quiet(&snapshot, "gpu-mig-enabled");
}

#[test]
fn a_gpu_nvml_counts_but_cannot_read() {
    let mut snapshot = healthy();
    snapshot.nvidia.as_mut().unwrap().unreadable_gpus.push(UnreadableGpu {
        index: 6,
        error: "GPU is lost".to_string(),
    });
    assert_fires(&snapshot, "gpu-unreadable", Severity::Error, "gpu-readable");
    snapshot.nvidia.as_mut().unwrap().unreadable_gpus.clear();
    assert_quiet(&snapshot, "gpu-unreadable");
}

/// The built-in checks of the modules this file covers (driver, devices,
/// hardware, frameworks); the dependency checks are tested in their own files.
fn our_checks() -> Vec<&'static envdoctor::builtin_checks::BuiltinCheck> {
    let modules: Vec<String> = ["driver", "devices", "hardware", "frameworks"]
        .iter()
        .map(|name| std::fs::read_to_string(repository(&format!("src/builtin_checks/{name}.rs"))).unwrap())
        .collect();
    envdoctor::builtin_checks::all()
        .filter(|check| {
            modules
                .iter()
                .any(|module| module.contains(&format!("id: \"{}\"", check.id)))
        })
        .collect()
}

#[test]
fn every_built_in_finding_id_has_a_test_here() {
    let source = std::fs::read_to_string(repository("tests/it/check_builtin.rs")).unwrap();
    let checks = our_checks();
    assert!(checks.len() >= 15, "{} checks found", checks.len());
    // Fires only after a smoke run, which a replayed Snapshot has not had:
    // `check::tests::the_architecture_check_defers_to_kernels_that_ran`
    // makes it fire and keeps it quiet.
    let after_a_live_run = ["smoke-arch-table-corrected"];
    for check in checks {
        for id in check.produces.iter().filter(|id| !after_a_live_run.contains(id)) {
            let fires = [
                format!("assert_fires(&snapshot, \"{id}\""),
                format!("&snapshot,\n        \"{id}\","),
            ];
            assert!(
                fires.iter().any(|call| source.contains(call.as_str())),
                "{id} has no firing case in tests/it/check_builtin.rs"
            );
            assert!(
                source.contains(&format!("assert_quiet(&snapshot, \"{id}\")")),
                "{id} has no quiet case in tests/it/check_builtin.rs"
            );
        }
    }
}
