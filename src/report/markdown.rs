//! `check --format markdown`: for a CI job summary (`$GITHUB_STEP_SUMMARY`) or a
//! pull-request comment. A verdict, a table of findings, then each one in full.

use std::fmt::Write;

use crate::check::Report;
use crate::findings::{Finding, Severity};

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let (word, counts) = super::check::verdict_words(report);
    let _ = writeln!(out, "## envdoctor check: {word}\n");
    let _ = writeln!(out, "{}\n", inline(&super::check::node_summary(&report.snapshot)));
    let _ = writeln!(out, "{}\n", inline(&counts));
    if !report.findings.is_empty() {
        out.push_str("| severity | id | finding |\n|---|---|---|\n");
        for finding in &report.findings {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                marker(finding.severity),
                code(&finding.id),
                cell(&finding.title)
            );
        }
        out.push('\n');
    }
    for finding in &report.findings {
        finding_section(&mut out, finding);
    }
    match (&report.smoke, &report.smoke_not_run) {
        (Some(run), _) => {
            let _ = writeln!(
                out,
                "### Smoke test ({} steps in {:.1} s)\n\n| step | status | time | detail |\n|---|---|---|---|",
                run.steps.len(),
                run.duration_ms as f64 / 1000.0
            );
            for step in &run.steps {
                let _ = writeln!(
                    out,
                    "| {} | {} | {:.2} s | {} |",
                    code(&step.name),
                    step.status.as_str(),
                    step.duration_ms as f64 / 1000.0,
                    cell(&step.detail)
                );
            }
            out.push('\n');
        }
        (None, Some(reason)) => {
            let _ = writeln!(out, "Smoke test not run: {}\n", inline(reason));
        }
        (None, None) => {}
    }
    if let Some(plan) = &report.fix_plan
        && let Some(command) = &plan.command
    {
        let _ = writeln!(out, "### One command for the package fixes (`envdoctor fix`)\n");
        let _ = writeln!(out, "{}\n", code_block(command));
        for requirement in &plan.requirements {
            let _ = writeln!(
                out,
                "- {} fixes {}",
                code(&requirement.requirement()),
                inline(&requirement.fixes.join(", "))
            );
        }
        for conflict in &plan.conflicts {
            let _ = writeln!(
                out,
                "- left out, a conflict: {} {}",
                code(&conflict.name),
                inline(&conflict.specifiers.join(" and "))
            );
        }
        out.push('\n');
    }
    if !report.ignored.is_empty() {
        out.push_str("<details><summary>Ignored findings</summary>\n\n");
        for ignored in &report.ignored {
            let reason = ignored.reason.as_deref().unwrap_or("no reason given");
            let _ = writeln!(out, "- {}: {}", code(&ignored.finding.id), inline(reason));
        }
        out.push_str("\n</details>\n");
    }
    out
}

/// One finding in full: what was observed, why, the fix (a command as a code
/// block, an action in words as text) and the references.
fn finding_section(out: &mut String, finding: &Finding) {
    let _ = writeln!(
        out,
        "### {} {}: {}\n",
        marker(finding.severity),
        code(&finding.id),
        inline(&finding.title)
    );
    let _ = writeln!(out, "**Observed:** {}\n", inline(&finding.detail));
    let _ = writeln!(out, "**Why:** {}\n", inline(&finding.why));
    match &finding.fix {
        Some(fix) if crate::findings::fix_is_command(fix) => {
            let _ = writeln!(out, "**Fix:**\n\n{}\n", code_block(fix));
        }
        Some(action) => {
            let _ = writeln!(out, "**Fix:** {}\n", inline(action));
        }
        None => {}
    }
    if let Some(note) = &finding.fix_note {
        let _ = writeln!(out, "**Note:** {}\n", inline(note));
    }
    if !finding.references.is_empty() {
        let links: Vec<String> = finding.references.iter().map(|reference| link(reference)).collect();
        let _ = writeln!(out, "**See:** {}\n", links.join(", "));
    }
}

pub(super) fn marker(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "**error**",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Text that must not start markup of its own (emphasis, links, HTML), except
/// `code spans`, which findings use for paths and commands and which markdown
/// already shows literally. It stays on its line: a newline is the space
/// markdown would make of it, and other control characters are escaped.
pub(super) fn inline(text: &str) -> String {
    let text = crate::escape::controls(&text.replace('\n', " ")).into_owned();
    let mut escaped = String::with_capacity(text.len());
    let mut in_code = false;
    for character in text.chars() {
        if character == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(character, '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    if in_code {
        // An unpaired backtick would swallow the rest; close the span.
        escaped.push('`');
    }
    escaped
}

/// A table cell: inline text on one line, and no `|` even in a code span,
/// where GitHub's tables would still split the cell.
pub(super) fn cell(text: &str) -> String {
    inline(&text.replace('|', "/"))
}

/// Text from input as one code span: delimited by more backticks than it
/// holds in a row, so no backtick in it can end the span early (CommonMark
/// 6.1), and on one line.
pub(super) fn code(text: &str) -> String {
    let text = crate::escape::controls(text);
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    let padding = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{padding}{text}{padding}{fence}")
}

/// A command as a fenced `sh` block whose fence no line of it can close.
fn code_block(command: &str) -> String {
    let command = crate::escape::controls(command);
    let fence = "`".repeat((longest_backtick_run(&command) + 1).max(3));
    format!("{fence}sh\n{command}\n{fence}")
}

/// A reference as an autolink when it is a plain URL, else as text.
fn link(reference: &str) -> String {
    let plain = reference.starts_with("https://") || reference.starts_with("http://");
    if plain
        && !reference
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>".contains(c))
    {
        format!("<{reference}>")
    } else {
        inline(reference)
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_in_words_is_text_and_a_command_is_a_block() {
        let mut finding = Finding {
            id: "x".to_string(),
            origin: "x".to_string(),
            severity: Severity::Warning,
            title: "t".to_string(),
            detail: "d".to_string(),
            why: "w".to_string(),
            fix: Some("load the model with attn_implementation=\"sdpa\"".to_string()),
            references: Vec::new(),
            fix_note: None,
            unsettled: None,
        };
        let mut out = String::new();
        finding_section(&mut out, &finding);
        assert!(out.contains("**Fix:** load the model with"), "{out}");
        assert!(!out.contains("```"), "{out}");
        finding.fix = Some("pip install -U peft".to_string());
        out.clear();
        finding_section(&mut out, &finding);
        assert!(out.contains("**Fix:**\n\n```sh\npip install -U peft\n```"), "{out}");
    }

    #[test]
    fn input_cannot_end_a_code_span_or_block_or_leave_its_line() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("a\nb"), "`a\\nb`");
        assert_eq!(code_block("pip install 'x```'"), "````sh\npip install 'x```'\n````");
        assert_eq!(inline("a\n## forged\x1b"), "a \\#\\# forged\\\\x1b");
        assert_eq!(link("https://x.example/a b"), "https://x.example/a b");
        assert_eq!(link("https://x.example/a"), "<https://x.example/a>");
    }
}
