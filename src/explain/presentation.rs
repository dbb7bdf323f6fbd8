//! What a log picked up on its way to explain, taken off before any reader
//! sees a line: terminal colour codes, HTML entities (a log saved from a web
//! page's source), curly quotes (a forum or word processor), and the prefix a
//! tool put before every line: `docker compose logs`' `service-1  | `,
//! `kubectl logs --timestamps`' and CI runners' time stamps, torchrun's
//! `[rank0]: ` on a one-rank job, an e-mail or Markdown quote's `> `, a
//! Markdown code block's indent, a container runtime's own log format (Docker's
//! JSON lines, the CRI's stream and tag after a stamp), `docker build`'s step
//! numbers.
//!
//! Every reader matches messages at the start of a line (`Killed`, `ERROR:`,
//! an exception's name); without this, one prefix hides a cause the same log
//! shows plainly (tests/it/explain_presentation.rs replays the corpus under
//! each). A prefix is taken off only where the log's first lines nearly all
//! carry it: a time stamp on a few logging lines between raw traceback lines
//! is part of what those lines say, and stays.

/// The share of a sample's non-blank lines that must carry a prefix for it
/// to be the log's: one line in ten, or one line of a short paste, may come
/// from elsewhere (the shell command that started the job, pasted above its output).
const SHARE_WRAPPED: f64 = 0.9;

/// Layers of wrapping taken off, outermost first: a quoted compose log with
/// time stamps is three.
const MAX_LAYERS: usize = 4;

/// The indent a Markdown code block or a quoted paste adds, at least.
/// Narrower is Python's own: a paste of frames alone is indented two.
const MIN_SHARED_INDENT: usize = 3;

/// The words that make a line worth reading because it may hold another
/// reader's words in disguise (see [`plain`]): an HTML entity, Docker's JSON
/// line, a curly quote, a space other than the ASCII blank.
pub fn disguises() -> Vec<String> {
    ENTITIES
        .iter()
        .map(|(entity, _)| entity.to_string())
        .chain([DOCKER_JSON.to_string()])
        .chain(
            CURLY_QUOTES
                .iter()
                .chain(&OTHER_SPACES)
                .chain(&[ZERO_WIDTH_SPACE])
                .map(char::to_string),
        )
        .collect()
}

/// How every line of one log is unwrapped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Presentation {
    layers: Vec<Wrapping>,
    /// The width a terminal cut every long line at, where the log was copied
    /// from one so: a line of exactly this many characters goes on in the next.
    wrap_width: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Wrapping {
    /// `> ` (or a lone `>` on a quoted blank line).
    Quote,
    /// A date and time, or a time alone, maybe bracketed, maybe followed by
    /// a log level: `2024-05-01T12:00:00.123Z`, `[2024-05-01 12:00:00,123] ERROR -`.
    TimeStamp,
    /// A Compose service's name and bar: `app-worker-1  | `.
    Service,
    /// `kubectl logs --prefix`'s pod and container: `[pod/trainer-0/pytorch] `.
    Pod,
    /// The stream and tag a CRI runtime (containerd, CRI-O) writes after its
    /// time stamp in a node's container log files: `stderr F `.
    Stream,
    /// BuildKit's step and seconds in `docker build --progress=plain`: `#12 3.456 `.
    BuildStep,
    /// One label before every line, the same on each: `[rank0]:`,
    /// `[1,0]<stderr>:`, and the blank after it where the tool adds one
    /// (torchrun does, mpirun does not: a frame's indent is the line's own).
    /// Only one: where several ranks interleave, the traceback reader tells
    /// them apart by their labels.
    Label { label: String, spaced: bool },
    /// Spaces every line starts with.
    Indent(usize),
}

impl Presentation {
    /// The wrapping `sample`, the log's start, shows. Its last line may be
    /// cut short by the sample's end and is left out.
    pub fn of(sample: &[u8], complete: bool) -> Presentation {
        let text = String::from_utf8_lossy(sample);
        let mut written: Vec<&str> = text.split('\n').map(|line| line.trim_end_matches('\r')).collect();
        if !complete && written.len() > 1 {
            written.pop();
        }
        let mut lines: Vec<String> = written.iter().map(|line| plain(line.to_string())).collect();
        let wrap_width = hard_wrap_width(&written, &lines);
        lines.retain(|line| !line.trim().is_empty());
        let mut layers = Vec::new();
        while layers.len() < MAX_LAYERS && !lines.is_empty() {
            let Some(wrapping) = Wrapping::shared_by(&lines) else {
                break;
            };
            for line in &mut lines {
                if let Some(length) = wrapping.length_in(line) {
                    line.drain(..length);
                }
            }
            lines.retain(|line| !line.trim().is_empty());
            layers.push(wrapping);
        }
        Presentation { layers, wrap_width }
    }

    /// The width every long line of the log was cut at, if it was.
    pub fn wrap_width(&self) -> Option<usize> {
        self.wrap_width
    }

    /// Whether lines are read as they are.
    #[cfg(test)]
    fn is_bare(&self) -> bool {
        self.layers.is_empty()
    }

    /// What of `line` (already [`plain`]) is wrapping.
    pub fn unwrap(&self, line: &str) -> Unwrapped {
        let mut unwrapped = Unwrapped::default();
        for wrapping in &self.layers {
            match wrapping.length_in(&line[unwrapped.length..]) {
                Some(length) => {
                    unwrapped.length += length;
                    unwrapped.stamped |= *wrapping == Wrapping::TimeStamp;
                }
                None => break,
            }
        }
        unwrapped
    }
}

