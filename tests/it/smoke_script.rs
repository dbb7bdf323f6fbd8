//! The smoke test's Python side, tested in Python (tests/smoke_script/*.py):
//! the event protocol and the checks the GPU steps make, run where they can
//! run without a GPU. Under the interpreter ENVDOCTOR_TEST_TORCH_PYTHON names
//! (one with torch, and the libraries whose steps are to be tested), else the
//! machine's python3, where the tests that need torch skip themselves and say so.

use crate::common;

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_side_passes_its_own_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("ENVDOCTOR_TEST_TORCH_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| common::system_python().to_path_buf());
    let output = Command::new(&python)
        .args(["-m", "unittest", "discover", "-v", "-s"])
        .arg(root.join("tests/smoke_script"))
        .env("PYTHONPATH", root.join("src/smoke/script"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", python.display()));
    // unittest reports on stderr; shown on failure, and with --nocapture.
    let report = String::from_utf8_lossy(&output.stderr);
    println!("{report}");
    assert!(output.status.success(), "{}: {report}", python.display());
    // unittest's own skips (no torch here, or an opt-in slow test) are
    // recorded like the Rust tests' skips, one by one.
    for (test, reason) in skipped(&report) {
        let prerequisite = if reason.contains("torch") { "torch" } else { "opt-in" };
        common::skip(&format!("smoke_script::{test}"), prerequisite, &reason);
    }
}

/// `(test id, reason)` of every test `unittest -v` reports as skipped:
/// `test_x (module.Class.test_x) ... skipped 'torch is not installed'`.
fn skipped(report: &str) -> Vec<(String, String)> {
    report
        .lines()
        .filter_map(|line| {
            let (test, reason) = line.split_once(" ... skipped ")?;
            let id = test.split_once(" (").map_or(test, |(_, id)| id.trim_end_matches(')'));
            Some((id.to_string(), reason.trim_matches(['\'', '"']).to_string()))
        })
        .collect()
}
