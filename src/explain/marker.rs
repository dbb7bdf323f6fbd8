//! The words that make a log line worth reading, found in whole blocks of
//! the log at SIMD speed.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The words that make a line worth reading, searched for in whole blocks.
///
/// A block is read once by a searcher of a few bytes of every word (its
/// anchors); only the lines an anchor is in are searched for the words
/// themselves. Each pass of a SIMD searcher over a block costs about the same
/// whatever it finds, and the knowledge's 255 words took four: the anchors
/// take two slim ones, and the lines of a training log (its steps, its
/// progress bars) hold none of them.
pub struct Marker {
    words: Searcher,
    anchors: Option<Anchors>,
}

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

/// The most anchors one SIMD searcher takes. Past 32 patterns aho-corasick's
/// Teddy goes "fat" (16 buckets, 16 bytes a step) and each bucket holds more
/// patterns, so more places pass its fingerprint and are checked one by one:
/// the anchors' pass was 55% of `bench/explain.sh`'s 200 MB log. The
/// knowledge's 62 anchors read that log in 136 ms as one fat searcher, 123 ms
/// as two slim ones of 31 and 124 ms as three of 21 (five runs each,
/// 2026-12-06), and one more message had cost the fat searcher 16% (117 ms
/// without it): patterns per bucket, not passes, set the price.
const PACKED_ANCHORS: usize = 32;

/// How long an anchor is at least: the SIMD searcher tells places apart by a
/// pattern's first four bytes, and checks far more of them for a shorter one.
const ANCHOR: usize = 4;

/// Lines an anchor is in with fewer bytes than this between them are
/// searched for the words together.
const NEARBY: usize = 1024;

/// Past this share of a block in lines an anchor is in, the whole block is
/// searched for the words: one pass costs less than many short ones.
const WHOLE_BLOCK_SHARE: usize = 4;

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
        // words share the last searcher and only it pays.
        kept.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let words = Searcher::new(&kept)?;
        let anchors = match &words {
            Searcher::Packed(_) => Anchors::new(&kept),
            Searcher::Automaton(_) => None,
        };
        Some(Marker { words, anchors })
    }

    /// How many SIMD passes over each block finding the lines that may hold
    /// a word takes, at least.
    pub fn passes(&self) -> usize {
        match (&self.anchors, &self.words) {
            (Some(anchors), _) => anchors.searchers.len(),
            (None, Searcher::Packed(packed)) => packed.len(),
            (None, Searcher::Automaton(_)) => 1,
        }
    }

    /// Whether `bytes` (one line, in any case) holds a word.
    pub(super) fn is_in(&self, bytes: &[u8]) -> bool {
        !self.words.ends(&bytes.to_ascii_lowercase()).is_empty()
    }

    /// Where each word found in `lowered` (a lowercased block) ends, in order.
    /// `trial` is how the anchors did in the log's blocks before this one.
    pub(super) fn ends(&self, lowered: &[u8], trial: &mut AnchorTrial) -> Vec<usize> {
        let Some(anchors) = &self.anchors else {
            return self.words.ends(lowered);
        };
        if trial.blocks_without > 0 {
            trial.blocks_without -= 1;
            return self.words.ends(lowered);
        }
        let lines = anchors.lines(lowered);
        let in_lines: usize = lines.iter().map(|line| line.len()).sum();
        if in_lines * WHOLE_BLOCK_SHARE > lowered.len() {
            trial.blocks_without = BLOCKS_WITHOUT_ANCHORS;
            return self.words.ends(lowered);
        }
        // A word holds no newline, so each one found in the block is found in
        // the line its anchor is in, and at the same place.
        lines
            .into_iter()
            .flat_map(|line| {
                let start = line.start;
                self.words.ends(&lowered[line]).into_iter().map(move |end| start + end)
            })
            .collect()
    }
}

/// How the anchors do in one log. In text that holds them in most lines
/// (an installer's output, prose) their pass over a block is wasted: the
/// whole block is searched for the words after it. After such a block the
/// next [`BLOCKS_WITHOUT_ANCHORS`] are searched for the words directly, so
/// such a log pays for one pass of anchors in that many blocks.
#[derive(Debug, Default)]
pub struct AnchorTrial {
    blocks_without: usize,
}

/// Blocks searched for the words without the anchors after a block the anchors
/// did not narrow.
const BLOCKS_WITHOUT_ANCHORS: usize = 16;

