//! `--snapshot FILE`: a Snapshot recorded on one node is shown on any other,
//! and a file that is not one is refused with one line naming the file, the
//! place and the problem, exit code 2.

use crate::common;

use std::fs;
use std::path::Path;

use common::{envdoctor, system_python};
use serde_json::Value;

fn record(directory: &Path) -> std::path::PathBuf {
    let recorded = directory.join("node.json");
    envdoctor(directory)
        .args(["probe", "--format", "json", "-o"])
        .arg(&recorded)
        .arg("--python")
        .arg(system_python())
        .assert()
        .success();
    recorded
}

fn replay(directory: &Path, snapshot: &Path, format: &str) -> assert_cmd::assert::Assert {
    envdoctor(directory)
        .args(["probe", "--format", format, "--snapshot"])
        .arg(snapshot)
        .assert()
}

/// What a successful text replay printed.
fn replayed_text(directory: &Path, snapshot: &Path) -> String {
    let output = replay(directory, snapshot, "text")
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(output).unwrap()
}

/// The one-line error of a refused Snapshot.
fn refusal(directory: &Path, contents: &str) -> String {
    let file = directory.join("bad.json");
    fs::write(&file, contents).unwrap();
    let output = replay(directory, &file, "text").code(2).get_output().clone();
    assert!(output.stdout.is_empty(), "nothing is printed as if it were a Snapshot");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(&file.display().to_string()), "names the file: {stderr}");
    stderr
}

/// Each part is in `text`, words in order: text is wrapped to the output
/// width, so a part may go on under itself on the next line.
fn assert_mentions(text: &str, parts: &[&str]) {
    use crate::common::width::words;
    for part in parts {
        assert!(words(text).contains(&words(part)), "`{part}` missing from: {text}");
    }
}

#[test]
fn a_recorded_snapshot_replays_unchanged() {
    let directory = tempfile::tempdir().unwrap();
    let recorded = record(directory.path());
    let original: Value = serde_json::from_slice(&fs::read(&recorded).unwrap()).unwrap();
    let output = replay(directory.path(), &recorded, "json")
        .success()
        .get_output()
        .stdout
        .clone();
    let replayed: Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(replayed, original);
}

#[test]
fn a_replayed_snapshot_renders_as_text() {
    let directory = tempfile::tempdir().unwrap();
    let recorded = record(directory.path());
    let text = replayed_text(directory.path(), &recorded);
    assert_mentions(&text, &["python", "nvidia"]);
}

#[test]
fn unknown_keys_from_a_later_envdoctor_are_ignored_and_new_keys_are_optional() {
    let directory = tempfile::tempdir().unwrap();
    let recorded = record(directory.path());
    let mut document: Value = serde_json::from_slice(&fs::read(&recorded).unwrap()).unwrap();
    let object = document.as_object_mut().unwrap();
    object.insert("a_key_from_the_future".to_string(), Value::Bool(true));
    for added_by_this_version in ["nvidia", "nvidia_error", "cuda", "frameworks", "env_withheld"] {
        object.remove(added_by_this_version);
    }
    fs::write(&recorded, serde_json::to_vec(&document).unwrap()).unwrap();
    replay(directory.path(), &recorded, "json").success();
}

#[test]
fn a_truncated_snapshot_is_refused_with_its_position() {
    let directory = tempfile::tempdir().unwrap();
    let recorded = record(directory.path());
    let text = fs::read_to_string(&recorded).unwrap();
    let middle = (0..=text.len() / 2)
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap();
    let after_a_newline = text[..middle].rfind('\n').unwrap() + 1;
    // A cut that ends a line leaves the parser at the start of the next one:
    // the position is counted in newlines, not in `lines()`, which would
    // count one line fewer there (the recorded Snapshot decides where the
    // middle falls, so both kinds of cut are made every time).
    for cut in [&text[..middle], &text[..after_a_newline]] {
        let error = refusal(directory.path(), cut);
        let expected_line = cut.matches('\n').count() + 1;
        assert!(error.contains(&format!("bad.json:{expected_line}:")), "{error}");
        assert!(error.contains("truncated"), "{error}");
    }
}

#[test]
fn non_json_is_refused() {
    let directory = tempfile::tempdir().unwrap();
    let error = refusal(directory.path(), "{\n  \"schema\": envdoctor\n}\n");
    assert!(error.contains("bad.json:2:"), "{error}");
    assert!(error.contains("not JSON"), "{error}");
}

