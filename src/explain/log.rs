//! Reads a log line by line in bounded memory: a line longer than
//! [`MAX_LINE`] keeps its beginning and the rest is skipped, so a 200 MB log
//! with no newline costs no more than one with short lines. Bytes that are not
//! UTF-8 are read lossily; what the log picked up on its way here (colour
//! codes, HTML entities, a prefix on every line) is taken off each line read
//! ([`super::presentation`]).

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::marker::AnchorTrial;
pub use super::marker::Marker;
use super::presentation::{self, Presentation};

/// Bytes of one line that are kept. Python prints no traceback line near this
/// long; a longer line is a progress bar or a dump, and its start is enough.
pub const MAX_LINE: usize = 16 * 1024;

/// Starts a terminal colour code.
const ESCAPE: u8 = 0x1b;

/// How much of the start of a log decides whether it is text at all, and
/// how it was presented.
pub const SNIFF: usize = 8 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("a binary file, not a log (byte {offset} is NUL)")]
    Binary { offset: u64 },
}

/// Lines of a log, numbered from 1.
///
/// With a [`Marker`], each block the reader hands over is searched once for
/// the words an error line holds, and each line is told whether it holds one
/// ([`Lines::marked`]). A line's text is made only when asked for
/// ([`Lines::text`]), so the lines nobody needs (the step and progress lines
/// that make most of a log) cost no UTF-8 check and no per-line search.
pub struct Lines<'m, R> {
    reader: R,
    buffer: Vec<u8>,
    /// The current line as text, reused so a long log costs no allocation per line.
    text: String,
    number: usize,
    /// How many lines a terminal's cut made of the current one, beyond its
    /// first: the line is numbered where it begins.
    pieces_after_first: usize,
    bytes_read: u64,
    marker: Option<&'m Marker>,
    anchor_trial: AnchorTrial,
    /// The block being searched, lowercased.
    lowered: Vec<u8>,
    /// Where marker matches end (offsets in the log), not yet passed.
    match_ends: VecDeque<u64>,
    /// The log is searched up to here.
    searched_to: u64,
    marked: bool,
    presentation: Presentation,
    /// Whether the current line's wrapping held a time stamp.
    stamped: bool,
}

