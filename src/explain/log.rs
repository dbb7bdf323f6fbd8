//! Reads a log line by line in bounded memory: a line longer than
//! [`MAX_LINE`] keeps its beginning and the rest is skipped, so a 200 MB log
//! with no newline costs no more than one with short lines. Bytes that are not
//! UTF-8 are read lossily; terminal colour codes are dropped, because tools
//! such as `rich` and `loguru` colour tracebacks and the escapes would split
//! the words matched against.

use std::io::{self, BufRead};

/// Bytes of one line that are kept. Python prints no traceback line near this
/// long; a longer line is a progress bar or a dump, and its start is enough.
pub const MAX_LINE: usize = 16 * 1024;

/// How much of the start of a log decides whether it is text at all.
const SNIFF: usize = 8 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("a binary file, not a log (byte {offset} is NUL)")]
    Binary { offset: u64 },
}

/// Lines of a log, numbered from 1.
pub struct Lines<R> {
    reader: R,
    buffer: Vec<u8>,
    /// The current line as text, reused so a long log costs no allocation per line.
    text: String,
    number: usize,
    bytes_read: u64,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            buffer: Vec::with_capacity(256),
            text: String::with_capacity(256),
            number: 0,
            bytes_read: 0,
        }
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    pub fn lines_read(&self) -> usize {
        self.number
    }

    /// The next line without its line ending, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>, LogError> {
        self.buffer.clear();
        let mut any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error.into()),
            };
            if available.is_empty() {
                break;
            }
            any = true;
            let (taken, ends) = match memchr::memchr(b'\n', available) {
                Some(newline) => (newline + 1, true),
                None => (available.len(), false),
            };
            if self.bytes_read < SNIFF as u64 {
                let sniff = &available[..taken.min(SNIFF - self.bytes_read as usize)];
                if let Some(offset) = sniff.iter().position(|&byte| byte == 0) {
                    return Err(LogError::Binary {
                        offset: self.bytes_read + offset as u64,
                    });
                }
            }
            let room = MAX_LINE.saturating_sub(self.buffer.len());
            let content = &available[..if ends { taken - 1 } else { taken }];
            self.buffer.extend_from_slice(&content[..content.len().min(room)]);
            self.reader.consume(taken);
            self.bytes_read += taken as u64;
            if ends {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.number += 1;
        if self.buffer.last() == Some(&b'\r') {
            self.buffer.pop();
        }
        self.text.clear();
        match std::str::from_utf8(&self.buffer) {
            Ok(text) => self.text.push_str(text),
            Err(_) => self.text.push_str(&String::from_utf8_lossy(&self.buffer)),
        }
        if self.text.contains('\u{1b}') {
            self.text = strip_ansi(&self.text);
        }
        Ok(Some((self.number, &self.text)))
    }
}

/// The text without ANSI escape sequences (CSI `ESC [ ... letter` and the
/// two-byte ones).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8]) -> Result<Vec<String>, LogError> {
        let mut lines = Lines::new(io::BufReader::with_capacity(7, bytes));
        let mut out = Vec::new();
        while let Some((_, line)) = lines.next_line()? {
            out.push(line.to_string());
        }
        Ok(out)
    }

    #[test]
    fn lines_split_on_newlines_across_buffer_refills() {
        let lines = all(b"first line\r\nsecond\n\nlast without newline").unwrap();
        assert_eq!(lines, ["first line", "second", "", "last without newline"]);
    }

    #[test]
    fn a_long_line_keeps_its_start_and_the_next_line_survives() {
        let mut log = vec![b'x'; MAX_LINE * 3];
        log.extend_from_slice(b"\nRuntimeError: after\n");
        let lines = all(&log).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "RuntimeError: after");
    }

    #[test]
    fn a_nul_byte_near_the_start_is_a_binary_file() {
        let error = all(b"\x7fELF\x02\x01\x01\x00\x00").unwrap_err();
        assert!(matches!(error, LogError::Binary { offset: 7 }), "{error}");
    }

    #[test]
    fn colour_codes_and_invalid_utf8_do_not_hide_the_text() {
        let lines = all(b"\x1b[31mRuntimeError\x1b[0m: bad \xff byte\n").unwrap();
        assert_eq!(lines, ["RuntimeError: bad \u{fffd} byte"]);
    }

    #[test]
    fn an_empty_log_has_no_lines() {
        assert!(all(b"").unwrap().is_empty());
    }
}
