//! A strict reader for the Python files that build tools generate: top-level
//! `name = <literal>` assignments (optionally annotated, `cuda: Optional[str] = '12.1'`)
//! whose values are Python literals, as `repr()` writes them.
//!
//! Only literals are understood: strings (either quote, triple quotes, escapes,
//! adjacent-literal concatenation), integers, floats, `True`/`False`/`None`,
//! lists, tuples, dicts and sets. Anything else on the right of `=` (a call, an
//! expression) is an error for that one name, never for the file: a reader asks
//! for the names it needs and learns why one could not be read.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::python_escape::{Escape, escape};

/// A Python literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A list, a tuple or a set: the difference never matters to a reader here.
    List(Vec<Value>),
    /// In the order written; keys need not be strings.
    Dict(Vec<(Value, Value)>),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(text) => Some(text),
            _ => None,
        }
    }

    /// Python's truth value for the scalar kinds build records use (`False`, `0`, `1`, `True`).
    pub fn truthy(&self) -> bool {
        match self {
            Value::None => false,
            Value::Bool(value) => *value,
            Value::Int(value) => *value != 0,
            Value::Float(value) => *value != 0.0,
            Value::Str(text) => !text.is_empty(),
            Value::List(items) => !items.is_empty(),
            Value::Dict(items) => !items.is_empty(),
        }
    }

    /// The entry under a string key of a dict.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Dict(items) => items
                .iter()
                .find(|(candidate, _)| candidate.as_str() == Some(key))
                .map(|(_, value)| value),
            _ => None,
        }
    }

    /// What kind of value it is, in Python's words, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
        }
    }
}

/// Why a value could not be read, and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for LiteralError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// The top-level assignments of a module, by name; a later assignment to a
/// name replaces an earlier one, as it does when Python runs the file.
pub fn assignments(text: &str) -> BTreeMap<String, Result<Value, LiteralError>> {
    let mut found = BTreeMap::new();
    let mut offset = 0;
    while offset < text.len() {
        let line_end = text[offset..].find('\n').map_or(text.len(), |index| offset + index);
        let line = &text[offset..line_end];
        let mut next = line_end + 1;
        if let Some((name, value_start)) = assignment_target(line) {
            let mut parser = Parser::new(text, offset + value_start);
            let value = parser.top_level_value();
            if value.is_ok() {
                next = parser.position_after_line();
            }
            found.insert(name.to_string(), value);
        } else if line.starts_with(['"', '\'']) {
            // A docstring at column 0: skip it whole, so an example inside it
            // (`version = '1.0'`) is not taken for an assignment.
            let mut parser = Parser::new(text, offset);
            if parser.value().is_ok() {
                next = parser.position_after_line();
            }
        }
        offset = next.max(line_end + 1);
    }
    found
}