/// The wrapping found at the start of one line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unwrapped {
    /// Bytes of wrapping, taken off.
    pub length: usize,
    /// Whether they held a time stamp: the start of a log record, which ends
    /// a message that began without one (a raw traceback among a logger's lines).
    pub stamped: bool,
}

/// How many of `lines` non-blank lines must carry a prefix for it to be the
/// log's: nine in ten, and in a short paste all but one.
fn needed_share(lines: usize) -> usize {
    let nine_in_ten = ((lines as f64) * SHARE_WRAPPED).ceil() as usize;
    nine_in_ten.min(lines.saturating_sub(1)).max(1)
}

impl Wrapping {
    /// The wrapping nearly every line of `lines` starts with.
    fn shared_by(lines: &[String]) -> Option<Wrapping> {
        let needed = needed_share(lines.len());
        let share = |wrapping: &Wrapping| lines.iter().filter(|line| wrapping.length_in(line).is_some()).count();
        let shapes = [
            Wrapping::Quote,
            Wrapping::TimeStamp,
            Wrapping::Service,
            Wrapping::Pod,
            Wrapping::Stream,
            Wrapping::BuildStep,
        ];
        if let Some(shape) = shapes.into_iter().find(|shape| share(shape) >= needed) {
            return Some(shape);
        }
        if let Some(label) = lines.iter().find_map(|line| label_in(line)) {
            let unspaced = Wrapping::Label {
                label: label.to_string(),
                spaced: false,
            };
            if share(&unspaced) >= needed {
                // Spaced when nearly every line with more than the label has a blank next.
                let said: Vec<&str> = lines
                    .iter()
                    .filter_map(|line| line.strip_prefix(label).filter(|rest| !rest.is_empty()))
                    .collect();
                let blank_next = said.iter().filter(|rest| rest.starts_with(' ')).count();
                let spaced = blank_next >= needed_share(said.len());
                return Some(Wrapping::Label {
                    label: label.to_string(),
                    spaced,
                });
            }
        }
        let indent = lines
            .iter()
            .map(|line| line.len() - line.trim_start_matches(' ').len())
            .min()?;
        (indent >= MIN_SHARED_INDENT).then_some(Wrapping::Indent(indent))
    }

    /// How many bytes at the start of `line` this wrapping takes, if the line has it.
    fn length_in(&self, line: &str) -> Option<usize> {
        match self {
            Wrapping::Quote => {
                let rest = line.strip_prefix('>')?;
                match rest.chars().next() {
                    None => Some(1),
                    Some(' ') => Some(2),
                    Some(_) => None,
                }
            }
            Wrapping::TimeStamp => time_stamp_length(line),
            Wrapping::Service => service_length(line),
            Wrapping::Pod => pod_length(line),
            Wrapping::Stream => stream_length(line),
            Wrapping::BuildStep => build_step_length(line),
            Wrapping::Label { label, spaced } => {
                let rest = line.strip_prefix(label.as_str())?;
                Some(label.len() + usize::from(*spaced && rest.starts_with(' ')))
            }
            Wrapping::Indent(indent) => line
                .get(..*indent)
                .filter(|start| start.bytes().all(|byte| byte == b' '))
                .map(|_| *indent),
        }
    }
}

/// Whether `line` is a shell's or Python's prompt with the command typed at
/// it, pasted above the output it started: `$ python train.py`, `(venv)
/// user@host:~/run$ torchrun ...`, `PS C:\\work> python x.py`,
/// `C:\\work>python x.py`, `>>> import torch`. It is no part of the failure.
pub fn is_prompt(line: &str) -> bool {
    let line = line.trim_start();
    // A virtual environment's name before the prompt: `(venv) `.
    let line = match line.strip_prefix('(').and_then(|rest| rest.split_once(") ")) {
        Some((name, rest)) if !name.contains(' ') => rest,
        _ => line,
    };
    if line.starts_with("$ ") || line.starts_with(">>> ") || (line.starts_with("PS ") && line.contains("> ")) {
        return true;
    }
    // `user@host:~/dir$ cmd`, `root@host:/w# cmd`: a name, `@`, a host, a path, then `$ ` or `# `.
    if let Some((user, rest)) = line.split_once('@')
        && !user.is_empty()
        && !user.contains(char::is_whitespace)
        && let Some((host, rest)) = rest.split_once(':')
        && !host.contains(char::is_whitespace)
    {
        let end = rest.find(['$', '#']);
        return end.is_some_and(|end| !rest[..end].contains(' ') && rest[end + 1..].starts_with(' '));
    }
    // `C:\work>python x.py`: a drive's path, `>`, the command; not a file's
    // line in a warning (`C:\x.py:12: ... ->`).
    let bytes = line.as_bytes();
    bytes.len() > 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && bytes[2] == b'\\'
        && line.find('>').is_some_and(|end| {
            !line[2..end].contains([':', '\'', '"']) && !line[..end].ends_with(['-', '=']) && end + 1 < line.len()
        })
}