impl<'m, R: BufRead> Lines<'m, R> {
    pub fn new(reader: R) -> Lines<'m, R> {
        Lines {
            reader,
            buffer: Vec::with_capacity(256),
            text: String::with_capacity(256),
            number: 0,
            pieces_after_first: 0,
            bytes_read: 0,
            marker: None,
            anchor_trial: AnchorTrial::default(),
            lowered: Vec::new(),
            match_ends: VecDeque::new(),
            searched_to: 0,
            marked: true,
            presentation: Presentation::default(),
            stamped: false,
        }
    }

    /// Lines whose wrapping (see [`Presentation`]) is taken off as they are read.
    pub fn presented_as(self, presentation: Presentation) -> Lines<'m, R> {
        Lines { presentation, ..self }
    }

    /// Lines that are told whether they hold one of the marker's words.
    pub fn marked_by(reader: R, marker: &'m Marker) -> Lines<'m, R> {
        Lines {
            marker: Some(marker),
            ..Lines::new(reader)
        }
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    pub fn lines_read(&self) -> usize {
        self.number
    }

    /// The current line's number: where it begins in the log, for a line a
    /// terminal cut into several.
    pub fn line_number(&self) -> usize {
        self.number - self.pieces_after_first
    }

    /// Whether the current line holds a marker word (always, without a marker).
    pub fn marked(&self) -> bool {
        self.marked
    }

    /// The next line without its line ending, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>, LogError> {
        if !self.advance(true)? {
            return Ok(None);
        }
        Ok(Some((self.line_number(), self.text())))
    }

    /// Moves to the next line; `false` at the end of the log. Without
    /// `keep_unmarked`, a line that holds no marker word is passed over
    /// unread: its [`Lines::text`] is empty.
    pub fn advance(&mut self, keep_unmarked: bool) -> Result<bool, LogError> {
        self.buffer.clear();
        self.stamped = false;
        self.pieces_after_first = 0;
        let mut line_start = self.bytes_read;
        let mut any = false;
        let mut blocks = 0;
        let mut line_hit = false;
        // Where in the buffer the line a terminal showed last begins: a line
        // its wrap cut goes on in the next.
        let mut piece_start = 0;
        // A copy whose lines a terminal cut is read line by line: a word may
        // be split between two of them, where the search below does not see it.
        let cut_copy = self.presentation.wrap_width().is_some();
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
            blocks += 1;
            if let Some(marker) = self.marker {
                let end = self.bytes_read + available.len() as u64;
                if end > self.searched_to {
                    let from = (self.searched_to.saturating_sub(self.bytes_read)) as usize;
                    let base = self.bytes_read + from as u64;
                    let block = &available[from..];
                    self.lowered.clear();
                    self.lowered.extend(block.iter().map(u8::to_ascii_lowercase));
                    let first = self.match_ends.len();
                    self.match_ends.extend(
                        marker
                            .ends(&self.lowered, &mut self.anchor_trial)
                            .into_iter()
                            .map(|end| base + end as u64),
                    );
                    // Colour codes may split a word (`Error\x1b[0m:`): a coloured line is read.
                    let escapes = memchr::memchr_iter(ESCAPE, block).map(|at| base + at as u64 + 1);
                    let before = self.match_ends.len();
                    self.match_ends.extend(escapes);
                    if self.match_ends.len() > before {
                        self.match_ends.make_contiguous()[first..].sort_unstable();
                    }
                    self.searched_to = end;
                }
            }
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
            if ends
                && blocks == 1
                && !cut_copy
                && !keep_unmarked
                && self.marker.is_some()
                && self.bytes_read >= SNIFF as u64
            {
                // The whole lines before the next word's end hold no word: they
                // are passed over together, counted and never copied. Most of
                // a training log's lines go this way (its step and progress lines).
                let clear = self
                    .match_ends
                    .front()
                    .map_or(available.len(), |&end| (end - 1 - self.bytes_read) as usize)
                    .min(available.len());
                if let Some(last) = memchr::memrchr(b'\n', &available[..clear]) {
                    let passed = last + 1;
                    self.number += memchr::memchr_iter(b'\n', &available[..passed]).count();
                    self.reader.consume(passed);
                    self.bytes_read += passed as u64;
                    line_start = self.bytes_read;
                    (any, blocks) = (false, 0);
                    continue;
                }
                let line_end = self.bytes_read + taken as u64;
                line_hit = passed_words(&mut self.match_ends, line_start, line_end);
            }
            let room = MAX_LINE.saturating_sub(self.buffer.len());
            let content = &available[..if ends { taken - 1 } else { taken }];
            self.buffer.extend_from_slice(&content[..content.len().min(room)]);
            self.reader.consume(taken);
            self.bytes_read += taken as u64;
            // The words behind the reader are dropped as it goes, so a line
            // with no end (a progress bar) holds no more than one block's.
            line_hit |= passed_words(&mut self.match_ends, line_start, self.bytes_read);
            if ends {
                let piece = &self.buffer[piece_start..];
                if !self.cut_at_wrap_width(piece.strip_suffix(b"\r").unwrap_or(piece)) {
                    break;
                }
                if self.buffer.last() == Some(&b'\r') {
                    self.buffer.pop();
                }
                piece_start = self.buffer.len();
                // The next line is this one's rest: read on into the same line,
                // and search the whole of it for a word the cut split.
                self.number += 1;
                self.pieces_after_first += 1;
                blocks += 1;
            }
        }
        if !any {
            return Ok(false);
        }
        self.number += 1;
        if self.buffer.last() == Some(&b'\r') {
            self.buffer.pop();
        }
        self.text.clear();
        if let Some(marker) = self.marker {
            self.marked = line_hit;
            // A word cut by the end of a block was searched in two halves.
            if blocks > 1 && !self.marked {
                self.marked = marker.is_in(&self.buffer);
            }
        }
        Ok(true)
    }

    /// Whether `piece`, a line as the terminal showed it, is exactly as wide
    /// as the log's long lines were cut ([`Presentation::wrap_width`]): a
    /// line cut more than once goes on in each piece but the last.
    fn cut_at_wrap_width(&self, piece: &[u8]) -> bool {
        self.presentation.wrap_width().is_some_and(|width| {
            piece.len() >= width
                && self.buffer.len() < MAX_LINE
                && piece.iter().filter(|&&byte| byte & 0xC0 != 0x80).count() == width
        })
    }

    /// The current line as text: invalid UTF-8 replaced, read through what
    /// it was presented in ([`presentation::plain`]), its wrapping taken off.
    pub fn text(&mut self) -> &str {
        if self.text.is_empty() && !self.buffer.is_empty() {
            // The line's own allocation is reused: a long log costs none per line.
            let mut text = std::mem::take(&mut self.text);
            match std::str::from_utf8(&self.buffer) {
                Ok(line) => text.push_str(line),
                Err(_) => text.push_str(&String::from_utf8_lossy(&self.buffer)),
            }
            let mut text = presentation::plain(text);
            let unwrapped = self.presentation.unwrap(&text);
            self.stamped = unwrapped.stamped;
            text.drain(..unwrapped.length);
            self.text = text;
        }
        &self.text
    }

    /// The current line's [`Lines::text`], and whether its wrapping held a
    /// time stamp: a log record's start.
    pub fn text_and_stamp(&mut self) -> (&str, bool) {
        self.text();
        (&self.text, self.stamped)
    }
}