/// `name = ...` or `name: annotation = ...` at column 0: the name, and where the value starts.
fn assignment_target(line: &str) -> Option<(&str, usize)> {
    let name_end = line
        .char_indices()
        .find(|&(index, character)| {
            !(character == '_' || character.is_ascii_alphabetic() || (index > 0 && character.is_ascii_digit()))
        })
        .map_or(line.len(), |(index, _)| index);
    if name_end == 0 {
        return None;
    }
    let name = &line[..name_end];
    if matches!(
        name,
        "if" | "elif" | "else" | "for" | "while" | "with" | "def" | "class" | "try" | "except"
    ) {
        return None;
    }
    let rest = &line[name_end..];
    let after_name = rest.trim_start_matches([' ', '\t']);
    let equals = if let Some(annotation) = after_name.strip_prefix(':') {
        // An annotation has no `=` of its own in the generated files this reads.
        let index = annotation.find('=')?;
        line.len() - annotation.len() + index
    } else if after_name.starts_with('=') {
        line.len() - after_name.len()
    } else {
        return None;
    };
    if line[equals + 1..].starts_with('=') {
        return None;
    }
    Some((name, equals + 1))
}

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    position: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, position: usize) -> Self {
        Parser {
            text,
            position,
            depth: 0,
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.position..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, LiteralError> {
        Err(self.error_at(self.position, message))
    }

    fn error_at(&self, position: usize, message: impl Into<String>) -> LiteralError {
        let before = &self.text[..position];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |index| index + 1);
        LiteralError {
            line,
            column: before[line_start..].chars().count() + 1,
            message: message.into(),
        }
    }

    /// Spaces and tabs only: outside brackets, a newline ends the statement.
    fn skip_inline_space(&mut self) {
        let skipped = self.rest().len() - self.rest().trim_start_matches([' ', '\t']).len();
        self.position += skipped;
    }

    /// Inside brackets: any white space, line continuations and comments.
    fn skip_space(&mut self) {
        loop {
            let trimmed = self.rest().trim_start_matches([' ', '\t', '\r', '\n', '\x0c']);
            self.position = self.text.len() - trimmed.len();
            if let Some(after) = trimmed.strip_prefix("\\\n") {
                self.position = self.text.len() - after.len();
            } else if trimmed.starts_with('#') {
                self.position += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    /// A value that must be the whole rest of its line (a comment aside).
    fn top_level_value(&mut self) -> Result<Value, LiteralError> {
        self.skip_inline_space();
        let value = self.value()?;
        self.skip_inline_space();
        match self.peek() {
            None | Some('\n' | '\r' | '#' | ';') => Ok(value),
            Some(_) => self.error("not a literal: unexpected text after the value"),
        }
    }

    fn position_after_line(&self) -> usize {
        self.rest()
            .find('\n')
            .map_or(self.text.len(), |index| self.position + index + 1)
    }

    fn value(&mut self) -> Result<Value, LiteralError> {
        let Some(first) = self.peek() else {
            return self.error("a value was expected, found the end of the file");
        };
        match first {
            '[' => self.sequence('[', ']').map(Value::List),
            '(' => self.parenthesized(),
            '{' => self.braced(),
            '\'' | '"' => self.strings(),
            'r' | 'R' | 'u' | 'U' | 'b' | 'B' | 'f' | 'F' if self.has_string_prefix() => self.strings(),
            '0'..='9' | '.' | '-' | '+' => self.number(),
            _ => self.word(),
        }
    }

    fn has_string_prefix(&self) -> bool {
        let rest = self.rest();
        let prefix_length = rest
            .chars()
            .take_while(|character| "rRuUbBfF".contains(*character))
            .count();
        prefix_length <= 2 && rest[prefix_length..].starts_with(['\'', '"'])
    }

    fn enter(&mut self) -> Result<(), LiteralError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }

    /// Comma-separated values up to `close`, with an optional trailing comma.
    fn sequence(&mut self, open: char, close: char) -> Result<Vec<Value>, LiteralError> {
        self.enter()?;
        self.position += open.len_utf8();
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(close) {
                break;
            }
            items.push(self.value()?);
            self.skip_space();
            match self.peek() {
                Some(',') => self.position += 1,
                Some(found) if found == close => break,
                _ => return self.error(format!("`,` or `{close}` expected")),
            }
        }
        self.position += close.len_utf8();
        self.depth -= 1;
        Ok(items)
    }

    /// A tuple, or a value in parentheses: `(1)` is 1, `(1,)` is a tuple.
    fn parenthesized(&mut self) -> Result<Value, LiteralError> {
        let start = self.position;
        let items = self.sequence('(', ')')?;
        let had_comma = self.text[start..self.position].contains(',');
        match (items.len(), had_comma) {
            (1, false) => Ok(items.into_iter().next().unwrap_or(Value::None)),
            _ => Ok(Value::List(items)),
        }
    }

    /// A dict, or a set (which reads as a list).
    fn braced(&mut self) -> Result<Value, LiteralError> {
        self.enter()?;
        self.position += 1;
        let mut entries = Vec::new();
        let mut set_items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some('}') {
                break;
            }
            let key = self.value()?;
            self.skip_space();
            if self.peek() == Some(':') && set_items.is_empty() {
                self.position += 1;
                self.skip_space();
                entries.push((key, self.value()?));
            } else if entries.is_empty() {
                set_items.push(key);
            } else {
                return self.error("`:` expected after a dict key");
            }
            self.skip_space();
            match self.peek() {
                Some(',') => self.position += 1,
                Some('}') => break,
                _ => return self.error("`,` or `}` expected"),
            }
        }
        self.position += 1;
        self.depth -= 1;
        Ok(if set_items.is_empty() {
            Value::Dict(entries)
        } else {
            Value::List(set_items)
        })
    }

    /// One string literal, or several adjacent ones joined as Python joins them.
    fn strings(&mut self) -> Result<Value, LiteralError> {
        let mut joined = self.string()?;
        loop {
            let saved = self.position;
            self.skip_inline_space();
            if matches!(self.peek(), Some('\'' | '"')) || (self.peek().is_some() && self.has_string_prefix()) {
                joined.push_str(&self.string()?);
            } else {
                self.position = saved;
                return Ok(Value::Str(joined));
            }
        }
    }

    fn string(&mut self) -> Result<String, LiteralError> {
        let start = self.position;
        let prefix: String = self
            .rest()
            .chars()
            .take_while(|character| "rRuUbBfF".contains(*character))
            .collect();
        let lower = prefix.to_ascii_lowercase();
        if lower.contains('b') {
            return self.error("bytes literals are not read");
        }
        if lower.contains('f') {
            return self.error("not a literal: an f-string");
        }
        let raw = lower.contains('r');
        self.position += prefix.len();
        let quote = self.peek().unwrap_or('\'');
        let triple: String = std::iter::repeat_n(quote, 3).collect();
        let delimiter = if self.rest().starts_with(&triple) {
            triple
        } else {
            quote.to_string()
        };
        self.position += delimiter.len();
        let mut out = String::new();
        loop {
            let rest = self.rest();
            if rest.starts_with(&delimiter) {
                self.position += delimiter.len();
                return Ok(out);
            }
            let Some(character) = rest.chars().next() else {
                return Err(self.error_at(start, "unterminated string"));
            };
            if character == '\n' && delimiter.len() == 1 {
                return Err(self.error_at(start, "unterminated string"));
            }
            self.position += character.len_utf8();
            if character != '\\' {
                out.push(character);
                continue;
            }
            let Some(escaped) = self.peek() else {
                return Err(self.error_at(start, "unterminated string"));
            };
            self.position += escaped.len_utf8();
            if raw {
                out.push('\\');
                out.push(escaped);
                continue;
            }
            match escape(escaped, self.rest()) {
                Escape::Char(character, taken) => {
                    out.push(character);
                    self.position += taken;
                }
                Escape::LineContinuation => {}
                Escape::AsWritten => {
                    out.push('\\');
                    out.push(escaped);
                }
                Escape::Refused(why, taken) => return Err(self.error_at(self.position + taken, why)),
            }
        }
    }

    fn number(&mut self) -> Result<Value, LiteralError> {
        let start = self.position;
        let bytes = self.rest().as_bytes();
        let body_start = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
        let hexadecimal = bytes[body_start..].to_ascii_lowercase().starts_with(b"0x");
        let mut length = body_start;
        while let Some(&byte) = bytes.get(length) {
            let exponent_sign = matches!(byte, b'-' | b'+')
                && length > body_start
                && matches!(bytes[length - 1], b'e' | b'E')
                && !hexadecimal;
            if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.' || exponent_sign {
                length += 1;
            } else {
                break;
            }
        }
        let token = &self.text[start..start + length];
        self.position += length;
        let (negative, unsigned) = match token.as_bytes().first() {
            Some(b'-') => (true, &token[1..]),
            Some(b'+') => (false, &token[1..]),
            _ => (false, token),
        };
        let digits = unsigned.replace('_', "");
        let lower = digits.to_ascii_lowercase();
        let radix = [("0x", 16), ("0o", 8), ("0b", 2)]
            .into_iter()
            .find(|(prefix, _)| lower.starts_with(prefix));
        let parsed = if let Some((_, radix)) = radix {
            i64::from_str_radix(&lower[2..], radix).ok().map(Value::Int)
        } else if lower.contains(['.', 'e']) {
            lower
                .parse::<f64>()
                .ok()
                .filter(|value| value.is_finite())
                .map(Value::Float)
        } else if lower.len() > 1 && lower.starts_with('0') && lower.trim_start_matches('0').is_empty() {
            Some(Value::Int(0))
        } else if lower.starts_with('0') && lower.len() > 1 {
            None // Python 3 has no octal without `0o`
        } else {
            lower.parse::<i64>().ok().map(Value::Int)
        };
        match parsed {
            Some(Value::Int(value)) if negative => Ok(Value::Int(-value)),
            Some(Value::Float(value)) if negative => Ok(Value::Float(-value)),
            Some(value) => Ok(value),
            None => Err(self.error_at(start, format!("not a number this reader accepts: `{token}`"))),
        }
    }

    fn word(&mut self) -> Result<Value, LiteralError> {
        let length = self
            .rest()
            .chars()
            .take_while(|character| character.is_alphanumeric() || *character == '_')
            .map(char::len_utf8)
            .sum::<usize>();
        let word = &self.rest()[..length];
        let value = match word {
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            "None" => Value::None,
            "" => {
                let found = self.peek().unwrap_or(' ');
                return self.error(format!("not a literal: unexpected `{found}`"));
            }
            other => return self.error(format!("not a literal: the name `{other}`")),
        };
        self.position += length;
        Ok(value)
    }
}

