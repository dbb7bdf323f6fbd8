//! Errors a training log holds that are not Python exception lines: what
//! CUDA, NCCL, the dynamic loader, C++ and the libraries print on their own.
//! A device-side assertion names the bad index long before the Python
//! traceback says only "device-side assert triggered"; NCCL's `WARN` line
//! names the shared-memory segment it could not create while the exception
//! says "unhandled system error". Each such line becomes a bare exception of
//! its own [`Signal`] kind, ranked like any other.
//!
//! Finding them must cost almost nothing on the lines that are none of this,
//! so every trigger is searched for at once with one Aho-Corasick automaton.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::traceback::Raised;

/// What printed an error line, and whether it is fatal on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// `CUDA error: ...`, `CUDA out of memory`, `no kernel image is available`, a cuDNN failure status.
    Cuda,
    /// A kernel's `Assertion \`...\` failed.` line: the cause of a later device-side assert.
    DeviceAssertion,
    /// `terminate called after throwing ...` and its `what():` line.
    CppException,
    /// NCCL's `WARN` lines and its `Last error:` follow-up.
    Nccl,
    /// `undefined symbol`, `cannot open shared object file`.
    Loader,
    /// torch's warning that the GPU's architecture is not in the build.
    TorchCapability,
    /// bitsandbytes' setup banner when it found no usable CUDA library.
    Bitsandbytes,
    /// A message a known cause gives, printed without an exception class.
    KnownMessage,
    /// The shell's `Killed` alone on its line: the job got SIGKILL.
    Killed,
    /// The process died of a fatal signal of its own making, as the shell,
    /// Python's faulthandler or a launcher reports it: `Segmentation fault
    /// (core dumped)`, `Bus error`, `Illegal instruction`, `Abort trap: 6`,
    /// `Signal 11 (SIGSEGV) received by PID`. No Python exception follows, so
    /// without it a log that ends in a crash reads as one that went well.
    Crashed,
    /// An error a C++ library's own logger printed, with no exception after
    /// it: TensorRT's `[TRT] [E] ...` and trtexec's `[07/19/2025-23:34:55] [E] ...`.
    LibraryError,
    /// A compiler's or setuptools' error line in a build: `file.cu(86): error: ...`,
    /// `file.cpp:2:10: fatal error: ...`, `error: command 'gcc' failed with exit status 1`.
    Build,
    /// One of the above that its printer logged at the warning level
    /// (`[W socket.cpp:464]`, `WARNING:root:`): the job went on past it.
    LoggedWarning,
    /// A line that says why a failure printed after it happened and is none
    /// itself: pip's retries of an index it could not reach, the releases it
    /// passed over for their Requires-Python. Readers of that failure read it.
    Note,
}

impl Signal {
    /// The name it is reported under, in place of an exception class.
    pub fn label(self) -> &'static str {
        match self {
            Signal::Cuda => "CUDA error",
            Signal::DeviceAssertion => "device-side assertion",
            Signal::CppException => "C++ exception",
            Signal::Nccl => "NCCL warning",
            Signal::Loader => "loader error",
            Signal::TorchCapability => "torch warning",
            Signal::Bitsandbytes => "bitsandbytes setup",
            Signal::KnownMessage => "error message",
            Signal::Killed => "killed",
            Signal::Crashed => "crash",
            Signal::Build => "build error",
            Signal::LibraryError => "library error",
            Signal::LoggedWarning => "warning line",
            Signal::Note => "note line",
        }
    }

    /// Whether the line counts as an error even when no known cause explains
    /// it. Loader, NCCL, torch and bitsandbytes lines are also printed by jobs
    /// that go on to finish (NCCL's optional network plugin "cannot open shared
    /// object file"), so alone they predict nothing.
    pub fn is_fatal(self) -> bool {
        matches!(
            self,
            Signal::Cuda
                | Signal::DeviceAssertion
                | Signal::CppException
                | Signal::KnownMessage
                | Signal::Killed
                | Signal::Crashed
                | Signal::Build
                | Signal::LibraryError
        )
    }

    /// Whether an exception label is one of these kinds.
    pub fn from_label(label: &str) -> Option<Signal> {
        ALL.into_iter().find(|signal| signal.label() == label)
    }
}

const ALL: [Signal; 14] = [
    Signal::Cuda,
    Signal::DeviceAssertion,
    Signal::CppException,
    Signal::Nccl,
    Signal::Loader,
    Signal::TorchCapability,
    Signal::Bitsandbytes,
    Signal::KnownMessage,
    Signal::Killed,
    Signal::Crashed,
    Signal::Build,
    Signal::LibraryError,
    Signal::LoggedWarning,
    Signal::Note,
];

