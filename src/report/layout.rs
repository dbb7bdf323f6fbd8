//! The labelled-column layout of the Snapshot view: a label, then its text,
//! and lines that continue under the text. A text too long for the output
//! width goes on under itself, two columns further in, so that it does not
//! read as the next entry.

use std::fmt::Write;

use super::Style;
use super::wrap::write_laid_out;

pub(super) const LABEL_WIDTH: usize = 12;

/// Where the rest of a text too long for its line goes on.
const WRAPPED_INDENT: usize = LABEL_WIDTH + 2;

pub(super) fn section(out: &mut String, style: Style, label: &str, text: &str) {
    if text.is_empty() {
        let _ = writeln!(out, "{}", style.heading(label));
        return;
    }
    let padded = style.heading(&format!("{label:<LABEL_WIDTH$}"));
    write_laid_out(out, style.width(), &padded, WRAPPED_INDENT, text);
}

/// A labelled section of several lines: the label on the first, the rest indented under it.
pub(super) fn block(out: &mut String, style: Style, label: &str, lines: impl IntoIterator<Item = String>) {
    for (index, line) in lines.into_iter().enumerate() {
        if index == 0 {
            section(out, style, label, &line);
        } else {
            continuation(out, style, &line);
        }
    }
}

pub(super) fn continuation(out: &mut String, style: Style, text: &str) {
    write_laid_out(out, style.width(), &" ".repeat(LABEL_WIDTH), WRAPPED_INDENT, text);
}

pub(super) fn gib(mib: u64) -> String {
    format!("{:.1} GiB", mib as f64 / 1024.0)
}
