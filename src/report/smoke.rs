//! The smoke test for people: one line per step with its verdict, time and
//! detail, then the findings, then the verdict.

use std::fmt::Write;

use super::Style;
use crate::escape::controls as shown;
use crate::smoke::{Ending, SmokeReport, SmokeRun, Status};

pub fn text(report: &SmokeReport, style: Style) -> String {
    let mut out = String::new();
    steps_text(&mut out, &report.run, style);
    for finding in &report.findings {
        super::finding::finding_text(&mut out, style, finding);
    }
    let word = if report.failed { "FAIL" } else { "PASS" };
    let verdict = format!(
        "{word}: {} passed, {} failed, {} timed out, {} skipped; failing on {}",
        report.run.count(Status::Pass),
        report.run.count(Status::Fail),
        report.run.count(Status::Timeout),
        report.run.count(Status::Skip),
        report.fail_on.as_str()
    );
    let _ = writeln!(
        out,
        "{}",
        if report.failed {
            style.error(&verdict)
        } else {
            style.heading(&verdict)
        }
    );
    out
}

/// The heading and one line per step: what `check` shows of the smoke test too.
pub fn steps_text(out: &mut String, run: &SmokeRun, style: Style) {
    let ending = match run.ending {
        Ending::Completed => "completed".to_string(),
        _ => shown(&run.ending_detail).into_owned(),
    };
    let _ = writeln!(
        out,
        "{}",
        style.heading(&format!(
            "smoke test: {} steps in {:.1} s with {} ({ending})",
            run.steps.len(),
            run.duration_ms as f64 / 1000.0,
            shown(&run.python.display().to_string())
        ))
    );
    let name_width = run.steps.iter().map(|step| step.name.len()).max().unwrap_or(0);
    for step in &run.steps {
        let status = format!("{:<7}", step.status.as_str());
        let status = match step.status {
            Status::Pass => status,
            Status::Skip => style.dim(&status),
            Status::Fail | Status::Timeout => style.error(&status),
        };
        let _ = writeln!(
            out,
            "  {status} {:<name_width$} {:>6.2} s  {}",
            shown(&step.name),
            step.duration_ms as f64 / 1000.0,
            shown(step.detail.lines().next().unwrap_or_default())
        );
    }
    out.push('\n');
}
