//! A test that skips itself is visible under plain `cargo test`, where libtest
//! captures test output: its `skipped` line, and the list at the binary's exit.

use crate::common;

use std::process::Command;

/// Skips, as a test does on a machine without its prerequisite. It runs as a
/// child of the test below, which reads what a person would see.
#[test]
#[ignore = "run by skip_report::a_skipped_test_is_shown_beside_ok_and_listed_at_exit"]
fn skips_itself() {
    common::skip(
        "skip_report::skips_itself",
        "nothing",
        "it shows\nwhat a skip looks like",
    );
}

#[test]
fn a_skipped_test_is_shown_beside_ok_and_listed_at_exit() {
    let dir = tempfile::tempdir().unwrap();
    let terminal = dir.path().join("terminal");
    let skips = dir.path().join("skips.tsv");
    let stdout = std::fs::File::create(&terminal).unwrap();
    let stderr = stdout.try_clone().unwrap();
    // This test binary, running only the test above, with libtest's capture on
    // and two threads (so that libtest prints each test's line as it ends); its
    // stdout and stderr in one stream, as a terminal shows them.
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "skip_report::skips_itself", "--ignored"])
        .args(["--test-threads=2", "--color=never"])
        .env_remove("RUST_TEST_NOCAPTURE")
        .env_remove("ENVDOCTOR_TEST_REQUIRE")
        .env("ENVDOCTOR_TEST_SKIPS", &skips)
        .stdout(stdout)
        .stderr(stderr)
        .status()
        .unwrap();
    let shown = std::fs::read_to_string(&terminal).unwrap();
    assert!(status.success(), "{shown}");
    let at = |text: &str| shown.find(text).unwrap_or_else(|| panic!("no `{text}` in:\n{shown}"));
    let skipped = at("\nskipped skip_report::skips_itself: it shows what a skip looks like\n");
    let ok = at("\ntest skip_report::skips_itself ... ok\n");
    let result = at("\ntest result: ok. 1 passed;");
    let listed = at(
        "\n1 test skipped here; libtest counts them as passed, but they did not run:\n  \
         skip_report::skips_itself: it shows what a skip looks like\n",
    );
    assert!(skipped < ok && ok < result && result < listed, "{shown}");
    assert_eq!(
        std::fs::read_to_string(&skips).unwrap(),
        "skip_report::skips_itself\tnothing\tit shows what a skip looks like\n"
    );
}
