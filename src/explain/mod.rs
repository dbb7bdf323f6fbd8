//! `envdoctor explain`: from a traceback or a whole training log to the most
//! likely cause on this node, with the fix. The log is read once, in bounded
//! memory ([`log`]); its tracebacks are taken apart ([`traceback`]) and each
//! distinct one is ranked against every rule and symptom entry with the node's
//! facts ([`rank`]). The traceback whose best cause is strongest is the one
//! explained; the last one in the log wins a tie, since that is the one that
//! ended the job.

mod copies;
mod device_wording;
pub mod encoding;
pub mod frameworks;
pub mod log;
mod marker;
pub mod node;
pub mod presentation;
pub mod rank;
mod readers;
mod references;
mod routine;
pub mod signals;
mod stdlib_modules;
mod symbol;
pub mod traceback;

use std::io::BufRead;

use serde::Serialize;

use crate::facts::Facts;
use crate::matrix::Matrix;
use crate::packaging::normalize_name;
pub use log::LogError;
pub use rank::{Candidate, Confidence};
use signals::Signal;
use traceback::{Collector, Raised, Traceback};

pub const SCHEMA: &str = "envdoctor.explain/1";

/// Other candidates shown after the answer.
const OTHER_CANDIDATES: usize = 6;
/// Other tracebacks of the log listed by their exception line.
const OTHER_TRACEBACKS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A cause was named: likely or near-certain on this node.
    Explained,
    /// Causes fit, but nothing in the traceback or the node tells them apart.
    Undecided,
    /// An error was found and no known cause fits it.
    Unexplained,
    /// The log holds no error: no traceback, and no exception or error line
    /// but warnings that predict nothing.
    NoError,
}

