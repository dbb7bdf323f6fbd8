//! Scores every known cause against one traceback and this node's facts.
//!
//! The traceback gives evidence: the exception message, the devices it names
//! and the frames it passed through. The node gives the rest: a cause whose
//! `[when]` fails here is ruled out, whatever the traceback says (a DeepSpeed
//! ZeRO-3 stack on DeepSpeed 0.14.0 is not the 0.14.1-0.14.2 regression). The
//! weights are few and coarse on purpose: a frame only one code path passes
//! through says most, then the message, then the devices, then the node.

use serde::Serialize;

use super::device_wording::in_current_words;
use super::frameworks::FrameworksShown;
use super::node::{ELSEWHERE, NodeTests, TheRun};
use super::readers::{self, Reading};
use super::signals;
use super::traceback::Traceback;
use crate::facts::Facts;
use crate::knowledge::tables::Tables;
use crate::matrix::rule::{DeviceKind, DevicePair, Framework, GpuCondition, PackageCondition, Symptoms, System, When};
use crate::matrix::{Condition, Matrix, Verdict, assess};
use crate::packaging::normalize_name;

/// NCCL's line, in torch's NCCL errors, before the warning that says why.
const LAST_ERROR: &str = "last error:";
const FRAME_WITH_FUNCTION: i32 = 4;
const FRAME_FILE_ONLY: i32 = 2;
const MESSAGE: i32 = 3;
/// A message no other cause lists says as much as a frame.
const MESSAGE_SPECIFIC: i32 = 5;
const DEVICES: i32 = 2;
const EXCEPTION: i32 = 1;
/// Node facts that hold: this much, plus one for each (up to [`NODE_MOST`]),
/// less one when some could not be settled.
const NODE_BASE: i32 = 2;
const NODE_MOST: i32 = 3;
/// A rule's version condition holds for a package the frames run through.
const PINNED: i32 = 4;
/// The failure's own words, read apart, state the cause (a bound, a soname).
const STATED: i32 = 6;

/// Symptom entries that name a class of failure with several causes, each a
/// node fact their `confirmed_by` checks settle.
const FAILURE_CLASSES: [&str; 4] = [
    "nccl-collective-failed",
    // torch's zero device count (CUDAFunctions.cpp): CUDA_VISIBLE_DEVICES or
    // a container that hid the GPUs, but also a driver whose kernel module is
    // not loaded, or WSL's bridge, which answer the same; a script raises the
    // words itself after is_available() said False. A check on the node decides.
    "no-cuda-gpu-visible",
    // A kernel bug (torch's, a library's, the job's own indexing) far more
    // often than failing memory: the message alone says only that some
    // kernel faulted. The GPU's memory errors (the entry's confirming
    // checks) decide; a rerun with CUDA_LAUNCH_BLOCKING=1 names the kernel.
    "cuda-illegal-memory-access",
    // The same words where the container never had the devices (a cgroup
    // setup or a runtime that did not grant them): recreating it fixes only
    // the devices systemd took away.
    "container-lost-gpu-devices",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    /// The traceback and this node contradict the cause.
    RuledOut,
    /// Only what many causes share matched (the message alone).
    Possible,
    Likely,
    /// A frame only this cause passes through, and the node has what it needs.
    NearCertain,
}

impl Confidence {
    pub fn label(self) -> &'static str {
        match self {
            Confidence::NearCertain => "near-certain",
            Confidence::Likely => "likely",
            Confidence::Possible => "possible",
            Confidence::RuledOut => "ruled out",
        }
    }

    /// Whether it may be named as the answer.
    pub fn is_answer(self) -> bool {
        self >= Confidence::Likely
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseKind {
    /// A matrix rule: a version fact.
    Rule,
    /// A symptom entry: a cause in the job's code or setup.
    Symptom,
}

/// One piece of evidence for or against a cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub kind: EvidenceKind,
    /// `false` counts against the cause; `None` is a node fact that could not be settled.
    pub holds: Option<bool>,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    Frame,
    Message,
    /// A line earlier in the log (a warning, another error) that names the cause.
    Context,
    /// What the failure says about itself, read apart (a stated requirement, a missing library).
    Stated,
    Exception,
    Devices,
    Node,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub id: String,
    pub kind: CauseKind,
    pub confidence: Confidence,
    pub score: i32,
    /// Ranks causes of the same confidence before their score: a rule pinned
    /// to a package in the frames first, a guess about an absent package last.
    #[serde(skip)]
    pub tier: u8,
    /// A message (or an earlier line) that no other cause lists points here.
    #[serde(skip)]
    pub specific: bool,
    /// One release range of a failure its general entry covers, whose message
    /// is told apart only by the code it comes from (its frames), about a
    /// package nothing in the log names or runs through: DeepSpeed's torch._six
    /// import in a paste without frames, where any old code imports it. A
    /// guess at who printed the message, which the general entry does not
    /// yield to. (FlashAttention's refusal needs no frames: its words are its own.)
    #[serde(skip)]
    pub owner_guessed: bool,
    /// The place among the readers (most specific first) of the one that read
    /// the message for this cause; none where only its wording matched.
    #[serde(skip)]
    pub read_by: Option<usize>,
    pub title: String,
    pub evidence: Vec<Evidence>,
    pub why: String,
    pub fix: String,
    /// What to know before running the fix, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix_note: Option<String>,
    pub references: Vec<String>,
}

impl Candidate {
    /// The evidence that counts for (`Some(true)`) or against (`Some(false)`) it, in words.
    pub fn evidence_where(&self, holds: Option<bool>) -> Vec<&str> {
        self.evidence
            .iter()
            .filter(|evidence| evidence.holds == holds)
            .map(|evidence| evidence.text.as_str())
            .collect()
    }
}

/// A cause as ranking sees it, rule or symptom entry alike.
struct Cause<'m> {
    id: &'m str,
    kind: CauseKind,
    title: &'m str,
    symptoms: &'m Symptoms,
    when: &'m When,
    /// The systems where it cannot happen, with the reason.
    not_on: &'m [(System, String)],
    /// The framework whose own build the cause is about.
    framework: Option<Framework>,
    why: &'m str,
    fix: &'m str,
    fix_note: Option<&'m str>,
    references: Vec<String>,
    /// A symptom entry generalizes it: it is one version range of that failure.
    generalized: bool,
}

fn causes(matrix: &Matrix) -> Vec<Cause<'_>> {
    let rules = matrix
        .rules
        .iter()
        .filter(|rule| rule.withdrawn.is_none())
        .map(|rule| Cause {
            id: &rule.id,
            kind: CauseKind::Rule,
            title: &rule.title,
            symptoms: &rule.symptoms,
            when: &rule.when,
            not_on: &[],
            framework: None,
            why: &rule.why,
            fix: &rule.fix,
            fix_note: rule.fix_note.as_deref(),
            references: merged(&rule.references, &rule.symptoms.reported),
            generalized: matrix
                .symptoms
                .iter()
                .any(|entry| entry.symptoms.generalizes.contains(&rule.id)),
        });
    let entries = matrix.symptoms.iter().map(|entry| Cause {
        id: &entry.id,
        kind: CauseKind::Symptom,
        title: &entry.title,
        symptoms: &entry.symptoms,
        when: &entry.when,
        not_on: &entry.not_on,
        framework: entry.framework,
        why: &entry.why,
        fix: &entry.fix,
        fix_note: entry.fix_note.as_deref(),
        references: merged(&entry.references, &entry.symptoms.reported),
        generalized: false,
    });
    rules
        .chain(entries)
        .filter(|cause| !cause.symptoms.is_empty())
        .collect()
}

fn merged(first: &[String], second: &[String]) -> Vec<String> {
    let mut all = first.to_vec();
    all.extend(second.iter().filter(|url| !first.contains(url)).cloned());
    all
}

/// Every cause the traceback points to, best first. Causes it does not point to
/// at all (no message and no frame of theirs) are left out.
/// Without `facts` (the smoke test run alone, no Snapshot) the node says nothing.
pub fn rank(traceback: &Traceback, matrix: &Matrix, facts: Option<&Facts>) -> Vec<Candidate> {
    Judge::new(matrix, facts).rank(traceback)
}

/// What ranking needs that is the same for every traceback of a log: the
/// causes, who lists which message, and the node's answers to the built-in
/// checks that causes name in `confirmed_by`.
pub struct Judge<'m, 'f> {
    causes: Vec<Cause<'m>>,
    /// Every cause's symptom messages, lowercase cores, one entry per listing, with the cause's id.
    message_owners: Vec<(&'m str, String)>,
    facts: Option<&'f Facts<'f>>,
    tables: &'m Tables,
    node: NodeTests,
    /// What the caller knows of the run (`same_environment` is read from
    /// each traceback's frames).
    run: TheRun,
    /// What the whole log shows of the system it ran on, for a traceback
    /// whose own lines do not (a pasted message, frames cut off).
    log_system: Option<(System, String)>,
    /// What the whole log shows of the frameworks it ran.
    frameworks: FrameworksShown,
}

impl<'m, 'f> Judge<'m, 'f> {
    pub fn new(matrix: &'m Matrix, facts: Option<&'f Facts<'f>>) -> Judge<'m, 'f> {
        let causes = causes(matrix);
        let message_owners = causes
            .iter()
            .flat_map(|cause| {
                cause
                    .symptoms
                    .every_message()
                    .map(|message| (cause.id, symptom_core(message)))
            })
            .collect();
        let wanted: Vec<&str> = causes
            .iter()
            .flat_map(|cause| cause.symptoms.confirmed_by.iter().map(String::as_str))
            .collect();
        let node = facts.map_or_else(NodeTests::default, |facts| {
            NodeTests::run(facts, &matrix.tables, &wanted)
        });
        Judge {
            causes,
            message_owners,
            facts,
            tables: &matrix.tables,
            node,
            run: TheRun::default(),
            log_system: None,
            frameworks: FrameworksShown::default(),
        }
    }

    /// A judge for a run started after the facts were taken, in the same
    /// environment: what the node held then (GPU memory in use) was held by
    /// another process, not by the run.
    pub fn facts_precede_the_run(mut self) -> Self {
        self.run.facts_precede_it = true;
        self
    }

    /// A judge for a run on this GPU: an out of memory that names no GPU was on it.
    pub fn run_on_gpu(mut self, gpu: Option<u32>) -> Self {
        self.run.gpu = gpu;
        self
    }

    pub fn rank(&self, traceback: &Traceback) -> Vec<Candidate> {
        self.rank_in(traceback, &Earlier::default())
    }

    /// The system the log's other lines show it ran on (see [`system_sign_in_line`]).
    pub fn ran_on(mut self, sign: Option<(System, String)>) -> Self {
        self.log_system = sign;
        self
    }

    /// The frameworks the log's lines show it ran.
    pub fn showing(mut self, frameworks: FrameworksShown) -> Self {
        self.frameworks = frameworks;
        self
    }

    /// A judge for facts probed on this node while the log may come from
    /// another: a log whose frames run from site-packages elsewhere is judged
    /// without them.
    pub fn facts_probed_here(mut self) -> Self {
        self.run.probed_here = true;
        self
    }

    /// Whether the node's facts speak for the log: not when they were probed
    /// here and the log's libraries ran from a site-packages that is not this
    /// node's (the reporter's machine, another container).
    pub fn speaks_for(&self, traceback: &Traceback) -> bool {
        let elsewhere = traceback.frames().any(|frame| super::is_installed_code(&frame.file));
        !(self.run.probed_here && elsewhere && !self.runs_here(traceback))
    }

    /// Whether a frame's file is under this node's site-packages.
    pub fn runs_here(&self, traceback: &Traceback) -> bool {
        self.facts.is_some_and(|facts| {
            let python = &facts.snapshot.python;
            traceback.frames().any(|frame| {
                python
                    .site_packages
                    .iter()
                    .any(|dir| std::path::Path::new(&frame.file).starts_with(dir))
            })
        })
    }

    /// Ranks a traceback with the lines the log printed before it.
    pub fn rank_in(&self, traceback: &Traceback, earlier: &Earlier) -> Vec<Candidate> {
        let context_lines = &earlier.errors;
        let context: Vec<String> = context_lines.iter().map(|line| comparable(line)).collect();
        let context = context.as_slice();
        // Site-packages only: a system Python's prefix (/usr) holds every
        // container's /usr/local/lib/python3.x/dist-packages.
        let same_environment = self.runs_here(traceback);
        let facts = self.facts.filter(|_| self.speaks_for(traceback));
        // A package the log ran from another copy is not this node's to judge.
        let narrowed = facts
            .map(|facts| (facts, super::copies::other_copies(traceback, facts, same_environment)))
            .filter(|(_, other_copies)| !other_copies.is_empty())
            .map(|(facts, other_copies)| facts.for_a_log_that_ran_other_copies(other_copies));
        let facts = narrowed.as_ref().or(facts);
        let packages: Vec<String> = traceback
            .frames()
            .filter_map(|frame| super::frame_package(&frame.file))
            .map(super::distribution_of)
            .collect();
        let messages: Vec<String> = traceback
            .messages()
            .map(|raised| {
                let message = unwrapped(&raised.message);
                comparable(&in_current_words(&readers::in_common_words(&message)))
            })
            .collect();
        let mut seen = Seen {
            other_system: other_system_sign(traceback).or_else(|| self.log_system.clone()),
            devices: devices_named(traceback),
            has_frames: traceback.frames().next().is_some(),
            text: messages.join("\n"),
            messages,
            packages,
            run: TheRun {
                same_environment,
                ..self.run
            },
            message_owners: &self.message_owners,
            context,
            message_known: false,
            frameworks: &self.frameworks,
            in_build: readers::build::build_of(traceback, &earlier.printed).is_some(),
        };
        // Each cause's message that fits, found once for all.
        let readers_context = readers::Context {
            facts,
            absence_is_a_fact: same_environment,
            tables: Some(self.tables),
            earlier: &earlier.printed,
            frameworks: Some(&self.frameworks),
        };
        let hits: Vec<Option<MessageHit>> = self.causes.iter().map(|cause| message_hit(cause, &seen)).collect();
        let readings = readers::read(traceback, readers_context);
        seen.message_known = seen.messages.iter().all(|message| message.trim().is_empty())
            || hits.iter().any(Option::is_some)
            || !readings.is_empty()
            // The signal words are matched as written (`CUDA error: `), not lowercased.
            || traceback.messages().any(|raised| {
                super::signals::names_a_failure(&raised.message) || readers::is_loader_failure(&raised.message)
            });
        let mut candidates: Vec<Candidate> =
            self.causes
                .iter()
                .zip(&hits)
                .filter_map(|(cause, hit)| {
                    // Another cause's own message fits the same exception message
                    // where only a shared one of this cause's does, or, between
                    // symptom entries, after NCCL's "Last error:" in it: that line
                    // is the reason for what the message says first ("NCCL error
                    // ... Last error: Duplicate GPU detected"). Any other line a
                    // message runs on to (a log line after it) outdoes nothing.
                    let outdone_by = hit.as_ref().and_then(|mine| {
                        self.causes
                            .iter()
                            .zip(&hits)
                            .find(|(other, theirs)| {
                                // A symptom that generalizes this rule says no more than the rule does.
                                let generalizes = other.symptoms.generalizes.iter().any(|rule| rule == cause.id);
                                let says_more = |theirs: &MessageHit| {
                                    !mine.specific()
                                        || (cause.kind == CauseKind::Symptom
                                            && other.kind == CauseKind::Symptom
                                            && seen.messages[mine.at]
                                                .get(mine.offset..theirs.offset)
                                                .is_some_and(|between| between.contains(LAST_ERROR)))
                                };
                                theirs.as_ref().is_some_and(|theirs| {
                                    theirs.specific() && theirs.at == mine.at && says_more(theirs)
                                }) && other.id != cause.id
                                    && !generalizes
                            })
                            .map(|(other, _)| other)
                    });
                    score(cause, traceback, &seen, facts, &self.node, hit.as_ref(), outdone_by)
                })
                .collect();
        for (order, reading) in readings.into_iter().enumerate() {
            self.weigh_reading(&mut candidates, reading, order);
        }
        // Read only where an answer rests on an earlier line alone: rare, and
        // a log of many tracebacks with many earlier lines each costs nothing.
        let resting_on_context = candidates
            .iter()
            .any(|candidate| candidate.confidence.is_answer() && candidate.rests_on_an_earlier_line_only());
        for line in context_lines.iter().filter(|_| resting_on_context) {
            let program_not_started = readers::library::program_not_started_before(line, &seen.text);
            for reading in read_earlier_line(line, readers_context) {
                let ruled_out = self.ruled_out_by(&reading);
                unsettled_by_an_earlier_line(&mut candidates, &reading, &ruled_out, program_not_started);
            }
        }
        generic_yields_to_specific(&mut candidates);
        wording_yields_to_grounds(&mut candidates);
        // At equal standing, what a reader read of the message (the bound it
        // states, the library it names) comes before a match of its wording,
        // and the readers' own order, most specific first, before the ids':
        // an alphabet is no reason to name one cause over another.
        let reader_order = |candidate: &Candidate| candidate.read_by.unwrap_or(usize::MAX);
        candidates.sort_by(|a, b| {
            (b.confidence, b.tier, b.score)
                .cmp(&(a.confidence, a.tier, a.score))
                .then_with(|| reader_order(a).cmp(&reader_order(b)))
                .then_with(|| a.id.cmp(&b.id))
        });
        candidates
    }
}

/// The lines a log printed before a traceback, without frames of their own.
#[derive(Debug, Default)]
pub struct Earlier {
    /// Its other error lines, as printed, which weigh on the causes they name;
    /// not what a printer logged as a warning, nor a note.
    pub errors: Vec<String>,
    /// Every such line, warnings and notes too: what the readers of the
    /// traceback's own words read beside them.
    pub printed: Vec<String>,
}

/// What the traceback shows, worked out once for all causes.
struct Seen<'j> {
    /// The system other than Linux the log ran on, and what shows it (a frame on `C:\...`).
    other_system: Option<(System, String)>,
    devices: Vec<Device>,
    /// Distributions (normalized names) the frames run through.
    packages: Vec<String>,
    has_frames: bool,
    /// Each exception message of the traceback (a chain has several), lowercase.
    messages: Vec<String>,
    /// The same, joined, for names a cause's package goes by.
    text: String,
    message_owners: &'j [(&'j str, String)],
    /// The log's other error and warning lines before this traceback, lowercase.
    context: &'j [String],
    /// The traceback's message is a failure some cause gives (a symptom, one
    /// a reader reads, a CUDA, NCCL or loader failure of any cause), or it has
    /// none: an earlier line's cause may have led to it. A message no cause
    /// gives (`KeyError: 'model'` in the job's code) is an error of its own,
    /// whatever a line before it said. Set once the messages are matched.
    message_known: bool,
    /// What the whole log shows of the frameworks it ran.
    frameworks: &'j FrameworksShown,
    /// The failure is a package's build from source (its frames are the
    /// build's, or pip's lines say a build step failed): the lines before
    /// it are that build's own, and an unknown error after a line that
    /// names a cause (`mamba_ssm was requested, but nvcc was not found`,
    /// then setup.py's NameError) is the build script tripping over it.
    in_build: bool,
    /// Its `same_environment`: a frame runs from this node's Python
    /// environment, so its facts are the log's.
    run: TheRun,
}

