//! Small scanners the readers share: versions, names and `name>=version`
//! clauses inside free text, with the quotes and backticks messages wrap them in.

use std::borrow::Cow;

pub use crate::explain::symbol::undefined_symbol;

/// Whether `c` may be part of a Python dotted name (`trl.SFTTrainer`): a
/// letter, a digit, `_` or `.`.
pub fn is_dotted_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Where `word` stands in `line` with no part of a name right before it:
/// `async=` in `cuda(async=True)`, not in `is_async=`; with `dotted`, not
/// after a `.` either (`base.` is no `ase.`).
pub fn word_starts<'l>(line: &'l str, word: &'l str, dotted: bool) -> impl Iterator<Item = usize> + 'l {
    line.match_indices(word).map(|(at, _)| at).filter(move |&at| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || (dotted && c == '.'))
    })
}

/// Characters a distribution name is made of (PEP 508, and the extras' brackets left out).
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

fn is_version_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '*' | '-' | '!')
}

/// The version that starts `text` (`2.1.0+cu121`, `0.20.1`), trailing dots
/// and dashes left off; `None` unless it starts with a digit.
pub fn version_at(text: &str) -> Option<&str> {
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let end = text.find(|c: char| !is_version_char(c)).unwrap_or(text.len());
    Some(text[..end].trim_end_matches(['.', '-']))
}

/// The name that ends `text` (`accelerate` of `requires accelerate`).
pub fn name_before(text: &str) -> Option<&str> {
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| !is_name_char(*c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    let name = text[start..].trim_start_matches(['.', '-', '_']);
    let plausible = name.len() >= 2 && name.starts_with(|c: char| c.is_ascii_alphabetic());
    plausible.then_some(name)
}

/// The name that starts `text`, after quotes and backticks.
pub fn name_after(text: &str) -> Option<&str> {
    let text = text.trim_start_matches(|c: char| c == '`' || c == '\'' || c == '"' || c.is_whitespace());
    let end = text.find(|c: char| !is_name_char(c)).unwrap_or(text.len());
    let name = text[..end].trim_end_matches(['.', '-', '_']);
    let plausible = name.len() >= 2 && name.starts_with(|c: char| c.is_ascii_alphabetic());
    plausible.then_some(name)
}

/// Words of the sentence around a bound, which stand where a name would:
/// `Required version is >=0.15`, `must be >= 2.0`, `newer than >= 1.4`, pip's
/// `3.10.13 not in >=3.11`. A clause after one of them states a bound on a
/// name the sentence gave earlier, or on none; reading the word as the
/// package would name `is` (or `in`: blinklinmult17). Such a clause has an
/// empty name. The English words that cannot name a distribution in a
/// sentence are all here, not the ones some log happened to use: verbs of
/// being and having, prepositions, articles, pronouns, conjunctions and
/// modal verbs.
const PROSE_WORDS: [&str; 64] = [
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "got", "do", "does", "did", "than",
    "of", "to", "at", "in", "on", "for", "from", "by", "into", "onto", "via", "per", "within", "over", "under",
    "least", "or", "and", "nor", "but", "not", "if", "so", "then", "as", "with", "a", "an", "it", "we", "you", "i",
    "they", "that", "which", "who", "when", "where", "while", "since", "can", "could", "should", "would", "will",
    "may", "might", "must",
];

/// Words that stand before "version" in a sentence without naming what it
/// is the version of: `requires version >= 0.4.14`, `minimum version >= 2`.
pub fn names_no_version_owner(word: &str) -> bool {
    const WORDS: [&str; 22] = [
        "requires",
        "require",
        "required",
        "requiring",
        "needs",
        "need",
        "needed",
        "minimum",
        "min",
        "maximum",
        "max",
        "supported",
        "expected",
        "installed",
        "current",
        "your",
        "this",
        "the",
        "any",
        "compatible",
        "recommended",
        "its",
    ];
    WORDS.iter().any(|known| known.eq_ignore_ascii_case(word))
}

pub fn is_prose_word(name: &str) -> bool {
    PROSE_WORDS.iter().any(|word| word.eq_ignore_ascii_case(name))
}

/// Python's words for a module used before it finished importing: a local
/// file shadowing the package, or a circular import, not a release that
/// lacks the name.
pub fn circular_import(text: &str) -> bool {
    text.contains("partially initialized module") || text.contains("circular import")
}

/// A comparison in a requirement: `>=`, `<=`, `==`, `~=`, `!=`, `>`, `<`.
pub const OPERATORS: [&str; 7] = [">=", "<=", "==", "~=", "!=", ">", "<"];

/// One `name OP version` clause, with the specifiers that follow it
/// (`mmcv>=1.3.7, <=1.4.0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause<'t> {
    pub name: &'t str,
    /// Every specifier, `>=1.3.7` and `<=1.4.0`, in order.
    pub specifiers: Vec<String>,
    /// Byte range of the clause in the text.
    pub start: usize,
    pub end: usize,
}

