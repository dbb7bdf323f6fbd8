//! Rendering for people. Machine formats are the serde forms of the same values.

pub mod check;
pub mod drift;
pub mod explain;
mod finding;
pub mod fleet;
mod frameworks;
mod gpu;
pub mod junit;
mod layout;
pub mod markdown;
pub mod matrix;
pub mod smoke;
pub mod snapshot;
mod width;
mod wrap;

/// `3 nodes`, `1 node`: a count and its word.
pub(crate) fn plural(count: usize, word: &str) -> String {
    format!("{count} {word}{}", if count == 1 { "" } else { "s" })
}

/// `sha256:0123456789ab`: enough to tell two fingerprints apart on screen.
/// A lock's fingerprint is read from the file, so it is cut by characters and
/// escaped like any other text from input.
pub(crate) fn short_fingerprint(fingerprint: &str) -> String {
    let kept: String = fingerprint.chars().take("sha256:".len() + 12).collect();
    crate::escape::controls(&kept).into_owned()
}

/// How text output looks where it goes: terminal colour, on only for a
/// terminal and never when `NO_COLOR` is set to anything non-empty
/// (no-color.org; output must read the same without it), and the width every
/// renderer wraps to (`width`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
    width: usize,
}

impl Style {
    pub fn for_output(is_terminal: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Style {
            color: is_terminal && !no_color,
            width: width::for_output(is_terminal),
        }
    }

    /// The same width, without colour.
    pub fn plain(self) -> Style {
        Style { color: false, ..self }
    }

    /// The columns a line may take (`COLUMNS`, else the terminal's, else 100).
    pub fn width(self) -> usize {
        self.width
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn heading(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn warning(self, text: &str) -> String {
        self.paint("33", text)
    }

    pub fn error(self, text: &str) -> String {
        self.paint("1;31", text)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fingerprint_from_a_file_is_cut_between_characters() {
        assert_eq!(
            super::short_fingerprint("sha256:0123456789abcdef"),
            "sha256:0123456789ab"
        );
        assert_eq!(super::short_fingerprint("sha256:01234567890é\n"), "sha256:01234567890é");
        assert_eq!(super::short_fingerprint("ééééééééééééééééééééé"), "é".repeat(19));
        assert_eq!(super::short_fingerprint("\x1b"), "\\x1b");
    }
}