impl Seen<'_> {
    /// Whether no cause but this one lists this message (or one containing
    /// it, or contained in it); the rules it generalizes do not count.
    fn is_specific(&self, core: &str, cause: &Cause) -> bool {
        let owners = self
            .message_owners
            .iter()
            // A generic reader's entry (any extension, any library) takes no message from a specific one.
            .filter(|(id, _)| *id != cause.id && !cause.symptoms.generalizes.iter().any(|rule| rule == id))
            .filter(|(id, _)| !readers::GENERIC.contains(id))
            .filter(|(_, other)| other.contains(core) || core.contains(other.as_str()))
            .count();
        owners == 0
    }
}

/// The first of a cause's messages the traceback gives.
struct MessageHit<'m> {
    /// As the cause lists it.
    symptom: &'m str,
    /// Which of the traceback's exception messages gives it.
    at: usize,
    /// Where in that message it starts.
    offset: usize,
    /// No other cause lists it: it tells this cause from its siblings (ranks
    /// it first among them), whether or not it names it.
    distinct: bool,
    /// The message ends on the start of it: the line was cut short.
    cut: bool,
    /// One of the cause's `shared_messages`: a class of failure, not its cause.
    shared: bool,
}

impl Judge<'_, '_> {
    /// The causes a reading rules out, with the rules each of them generalizes:
    /// a version range of a failure is ruled out with the failure.
    fn ruled_out_by(&self, reading: &Reading) -> Vec<&str> {
        let mut ruled_out = Vec::new();
        for cause in self.causes.iter().filter(|cause| reading.rules_out.contains(&cause.id)) {
            ruled_out.push(cause.id);
            ruled_out.extend(cause.symptoms.generalizes.iter().map(String::as_str));
        }
        ruled_out
    }

    /// A reading of the failure's own words weighs on the cause it supports:
    /// it adds its evidence and its fix, filled in with what it read, and
    /// raises the cause to likely, or near-certain when the node confirms it.
    /// `order`: the reading's place among the readers', most specific first.
    fn weigh_reading(&self, candidates: &mut Vec<Candidate>, reading: Reading, order: usize) {
        let Some(cause) = self.causes.iter().find(|cause| cause.id == reading.cause) else {
            return;
        };
        let at = match candidates.iter().position(|candidate| candidate.id == reading.cause) {
            Some(at) => at,
            None => {
                candidates.push(Candidate {
                    id: cause.id.to_string(),
                    kind: cause.kind,
                    confidence: Confidence::Possible,
                    score: 0,
                    tier: 1,
                    specific: false,
                    owner_guessed: false,
                    read_by: None,
                    title: cause.title.to_string(),
                    evidence: Vec::new(),
                    why: cause.why.to_string(),
                    fix: cause.fix.to_string(),
                    fix_note: cause.fix_note.map(str::to_string),
                    references: cause.references.clone(),
                });
                candidates.len() - 1
            }
        };
        for sibling in self.ruled_out_by(&reading) {
            if let Some(other) = candidates.iter_mut().find(|candidate| candidate.id == sibling) {
                other.confidence = Confidence::RuledOut;
                other.evidence.push(Evidence {
                    kind: EvidenceKind::Stated,
                    holds: Some(false),
                    text: format!("the failure's own words point to {} instead", reading.cause),
                });
            }
        }
        let candidate = &mut candidates[at];
        candidate.read_by.get_or_insert(order);
        let confirmed = reading.node.iter().any(|(holds, _)| *holds == Some(true));
        let contradicted = reading.node.iter().any(|(holds, _)| *holds == Some(false));
        let confidence = if contradicted && !reading.stated {
            Confidence::Possible
        } else if reading.stated && confirmed {
            Confidence::NearCertain
        } else {
            Confidence::Likely
        };
        candidate.evidence.push(Evidence {
            kind: EvidenceKind::Stated,
            holds: Some(true),
            text: reading.said,
        });
        candidate.evidence.extend(node_evidence(reading.node));
        candidate.score += STATED + if confirmed { NODE_BASE + 1 } else { 0 };
        // The reading's fix is made for what it read: the entry's note was for
        // its own. A reading that fills nothing in leaves both.
        if !reading.fix.is_empty() {
            candidate.fix = reading.fix;
            candidate.fix_note = None;
        }
        if !reading.settles {
            // What the reading leaves open, the entry's own wording cannot settle either.
            candidate.confidence = candidate.confidence.min(Confidence::Possible);
        } else if candidate.confidence != Confidence::RuledOut {
            candidate.confidence = candidate.confidence.max(confidence);
        }
    }
}

/// What the readers make of an earlier line of the log, read as a bare error of its own.
fn read_earlier_line(line: &str, context: readers::Context) -> Vec<Reading> {
    let earlier = Traceback::bare(
        0,
        super::traceback::Raised {
            exception: String::new(),
            message: line.to_string(),
        },
    );
    readers::read(&earlier, context)
}

/// A cause that only an earlier line of the log points to is no surer than a
/// reader of that line finds it: a CUDA 12 runtime library that did not load
/// is a library to install or an extension built for another CUDA, and while
/// torch's CUDA is unknown the line alone does not tell which (genrec18:
/// fbgemm_gpu's operators missing after `libcudart.so.12: cannot open`).
///
/// A library that did not load, however sure, is no surer a cause of what
/// failed after it: jobs that go on without it print the same line (ONNX
/// Runtime falls back to the CPU), so only the error's own lines tie it there.
/// A program the loader could not start (`FeatureExtraction: error while
/// loading shared libraries: ...`) did not go on: it never ran, and an error
/// that wants what it would have made failed for want of it.
fn unsettled_by_an_earlier_line(
    candidates: &mut [Candidate],
    reading: &Reading,
    ruled_out: &[&str],
    program_not_started: bool,
) {
    let gone_on_without = reading.cause == readers::LIBRARY_MISSING && !program_not_started;
    for candidate in candidates.iter_mut() {
        let disputed = (candidate.id == reading.cause && (!reading.settles || gone_on_without))
            || ruled_out.contains(&candidate.id.as_str());
        if disputed && candidate.confidence.is_answer() && candidate.rests_on_an_earlier_line_only() {
            candidate.confidence = Confidence::Possible;
            let why = match gone_on_without && reading.settles && candidate.id == reading.cause {
                true => "a library that did not load is printed by jobs that go on without it too",
                false => "the earlier line alone does not settle it",
            };
            candidate.evidence.push(Evidence {
                kind: EvidenceKind::Context,
                holds: None,
                text: format!("{why}: {}", reading.said),
            });
            candidate.evidence.extend(node_evidence(reading.node.clone()));
        }
    }
}

/// A reading's comparisons with the node, as evidence.
fn node_evidence(node: Vec<(Option<bool>, String)>) -> impl Iterator<Item = Evidence> {
    node.into_iter().map(|(holds, text)| Evidence {
        kind: EvidenceKind::Node,
        holds,
        text,
    })
}

impl Candidate {
    /// Whether a reading of the error's own lines made this an answer, not
    /// an earlier line of the log.
    fn settled_by_its_own_words(&self) -> bool {
        self.confidence.is_answer()
            && self
                .evidence
                .iter()
                .any(|evidence| evidence.kind == EvidenceKind::Stated && evidence.holds == Some(true))
            && !self.rests_on_an_earlier_line_only()
    }

    /// Whether an earlier line of the log is all that points here: no
    /// message, reading or frame of its own traceback does.
    pub fn rests_on_an_earlier_line_only(&self) -> bool {
        self.evidence
            .iter()
            .any(|evidence| evidence.kind == EvidenceKind::Context)
            && !self.evidence.iter().any(|evidence| {
                evidence.holds == Some(true)
                    && matches!(
                        evidence.kind,
                        EvidenceKind::Message | EvidenceKind::Stated | EvidenceKind::Frame
                    )
            })
    }
}

/// A generic reading (an extension built for another torch) says less than a
/// knowledge entry whose own message fits (flash-attn's library built for
/// another torch): it stays listed, one step down, and the entry decides.
fn generic_yields_to_specific(candidates: &mut [Candidate]) {
    let generic = |candidate: &Candidate| readers::GENERIC.contains(&candidate.id.as_str());
    // A compiled library that lacks torch's own symbol was built against
    // another torch, whatever the job printed on its way there (torch's
    // warning about the GPU's architecture): a cause only an earlier line
    // names neither outdoes that reading nor stays an answer beside it. Other
    // readings may be the earlier line's consequence (NumPy 2's removed names
    // after its ABI warning), and yield to it as before.
    let built_for_another_torch = candidates
        .iter()
        .any(|candidate| candidate.id == readers::EXTENSION && candidate.settled_by_its_own_words());
    let specific = candidates.iter().any(|candidate| {
        let own_message = candidate
            .evidence
            .iter()
            .any(|evidence| evidence.kind == EvidenceKind::Message && evidence.holds == Some(true));
        // A rule whose code the traceback shows was never reached (mae172:
        // DeepSpeed's torch._six import, raised from the job's own file) is
        // no entry to defer to.
        let bypassed = candidate
            .evidence
            .iter()
            .any(|evidence| evidence.kind == EvidenceKind::Frame && evidence.holds == Some(false));
        (candidate.specific || own_message)
            && candidate.confidence > Confidence::RuledOut
            && !candidate.owner_guessed
            && !generic(candidate)
            && !bypassed
            && !(built_for_another_torch && candidate.rests_on_an_earlier_line_only())
    });
    for candidate in candidates.iter_mut() {
        if generic(candidate) {
            candidate.tier = candidate.tier.min(1);
            if specific && candidate.confidence.is_answer() {
                candidate.confidence = Confidence::Possible;
            }
        } else if built_for_another_torch
            && candidate.confidence.is_answer()
            && candidate.rests_on_an_earlier_line_only()
        {
            candidate.confidence = Confidence::Possible;
            candidate.evidence.push(Evidence {
                kind: EvidenceKind::Context,
                holds: None,
                text: "the error's own words say a compiled library was built against another torch, which no earlier line of the log changes".to_string(),
            });
        }
    }
}

/// "Likely" must mean likely: a cause that only the message's wording points
/// to (`mat2`, the argument order) yields to one that the frames or an earlier
/// line of the log point to. A reading of the message is wording too: it
/// grounds nothing against a cause whose own message is more specific.
fn wording_yields_to_grounds(candidates: &mut [Candidate]) {
    let grounded = |candidate: &Candidate| {
        candidate.evidence.iter().any(|evidence| {
            evidence.holds == Some(true) && matches!(evidence.kind, EvidenceKind::Frame | EvidenceKind::Context)
        })
    };
    let wording_only = |candidate: &Candidate| {
        candidate.evidence.iter().all(|evidence| {
            evidence.holds != Some(true) || matches!(evidence.kind, EvidenceKind::Message | EvidenceKind::Devices)
        })
    };
    let Some(ground) = candidates
        .iter()
        .filter(|candidate| candidate.confidence.is_answer() && grounded(candidate))
        .map(|candidate| candidate.id.clone())
        .next()
    else {
        return;
    };
    for candidate in candidates.iter_mut() {
        if candidate.confidence.is_answer() && candidate.id != ground && wording_only(candidate) {
            candidate.confidence = Confidence::Possible;
            candidate.evidence.push(Evidence {
                kind: EvidenceKind::Message,
                holds: None,
                text: format!("only the message's wording points here, and more than wording points to {ground}"),
            });
        }
    }
}

/// A message as one line: a terminal or a paste that wrapped it at its width
/// (`killed by signal: Bus` / `error. It is possible ... out of shared` /
/// `memory.`) broke it where a space was, so each line break and the
/// indentation after it read as that one space.
fn unwrapped(message: &str) -> String {
    let mut lines = message.lines();
    let mut out = lines.next().unwrap_or_default().to_string();
    for line in lines {
        out.push(' ');
        out.push_str(line.trim_start());
    }
    out
}

/// The first of a cause's messages an earlier line of the log gives, when the
/// traceback's own messages do not.
fn context_hit<'m>(cause: &Cause<'m>, seen: &Seen) -> Option<&'m str> {
    cause.symptoms.messages.iter().map(String::as_str).find(|symptom| {
        let core = symptom_core(symptom);
        seen.context
            .iter()
            .any(|line| found_at(line, &core, closed_by_a_quote(symptom)).is_some())
    })
}

fn message_hit<'m>(cause: &Cause<'m>, seen: &Seen) -> Option<MessageHit<'m>> {
    let mut hits = cause.symptoms.every_message().filter_map(|symptom| {
        let shared = cause.symptoms.shared_messages.contains(symptom);
        let core = symptom_core(symptom);
        let closed = closed_by_a_quote(symptom);
        let (at, offset, cut) = seen.messages.iter().enumerate().find_map(|(at, message)| {
            found_at(message, &core, closed)
                .map(|offset| (at, offset, false))
                .or_else(|| cut_short(message, &core).map(|offset| (at, offset, true)))
        })?;
        // A crash's words name its signal, not a cause: a cause that lists
        // them is named by its own facts, not by them.
        let distinct = !signals::are_crash_words(symptom) && seen.is_specific(&core, cause);
        Some(MessageHit {
            symptom,
            at,
            offset,
            distinct,
            shared,
            cut,
        })
    });
    let first = hits.next()?;
    if first.distinct {
        return Some(first);
    }
    // Words many causes give (`Expected all tensors to be on the same
    // device`) and, in the same message, words of the class only this cause
    // lists (which argument is on the CPU): the latter say which sibling it
    // is, though not that it is the cause.
    Some(hits.find(|hit| hit.shared && hit.distinct).unwrap_or(first))
}