#[test]
fn other_documents_are_not_snapshots() {
    let directory = tempfile::tempdir().unwrap();
    let error = refusal(directory.path(), r#"{"schema": "envdoctor.report/1", "findings": []}"#);
    assert_mentions(&error, &["not an envdoctor Snapshot", "envdoctor.report/1"]);
    let error = refusal(directory.path(), r#"{"packages": []}"#);
    assert!(error.contains("no \"schema\" key"), "{error}");
    let error = refusal(directory.path(), "[1, 2]");
    assert!(error.contains("not a JSON object"), "{error}");
}

#[test]
fn a_newer_schema_asks_for_a_newer_envdoctor() {
    let directory = tempfile::tempdir().unwrap();
    let error = refusal(directory.path(), r#"{"schema": "envdoctor.snapshot/2"}"#);
    assert_mentions(&error, &["newer envdoctor", "envdoctor.snapshot/2"]);
}

#[test]
fn a_wrongly_typed_field_is_named_with_its_position() {
    let directory = tempfile::tempdir().unwrap();
    let recorded = record(directory.path());
    let text = fs::read_to_string(&recorded).unwrap();
    let broken = text.replacen("\"packages\": [", "\"packages\": 5, \"was\": [", 1);
    let line = broken
        .lines()
        .position(|line| line.contains("\"packages\": 5"))
        .unwrap()
        + 1;
    let error = refusal(directory.path(), &broken);
    assert_mentions(
        &error,
        &[&format!("bad.json:{line}:"), "not a valid Snapshot", "invalid type"],
    );
}

#[test]
fn a_missing_snapshot_file_is_an_error_not_a_probe() {
    let directory = tempfile::tempdir().unwrap();
    let missing = directory.path().join("missing.json");
    let output = replay(directory.path(), &missing, "text").code(2).get_output().clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_mentions(&stderr, &["missing.json", "No such file"]);
}

#[test]
fn replay_and_probing_options_do_not_mix() {
    let directory = tempfile::tempdir().unwrap();
    let recorded = record(directory.path());
    let output = envdoctor(directory.path())
        .args(["probe", "--python", "python3", "--snapshot"])
        .arg(&recorded)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_mentions(&stderr, &["--snapshot", "cannot be used with"]);
}

#[test]
fn values_a_later_envdoctor_may_add_are_read_as_unknown() {
    let directory = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(H100_NODE);
    let mut document: Value = serde_json::from_slice(&fs::read(fixture).unwrap()).unwrap();
    document["frameworks"]["jax"] = serde_json::json!({
        "name": "jax", "distribution": "jax", "version": "0.4.30", "package_dir": null,
        "build": {"kind": "jax", "cuda": "12"}, "problems": []
    });
    document["cuda_devices"]["order"] = Value::from("slowest_first");
    let later = directory.path().join("later.json");
    fs::write(&later, serde_json::to_vec(&document).unwrap()).unwrap();
    let text = replayed_text(directory.path(), &later);
    assert_mentions(
        &text,
        &[
            "jax 0.4.30  build facts of a kind this envdoctor does not know",
            "order unknown",
        ],
    );
}

#[test]
fn secret_looking_variables_never_reach_the_snapshot() {
    let directory = tempfile::tempdir().unwrap();
    let output = envdoctor(directory.path())
        .args(["probe", "--format", "json", "--python"])
        .arg(system_python())
        .env("HF_TOKEN", "hf_do_not_leak_1")
        .env("NCCL_IB_SECRET_THING", "do_not_leak_2")
        .env("HF_ENDPOINT", "https://me:do_not_leak_3@mirror.example/hf")
        .env("HF_HUB_PAT", "do_not_leak_4")
        .env(
            "CUDA_CACHE_PATH",
            "https://do_not_leak_5@cache.example/x https://a:do_not_leak_6@b.example/",
        )
        .env("NCCL_DEBUG", "INFO")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    for secret in [
        "do_not_leak_1",
        "do_not_leak_2",
        "do_not_leak_3",
        "do_not_leak_4",
        "do_not_leak_5",
        "do_not_leak_6",
    ] {
        assert!(!text.contains(secret), "{secret} leaked");
    }
    let snapshot: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(snapshot["env"]["NCCL_DEBUG"], "INFO");
    // The whole user information goes: a token is often given as the user name.
    assert_eq!(snapshot["env"]["HF_ENDPOINT"], "https://***@mirror.example/hf");
    let withheld = snapshot["env_withheld"].as_array().unwrap();
    assert!(withheld.contains(&Value::from("HF_TOKEN")) && withheld.contains(&Value::from("NCCL_IB_SECRET_THING")));
}

/// A GPU node's Snapshot, replayed on a machine that has no GPU.
const H100_NODE: &str = "tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json";

#[test]
fn a_gpu_node_replays_on_a_machine_without_one() {
    let directory = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(H100_NODE);
    let text = replayed_text(directory.path(), &fixture);
    assert_mentions(
        &text,
        &[
            "driver 535.183.01 (supports CUDA 12.2), proprietary kernel module 535.183.01, 6 GPUs",
            "GPU 5  NVIDIA H100 80GB HBM3  sm 9.0",
            "00000000:DB:00.0  PCIe gen5 x16  18 NVLinks",
            "cuda:0=GPU 0, cuda:1=GPU 1",
            "torch 2.3.1  build 2.3.1+cu121, CUDA 12.1",
            "/dev/shm 1007.5 GiB",
        ],
    );

    let output = replay(directory.path(), &fixture, "json")
        .success()
        .get_output()
        .stdout
        .clone();
    let snapshot: Value = serde_json::from_slice(&output).unwrap();
    let original: Value = serde_json::from_slice(&fs::read(&fixture).unwrap()).unwrap();
    assert_eq!(snapshot, original, "replay keeps every recorded fact");
    assert_eq!(snapshot["nvidia"]["gpus"].as_array().unwrap().len(), 6);
}