/// The text that marks each kind of line, as the tools print it.
const TRIGGERS: [(&str, Signal); 48] = [
    ("CUDA error: ", Signal::Cuda),
    // cuDNN's statuses (cudnn.h's cudnnStatus_t), as C++ code and torch print
    // them: every one but CUDNN_STATUS_SUCCESS is a failure, cuDNN 9's finer
    // ones too (`CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER`).
    (CUDNN_STATUS, Signal::Cuda),
    ("CUDA out of memory", Signal::Cuda),
    ("no kernel image is available for execution", Signal::Cuda),
    ("Assertion `", Signal::DeviceAssertion),
    ("terminate called after throwing", Signal::CppException),
    ("what():", Signal::CppException),
    ("NCCL WARN ", Signal::Nccl),
    ("Last error:", Signal::Nccl),
    ("undefined symbol: ", Signal::Loader),
    // macOS's loader: `dlopen(/x/_C.so, 0x0002): Symbol not found: __ZN...`.
    ("): Symbol not found: ", Signal::Loader),
    // and its words for a library it could not find: `dyld[4242]: Library not loaded: @rpath/libomp.dylib`.
    ("Library not loaded: ", Signal::Loader),
    ("cannot open shared object file", Signal::Loader),
    // Taichi's (and Genesis') loader: `[cuda_driver.cpp:load_lib@36] libcuda.so lib not found.`
    (".so lib not found", Signal::Loader),
    (
        "is not compatible with the current PyTorch installation",
        Signal::TorchCapability,
    ),
    ("CUDA Setup failed despite GPU being available", Signal::Bitsandbytes),
    // A compiler's error (nvcc's `(86): error: `, gcc's `:3:23: error: ` and
    // `fatal error: `) and setuptools' report that the compiler failed.
    (": error: ", Signal::Build),
    (": fatal error: ", Signal::Build),
    ("error: command '", Signal::Build),
    // ptxas pads its level to the width of "warning": `ptxas /tmp/x.ptx, line
    // 451; error   : Feature '.bf16' requires .target sm_80 or higher`.
    ("; error   : ", Signal::Build),
    // TensorRT's logger at its error level, after its tag or trtexec's time
    // stamp (`[TRT] [E] `, `[07/19/2025-23:34:55] [E] `): a build or a load
    // that failed, often with no Python exception to say so.
    ("] [E] ", Signal::LibraryError),
    // pip's own words for a package it could not build or prepare: the
    // reason is in the build's output above them, or nowhere in the paste.
    ("Failed building wheel for ", Signal::Build),
    ("Could not build wheels for ", Signal::Build),
    ("error: subprocess-exited-with-error", Signal::Build),
    ("error: metadata-generation-failed", Signal::Build),
    ("Killed", Signal::Killed),
    // Kubernetes' reason for a container the kernel's OOM killer ended at its
    // memory limit (`Reason: OOMKilled`, `"reason": "OOMKilled"`).
    ("OOMKilled", Signal::Killed),
    // PyCharm's words after the exit status (`exit code 137 (interrupted by
    // signal 9: SIGKILL)`); exit statuses themselves are read apart, see
    // [`EXIT_STATUS_WORDS`].
    ("signal 9: SIGKILL", Signal::Killed),
    // The shell's words for the signals a process raises on itself (bash's
    // strsignal), `(core dumped)` after any of them, macOS's `Abort trap: 6`,
    // and the signal names launchers print (torchrun's `Signal 11 (SIGSEGV)
    // received by PID`). CUDA's own "an illegal instruction was encountered"
    // is lowercase, and its `CUDA error: ` line comes first.
    ("Segmentation fault", Signal::Crashed),
    ("Bus error", Signal::Crashed),
    ("Illegal instruction", Signal::Crashed),
    ("Floating point exception", Signal::Crashed),
    ("core dumped", Signal::Crashed),
    ("Abort trap", Signal::Crashed),
    ("SIGSEGV", Signal::Crashed),
    ("SIGBUS", Signal::Crashed),
    ("SIGILL", Signal::Crashed),
    ("SIGFPE", Signal::Crashed),
    ("SIGABRT", Signal::Crashed),
    // Windows' access violation, its segmentation fault, as IDEs and shells
    // report the exit code: `Process finished with exit code -1073741819 (0xC0000005)`.
    ("0xC0000005", Signal::Crashed),
    // pip's words (and urllib3's, which it quotes) for an index it could not
    // read, printed before it reports what it found there, and its list of
    // releases it passed over for their Requires-Python.
    ("Retrying (Retry(", Signal::Note),
    ("Could not fetch URL ", Signal::Note),
    ("Temporary failure in name resolution", Signal::Note),
    ("require a different python version: ", Signal::Note),
    // pip's steps of a build from source, printed before the build's own
    // output: where an import failed (an isolated build's environment).
    (PIP_BUILD_STEPS[0], Signal::Note),
    (PIP_BUILD_STEPS[1], Signal::Note),
    (PIP_BUILD_STEPS[2], Signal::Note),
    (PIP_BUILD_STEPS[3], Signal::Note),
];

/// pip's words for the steps of a build from source, printed before the
/// build's own output; only an isolated build installs build dependencies
/// (the first). The readers find them among the notes before a failure.
pub const PIP_BUILD_STEPS: [&str; 4] = [
    "Installing build dependencies",
    "Getting requirements to build",
    "Preparing metadata (",
    BUILDING_WHEEL,
];

/// The build step that names the package built: `Building wheel for x (setup.py) ... done`.
pub const BUILDING_WHEEL: &str = "Building wheel for ";

/// Whether `line` is a shell's report that the process ended on a signal,
/// as bash prints it on a line of its own after the process's output
/// (`Segmentation fault (core dumped)`, `Killed`, `Bus error`): a crash or
/// kill line of [`TRIGGERS`], short enough to be nothing else. No part of a
/// message the process printed before it.
pub fn is_shells_report_of_a_signal(line: &str) -> bool {
    // Longer is a sentence that uses the words: `(core dumped)` is the most
    // bash adds, or a job's number and command where a script ran it.
    const MOST_BYTES: usize = 40;
    (line.trim().len() <= MOST_BYTES || script_job_words(line.trim()).is_some())
        && matches!(
            read(line),
            Some(SignalLine::Line(raised))
                if matches!(Signal::from_label(&raised.exception), Some(Signal::Crashed | Signal::Killed))
        )
}

/// Whether `words` are one of the ways a crash is printed (`Illegal
/// instruction`, `Segmentation fault`, `SIGSEGV`): the kernel's name for the
/// signal, which any program that crashed of it prints, whatever made it.
pub fn are_crash_words(words: &str) -> bool {
    // They begin what is listed (`Segmentation fault (core dumped)`): a
    // program's sentence that ends on them (`is killed by signal: Bus error`,
    // torch's DataLoader) is that program's words.
    let words = words.trim_start();
    TRIGGERS
        .iter()
        .any(|(pattern, signal)| *signal == Signal::Crashed && words.starts_with(pattern))
}

/// What a bare `Killed` line is read as: the words say what the shell meant,
/// which the one word alone cannot be matched by without matching every
/// "killed" in a log.
pub const KILLED: &str = "Killed (SIGKILL, as the shell reports it)";

/// What every cuDNN status starts with; `CUDNN_STATUS_SUCCESS` is the one
/// that says no failure.
const CUDNN_STATUS: &str = "CUDNN_STATUS_";

/// The words of a SIGKILL as a shell reports it, in every reading of one
/// that a cause's message can match.
const SIGKILL_AS_THE_SHELL_REPORTS_IT: &str = "SIGKILL, as the shell reports it";

