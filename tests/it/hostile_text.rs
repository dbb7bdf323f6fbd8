//! Text from a stranger's Snapshot, lock or report reaches people only
//! escaped (issue 20, D11): a newline in a package name cannot start a line of
//! its own in any human output, and an ANSI escape never reaches the terminal.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;

const RECORDED: &str = "tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json";

/// What a hostile writer puts in every string it controls: a forged line and
/// a terminal escape that would paint the rest of the screen red.
const PAYLOAD: &str = "x\nFORGED line\x1b[31m\u{9b}";

/// The recorded H100 with the payload in the strings a writer controls that
/// human outputs show: names, paths, versions read as text, problems, the env.
fn hostile_snapshot(dir: &Path, name: &str, tweak: impl Fn(&mut Value)) -> PathBuf {
    let mut snapshot: Value = serde_json::from_str(&std::fs::read_to_string(RECORDED).unwrap()).unwrap();
    let hostile = |text: &str| Value::from(format!("{text}{PAYLOAD}"));
    snapshot["system"]["hostname"] = hostile("node");
    snapshot["system"]["kernel"] = hostile("6.8.0");
    snapshot["system"]["cpu_model"] = hostile("cpu");
    snapshot["python"]["executable"] = hostile("/opt/venv/bin/python");
    snapshot["nvidia"]["gpus"][0]["name"] = hostile("NVIDIA H100");
    snapshot["nvidia"]["gpus"][0]["uuid"] = hostile("GPU-1");
    snapshot["env"]["NCCL_DEBUG"] = hostile("INFO");
    snapshot["package_scan_problems"] =
        json!([{"path": format!("/opt/site{PAYLOAD}"), "problem": format!("unreadable{PAYLOAD}")}]);
    snapshot["cuda"]["problems"] = json!([format!("toolkit{PAYLOAD}")]);
    let packages = snapshot["packages"].as_array_mut().unwrap();
    let mut evil = packages[0].clone();
    evil["name"] = hostile("evil");
    evil["normalized_name"] = hostile("evil");
    evil["version"] = Value::from("1.0");
    evil["location"] = hostile("/opt/site");
    evil["problems"] = json!([format!("broken{PAYLOAD}")]);
    evil["requires_dist"] = json!([format!("torch{PAYLOAD}")]);
    packages.push(evil);
    tweak(&mut snapshot);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(&snapshot).unwrap()).unwrap();
    path
}

/// No terminal control reached the output, and the payload's second line never
/// starts a line.
fn assert_escaped(what: &str, output: &[u8]) {
    let text = String::from_utf8_lossy(output);
    assert!(
        text.contains("FORGED"),
        "{what}: the payload is not shown at all:\n{text}"
    );
    assert_nothing_forged(what, &text);
}

fn assert_nothing_forged(what: &str, text: &str) {
    for character in ['\x1b', '\u{9b}', '\r'] {
        assert!(!text.contains(character), "{what} holds {character:?}:\n{text}");
    }
    for line in text.lines() {
        let line = line.trim_start_matches(|c: char| c.is_whitespace() || "|>-*`#".contains(c));
        assert!(!line.starts_with("FORGED"), "{what}: a forged line:\n{text}");
    }
}

fn envdoctor(dir: &TempDir) -> assert_cmd::Command {
    let mut command = common::envdoctor(&dir.path().join("cache"));
    command.env("NO_COLOR", "1");
    command
}

fn output_of(dir: &TempDir, args: &[&str]) -> Vec<u8> {
    let output = envdoctor(dir).args(args).output().unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_nothing_forged(&format!("{args:?} (stderr)"), &stderr);
    output.stdout
}

#[test]
fn a_snapshot_shows_its_strings_escaped() {
    let dir = TempDir::new().unwrap();
    let snapshot = hostile_snapshot(dir.path(), "node.json", |_| {});
    let snapshot = snapshot.to_str().unwrap();
    assert_escaped("probe text", &output_of(&dir, &["probe", "--snapshot", snapshot]));
    for format in ["text", "markdown"] {
        let args = ["check", "--no-smoke", "--snapshot", snapshot, "--format", format];
        assert_escaped(&format!("check {format}"), &output_of(&dir, &args));
    }
}

#[test]
fn verify_and_diff_show_a_lock_and_snapshot_strings_escaped() {
    let dir = TempDir::new().unwrap();
    let locked = hostile_snapshot(dir.path(), "locked.json", |_| {});
    let drifted = hostile_snapshot(dir.path(), "drifted.json", |snapshot| {
        snapshot["nvidia"]["gpus"][0]["name"] = Value::from(format!("NVIDIA H200{PAYLOAD}"));
        let packages = snapshot["packages"].as_array_mut().unwrap();
        let last = packages.len() - 1;
        packages[last]["version"] = Value::from("2.0");
        let mut other = packages[last].clone();
        other["name"] = Value::from(format!("other{PAYLOAD}"));
        other["normalized_name"] = Value::from(format!("other{PAYLOAD}"));
        packages.push(other);
    });
    let lock = dir.path().join("node.lock");
    let (locked, drifted, lock) = (
        locked.to_str().unwrap(),
        drifted.to_str().unwrap(),
        lock.to_str().unwrap(),
    );
    envdoctor(&dir)
        .args(["lock", "--snapshot", locked, "-o", lock])
        .assert()
        .success();
    let verify = ["verify", "--lock", lock, "--snapshot", drifted];
    assert_escaped("verify text", &output_of(&dir, &verify));
    assert_escaped("diff text", &output_of(&dir, &["diff", locked, drifted]));
    assert_escaped("diff of locks", &output_of(&dir, &["diff", lock, drifted]));
}

#[test]
fn a_fleet_shows_its_nodes_strings_escaped() {
    let dir = TempDir::new().unwrap();
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    for (index, gpu) in ["H100", "H100", "H200"].iter().enumerate() {
        hostile_snapshot(&reports, &format!("{index}.json"), |snapshot| {
            snapshot["system"]["hostname"] = Value::from(format!("node{index}{PAYLOAD}"));
            snapshot["nvidia"]["gpus"][0]["name"] = Value::from(format!("NVIDIA {gpu}{PAYLOAD}"));
        });
    }
    let reports = reports.to_str().unwrap();
    for format in ["text", "markdown"] {
        let args = ["fleet", reports, "--format", format];
        assert_escaped(&format!("fleet {format}"), &output_of(&dir, &args));
    }
}