impl MessageHit<'_> {
    /// No other cause lists it and it is no message of a class: it names the cause.
    fn specific(&self) -> bool {
        self.distinct && !self.shared
    }
}

/// The shortest start of a known message that a message cut short may end on
/// and still say which it is: long enough that no sentence ends so by chance.
const CUT_MESSAGE_MIN: usize = 24;

/// Where `message` ends on the start of `core`, at least [`CUT_MESSAGE_MIN`]
/// bytes of it: a paste or a terminal that cut the line
/// (`cannot import name 'log' from 'tor`).
fn cut_short(message: &str, core: &str) -> Option<usize> {
    let message = message.trim_end();
    // A cut falls anywhere; a message that ends where a word of the known one
    // ends may be a message of its own ("no such operator torchvision::nms").
    let mid_word = |length: usize| {
        let next = core[length..].chars().next();
        let last = core[..length].chars().next_back();
        next.is_some_and(char::is_alphanumeric) && last.is_some_and(char::is_alphanumeric)
    };
    (CUT_MESSAGE_MIN..core.len().min(message.len() + 1))
        .rev()
        .filter(|&length| core.is_char_boundary(length))
        .find(|&length| message.ends_with(&core[..length]) && mid_word(length))
        .map(|length| message.len() - length)
}

fn score(
    cause: &Cause,
    traceback: &Traceback,
    seen: &Seen,
    facts: Option<&Facts>,
    node: &NodeTests,
    message_hit: Option<&MessageHit>,
    outdone_by: Option<&Cause>,
) -> Option<Candidate> {
    let named = &seen.devices;
    let symptoms = cause.symptoms;
    let mut evidence = Vec::new();
    let mut score = 0;

    let mut frame_hits = 0;
    // Frames in torch itself: every tensor operation runs through them.
    let mut torch_frame_hits = 0;
    let mut function_hit = false;
    // A function of the rule's code ran, not merely its module imported.
    let mut code_path_hit = false;
    for pattern in &symptoms.frames {
        if let Some(frame) = traceback
            .frames()
            .find(|frame| pattern.matches(&frame.file, &frame.function))
        {
            frame_hits += 1;
            torch_frame_hits += usize::from(pattern.file.starts_with(TORCH_ITSELF));
            function_hit |= pattern.function.is_some();
            code_path_hit |= pattern
                .function
                .as_deref()
                .is_some_and(|function| function != MODULE_LEVEL);
            score += if pattern.function.is_some() {
                FRAME_WITH_FUNCTION
            } else {
                FRAME_FILE_ONLY
            };
            let line = frame.line.map(|line| format!(":{line}")).unwrap_or_default();
            evidence.push(Evidence {
                kind: EvidenceKind::Frame,
                holds: Some(true),
                text: format!(
                    "the traceback passes through {} ({}{line})",
                    pattern.describe(),
                    frame.file
                ),
            });
        }
    }

    // An earlier line of the log in this cause's words: the job said so before it failed.
    // A class of failure named earlier (an NCCL error) says nothing new of its cause.
    let context_hit = context_hit(cause, seen)
        .filter(|symptom| message_hit.is_none_or(|hit| hit.symptom != *symptom))
        .filter(|_| !FAILURE_CLASSES.contains(&cause.id));
    if let Some(symptom) = context_hit {
        score += MESSAGE;
        evidence.push(Evidence {
            kind: EvidenceKind::Context,
            holds: Some(true),
            text: format!(
                "an earlier line of the log says \"{}\"",
                symptom_core_as_written(symptom)
            ),
        });
    }
    // An error no cause knows may have nothing to do with an earlier line,
    // unless that line is a program the loader could not start and the error
    // wants what it would have made (a file it should have written, its exit status).
    let program_not_started = context_hit.is_some_and(|symptom| {
        let core = symptom_core(symptom);
        seen.context.iter().any(|line| {
            readers::library::program_not_started_before(line, &seen.text)
                && found_at(line, &core, closed_by_a_quote(symptom)).is_some()
        })
    });
    let context_specific = context_hit.is_some_and(|symptom| seen.is_specific(&symptom_core(symptom), cause))
        && (seen.message_known || frame_hits > 0 || program_not_started || seen.in_build);
    // A message that is there and is none of the cause's: another error at the
    // same place, unless an earlier line named this cause (the error is its consequence).
    let message_differs = message_hit.is_none()
        && !context_specific
        && symptoms.every_message().next().is_some()
        && !seen.text.is_empty();
    let message_specific = message_hit.is_some_and(MessageHit::specific);
    match message_hit {
        Some(hit) => {
            score += if hit.distinct { MESSAGE_SPECIFIC } else { MESSAGE };
            evidence.push(Evidence {
                kind: EvidenceKind::Message,
                holds: Some(true),
                text: if hit.cut {
                    format!(
                        "the message, cut short, begins \"{}\"",
                        symptom_core_as_written(hit.symptom)
                    )
                } else {
                    format!("the message says \"{}\"", symptom_core_as_written(hit.symptom))
                },
            });
        }
        None if message_differs && frame_hits > 0 => evidence.push(Evidence {
            kind: EvidenceKind::Message,
            holds: Some(false),
            text: "the message is not one this cause gives".to_string(),
        }),
        None => {}
    }
    if message_hit.is_none() && frame_hits == 0 && context_hit.is_none() {
        return None;
    }
    // Symptom entries tell their causes apart by the longer message (which
    // side torch names as on the CPU): the other entry's fits, so this one is
    // contradicted. A rule's generic message outdone is only weaker.
    // Only wording is outdone by wording: an earlier line of the log that names
    // this cause is evidence the other cause's longer message does not have,
    // and so is a frame outside torch. A frame in torch's own modules is not
    // (lightrag249: `sparse.py` and `functional.py embedding` on the way to
    // `index_select`, whichever side of the call sat on the CPU).
    let outdone =
        outdone_by.filter(|_| message_hit.is_some() && frame_hits == torch_frame_hits && context_hit.is_none());
    if let Some(other) = outdone {
        evidence.push(Evidence {
            kind: EvidenceKind::Message,
            holds: if other.kind == CauseKind::Symptom && cause.kind == CauseKind::Symptom {
                Some(false)
            } else {
                None
            },
            text: format!(
                "the message says more than this cause's, and what it says is {}'s",
                other.id
            ),
        });
    }
    let message_contradicts =
        outdone.is_some_and(|other| other.kind == CauseKind::Symptom && cause.kind == CauseKind::Symptom);

    let classes: Vec<&str> = traceback.messages().flat_map(|raised| raised.classes()).collect();
    if !symptoms.exceptions.is_empty() && !classes.is_empty() {
        let hit = symptoms
            .exceptions
            .iter()
            .any(|wanted| classes.contains(&wanted.as_str()));
        if hit {
            score += EXCEPTION;
        }
    }

    let pairs = pairs_named(named);
    let mut devices_contradict = false;
    let mut devices_fit = false;
    if !symptoms.devices.is_empty() && !pairs.is_empty() {
        let wanted = &symptoms.devices;
        let found: Vec<String> = named.iter().map(Device::describe).collect();
        if pairs.iter().any(|pair| wanted.contains(pair)) {
            devices_fit = true;
            score += DEVICES;
            evidence.push(Evidence {
                kind: EvidenceKind::Devices,
                holds: Some(true),
                text: format!("the devices named ({}) are the pair this cause mixes", found.join(", ")),
            });
        } else {
            devices_contradict = true;
            let wanted: Vec<String> = wanted.iter().map(|pair| pair.describe()).collect();
            evidence.push(Evidence {
                kind: EvidenceKind::Devices,
                holds: Some(false),
                text: format!(
                    "the message names {}, this cause mixes {}",
                    found.join(" and "),
                    wanted.join(" or ")
                ),
            });
        }
    }

    let (verdicts, unseen_package) =
        facts.map_or_else(|| (Vec::new(), false), |facts| node_verdicts(cause.when, seen, facts));
    let tested = facts.and_then(|facts| node.judge(&symptoms.confirmed_by, facts, seen.run, &seen.text));
    // A fact that only adds (memory in use now) is evidence, not confirmation.
    let confirmed = tested
        .as_ref()
        .is_some_and(|test| test.holds == Some(true) && test.decisive);
    let node_fails = verdicts.iter().any(|verdict| verdict.holds == Some(false))
        || tested.as_ref().is_some_and(|test| test.holds == Some(false));
    let node_holds = verdicts.iter().filter(|verdict| verdict.holds == Some(true)).count() + usize::from(confirmed);
    // A version range that holds for a package, not a mere presence.
    let ranged = |name: &str| {
        cause
            .when
            .packages
            .iter()
            .any(|(wanted, condition)| wanted == name && matches!(condition, PackageCondition::Version(_)))
    };
    let version_holds = verdicts.iter().any(|verdict| {
        verdict.holds == Some(true) && matches!(&verdict.condition, Condition::Package(name) if ranged(name))
    });
    // A release of the platform the rule is about (Python, the driver, torch's
    // CUDA build, a toolkit) is a version of the node, which no frame needs to
    // point at.
    let platform_holds = verdicts.iter().any(|verdict| {
        verdict.holds == Some(true)
            && matches!(
                verdict.condition,
                Condition::Python
                    | Condition::Driver
                    | Condition::DriverCuda
                    | Condition::TorchCuda
                    | Condition::CudaToolkit
            )
    });
    // Facts that single the cause out: a release, a driver, a build, a check's
    // finding. A package merely installed, a GPU count or model is shared by
    // every job on the node.
    let strong_holds = confirmed || version_holds || platform_holds;
    let node_open = verdicts.iter().any(|verdict| verdict.holds.is_none());
    if !node_fails && node_holds > 0 {
        score += NODE_BASE + (node_holds as i32).min(NODE_MOST) - i32::from(node_open);
    }
    // A version condition that holds for a package the traceback runs through:
    // the rule is about the code that failed, which no generic symptom can say.
    let pinned = cause.kind == CauseKind::Rule
        && verdicts.iter().any(|verdict| {
            verdict.holds == Some(true)
                && matches!(&verdict.condition, Condition::Package(name)
                    if ranged(name) && seen.packages.contains(&normalize_name(name)))
        });
    if pinned {
        score += PINNED;
    }
    evidence.extend(verdicts.into_iter().map(|verdict| Evidence {
        kind: EvidenceKind::Node,
        holds: verdict.holds,
        text: verdict.fact,
    }));
    // The log's own paths say which system it ran on, whoever runs explain.
    let wrong_system = seen.other_system.as_ref().and_then(|(system, sign)| {
        let reason = match cause.not_on.iter().find(|(excluded, _)| excluded == system) {
            Some((_, reason)) => reason.clone(),
            None if needs_linux(cause.when) => "this cause is Linux's".to_string(),
            None => return None,
        };
        Some(format!("the log ran on {} ({sign}): {reason}", system.name()))
    });
    if let Some(text) = &wrong_system {
        evidence.push(Evidence {
            kind: EvidenceKind::Node,
            holds: Some(false),
            text: text.clone(),
        });
    }
    // A cause about one framework's own build, in a log whose lines show
    // only another: the failure's words (a HIP or CUDA runtime's) are any
    // framework's, and the fix would change a framework the job never ran.
    let other_framework = cause.framework.and_then(|framework| {
        let (other, sign) = seen.frameworks.only_others_than(framework)?;
        Some(format!(
            "which framework the job ran: the log shows {other} (\"{sign}\") and nothing of {framework}, which this cause is about; where only {other} ran, its own build or libraries gave these words, and a {framework} fix changes nothing",
            other = other.name(),
            framework = framework.name()
        ))
    });
    let mut fix = cause.fix.to_string();
    let mut fix_note = cause.fix_note.map(str::to_string);
    if let Some(test) = tested {
        match (test.holds, test.decisive, test.fix) {
            (Some(true), true, Some(node_fix)) => {
                fix = node_fix;
                fix_note = None;
            }
            (Some(true), false, Some(node_fix)) => {
                fix_note = Some(format!("if that does not settle it: {fix}"));
                fix = node_fix;
            }
            _ => {}
        }
        evidence.push(Evidence {
            kind: EvidenceKind::Node,
            holds: test.holds,
            text: test.text,
        });
    }
    // What else is open of such a cause is a fact of the framework nothing
    // shows ran: not what would decide.
    if let Some(text) = &other_framework {
        evidence.retain(|evidence| !(evidence.kind == EvidenceKind::Node && evidence.holds.is_none()));
        evidence.push(Evidence {
            kind: EvidenceKind::Node,
            holds: None,
            text: text.clone(),
        });
    }
    // A rule is a combination of versions: an import of its module with
    // nothing of the failure it gives (its message, its devices, an earlier
    // line) and none of its versions seen (a report that states none) shows
    // only that the module loaded. Every import of torch passes through
    // torch/__init__.py.
    let frames_alone_unproven = cause.kind == CauseKind::Rule
        && !code_path_hit
        && message_hit.is_none()
        && context_hit.is_none()
        && !devices_fit
        && !strong_holds;
    let mut confidence = if node_fails || devices_contradict || message_contradicts || wrong_system.is_some() {
        Confidence::RuledOut
    } else if message_differs || outdone.is_some() {
        Confidence::Possible
    } else if (function_hit && strong_holds) || (message_specific && confirmed) {
        Confidence::NearCertain
    } else if (frame_hits > 0 && !frames_alone_unproven)
        || message_specific
        || context_specific
        || (pinned && message_hit.is_some())
        // An earlier line of the log says the cause happened, and the node has what it needs.
        || (context_hit.is_some() && message_hit.is_some() && node_holds > 0 && !node_fails)
        || (message_hit.is_some() && strong_holds && score > MESSAGE + NODE_BASE + 1)
        // The message is one this cause gives, and a check run on the node found the cause.
        || (message_hit.is_some() && confirmed)
    {
        Confidence::Likely
    } else {
        Confidence::Possible
    };
    // A cause about a package this node lacks and the log never shows is a
    // guess: it may be listed, never named.
    let unseen = unseen_package && frame_hits == 0 && !message_specific;
    // A rule whose code path the full traceback never passes through: its
    // versions here say nothing of this failure.
    let bypassed = cause.kind == CauseKind::Rule && seen.has_frames && !symptoms.frames.is_empty() && frame_hits == 0;
    if bypassed {
        evidence.push(Evidence {
            kind: EvidenceKind::Frame,
            holds: Some(false),
            text: "the traceback never passes through the code this rule is about".to_string(),
        });
    }
    // An entry that names a class of failure (an NCCL error, no GPU visible)
    // rather than its cause, or a cause found by a message of such a class
    // (a cuDNN kernel that failed to execute), is named only when the node
    // confirms one of the causes its checks look for; else the class says
    // nothing of which.
    // A rule that a symptom entry generalizes is one version range of that
    // failure: it leads only where the node meets a version it is about (a
    // release, a build); with each left open, the general entry is the
    // answer and the rule one way it came about (pytorch144244).
    let range_unmet = cause.generalized && cause.kind == CauseKind::Rule && !(version_holds || platform_holds);
    if range_unmet && confidence > Confidence::Possible {
        confidence = Confidence::Possible;
        evidence.push(Evidence {
            kind: EvidenceKind::Node,
            holds: None,
            text: "no version this rule is about is known to hold where the log ran: the general entry leads"
                .to_string(),
        });
    }
    let class_message = message_hit.is_some_and(|hit| hit.shared) && context_hit.is_none();
    // torch's own frames (a linear layer's forward) are on nearly every failure
    // of a class its words name: only a library's frame of the cause's code
    // path (transformers' generate) says which cause it is.
    let class_unconfirmed = (FAILURE_CLASSES.contains(&cause.id) && !confirmed && frame_hits == 0)
        || (class_message && !confirmed && frame_hits == torch_frame_hits);
    if (unseen || bypassed || class_unconfirmed || other_framework.is_some()) && confidence > Confidence::Possible {
        confidence = Confidence::Possible;
    }
    let tier = match cause.kind {
        // A guess about an absent package, or one version range of a failure
        // whose versions are all open: listed after the entry that generalizes it.
        _ if unseen || range_unmet => 0,
        CauseKind::Rule if pinned => 4,
        // The node has the versions the rule is about: it outranks a generic symptom.
        // A platform version alone promotes it only where no condition of the
        // rule is left open.
        CauseKind::Rule if (version_holds || (platform_holds && !node_open)) && !bypassed => 3,
        // Without frames nothing points at a library, and frames that miss the
        // rule's code point away from it: the job's own code is likelier.
        CauseKind::Rule if !seen.has_frames || bypassed => 1,
        _ => 2,
    };
    Some(Candidate {
        id: cause.id.to_string(),
        kind: cause.kind,
        confidence,
        score,
        tier,
        specific: message_specific || context_specific,
        owner_guessed: range_unmet && unseen_package && frame_hits == 0 && !symptoms.frames.is_empty(),
        read_by: None,
        title: cause.title.to_string(),
        evidence,
        why: cause.why.to_string(),
        fix,
        fix_note,
        references: cause.references.clone(),
    })
}

