//! Where in a file a problem is: what every "path:line:column: problem"
//! error of a reader (Snapshot, lock, matrix, configs, fleet reports) uses.

/// 1-based line and column of a byte offset (a character boundary, as the
/// spans of toml_edit and the end of a UTF-8 prefix are).
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |line| line.chars().count()) + 1;
    (line, column)
}

/// A serde_json error's message without the " at line L column C" it
/// appends: the position is already at the front of the line.
pub fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(end) => message[..end].to_string(),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn position_is_one_based() {
        assert_eq!(position("ab\ncd", 0), (1, 1));
        assert_eq!(position("ab\ncd", 4), (2, 2));
    }
}
