//! Python's backslash escapes in string literals, decoded once for every
//! reader of them: the probe's strict reader of the Python files build tools
//! generate, and explain's reader of exceptions printed as their repr.

/// What a backslash escape in a Python string literal reads as.
#[derive(Debug, PartialEq)]
pub enum Escape {
    /// The character it stands for, and how many bytes of what follows the
    /// escaped character it also took (`\x1b`: the 2 digits).
    Char(char, usize),
    /// A backslash before a newline: the literal goes on, adding nothing.
    LineContinuation,
    /// One Python keeps as written, backslash and all (`\d`).
    AsWritten,
    /// One not read (`\N{...}`) or not valid (`\xZZ`): why, and how many
    /// bytes after the escaped character the fault is.
    Refused(String, usize),
}

/// The escape of a (non-raw) literal that is a backslash, `escaped` and then
/// `rest`. The probe's strict reader errs on a refused one; explain's reader
/// of reprs keeps it as written.
pub fn escape(escaped: char, rest: &str) -> Escape {
    let simple = match escaped {
        '\\' | '\'' | '"' => Some(escaped),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'v' => Some('\x0b'),
        _ => None,
    };
    if let Some(character) = simple {
        return Escape::Char(character, 0);
    }
    match escaped {
        '\n' => Escape::LineContinuation,
        '0'..='7' => {
            // Up to three octal digits in all; at most 0o777, always a character.
            let more = rest
                .bytes()
                .take(2)
                .take_while(|byte| (b'0'..=b'7').contains(byte))
                .count();
            let code = std::iter::once(escaped)
                .chain(rest[..more].chars())
                .fold(0, |code, digit| code * 8 + digit.to_digit(8).unwrap_or(0));
            char::from_u32(code).map_or(Escape::AsWritten, |character| Escape::Char(character, more))
        }
        'x' => hex_escape(rest, 2),
        'u' => hex_escape(rest, 4),
        'U' => hex_escape(rest, 8),
        'N' => Escape::Refused("named escapes (\\N{...}) are not read".to_string(), 0),
        _ => Escape::AsWritten,
    }
}

fn hex_escape(rest: &str, digits: usize) -> Escape {
    let hex = rest.get(..digits).unwrap_or("");
    if hex.len() != digits || !hex.chars().all(|character| character.is_ascii_hexdigit()) {
        return Escape::Refused(format!("an escape needs {digits} hexadecimal digits"), 0);
    }
    let code = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
    match char::from_u32(code) {
        Some(character) => Escape::Char(character, digits),
        None => Escape::Refused(format!("not a character: U+{code:X}"), digits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_escape_reads_as_python_reads_it() {
        assert_eq!(escape('n', "x"), Escape::Char('\n', 0));
        assert_eq!(escape('x', "1b["), Escape::Char('\u{1b}', 2));
        assert_eq!(escape('1', "01x"), Escape::Char('A', 2));
        assert_eq!(escape('0', "x"), Escape::Char('\0', 0));
        assert_eq!(escape('\n', ""), Escape::LineContinuation);
        assert_eq!(escape('d', ""), Escape::AsWritten);
        assert!(matches!(escape('x', "Z1"), Escape::Refused(_, 0)));
        assert!(matches!(escape('U', "FFFFFFFF"), Escape::Refused(_, 8)));
        assert!(matches!(escape('N', "{BULLET}"), Escape::Refused(_, 0)));
        // Digits are counted in bytes; a character of several is no digit.
        assert_eq!(
            escape('x', "é"),
            Escape::Refused("an escape needs 2 hexadecimal digits".to_string(), 0)
        );
    }
}
