//! What "fits the width" means for text output (README, "Text output"): no
//! line is wider than the width, but for the two kinds of line envdoctor does
//! not cut, so that what is on them can be copied whole:
//!
//! - one word longer than the room its column leaves (a URL, a path, an id),
//!   alone on its line or after its label (`see`, `Why:`, a severity);
//! - a fix (`fix` or `fix:` first), or a command line of its own that starts
//!   with the interpreter it runs (`check`'s one command for every package
//!   fix): one command, printed on one line so that it can be pasted.

/// `text`'s words joined by single spaces: wrapped text compares with the
/// text it came from, wherever the width broke its lines.
pub fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The lines of `text` wider than `width` characters that are neither kind.
pub fn overflowing(text: &str, width: usize) -> Vec<&str> {
    text.lines()
        .filter(|line| line.chars().count() > width)
        .filter(|line| !one_word_in_its_column(line) && !a_fix(line))
        .collect()
}

/// The line is one word, or a label and one word: the label is what comes
/// before a gap of two spaces or more (`see       URL`, `ruled out    ID:`),
/// or a first word ending in `:` (`Why: PATH`).
fn one_word_in_its_column(line: &str) -> bool {
    let text = line.trim();
    let after_label = match text.rfind("  ") {
        Some(gap) => &text[gap..],
        None => match text.split_once(' ') {
            Some((label, rest)) if label.ends_with(':') => rest,
            _ => text,
        },
    };
    after_label.split_whitespace().count() == 1
}

fn a_fix(line: &str) -> bool {
    let first = line.split_whitespace().next();
    matches!(first, Some("fix" | "fix:"))
        || first.is_some_and(|word| word.trim_start_matches(['\'', '"']).starts_with('/'))
}

/// Fails, naming `what` and every offending line, when `text` does not fit.
pub fn assert_fits(text: &str, width: usize, what: &str) {
    let overflowing = overflowing(text, width);
    assert!(
        overflowing.is_empty(),
        "{what} at COLUMNS={width}: {} lines are wider:\n{}\n--- whole output:\n{text}",
        overflowing.len(),
        overflowing.join("\n")
    );
}

#[test]
fn only_long_words_and_fixes_may_stand_out() {
    let url = "https://github.com/deepspeedai/DeepSpeed/blob/v0.14.3/deepspeed/autotuning/scheduler.py";
    let allowed = [
        url.to_string(),
        format!("    see       {url}"),
        format!("Why: {url}"),
        format!("  ruled out    {url}:"),
        format!("           fix: pip install \"deepspeed>=0.14.4\" {url}"),
    ];
    for line in &allowed {
        assert!(overflowing(line, 40).is_empty(), "{line}");
    }
    let prose = "a sentence that should have been wrapped long before it reached the edge";
    assert_eq!(overflowing(prose, 40), [prose]);
    assert_eq!(overflowing(&format!("see {url} now"), 40).len(), 1);
}
