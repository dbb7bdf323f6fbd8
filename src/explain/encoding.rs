//! A log in the encoding its writer chose, read as UTF-8. Windows PowerShell 5
//! writes `python train.py > log.txt` as UTF-16 with a byte order mark, and
//! Notepad saves UTF-8 with one; without this, the first is refused as binary
//! (its ASCII has a NUL after every byte) and the second hides the first
//! line's `Traceback` behind three bytes. Every other log passes through
//! untouched and uncopied.

use std::io::{self, BufRead, BufReader, Read};

const UTF8_BOM: &[u8] = &[0xef, 0xbb, 0xbf];

/// UTF-16 code units read from the log per refill.
const UNITS_PER_READ: usize = 32 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Utf16 {
    Little,
    Big,
}

/// The log as UTF-8: UTF-16 (with a byte order mark, or ASCII text whose every
/// other byte is NUL) is transcoded, a UTF-8 byte order mark is dropped.
pub fn as_utf8<'r>(reader: Box<dyn BufRead + 'r>) -> io::Result<Box<dyn BufRead + 'r>> {
    let (start, mut reader) = peek(reader, 4)?;
    let (order, mark) = match start.as_slice() {
        [0xff, 0xfe, ..] => (Utf16::Little, 2),
        [0xfe, 0xff, ..] => (Utf16::Big, 2),
        [a, 0, b, 0, ..] if is_text(*a) && is_text(*b) => (Utf16::Little, 0),
        [0, a, 0, b, ..] if is_text(*a) && is_text(*b) => (Utf16::Big, 0),
        bytes if bytes.starts_with(UTF8_BOM) => {
            reader.fill_buf()?;
            reader.consume(UTF8_BOM.len());
            return Ok(reader);
        }
        _ => return Ok(reader),
    };
    reader.fill_buf()?;
    reader.consume(mark);
    Ok(Box::new(BufReader::with_capacity(
        1 << 16,
        Utf16Reader::new(reader, order),
    )))
}

