//! Runs the embedded smoke test under the target interpreter and turns its
//! events into a `SmokeRun`, killing the whole process group the moment a step
//! or the run passes its deadline.

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::events::{self, Event, Started};
use super::progress::Observer;
use super::{Ending, SmokeRun, Status, Step, StepError};
use crate::process::{self, PipeReader};

/// The package `python -m envdoctor_smoke` runs, as (file name, contents).
const SCRIPT: [(&str, &str); 6] = [
    ("__init__.py", ""),
    ("__main__.py", include_str!("script/envdoctor_smoke/__main__.py")),
    ("protocol.py", include_str!("script/envdoctor_smoke/protocol.py")),
    ("torch_steps.py", include_str!("script/envdoctor_smoke/torch_steps.py")),
    (
        "library_steps.py",
        include_str!("script/envdoctor_smoke/library_steps.py"),
    ),
    ("workers.py", include_str!("script/envdoctor_smoke/workers.py")),
];

/// How much of stderr is kept: enough for a Python traceback and the
/// faulthandler dump of a crash, bounded against a library that logs without end.
const STDERR_KEPT: usize = 64 * 1024;
const STDERR_TAIL_LINES: usize = 30;

/// How long a process that closed its event channel may take to exit (CUDA
/// teardown) before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// The whole run's deadline unless the user gives one: the quick steps take
/// seconds; `--deep` may first compile DeepSpeed's CPU Adam (minutes).
pub fn default_timeout(deep: bool) -> Duration {
    Duration::from_secs(if deep { 600 } else { 120 })
}

#[derive(Debug, Clone)]
pub struct Options {
    pub python: PathBuf,
    /// The deadline of the whole run; each step also has its own.
    pub timeout: Duration,
    /// Also run the long steps (one ZeRO-3 step with CPU optimizer offload).
    pub deep: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SmokeError {
    #[error("cannot write the smoke test to a temporary directory")]
    Unpack(#[source] std::io::Error),
    #[error("cannot start `{}`", .python.display())]
    Spawn {
        python: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The step that has started and not yet ended.
struct Running {
    started: Started,
    at: Instant,
}

pub fn run(options: &Options, observer: &mut dyn Observer) -> Result<SmokeRun, SmokeError> {
    let directory = unpack()?;
    let began = Instant::now();
    let mut child = command(&options.python, directory.path(), options.deep)
        .spawn()
        .map_err(|source| SmokeError::Spawn {
            python: options.python.clone(),
            source,
        })?;
    let group = child.id() as libc::pid_t;
    let stderr = PipeReader::start_bounded(child.stderr.take(), STDERR_KEPT);
    let lines = read_lines(child.stdout.take());

    let run_deadline = began + options.timeout;
    let mut steps = Vec::new();
    let mut running: Option<Running> = None;
    let mut done = false;
    let mut killed_after: Option<String> = None;
    loop {
        let until = match &running {
            Some(step) => run_deadline.min(step.at + Duration::from_secs_f64(step.started.deadline_s.max(0.0))),
            None => run_deadline,
        };
        match lines.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(line) => match events::parse(&line) {
                Some(Event::Start(started)) => {
                    observer.started(&started.step, &started.title);
                    running = Some(Running {
                        started,
                        at: Instant::now(),
                    });
                }
                Some(Event::End(ended)) => {
                    let (title, gpu) = match running.take() {
                        Some(step) if step.started.step == ended.step => (step.started.title, step.started.gpu),
                        _ => (ended.step.clone(), None),
                    };
                    let step = Step {
                        name: ended.step,
                        title,
                        status: ended.status,
                        duration_ms: ended.duration_ms,
                        detail: ended.detail,
                        gpu,
                        figures: ended.figures,
                        error: ended.error,
                    };
                    observer.ended(&step);
                    steps.push(step);
                }
                Some(Event::Done) => done = true,
                None => {}
            },
            Err(RecvTimeoutError::Timeout) => {
                process::kill_group(group);
                let seconds = match &running {
                    Some(step) if Instant::now() < run_deadline => step.started.deadline_s,
                    _ => options.timeout.as_secs_f64(),
                };
                killed_after = Some(format!("killed after {} s", format_seconds(seconds)));
                if let Some(step) = running.take() {
                    let step = timed_out(step, seconds);
                    observer.ended(&step);
                    steps.push(step);
                }
                break;
            }
            // The channel closed: the process is exiting, or has.
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }

    let status = wait(
        &mut child,
        EXIT_GRACE.min(run_deadline.saturating_duration_since(Instant::now())),
    );
    // Also after a clean exit: a worker left behind would hold the GPU.
    process::kill_group(group);
    let stderr = stderr.finish(Duration::from_millis(500));
    let tail = tail_lines(&stderr, STDERR_TAIL_LINES);
    let (ending, ending_detail) = match (&killed_after, status) {
        (Some(killed), _) => (Ending::TimedOut, killed.clone()),
        (None, Some(status)) if status.signal().is_some() => (Ending::Crashed, process::describe_status(&status)),
        (None, Some(status)) if done && status.success() => (Ending::Completed, process::describe_status(&status)),
        (None, Some(status)) => (Ending::Exited, process::describe_status(&status)),
        (None, None) => (
            Ending::TimedOut,
            format!(
                "killed {} s after it closed its output",
                format_seconds(EXIT_GRACE.as_secs_f64())
            ),
        ),
    };
    if let Some(step) = running.take() {
        // The process ended in the middle of a step: that step is the one that broke.
        let step = died_during(step, &ending_detail, status, &stderr, &tail);
        observer.ended(&step);
        steps.push(step);
    }
    let keep_tail = ending != Ending::Completed || steps.iter().any(|step| step.status == Status::Fail);
    Ok(SmokeRun {
        python: options.python.clone(),
        timeout_s: options.timeout.as_secs_f64(),
        deep: options.deep,
        duration_ms: began.elapsed().as_millis() as u64,
        ending,
        ending_detail,
        steps,
        stderr_tail: if keep_tail { tail } else { String::new() },
    })
}

/// Writes the package into a fresh temporary directory, removed when dropped.
fn unpack() -> Result<tempfile::TempDir, SmokeError> {
    let directory = tempfile::Builder::new()
        .prefix("envdoctor-smoke-")
        .tempdir()
        .map_err(SmokeError::Unpack)?;
    let package = directory.path().join("envdoctor_smoke");
    std::fs::create_dir(&package).map_err(SmokeError::Unpack)?;
    for (name, contents) in SCRIPT {
        std::fs::write(package.join(name), contents).map_err(SmokeError::Unpack)?;
    }
    Ok(directory)
}

fn command(python: &Path, directory: &Path, deep: bool) -> Command {
    let mut command = Command::new(python);
    // faulthandler prints the Python stack of a crash (SIGSEGV, SIGABRT, SIGBUS)
    // to stderr before the signal kills the process: the crash's own last words.
    command.args(["-X", "faulthandler", "-m", "envdoctor_smoke"]);
    if deep {
        command.arg("--deep");
    }
    // PYTHONPATH rather than the working directory, so that the worker
    // processes find the package too, and PYTHONSAFEPATH cannot hide it. The
    // user's own PYTHONPATH stays after it: the job would see it.
    let mut search_path = OsString::from(directory);
    if let Some(user) = std::env::var_os("PYTHONPATH").filter(|value| !value.is_empty()) {
        search_path.push(":");
        search_path.push(user);
    }
    command
        .env("PYTHONPATH", search_path)
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // A module in the user's working directory must not shadow torch here.
        .current_dir(directory)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    command
}

/// Stdout, line by line, on a channel that closes at end of file.
fn read_lines(stdout: Option<std::process::ChildStdout>) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    if let Some(stdout) = stdout {
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
    }
    receiver
}

/// Waits up to `grace` for the child to exit; `None` if it did not.
fn wait(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(20)),
            Ok(None) | Err(_) => {
                process::kill_group(child.id() as libc::pid_t);
                let _ = child.wait();
                return None;
            }
        }
    }
}

