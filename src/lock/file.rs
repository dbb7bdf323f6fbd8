//! `envdoctor.lock` on disk: TOML written through `toml_edit`, read back with
//! every problem named by file, line and column.
//!
//! A lock is machine-written and its fingerprint covers its content, so a
//! file whose content no longer matches (cut short by a full disk, edited by
//! hand) is refused: a truncated lock that still parses would otherwise lose
//! packages silently.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item};

use super::model::{FORMAT_VERSION, Lock};
use crate::hint::HasHint;
use crate::located::Located;

const HEADER: &str = "\
# envdoctor.lock: this node's environment, GPU side included, written by `envdoctor lock`.
# Check a node against it with `envdoctor verify`; reinstall its packages with
# `envdoctor export --format requirements --hashes`. Do not edit: the fingerprint covers it.
";

/// The lock as TOML. Top-level records become tables and lists of records
/// arrays of tables; inside a package, `source` stays one inline table so each
/// package reads as one block.
pub fn render(lock: &Lock) -> String {
    let mut document = toml_edit::ser::to_document(lock).expect("a Lock always serializes to TOML");
    for (_, item) in document.as_table_mut().iter_mut() {
        promote(item, true);
    }
    format!("{HEADER}{document}")
}

fn promote(item: &mut Item, recurse: bool) {
    let taken = std::mem::take(item);
    let taken = taken.into_table().map(Item::Table).unwrap_or_else(|item| item);
    *item = taken
        .into_array_of_tables()
        .map(Item::ArrayOfTables)
        .unwrap_or_else(|item| item);
    if let Item::Table(table) = item {
        table.set_implicit(true);
        if recurse {
            for (_, child) in table.iter_mut() {
                promote(child, false);
            }
        }
    }
}

/// Why a lock cannot be used; each renders as one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("there is no lock `{path}`")]
    Missing { path: PathBuf },
    #[error("cannot read lock `{path}`")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Malformed(Located),
    #[error("{path}: {problem}")]
    Refused { path: PathBuf, problem: Refusal },
}

/// Why a lock that is TOML is still not one to use.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("{0}")]
    NotALock(String),
    /// Over [`LOCK_LIMIT`](crate::bounded_read::LOCK_LIMIT): refused before it
    /// is parsed, which would cost tens of times its size (issue 32, E7).
    #[error(
        "larger than {} MiB, the most envdoctor reads of a lock (a real lock of 200 packages is under 50 KB): not read",
        crate::bounded_read::LOCK_LIMIT >> 20
    )]
    TooLarge,
    #[error(
        "written by a newer envdoctor (format-version \"{found}\"); this envdoctor {version} reads {major}.x",
        version = env!("CARGO_PKG_VERSION")
    )]
    Newer { found: String, major: u64 },
    #[error(
        "its content does not match its fingerprint (it says {said}, the content is {content}): it was cut short or edited"
    )]
    Fingerprint { said: String, content: String },
}

impl HasHint for ReadError {
    fn hint(&self) -> Option<String> {
        const WRITE_AGAIN: &str = "write it again with `envdoctor lock` on the node it describes";
        let hint = match self {
            ReadError::Missing { .. } => {
                "write one with `envdoctor lock` on the node to match, or name it with --lock FILE"
            }
            ReadError::Malformed(_) => WRITE_AGAIN,
            ReadError::Refused { problem, .. } => match problem {
                Refusal::Newer { .. } => crate::hint::upgrade(),
                Refusal::Fingerprint { .. } => WRITE_AGAIN,
                Refusal::NotALock(_) | Refusal::TooLarge => return None,
            },
            ReadError::Unreadable { .. } => return None,
        };
        Some(hint.to_string())
    }
}

pub fn read(path: &Path) -> Result<Lock, ReadError> {
    use crate::bounded_read::{LOCK_LIMIT, open_regular, read_opened};
    let bytes = open_regular(path)
        .and_then(|file| read_opened(file, LOCK_LIMIT))
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => ReadError::Missing {
                path: path.to_path_buf(),
            },
            _ => ReadError::Unreadable {
                path: path.to_path_buf(),
                source,
            },
        })?
        .ok_or_else(|| ReadError::Refused {
            path: path.to_path_buf(),
            problem: Refusal::TooLarge,
        })?;
    parse(&bytes, path)
}

pub fn parse(bytes: &[u8], path: &Path) -> Result<Lock, ReadError> {
    let refused = |problem: Refusal| ReadError::Refused {
        path: path.to_path_buf(),
        problem,
    };
    if bytes.len() as u64 > crate::bounded_read::LOCK_LIMIT {
        return Err(refused(Refusal::TooLarge));
    }
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let valid = std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default();
        ReadError::Malformed(Located::at_offset(path, valid, valid.len(), "not UTF-8 text"))
    })?;
    let malformed = |span: Option<std::ops::Range<usize>>, message: &str| {
        ReadError::Malformed(Located::at_offset(
            path,
            text,
            span.map_or(0, |span| span.start),
            first_line(message),
        ))
    };
    let document: DocumentMut = text
        .parse()
        .map_err(|error: toml_edit::TomlError| malformed(error.span(), &format!("not TOML: {}", error.message())))?;
    check_format_version(&document).map_err(refused)?;
    // Gone before the second parse: the two documents are never held at once.
    drop(document);
    // From the text, not the document: only then do errors keep their spans.
    let lock: Lock = toml_edit::de::from_str(text)
        .map_err(|error| malformed(error.span(), &format!("not a valid lock: {}", error.message())))?;
    let content = lock.content_fingerprint();
    // A lock before format 1.1 counted each package's installer and REQUESTED
    // marker in its fingerprint: checked as written, then compared by identity.
    let legacy = lock
        .packages
        .iter()
        .any(|package| package.installer.is_some() || package.requested.is_some());
    if lock.fingerprint != content && !(legacy && lock.fingerprint == lock.legacy_fingerprint()) {
        return Err(refused(Refusal::Fingerprint {
            said: lock.fingerprint,
            content,
        }));
    }
    Ok(lock.identity())
}

