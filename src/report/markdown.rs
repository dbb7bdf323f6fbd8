//! `check --format markdown`: for a CI job summary (`$GITHUB_STEP_SUMMARY`) or a
//! pull-request comment. A verdict, a table of findings, then each one in full.

use std::fmt::Write;

use crate::check::Report;
use crate::findings::{Finding, Severity};
use crate::tool_text::{md_cell, md_code, md_code_block, md_code_cell, md_inline, md_link};

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let (word, counts) = super::check::verdict_words(report);
    let _ = writeln!(out, "## envdoctor check: {word}\n");
    let _ = writeln!(out, "{}\n", md_inline(&super::check::node_summary(&report.snapshot)));
    let _ = writeln!(out, "{}\n", md_inline(&counts));
    if !report.findings.is_empty() {
        out.push_str("| severity | id | finding |\n|---|---|---|\n");
        for finding in &report.findings {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                marker(finding.severity),
                md_code_cell(&finding.id),
                md_cell(&finding.title)
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
                    md_code_cell(&step.name),
                    step.status.as_str(),
                    step.duration_ms as f64 / 1000.0,
                    md_cell(&step.detail)
                );
            }
            out.push('\n');
        }
        (None, Some(reason)) => {
            let _ = writeln!(out, "Smoke test not run: {}\n", md_inline(reason));
        }
        (None, None) => {}
    }
    if let Some(plan) = &report.fix_plan
        && let Some(command) = &plan.command
    {
        let _ = writeln!(out, "### One command for the package fixes (`envdoctor fix`)\n");
        let _ = writeln!(out, "{}\n", md_code_block(command));
        for requirement in &plan.requirements {
            let _ = writeln!(
                out,
                "- {} fixes {}",
                md_code(&requirement.requirement()),
                md_inline(&requirement.fixes.join(", "))
            );
        }
        for conflict in &plan.conflicts {
            let _ = writeln!(
                out,
                "- left out, a conflict: {} {}",
                md_code(&conflict.name),
                md_inline(&conflict.specifiers.join(" and "))
            );
        }
        out.push('\n');
    }
    if !report.ignored.is_empty() {
        out.push_str("<details><summary>Ignored findings</summary>\n\n");
        for ignored in &report.ignored {
            let reason = ignored.reason.as_deref().unwrap_or("no reason given");
            let _ = writeln!(out, "- {}: {}", md_code(&ignored.finding.id), md_inline(reason));
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
        md_code(&finding.id),
        md_inline(&finding.title)
    );
    let _ = writeln!(out, "**Observed:** {}\n", md_inline(&finding.detail));
    let _ = writeln!(out, "**Why:** {}\n", md_inline(&finding.why));
    match &finding.fix {
        Some(fix) if crate::findings::fix_is_command(fix) => {
            let _ = writeln!(out, "**Fix:**\n\n{}\n", md_code_block(fix));
        }
        Some(action) => {
            let _ = writeln!(out, "**Fix:** {}\n", md_inline(action));
        }
        None => {}
    }
    if let Some(note) = &finding.fix_note {
        let _ = writeln!(out, "**Note:** {}\n", md_inline(note));
    }
    if !finding.references.is_empty() {
        let links: Vec<String> = finding.references.iter().map(|reference| md_link(reference)).collect();
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
}
