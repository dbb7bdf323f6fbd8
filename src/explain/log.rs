//! Reads a log line by line in bounded memory: a line longer than
//! [`MAX_LINE`] keeps its beginning and the rest is skipped, so a 200 MB log
//! with no newline costs no more than one with short lines. Bytes that are not
//! UTF-8 are read lossily; what the log picked up on its way here (colour
//! codes, HTML entities, a prefix on every line) is taken off each line read
//! ([`super::presentation`]).

use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

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
    bytes_read: u64,
    marker: Option<&'m Marker>,
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

/// The words that make a line worth reading, searched for in whole blocks.
pub struct Marker(Searcher);

/// aho-corasick's SIMD searchers where they take the words, its automaton where not.
enum Searcher {
    /// One SIMD searcher per [`PACKED_WORDS`] words: each pass is still
    /// several times faster than the automaton, which reads a byte at a time.
    Packed(Vec<aho_corasick::packed::Searcher>),
    Automaton(AhoCorasick),
}

/// The most words one SIMD searcher takes. aho-corasick's packed searchers
/// refuse 128 patterns or more, and past 64 (Teddy's own default limit) they
/// slow down several-fold: `bench/explain.sh` read its 200 MB log at about
/// 550-600 MB/s with 197 words in searchers of 127 and 70, and at 740-1040
/// MB/s with the same words in searchers of 66 or fewer (noisy runs).
const PACKED_WORDS: usize = 64;

impl Marker {
    /// ASCII case is ignored, as causes match messages: the words are
    /// searched for in a lowercased copy of each block.
    pub fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Option<Marker> {
        let mut words: Vec<String> = patterns
            .into_iter()
            .filter(|word| !word.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        words.sort_unstable();
        words.dedup();
        let words = without_holders(shared_runs(words));
        let mut kept: Vec<&str> = words.iter().map(String::as_str).collect();
        // A SIMD searcher's fingerprint is as long as its shortest word (up to
        // four bytes): one holding a three-byte word (a curly quote) checks
        // far more candidate places in plain text. Longest first, the short
        // words share the last searcher and only it pays: bench/explain.sh's
        // log read at 959 against 782 MB/s with the same 246 words in four
        // searchers (9 interleaved rounds; 00c41c9 read it at 1050).
        kept.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        // The SIMD searcher (Teddy) is several times faster than the automaton,
        // which reads a byte at a time, and fastest with at most 64 words: the
        // words are split evenly between as few searchers as keep each so.
        let searchers = kept.len().div_ceil(PACKED_WORDS).max(1);
        let packed: Option<Vec<aho_corasick::packed::Searcher>> = kept
            .chunks(kept.len().div_ceil(searchers).max(1))
            .map(|words| {
                aho_corasick::packed::Config::new()
                    .heuristic_pattern_limits(false)
                    .builder()
                    .extend(words)
                    .build()
            })
            .collect();
        let searcher = match packed {
            Some(packed) => Searcher::Packed(packed),
            None => Searcher::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&kept)
                    .ok()?,
            ),
        };
        Some(Marker(searcher))
    }

    /// How many passes over each block finding the words takes: one per SIMD searcher.
    pub fn passes(&self) -> usize {
        match &self.0 {
            Searcher::Packed(packed) => packed.len(),
            Searcher::Automaton(_) => 1,
        }
    }

    fn is_in(&self, bytes: &[u8]) -> bool {
        self.ends(&bytes.to_ascii_lowercase()).next().is_some()
    }

    /// Where each word found in `lowered` (a lowercased block) ends, in order.
    fn ends<'b>(&'b self, lowered: &'b [u8]) -> Box<dyn Iterator<Item = usize> + 'b> {
        match &self.0 {
            Searcher::Packed(packed) if packed.len() == 1 => {
                Box::new(packed[0].find_iter(lowered).map(|found| found.end()))
            }
            Searcher::Packed(packed) => {
                let mut ends: Vec<usize> = packed
                    .iter()
                    .flat_map(|searcher| searcher.find_iter(lowered).map(|found| found.end()))
                    .collect();
                ends.sort_unstable();
                Box::new(ends.into_iter())
            }
            Searcher::Automaton(automaton) => Box::new(automaton.find_iter(lowered).map(|found| found.end())),
        }
    }
}

