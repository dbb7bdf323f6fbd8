//! The labelled-column layout of the Snapshot view: a label, then its text,
//! and lines that continue under the text.

use std::fmt::Write;

use super::Style;

pub(super) const LABEL_WIDTH: usize = 12;

pub(super) fn section(out: &mut String, style: Style, label: &str, text: &str) {
    let padded = format!("{label:<LABEL_WIDTH$}");
    let line = if text.is_empty() { label } else { &padded };
    let _ = writeln!(out, "{}{text}", style.heading(line));
}

/// A labelled section of several lines: the label on the first, the rest indented under it.
pub(super) fn block(out: &mut String, style: Style, label: &str, lines: impl IntoIterator<Item = String>) {
    for (index, line) in lines.into_iter().enumerate() {
        if index == 0 {
            section(out, style, label, &line);
        } else {
            continuation(out, &line);
        }
    }
}

pub(super) fn continuation(out: &mut String, text: &str) {
    let _ = writeln!(out, "{:LABEL_WIDTH$}{text}", "");
}

pub(super) fn gib(mib: u64) -> String {
    format!("{:.1} GiB", mib as f64 / 1024.0)
}
