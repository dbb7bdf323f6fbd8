//! The smoke test for people: one line per step with its verdict, time and
//! detail, then the findings, then the verdict.

use super::Style;
use super::wrap::{visible_width, write_hanging};
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
    write_hanging(&mut out, style.width(), "", word.len() + 2, &verdict, |line| {
        if report.failed {
            style.error(line)
        } else {
            style.heading(line)
        }
    });
    out
}

/// The heading and one line per step: what `check` shows of the smoke test too.
pub fn steps_text(out: &mut String, run: &SmokeRun, style: Style) {
    let ending = match run.ending {
        Ending::Completed => "completed".to_string(),
        _ => shown(&run.ending_detail).into_owned(),
    };
    let heading = format!(
        "smoke test: {} steps in {:.1} s with {} ({ending})",
        run.steps.len(),
        run.duration_ms as f64 / 1000.0,
        run.python.display()
    );
    write_hanging(out, style.width(), "", 2, &heading, |line| style.heading(line));
    let name_width = run.steps.iter().map(|step| step.name.len()).max().unwrap_or(0);
    for step in &run.steps {
        let status = format!("{:<7}", step.status.as_str());
        let status = match step.status {
            Status::Pass => status,
            Status::Skip => style.dim(&status),
            Status::Fail | Status::Timeout => style.error(&status),
        };
        let columns = format!(
            "{} {:>6.2} s  ",
            crate::escape::padded(&shown(&step.name), name_width),
            step.duration_ms as f64 / 1000.0
        );
        let prefix = format!("  {status} {columns}");
        let detail = step.detail.lines().next().unwrap_or_default();
        write_hanging(
            out,
            style.width(),
            &prefix,
            visible_width(&prefix),
            detail,
            str::to_string,
        );
    }
    out.push('\n');
}