impl Outcome {
    pub fn is_explained(self) -> bool {
        self == Outcome::Explained
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub schema: &'static str,
    /// The log's path, or `-` for standard input.
    pub source: String,
    pub lines_read: usize,
    pub bytes_read: u64,
    /// Distinct tracebacks (and lone exception lines) found.
    pub tracebacks_found: usize,
    pub outcome: Outcome,
    /// The traceback explained (or, when nothing fits, the last one).
    pub traceback: Option<Explained>,
    /// Causes, best first; ruled-out ones last.
    pub candidates: Vec<Candidate>,
    /// When no cause is named: what would decide between those that fit
    /// (a fact of the node the job ran on, a fuller log, a flag).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub to_decide: Vec<String>,
    /// Set when the node's facts were probed here and the log ran elsewhere:
    /// they neither confirm nor rule out a cause, and this says so once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_facts: Option<String>,
    pub other_tracebacks: Vec<OtherTraceback>,
}

/// What a traceback says, with the packages its frames belong to.
#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    pub line: usize,
    pub last_line: usize,
    pub occurrences: usize,
    pub exception: Option<String>,
    pub message: Option<String>,
    /// The log stops before the exception line: `exception` and `message`
    /// are what the raise statement in the last frame's source says.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub message_from_source: bool,
    pub devices: Vec<String>,
    pub frames: Vec<FrameFact>,
    /// The installed distributions the frames run through, outermost first.
    pub packages: Vec<PackageFact>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FrameFact {
    pub file: String,
    pub line: Option<u32>,
    pub function: String,
    /// The import package the file belongs to (`deepspeed`), `python` for the
    /// standard library, absent for the job's own code.
    pub package: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackageFact {
    pub name: String,
    /// Its version on this node; absent when not installed here, or when the
    /// log ran another copy than this node's, or on another node.
    pub version: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OtherTraceback {
    pub line: usize,
    pub occurrences: usize,
    pub exception: Option<String>,
    pub message: Option<String>,
    pub best: Option<String>,
}

/// Where the facts a log is judged with come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactsFrom {
    /// A Snapshot the user says is the log's node (`--snapshot`).
    TheLogsNode,
    /// A probe of the node explain runs on, which may not be where the log ran.
    ThisNode,
}

/// Error and warning lines before a traceback that weigh on its causes, at most.
const CONTEXT_LINES: usize = 32;

/// Exceptions that end a job for a reason outside it, or for a failure
/// printed before them: Ctrl-C, sys.exit, and (see [`CHILD_SUMMARIES`])
/// torchrun's and accelerate's summaries of a child process that failed.
const INTERRUPTIONS: [&str; 2] = ["KeyboardInterrupt", "SystemExit"];

/// The job endings that only report a child process that failed: what the
/// child printed before them is why.
const CHILD_SUMMARIES: [&str; 2] = ["ChildFailedError", "CalledProcessError"];

fn is_job_ending(class: &str) -> bool {
    INTERRUPTIONS.contains(&class) || CHILD_SUMMARIES.contains(&class)
}

/// Reads the whole log and explains it.
pub fn explain<'r, R: BufRead + 'r>(
    reader: R,
    source: &str,
    matrix: &Matrix,
    facts: &Facts,
    from: FactsFrom,
) -> Result<Explanation, LogError> {
    Explainer::new(matrix).explain(reader, source, facts, from)
}

/// What every log is searched for, made once from the knowledge: its causes'
/// messages, the automaton that finds them in lines, and the marker of lines
/// worth reading. A caller that explains many logs against one matrix (a test
/// over a corpus) makes it once: in a debug build, making it was most of what
/// explaining a short log cost.
pub struct Explainer<'m> {
    matrix: &'m Matrix,
    known: Option<signals::KnownMessages>,
    marker: Option<log::Marker>,
}

impl<'m> Explainer<'m> {
    pub fn new(matrix: &'m Matrix) -> Explainer<'m> {
        let messages = known_messages(matrix);
        let known = signals::KnownMessages::new(messages.iter().copied());
        let marker = line_marker(&messages);
        Explainer { matrix, known, marker }
    }

    /// The log `reader` holds, explained on the node `facts` describe.
    pub fn explain<'r, R: BufRead + 'r>(
        &self,
        reader: R,
        source: &str,
        facts: &Facts,
        from: FactsFrom,
    ) -> Result<Explanation, LogError> {
        let matrix = self.matrix;
        let mut collector = match self.known.clone() {
            Some(known) => Collector::knowing(known),
            None => Collector::new(),
        };
        let marker = &self.marker;
        let (start, reader) = encoding::peek(Box::new(reader), log::SNIFF)?;
        let presented = presentation::Presentation::of(&start, start.len() < log::SNIFF);
        let lines = match &marker {
            Some(marker) => log::Lines::marked_by(reader, marker),
            None => log::Lines::new(reader),
        };
        let mut lines = lines.presented_as(presented);
        let mut pasted = PastedText::default();
        let mut bytes_before = 0;
        while lines.advance(!collector.is_idle() || pasted.reading(lines.bytes_read()))? {
            let number = lines.line_number();
            // The line's bytes as written, its wrapping and line end included.
            let line_bytes = lines.bytes_read() - bytes_before;
            bytes_before = lines.bytes_read();
            if pasted.reading(lines.bytes_read()) {
                pasted.line(number, lines.text(), line_bytes);
            }
            if !lines.marked() && collector.is_idle() {
                continue;
            }
            match lines.text_and_stamp() {
                (line, true) => collector.stamped_line(number, line),
                (line, false) => collector.line(number, line),
            }
        }
        let (lines_read, bytes_read) = (lines.lines_read(), lines.bytes_read());
        let system_sign = collector.system_sign();
        let frameworks = collector.frameworks_shown();
        let (tracebacks, dropped) = collector.finish();

        let judge = match from {
            FactsFrom::TheLogsNode => rank::Judge::new(matrix, Some(facts)),
            FactsFrom::ThisNode => rank::Judge::new(matrix, Some(facts)).facts_probed_here(),
        }
        .ran_on(system_sign)
        .showing(frameworks);
        // Lines printed without a traceback (warnings, loader and NCCL lines, a
        // known message): the context that weighs on what failed after them. Not
        // a line its printer logged as a warning: the job went on past it
        // (torch's c10d binds `0.0.0.0` after `[W socket.cpp] ... [::]:29500 ...
        // Address already in use`).
        //
        // The readers of a failure read such lines printed before it (the last
        // CONTEXT_LINES), warnings and notes too: pip's `WARNING: Retrying` says
        // the index it then reports empty was never read.
        let bare: Vec<(usize, bool, String)> = tracebacks
            .iter()
            .filter(|traceback| traceback.frames().next().is_none())
            .filter_map(|traceback| {
                let raised = traceback.raised()?;
                let weighs = !matches!(raised.signal(), Some(Signal::LoggedWarning | Signal::Note));
                Some((traceback.line, weighs, raised.message.clone()))
            })
            .collect();
        // A warning, or a line jobs that finish also print, is an error only when
        // a known cause explains it; the rest predict nothing and are not counted,
        // unless the log holds nothing else: then the line a cause may explain is
        // what there is to go on, and it is shown as not decided, not as no error.
        let (mut ranked, passed_over): (Vec<(Traceback, Vec<Candidate>)>, Vec<_>) = tracebacks
        .into_iter()
        // A note is read with the failure after it, and is none itself.
        .filter(|traceback| traceback.raised().and_then(Raised::signal) != Some(Signal::Note))
        .map(|traceback| {
            let own: Vec<&str> = traceback.messages().map(|raised| raised.message.as_str()).collect();
            let before = |weighing_only: bool| {
                let mut lines: Vec<String> = bare
                    .iter()
                    .filter(|(line, weighs, text)| {
                        *line < traceback.line && (*weighs || !weighing_only) && !own.contains(&text.as_str())
                    })
                    .map(|(_, _, text)| text.clone())
                    .collect();
                lines.dedup();
                lines.split_off(lines.len().saturating_sub(CONTEXT_LINES))
            };
            let earlier = rank::Earlier {
                errors: before(true),
                printed: before(false),
            };
            let mut candidates = judge.rank_in(&traceback, &earlier);
            if loader_line_logged_as_warning(&traceback) {
                at_most_possible(&mut candidates, "its printer logged the loader's words as a warning: jobs go on without an optional library (TensorFlow without TensorRT's), so the line alone does not say what failed");
            }
            (traceback, candidates)
        })
        .partition(|(traceback, candidates)| {
            traceback.is_fatal() || candidates.first().is_some_and(|best| best.confidence.is_answer())
        });
        if ranked.is_empty() {
            ranked = passed_over
                .into_iter()
                .filter(|(_, candidates)| {
                    candidates
                        .first()
                        .is_some_and(|best| best.confidence > Confidence::RuledOut)
                })
                .collect();
        }
        let tracebacks_found = ranked.len() + dropped;
        // Two kinds of traceback are no failure of their own, and the log is
        // judged as if they were not there; alone, they are what there is. A
        // launcher's summary of a child that failed (torchrun's
        // ChildFailedError, accelerate's CalledProcessError): the child failed
        // for what the log printed before it, unless the summary's own words
        // answer why (`returned non-zero exit status 137`: the child was
        // killed). An exception Python passed over (`Exception ignored in:
        // <function _MultiProcessingDataLoaderIter.__del__>` as the
        // interpreter shut down after the failure).
        let no_failure_of_its_own = |(traceback, candidates): &(Traceback, Vec<Candidate>)| {
            traceback.ignored
                || (traceback
                    .raised()
                    .is_some_and(|raised| CHILD_SUMMARIES.contains(&raised.class()))
                    && !candidates.first().is_some_and(|best| best.confidence.is_answer()))
        };
        if ranked.iter().any(|ranked| !no_failure_of_its_own(ranked)) {
            ranked.retain(|ranked| !no_failure_of_its_own(ranked));
        }
        // The strongest answer; among equals, the traceback printed last, and of
        // two that end on the same line the one that starts last: NCCL's "Last
        // error:" line, the reason for the exception it ends.
        let strength = |candidates: &[Candidate]| {
            candidates
                .first()
                .filter(|best| best.confidence > Confidence::RuledOut)
                .map(|best| (best.confidence, best.score))
        };
        // A paste with no error line (an error's message copied without its
        // class, a library's own words) is read as one message: a cause it names
        // is an answer; else there is no error.
        // A paste in an error's own words that no cause fits is an error still:
        // not explained, never "no error found".
        if ranked.is_empty()
            && let Some(traceback) = pasted.as_message(bytes_read)
        {
            let candidates = judge.rank(&traceback);
            if candidates
                .first()
                .is_some_and(|best| best.confidence > Confidence::RuledOut)
                || pasted.reads_as_an_error()
            {
                ranked.push((traceback, candidates));
            }
        }
        // Of two answers equally sure, the one to an error outdoes the one to a
        // warning printed near it (torchvision's image-extension warning after
        // the error that ended the job), unless the error's own candidates list
        // the warning's answer: then the warning says why the error happened
        // (torch's `sm_120 is not compatible` pasted after `no kernel image`).
        // `by_its_own_lines`: not only through an earlier line of the log, unless
        // that line made the cause an answer there (the error is one that cause
        // leads to: see `rank`'s `message_known`).
        // `counts`: which errors may be the one, by index and traceback (never
        // the line giving the answer, which is no error it explains).
        let explains_an_error =
            |answer: &Candidate, by_its_own_lines: bool, counts: &dyn Fn(usize, &Traceback) -> bool| {
                ranked.iter().enumerate().any(|(index, (traceback, candidates))| {
                    counts(index, traceback)
                        && traceback.is_fatal()
                        && candidates.iter().any(|candidate| {
                            candidate.id == answer.id
                                && candidate.confidence > Confidence::RuledOut
                                && !(by_its_own_lines
                                    && candidate.rests_on_an_earlier_line_only()
                                    && !candidate.confidence.is_answer())
                        })
                })
            };
        // A loader's complaint is also printed by jobs that go on without the
        // library (ONNX Runtime falls back to the CPU), and a line logged as a
        // warning by jobs that go on past it: before an error that ended the job
        // either is no answer, unless that error's own lines, not only the line
        // before it, point to the same cause.
        //
        // So is any bare error line when a Python traceback with an exception of
        // its own ended the job after it (`python_only`): the job went on past the
        // line, and a traceback whose own lines do not point to the line's cause
        // (`KeyError: 'model'` in the job's code) failed for a reason of its own.
        // A traceback cut before its exception may be the line's own, printed
        // again; an interruption, an exit or a launcher's summary of a child that
        // failed ends a job whatever failed before it.
        let an_error_ended_the_job_after = |line: &Traceback, python_only: bool| {
            ranked.iter().any(|(traceback, _)| {
                let own_python_failure = || {
                    traceback.frames().next().is_some()
                        && traceback.raised().is_some_and(|raised| !is_job_ending(raised.class()))
                };
                traceback.is_fatal() && traceback.line > line.last_line && (!python_only || own_python_failure())
            })
        };
        let chosen = (0..ranked.len()).max_by_key(|&index| {
            let (traceback, candidates) = &ranked[index];
            let stands = traceback.is_fatal()
                || candidates
                    .first()
                    .is_some_and(|best| explains_an_error(best, false, &|other, _| other != index));
            let gone_past = match traceback.raised().and_then(Raised::signal) {
                // A line of what the job went on without (a shell's missing
                // command, Warp's old driver) is no failure where a Python
                // one, before or after it, or a fatal line after it ended the
                // job; but not a build's failure or a child's exit status,
                // which are its consequence (`gcc: command not found`, then
                // `error: command '/usr/bin/gcc' failed with exit code 127`).
                Some(Signal::LoggedWarning) if readers::is_gone_on(traceback) => ranked.iter().any(|(other, _)| {
                    let Some(raised) = other.raised() else { return false };
                    let consequence = matches!(raised.signal(), Some(Signal::Build)) || is_job_ending(raised.class());
                    let python = other.frames().next().is_some();
                    other.is_fatal() && !consequence && (python || other.line > traceback.last_line)
                }),
                Some(Signal::Loader | Signal::LoggedWarning) => an_error_ended_the_job_after(traceback, false),
                _ => traceback.frames().next().is_none() && an_error_ended_the_job_after(traceback, true),
            };
            // Only an error after the line, and not gone past itself, can say
            // the job failed for its cause: other lines like it (pip's report
            // lists each unmet requirement on a line of its own) were gone past
            // as well.
            let later_and_not_gone_past = |other: usize, later: &Traceback| {
                other != index
                    && later.line > traceback.last_line
                    && !(later.frames().next().is_none() && an_error_ended_the_job_after(later, true))
            };
            let passed_over = gone_past
                && !candidates
                    .first()
                    .is_some_and(|best| explains_an_error(best, true, &later_and_not_gone_past));
            let strength = strength(candidates);
            (
                !passed_over,
                strength.map(|(confidence, _)| confidence),
                stands,
                strength.map(|(_, score)| score),
                traceback.last_line,
                traceback.line,
            )
        });
        let Some(chosen) = chosen else {
            return Ok(Explanation {
                schema: SCHEMA,
                source: source.to_string(),
                lines_read,
                bytes_read,
                tracebacks_found,
                outcome: Outcome::NoError,
                traceback: None,
                candidates: Vec::new(),
                to_decide: Vec::new(),
                node_facts: None,
                other_tracebacks: Vec::new(),
            });
        };
        let (traceback, mut candidates) = ranked.remove(chosen);
        let best = candidates.first().map(|best| best.confidence);
        let outcome = match best {
            Some(confidence) if confidence.is_answer() => Outcome::Explained,
            Some(Confidence::Possible) => Outcome::Undecided,
            _ => Outcome::Unexplained,
        };
        // Ruled-out causes the traceback fits well are worth naming (not this bug,
        // and why); the rest of the list is kept short.
        let (mut kept, ruled_out): (Vec<Candidate>, Vec<Candidate>) = candidates
            .drain(..)
            .partition(|candidate| candidate.confidence > Confidence::RuledOut);
        kept.truncate(OTHER_CANDIDATES + 1);
        kept.extend(ruled_out.into_iter().take(OTHER_CANDIDATES));

        let to_decide = match outcome {
            Outcome::Explained => Vec::new(),
            _ => what_would_decide(&traceback, &kept),
        };
        let mut others: Vec<&(Traceback, Vec<Candidate>)> = ranked.iter().collect();
        others.sort_by_key(|(traceback, _)| std::cmp::Reverse(traceback.last_line));
        let other_tracebacks = others
            .into_iter()
            .take(OTHER_TRACEBACKS)
            .map(|(traceback, candidates)| OtherTraceback {
                line: traceback.line,
                occurrences: traceback.occurrences,
                exception: traceback.raised().map(|raised| raised.exception.clone()),
                message: traceback.raised().map(|raised| first_line(&raised.message)),
                best: candidates
                    .first()
                    .filter(|best| best.confidence.is_answer())
                    .map(|best| best.id.clone()),
            })
            .collect();
        let (speaks_for, same_environment) = (judge.speaks_for(&traceback), judge.runs_here(&traceback));
        let node_facts = (!speaks_for).then(|| {
        format!(
            "the log's libraries ran from a site-packages that is not this node's Python ({}): this node's facts neither confirm nor rule out any cause ({})",
            facts.snapshot.python.executable.display(),
            node::ELSEWHERE
        )
    });
        Ok(Explanation {
            schema: SCHEMA,
            source: source.to_string(),
            lines_read,
            bytes_read,
            tracebacks_found,
            outcome,
            traceback: Some(describe(traceback, facts, speaks_for, same_environment)),
            candidates: kept,
            to_decide,
            node_facts,
            other_tracebacks,
        })
    }
}

/// A log of a few lines, kept while it is read: an error's message pasted
/// without its class (an issue's title, a line of a library's own words).
/// Only the first [`PastedText::WITHIN`] bytes and [`PastedText::LINES`]
/// lines are kept, so a long log costs nothing; a longer log (a report, a
/// run's output) is not a pasted message and is not read as one. Routine
/// output around the words (progress bars, pip's lines, a table's rules,
/// wandb's status, notices of deprecation) is not counted, up to
/// [`PastedText::WITH_ROUTINE`] bytes in all.
#[derive(Default)]
struct PastedText {
    lines: Vec<(usize, String)>,
    too_long: bool,
    routine_bytes: u64,
    /// Whether the last line was a warning's notice, which Python follows
    /// with the caller's source line, indented.
    after_notice: bool,
}

impl PastedText {
    const WITHIN: u64 = 4 * 1024;
    const WITH_ROUTINE: u64 = 64 * 1024;
    const LINES: usize = 4;

