//! `envdoctor smoke` where the test cannot run: a fresh virtual environment
//! without torch, and a node where CUDA sees no GPU. One line on stderr saying
//! so and what to do, exit code 2; with `--format json` the same fact in a
//! document of its own; and `check` words the reason the same way.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::smoke::{copy_tree, fixture, text};
use common::{create_venv, envdoctor, site_packages};
use serde_json::Value;

/// What torch warns of where there is no NVIDIA driver (c10/cuda/CUDAFunctions.cpp).
const NO_DRIVER: &str = "CUDA initialization: Found no NVIDIA driver on your system. Please check that you have \
    an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx \
    (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)";

/// A virtual environment, with the stand-in torch of tests/fixtures/smoke/SCENARIO
/// where one is named, and a folder for envdoctor's cache.
struct Venv {
    directory: tempfile::TempDir,
    python: PathBuf,
}

impl Venv {
    fn new(torch: Option<&str>) -> Venv {
        let directory = tempfile::tempdir().unwrap();
        let python = create_venv(&directory.path().join("venv"), false);
        if let Some(scenario) = torch {
            copy_tree(
                &fixture(&format!("{scenario}/torch")),
                &site_packages(&python).join("torch"),
            );
        }
        Venv { directory, python }
    }

    fn folder(&self) -> PathBuf {
        self.directory.path().join("venv")
    }

    /// `envdoctor COMMAND --python PYTHON ARGUMENTS...` as on a node without
    /// a driver: every GPU hidden from CUDA (a node with GPUs then agrees with
    /// the stand-in), and the stand-in torch warning as torch does there.
    fn run(&self, command: &str, python: &Path, arguments: &[&str]) -> Output {
        envdoctor(&self.directory.path().join("cache"))
            .env("CUDA_VISIBLE_DEVICES", "")
            .env("STANDIN_CUDA_WARNING", NO_DRIVER)
            .arg(command)
            .arg("--python")
            .arg(python)
            .args(arguments)
            .output()
            .unwrap()
    }
}

/// The one line envdoctor printed on stderr, after asserting exit code 2.
fn refusal(output: &Output) -> String {
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for dump in ["sys.path", "Traceback", "ModuleNotFoundError"] {
        assert!(!stderr.contains(dump), "{stderr}");
    }
    stderr.trim_end().to_string()
}

/// The JSON document of a refused `smoke --format json`, whose stderr line is `line`.
fn not_run_document(output: &Output, line: &str) -> Value {
    assert_eq!(refusal(output), line);
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["schema"], "envdoctor.smoke/1", "{document:#}");
    // Not a run: no steps to read as passed, no verdict to read as clean.
    for key in ["steps", "failed"] {
        assert_eq!(document.get(key), None, "{document:#}");
    }
    document
}

/// What `check` gives as the reason it did not run the smoke test.
fn check_reason(venv: &Venv) -> String {
    let output = venv.run("check", &venv.python, &["--format", "json"]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    text(&report["smoke_not_run"]).to_string()
}

#[test]
fn without_torch_it_says_so_and_to_name_the_job_s_interpreter_or_install_torch() {
    let venv = Venv::new(None);
    let python = venv.python.display().to_string();
    let output = venv.run("smoke", &venv.python, &[]);
    let line = refusal(&output);
    assert!(output.stdout.is_empty(), "{output:?}");
    assert_eq!(
        line,
        format!(
            "envdoctor: error: the smoke test cannot run with `{python}`: torch is not installed for this \
             interpreter; hint: name the job's interpreter with `--python` (its venv or conda folder will do), \
             or install torch into this one: `'{python}' -m pip install torch`"
        )
    );
    // The environment's folder is the same interpreter, so the same line.
    assert_eq!(refusal(&venv.run("smoke", &venv.folder(), &[])), line);

    let document = not_run_document(&venv.run("smoke", &venv.python, &["--format", "json"]), &line);
    assert_eq!(document["python"], python.as_str(), "{document:#}");
    let not_run = &document["not_run"];
    assert_eq!(not_run["reason"], "no_torch", "{document:#}");
    assert_eq!(not_run["detail"], "torch is not installed for this interpreter");
    assert!(
        text(&not_run["fix"]).ends_with(&format!("`'{python}' -m pip install torch`")),
        "{document:#}"
    );
    assert_eq!(check_reason(&venv), text(&not_run["detail"]));
}

#[test]
fn where_cuda_sees_no_gpu_it_says_so_with_the_reason_and_what_to_do() {
    // torch imports, and CUDA has no device for it, as on a login node.
    let venv = Venv::new(Some("no_cuda_device"));
    let python = venv.python.display().to_string();
    let line = refusal(&venv.run("smoke", &venv.python, &[]));
    let prefix = format!(
        "envdoctor: error: the smoke test cannot run with `{python}`: no GPU is visible to CUDA on this node: "
    );
    assert!(line.starts_with(&prefix), "{line}");
    assert!(line.contains("; hint: "), "{line}");

    let document = not_run_document(&venv.run("smoke", &venv.python, &["--format", "json"]), &line);
    let not_run = &document["not_run"];
    assert_eq!(not_run["reason"], "no_gpu", "{document:#}");
    let detail = text(&not_run["detail"]);
    assert_eq!(
        line,
        format!(
            "envdoctor: error: the smoke test cannot run with `{python}`: {detail}; hint: {}",
            text(&not_run["fix"])
        )
    );
    assert_eq!(check_reason(&venv), detail);
}
