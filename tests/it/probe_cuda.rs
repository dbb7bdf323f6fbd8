//! The CUDA part of the Snapshot, from the real binary: `nvidia-*` wheels laid
//! out file for file as their real RECORDs say, toolkits with real version files,
//! and `nvcc` scripts that print what a real nvcc prints, or never answer.

use crate::common;

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use envdoctor::snapshot::cuda::{
    Cuda, LibraryFoundVia, LibraryVersionSource, Provider, ToolkitFoundVia, ToolkitVersionSource,
};
use serde_json::Value;

const RECORDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cuda/records");

/// Installs the distribution whose real RECORD is `records/<stem>.RECORD` into
/// `site`: every file the RECORD lists, at the path it lists (libraries empty:
/// only their names and places matter), the RECORD itself, and METADATA.
fn install_from_record(site: &Path, name: &str, stem: &str) {
    let record = std::fs::read_to_string(Path::new(RECORDS).join(format!("{stem}.RECORD"))).unwrap();
    let version = stem.rsplit_once('-').unwrap().1;
    for line in record.lines() {
        let relative = line.split(',').next().unwrap();
        let contents = if relative.ends_with(".dist-info/RECORD") {
            record.clone()
        } else if relative.ends_with(".dist-info/METADATA") {
            format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        } else {
            String::new()
        };
        write_file(&site.join(relative), contents);
    }
}

fn executable(path: &Path, script: &str) {
    write_file(path, script);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `envdoctor probe --format json` with the CUDA-related variables of the test's
/// own environment removed and `env` set; returns the Snapshot and how long it took.
fn probe(cache: &Path, python: &Path, env: &[(&str, OsString)]) -> (Value, Duration) {
    let mut command = envdoctor(cache);
    command.args(["probe", "--format", "json", "--python"]).arg(python);
    for variable in ["CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "ENVDOCTOR_NVCC_TIMEOUT"] {
        command.env_remove(variable);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let started = Instant::now();
    let output = command.assert().success().get_output().stdout.clone();
    (serde_json::from_slice(&output).unwrap(), started.elapsed())
}

fn cuda_of(snapshot: &Value) -> Cuda {
    serde_json::from_value(snapshot["cuda"].clone()).expect("the cuda part reads back as the typed Cuda")
}

/// PATH with `directory` first, so the test's nvcc is the one found.
fn path_with(directory: &Path) -> OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(directory.to_path_buf()).chain(std::env::split_paths(&rest))).unwrap()
}

