//! Running a child process under a deadline.
//!
//! The child gets its own process group so that a deadline kills everything it
//! started (a shell wrapper's `sleep`, a pyenv shim's interpreter), not only the
//! direct child: a grandchild that kept our pipes open would otherwise hang us.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

/// What a child printed and how it ended.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot start the process")]
    Spawn(#[source] std::io::Error),
    #[error("no answer within {seconds} s")]
    TimedOut {
        seconds: f64,
        /// What the child printed before it was killed.
        partial_stdout: Vec<u8>,
    },
}

/// How long to wait, after the child has exited, for its pipes to reach end of
/// file. Longer only happens when a grandchild escaped the process group (with
/// `setsid`) and still holds them; then what was read so far is the answer.
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// Starts `command`, again after a moment while the kernel answers ETXTBSY
/// ("Text file busy"): a program written just before it runs (an installer's
/// fresh binary, a test's script) can still be open for writing in a child
/// that another thread forked and has not yet exec'd, and that lasts no longer.
pub fn spawn(command: &mut Command) -> std::io::Result<std::process::Child> {
    const ATTEMPTS: u32 = 5;
    let mut attempt = 1;
    loop {
        match command.spawn() {
            Err(error) if error.raw_os_error() == Some(libc::ETXTBSY) && attempt < ATTEMPTS => {
                thread::sleep(Duration::from_millis(20 * u64::from(attempt)));
                attempt += 1;
            }
            spawned => return spawned,
        }
    }
}

/// Runs `command` with stdin closed, collecting stdout and stderr, and kills its
/// whole process group if it has not exited by `deadline`.
pub fn run_with_deadline(mut command: Command, deadline: Duration) -> Result<Finished, RunError> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = spawn(&mut command).map_err(RunError::Spawn)?;
    let group = child.id() as libc::pid_t;
    let stdout = PipeReader::start(child.stdout.take());
    let stderr = PipeReader::start(child.stderr.take());

    let (exited_tx, exited) = mpsc::channel();
    thread::spawn(move || {
        let _ = exited_tx.send(child.wait());
    });

    let status = exited.recv_timeout(deadline);
    // Also after a normal exit: a straggler left in the group would hold our
    // pipes open and turn a finished question into a hang.
    kill_group(group);
    match status {
        Ok(Ok(status)) => Ok(Finished {
            status,
            stdout: stdout.finish(PIPE_GRACE),
            stderr: stderr.finish(PIPE_GRACE),
        }),
        Ok(Err(error)) => Err(RunError::Spawn(error)),
        Err(_) => {
            // Reap the killed child so it does not linger as a zombie.
            let _ = exited.recv_timeout(Duration::from_secs(1));
            Err(RunError::TimedOut {
                seconds: deadline.as_secs_f64(),
                partial_stdout: stdout.finish(PIPE_GRACE),
            })
        }
    }
}

