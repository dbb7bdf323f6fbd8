//! `check --format markdown`: for a CI job summary (`$GITHUB_STEP_SUMMARY`) or a
//! pull-request comment. A verdict, a table of findings, then each one in full.

use std::fmt::Write;

use crate::check::Report;
use crate::findings::Severity;

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
                "| {} | `{}` | {} |",
                marker(finding.severity),
                finding.id,
                cell(&finding.title)
            );
        }
        out.push('\n');
    }
    for finding in &report.findings {
        let _ = writeln!(
            out,
            "### {} `{}`: {}\n",
            marker(finding.severity),
            finding.id,
            inline(&finding.title)
        );
        let _ = writeln!(out, "**Observed:** {}\n", inline(&finding.detail));
        let _ = writeln!(out, "**Why:** {}\n", inline(&finding.why));
        if let Some(fix) = &finding.fix {
            let _ = writeln!(out, "**Fix:**\n\n```sh\n{fix}\n```\n");
        }
        if !finding.references.is_empty() {
            let links: Vec<String> = finding
                .references
                .iter()
                .map(|reference| format!("<{reference}>"))
                .collect();
            let _ = writeln!(out, "**See:** {}\n", links.join(", "));
        }
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
                    "| `{}` | {} | {:.2} s | {} |",
                    step.name,
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
    if !report.ignored.is_empty() {
        out.push_str("<details><summary>Ignored findings</summary>\n\n");
        for ignored in &report.ignored {
            let reason = ignored.reason.as_deref().unwrap_or("no reason given");
            let _ = writeln!(out, "- `{}`: {}", ignored.finding.id, inline(reason));
        }
        out.push_str("\n</details>\n");
    }
    out
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
/// already shows literally.
pub(super) fn inline(text: &str) -> String {
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
    inline(&text.replace('\n', " ").replace('|', "/"))
}
