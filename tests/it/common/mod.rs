//! Shared pieces of the integration tests: the binary, real interpreters, real
//! virtual environments, and real pip.

#![allow(dead_code)] // each test binary uses its own subset

pub mod fixtures;
pub mod index_server;
pub mod skip;
pub mod smoke;
pub mod width;

#[allow(unused_imports)] // not every test binary skips
pub use skip::skip;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// The envdoctor binary, with its interpreter cache in `cache` so tests do not
/// share state with each other or with the user.
/// Variables that change `sys.path`: removed for envdoctor and pip alike, so
/// both see the same interpreter unless a test sets them.
const PATH_VARIABLES: [&str; 4] = ["PYTHONPATH", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONHOME"];

pub fn envdoctor(cache: &Path) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("envdoctor").unwrap();
    for variable in PATH_VARIABLES {
        command.env_remove(variable);
    }
    // A regression to a hang fails the test instead of stalling the whole run.
    command.timeout(std::time::Duration::from_secs(60));
    // No `COLUMNS` from the shell that runs the tests: text is as wide as in a pipe.
    command
        .env("XDG_CACHE_HOME", cache)
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX")
        .env_remove("COLUMNS");
    command
}

/// The machine's own `python3`, resolved once to the real executable behind
/// any shim.
pub fn system_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let output = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 must be on PATH to run the tests");
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    })
}

/// Runs a command that must succeed, with pip kept off the network.
pub fn run(command: &mut Command) -> String {
    command
        .env("PIP_NO_INDEX", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let output = command.output().unwrap_or_else(|error| panic!("{command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Writes `contents` to `path`, creating its parent directories.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// A minimal `NAME-VERSION.dist-info` with its METADATA, in `directory`.
pub fn write_dist_info(directory: &Path, name: &str, version: &str) {
    write_file(
        &directory.join(format!("{name}-{version}.dist-info/METADATA")),
        format!("Name: {name}\nVersion: {version}\n"),
    );
}

pub fn create_venv(path: &Path, with_pip: bool) -> PathBuf {
    let mut command = Command::new(system_python());
    command.args(["-m", "venv"]);
    if !with_pip {
        command.arg("--without-pip");
    }
    run(command.arg(path));
    path.join("bin/python")
}

pub fn site_packages(python: &Path) -> PathBuf {
    PathBuf::from(
        run(Command::new(python).args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).trim(),
    )
}

/// A project that pip can build offline with the in-tree backend of
/// `tests/fixtures/intree_backend.py`.
pub fn write_project(directory: &Path, name: &str, version: &str) -> PathBuf {
    std::fs::create_dir_all(directory).unwrap();
    std::fs::write(
        directory.join("intree_backend.py"),
        include_str!("../../fixtures/intree_backend.py"),
    )
    .unwrap();
    std::fs::write(
        directory.join("pyproject.toml"),
        format!(
            "[build-system]\nrequires = []\nbuild-backend = \"intree_backend\"\nbackend-path = [\".\"]\n\n\
[project]\nname = \"{name}\"\nversion = \"{version}\"\n"
        ),
    )
    .unwrap();
    directory.to_path_buf()
}

pub fn normalize(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let mut normalized = String::new();
    for part in lower.split(['-', '_', '.']).filter(|part| !part.is_empty()) {
        if !normalized.is_empty() {
            normalized.push('-');
        }
        normalized.push_str(part);
    }
    normalized
}

/// Names `pip list` never shows (pip's `stdlib_pkgs`) though they may be
/// installed; envdoctor shows them, so comparisons leave them out.
pub const HIDDEN_BY_PIP: [&str; 3] = ["python", "wsgiref", "argparse"];

/// (normalized name, version) of every package in a `pip list --format=json` or
/// in a Snapshot's `packages`, less the names pip hides.
pub fn name_versions(packages: &Value) -> BTreeSet<(String, String)> {
    packages
        .as_array()
        .expect("an array of packages")
        .iter()
        .filter(|package| !HIDDEN_BY_PIP.contains(&package["name"].as_str().unwrap_or_default()))
        .map(|package| {
            (
                normalize(package["name"].as_str().unwrap()),
                package["version"].as_str().unwrap_or("<none>").to_string(),
            )
        })
        .collect()
}

pub fn pip_list(python: &Path, extra_env: &[(&str, &Path)]) -> Value {
    let mut command = Command::new(python);
    command.args(["-m", "pip", "list", "--format=json"]);
    for variable in PATH_VARIABLES {
        command.env_remove(variable);
    }
    for (name, value) in extra_env {
        command.env(name, value);
    }
    serde_json::from_str(&run(&mut command)).unwrap()
}

/// `envdoctor probe --format json --python PYTHON ARGUMENTS...` with the given
/// environment variables; it must succeed, and its Snapshot is returned.
pub fn probe_json(cache: &Path, python: &Path, arguments: &[&str], extra_env: &[(&str, &Path)]) -> Value {
    let mut command = envdoctor(cache);
    command
        .args(["probe", "--format", "json", "--python"])
        .arg(python)
        .args(arguments);
    for (name, value) in extra_env {
        command.env(name, value);
    }
    serde_json::from_slice(&command.assert().success().get_output().stdout).unwrap()
}

/// `each` of every item with its index, the items spread over the cores (a
/// stride of them on each), the results in no particular order. For a test
/// over a corpus or many runs of the binary: one after another they were most
/// of the suite's time.
pub fn across_cores<T: Sync, R: Send>(items: &[T], each: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let each = &each;
                scope.spawn(move || {
                    items
                        .iter()
                        .enumerate()
                        .skip(worker)
                        .step_by(workers)
                        .map(|(index, item)| each(index, item))
                        .collect::<Vec<R>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|handle| handle.join().unwrap()).collect()
    })
}
