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

use super::events::{self, Ended, Event, Started};
use super::progress::Observer;
use super::{Ending, SmokeRun, Status, Step, StepError};
use crate::process::{self, PipeReader};

/// The files of the package under `script/envdoctor_smoke/`, compiled in.
macro_rules! embedded {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("script/envdoctor_smoke/", $name)))),*]
    };
}

/// The package `python -m envdoctor_smoke` runs, as (file name, contents).
const SCRIPT: [(&str, &str); 10] = embedded![
    "__init__.py",
    "__main__.py",
    "protocol.py",
    "torch_steps.py",
    "library_steps.py",
    "bitsandbytes_steps.py",
    "peft_steps.py",
    "deepspeed_steps.py",
    "deepspeed_config.py",
    "workers.py",
];

/// Inside the temporary folder, so that removing it removes everything the
/// test wrote: scratch files (the DeepSpeed configs it runs, NVMe offload
/// swap) and the JIT builds of DeepSpeed's ops.
const SCRATCH: &str = "scratch";
const TORCH_EXTENSIONS: &str = "torch_extensions";
const JOB_DEEPSPEED_CONFIG: &str = "job_deepspeed_config.json";

/// How often the harness looks whether envdoctor was interrupted while it
/// waits for the test's next line.
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// How much of stderr is kept: enough for a Python traceback and the
/// faulthandler dump of a crash, bounded against a library that logs without end.
const STDERR_KEPT: usize = 64 * 1024;
const STDERR_TAIL_LINES: usize = 30;

/// How long a process that closed its event channel may take to exit (CUDA
/// teardown) before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// How long a killed process may take to be reaped before it is left behind.
const KILL_GRACE: Duration = Duration::from_secs(5);

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
    /// Also run the long steps (DeepSpeed ZeRO runs with CPU optimizer offload).
    pub deep: bool,
    /// The job's DeepSpeed config: with `deep`, the ZeRO step runs it instead
    /// of the built-in ones.
    pub deepspeed_config: Option<crate::configs::JobDeepSpeed>,
}

#[derive(Debug, thiserror::Error)]
pub enum SmokeError {
    #[error("cannot write the smoke test to a temporary directory (under {})", std::env::temp_dir().display())]
    Unpack(#[source] std::io::Error),
    #[error("cannot start `{}`", .python.display())]
    Spawn {
        python: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "interrupted by {}: the smoke test and every process it started were killed, and its temporary folder removed",
        process::signal_name(*.signal)
    )]
    Interrupted { signal: libc::c_int },
}

/// The step that has started and not yet ended.
struct Running {
    started: Started,
    at: Instant,
}

impl Running {
    /// When the step's own deadline passes (never before the run's, if that is sooner).
    fn deadline(&self, run_deadline: Instant) -> Instant {
        Duration::try_from_secs_f64(self.started.deadline_s)
            .ok()
            .and_then(|allowed| self.at.checked_add(allowed))
            .map_or(run_deadline, |own| own.min(run_deadline))
    }
}

/// Why the harness stopped reading events.
enum Stop {
    /// The script said every stage ran.
    Done,
    /// Its output closed: it is exiting, or has.
    Closed,
    /// A deadline passed and the group was killed; what to say about it.
    Killed(String),
}

/// The events read so far, turned into steps as they end.
struct Follower<'a> {
    steps: Vec<Step>,
    running: Option<Running>,
    /// Libraries a thread of the test is importing beside the running step.
    importing: Vec<String>,
    observer: &'a mut dyn Observer,
}