/// Whether `line` only opens or closes a Markdown code block (```` ``` ````,
/// ```` ```python ````, `~~~`): a forum post's frame around what it pastes,
/// no line of the failure.
pub fn is_fence(line: &str) -> bool {
    let line = line.trim_end();
    let text = line.trim_start_matches(' ');
    // Markdown's own limit: four spaces make an indented code line instead.
    if line.len() - text.len() > 3 {
        return false;
    }
    let Some(mark) = text.chars().next().filter(|mark| matches!(mark, '`' | '~')) else {
        return false;
    };
    let run = text.len() - text.trim_start_matches(mark).len();
    // What may follow is the name of a language (`python`, `c++`, `shell-session`):
    // a caret line under a spec (`~~~~~~^`) is pip's, and part of what failed.
    let language = &text[run..];
    run >= 3
        && language
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.'))
}

/// `line` without colour codes and HTML entities, with straight quotes.
pub fn plain(mut line: String) -> String {
    if line.starts_with(DOCKER_JSON)
        && let Some(logged) = docker_logged(&line)
    {
        line = logged;
    }
    if line.contains('\u{1b}') {
        line = strip_ansi(&line);
    }
    if line.contains('&') {
        line = unescape_html(&line);
    }
    // A forum or a word processor curls quotes: `File “train.py”`.
    if line.contains(CURLY_QUOTES) {
        line = line
            .replace(['\u{2018}', '\u{2019}'], "'")
            .replace(['\u{201c}', '\u{201d}'], "\"");
    }
    // A web page, a chat or a mail client spaces with other characters: a
    // no-break space for each blank of an indent, a thin or ideographic
    // space, a zero-width one where a long line was allowed to break.
    if !line.is_ascii() && line.contains(OTHER_SPACES) {
        line = line.replace(OTHER_SPACES, " ").replace(ZERO_WIDTH_SPACE, "");
    }
    if line.contains('*') {
        line = symbol_underscores_restored(line);
        line = unemphasized(line);
    }
    line
}

/// How Docker's json-file log driver (`/var/lib/docker/containers/*/*-json.log`)
/// opens each line: `{"log":"Traceback ...\n","stream":"stderr","time":"..."}`
/// (a tool that rewrites it may add a blank after the colon).
const DOCKER_JSON: &str = "{\"log\":";

#[derive(serde::Deserialize)]
struct DockerLine {
    log: String,
}

/// What a line of Docker's JSON log holds, unescaped (its quotes are `\"`,
/// its `<` and `>` `\u003c` and `\u003e`), without the newline it ended with.
fn docker_logged(line: &str) -> Option<String> {
    let logged: DockerLine = serde_json::from_str(line.trim_end()).ok()?;
    Some(logged.log.trim_end_matches(['\n', '\r']).to_string())
}

/// Spaces that are not the ASCII blank every reader splits words on: no-break,
/// the typographic widths, narrow no-break, medium mathematical, ideographic.
const OTHER_SPACES: [char; 15] = [
    '\u{a0}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200a}', '\u{202f}', '\u{205f}', '\u{3000}',
];

const ZERO_WIDTH_SPACE: char = '\u{200b}';

/// A line set in Markdown's bold, as an issue's author marks the error:
/// `**RuntimeError: CUDA error: out of memory**`. The asterisks come off
/// where they enclose the whole line, and where a line opens with them on an
/// exception's name (the bold closes on a later line, or the paste cut it).
/// Python's own `**kwargs` opens no line of a traceback with a name and a colon.
fn unemphasized(line: String) -> String {
    let indent = line.len() - line.trim_start().len();
    let Some(inside) = line[indent..].strip_prefix("**") else {
        return line;
    };
    let inside = inside.trim_end();
    match inside.strip_suffix("**") {
        // Markdown's bold opens and closes on a word, never on a blank.
        Some(enclosed)
            if !enclosed.is_empty()
                && !enclosed.starts_with(char::is_whitespace)
                && !enclosed.ends_with(char::is_whitespace)
                && !enclosed.contains("**") =>
        {
            format!("{}{}", &line[..indent], enclosed)
        }
        _ if opens_with_an_exception(inside) => format!("{}{}", &line[..indent], inside),
        _ => line,
    }
}

/// `OSError: ...`, `torch.cuda.OutOfMemoryError: ...`: an exception's name
/// as the traceback reader knows one, then a colon.
fn opens_with_an_exception(text: &str) -> bool {
    text.split_once(':')
        .is_some_and(|(name, _)| super::traceback::is_exception_name(name))
}

/// The loader's undefined symbol with the underscores Markdown took for
/// emphasis put back: `_ZNK3c1017SymbolicShapeMeta18init_is_contiguousEv`,
/// pasted into an issue and copied out of it, reads `*ZNK3c10...18init*is_contiguousEv`.
/// No C or C++ symbol holds an asterisk, so each one in the symbol was an underscore.
fn symbol_underscores_restored(line: String) -> String {
    match super::symbol::undefined_symbol_at(&line) {
        Some(at) if line[at.clone()].contains('*') => {
            let symbol = line[at.clone()].replace('*', "_");
            format!("{}{symbol}{}", &line[..at.start], &line[at.end..])
        }
        _ => line,
    }
}

const CURLY_QUOTES: [char; 4] = ['\u{2018}', '\u{2019}', '\u{201c}', '\u{201d}'];

/// The entities an HTML page escapes text with. `&amp;` goes last, so that
/// `&amp;lt;` (a page that escaped `&lt;`) is read as the `&lt;` it showed.
const ENTITIES: [(&str, &str); 7] = [
    ("&quot;", "\""),
    ("&#39;", "'"),
    ("&#x27;", "'"),
    ("&#34;", "\""),
    ("&lt;", "<"),
    ("&gt;", ">"),
    ("&amp;", "&"),
];

