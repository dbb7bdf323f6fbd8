//! `envdoctor smoke` on a machine without a GPU, driven through broken and
//! working installs of torch: a hang at import, a crash by SIGSEGV, an import
//! error, a driver too old for CUDA, and a clean pass.
//!
//! Each is a stand-in `torch` package (tests/fixtures/smoke/SCENARIO/torch) in
//! the site-packages of a fresh virtual environment. The harness does not know
//! about them: to it they are torch installs that break the way real ones do.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::smoke::{copy_tree, fixture, only_finding, step, step_names, text};
use common::{create_venv, envdoctor, site_packages};
use serde_json::Value;

/// The torch stages of one GPU, in the order the smoke test runs them.
const ONE_GPU_STEPS: [&str; 7] = [
    "torch.import",
    "torch.cuda",
    "gpu0.kernels",
    "gpu0.memory",
    "gpu0.fp32",
    "gpu0.fp16",
    "gpu0.bf16",
];

/// A virtual environment whose torch is the stand-in of `scenario`, and a
/// directory for envdoctor's cache and the test's own files.
struct Standin {
    directory: tempfile::TempDir,
    python: PathBuf,
}

impl Standin {
    fn new(scenario: &str) -> Standin {
        let directory = tempfile::tempdir().unwrap();
        let python = create_venv(&directory.path().join("venv"), false);
        copy_tree(
            &fixture(&format!("{scenario}/torch")),
            &site_packages(&python).join("torch"),
        );
        Standin { directory, python }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.directory.path().join(name)
    }

    /// `envdoctor smoke --python VENV --format FORMAT ARGUMENTS...`: the exit
    /// code and standard output.
    fn smoke(&self, format: &str, arguments: &[&str], env: &[(&str, &OsStr)]) -> (i32, String) {
        let mut command = envdoctor(&self.path("cache"));
        command
            .arg("smoke")
            .arg("--python")
            .arg(&self.python)
            .args(["--format", format])
            .args(arguments);
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        let code = output.status.code().unwrap_or_else(|| {
            panic!(
                "envdoctor ended by {:?}\n{stdout}\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (code, stdout)
    }

    /// The same in JSON: the exit code and the report.
    fn smoke_json(&self, arguments: &[&str], env: &[(&str, &OsStr)]) -> (i32, Value) {
        let (code, stdout) = self.smoke("json", arguments, env);
        let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {stdout}"));
        assert_eq!(report["schema"], "envdoctor.smoke/1", "{report:#}");
        (code, report)
    }
}

/// Whether a process still runs: one that is gone, or a zombie waiting for a
/// parent to reap it (it runs nothing and holds no GPU), does not.
fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `PID (COMMAND) STATE ...`; the command may itself hold parentheses.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// The pids the hang stand-in wrote: the interpreter and the helper it started.
fn standin_pids(pid_file: &Path) -> Vec<u32> {
    let pids: Vec<u32> = std::fs::read_to_string(pid_file)
        .unwrap_or_else(|error| panic!("the stand-in wrote no pids ({error})"))
        .split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "the interpreter and its helper: {pids:?}");
    pids
}

/// Asserts that none of `pids` runs (after a short grace for reaping); kills
/// survivors first, so that a failing test leaves nothing behind.
fn assert_all_gone(pids: &[u32]) {
    let until = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|&pid| running(pid)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let survivors: Vec<u32> = pids.iter().copied().filter(|&pid| running(pid)).collect();
    for &pid in &survivors {
        // SAFETY: kill(2) touches no memory of ours.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    }
    assert!(
        survivors.is_empty(),
        "still running after envdoctor returned: {survivors:?}"
    );
}

#[test]
fn a_hang_at_import_is_killed_at_the_deadline_with_every_process_it_started() {
    let standin = Standin::new("hang_at_import");
    let pid_file = standin.path("pids");
    let (code, report) = standin.smoke_json(&["--timeout", "3"], &[("STANDIN_PID_FILE", pid_file.as_os_str())]);
    // First, so that whatever the verdict no process of the test outlives it.
    assert_all_gone(&standin_pids(&pid_file));

    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["ending"], "timed_out", "{report:#}");
    assert_eq!(
        report["ending_detail"], "killed: the whole run's deadline passed during this step",
        "{report:#}"
    );
    assert_eq!(step_names(&report), ["torch.import"], "{report:#}");
    assert_eq!(step(&report, "torch.import")["status"], "timeout", "{report:#}");
    only_finding(&report, "smoke-step-timeout");
}

/// The entries of a folder, as names.
fn entries(folder: &Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn envdoctor_interrupted_mid_test_takes_the_test_and_its_folder_with_it() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let standin = Standin::new("hang_at_import");
        let pid_file = standin.path("pids");
        let seen_file = standin.path("seen");
        // envdoctor's temporary folder goes here, where nothing else does.
        let temporary = standin.path("tmp");
        std::fs::create_dir(&temporary).unwrap();
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("envdoctor"))
            .args(["smoke", "--timeout", "60", "--python"])
            .arg(&standin.python)
            .env("XDG_CACHE_HOME", standin.path("cache"))
            .env("TMPDIR", &temporary)
            .env("STANDIN_PID_FILE", &pid_file)
            .env("STANDIN_SEEN_FILE", &seen_file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(30);
        while !pid_file.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: kill(2) touches no memory of ours.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let output = child.wait_with_output().unwrap();
        // First, so that whatever the verdict no process of the test outlives it.
        assert_all_gone(&standin_pids(&pid_file));

        // It ends as the signal asked, so that a shell or a scheduler sees why.
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&output.status),
            Some(signal),
            "{:?}",
            output.status
        );
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("envdoctor: interrupted by SIG")
                && stderr.contains("every process it started were killed, and its temporary folder removed"),
            "{stderr}"
        );
        // The folder held the test and its TORCH_EXTENSIONS_DIR; both are gone.
        let seen = std::fs::read_to_string(&seen_file).unwrap();
        let extensions = seen
            .lines()
            .find_map(|line| line.strip_prefix("TORCH_EXTENSIONS_DIR="))
            .unwrap_or_else(|| panic!("no TORCH_EXTENSIONS_DIR in {seen}"));
        assert!(Path::new(extensions).starts_with(&temporary), "{extensions}");
        assert!(!Path::new(extensions).exists(), "{extensions} is left behind");
        assert_eq!(
            entries(&temporary),
            Vec::<String>::new(),
            "left behind after signal {signal}"
        );
    }
}

