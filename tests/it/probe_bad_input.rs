//! Bad input gets one clear line and the documented exit code, never a panic.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

fn executable_script(directory: &Path, name: &str, body: &str) -> PathBuf {
    let path = directory.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `envdoctor probe` expecting exit 2 and returns its one line of stderr.
fn probe_fails(arguments: &[&str], configure: impl FnOnce(&mut assert_cmd::Command)) -> String {
    let cache = tempfile::tempdir().unwrap();
    let mut command = envdoctor(cache.path());
    command.arg("probe").args(arguments);
    configure(&mut command);
    let output = command.assert().code(2).get_output().clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line, not: {stderr}");
    assert!(output.stdout.is_empty(), "nothing half-written to stdout");
    stderr
}

#[test]
fn a_missing_interpreter() {
    let stderr = probe_fails(&["--python", "/nonexistent/bin/python"], |_| {});
    assert_eq!(
        stderr,
        "envdoctor: error: Python interpreter `/nonexistent/bin/python` does not exist\n"
    );
    let stderr = probe_fails(&["--python", "python-envdoctor-nonexistent"], |_| {});
    assert!(
        stderr.contains("`python-envdoctor-nonexistent` is not on PATH"),
        "{stderr}"
    );
}

#[test]
fn a_virtual_env_variable_pointing_nowhere() {
    let stderr = probe_fails(&[], |command| {
        command.env("VIRTUAL_ENV", "/nonexistent/venv");
    });
    assert!(stderr.contains("VIRTUAL_ENV is set to `/nonexistent/venv`"), "{stderr}");
}

#[test]
fn an_executable_that_is_not_python() {
    let directory = tempfile::tempdir().unwrap();
    let greeter = executable_script(directory.path(), "greeter", "echo hello");
    let stderr = probe_fails(&["--python", greeter.to_str().unwrap()], |_| {});
    assert!(
        stderr.contains("is not a Python interpreter: asked for its `--version`, it printed `hello`"),
        "{stderr}"
    );

    let data = directory.path().join("data.txt");
    std::fs::write(&data, "not a program").unwrap();
    let stderr = probe_fails(&["--python", data.to_str().unwrap()], |_| {});
    assert!(
        stderr.contains("could not be run; caused by: Permission denied"),
        "{stderr}"
    );

    let stderr = probe_fails(&["--python", directory.path().to_str().unwrap()], |_| {});
    assert!(
        stderr.contains("is a folder but not a Python environment: it has neither bin/python nor bin/python3"),
        "{stderr}"
    );
}

#[test]
fn a_python_that_crashes_at_start_up() {
    // A real interpreter, killed by SIGSEGV from its sitecustomize, as a broken
    // native extension imported from a .pth file would.
    let directory = tempfile::tempdir().unwrap();
    std::fs::write(
        directory.path().join("sitecustomize.py"),
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
    )
    .unwrap();
    let stderr = probe_fails(&["--python", system_python().to_str().unwrap()], |command| {
        command.env("PYTHONPATH", directory.path());
    });
    assert!(stderr.contains("failed with signal SIGSEGV"), "{stderr}");
}

#[test]
fn a_python_that_exits_with_an_error() {
    let directory = tempfile::tempdir().unwrap();
    let failing = executable_script(
        directory.path(),
        "python",
        "echo 'Fatal Python error: init_fs_encoding' >&2; exit 1",
    );
    let stderr = probe_fails(&["--python", failing.to_str().unwrap()], |_| {});
    assert!(
        stderr.contains("failed with exit status 1: Fatal Python error: init_fs_encoding"),
        "{stderr}"
    );
}

/// Issue 20: a pyenv shim for a version that is not selected prints its error
/// first and advice after it; the error is what the line keeps.
#[test]
fn a_wrapper_error_followed_by_advice_is_named() {
    let directory = tempfile::tempdir().unwrap();
    let shim = executable_script(
        directory.path(),
        "python2",
        "printf '%s\\n' 'pyenv: python2: command not found' '' \\
         \"The \\`python2' command exists in these Python versions:\" '  2.7.18' '' \\
         \"Note: See 'pyenv help global' for tips on allowing multiple\" \\
         '      Python versions to be found at the same time.' >&2; exit 127",
    );
    let stderr = probe_fails(&["--python", shim.to_str().unwrap()], |_| {});
    assert!(
        stderr.contains("failed with exit status 127: pyenv: python2: command not found"),
        "{stderr}"
    );
}

#[test]
fn an_interpreter_that_hangs_is_killed_at_the_default_deadline() {
    let directory = tempfile::tempdir().unwrap();
    // The child `sleep` holds the output pipe too: only killing the group ends it.
    let hanging = executable_script(directory.path(), "python", "sleep 60 & sleep 60");
    let started = Instant::now();
    let stderr = probe_fails(&["--python", hanging.to_str().unwrap()], |_| {});
    let elapsed = started.elapsed();
    assert!(stderr.contains("did not answer within 10 s and was killed"), "{stderr}");
    assert!(
        elapsed >= Duration::from_secs(10) && elapsed < Duration::from_secs(30),
        "{elapsed:?}"
    );

    let stderr = probe_fails(
        &["--python", hanging.to_str().unwrap(), "--python-timeout", "0.5"],
        |_| {},
    );
    assert!(stderr.contains("did not answer within 0.5 s"), "{stderr}");
}

#[test]
fn bad_arguments_exit_2() {
    let cache = tempfile::tempdir().unwrap();
    envdoctor(cache.path())
        .args(["probe", "--format", "xml"])
        .assert()
        .code(2);
    envdoctor(cache.path())
        .args(["probe", "--python-timeout", "-1"])
        .assert()
        .code(2);
    envdoctor(cache.path()).arg("no-such-command").assert().code(2);
    // Large enough to overflow a timer: an error, not a panic.
    let output = envdoctor(cache.path())
        .args(["probe", "--python-timeout", "1e20"])
        .assert()
        .code(2);
    assert!(!String::from_utf8_lossy(&output.get_output().stderr).contains("panicked"));
}

#[test]
fn an_output_file_that_cannot_be_written() {
    let stderr = probe_fails(
        &[
            "--python",
            system_python().to_str().unwrap(),
            "-o",
            "/nonexistent/dir/node.json",
        ],
        |_| {},
    );
    assert!(stderr.contains("cannot write `/nonexistent/dir/node.json`"), "{stderr}");
}

/// Broken metadata is a problem of its package: the probe succeeds and says so.
#[test]
fn broken_metadata_and_unreadable_directories_are_reported_not_fatal() {
    let directory = tempfile::tempdir().unwrap();
    let broken = directory.path().join("broken");
    for (name, content) in [
        (
            "latin1-1.0.dist-info/METADATA",
            &b"Metadata-Version: 2.1\nName: latin1\nVersion: 1.0\nAuthor: Jos\xe9\n"[..],
        ),
        (
            "noversion-1.0.dist-info/METADATA",
            b"Metadata-Version: 2.1\nName: noversion\n",
        ),
    ] {
        write_file(&broken.join(name), content);
    }
    // A METADATA that cannot be read at all (a directory where a file belongs).
    std::fs::create_dir_all(broken.join("unreadable-2.0.dist-info/METADATA")).unwrap();
    // A sys.path entry that cannot be listed: a symbolic link loop (unreadable
    // even for root, who can list a mode-000 directory).
    let looping = directory.path().join("loop");
    std::os::unix::fs::symlink(&looping, &looping).unwrap();
    let pythonpath = std::env::join_paths([&broken, &looping]).unwrap();

    let cache = tempfile::tempdir().unwrap();
    let probe = |format: &str| {
        let output = envdoctor(cache.path())
            .args(["probe", "--format", format, "--python"])
            .arg(system_python())
            .env("PYTHONPATH", &pythonpath)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(output).unwrap()
    };
    let snapshot: Value = serde_json::from_str(&probe("json")).unwrap();
    let first_problem = |name: &str| {
        let packages = snapshot["packages"].as_array().unwrap();
        let package = packages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing"));
        package["problems"][0].as_str().unwrap_or_default().to_string()
    };
    let version = |name: &str| {
        snapshot["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["version"]
            .clone()
    };
    assert_eq!(version("latin1"), "1.0");
    assert!(first_problem("latin1").contains("line 4: invalid UTF-8"));
    assert_eq!(version("noversion"), Value::Null);
    assert!(first_problem("noversion").ends_with("no Version field"));
    assert!(first_problem("unreadable").contains("cannot read"));
    let scan_problem = &snapshot["package_scan_problems"][0];
    assert_eq!(scan_problem["path"], Value::from(looping.to_str().unwrap()));
    let scan_problem_text = scan_problem["problem"].as_str().unwrap();
    assert!(scan_problem_text.contains("cannot list directory"), "{scan_problem}");

    // The text form names the problems too.
    let text = probe("text");
    assert!(
        text.contains("noversion: ") && text.contains("no Version field"),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "no colour when not a terminal");
}

#[test]
fn a_fifo_is_not_opened_and_not_waited_on() {
    let directory = tempfile::tempdir().unwrap();
    let fifo = directory.path().join("python");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let stderr = probe_fails(&["--python", fifo.to_str().unwrap()], |_| {});
    assert!(stderr.contains("could not be run"), "{stderr}");
}

/// Real interpreters print things of their own at start-up and exit, and start
/// helpers that outlive them; none of that may spoil the answer.
#[test]
fn a_noisy_interpreter_still_answers() {
    let directory = tempfile::tempdir().unwrap();
    std::fs::write(
        directory.path().join("sitecustomize.py"),
        "import atexit, subprocess, sys\n\
sys.stdout.write('banner without a newline')\n\
atexit.register(lambda: print('telemetry flushed'))\n\
subprocess.Popen(['sleep', '5'], start_new_session=True, stdout=sys.stdout)\n",
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let snapshot = probe_json(cache.path(), system_python(), &[], &[("PYTHONPATH", directory.path())]);
    assert_eq!(
        snapshot["python"]["sys_path"][0],
        Value::from(directory.path().to_str().unwrap())
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "waited for the escaped helper: {:?}",
        started.elapsed()
    );
}

/// Issue 32, E2: every file a probe reads from an environment or a CUDA root
/// goes through the bounded reader. A METADATA, PKG-INFO or egg-info file that
/// is a FIFO (a plain open waits for ever), a link to `/dev/zero` (a plain read
/// fills memory: 5.6 GB in 3 s) or one endless line is a problem on its
/// package, in words, and the probe goes on; so is a FIFO as CUDA_HOME's
/// `version.json`.
#[test]
fn special_files_in_a_site_packages_are_problems_on_their_package() {
    let directory = tempfile::tempdir().unwrap();
    let site = directory.path().join("site");
    let mkfifo = |path: &Path| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .unwrap()
                .success()
        );
    };
    let zero = |path: &Path| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", path).unwrap();
    };
    mkfifo(&site.join("fifo_meta-1.0.dist-info/METADATA"));
    zero(&site.join("zero_meta-1.0.dist-info/METADATA"));
    mkfifo(&site.join("fifo_egg-1.0.egg-info"));
    zero(&site.join("zero_pkg_info-1.0.egg-info/PKG-INFO"));
    let mut long = b"Metadata-Version: 2.1\nName: long-line\nVersion: 1.0\nSummary: ".to_vec();
    long.extend(std::iter::repeat_n(b'x', 3 << 20));
    write_file(&site.join("long_line-1.0.dist-info/METADATA"), &long);
    let cuda = directory.path().join("cuda-12.8");
    mkfifo(&cuda.join("version.json"));

    let cache = tempfile::tempdir().unwrap();
    let output = envdoctor(cache.path())
        .args(["probe", "--format", "json", "--python"])
        .arg(system_python())
        .env("PYTHONPATH", &site)
        .env("CUDA_HOME", &cuda)
        .timeout(Duration::from_secs(60))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let snapshot: Value = serde_json::from_slice(&output).unwrap();
    let package = |name: &str| {
        snapshot["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|package| package["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing: {snapshot:#}"))
            .clone()
    };
    let problems = |name: &str| package(name)["problems"].to_string();
    for (name, kind) in [
        ("fifo_meta", "not a regular file (a FIFO)"),
        ("zero_meta", "not a regular file (a character device)"),
        ("fifo_egg", "not a regular file (a FIFO)"),
        ("zero_pkg_info", "not a regular file (a character device)"),
    ] {
        assert!(problems(name).contains(kind), "{name}: {}", problems(name));
    }
    // The fields before the endless line still count.
    let long = package("long-line");
    assert_eq!(long["version"], "1.0");
    assert!(
        problems("long-line").contains("line 4 is longer than 1024 KiB, the most envdoctor reads of one line"),
        "{}",
        problems("long-line")
    );
    let toolkit = snapshot["cuda"]["toolkits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|toolkit| toolkit["found_via"].to_string().contains("cuda_home"))
        .unwrap_or_else(|| panic!("the CUDA_HOME toolkit: {:#}", snapshot["cuda"]));
    assert!(
        toolkit["problems"]
            .to_string()
            .contains("version.json: cannot read: not a regular file (a FIFO)"),
        "{toolkit:#}"
    );
}
