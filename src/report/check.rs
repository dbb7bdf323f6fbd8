//! `envdoctor check` for people: findings grouped by severity, each with what
//! was observed, why it matters, the fix and one reference; a verdict last.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::Style;
use super::finding::{finding_text, paint};
use super::wrap::write_hanging;
use crate::check::Report;
use crate::findings::{Finding, Severity};
use crate::snapshot::Snapshot;

pub fn text(report: &Report, style: Style) -> String {
    let mut out = String::new();
    let title = "envdoctor check:";
    let prefix = format!("{} ", style.heading(title));
    let summary = node_summary(&report.snapshot);
    write_hanging(&mut out, style.width(), &prefix, title.len() + 1, &summary, |line| {
        style.heading(line)
    });
    out.push('\n');
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        let group: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .collect();
        if group.is_empty() {
            continue;
        }
        let heading = format!("{} ({})", plural(severity), group.len());
        let _ = writeln!(out, "{}", paint(style, severity, &heading));
        for finding in group {
            finding_text(&mut out, style, finding);
        }
    }
    for ignored in &report.ignored {
        let reason = ignored
            .reason
            .as_deref()
            .map(|reason| format!(": {reason}"))
            .unwrap_or_default();
        let line = format!("ignored {} ({}){reason}", ignored.finding.id, ignored.finding.severity);
        write_hanging(&mut out, style.width(), "", 2, &line, |line| style.dim(line));
    }
    if !report.ignored.is_empty() {
        out.push('\n');
    }
    match (&report.smoke, &report.smoke_not_run) {
        (Some(run), _) => super::smoke::steps_text(&mut out, run, style),
        (None, reason) => {
            let reason = reason
                .as_deref()
                .map(|reason| format!(" ({reason})"))
                .unwrap_or_default();
            let line = format!("smoke test: not run{reason}");
            write_hanging(&mut out, style.width(), "", 2, &line, |line| style.dim(line));
            out.push('\n');
        }
    }
    prescription(&mut out, report, style);
    verdict(&mut out, report, style);
    out
}

/// The package fixes of every finding as the one command `envdoctor fix`
/// plans (specifiers merged, one per package), where there is one: what to
/// run, rather than each finding's own command in turn.
fn prescription(out: &mut String, report: &Report, style: Style) {
    let Some(plan) = &report.fix_plan else { return };
    let Some(command) = &plan.command else { return };
    let fixed: BTreeSet<&str> = plan
        .requirements
        .iter()
        .flat_map(|requirement| requirement.fixes.iter().map(String::as_str))
        .collect();
    let line = format!(
        "One command installs the package fixes of {} (`envdoctor fix` shows the plan{}):",
        match fixed.len() {
            1 => "1 finding".to_string(),
            count => format!("{count} findings"),
        },
        if plan.conflicts.is_empty() {
            ""
        } else {
            " and its conflicts"
        }
    );
    write_hanging(out, style.width(), "", 0, &line, |line| style.heading(line));
    // A command stays on one line, so a paste takes all of it.
    let _ = writeln!(out, "  {}\n", crate::escape::controls(command));
}

fn plural(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Info => "Notes",
    }
}

/// `FAIL: 2 errors, 1 warning, 0 notes (1 ignored); 34 rules and 17 of 18 checks
/// evaluated (not run: smoke-test); failing on error`.
pub(super) fn verdict_words(report: &Report) -> (String, String) {
    let summary = &report.summary;
    let word = if summary.failed { "FAIL" } else { "PASS" };
    let ignored = if summary.ignored > 0 {
        format!(" ({} ignored)", summary.ignored)
    } else {
        String::new()
    };
    let fail_on = match summary.fail_on {
        crate::findings::FailOn::Never => "never failing".to_string(),
        other => format!("failing on {}", other.as_str()),
    };
    let counts = format!(
        "{} {}, {} {}, {} {}{ignored}; {} rules and {} evaluated; {fail_on}",
        summary.errors,
        if summary.errors == 1 { "error" } else { "errors" },
        summary.warnings,
        if summary.warnings == 1 { "warning" } else { "warnings" },
        summary.infos,
        if summary.infos == 1 { "note" } else { "notes" },
        summary.rules_evaluated,
        checks_evaluated(report),
    );
    (word.to_string(), counts)
}

