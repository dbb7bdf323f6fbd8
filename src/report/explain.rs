//! `envdoctor explain` for people: what the traceback says, the answer with
//! the evidence for it, the fix, then at most three other candidates in one
//! line each. `--verbose` adds why, every reference, every candidate in full
//! and the log's other tracebacks; the JSON always holds everything.

use std::fmt::Write;

use super::Style;
use super::wrap::write_hanging;
use crate::explain::rank::{Candidate, Confidence};
use crate::explain::{Explained, Explanation, Outcome, STDLIB};

/// Characters of a message line shown before it is cut.
const MESSAGE_WIDTH: usize = 400;
/// Characters of a candidate's one-line reason in the default report.
const REASON_WIDTH: usize = 160;
/// Other candidates the default report lists.
const OTHERS_SHOWN: usize = 3;

pub fn text(explanation: &Explanation, style: Style, verbose: bool) -> String {
    let mut out = String::new();
    let Some(traceback) = &explanation.traceback else {
        let nothing = format!(
            "No traceback and no exception line in {} ({} lines read): nothing to explain.",
            source(explanation),
            explanation.lines_read
        );
        write_hanging(&mut out, style.width(), "", 0, &nothing, str::to_string);
        return out;
    };
    summary(&mut out, explanation, traceback, style);
    if let Some(node_facts) = &explanation.node_facts {
        let prefix = format!("  {} ", style.dim("node facts:"));
        write_hanging(&mut out, style.width(), &prefix, 4, node_facts, str::to_string);
    }
    let mut hidden: Vec<String> = Vec::new();
    let answer = explanation
        .candidates
        .first()
        .filter(|candidate| candidate.confidence.is_answer());
    let others: Vec<&Candidate> = match answer {
        Some(answer) => {
            out.push('\n');
            let prefix = format!("{} ", style.heading("Most likely cause"));
            let cause = format!("({}): {}", answer.confidence.label(), answer.id);
            write_hanging(&mut out, style.width(), &prefix, 2, &cause, str::to_string);
            detailed(&mut out, answer, style, verbose, &mut hidden);
            explanation.candidates.iter().skip(1).collect()
        }
        None if explanation.outcome == Outcome::Undecided => {
            let (possible, ruled_out): (Vec<&Candidate>, Vec<&Candidate>) = explanation
                .candidates
                .iter()
                .partition(|candidate| candidate.confidence == Confidence::Possible);
            let why = if possible.len() == 1 {
                "the traceback may fit this cause, and neither it nor this node settles whether it does"
            } else {
                "the traceback fits these causes, and neither it nor this node tells them apart"
            };
            out.push('\n');
            let prefix = format!("{}: ", style.heading("Not decided"));
            write_hanging(&mut out, style.width(), &prefix, 2, &format!("{why}."), str::to_string);
            to_decide(&mut out, explanation, style);
            if verbose {
                for candidate in &possible {
                    out.push('\n');
                    let prefix = format!("  {} ", style.heading(&candidate.id));
                    let label = format!("({})", candidate.confidence.label());
                    write_hanging(&mut out, style.width(), &prefix, 4, &label, str::to_string);
                    detailed(&mut out, candidate, style, verbose, &mut hidden);
                }
                ruled_out
            } else {
                // The causes that fit are the other candidates, first.
                possible.into_iter().chain(ruled_out).collect()
            }
        }
        None => {
            out.push('\n');
            let prefix = format!("{}: ", style.heading("Not explained"));
            let text = "no known cause fits this traceback on this node. What it says is above; \
                        `envdoctor matrix list` shows what is known.";
            write_hanging(&mut out, style.width(), &prefix, 2, text, str::to_string);
            to_decide(&mut out, explanation, style);
            explanation.candidates.iter().collect()
        }
    };
    if !others.is_empty() {
        let heading = match answer {
            None if explanation.outcome == Outcome::Undecided && !verbose => "Candidates",
            _ => "Other candidates",
        };
        let _ = writeln!(out, "\n{}", style.heading(heading));
        let shown = if verbose {
            others.len()
        } else {
            OTHERS_SHOWN.min(others.len())
        };
        for candidate in &others[..shown] {
            let label = format!("{:<12}", candidate.confidence.label());
            let label = match candidate.confidence {
                Confidence::RuledOut => style.dim(&label),
                _ => label,
            };
            let reason = brief_reason(candidate);
            let reason = if verbose { reason } else { cut(&reason, REASON_WIDTH) };
            let line = format!("{}: {reason}", candidate.id);
            write_hanging(
                &mut out,
                style.width(),
                &format!("  {label} "),
                15,
                &line,
                str::to_string,
            );
        }
        if shown < others.len() {
            hidden.push(plural(others.len() - shown, "other candidate"));
        }
    }
    if !explanation.other_tracebacks.is_empty() && !verbose {
        hidden.push(plural(explanation.other_tracebacks.len(), "other traceback"));
    }
    if !hidden.is_empty() {
        let also = format!("Also in --verbose (and --format json): {}.", hidden.join(", "));
        out.push('\n');
        write_hanging(&mut out, style.width(), "", 2, &also, |line| style.dim(line));
    }
    if !explanation.other_tracebacks.is_empty() && verbose {
        let _ = writeln!(out, "\n{}", style.heading("Other tracebacks in the log"));
        for other in &explanation.other_tracebacks {
            let exception = other.exception.as_deref().unwrap_or("(cut off before the exception)");
            let message = other.message.as_deref().unwrap_or_default();
            let times = match other.occurrences {
                1 => String::new(),
                count => format!(" (x{count})"),
            };
            let best = other.best.as_deref().map(|id| format!("  [{id}]")).unwrap_or_default();
            let line = format!(
                "line {}{times}: {}{best}",
                other.line,
                clipped(&joined(exception, message))
            );
            write_hanging(&mut out, style.width(), "  ", 4, &line, str::to_string);
        }
    }
    out
}