#[test]
fn libraries_from_nvidia_wheels_are_the_wheels_with_their_distribution_versions() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let site = site_packages(&python);
    // The CUDA 12.4 set torch 2.5 pins, and the CUDA 13 runtime, whose files live in nvidia/cu13/.
    install_from_record(&site, "nvidia-cublas-cu12", "nvidia_cublas_cu12-12.4.5.8");
    install_from_record(&site, "nvidia-cuda-runtime-cu12", "nvidia_cuda_runtime_cu12-12.4.127");
    install_from_record(&site, "nvidia-cudnn-cu12", "nvidia_cudnn_cu12-9.1.0.70");
    install_from_record(&site, "nvidia-nccl-cu12", "nvidia_nccl_cu12-2.21.5");
    install_from_record(&site, "nvidia-cuda-runtime", "nvidia_cuda_runtime-13.0.96");
    // A user who put the CUDA 13 wheel's directory on LD_LIBRARY_PATH: the same
    // file, found a second way, not a second "system" library.
    let ld_library_path = site.join("nvidia/cu13/lib").into_os_string();

    let (snapshot, _) = probe(
        &root.path().join("cache"),
        &python,
        &[("LD_LIBRARY_PATH", ld_library_path)],
    );
    let cuda = cuda_of(&snapshot);
    let site = std::fs::canonicalize(&site).unwrap();
    let mut wheels: Vec<_> = cuda
        .libraries
        .iter()
        .filter(|library| library.provided_by == Provider::Wheel)
        .map(|library| {
            let distribution = library.distribution.as_ref().unwrap();
            assert_eq!(library.version, distribution.version, "{library:?}");
            assert_eq!(library.version_source, Some(LibraryVersionSource::Distribution));
            assert_eq!(library.problems, Vec::<String>::new());
            (
                library.name.clone(),
                distribution.name.clone(),
                library.version.clone().unwrap(),
                library
                    .real_path
                    .as_ref()
                    .unwrap()
                    .strip_prefix(&site)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            )
        })
        .collect();
    wheels.sort();
    let expected = [
        (
            "cublas",
            "nvidia-cublas-cu12",
            "12.4.5.8",
            "nvidia/cublas/lib/libcublas.so.12",
        ),
        (
            "cublaslt",
            "nvidia-cublas-cu12",
            "12.4.5.8",
            "nvidia/cublas/lib/libcublasLt.so.12",
        ),
        (
            "cudart",
            "nvidia-cuda-runtime",
            "13.0.96",
            "nvidia/cu13/lib/libcudart.so.13",
        ),
        (
            "cudart",
            "nvidia-cuda-runtime-cu12",
            "12.4.127",
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        ),
        (
            "cudnn",
            "nvidia-cudnn-cu12",
            "9.1.0.70",
            "nvidia/cudnn/lib/libcudnn.so.9",
        ),
        ("nccl", "nvidia-nccl-cu12", "2.21.5", "nvidia/nccl/lib/libnccl.so.2"),
    ]
    .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()));
    assert_eq!(wheels, expected);

    let cudart13 = cuda
        .libraries
        .iter()
        .find(|library| library.path.ends_with("nvidia/cu13/lib/libcudart.so.13"))
        .unwrap();
    assert_eq!(
        cudart13.found_via,
        [LibraryFoundVia::WheelRecord, LibraryFoundVia::LdLibraryPath]
    );
    assert!(
        !cuda
            .libraries
            .iter()
            .any(|library| library.provided_by != Provider::Wheel
                && library.real_path.as_ref().is_some_and(|path| path.starts_with(&site))),
        "a wheel's file is reported as someone else's: {:#?}",
        cuda.libraries
    );
    assert_eq!(snapshot["cuda"]["libraries"][0]["provided_by"], "wheel");
}

#[test]
fn a_toolkit_named_by_cuda_home_is_reported_with_its_version_json() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let toolkit = root.path().join("opt/cuda-12.8");
    write_file(
        &toolkit.join("version.json"),
        include_str!("../fixtures/cuda/version-12.8.2.json"),
    );
    // The runfile installer's layout: the libraries under targets/, lib64 a link to them.
    let lib = toolkit.join("targets/x86_64-linux/lib");
    write_file(&lib.join("libcudart.so.12.8.90"), "");
    std::os::unix::fs::symlink("libcudart.so.12.8.90", lib.join("libcudart.so.12")).unwrap();
    std::os::unix::fs::symlink("targets/x86_64-linux/lib", toolkit.join("lib64")).unwrap();

    let (snapshot, _) = probe(
        &root.path().join("cache"),
        &python,
        &[("CUDA_HOME", toolkit.clone().into_os_string())],
    );
    let cuda = cuda_of(&snapshot);
    let toolkit = std::fs::canonicalize(&toolkit).unwrap();
    let found = cuda
        .toolkits
        .iter()
        .find(|found| found.root == toolkit)
        .expect("the toolkit");
    assert_eq!(found.found_via, [ToolkitFoundVia::CudaHome]);
    assert_eq!(found.version.as_deref(), Some("12.8.2"));
    assert_eq!(found.version_source, Some(ToolkitVersionSource::VersionJson));
    assert_eq!(found.version_file, Some(toolkit.join("version.json")));
    assert_eq!(found.nvcc_version.as_deref(), Some("12.8.93"));
    assert_eq!(found.problems, Vec::<String>::new());

    let cudart = cuda
        .libraries
        .iter()
        .find(|library| library.toolkit_root.as_ref() == Some(&toolkit))
        .expect("the toolkit's cudart");
    assert_eq!(cudart.name, "cudart");
    assert_eq!(cudart.provided_by, Provider::Toolkit);
    assert_eq!(cudart.version.as_deref(), Some("12.8.90"));
    assert_eq!(cudart.version_source, Some(LibraryVersionSource::FileName));
    assert_eq!(snapshot["cuda"]["toolkits"][0]["version_source"], "version_json");
}