fn unescape_html(line: &str) -> String {
    let mut out = line.to_string();
    for (entity, character) in ENTITIES {
        if out.contains(entity) {
            out = out.replace(entity, character);
        }
    }
    out
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

/// Levels a logger prints after its time stamp.
const LEVELS: [&str; 9] = [
    "DEBUG", "INFO", "NOTICE", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL", "TRACE",
];

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The length of a time stamp at the start of `line`, with what a logger
/// prints after it: `2024-05-01T12:00:00.123Z `, `[2024-05-01
/// 12:00:00,123] - root - ERROR - `, `12:00:00 | INFO | `, syslog's and
/// journalctl's `May  1 12:00:00 node7 python[1234]: `. A stamp alone is a
/// blank line of the log.
fn time_stamp_length(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'['));
    let opened = at == 1;
    let syslog = syslog_date_end(line, at);
    // A date: 2024-05-01, 2024/05/01, May  1.
    if let Some(after) = date_end(bytes, at).or(syslog) {
        at = after;
        if !matches!(bytes.get(at), Some(b'T' | b' ')) {
            return None;
        }
        at += 1;
    }
    at = time_end(bytes, at)?;
    // Fractions of a second, then a zone: Z, +00:00, +0000.
    if matches!(bytes.get(at), Some(b'.' | b',')) && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at = digits_end(bytes, at + 1);
    }
    if bytes.get(at) == Some(&b'Z') {
        at += 1;
    } else if matches!(bytes.get(at), Some(b'+' | b'-')) && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at = digits_end(bytes, at + 1);
        if bytes.get(at) == Some(&b':') {
            at = digits_end(bytes, at + 1);
        }
    }
    if opened {
        if bytes.get(at) != Some(&b']') {
            return None;
        }
        at += 1;
    }
    // The stamp must end where a word would: `12:00:00abc` is no stamp.
    if !matches!(bytes.get(at), Some(b' ' | b'\t') | None) {
        return None;
    }
    at = separator_end(bytes, at);
    if syslog.is_some() {
        return Some(syslog_source_end(line, at).unwrap_or(at));
    }
    // The logger's level, maybe after its name: `ERROR - `, `root - ERROR - `.
    let level = level_end(line, at).or_else(|| {
        let name = at
            + line[at..]
                .bytes()
                .take_while(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.'))
                .count();
        let after_name = separator_end(bytes, name);
        (name > at && after_name > name)
            .then(|| level_end(line, after_name))
            .flatten()
    });
    Some(level.unwrap_or(at))
}

/// Past a log level at `at` and the separator after it. `ERROR: message`
/// may be the program's own words (pip prints them), and is no level;
/// `ERROR - message`, `[ERROR] message` are a logger's.
fn level_end(line: &str, at: usize) -> Option<usize> {
    let rest = &line[at..];
    let bracketed = rest.strip_prefix('[');
    let words = bracketed.unwrap_or(rest);
    let level = LEVELS.iter().find(|level| {
        words.starts_with(**level) && matches!(words.as_bytes().get(level.len()), Some(b' ' | b'\t' | b']'))
    })?;
    let after = at + usize::from(bracketed.is_some()) + level.len();
    Some(separator_end(line.as_bytes(), after))
}

/// `May  1` or `Dec 31`: the date syslog and journalctl print.
fn syslog_date_end(line: &str, at: usize) -> Option<usize> {
    let rest = line.get(at..)?;
    MONTHS.iter().find(|month| rest.starts_with(**month))?;
    let blanks = rest[3..].len() - rest[3..].trim_start_matches(' ').len();
    if !(1..=2).contains(&blanks) {
        return None;
    }
    let day = at + 3 + blanks;
    let end = digits_end(line.as_bytes(), day);
    (1..=2).contains(&(end - day)).then_some(end)
}

/// Past syslog's host and tag after the time: `node7 python[1234]: `.
fn syslog_source_end(line: &str, at: usize) -> Option<usize> {
    let rest = &line[at..];
    let host = rest.find(' ')?;
    let tag = &rest[host + 1..];
    let colon = tag.find(": ").filter(|&colon| !tag[..colon].contains(' '))?;
    Some(at + host + 1 + colon + 2)
}

fn date_end(bytes: &[u8], at: usize) -> Option<usize> {
    let year = digits_end(bytes, at);
    if year - at != 4 || !matches!(bytes.get(year), Some(b'-' | b'/')) {
        return None;
    }
    let separator = bytes[year];
    let month = digits_end(bytes, year + 1);
    if !(1..=2).contains(&(month - year - 1)) || bytes.get(month) != Some(&separator) {
        return None;
    }
    let day = digits_end(bytes, month + 1);
    (1..=2).contains(&(day - month - 1)).then_some(day)
}

/// `12:00:00` or `9:05:03`.
fn time_end(bytes: &[u8], at: usize) -> Option<usize> {
    let hours = digits_end(bytes, at);
    if !(1..=2).contains(&(hours - at)) || bytes.get(hours) != Some(&b':') {
        return None;
    }
    let minutes = digits_end(bytes, hours + 1);
    if minutes - hours - 1 != 2 || bytes.get(minutes) != Some(&b':') {
        return None;
    }
    let seconds = digits_end(bytes, minutes + 1);
    (seconds - minutes - 1 == 2).then_some(seconds)
}

