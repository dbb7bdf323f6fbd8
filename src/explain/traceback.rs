//! Finds Python tracebacks in a log and takes them apart: frames (file, line,
//! function) and the exception each section ends with. Logs of distributed
//! jobs interleave the tracebacks of many ranks, each line behind a label
//! (`[rank3]: `, `worker-1: `, `(RayActor pid=7) `): the label in front of
//! `Traceback (most recent call last):` is learnt and the lines that carry it
//! are followed as one stream. Chained exceptions ("During handling of the
//! above exception", DataParallel's "Original Traceback") stay in one
//! traceback as sections. An exception line printed without a traceback still
//! counts, as a traceback without frames.
//!
//! Memory is bounded whatever the log: frames per section, sections per
//! traceback, open streams and distinct tracebacks are all capped.

use serde::Serialize;

use super::signals;
use crate::matrix::rule::System;
use crate::python_escape::{Escape, escape};

const HEADER: &str = "Traceback (most recent call last):";
const FRAME: &str = "File \"";
const ORIGINAL: &str = "Original ";
const CHAIN_SEPARATORS: [&str; 2] = [
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
];
/// Frames kept per section: the outermost few and the innermost rest, where
/// the failure is (a RecursionError prints thousands).
const KEEP_OUTER_FRAMES: usize = 16;
const MAX_FRAMES: usize = 128;
const MAX_SECTIONS: usize = 8;
/// Lines of an exception message after the first (CUDA errors add three;
/// xformers' `No operator found` lists its inputs and, under each operator,
/// the reasons it refused them: some thirty).
const MAX_MESSAGE_LINES: usize = 40;
/// NCCL's `Last error:` line follows the exception it explains within this
/// many lines (torch prints the error class's own line between them).
const REASON_WITHIN: usize = 3;
const MAX_MESSAGE_BYTES: usize = 4096;
/// Source lines kept after a frame, for a raise statement's message.
const MAX_SOURCE_BYTES: usize = 1024;
/// Non-frame lines tolerated inside a traceback before it is given up as cut off.
const MAX_STRAY_LINES: usize = 40;
const MAX_STREAMS: usize = 256;
/// Distinct tracebacks kept; more are counted, not stored.
const MAX_TRACEBACKS: usize = 512;
/// Distinct warnings (and other lines that are errors only when explained) kept.
const MAX_ADVISORIES: usize = 64;
/// Notes (pip's retries, skipped releases, build steps) kept of each kind: the latest.
const MAX_NOTES: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub file: String,
    pub line: Option<u32>,
    pub function: String,
}