/// The words, with those that hold the same run of at least [`SHARED_RUN`]
/// bytes replaced by the longest run they share around it: `got mat1 is on
/// cpu` and `got mat1 is on cuda` become `got mat1 is on c`; `cublas_status_alloc_failed`
/// and `cublas_status_execution_failed` become `cublas_status_`. A line is
/// only marked worth reading, so a shared run marks every line the longer
/// words did. Each word past a multiple of [`PACKED_WORDS`] costs a searcher
/// more, a whole pass over every block: 257 words took five searchers where 256
/// take four, 810-840 against 1080 MB/s on `bench/explain.sh`'s log. Shared
/// openings alone (the rule before this one) left the knowledge at 257 words;
/// shared runs anywhere in a word left it at 235 (246 with later entries).
fn shared_runs(words: Vec<String>) -> Vec<String> {
    // Each run's words, with where the run first starts in each.
    let mut holders: HashMap<&[u8], Vec<(usize, usize)>> = HashMap::new();
    for (index, word) in words.iter().enumerate() {
        for (at, run) in word.as_bytes().windows(SHARED_RUN).enumerate() {
            let list = holders.entry(run).or_default();
            if list.last().is_none_or(|&(last, _)| last != index) {
                list.push((index, at));
            }
        }
    }
    let mut merged = vec![false; words.len()];
    let mut shared = Vec::new();
    for (index, word) in words.iter().enumerate() {
        let bytes = word.as_bytes();
        for (at, run) in bytes.windows(SHARED_RUN).enumerate() {
            if merged[index] {
                break;
            }
            let others: Vec<(usize, usize)> = holders[run]
                .iter()
                .copied()
                .filter(|&(other, _)| other != index && !merged[other])
                .collect();
            if others.is_empty() {
                continue;
            }
            let agree = |offset: isize| {
                let here = at as isize + offset;
                here >= 0
                    && (here as usize) < bytes.len()
                    && others.iter().all(|&(other, there)| {
                        let there = there as isize + offset;
                        let other = words[other].as_bytes();
                        there >= 0 && (there as usize) < other.len() && other[there as usize] == bytes[here as usize]
                    })
            };
            let mut start = at;
            while agree(start as isize - at as isize - 1) {
                start -= 1;
            }
            let mut end = at + SHARED_RUN;
            while agree(end as isize - at as isize) {
                end += 1;
            }
            while !word.is_char_boundary(start) {
                start += 1;
            }
            while !word.is_char_boundary(end) {
                end -= 1;
            }
            if end < start + SHARED_RUN {
                continue;
            }
            merged[index] = true;
            for &(other, _) in &others {
                merged[other] = true;
            }
            shared.push(word[start..end].to_string());
        }
    }
    let mut words: Vec<String> = words
        .into_iter()
        .zip(merged)
        .filter(|(_, merged)| !merged)
        .map(|(word, _)| word)
        .chain(shared)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// The words less those that hold another: a word is found through one it holds.
fn without_holders(words: Vec<String>) -> Vec<String> {
    words
        .iter()
        .filter(|word| {
            !words
                .iter()
                .any(|other| other != *word && word.contains(other.as_str()))
        })
        .cloned()
        .collect()
}

/// How many bytes two words share before they are searched for as one.
const SHARED_RUN: usize = 16;

impl<'m, R: BufRead> Lines<'m, R> {
    pub fn new(reader: R) -> Lines<'m, R> {
        Lines {
            reader,
            buffer: Vec::with_capacity(256),
            text: String::with_capacity(256),
            number: 0,
            bytes_read: 0,
            marker: None,
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

    /// Whether the current line holds a marker word (always, without a marker).
    pub fn marked(&self) -> bool {
        self.marked
    }

    /// The next line without its line ending, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>, LogError> {
        if !self.advance(true)? {
            return Ok(None);
        }
        Ok(Some((self.number, self.text())))
    }

    /// Moves to the next line; `false` at the end of the log. Without
    /// `keep_unmarked`, a line that holds no marker word is passed over
    /// unread: its [`Lines::text`] is empty.
    pub fn advance(&mut self, keep_unmarked: bool) -> Result<bool, LogError> {
        self.buffer.clear();
        self.stamped = false;
        let line_start = self.bytes_read;
        let mut any = false;
        let mut blocks = 0;
        let mut line_hit = false;
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
                    self.match_ends
                        .extend(marker.ends(&self.lowered).map(|end| base + end as u64));
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
            // A whole line in this block, with no marker word: nothing to copy.
            if ends && blocks == 1 && !keep_unmarked && self.marker.is_some() && self.bytes_read >= SNIFF as u64 {
                let line_end = self.bytes_read + taken as u64;
                line_hit = passed_words(&mut self.match_ends, line_start, line_end);
                if !line_hit {
                    self.reader.consume(taken);
                    self.bytes_read += taken as u64;
                    self.number += 1;
                    self.text.clear();
                    self.marked = false;
                    return Ok(true);
                }
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
                break;
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

    /// Past 127 words aho-corasick's SIMD searcher refuses them; the automaton
    /// it fell back to read 4x slower (the knowledge passed 127 words unnoticed).
    /// Any number of words stays on SIMD searchers of at most 64 words each,
    /// split evenly, and finds every word, in order.
    #[test]
    fn many_words_stay_on_simd_searchers_and_are_all_found_in_order() {
        let words: Vec<String> = (0..300)
            .map(|index| format!("error number {index:03} happened"))
            .collect();
        let marker = Marker::new(words.iter().map(String::as_str)).unwrap();
        assert!(matches!(&marker.0, Searcher::Packed(searchers) if searchers.len() == 5));
        let text = b"x error number 299 happened y error number 001 happened z";
        let ends: Vec<usize> = marker.ends(text).collect();
        assert_eq!(ends, [27, 55]);
    }

    /// Words that share a long run, at their opening or inside, are searched
    /// for as that run, which still marks every line each of them is on.
    #[test]
    fn words_that_share_a_run_are_one_word_and_still_mark_their_lines() {
        let words = [
            "got mat1 is on cpu",
            "got mat1 is on cuda",
            "got weight is on cpu",
            "killed",
            "\"layernormkernelimpl\" not implemented for 'half'",
            "cpu_\" not implemented for '",
            // Their runs share the last byte of two characters that differ:
            // the shared run starts at the next character.
            "\u{2019} is not compatible here",
            "\u{2119} is not compatible here",
        ];
        assert_eq!(
            shared_runs(words.iter().map(|word| word.to_string()).collect()),
            [
                " is not compatible here",
                "\" not implemented for '",
                "got mat1 is on c",
                "got weight is on cpu",
                "killed",
            ]
        );
        let marker = Marker::new(words).unwrap();
        for word in words {
            assert!(marker.is_in(format!("x {word} y").as_bytes()), "{word}");
        }
        assert!(!marker.is_in(b"got mat2 is on cpu"));
    }

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

    /// The lines a marker keeps, read from blocks of `block` bytes while
    /// nothing needs the unmarked ones.
    fn marked(bytes: &[u8], block: usize) -> Vec<(usize, String)> {
        let marker = Marker::new(["RuntimeError:", "NCCL WARN"]).unwrap();
        let mut lines = Lines::marked_by(io::BufReader::with_capacity(block, bytes), &marker);
        let mut out = Vec::new();
        while lines.advance(false).unwrap() {
            if lines.marked() {
                let number = lines.lines_read();
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
