//! Text from input (a package's metadata, a Snapshot, a lock, a log) shown to
//! people: control characters are written out as escapes, so a crafted string
//! can neither send terminal escape sequences nor start a line of its own.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The longest error line envdoctor prints; the rest is counted, not shown.
pub const ERROR_LINE_LIMIT: usize = 2000;

/// The bidirectional controls (Unicode's Bidi_Control property, UAX #9):
/// U+202E makes a terminal, an editor or a CI page show the text after it
/// right to left, so `evil.example` can read as `elpmaxe.live`, and the
/// order of what follows is no longer the order of the bytes (CVE-2021-42574).
pub fn is_bidi_control(character: char) -> bool {
    matches!(
        character,
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// What [`controls`] writes out: control characters (C0, C1, DEL), the line
/// and paragraph separators U+2028 and U+2029 (which end a line for Python,
/// JavaScript and some terminals) and the bidirectional controls.
pub fn needs_escape(character: char) -> bool {
    character.is_control() || matches!(character, '\u{2028}' | '\u{2029}') || is_bidi_control(character)
}

/// `text` with every control character (newlines and tabs included, C1 and
/// DEL too) written as `\n`, `\t` or `\x1b`, and every line separator and
/// bidirectional control as `\u{202e}`: the one escape of text from input
/// that reaches a terminal.
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        match character {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if c.is_control() => escaped.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if needs_escape(c) => escaped.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

/// `text` with every control character but the newline escaped: a last
/// resort for output whose lines are already laid out.
pub fn controls_but_newlines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| needs_escape(c) && c != '\n') {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(controls).collect();
    Cow::Owned(lines.join("\n"))
}

/// `text` followed by spaces up to `width` characters, as `{text:<width$}`
/// would write it, but for any width: the standard formatter panics on a width
/// over 65,535 (issue 32 E3: a 70,000-character package name), and a width
/// taken from input can be that long.
pub fn padded(text: &str, width: usize) -> String {
    let length = text.chars().count();
    let mut out = String::with_capacity(text.len() + width.saturating_sub(length));
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(length)));
    out
}

/// `count` spaces: an indent, however deep, without the formatter's width limit.
pub fn spaces(count: usize) -> String {
    " ".repeat(count)
}

/// One line, escaped and at most [`ERROR_LINE_LIMIT`] characters: how an
/// error that quotes its input is printed.
pub fn one_line(text: &str) -> String {
    let escaped = controls(text);
    let total = escaped.chars().count();
    if total <= ERROR_LINE_LIMIT {
        return escaped.into_owned();
    }
    let kept: String = escaped.chars().take(ERROR_LINE_LIMIT).collect();
    format!("{kept}… ({} more characters)", total - ERROR_LINE_LIMIT)
}

/// A copy of `value` with every string in it, map keys included, escaped by
/// [`controls`]: how a whole document read from a stranger (a Snapshot) is
/// made safe to show in one step, fields added later included. `None` only if
/// the value does not survive its own serde round trip, which is a bug.
pub fn every_string<T: Serialize + DeserializeOwned>(value: &T) -> Option<T> {
    let mut tree = serde_json::to_value(value).ok()?;
    escape_tree(&mut tree);
    serde_json::from_value(tree).ok()
}

fn escape_tree(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Cow::Owned(escaped) = controls(text) {
                *text = escaped;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(escape_tree),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut item) in entries {
                escape_tree(&mut item);
                map.insert(controls(&key).into_owned(), item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_out_and_the_rest_is_kept() {
        assert_eq!(controls("café 日本 ok"), "café 日本 ok");
        // Issue 32 E8: a bidirectional override and a line separator are written out too.
        assert_eq!(
            controls("a\u{202e}b\u{2028}c\u{2066}"),
            "a\\u{202e}b\\u{2028}c\\u{2066}"
        );
        assert_eq!(
            controls("a\nenvdoctor: error: forged\x1b[31m\u{9b}\u{7f}"),
            "a\\nenvdoctor: error: forged\\x1b[31m\\x9b\\x7f"
        );
    }

    #[test]
    fn every_string_of_a_document_is_escaped_and_nothing_else_changes() {
        let document = serde_json::json!({"a\nb": ["x\x1b[31m", 3, null, {"k": "ok"}], "n": 1.5});
        let escaped = every_string(&document).unwrap();
        assert_eq!(
            escaped,
            serde_json::json!({"a\\nb": ["x\\x1b[31m", 3, null, {"k": "ok"}], "n": 1.5})
        );
    }

    /// Issue 32 E3: `{:<width$}` panics over 65,535; these do not.
    #[test]
    fn padding_takes_any_width() {
        assert_eq!(padded("ab", 4), "ab  ");
        assert_eq!(padded("abcdef", 4), "abcdef");
        assert_eq!(padded("é", 3), "é  ");
        assert_eq!(padded("x", 70_002).len(), 70_002);
        assert_eq!(spaces(70_000).len(), 70_000);
    }

    #[test]
    fn an_error_line_is_one_line_of_bounded_length() {
        let line = one_line(&format!("{}\n{}", "x".repeat(10_000_000), "tail"));
        assert!(!line.contains('\n'));
        assert!(line.chars().count() < ERROR_LINE_LIMIT + 40, "{}", line.len());
        assert!(
            line.ends_with("(9998006 more characters)"),
            "{}",
            &line[line.len() - 40..]
        );
    }
}