/// Drops the words that end by `end`, the reader's place; whether one of
/// them ended after `start`, in the line being read.
fn passed_words(match_ends: &mut VecDeque<u64>, start: u64, end: u64) -> bool {
    let mut hit = false;
    while let Some(&found) = match_ends.front().filter(|&&found| found <= end) {
        hit |= found > start;
        match_ends.pop_front();
    }
    hit
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

    /// A log copied from a terminal 80 columns wide: each long line goes on
    /// in the next, and is read whole, its split word found by the marker.
    #[test]
    fn lines_a_terminal_cut_at_its_width_are_read_whole() -> Result<(), LogError> {
        let long = [
            "  File \"/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl",
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "ERROR: Could not find a version that satisfies the requirement pandas>=2.0.3 (from versions: 0.1, 0.2, 0.3.0, 0.4.0, 0.4.1, 0.4.2, 0.4.3, 0.5.0, 0.6.0, 0.6.1, 0.7.0, 0.7.1, 0.7.2, 0.7.3, 0.8.0, 1.1.5)",
        ];
        let wrapped = format!(
            "Traceback (most recent call last):\n{}",
            presentation::cut_at_width(&long, 80, "\r\n")
        );
        let presentation = Presentation::of(wrapped.as_bytes(), true);
        assert_eq!(presentation.wrap_width(), Some(80));
        let marker = Marker::new(["the device"]).unwrap();
        let mut lines =
            Lines::marked_by(io::BufReader::with_capacity(7, wrapped.as_bytes()), &marker).presented_as(presentation);
        let mut read = Vec::new();
        while lines.advance(true)? {
            read.push((lines.line_number(), lines.marked(), lines.text().to_string()));
        }
        // Each is numbered where it begins.
        assert_eq!(read[1], (2, false, long[0].to_string()));
        assert_eq!(read[2], (4, true, long[1].to_string()));
        // A line cut twice goes on in each piece but its last.
        assert_eq!(read[3], (6, false, long[2].to_string()));
        assert_eq!(lines.lines_read(), 8);
        assert_eq!(read.len(), 4);
        // One long line is no sign of a cut: a log as printed has a longest line.
        let one = format!("{}\nshort\n", "x".repeat(90));
        assert_eq!(Presentation::of(one.as_bytes(), true).wrap_width(), None);
        // Nor is a box, all of whose lines are one width.
        let boxed = format!("│ {} │\n│ {} │\n", "a".repeat(80), "b".repeat(80));
        assert_eq!(Presentation::of(boxed.as_bytes(), true).wrap_width(), None);
        Ok(())
    }

    /// Past the first 8 KiB, where lines without a marker word are passed
    /// over in bulk, a cut copy is still read line by line: the word the cut
    /// split is found in the joined line, and its first piece is not skipped.
    #[test]
    fn a_word_split_by_a_terminals_cut_far_into_the_log_is_found() -> Result<(), LogError> {
        let steps: Vec<String> = (0..150)
            .map(|step| format!("epoch 1 step {step:04}: loss 0.{step:04} lr 1e-4 grad-norm 1.{step:03} tokens/s 5120 mem 11.{step:03} GiB, data 0.01 s"))
            .collect();
        let mut lines: Vec<&str> = steps.iter().map(String::as_str).collect();
        // Cut at 80, "no kernel image" is split between "no ker" and "nel image".
        let error = "RuntimeError: CUDA error (after three retries of the launch on device 0): no kernel image is available for execution on the device";
        lines.push(error);
        let copied = presentation::cut_at_width(&lines, 80, "\n");
        assert!(copied.len() > SNIFF && copied.contains("no ker\nnel image"));
        let presentation = Presentation::of(&copied.as_bytes()[..SNIFF], false);
        assert_eq!(presentation.wrap_width(), Some(80));
        let marker = Marker::new(["no kernel image"]).unwrap();
        let mut lines = Lines::marked_by(copied.as_bytes(), &marker).presented_as(presentation);
        let mut marked = Vec::new();
        while lines.advance(false)? {
            if lines.marked() {
                marked.push(lines.text().to_string());
            }
        }
        assert_eq!(marked, [error]);
        Ok(())
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

    /// The lines a marker keeps, read from blocks of `block` bytes while
    /// nothing needs the unmarked ones.
    fn marked(bytes: &[u8], block: usize) -> Vec<(usize, String)> {
        let marker = Marker::new(["RuntimeError:", "NCCL WARN"]).unwrap();
        let mut lines = Lines::marked_by(io::BufReader::with_capacity(block, bytes), &marker);
        let mut out = Vec::new();
        while lines.advance(false).unwrap() {
            if lines.marked() {
                let number = lines.line_number();
                out.push((number, lines.text().to_string()));
            }
        }
        out
    }

    #[test]
    fn a_marker_keeps_the_lines_with_its_words_whatever_the_blocks() {
        let mut log = "step 1 loss 0.5\n".repeat(SNIFF / 8).into_bytes();
        log.extend_from_slice(b"x [0] NCCL WARN shm\nstep\n\x1b[31mRuntimeError\x1b[0m: bad\nlast RuntimeError: end");
        let lines = log.iter().filter(|&&byte| byte == b'\n').count() + 1;
        let expected = vec![
            (lines - 3, "x [0] NCCL WARN shm".to_string()),
            (lines - 1, "RuntimeError: bad".to_string()),
            (lines, "last RuntimeError: end".to_string()),
        ];
        // Blocks that cut the words in two, and one that holds the whole log.
        for block in [5, 7, 64, 1 << 20] {
            assert_eq!(marked(&log, block), expected, "blocks of {block} bytes");
        }
    }

    #[test]
    fn a_marker_word_in_another_case_still_marks_its_line() {
        let log = "step 1\n[rank0]: runtimeerror: the driver\nx nccl warn shm\n".repeat(SNIFF);
        let kept = marked(log.as_bytes(), 64);
        assert_eq!(kept.len(), 2 * SNIFF, "{:?}", &kept[..4]);
    }

    #[test]
    fn the_words_of_a_line_with_no_end_are_dropped_as_the_reader_passes_them() {
        let marker = Marker::new(["RuntimeError:"]).unwrap();
        let mut log = b"\x1b".repeat(1 << 20);
        log.extend_from_slice(b"\nlast\n");
        let mut lines = Lines::marked_by(io::BufReader::with_capacity(4096, &log[..]), &marker);
        let mut most = 0;
        while lines.advance(false).unwrap() {
            most = most.max(lines.match_ends.len());
        }
        // A million colour codes on one line: never more than a block's worth held.
        assert!(most <= 4096, "{most} word ends held");
    }

    #[test]
    fn an_empty_log_has_no_lines() {
        assert!(all(b"").unwrap().is_empty());
    }
}
