//! The interpreter's answer is reused between runs only while it is still true.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// A new virtual environment, old enough to be cached: an answer is not
/// stored when a watched path changed within the kernel's coarse-clock slack
/// of the question (git's "racy" rule), and a probe started right after
/// `python -m venv` can ask within it on a fast machine.
fn settled_venv(path: &Path) -> PathBuf {
    let python = create_venv(path, false);
    std::thread::sleep(std::time::Duration::from_millis(50));
    python
}

fn cache_files(cache: &Path) -> Vec<PathBuf> {
    let directory = cache.join("envdoctor/interpreters");
    std::fs::read_dir(directory)
        .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default()
}

/// Rewrites the cached answer's version, so that a run which uses the cache
/// can be told from one that asked the interpreter.
fn mark_cached_answer(cache: &Path) {
    let files = cache_files(cache);
    assert_eq!(files.len(), 1, "{files:?}");
    let mut entry: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    entry["answer"]["version"] = Value::from("0.0-from-cache");
    std::fs::write(&files[0], serde_json::to_vec(&entry).unwrap()).unwrap();
}

#[test]
fn a_valid_answer_is_reused_and_no_cache_asks_again() {
    let root = tempfile::tempdir().unwrap();
    let python = settled_venv(&root.path().join("venv"));
    let cache = root.path().join("cache");
    let asked = probe_json(&cache, &python, &[], &[]);
    mark_cached_answer(&cache);
    assert_eq!(
        probe_json(&cache, &python, &[], &[])["python"]["version"],
        "0.0-from-cache"
    );
    assert_eq!(
        probe_json(&cache, &python, &["--no-cache"], &[])["python"]["version"],
        asked["python"]["version"]
    );
}

#[test]
fn a_new_pth_file_is_seen_at_once() {
    let root = tempfile::tempdir().unwrap();
    let python = settled_venv(&root.path().join("venv"));
    let cache = root.path().join("cache");
    probe_json(&cache, &python, &[], &[]);
    mark_cached_answer(&cache);

    let extra = root.path().join("extra");
    write_dist_info(&extra, "late_arrival", "1.0");
    std::fs::write(
        site_packages(&python).join("extra.pth"),
        format!("{}\n", extra.display()),
    )
    .unwrap();

    let snapshot = probe_json(&cache, &python, &[], &[]);
    assert_ne!(
        snapshot["python"]["version"], "0.0-from-cache",
        "the stale answer was used"
    );
    assert!(
        snapshot["python"]["sys_path"]
            .as_array()
            .unwrap()
            .contains(&Value::from(extra.to_str().unwrap()))
    );
    assert!(name_versions(&snapshot["packages"]).contains(&("late-arrival".to_string(), "1.0".to_string())));
}

#[test]
fn a_changed_pythonpath_is_a_different_question() {
    let root = tempfile::tempdir().unwrap();
    let python = settled_venv(&root.path().join("venv"));
    let cache = root.path().join("cache");
    probe_json(&cache, &python, &[], &[]);
    mark_cached_answer(&cache);
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let snapshot = probe_json(&cache, &python, &[], &[("PYTHONPATH", elsewhere.as_path())]);
    assert_eq!(
        snapshot["python"]["sys_path"][0],
        Value::from(elsewhere.to_str().unwrap())
    );
}

#[test]
fn a_shim_script_is_never_cached() {
    // pyenv-style shims choose their interpreter at run time.
    let root = tempfile::tempdir().unwrap();
    let shim = root.path().join("python3");
    std::fs::write(&shim, format!("#!/bin/sh\nexec {} \"$@\"\n", system_python().display())).unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cache = root.path().join("cache");
    probe_json(&cache, &shim, &[], &[]);
    assert!(cache_files(&cache).is_empty());
}

#[test]
fn a_directory_named_by_a_pth_file_is_seen_when_it_appears() {
    // `site` skips a .pth line whose directory does not exist yet (a mount not up,
    // a directory made later); its appearance must invalidate the answer.
    let root = tempfile::tempdir().unwrap();
    let python = settled_venv(&root.path().join("venv"));
    let cache = root.path().join("cache");
    let later = root.path().join("later");
    std::fs::write(
        site_packages(&python).join("later.pth"),
        format!("{}\n", later.display()),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    probe_json(&cache, &python, &[], &[]);
    assert_eq!(cache_files(&cache).len(), 1, "the first answer was cached");

    write_dist_info(&later, "late_mount", "1.0");
    let snapshot = probe_json(&cache, &python, &[], &[]);
    assert!(name_versions(&snapshot["packages"]).contains(&("late-mount".to_string(), "1.0".to_string())));
}

#[test]
fn a_change_while_the_interpreter_answers_is_not_cached_over() {
    // site has read site-packages by the time it runs sitecustomize, which
    // then holds the interpreter until a .pth file appears there. The answer
    // predates that file, so it must not be stored as current. The two sides
    // wait for each other's files, not for a guessed time.
    let root = tempfile::tempdir().unwrap();
    let python = settled_venv(&root.path().join("venv"));
    let site = site_packages(&python);
    let pth = site.join("raced.pth");
    let mark = root.path().join("site-was-read");
    std::fs::write(
        site.join("sitecustomize.py"),
        format!(
            "import os, time\nopen({mark:?}, 'w').close()\ndeadline = time.time() + 60\nwhile not os.path.exists({pth:?}) and time.time() < deadline:\n    time.sleep(0.01)\n",
            mark = mark.display().to_string(),
            pth = pth.display().to_string()
        ),
    )
    .unwrap();
    let extra = root.path().join("extra");
    write_dist_info(&extra, "raced", "1.0");
    std::thread::sleep(std::time::Duration::from_millis(50));
    let cache = root.path().join("cache");

    let extra_line = format!("{}\n", extra.display());
    let writer = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !mark.exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "the interpreter never ran sitecustomize"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::fs::write(pth, extra_line).unwrap();
    });
    let during = probe_json(&cache, &python, &[], &[]);
    writer.join().unwrap();
    assert!(
        !name_versions(&during["packages"]).contains(&("raced".to_string(), "1.0".to_string())),
        "the fixture must race: the .pth file arrived before site read the directory"
    );
    let after = probe_json(&cache, &python, &[], &[]);
    assert!(name_versions(&after["packages"]).contains(&("raced".to_string(), "1.0".to_string())));
}