/// bitsandbytes' other setup failure, matched apart because it is lowercase prose.
const BNB_WITHOUT_GPU: &str = "compiled without GPU support";

/// The words a process's exit status follows, as shells, IDEs, Docker,
/// Kubernetes, subprocess and the launchers built on it print them: `exit
/// code 137`, `exited with code 139`, `returned a non-zero code: 137`, `Exit
/// Code: 137`, `exit status -9`, `exits with return code = -9`, `exitcode  :
/// -9`. What the status says is read after them ([`what_the_exit_status_says`]); most
/// statuses say no signal ended the process, and those lines are no signal.
const EXIT_STATUS_WORDS: [&str; 13] = [
    "exit code",
    "Exit code",
    "Exit Code",
    "exit status",
    "Exit status",
    "exitcode",
    "exit_code",
    "exitCode",
    "ExitCode",
    "return code",
    "returncode",
    "non-zero code",
    "with code",
];

/// The signals that end a process with no Python exception to say so, by
/// their Linux numbers (signal(7)): the kill a process cannot catch, and the
/// fatal signals a process raises on itself.
const FATAL_SIGNALS: [(i64, &str, Signal); 6] = [
    (9, "SIGKILL", Signal::Killed),
    (11, "SIGSEGV", Signal::Crashed),
    (6, "SIGABRT", Signal::Crashed),
    (7, "SIGBUS", Signal::Crashed),
    (4, "SIGILL", Signal::Crashed),
    (8, "SIGFPE", Signal::Crashed),
];

/// The NTSTATUS codes a Windows program's exit status says it ended with,
/// printed in decimal, signed or unsigned, by launchers: its segmentation
/// fault, and a program that could not start for a DLL it needs (the DLL is
/// not named: Dependencies or `dumpbin /dependents` names it).
const WINDOWS_ENDINGS: [(u32, &str, Signal); 2] = [
    (0xC000_0005, "an access violation", Signal::Crashed),
    (
        0xC000_0135,
        "STATUS_DLL_NOT_FOUND, a DLL it needs was not found",
        Signal::KnownMessage,
    ),
];

/// The triggers in order, so a match's pattern index is its [`TRIGGERS`]
/// row, then bitsandbytes' prose, then the [`EXIT_STATUS_WORDS`].
static AUTOMATON: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(trigger_words()).expect("the trigger patterns are valid"));

/// The words a signal line holds, in the automaton's order; a
/// [`super::log::Marker`] marks the lines that hold one.
pub fn trigger_words<'a>() -> impl Iterator<Item = &'a str> {
    TRIGGERS
        .iter()
        .map(|(pattern, _)| *pattern)
        .chain(std::iter::once(BNB_WITHOUT_GPU))
        .chain(EXIT_STATUS_WORDS)
}

/// What a match of the automaton is.
enum Trigger {
    /// A line of this kind, by these words.
    Words(&'static str, Signal),
    /// An exit status follows; it may say a signal ended the process.
    ExitStatus,
}

fn trigger(found: aho_corasick::Match) -> Trigger {
    let at = found.pattern().as_usize();
    match TRIGGERS.get(at) {
        Some((pattern, signal)) => Trigger::Words(pattern, *signal),
        None if at == TRIGGERS.len() => Trigger::Words(BNB_WITHOUT_GPU, Signal::Bitsandbytes),
        None => Trigger::ExitStatus,
    }
}

/// A quick yes/no for the line filter: may this line be a signal?
pub fn may_be_signal(line: &str) -> bool {
    AUTOMATON.is_match(line)
}

/// Whether the line holds a failure's words, not only a note's: pip's
/// network words in an exception's message name no failure of their own,
/// nor does an exit status that no signal ended (`exit status 1`).
pub fn names_a_failure(line: &str) -> bool {
    AUTOMATON.find_iter(line).any(|found| match trigger(found) {
        Trigger::Words(pattern, signal) => signal != Signal::Note && !says_success(pattern, &line[found.end()..]),
        Trigger::ExitStatus => what_the_exit_status_says(&line[..found.end()], &line[found.end()..]).is_some(),
    })
}

/// Which note a line is: the first note trigger it holds (pip's retry, its
/// skipped releases, a build step), so that notes of one kind are kept apart
/// from another's. `None` for a line that holds no note's words.
pub fn note_kind(line: &str) -> Option<usize> {
    AUTOMATON.find_iter(line).find_map(|found| {
        matches!(trigger(found), Trigger::Words(_, Signal::Note)).then_some(found.pattern().as_usize())
    })
}

/// How the exit status at the start of `after` (what follows the words of
/// an [`EXIT_STATUS_WORDS`] entry, `before` and those words) says the process
/// ended, when it says more than a failure: its kind and, in words a cause's
/// message can match, what the number means. A shell, Docker and an IDE
/// report 128 + N for signal N; Python's subprocess and multiprocessing, and
/// the launchers built on them (torchrun, DeepSpeed's, accelerate's), report
/// -N; Windows an NTSTATUS code. A C library returns a negative errno in the
/// same words (`recv failed with return code -11`, EAGAIN): a negative status
/// is a signal's only where the words before it say a process exited
/// (`exit status`, `exitcode`, DeepSpeed's `exits with return code = `).
fn what_the_exit_status_says(before: &str, after: &str) -> Option<(Signal, String)> {
    // `exit code 137`, `exitcode: -9`, `"exitCode": 137` (a JSON record's
    // field), `exit code of 137`, `exit code was 137`.
    let separators = [' ', '\t', ':', '=', '(', '"', '\''];
    let number = after.trim_start_matches(separators);
    let number = ["of ", "was ", "is "]
        .iter()
        .find_map(|word| number.strip_prefix(word))
        .map_or(number, |rest| rest.trim_start_matches(separators));
    let negative = number.starts_with('-');
    if negative && !before.to_ascii_lowercase().contains("exit") {
        return None;
    }
    let digits_from = usize::from(negative);
    let digits = number[digits_from..].bytes().take_while(u8::is_ascii_digit).count();
    let end = digits_from + digits;
    // `137.` ends a sentence; `137.5` or `1370` is another number.
    let rest = &number.as_bytes()[end..];
    if digits == 0
        || rest.first().is_some_and(u8::is_ascii_alphanumeric)
        || rest.starts_with(b".") && rest.get(1).is_some_and(u8::is_ascii_digit)
    {
        return None;
    }
    let status: i64 = number[..end].parse().ok()?;
    // `code as i32` is the code read as a signed 32-bit status.
    if let Some((code, meaning, signal)) = WINDOWS_ENDINGS
        .iter()
        .find(|(code, _, _)| status == i64::from(*code) || status == i64::from(*code as i32))
    {
        return Some((
            *signal,
            format!("{status} is {code:#x}: {meaning}, as Windows reports it"),
        ));
    }
    FATAL_SIGNALS.iter().find_map(|&(number, name, signal)| {
        if status == 128 + number {
            Some((
                signal,
                format!("{status} is 128 + {number}: {name}, as the shell reports it"),
            ))
        } else if status == -number {
            Some((
                signal,
                format!("{status} is -{number}: {name}, as Python reports a child's end"),
            ))
        } else {
            None
        }
    })
}

/// What the first exit status in `text` that says how a process ended says.
fn exit_status_in(text: &str) -> Option<(Signal, String)> {
    AUTOMATON.find_iter(text).find_map(|found| match trigger(found) {
        Trigger::ExitStatus => what_the_exit_status_says(&text[..found.end()], &text[found.end()..]),
        Trigger::Words(..) => None,
    })
}

/// The messages of every known cause, searched for in lines that are no
/// exception line: one automaton, ASCII case ignored as causes match them.
#[derive(Clone)]
pub struct KnownMessages(AhoCorasick);

impl KnownMessages {
    pub fn new<'m>(messages: impl IntoIterator<Item = &'m str>) -> Option<KnownMessages> {
        aho_corasick::AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .build(messages)
            .ok()
            .map(KnownMessages)
    }

