//! Where in a file a problem is: what every "path:line:column: problem"
//! error of a reader (Snapshot, lock, matrix, configs, fleet reports) uses.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem at one place in one file, rendered as `path:line:column: problem`
/// (or `path:line: problem` where a reader knows only the line): the one shape
/// every reader of user input reports in, so editors and CI annotations can
/// jump to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters; `None` where only the line is known.
    pub column: Option<usize>,
    pub problem: String,
}

impl Located {
    /// At a byte offset of the file's text (a span's start).
    pub fn at_offset(path: &Path, text: &str, offset: usize, problem: impl Into<String>) -> Located {
        let (line, column) = position(text, offset);
        Located::at(path, line, column, problem)
    }

    /// At a line and column already known. serde_json says column 0 for the
    /// start of a line (an input cut short after a line break); columns here
    /// are 1-based, as editors count them.
    pub fn at(path: &Path, line: usize, column: usize, problem: impl Into<String>) -> Located {
        Located {
            path: path.to_path_buf(),
            line: line.max(1),
            column: Some(column.max(1)),
            problem: problem.into(),
        }
    }

    /// At a line, for formats read line by line (RECORD, pip configuration).
    pub fn at_line(path: &Path, line: usize, problem: impl Into<String>) -> Located {
        Located {
            path: path.to_path_buf(),
            line,
            column: None,
            problem: problem.into(),
        }
    }
}

impl fmt::Display for Located {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}", self.path.display(), self.line)?;
        if let Some(column) = self.column {
            write!(formatter, ":{column}")?;
        }
        write!(formatter, ": {}", self.problem)
    }
}

impl std::error::Error for Located {}

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
    use super::{Located, position};
    use std::path::Path;

    #[test]
    fn renders_path_line_column_problem() {
        let path = Path::new("m/rules/a.toml");
        assert_eq!(
            Located::at_offset(path, "a = 1\nbé = x", 10, "bad").to_string(),
            "m/rules/a.toml:2:4: bad"
        );
        assert_eq!(Located::at_line(path, 3, "bad").to_string(), "m/rules/a.toml:3: bad");
        assert_eq!(
            Located::at(path, 2, 0, "cut short").to_string(),
            "m/rules/a.toml:2:1: cut short"
        );
    }

    #[test]
    fn position_is_one_based() {
        assert_eq!(position("ab\ncd", 0), (1, 1));
        assert_eq!(position("ab\ncd", 4), (2, 2));
    }
}
