//! `verify` and `diff` for people (text, grouped by area) and for CI (JUnit:
//! one test case per area, a `<failure>` per drift item at or above `--fail-on`).

use std::fmt::Write;

use super::Style;
use super::junit::single_suite;
use super::wrap::write_hanging;
use super::{plural, short_fingerprint};
use crate::compare::report::DriftReport;
use crate::compare::{Area, Drift};
use crate::escape::controls as shown;
use crate::findings::Severity;
use crate::lock::model::serde_plain;
use crate::tool_text::xml_text;

pub fn text(report: &DriftReport, style: Style) -> String {
    let mut out = String::new();
    let found = capitalized(&report.found.describe());
    let against = format!(
        "against {} ({} {})",
        report.expected.describe(),
        report.expected.label,
        short_fingerprint(&report.expected.fingerprint)
    );
    let prefix = format!("{} ", style.heading(&shown(&found)));
    write_hanging(&mut out, style.width(), &prefix, 2, &against, str::to_string);
    if let Some(files) = &report.files_checked {
        let mut rehashed = format!(
            "Re-hashed the files of {} distributions against their RECORD",
            files.distributions
        );
        if !files.without_record.is_empty() {
            let _ = write!(
                rehashed,
                "; {} have none: {}",
                files.without_record.len(),
                files.without_record.join(", ")
            );
        }
        rehashed.push('.');
        write_hanging(&mut out, style.width(), "", 2, &rehashed, str::to_string);
    }
    for area in Area::ALL {
        let items: Vec<&Drift> = report.drift.iter().filter(|item| item.area == area).collect();
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", style.heading(area.title()));
        for item in items {
            let label = format!("{:<8}", item.severity.as_str());
            let label = match item.severity {
                Severity::Error => style.error(&label),
                Severity::Warning => style.warning(&label),
                Severity::Info => style.dim(&label),
            };
            write_hanging(
                &mut out,
                style.width(),
                &format!("  {label} "),
                11,
                &item.message,
                str::to_string,
            );
            if let Some(fix) = &item.fix {
                let _ = writeln!(out, "           {} {}", style.dim("fix:"), shown(fix));
            }
        }
    }
    out.push('\n');
    write_hanging(&mut out, style.width(), "", 2, &verdict(report), str::to_string);
    out
}

fn verdict(report: &DriftReport) -> String {
    let summary = &report.summary;
    if report.drift.is_empty() {
        return format!(
            "No drift: {} matches {} (fingerprint {}).",
            shown(&report.found.describe()),
            shown(&report.expected.describe()),
            short_fingerprint(&report.expected.fingerprint)
        );
    }
    let counts = [
        plural(summary.errors, "error"),
        plural(summary.warnings, "warning"),
        plural(summary.infos, "info"),
    ]
    .join(", ");
    if report.schema == crate::compare::report::DIFF_SCHEMA {
        return format!("{} ({counts}).", plural(report.drift.len(), "difference"));
    }
    let outcome = if summary.failed {
        format!("drift at or above {}: exit 1", summary.fail_on.as_str())
    } else {
        format!("nothing at or above {}: exit 0", summary.fail_on.as_str())
    };
    format!("{} ({counts}); {outcome}.", plural(report.drift.len(), "difference"))
}

pub fn junit(report: &DriftReport) -> String {
    let mut cases = String::new();
    let (mut tests, mut failures) = (0, 0);
    for area in Area::ALL {
        let class = format!("envdoctor.verify.{}", serde_plain(&area));
        let items: Vec<&Drift> = report.drift.iter().filter(|item| item.area == area).collect();
        if items.is_empty() {
            tests += 1;
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{class}\" name=\"{}\" time=\"0\"/>",
                xml_text(area.title())
            );
        }
        // One case per item: CI pages often show only a case's first failure.
        for item in items {
            tests += 1;
            let name = xml_text(&format!("{} {}", item.id, item.subject));
            let _ = writeln!(cases, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"0\">");
            let body = match &item.fix {
                Some(fix) => format!("{}\nFix: {fix}", item.message),
                None => item.message.clone(),
            };
            if report.summary.fail_on.fails(item.severity) {
                failures += 1;
                let _ = writeln!(
                    cases,
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    xml_text(&format!("[{}] {}", item.id, item.subject)),
                    item.severity,
                    xml_text(&body)
                );
            } else {
                let _ = writeln!(
                    cases,
                    "      <system-out>{}</system-out>",
                    xml_text(&format!("{}: {body}", item.severity))
                );
            }
            let _ = writeln!(cases, "    </testcase>");
        }
    }
    single_suite("envdoctor verify", tests, failures, &cases)
}

fn capitalized(text: &str) -> String {
    let mut characters = text.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => String::new(),
    }
}
