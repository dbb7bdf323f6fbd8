//! Splits a byte stream into the JSON objects it carries: JSON lines, pretty
//! documents back to back, or either with stray lines between them (a launcher's
//! banner, a log line). One object is held at a time, so a stream of ten
//! thousand reports needs the memory of the largest one.
//!
//! Only the object's extent is found here (braces outside strings); parsing is
//! the caller's, so a malformed object is reported with its own error and the
//! next one is still read.

/// An object larger than this is skipped and reported: a Snapshot is well under
/// a megabyte, and a runaway stream must not take the node's memory.
pub const MAX_DOCUMENT: usize = 64 * 1024 * 1024;

/// The longest stray text kept for a message.
const MAX_STRAY: usize = 200;

#[derive(Debug, PartialEq)]
pub enum Piece {
    /// One complete JSON object and the line it started on.
    Document { bytes: Vec<u8>, line: usize },
    /// Text outside any object, one line of it (trimmed, cut to a readable length).
    Stray { text: String, line: usize },
    /// An object over `MAX_DOCUMENT`, skipped whole.
    TooLarge { line: usize },
    /// The stream ended inside an object.
    Truncated { line: usize },
}

#[derive(Debug, Default)]
pub struct Splitter {
    current: Vec<u8>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    oversized: bool,
    line: usize,
    start_line: usize,
    stray: Vec<u8>,
}

impl Splitter {
    pub fn new() -> Splitter {
        Splitter {
            line: 1,
            ..Splitter::default()
        }
    }

    /// Feeds the next bytes; every piece they complete is handed to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut impl FnMut(Piece)) {
        let mut start = 0;
        let mut at = 0;
        while at < chunk.len() {
            if self.in_string && !self.escaped {
                // Most of a report is string content: jump to what can end it.
                match memchr::memchr2(b'"', b'\\', &chunk[at..]) {
                    Some(offset) => at += offset,
                    None => break,
                }
            }
            let byte = chunk[at];
            at += 1;
            if self.depth == 0 {
                match byte {
                    b'{' => {
                        self.flush_stray(out);
                        self.depth = 1;
                        self.start_line = self.line;
                        self.current.clear();
                        self.oversized = false;
                        start = at - 1;
                    }
                    b'\n' => {
                        self.flush_stray(out);
                        self.line += 1;
                    }
                    _ => {
                        if self.stray.len() < MAX_STRAY {
                            self.stray.push(byte);
                        }
                    }
                }
                continue;
            }
            if self.in_string {
                match byte {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'\n' => self.line += 1,
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        self.keep(&chunk[start..at]);
                        let line = self.start_line;
                        out(if self.oversized {
                            Piece::TooLarge { line }
                        } else {
                            Piece::Document {
                                bytes: std::mem::take(&mut self.current),
                                line,
                            }
                        });
                    }
                }
                _ => {}
            }
        }
        if self.depth > 0 {
            self.keep(&chunk[start..]);
        }
    }

    /// The stream has ended: what was left open, or stray text without a newline.
    pub fn finish(mut self, out: &mut impl FnMut(Piece)) {
        if self.depth > 0 {
            out(Piece::Truncated { line: self.start_line });
        } else {
            self.flush_stray(out);
        }
    }

    /// Whether the splitter is inside an object.
    pub fn is_open(&self) -> bool {
        self.depth > 0
    }

    fn keep(&mut self, bytes: &[u8]) {
        if self.oversized {
            return;
        }
        if self.current.len() + bytes.len() > MAX_DOCUMENT {
            self.oversized = true;
            self.current = Vec::new();
        } else {
            self.current.extend_from_slice(bytes);
        }
    }

    fn flush_stray(&mut self, out: &mut impl FnMut(Piece)) {
        let text = String::from_utf8_lossy(&self.stray).trim().to_string();
        self.stray.clear();
        if !text.is_empty() {
            out(Piece::Stray { text, line: self.line });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&str]) -> Vec<Piece> {
        let mut pieces = Vec::new();
        let mut splitter = Splitter::new();
        for chunk in chunks {
            splitter.feed(chunk.as_bytes(), &mut |piece| pieces.push(piece));
        }
        splitter.finish(&mut |piece| pieces.push(piece));
        pieces
    }

    fn document(text: &str, line: usize) -> Piece {
        Piece::Document {
            bytes: text.as_bytes().to_vec(),
            line,
        }
    }

    #[test]
    fn json_lines_and_pretty_documents_are_split_where_they_end() {
        let pieces = split(&["{\"a\":1}\n{\"b\":[1,{\"c\":2}]}\n{\n  \"d\": \"}{\"\n}\n"]);
        assert_eq!(
            pieces,
            [
                document("{\"a\":1}", 1),
                document("{\"b\":[1,{\"c\":2}]}", 2),
                document("{\n  \"d\": \"}{\"\n}", 3),
            ]
        );
    }

    #[test]
    fn a_document_cut_across_chunks_is_joined() {
        let pieces = split(&["{\"a\":\"x\\", "\"}\"", ",\"b\":2}"]);
        assert_eq!(pieces, [document("{\"a\":\"x\\\"}\",\"b\":2}", 1)]);
    }

    #[test]
    fn stray_lines_are_named_and_do_not_stop_the_stream() {
        let pieces = split(&["srun: warning: something\n{\"a\":1}\ntrailing"]);
        assert_eq!(
            pieces,
            [
                Piece::Stray {
                    text: "srun: warning: something".to_string(),
                    line: 1
                },
                document("{\"a\":1}", 2),
                Piece::Stray {
                    text: "trailing".to_string(),
                    line: 3
                },
            ]
        );
    }

    #[test]
    fn a_stream_that_ends_inside_a_document_says_so() {
        assert_eq!(
            split(&["{\"a\":1}\n{\"b\":"]).last(),
            Some(&Piece::Truncated { line: 2 })
        );
    }
}