    pub fn is_in(&self, line: &str) -> bool {
        self.0.is_match(line)
    }
}

/// A line that holds a known message, as a bare error of no class.
pub fn known_message(line: &str) -> Raised {
    let signal = if crate::explain::readers::says_gone_on(line) {
        Signal::LoggedWarning
    } else {
        at_its_level(Signal::KnownMessage, line)
    };
    raised(signal, line.trim())
}

/// A fatal kind of line that its printer logged as a warning is a warning:
/// torch's c10d logs a failed bind to `[::]` as `[W socket.cpp:464] ...
/// Address already in use` and goes on to bind `0.0.0.0`.
fn at_its_level(signal: Signal, line: &str) -> Signal {
    if signal.is_fatal() && logged_as_warning(line) {
        Signal::LoggedWarning
    } else {
        signal
    }
}

/// Whether a line starts with a warning level as loggers print it: glog's
/// and c10d's `W1203 12:00:00.123 ...`, `[W1203 ...]`, `[W socket.cpp:464]`;
/// Python logging's `WARNING:root:`, `[WARNING]`, `2024-01-01 12:00:00 - WARNING - `,
/// loguru's `| WARNING  |`. A rank's label (`[rank0]: `) may come first.
pub fn logged_as_warning(line: &str) -> bool {
    logged_at(line, &["WARN", "WARNING"], 'W')
}

/// Whether a line was logged below the warning level, as loggers print
/// `INFO` and `DEBUG` (glog's `I1203 ...`, c10d's `[I socket.cpp:...]`, NCCL's
/// `NCCL INFO`): its printer judged what it quotes no failure. JAX logs each
/// backend it could not start this way (`INFO - Unable to initialize backend
/// 'tpu': ... libtpu.so: cannot open shared object file`) and goes on with the
/// others, as NCCL does for the network plugins it can do without.
pub fn logged_below_warning(line: &str) -> bool {
    line.contains("NCCL INFO") || logged_at(line, &["INFO", "DEBUG"], 'I')
}

/// Whether a line starts with one of `levels` as loggers print a level, or
/// with glog's one-letter form of it (`glog_letter`).
fn logged_at(line: &str, levels: &[&str], glog_letter: char) -> bool {
    let mut text = line.trim_start();
    if let Some(rest) = text.strip_prefix("[rank")
        && let Some((_, after)) = rest.split_once("]:")
    {
        text = after.trim_start();
    }
    let glog = |rest: &str| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits == 4 && rest[digits..].starts_with(' ')
    };
    if let Some(rest) = text.strip_prefix('[').and_then(|rest| rest.strip_prefix(glog_letter))
        && (rest.starts_with(' ') || glog(rest))
    {
        return true;
    }
    if let Some(rest) = text.strip_prefix(glog_letter)
        && glog(rest)
    {
        return true;
    }
    // TensorFlow's (absl's): `2020-03-27 12:29:53.941589: W tensorflow/.../dso_loader.cc:55] ...`,
    // a time stamp, the one letter and the place in its source.
    if let Some(rest) = after_time_stamp(text).and_then(|rest| rest.strip_prefix(glog_letter))
        && let Some(place) = rest.strip_prefix(' ').and_then(|rest| rest.split_whitespace().next())
        && place
            .strip_suffix(']')
            .and_then(|place| place.rsplit_once(':'))
            .is_some_and(|(file, line)| {
                !file.is_empty() && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())
            })
    {
        return true;
    }
    // A level word among the first words, set apart as loggers set it.
    let head = match text.char_indices().nth(64) {
        Some((at, _)) => &text[..at],
        None => text,
    };
    levels.iter().any(|level| {
        head.match_indices(level).any(|(at, _)| {
            let before = head[..at].chars().next_back();
            let word_end = head[at..]
                .find(|c: char| !c.is_ascii_uppercase())
                .map_or(head.len(), |end| at + end);
            let word = &head[at..word_end];
            let after = head[word_end..].chars().next();
            // Only a time stamp, brackets and separators come before a level,
            // or one logger's name (`wandb: WARNING`): not a sentence.
            let prefix = &head[..at];
            let logger = prefix
                .strip_suffix(": ")
                .is_some_and(|name| !name.is_empty() && !name.contains(' '));
            levels.contains(&word)
                && before.is_none_or(|c| matches!(c, ' ' | '[' | '|' | '-' | ':' | '('))
                && after.is_none_or(|c| matches!(c, ' ' | ']' | '|' | '-' | ':' | ')'))
                && (logger || !prefix.chars().any(|c| c.is_ascii_lowercase()))
        })
    })
}