impl Frame {
    /// Whether the frame is the pseudo-file `name` (`<string>`, `<stdin>`,
    /// `<fstring>`), or one whose name a forum's markdown dropped as a tag
    /// (`File ""`), which may have been it.
    pub fn may_be_pseudo_file(&self, name: &str) -> bool {
        self.file == name || self.file.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Raised {
    /// As printed: `RuntimeError`, `torch.OutOfMemoryError`.
    pub exception: String,
    pub message: String,
}

impl Raised {
    /// The class name without its module.
    pub fn class(&self) -> &str {
        self.exception.rsplit('.').next().unwrap_or(&self.exception)
    }

    /// The class and the base class the knowledge names it by, where it is
    /// one of [`BASE_CLASSES`]: an entry that lists `RuntimeError` knows
    /// torch 2.8's `torch.AcceleratorError` too.
    pub fn classes(&self) -> impl Iterator<Item = &str> {
        let class = self.class();
        let base = BASE_CLASSES
            .iter()
            .find(|(subclass, _)| *subclass == class)
            .map(|(_, base)| *base);
        std::iter::once(class).chain(base)
    }

    /// The kind of non-Python error line it was read from, if it was one.
    pub fn signal(&self) -> Option<signals::Signal> {
        signals::Signal::from_label(&self.exception)
    }

    /// Whether it ends a job by itself: a warning does not, nor does a line
    /// that jobs which finish also print (see [`signals::Signal::is_fatal`]).
    pub fn is_fatal(&self) -> bool {
        match self.signal() {
            Some(signal) => signal.is_fatal(),
            None => !self.class().ends_with("Warning"),
        }
    }
}

/// Exceptions raised in place of the class a message was raised as before,
/// and that class: torch 2.8 raises CUDA errors as `torch.AcceleratorError`
/// (pytorch/pytorch#152023: it inherits from RuntimeError), torch's
/// out-of-memory error is a RuntimeError raised as `OutOfMemoryError`, and
/// Python 3.6 raises a failed import of a module as `ModuleNotFoundError`,
/// an ImportError.
const BASE_CLASSES: [(&str, &str); 3] = [
    ("AcceleratorError", "RuntimeError"),
    ("OutOfMemoryError", "RuntimeError"),
    ("ModuleNotFoundError", "ImportError"),
];

/// Frames up to one raise; a chain has one section per exception.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Section {
    pub frames: Vec<Frame>,
    /// Frames left out of the middle of a very deep stack.
    #[serde(skip_serializing_if = "is_zero")]
    pub frames_omitted: usize,
    pub raised: Option<Raised>,
    /// The log stops before the exception line, and `raised` was read from
    /// the source of the raise statement the last frame shows.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub raised_from_source: bool,
    /// The `from M import N` statement printed just above the exception (the
    /// last frame's source, or the line before a lone exception line): an
    /// old Python's `cannot import name 'N'` leaves the module to it.
    #[serde(skip)]
    pub import_statement: Option<String>,
    /// The line of code the last frame printed above the exception as the
    /// one that ran (IPython's arrowed line, else the last, its `^^^`
    /// markers left out): for a SyntaxError, the line Python could not parse.
    #[serde(skip)]
    pub source_line: Option<String>,
    /// The line of code the frame before the last printed as the one that
    /// ran: the call that went into the last frame (`face_alignment.LandmarksType._3D`,
    /// where enum's `__getattr__` raised).
    #[serde(skip)]
    pub caller_source_line: Option<String>,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Traceback {
    /// The log line it starts on (1-based), of its first occurrence.
    pub line: usize,
    /// The label in front of each of its lines (`[rank0]: `), if any.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    pub sections: Vec<Section>,
    /// How many times the same traceback appears (every rank prints its own).
    pub occurrences: usize,
    /// The log line of its last occurrence.
    pub last_line: usize,
    /// The statements typed at a Python prompt (`>>> import torch`) before
    /// it, in the log's order: what ran in the session that raised it.
    #[serde(skip)]
    pub typed: Vec<String>,
    /// Python printed it under `Exception ignored in: ...`: raised where no
    /// one could catch it (a `__del__`, an atexit callback, a thread being
    /// torn down), reported and passed over; no job ends on it.
    #[serde(skip)]
    pub ignored: bool,
}

impl Traceback {
    /// An exception line printed without frames.
    pub fn bare(line: usize, raised: Raised) -> Traceback {
        Traceback {
            line,
            label: String::new(),
            sections: vec![Section {
                frames: Vec::new(),
                frames_omitted: 0,
                raised: Some(raised),
                raised_from_source: false,
                import_statement: None,
                source_line: None,
                caller_source_line: None,
            }],
            occurrences: 1,
            last_line: line,
            typed: Vec::new(),
            ignored: false,
        }
    }

    /// The exception that ended it: the last section's.
    pub fn raised(&self) -> Option<&Raised> {
        self.raising_section()?.raised.as_ref()
    }

    /// The section whose exception ended it, with the source line it printed.
    pub fn raising_section(&self) -> Option<&Section> {
        self.sections.iter().rev().find(|section| section.raised.is_some())
    }

    /// Whether it ended a job: a traceback cut before its exception did, a
    /// warning or a line finished jobs also print did not.
    pub fn is_fatal(&self) -> bool {
        self.raised().is_none_or(Raised::is_fatal)
    }

    pub fn frames(&self) -> impl Iterator<Item = &Frame> {
        self.sections.iter().flat_map(|section| &section.frames)
    }

    pub fn messages(&self) -> impl Iterator<Item = &Raised> {
        self.sections.iter().filter_map(|section| section.raised.as_ref())
    }

    /// Same exceptions and frames, wherever and however often they were printed.
    fn same_as(&self, other: &Traceback) -> bool {
        // A bare exception line is the same failure as a traceback ending in it.
        if self.frames().next().is_none() || other.frames().next().is_none() {
            return self.raised().is_some() && self.raised() == other.raised();
        }
        let same_section = |a: &Section, b: &Section| {
            a.raised == b.raised
                && a.frames.len() == b.frames.len()
                && a.frames
                    .iter()
                    .zip(&b.frames)
                    .all(|(a, b)| a.file == b.file && a.function == b.function)
        };
        self.sections.len() == other.sections.len()
            && self
                .sections
                .iter()
                .zip(&other.sections)
                .all(|(a, b)| same_section(a, b))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading frames.
    Frames,
    /// After the exception line: continuation lines of the message, and
    /// whether its first line was a stamped log record.
    Message { lines: usize, closed: bool, stamped: bool },
}

struct Stream {
    label: String,
    traceback: Traceback,
    phase: Phase,
    /// A chain separator was seen: the next header continues this traceback.
    chained: bool,
    stray_lines: usize,
    /// No line after the header carried the label yet.
    label_unconfirmed: bool,
    /// The source lines printed after the last frame (at most
    /// [`MAX_SOURCE_BYTES`]): a log cut before its exception line still
    /// shows what the raise statement says.
    source: String,
    /// The source lines the frame before the last printed.
    caller_source: String,
}

/// Collects the tracebacks of a log, fed one line at a time.
#[derive(Default)]
pub struct Collector {
    streams: Vec<Stream>,
    tracebacks: Vec<Traceback>,
    /// Tracebacks beyond [`MAX_TRACEBACKS`], counted only.
    dropped: usize,
    /// Warnings and other advisory lines stored (see [`MAX_ADVISORIES`]).
    advisories: usize,
    /// `IndexError: ` alone at the end of a line: its message is on the next line.
    pending: Option<(usize, String)>,
    /// Error messages known causes give, found even without an exception
    /// class in front (a pasted excerpt, a logger that prints only the message).
    known: Option<signals::KnownMessages>,
    /// Whether the line being read carried a time stamp, taken off it.
    stamped: bool,
    /// The line of the last exception printed without a traceback.
    last_bare_exception: Option<usize>,
    /// The last `from M import N` line seen and the last line number it
    /// reaches: the statement of a lone exception line printed right after
    /// it, or after IPython's context lines below its arrowed line.
    import_line: Option<(usize, String)>,
    /// An exception printed alone whose line stops mid-sentence, or ends in
    /// `:`, and how many lines were added to it: a terminal or a paste wrapped
    /// it, and the next line goes on with its message, or it announced a list.
    wrapped: Option<Wrapped>,
    /// The first line read whose own paths show the log ran on a system
    /// other than Linux (a Python warning's location under `/Users/`).
    system_sign: Option<(System, String)>,
    /// The frameworks the lines read show it ran.
    frameworks: super::frameworks::FrameworksShown,
    /// An exception's message printed above its frames (see [`Announced`]).
    announced: Option<Announced>,
    /// The last [`MAX_TYPED`] statements typed at a Python prompt.
    typed: Vec<String>,
    /// The line of the last `Exception ignored in: ...`: the traceback or
    /// exception line right after it is one Python passed over.
    ignored_at: Option<usize>,
}

/// How many statements typed at a prompt are kept: enough for a session
/// pasted into a report, bounded for a log of nothing else.
const MAX_TYPED: usize = 32;

/// The Python prompt, before a statement typed at it.
pub const PROMPT: &str = ">>> ";

impl Collector {
    pub fn new() -> Collector {
        Collector::default()
    }

    /// Whether no traceback is open and no line is awaited: a line with none
    /// of the marker's words can then be passed over unread.
    pub fn is_idle(&self) -> bool {
        self.streams.is_empty()
            && self.pending.is_none()
            && self.wrapped.is_none()
            && !matches!(self.announced, Some(Announced::Awaiting { .. }))
    }

    /// A collector that also takes a line holding one of `messages` for an error.
    pub fn knowing(messages: signals::KnownMessages) -> Collector {
        Collector {
            known: Some(messages),
            ..Collector::default()
        }
    }

    /// A line whose time stamp was taken off (see [`super::presentation`]).
    pub fn stamped_line(&mut self, number: usize, line: &str) {
        self.stamped = true;
        self.read(number, line);
        self.stamped = false;
    }

    pub fn line(&mut self, number: usize, line: &str) {
        self.read(number, line);
    }

    fn read(&mut self, number: usize, line: &str) {
        if self.system_sign.is_none() {
            self.system_sign = super::rank::system_sign_in_line(line);
        }
        self.frameworks.read(line);
        // A rank's label (`[rank1]: `, `0: `) is what tracebacks are routed
        // by; what reads a line's own words reads them after it, so that
        // interleaved ranks' `Killed` or loader lines are still read.
        let own = super::presentation::unlabelled(line);
        // Python's own line, which no message goes on into: it ends what
        // was printed before it under the same label.
        if own.trim_start().starts_with(IGNORED) {
            let label = &line[..line.len() - own.len()];
            if let Some(index) = self.streams.iter().position(|stream| stream.label == label) {
                self.close(index);
            }
            self.ignored_at = Some(number);
            self.wrapped = None;
            return;
        }
        if self.wrapped.is_some() && self.continue_wrapped(own) {
            return;
        }
        self.announce(number, own);
        if let Some(statement) = import_statement(own) {
            self.import_line = Some((number + 1, statement));
        } else if let Some(statement) = ipython_source_line(own)
            .and_then(|(arrowed, code)| arrowed.then_some(code))
            .and_then(import_statement)
        {
            // kashgari355: a paste that lost IPython's frame header keeps the
            // arrowed line, and IPython's context lines come before the exception.
            self.import_line = Some((number + IPYTHON_CONTEXT_LINES + 1, statement));
        }
        if let Some(statement) = own.trim_start().strip_prefix(PROMPT) {
            if self.typed.len() == MAX_TYPED {
                self.typed.remove(0);
            }
            self.typed.push(statement.trim_end().to_string());
            return;
        }
        // Most lines of a training log are none of this; say so cheaply.
        let signal = signals::may_be_signal(own) || self.known.as_ref().is_some_and(|known| known.is_in(own));
        if self.streams.is_empty() && self.pending.is_none() && !signal && !may_matter(line) {
            return;
        }
        let mut message_of_pending = false;
        if let Some((start, exception)) = self.pending.take() {
            // The next line is the message, unless it is a blank line or
            // starts something of its own: the exception then stands alone.
            let starts_something = line.contains(HEADER)
                || !frames_in(line).is_empty()
                || bare_exception_in(line).is_some()
                || signals::is_shells_report_of_a_signal(own);
            let message = if starts_something { "" } else { own.trim() };
            let message = message.to_string();
            if !starts_something && exception == signals::Signal::Nccl.label() {
                self.give_reason(start, &message);
            }
            self.keep(Traceback::bare(start, Raised { exception, message }));
            // Inside an open traceback the line is also the message's next
            // line: torch's NCCL errors end with "Last error:" and, on the
            // next line, NCCL's warning that names the cause.
            if !starts_something && self.streams.is_empty() {
                return;
            }
            message_of_pending = !starts_something;
        }
        if signal && !message_of_pending {
            self.signal(number, own);
        }
        if let Some(at) = line.find(HEADER) {
            self.header(number, line, at);
            return;
        }
        if is_ipython_header(line) {
            // IPython and Jupyter print the class before the header and no label.
            if let Some(index) = self.streams.iter().position(|stream| stream.label.is_empty()) {
                self.close(index);
            }
            self.open(number, String::new());
            return;
        }
        match self.route(line) {
            Some(index) => {
                let stream = &mut self.streams[index];
                let rest = match line.strip_prefix(stream.label.as_str()) {
                    Some(rest) => rest,
                    None => {
                        // The text before the header was a one-off (a time stamp), not a label.
                        if stream.label_unconfirmed {
                            stream.label.clear();
                        }
                        line
                    }
                };
                stream.label_unconfirmed = false;
                if !self.feed(index, number, rest) {
                    self.close(index);
                    self.unrouted(number, line);
                }
            }
            None => self.unrouted(number, line),
        }
    }

    /// A line no open traceback takes: frames whose header was cut off (a
    /// pasted excerpt, a scrolled terminal) start one; else it may be a lone
    /// exception line.
    fn unrouted(&mut self, number: usize, line: &str) {
        // pytest's and IPython's frames start at the line's first column, with
        // no label (IPython's header is lost when a paste starts at a frame).
        let label = if pytest_frame(line).is_some() || ipython_frame_at_line_start(line) {
            ""
        } else {
            let Some(at) = line.find(FRAME).filter(|_| !frames_in(line).is_empty()) else {
                self.bare_exception(number, super::presentation::unlabelled(line));
                return;
            };
            // A rank's label as launchers print it, with the blank they add
            // (`[rank1]: `), whatever the frame's own indent after it: a paste
            // that lost a space of it (`[rank0]:  File`) keeps its exception
            // line (`[rank0]: AttributeError`) in the same traceback.
            let own = super::presentation::unlabelled(line);
            if own.len() < line.len() {
                &line[..line.len() - own.len()]
            } else {
                // Else the label is what precedes the frame's two-space indent: `[rank1]: ` of `[rank1]:   File`.
                // An indent narrower than the frame's own (a paste that lost a space) is no label;
                // a wider one is the label of every line of the traceback (pip's subprocess output).
                let before = &line[..at];
                match before.strip_suffix("  ") {
                    Some(label) => label,
                    None if before.trim().is_empty() => "",
                    None => before,
                }
            }
        };
        self.open(number, label.to_string());
        let index = self.streams.len() - 1;
        self.streams[index].label_unconfirmed = false;
        self.feed(index, number, &line[label.len()..]);
    }

    /// Every traceback, in the order they were first seen.
    /// What the lines read show of the system the log ran on, if not Linux.
    pub fn system_sign(&self) -> Option<(System, String)> {
        self.system_sign.clone()
    }

    /// What the lines read show of the frameworks the log ran.
    pub fn frameworks_shown(&self) -> super::frameworks::FrameworksShown {
        self.frameworks.clone()
    }

    pub fn finish(mut self) -> (Vec<Traceback>, usize) {
        // A log that ends where an exception's message was to come keeps it.
        if let Some((start, exception)) = self.pending.take() {
            let message = String::new();
            self.keep(Traceback::bare(start, Raised { exception, message }));
        }
        while !self.streams.is_empty() {
            self.close(0);
        }
        (self.tracebacks, self.dropped)
    }

    fn header(&mut self, number: usize, line: &str, at: usize) {
        let before = &line[..at];
        let original = before.ends_with(ORIGINAL);
        let label = before.strip_suffix(ORIGINAL).unwrap_or(before).to_string();
        if let Some(index) = self.streams.iter().position(|stream| stream.label == label) {
            let stream = &mut self.streams[index];
            let continues = stream.chained || (original && matches!(stream.phase, Phase::Message { .. }));
            if continues && stream.traceback.sections.len() < MAX_SECTIONS {
                stream.traceback.sections.push(Section::default());
                stream.phase = Phase::Frames;
                stream.chained = false;
                stream.stray_lines = 0;
                return;
            }
            self.close(index);
        }
        self.open(number, label);
    }

    fn open(&mut self, number: usize, label: String) {
        if self.streams.len() >= MAX_STREAMS {
            self.close(0);
        }
        self.streams.push(Stream {
            label_unconfirmed: !label.is_empty(),
            label,
            traceback: Traceback {
                line: number,
                label: String::new(),
                sections: vec![Section::default()],
                occurrences: 1,
                last_line: number,
                typed: self.typed.clone(),
                ignored: self.ignored_at.is_some_and(|at| at + 1 == number),
            },
            phase: Phase::Frames,
            chained: false,
            stray_lines: 0,
            source: String::new(),
            caller_source: String::new(),
        });
    }

    /// The stream a line belongs to: the longest label it starts with; a line
    /// with no label goes to a stream whose label was never confirmed.
    fn route(&self, line: &str) -> Option<usize> {
        let labelled = self
            .streams
            .iter()
            .enumerate()
            .filter(|(_, stream)| !stream.label.is_empty() && line.starts_with(&stream.label))
            .max_by_key(|(_, stream)| stream.label.len())
            .map(|(index, _)| index);
        labelled
            .or_else(|| self.streams.iter().position(|stream| stream.label.is_empty()))
            .or_else(|| self.streams.iter().rposition(|stream| stream.label_unconfirmed))
    }

    /// Feeds one line (label removed) to a stream; `false` when the line
    /// belongs to no traceback and the stream has ended.
    fn feed(&mut self, index: usize, number: usize, rest: &str) -> bool {
        let stream = &mut self.streams[index];
        stream.traceback.last_line = number;
        let section = stream.traceback.sections.last_mut().expect("a traceback has a section");
        let mut frames = frames_in(rest);
        if frames.is_empty() {
            frames.extend(ipython_frame(rest).or_else(|| pytest_frame(rest)));
        }
        if !frames.is_empty() {
            if let Phase::Message { .. } = stream.phase {
                // Frames after the message without a header: another traceback cut short.
                return false;
            }
            let frames_on_line = frames.len();
            for frame in frames {
                push_frame(section, frame);
            }
            stream.stray_lines = 0;
            // Frames squashed onto one line printed no source between them:
            // the source before them is none of theirs.
            stream.caller_source = match frames_on_line {
                1 => std::mem::take(&mut stream.source),
                _ => String::new(),
            };
            stream.source.clear();
            return true;
        }
        let trimmed = rest.trim();
        match stream.phase {
            Phase::Frames => {
                // IPython marks the line that raised with an arrow: `-> 1787  raise ImportError(`.
                let ipython_arrow = trimmed.starts_with('-') && trimmed.trim_start_matches('-').starts_with('>');
                if (rest.starts_with([' ', '\t']) || ipython_arrow)
                    && !section.frames.is_empty()
                    && stream.source.len() + trimmed.len() < MAX_SOURCE_BYTES
                {
                    stream.source.push_str(trimmed);
                    stream.source.push('\n');
                }
                if rest.starts_with([' ', '\t']) || trimmed.is_empty() || trimmed.starts_with('[') {
                    // Source lines, `^^^^` markers, "[Previous line repeated N more times]".
                    return true;
                }
                if let Some(raised) = exception_line(rest).or_else(|| pytest_exception_line(rest)) {
                    section.raised = Some(raised);
                    section.import_statement = raising_import(&stream.source);
                    section.source_line = last_code_line(&stream.source);
                    section.caller_source_line = (section.frames.len() > 1)
                        .then(|| last_code_line(&stream.caller_source))
                        .flatten();
                    stream.phase = Phase::Message {
                        lines: 1,
                        closed: false,
                        stamped: self.stamped,
                    };
                    return true;
                }
                // A paste that lost its indentation (markdown outside a code
                // block): the line right after a frame is still its source.
                if stream.source.is_empty() && stream.stray_lines == 0 && !section.frames.is_empty() {
                    stream.source.push_str(trimmed);
                    stream.source.push('\n');
                    return true;
                }
                stream.stray_lines += 1;
                stream.stray_lines <= MAX_STRAY_LINES
            }
            Phase::Message { lines, closed, stamped } => {
                if CHAIN_SEPARATORS.contains(&trimmed) {
                    stream.chained = true;
                    stream.phase = Phase::Message {
                        lines,
                        closed: true,
                        stamped,
                    };
                    return true;
                }
                if trimmed.is_empty() {
                    stream.phase = Phase::Message {
                        lines,
                        closed: true,
                        stamped,
                    };
                    return true;
                }
                let raised = section.raised.as_mut().expect("a message follows a raise");
                // A log record after the message: a time stamp (one taken off
                // the line counts, unless the message had one too: every line
                // of the log carries it), `[rank0]`, `(pid=1)`.
                let log_record =
                    (self.stamped && !stamped) || rest.starts_with(|c: char| c.is_ascii_digit() || "[(<{".contains(c));
                if log_record
                    || signals::is_shells_report_of_a_signal(rest)
                    || ONE_LINE_MESSAGES.contains(&raised.class())
                    || closed
                    || lines >= MAX_MESSAGE_LINES
                    || raised.message.len() + rest.len() > MAX_MESSAGE_BYTES
                {
                    return false;
                }
                raised.message.push('\n');
                raised.message.push_str(rest);
                stream.phase = Phase::Message {
                    lines: lines + 1,
                    closed,
                    stamped,
                };
                true
            }
        }
    }

    fn close(&mut self, index: usize) {
        let mut stream = self.streams.remove(index);
        stream.traceback.label = stream.label;
        let announced = match self.announced.take() {
            Some(Announced::Message { last_line, message })
                if stream.traceback.line > last_line && stream.traceback.line <= last_line + ANNOUNCED_WITHIN =>
            {
                Some(message)
            }
            other => {
                self.announced = other;
                None
            }
        };
        if let Some(section) = stream
            .traceback
            .sections
            .last_mut()
            .filter(|section| section.raised.is_none())
        {
            match announced {
                Some(message) => {
                    section.raised = Some(Raised {
                        exception: ANNOUNCED_EXCEPTION.to_string(),
                        message,
                    });
                }
                None => {
                    section.raised = raise_statement(&stream.source);
                    section.raised_from_source = section.raised.is_some();
                }
            }
        }
        self.keep(stream.traceback);
    }

    /// Reads ComfyUI's report of a node that failed: `Error occurred when
    /// executing NODE:`, a blank line, the exception's message without its
    /// class, a blank line, then the frames, with no header and no
    /// exception line after them. The message is kept for those frames.
    fn announce(&mut self, number: usize, line: &str) {
        let trimmed = line.trim();
        if trimmed.starts_with(ANNOUNCEMENT) && trimmed.ends_with(':') {
            self.announced = Some(Announced::Awaiting { line: number });
            return;
        }
        match self.announced.take() {
            Some(Announced::Awaiting { line: announced }) if number <= announced + ANNOUNCED_WITHIN => {
                self.announced = if trimmed.is_empty() {
                    Some(Announced::Awaiting { line: announced })
                } else if frames_in(line).is_empty() && !line.contains(HEADER) {
                    Some(Announced::Message {
                        last_line: number,
                        message: trimmed.to_string(),
                    })
                } else {
                    None
                };
            }
            Some(Announced::Message { last_line, mut message })
                if number == last_line + 1
                    && !trimmed.is_empty()
                    && frames_in(line).is_empty()
                    && message.len() + trimmed.len() < MAX_MESSAGE_BYTES =>
            {
                message.push('\n');
                message.push_str(trimmed);
                self.announced = Some(Announced::Message {
                    last_line: number,
                    message,
                });
            }
            kept => self.announced = kept,
        }
    }

    /// A CUDA, NCCL, loader or C++ error line is kept as a bare exception of
    /// its own, besides whatever traceback it is part of: a Python exception
    /// line is not, since it is read as one already.
    fn signal(&mut self, number: usize, line: &str) {
        if let Some((start, raised)) = bare_exception_at(line) {
            // The exception is read as such; what a paste or a logger glued in
            // front of it on the same line (kiunet13: "`t >= 0 && t < n_classes`
            // failed. RuntimeError: cuDNN error: ...") is a line of its own,
            // printed before it, and may name the cause the exception hides.
            // A bare `Error:` or `Exception:` is no class but the same
            // sentence going on ("Could not load library X. Error: <why>").
            let before = line[..start].trim_end();
            let a_class = !EXCEPTION_SUFFIXES.contains(&raised.exception.as_str());
            if a_class
                && !before.is_empty()
                && (signals::may_be_signal(before) || self.known.as_ref().is_some_and(|known| known.is_in(before)))
            {
                self.signal(number, before);
            }
            return;
        }
        match signals::read(line) {
            Some(signals::SignalLine::Line(raised)) if raised.signal() == Some(signals::Signal::LibraryError) => {
                self.library_error(number, raised)
            }
            Some(signals::SignalLine::Line(raised)) => self.keep(Traceback::bare(number, raised)),
            Some(signals::SignalLine::OnNextLine(signal)) => self.pending = Some((number, signal.label().to_string())),
            None if !signals::logged_below_warning(line)
                && self.known.as_ref().is_some_and(|known| known.is_in(line)) =>
            {
                // A known message that ends in `:` (`xFormers was built for:`,
                // xformers' `No operator found for ... with inputs:`) announces
                // the lines below it, to a blank line, as an exception's does.
                // So does one a terminal or a paste cut mid-sentence.
                let raised = signals::known_message(line);
                let lists = raised.message.ends_with(':');
                let cut = stops_mid_sentence(&raised.message);
                self.keep(Traceback::bare(number, raised));
                if lists || cut {
                    self.wrapped = Some(Wrapped {
                        start: number,
                        added: 0,
                        lists,
                    });
                }
            }
            None => {}
        }
    }

    /// A library logs one failure as a run of error lines, the reason first
    /// and its consequences after (trtexec's `Error[9]: ... not supported by
    /// this TensorRT release.`, then `Engine could not be created`, `Building
    /// engine failed`): the run is one failure, under its first line.
    fn library_error(&mut self, number: usize, raised: Raised) {
        let run = self.tracebacks.last_mut().filter(|last| {
            last.last_line + 1 == number
                && last.frames().next().is_none()
                && last.raised().and_then(Raised::signal) == Some(signals::Signal::LibraryError)
        });
        if let Some(last) = run
            && let Some(first) = last.sections.last_mut().and_then(|section| section.raised.as_mut())
        {
            first.message.push('\n');
            first.message.push_str(&raised.message);
            last.last_line = number;
            return;
        }
        self.keep(Traceback::bare(number, raised));
    }

    /// NCCL's `Last error:` reason, on the line after it, is also the message
    /// of the exception printed alone just before (torch's "NCCL error in:
    /// ..., invalid usage" with its NCCL line, then `Last error:`): what the
    /// exception says last is why it was raised.
    fn give_reason(&mut self, last_error_line: usize, reason: &str) {
        let Some(line) = self.last_bare_exception else { return };
        if last_error_line > line + REASON_WITHIN {
            return;
        }
        let exception = self
            .tracebacks
            .iter_mut()
            .rev()
            .find(|traceback| traceback.last_line == line && traceback.frames().next().is_none());
        if let Some(raised) = exception.and_then(|traceback| traceback.sections.last_mut()?.raised.as_mut()) {
            raised.message.push_str("\nLast error:\n");
            raised.message.push_str(reason);
        }
        self.last_bare_exception = None;
    }

    fn bare_exception(&mut self, number: usize, line: &str) {
        match bare_exception_in(line) {
            Some(raised) if raised.message.is_empty() => self.pending = Some((number, raised.exception)),
            Some(raised) => {
                let cut = stops_mid_sentence(&raised.message);
                // `No operator found for ... with inputs:`: what it announces
                // is the lines below it, as inside a traceback.
                let lists = raised.message.trim_end().ends_with(':');
                let mut bare = Traceback::bare(number, raised);
                bare.sections[0].import_statement = self
                    .import_line
                    .take()
                    .filter(|(reach, _)| number <= *reach)
                    .map(|(_, statement)| statement);
                self.keep(bare);
                self.last_bare_exception = Some(number);
                if cut || lists {
                    self.wrapped = Some(Wrapped {
                        start: number,
                        added: 0,
                        lists,
                    });
                }
            }
            None => {}
        }
    }

    /// Adds `line` to the wrapped exception's message when it goes on with
    /// it: in lowercase, starting nothing of its own, within
    /// [`MAX_MESSAGE_LINES`]. `false` when the line is read as usual.
    fn continue_wrapped(&mut self, line: &str) -> bool {
        let Some(Wrapped { start, added, lists }) = self.wrapped.take() else {
            return false;
        };
        let next = line.trim();
        // A wrapped sentence goes on in lowercase, or indented under it (a
        // name such as `PyTorch (12.1).` may start the rest); a log record
        // after the message (`Epoch 3: loss 0.2`, a time stamp) does neither.
        // A list goes on to a blank line, whatever its lines start with.
        let goes_on = if lists {
            !next.is_empty()
        } else {
            next.chars().next().is_some_and(char::is_lowercase) || (line.starts_with([' ', '\t']) && !next.is_empty())
        };
        let starts_something = !goes_on
            || line.contains(HEADER)
            || !frames_in(line).is_empty()
            || bare_exception_in(line).is_some()
            || signals::is_shells_report_of_a_signal(line)
            || (!lists && signals::names_a_failure(line));
        if starts_something || added >= MAX_MESSAGE_LINES {
            return false;
        }
        let stored = self
            .tracebacks
            .iter_mut()
            .rev()
            .find(|traceback| traceback.line == start && traceback.frames().next().is_none())
            .and_then(|traceback| traceback.sections.last_mut()?.raised.as_mut());
        let Some(raised) = stored else { return false };
        if raised.message.len() + next.len() > MAX_MESSAGE_BYTES {
            return false;
        }
        raised.message.push('\n');
        raised.message.push_str(next);
        if lists || stops_mid_sentence(next) {
            self.wrapped = Some(Wrapped {
                start,
                added: added + 1,
                lists,
            });
        }
        true
    }

    fn keep(&mut self, mut traceback: Traceback) {
        if traceback.raised().is_none() && traceback.frames().next().is_none() {
            return;
        }
        // Python prints an exception it passed over without a traceback when it has none.
        traceback.ignored |= self.ignored_at.is_some_and(|at| at + 1 == traceback.line);
        // A note is read with the failure after it: the latest few of each
        // kind are kept, each where it was printed (a repeat is a new line,
        // not a count), and they take no warning's place, nor another kind's
        // (ten sdists' build steps keep the retry of the page that failed).
        let kind = |kept: &Traceback| {
            let raised = kept
                .raised()
                .filter(|raised| raised.signal() == Some(signals::Signal::Note))?;
            signals::note_kind(&raised.message)
        };
        if let Some(note) = kind(&traceback) {
            let same = |kept: &Traceback| kind(kept) == Some(note);
            if self.tracebacks.iter().filter(|kept| same(kept)).count() >= MAX_NOTES
                && let Some(oldest) = self.tracebacks.iter().position(same)
            {
                self.tracebacks.remove(oldest);
            }
            if self.tracebacks.len() < MAX_TRACEBACKS {
                self.tracebacks.push(traceback);
            }
            return;
        }
        // Warnings and lines finished jobs also print are errors only when a
        // known cause explains them: a few distinct ones are kept for that,
        // the rest neither stored nor counted, so a log of a million distinct
        // warnings costs no search through the stored ones each.
        let fatal = traceback.is_fatal();
        if !fatal && self.advisories >= MAX_ADVISORIES {
            return;
        }
        if let Some(seen) = self.tracebacks.iter_mut().find(|seen| seen.same_as(&traceback)) {
            seen.occurrences += 1;
            seen.last_line = seen.last_line.max(traceback.last_line);
            // A full traceback says more than the bare line it ends with.
            if seen.frames().next().is_none() && traceback.frames().next().is_some() {
                let occurrences = seen.occurrences;
                *seen = Traceback {
                    occurrences,
                    ..traceback
                };
            }
            return;
        }
        if self.tracebacks.len() >= MAX_TRACEBACKS {
            self.dropped += usize::from(fatal);
            return;
        }
        self.advisories += usize::from(!fatal);
        self.tracebacks.push(traceback);
    }
}

fn push_frame(section: &mut Section, frame: Frame) {
    if section.frames.len() >= MAX_FRAMES {
        section.frames.remove(KEEP_OUTER_FRAMES);
        section.frames_omitted += 1;
    }
    section.frames.push(frame);
}

/// Every `File "PATH", line N, in FUNCTION` in a line: ranks writing to one
/// terminal can put two on the same line.
fn frames_in(line: &str) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(FRAME) {
        const LINE: &str = "\", line ";
        let after = &rest[start + FRAME.len()..];
        let Some(end) = after.find(LINE) else { break };
        let file = &after[..end];
        let tail = &after[end + LINE.len()..];
        let digits = &tail[..tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len())];
        let tail = &tail[digits.len()..];
        let function = tail
            .strip_prefix(", in ")
            .map(|tail| tail.split_whitespace().next().unwrap_or_default())
            .unwrap_or_default();
        // An empty name is a pseudo-file's (`<stdin>`, `<string>`, `<fstring>`)
        // whose angle brackets a forum's markdown took for a tag and removed.
        if !digits.is_empty() {
            frames.push(Frame {
                file: file.to_string(),
                line: digits.parse().ok(),
                function: function.to_string(),
            });
        }
        rest = tail;
    }
    frames
}

/// What opens a traceback as IPython and Jupyter print it: the class, padding,
/// and the header without its colon (`ImportError      Traceback (most recent call last)`).
const IPYTHON_HEADER: &str = "Traceback (most recent call last)";

fn is_ipython_header(line: &str) -> bool {
    let line = line.trim_end();
    line.strip_suffix(IPYTHON_HEADER)
        .and_then(|before| before.strip_suffix("  "))
        .is_some_and(|before| is_exception_name(before.trim()))
}

/// An IPython frame where IPython prints it, at the line's first column.
fn ipython_frame_at_line_start(line: &str) -> bool {
    !line.starts_with(char::is_whitespace) && ipython_frame(line).is_some()
}

/// IPython's source lines carry their number, and an arrow on the line that
/// raised (`---> 10 from distributed.utils import parse_bytes`): the code,
/// and whether it is the arrowed line.
fn ipython_source_line(line: &str) -> Option<(bool, &str)> {
    let trimmed = line.trim_start();
    let after_arrow = trimmed.trim_start_matches('-');
    let (arrowed, rest) = match after_arrow.strip_prefix('>') {
        Some(rest) if after_arrow.len() < trimmed.len() => (true, rest.trim_start()),
        _ => (false, trimmed),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && rest[digits..].starts_with(' ')).then(|| (arrowed, rest[digits..].trim_start()))
}

/// The line of a frame's source that ran: IPython's arrowed line where
/// IPython printed the source (the lines around it are context), else the
/// last line that is code, not the `^^^` markers under it.
fn last_code_line(source: &str) -> Option<String> {
    let arrowed = source
        .lines()
        .filter_map(ipython_source_line)
        .find_map(|(arrowed, code)| arrowed.then_some(code));
    match arrowed {
        Some(code) => Some(code.to_string()),
        None => source
            .lines()
            .rev()
            .find(|line| !line.chars().all(|c| matches!(c, '^' | '~' | ' ')))
            .map(str::to_string),
    }
}

/// The import statement the raising line of a frame's source is: IPython's
/// arrowed line where IPython printed the source (the lines after it are
/// context), else the last `from M import N` shown.
fn raising_import(source: &str) -> Option<String> {
    let arrowed = source
        .lines()
        .filter_map(ipython_source_line)
        .find_map(|(arrowed, code)| arrowed.then_some(code));
    match arrowed {
        Some(code) => import_statement(code),
        None => source.lines().rev().find_map(import_statement),
    }
}

/// A frame as IPython prints it: `File /path/x.py:216, in func(args)` (IPython 8;
/// Spyder's console leaves the comma out, and a SyntaxError's frame names no
/// function: `File /path/x.py:1550`), or `/path/x.py in func(args)` and
/// `<ipython-input-3-5e2> in <module>()` (IPython 7; Colab wraps the path in a
/// link, `[/path/x.py](https://...) in f()`).
fn ipython_frame(line: &str) -> Option<Frame> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("File ").filter(|rest| !rest.starts_with('"')) {
        let (place, function) = match rest.split_once(", in ").or_else(|| rest.split_once(" in ")) {
            Some(split) => split,
            None if rest.contains(".py:") => (rest, ""),
            None => return None,
        };
        let (file, number) = place.rsplit_once(':')?;
        let number: u32 = number.parse().ok()?;
        return Some(Frame {
            file: file.to_string(),
            line: Some(number),
            function: function_name(function),
        });
    }
    let (place, function) = line.split_once(" in ")?;
    let file = match place.strip_prefix('[') {
        // Colab: `[PATH](URL)`.
        Some(linked) => linked.split_once("](")?.0,
        None => place,
    };
    let python_file = (file.starts_with(['/', '~']) || super::on_a_drive(file)) && file.ends_with(".py");
    let cell = file.starts_with("<ipython-input-") && file.ends_with('>');
    (python_file || cell).then(|| Frame {
        file: file.to_string(),
        line: None,
        function: function_name(function),
    })
}

