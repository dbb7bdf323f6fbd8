//! Text fitted to the output width ([`super::width`]) by moving whole words
//! to the next line.
//!
//! A word is never broken: a word too long for the room its column leaves (a
//! URL, a path, an id) is printed whole, alone in that column, and that line
//! is the only kind that may be wider than the output. Splitting it would make
//! it useless to copy.

use std::borrow::Cow;
use std::fmt::Write;

/// `text`'s words in lines of at most `width` characters. Words from input
/// may hold terminal escapes; each is escaped, so none can paint the terminal
/// or move the cursor.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    hanging(text, width, width)
}

/// Like [`wrap`], with room for `first` characters on the first line (the
/// one after a label) and `rest` on the others.
pub(super) fn hanging(text: &str, first: usize, rest: usize) -> Vec<String> {
    let words = text.split_whitespace().map(crate::escape::controls);
    let gaps = std::iter::once("").chain(std::iter::repeat(" "));
    pack(gaps.map(Cow::Borrowed).zip(words), first, rest)
}

/// Writes `text` after `prefix` (a label or indent, perhaps painted), wrapped
/// to `width`, the lines after the first indented by `indent` spaces; `paint`
/// colours each line of the text. The first line holds only the prefix when
/// the text's first word fits the wider lines below it but not after the prefix.
pub(super) fn write_hanging(
    out: &mut String,
    width: usize,
    prefix: &str,
    indent: usize,
    text: &str,
    paint: impl Fn(&str) -> String,
) {
    let first = width.saturating_sub(visible_width(prefix));
    for (index, line) in hanging(text, first, width.saturating_sub(indent)).iter().enumerate() {
        let painted = if line.is_empty() { String::new() } else { paint(line) };
        let _ = match index {
            0 if line.is_empty() => writeln!(out, "{}", prefix.trim_end()),
            0 => writeln!(out, "{prefix}{painted}"),
            _ => writeln!(out, "{}{painted}", crate::escape::spaces(indent)),
        };
    }
}

/// Like [`write_hanging`], for text already escaped and perhaps painted (the
/// Snapshot view's, escaped as a whole): its colour is kept, and so is its
/// spacing where it fits (`GPU 0  H100  sm 9.0`); where it does not, it is
/// cut between words and the spaces at each cut are dropped.
pub(super) fn write_laid_out(out: &mut String, width: usize, prefix: &str, indent: usize, text: &str) {
    let first = width.saturating_sub(visible_width(prefix));
    let lines = pack(gaps_and_words(text), first, width.saturating_sub(indent));
    for (index, line) in lines.iter().enumerate() {
        let _ = match index {
            0 if line.is_empty() => writeln!(out, "{}", prefix.trim_end()),
            0 => writeln!(out, "{prefix}{line}"),
            _ => writeln!(out, "{}{line}", crate::escape::spaces(indent)),
        };
    }
}

/// `text` as (the spaces before a word, the word), trailing spaces dropped.
fn gaps_and_words(text: &str) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let word_start = rest.find(|c: char| !c.is_whitespace())?;
        let word_end = rest[word_start..]
            .find(char::is_whitespace)
            .map_or(rest.len(), |end| word_start + end);
        let (gap, word) = (&rest[..word_start], &rest[word_start..word_end]);
        rest = &rest[word_end..];
        Some((Cow::Borrowed(gap), Cow::Borrowed(word)))
    })
}

/// The columns `text` takes on a terminal: its characters, less the colour
/// sequences (`ESC [ ... m`) that [`super::Style`] adds.
pub(super) fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut characters = text.chars();
    while let Some(character) = characters.next() {
        if character == '\x1b' {
            // A control sequence ends at its first byte in `@`..=`~`, after the `[`.
            let _ = characters.next();
            for inside in characters.by_ref() {
                if ('@'..='~').contains(&inside) {
                    break;
                }
            }
        } else {
            width += 1;
        }
    }
    width
}

/// Words, each with the spaces written before it, in lines: the first line
/// holds at most `first` columns, the others at most `rest`. The spaces before
/// the first word of a later line are dropped; the first line keeps its own.
fn pack<'a>(words: impl Iterator<Item = (Cow<'a, str>, Cow<'a, str>)>, first: usize, rest: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for (gap, word) in words {
        let room = if lines.is_empty() { first } else { rest };
        let needed = visible_width(&word);
        if used > 0 && used + visible_width(&gap) + needed > room {
            lines.push(std::mem::take(&mut line));
            used = 0;
        } else if used == 0 && lines.is_empty() && needed > first && first < rest {
            lines.push(String::new());
        }
        let starts_a_later_line = line.is_empty() && !lines.is_empty();
        if !starts_a_later_line {
            line.push_str(&gap);
            used += visible_width(&gap);
        }
        line.push_str(&word);
        used += needed;
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_move_to_the_next_line_whole() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("", 9), [""]);
    }

    #[test]
    fn a_word_longer_than_the_line_is_kept_whole_on_a_line_of_its_own() {
        let url = "https://example.org/a/very/long/path";
        assert_eq!(wrap(&format!("see {url} now"), 10), ["see", url, "now"]);
    }

    #[test]
    fn the_first_line_has_its_own_room() {
        assert_eq!(hanging("aa bb cc dd", 5, 8), ["aa bb", "cc dd"]);
        // `long` fits the later lines but not the first: the first is left empty.
        assert_eq!(hanging("long word", 3, 10), ["", "long word"]);
    }

    #[test]
    fn words_from_input_cannot_paint_the_terminal() {
        assert_eq!(wrap("red\x1b[31m text", 40), ["red\\x1b[31m text"]);
    }

    #[test]
    fn laid_out_text_keeps_its_spacing_and_colour() {
        let mut out = String::new();
        write_laid_out(&mut out, 40, "gpu   ", 8, "GPU 0  H100  \x1b[33msm 9.0\x1b[0m");
        assert_eq!(out, "gpu   GPU 0  H100  \x1b[33msm 9.0\x1b[0m\n");
        let mut out = String::new();
        write_laid_out(&mut out, 20, "gpu   ", 8, "  GPU 0  H100 80GB  sm 9.0");
        assert_eq!(out, "gpu     GPU 0  H100\n        80GB  sm 9.0\n");
    }

    #[test]
    fn colour_takes_no_room() {
        assert_eq!(visible_width("\x1b[1;31mFAIL\x1b[0m: x"), 7);
        assert_eq!(visible_width("GPU · 80 GiB"), 12);
    }

    #[test]
    fn a_hanging_paragraph_continues_under_its_indent() {
        let mut out = String::new();
        write_hanging(&mut out, 16, "  why ", 6, "one two three four", str::to_string);
        assert_eq!(out, "  why one two\n      three four\n");
        let mut out = String::new();
        write_hanging(&mut out, 16, "  [an-id] ", 4, "titlewordlong", str::to_string);
        assert_eq!(out, "  [an-id]\n    titlewordlong\n");
    }
}