impl Follower<'_> {
    fn follow(
        &mut self,
        lines: &mpsc::Receiver<String>,
        group: libc::pid_t,
        run_deadline: Instant,
        guard: &process::SignalGuard,
    ) -> Result<Stop, libc::c_int> {
        loop {
            // A signal to envdoctor: the group is killed, and the signal is the answer.
            if let Some(signal) = guard.interrupted() {
                process::kill_group(group);
                return Err(signal);
            }
            let until = self
                .running
                .as_ref()
                .map_or(run_deadline, |step| step.deadline(run_deadline));
            let wait = until.saturating_duration_since(Instant::now());
            match lines.recv_timeout(wait.min(INTERRUPT_POLL)) {
                Ok(line) => match events::parse(&line) {
                    Some(Event::Start(started)) => self.start(started),
                    Some(Event::End(ended)) => self.end(ended),
                    Some(Event::Background(background)) => {
                        self.importing = if background.state == "start" {
                            background.imports
                        } else {
                            Vec::new()
                        }
                    }
                    Some(Event::Done) => return Ok(Stop::Done),
                    None => {}
                },
                Err(RecvTimeoutError::Timeout) if Instant::now() < until => {}
                Err(RecvTimeoutError::Timeout) => {
                    process::kill_group(group);
                    let whole_run = Instant::now() >= run_deadline;
                    let Some(step) = self.running.take() else {
                        return Ok(Stop::Killed(
                            "killed when the run's deadline passed between two steps".to_string(),
                        ));
                    };
                    let said = if whole_run {
                        "the whole run's deadline passed during this step".to_string()
                    } else {
                        format!("no answer within {} s", format_seconds(step.started.deadline_s))
                    };
                    self.push(timed_out(step, &said));
                    return Ok(Stop::Killed(format!("killed: {said}")));
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(Stop::Closed),
            }
        }
    }

    fn start(&mut self, started: Started) {
        if let Some(previous) = self.running.take() {
            // The script moved on without ending it: report it, do not lose it.
            let detail = format!("the step sent no end event before `{}` started", started.step);
            self.push(unfinished(previous, Status::Fail, detail, None));
        }
        self.observer.started(&started.step, &started.title);
        self.running = Some(Running {
            started,
            at: Instant::now(),
        });
    }

    fn end(&mut self, ended: Ended) {
        let (title, gpu) = match self.running.take() {
            Some(step) if step.started.step == ended.step => (step.started.title, step.started.gpu),
            // An end for another step: the running one keeps its deadline.
            other => {
                self.running = other;
                (ended.step.clone(), None)
            }
        };
        self.push(Step {
            name: ended.step,
            title,
            status: ended.status,
            duration_ms: ended.duration_ms,
            detail: ended.detail,
            gpu,
            figures: ended.figures,
            error: ended.error,
        });
    }

    fn push(&mut self, step: Step) {
        self.observer.ended(&step);
        self.steps.push(step);
    }
}