/// pytest's words for where a frame is (`--tb=short`, and the import errors
/// of test collection): `.venv/lib/python3.11/site-packages/gensim/matutils.py:20: in <module>`.
const PYTEST_FRAME: &str = ": in ";

/// A frame as pytest prints it: the path, its line and the function, from
/// the line's first column.
fn pytest_frame(line: &str) -> Option<Frame> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (place, function) = line.trim_end().split_once(PYTEST_FRAME)?;
    let (file, number) = place.rsplit_once(':')?;
    if !file.ends_with(".py") || file.contains(char::is_whitespace) {
        return None;
    }
    Some(Frame {
        file: file.to_string(),
        line: Some(number.parse().ok()?),
        function: function_name(function),
    })
}

/// pytest's exception line, marked `E` and indented: `E   ImportError: cannot import name ...`.
fn pytest_exception_line(line: &str) -> Option<Raised> {
    exception_line(line.strip_prefix("E ")?.trim_start())
}

/// `func(self, x)` as a frame's function: the name before its arguments.
fn function_name(text: &str) -> String {
    let text = text.trim();
    // `<cell line: 1>()` keeps its angle brackets whole.
    let end = if text.starts_with('<') {
        text.find('>').map_or(text.len(), |at| at + 1)
    } else {
        text.find('(').unwrap_or(text.len())
    };
    text[..end].to_string()
}

