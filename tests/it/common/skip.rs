//! A test that cannot run on this machine says so instead of passing quietly:
//! on stderr, and as a line in the file `ENVDOCTOR_TEST_SKIPS` names, which
//! `.ci/run` counts and lists at the end. A prerequisite the run installed
//! itself, named in `ENVDOCTOR_TEST_REQUIRE` (comma-separated), makes the
//! skip a failure: a test CI could run must run.
//!
//! Shared by the integration tests (`tests/it/common`) and the library's unit
//! tests (`src/lib.rs` includes this file as `test_skip`), so there is one of it.

use std::io::Write;

/// Records that `test` did not run because `prerequisite` is missing, or
/// panics when this run requires that prerequisite.
pub fn skip(test: &str, prerequisite: &str, reason: &str) {
    let required = std::env::var("ENVDOCTOR_TEST_REQUIRE").unwrap_or_default();
    if required.split(',').any(|item| item.trim() == prerequisite) {
        panic!(
            "{test} needs {prerequisite}, which this run requires (ENVDOCTOR_TEST_REQUIRE={required}), \
             and it is missing: {reason}"
        );
    }
    eprintln!("skipped {test}: {reason}");
    if let Some(path) = std::env::var_os("ENVDOCTOR_TEST_SKIPS") {
        let line = format!("{test}\t{prerequisite}\t{}\n", reason.replace(['\n', '\t'], " "));
        // One short write in append mode: lines from parallel tests do not mix.
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(line.as_bytes()));
        if let Err(error) = appended {
            panic!(
                "cannot record the skip of {test} in {}: {error}",
                path.to_string_lossy()
            );
        }
    }
}