    fn reading(&self, bytes_read: u64) -> bool {
        !self.too_long
            && bytes_read <= Self::WITH_ROUTINE
            && bytes_read.saturating_sub(self.routine_bytes) <= Self::WITHIN
    }

    /// `bytes` is the line's length as read, wrapping and line end included.
    fn line(&mut self, number: usize, text: &str, bytes: u64) {
        // Ranks that fail alike print the same words, each after its label.
        let unlabelled = presentation::unlabelled(text);
        let text = unlabelled.trim();
        // A run's routine output around the words makes them no longer a
        // paste, nor does the source line Python prints under a warning's notice.
        let under_a_notice = std::mem::take(&mut self.after_notice) && unlabelled.starts_with([' ', '\t']);
        let notice = routine::is_deprecation_notice(text);
        if under_a_notice || notice || routine::is_routine(text) {
            self.after_notice = notice;
            self.routine_bytes += bytes;
            return;
        }
        // The command the paste starts with is not what failed, nor is what a
        // logger printed below the warning level.
        if text.is_empty()
            || presentation::is_prompt(text)
            || presentation::is_fence(text)
            || signals::logged_below_warning(text)
            || self.lines.last().is_some_and(|(_, last)| last == text)
        {
            return;
        }
        if self.lines.len() == Self::LINES {
            self.too_long = true;
            self.lines.clear();
            return;
        }
        self.lines.push((number, text.to_string()));
    }