/// `RuntimeError: message`, `torch.OutOfMemoryError: ...`, `KeyboardInterrupt`:
/// an exception line as Python prints it at the end of a traceback.
fn exception_line(line: &str) -> Option<Raised> {
    let (name, message) = match line.split_once(':') {
        Some((name, message)) => (name, message.strip_prefix(' ').unwrap_or(message)),
        None => (line.trim_end(), ""),
    };
    is_exception_name(name).then(|| Raised {
        exception: name.to_string(),
        message: message.trim_end().to_string(),
    })
}

/// The suffixes by which Python names its exception classes.
const EXCEPTION_SUFFIXES: [&str; 6] = ["Error", "Exception", "Exit", "Interrupt", "Iteration", "Warning"];

/// The words [`may_matter`] looks for, for a [`super::log::Marker`]: an
/// exception suffix right before a colon, a header, a frame.
pub fn marker_words() -> Vec<String> {
    EXCEPTION_SUFFIXES
        .iter()
        .map(|suffix| format!("{suffix}:"))
        .chain(repr_openings())
        // pytest's frame by its path's end: its `: in ` is in too many lines.
        .chain([
            IPYTHON_HEADER.to_string(),
            FRAME.to_string(),
            ".py:".to_string(),
            // IPython 7's frame, `/path/x.py in func(args)`.
            ".py in ".to_string(),
            PROMPT.to_string(),
            // `from M import N` right above a lone exception line: see `import_line`.
            " import ".to_string(),
            ANNOUNCEMENT.to_string(),
            IGNORED.to_string(),
        ])
        .collect()
}

/// How an exception's repr begins, as [`exception_repr_at`] reads it: a
/// class's suffix, its parenthesis and a quote.
fn repr_openings() -> impl Iterator<Item = String> {
    EXCEPTION_SUFFIXES
        .iter()
        .flat_map(|suffix| [format!("{suffix}('"), format!("{suffix}(\"")])
}

/// Exceptions whose message Python prints on one line, whatever the code
/// raised: a KeyError's is the key's repr (a newline in it is escaped), and
/// the import system's `No module named 'x'` is its own. The line after it
/// is the next thing the log printed (`wandb: Waiting for W&B process to
/// finish...`), not more of the message.
const ONE_LINE_MESSAGES: [&str; 2] = ["KeyError", "ModuleNotFoundError"];

/// How Python introduces an exception it reported and passed over
/// (`Exception ignored in: <function Foo.__del__ at 0x7f...>`; Python 3.13's
/// `Exception ignored in atexit callback: ...` and `... while ...`).
const IGNORED: &str = "Exception ignored ";

/// Whether a line outside any traceback could start one or be an exception
/// line: a header, a frame, or a colon right after an exception-like name.
fn may_matter(line: &str) -> bool {
    let bytes = line.as_bytes();
    memchr::memchr_iter(b':', bytes).any(|colon| {
        let before = &bytes[..colon];
        EXCEPTION_SUFFIXES
            .iter()
            .any(|suffix| before.ends_with(suffix.as_bytes()))
            || before.ends_with(b"Traceback (most recent call last)")
    }) || memchr::memmem::find(bytes, b"File \"").is_some()
        || memchr::memchr_iter(b'(', bytes).any(|open| {
            matches!(bytes.get(open + 1), Some(b'\'' | b'"'))
                && EXCEPTION_SUFFIXES
                    .iter()
                    .any(|suffix| bytes[..open].ends_with(suffix.as_bytes()))
        })
        || is_ipython_header(line)
        || pytest_frame(line).is_some()
        || ipython_frame_at_line_start(line)
}

/// The source lines IPython prints below a frame's arrowed line (its
/// default context is five lines around it), and a blank one.
const IPYTHON_CONTEXT_LINES: usize = 5;