impl Clause<'_> {
    pub fn specifier(&self) -> String {
        self.specifiers.join(",")
    }

    /// An exact pin alone (`torch==2.1.0`): often what was found, not what is required.
    pub fn is_exact(&self) -> bool {
        self.specifiers.len() == 1 && self.specifiers[0].starts_with("==")
    }
}

/// The operator at `text`'s start, if one is.
fn operator_at(text: &str) -> Option<&'static str> {
    OPERATORS.into_iter().find(|op| text.starts_with(op))
}

/// Every `name OP version` clause in `text`.
pub fn clauses(text: &str) -> Vec<Clause<'_>> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find(['>', '<', '=', '~', '!']) {
        let position = at + offset;
        let Some(op) = operator_at(&text[position..]) else {
            at = position + 1;
            continue;
        };
        let before = text[..position].trim_end_matches(' ');
        let after = text[position + op.len()..].trim_start_matches(' ');
        let (Some(name), Some(version)) = (name_before(before), version_at(after)) else {
            at = position + op.len();
            continue;
        };
        // `TensorFlow version >= 2.4`: the bound is on the name before the word.
        let (name, name_end) = match name.eq_ignore_ascii_case("version") {
            true => {
                let rest = before[..before.len() - name.len()].trim_end_matches(' ');
                match name_before(rest).filter(|owner| !is_prose_word(owner) && !names_no_version_owner(owner)) {
                    Some(owner) => (owner, rest.len()),
                    None => (name, before.len()),
                }
            }
            false => (name, before.len()),
        };
        // A bound after a word of the sentence is kept, nameless: it is the
        // requirement, on a name the sentence gave elsewhere.
        // So is one after a verb (`this model requires >= 4.37`, `needs >=1.4.0`).
        let name = if is_prose_word(name) || names_no_version_owner(name) {
            ""
        } else {
            name
        };
        let mut specifiers = vec![format!("{op}{version}")];
        let mut end = text.len() - after.len() + version.len();
        // `, <=1.4.0` continues the same requirement.
        loop {
            let rest = text[end..].trim_start_matches([',', ' ']);
            let Some(op) = operator_at(rest) else { break };
            let Some(version) = version_at(rest[op.len()..].trim_start_matches(' ')) else {
                break;
            };
            specifiers.push(format!("{op}{version}"));
            let rest_after = rest[op.len()..].trim_start_matches(' ');
            end = text.len() - rest_after.len() + version.len();
        }
        found.push(Clause {
            name,
            specifiers,
            start: name_end - name.len(),
            end,
        });
        at = end.max(position + op.len());
    }
    found
}

/// Runs of spaces and tabs as one space, and versions printed as Python
/// tuples or lists (`[1, 3, 7]`, `(8, 9, 2)`) as dotted versions.
pub fn squeeze_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let blank = c == ' ' || c == '\t';
        if !(blank && out.ends_with(' ')) {
            out.push(if blank { ' ' } else { c });
        }
    }
    dotted_tuples(&out)
}