fn timed_out(step: Running, seconds: f64) -> Step {
    Step {
        gpu: step.started.gpu,
        duration_ms: step.at.elapsed().as_millis() as u64,
        detail: format!(
            "no answer within {} s: envdoctor killed the smoke test and every process it started",
            format_seconds(seconds)
        ),
        status: Status::Timeout,
        name: step.started.step,
        title: step.started.title,
        figures: Default::default(),
        error: None,
    }
}

fn died_during(step: Running, ending: &str, status: Option<ExitStatus>, stderr: &[u8], stderr_tail: &str) -> Step {
    let signal = status.and_then(|status| status.signal());
    let last_words = match signal {
        Some(_) => crash_words(&String::from_utf8_lossy(stderr)),
        None => process::last_line(stderr),
    }
    .unwrap_or_default();
    Step {
        gpu: step.started.gpu,
        duration_ms: step.at.elapsed().as_millis() as u64,
        detail: match signal {
            Some(_) => format!("the interpreter crashed ({ending}) during this step"),
            None => format!("the interpreter ended ({ending}) during this step: {last_words}"),
        },
        status: Status::Fail,
        name: step.started.step,
        title: step.started.title,
        figures: Default::default(),
        error: Some(StepError {
            kind: signal.map_or_else(|| "exit".to_string(), process::signal_name),
            message: last_words,
            traceback: stderr_tail.to_string(),
        }),
    }
}

/// What faulthandler says of a crash: its "Fatal Python error: Segmentation
/// fault" line and the innermost Python frame, which it prints first (the last
/// lines are the outermost frame, or the list of loaded extension modules).
fn crash_words(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    let at = lines.iter().rposition(|line| line.starts_with("Fatal Python error:"))?;
    let fatal = lines[at];
    let innermost = lines[at..].iter().find(|line| line.starts_with("File \""));
    Some(match innermost {
        Some(frame) => format!("{fatal}, in {frame}"),
        None => fatal.to_string(),
    })
}

fn tail_lines(bytes: &[u8], count: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

fn format_seconds(seconds: f64) -> String {
    if seconds.fract() == 0.0 {
        format!("{seconds:.0}")
    } else {
        format!("{seconds:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_is_told_by_faulthandler_s_first_words_and_innermost_frame() {
        let stderr = "noise\nFatal Python error: Segmentation fault\n\nCurrent thread 0x7f (most recent call first):\n  \
            File \"/v/torch/cuda/__init__.py\", line 11 in is_available\n  File \"<frozen runpy>\", line 198 in \
            _run_module_as_main\n\nExtension modules: numpy.core (total: 1)\n";
        assert_eq!(
            crash_words(stderr).unwrap(),
            "Fatal Python error: Segmentation fault, in File \"/v/torch/cuda/__init__.py\", line 11 in is_available"
        );
        assert_eq!(crash_words("Segmentation fault (core dumped)"), None);
    }

    #[test]
    fn the_tail_is_the_last_lines() {
        assert_eq!(tail_lines(b"a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail_lines(b"a", 5), "a");
    }

    #[test]
    fn the_package_is_complete() {
        let directory = unpack().unwrap();
        for (name, _) in SCRIPT {
            assert!(directory.path().join("envdoctor_smoke").join(name).is_file(), "{name}");
        }
    }
}