/// `from M import N`, as printed, where `line` is one; M may be relative
/// (`from ._util import py3`: the importer is a module of the same package).
fn import_statement(line: &str) -> Option<String> {
    const MAX_STATEMENT_BYTES: usize = 256;
    let statement = line.trim();
    let (module, _) = statement.strip_prefix("from ")?.split_once(" import ")?;
    // After a relative import's leading dots (`..`, `._util`): nothing, or a dotted name.
    let named = module.trim_start_matches('.');
    let dotted = !module.is_empty()
        && (named.is_empty()
            || named
                .split('.')
                .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_')));
    (dotted && statement.len() <= MAX_STATEMENT_BYTES).then(|| statement.to_string())
}

/// A dotted identifier whose last part names an exception by Python's convention.
pub(super) fn is_exception_name(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or_default();
    let identifier = |part: &str| {
        part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    name.split('.').all(identifier)
        && EXCEPTION_SUFFIXES
            .iter()
            .any(|suffix| last.ends_with(suffix) && last.len() > suffix.len() || last == *suffix)
        && last.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// An exception printed on its own, anywhere in a line: `... ERROR RuntimeError: msg`.
fn bare_exception_in(line: &str) -> Option<Raised> {
    bare_exception_at(line).map(|(_, raised)| raised)
}

/// [`bare_exception_in`], with where the exception's class starts.
fn bare_exception_at(line: &str) -> Option<(usize, Raised)> {
    let line = line.trim_end();
    // Each `NAME: ` in the line, and `NAME:` at its very end (the message is on the next line).
    let colons = line
        .match_indices(": ")
        .map(|(at, _)| at)
        .chain(line.ends_with(':').then(|| line.len() - 1));
    for colon in colons {
        let name_start = class_name_start(line, colon);
        if names_a_class(&line[name_start..colon]) {
            return exception_line(&line[name_start..]).map(|raised| (name_start, raised));
        }
    }
    exception_repr_at(line)
}

/// Where the dotted name that ends at `end` of `line` starts.
fn class_name_start(line: &str, end: usize) -> usize {
    line[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.'))
        .map_or(0, |(at, c)| at + c.len_utf8())
}

/// An exception's class as printed: Python's convention, with a lowercase
/// letter somewhere, as classes are written (a word all in capitals is a
/// log's label).
fn names_a_class(name: &str) -> bool {
    is_exception_name(name) && name.chars().any(|c| c.is_ascii_lowercase())
}

/// An exception printed as its repr, as wrappers and loggers print the one
/// they caught: alone on a line (Hydra's `Error in call to target 'x':`, then
/// `TypeError("...")`), or after a colon (Ray's `Trial 00000 failed:
/// RuntimeError('CUDA error: ...')`, `failed with: ModuleNotFoundError("...")`).
/// A repr whose message ends in another exception's repr (Hydra's whole
/// `InstantiationException('...:\nTypeError("...")')`) is that innermost
/// exception: the wrapper only says where it was caught. Source that builds
/// one (`raise ImportError("...")`) is no such line.
fn exception_repr_at(line: &str) -> Option<(usize, Raised)> {
    let line = line.trim_end();
    // The first class that opens a literal is the repr, if any is: a later
    // one stands inside its literal, which runs to the line's end. One
    // attempt keeps a line of many such openings linear.
    let (name_start, open) = line.match_indices(['\'', '"']).find_map(|(quote, _)| {
        let open = quote.checked_sub(1).filter(|&open| line.as_bytes()[open] == b'(')?;
        let name_start = class_name_start(line, open);
        let before = line[..name_start].trim_end();
        // `lambda: RuntimeError('x')` is source that builds one, as `raise` is.
        let after_a_colon = before.ends_with(':') && !before.ends_with("lambda:");
        (names_a_class(&line[name_start..open]) && (before.is_empty() || after_a_colon)).then_some((name_start, open))
    })?;
    let (message, after) = whole_string_literal(&line[open + 1..])?;
    if after.trim() != ")" {
        return None;
    }
    let last = message.lines().last().unwrap_or_default();
    if let Some((_, inner)) = exception_repr_at(last).filter(|(start, _)| last[..*start].trim().is_empty()) {
        return Some((name_start, inner));
    }
    (!message.trim().is_empty()).then(|| {
        (
            name_start,
            Raised {
                exception: line[name_start..open].to_string(),
                message: message.trim_end().to_string(),
            },
        )
    })
}

/// A Python string literal at the start of `text` (`'...'` or `"..."`, as
/// repr writes one), unescaped, and what follows its closing quote.
fn whole_string_literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let (body, after, closed) = literal_body(&text[1..], quote);
    closed.then_some((body, after))
}

/// A string literal's body, from just after its opening `quote`, with its
/// escapes decoded as Python reads them (`\n`, `\x1b`, `\u00e9`), by the
/// project's one escape decoder; one it does not read (`\N{...}`) is kept as
/// written. Also what follows the body, and whether its closing quote was
/// found: one left open ends at its line's end.
fn literal_body(text: &str, quote: char) -> (String, &str, bool) {
    let mut body = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                let Some((at, escaped)) = chars.next() else {
                    return (body, "", false);
                };
                match escape(escaped, &text[at + escaped.len_utf8()..]) {
                    Escape::Char(code, taken) => {
                        body.push(code);
                        // What it took is ASCII digits, a character each.
                        for _ in 0..taken {
                            chars.next();
                        }
                    }
                    Escape::LineContinuation => {}
                    Escape::AsWritten | Escape::Refused(..) => {
                        body.push('\\');
                        body.push(escaped);
                    }
                }
            }
            c if c == quote => return (body, &text[at + c.len_utf8()..], true),
            '\n' => return (body, &text[at + 1..], false),
            c => body.push(c),
        }
    }
    (body, "", false)
}

/// What a raise statement in a frame's source says: `raise ImportError(
/// "... requires `accelerate>=0.20.1` ...")` gives the class and the string
/// literals passed to it, joined as Python joins adjacent literals (an
/// f-string's `{name}` is kept as written). `None` when no literal is passed:
/// a class alone, or a message held in a variable, says too little to stand
/// for the exception line.
fn raise_statement(source: &str) -> Option<Raised> {
    // The statement starts its line, after IPython's arrow and line number (`---> 1787`).
    let statement = |line: &str| {
        ipython_source_line(line)
            .map_or(line.trim_start(), |(_, code)| code)
            .starts_with("raise ")
    };
    let lines: Vec<&str> = source.lines().collect();
    let start = lines.iter().rposition(|line| statement(line))?;
    let text = lines[start..].join("\n");
    let after = &text[text.find("raise ")? + "raise ".len()..];
    let open = after.find('(')?;
    let exception = after[..open].trim();
    if !is_exception_name(exception) {
        return None;
    }
    let mut message = String::new();
    let mut rest = &after[open + 1..];
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth -= 1,
            '"' | '\'' => {
                let (literal, after, _) = literal_body(rest, c);
                message.push_str(&literal);
                rest = after;
            }
            _ => {}
        }
    }
    let message = message.trim().to_string();
    (!message.is_empty()).then(|| Raised {
        exception: exception.to_string(),
        message,
    })
}

/// Whether a message line stops where no sentence does: its last character
/// is a letter, so a wrapped line's next one goes on with it
/// (`... killed by signal: Bus` / `error. It is possible ...`).
fn stops_mid_sentence(message: &str) -> bool {
    message.trim_end().chars().next_back().is_some_and(char::is_alphabetic)
}

/// How ComfyUI (before its 2024 report format) begins the report of a node
/// that raised.
const ANNOUNCEMENT: &str = "Error occurred when executing ";

/// What an announced message is reported as: ComfyUI prints no class.
const ANNOUNCED_EXCEPTION: &str = "error message";

/// Lines from the announcement to its message, and from the message's last
/// line to the frames, at most (blank lines between them).
const ANNOUNCED_WITHIN: usize = 3;

/// An exception's message printed above its frames (ComfyUI's report, see
/// `Collector::announce`): awaited after the announcement, then kept until
/// the frames after it end.
#[derive(Debug, Clone)]
enum Announced {
    Awaiting { line: usize },
    Message { last_line: usize, message: String },
}

/// An exception printed alone whose message goes on below it (see
/// `Collector::wrapped`): its line, the lines added, and whether it announced
/// a list (ends in `:`) rather than being cut mid-sentence.
#[derive(Debug, Clone, Copy)]
struct Wrapped {
    start: usize,
    added: usize,
    lists: bool,
}