pub fn run(options: &Options, observer: &mut dyn Observer) -> Result<SmokeRun, SmokeError> {
    // Ctrl-C or a scheduler's SIGTERM must not leave the test running on the
    // GPUs, nor its folder behind: the guard comes before the folder.
    let guard = process::SignalGuard::install();
    let directory = unpack(options.deepspeed_config.as_ref())?;
    if let Some(signal) = guard.interrupted() {
        return Err(SmokeError::Interrupted { signal });
    }
    let began = Instant::now();
    let mut child = process::spawn(&mut command(options, directory.path())).map_err(|source| SmokeError::Spawn {
        python: options.python.clone(),
        source,
    })?;
    let group = child.id() as libc::pid_t;
    guard.watch(group);
    let stderr = PipeReader::start_bounded(child.stderr.take(), STDERR_KEPT);
    let lines = read_lines(child.stdout.take());

    let run_deadline = began + options.timeout;
    let mut follower = Follower {
        steps: Vec::new(),
        running: None,
        importing: Vec::new(),
        observer,
    };
    let stop = match follower.follow(&lines, group, run_deadline, &guard) {
        Ok(stop) => stop,
        Err(signal) => return Err(abandon(&mut child, directory, signal)),
    };
    let grace = EXIT_GRACE.min(run_deadline.saturating_duration_since(Instant::now()));
    let status = wait(&mut child, grace);
    // Also after a clean exit: a worker left behind would hold the GPU.
    process::kill_group(group);
    // The handler's kill closes the test's output, which can reach the
    // follower before it looks at the signal; or the signal came during the wait.
    if let Some(signal) = guard.interrupted() {
        return Err(abandon(&mut child, directory, signal));
    }
    let stderr = stderr.finish(Duration::from_millis(500));
    let tail = tail_lines(&stderr, STDERR_TAIL_LINES);
    let waited = format_seconds(grace.as_secs_f64());
    let (ending, ending_detail) = match (stop, status) {
        (Stop::Killed(killed), _) => (Ending::TimedOut, killed),
        (_, Some(status)) if status.signal().is_some() => (Ending::Crashed, process::describe_status(&status)),
        (Stop::Done, Some(status)) if status.success() => (Ending::Completed, process::describe_status(&status)),
        (_, Some(status)) => (Ending::Exited, process::describe_status(&status)),
        (Stop::Done, None) => (
            Ending::TimedOut,
            format!("killed: it did not exit within {waited} s after its last step (CUDA or NCCL teardown hung)"),
        ),
        (Stop::Closed, None) => (
            Ending::TimedOut,
            format!("killed {waited} s after it closed its output"),
        ),
    };
    let mut ended_during = follower
        .steps
        .iter()
        .find(|s| s.status == Status::Timeout)
        .map(|s| s.name.clone());
    if let Some(step) = follower.running.take() {
        // The process ended in the middle of a step: that step is the one that broke.
        ended_during = Some(step.started.step.clone());
        let mut died = died_during(step, &ending_detail, status, &stderr, &tail);
        if !follower.importing.is_empty() {
            // The crash may be the import's, not the step's: faulthandler's
            // stack in the stderr tail shows which thread it was.
            died.detail.push_str(&format!(
                " (while {} was being imported on another thread of the test; the stack in the stderr tail shows which thread crashed)",
                follower.importing.join(", ")
            ));
        }
        follower.push(died);
    }
    let steps = follower.steps;
    let keep_tail = ending != Ending::Completed || steps.iter().any(|step| step.status == Status::Fail);
    Ok(SmokeRun {
        python: options.python.clone(),
        timeout_s: options.timeout.as_secs_f64(),
        deep: options.deep,
        duration_ms: began.elapsed().as_millis() as u64,
        ending,
        ending_detail,
        ended_during,
        steps,
        stderr_tail: if keep_tail { tail } else { String::new() },
    })
}

/// After envdoctor was interrupted: the test's group (already killed) reaped or
/// given up on, then its folder removed, so that nothing of the test writes
/// into the folder after it is gone.
fn abandon(child: &mut Child, directory: tempfile::TempDir, signal: libc::c_int) -> SmokeError {
    process::kill_group(child.id() as libc::pid_t);
    wait(child, Duration::ZERO);
    drop(directory);
    SmokeError::Interrupted { signal }
}

/// Writes the package (and the job's DeepSpeed config, if one was given)
/// into a fresh temporary directory, removed when dropped.
fn unpack(deepspeed_config: Option<&crate::configs::JobDeepSpeed>) -> Result<tempfile::TempDir, SmokeError> {
    let directory = tempfile::Builder::new()
        .prefix("envdoctor-smoke-")
        .tempdir()
        .map_err(SmokeError::Unpack)?;
    let package = directory.path().join("envdoctor_smoke");
    std::fs::create_dir(&package).map_err(SmokeError::Unpack)?;
    for (name, contents) in SCRIPT {
        std::fs::write(package.join(name), contents).map_err(SmokeError::Unpack)?;
    }
    for folder in [SCRATCH, TORCH_EXTENSIONS] {
        std::fs::create_dir(directory.path().join(folder)).map_err(SmokeError::Unpack)?;
    }
    if let Some(job) = deepspeed_config {
        std::fs::write(directory.path().join(JOB_DEEPSPEED_CONFIG), job.document.to_string())
            .map_err(SmokeError::Unpack)?;
    }
    Ok(directory)
}

