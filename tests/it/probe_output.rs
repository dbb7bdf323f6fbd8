//! What a user sees: colour only on a terminal, files written whole, help with examples.

use crate::common;

use std::process::Command;

use common::*;
use serde_json::Value;

/// Runs `envdoctor probe` under a real pseudo-terminal (util-linux `script`).
fn probe_on_a_terminal(no_color: Option<&str>) -> String {
    let cache = tempfile::tempdir().unwrap();
    let binary = assert_cmd::cargo::cargo_bin("envdoctor");
    let mut command = Command::new("script");
    command
        .args(["-qec"])
        .arg(format!(
            "{} probe --python {}",
            binary.display(),
            system_python().display()
        ))
        .arg("/dev/null")
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("NO_COLOR");
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    run(&mut command)
}

#[test]
fn colour_on_a_terminal_unless_no_color() {
    assert!(
        probe_on_a_terminal(None).contains("\x1b[1mpython"),
        "headings are bold on a terminal"
    );
    assert!(
        !probe_on_a_terminal(Some("1")).contains('\x1b'),
        "NO_COLOR=1 turns colour off"
    );
    assert!(
        probe_on_a_terminal(Some("")).contains('\x1b'),
        "an empty NO_COLOR does not (no-color.org)"
    );
}

#[test]
fn output_file_holds_the_same_snapshot_and_nothing_is_left_beside_it() {
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path().join("cache");
    let target = directory.path().join("node.json");
    std::fs::write(&target, "old content").unwrap();
    envdoctor(&cache)
        .args(["probe", "--format", "json", "-o"])
        .arg(&target)
        .arg("--python")
        .arg(system_python())
        .assert()
        .success()
        .stdout("");
    let snapshot: Value = serde_json::from_slice(&std::fs::read(&target).unwrap()).unwrap();
    assert_eq!(snapshot["schema"], "envdoctor.snapshot/1");
    let names: Vec<_> = std::fs::read_dir(directory.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "only the cache and the file: {names:?}");
}

#[test]
fn version_and_help_with_examples() {
    let cache = tempfile::tempdir().unwrap();
    let version = envdoctor(cache.path())
        .arg("--version")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        String::from_utf8(version).unwrap(),
        format!("envdoctor {}\n", env!("CARGO_PKG_VERSION"))
    );
    for arguments in [&["--help"][..], &["probe", "--help"]] {
        let help = envdoctor(cache.path())
            .args(arguments)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        assert!(String::from_utf8(help).unwrap().contains("Examples:"), "{arguments:?}");
    }
}