/// The cause's `[when]` judged on this node, each condition this node cannot
/// speak to for this log left open (see [`from_elsewhere`]); and whether the
/// cause needs a package that neither this node nor the log shows.
fn node_verdicts(when: &When, seen: &Seen, facts: &Facts) -> (Vec<Verdict>, bool) {
    let mut unseen_package = false;
    let verdicts = assess(when, facts)
        .into_iter()
        .map(|verdict| match from_elsewhere(&verdict, when, seen, facts) {
            Some(Elsewhere { fact, unseen }) => {
                unseen_package |= unseen;
                Verdict {
                    holds: None,
                    fact,
                    ..verdict
                }
            }
            None => verdict,
        })
        .collect();
    (verdicts, unseen_package)
}

/// A failed condition left open, and whether it is a package nothing shows.
struct Elsewhere {
    fact: String,
    unseen: bool,
}

/// A condition that fails here but that this node cannot speak to for this
/// log: the log ran where these facts do not reach (a login node has no GPU; a
/// package absent here that the traceback runs through was installed there;
/// the memory a job had is not the memory its GPU has).
fn from_elsewhere(verdict: &Verdict, when: &When, seen: &Seen, facts: &Facts) -> Option<Elsewhere> {
    if verdict.holds != Some(false) {
        return None;
    }
    let open = |fact: String| Some(Elsewhere { fact, unseen: false });
    match &verdict.condition {
        // A version that differs is a fact about this node; an absence is not,
        // unless the traceback ran from this very environment.
        Condition::Package(name) if seen.run.same_environment || facts.is_installed(name) => None,
        Condition::Package(name) if seen.packages.contains(&normalize_name(name)) => open(format!(
            "{name} is not installed here, yet the traceback runs through it: the log comes from another environment ({ELSEWHERE})"
        )),
        // torch absent is one unknown however many conditions ask of it: its
        // version and its build are said once.
        Condition::Package(name) if normalize_name(name) == "torch" => Some(Elsewhere {
            fact: torch_unknown(facts),
            unseen: !seen.text.contains("torch"),
        }),
        Condition::Package(name) => Some(Elsewhere {
            fact: format!("{name} is not installed here, and nothing shows the log ran here ({ELSEWHERE})"),
            unseen: !seen.text.contains(&name.to_lowercase()),
        }),
        Condition::GpuCount | Condition::AnyGpu | Condition::AllGpus if facts.gpus.is_empty() => open(format!(
            "no GPU is visible here, so the GPUs the log ran on are unknown ({ELSEWHERE})"
        )),
        // Said once however many causes ask of a GPU (a compute capability
        // each): what is unknown, and what tells it, is the same for all.
        Condition::AnyGpu | Condition::AllGpus if gpu_fact_unknown(when, &verdict.condition, facts) => open(format!(
            "the compute capability or memory of a GPU here is not known, which causes that ask of a GPU need; nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv where the job ran tells ({ELSEWHERE})"
        )),
        Condition::AnyGpu | Condition::AllGpus if only_memory(when, &verdict.condition) => open(format!(
            "{}; the job may have had less: other processes on the GPU, max_memory, or a memory fraction (nvidia-smi while the job runs shows what it had)",
            verdict.fact
        )),
        Condition::Driver | Condition::DriverCuda if facts.driver.is_none() => open(format!(
            "no NVIDIA driver answers here, so the log's driver is unknown ({ELSEWHERE})"
        )),
        // An environment variable is the process's: the Snapshot holds the
        // shell's that ran `check`, and a job script, a launcher or a container
        // sets its own (icrasimrealaxs5: error 804 in a container whose
        // LD_LIBRARY_PATH the report never shows).
        Condition::Env(name) if !seen.run.same_environment => open(format!(
            "{}: that is this node's shell, and nothing shows the log ran in it; the job's own environment may set {name} differently ({ELSEWHERE})",
            verdict.fact
        )),
        Condition::TorchCuda if facts.torch.is_none() => Some(Elsewhere {
            fact: torch_unknown(facts),
            unseen: false,
        }),
        // A fact this node does not have (no toolkit on PATH, no GCC, a
        // Snapshot that never recorded glibc) is no fact of the node the log
        // ran on, unless the traceback ran from this very environment.
        condition if !seen.run.same_environment && !known_here(condition, facts) => open(format!(
            "{}: not known here, and nothing shows the log ran here ({ELSEWHERE})",
            verdict.fact
        )),
        _ => None,
    }
}

/// torch missing here, in one sentence for its version and its build.
fn torch_unknown(facts: &Facts) -> String {
    facts.other_copy("torch").map_or_else(
        || format!("torch is not installed here, so the log's torch version and build are unknown ({ELSEWHERE})"),
        str::to_string,
    )
}

/// Whether this node has the fact a version condition compares: a condition
/// on a fact it lacks fails here whatever the log's node had.
fn known_here(condition: &Condition, facts: &Facts) -> bool {
    match condition {
        Condition::Python => facts.python_version.is_some(),
        Condition::Glibc => facts.glibc.is_some(),
        Condition::HostGcc => facts.host_gcc.is_some(),
        Condition::CudaToolkit => facts.active_toolkit_version().is_some(),
        Condition::CompatLibcuda => facts.compat_libcuda.is_some(),
        // A missing driver is left open by its own arm above.
        Condition::DriverCuda => facts.driver_cuda.is_some(),
        _ => true,
    }
}

/// Whether a GPU condition asks for a fact that some GPU here lacks: a
/// report names a T4 without its compute capability, and an unknown is no "no".
fn gpu_fact_unknown(when: &When, condition: &Condition, facts: &Facts) -> bool {
    gpu_condition(when, condition).is_some_and(|wanted| {
        facts.gpus.iter().any(|gpu| {
            (wanted.compute_capability.is_some() && gpu.compute_capability.is_none())
                || (wanted.memory_mib.is_some() && gpu.gpu.memory_total_mib.is_none())
        })
    })
}

/// Whether a GPU condition is about memory alone.
fn only_memory(when: &When, condition: &Condition) -> bool {
    gpu_condition(when, condition)
        .is_some_and(|gpu| gpu.memory_mib.is_some() && gpu.name.is_empty() && gpu.compute_capability.is_none())
}

/// What a GPU condition of `when` asks of a GPU.
fn gpu_condition<'w>(when: &'w When, condition: &Condition) -> Option<&'w GpuCondition> {
    match condition {
        Condition::AnyGpu => when.any_gpu.as_ref(),
        Condition::AllGpus => when.all_gpus.as_ref(),
        _ => None,
    }
}

/// The part of a symptom message that stays the same across releases,
/// lowercase: torch has reworded what follows ", but" ("but found at least
/// two devices" became "but got mat1 is on cpu"); the opening has not.
fn symptom_core(symptom: &str) -> String {
    comparable(symptom_core_as_written(symptom))
}

/// Text as messages and a cause's words are compared: lowercase, without
/// the quote marks a paste changes or loses. Markdown takes a backtick for
/// code (`version `GLIBCXX_3.4.29' not found` arrives as `version
/// GLIBCXX_3.4.29' not found`), forums and word processors curl quotes.
fn comparable(text: &str) -> String {
    text.chars()
        .filter(|c| !QUOTE_MARKS.contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a known message ends on a quote mark (`No module named
/// 'pkg_resources'`): the quote ended the name, and without it the name must
/// still end there (`pkg_resources_extra` is another module).
fn closed_by_a_quote(symptom: &str) -> bool {
    symptom_core_as_written(symptom).trim_end().ends_with(QUOTE_MARKS)
}

/// Where `core` is in `text` (both [`comparable`]), ending a word where it is `closed`.
fn found_at(text: &str, core: &str, closed: bool) -> Option<usize> {
    text.match_indices(core)
        .map(|(at, _)| at)
        .find(|&at| !closed || !continues_a_name(&text[at + core.len()..]))
}

/// Whether text right after a quoted name goes on with the name: a letter,
/// `_`, or a dot before one (`pkg_resources.extern`); a sentence's full stop
/// (`from False to True.`) does not.
fn continues_a_name(rest: &str) -> bool {
    let mut chars = rest.chars();
    let part_of_a_name = |c: char| c.is_alphanumeric() || c == '_';
    match chars.next() {
        Some('.') => chars.next().is_some_and(part_of_a_name),
        Some(c) => part_of_a_name(c),
        None => false,
    }
}

const QUOTE_MARKS: [char; 8] = ['\'', '"', '`', '\u{2018}', '\u{2019}', '\u{201c}', '\u{201d}', '\u{b4}'];

pub(super) fn symptom_core_as_written(symptom: &str) -> &str {
    match symptom.split_once(", but") {
        Some((core, _)) if core.len() >= 20 => core,
        // A sentence's full stop is not part of what a log quotes of it, but
        // the words of a short one say too little without it: "is out of
        // bounds." is a loss target's message, "is out of bounds for
        // dimension 0" any index's.
        _ => match symptom.strip_suffix('.') {
            Some(core) if core.len() >= SHORT_MESSAGE => core,
            _ => symptom,
        },
    }
}

/// Where torch's own modules are, as a frame pattern names them.
const TORCH_ITSELF: &str = "torch/";

/// Below this many bytes a known message keeps its full stop.
const SHORT_MESSAGE: usize = 20;

/// A device a message names: `cuda:1`, `cpu`, `meta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Device {
    pub kind: DeviceKind,
    pub index: Option<u32>,
}

impl Device {
    pub fn describe(&self) -> String {
        match self.index {
            Some(index) => format!("{}:{index}", self.kind.name()),
            None => self.kind.name().to_string(),
        }
    }
}

/// What shows that a traceback was printed on a system other than Linux, and
/// which: a frame's file on a drive letter (`C:\\Users\\...`) or Windows' own
/// error numbers (`[WinError 126]`); a frame under macOS's home directories
/// or its Python framework, or a message that shows macOS as a line of the
/// log can.
pub(super) fn other_system_sign(traceback: &Traceback) -> Option<(System, String)> {
    for frame in traceback.frames() {
        if super::on_a_drive(&frame.file) {
            return Some((System::Windows, format!("a frame in {}", frame.file)));
        }
        if MACOS_PATHS.iter().any(|prefix| frame.file.starts_with(prefix)) {
            return Some((System::MacOs, format!("a frame in {}", frame.file)));
        }
    }
    traceback.messages().find_map(|raised| {
        if raised.message.contains("[WinError ") {
            Some((System::Windows, "the message gives a WinError".to_string()))
        } else {
            raised.message.lines().find_map(system_sign_in_line)
        }
    })
}

/// What one line of a log shows of a system other than Linux: a path under
/// macOS's own directories where a Python file or a site-packages lies (a
/// warning's location, a path a library prints), or a `.dylib`. Windows' drive
/// letters are read only from frames: free text names `C:` for other reasons.
pub(super) fn system_sign_in_line(line: &str) -> Option<(System, String)> {
    let path = line
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '`'))
        .find(|token| {
            MACOS_PATHS.iter().any(|prefix| token.starts_with(prefix))
                && (token.contains(".py") || token.contains("/site-packages/") || token.contains(".dylib"))
        });
    if let Some(path) = path {
        let path = path.trim_end_matches([':', ',']);
        return Some((System::MacOs, format!("a path in the log, {path}")));
    }
    line.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '`' | ':'))
        .find(|token| token.ends_with(".dylib") && token.len() > ".dylib".len())
        .map(|library| (System::MacOs, format!("the log names {library}, a macOS library")))
}

/// The function name Python gives a module's top level: a frame there is an import.
const MODULE_LEVEL: &str = "<module>";

/// Where only macOS keeps Python code: its users' homes, its Python framework,
/// Homebrew on Apple silicon.
const MACOS_PATHS: [&str; 3] = ["/Users/", "/Library/Frameworks/Python.framework/", "/opt/homebrew/"];

/// Whether a cause exists only on Linux: it needs a glibc, a Linux
/// distribution, or the Linux loader's `LD_` variables.
fn needs_linux(when: &When) -> bool {
    when.glibc.is_some()
        || when
            .platform
            .as_ref()
            .is_some_and(|platform| !platform.os_id.is_empty())
        || when.env.iter().any(|(name, _)| name.starts_with("LD_"))
}

/// The devices the exception messages name, in order of first mention. Only
/// lowercase device words count (torch writes `cuda:0 and cpu`; "the CPU" in
/// prose is not a device argument).
pub fn devices_named(traceback: &Traceback) -> Vec<Device> {
    let mut devices = Vec::new();
    // The first line only: what follows may be the log going on.
    for raised in traceback.messages() {
        let message = in_current_words(raised.message.lines().next().unwrap_or_default());
        for word in message.split(|c: char| !(c.is_ascii_alphanumeric() || c == ':')) {
            let (name, index) = match word.split_once(':') {
                Some((name, index)) => (name, index.parse().ok()),
                None => (word, None),
            };
            let indexed_ok = word.contains(':') == index.is_some();
            if let Some(kind) = DeviceKind::parse(name).filter(|_| indexed_ok) {
                let device = Device { kind, index };
                if !devices.contains(&device) {
                    devices.push(device);
                }
            }
        }
    }
    devices
}