/// Reads a pipe on its own thread into a buffer that can be taken at any time,
/// so that output already read is never lost to a pipe that stays open.
pub(crate) struct PipeReader {
    buffer: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl PipeReader {
    pub(crate) fn start(pipe: Option<impl Read + Send + 'static>) -> PipeReader {
        PipeReader::start_bounded(pipe, usize::MAX)
    }

    /// Keeps only the last `keep` bytes: for a child that may write without end.
    pub(crate) fn start_bounded(pipe: Option<impl Read + Send + 'static>, keep: usize) -> PipeReader {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let (done_tx, done) = mpsc::channel();
        if let Some(mut pipe) = pipe {
            let buffer = Arc::clone(&buffer);
            thread::spawn(move || {
                let mut chunk = [0u8; 8192];
                while let Ok(read @ 1..) = pipe.read(&mut chunk) {
                    let mut buffer = buffer.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    buffer.extend_from_slice(&chunk[..read]);
                    let excess = buffer.len().saturating_sub(keep);
                    buffer.drain(..excess);
                }
                let _ = done_tx.send(());
            });
        }
        PipeReader { buffer, done }
    }

    pub(crate) fn finish(self, grace: Duration) -> Vec<u8> {
        let _ = self.done.recv_timeout(grace);
        std::mem::take(&mut *self.buffer.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

pub(crate) fn kill_group(group: libc::pid_t) {
    // SAFETY: kill(2) with a negative pid signals a process group; it touches no
    // memory of ours. ESRCH (group already gone) is the common, harmless case.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// The process group to kill if envdoctor itself is interrupted; 0 for none.
static GUARDED_GROUP: AtomicI32 = AtomicI32::new(0);
/// The signal that interrupted envdoctor while a guard was installed; 0 for none.
static INTERRUPTED_BY: AtomicI32 = AtomicI32::new(0);

const GUARDED_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn kill_guarded_group(signal: libc::c_int) {
    let group = GUARDED_GROUP.load(Ordering::SeqCst);
    // SAFETY: kill, signal and raise are async-signal-safe, and so are atomics.
    unsafe {
        if group > 0 {
            libc::kill(-group, libc::SIGKILL);
        }
        // A second signal while the first is being cleaned up after: the user
        // insists, and envdoctor dies of it as it would have without us.
        if INTERRUPTED_BY.swap(signal, Ordering::SeqCst) != 0 {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// The one way envdoctor cleans up when it is told to stop: while a guard is
/// alive, SIGINT, SIGTERM and SIGHUP are remembered instead of ending the
/// process, and kill the watched process group, if one is watched, at once.
/// The caller polls [`SignalGuard::interrupted`], removes what it made (the
/// smoke test's temporary folder, `atomic_write`'s temporary file) and ends by
/// [`die_of`], so the sender still sees the signal. A child in its own process
/// group does not get the terminal's Ctrl-C, and a scheduler's SIGTERM would
/// otherwise leave it running on the GPUs.
pub(crate) struct SignalGuard;

/// How many guards are alive: the handlers are installed by the first and
/// the default restored by the last, so that guards in several threads (the
/// index cache's writes) do not undo each other.
static GUARDS_ALIVE: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

impl SignalGuard {
    /// Installed before anything is made that must be cleaned up, so that no
    /// signal falls between the making and the guarding.
    pub(crate) fn install() -> SignalGuard {
        let mut alive = GUARDS_ALIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if *alive == 0 {
            GUARDED_GROUP.store(0, Ordering::SeqCst);
            INTERRUPTED_BY.store(0, Ordering::SeqCst);
            let handler = kill_guarded_group as extern "C" fn(libc::c_int) as libc::sighandler_t;
            for signal in GUARDED_SIGNALS {
                // SAFETY: installs a handler that only calls async-signal-safe functions.
                unsafe {
                    libc::signal(signal, handler);
                }
            }
        }
        *alive += 1;
        SignalGuard
    }

    /// From now on a signal kills `group`; one that came before kills it now.
    pub(crate) fn watch(&self, group: libc::pid_t) {
        GUARDED_GROUP.store(group, Ordering::SeqCst);
        if self.interrupted().is_some() {
            kill_group(group);
        }
    }

    /// The signal that arrived while the guard was installed, if one did.
    pub(crate) fn interrupted(&self) -> Option<libc::c_int> {
        match INTERRUPTED_BY.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(signal),
        }
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        let mut alive = GUARDS_ALIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *alive = alive.saturating_sub(1);
        if *alive > 0 {
            return;
        }
        GUARDED_GROUP.store(0, Ordering::SeqCst);
        for signal in GUARDED_SIGNALS {
            // SAFETY: restores the default disposition; no handler of ours runs after this.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
    }
}

/// Ends envdoctor by `signal`, as the signal would have without a handler, so
/// that the shell, `timeout` or the scheduler that sent it sees it in the exit
/// status (128 + the signal's number).
pub fn die_of(signal: libc::c_int) -> ! {
    // SAFETY: restoring the default disposition and raising touch no memory of ours.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
    // A signal that is blocked or ignored in this process: the conventional status instead.
    std::process::exit(128 + signal)
}

/// How a process ended, in words: `exit status 3` or `signal SIGSEGV`.
pub fn describe_status(status: &ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("signal {}", signal_name(signal)),
        (None, None) => "an unknown status".to_string(),
    }
}

pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        libc::SIGPIPE => "SIGPIPE",
        // `describe_status` already says "signal": the number alone.
        _ => return signal.to_string(),
    };
    name.to_string()
}

/// The line of a child's stderr that says what failed, for one-line error
/// messages: the last one naming an error, else the last non-empty one.
pub fn failure_line(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    // A Python traceback ends with its error, but a wrapper's error may come
    // first and be followed by advice (pyenv: "pyenv: python2: command not
    // found", then which versions have it): the last line that says what went
    // wrong, else the last line.
    let says_what_failed = |line: &&&str| {
        let lower = line.to_lowercase();
        [
            "error",
            "not found",
            "no such",
            "cannot",
            "can't",
            "denied",
            "failed",
            "not installed",
        ]
        .iter()
        .any(|word| lower.contains(word))
    };
    let line = lines.iter().rfind(says_what_failed).or(lines.last())?;
    Some(line.chars().take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CI met ETXTBSY once: a test's fresh script was still open for writing
    /// in a child another test thread had forked. Held open here on purpose,
    /// and closed a moment later, the script still starts.
    #[test]
    fn a_program_still_open_for_writing_starts_once_it_is_closed() {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tool");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o755)
            .open(&script)
            .unwrap();
        file.write_all(b"#!/bin/sh\nexit 0\n").unwrap();
        let held = thread::spawn(move || {
            thread::sleep(Duration::from_millis(30));
            drop(file);
        });
        let mut child = spawn(&mut Command::new(&script)).unwrap();
        assert!(child.wait().unwrap().success());
        held.join().unwrap();
    }

    #[test]
    fn the_line_that_says_what_failed_is_kept_over_advice_after_it() {
        let pyenv = b"pyenv: python2: command not found\n\nThe `python2' command exists in these Python versions:\n  \
                      2.7.18\n\nNote: See 'pyenv help global' for tips on allowing multiple\n      \
                      Python versions to be found at the same time.\n";
        assert_eq!(failure_line(pyenv).unwrap(), "pyenv: python2: command not found");
        let traceback = b"Traceback (most recent call last):\n  File \"x\", line 1\nImportError: no module\n";
        assert_eq!(failure_line(traceback).unwrap(), "ImportError: no module");
        assert_eq!(failure_line(b"just this\n\n").unwrap(), "just this");
        assert_eq!(failure_line(b"\n \n"), None);
    }

    /// The smoke test's "did not finish" finding quotes this line of the
    /// child's stderr tail: for a crash, faulthandler's verdict rather than
    /// the innermost frame it printed after it.
    #[test]
    fn a_crash_is_named_by_faulthandlers_verdict_not_its_last_frame() {
        let crash =
            b"Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f3a (most recent call first):\n  \
                      File \"/venv/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 319 in _lazy_init\n  \
                      File \"<string>\", line 1 in <module>\n";
        assert_eq!(failure_line(crash).unwrap(), "Fatal Python error: Segmentation fault");
    }

    fn shell(script: &str) -> Command {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn collects_output_and_status() {
        let finished = run_with_deadline(shell("echo out; echo err >&2; exit 3"), Duration::from_secs(5)).unwrap();
        assert_eq!(finished.stdout, b"out\n");
        assert_eq!(finished.stderr, b"err\n");
        assert_eq!(describe_status(&finished.status), "exit status 3");
    }

    #[test]
    fn deadline_kills_grandchildren_holding_the_pipe() {
        let started = std::time::Instant::now();
        let outcome = run_with_deadline(shell("sleep 30 & sleep 30"), Duration::from_millis(300));
        assert!(matches!(outcome, Err(RunError::TimedOut { .. })), "{outcome:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn output_is_kept_when_an_escaped_grandchild_holds_the_pipe() {
        // setsid puts the sleeper in a session of its own, out of reach of the
        // group kill; it keeps stdout open for 5 s.
        let started = std::time::Instant::now();
        let finished =
            run_with_deadline(shell("echo answer; setsid sleep 5 & exit 0"), Duration::from_secs(10)).unwrap();
        assert_eq!(finished.stdout, b"answer\n");
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    }

    #[test]
    fn an_unnamed_signal_is_its_number() {
        assert_eq!(signal_name(libc::SIGUSR1), libc::SIGUSR1.to_string());
    }

    #[test]
    fn names_the_signal_of_a_crash() {
        let finished = run_with_deadline(shell("kill -SEGV $$"), Duration::from_secs(5)).unwrap();
        assert_eq!(describe_status(&finished.status), "signal SIGSEGV");
    }
}