/// `17 of 18 checks (not run: smoke-test)`: the same count `matrix list`
/// gives, and the checks that did not run named.
fn checks_evaluated(report: &Report) -> String {
    let evaluated = report.summary.checks_evaluated;
    let ran: Vec<&str> = report
        .evaluated
        .iter()
        .filter(|item| item.kind == crate::check::EvaluatedKind::Check)
        .map(|item| item.id.as_str())
        .collect();
    let not_run: Vec<&str> = crate::builtin_checks::catalogue()
        .map(|check| check.id)
        .filter(|id| !ran.contains(id))
        .collect();
    // A report from another envdoctor may list no evaluations at all.
    if ran.len() != evaluated || not_run.is_empty() {
        return format!("{evaluated} checks");
    }
    format!(
        "{evaluated} of {} checks (not run: {})",
        evaluated + not_run.len(),
        not_run.join(", ")
    )
}

fn verdict(out: &mut String, report: &Report, style: Style) {
    let (word, counts) = verdict_words(report);
    let indent = word.len() + 2;
    let word = if report.summary.failed {
        style.error(&word)
    } else {
        style.heading(&word)
    };
    write_hanging(
        out,
        style.width(),
        &format!("{word}: "),
        indent,
        &counts,
        str::to_string,
    );
}

/// `host gpu-07 · Python 3.11.7 · torch 2.3.1+cu121 · driver 535.183.01 · 6 GPUs`.
pub(super) fn node_summary(snapshot: &Snapshot) -> String {
    let mut parts = Vec::new();
    if let Some(host) = &snapshot.system.hostname {
        parts.push(format!("host {host}"));
    }
    parts.push(format!("Python {}", snapshot.python.version));
    let torch = snapshot.frameworks.get("torch").and_then(|torch| match &torch.build {
        Some(crate::snapshot::frameworks::Build::Torch(build)) => build.version.clone(),
        _ => torch.version.clone(),
    });
    parts.push(match torch {
        Some(version) => format!("torch {version}"),
        None => "no torch".to_string(),
    });
    match &snapshot.nvidia {
        Some(nvidia) => {
            if let Some(driver) = &nvidia.driver_version {
                parts.push(format!("driver {driver}"));
            }
            let count = nvidia.gpus.len();
            parts.push(format!("{count} GPU{}", if count == 1 { "" } else { "s" }));
        }
        None => parts.push("no NVIDIA driver answer".to_string()),
    }
    crate::escape::controls(&parts.join(" · ")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 20 D11: a finding's text from input can neither paint the terminal
    /// nor start a line of its own.
    #[test]
    fn input_in_a_finding_is_escaped_in_text_output() {
        let finding = Finding {
            id: "x".to_string(),
            origin: String::new(),
            severity: Severity::Warning,
            title: "name\nenvdoctor: error: forged \x1b[31mred".to_string(),
            detail: "pkg\x1b]0;title\x07 \nPASS: forged".to_string(),
            why: "w".to_string(),
            fix: Some("pip install 'a\x1b[2J'".to_string()),
            references: Vec::new(),
            fix_note: None,
            unsettled: None,
        };
        let mut out = String::new();
        finding_text(&mut out, Style::for_output(false), &finding);
        assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
        assert!(
            !out.lines()
                .any(|line| line.starts_with("envdoctor: error") || line.starts_with("PASS")),
            "{out}"
        );
        assert!(out.contains("\\x1b[31mred"), "{out}");
    }
}