fn command(options: &Options, directory: &Path) -> Command {
    // Absolute: the test runs in its own folder, where a relative path to the
    // interpreter (`--python venv/bin/python`) would name nothing.
    let python = std::path::absolute(&options.python).unwrap_or_else(|_| options.python.clone());
    let mut command = Command::new(python);
    // faulthandler prints the Python stack of a crash (SIGSEGV, SIGABRT, SIGBUS)
    // to stderr before the signal kills the process: the crash's own last words.
    command.args(["-X", "faulthandler", "-m", "envdoctor_smoke"]);
    if options.deep {
        command.arg("--deep");
    }
    if let Some(job) = &options.deepspeed_config {
        command
            .arg("--deepspeed-config")
            .arg(directory.join(JOB_DEEPSPEED_CONFIG))
            .arg("--deepspeed-config-source")
            .arg(&job.source);
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
        .env("ENVDOCTOR_SMOKE_SCRATCH", directory.join(SCRATCH))
        // A JIT build of DeepSpeed's cpu_adam starts from scratch, as a new
        // job's would, and goes where the folder's removal takes it.
        .env("TORCH_EXTENSIONS_DIR", directory.join(TORCH_EXTENSIONS))
        // A module in the user's working directory must not shadow torch here.
        .current_dir(directory)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    command
}

/// Stdout, line by line, on a channel that closes at end of file. A line that
/// is not UTF-8 is read lossily rather than taken for the end.
fn read_lines(stdout: Option<std::process::ChildStdout>) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    if let Some(stdout) = stdout {
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            while matches!(reader.read_until(b'\n', &mut line), Ok(1..)) {
                let text = String::from_utf8_lossy(&line).trim_end().to_string();
                line.clear();
                if sender.send(text).is_err() {
                    break;
                }
            }
        });
    }
    receiver
}

/// Waits up to `grace` for the child to exit; `None` if it did not, and then it
/// is killed. A process stuck in the driver cannot even be reaped until the
/// driver lets go, so the wait after the kill is bounded too.
fn wait(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let poll = |child: &mut Child, until: Instant| loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(20)),
            Ok(None) | Err(_) => return None,
        }
    };
    let status = poll(child, Instant::now() + grace);
    if status.is_none() {
        process::kill_group(child.id() as libc::pid_t);
        poll(child, Instant::now() + KILL_GRACE);
    }
    status
}

fn timed_out(step: Running, said: &str) -> Step {
    let detail = format!("{said}: envdoctor killed the smoke test and every process it started");
    unfinished(step, Status::Timeout, detail, None)
}

/// A step that never sent its end: what the harness knows of it.
fn unfinished(step: Running, status: Status, detail: String, error: Option<StepError>) -> Step {
    Step {
        gpu: step.started.gpu,
        duration_ms: step.at.elapsed().as_millis() as u64,
        detail,
        status,
        name: step.started.step,
        title: step.started.title,
        figures: Default::default(),
        error,
    }
}

