//! Reports from every node of a Slurm allocation, through the scheduler's own
//! launcher: one `srun` step, one task per node, each running envdoctor there
//! and printing its report on standard output.
//!
//! `srun --label` prefixes every line a task prints with the task's number, so
//! one pipe carries every node's report; each task first prints the name of its
//! node (`$SLURMD_NODENAME`), so a node that then says nothing can be named. A
//! report is folded in as soon as its last brace arrives, so only reports in
//! flight are held. At the deadline the step is stopped the way Slurm expects,
//! by signalling `srun` (which cancels the step on every node), and every node
//! that has not answered is reported by name.
//!
//! Nothing needs to be installed on the nodes: unless `--envdoctor` names one
//! they have, srun's broadcast (`--bcast`) copies this very executable to each
//! node's local disk before the step starts, and the copy removes itself once
//! its report is out.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::documents::{Piece, Splitter};
use super::input::{self, Item, Raw};
use super::reports::GivenName;

/// What each node runs (`fleet --collect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Collect {
    Probe,
    Check,
}

#[derive(Debug)]
pub struct Options {
    /// Arguments for `srun` that select the nodes (`-N 3`, `-w n[1-3]`, `-p gpu`).
    pub srun_args: Vec<String>,
    /// The envdoctor each node runs.
    pub envdoctor: Envdoctor,
    pub collect: Collect,
    pub smoke: bool,
    pub python: Option<String>,
    pub deadline: Duration,
}

/// Where the nodes' envdoctor comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Envdoctor {
    /// This executable (`current_exe`), sent to every node by srun's broadcast.
    Broadcast(PathBuf),
    /// An envdoctor the nodes already have, at this path (`--envdoctor`).
    OnNodes(PathBuf),
}

/// Where the broadcast copy goes on each node. A folder (the trailing `/`) and
/// not a file name: srun then names the copy `slurm_bcast_<job>.<step>_<node>`,
/// so two runs at once, or two nodes that share a disk, never write over each
/// other's copy. /tmp is on every node's local disk; the default without a path
/// would be the working directory, often a shared filesystem. SRUN_ARGS come
/// after it, so a `--bcast=DIR/` there (for nodes whose /tmp is noexec) wins.
pub const BROADCAST_DIR: &str = "/tmp/";

/// How srun names the file it broadcasts into a folder.
const BROADCAST_PREFIX: &str = "slurm_bcast_";

/// The hidden flag the broadcast copy is started with: print the node header,
/// then remove the copy once done (Slurm 22.05 leaves it on the node).
pub const TASK_FLAG: &str = "--fleet-task";

/// The first line each task prints, before envdoctor starts.
const NODE_HEADER: &str = "envdoctor-node ";

/// How long to wait, once srun has exited, for the rest of its standard error.
const STDERR_GRACE: Duration = Duration::from_secs(2);

/// How long `srun` has to stop the step after SIGTERM before it is killed. It
/// takes milliseconds when its pipes are read (they are, to the end); killed,
/// srun's own helper still cancels the step within seconds.
const STOP_GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    #[error("cannot start `srun` (--slurm needs Slurm's srun on PATH)")]
    Spawn(#[source] std::io::Error),
    #[error("srun failed before any node answered: {0}")]
    Failed(String),
    #[error(
        "srun could not copy envdoctor to the nodes (--bcast): {0}; pass --envdoctor PATH to run an envdoctor the nodes have"
    )]
    Broadcast(String),
    #[error(
        "`{0}` cannot be passed to srun here: unbuffered output arrives in pieces whose task lines cannot be rebuilt"
    )]
    Unbuffered(String),
}

/// Task counts an enclosing job sets in the environment, which srun reads as
/// `-n` and `--ntasks-per-node`: inside `sbatch --ntasks-per-node=8` they would
/// ask for eight envdoctors per node, more than one per node allows, and srun
/// refuses the step (or runs two per node). The node count (`SLURM_NNODES`) is
/// kept: it is the allocation. `SLURM_UNBUFFEREDIO` is `-u`, which `collect`
/// cannot read (see `SlurmError::Unbuffered`).
const INHERITED_SETTINGS: [&str; 5] = [
    "SLURM_NTASKS",
    "SLURM_NPROCS",
    "SLURM_NTASKS_PER_NODE",
    "SLURM_TASKS_PER_NODE",
    "SLURM_UNBUFFEREDIO",
];