#[test]
fn the_nvcc_on_path_gives_the_version_when_there_is_no_version_file() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let toolkit = root.path().join("cuda-12.5");
    // Prints what a real CUDA 12.5 nvcc prints (risc0/risc0#2449).
    executable(
        &toolkit.join("bin/nvcc"),
        &format!(
            "#!/bin/sh\ncat <<'EOF'\n{}EOF\n",
            include_str!("../fixtures/cuda/nvcc-12.5.txt")
        ),
    );

    let (snapshot, _) = probe(
        &root.path().join("cache"),
        &python,
        &[("PATH", path_with(&toolkit.join("bin")))],
    );
    let cuda = cuda_of(&snapshot);
    let toolkit = std::fs::canonicalize(&toolkit).unwrap();
    let found = cuda
        .toolkits
        .iter()
        .find(|found| found.root == toolkit)
        .expect("the toolkit");
    assert_eq!(found.found_via, [ToolkitFoundVia::Path]);
    assert_eq!(found.version.as_deref(), Some("12.5"));
    assert_eq!(found.version_source, Some(ToolkitVersionSource::Nvcc));
    assert_eq!(found.nvcc_version.as_deref(), Some("12.5.82"));
    assert_eq!(found.nvcc, Some(toolkit.join("bin/nvcc")));
    assert_eq!(found.problems, Vec::<String>::new());
}

#[test]
fn an_nvcc_that_never_answers_is_a_timeout_problem_not_a_hang() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let toolkit = root.path().join("cuda-hung");
    executable(&toolkit.join("bin/nvcc"), "#!/bin/sh\nsleep 600\n");

    let (snapshot, elapsed) = probe(
        &root.path().join("cache"),
        &python,
        &[
            ("PATH", path_with(&toolkit.join("bin"))),
            ("ENVDOCTOR_NVCC_TIMEOUT", "1".into()),
        ],
    );
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
    let cuda = cuda_of(&snapshot);
    let toolkit = std::fs::canonicalize(&toolkit).unwrap();
    let found = cuda
        .toolkits
        .iter()
        .find(|found| found.root == toolkit)
        .expect("the toolkit");
    assert_eq!(found.version, None);
    assert_eq!(found.version_source, None);
    assert_eq!(found.problems.len(), 1, "{:?}", found.problems);
    assert!(
        found.problems[0].contains("--version timed out after 1 s"),
        "{:?}",
        found.problems
    );
}

/// This test machine has no CUDA at all; the probe must say so, not invent any.
/// Where a machine does have CUDA, the test has nothing to check and says so.
#[test]
fn a_node_without_cuda_reports_no_toolkits() {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|directory| directory.join("nvcc").exists()))
        .unwrap_or(false);
    let in_usr_local = std::fs::read_dir("/usr/local").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|entry| entry.file_name().to_string_lossy().starts_with("cuda"))
    });
    if on_path || in_usr_local {
        common::skip(
            "probe_cuda::a_node_without_cuda_reports_no_toolkits",
            "no-cuda-toolkit",
            "this machine has a CUDA toolkit",
        );
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let (snapshot, _) = probe(&root.path().join("cache"), &python, &[]);
    assert_eq!(snapshot["cuda"]["toolkits"], serde_json::json!([]));
    let cuda = cuda_of(&snapshot);
    assert!(
        cuda.libraries
            .iter()
            .all(|library| library.provided_by != Provider::Wheel),
        "{:?}",
        cuda.libraries
    );
}