/// The kinds of pair a list of devices makes: `cuda:0, cpu` is `cuda+cpu`;
/// two different GPUs are `cuda+cuda`.
fn pairs_named(devices: &[Device]) -> Vec<DevicePair> {
    let mut pairs = Vec::new();
    for (position, first) in devices.iter().enumerate() {
        for second in &devices[position + 1..] {
            let pair = DevicePair::new(first.kind, second.kind);
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::traceback::{Raised, parse};

    fn named(message: &str) -> Vec<String> {
        let traceback = &parse(&format!("RuntimeError: {message}"))[0];
        devices_named(traceback).iter().map(Device::describe).collect()
    }

    #[test]
    fn devices_are_read_from_the_message_as_torch_writes_them() {
        assert_eq!(
            named("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"),
            ["cuda:0", "cpu"]
        );
        assert_eq!(
            named("found at least two devices, cuda:1 and cuda:0!"),
            ["cuda:1", "cuda:0"]
        );
        assert!(named("Some modules are dispatched on the CPU or the disk").is_empty());
        assert_eq!(named("Cannot copy out of meta tensor; no data!"), ["meta"]);
        // torch before 1.6 named them as backends or device types, the argument's last.
        assert_eq!(
            named("Expected object of backend CUDA but got backend CPU for argument #2 'mat2'"),
            ["cpu", "cuda"]
        );
        // Box drawing and accents around the devices, as rich and non-English logs print them.
        assert_eq!(named("│ café cuda:0 │ and cpu é"), ["cuda:0", "cpu"]);
    }

    #[test]
    fn two_gpus_make_a_cuda_pair_and_one_gpu_with_the_cpu_another() {
        let gpu = |index| Device {
            kind: DeviceKind::Cuda,
            index: Some(index),
        };
        let cpu = Device {
            kind: DeviceKind::Cpu,
            index: None,
        };
        assert_eq!(
            pairs_named(&[gpu(1), gpu(0)]),
            [DevicePair::new(DeviceKind::Cuda, DeviceKind::Cuda)]
        );
        assert_eq!(
            pairs_named(&[cpu, gpu(0)]),
            [DevicePair::new(DeviceKind::Cuda, DeviceKind::Cpu)]
        );
    }

    const ZERO3: &str = "Traceback (most recent call last):
  File \"/opt/venvs/train/lib/python3.12/site-packages/deepspeed/runtime/zero/stage3.py\", line 2117, in unscale_and_clip_grads
    self.fp32_partitioned_groups_flat[sub_group_id].grad.mul_(1. / combined_scale)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
";

    /// The recorded H200 node, with DeepSpeed at `version` (or without it).
    fn node(deepspeed: Option<&str>) -> crate::snapshot::Snapshot {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json"
        );
        let mut snapshot = crate::snapshot::read(std::path::Path::new(path)).unwrap();
        if let Some(version) = deepspeed {
            let mut package = snapshot.packages[0].clone();
            package.name = "deepspeed".into();
            package.normalized_name = "deepspeed".into();
            package.version = Some(version.into());
            snapshot.packages.push(package);
        }
        snapshot
    }

    /// `snapshot` with a package added at `version`.
    fn with(mut snapshot: crate::snapshot::Snapshot, name: &str, version: &str) -> crate::snapshot::Snapshot {
        let mut package = snapshot.packages[0].clone();
        package.name = name.into();
        package.normalized_name = normalize_name(name);
        package.version = Some(version.into());
        snapshot.packages.push(package);
        snapshot
    }

    /// `snapshot` with its GPU twice.
    fn two_gpus(mut snapshot: crate::snapshot::Snapshot) -> crate::snapshot::Snapshot {
        let nvidia = snapshot.nvidia.as_mut().unwrap();
        let mut second = nvidia.gpus[0].clone();
        second.index = 1;
        second.uuid = Some("GPU-00000000-0000-0000-0000-000000000001".into());
        nvidia.gpus.push(second);
        snapshot.cuda_devices = None;
        snapshot
    }

    /// `snapshot` with torch at `version` (`1.8.1+cu101`), its build and CUDA with it.
    fn with_torch(snapshot: crate::snapshot::Snapshot, version: &str) -> crate::snapshot::Snapshot {
        let mut value = serde_json::to_value(&snapshot).unwrap();
        readers::set_torch_build(&mut value, version);
        serde_json::from_value(value).unwrap()
    }

    fn ranked(log: &str, snapshot: &crate::snapshot::Snapshot) -> Vec<Candidate> {
        let matrix = Matrix::load(&[]).unwrap();
        let configs = crate::configs::TrainingConfigs::default();
        let facts = Facts::new(snapshot, &configs);
        let traceback = parse(log).pop().unwrap();
        rank(&traceback, &matrix, Some(&facts))
    }

    fn first(log: &str, snapshot: &crate::snapshot::Snapshot) -> (String, Confidence) {
        let matrix = Matrix::load(&[]).unwrap();
        let configs = crate::configs::TrainingConfigs::default();
        let facts = Facts::new(snapshot, &configs);
        let traceback = parse(log).pop().unwrap();
        let best = rank(&traceback, &matrix, Some(&facts)).remove(0);
        (best.id, best.confidence)
    }

    /// A reading that fills nothing in (loss_target's) leaves its entry's fix;
    /// one that does (the program reader's, with the program named) replaces it.
    #[test]
    fn a_readings_fix_replaces_the_entrys_only_where_it_fills_something_in() {
        let matrix = Matrix::load(&[]).unwrap();
        let entry_fix = |id: &str| {
            matrix
                .symptoms
                .iter()
                .find(|entry| entry.id == id)
                .map(|entry| entry.fix.clone())
                .unwrap()
        };
        let target = ranked("IndexError: Target 5 is out of bounds.\n", &node(None)).remove(0);
        assert_eq!(target.id, "loss-target-out-of-bounds");
        assert_eq!(target.fix, entry_fix("loss-target-out-of-bounds"));
        let subprocess = "Traceback (most recent call last):\n  File \"/home/u/run.py\", line 9, in <module>\n    run(cmd)\n  File \"/usr/lib/python3.10/subprocess.py\", line 1847, in _execute_child\n    raise child_exception_type(errno_num, err_msg, err_filename)\nFileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'\n";
        let program = ranked(subprocess, &node(None)).remove(0);
        assert_eq!(program.id, "program-not-on-path");
        assert!(program.fix.starts_with("install ffmpeg with"), "{}", program.fix);
        assert_ne!(program.fix, entry_fix("program-not-on-path"));
    }

    /// fastaidockercontainers21: torch's message as a terminal wrapped it.
    #[test]
    fn a_message_wrapped_at_the_terminals_width_is_read_as_one_line() {
        let log = "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\nerror. It is possible that dataloader's workers are out of shared\nmemory. Please try to raise your shared memory limit.\n";
        assert_eq!(first(log, &node(None)).0, "dataloader-shm-too-small");
        assert_eq!(
            unwrapped("killed by signal: Bus\n    error. out of shared\nmemory."),
            "killed by signal: Bus error. out of shared memory."
        );
    }

    #[test]
    fn the_node_makes_a_matching_stack_near_certain_or_rules_it_out() {
        let rule = "deepspeed-zero3-offload-device-mismatch".to_string();
        assert_eq!(
            first(ZERO3, &node(Some("0.14.2"))),
            (rule.clone(), Confidence::NearCertain)
        );
        let (id, confidence) = first(ZERO3, &node(Some("0.14.0")));
        assert!(id != rule || confidence == Confidence::RuledOut, "{id} {confidence:?}");
    }

    #[test]
    fn an_absence_here_leaves_the_condition_open_when_the_log_ran_elsewhere() {
        // The frame is under /opt/venvs/train, the Snapshot's own environment:
        // DeepSpeed missing there is a fact about the log's environment.
        let matrix = Matrix::load(&[]).unwrap();
        let configs = crate::configs::TrainingConfigs::default();
        let snapshot = node(None);
        let facts = Facts::new(&snapshot, &configs);
        let here = parse(ZERO3).pop().unwrap();
        let rule = |candidates: Vec<Candidate>| {
            candidates
                .into_iter()
                .find(|candidate| candidate.id == "deepspeed-zero3-offload-device-mismatch")
                .unwrap()
        };
        assert_eq!(
            rule(rank(&here, &matrix, Some(&facts))).confidence,
            Confidence::RuledOut
        );
        let elsewhere = parse(&ZERO3.replace("/opt/venvs/train", "/home/me/conda/envs/ds"))
            .pop()
            .unwrap();
        let open = rule(rank(&elsewhere, &matrix, Some(&facts)));
        assert_eq!(open.confidence, Confidence::Likely);
        assert!(
            open.evidence
                .iter()
                .any(|e| e.holds.is_none() && e.text.contains("another environment"))
        );
    }

    #[test]
    fn a_message_only_one_cause_lists_says_more_than_one_many_list() {
        let snapshot = node(None);
        let specific = "ValueError: Cannot copy out of meta tensor; no data!";
        assert_eq!(
            first(specific, &snapshot),
            ("device-map-auto-model-larger-than-gpu".to_string(), Confidence::Likely)
        );
        let generic = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
        assert_eq!(first(generic, &snapshot).1, Confidence::Possible);
    }

    #[test]
    fn the_core_of_a_symptom_drops_what_torch_rewords() {
        assert_eq!(
            symptom_core("Expected all tensors to be on the same device, but found at least two devices"),
            "expected all tensors to be on the same device"
        );
        assert_eq!(symptom_core("Short, but"), "short, but");
    }

    const BARE_CPU_MISMATCH: &str = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n";

    #[test]
    fn a_bare_cpu_mismatch_puts_the_jobs_code_before_pins_of_packages_nowhere_in_sight() {
        // Neither DeepSpeed nor bitsandbytes is installed, and no frame shows them.
        let candidates = ranked(BARE_CPU_MISMATCH, &node(None));
        assert_eq!(candidates[0].kind, CauseKind::Symptom, "{:#?}", candidates[0]);
        for guess in [
            "deepspeed-zero3-offload-device-mismatch",
            "quantized-lora-cpu-offload-small-gpu",
        ] {
            let found = candidates.iter().find(|c| c.id == guess).unwrap();
            assert!(
                found.confidence <= Confidence::Possible,
                "{guess}: {:?}",
                found.confidence
            );
            assert_eq!(found.tier, 0, "{guess} is a guess about an absent package");
        }
    }

    #[test]
    fn a_rule_pinned_by_its_version_and_its_frames_outranks_the_generic_symptom() {
        let log = r#"Traceback (most recent call last):
  File "/opt/venvs/train/lib/python3.11/site-packages/torch/nn/parallel/data_parallel.py", line 185, in forward
    outputs = self.parallel_apply(replicas, inputs, module_kwargs)
  File "/opt/venvs/train/lib/python3.11/site-packages/torch/nn/parallel/parallel_apply.py", line 110, in parallel_apply
    output.reraise()
  File "/opt/venvs/train/lib/python3.11/site-packages/adapters/methods/bottleneck.py", line 310, in forward
    hidden_states = self.compose(adapter_setup, state)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!
"#;
        let candidates = ranked(log, &two_gpus(with(node(None), "adapters", "0.1.1")));
        assert_eq!(
            candidates[0].id, "adapters-dataparallel-device-mismatch",
            "{candidates:#?}"
        );
        assert!(candidates[0].confidence.is_answer());
        assert!(candidates.iter().any(|c| c.id == "dataparallel-tensor-kept-on-cuda0"));
        // adapters 0.2.0 has the fix: the generic symptom leads.
        let fixed = ranked(log, &two_gpus(with(node(None), "adapters", "0.2.0")));
        assert_eq!(fixed[0].id, "dataparallel-tensor-kept-on-cuda0", "{fixed:#?}");
    }

    #[test]
    fn the_memory_a_job_had_is_not_the_memory_its_gpu_has() {
        // A 141 GB H200 with bitsandbytes and PEFT: a memory limit or another
        // process can still leave the job a T4's worth.
        let log = "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model.\n";
        let snapshot = with(node(None), "bitsandbytes", "0.45.0");
        let candidates = ranked(log, &snapshot);
        let rule = &candidates[0];
        assert_eq!(rule.id, "quantized-lora-cpu-offload-small-gpu", "{candidates:#?}");
        assert!(rule.confidence.is_answer(), "{rule:#?}");
        assert!(
            rule.evidence_where(None)
                .iter()
                .any(|open| open.contains("the job may have had less")),
            "{rule:#?}"
        );
    }

    #[test]
    fn an_old_driver_is_confirmed_with_the_nodes_numbers_and_its_fix() {
        let log = "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx\n";
        let mut old_driver = node(None);
        let nvidia = old_driver.nvidia.as_mut().unwrap();
        nvidia.driver_version = Some("535.104.05".into());
        nvidia.cuda_driver_version = Some("12.2".into());
        let best = ranked(log, &old_driver).remove(0);
        assert_eq!(best.id, "driver-too-old-for-torch");
        assert_eq!(best.confidence, Confidence::NearCertain, "{best:#?}");
        let confirmed = best.evidence_where(Some(true)).join(" | ");
        assert!(confirmed.contains("535.104.05"), "{confirmed}");
        assert_ne!(
            best.fix,
            Matrix::load(&[])
                .unwrap()
                .symptom("driver-too-old-for-torch")
                .unwrap()
                .fix
        );
        // This node's driver runs its torch: the cause is ruled out where the
        // traceback ran from this node's environment, and only open otherwise.
        let (_, elsewhere) = first(log, &node(None));
        assert_eq!(elsewhere, Confidence::Likely);
        let here = format!(
            "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 372, in _lazy_init\n    torch._C._cuda_init()\n{log}"
        );
        let (_, confidence) = first(&here, &node(None));
        assert_eq!(confidence, Confidence::RuledOut);
    }

    /// torch's words where it found no driver library at all are the old-driver
    /// entry's "none where it runs" (CUDAFunctions.cpp raises them for the same
    /// cudaErrorInsufficientDriver, with no driver version to report); the
    /// entry for a driver that sees no device does not list them.
    #[test]
    fn torch_finding_no_driver_is_no_driver_the_job_can_use() {
        let message = "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx";
        let best = ranked_alone(Raised {
            exception: "RuntimeError".into(),
            message: message.into(),
        })
        .remove(0);
        assert_eq!(best.id, "driver-too-old-for-torch");
        assert_eq!(best.confidence, Confidence::Likely, "{best:#?}");
        assert!(candidate_alone("RuntimeError", message, "no-cuda-gpu-visible").is_none());
    }

    /// torch's words for a zero device count say what the entry's title says,
    /// but not which of its siblings hid the devices (a driver not loaded,
    /// WSL's bridge, a script's own raise after is_available()): listed, not
    /// named, until a check on the node says which.
    #[test]
    fn torchs_zero_device_count_alone_is_a_class_not_an_answer() {
        let candidate =
            candidate_alone("RuntimeError", "No CUDA GPUs are available", "no-cuda-gpu-visible").expect("listed");
        assert_eq!(candidate.confidence, Confidence::Possible, "{candidate:#?}");
    }

    /// An illegal memory access alone says only that some kernel faulted: a
    /// kernel's bug far more often than failing memory, which the GPU's memory
    /// errors would show. Not an answer until they, or a frame, say which.
    #[test]
    fn an_illegal_memory_access_alone_is_a_class_not_an_answer() {
        let best = ranked_alone(Raised {
            exception: "RuntimeError".into(),
            message: "CUDA error: an illegal memory access was encountered".into(),
        })
        .remove(0);
        assert_eq!(best.id, "cuda-illegal-memory-access");
        assert_eq!(best.confidence, Confidence::Possible, "{best:#?}");
    }

    #[test]
    fn a_quoted_name_ends_where_the_name_ends_not_at_a_full_stop() {
        let closed = |symptom: &str, text: &str| {
            found_at(&comparable(text), &symptom_core(symptom), closed_by_a_quote(symptom)).is_some()
        };
        assert!(closed(
            "No module named 'pkg_resources'",
            "No module named 'pkg_resources'"
        ));
        assert!(!closed(
            "No module named 'pkg_resources'",
            "No module named 'pkg_resources_extra'"
        ));
        assert!(!closed(
            "No module named 'pkg_resources'",
            "No module named 'pkg_resources.extern'"
        ));
        assert!(closed(
            "from `False` to `True`",
            "we changed the default from `False` to `True`. Re-running"
        ));
    }

    #[test]
    fn a_symptom_leads_the_rule_it_generalizes_unless_the_node_meets_the_rules_versions() {
        let log = "RuntimeError: CUDA Setup failed despite GPU being available. Please run the following command to get more information: python -m bitsandbytes\n";
        assert_eq!(first(log, &node(None)).0, "bitsandbytes-cuda-setup-failed");
        // bitsandbytes 0.42 with torch's CUDA 13.0: the rule's versions hold.
        let candidates = ranked(log, &with(node(None), "bitsandbytes", "0.42.0"));
        let (id, confidence) = (candidates[0].id.clone(), candidates[0].confidence);
        assert_eq!(id, "bnb-before-0-43-1-cuda-12-4-runtime", "{candidates:#?}");
        assert!(confidence.is_answer());
    }

    /// sagpool3: torch 1.1's words for a CPU weight fed a CUDA input name the
    /// module left behind, as today's words for the same argument do; the
    /// devices the other way round are inputs left on the CPU.
    #[test]
    fn torchs_old_device_check_names_the_side_as_todays_words_do() {
        let log = |expected: &str, got: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    out = x.matmul(w)\nRuntimeError: Expected object of backend {expected} but got backend {got} for argument #2 'mat2'\n"
            )
        };
        let here = node(None);
        assert_eq!(
            ranked(&log("CUDA", "CPU"), &here)[0].id,
            "module-created-after-to-device"
        );
        assert_eq!(ranked(&log("CPU", "CUDA"), &here)[0].id, "inputs-not-on-model-device");
    }

    /// A matmul's argument says which side is on the CPU, not why: the batch,
    /// an activation the model's forward made there, an offload's weight. The
    /// words rank the two mirrored causes in the order they point and name
    /// neither; a library's frame of the cause's code path (transformers'
    /// generate) names it, torch's own layer does not. An embedding's index on
    /// the CPU is the token ids themselves.
    #[test]
    fn a_matmuls_argument_lists_the_side_it_points_to_and_a_librarys_frame_names_it() {
        let message = |devices: &str, argument: &str| {
            format!(
                "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, {devices}! (when checking argument for argument {argument} in method wrapper_CUDA_addmm)\n"
            )
        };
        let here = node(None);
        for (devices, argument, pointed, mirror) in [
            (
                "cuda:0 and cpu",
                "mat1",
                "inputs-not-on-model-device",
                "module-created-after-to-device",
            ),
            (
                "cpu and cuda:0",
                "mat1",
                "module-created-after-to-device",
                "inputs-not-on-model-device",
            ),
            (
                "cuda:0 and cpu",
                "weight",
                "module-created-after-to-device",
                "inputs-not-on-model-device",
            ),
        ] {
            let candidates = ranked(&message(devices, argument), &here);
            let place = |id: &str| candidates.iter().position(|candidate| candidate.id == id);
            assert!(place(pointed) < place(mirror), "{devices} {argument}: {candidates:#?}");
            assert!(
                candidates.iter().all(|candidate| !candidate.confidence.is_answer()),
                "{devices} {argument}: {candidates:#?}"
            );
        }
        let through_a_layer = format!(
            "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/torch/nn/modules/linear.py\", line 114, in forward\n    return F.linear(input, self.weight, self.bias)\n{}",
            message("cuda:0 and cpu", "mat1")
        );
        let (_, confidence) = first(&through_a_layer, &here);
        assert!(!confidence.is_answer(), "{confidence:?}");
        let through_generate = format!(
            "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/transformers/generation/utils.py\", line 1520, in generate\n    return self.greedy_search(\n  File \"/v/lib/python3.10/site-packages/torch/nn/modules/linear.py\", line 114, in forward\n    return F.linear(input, self.weight, self.bias)\n{}",
            message("cuda:0 and cpu", "mat1")
        );
        let (id, confidence) = first(&through_generate, &here);
        assert_eq!(id, "inputs-not-on-model-device");
        assert!(confidence.is_answer(), "{confidence:?}");
        let (id, confidence) = first(&message("cuda:0 and cpu", "index"), &here);
        assert_eq!(id, "inputs-not-on-model-device");
        assert!(confidence.is_answer(), "{confidence:?}");
    }

    #[test]
    fn a_reading_that_rules_out_a_symptom_rules_out_the_rules_it_generalizes() {
        let matrix = Matrix::load(&[]).unwrap();
        let judge = Judge::new(&matrix, None);
        let symptom = "torch-load-weights-only-default";
        let generalized = &matrix.symptom(symptom).unwrap().symptoms.generalizes;
        assert!(!generalized.is_empty());
        let reading = Reading {
            cause: "checkpoint-not-a-pickle",
            said: String::new(),
            node: Vec::new(),
            fix: String::new(),
            stated: true,
            settles: true,
            rules_out: vec![symptom],
        };
        let ruled_out = judge.ruled_out_by(&reading);
        assert!(ruled_out.contains(&symptom));
        for rule in generalized {
            assert!(ruled_out.contains(&rule.as_str()), "{rule}: {ruled_out:?}");
        }
    }

    /// digitalsreeniimageannotator57: a frameless 'no kernel image' on a
    /// Pascal GPU with torch 2.8.0+cu128. The rule about that build and that
    /// GPU holds on the node's versions, which no frame needs to point at: it
    /// leads the symptom that generalizes it. On an H200 the rule is ruled out.
    #[test]
    fn a_rule_whose_platform_versions_hold_leads_the_generic_symptom_without_frames() {
        let log = "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n";
        let mut pascal = with_torch(node(None), "2.8.0+cu128");
        let gpu = &mut pascal.nvidia.as_mut().unwrap().gpus[0];
        gpu.name = Some("NVIDIA GeForce GTX 1050".into());
        gpu.compute_capability = Some("6.1".into());
        let (id, confidence) = first(log, &pascal);
        assert_eq!(id, "maxwell-pascal-torch-cuda-12-8");
        assert!(confidence.is_answer(), "{confidence:?}");
        let candidates = ranked(log, &with_torch(node(None), "2.8.0+cu128"));
        assert_ne!(candidates[0].id, "maxwell-pascal-torch-cuda-12-8", "{candidates:#?}");
    }

    #[test]
    fn the_longer_message_of_one_symptom_contradicts_its_sibling() {
        // 'cuda:0 and cpu ... argument index': the token ids are on the CPU, so
        // the module is not.
        let log = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)\n";
        let candidates = ranked(log, &node(None));
        assert_eq!(candidates[0].id, "inputs-not-on-model-device");
        let sibling = candidates
            .iter()
            .find(|c| c.id == "module-created-after-to-device")
            .unwrap();
        assert_eq!(sibling.confidence, Confidence::RuledOut, "{sibling:#?}");
    }

    const NCCL_ERROR: &str = "Traceback (most recent call last):
  File \"/opt/venvs/train/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py\", line 2501, in all_reduce
    work = group.allreduce([tensor], opts)
torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.28.9
";

    #[test]
    fn a_generic_nccl_error_is_confirmed_by_a_small_dev_shm_and_not_ruled_out_by_a_large_one() {
        let mut snapshot = node(None);
        snapshot.system.limits.shm_total_mib = Some(65536);
        // The class of failure alone names no cause: listed, not named, and not ruled out.
        let best = ranked(NCCL_ERROR, &snapshot).remove(0);
        assert_eq!(best.id, "nccl-collective-failed");
        assert_eq!(best.confidence, Confidence::Possible, "{best:#?}");
        snapshot.system.limits.shm_total_mib = Some(64);
        let best = ranked(NCCL_ERROR, &snapshot).remove(0);
        assert_eq!(best.id, "nccl-collective-failed");
        assert_eq!(best.confidence, Confidence::NearCertain, "{best:#?}");
    }

    /// One exception, ranked with no traceback around it and no node.
    fn ranked_alone(raised: Raised) -> Vec<Candidate> {
        rank(&Traceback::bare(1, raised), &Matrix::load(&[]).unwrap(), None)
    }

    /// The cause `id` among those `ranked_alone` gives for one exception.
    fn candidate_alone(exception: &str, message: &str, id: &str) -> Option<Candidate> {
        let raised = Raised {
            exception: exception.into(),
            message: message.into(),
        };
        ranked_alone(raised).into_iter().find(|candidate| candidate.id == id)
    }

    /// torch's words for ninja it could not run name the program missing;
    /// ninja's own words for a build that ran and failed do not.
    #[test]
    fn ninja_that_torch_could_not_run_is_a_program_not_on_path() {
        let named = |exception: &str, message: &str| {
            candidate_alone(exception, message, "program-not-on-path")
                .is_some_and(|candidate| candidate.confidence.is_answer())
        };
        assert!(named("RuntimeError", "Ninja is required to load C++ extensions"));
        assert!(!named(
            "RuntimeError",
            "Error building extension 'fused': ninja: build stopped: subcommand failed."
        ));
    }

    /// Wrappers that look for their program before running it say so in their
    /// own words (pytesseract, pdf2image for poppler, graphviz for dot); their
    /// other failures, with the program found, do not name it.
    #[test]
    fn a_wrappers_own_words_for_its_missing_program_name_it() {
        let named = |exception: &str, message: &str| {
            candidate_alone(exception, message, "program-not-on-path")
                .is_some_and(|candidate| candidate.confidence.is_answer())
        };
        assert!(named(
            "pytesseract.pytesseract.TesseractNotFoundError",
            "tesseract is not installed or it's not in your PATH. See README file for more information."
        ));
        assert!(named(
            "pdf2image.exceptions.PDFInfoNotInstalledError",
            "Unable to get page count. Is poppler installed and in PATH?"
        ));
        assert!(named(
            "graphviz.backend.execute.ExecutableNotFound",
            "failed to execute WindowsPath('dot'), make sure the Graphviz executables are on your systems' PATH"
        ));
        assert!(!named(
            "pdf2image.exceptions.PDFPageCountError",
            "Unable to get page count.\nSyntax Error: Couldn't read xref table"
        ));
        assert!(!named(
            "pytesseract.pytesseract.TesseractError",
            "(1, 'Error opening data file /usr/share/tesseract-ocr/4.00/tessdata/eng.traineddata')"
        ));
    }

    /// A child SIGKILL ended, as subprocess reports it (137 through a shell,
    /// -9 from the signal itself), names the host's memory as a bare `Killed`
    /// does; a child that failed with its own status does not.
    #[test]
    fn a_child_killed_by_sigkill_names_the_hosts_memory() {
        let named_as = |exception: &str, message: &str| {
            candidate_alone(exception, message, "host-out-of-memory-killed")
                .is_some_and(|candidate| candidate.confidence.is_answer())
        };
        let named = |message: &str| named_as("subprocess.CalledProcessError", message);
        assert!(named(
            "Command '['python', 'train.py']' returned non-zero exit status 137."
        ));
        assert!(named(
            "Command '['python', 'train.py']' returned non-zero exit status -9."
        ));
        assert!(!named(
            "Command '['python', 'train.py']' returned non-zero exit status 1."
        ));
        assert!(!named(
            "Command '['python', 'train.py']' returned non-zero exit status -11."
        ));
        // torch's DataLoader names the signal that ended a worker: SIGKILL's, not a bus error's.
        let worker = |message: &str| named_as("RuntimeError", message);
        assert!(worker("DataLoader worker (pid 9833) is killed by signal: Killed. "));
        // Slurm's words for its memory cgroup killing a process of the job.
        assert!(worker(
            "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=36358.batch. Some of your processes may have been killed by the cgroup out-of-memory handler."
        ));
        assert!(!worker(
            "slurmstepd: error: *** JOB 36358 ON node7 CANCELLED AT 2024-05-01T12:00:00 DUE TO TIME LIMIT ***"
        ));
        assert!(!worker("DataLoader worker (pid 9833) is killed by signal: Bus error. "));
    }

    /// cryosparcissues142: the driver's and runtime's own names and words for
    /// running out of GPU memory, as wrappers other than torch print them; the
    /// host's MemoryError is not the GPU's.
    #[test]
    fn the_gpus_out_of_memory_in_the_drivers_words_is_named_and_the_hosts_is_not() {
        for (exception, message) in [
            ("MemoryError", "cuMemAlloc failed: out of memory"),
            (
                "CudaAPIError",
                "[2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY",
            ),
            ("OutOfMemoryError", "cudaErrorMemoryAllocation: out of memory"),
            // torch's sentence cut after its first words, and Caffe's CUDA_CHECK (rstarcnn25).
            ("RuntimeError", "CUDA out of memory."),
            (
                "error message",
                "F1007 19:40:40.235829 26752 syncedmem.cpp:66] Check failed: error == cudaSuccess (2 vs. 0)  out of memory",
            ),
        ] {
            let found = candidate_alone(exception, message, "cuda-out-of-memory");
            assert!(
                found.is_some_and(|candidate| candidate.confidence.is_answer()),
                "{exception}: {message}"
            );
        }
        // The host's memory, and another CUDA error Caffe checks the same way
        // (100, cudaErrorNoDevice), are not the GPU's memory.
        for (exception, message) in [
            (
                "MemoryError",
                "Unable to allocate 3.20 GiB for an array with shape (1, 2)",
            ),
            (
                "error message",
                "F1007 19:40:40.235829 26752 common.cpp:152] Check failed: error == cudaSuccess (100 vs. 0)  no CUDA-capable device is detected",
            ),
        ] {
            let other = candidate_alone(exception, message, "cuda-out-of-memory");
            assert!(
                other.as_ref().is_none_or(|candidate| !candidate.confidence.is_answer()),
                "{other:#?}"
            );
        }
    }

    #[test]
    fn a_reason_further_on_in_the_message_outdoes_the_generic_cause_before_it() {
        // One exception message, as torch raises it (the smoke test reports it whole).
        let raised = Raised {
            exception: "torch.distributed.DistBackendError".into(),
            message:
                "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, invalid usage (run with \
                      NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nLast error:\nDuplicate GPU detected : rank 0 \
                      and rank 1 both on CUDA device 2000"
                    .into(),
        };
        let candidates = ranked_alone(raised);
        assert_eq!(candidates[0].id, "nccl-duplicate-gpu", "{candidates:#?}");
        let generic = candidates.iter().find(|c| c.id == "nccl-collective-failed").unwrap();
        assert_eq!(generic.confidence, Confidence::RuledOut, "{generic:#?}");
    }

    /// A message that runs on to a log line naming another cause is not
    /// outdone by it: only NCCL's "Last error:" gives a reason.
    #[test]
    fn a_line_a_message_runs_on_to_outdoes_nothing() {
        let raised = Raised {
            exception: "RuntimeError".into(),
            message: "CUDA error: out of memory\nnode3 rank 5: Duplicate GPU detected : rank 5 and rank 4 both on CUDA device 1000"
                .into(),
        };
        let candidates = ranked_alone(raised);
        let memory = candidates.iter().find(|c| c.id == "cuda-out-of-memory").unwrap();
        assert!(memory.confidence > Confidence::RuledOut, "{candidates:#?}");
    }

    /// equinox737: XLA's and TensorFlow's words for the GPU's memory running
    /// out name it as torch's do; TensorFlow's for the host's memory do not.
    #[test]
    fn xla_and_tensorflow_out_of_memory_on_the_gpu_is_named() {
        let first = |exception: &str, message: &str| candidate_alone(exception, message, "cuda-out-of-memory");
        for (exception, message) in [
            (
                "XlaRuntimeError",
                "RESOURCE_EXHAUSTED: Failed to allocate request for 6.27GiB (6727663616B) on device ordinal 0",
            ),
            (
                "tensorflow.python.framework.errors_impl.ResourceExhaustedError",
                "OOM when allocating tensor with shape[200,75,75,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
            ),
        ] {
            let found = first(exception, message);
            assert!(
                found.is_some_and(|candidate| candidate.confidence > Confidence::RuledOut),
                "{message}"
            );
        }
        let host = first(
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError",
            "OOM when allocating tensor with shape[24850,3836] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
        );
        assert!(
            host.as_ref()
                .is_none_or(|candidate| candidate.confidence == Confidence::RuledOut),
            "{host:#?}"
        );
    }

    /// 3dnetworkspytorch7, kern17: an extension whose kernel launches call the
    /// CUDA 9.2 runtime's configuration functions, loaded with an older one,
    /// was built with another toolkit than torch's CUDA; a torch symbol
    /// missing is another cause (an extension built for another torch).
    #[test]
    fn a_launch_configuration_symbol_missing_names_the_toolkit_mismatch() {
        let named = |message: &str| {
            candidate_alone("ImportError", message, "cuda-toolkit-mismatch")
                .is_some_and(|candidate| candidate.confidence.is_answer())
        };
        assert!(named(
            "/home/ubuntu/3DNetworksPytorch/PCN/emd_cuda.cpython-37m-x86_64-linux-gnu.so: undefined symbol: __cudaPopCallConfiguration"
        ));
        assert!(named(
            "/x/_ext/nms/_nms.so: undefined symbol: __cudaPushCallConfiguration"
        ));
        assert!(!named(
            "/x/adet/_C.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZNK2at6Tensor6deviceEv"
        ));
    }

    /// nndetection80, neuraldoodle49: a shell's or Theano's words for an nvcc
    /// not on PATH name the missing toolkit; another program missing, or an
    /// nvcc that runs and refuses, do not.
    #[test]
    fn a_shells_words_for_nvcc_not_on_path_name_the_missing_toolkit() {
        let named = |exception: &str, message: &str| {
            candidate_alone(exception, message, "cuda-home-missing")
                .is_some_and(|candidate| candidate.confidence.is_answer())
        };
        for message in [
            "/bin/sh: 1: nvcc: not found",
            "bash: nvcc: command not found",
            "'nvcc' is not recognized as an internal or external command,",
        ] {
            assert!(named("error message", message), "{message}");
        }
        assert!(named(
            "OSError",
            "You forced the use of gpu device 'gpu0', but nvcc was not found. Set it in your PATH environment variable or set the Theano flags 'cuda.root' to its directory"
        ));
        assert!(!named("error message", "/bin/sh: 1: ninja: not found"));
        assert!(!named(
            "error message",
            "nvcc fatal   : Unsupported gpu architecture 'compute_120'"
        ));
    }

    /// anylabeling144, audiomuseai225: PaddlePaddle's and llama.cpp's words for
    /// the GPU's memory name it (the out-of-memory reader's); ONNX Runtime's
    /// arena, which serves the CPU provider too, leaves it possible, and the
    /// host's memory stays apart.
    #[test]
    fn other_runtimes_words_for_the_gpus_memory_running_out() {
        let first = |exception: &str, message: &str| candidate_alone(exception, message, "cuda-out-of-memory");
        for (exception, message) in [
            (
                "ResourceExhaustedError",
                "Out of memory error on GPU 0. Cannot allocate 1.000000GB memory on GPU 0, 7.084717GB memory has been allocated and available memory is only 716.750000MB.",
            ),
            (
                "error message",
                "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 590.07 MiB on device 0: cudaMalloc failed: out of memory",
            ),
        ] {
            let found = first(exception, message);
            assert!(
                found.is_some_and(|candidate| candidate.confidence.is_answer()),
                "{message}"
            );
        }
        let arena = first(
            "onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException",
            "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running ConvTranspose node. Name:'/output_upscaling/output_upscaling.0/ConvTranspose' Status Message: /onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:368 void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for requested buffer of size 33554432",
        );
        assert!(
            arena
                .as_ref()
                .is_some_and(|candidate| candidate.confidence == Confidence::Possible),
            "{arena:#?}"
        );
        let host = first("MemoryError", "Out of memory allocating 4096 bytes.");
        assert!(host.is_none_or(|candidate| !candidate.confidence.is_answer()));
    }

    /// diffusionmagic12: torch's own warning for a GPU below the build's
    /// minimum names the build, even with no error after it.
    #[test]
    fn torchs_warning_of_a_gpu_too_old_for_the_build_names_the_build() {
        // The line a log's scan takes for an error (explain_cli replays the whole warning).
        let named = |exception: &str, message: &str| {
            candidate_alone(exception, message, "torch-build-lacks-gpu-arch")
                .is_some_and(|candidate| candidate.confidence > Confidence::RuledOut)
        };
        assert!(named(
            "error message",
            "PyTorch no longer supports this GPU because it is too old."
        ));
        // torch.compile's refusal of an old GPU is another entry's.
        assert!(!named(
            "RuntimeError",
            "Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.0"
        ));
    }

    #[test]
    fn memory_another_process_holds_on_the_gpu_named_adds_to_an_out_of_memory() {
        let log = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.8 GiB of which 1.2 GiB is free.\n";
        let held = |text: &&str| text.contains("in use now");
        let idle = ranked(log, &node(None)).remove(0);
        assert_eq!(idle.id, "cuda-out-of-memory");
        assert!(!idle.evidence_where(Some(true)).iter().any(held));
        let mut busy = node(None);
        busy.nvidia.as_mut().unwrap().gpus[0].memory_used_mib = Some(120_000);
        let best = ranked(log, &busy).remove(0);
        assert_eq!(best.id, "cuda-out-of-memory");
        // Memory in use now may be another job's or a hung rank's: it adds, it does not settle.
        assert_eq!(best.confidence, Confidence::Likely, "{best:#?}");
        assert!(
            best.evidence_where(Some(true))
                .iter()
                .any(|text| text.contains("120000")),
            "{best:#?}"
        );
        assert!(best.fix.starts_with("if another process holds the GPU"), "{}", best.fix);
        let note = best.fix_note.as_deref().unwrap_or_default();
        assert!(
            note.contains("gradient checkpointing"),
            "the cause's own fix stays, in the note: {note}"
        );
        // Memory held on another GPU than the one the message names says nothing.
        let other = two_gpus(node(None));
        let mut other = other;
        other.nvidia.as_mut().unwrap().gpus[1].memory_used_mib = Some(30_000);
        let best = ranked(log, &other).remove(0);
        assert!(!best.evidence_where(Some(true)).iter().any(held), "{best:#?}");
    }

    #[test]
    fn a_rule_whose_code_the_frames_never_pass_through_is_no_more_than_possible() {
        let log = "Traceback (most recent call last):\n  File \"/home/me/model.py\", line 20, in forward\n    h = self.proj(x)\nRuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n";
        let candidates = ranked(log, &node(Some("0.14.2")));
        assert_eq!(candidates[0].kind, CauseKind::Symptom, "{candidates:#?}");
        let rule = candidates
            .iter()
            .find(|c| c.id == "deepspeed-zero3-offload-device-mismatch")
            .unwrap();
        assert_eq!(rule.confidence, Confidence::Possible, "{rule:#?}");
    }

    #[test]
    fn an_extension_operator_without_a_cuda_kernel_is_named_where_the_node_has_its_cpu_build() {
        let log = "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. 'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU].\n";
        let cpu = with(node(None), "torchvision", "0.26.0+cpu");
        let (id, confidence) = first(log, &cpu);
        assert_eq!(id, "extension-built-for-other-torch");
        assert!(confidence.is_answer(), "{confidence:?}");
        let cuda = with(node(None), "torchvision", "0.26.0+cu130");
        let (_, confidence) = first(log, &cuda);
        assert_eq!(confidence, Confidence::Possible, "a CUDA build here leaves it open");
    }

    #[test]
    fn a_log_from_windows_rules_out_causes_only_linux_has() {
        let import_torch = |python: &str, sep: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"{python}{sep}site-packages{sep}torch{sep}__init__.py\", line 128, in <module>\n    raise err\nOSError: [Errno 2] Error loading \"{python}{sep}site-packages{sep}torch{sep}lib{sep}fbgemm.dll\" or one of its dependencies.\n"
            )
        };
        let glibc_rule = |log: &str| {
            let matrix = Matrix::load(&[]).unwrap();
            rank(&parse(log).pop().unwrap(), &matrix, None)
                .into_iter()
                .find(|candidate| candidate.id == "torch-2-7-x86-64-glibc-below-2-28")
        };
        let linux = glibc_rule(&import_torch("/opt/venv/lib/python3.11", "/")).unwrap();
        assert_eq!(linux.confidence, Confidence::Possible);
        let windows = glibc_rule(&import_torch(r"C:\Users\me\env\lib", r"\")).unwrap();
        assert_eq!(windows.confidence, Confidence::RuledOut, "{:?}", windows.evidence);
        assert!(
            windows
                .evidence
                .iter()
                .any(|evidence| evidence.text.contains("ran on Windows")),
            "{:?}",
            windows.evidence
        );
    }

    /// A check that could not judge is silent, and its silence rules nothing
    /// out: a torch 2.16 build is not in the table of builds, so the node
    /// cannot say it has kernels for the GPU, even where the log ran here.
    #[test]
    fn a_build_the_table_does_not_know_does_not_rule_out_missing_kernels() {
        let log = "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/torch/nn/modules/conv.py\", line 1, in forward\n    return F.conv2d(x)\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n";
        let unknown = ranked(log, &with_torch(node(None), "2.16.0+cu132"));
        let cause = unknown.iter().find(|c| c.id == "torch-build-lacks-gpu-arch").unwrap();
        assert!(cause.confidence > Confidence::RuledOut, "{cause:#?}");
        assert!(
            cause
                .evidence
                .iter()
                .any(|e| e.holds.is_none() && e.text.contains("get_arch_list")),
            "{cause:#?}"
        );
        // A build the table lists, with kernels for this H200: ruled out.
        let known = ranked(log, &node(None));
        let cause = known.iter().find(|c| c.id == "torch-build-lacks-gpu-arch").unwrap();
        assert_eq!(cause.confidence, Confidence::RuledOut, "{cause:#?}");
    }
    /// The log ran torch from a checkout, not this node's copy: the node's
    /// build (kernels for its H200) neither rules out missing kernels nor
    /// confirms them, even where other frames ran in this environment.
    #[test]
    fn a_torch_the_log_ran_from_another_copy_does_not_rule_out_missing_kernels() {
        let log = "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/accelerate/hooks.py\", line 1, in new_forward\n    return module._old_forward(x)\n  File \"/home/u/pytorch/torch/nn/modules/conv.py\", line 1, in forward\n    return F.conv2d(x)\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n";
        let candidates = ranked(log, &node(None));
        let cause = candidates
            .iter()
            .find(|c| c.id == "torch-build-lacks-gpu-arch")
            .unwrap();
        assert!(cause.confidence > Confidence::RuledOut, "{cause:#?}");
        assert!(
            cause
                .evidence
                .iter()
                .any(|e| e.holds.is_none() && e.text.contains("runs torch from /home/u/pytorch")),
            "{cause:#?}"
        );
    }
    /// A log cut short in the middle of its last line still says which known
    /// message it began, when enough of it is there; a few words are not enough.
    #[test]
    fn a_message_cut_short_is_matched_by_the_start_it_keeps() {
        assert_eq!(
            cut_short(
                "cannot import name 'log' from 'tor",
                "cannot import name 'log' from 'torch.distributed.elastic.agent.server.api'"
            ),
            Some(0)
        );
        assert_eq!(
            cut_short("oops: cuda out of mem", "cuda out of memory. tried to allocate"),
            None
        );
        assert_eq!(cut_short("the job ended", "cannot import name 'log' from 'torch"), None);
        // A message of its own that ends where a word of a known one ends is not cut.
        assert_eq!(
            cut_short(
                "runtimeerror: no such operator torchvision::nms",
                "operator torchvision::nms does not exist"
            ),
            None
        );
        let log = "Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.11/site-packages/deepspeed/elasticity/elastic_agent.py\", line 9, in <module>\n    from torch.distributed.elastic.agent.server.api import log, _get_socket_with_port\nImportError: cannot import name 'log' from 'tor\n";
        let candidates = ranked(log, &node(Some("0.14.0")));
        assert_eq!(
            candidates[0].id, "deepspeed-0-14-0-torch-elastic-log-import",
            "{candidates:#?}"
        );
        assert!(
            candidates[0]
                .evidence
                .iter()
                .any(|e| e.text.starts_with("the message, cut short, begins")),
            "{candidates:#?}"
        );
    }
    /// A build the table does not list, made with a CUDA older than the first
    /// that compiles for the GPU's major: the node confirms what the message says.
    #[test]
    fn a_build_whose_cuda_predates_the_gpu_is_the_missing_kernels() {
        let log = "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/torch/nn/modules/conv.py\", line 1, in forward\n    return F.conv2d(x)\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n";
        let candidates = ranked(log, &with_torch(node(None), "1.8.1+cu101"));
        let best = &candidates[0];
        assert_eq!(best.id, "torch-build-lacks-gpu-arch", "{candidates:#?}");
        assert!(best.confidence.is_answer(), "{best:#?}");
        assert!(
            best.evidence
                .iter()
                .any(|e| e.holds == Some(true) && e.text.contains("CUDA 10.1")),
            "{best:#?}"
        );
    }

    /// fgnn4, yolact77: a cuDNN or cuBLAS kernel that failed to execute is a
    /// class of failure; it names the missing kernels only where the node's
    /// torch build is known to lack the GPU.
    #[test]
    fn a_kernel_that_failed_to_execute_is_the_missing_kernels_only_where_the_build_lacks_the_gpu() {
        let frames = "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/torch/nn/modules/conv.py\", line 1, in forward\n    return F.conv2d(x)\n";
        for message in [
            "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n",
            "RuntimeError: cublas runtime error : the GPU program failed to execute at /opt/conda/conda-bld/pytorch_1549628766161/work/aten/src/THC/THCBlas.cu:258\n",
            "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n",
        ] {
            let log = format!("{frames}{message}");
            let lacking = ranked(&log, &with_torch(node(None), "1.8.1+cu101"));
            assert_eq!(lacking[0].id, "torch-build-lacks-gpu-arch", "{message}: {lacking:#?}");
            assert!(lacking[0].confidence.is_answer(), "{message}: {:#?}", lacking[0]);
            // A build with kernels for this H200: ruled out, whatever the words.
            let having = ranked(&log, &node(None));
            let cause = having.iter().find(|c| c.id == "torch-build-lacks-gpu-arch");
            assert!(
                cause.is_none_or(|c| c.confidence == Confidence::RuledOut),
                "{message}: {cause:#?}"
            );
            // A log from elsewhere, no node known: listed at most, never named.
            let unknown = ranked(&log, &without_torch(node(None)));
            let cause = unknown.iter().find(|c| c.id == "torch-build-lacks-gpu-arch");
            assert!(cause.is_none_or(|c| !c.confidence.is_answer()), "{message}: {cause:#?}");
        }
    }

    /// icrasimrealaxs5: an environment variable in the Snapshot is the shell's
    /// that ran `check`; it speaks for a log only where the log ran in it.
    #[test]
    fn an_environment_variable_rules_a_cause_out_only_for_a_log_from_that_environment() {
        let message = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW\n";
        let mut geforce = node(None);
        geforce.nvidia.as_mut().unwrap().gpus[0].name = Some("NVIDIA GeForce RTX 3090".into());
        let compat = |candidates: Vec<Candidate>| {
            candidates
                .into_iter()
                .find(|c| c.id == "cuda-forward-compat-on-geforce")
                .map(|c| c.confidence)
        };
        // A pasted line: the job's LD_LIBRARY_PATH is its own.
        let pasted = compat(ranked(message, &geforce));
        assert!(pasted.is_some_and(|c| c > Confidence::RuledOut), "{pasted:?}");
        // A traceback from this node's environment, whose LD_LIBRARY_PATH is unset.
        let here = format!(
            "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 1, in is_available\n    return torch._C._cuda_getDeviceCount() > 0\n{message}"
        );
        assert_eq!(compat(ranked(&here, &geforce)), Some(Confidence::RuledOut));
    }

    /// pytorch144244: a rule that a symptom entry generalizes leads it only
    /// where a version the rule is about holds; all open, the entry leads.
    #[test]
    fn a_rule_with_every_version_open_yields_to_the_entry_that_generalizes_it() {
        let log = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n  File \"/root/.cache/pypoetry/virtualenvs/x-py3.10/lib/python3.10/site-packages/torch/__init__.py\", line 367, in <module>\n    from torch._C import *  # noqa: F403\nImportError: /root/.cache/pypoetry/virtualenvs/x-py3.10/lib/python3.10/site-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12\n";
        let candidates = ranked(log, &without_torch(node(None)));
        assert_eq!(candidates[0].id, "cuda-libraries-shadowed", "{candidates:#?}");
        let rule = candidates
            .iter()
            .find(|c| c.id == "torch-below-2-6-cusparse-nvjitlink-ld-library-path")
            .unwrap();
        assert_eq!(rule.confidence, Confidence::Possible, "{rule:#?}");
    }

    /// torchdistill448, asvspoof 2021's 202121: `No module named 'torch._six'`
    /// comes from any package older than torch 2, so with no DeepSpeed known
    /// the rule about DeepSpeed's import is listed after the entry that
    /// generalizes it, never named; and the general entry, true whichever
    /// package imported it, is named rather than deferring to that rule.
    #[test]
    fn a_message_many_packages_give_lists_the_general_entry_before_one_packages_rule() {
        let log = "ModuleNotFoundError: No module named 'torch._six'\n";
        let candidates = ranked(log, &without_torch(node(None)));
        assert_eq!(candidates[0].id, "extension-built-for-other-torch", "{candidates:#?}");
        assert!(candidates[0].confidence.is_answer(), "{:#?}", candidates[0]);
        let rule = candidates
            .iter()
            .find(|c| c.id == "deepspeed-0-8-1-torch-2-six-import")
            .unwrap();
        assert_eq!(rule.confidence, Confidence::Possible, "{rule:#?}");
        assert_eq!(rule.tier, 0, "{rule:#?}");
    }

    /// The guard's other side: FlashAttention's refusal is told apart by its
    /// own words, not by frames, so its rules are no guess at who printed it,
    /// and the general entry still yields to them where they stand (FA2 or
    /// FA3 is what the node's packages decide).
    #[test]
    fn a_message_one_package_gives_keeps_the_general_entry_below_its_rules() {
        let log = "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n";
        let candidates = ranked(log, &without_torch(node(None)));
        let rule = candidates.iter().find(|c| c.id == "flash-attn-pre-ampere").unwrap();
        assert!(!rule.owner_guessed, "{rule:#?}");
    }

    /// casrel21: Keras caught its own failed import of tensorflow.keras and
    /// restated it as the TensorFlow it requires. Both readings stand level
    /// (the name's history and the stated bound); the bound, read by the
    /// reader consulted first, leads, where the ids' alphabet put the name's
    /// history first.
    #[test]
    fn readings_level_in_standing_are_ordered_by_their_readers_not_their_ids() {
        let log = "Traceback (most recent call last):
  File \"/usr/local/lib/python3.6/dist-packages/keras/__init__.py\", line 3, in <module>
    from tensorflow.keras.layers.experimental.preprocessing import RandomRotation
ModuleNotFoundError: No module named 'tensorflow.keras'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File \"run.py\", line 3, in <module>
    from keras.layers import *
  File \"/usr/local/lib/python3.6/dist-packages/keras/__init__.py\", line 6, in <module>
    'Keras requires TensorFlow 2.2 or higher. '
ImportError: Keras requires TensorFlow 2.2 or higher. Install TensorFlow via `pip install tensorflow`
";
        let candidates = ranked(log, &node(None));
        let level: Vec<&str> = candidates
            .iter()
            .take_while(|c| {
                (c.confidence, c.tier, c.score) == (candidates[0].confidence, candidates[0].tier, candidates[0].score)
            })
            .map(|c| c.id.as_str())
            .collect();
        assert!(level.contains(&"package-lacks-used-name"), "{level:?}");
        assert_eq!(level[0], "package-requirement-unmet", "{level:?}");
        // A reading outranks a match of the message's wording alone.
        let library = "OSError: libtorch_cuda_cpp.so: cannot open shared object file: No such file or directory\n";
        let candidates = ranked(library, &without_torch(node(None)));
        assert_eq!(
            candidates[0].id,
            "extension-built-for-other-torch",
            "{:#?}",
            &candidates[..2]
        );
    }

    /// `snapshot` as a report that does not say which torch it ran.
    fn without_torch(snapshot: crate::snapshot::Snapshot) -> crate::snapshot::Snapshot {
        let mut value = serde_json::to_value(&snapshot).unwrap();
        value["frameworks"].as_object_mut().unwrap().remove("torch");
        value["packages"]
            .as_array_mut()
            .unwrap()
            .retain(|package| package["name"] != "torch");
        serde_json::from_value(value).unwrap()
    }

    /// pytorchgeometric5218: torch_sparse's CUDA library asks for CUDA 10's
    /// cuSPARSE; the thread found it in the node's CUDA 10 toolkit, off the
    /// loader's path.
    const CUDA_10_LIBRARY: &str = "Traceback (most recent call last):
  File \"/home/u/envs/dev3/lib/python3.6/site-packages/torch_sparse/__init__.py\", line 15, in <module>
    library, [osp.dirname(__file__)]).origin)
  File \"/home/u/envs/dev3/lib/python3.6/site-packages/torch/_ops.py\", line 106, in load_library
    ctypes.CDLL(path)
