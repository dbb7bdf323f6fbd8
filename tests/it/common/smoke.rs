//! What the smoke tests share: the stand-in packages of tests/fixtures/smoke,
//! copied into a virtual environment, and reading a smoke report.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A stand-in under tests/fixtures/smoke (`working_gpu/torch`, `deepspeed/deepspeed`).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/smoke")
        .join(name)
}

/// Copies a package tree, leaving out bytecode caches.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub fn step<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|step| step["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {report:#}"))
}

pub fn step_names(report: &Value) -> Vec<&str> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["name"].as_str().unwrap())
        .collect()
}

/// The only finding of the report, which must have that id.
pub fn only_finding<'a>(report: &'a Value, id: &str) -> &'a Value {
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    assert_eq!(findings[0]["id"], id, "{report:#}");
    &findings[0]
}

pub fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_else(|| panic!("not a string: {value}"))
}