fn died_during(step: Running, ending: &str, status: Option<ExitStatus>, stderr: &[u8], stderr_tail: &str) -> Step {
    let signal = status.and_then(|status| status.signal());
    let last_words = match signal {
        Some(_) => crash_words(&String::from_utf8_lossy(stderr)),
        None => process::failure_line(stderr),
    }
    .unwrap_or_default();
    let detail = match signal {
        Some(_) => format!("the interpreter crashed ({ending}) during this step"),
        None => format!("the interpreter ended ({ending}) during this step: {last_words}"),
    };
    let error = StepError {
        kind: signal.map_or_else(|| "exit".to_string(), process::signal_name),
        message: last_words,
        traceback: stderr_tail.to_string(),
    };
    unfinished(step, Status::Fail, detail, Some(error))
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

    /// Runs the harness on a shell script standing in for the interpreter, to
    /// drive it through event orders and endings a real script should never produce.
    fn run_script(body: &str, timeout_s: u64) -> SmokeRun {
        let directory = tempfile::tempdir().unwrap();
        let python = directory.path().join("python");
        std::fs::write(&python, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let options = Options {
            python,
            timeout: Duration::from_secs(timeout_s),
            deep: false,
            deepspeed_config: None,
        };
        // Another test's fork can briefly hold the script open for writing (ETXTBSY).
        for _ in 0..20 {
            match run(&options, &mut super::super::progress::Quiet) {
                Err(SmokeError::Spawn { source, .. }) if source.raw_os_error() == Some(libc::ETXTBSY) => {
                    thread::sleep(Duration::from_millis(50))
                }
                outcome => return outcome.unwrap(),
            }
        }
        panic!("{} stayed busy", options.python.display())
    }

    const START_A: &str = r#"echo '{"event": "start", "step": "a", "title": "A", "deadline_s": 1}'"#;
    const END_A: &str = r#"echo '{"event": "end", "step": "a", "status": "pass", "duration_ms": 1}'"#;
    const DONE: &str = r#"echo '{"event": "done"}'"#;

    #[test]
    fn a_crash_after_the_last_step_is_not_a_completed_run() {
        let run = run_script(&format!("{START_A}\n{END_A}\n{DONE}\nkill -SEGV $$"), 20);
        assert_eq!(run.ending, Ending::Crashed);
        assert_eq!(run.ended_during, None);
        assert_eq!(run.steps.len(), 1);
    }

    #[test]
    fn a_crash_while_a_library_is_imported_beside_a_step_says_so() {
        let background = r#"echo '{"event": "background", "imports": ["peft"], "state": "start"}'"#;
        let run = run_script(&format!("{background}\n{START_A}\nkill -SEGV $$"), 20);
        assert_eq!(run.ending, Ending::Crashed);
        assert!(
            run.steps[0]
                .detail
                .contains("while peft was being imported on another thread"),
            "{}",
            run.steps[0].detail
        );
        // Once the import ended, a crash is the step's own.
        let ended = background.replace("start", "end");
        let run = run_script(&format!("{background}\n{ended}\n{START_A}\nkill -SEGV $$"), 20);
        assert!(!run.steps[0].detail.contains("imported"), "{}", run.steps[0].detail);
    }

    #[test]
    fn a_hang_after_the_last_step_is_killed_and_said() {
        let run = run_script(&format!("{START_A}\n{END_A}\n{DONE}\nexec sleep 60"), 2);
        assert_eq!(run.ending, Ending::TimedOut);
        assert!(
            run.ending_detail.contains("after its last step"),
            "{}",
            run.ending_detail
        );
        assert_eq!(run.ended_during, None);
    }

    #[test]
    fn a_step_without_an_end_is_kept_and_a_foreign_end_does_not_lift_its_deadline() {
        let start_b = START_A.replace("\"a\"", "\"b\"");
        let run = run_script(
            &format!(
                "{START_A}\n{start_b}\necho '{{\"event\": \"end\", \"step\": \"x\", \"status\": \"pass\", \"duration_ms\": 1}}'\nexec sleep 60"
            ),
            20,
        );
        let names: Vec<(&str, Status)> = run.steps.iter().map(|step| (step.name.as_str(), step.status)).collect();
        assert_eq!(
            names,
            [("a", Status::Fail), ("x", Status::Pass), ("b", Status::Timeout)]
        );
        assert_eq!(run.ended_during.as_deref(), Some("b"));
        assert!(
            run.steps[2].detail.starts_with("no answer within 1 s"),
            "{}",
            run.steps[2].detail
        );
    }

    #[test]
    fn an_absurd_deadline_or_a_line_that_is_not_utf8_breaks_nothing() {
        let start = START_A.replace("\"deadline_s\": 1", "\"deadline_s\": 1e300");
        let run = run_script(&format!("printf '\\377\\n'\n{start}\n{END_A}\n{DONE}"), 20);
        assert_eq!(run.ending, Ending::Completed, "{run:?}");
        assert_eq!(run.steps[0].status, Status::Pass);
    }

    #[test]
    fn the_tail_is_the_last_lines() {
        assert_eq!(tail_lines(b"a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail_lines(b"a", 5), "a");
    }

    #[test]
    fn the_package_is_complete() {
        let directory = unpack(None).unwrap();
        for (name, _) in SCRIPT {
            assert!(directory.path().join("envdoctor_smoke").join(name).is_file(), "{name}");
        }
    }
}