#[test]
fn a_crash_by_sigsegv_is_named_with_the_step_it_killed_and_its_last_words() {
    let standin = Standin::new("segfault_in_cuda");
    let (code, report) = standin.smoke_json(&[], &[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["ending"], "crashed", "{report:#}");
    assert_eq!(report["ending_detail"], "signal SIGSEGV", "{report:#}");
    assert_eq!(step_names(&report), ["torch.import", "torch.cuda"], "{report:#}");
    assert_eq!(step(&report, "torch.import")["status"], "pass", "{report:#}");
    let cuda = step(&report, "torch.cuda");
    assert_eq!(cuda["status"], "fail", "{report:#}");
    assert_eq!(cuda["error"]["type"], "SIGSEGV", "{report:#}");
    let finding = only_finding(&report, "smoke-crashed");
    assert!(text(&finding["title"]).contains("torch.cuda"), "{finding:#}");
    // faulthandler's dump: the crash, and the Python frame it happened in.
    let tail = text(&report["stderr_tail"]);
    assert!(tail.contains("Fatal Python error: Segmentation fault"), "{tail}");
    assert!(tail.contains("in is_available"), "{tail}");

    let (code, output) = standin.smoke("text", &[], &[]);
    assert_eq!(code, 1, "{output}");
    let crash_line = output
        .lines()
        .find(|line| line.contains("torch.cuda"))
        .unwrap_or_else(|| panic!("no line for torch.cuda: {output}"));
    assert!(crash_line.contains("SIGSEGV"), "{output}");

    // The crash's message, which the finding quotes, says what crashed or
    // where: faulthandler's first line or the innermost frame, not the last
    // line of its dump, which is the outermost frame of every crash under `-m`.
    let message = text(&cuda["error"]["message"]);
    assert!(
        message.contains("Segmentation fault") || message.contains("in is_available"),
        "the message of the crash is {message:?}"
    );
}

#[test]
fn an_exception_at_import_shows_its_message_and_skips_what_needs_torch() {
    const MESSAGE: &str = "libcudnn.so.9: cannot open shared object file: No such file or directory";
    let standin = Standin::new("import_error");
    let (code, report) = standin.smoke_json(&[], &[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["ending"], "completed", "{report:#}");
    let import = step(&report, "torch.import");
    assert_eq!(import["status"], "fail", "{report:#}");
    assert_eq!(import["error"]["type"], "ImportError", "{report:#}");
    assert_eq!(import["error"]["message"], MESSAGE, "{report:#}");
    assert!(text(&import["detail"]).contains(MESSAGE), "{report:#}");
    let finding = only_finding(&report, "smoke-step-failed");
    assert!(text(&finding["detail"]).contains(MESSAGE), "{finding:#}");

    assert_eq!(
        step_names(&report),
        ["torch.import", "torch.cuda", "gpus"],
        "{report:#}"
    );
    for name in ["torch.cuda", "gpus"] {
        assert_eq!(step(&report, name)["status"], "skip", "{report:#}");
        assert_eq!(step(&report, name)["detail"], "torch did not import", "{report:#}");
    }
}

#[test]
fn a_driver_too_old_for_torch_fails_the_cuda_step_with_torchs_own_warning() {
    let standin = Standin::new("no_cuda_device");
    let (code, report) = standin.smoke_json(&[], &[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["ending"], "completed", "{report:#}");
    assert_eq!(step(&report, "torch.import")["status"], "pass", "{report:#}");
    let cuda = step(&report, "torch.cuda");
    assert_eq!(cuda["status"], "fail", "{report:#}");
    let detail = text(&cuda["detail"]);
    assert!(detail.starts_with("torch.cuda.is_available() is False: "), "{detail}");
    assert!(
        detail.contains(
            "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update \
             your GPU driver"
        ),
        "{detail}"
    );
    assert_eq!(cuda["figures"]["is_available"], false, "{report:#}");
    assert_eq!(cuda["figures"]["device_count"], 0, "{report:#}");
    let gpus = step(&report, "gpus");
    assert_eq!(gpus["status"], "skip", "{report:#}");
    assert_eq!(gpus["detail"], "CUDA is not available to torch", "{report:#}");

    let finding = only_finding(&report, "smoke-step-failed");
    assert!(
        text(&finding["detail"]).contains("too old (found version 11040)"),
        "{finding:#}"
    );
    // torch's own words name the cause (the matrix's driver-too-old-for-torch),
    // so the fix is the driver's, not the generic one for a GPU CUDA cannot see.
    let fix = text(&finding["fix"]);
    assert!(fix.contains("upgrade the NVIDIA driver"), "{fix}");
    assert!(
        text(&finding["detail"]).contains("driver-too-old-for-torch,"),
        "{finding:#}"
    );
}

#[test]
fn a_working_install_passes_every_step() {
    let standin = Standin::new("working_gpu");
    let (code, report) = standin.smoke_json(&[], &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["ending"], "completed", "{report:#}");
    assert_eq!(report["failed"], false, "{report:#}");
    assert_eq!(step_names(&report), ONE_GPU_STEPS, "{report:#}");
    for name in ONE_GPU_STEPS {
        assert_eq!(step(&report, name)["status"], "pass", "{name}: {report:#}");
    }
    assert_eq!(report["findings"], Value::Array(Vec::new()), "{report:#}");
    // A clean run keeps no stderr.
    assert_eq!(report.get("stderr_tail"), None, "{report:#}");

    let (code, output) = standin.smoke("text", &[], &[]);
    assert_eq!(code, 0, "{output}");
    let verdict = output.lines().rfind(|line| !line.trim().is_empty()).unwrap_or_default();
    assert!(
        verdict.starts_with("PASS: 7 passed, 0 failed, 0 timed out, 0 skipped"),
        "{output}"
    );
}

#[test]
fn a_relative_interpreter_path_is_the_one_from_where_envdoctor_was_started() {
    let standin = Standin::new("working_gpu");
    let output = envdoctor(&standin.path("cache"))
        .current_dir(standin.directory.path())
        .args(["smoke", "--python", "venv/bin/python", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(step_names(&report), ONE_GPU_STEPS, "{report:#}");
}

#[test]
fn an_interpreter_that_does_not_exist_is_an_error_naming_it() {
    let cache = tempfile::tempdir().unwrap();
    let output = envdoctor(cache.path())
        .args(["smoke", "--python", "/nonexistent/python"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/nonexistent/python"), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// `envdoctor smoke ARGS` under a real pseudo-terminal (util-linux `script`):
/// everything it wrote to stdout and stderr, as a user would see it.
fn smoke_on_a_terminal(standin: &Standin, arguments: &str) -> String {
    let binary = assert_cmd::cargo::cargo_bin("envdoctor");
    let mut command = std::process::Command::new("script");
    command
        .arg("-qec")
        .arg(format!(
            "{} smoke --python {} {arguments}",
            binary.display(),
            standin.python.display()
        ))
        .arg("/dev/null")
        .env("XDG_CACHE_HOME", standin.path("cache"))
        .env("NO_COLOR", "1");
    let output = command.output().expect("util-linux `script` runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn steps_are_shown_as_they_run_only_on_a_terminal_and_never_with_json() {
    let standin = Standin::new("working_gpu");
    // The progress line of a finished step: verdict, title, time.
    let progress = "pass    import torch (";
    let shown = smoke_on_a_terminal(&standin, "");
    assert!(shown.contains(progress), "{shown}");
    let json = smoke_on_a_terminal(&standin, "--format json");
    assert!(!json.contains(progress), "{json}");

    let output = envdoctor(&standin.path("cache"))
        .args(["smoke", "--python"])
        .arg(&standin.python)
        .output()
        .unwrap();
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
}