/// What follows a leading time stamp and its `: ` (`2020-03-27 12:29:53.941589: `).
fn after_time_stamp(text: &str) -> Option<&str> {
    let (stamp, rest) = text.split_once(": ")?;
    let is_stamp = stamp.bytes().filter(u8::is_ascii_digit).count() >= 6
        && stamp
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b':' | b'.' | b' ' | b'T'));
    is_stamp.then_some(rest)
}

/// What a signal line says, when it is one.
pub enum SignalLine {
    /// The error, as a bare exception of its kind.
    Line(Raised),
    /// `Last error:` alone: the message is the next line.
    OnNextLine(Signal),
}

/// Reads one line as a signal: by the first of its words that says one, and
/// only where none does, by an exit status (`exited with code 134:
/// terminate called after throwing ...` is the C++ exception the status
/// only counts).
pub fn read(line: &str) -> Option<SignalLine> {
    // What a logger printed below the warning level is no failure: NCCL's
    // INFO lines quote the loader's words about plugins it can do without.
    if !may_be_signal(line) || logged_below_warning(line) {
        return None;
    }
    let text = line.trim();
    let by_words = AUTOMATON.find_iter(line).find_map(|found| match trigger(found) {
        Trigger::Words(pattern, _) if says_success(pattern, &line[found.end()..]) => None,
        Trigger::Words(pattern, signal) => read_by_words(line, text, pattern, signal),
        Trigger::ExitStatus => None,
    });
    by_words.or_else(|| {
        let (signal, meaning) = exit_status_in(line)?;
        Some(SignalLine::Line(raised(
            at_its_level(signal, line),
            format!("{text} ({meaning})"),
        )))
    })
}

/// Whether the words of `pattern`, followed by `after`, say a call succeeded
/// (`CUDNN_STATUS_SUCCESS`, in a check that failed for another status).
fn says_success(pattern: &str, after: &str) -> bool {
    pattern == CUDNN_STATUS && after.starts_with("SUCCESS")
}

/// Reads a line by the words of one of [`TRIGGERS`].
fn read_by_words(line: &str, text: &str, pattern: &str, signal: Signal) -> Option<SignalLine> {
    let message = match signal {
        Signal::Nccl if text.ends_with("Last error:") => return Some(SignalLine::OnNextLine(signal)),
        // `host:pid:tid [0] file.cc:48 NCCL WARN message`: the prefix differs per rank.
        Signal::Nccl => after(text, "NCCL WARN ").unwrap_or(text),
        Signal::DeviceAssertion => return assertion(text).map(|message| SignalLine::Line(raised(signal, message))),
        Signal::CppException => after(text, "what():").map_or(text, str::trim),
        Signal::LibraryError => after(text, "] [E] ").map_or(text, str::trim),
        Signal::Killed
            if text == "Killed" || after_a_progress_bar(text) || script_job_words(text) == Some("Killed") =>
        {
            KILLED
        }
        Signal::Killed if pattern != "Killed" => {
            return Some(SignalLine::Line(raised(
                signal,
                format!("{text} ({SIGKILL_AS_THE_SHELL_REPORTS_IT})"),
            )));
        }
        Signal::Killed => return None,
        _ => text,
    };
    Some(SignalLine::Line(raised(
        at_its_level(signal, line),
        message.to_string(),
    )))
}

/// `message` with an exit status that says a signal ended a process (`exit
/// status 137`: 128 + 9, SIGKILL; `exit status -9`) followed by what it
/// means, in the words a cause's message can match; wherever it stands, a
/// line of its own or an exception's message (`CalledProcessError: Command
/// '...' returned non-zero exit status 137.`). Any other message as it is.
pub fn with_exit_status_read(message: &str) -> Cow<'_, str> {
    // A signal line was read so already (see `read`).
    if message.ends_with(" reports it)") || message.ends_with(" reports a child's end)") {
        return Cow::Borrowed(message);
    }
    match exit_status_in(message) {
        Some((_, meaning)) => Cow::Owned(format!("{message} ({meaning})")),
        None => Cow::Borrowed(message),
    }
}

/// The shell's `Killed` printed on a progress bar's line, which ends in a
/// carriage return or its `it/s]`, not a newline: `... 0/2 [00:00<?, ?it/s]Killed`.
fn after_a_progress_bar(text: &str) -> bool {
    text.strip_suffix("Killed")
        .is_some_and(|before| before.ends_with(']') || before.ends_with('\r'))
}

/// What bash says of a command of a script that a signal ended, its job's
/// report (`scripts/inference.sh: line 40: 31738 Killed`, or with the
/// command after the words, padded to bash's 24 columns: `run.sh: line 2:
/// 4771 Aborted                 (core dumped) python x.py`): the signal's
/// words. The script is one word (an xtrace's `+ echo` or grep's `file:`
/// before it is no report), and the words are a signal's.
fn script_job_words(text: &str) -> Option<&str> {
    const PADDED_TO: usize = 24;
    let (script, rest) = text.split_once(": line ")?;
    if script.is_empty() || script.contains(char::is_whitespace) || script.contains(':') {
        return None;
    }
    let (line, rest) = rest.split_once(": ")?;
    let rest = rest.trim_start();
    let pid = rest.find(|c: char| !c.is_ascii_digit())?;
    if line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) || pid == 0 || !rest[pid..].starts_with(' ') {
        return None;
    }
    let field = &rest[pid + 1..];
    let words = field.split_once("  ").map_or(field, |(words, _)| words).trim_end();
    let after = &field[words.len()..];
    let padding = after.len() - after.trim_start().len();
    let padded = after.trim_start().is_empty() || words.len() + padding == PADDED_TO;
    let a_signals = words == "Killed" || are_crash_words(words);
    (padded && a_signals).then_some(words)
}

fn raised(signal: Signal, message: impl Into<String>) -> Raised {
    Raised {
        exception: signal.label().to_string(),
        message: message.into(),
    }
}

