//! Text from input (a package's metadata, a Snapshot, a lock, a log) shown to
//! people: control characters are written out as escapes, so a crafted string
//! can neither send terminal escape sequences nor start a line of its own.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The longest error line envdoctor prints; the rest is counted, not shown.
pub const ERROR_LINE_LIMIT: usize = 2000;

/// `text` with every control character (newlines and tabs included, C1 and
/// DEL too) written as `\n`, `\t` or `\x1b`.
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        match character {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if c.is_control() => escaped.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

/// `text` with every control character but the newline escaped: a last
/// resort for output whose lines are already laid out.
pub fn controls_but_newlines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(controls).collect();
    Cow::Owned(lines.join("\n"))
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