/// The command line, in full: what runs, on which nodes.
pub fn command(options: &Options) -> Command {
    let mut command = Command::new("srun");
    for name in INHERITED_SETTINGS {
        command.env_remove(name);
    }
    // --overlap: inside a job whose training step holds every CPU, the check
    // must still run now, not wait for the CPUs (Slurm 20.11 and later).
    command.args(["--overlap", "--ntasks-per-node=1", "--label", "--kill-on-bad-exit=0"]);
    match &options.envdoctor {
        Envdoctor::Broadcast(executable) => {
            // srun broadcasts the step's executable, so envdoctor itself is the
            // step (a shell in front would be what gets copied) and prints the
            // node header itself.
            command
                .arg(format!("--bcast={BROADCAST_DIR}"))
                .args(&options.srun_args)
                .arg(executable)
                .arg(TASK_FLAG);
        }
        Envdoctor::OnNodes(path) => {
            // Any program (an older envdoctor, a wrapper script): a shell prints the header.
            command.args(&options.srun_args).args([
                // An absolute path: with `--export=NONE` the task has no PATH.
                "/bin/sh",
                "-c",
                // `$0` and `$@` are envdoctor and its arguments, passed as words, never parsed by the shell.
                "printf 'envdoctor-node %s\\n' \"${SLURMD_NODENAME:-$(hostname)}\"; exec \"$0\" \"$@\"",
            ]);
            command.arg(path);
        }
    }
    command.args(remote_arguments(options));
    command
}

/// On a node, first thing in the broadcast copy (`--fleet-task`): the header the
/// shell prints for any other envdoctor, naming the node as Slurm does.
pub fn announce_node() {
    use std::io::Write;
    let node = std::env::var("SLURMD_NODENAME")
        .ok()
        .filter(|name| !name.trim().is_empty())
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .unwrap_or_default();
    let mut stdout = std::io::stdout().lock();
    // Nothing to do about a closed standard output: the report would not get out either.
    let _ = writeln!(stdout, "{NODE_HEADER}{}", node.trim());
    let _ = stdout.flush();
}

/// On a node, last thing in the broadcast copy: Slurm leaves the copy behind,
/// a file the size of envdoctor per node and run. It is removed at the end, not
/// the start, because the NVML probe starts this executable again by its path.
/// Only a file named as srun names broadcasts is removed, so the hidden flag
/// given by hand to an installed envdoctor removes nothing.
pub fn remove_broadcast_copy() {
    let Ok(executable) = std::env::current_exe() else {
        return;
    };
    let is_broadcast = executable
        .file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with(BROADCAST_PREFIX));
    if is_broadcast && let Err(error) = std::fs::remove_file(&executable) {
        eprintln!(
            "envdoctor: cannot remove the broadcast copy {}: {error}",
            executable.display()
        );
    }
}

fn remote_arguments(options: &Options) -> Vec<String> {
    let mut arguments = vec![
        match options.collect {
            Collect::Probe => "probe",
            Collect::Check => "check",
        }
        .to_string(),
        "--format".to_string(),
        "json".to_string(),
    ];
    if options.collect == Collect::Check && !options.smoke {
        arguments.push("--no-smoke".to_string());
    }
    if let Some(python) = &options.python {
        arguments.extend(["--python".to_string(), python.clone()]);
    }
    arguments
}

/// One task of the step, as far as it has got.
struct Task {
    node: Option<String>,
    splitter: Splitter,
    answered: bool,
    /// The last line the task wrote to standard error: why it failed, if it did.
    last_error: Option<String>,
    exit: Option<String>,
}

impl Default for Task {
    fn default() -> Task {
        Task {
            node: None,
            splitter: Splitter::new(),
            answered: false,
            last_error: None,
            exit: None,
        }
    }
}

enum Event {
    Stdout(Vec<u8>),
    Stderr(String),
    StdoutClosed,
}