fn after<'t>(text: &'t str, marker: &str) -> Option<&'t str> {
    text.find(marker).map(|at| &text[at + marker.len()..])
}

/// `Indexing.cu:1141: indexSelectLargeIndex: block: [12,0,0], thread: [64,0,0]
/// Assertion \`srcIndex < srcSelectDimSize\` failed.` becomes
/// `indexSelectLargeIndex: Assertion \`srcIndex < srcSelectDimSize\` failed.`:
/// without the block and thread, every thread's line is the same failure.
fn assertion(text: &str) -> Option<String> {
    let at = text.find("Assertion `")?;
    let condition = &text[at..];
    if !condition.contains("failed") {
        return None;
    }
    let kernel = text[..at]
        .split(": ")
        .filter(|part| !part.is_empty())
        .take_while(|part| !part.starts_with("block"))
        .last()
        .filter(|part| part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    Some(match kernel {
        Some(kernel) => format!("{kernel}: {condition}"),
        None => condition.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crashs_words_are_told_in_whatever_form_a_cause_lists_them() {
        for words in ["Illegal instruction", "Segmentation fault (core dumped)", "SIGSEGV"] {
            assert!(are_crash_words(words), "{words}");
        }
        for words in [
            "Killed",
            "CUDA error: an illegal instruction was encountered",
            "DataLoader worker (pid 4242) is killed by signal: Bus error",
            "is killed by signal: Bus error",
        ] {
            assert!(!are_crash_words(words), "{words}");
        }
    }

    #[test]
    fn an_exit_status_of_sigkill_is_read_wherever_it_stands() {
        for message in [
            "Command '['python', 'train.py']' returned non-zero exit status 137.",
            "Process finished with exit code 137 (interrupted by signal 9: SIGKILL)",
            "trainer-1 exited with code 137",
        ] {
            let read = with_exit_status_read(message);
            assert!(read.ends_with("SIGKILL, as the shell reports it)"), "{message}");
            // A message read so already (a signal line's) is not read twice.
            assert_eq!(with_exit_status_read(&read), read);
        }
        for message in [
            "Command '['python', 'train.py']' returned non-zero exit status 1.",
            "Killed",
            "the step took 137 seconds",
        ] {
            assert_eq!(with_exit_status_read(message), message);
        }
    }

    #[test]
    fn an_exit_status_says_how_a_process_ended_in_whatever_words_it_follows() {
        for (line, label, meaning) in [
            // football5: Docker's build; Kubernetes' pod status; Docker Compose.
            (
                "The command '/bin/sh -c pip3 install .' returned a non-zero code: 137",
                "killed",
                "SIGKILL",
            ),
            ("    Reason: Error, Exit Code: 137", "killed", "SIGKILL"),
            ("llama-1 exited with code 139", "crash", "SIGSEGV"),
            ("error: Lean exited with code 134", "crash", "SIGABRT"),
            // DeepSpeed's launcher, torchrun's summary, subprocess: -N.
            (
                "[launch.py:315:sigkill_handler] exits with return code = -9",
                "killed",
                "SIGKILL",
            ),
            ("  exitcode  : -9 (pid: 4242)", "killed", "SIGKILL"),
            ("worker returned exitCode=-11", "crash", "SIGSEGV"),
            // Windows' NTSTATUS codes, signed and unsigned.
            (
                "Process finished with exit code -1073741819 (0xC0000005)",
                "crash",
                "0xC0000005",
            ),
            ("Error: exit status 3221225781", "error message", "0xc0000135"),
            ("(Exit code: -1073741515)", "error message", "0xc0000135"),
            // A JSON record's field, and the words a CI runner or a wrapper put between.
            ("{\"exitCode\": 137, \"signal\": null}", "killed", "SIGKILL"),
            ("Error: container exited with exit code of 137", "killed", "SIGKILL"),
            // Kubernetes' reason, with or without the status beside it.
            ("{\"reason\": \"OOMKilled\", \"startedAt\": null}", "killed", "SIGKILL"),
        ] {
            let (read_as, text) = message(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(read_as, label, "{line}");
            assert!(text.contains(meaning), "{text}");
            assert!(text.starts_with(line.trim()), "{text}");
        }
        // A status that says only that the process failed is no signal, and
        // the words after it are still read.
        for line in [
            "Process finished with exit code 1",
            "error: command 'gcc' failed with exit status 1",
            "exited with code 0",
            "exit code 137.5 was not a status",
            "exit status 1370",
            "the step took 137 seconds",
        ] {
            assert!(message(line).is_none_or(|(label, _)| label == "build error"), "{line}");
            assert!(!names_a_failure(line) || line.contains("error: command"), "{line}");
        }
        assert_eq!(
            message("worker exited with code 1: CUDA error: out of memory")
                .unwrap()
                .0,
            "CUDA error"
        );
        // A negative errno a C library returns is no signal; a process's exit is.
        assert!(message("recv failed with return code -11").is_none());
        assert!(!names_a_failure("recv failed with return code -11"));
        // Whether a process exited is read from the whole line, wherever the question is asked.
        assert!(names_a_failure(
            "[launch.py:315:sigkill_handler] exits with return code = -9"
        ));
        assert_eq!(message("worker exited with code -11").unwrap().0, "crash");
        // The words printed with a status say more than the status.
        assert_eq!(
            message("process exited with code 134: terminate called after throwing an instance of 'c10::Error'")
                .unwrap()
                .0,
            "C++ exception"
        );
        // A status its printer logged as a warning: the job went on.
        assert_eq!(
            message("WARNING: worker exited with code 139, restarting").unwrap().0,
            "warning line"
        );
    }

    #[test]
    fn the_shells_report_of_a_signal_is_told_from_a_sentence_that_uses_its_words() {
        for line in [
            "Segmentation fault (core dumped)",
            "Killed",
            "  Aborted (core dumped)",
            "Bus error",
            // bash's report of a script's job, as long as its command.
            "./scripts/train_360_v2_garden.sh: line 11: 2179169 Bus error               (core dumped) python3 train.py --root_dir data/",
        ] {
            assert!(is_shells_report_of_a_signal(line), "{line}");
        }
        for line in [
            "Killed workers are restarted by the elastic agent when max_restarts allows it",
            "DataLoader worker (pid 4242) is killed by signal: Segmentation fault.",
            "Segmentation faults in the renderer were fixed in 0.4, see the changelog for details",
            // A job-shaped line whose words are no signal's is as long as any sentence.
            "job.sh: line 7: 4242 worker returned exit code 137 after retry 2 of 3, see the log",
        ] {
            assert!(!is_shells_report_of_a_signal(line), "{line}");
        }
    }

    #[test]
    fn a_notes_words_name_no_failure_of_their_own() {
        let retry =
            "WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError(...)': /simple/numpy/";
        assert!(may_be_signal(retry) && !names_a_failure(retry));
        assert!(names_a_failure(&format!("CUDA error: out of memory; {retry}")));
    }

    fn message(line: &str) -> Option<(String, String)> {
        match read(line)? {
            SignalLine::Line(raised) => Some((raised.exception, raised.message)),
            SignalLine::OnNextLine(_) => Some(("next".into(), String::new())),
        }
    }

    #[test]
    fn a_warning_level_is_read_as_loggers_print_it() {
        for line in [
            "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",
            "[W1203 12:00:00.123456 4242 torch/csrc/distributed/c10d/socket.cpp:462] [c10d] failed",
            "W1203 12:00:00.123456  4242 file.cc:12] failed",
            "[rank1]: [W socket.cpp:464] failed",
            "WARNING:root:CUDA out of memory, retrying with a smaller batch",
            "2024-01-01 12:00:00,123 - WARNING - CUDA out of memory",
            "[WARNING] CUDA out of memory",
            "2024-01-01 12:00:00.123 | WARNING  | app:run:12 - CUDA out of memory",
            "wandb: WARNING Address already in use",
            // opennmttf638: TensorFlow's optional TensorRT libraries.
            "2020-03-27 12:29:53.941589: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libnvinfer.so.6'",
        ] {
            assert!(logged_as_warning(line), "{line}");
        }
        for line in [
            "[E socket.cpp:500] [c10d] The server socket has failed to listen on any local network address.",
            "RuntimeError: CUDA error: out of memory",
            "ERROR:root:CUDA out of memory",
            "Wrote 1203 files",
            "W1203x",
            "the run printed a WARNING in a sentence",
            "RuntimeError: CUDA error: out of memory; see the WARNING above",
            "UserWarning: CUDA initialization: CUDA driver version is insufficient",
            "2020-03-27 12:29:53.941589: E tensorflow/stream_executor/cuda/cuda_driver.cc:351] failed call to cuInit",
            "2020-03-27 12:29:53: W is not a place] x",
        ] {
            assert!(!logged_as_warning(line), "{line}");
        }
        let demoted = known_message("[W socket.cpp:464] failed to bind (errno: 98 - Address already in use)");
        assert_eq!(demoted.signal(), Some(Signal::LoggedWarning));
        assert!(!demoted.is_fatal());
        assert!(known_message("failed to bind (errno: 98 - Address already in use)").is_fatal());
    }

    #[test]
    fn a_cudnn_failure_status_is_an_error_and_success_is_none() {
        let (kind, text) = message(
            "F0412 conv.cc:88] Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0) CUDNN_STATUS_INTERNAL_ERROR",
        )
        .unwrap();
        assert_eq!(kind, "CUDA error");
        assert!(text.ends_with("CUDNN_STATUS_INTERNAL_ERROR"), "{text}");
        assert!(Signal::Cuda.is_fatal());
        assert!(message("cudnn returned CUDNN_STATUS_SUCCESS").is_none());
        assert!(!names_a_failure("cudnn returned CUDNN_STATUS_SUCCESS"));
        // cuDNN 9's finer statuses, and those no list named before it.
        for status in [
            "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER",
            "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
            "CUDNN_STATUS_VERSION_MISMATCH",
        ] {
            let (kind, _) = message(&format!("RuntimeError: cuDNN error: {status}")).unwrap();
            assert_eq!(kind, "CUDA error", "{status}");
        }
    }

    /// titarlsim2sim2real7, modeloptimizer70: trtexec's error lines end a
    /// build that printed no exception; the Python logger's are tagged.
    #[test]
    fn tensorrts_error_lines_are_library_errors() {
        let (kind, text) = message("[07/19/2025-23:34:55] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Target GPU SM 120 is not supported by this TensorRT release.)").unwrap();
        assert_eq!(kind, "library error");
        assert!(text.starts_with("Error[9]: IBuilder::buildSerializedNetwork"), "{text}");
        let (kind, _) =
            message("[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::32] Error Code 1: Serialization").unwrap();
        assert_eq!(kind, "library error");
        assert!(Signal::LibraryError.is_fatal());
        // Its other levels are no error.
        assert!(message("[07/19/2025-23:34:55] [I] Finished parsing network model.").is_none());
        assert!(message("[TRT] [W] CUDA lazy loading is not enabled.").is_none());
    }

    /// chameleon39, rapidsaicsputils70: ptxas' errors and pip's failures to
    /// build are failures, though no exception says so.
    #[test]
    fn a_build_tools_own_error_lines_are_build_errors() {
        for line in [
            "ptxas /tmp/compile-ptx-src-ac38de, line 451; error   : Feature '.bf16' requires .target sm_80 or higher",
            "  ERROR: Failed building wheel for diff_gaussian_rasterization",
            "ERROR: Could not build wheels for flash-attn, which is required to install pyproject.toml-based projects",
            "error: metadata-generation-failed",
            "  error: subprocess-exited-with-error",
        ] {
            assert_eq!(
                message(line).map(|(kind, _)| kind).as_deref(),
                Some("build error"),
                "{line}"
            );
        }
        assert!(message("ptxas info    : Used 32 registers").is_none());
    }

    #[test]
    fn a_device_assertion_loses_its_block_and_thread() {
        let line = "../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [267,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.";
        assert_eq!(
            message(line).unwrap(),
            (
                "device-side assertion".into(),
                "indexSelectLargeIndex: Assertion `srcIndex < srcSelectDimSize` failed.".into()
            )
        );
    }

    #[test]
    fn an_nccl_warning_keeps_what_follows_warn() {
        let line = "node08:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm (size 4460544)";
        assert_eq!(
            message(line).unwrap().1,
            "Error while creating shared memory segment nccl-shm (size 4460544)"
        );
        assert_eq!(message("Last error:").map(|m| m.0), Some("next".into()));
    }

    /// panpipes204: JAX logs each backend it could not start at INFO and
    /// goes on with the others; the loader's words it quotes are no failure.
    #[test]
    fn a_line_logged_below_the_warning_level_is_no_error() {
        for line in [
            "INFO - Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory",
            "INFO:jax._src.xla_bridge:Unable to initialize backend 'tpu': libtpu.so: cannot open shared object file",
            "2024-03-01 10:00:00,123 - DEBUG - undefined symbol: cuModuleLoad",
            "[INFO] cannot open shared object file: libnvinfer.so.8",
            "I1203 12:00:00.123456 140 loader.cc:12] libcudnn.so.8: cannot open shared object file",
            "[rank0]: [I socket.cpp:464] CUDA error: out of memory",
        ] {
            assert!(logged_below_warning(line), "{line}");
            assert!(message(line).is_none(), "{line}");
        }
        // A level word in a sentence, or an error that merely mentions info, is not a level.
        for line in [
            "OSError: libtpu.so: cannot open shared object file: No such file or directory",
            "ImportError: undefined symbol: INFO_LEVEL_x",
            "could not read INFO from libfoo.so: cannot open shared object file",
            "W1203 12:00:00.123 loader.cc:12] libcudnn.so.8: cannot open shared object file",
        ] {
            assert!(!logged_below_warning(line), "{line}");
            assert!(message(line).is_some(), "{line}");
        }
    }

    #[test]
    fn an_nccl_info_line_quoting_the_loader_is_no_error() {
        let line = "ae05:5:5 [1] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory";
        assert!(message(line).is_none());
    }

    #[test]
    fn the_lines_of_a_training_log_are_no_signal() {
        for line in [
            "[2026-11-24 17:33:15,565] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda",
            "step 0 loss 0.0374",
            "  0%|          | 0/100 [00:00<?, ?it/s]",
        ] {
            assert!(!may_be_signal(line), "{line}");
        }
    }

    #[test]
    fn a_process_that_died_of_its_own_fatal_signal_is_a_crash() {
        for line in [
            // taichinerfs94, nanocamera7, spleeter271 (macOS), a torchrun rank, faulthandler.
            "./scripts/train.sh: line 11: 2179169 Bus error               (core dumped) python3 train.py",
            "Illegal instruction (core dumped)",
            "Abort trap: 6",
            "Signal 11 (SIGSEGV) received by PID 4242",
            "Fatal Python error: Segmentation fault",
            "munmap_chunk(): invalid pointer\nAborted (core dumped)",
        ] {
            let (label, _) = message(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(label, "crash", "{line}");
        }
        // CUDA's own words are CUDA's error; a logger's INFO line quoting a crash is none.
        assert_eq!(
            message("RuntimeError: CUDA error: an illegal instruction was encountered")
                .unwrap()
                .0,
            "CUDA error"
        );
        assert!(message("NCCL INFO Bootstrap: caught SIGSEGV handler installed").is_none());
    }

    #[test]
    fn only_a_bare_killed_line_is_the_shells_report_of_sigkill() {
        // batch L's videollava13: the shell's line after tqdm's, which has no newline.
        assert_eq!(
            message("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]Killed"),
            Some(("killed".into(), KILLED.into()))
        );
        assert_eq!(
            message("shards: 0/2 [00:00<?, ?it/s]\rKilled"),
            Some(("killed".into(), KILLED.into()))
        );
        assert_eq!(message("[rank0] worker Killed"), None);
        assert_eq!(message("Killed").unwrap(), ("killed".into(), KILLED.into()));
        // diff2lip8: bash's report of a script's job the kernel killed, with
        // the command after it where the line had room for it.
        for line in [
            "scripts/inference.sh: line 40: 31738 Killed",
            "./run.sh: line 5:  1234 Killed                  python train.py --bs 8",
        ] {
            assert_eq!(message(line), Some(("killed".into(), KILLED.into())), "{line}");
        }
        for line in [
            "run.sh: line 5: 1234 Killed workers are restarted",
            "notes: line 5: killed 1234 Killed",
            "see: line 5: Killed",
            // An xtrace's echo, grep's file name, a status not padded as bash pads it.
            "+ echo run.sh: line 40: 31738 Killed",
            "logs/old.log:scripts/train.sh: line 40: 31738 Killed",
            "config.yaml: line 3: 12 Killed  workers are restarted",
        ] {
            assert_ne!(message(line), Some(("killed".into(), KILLED.into())), "{line}");
        }
        assert!(message("Killed process 4100 (python) total-vm:1000kB").is_none());
        assert!(message("[rank0] Killed by the watchdog, see above").is_none());
        // deepgcns50: PyCharm's line for a process the kernel killed.
        let (label, text) = message("Process finished with exit code 137 (interrupted by signal 9: SIGKILL)").unwrap();
        assert_eq!(label, "killed");
        assert!(text.ends_with("SIGKILL, as the shell reports it)"), "{text}");
        assert!(message("subprocess.CalledProcessError: Command 'x' returned non-zero exit status 137.").is_some());
        assert!(message("Process finished with exit code 1").is_none());
        // Windows' access violation is a crash, not a process that ended well.
        let (label, _) = message("Process finished with exit code -1073741819 (0xC0000005)").unwrap();
        assert_eq!(label, "crash");
    }

    #[test]
    fn a_cpp_exception_says_what_it_threw() {
        assert_eq!(
            message("  what():  CUDA error: an illegal memory access was encountered").unwrap(),
            (
                "C++ exception".into(),
                "CUDA error: an illegal memory access was encountered".into()
            )
        );
        assert!(Signal::from_label("C++ exception").unwrap().is_fatal());
        assert!(!Signal::from_label("loader error").unwrap().is_fatal());
    }
}
