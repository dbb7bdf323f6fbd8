//! envdoctor's own errors: exit code 2 and exactly one line on stderr,
//! `envdoctor: error: OUTERMOST[; caused by: INNER]...[; hint: WHAT TO RUN]`,
//! where a reader's error is `path:line[:column]: problem`.

use crate::common::envdoctor;

use std::fs;
use std::path::Path;

const H200: &str = "tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json";

/// Runs a command that envdoctor must refuse, in a directory holding `files`
/// (name, content), and returns its one stderr line.
fn error_line(files: &[(&str, &str)], arguments: &[&str]) -> String {
    let directory = tempfile::tempdir().unwrap();
    for (name, content) in files {
        fs::write(directory.path().join(name), content).unwrap();
    }
    let output = envdoctor(directory.path())
        .current_dir(directory.path())
        .args(arguments)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(output.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(stderr.ends_with('\n'), "{stderr:?}");
    lines[0].to_string()
}

fn h200() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(H200).display().to_string()
}

#[test]
fn a_bad_snapshot_is_named_by_path_line_and_column() {
    let snapshot = "{\n  \"schema\": \"envdoctor.snapshot/1\",\n  \"system\": 3\n}\n";
    let line = error_line(&[("node.json", snapshot)], &["check", "--snapshot", "node.json"]);
    assert_eq!(
        line,
        "envdoctor: error: node.json:3:13: not a valid Snapshot: invalid type: integer `3`, expected struct System; \
         hint: record one on the node with `envdoctor probe --format json -o node.json`"
    );
}

#[test]
fn a_bad_lock_is_named_by_path_line_and_column() {
    let lock = "format-version = \"1.0\"\nfingerprint = \"x\nsystem = 1\n";
    let line = error_line(
        &[("bad.lock", lock)],
        &["verify", "--lock", "bad.lock", "--snapshot", &h200()],
    );
    assert_eq!(
        line,
        "envdoctor: error: bad.lock:2:17: not TOML: invalid basic string, expected `\"`; \
         hint: write it again with `envdoctor lock` on the node it describes"
    );
}

#[test]
fn a_bad_config_is_named_by_path_line_and_column() {
    let config = "{\n  \"zero_optimization\": {\"stage\": 3,}\n}\n";
    let line = error_line(
        &[("ds.json", config)],
        &["check", "--snapshot", &h200(), "--deepspeed-config", "ds.json"],
    );
    assert_eq!(line, "envdoctor: error: ds.json:2:36: not JSON: trailing comma");
}

#[test]
fn a_missing_lock_says_what_to_run() {
    let line = error_line(&[], &["verify", "--lock", "none.lock", "--snapshot", &h200()]);
    assert_eq!(
        line,
        "envdoctor: error: there is no lock `none.lock`; \
         hint: write one with `envdoctor lock` on the node to match, or name it with --lock FILE"
    );
}

#[test]
fn a_snapshot_from_a_newer_envdoctor_says_to_upgrade() {
    let snapshot = "{\"schema\": \"envdoctor.snapshot/2\"}";
    let line = error_line(&[("node.json", snapshot)], &["probe", "--snapshot", "node.json"]);
    assert!(
        line.starts_with("envdoctor: error: node.json: written by a newer envdoctor (schema \"envdoctor.snapshot/2\")"),
        "{line}"
    );
    assert!(
        line.ends_with("; hint: upgrade envdoctor to read it: `./install.sh` in a newer checkout"),
        "{line}"
    );
}

#[test]
fn causes_follow_the_error() {
    let line = error_line(&[], &["explain", "missing.log"]);
    assert!(
        line.starts_with("envdoctor: error: cannot read log `missing.log`; caused by: "),
        "{line}"
    );
}
