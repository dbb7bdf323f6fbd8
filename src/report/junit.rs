//! `check --format junit`: one test case per rule or check evaluated, a
//! `<failure>` for each finding at or above `--fail-on`, so CI systems (GitLab,
//! Jenkins, GitHub test reporters) show what failed and what passed. Findings
//! below the threshold go to `<system-out>`; silenced ones mark the case skipped.

use std::fmt::Write;

use crate::check::{Evaluated, EvaluatedKind, Report, UNMATCHED_IGNORE};
use crate::findings::Finding;

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
            escape(&evaluated.id)
        );
        let (failing, passing): (Vec<&Finding>, Vec<&Finding>) = findings
            .into_iter()
            .partition(|finding| report.summary.fail_on.fails(finding.severity));
        for finding in &failing {
            failures += 1;
            let _ = writeln!(
                cases,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape(&format!("[{}] {}", finding.id, finding.title)),
                finding.severity,
                escape(&body(finding))
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
                escape(&format!("ignored ({})", reasons.join("; ")))
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
            let _ = writeln!(cases, "      <system-out>{}</system-out>", escape(&text.join("\n\n")));
        }
        cases.push_str("    </testcase>\n");
    }
    let name = escape(&format!(
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
        escape(name)
    )
}

/// XML 1.0 text and attribute escaping. Control characters XML cannot carry
/// at all (a stray byte in a package's metadata) are dropped.
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\t' | '\n' | '\r' => escaped.push(character),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_drops_what_xml_cannot_carry() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