fn to_decide(out: &mut String, explanation: &Explanation, style: Style) {
    if explanation.to_decide.is_empty() {
        return;
    }
    let _ = writeln!(out, "{}", style.heading("What would decide it"));
    for wanted in &explanation.to_decide {
        write_hanging(out, style.width(), "  - ", 4, wanted, str::to_string);
    }
}

fn source(explanation: &Explanation) -> String {
    match explanation.source.as_str() {
        "-" => "standard input".to_string(),
        path => format!("`{path}`"),
    }
}

fn summary(out: &mut String, explanation: &Explanation, traceback: &Explained, style: Style) {
    let times = match traceback.occurrences {
        1 => String::new(),
        count => format!(", printed {count} times"),
    };
    let others = match explanation.tracebacks_found.saturating_sub(1) {
        0 => String::new(),
        1 => "; 1 other traceback in the log".to_string(),
        count => format!("; {count} other tracebacks in the log"),
    };
    let prefix = format!("{} ", style.heading("Traceback at"));
    let at = format!("line {} of {}{times}{others}", traceback.line, source(explanation));
    write_hanging(out, style.width(), &prefix, 2, &at, str::to_string);
    let indented = |out: &mut String, text: &str| write_hanging(out, style.width(), "  ", 4, text, str::to_string);
    if traceback.message_from_source {
        let _ = writeln!(
            out,
            "  {}",
            style.dim("(the log stops before the exception line; the raise statement it shows reads:)")
        );
    }
    match (&traceback.exception, &traceback.message) {
        (Some(exception), Some(message)) => {
            indented(
                out,
                &clipped(&joined(exception, message.lines().next().unwrap_or_default())),
            );
        }
        _ => {
            let _ = writeln!(out, "  {}", style.dim("(the log stops before the exception line)"));
        }
    }
    if let Some(frame) = traceback.frames.last() {
        // A paste's markdown drops `<stdin>`, `<fstring>` and `<module>` as tags.
        let place = match (frame.file.is_empty(), frame.line) {
            (true, Some(line)) => format!("line {line} of a file whose <name> the paste lost"),
            (true, None) => "a file whose <name> the paste lost".to_string(),
            (false, Some(line)) => format!("{}:{line}", frame.file),
            (false, None) => frame.file.clone(),
        };
        let function = if frame.function.is_empty() {
            String::new()
        } else {
            format!(", in {}", frame.function)
        };
        indented(out, &format!("raised in {place}{function}"));
    }
    if !traceback.devices.is_empty() {
        indented(out, &format!("devices named: {}", traceback.devices.join(", ")));
    }
    let packages: Vec<String> = traceback
        .packages
        .iter()
        .filter(|package| package.name != STDLIB)
        .map(|package| match &package.version {
            Some(version) => format!("{} {version}", package.name),
            None => format!("{} (not installed here)", package.name),
        })
        .collect();
    if !packages.is_empty() {
        indented(out, &format!("through: {}", packages.join(", ")));
    }
}