/// Runs the step and hands on each node's report, or why there is none.
pub fn collect(options: &Options, sink: &mut dyn FnMut(Raw)) -> Result<(), SlurmError> {
    if let Some(unbuffered) = options
        .srun_args
        .iter()
        .find(|arg| *arg == "-u" || *arg == "--unbuffered")
    {
        return Err(SlurmError::Unbuffered(unbuffered.clone()));
    }
    let mut child = crate::process::spawn(
        command(options)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(SlurmError::Spawn)?;
    let (events, received) = mpsc::channel();
    forward_stdout(child.stdout.take().expect("piped"), events.clone());
    forward_stderr(child.stderr.take().expect("piped"), events);

    let deadline = Instant::now() + options.deadline;
    let mut tasks: BTreeMap<u32, Task> = BTreeMap::new();
    let mut srun_said: Vec<String> = Vec::new();
    let mut partial: Vec<u8> = Vec::new();
    let mut timed_out = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(Event::Stdout(chunk)) => {
                partial.extend_from_slice(&chunk);
                let complete = partial.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
                for line in partial[..complete].split(|&byte| byte == b'\n') {
                    stdout_line(line, &mut tasks, sink);
                }
                partial.drain(..complete);
            }
            Ok(Event::Stderr(line)) => stderr_line(line, &mut tasks, &mut srun_said),
            Ok(Event::StdoutClosed) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                timed_out = true;
                break;
            }
        }
    }
    if timed_out {
        stop(&mut child);
    } else {
        let _ = child.wait();
        // srun says how each task ended on standard error, which can still be
        // in flight when standard output closes.
        while let Ok(event) = received.recv_timeout(STDERR_GRACE) {
            if let Event::Stderr(line) = event {
                stderr_line(line, &mut tasks, &mut srun_said);
            }
        }
    }

    let answered = tasks.values().filter(|task| task.answered).count();
    let mut first_failure = None;
    for (number, task) in tasks {
        if task.answered {
            continue;
        }
        let node = task.node.unwrap_or_else(|| format!("task {number}"));
        // A task srun saw exit failed on its own, whatever the deadline did after.
        let problem = if timed_out && task.exit.is_none() {
            format!("did not answer within {} s", options.deadline.as_secs_f64())
        } else {
            let why: Vec<String> = [task.exit, task.last_error].into_iter().flatten().collect();
            if why.is_empty() {
                "ended without a report".to_string()
            } else {
                format!("ended without a report: {}", why.join("; "))
            }
        };
        first_failure.get_or_insert_with(|| format!("{node}: {problem}"));
        sink(Raw::Done(Item::NotAnswered { node, problem }));
    }
    if answered == 0 && !timed_out {
        if let Some(why) = broadcast_failure(&srun_said) {
            return Err(SlurmError::Broadcast(why));
        }
        // Nothing came back at all: most likely the command itself (a wrong
        // --envdoctor, srun arguments it refused), which is not a node's fault.
        let said = first_failure
            .or_else(|| srun_said.last().cloned())
            .unwrap_or_else(|| "no task started".to_string());
        return Err(SlurmError::Failed(said));
    }
    Ok(())
}

