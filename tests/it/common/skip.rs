//! A test that cannot run on this machine says so instead of passing quietly.
//!
//! libtest has no outcome a test can choose once it runs: a test that returns
//! passes, and `cargo test` prints `ok` for it. So `skip` says it where a person
//! sees it: a line `skipped TEST: REASON` as the test skips, and, when the test
//! binary exits, after libtest's `test result:` line, the list of every skip.
//! Both are written to the stderr file descriptor itself: libtest captures what
//! `eprint!` writes during a test (and shows it only when the test fails), not
//! what reaches the descriptor. libtest-mimic (0.8.2 added `Trial::ignorable_test`)
//! could report them as `ignored`, but captures no output at all and would have
//! every `#[test]` registered by hand, and the unit tests in `src/` would still
//! be libtest's.
//!
//! Each skip is also a line in the file `ENVDOCTOR_TEST_SKIPS` names, which
//! `.ci/run` counts and lists at the end. A prerequisite the run installed
//! itself, named in `ENVDOCTOR_TEST_REQUIRE` (comma-separated), makes the skip
//! a failure: a test CI could run must run.
//!
//! Shared by the integration tests (`tests/it/common`) and the library's unit
//! tests (`src/lib.rs` includes this file as `test_skip`), so there is one of it.

use std::io::Write;
use std::os::fd::AsFd;
use std::sync::{Mutex, Once, PoisonError};

/// `TEST: REASON` of every skip so far in this test binary, for the list at exit.
static SKIPPED: Mutex<Vec<String>> = Mutex::new(Vec::new());
static LIST_AT_EXIT: Once = Once::new();

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
    let reason = reason.replace(['\n', '\t'], " ");
    write_past_capture(&format!("skipped {test}: {reason}\n"));
    SKIPPED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(format!("{test}: {reason}"));
    LIST_AT_EXIT.call_once(|| {
        // SAFETY: `list_skips` is an `extern "C"` function that cannot unwind
        // (it ignores every error) and uses only this file's statics, which
        // outlive the handlers. Were it not registered, the lines written as
        // each test skipped would still be there.
        unsafe { libc::atexit(list_skips) };
    });
    if let Some(path) = std::env::var_os("ENVDOCTOR_TEST_SKIPS") {
        let line = format!("{test}\t{prerequisite}\t{reason}\n");
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

/// Runs when the test binary exits (after libtest's summary, pass or fail).
extern "C" fn list_skips() {
    let skipped = SKIPPED.lock().unwrap_or_else(PoisonError::into_inner);
    let tests = if skipped.len() == 1 { "test" } else { "tests" };
    let mut text = format!(
        "{} {tests} skipped here; libtest counts them as passed, but they did not run:\n",
        skipped.len()
    );
    for line in skipped.iter() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    write_past_capture(&text);
}

/// Writes to a duplicate of the stderr descriptor, which no output capture
/// reaches and which needs none of std's stream state (gone or going when
/// the exit handlers run). Errors are ignored: with stderr closed, there is
/// nowhere left to say it.
fn write_past_capture(text: &str) {
    let _ = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|mut stderr| stderr.write_all(text.as_bytes()));
}