/// A cause in full: its title, each piece of evidence once, why (verbose),
/// the fix and its references (the first only, unless verbose). What is left
/// out is added to `hidden`.
fn detailed(out: &mut String, candidate: &Candidate, style: Style, verbose: bool, hidden: &mut Vec<String>) {
    write_hanging(out, style.width(), "  ", 4, &candidate.title, str::to_string);
    let _ = writeln!(out, "  {}", style.dim("evidence:"));
    let mut said: Vec<&str> = Vec::new();
    for evidence in &candidate.evidence {
        if said.contains(&evidence.text.as_str()) {
            continue;
        }
        said.push(&evidence.text);
        let mark = match evidence.holds {
            Some(true) => "+",
            Some(false) => "-",
            None => "?",
        };
        write_hanging(
            out,
            style.width(),
            &format!("    {mark} "),
            6,
            &evidence.text,
            str::to_string,
        );
    }
    if verbose {
        let prefix = format!("  {} ", style.dim("why:"));
        write_hanging(out, style.width(), &prefix, 7, &candidate.why, str::to_string);
    } else {
        hidden.push("why".to_string());
    }
    let _ = writeln!(out, "  {} {}", style.dim("fix:"), candidate.fix);
    if let Some(note) = &candidate.fix_note {
        let _ = writeln!(out, "  {} {note}", style.dim("note:"));
    }
    // The short view shows one reference, and none that is about another
    // package than the one the reading names (see explain::references).
    let shown: Vec<&str> = if verbose {
        candidate.references.iter().map(String::as_str).collect()
    } else {
        candidate.leading_reference().into_iter().collect()
    };
    for (index, reference) in shown.iter().enumerate() {
        let label = if index == 0 { "see:" } else { "    " };
        let _ = writeln!(out, "  {} {reference}", style.dim(label));
    }
    if candidate.references.len() > shown.len() {
        let more = if shown.is_empty() {
            "reference"
        } else {
            "more reference"
        };
        hidden.push(plural(candidate.references.len() - shown.len(), more));
    }
}

/// `3 other candidates`, `1 other candidate`.
fn plural(count: usize, what: &str) -> String {
    match count {
        1 => format!("1 {what}"),
        count => format!("{count} {what}s"),
    }
}

/// `text` cut to `width` characters, with `...` where it was cut.
fn cut(text: &str, width: usize) -> String {
    match text.char_indices().nth(width) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// Why a candidate is where it is, in a phrase: what rules it out, else what matched.
fn brief_reason(candidate: &Candidate) -> String {
    let against = candidate.evidence_where(Some(false));
    if !against.is_empty() {
        return against.join("; ");
    }
    format!(
        "{} ({})",
        candidate.title,
        candidate.evidence_where(Some(true)).join("; ")
    )
}

fn joined(exception: &str, message: &str) -> String {
    match message {
        "" => exception.to_string(),
        message => format!("{exception}: {message}"),
    }
}

/// A line from the log, escaped (it may hold terminal escapes) and cut to width.
fn clipped(text: &str) -> String {
    cut(&crate::escape::controls(text), MESSAGE_WIDTH)
}