/// Typed access to a module's assignments, reporting what is there but unusable.
pub(crate) struct Fields<'a> {
    pub values: &'a BTreeMap<String, Result<Value, LiteralError>>,
    pub file: &'a Path,
    pub problems: &'a mut Vec<String>,
}

impl<'a> Fields<'a> {
    /// The value of `name`, when assigned a literal; a non-literal is a problem.
    pub fn value(&mut self, name: &str) -> Option<&'a Value> {
        let values: &'a BTreeMap<String, Result<Value, LiteralError>> = self.values;
        match values.get(name)? {
            Ok(value) => Some(value),
            Err(error) => {
                self.problems
                    .push(format!("{}: `{name}` is not readable: {error}", self.file.display()));
                None
            }
        }
    }

    /// A `str` or `None` assignment.
    pub fn string(&mut self, name: &str) -> Option<String> {
        let file = self.file.display().to_string();
        match self.value(name)? {
            Value::Str(text) => Some(text.clone()),
            Value::None => None,
            other => {
                let kind = other.kind();
                self.problems.push(format!(
                    "{file}: `{name}` is {kind}, where a string or None was expected"
                ));
                None
            }
        }
    }

    pub fn boolean(&mut self, name: &str) -> Option<bool> {
        let file = self.file.display().to_string();
        match self.value(name)? {
            Value::Bool(value) => Some(*value),
            other => {
                let kind = other.kind();
                self.problems
                    .push(format!("{file}: `{name}` is {kind}, where True or False was expected"));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Result<Value, LiteralError> {
        assignments(&format!("x = {text}\n"))
            .remove("x")
            .expect("an assignment to x")
    }

    fn string(text: &str) -> Value {
        Value::Str(text.to_string())
    }

    #[test]
    fn scalars() {
        assert_eq!(value("True"), Ok(Value::Bool(true)));
        assert_eq!(value("False"), Ok(Value::Bool(false)));
        assert_eq!(value("None"), Ok(Value::None));
        assert_eq!(value("42"), Ok(Value::Int(42)));
        assert_eq!(value("-7"), Ok(Value::Int(-7)));
        assert_eq!(value("1_000"), Ok(Value::Int(1000)));
        assert_eq!(value("0x1F"), Ok(Value::Int(31)));
        assert_eq!(value("0"), Ok(Value::Int(0)));
        assert_eq!(value("2.5"), Ok(Value::Float(2.5)));
        assert_eq!(value("1e-3"), Ok(Value::Float(0.001)));
        assert_eq!(value("-.5"), Ok(Value::Float(-0.5)));
    }

    #[test]
    fn strings_with_both_quotes_and_escapes() {
        assert_eq!(value("'12.1'"), Ok(string("12.1")));
        assert_eq!(value("\"0.0.27.post2\""), Ok(string("0.0.27.post2")));
        assert_eq!(value(r#""it's""#), Ok(string("it's")));
        assert_eq!(value(r"'say \'hi\''"), Ok(string("say 'hi'")));
        assert_eq!(value(r"'a\\b\tc\n'"), Ok(string("a\\b\tc\n")));
        assert_eq!(value(r"'\x41\u00e9\U0001F600\101'"), Ok(string("Aé😀A")));
        assert_eq!(value(r"'\d'"), Ok(string("\\d")), "unknown escapes stay as written");
        assert_eq!(value(r"r'\d\n'"), Ok(string("\\d\\n")));
        assert_eq!(value("'a' \"b\""), Ok(string("ab")));
        assert_eq!(value("'''multi\nline'''"), Ok(string("multi\nline")));
        assert_eq!(value("'é'"), Ok(string("é")));
    }

    #[test]
    fn containers() {
        assert_eq!(
            value("{'a': [1, (2, 3), ()], 'b': {}, 'c': (4,), 'd': (5)}"),
            Ok(Value::Dict(vec![
                (
                    string("a"),
                    Value::List(vec![
                        Value::Int(1),
                        Value::List(vec![Value::Int(2), Value::Int(3)]),
                        Value::List(vec![])
                    ])
                ),
                (string("b"), Value::Dict(vec![])),
                (string("c"), Value::List(vec![Value::Int(4)])),
                (string("d"), Value::Int(5)),
            ]))
        );
        assert_eq!(
            value("[\n  1,  # one\n  2,\n]"),
            Ok(Value::List(vec![Value::Int(1), Value::Int(2)]))
        );
        assert_eq!(value("{1, 2}"), Ok(Value::List(vec![Value::Int(1), Value::Int(2)])));
    }

    #[test]
    fn annotated_and_plain_assignments_and_what_is_not_one() {
        let text = "from typing import Optional\n\n__all__ = ['cuda']\ncuda: Optional[str] = '12.1'\n\
                    debug = False  # a comment\nif cuda == '1':\n    hip = 'x'\nx == 3\n";
        let found = assignments(text);
        assert_eq!(found.keys().collect::<Vec<_>>(), ["__all__", "cuda", "debug"]);
        assert_eq!(found["cuda"], Ok(string("12.1")));
        assert_eq!(found["debug"], Ok(Value::Bool(false)));
    }

    #[test]
    fn a_later_assignment_wins_and_a_docstring_is_not_code() {
        let found = assignments("\"\"\"\nversion = 'in a docstring'\n\"\"\"\nversion = '1'\nversion = '2'\n");
        assert_eq!(found.len(), 1);
        assert_eq!(found["version"], Ok(string("2")));
    }

    #[test]
    fn a_value_spanning_lines_is_read_whole() {
        let found = assignments("ops = {\n    'a': True,\n    'b': 1,\n}\nafter = None\n");
        assert_eq!(found["ops"].as_ref().unwrap().get("b"), Some(&Value::Int(1)));
        assert_eq!(found["after"], Ok(Value::None));
    }

    #[test]
    fn malformed_values_are_errors_with_a_place_not_panics() {
        let found = assignments(
            "a = 'unterminated\nb = call()\nc = [1, 2\nd = 1 + 2\ne = 0777\nf = b'x'\ng = f'{x}'\nh = '\\xZZ'\n\
             i = 99999999999999999999\nj = {'k' 1}\nk = \nl = '\\N{BULLET}'\n",
        );
        for name in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"] {
            assert!(found[name].is_err(), "{name}: {:?}", found[name]);
        }
        assert_eq!(
            found["a"].as_ref().unwrap_err().to_string(),
            "line 1, column 5: unterminated string"
        );
        assert_eq!(
            found["b"].as_ref().unwrap_err().to_string(),
            "line 2, column 5: not a literal: the name `call`"
        );
        assert_eq!(
            found["d"].as_ref().unwrap_err().to_string(),
            "line 4, column 7: not a literal: unexpected text after the value"
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = format!("x = {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
        let error = assignments(&deep).remove("x").unwrap().unwrap_err();
        assert!(error.message.contains("nested more than"), "{error}");
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let samples = [
            "x = '\\",
            "x = (",
            "x = {",
            "x = {'a':",
            "x = -",
            "x = 0x",
            "x = 1e",
            "x = r",
            "x: = 1",
            "x =",
            "x = '\u{10FFFF}",
            "x = '\\777'",
            "x = 1__0",
            "x = ..",
            "x = +",
            "é = 1",
            "x = [,]",
            "x = (,)",
        ];
        for sample in samples {
            let _ = assignments(sample);
        }
    }
}