fn check_format_version(document: &DocumentMut) -> Result<(), Refusal> {
    let Some(item) = document.get("format-version") else {
        return Err(Refusal::NotALock(
            "not an envdoctor lock: it has no `format-version`".to_string(),
        ));
    };
    let Some(found) = item.as_str() else {
        return Err(Refusal::NotALock(format!(
            "not an envdoctor lock: `format-version` is {}, not a string",
            item.to_string().trim()
        )));
    };
    let parse = |text: &str| semver::Version::parse(&format!("{text}.0")).ok();
    let supported = parse(FORMAT_VERSION).expect("FORMAT_VERSION is MAJOR.MINOR");
    match parse(found) {
        Some(version) if version.major == supported.major => Ok(()),
        Some(version) if version.major > supported.major => Err(Refusal::Newer {
            found: found.to_string(),
            major: supported.major,
        }),
        _ => Err(Refusal::NotALock(format!(
            "unsupported format-version \"{found}\"; this envdoctor reads {}.x",
            supported.major
        ))),
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::model::sample_lock as sample;

    #[test]
    fn a_rendered_lock_reads_back_equal_and_renders_the_same_bytes() {
        let lock = sample();
        let text = render(&lock);
        let read = parse(text.as_bytes(), Path::new("x.lock")).unwrap();
        assert_eq!(read, lock);
        assert_eq!(render(&read), text);
        assert!(text.contains("[[packages]]"), "{text}");
        assert!(text.contains("source = { kind = \"index\" }"), "{text}");
        assert!(text.contains("[frameworks.torch]"), "{text}");
        let first_key = text.lines().find(|line| !line.starts_with('#')).unwrap();
        assert!(first_key.starts_with("format-version"), "{first_key}");
    }

    #[test]
    fn the_fingerprint_ignores_who_wrote_it_but_not_what() {
        let lock = sample();
        let mut other_writer = lock.clone();
        other_writer.created_by = "envdoctor 9.9.9".to_string();
        assert_eq!(other_writer.content_fingerprint(), lock.fingerprint);
        let mut other_content = lock.clone();
        other_content.packages[0].version = Some("2.11.0+cu128".to_string());
        assert_ne!(other_content.content_fingerprint(), lock.fingerprint);
    }

    fn problem(text: &str) -> String {
        parse(text.as_bytes(), Path::new("x.lock")).unwrap_err().to_string()
    }

    #[test]
    fn a_newer_format_is_refused_by_name() {
        let text = render(&sample()).replace("format-version = \"1.1\"", "format-version = \"2.0\"");
        let message = problem(&text);
        assert!(message.starts_with("x.lock: written by a newer envdoctor"), "{message}");
    }

    #[test]
    fn how_a_package_was_asked_for_is_not_part_of_the_identity() {
        let lock = sample();
        let mut asked_by_name = lock.clone();
        asked_by_name.packages[0].requested = Some(true);
        asked_by_name.packages[0].installer = Some("uv".to_string());
        assert_eq!(asked_by_name.content_fingerprint(), lock.fingerprint);
        assert_eq!(asked_by_name.identity(), lock);
    }

    /// A lock written before format 1.1 recorded installer and REQUESTED in
    /// its fingerprint: it still reads, and is then compared by identity.
    #[test]
    fn a_lock_before_format_1_1_reads_by_its_own_fingerprint_and_compares_by_identity() {
        let mut old = sample();
        old.format_version = "1.0".to_string();
        old.packages[0].installer = Some("pip".to_string());
        old.packages[0].requested = Some(true);
        old.fingerprint = old.legacy_fingerprint();
        let read = parse(render(&old).as_bytes(), Path::new("old.lock")).unwrap();
        assert_eq!(read.packages[0].installer, None);
        assert_eq!(read.packages[0].requested, None);
        let mut new = sample();
        new.format_version = "1.0".to_string();
        assert_eq!(read.fingerprint, new.identity().fingerprint);
        // Its markers edited: its own fingerprint no longer holds.
        let edited = render(&old).replace("requested = true", "requested = false");
        assert!(problem(&edited).contains("does not match its fingerprint"), "{edited}");
    }

    #[test]
    fn an_edited_or_cut_lock_fails_its_fingerprint() {
        let text = render(&sample()).replace("2.11.0+cu130", "2.11.0+cu128");
        assert!(problem(&text).contains("does not match its fingerprint"));
    }

    #[test]
    fn bad_toml_and_bad_types_name_line_and_column() {
        let message = problem("format-version = \"1.0\"\nfingerprint = \"x\nsystem = 1\n");
        assert!(message.starts_with("x.lock:2:"), "{message}");
        let text = render(&sample()).replace("count = 8", "count = \"eight\"");
        let message = problem(&text);
        let line = text
            .lines()
            .position(|line| line.contains("count = \"eight\""))
            .unwrap()
            + 1;
        assert!(message.starts_with(&format!("x.lock:{line}:")), "{message}");
        assert!(problem("name = 1\n").contains("no `format-version`"));
        assert!(problem("").contains("no `format-version`"));
    }
}