OSError: libcusparse.so.10: cannot open shared object file: No such file or directory
";

    #[test]
    fn a_cuda_10_library_is_not_blamed_on_the_extension_while_torch_and_the_toolkit_are_unknown() {
        let candidates = ranked(CUDA_10_LIBRARY, &without_torch(node(None)));
        assert!(
            candidates.iter().all(|candidate| !candidate.confidence.is_answer()),
            "{:#?}",
            candidates.first()
        );
    }

    #[test]
    fn a_cuda_10_library_on_a_node_whose_toolkit_is_another_cudas_is_the_extensions_build() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/snapshots/h200-torch2.11-cu130-recorded.json"
        );
        let recorded = crate::snapshot::read(std::path::Path::new(path)).unwrap();
        let best = ranked(CUDA_10_LIBRARY, &without_torch(recorded)).remove(0);
        assert_eq!(best.id, "extension-built-for-other-torch");
        assert!(best.confidence.is_answer(), "{best:#?}");
    }

    /// The glibc rule's candidate for a failed `import torch` under `home`,
    /// on a node whose torch the report does not give.
    fn glibc_rule_importing_torch_from(home: &str) -> Candidate {
        let log = format!(
            "Traceback (most recent call last):\n  File \"{home}/env/lib/python3.12/site-packages/torch/__init__.py\", line 1477, in <module>\n    from .functional import *\nImportError: something failed\n"
        );
        ranked(&log, &without_torch(node(None)))
            .into_iter()
            .find(|candidate| candidate.id == "torch-2-7-x86-64-glibc-below-2-28")
            .unwrap()
    }

    #[test]
    fn a_log_from_macos_rules_out_causes_only_linux_has() {
        let glibc = glibc_rule_importing_torch_from("/Users/me");
        assert_eq!(glibc.confidence, Confidence::RuledOut, "{:?}", glibc.evidence);
    }

    /// numpy-2-abi-break-nam494 before its macOS paths were read: a rule
    /// whose only evidence is that torch was imported is no answer.
    #[test]
    fn an_import_of_a_rules_module_alone_is_no_answer() {
        let glibc = glibc_rule_importing_torch_from("/home/me");
        assert!(!glibc.confidence.is_answer(), "{:?}", glibc.evidence);
    }

    /// DeepSpeed's refusal of an nvcc whose CUDA minor differs from torch's,
    /// as a reporter pastes it: no toolkit is known where explain runs.
    const DEEPSPEED_NVCC_REFUSED: &str = "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.4 does not match the version torch was compiled with 12.8, unable to compile cuda/cpp extensions without a matching cuda version.\n";
    const NVCC_RULE: &str = "deepspeed-below-0-16-4-cpu-optimizer-torch-cuda-12-8-nvcc-other-12-minor";

    fn toolkit_verdict(candidates: &[Candidate]) -> Option<bool> {
        let rule = candidates.iter().find(|candidate| candidate.id == NVCC_RULE).unwrap();
        let evidence = rule
            .evidence
            .iter()
            .find(|evidence| evidence.text.starts_with("the CUDA toolkit"))
            .unwrap();
        evidence.holds
    }

    #[test]
    fn a_fact_this_node_lacks_leaves_a_condition_on_it_open_for_a_log_from_elsewhere() {
        let reported = with_torch(node(Some("0.16.2")), "2.7.0+cu128");
        let candidates = ranked(DEEPSPEED_NVCC_REFUSED, &reported);
        assert_eq!(toolkit_verdict(&candidates), None);
        let rule = candidates.iter().find(|candidate| candidate.id == NVCC_RULE).unwrap();
        assert_ne!(rule.confidence, Confidence::RuledOut);
    }

    #[test]
    fn a_fact_this_node_lacks_rules_out_for_a_log_that_ran_here() {
        let here = with_torch(node(Some("0.16.2")), "2.7.0+cu128");
        let log = format!(
            "Traceback (most recent call last):\n  File \"/opt/venvs/train/lib/python3.12/site-packages/deepspeed/ops/op_builder/builder.py\", line 100, in assert_no_cuda_mismatch\n    raise CUDAMismatchException(\n{DEEPSPEED_NVCC_REFUSED}"
        );
        let candidates = ranked(&log, &here);
        assert_eq!(toolkit_verdict(&candidates), Some(false));
    }

    /// An installed package importing a name the other installed package
    /// lacks: its own Requires-Dist, where the node has it, decides and
    /// gives the release to install.
    const PEFT_IMPORTS_FROM_TRANSFORMERS: &str = "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.11/site-packages/peft/tuners/lora.py\", line 20, in <module>\n    from transformers.pytorch_utils import Conv1D\nImportError: cannot import name 'Conv1D' from 'transformers.pytorch_utils' (/opt/venv/lib/python3.11/site-packages/transformers/pytorch_utils.py)\n";

    fn peft_requiring_transformers(transformers: &str) -> crate::snapshot::Snapshot {
        let mut snapshot = node(None);
        snapshot
            .packages
            .retain(|package| !matches!(package.normalized_name.as_str(), "transformers" | "peft"));
        let mut snapshot = with(with(snapshot, "transformers", transformers), "peft", "0.11.1");
        let peft = snapshot.packages.last_mut().unwrap();
        peft.requires_dist = vec!["transformers>=4.36.0".into()];
        snapshot
    }

    #[test]
    fn a_name_one_installed_package_lacks_for_another_is_judged_by_its_requirement() {
        let best = ranked(PEFT_IMPORTS_FROM_TRANSFORMERS, &peft_requiring_transformers("4.30.0")).remove(0);
        assert_eq!(best.id, "package-lacks-used-name");
        assert!(best.confidence.is_answer(), "{best:#?}");
        assert!(
            best.evidence.iter().any(|evidence| evidence.holds == Some(true)
                && evidence.text == "peft 0.11.1 requires transformers>=4.36.0; transformers 4.30.0 is installed here"),
            "{:#?}",
            best.evidence
        );
        assert!(
            best.fix.starts_with("python -m pip install \"transformers>=4.36.0\""),
            "{}",
            best.fix
        );
        // The installed one meets the requirement: the name's absence is not
        // the releases disagreeing, and nothing is named.
        let inside = ranked(PEFT_IMPORTS_FROM_TRANSFORMERS, &peft_requiring_transformers("4.40.0"));
        let candidate = inside
            .iter()
            .find(|candidate| candidate.id == "package-lacks-used-name")
            .unwrap();
        assert!(!candidate.confidence.is_answer(), "{candidate:#?}");
        // A requirement of an extra does not apply, as pip reads it: the
        // judgement is the requirements check's.
        let mut with_extra = peft_requiring_transformers("4.40.0");
        with_extra.packages.last_mut().unwrap().requires_dist = vec![
            "transformers>=4.99.0; extra == \"dev\"".into(),
            "transformers>=4.36.0".into(),
        ];
        let candidates = ranked(PEFT_IMPORTS_FROM_TRANSFORMERS, &with_extra);
        let candidate = candidates
            .iter()
            .find(|candidate| candidate.id == "package-lacks-used-name")
            .unwrap();
        assert!(
            candidate
                .evidence
                .iter()
                .any(|evidence| evidence.text.contains("requires transformers>=4.36.0")),
            "{:#?}",
            candidate.evidence
        );
    }

    const NOT_A_CUDA_TORCH: &str = "AssertionError: Torch not compiled with CUDA enabled\n";

    #[test]
    fn a_cause_its_entry_says_cannot_happen_on_macos_is_ruled_out_there() {
        let on_a_mac = format!(
            "Traceback (most recent call last):\n  File \"/Users/me/venv/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 310, in _lazy_init\n    raise AssertionError(\"Torch not compiled with CUDA enabled\")\n{NOT_A_CUDA_TORCH}"
        );
        let cpu_only = |candidates: Vec<Candidate>| {
            candidates
                .into_iter()
                .find(|candidate| candidate.id == "torch-cpu-only-build")
                .unwrap()
        };
        let ruled_out = cpu_only(ranked(&on_a_mac, &without_torch(node(None))));
        assert_eq!(ruled_out.confidence, Confidence::RuledOut);
        assert!(
            ruled_out
                .evidence
                .iter()
                .any(|evidence| evidence.text.contains("the log ran on macOS") && evidence.text.contains("\"mps\"")),
            "{:#?}",
            ruled_out.evidence
        );
        // Windows has CUDA builds of torch: the same message there is the cause.
        let on_windows = on_a_mac.replace("/Users/me/venv/lib/", "C:\\venv\\Lib\\");
        assert!(
            cpu_only(ranked(&on_windows, &without_torch(node(None))))
                .confidence
                .is_answer()
        );
        // A log whose other lines show macOS rules it out for a bare message too.
        let matrix = Matrix::load(&[]).unwrap();
        let judge = Judge::new(&matrix, None).ran_on(system_sign_in_line(
            "/Users/me/venv/lib/python3.11/site-packages/langchain_core/_api/deprecation.py:117: LangChainDeprecationWarning: old",
        ));
        let bare = cpu_only(judge.rank(&parse(NOT_A_CUDA_TORCH).pop().unwrap()));
        assert_eq!(bare.confidence, Confidence::RuledOut, "{:#?}", bare.evidence);
        assert!(
            cpu_only(ranked(NOT_A_CUDA_TORCH, &without_torch(node(None))))
                .confidence
                .is_answer()
        );
    }

    #[test]
    fn only_paths_macos_alone_has_show_a_log_ran_there() {
        for line in [
            "/Users/me/env/lib/python3.11/site-packages/x/y.py:3: UserWarning: z",
            "OSError: dlopen(/opt/homebrew/lib/libomp.dylib, 0x0001): tried",
            "Library not loaded: @rpath/libc10.dylib",
        ] {
            assert_eq!(
                system_sign_in_line(line).map(|(system, _)| system),
                Some(System::MacOs),
                "{line}"
            );
        }
        for line in [
            "saving to /Users/ (no file named)",
            "C:\\Users\\me\\env\\lib\\site-packages\\x.py:3: UserWarning: z",
            "/home/me/Users/x.py is fine",
            "libtorch_cuda.so: cannot open shared object file",
        ] {
            assert_eq!(system_sign_in_line(line), None, "{line}");
        }
    }

    const INSUFFICIENT: &str =
        "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n";

    /// immich349: the runtime's "insufficient" is also what it says with no
    /// driver to load. A driver of the job's CUDA major runs every runtime of
    /// it, so the reading points at the job not seeing the driver; an older
    /// driver leaves both ways open, in that order of checking.
    #[test]
    fn an_insufficient_driver_on_a_node_whose_driver_runs_its_major_is_a_job_that_did_not_see_it() {
        let best = ranked(INSUFFICIENT, &without_torch(node(None))).remove(0);
        assert_eq!(best.id, "driver-too-old-for-torch");
        assert!(best.confidence.is_answer());
        assert!(
            best.evidence.iter().any(|evidence| evidence
                .text
                .contains("the driver here, 580.65.06 (CUDA 13.0), runs every CUDA 13 runtime")
                && evidence.text.contains("did not see this driver")),
            "{:#?}",
            best.evidence
        );
        assert!(
            best.fix
                .starts_with("run nvidia-smi where the job runs (in its container"),
            "{}",
            best.fix
        );
        let mut old = without_torch(node(None));
        let nvidia = old.nvidia.as_mut().unwrap();
        nvidia.driver_version = Some("470.256.02".into());
        nvidia.cuda_driver_version = Some("11.4".into());
        let best = ranked(INSUFFICIENT, &old).remove(0);
        assert!(
            best.evidence
                .iter()
                .any(|evidence| evidence.text.contains("470.256.02, runs CUDA 11.4 and older")),
            "{:#?}",
            best.evidence
        );
        assert!(best.fix.contains("else upgrade the NVIDIA driver"), "{}", best.fix);
        // torch's own words give the driver's CUDA: a driver is there.
        let torch_says = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n";
        let best = ranked(torch_says, &without_torch(node(None))).remove(0);
        assert!(
            !best
                .evidence
                .iter()
                .any(|evidence| evidence.text.contains("did not see")),
            "{:#?}",
            best.evidence
        );
    }

    /// `log` ranked with `earlier` as the lines the log printed before it.
    fn ranked_after(earlier: &[&str], log: &str, snapshot: &crate::snapshot::Snapshot) -> Vec<Candidate> {
        let matrix = Matrix::load(&[]).unwrap();
        let configs = crate::configs::TrainingConfigs::default();
        let facts = Facts::new(snapshot, &configs);
        let traceback = parse(log).pop().unwrap();
        let lines: Vec<String> = earlier.iter().map(|line| line.to_string()).collect();
        let earlier = Earlier {
            errors: lines.clone(),
            printed: lines,
        };
        Judge::new(&matrix, Some(&facts)).rank_in(&traceback, &earlier)
    }

    /// A build script that warned it found no nvcc and then failed on a name
    /// it only sets where nvcc is (causal-conv1d's and mamba-ssm's setup.py)
    /// failed for want of nvcc. The same warning above a job's own NameError
    /// is no answer: the job's code has errors of its own.
    #[test]
    fn a_builds_warning_names_the_cause_of_the_builds_unknown_error() {
        let warning = "<string>:119: UserWarning: kernels was requested, but nvcc was not found.";
        let build = "Traceback (most recent call last):
  File \"/tmp/pip-build-env-abc/overlay/lib/python3.10/site-packages/setuptools/build_meta.py\", line 317, in run_setup
    exec(code, locals())
  File \"<string>\", line 176, in <module>
NameError: name 'bare_metal_version' is not defined
";
        let best = ranked_after(&[warning], build, &node(None)).remove(0);
        assert_eq!(best.id, "cuda-home-missing");
        assert!(best.confidence.is_answer(), "{:?}", best.confidence);

        let job = build
            .replace(
                "/tmp/pip-build-env-abc/overlay/lib/python3.10/site-packages/setuptools/build_meta.py",
                "/home/me/train.py",
            )
            .replace("<string>", "/home/me/model.py");
        let candidates = ranked_after(&[warning], &job, &node(None));
        assert!(
            candidates.iter().all(|candidate| !candidate.confidence.is_answer()),
            "{candidates:#?}"
        );
    }
}