/// `[1, 3, 7]` and `(8, 9, 2)` as `1.3.7` and `8.9.2`; other brackets stay.
fn dotted_tuples(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(['[', '(']) {
        out.push_str(&rest[..open]);
        let close = if rest[open..].starts_with('[') { ']' } else { ')' };
        let inner_end = rest[open + 1..].find(close).map(|at| open + 1 + at);
        let parts: Option<Vec<&str>> = inner_end.map(|end| rest[open + 1..end].split(',').map(str::trim).collect());
        match (inner_end, parts) {
            (Some(end), Some(parts))
                if parts.len() >= 2
                    && parts.len() <= 4
                    && parts
                        .iter()
                        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit())) =>
            {
                out.push_str(&parts.join("."));
                rest = &rest[end + 1..];
            }
            _ => {
                out.push_str(&rest[open..open + 1]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The module Python could not find: `No module named 'mmcv._ext'`, or, where
/// no quoted one is, Python 2's `No module named metric_learn`. Python 2
/// names only the part of a dotted import it did not find (`No module named
/// internal` for google.protobuf.internal), so an unquoted dotted name, which
/// may be that part's rest, is not read.
pub fn module_not_found(text: &str) -> Option<&str> {
    // Python quotes it with `'`; a forum that curled the quotes (`“legged_gym”`)
    // leaves double ones once they are straightened (see `presentation::plain`).
    for quote in ['\'', '"'] {
        if let Some(rest) = after_marker(text, &format!("No module named {quote}")) {
            let name = rest.split_once(quote)?.0;
            // What an import named may be no identifier (`ComfyUI-Foo.nodes`,
            // by importlib); a sentence in quotes is none.
            return (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name);
        }
    }
    let rest = after_marker(text, "No module named ")?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    let name = rest[..end].trim_end_matches('.');
    (!name.is_empty() && !name.contains('.')).then_some(name)
}

/// The name and the module of `cannot import name '_C' from 'groundingdino'`.
pub fn name_not_importable(text: &str) -> Option<(&str, &str)> {
    let rest = after_marker(text, "cannot import name '")?;
    let (name, after) = rest.split_once('\'')?;
    let from = after_marker(after, "from '")?;
    let module = match from.split_once('\'') {
        Some((module, _)) => module,
        // A paste cut before the closing quote (gensim3525): the rest of the
        // line, where it is a dotted name. A name without a dot may be cut
        // inside the package's own name (`from 'sci`), and is not read.
        None => Some(from.lines().next().unwrap_or_default().trim_end()).filter(|module| {
            module.contains('.') && module.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
        })?,
    };
    Some((name, module))
}

/// Whether an import statement as printed (`from ._util import py3`) is
/// relative: its module is the importer's own package's.
pub fn is_relative_import(statement: &str) -> bool {
    statement.trim_start().starts_with("from .")
}

/// The message as Python 3.7 and later print it: an older Python's
/// `cannot import name 'N'` leaves the module out, and the `from M import N`
/// statement printed above it (`statement`) names it; where none was printed,
/// the name history's one distribution that lists the name does. A printed
/// statement that names no package (`from . import detectors`) leaves the
/// message as printed: the history's guess is for a name nothing else
/// placed, and a bare name (`detectors`) may be any package's.
pub fn import_message_completed<'m>(message: &'m str, statement: Option<&str>) -> Cow<'m, str> {
    let completed = (|| {
        let (start, rest) = message.split_once("cannot import name '")?;
        let (name, after) = rest.split_once('\'')?;
        if after.lines().next().unwrap_or_default().contains(" from '") {
            return None;
        }
        // With no statement printed, the one distribution whose history
        // lists the name says where it was imported from.
        let module = match statement {
            Some(statement) => module_importing(statement, name)?,
            None => crate::knowledge::name_history::only_module_listing(name)?,
        };
        Some(format!("{start}cannot import name '{name}' from '{module}'{after}"))
    })();
    completed.map_or(Cow::Borrowed(message), Cow::Owned)
}

/// The module `statement` (`from M import a, b as c`) imports `name` from,
/// where it lists the name and is not relative (a relative module names no
/// package).
pub fn module_importing<'s>(statement: &'s str, name: &str) -> Option<&'s str> {
    if is_relative_import(statement) {
        return None;
    }
    let (module, imported) = statement.trim_start().strip_prefix("from ")?.split_once(" import ")?;
    imported
        .split(',')
        .map(|item| item.trim_matches(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '\\')))
        .any(|item| item.split(" as ").next() == Some(name))
        .then_some(module.trim())
}

/// Where an import's message found a module, against the package it is named after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundIn<'t> {
    /// That package's own install.
    Itself,
    /// Another installed package, which lends the module under the name:
    /// TensorFlow 2.16 and later serve `tensorflow.keras` from keras
    /// (`site-packages/keras/_tf_keras/keras/layers/__init__.py`), so a name
    /// missing there is the release of keras installed.
    OtherInstall(&'t str),
    /// Outside every install, or in the interpreter's own library
    /// (`from 'x' (/home/me/proj/x/__init__.py)`): a folder or file of that
    /// name shadowing the package, not one of its releases.
    Outside,
}

/// Where the message found `module`, named after `package`; `None` where it
/// gives no path.
pub fn import_found_in<'t>(text: &'t str, module: &str, package: &str) -> Option<FoundIn<'t>> {
    Some(match crate::explain::frame_package(import_found_at(text, module)?) {
        Some(found) if found == package => FoundIn::Itself,
        Some(found) if found != crate::explain::STDLIB => FoundIn::OtherInstall(found),
        _ => FoundIn::Outside,
    })
}

