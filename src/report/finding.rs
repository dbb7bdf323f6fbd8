//! One finding for people, as `check`, `smoke` and `fleet` show it: the
//! severity and id, what was observed, why it matters, the fix and one
//! reference, wrapped to a readable width.

use std::fmt::Write;

use super::Style;
use super::wrap::{wrap, write_hanging};
use crate::findings::{Finding, Severity};

/// The width of a finding's labels (`observed`, `why`, `fix`, `see`).
const LABEL_WIDTH: usize = 10;

pub(super) fn finding_text(out: &mut String, style: Style, finding: &Finding) {
    let id = paint(
        style,
        finding.severity,
        &format!("[{}]", crate::escape::controls(&finding.id)),
    );
    write_hanging(out, style.width(), &format!("  {id} "), 4, &finding.title, |line| {
        style.heading(line)
    });
    labelled(out, style, "observed", &finding.detail);
    labelled(out, style, "why", &finding.why);
    match &finding.fix {
        // A command stays on one line, so a paste takes all of it; the
        // terminal may fold it, the text never breaks it.
        Some(fix) if crate::findings::fix_is_command(fix) => {
            let _ = writeln!(
                out,
                "    {}{}",
                style.dim(&format!("{:<LABEL_WIDTH$}", "fix")),
                crate::escape::controls(fix)
            );
        }
        Some(action) => labelled(out, style, "fix", action),
        None => {}
    }
    if let Some(note) = &finding.fix_note {
        labelled(out, style, "note", note);
    }
    if let Some(reference) = finding.references.first() {
        labelled(out, style, "see", reference);
    }
    out.push('\n');
}

/// A label and its text, wrapped to the output width under the label.
fn labelled(out: &mut String, style: Style, label: &str, text: &str) {
    let indent = 4 + LABEL_WIDTH;
    for (index, line) in wrap(text, style.width() - indent).into_iter().enumerate() {
        if index == 0 {
            let _ = writeln!(out, "    {}{line}", style.dim(&format!("{label:<LABEL_WIDTH$}")));
        } else {
            let _ = writeln!(out, "{}{line}", crate::escape::spaces(indent));
        }
    }
}

pub(super) fn paint(style: Style, severity: Severity, text: &str) -> String {
    match severity {
        Severity::Error => style.error(text),
        Severity::Warning => style.warning(text),
        Severity::Info => style.dim(text),
    }
}
