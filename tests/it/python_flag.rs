//! What `--python` accepts: an interpreter, a name on PATH, or an
//! environment's folder (a venv or a conda prefix), as `uv pip --python` does;
//! and what it refuses, in one line naming the path, with exit code 2.

use crate::common;

use std::path::Path;

use common::{create_venv, envdoctor, probe_json};
use serde_json::Value;

/// What the probe says of the interpreter and what it finds installed: the
/// part of a Snapshot that depends on which Python was named.
fn interpreter_side(snapshot: &Value) -> (Value, Value) {
    (snapshot["python"].clone(), snapshot["packages"].clone())
}

#[test]
fn a_venv_folder_is_the_same_interpreter_as_its_bin_python() {
    let directory = tempfile::tempdir().unwrap();
    let python = create_venv(&directory.path().join("venv"), true);
    let cache = directory.path().join("cache");
    let by_file = interpreter_side(&probe_json(&cache, &python, &[], &[]));
    let by_folder = interpreter_side(&probe_json(&cache, &directory.path().join("venv"), &[], &[]));
    assert_eq!(by_folder, by_file);
    assert_eq!(by_folder.0["invoked"], python.display().to_string());

    // A folder named without a slash, as `uv pip --python .venv` takes it:
    // the folder here, not a program looked up on PATH.
    let output = envdoctor(&cache)
        .current_dir(directory.path())
        .args(["probe", "--format", "json", "--python", "venv"])
        .assert()
        .success()
        .get_output()
        .clone();
    let relative: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(interpreter_side(&relative), by_file);
}

/// Exit code 2 and one line on stderr, naming `path` and saying `problem`,
/// from every command that asks the interpreter.
fn refused_everywhere(path: &Path, problem: &str) {
    let directory = tempfile::tempdir().unwrap();
    for command in ["probe", "check", "smoke", "lock"] {
        let output = envdoctor(&directory.path().join("cache"))
            .current_dir(directory.path())
            .arg(command)
            .arg("--python")
            .arg(path)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{command}: one line: {stderr}");
        assert!(stderr.contains(&format!("`{}`", path.display())), "{command}: {stderr}");
        assert!(stderr.contains(problem), "{command}: {stderr}");
        // Neither envdoctor's embedded script nor what a shell made of it.
        for quoted in ["The one question", "ANSWER_MARKER", "syntax error", "Traceback"] {
            assert!(!stderr.contains(quoted), "{command}: {stderr}");
        }
        assert!(output.stdout.is_empty(), "{command}: {stderr}");
        assert!(!directory.path().join("envdoctor.lock").exists(), "{command}");
    }
}

#[test]
fn programs_that_are_not_python_are_named_in_one_line() {
    for program in ["/bin/ls", "/bin/bash"] {
        refused_everywhere(
            Path::new(program),
            "is not a Python interpreter: asked for its `--version`, it printed `",
        );
    }
}

#[test]
fn a_missing_path_and_a_folder_without_an_environment_are_named_in_one_line() {
    refused_everywhere(
        Path::new("/nonexistent/envdoctor/python"),
        "Python interpreter `/nonexistent/envdoctor/python` does not exist",
    );
    let empty = tempfile::tempdir().unwrap();
    refused_everywhere(
        empty.path(),
        "is a folder but not a Python environment: it has neither bin/python nor bin/python3",
    );
}