/// Where the module an import names was found, as Python's message gives it
/// after the module: `from 'x.y' (/v/lib/python3.10/site-packages/x/y.py)`;
/// a paste may have lost the space before the parenthesis (shimmy106).
pub fn import_found_at<'t>(text: &'t str, module: &str) -> Option<&'t str> {
    let rest = after_marker(text, &format!("'{module}'"))?.trim_start_matches([' ', '\t']);
    // A module's own repr, as unpickling prints it: `<module 'x' from '/p/x.py'>`.
    if let Some(quoted) = rest.strip_prefix("from '") {
        return Some(quoted.split_once('\'')?.0);
    }
    let (path, _) = rest.strip_prefix('(')?.split_once(')')?;
    Some(path)
}

/// The text after the first occurrence of `marker`, ASCII case ignored.
pub fn after_marker<'t>(text: &'t str, marker: &str) -> Option<&'t str> {
    let at = crate::ascii_case::find(text, marker)?;
    Some(&text[at + marker.len()..])
}

/// The first `major.minor` after `marker` (`(12.2)` of `CUDA version (12.2)`).
pub fn version_after<'t>(text: &'t str, marker: &str) -> Option<&'t str> {
    let rest = after_marker(text, marker)?;
    let start = rest.find(|c: char| c.is_ascii_digit())?;
    // Only close by: a version in the next sentence is another fact.
    if start > 24 {
        return None;
    }
    version_at(&rest[start..])
}

/// The whole line the first `marker` (ASCII case ignored) is on; `text` where
/// it is nowhere.
pub fn line_of<'t>(text: &'t str, marker: &str) -> &'t str {
    let Some(at) = crate::ascii_case::find(text, marker) else {
        return text;
    };
    let start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let end = text[at..].find('\n').map_or(text.len(), |newline| at + newline);
    &text[start..end]
}

/// The line `at` falls on, up to `at`: what a message printed before it there.
pub fn line_before(text: &str, at: usize) -> &str {
    &text[text[..at].rfind('\n').map_or(0, |newline| newline + 1)..at]
}

/// A path's last part, whichever system's separators it uses: a log from
/// Windows names `C:\\...\\subprocess.py`, one from Linux `/usr/lib/...`.
pub fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// A dunder (`__version__`): every module has its own, whatever its release.
pub fn is_dunder(name: &str) -> bool {
    name.starts_with("__") && name.ends_with("__")
}