    /// Whether the lines say something failed, in words any library uses.
    fn reads_as_an_error(&self) -> bool {
        self.lines.iter().any(|(_, text)| {
            let text = text.to_ascii_lowercase();
            FAILURE_WORDS.iter().any(|word| text.contains(word))
        })
    }

    /// The lines as one message, when the whole log was kept.
    fn as_message(&self, bytes_read: u64) -> Option<Traceback> {
        let (first, _) = self.lines.first()?;
        let (last, _) = self.lines.last()?;
        if !self.reading(bytes_read) {
            return None;
        }
        let message: Vec<&str> = self.lines.iter().map(|(_, text)| text.as_str()).collect();
        let raised = traceback::Raised {
            exception: PASTED.to_string(),
            message: message.join("\n"),
        };
        let mut traceback = Traceback::bare(*first, raised);
        traceback.last_line = *last;
        Some(traceback)
    }
}

/// Words that say a thing failed, lowercase: a paste holding one is an error.
const FAILURE_WORDS: [&str; 28] = [
    "error",
    // A logger's fatal level (`[FATAL]`, `F1203`'s words) and a library's
    // statement of what it needs (telecarla67: `CARLA python module version
    // 0.9.13 required. Found: 0.9.12`; `version of diffusers must be ...`).
    "fatal",
    " required",
    "must be ",
    // Python's own messages, pasted without their class (adelaidepth12:
    // `module 'torchsparse_backend' has no attribute 'hash_forward`).
    "has no attribute",
    "unexpected keyword argument",
    "is not defined",
    "were given",
    "fail",
    "undefined symbol",
    "no module named",
    "cannot ",
    "can't ",
    "could not",
    "not found",
    "mismatch",
    "incompatible",
    "not compatible",
    "exception",
    "unable to",
    "doesn't have",
    "does not have",
    "segmentation fault",
    // A library's refusal and a device's words (tgi398: `GPU with CUDA
    // capability 7 0 is not supported`; `invalid gpu device`; llama.cpp's
    // `CUDA error 2 at ggml-cuda.cu:359: out of memory`).
    "not supported",
    "unsupported",
    "invalid",
    "out of memory",
    // A package's words for a name it took away (spec2vec61: Gensim 4's
    // `The vocab attribute was removed from KeyedVector in Gensim 4.0.0.`).
    " was removed ",
];

/// What a paste read as one message is shown as, in place of an exception class.
pub const PASTED: &str = "pasted text";

/// The messages of every cause in the knowledge, as a log line holds them.
fn known_messages(matrix: &Matrix) -> Vec<&str> {
    matrix
        .rules
        .iter()
        .filter(|rule| rule.withdrawn.is_none())
        .flat_map(|rule| rule.symptoms.every_message())
        .chain(matrix.symptoms.iter().flat_map(|entry| entry.symptoms.every_message()))
        .map(|message| rank::symptom_core_as_written(message))
        .chain(readers::MESSAGES_READ)
        .chain(readers::MESSAGES_GONE_ON)
        .collect()
}

/// What marks a line worth reading: a line none of these words is in, read
/// while no traceback is open, is passed over.
fn line_marker(messages: &[&str]) -> Option<log::Marker> {
    let exception_words = traceback::marker_words();
    let mut words: Vec<&str> = exception_words.iter().map(String::as_str).collect();
    words.extend(signals::trigger_words());
    words.extend(frameworks::MARKER_WORDS);
    words.extend(messages.iter().copied());
    // A line in disguise (HTML entities, curly quotes, other spaces) may hold any of them.
    let disguises = presentation::disguises();
    words.extend(disguises.iter().map(String::as_str));
    log::Marker::new(words)
}

/// A loader's line its printer logged at the warning level (opennmttf638:
/// TensorFlow's `W .../dso_loader.cc:55] Could not load dynamic library
/// 'libnvinfer.so.6'`). It still weighs on an error after it, as any loader
/// line does; alone it is no answer.
fn loader_line_logged_as_warning(traceback: &Traceback) -> bool {
    traceback
        .raised()
        .is_some_and(|raised| raised.signal() == Some(Signal::Loader) && signals::logged_as_warning(&raised.message))
}

fn at_most_possible(candidates: &mut [Candidate], why: &str) {
    for candidate in candidates
        .iter_mut()
        .filter(|candidate| candidate.confidence.is_answer())
    {
        candidate.confidence = Confidence::Possible;
        candidate.evidence.push(rank::Evidence {
            kind: rank::EvidenceKind::Context,
            holds: None,
            text: why.to_string(),
        });
    }
}

/// What would tell the standing causes apart, or explain an error none fits:
/// the node facts they left open, and what the log lacks.
fn what_would_decide(traceback: &Traceback, candidates: &[Candidate]) -> Vec<String> {
    let mut wanted: Vec<String> = Vec::new();
    let mut add = |text: String| {
        if !wanted.contains(&text) {
            wanted.push(text);
        }
    };
    for candidate in candidates.iter().filter(|c| c.confidence > Confidence::RuledOut) {
        let open = candidate
            .evidence
            .iter()
            .filter(|evidence| evidence.holds.is_none() && evidence.kind == rank::EvidenceKind::Node);
        for evidence in open {
            add(evidence.text.clone());
        }
    }
    let message = traceback
        .messages()
        .map(|raised| raised.message.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    let crashed = traceback
        .messages()
        .any(|raised| signals::Signal::from_label(&raised.exception) == Some(signals::Signal::Crashed));
    if crashed {
        // A crash has no traceback to ask for: the stack at the crash and the
        // kernel's line about it are where its cause shows.
        add("where the process crashed: rerun with PYTHONFAULTHANDLER=1 (or `python -X faulthandler`) to print the Python stack of every thread at the crash, and read `sudo dmesg | tail` for the kernel's line, which names the library the fault was in; a library loaded for the wrong CPU (Illegal instruction) or a driver library missing or mismatched (a warning earlier in the log) are common causes".to_string());
    } else if traceback.frames().next().is_none() && !printed_by_a_tool(traceback) {
        add("the whole traceback, not only its last line: pass the full log (`python train.py 2>&1 | tee train.log`, then `envdoctor explain train.log`)".to_string());
    }
    if message.contains("device-side assert") || message.contains("cuda kernel errors might be asynchronously reported")
    {
        add("the kernel's `Assertion ... failed` line, printed above the traceback; rerun with CUDA_LAUNCH_BLOCKING=1 to have the traceback point at the failing call".to_string());
    }
    if message.contains("nccl") && !message.contains("nccl warn") {
        add("NCCL's own reason: rerun with NCCL_DEBUG=WARN (or INFO) and pass that log".to_string());
    }
    wanted
}

/// Whether every line of the failure is a tool's own report, which comes
/// with no Python traceback to ask for: a compiler's or pip's build error,
/// a C++ library's logger, pip's `ERROR: ` lines.
fn printed_by_a_tool(traceback: &Traceback) -> bool {
    traceback.messages().all(|raised| {
        matches!(raised.signal(), Some(Signal::Build | Signal::LibraryError))
            || (raised.signal() == Some(Signal::KnownMessage) && raised.message.starts_with("ERROR: "))
    })
}

/// `speaks_for` and `same_environment` as the judge found them: the version
/// shown for a package is this node's only where it is the copy the log ran.
fn describe(traceback: Traceback, facts: &Facts, speaks_for: bool, same_environment: bool) -> Explained {
    let other_copies = copies::other_copies(&traceback, facts, same_environment);
    let frames: Vec<FrameFact> = traceback
        .frames()
        .map(|frame| FrameFact {
            file: frame.file.clone(),
            line: frame.line,
            function: frame.function.clone(),
            package: frame_package(&frame.file).map(str::to_string),
        })
        .collect();
    let mut packages: Vec<PackageFact> = Vec::new();
    for name in frames.iter().filter_map(|frame| frame.package.as_deref()) {
        if name == STDLIB || packages.iter().any(|known| known.name == name) {
            continue;
        }
        let distribution = distribution_of(name);
        let version = facts
            .package_version(&distribution)
            .filter(|_| speaks_for && !other_copies.contains_key(&crate::packaging::normalize_name(&distribution)))
            .map(|version| version.to_string());
        packages.push(PackageFact {
            name: name.to_string(),
            version,
        });
    }
    let raised = traceback.raised();
    Explained {
        line: traceback.line,
        last_line: traceback.last_line,
        occurrences: traceback.occurrences,
        exception: raised.map(|raised| raised.exception.clone()),
        message: raised.map(|raised| raised.message.clone()),
        message_from_source: traceback
            .sections
            .last()
            .is_some_and(|section| section.raised_from_source),
        devices: rank::devices_named(&traceback)
            .iter()
            .map(rank::Device::describe)
            .collect(),
        frames,
        packages,
    }
}

/// The directories installed distributions live in, as they appear in a path:
/// a log from Windows writes them with backslashes.
pub(crate) const INSTALLED_DIRS: [&str; 4] = ["site-packages/", "dist-packages/", "site-packages\\", "dist-packages\\"];

/// Whether a frame's file is under a site-packages (or dist-packages): a
/// path that says where on some machine the distribution was installed. A
/// zipped egg's frames name only the directory they were compiled in, which
/// says nothing of where they ran.
pub(crate) fn is_installed_code(file: &str) -> bool {
    INSTALLED_DIRS.iter().any(|dir| file.contains(dir))
}

/// Where the installed part of a frame's file starts: after `site-packages/`
/// (or `dist-packages`), or after the `build/bdist.PLATFORM/egg/` that a
/// zipped egg's compiled files name as their source (setuptools' bdist_egg
/// compiles them there, and a traceback quotes that path).
fn installed_part(file: &str) -> Option<usize> {
    after_last(file, &INSTALLED_DIRS).or_else(|| {
        let bdist = after_last(file, &["build/bdist.", "build\\bdist."])?;
        let egg = file[bdist..].find(['/', '\\']).map(|at| bdist + at + 1)?;
        let rest = &file[egg..];
        ["egg/", "egg\\"]
            .iter()
            .find(|marker| rest.starts_with(*marker))
            .map(|marker| egg + marker.len())
    })
}

/// Where the last of `markers` in `file` ends.
pub(crate) fn after_last(file: &str, markers: &[&str]) -> Option<usize> {
    markers
        .iter()
        .filter_map(|marker| file.rfind(marker).map(|at| at + marker.len()))
        .max()
}

/// What [`frame_package`] calls the standard library.
pub const STDLIB: &str = "python";

/// Whether frames of `package` look a name up for the code that asked for
/// it, so that the asker, not they, used it: the interpreter's own library
/// and import machinery, and lazy_loader's module `__getattr__`, which raises
/// a missing attribute of the package it loads for its caller.
pub fn is_lookup_machinery(package: &str) -> bool {
    matches!(package, STDLIB | "importlib" | "lazy_loader")
}

/// The import package a frame's file belongs to: the directory under
/// `site-packages` or `dist-packages` (or a zipped egg's `build/bdist.*/egg/`);
/// [`STDLIB`] for the interpreter's own library; `None` for the job's code.
pub fn frame_package(file: &str) -> Option<&str> {
    if let Some(start) = installed_part(file) {
        let mut parts = file[start..].split(['/', '\\']);
        let mut first = parts.next().unwrap_or_default();
        // An egg (`chamfer-0.0.0-py3.7-linux-x86_64.egg/chamfer.cpython-37m-x86_64-linux-gnu.so`)
        // is a directory named for its distribution and release; what it holds is imported.
        if first.ends_with(".egg") {
            first = parts.next().unwrap_or(first);
        }
        let name = first.strip_suffix(".py").unwrap_or(first);
        return (!name.is_empty()).then_some(name);
    }
    let in_stdlib = file.contains("/lib/python3") || file.starts_with("<frozen ") || is_windows_stdlib(file);
    in_stdlib.then_some(STDLIB)
}

/// Whether a path is written as Windows writes one: a drive letter, a colon
/// and a separator (`C:\Users\...`).
pub(crate) fn on_a_drive(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() > 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && matches!(bytes[2], b'\\' | b'/')
}

/// `C:\Python310\lib\importlib\__init__.py`: an interpreter's own library on
/// Windows, whose directory names no version. A conda installation's
/// (`C:\Users\me\.conda\envs\x\lib\enum.py`, `D:\Anaconda3\Lib\runpy.py`)
/// names no Python either: there the folder holding `lib` must be conda's
/// (an environment under `envs`, or an Anaconda, Miniconda or Miniforge
/// root) and what lies under it one of the standard library's modules, so a
/// project's own `lib` folder (`D:\proj\lib\json\x.py`, put on sys.path by
/// the project) is not it.
fn is_windows_stdlib(file: &str) -> bool {
    let lower = file.to_ascii_lowercase();
    let Some(at) = lower.rfind("\\lib\\") else {
        return false;
    };
    if lower.contains("python") {
        return true;
    }
    let mut above = lower[..at].rsplit('\\');
    let root = above.next().unwrap_or_default();
    let conda = above.next() == Some("envs") || ["conda", "forge"].iter().any(|word| root.contains(word));
    let under = &file[at + "\\lib\\".len()..];
    let first = under.split('\\').next().unwrap_or_default();
    conda && stdlib_modules::is_stdlib_module(first.strip_suffix(".py").unwrap_or(first))
}

/// The distribution an import package comes from, where the names differ.
pub(crate) fn distribution_of(import: &str) -> String {
    let known = [
        ("sklearn", "scikit-learn"),
        ("PIL", "pillow"),
        ("yaml", "pyyaml"),
        ("cv2", "opencv-python"),
        ("attr", "attrs"),
        ("dateutil", "python-dateutil"),
    ];
    known
        .iter()
        .find(|(name, _)| *name == import)
        .map_or_else(|| normalize_name(import), |(_, distribution)| distribution.to_string())
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each SIMD searcher costs a whole pass over every block of the log, and
    /// the knowledge's words took four (255 words, 64 at most in a searcher):
    /// `bench/explain.sh` read its 200 MB log at about 320 MB/s here. Their
    /// anchors take two slim searchers (62 anchors, 32 at most in each), which
    /// read that log faster than one fat searcher of them all (see
    /// `PACKED_ANCHORS`). Knowledge whose anchors need a third pass is
    /// measured first and this bound raised knowingly.
    #[test]
    fn the_knowledge_marks_lines_in_two_passes() {
        let matrix = Matrix::load(&[]).unwrap();
        let marker = line_marker(&known_messages(&matrix)).unwrap();
        assert!(marker.passes() <= 2, "{} passes", marker.passes());
    }

    #[test]
    fn frames_belong_to_the_package_directory_they_are_in() {
        let package = frame_package;
        assert_eq!(
            package("/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/stage3.py"),
            Some("deepspeed")
        );
        assert_eq!(package("/v/lib/python3.11/site-packages/six.py"), Some("six"));
        assert_eq!(
            package(
                "/e/lib/python3.7/site-packages/chamfer-0.0.0-py3.7-linux-x86_64.egg/chamfer.cpython-37m-x86_64-linux-gnu.so"
            ),
            Some("chamfer.cpython-37m-x86_64-linux-gnu.so")
        );
        assert_eq!(
            package("/e/lib/python3.7/site-packages/mmcv-1.3.0-py3.7-linux-x86_64.egg/mmcv/ops/nms.py"),
            Some("mmcv")
        );
        // A zipped egg's files name the directory bdist_egg compiled them in.
        assert_eq!(
            package("build/bdist.linux-x86_64/egg/rasa_nlu/classifiers/sklearn_intent_classifier.py"),
            Some("rasa_nlu")
        );
        assert_eq!(package("/home/me/bdist.notes/eggplant/train.py"), None);
        assert_eq!(
            package("/x/build/bdist.old/build/bdist.linux-x86_64/egg/pkg/m.py"),
            Some("pkg")
        );
        assert!(!is_installed_code("build/bdist.linux-x86_64/egg/rasa_nlu/train.py"));
        assert_eq!(package("/usr/lib/python3.10/runpy.py"), Some(STDLIB));
        assert_eq!(package("/home/me/train.py"), None);
        assert_eq!(package("train.py"), None);
    }

    #[test]
    fn a_windows_path_belongs_to_its_package_too() {
        let package = frame_package;
        assert_eq!(
            package(r"C:\Users\me\venv\lib\site-packages\exllamav2\ext.py"),
            Some("exllamav2")
        );
        assert_eq!(
            package(r"C:\Users\me\AppData\Local\Programs\Python\Python310\lib\importlib\__init__.py"),
            Some(STDLIB)
        );
        assert_eq!(package(r"D:\work\train.py"), None);
        // geneface237: a conda environment's library names no Python.
        assert_eq!(package(r"C:\Users\zhan\.conda\envs\geneface\lib\enum.py"), Some(STDLIB));
        assert_eq!(package(r"D:\Anaconda3\Lib\multiprocessing\spawn.py"), Some(STDLIB));
        // A project's own lib folder is not it, even where a module in it
        // has a standard module's name.
        assert_eq!(package(r"D:\proj\lib\utils.py"), None);
        assert_eq!(package(r"D:\proj\lib\json\x.py"), None);
        assert_eq!(package(r"C:\tools\lib\enum.py"), None);
    }
}
