//! `envdoctor fix`: the findings' package fixes as one plan (issue 31), on a
//! recorded node and on a real virtual environment.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const DEEPSPEED_NODE: &str = "tests/fixtures/snapshots/h100-torch2.11-cu130-deepspeed-0.14.2-recorded.json";
const ZERO3_OFFLOAD: &str = "tests/fixtures/configs/ds-zero3-offload-cpu.json";

fn plan_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A venv (no pip) in `root` where `alpha` 1.0 requires `beta>=2` and beta 1.0
/// is installed, with each of `others` (a name, at 1.0, and its one
/// requirement): its interpreter and its site-packages.
fn venv_where_alpha_needs_beta_2(root: &Path, others: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let python = create_venv(&root.join("venv"), false);
    let site = site_packages(&python);
    for (name, requires) in [("alpha", "beta>=2")].iter().chain(others) {
        write_file(
            &site.join(format!("{name}-1.0.dist-info/METADATA")),
            format!("Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nRequires-Dist: {requires}\n"),
        );
    }
    write_dist_info(&site, "beta", "1.0");
    (python, site)
}

/// `envdoctor fix --python PYTHON --format json`: the plan and the exit code.
fn fix_json(cache: &Path, python: &Path) -> (Value, Option<i32>) {
    let output = envdoctor(cache)
        .args(["fix", "--python"])
        .arg(python)
        .args(["--format", "json"])
        .output()
        .unwrap();
    (plan_of(&output), output.status.code())
}

/// The recorded DeepSpeed 0.14.2 node: three rules each pin DeepSpeed; the
/// plan pins it once, with every specifier that spoke.
#[test]
fn the_recorded_deepspeed_node_gets_deepspeed_pinned_once() {
    let cache = tempfile::tempdir().unwrap();
    let output = envdoctor(cache.path())
        .args(["fix", "--snapshot", DEEPSPEED_NODE, "--deepspeed-config", ZERO3_OFFLOAD])
        .args(["--format", "json"])
        .assert()
        .code(1);
    let plan = plan_of(output.get_output());
    assert_eq!(plan["schema"], "envdoctor.fix/1");
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(DEEPSPEED_NODE).unwrap()).unwrap();
    let python = snapshot["python"]["executable"].as_str().unwrap();
    assert_eq!(plan["python"], python);

    let requirements = plan["requirements"].as_array().unwrap();
    let deepspeed: Vec<&Value> = requirements
        .iter()
        .filter(|requirement| requirement["name"].as_str().unwrap().eq_ignore_ascii_case("deepspeed"))
        .collect();
    assert_eq!(deepspeed.len(), 1, "{plan:#}");
    let specifier = deepspeed[0]["specifier"].as_str().unwrap();
    let specifiers: pep508_rs::pep440_rs::VersionSpecifiers = specifier.parse().unwrap();
    // The rules said `>=0.14.4` and `>=0.16.0`: the second holds the first,
    // and every release it allows satisfies both.
    assert_eq!(specifier, ">=0.16.0", "{plan:#}");
    // Tried against the matrix, 0.16.0 raises nothing the node lacks now.
    assert!(plan.get("unsettled").is_none(), "{plan:#}");
    assert!(!specifiers.contains(&"0.14.2".parse().unwrap()), "{specifier}");
    assert!(specifiers.contains(&"0.16.0".parse().unwrap()), "{specifier}");
    let fixes = deepspeed[0]["fixes"].as_array().unwrap();
    assert!(fixes.len() >= 3, "{plan:#}");
    assert!(plan["conflicts"].as_array().unwrap().is_empty(), "{plan:#}");

    let command = plan["command"].as_str().unwrap();
    assert!(command.starts_with(&format!("'{python}' -m pip install ")), "{command}");
    assert_eq!(command.matches("deepspeed").count(), 1, "{command}");
    assert!(command.contains(&format!("'deepspeed{specifier}'")), "{command}");

    // The text says the same command.
    let text = envdoctor(cache.path())
        .args(["fix", "--snapshot", DEEPSPEED_NODE, "--deepspeed-config", ZERO3_OFFLOAD])
        .assert()
        .code(1);
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(text.contains(&format!("\n  {command}\n")), "{text}");

    // And `check` ends with it, one command in place of five.
    let check = envdoctor(cache.path())
        .args([
            "check",
            "--snapshot",
            DEEPSPEED_NODE,
            "--deepspeed-config",
            ZERO3_OFFLOAD,
        ])
        .assert()
        .code(1);
    let check = String::from_utf8(check.get_output().stdout.clone()).unwrap();
    let (_, end) = check
        .split_once("One command installs the package fixes of 5 findings (`envdoctor fix` shows the plan):\n")
        .unwrap_or_else(|| panic!("{check}"));
    assert!(end.starts_with(&format!("  {command}\n")), "{check}");
}

/// A real venv where `alpha` requires `beta>=2` and beta 1.0 is installed:
/// the plan is `beta>=2`, for the venv's own interpreter; fixed, nothing is left.
#[test]
fn a_venv_with_an_unmet_requirement_gets_it_as_the_plan() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (python, site) = venv_where_alpha_needs_beta_2(root.path(), &[]);
    let (plan, code) = fix_json(cache.path(), &python);
    assert_eq!(code, Some(1), "{plan:#}");
    let requirements: Vec<(String, String)> = plan["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|requirement| {
            (
                requirement["name"].as_str().unwrap().to_string(),
                requirement["specifier"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(requirements, [("beta".to_string(), ">=2".to_string())], "{plan:#}");
    let command = plan["command"].as_str().unwrap();
    assert!(command.ends_with(" -m pip install 'beta>=2'"), "{command}");
    assert!(command.contains("/venv/bin/python"), "{command}");

    // With beta 2.0 in its place no package is left to install (what no
    // install fixes, such as a node without a GPU, is still listed: exit 1).
    std::fs::remove_dir_all(site.join("beta-1.0.dist-info")).unwrap();
    write_dist_info(&site, "beta", "2.0");
    let (plan, exit) = fix_json(cache.path(), &python);
    assert_eq!(plan["command"], Value::Null, "{plan:#}");
    assert_eq!(plan["requirements"], serde_json::json!([]), "{plan:#}");
    let expected = if plan["cannot_fix"].as_array().unwrap().is_empty() {
        0
    } else {
        1
    };
    assert_eq!(exit, Some(expected), "{plan:#}");
}

/// The same venv with `gamma`, which requires `beta<1.5`: `beta>=2` would
/// break it, so it is a conflict that names gamma, not a plan.
#[test]
fn a_plan_that_would_break_an_installed_package_is_a_conflict() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (python, _) = venv_where_alpha_needs_beta_2(root.path(), &[("gamma", "beta<1.5")]);
    let (plan, code) = fix_json(cache.path(), &python);
    assert_eq!(code, Some(1), "{plan:#}");
    assert_eq!(plan["requirements"], serde_json::json!([]), "{plan:#}");
    assert_eq!(plan["command"], Value::Null, "{plan:#}");
    let conflicts = plan["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{plan:#}");
    assert_eq!(conflicts[0]["name"], "beta");
    assert_eq!(conflicts[0]["specifiers"], serde_json::json!([">=2", "<1.5"]));
    assert_eq!(
        conflicts[0]["required_by"],
        serde_json::json!(["gamma 1.0 requires beta<1.5"])
    );
}