/// Every traceback in `text` (a whole log held in memory, such as a smoke step's).
pub fn parse(text: &str) -> Vec<Traceback> {
    let mut collector = Collector::new();
    for (index, line) in text.lines().enumerate() {
        collector.line(index + 1, line);
    }
    collector.finish().0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shell's report that the process then died on a signal is no line
    /// of the exception's message: `KeyError: 'gemma2'` stays the key alone.
    #[test]
    fn a_crash_after_the_exception_is_not_its_message() {
        let log = "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    main()\nKeyError: 'gemma2'\nSegmentation fault (core dumped)\n";
        let tracebacks = parse(log);
        let mut messages: Vec<&str> = tracebacks
            .iter()
            .filter_map(|traceback| traceback.raised())
            .map(|raised| raised.message.as_str())
            .collect();
        messages.sort_unstable();
        assert_eq!(
            messages,
            ["'gemma2'", "Segmentation fault (core dumped)"],
            "{tracebacks:#?}"
        );
    }

    /// A KeyError's message is the key's repr, one line: what the log
    /// printed next is no part of it.
    #[test]
    fn a_key_errors_message_is_one_line() {
        let log = "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    main()\nKeyError: 'gemma2'\nwandb: Waiting for W&B process to finish... (failed 1).\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks[0].raised().unwrap().message, "'gemma2'", "{tracebacks:#?}");
        let log = "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    main()\nValueError: two\nlines\n";
        assert_eq!(parse(log)[0].raised().unwrap().message, "two\nlines");
    }

    /// An exception Python reported and passed over, with its traceback or
    /// alone, is marked as such; the failure before it is not.
    #[test]
    fn an_exception_python_passed_over_is_marked() {
        let log = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\nRuntimeError: CUDA error: out of memory\nException ignored in: <function Pool.__del__ at 0x7f>\nTraceback (most recent call last):\n  File \"/usr/lib/python3.10/multiprocessing/pool.py\", line 268, in __del__\nTypeError: 'NoneType' object is not callable\nException ignored in atexit callback: <function _exit at 0x7f>\nKeyError: 'rank'\n";
        let tracebacks = parse(log);
        let ignored: Vec<(String, bool)> = tracebacks
            .iter()
            .map(|traceback| (traceback.raised().unwrap().exception.clone(), traceback.ignored))
            .collect();
        assert_eq!(
            ignored,
            [
                ("RuntimeError".to_string(), false),
                ("TypeError".to_string(), true),
                ("KeyError".to_string(), true)
            ],
            "{tracebacks:#?}"
        );
    }

    const PLAIN: &str = r#"Some log line
Traceback (most recent call last):
  File "/opt/train.py", line 10, in <module>
    main()
  File "/opt/venv/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 116, in forward
    return F.linear(input, self.weight, self.bias)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
next log line
"#;

    #[test]
    fn an_exception_awaiting_its_message_does_not_swallow_a_header_or_vanish_at_a_blank_or_the_end() {
        let tracebacks =
            parse("x KeyError:\nTraceback (most recent call last):\n  File \"a.py\", line 1, in f\nValueError: bad\n");
        let raised: Vec<(&str, &str)> = tracebacks
            .iter()
            .filter_map(|t| t.raised())
            .map(|r| (r.exception.as_str(), r.message.as_str()))
            .collect();
        assert_eq!(raised, [("KeyError", ""), ("ValueError", "bad")]);
        let alone = parse("IndexError: \n\nstep 2\n");
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].raised().unwrap().exception, "IndexError");
        // pipedream76: the launcher's last line, nothing after it.
        let last = parse("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ");
        assert_eq!(last.len(), 1, "{last:?}");
    }

    /// Spyder's console (selfeeg11): frames without the comma before `in`,
    /// and a SyntaxError's last frame with no function; its source line is kept.
    #[test]
    fn spyders_frames_and_a_syntax_errors_frame_are_read_with_its_line() {
        let log = "Traceback (most recent call last):\n\n  File /opt/conda/lib/python3.10/site-packages/IPython/core/interactiveshell.py:3553 in run_code\n    exec(code_obj, self.user_global_ns, self.user_ns)\n\n  File /opt/conda/lib/python3.10/site-packages/selfeeg/dataloading/load.py:1550\n    sample=self.currEEG[*first_dims_idx,:,-self.Nsample:]\n                        ^\nSyntaxError: invalid syntax\n";
        let found = &parse(log)[0];
        let frames: Vec<(&str, Option<u32>, &str)> = found
            .frames()
            .map(|frame| (frame.file.as_str(), frame.line, frame.function.as_str()))
            .collect();
        assert_eq!(
            frames,
            [
                (
                    "/opt/conda/lib/python3.10/site-packages/IPython/core/interactiveshell.py",
                    Some(3553),
                    "run_code"
                ),
                (
                    "/opt/conda/lib/python3.10/site-packages/selfeeg/dataloading/load.py",
                    Some(1550),
                    ""
                ),
            ]
        );
        assert_eq!(
            found.sections[0].source_line.as_deref(),
            Some("sample=self.currEEG[*first_dims_idx,:,-self.Nsample:]")
        );
    }

    /// A paste that lost its indentation keeps the line under each frame as its source.
    #[test]
    fn an_unindented_source_line_under_a_frame_is_still_its_source() {
        let log = "Traceback (most recent call last):\nFile \"L:\\env\\lib\\site-packages\\mne\\utils\\fetching.py\", line 11, in\nfrom urllib import parse, request\nImportError: cannot import name parse\n";
        let found = &parse(log)[0];
        assert_eq!(
            found.sections[0].import_statement.as_deref(),
            Some("from urllib import parse, request")
        );
    }

    /// The frame before the last one's source is the call into the last:
    /// none where that frame printed no source, and none where frames were
    /// squashed onto one line with no source between them.
    #[test]
    fn the_callers_source_is_the_frame_before_the_last_ones() {
        let frame = |file: &str, source: &str| format!("  File \"{file}\", line 3, in f\n{source}");
        let log = |frames: &[String]| {
            format!(
                "Traceback (most recent call last):\n{}AttributeError: _3D\n",
                frames.concat()
            )
        };
        let caller = |log: &str| parse(log)[0].sections[0].caller_source_line.clone();
        let enum_frame = frame(
            "/usr/lib/python3.8/enum.py",
            "    raise AttributeError(name) from None\n",
        );
        let three = log(&[
            frame("/home/u/train.py", "    main()\n"),
            frame(
                "/home/u/model.py",
                "    fa.LandmarksType._3D\n        ^^^^^^^^^^^^^^^\n",
            ),
            enum_frame.clone(),
        ]);
        assert_eq!(caller(&three).as_deref(), Some("fa.LandmarksType._3D"));
        let sourceless = log(&[
            frame("/home/u/train.py", "    fa.LandmarksType._3D\n"),
            frame("<string>", ""),
            enum_frame.clone(),
        ]);
        assert_eq!(caller(&sourceless), None);
        let alone = log(std::slice::from_ref(&enum_frame));
        assert_eq!(caller(&alone), None);
    }

    /// cootvideotext14: a forum's markdown took `<fstring>` and `<module>` for
    /// tags and dropped them. The frame is still one, and its line is still the
    /// SyntaxError's source; a `File ""` with no line number is not a frame.
    #[test]
    fn a_frame_whose_pseudo_file_name_markdown_dropped_is_still_a_frame() {
        let log = "Traceback (most recent call last):\nFile \"train.py\", line 6, in\nimport nntrainer\nFile \"\", line 1\n(cudnn.benchmark=)\n^\nSyntaxError: invalid syntax\n";
        let section = &parse(log)[0].sections[0];
        let files: Vec<_> = section.frames.iter().map(|frame| frame.file.as_str()).collect();
        assert_eq!(files, ["train.py", ""]);
        assert_eq!(section.source_line.as_deref(), Some("(cudnn.benchmark=)"));
        assert!(frames_in("File \"\", line x").is_empty());
    }

    #[test]
    fn a_plain_traceback_gives_its_frames_and_exception() {
        let tracebacks = parse(PLAIN);
        assert_eq!(tracebacks.len(), 1);
        let traceback = &tracebacks[0];
        assert_eq!(traceback.line, 2);
        let frames: Vec<_> = traceback.frames().map(|f| (f.function.as_str(), f.line)).collect();
        assert_eq!(frames, [("<module>", Some(10)), ("forward", Some(116))]);
        let raised = traceback.raised().unwrap();
        assert_eq!(raised.exception, "RuntimeError");
        assert!(
            raised.message.lines().next().unwrap().ends_with("cuda:0 and cpu!"),
            "{raised:?}"
        );
    }

    #[test]
    fn interleaved_ranks_are_told_apart_by_their_labels_and_counted_once() {
        let mut log = String::new();
        for line in PLAIN.lines().skip(1).take(7) {
            log.push_str(&format!("[rank0]: {line}\n[rank1]: {line}\n"));
        }
        let tracebacks = parse(&log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].occurrences, 2);
        assert_eq!(tracebacks[0].frames().count(), 2);
        assert_eq!(tracebacks[0].label, "[rank0]: ");
    }

    #[test]
    fn a_chain_and_dataparallels_original_traceback_stay_one_traceback() {
        let log = r#"Traceback (most recent call last):
  File "train.py", line 3, in <module>
    out = model(x)
  File "/x/site-packages/torch/nn/parallel/data_parallel.py", line 171, in forward
    outputs = self.parallel_apply(replicas, inputs, kwargs)
RuntimeError: Caught RuntimeError in replica 1 on device 1.
Original Traceback (most recent call last):
  File "/x/site-packages/torch/nn/parallel/parallel_apply.py", line 61, in _worker
    output = module(*input, **kwargs)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "train.py", line 9, in <module>
    raise SystemExit(1)
SystemExit: 1
"#;
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        let sections = &tracebacks[0].sections;
        assert_eq!(sections.len(), 3);
        assert_eq!(sections[1].frames[0].function, "_worker");
        assert!(
            sections[1]
                .raised
                .as_ref()
                .unwrap()
                .message
                .contains("cuda:1 and cuda:0")
        );
        assert_eq!(tracebacks[0].raised().unwrap().exception, "SystemExit");
    }

    /// torch's NCCL errors end with "Last error:" and NCCL's last warning on
    /// the next line, the one that names the cause: it is the message's.
    #[test]
    fn a_signal_line_inside_a_message_is_part_of_it() {
        let log = "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n\
                   torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n\
                   ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n\
                   Last error:\n\
                   Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\n";
        let tracebacks = parse(log);
        let with_frames = tracebacks.iter().find(|traceback| traceback.frames().next().is_some());
        let message = &with_frames.expect("the traceback is kept").raised().unwrap().message;
        assert!(
            message.ends_with("Last error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"),
            "{tracebacks:#?}"
        );
    }

    /// An exception printed alone keeps its one line (a log line after it is
    /// not its message, and a warning repeated between progress lines stays
    /// one warning); NCCL's `Last error:` reason a few lines later is the
    /// exception's, as torch prints it (D-FINE#289).
    #[test]
    fn an_exception_printed_alone_takes_only_nccls_reason() {
        let log = "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n\
                   ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n\
                   Last error:\n\
                   Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000\n";
        let tracebacks = parse(log);
        let error = tracebacks
            .iter()
            .find(|traceback| traceback.raised().unwrap().exception.ends_with("DistBackendError"))
            .unwrap();
        assert!(
            error
                .raised()
                .unwrap()
                .message
                .ends_with("Last error:\nDuplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000"),
            "{tracebacks:#?}"
        );
        let warnings: String = (0..100)
            .map(|epoch| format!("UserWarning: checkpointing without use_reentrant\nEpoch {epoch}: loss 0.{epoch}\n"))
            .collect();
        let tracebacks = parse(&warnings);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].occurrences, 100);
    }

    /// stellaen400mv511: xformers' refusal printed alone announces its inputs
    /// and each operator's reasons below it; they are its message, to the
    /// blank line. A message that announces nothing takes no next line.
    #[test]
    fn an_exception_alone_that_announces_a_list_keeps_it_to_a_blank_line() {
        let log = "NotImplementedError: No operator found for memory_efficient_attention_forward with inputs:\nquery : shape=(1, 14074, 16, 64) (torch.float32)\np : 0.0\nckF is not supported because:\ndevice=cpu (supported: {'cuda'})\n\nEpoch 2\n";
        let raised = parse(log)[0].raised().unwrap().clone();
        assert_eq!(raised.message.lines().count(), 5, "{raised:?}");
        assert!(
            raised.message.ends_with("device=cpu (supported: {'cuda'})"),
            "{raised:?}"
        );
        let plain = parse("ValueError: bad value.\nEpoch 2: loss 0.3\n");
        assert_eq!(plain[0].raised().unwrap().message, "bad value.", "{plain:?}");
    }

    #[test]
    fn a_message_keeps_its_continuation_lines_until_a_blank_line() {
        let log = "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nRuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some other API call.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n\nEpoch 2\n";
        let raised = parse(log)[0].raised().unwrap().clone();
        assert_eq!(raised.message.lines().count(), 3, "{raised:?}");
    }

    #[test]
    fn an_exception_printed_alone_counts_and_log_levels_do_not() {
        let log = "2024-05-01 10:00:00 ERROR train: RuntimeError: Expected all tensors to be on the same device\nERROR: something\nWARNING: not an exception\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].raised().unwrap().exception, "RuntimeError");
        assert!(tracebacks[0].frames().next().is_none());
    }

    #[test]
    fn a_time_stamp_before_the_header_is_not_taken_for_a_label() {
        let log = "2024-05-01 10:00:00 ERROR Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nValueError: bad\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].frames().count(), 1);
        assert_eq!(tracebacks[0].raised().unwrap().message, "bad");
    }

    #[test]
    fn an_exception_whose_message_is_on_the_next_line_is_joined() {
        let log =
            "    return torch._C._nn.cross_entropy_loss(input, target) IndexError: \nTarget -1 is out of bounds.\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        let raised = tracebacks[0].raised().unwrap();
        assert_eq!(
            (raised.exception.as_str(), raised.message.as_str()),
            ("IndexError", "Target -1 is out of bounds.")
        );
    }

    #[test]
    fn text_in_any_script_before_an_exception_is_no_obstacle() {
        let tracebacks =
            parse("2025-08-25 08:49:44 - ERROR - 任务执行失败: Caught RuntimeError in replica 1 on device 1.\n");
        assert!(tracebacks.is_empty(), "{tracebacks:#?}");
        let tracebacks = parse("任务执行失败:RuntimeError: boom\n");
        assert_eq!(tracebacks[0].raised().unwrap().message, "boom");
    }

    #[test]
    fn frames_indented_as_a_whole_and_without_their_header_keep_their_exception() {
        // pip prints a build's output six spaces in; the excerpt starts at a frame.
        let log = "        File \"/v/lib/python3.9/site-packages/torch/utils/cpp_extension.py\", line 413, in _check_cuda_version\n          raise RuntimeError(CUDA_MISMATCH_MESSAGE)\n      RuntimeError:\n      The detected CUDA version (10.1) mismatches the version that was used to compile\n      PyTorch (12.1). Please make sure to use the same CUDA versions.\n\n      [end of output]\n";
        let tracebacks = parse(log);
        let raised = tracebacks[0].raised().unwrap();
        assert_eq!(raised.exception, "RuntimeError", "{tracebacks:#?}");
        assert!(
            raised.message.contains("detected CUDA version (10.1)"),
            "{tracebacks:#?}"
        );
    }

    #[test]
    fn tracebacks_as_ipython_and_colab_print_them_keep_their_frames() {
        let colab = "---------------------------------------------------------------------------\nImportError                               Traceback (most recent call last)\n[<ipython-input-3-5e21d73333a1>](https://localhost:8080/#) in <cell line: 1>()\n----> 1 from awq import AutoAWQForCausalLM\n\n5 frames\n[/usr/local/lib/python3.10/dist-packages/awq/modules/linear.py](https://localhost:8080/#) in <module>\n      3 import torch.nn as nn\n----> 4 import awq_inference_engine  # with CUDA kernels\n\nImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n\n---------------------------------------------------------------------------\nNOTE: If your import is failing due to a missing package, you can\n";
        let tracebacks = parse(colab);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        let frames: Vec<(&str, &str)> = tracebacks[0]
            .frames()
            .map(|frame| (frame.file.as_str(), frame.function.as_str()))
            .collect();
        assert_eq!(
            frames,
            [
                ("<ipython-input-3-5e21d73333a1>", "<cell line: 1>"),
                (
                    "/usr/local/lib/python3.10/dist-packages/awq/modules/linear.py",
                    "<module>"
                )
            ]
        );
        assert!(tracebacks[0].raised().unwrap().message.starts_with("libcudart.so.12"));

        let ipython8 = "RuntimeError                              Traceback (most recent call last)\nCell In[4], line 1\n----> 1 model.generate()\n\nFile /opt/conda/lib/python3.9/site-packages/groundingdino/models/ms_deform_attn.py:53, in MultiScaleDeformableAttnFunction.forward(ctx, value)\n     52     ctx.im2col_step = im2col_step\n---> 53     output = _C.ms_deform_attn_forward(\n\nNameError: name '_C' is not defined\n";
        let tracebacks = parse(ipython8);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        let frame = tracebacks[0].frames().next().unwrap();
        assert_eq!(
            (frame.file.as_str(), frame.line, frame.function.as_str()),
            (
                "/opt/conda/lib/python3.9/site-packages/groundingdino/models/ms_deform_attn.py",
                Some(53),
                "MultiScaleDeformableAttnFunction.forward"
            )
        );
        assert_eq!(tracebacks[0].raised().unwrap().exception, "NameError");
        // Prose that ends in the words is no header.
        assert!(!is_ipython_header("see the Traceback (most recent call last)"));
    }

    #[test]
    fn frames_pasted_with_one_space_of_indent_and_no_header_still_make_a_traceback() {
        let log = " File \"/v/lib/python3.10/site-packages/apex/normalization/fused_layer_norm.py\", line 894, in forward\n    if torch.compiler.is_compiling():\nAttributeError: module 'torch.compiler' has no attribute 'is_compiling'\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].frames().count(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].raised().unwrap().exception, "AttributeError");
    }

    #[test]
    fn frames_whose_header_was_cut_off_still_make_a_traceback() {
        let log = "....\n  File \"/x/site-packages/deepspeed/runtime/zero/stage3.py\", line 2117, in unscale_and_clip_grads\n    self.fp32.grad.mul_(1. / combined_scale)\n**_Runt\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(
            tracebacks[0].frames().next().unwrap().function,
            "unscale_and_clip_grads"
        );
        assert!(tracebacks[0].raised().is_none());
    }

    #[test]
    fn ranks_of_a_cut_off_traceback_are_told_apart_by_the_labels_before_their_frames() {
        let mut log = String::from("....\n");
        for line in PLAIN.lines().skip(2).take(6) {
            log.push_str(&format!("[rank0]: {line}\n[rank1]: {line}\n"));
        }
        let tracebacks = parse(&log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].occurrences, 2);
        assert_eq!(tracebacks[0].frames().count(), 2);
        assert!(tracebacks[0].raised().is_some());
    }

    /// opensora773 under two torchrun ranks: a paste that lost one space of
    /// its frames' indent (` File`) gives `[rank0]:  File`, whose label is
    /// still torchrun's `[rank0]: `, so `[rank0]: AttributeError` ends it.
    #[test]
    fn ranks_of_a_paste_that_lost_an_indent_keep_their_exception() {
        let mut log = String::new();
        for line in [
            " File \"/e/site-packages/apex/normalization/fused_layer_norm.py\", line 894, in forward",
            "    if torch.compiler.is_compiling() or not input.is_cuda:",
            "AttributeError: module 'torch.compiler' has no attribute 'is_compiling'",
        ] {
            log.push_str(&format!("[rank0]: {line}\n[rank1]: {line}\n"));
        }
        let tracebacks = parse(&log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        assert_eq!(tracebacks[0].occurrences, 2);
        assert_eq!(
            tracebacks[0].raised().map(|raised| raised.class()),
            Some("AttributeError")
        );
    }

    #[test]
    fn two_frames_on_one_line_are_both_read() {
        let frames = frames_in(
            r#"    ret = f()  File "/a/deepspeed/runtime/zero/stage3.py", line 2117, in unscale_and_clip_grads  File "/b.py", line 3, in g"#,
        );
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].function, "unscale_and_clip_grads");
        assert_eq!(frames[1].file, "/b.py");
    }

    /// gensim3525: pytest's import error at test collection, `--tb=short`.
    #[test]
    fn a_traceback_as_pytest_prints_it_keeps_its_frames_and_exception() {
        let log = ".venv/lib/python3.11/site-packages/gensim/interfaces.py:19: in <module>\n    from gensim import utils, matutils\n.venv/lib/python3.11/site-packages/gensim/matutils.py:20: in <module>\n    from scipy.linalg import get_blas_funcs, triu\nE   ImportError: cannot import name 'triu' from 'scipy.linalg'\n";
        let tracebacks = parse(log);
        assert_eq!(tracebacks.len(), 1, "{tracebacks:#?}");
        let frames: Vec<&str> = tracebacks[0].frames().map(|frame| frame.file.as_str()).collect();
        assert_eq!(
            frames,
            [
                ".venv/lib/python3.11/site-packages/gensim/interfaces.py",
                ".venv/lib/python3.11/site-packages/gensim/matutils.py"
            ]
        );
        assert_eq!(tracebacks[0].raised().unwrap().exception, "ImportError");
        // Prose that says "in" after a colon is no frame.
        assert!(pytest_frame("note: in this case the loss is nan").is_none());
        assert!(pytest_frame("    x.py:3: in f").is_none());
    }

    #[test]
    fn a_recursion_keeps_its_outer_and_inner_frames_and_counts_the_rest() {
        let mut log = String::from("Traceback (most recent call last):\n");
        for index in 0..1000 {
            log.push_str(&format!("  File \"r.py\", line {index}, in f\n"));
        }
        log.push_str("RecursionError: maximum recursion depth exceeded\n");
        let traceback = &parse(&log)[0];
        let section = &traceback.sections[0];
        assert_eq!(section.frames.len(), MAX_FRAMES);
        assert_eq!(section.frames_omitted, 1000 - MAX_FRAMES);
        assert_eq!(section.frames.last().unwrap().line, Some(999));
        assert_eq!(section.frames[0].line, Some(0));
    }

    #[test]
    fn exception_names_follow_pythons_convention() {
        for name in [
            "RuntimeError",
            "torch.OutOfMemoryError",
            "KeyboardInterrupt",
            "SystemExit",
            "StopIteration",
        ] {
            assert!(is_exception_name(name), "{name}");
        }
        for name in ["ERROR", "Error code", "error", "INFO", "Epoch"] {
            assert!(!is_exception_name(name), "{name}");
        }
    }

    fn collected(lines: &[&str]) -> Vec<Traceback> {
        let known = signals::KnownMessages::new(["was built for:"]).unwrap();
        let mut collector = Collector::knowing(known);
        for (number, line) in lines.iter().enumerate() {
            collector.line(number + 1, line);
        }
        collector.finish().0
    }

    /// Hydra and Ray print the exception they caught as its repr: alone on a
    /// line, after a colon, or inside the wrapper's own repr; the innermost
    /// is the exception. Source that builds one, a repr in mid-sentence and
    /// one cut before its end are none.
    #[test]
    fn an_exception_printed_as_its_repr_is_read_as_its_line() {
        let read = |line: &str| bare_exception_in(line).map(|raised| (raised.exception, raised.message));
        let pair = |exception: &str, message: &str| Some((exception.to_string(), message.to_string()));
        assert_eq!(
            read("TypeError(\"SAM2Base.__init__() got an unexpected keyword argument 'samurai_mode'\")"),
            pair(
                "TypeError",
                "SAM2Base.__init__() got an unexpected keyword argument 'samurai_mode'"
            )
        );
        assert_eq!(
            read("MisconfigurationException('No supported gpu backend found!')"),
            pair("MisconfigurationException", "No supported gpu backend found!")
        );
        assert_eq!(
            read(
                "2021-01-08 13:27:13 [106fcdcc] Trial 00000 failed: RuntimeError('CUDA error: device-side assert triggered')"
            ),
            pair("RuntimeError", "CUDA error: device-side assert triggered")
        );
        assert_eq!(
            read(
                r#"InstantiationException('Error in call to target \'d.C\':\nTypeError("C.__init__() missing 1 required positional argument: \'path\'")')"#
            ),
            pair(
                "TypeError",
                "C.__init__() missing 1 required positional argument: 'path'"
            )
        );
        assert_eq!(
            read("    raise ImportError(\"This is the kaolin placeholder wheel\")"),
            None
        );
        assert_eq!(read("we got ValueError('x') and stopped"), None);
        assert_eq!(read("RuntimeError('CUDA error: device-side assert"), None);
        assert_eq!(read("RuntimeError()"), None);
        // Openings that never close: one attempt, not one per opening.
        assert_eq!(read(&"x: ValueError('".repeat(1000)), None);
        // repr's escapes: a colour code and a letter it spelled in hex.
        assert_eq!(
            read("RuntimeError('\\x1b[31mCUDA error: out of memory\\x1b[0m caf\\xe9')"),
            pair("RuntimeError", "\u{1b}[31mCUDA error: out of memory\u{1b}[0m caf\u{e9}")
        );
        assert_eq!(read("lambda: RuntimeError('boom')"), None);
        assert_eq!(
            read("SystemExit('training stopped')"),
            pair("SystemExit", "training stopped")
        );
        // A quote after a letter of more than one byte is no opening.
        assert_eq!(read("é'x' ValueError('ok')"), None);
        assert_eq!(read("错误: ValueError('ok')"), pair("ValueError", "ok"));

        let tracebacks = collected(&[
            "Error executing job with overrides: []",
            "Error in call to target 'pytorch_lightning.trainer.trainer.Trainer':",
            "MisconfigurationException('No supported gpu backend found!')",
        ]);
        let raised = tracebacks.last().and_then(Traceback::raised).expect("the repr is read");
        assert_eq!(raised.exception, "MisconfigurationException");
    }

    /// A raise statement's literals are read as a repr's are, by one reader:
    /// an escaped newline is a newline, not the letter n; a literal left open
    /// ends at its line.
    #[test]
    fn a_raise_statements_literals_are_decoded_as_a_reprs_are() {
        let raised = raise_statement("    raise ImportError(\"needs accelerate.\\nRun pip \" 'install it')\n").unwrap();
        assert_eq!(raised.message, "needs accelerate.\nRun pip install it");
        let open = raise_statement("    raise OSError('cut here\n    more)").unwrap();
        assert_eq!(open.message, "cut here");
    }

    /// kiunet13: the loss's assertion and the exception that followed it,
    /// pasted onto one line. Both are read, the assertion first; text before an
    /// exception that names nothing known stays unread.
    #[test]
    fn a_known_message_glued_before_an_exception_is_read_as_its_own_line() {
        let known = signals::KnownMessages::new(["t >= 0 && t < n_classes"]).unwrap();
        let mut collector = Collector::knowing(known);
        collector.line(
            1,
            "`t >= 0 && t < n_classes` failed. RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
        );
        let tracebacks = collector.finish().0;
        let raised: Vec<_> = tracebacks.iter().filter_map(Traceback::raised).collect();
        assert_eq!(raised.len(), 2, "{tracebacks:#?}");
        assert!(raised[0].message.contains("t >= 0 && t < n_classes"), "{raised:?}");
        assert_eq!(raised[1].exception, "RuntimeError");
        let alone = collected(&["step 3 failed. RuntimeError: boom"]);
        assert_eq!(alone.len(), 1, "{alone:#?}");
        // florencefinetuning2: `Error:` goes on with the sentence before it.
        let known = signals::KnownMessages::new(["Could not load library"]).unwrap();
        let mut collector = Collector::knowing(known);
        collector.line(1, "Could not load library libcudnn_cnn_train.so.8. Error: /x/libcudnn_cnn_train.so.8: undefined symbol: _ZN5cudnn3cnn");
        let one = collector.finish().0;
        assert_eq!(one.len(), 1, "{one:#?}");
    }

    /// titarlsim2sim2real7: trtexec's run of error lines is one failure,
    /// under the line that says why.
    #[test]
    fn a_run_of_a_librarys_error_lines_is_one_failure_under_its_first() {
        let tracebacks = collected(&[
            "[07/19/2025-23:34:55] [I] Finished parsing network model.",
            "[07/19/2025-23:34:55] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Target GPU SM 120 is not supported by this TensorRT release.)",
            "[07/19/2025-23:34:55] [E] Engine could not be created from network",
            "[07/19/2025-23:34:55] [E] Building engine failed",
            "&&&& FAILED TensorRT.trtexec [TensorRT v100700]",
            "[07/19/2025-23:34:56] [E] Another failure, later",
        ]);
        assert_eq!(tracebacks.len(), 2, "{tracebacks:#?}");
        let first = tracebacks[0].raised().unwrap();
        assert!(first.message.starts_with("Error[9]: IBuilder"), "{first:?}");
        assert!(first.message.ends_with("Building engine failed"), "{first:?}");
        assert_eq!(tracebacks[0].last_line, 4);
    }

    /// A known line ending in `:` announces what follows, to a blank line, as
    /// an exception's does (easyanimate11: xformers' operators and reasons).
    #[test]
    fn a_known_line_ending_in_a_colon_takes_the_lines_below_it_as_the_rest_of_its_message() {
        let found = collected(&[
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
            "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)",
            "    Python  3.10.13 (you have 3.10.12)",
            "",
            "Epoch 1",
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        let message = &found[0].raised().unwrap().message;
        assert!(
            message.ends_with(
                "was built for:\nPyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)\nPython  3.10.13 (you have 3.10.12)"
            ),
            "{message}"
        );
    }

    /// gagavatar21: a terminal cut torch's message inside the words a cause
    /// knows; the indented rest is the same message.
    #[test]
    fn a_known_line_cut_mid_sentence_takes_its_indented_rest() {
        let known = signals::KnownMessages::new(["The detected CUDA version ("]).unwrap();
        let mut collector = Collector::knowing(known);
        for (number, line) in [
            "The detected CUDA version (11.3) mismatches the version that was used to compile",
            "   PyTorch (12.1). Please make sure to use the same CUDA versions.",
            "Epoch 1",
        ]
        .iter()
        .enumerate()
        {
            collector.line(number + 1, line);
        }
        let found = collector.finish().0;
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .raised()
                .unwrap()
                .message
                .ends_with("compile\nPyTorch (12.1). Please make sure to use the same CUDA versions."),
            "{found:?}"
        );
    }

    #[test]
    fn a_log_that_ends_on_an_announcing_line_keeps_it() {
        let found = collected(&["xFormers was built for:"]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].raised().unwrap().message.ends_with("was built for:"));
    }
    /// fastaidockercontainers21: torch's message, alone, wrapped by a terminal.
    #[test]
    fn an_exception_line_wrapped_mid_sentence_takes_the_lines_that_go_on_with_it() {
        let found = parse(concat!(
            "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n",
            "error. It is possible that dataloader's workers are out of shared\n",
            "memory. Please try to raise your shared memory limit.\n",
            "Epoch 3 finished\n",
        ));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].raised().unwrap().message,
            "DataLoader worker (pid 47) is killed by signal: Bus\nerror. It is possible that dataloader's workers are out of shared\nmemory. Please try to raise your shared memory limit."
        );
        // A message that ends as a sentence does takes no line after it.
        let whole = parse("ValueError: learning rate is negative.\nEpoch 3 finished\n");
        assert_eq!(whole[0].raised().unwrap().message, "learning rate is negative.");
    }

    /// comfyuibrushnet11: ComfyUI's report of a failed node prints the
    /// exception's message, without its class, above frames that have no
    /// header and no exception line. A report with no message, and frames
    /// far from the message, keep none.
    #[test]
    fn a_message_comfyui_prints_above_its_frames_is_theirs() {
        let frames = concat!(
            "File \"/data/ComfyUI/execution.py\", line 151, in recursive_execute\n",
            "output_data, output_ui = get_output_data(obj, input_data_all)\n",
            "File \"/data/ComfyUI/custom_nodes/ComfyUI-BrushNet/brushnet_nodes.py\", line 62, in brushnet_loading\n",
            "brushnet_model = load_checkpoint_and_dispatch(\n",
        );
        let announced = "Error occurred when executing BrushNetLoader:\n\nload_checkpoint_and_dispatch() got an unexpected keyword argument 'force_hooks'\n\n";
        let found = parse(&format!("{announced}{frames}"));
        let with_frames: Vec<_> = found.iter().filter(|found| found.frames().next().is_some()).collect();
        assert_eq!(with_frames.len(), 1, "{found:?}");
        let raised = with_frames[0].raised().unwrap();
        assert_eq!(raised.exception, ANNOUNCED_EXCEPTION);
        assert_eq!(
            raised.message,
            "load_checkpoint_and_dispatch() got an unexpected keyword argument 'force_hooks'"
        );
        assert!(!with_frames[0].sections[0].raised_from_source);

        let no_message = parse(&format!("Error occurred when executing BrushNetLoader:\n\n{frames}"));
        assert!(
            no_message.iter().all(|found| found
                .raised()
                .is_none_or(|raised| raised.exception != ANNOUNCED_EXCEPTION)),
            "{no_message:?}"
        );
        let far = parse(&format!("{announced}step 1\nstep 2\nstep 3\nstep 4\n{frames}"));
        assert!(
            far.iter().all(|found| found
                .raised()
                .is_none_or(|raised| raised.exception != ANNOUNCED_EXCEPTION)),
            "{far:?}"
        );
    }

    /// transformers29174: Colab's traceback, cut inside the raise statement's source.
    #[test]
    fn a_log_cut_before_its_exception_line_is_read_from_the_raise_statement() {
        let found = parse(concat!(
            "ImportError                               Traceback (most recent call last)\n",
            "<ipython-input-26-cfdcb4612c2d> in <cell line: 1>()\n",
            "----> 1 training_args = TrainingArguments(\n",
            "      2     output_dir=\"my_awesome_food_model\",\n",
            "\n",
            "/usr/local/lib/python3.10/dist-packages/transformers/training_args.py in _setup_devices(self)\n",
            "   1786             if not is_accelerate_available(min_version=\"0.20.1\"):\n",
            "-> 1787                 raise ImportError(\n",
            "   1788                     \"Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: \"\n",
            "   1789                     'Please run `pip install accelerate -U`'\n",
        ));
        let section = found[0].sections.last().unwrap();
        assert!(section.raised_from_source);
        let raised = section.raised.as_ref().unwrap();
        assert_eq!(raised.exception, "ImportError");
        assert_eq!(
            raised.message,
            "Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: Please run `pip install accelerate -U`"
        );
    }

    /// danetdensepose2smpl8, conformer2: Python 3.6's `cannot import name 'N'`
    /// names no module; the statement above it does.
    #[test]
    fn the_import_statement_above_an_exception_is_kept() {
        let framed = parse(concat!(
            "File \"/home/me/DaNet/models/smpl.py\", line 7, in <module>\n",
            "    from smplx.body_models import ModelOutput\n",
            "ImportError: cannot import name 'ModelOutput'\n",
        ));
        let statement = framed[0].sections[0].import_statement.as_deref();
        assert_eq!(statement, Some("from smplx.body_models import ModelOutput"));
        let bare = parse("from torch._six import container_abcs\nImportError: cannot import name 'container_abcs'\n");
        let statement = bare[0].sections[0].import_statement.as_deref();
        assert_eq!(statement, Some("from torch._six import container_abcs"));
        // A relative module is kept: it says the importer is of the same package.
        let relative = parse("from .loader import LTRLoader\nImportError: cannot import name 'LTRLoader'\n");
        let statement = relative[0].sections[0].import_statement.as_deref();
        assert_eq!(statement, Some("from .loader import LTRLoader"));
        // Not the line right above: nothing to go by.
        let found = parse(
            "from torch._six import container_abcs\nsomething else\nImportError: cannot import name 'container_abcs'\n",
        );
        assert_eq!(found[0].sections[0].import_statement, None);
    }

    /// daskcuda55: a paste that starts at IPython 7's first frame, its header
    /// lost, and names the module only in the arrowed source line.
    #[test]
    fn an_ipython_traceback_without_its_header_is_read_with_its_arrowed_import() {
        let found = parse(concat!(
            "Result:\n",
            "/usr/local/lib/python3.6/site-packages/dask_cuda/local_cuda_cluster.py in <module>()\n",
            "      9 from distributed.worker import Worker, TOTAL_MEMORY\n",
            "---> 10 from distributed.utils import parse_bytes, warn_on_duration\n",
            "     11 \n",
            "     12 from dask.utils import format_bytes\n",
            "\n",
            "ImportError: cannot import name 'warn_on_duration'\n",
        ));
        let section = &found[0].sections[0];
        assert_eq!(section.frames.len(), 1, "{found:?}");
        assert_eq!(
            section.import_statement.as_deref(),
            Some("from distributed.utils import parse_bytes, warn_on_duration")
        );
        // Prose that names a file is no frame.
        assert!(parse("the error is in /home/me/x.py in my code\n").is_empty());
    }

    /// kashgari355: the paste lost even the frame's header line and starts at
    /// an arrowed source line; a numbered line that is not arrowed opens nothing.
    #[test]
    fn ipythons_arrowed_source_line_without_its_frame_is_still_the_raising_source() {
        let found = parse(concat!(
            "----> import kashgari\n",
            "      6 from kashgari import macros as k\n",
            "      7 from typing import Tuple, List\n",
            "----> 8 from tensorflow.python.keras.utils import get_file\n",
            "      9 from kashgari import utils\n",
            "ImportError: cannot import name 'get_file'\n",
        ));
        assert_eq!(found.len(), 1, "{found:#?}");
        let section = &found[0].sections[0];
        assert_eq!(
            section.raised.as_ref().map(|raised| raised.class()),
            Some("ImportError"),
            "{found:#?}"
        );
        assert_eq!(
            section.import_statement.as_deref(),
            Some("from tensorflow.python.keras.utils import get_file"),
            "{found:#?}"
        );
        assert!(parse("--> 8 steps done\n12 items\n").is_empty());
    }

    #[test]
    fn a_printed_exception_line_is_never_replaced_by_the_source() {
        let found = parse(concat!(
            "Traceback (most recent call last):\n",
            "  File \"/x/flash_attn/flash_attn_interface.py\", line 9, in forward\n",
            "    raise RuntimeError(\"FlashAttention only supports Ampere GPUs or newer.\")\n",
            "RuntimeError: the message as printed\n",
        ));
        let section = found[0].sections.last().unwrap();
        assert!(!section.raised_from_source);
        assert_eq!(section.raised.as_ref().unwrap().message, "the message as printed");
        // Cut before that line, the one source line stands for it.
        let found = parse(concat!(
            "Traceback (most recent call last):\n",
            "  File \"/x/flash_attn/flash_attn_interface.py\", line 9, in forward\n",
            "    raise RuntimeError(\"FlashAttention only supports Ampere GPUs or newer.\")\n",
        ));
        let raised = found[0].raised().unwrap();
        assert_eq!(raised.message, "FlashAttention only supports Ampere GPUs or newer.");
    }

    #[test]
    fn source_that_raises_no_literal_stands_for_nothing() {
        for source in [
            "    model.to(device)",
            "    raise RuntimeError(message)",
            "    raise",
            "    print(\"raise ValueError('no')\")",
        ] {
            let log = format!("Traceback (most recent call last):\n  File \"/x/a.py\", line 3, in f\n{source}\n");
            let found = parse(&log);
            assert!(
                found.iter().all(|traceback| traceback.raised().is_none()),
                "{source}: {found:?}"
            );
        }
    }
}
