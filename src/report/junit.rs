//! `check --format junit`: one test case per rule or check evaluated, a
//! `<failure>` for each finding at or above `--fail-on`, so CI systems (GitLab,
//! Jenkins, GitHub test reporters) show what failed and what passed. Findings
//! below the threshold go to `<system-out>`; silenced ones mark the case skipped.

use std::fmt::Write;

use crate::check::{Evaluated, EvaluatedKind, Report, UNMATCHED_IGNORE};
use crate::findings::Finding;
use crate::tool_text::xml_text;

pub fn render(report: &Report) -> String {
    let mut cases = String::new();
    let (mut tests, mut failures, mut skipped) = (0, 0, 0);
    let unmatched = Evaluated {
        id: UNMATCHED_IGNORE.to_string(),
        kind: EvaluatedKind::Check,
        title: "Every ignore matches a finding".to_string(),
        source: None,
    };
    let has_unmatched = report.findings.iter().any(|finding| finding.origin == UNMATCHED_IGNORE);
    for evaluated in report.evaluated.iter().chain(has_unmatched.then_some(&unmatched)) {
        tests += 1;
        let findings: Vec<&Finding> = report.findings.iter().filter(|f| f.origin == evaluated.id).collect();
        let silenced = report
            .ignored
            .iter()
            .filter(|ignored| ignored.finding.origin == evaluated.id);
        let kind = match evaluated.kind {
            EvaluatedKind::Rule => "rule",
            EvaluatedKind::Check => "check",
        };
        let _ = writeln!(
            cases,
            "    <testcase classname=\"envdoctor.{kind}\" name=\"{}\" time=\"0\">",
            xml_text(&evaluated.id)
        );
        let (failing, passing): (Vec<&Finding>, Vec<&Finding>) = findings
            .into_iter()
            .partition(|finding| report.summary.fail_on.fails(finding.severity));
        for finding in &failing {
            failures += 1;
            let _ = writeln!(
                cases,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                xml_text(&format!("[{}] {}", finding.id, finding.title)),
                finding.severity,
                xml_text(&body(finding))
            );
        }
        let silenced: Vec<_> = silenced.collect();
        if failing.is_empty() && !silenced.is_empty() && passing.is_empty() {
            skipped += 1;
            let reasons: Vec<String> = silenced
                .iter()
                .map(|ignored| {
                    format!(
                        "{}: {}",
                        ignored.finding.id,
                        ignored.reason.as_deref().unwrap_or("no reason given")
                    )
                })
                .collect();
            let _ = writeln!(
                cases,
                "      <skipped message=\"{}\"/>",
                xml_text(&format!("ignored ({})", reasons.join("; ")))
            );
        }
        // The smoke test's case carries every step, so a CI page shows what ran.
        let steps = report
            .smoke
            .as_ref()
            .filter(|_| evaluated.id == crate::builtin_checks::smoke_test::CHECK.id)
            .map(|run| {
                run.steps
                    .iter()
                    .map(crate::smoke::progress::verdict_line)
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        if !passing.is_empty() || steps.is_some() {
            let text: Vec<String> = steps
                .into_iter()
                .chain(
                    passing
                        .iter()
                        .map(|finding| format!("{}: {}", finding.severity, body(finding))),
                )
                .collect();
            let _ = writeln!(cases, "      <system-out>{}</system-out>", xml_text(&text.join("\n\n")));
        }
        cases.push_str("    </testcase>\n");
    }
    let name = xml_text(&format!(
        "envdoctor check: {}",
        super::check::node_summary(&report.snapshot)
    ));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!("tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\"");
    let _ = writeln!(out, "<testsuites name=\"envdoctor\" {counts}>");
    let _ = writeln!(out, "  <testsuite name=\"{name}\" {counts}>");
    out.push_str(&cases);
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

fn body(finding: &Finding) -> String {
    let mut text = format!(
        "[{}] {}\n{}\nWhy: {}",
        finding.id, finding.title, finding.detail, finding.why
    );
    if let Some(fix) = &finding.fix {
        let _ = write!(text, "\nFix: {fix}");
    }
    if let Some(note) = &finding.fix_note {
        let _ = write!(text, "\nNote: {note}");
    }
    if let Some(reference) = finding.references.first() {
        let _ = write!(text, "\nSee: {reference}");
    }
    text
}

/// One test suite of `tests` cases, `failures` of them failing, as a whole
/// document: the envelope `verify`, `diff` and `fleet` share.
pub(super) fn single_suite(name: &str, tests: usize, failures: usize, cases: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n{cases}  </testsuite>\n</testsuites>\n",
        xml_text(name)
    )
}