/// Up to `wanted` of the log's first bytes (fewer only at its end), and the
/// log with them still unread. A pipe's first write may be shorter (a byte
/// order mark written alone): what it gave is read on to `wanted` and put
/// back in front.
pub fn peek<'r>(mut reader: Box<dyn BufRead + 'r>, wanted: usize) -> io::Result<(Vec<u8>, Box<dyn BufRead + 'r>)> {
    let available = reader.fill_buf()?;
    if available.len() >= wanted || available.is_empty() {
        let start = available[..available.len().min(wanted)].to_vec();
        return Ok((start, reader));
    }
    let mut start = vec![0; wanted];
    let mut filled = 0;
    while filled < wanted {
        match reader.read(&mut start[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    start.truncate(filled);
    let rejoined = io::Cursor::new(start.clone()).chain(reader);
    Ok((start, Box::new(BufReader::with_capacity(1 << 16, rejoined))))
}

/// Printable ASCII or a line break, as the first characters of a log are.
fn is_text(byte: u8) -> bool {
    byte.is_ascii_graphic() || matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

struct Utf16Reader<R> {
    inner: R,
    order: Utf16,
    /// A code unit's first byte, read without its second.
    odd_byte: Option<u8>,
    /// A surrogate pair's first half, read without its second.
    high_surrogate: Option<u16>,
    /// The block read from the log, reused.
    bytes: Vec<u8>,
    /// Transcoded text not yet handed over, from `at`.
    out: String,
    at: usize,
}

impl<R: Read> Utf16Reader<R> {
    fn new(inner: R, order: Utf16) -> Self {
        Utf16Reader {
            inner,
            order,
            odd_byte: None,
            high_surrogate: None,
            bytes: vec![0; UNITS_PER_READ * 2],
            out: String::new(),
            at: 0,
        }
    }

    /// Transcodes the next block; `false` at the end of the log.
    fn refill(&mut self) -> io::Result<bool> {
        let read = loop {
            match self.inner.read(&mut self.bytes) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        self.out.clear();
        self.at = 0;
        if read == 0 {
            // A lone half at the end is one character that cannot be decoded.
            if self.odd_byte.take().is_some() || self.high_surrogate.take().is_some() {
                self.out.push(char::REPLACEMENT_CHARACTER);
                return Ok(true);
            }
            return Ok(false);
        }
        let mut units = Vec::with_capacity(read / 2 + 2);
        units.extend(self.high_surrogate.take());
        let mut data = &self.bytes[..read];
        if let Some(first) = self.odd_byte.take() {
            units.push(unit(self.order, [first, data[0]]));
            data = &data[1..];
        }
        let pairs = data.chunks_exact(2);
        self.odd_byte = pairs.remainder().first().copied();
        let order = self.order;
        units.extend(pairs.map(|pair| unit(order, [pair[0], pair[1]])));
        if units.last().is_some_and(|unit| (0xd800..0xdc00).contains(unit)) {
            self.high_surrogate = units.pop();
        }
        self.out
            .extend(char::decode_utf16(units).map(|decoded| decoded.unwrap_or(char::REPLACEMENT_CHARACTER)));
        Ok(true)
    }
}

fn unit(order: Utf16, pair: [u8; 2]) -> u16 {
    match order {
        Utf16::Little => u16::from_le_bytes(pair),
        Utf16::Big => u16::from_be_bytes(pair),
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.out.len() {
            if !self.refill()? {
                return Ok(0);
            }
        }
        let taken = buf.len().min(self.out.len() - self.at);
        buf[..taken].copy_from_slice(&self.out.as_bytes()[self.at..self.at + taken]);
        self.at += taken;
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_as_utf8(bytes: Vec<u8>) -> Vec<u8> {
        let reader: Box<dyn BufRead> = Box::new(io::Cursor::new(bytes));
        let mut read = Vec::new();
        as_utf8(reader).unwrap().read_to_end(&mut read).unwrap();
        read
    }

    const LOG: &str = "Traceback (most recent call last):\r\n  File \"C:\\Users\\é\\run.py\", line 1, in <module>\r\nRuntimeError: CUDA error 🚀\r\n";

    fn utf16(text: &str, order: Utf16, mark: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        let units = mark.then_some(0xfeff).into_iter().chain(text.encode_utf16());
        for unit in units {
            bytes.extend(match order {
                Utf16::Little => unit.to_le_bytes(),
                Utf16::Big => unit.to_be_bytes(),
            });
        }
        bytes
    }

    #[test]
    fn powershell_utf16_is_read_as_the_text_it_holds_in_either_byte_order() {
        for order in [Utf16::Little, Utf16::Big] {
            for mark in [true, false] {
                assert_eq!(
                    read_as_utf8(utf16(LOG, order, mark)),
                    LOG.as_bytes(),
                    "{order:?} {mark}"
                );
            }
        }
    }

    #[test]
    fn a_code_unit_or_surrogate_pair_split_between_reads_is_joined() {
        // Reads of 3 bytes cut units in half and the emoji's pair between reads.
        let mut text = String::new();
        let bytes = utf16(LOG, Utf16::Little, true);
        let mut odd = Utf16Reader::new(ThreeBytesAtATime(io::Cursor::new(bytes)), Utf16::Little);
        odd.read_to_string(&mut text).unwrap();
        assert_eq!(text, format!("\u{feff}{LOG}"));
    }

    struct ThreeBytesAtATime<R>(R);

    impl<R: Read> Read for ThreeBytesAtATime<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let end = buf.len().min(3);
            self.0.read(&mut buf[..end])
        }
    }

    #[test]
    fn a_utf8_byte_order_mark_is_dropped_and_plain_text_passes_untouched() {
        let mut marked = UTF8_BOM.to_vec();
        marked.extend_from_slice(LOG.as_bytes());
        assert_eq!(read_as_utf8(marked), LOG.as_bytes());
        assert_eq!(read_as_utf8(LOG.as_bytes().to_vec()), LOG.as_bytes());
        assert_eq!(read_as_utf8(b"a".to_vec()), b"a");
        assert_eq!(read_as_utf8(Vec::new()), b"");
    }

    #[test]
    fn a_byte_order_mark_a_pipe_wrote_alone_is_still_seen() {
        for (bytes, expected) in [
            (utf16(LOG, Utf16::Little, true), LOG.as_bytes().to_vec()),
            ([UTF8_BOM, LOG.as_bytes()].concat(), LOG.as_bytes().to_vec()),
            (b"ab".to_vec(), b"ab".to_vec()),
        ] {
            let reader: Box<dyn BufRead> = Box::new(BufReader::with_capacity(1, io::Cursor::new(bytes)));
            let mut read = Vec::new();
            as_utf8(reader).unwrap().read_to_end(&mut read).unwrap();
            assert_eq!(read, expected);
        }
    }

    #[test]
    fn a_lone_half_at_the_end_is_one_replacement_character() {
        let mut bytes = utf16("ok", Utf16::Little, true);
        bytes.push(b'x');
        assert_eq!(read_as_utf8(bytes), "ok\u{fffd}".as_bytes());
    }

    #[test]
    fn a_binary_file_is_not_taken_for_utf16() {
        // ELF's start has NULs but not text between them: left for the binary check.
        let elf = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
        assert_eq!(read_as_utf8(elf.clone()), elf);
    }
}