/// A Python identifier of ASCII letters, digits and underscores: a module's
/// part, a function's name.
pub fn is_identifier(part: &str) -> bool {
    !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's quotes, a forum's straightened double ones, and Python 2's
    /// bare name; what no quote closes, or a sentence in double quotes, is none.
    #[test]
    fn the_module_not_found_is_read_in_the_quotes_a_paste_left() {
        assert_eq!(module_not_found("No module named 'mmcv._ext'"), Some("mmcv._ext"));
        assert_eq!(module_not_found("No module named \"legged_gym\""), Some("legged_gym"));
        assert_eq!(module_not_found("No module named metric_learn"), Some("metric_learn"));
        assert_eq!(module_not_found("No module named \"legged_gym"), None);
        assert_eq!(module_not_found("No module named \"see the docs\""), None);
        assert_eq!(module_not_found("No module named 'see the docs'"), None);
        assert_eq!(module_not_found("No module named ''"), None);
    }

    #[test]
    fn an_old_pythons_import_message_is_completed_from_its_statement() {
        let message = "cannot import name 'ModelOutput'";
        let completed = import_message_completed(
            message,
            Some("from smplx.body_models import (Struct, ModelOutput as Out)"),
        );
        assert_eq!(completed, "cannot import name 'ModelOutput' from 'smplx.body_models'");
        assert_eq!(
            name_not_importable(&completed),
            Some(("ModelOutput", "smplx.body_models"))
        );
        // A statement that does not import the name, no statement, or a message with its module: as printed.
        for (message, statement) in [
            (message, Some("from smplx import Other")),
            (message, None),
            ("cannot import name 'A' from 'b' (/v/b.py)", Some("from c import A")),
            // A relative module names no package (`from .loader`).
            ("cannot import name 'LTRLoader'", Some("from .loader import LTRLoader")),
            // plexiglass4 (Python 3.6): the history lists mmpose.models.detectors,
            // but the statement printed says the package's own module was meant.
            ("cannot import name 'detectors'", Some("from . import detectors")),
        ] {
            assert_eq!(import_message_completed(message, statement), message);
        }
    }

    /// bert-of-theseus7: with no statement printed, the one distribution
    /// whose name history lists the name gives its module (the shortest);
    /// a name two distributions list (ModelOutput: ray's, transformers'),
    /// or none does, is left as printed.
    #[test]
    fn an_old_pythons_import_message_is_completed_from_the_name_history() {
        assert_eq!(
            import_message_completed("cannot import name 'BERT_PRETRAINED_MODEL_ARCHIVE_MAP'", None),
            "cannot import name 'BERT_PRETRAINED_MODEL_ARCHIVE_MAP' from 'transformers'"
        );
        for message in [
            "cannot import name 'ModelOutput'",
            "cannot import name 'a_name_no_package_has'",
        ] {
            assert_eq!(import_message_completed(message, None), message);
        }
    }

    #[test]
    fn clauses_are_found_with_their_continued_specifiers() {
        let found = clauses("Please install mmcv>=1.3.7, <=1.4.0. MMCV==1.3.5 is used but incompatible.");
        assert_eq!(found.len(), 2);
        assert_eq!(
            (found[0].name, found[0].specifier().as_str()),
            ("mmcv", ">=1.3.7,<=1.4.0")
        );
        assert_eq!((found[1].name, found[1].specifier().as_str()), ("MMCV", "==1.3.5"));
        assert!(found[1].is_exact());
    }

    #[test]
    fn a_name_not_importable_is_read_with_its_module_quoted_or_cut_before_the_quote() {
        let quoted = "ImportError: cannot import name 'triu' from 'scipy.linalg' (/v/x.py)";
        assert_eq!(name_not_importable(quoted), Some(("triu", "scipy.linalg")));
        let cut = "ImportError: cannot import name 'triu' from 'scipy.linalg\nnext line";
        assert_eq!(name_not_importable(cut), Some(("triu", "scipy.linalg")));
        assert_eq!(name_not_importable("cannot import name 'x' from 'a b c"), None);
        assert_eq!(name_not_importable("cannot import name 'triu' from 'sci"), None);
    }

    #[test]
    fn where_an_import_found_its_module_is_read_with_or_without_a_space() {
        let spaced = "ImportError: cannot import name 'triu' from 'scipy.linalg' (/v/x.py)";
        assert_eq!(import_found_at(spaced, "scipy.linalg"), Some("/v/x.py"));
        let joined = "ImportError: cannot import name 'ObsDict' from 'pettingzoo.utils.env'(/h/.local/lib/python3.11/site-packages/pettingzoo/utils/env.py)`";
        assert_eq!(
            import_found_at(joined, "pettingzoo.utils.env"),
            Some("/h/.local/lib/python3.11/site-packages/pettingzoo/utils/env.py")
        );
        assert_eq!(import_found_at("cannot import name 'a' from 'b'\n(later)", "b"), None);
        assert_eq!(import_found_at("cannot import name 'a' from 'b' (unclosed", "b"), None);
    }

    #[test]
    fn quoted_and_spaced_clauses_are_read() {
        let found = clauses("run `pip install 'accelerate >= 0.26.0'` first");
        assert_eq!(
            (found[0].name, found[0].specifier().as_str()),
            ("accelerate", ">=0.26.0")
        );
        assert!(clauses("x => y, a < b, 3 >= 2").is_empty());
        // pycaret2377: the verb before the bound is no package, and the
        // bound stays the sentence's first.
        let nameless = clauses("cuML is outdated or not found. Required version is >=0.15, got cuml==0.14.0");
        assert_eq!((nameless[0].name, nameless[0].specifier().as_str()), ("", ">=0.15"));
        assert_eq!(nameless[1].name, "cuml");
        assert_eq!(clauses("torch must be >= 2.0")[0].name, "");
    }

    #[test]
    fn tuples_and_lists_of_numbers_read_as_versions() {
        assert_eq!(
            squeeze_spaces("mmcv>=[1, 3, 7],  <=[1, 4, 0] (see f(x))"),
            "mmcv>=1.3.7, <=1.4.0 (see f(x))"
        );
        assert_eq!(squeeze_spaces("against (8, 9, 2) but"), "against 8.9.2 but");
    }

    #[test]
    fn versions_and_names_stop_where_they_end() {
        assert_eq!(version_at("2.1.0+cu121)"), Some("2.1.0+cu121"));
        assert_eq!(version_at("11.7."), Some("11.7"));
        assert_eq!(version_at("v1"), None);
        assert_eq!(name_after(" `flash_attn`."), Some("flash_attn"));
        assert_eq!(
            version_after("The detected CUDA version (12.2) mismatches", "CUDA version"),
            Some("12.2")
        );
    }
}