impl Searcher {
    fn new(words: &[&str]) -> Option<Searcher> {
        // The SIMD searcher (Teddy) is several times faster than the automaton,
        // which reads a byte at a time, and fastest with at most 64 words: the
        // words are split evenly between as few searchers as keep each so.
        let packed = simd_searchers(words.iter().map(|word| word.as_bytes()), PACKED_WORDS);
        Some(match packed {
            Some(packed) => Searcher::Packed(packed),
            None => Searcher::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(words)
                    .ok()?,
            ),
        })
    }

    /// Where each word found in `haystack` ends, in order.
    fn ends(&self, haystack: &[u8]) -> Vec<usize> {
        match self {
            Searcher::Packed(packed) => {
                let mut ends: Vec<usize> = packed
                    .iter()
                    .flat_map(|searcher| searcher.find_iter(haystack).map(|found| found.end()))
                    .collect();
                if packed.len() > 1 {
                    ends.sort_unstable();
                }
                ends
            }
            Searcher::Automaton(automaton) => automaton.find_iter(haystack).map(|found| found.end()).collect(),
        }
    }
}

/// SIMD searchers of at most `most` patterns each, split evenly;
/// `None` where the processor has none.
fn simd_searchers<'w>(
    patterns: impl ExactSizeIterator<Item = &'w [u8]>,
    most: usize,
) -> Option<Vec<aho_corasick::packed::Searcher>> {
    let patterns: Vec<&[u8]> = patterns.collect();
    let searchers = patterns.len().div_ceil(most).max(1);
    patterns
        .chunks(patterns.len().div_ceil(searchers).max(1))
        .map(|patterns| {
            aho_corasick::packed::Config::new()
                .heuristic_pattern_limits(false)
                .builder()
                .extend(patterns)
                .build()
        })
        .collect()
}

/// A few bytes of every word, each at least [`ANCHOR`] long where the word is.
struct Anchors {
    searchers: Vec<aho_corasick::packed::Searcher>,
    /// The words shorter than an anchor (a curly quote), by their first two
    /// bytes: a one-needle search costs a fraction of a SIMD searcher's pass.
    short: Vec<memchr::memmem::Finder<'static>>,
}

impl Anchors {
    /// `None` where a word holds a newline (an anchor points at a line) or
    /// the processor has no SIMD searcher.
    fn new(words: &[&str]) -> Option<Anchors> {
        if words.iter().any(|word| word.contains('\n')) {
            return None;
        }
        let (long, short): (Vec<&[u8]>, Vec<&[u8]>) = words
            .iter()
            .map(|word| word.as_bytes())
            .partition(|word| word.len() >= ANCHOR);
        let mut openings: Vec<&[u8]> = short.iter().map(|word| &word[..word.len().min(2)]).collect();
        openings.sort_unstable();
        openings.dedup();
        let anchors = cover(&long);
        Some(Anchors {
            searchers: simd_searchers(anchors.iter().map(Vec::as_slice), PACKED_ANCHORS)?,
            short: openings
                .into_iter()
                .map(|opening| memchr::memmem::Finder::new(opening).into_owned())
                .collect(),
        })
    }

    /// The lines of `lowered` an anchor is in, in order, without their
    /// newlines; lines near each other as one stretch.
    fn lines(&self, lowered: &[u8]) -> Vec<std::ops::Range<usize>> {
        let mut starts: Vec<usize> = self
            .searchers
            .iter()
            .flat_map(|searcher| searcher.find_iter(lowered).map(|found| found.start()))
            .chain(self.short.iter().flat_map(|finder| finder.find_iter(lowered)))
            .collect();
        if self.searchers.len() + self.short.len() > 1 {
            starts.sort_unstable();
        }
        let mut lines: Vec<std::ops::Range<usize>> = Vec::new();
        for at in starts {
            if lines.last().is_some_and(|line| at <= line.end) {
                continue;
            }
            let start = memchr::memrchr(b'\n', &lowered[..at]).map_or(0, |newline| newline + 1);
            let end = memchr::memchr(b'\n', &lowered[at..]).map_or(lowered.len(), |newline| at + newline);
            match lines.last_mut() {
                // Lines close together are searched as one stretch: the lines
                // between them hold no anchor, so no word, and each search
                // costs more to start than a few hundred bytes cost to read.
                Some(last) if start - last.end <= NEARBY => last.end = end,
                _ => lines.push(start..end),
            }
        }
        lines
    }
}