/// srun's words when its broadcast failed, in one line: the first node's
/// reason (`REQUEST_FILE_BCAST(n1): No such file or directory`) and the verdict
/// (`Failed to broadcast '...'. Step launch aborted.`).
fn broadcast_failure(srun_said: &[String]) -> Option<String> {
    let words = |line: &String| {
        let line = line.trim();
        ["srun: error: ", "srun: fatal: "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
            .unwrap_or(line)
            .to_string()
    };
    let fatal = srun_said.iter().find(|line| line.contains("Failed to broadcast"))?;
    let node = srun_said.iter().find(|line| line.contains("REQUEST_FILE_BCAST"));
    let said: Vec<String> = node.into_iter().chain([fatal]).map(words).collect();
    // Without its last full stop: the error line goes on after it.
    Some(said.join("; ").trim_end_matches('.').to_string())
}

fn forward_stdout(mut stdout: impl Read + Send + 'static, events: mpsc::Sender<Event>) {
    thread::spawn(move || {
        let mut buffer = vec![0; 256 * 1024];
        loop {
            match stdout.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    if events.send(Event::Stdout(buffer[..read].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = events.send(Event::StdoutClosed);
    });
}

fn forward_stderr(stderr: impl Read + Send + 'static, events: mpsc::Sender<Event>) {
    thread::spawn(move || {
        for line in BufReader::new(stderr).split(b'\n').map_while(Result::ok) {
            let line = String::from_utf8_lossy(&line).trim_end().to_string();
            if events.send(Event::Stderr(line)).is_err() {
                return;
            }
        }
    });
}

/// `  3: text` -> (3, `text`): the task number srun's `--label` puts first,
/// padded to the width of the largest.
fn split_label(line: &[u8]) -> Option<(u32, &[u8])> {
    let start = line.iter().position(|&byte| byte != b' ')?;
    let colon = start + line[start..].iter().position(|&byte| byte == b':')?;
    let number = std::str::from_utf8(&line[start..colon]).ok()?.parse().ok()?;
    let rest = &line[colon + 1..];
    Some((number, rest.strip_prefix(b" ").unwrap_or(rest)))
}

fn stdout_line(line: &[u8], tasks: &mut BTreeMap<u32, Task>, sink: &mut dyn FnMut(Raw)) {
    let Some((number, text)) = split_label(line) else {
        return;
    };
    let task = tasks.entry(number).or_default();
    if task.node.is_none()
        && !task.splitter.is_open()
        && let Some(node) = text.strip_prefix(NODE_HEADER.as_bytes())
    {
        task.node = Some(String::from_utf8_lossy(node).trim().to_string());
        return;
    }
    if task.answered {
        return;
    }
    let node = task.node.clone().unwrap_or_else(|| format!("task {number}"));
    let mut answered = false;
    let mut handle = |piece: Piece| {
        if matches!(piece, Piece::Stray { .. }) || answered {
            return;
        }
        answered = true;
        let name = match &task.node {
            Some(node) => GivenName::Known(node.clone()),
            None => GivenName::Fallback(node.clone()),
        };
        sink(input::raw_of(piece, &format!("node {node}"), name));
    };
    task.splitter.feed(text, &mut handle);
    // srun may cut a long line in pieces, each labelled: a newline is only real
    // between reports, never inside one.
    if !task.splitter.is_open() {
        task.splitter.feed(b"\n", &mut handle);
    }
    task.answered = answered;
}

fn stderr_line(line: String, tasks: &mut BTreeMap<u32, Task>, srun_said: &mut Vec<String>) {
    if let Some((number, text)) = split_label(line.as_bytes()) {
        let text = String::from_utf8_lossy(text).trim().to_string();
        if let Some(task) = tasks.get_mut(&number) {
            if !text.is_empty() {
                task.last_error = Some(text);
            }
            return;
        }
    }
    // srun's own: `srun: error: n2: task 1: Exited with exit code 2`. It names
    // the node, which matters for a task that never printed its header.
    if let Some((before, after)) = line.split_once(": task ")
        && let Some((number, what)) = after.split_once(": ")
        && let Ok(number) = number.trim().parse::<u32>()
    {
        let task = tasks.entry(number).or_default();
        task.exit = Some(what.trim().to_lowercase());
        let node = before.rsplit(": ").next().unwrap_or_default().trim();
        if task.node.is_none() && !node.is_empty() && !node.contains(' ') {
            task.node = Some(node.to_string());
        }
        return;
    }
    if srun_said.len() == 20 {
        srun_said.remove(0);
    }
    srun_said.push(line);
}

/// Stops the step: SIGTERM makes srun cancel it on every node and wait for
/// the tasks to end; if srun itself hangs, it is killed.
fn stop(child: &mut Child) {
    let pid = child.id() as libc::pid_t;
    // SAFETY: `pid` is our own child, not yet reaped, so it names that process.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let started = Instant::now();
    while started.elapsed() < STOP_GRACE {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_read_with_their_padding() {
        assert_eq!(split_label(b"0: {"), Some((0, &b"{"[..])));
        assert_eq!(
            split_label(b" 7: envdoctor-node n8"),
            Some((7, &b"envdoctor-node n8"[..]))
        );
        assert_eq!(split_label(b"12:"), Some((12, &b""[..])));
        assert_eq!(split_label(b"srun: error: x"), None);
    }

    #[test]
    fn srun_naming_a_task_that_never_spoke_names_its_node() {
        let mut tasks = BTreeMap::new();
        let mut said = Vec::new();
        stderr_line(
            "srun: error: n3: task 2: Exited with exit code 127".to_string(),
            &mut tasks,
            &mut said,
        );
        let task = &tasks[&2];
        assert_eq!(task.node.as_deref(), Some("n3"));
        assert_eq!(task.exit.as_deref(), Some("exited with exit code 127"));
        assert!(said.is_empty());
    }

    #[test]
    fn unbuffered_output_is_refused_before_srun_starts() {
        let options = Options {
            srun_args: vec!["-N".into(), "2".into(), "-u".into()],
            envdoctor: Envdoctor::OnNodes(PathBuf::from("envdoctor")),
            collect: Collect::Probe,
            smoke: false,
            python: None,
            deadline: Duration::from_secs(1),
        };
        let error = collect(&options, &mut |_| {}).unwrap_err();
        assert!(matches!(error, SlurmError::Unbuffered(arg) if arg == "-u"));
    }

    /// `-N 3`, `--collect probe`, the default envdoctor (broadcast).
    fn on_three_nodes() -> Options {
        Options {
            srun_args: vec!["-N".into(), "3".into()],
            envdoctor: Envdoctor::Broadcast(PathBuf::from("/home/me/envdoctor")),
            collect: Collect::Probe,
            smoke: false,
            python: None,
            deadline: Duration::from_secs(60),
        }
    }

    fn srun_arguments(options: Options) -> Vec<String> {
        command(&options)
            .get_args()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_nodes_run_envdoctor_with_its_arguments_as_words() {
        let arguments = srun_arguments(Options {
            envdoctor: Envdoctor::OnNodes(PathBuf::from("/shared/bin/envdoctor")),
            collect: Collect::Check,
            python: Some("/opt/venv/bin/python".into()),
            ..on_three_nodes()
        });
        assert_eq!(
            arguments[..6],
            [
                "--overlap",
                "--ntasks-per-node=1",
                "--label",
                "--kill-on-bad-exit=0",
                "-N",
                "3"
            ]
        );
        assert_eq!(arguments[6..8], ["/bin/sh", "-c"]);
        assert_eq!(
            arguments[9..],
            [
                "/shared/bin/envdoctor",
                "check",
                "--format",
                "json",
                "--no-smoke",
                "--python",
                "/opt/venv/bin/python"
            ]
        );
    }

    #[test]
    fn by_default_srun_broadcasts_envdoctor_itself_into_a_node_local_folder() {
        let arguments = srun_arguments(on_three_nodes());
        assert_eq!(
            arguments,
            [
                "--overlap",
                "--ntasks-per-node=1",
                "--label",
                "--kill-on-bad-exit=0",
                "--bcast=/tmp/",
                "-N",
                "3",
                "/home/me/envdoctor",
                "--fleet-task",
                "probe",
                "--format",
                "json"
            ]
        );
    }

    #[test]
    fn a_failed_broadcast_is_told_in_srun_words() {
        // What srun 22.05 prints when the destination folder is missing on the nodes.
        let said: Vec<String> = [
            "srun: error: REQUEST_FILE_BCAST(n1): No such file or directory",
            "srun: error: REQUEST_FILE_BCAST(n3): No such file or directory",
            "srun: fatal: Failed to broadcast '/tmp/bx/ed-copy'. Step launch aborted.",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            broadcast_failure(&said).as_deref(),
            Some(
                "REQUEST_FILE_BCAST(n1): No such file or directory; Failed to broadcast '/tmp/bx/ed-copy'. Step launch aborted"
            )
        );
        assert_eq!(broadcast_failure(&said[..2]), None);
    }
}