fn digits_end(bytes: &[u8], at: usize) -> usize {
    at + bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count()
}

/// Past one separator between a prefix's parts (` - `, ` | `, `] `, a
/// blank or a tab), and no further: what follows may be indented.
fn separator_end(bytes: &[u8], at: usize) -> usize {
    const SEPARATORS: [&[u8]; 6] = [b" - ", b" | ", b"] ", b"]", b" ", b"\t"];
    let rest = &bytes[at.min(bytes.len())..];
    at + SEPARATORS
        .iter()
        .find(|separator| rest.starts_with(separator))
        .map_or(0, |separator| separator.len())
}

/// `app-worker-1  | ` or `web_1 | `: a name, blanks, a bar and a blank (or the line's end).
fn service_length(line: &str) -> Option<usize> {
    let name = line
        .bytes()
        .take_while(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
        .count();
    if name == 0 || !line.as_bytes()[..name].iter().any(u8::is_ascii_alphabetic) {
        return None;
    }
    let rest = &line[name..];
    let blanks = rest.len() - rest.trim_start_matches(' ').len();
    let rest = rest[blanks..].strip_prefix('|')?;
    if blanks == 0 {
        return None;
    }
    match rest.chars().next() {
        None => Some(line.len()),
        Some(' ') => Some(line.len() - rest.len() + 1),
        Some(_) => None,
    }
}

/// `[pod/trainer-0/pytorch] `: the pod's and the container's names, which
/// hold no blank, and the blank kubectl puts after them.
fn pod_length(line: &str) -> Option<usize> {
    let (names, _) = line.strip_prefix("[pod/")?.split_once("] ")?;
    (names.split('/').count() == 2 && !names.contains(' ') && !names.starts_with('/') && !names.ends_with('/'))
        .then_some("[pod/".len() + names.len() + "] ".len())
}

/// `lines`, each cut into pieces of `width` characters as a terminal that
/// wide shows them, each piece ended by `line_end`.
#[cfg(test)]
pub(crate) fn cut_at_width(lines: &[&str], width: usize, line_end: &str) -> String {
    let mut out = String::new();
    for line in lines {
        let chars: Vec<char> = line.chars().collect();
        for piece in chars.chunks(width) {
            out.extend(piece);
            out.push_str(line_end);
        }
    }
    out
}

/// The narrowest width a copy is taken to have been cut at: a terminal is
/// seldom narrower than 80 columns, and below 70 a line that long is too
/// common in a log as printed to tell anything.
const MIN_WRAP_WIDTH: usize = 70;

/// The width the sample's long lines (`written`, as the log holds them;
/// `read`, the same lines through [`plain`]) were cut at, when they were: its
/// longest lines are all exactly one length, two or more of them and
/// different, the lines nearly that long are mostly exactly it, and at
/// least one shows the cut ([`shows_a_cut`]). A log as printed has lines of
/// every length, its longest one or a few. Lines are compared as read, so
/// ranks printing the same line are one line. A box, a table
/// or padded columns (Rich's traceback, nvidia-smi, Compose's status) have
/// every line one width too, and end them with a border or blanks: where
/// half the lines of that width end so, it is no wrap (a cut may fall after
/// a `-` or an `=` now and then).
fn hard_wrap_width(written: &[&str], read: &[String]) -> Option<usize> {
    let lengths: Vec<usize> = written.iter().map(|line| line.chars().count()).collect();
    let width = *lengths.iter().max()?;
    if width < MIN_WRAP_WIDTH {
        return None;
    }
    let full: Vec<usize> = (0..written.len()).filter(|&at| lengths[at] == width).collect();
    let near = lengths.iter().filter(|&&length| length + 5 >= width).count();
    const BORDERS: [char; 12] = ['|', '│', '┃', '║', '+', '─', '━', '═', '-', '=', '*', '#'];
    let framed = |line: &str| line.ends_with(BORDERS) || line.trim_start().starts_with(BORDERS) || line.ends_with("  ");
    if full.iter().filter(|&&at| framed(written[at])).count() * 2 >= full.len() {
        return None;
    }
    let mut distinct: Vec<&str> = full.iter().map(|&at| read[at].as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let cut_shown = full
        .iter()
        .any(|&at| shows_a_cut(written[at], written.get(at + 1).copied().unwrap_or_default()));
    (distinct.len() >= 2 && full.len() * 3 >= near * 2 && cut_shown).then_some(width)
}

/// Whether a line and the next show a cut inside a line: a word split
/// between them (the next going on in lower case or digits), a blank left
/// at the end of the first, or the next going on after one blank (a log
/// indents by two or more, or by a tab). A next line that begins as the
/// line does (`2024-01-01 12:00:00 ...` under `2024-01-01 11:59:58 ...`) is
/// a record of its own, printed alike.
fn shows_a_cut(line: &str, next: &str) -> bool {
    if starts_alike(line, next) {
        return false;
    }
    let last = line.chars().last();
    let mut rest = next.chars();
    let first = rest.next();
    // A record of its own begins with a capital ("Epoch 3", "Error in"); a
    // word's rest seldom does.
    let word_split = last.is_some_and(char::is_alphanumeric)
        && first.is_some_and(|first| first.is_lowercase() || first.is_ascii_digit());
    let blank_left = last.is_some_and(char::is_whitespace);
    let one_blank = first == Some(' ') && rest.next().is_some_and(|second| !second.is_whitespace());
    word_split || blank_left || one_blank
}

/// Whether two lines begin with the same shape: their first four
/// characters alike, each digit as any digit and each letter as any letter.
fn starts_alike(line: &str, next: &str) -> bool {
    let shape = |c: char| match c {
        _ if c.is_ascii_digit() => '9',
        _ if c.is_alphabetic() => 'a',
        _ => c,
    };
    let head = |text: &str| text.chars().take(4).map(shape).collect::<String>();
    head(line).chars().count() == 4 && head(line) == head(next)
}

/// `stderr F `, `stdout P `: the stream, then `F` for a full line or `P`
/// for part of one the runtime split (past 16 KiB), then a blank.
fn stream_length(line: &str) -> Option<usize> {
    const STREAM_AND_TAG: usize = "stderr F ".len();
    let rest = line.strip_prefix("stderr ").or_else(|| line.strip_prefix("stdout "))?;
    let tag = rest.as_bytes().first()?;
    (matches!(tag, b'F' | b'P') && matches!(rest.as_bytes().get(1), Some(b' ') | None))
        .then_some(STREAM_AND_TAG.min(line.len()))
}

/// `#12 3.456 `, `#12 `: BuildKit numbers each step's lines, and times the
/// output of its command (`#12 [3/5] RUN ...`, `#12 DONE 0.4s` carry no time).
fn build_step_length(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    if !line.starts_with('#') {
        return None;
    }
    let number = digits_end(bytes, 1);
    if number < 2 || bytes.get(number) != Some(&b' ') {
        return None;
    }
    let seconds = digits_end(bytes, number + 1);
    if seconds > number + 1 && bytes.get(seconds) == Some(&b'.') {
        let fraction = digits_end(bytes, seconds + 1);
        if fraction > seconds + 1 && matches!(bytes.get(fraction), Some(b' ') | None) {
            return Some((fraction + 1).min(line.len()));
        }
    }
    Some(number + 1)
}

/// `line` after a rank's label, if it starts with one, and the blank the
/// launcher adds: the traceback reader routes interleaved ranks by their
/// labels, and every other reader reads a line's own words after them.
pub fn unlabelled(line: &str) -> &str {
    match label_in(line) {
        Some(label) => {
            let rest = &line[label.len()..];
            rest.strip_prefix(' ').unwrap_or(rest)
        }
        None => line,
    }
}

/// `[rank0]:`, `[default3]:`, `[1,0]<stderr>:`: a bracketed name of
/// letters, digits and commas, maybe a stream, then a colon; or `srun -l`'s
/// task number and colon, `0:`.
fn label_in(line: &str) -> Option<&str> {
    let task = line.bytes().take_while(u8::is_ascii_digit).count();
    if task > 0 && line[task..].starts_with(": ") {
        return Some(&line[..task + 1]);
    }
    let inside = line.strip_prefix('[')?;
    let close = inside.find(']')?;
    if close == 0
        || !inside[..close]
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b',' | b'_'))
    {
        return None;
    }
    let mut rest = &inside[close + 1..];
    for stream in ["<stderr>", "<stdout>"] {
        rest = rest.strip_prefix(stream).unwrap_or(rest);
    }
    let rest = rest.strip_prefix(':')?;
    Some(&line[..line.len() - rest.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_markdown_fence_is_told_from_a_line_that_starts_with_backticks() {
        for fence in ["```", "```python", "  ```console", "~~~", "````"] {
            assert!(is_fence(fence), "{fence}");
        }
        for line in [
            "``",
            "```x = 1```",
            "``` two words",
            "`torch` is missing",
            "~~~ note ~~~",
            "",
            "            ~~~~~~^",
            "    ```",
        ] {
            assert!(!is_fence(line), "{line}");
        }
    }

    fn unwrapped(log: &str) -> Vec<String> {
        let presentation = Presentation::of(log.as_bytes(), true);
        log.lines()
            .map(|line| {
                let line = plain(line.to_string());
                line[presentation.unwrap(&line).length..].to_string()
            })
            .collect()
    }

    const LOG: [&str; 5] = [
        "Traceback (most recent call last):",
        "  File \"train.py\", line 3, in <module>",
        "    model.cuda()",
        "RuntimeError: CUDA error: no kernel image is available",
        "Killed",
    ];

    fn wrapped(prefix: impl Fn(usize) -> String) -> String {
        LOG.iter()
            .enumerate()
            .map(|(index, line)| format!("{}{line}\n", prefix(index)))
            .collect()
    }

    #[test]
    fn other_spaces_read_as_blanks_and_bold_comes_off_an_error() {
        assert_eq!(
            plain("\u{a0}\u{a0}File\u{a0}\"train.py\",\u{2009}line\u{202f}3,\u{3000}in\u{200b} <module>".into()),
            "  File \"train.py\", line 3, in <module>"
        );
        assert_eq!(
            plain("**RuntimeError: CUDA error: out of memory**".into()),
            "RuntimeError: CUDA error: out of memory"
        );
        assert_eq!(
            plain("  **torch.cuda.OutOfMemoryError: CUDA out of memory.".into()),
            "  torch.cuda.OutOfMemoryError: CUDA out of memory."
        );
        // A call's keyword arguments, a line of bold prose, an unclosed bold that is no exception: as written.
        for line in [
            "    return self.module(*inputs, **kwargs)",
            "**kwargs: dict",
            "**Note** the error below",
            "**Update: still failing",
        ] {
            assert_eq!(plain(line.into()), line, "{line}");
        }
    }

    #[test]
    fn each_tools_prefix_comes_off_every_line() {
        type Prefix = Box<dyn Fn(usize) -> String>;
        let prefixes: [(&str, Prefix); 15] = [
            ("compose", Box::new(|_| "app-worker-1  | ".into())),
            (
                "CRI log file",
                Box::new(|index| format!("2024-05-01T12:00:0{index}.123456789Z stderr F ")),
            ),
            ("docker build", Box::new(|index| format!("#12 {index}.40{index} "))),
            ("kubectl --prefix", Box::new(|_| "[pod/trainer-0/pytorch] ".into())),
            (
                "iso",
                Box::new(|index| format!("2024-05-01T12:00:0{index}.123456789Z ")),
            ),
            (
                "logging",
                Box::new(|index| format!("2024-05-01 12:00:0{index},123 - ERROR - ")),
            ),
            (
                "bracketed",
                Box::new(|index| format!("[2024-05-01 12:00:0{index}] [INFO] ")),
            ),
            ("time only", Box::new(|index| format!("12:00:0{index} | WARNING | "))),
            ("rank", Box::new(|_| "[rank0]: ".into())),
            ("mpirun", Box::new(|_| "[1,0]<stderr>:".into())),
            ("srun -l", Box::new(|_| "0: ".into())),
            (
                "logger name",
                Box::new(|index| format!("2024-05-01 12:00:0{index},5 - torch.distributed - ERROR - ")),
            ),
            (
                "journalctl",
                Box::new(|index| format!("May  1 12:00:0{index} node7 python[1234]: ")),
            ),
            ("quote", Box::new(|_| "> ".into())),
            ("code block", Box::new(|_| "    ".into())),
        ];
        for (name, prefix) in prefixes {
            assert_eq!(unwrapped(&wrapped(prefix)), LOG, "{name}");
        }
        let layered = wrapped(|index| format!("> web-1  | 2024-05-01T12:00:0{index}Z "));
        assert_eq!(unwrapped(&layered), LOG, "three layers");
    }

    /// Docker's json-file driver escapes each line as a JSON string, `<` and
    /// `>` as Go escapes them; a line that only looks like one is kept.
    #[test]
    fn a_docker_json_log_is_read_as_the_lines_it_holds() {
        let json: String = LOG
            .iter()
            .map(|line| {
                let escaped = serde_json::to_string(&format!("{line}\n"))
                    .unwrap()
                    .replace('<', "\\u003c")
                    .replace('>', "\\u003e");
                format!("{{\"log\":{escaped},\"stream\":\"stderr\",\"time\":\"2024-05-01T12:00:00.1Z\"}}\n")
            })
            .collect();
        assert!(json.contains("\\u003cmodule\\u003e"), "{json}");
        assert_eq!(unwrapped(&json), LOG);
        assert_eq!(unwrapped(&json.replace("\":", "\": ")), LOG, "rewritten with blanks");
        for line in [
            "{\"log\":\"cut",
            "{\"log\":\"x\",",
            "{\"level\":\"error\",\"log\":\"x\"}",
        ] {
            assert_eq!(plain(line.into()), line, "{line}");
        }
    }

    /// BuildKit's numbers need their `#`, and a line of numbers is a line of
    /// numbers; a stream needs its tag.
    #[test]
    fn a_build_step_and_a_stream_are_read_only_whole() {
        assert_eq!(build_step_length("12 3.5 x"), None);
        assert_eq!(build_step_length("#12 [3/5] RUN pip install x"), Some(4));
        assert_eq!(stream_length("stderr Frame"), None);
    }

    fn cut(lines: &[&str], width: usize) -> String {
        cut_at_width(lines, width, "\n")
    }

    fn width_of(log: &str) -> Option<usize> {
        Presentation::of(log.as_bytes(), true).wrap_width()
    }

    /// A cut shows where it split a word, left a blank at a line's end, or
    /// left the next line going on after one blank; lines that only happen
    /// to be one width (a run's records, padded columns, two ranks printing
    /// one line) show no width.
    #[test]
    fn a_width_is_found_only_where_the_lines_show_the_cut() {
        let frame = "  File \"/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/stage3.py\", line 2117, in unscale_and_clip_grads";
        let error = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!";
        let copied = cut(
            &[
                frame,
                "    self.fp32_partitioned_groups_flat[i].grad.mul_(1. / combined_scale)",
                error,
            ],
            90,
        );
        assert_eq!(width_of(&copied), Some(90));
        assert!(shows_a_cut("in unsca", "le_and_clip"));
        assert!(shows_a_cut("cuda:2 ", "and cpu!"));
        assert!(shows_a_cut("line", " 2117, in f"));
        assert!(!shows_a_cut("loss 0.1234", "Epoch 3"));
        assert!(!shows_a_cut("failed.", "  File \"x.py\""));

        let records: String = (0..6)
            .map(|step| {
                format!(
                    "Epoch 1 | step {step:04} | loss 0.{step}234 | lr 1.00e-04 | 0.52 s/it | grad norm 1.{step}00\n"
                )
            })
            .collect();
        assert_eq!(width_of(&records), None, "{records}");
        let stamped: String = (0..6)
            .map(|step| {
                format!("2024-01-01 12:00:0{step},123 - INFO - step 01{step}0 loss 2.3456 lr 0.000100 grad 1.0\n")
            })
            .collect();
        assert_eq!(width_of(&stamped), None, "{stamped}");
        let padded = format!(
            "{:<80}\n{:<80}\n",
            " ✔ Container trainer-1  Created    0.1s", " ✔ Network default  Created  0.0s"
        );
        assert_eq!(width_of(&padded), None);
        let ranks = format!("[rank0]: {error}\n[rank1]: {error}\nshort\n");
        assert_eq!(width_of(&ranks), None);
        assert_eq!(width_of(&cut(&[frame], 60)), None, "narrower than any terminal");
    }

    #[test]
    fn a_log_read_as_it_is_stays_as_it_is() {
        assert!(Presentation::of(wrapped(|_| String::new()).as_bytes(), true).is_bare());
        // Frames alone are indented two by Python itself.
        assert!(Presentation::of(LOG[1..3].join("\n").as_bytes(), true).is_bare());
    }

    /// A time stamp on some lines is what those lines say, and a prefix
    /// that varies (two ranks) is left to the traceback reader's labels.
    #[test]
    fn a_prefix_on_only_some_lines_stays() {
        let mixed = wrapped(|index| {
            if index % 2 == 0 {
                "2024-05-01 12:00:00 INFO ".into()
            } else {
                String::new()
            }
        });
        assert!(Presentation::of(mixed.as_bytes(), true).is_bare());
        let ranks = wrapped(|index| format!("[rank{}]: ", index % 2));
        assert!(Presentation::of(ranks.as_bytes(), true).is_bare());
    }

    #[test]
    fn a_level_that_starts_the_message_is_kept() {
        assert_eq!(
            unwrapped("2024-05-01 12:00:00 ERROR: could not load libcudnn\n"),
            ["ERROR: could not load libcudnn"]
        );
        assert_eq!(
            unwrapped("2024-05-01 12:00:00 ERROR - could not load libcudnn\n"),
            ["could not load libcudnn"]
        );
    }

    #[test]
    fn things_that_look_like_prefixes_are_not() {
        for line in [
            ">>> import torch",
            "12:00:00abc",
            "| a | b |",
            "x=1 | y",
            "[W socket.cpp:601] [c10d] The client socket has failed to connect",
            "2024-05-01T12:00:00Zulu",
        ] {
            assert!(Presentation::of(line.as_bytes(), true).is_bare(), "{line}");
        }
    }

    #[test]
    fn a_prompt_and_its_command_are_told_from_output() {
        for prompt in [
            "$ python train.py --bf16",
            "(venv) user@gpu-node:~/run$ torchrun --nproc_per_node 8 train.py",
            "root@3f2a9c:/workspace# python app.py",
            "PS C:\\Users\\me\\sd> python launch.py",
            "C:\\Users\\me\\sd>python launch.py",
            ">>> import torch",
        ] {
            assert!(is_prompt(prompt), "{prompt}");
        }
        for output in [
            "RuntimeError: CUDA error: out of memory",
            "OSError: [WinError 126] C:\\Python310\\lib\\torch\\lib\\c10.dll > not found",
            "user@example.com: permission denied",
            "C:\\sd\\venv\\lib\\torch\\cuda\\__init__.py:123: UserWarning: x -> y",
            "Traceback (most recent call last):",
            "  File \"C:\\sd\\launch.py\", line 3, in <module>",
        ] {
            assert!(!is_prompt(output), "{output}");
        }
    }

    #[test]
    fn html_entities_curly_quotes_and_colour_codes_are_read_through() {
        assert_eq!(
            plain("No module named &#39;torch&#39; &amp;&amp; x &lt;module&gt; &quot;a&quot;".into()),
            "No module named 'torch' && x <module> \"a\""
        );
        assert_eq!(
            plain("File \u{201c}train.py\u{201d}, don\u{2019}t".into()),
            "File \"train.py\", don't"
        );
        assert_eq!(
            plain("\u{1b}[31mRuntimeError\u{1b}[0m: bad".into()),
            "RuntimeError: bad"
        );
    }

    /// netmamba26: a symbol pasted through Markdown, its underscores shown as
    /// asterisks. Only the symbol's are put back: the rest of the line is
    /// the log's own words.
    #[test]
    fn a_symbol_markdown_took_underscores_from_is_read_with_them() {
        assert_eq!(
            plain(
                "ImportError: /v/x_cuda.so: undefined symbol: *ZNK3c1017SymbolicShapeMeta18init*is_contiguousEv".into()
            ),
            "ImportError: /v/x_cuda.so: undefined symbol: _ZNK3c1017SymbolicShapeMeta18init_is_contiguousEv"
        );
        let elsewhere = "** warning: undefined symbol: _ZN2at6Tensor **";
        assert_eq!(plain(elsewhere.into()), elsewhere);
    }

    #[test]
    fn a_sample_cut_mid_line_does_not_judge_by_its_last_half_line() {
        // Nine quoted lines of ten are the log's wrapping; the cut half line
        // would make them nine of eleven.
        let log = "> a\n".repeat(9) + "a line of its own\nplain start of a long li";
        assert!(Presentation::of(log.as_bytes(), true).is_bare());
        assert!(!Presentation::of(log.as_bytes(), false).is_bare());
    }
}