/// As few anchors as hold one run of [`ANCHOR`] bytes of every word: the run
/// most words not yet held share is taken first, then lengthened to all the
/// bytes the words it holds agree on around it, so that the searcher's
/// fingerprint and its check read as much of each word as they share.
fn cover(words: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut holders: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (index, word) in words.iter().enumerate() {
        for run in word.windows(ANCHOR) {
            let list = holders.entry(run).or_default();
            if list.last() != Some(&index) {
                list.push(index);
            }
        }
    }
    // The runs in a fixed order, so the same words always give the same anchors.
    let mut runs: Vec<(&[u8], Vec<usize>)> = holders.into_iter().collect();
    runs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    // Each word's runs, and how many words not yet held each run holds.
    let mut runs_of: Vec<Vec<usize>> = vec![Vec::new(); words.len()];
    for (at, (_, list)) in runs.iter().enumerate() {
        for &index in list {
            runs_of[index].push(at);
        }
    }
    let mut unheld: Vec<usize> = runs.iter().map(|(_, list)| list.len()).collect();
    let mut held = vec![false; words.len()];
    let mut anchors = Vec::new();
    // The first of the runs that hold the most words, while any holds one.
    while let Some(best) = (0..runs.len())
        .filter(|&at| unheld[at] > 0)
        .max_by(|&a, &b| unheld[a].cmp(&unheld[b]).then_with(|| b.cmp(&a)))
    {
        let (run, list) = &runs[best];
        let newly: Vec<usize> = list.iter().copied().filter(|&index| !held[index]).collect();
        for &index in &newly {
            held[index] = true;
            for &at in &runs_of[index] {
                unheld[at] -= 1;
            }
        }
        let newly: Vec<&[u8]> = newly.into_iter().map(|index| words[index]).collect();
        anchors.push(lengthened(run, &newly));
    }
    anchors
}

/// `run` with the bytes before and after it that every word agrees on.
fn lengthened(run: &[u8], words: &[&[u8]]) -> Vec<u8> {
    let places: Vec<usize> = words
        .iter()
        .map(|word| memchr::memmem::find(word, run).expect("each word holds its run"))
        .collect();
    let agree = |offset: isize| -> Option<u8> {
        let mut bytes = words.iter().zip(&places).map(|(word, &at)| {
            let here = at as isize + offset;
            (here >= 0).then(|| word.get(here as usize).copied()).flatten()
        });
        let first = bytes.next()??;
        bytes.all(|byte| byte == Some(first)).then_some(first)
    };
    let (mut before, mut after) = (0isize, run.len() as isize);
    while agree(before - 1).is_some() {
        before -= 1;
    }
    while agree(after).is_some() {
        after += 1;
    }
    (before..after)
        .map(|offset| agree(offset).expect("agreed above"))
        .collect()
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
        assert!(matches!(&marker.words, Searcher::Packed(searchers) if searchers.len() == 5));
        let text = b"x error number 299 happened y error number 001 happened z";
        let ends = marker.ends(text, &mut AnchorTrial::default());
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

    /// The anchors of the same words are always the same, each word holds
    /// one, and each is as long as the words it holds agree on.
    #[test]
    fn every_word_holds_an_anchor_and_anchors_are_as_long_as_their_words_agree() {
        let words: [&[u8]; 5] = [
            b"cudnn_status_bad_param",
            b"cudnn_status_not_ready",
            b"warning:",
            b"not found",
            b"is not set",
        ];
        let anchors = cover(&words);
        assert_eq!(anchors, cover(&words));
        for word in words {
            assert!(
                anchors
                    .iter()
                    .any(|anchor| memchr::memmem::find(word, anchor).is_some()),
                "{word:?}"
            );
        }
        assert!(anchors.contains(&b"cudnn_status_".to_vec()), "{anchors:?}");
        assert!(anchors.contains(&b"warning:".to_vec()), "{anchors:?}");
        assert!(anchors.contains(&b"not ".to_vec()), "{anchors:?}");
    }

    proptest::proptest! {
        /// Searching only the lines an anchor is in finds every word the
        /// whole block holds, at the same place: the anchors may pass over
        /// nothing a line holds, whatever the words and the text around them.
        #[test]
        fn the_lines_anchors_point_at_hold_every_word_the_block_holds(
            picks in proptest::collection::vec((0usize..12, "[a-z :_]{0,12}", proptest::bool::ANY), 1..60),
        ) {
            const WORDS: [&str; 12] = [
                "runtimeerror:", "cuda out of memory", "not found", "is not set", "error:", "killed",
                "\u{2019}", "\u{201c}", "&gt;", "nccl warn ", "cudnn_status_not_", "cudnn_status_bad",
            ];
            let marker = Marker::new(WORDS).unwrap();
            proptest::prop_assert!(marker.anchors.is_some());
            let mut block = String::new();
            for (word, filler, newline) in picks {
                block.push_str(&filler);
                block.push_str(WORDS[word]);
                if newline {
                    block.push('\n');
                }
                // Filler lines, so that the anchors' lines are a small share of the block.
                block.push_str(&"step 12 loss 0.25 lr 2e-05\n".repeat(word));
            }
            let lowered = block.to_ascii_lowercase().into_bytes();
            proptest::prop_assert_eq!(marker.ends(&lowered, &mut AnchorTrial::default()), marker.words.ends(&lowered));
        }
    }
}
