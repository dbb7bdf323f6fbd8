//! A distribution's `RECORD` (PEP 376/627, packaging.python.org "Recording
//! installed projects"): every file it installed, with its hash and size, read
//! strictly, and the digest of what the wheel installed that is the same on
//! every node that installed that wheel (the lock pins it, so a local rebuild
//! that kept the version string still shows). Re-hashing the installed files
//! against it is `compare::installed_files`.
//!
//! Why not the `csv` crate: it is lenient by design, and 1.4.0 reads `a,"b`
//! (a quote never closed) as `["a", "b\n"]` and `"a"x,b` as `["ax", "b"]`
//! without an error; a RECORD read leniently could name, and verify, the wrong
//! file, so this reader refuses both with their line.

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Read};
use std::iter::Peekable;
use std::path::{Path, PathBuf};
use std::str::Chars;

use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

use crate::bounded_read::{OpenFailure, open_regular_file};
use crate::located::Located;
/// The hash algorithms a RECORD may name that `sha2` provides. The wheel spec
/// asks for sha256 or stronger; installers write sha256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashAlgorithm {
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl HashAlgorithm {
    /// By its `hashlib` name, which is what a RECORD writes.
    fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "sha224" => Some(Self::Sha224),
            "sha256" => Some(Self::Sha256),
            "sha384" => Some(Self::Sha384),
            "sha512" => Some(Self::Sha512),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Sha224 => "sha224",
            Self::Sha256 => "sha256",
            Self::Sha384 => "sha384",
            Self::Sha512 => "sha512",
        }
    }

    fn digest_bytes(self) -> usize {
        match self {
            Self::Sha224 => 28,
            Self::Sha256 => 32,
            Self::Sha384 => 48,
            Self::Sha512 => 64,
        }
    }

    /// The digest of everything `reader` yields, read `buffer` at a time so a
    /// gigabyte of CUDA kernels never sits in memory.
    pub(crate) fn hash(self, reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<String> {
        match self {
            Self::Sha224 => stream::<Sha224>(reader, buffer),
            Self::Sha256 => stream::<Sha256>(reader, buffer),
            Self::Sha384 => stream::<Sha384>(reader, buffer),
            Self::Sha512 => stream::<Sha512>(reader, buffer),
        }
    }
}

fn stream<D: Digest>(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<String> {
    let mut hasher = D::new();
    loop {
        match reader.read(buffer) {
            Ok(0) => return Ok(urlsafe_base64(&hasher.finalize())),
            Ok(read) => hasher.update(&buffer[..read]),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}

/// A RECORD hash field, `sha256=<urlsafe base64 without padding>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHash {
    pub algorithm: HashAlgorithm,
    /// Urlsafe base64 without `=` padding, as RECORD writes it.
    pub digest: String,
}

impl fmt::Display for FileHash {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}={}", self.algorithm.name(), self.digest)
    }
}

/// One row of a RECORD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordEntry {
    /// As written: `/`-separated, relative to the sys.path entry that holds the
    /// dist-info (`../../../bin/tool` for a console script), rarely absolute.
    pub path: String,
    /// None for files whose content the install decides: RECORD itself, `.pyc`.
    pub hash: Option<FileHash>,
    pub size: Option<u64>,
    /// The line of the RECORD the row starts on.
    pub line: usize,
}

/// Why a RECORD cannot be used; each renders as one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{metadata_path}: no RECORD, so there is nothing to check its installed files against")]
    NoRecord { metadata_path: PathBuf },
    #[error("cannot read `{path}`")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("`{path}` is {kind}, not a regular file, so it was not read")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("`{path}` is larger than {limit} bytes, more than any installer writes, so it was not read")]
    TooLarge { path: PathBuf, limit: u64 },
    #[error(transparent)]
    Malformed(Located),
}

/// What is wrong with one row of a RECORD.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordProblem {
    #[error("not UTF-8")]
    NotUtf8,
    #[error("a quoted field is never closed")]
    UnterminatedQuote,
    #[error("`{0}` after a closing quote; expected `,` or the end of the line")]
    TextAfterQuote(char),
    #[error("{0} fields; expected path,hash,size")]
    FieldCount(usize),
    #[error("the path is empty")]
    EmptyPath,
    #[error("bad hash field `{0}`; expected ALGORITHM=DIGEST in urlsafe base64")]
    BadHash(String),
    #[error("unsupported hash algorithm `{0}`; supported: sha224, sha256, sha384, sha512")]
    UnsupportedAlgorithm(String),
    #[error("bad size field `{0}`; expected a number of bytes")]
    BadSize(String),
}

/// The most a RECORD may hold. torch's, among the largest, is a few
/// megabytes; this bound keeps a RECORD that is not one (a link to a huge or
/// endless file) from filling memory.
const RECORD_LIMIT: u64 = 64 << 20;

/// The rows of `metadata_path/RECORD`, or None where the distribution has no
/// RECORD (egg-info, and installers that write none). An egg-info that is a
/// file, not a directory (distutils' `install_egg_info`, which every Debian
/// `python3-*` package ships), is PKG-INFO itself and holds no RECORD: None,
/// as for an egg-info directory (issue 32, E11).
pub fn read_record(metadata_path: &Path) -> Result<Option<Vec<RecordEntry>>, RecordError> {
    let path = metadata_path.join("RECORD");
    // A RECORD that is a FIFO or a device would block the read or never end:
    // only a regular file is read, and only up to RECORD_LIMIT.
    let (file, _) = match open_regular_file(&path, true) {
        Ok(opened) => opened,
        Err(OpenFailure::Io(error))
            if matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) =>
        {
            return Ok(None);
        }
        Err(OpenFailure::Io(source)) => return Err(RecordError::Unreadable { path, source }),
        Err(OpenFailure::NotRegular(kind)) => return Err(RecordError::NotRegular { path, kind }),
    };
    let bytes = match crate::bounded_read::read_opened(file, RECORD_LIMIT) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Err(RecordError::TooLarge {
                path,
                limit: RECORD_LIMIT,
            });
        }
        Err(source) => return Err(RecordError::Unreadable { path, source }),
    };
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(error) => {
            let line = 1 + bytes[..error.valid_up_to()]
                .iter()
                .filter(|&&byte| byte == b'\n')
                .count();
            return Err(malformed(&path, line, RecordProblem::NotUtf8));
        }
    };
    parse_record(text, &path).map(Some)
}

/// The rows of a RECORD's text; `path` names it in errors. Read as Python's
/// `csv` module writes it (the "excel" dialect, strict): a field holding a
/// comma, a quote or a line break is quoted, a quote inside is doubled.
pub fn parse_record(text: &str, path: &Path) -> Result<Vec<RecordEntry>, RecordError> {
    let rows = csv_rows(text).map_err(|(line, problem)| malformed(path, line, problem))?;
    rows.into_iter()
        .map(|(line, fields)| entry(line, fields).map_err(|problem| malformed(path, line, problem)))
        .collect()
}

fn malformed(path: &Path, line: usize, problem: RecordProblem) -> RecordError {
    RecordError::Malformed(Located::at_line(path, line, problem.to_string()))
}

fn entry(line: usize, fields: Vec<String>) -> Result<RecordEntry, RecordProblem> {
    if fields.len() > 3 {
        // Most likely a path with an unquoted comma: guessing would verify the wrong file.
        return Err(RecordProblem::FieldCount(fields.len()));
    }
    let mut fields = fields.into_iter();
    let path = fields.next().unwrap_or_default();
    if path.is_empty() {
        return Err(RecordProblem::EmptyPath);
    }
    let hash = fields
        .next()
        .filter(|field| !field.is_empty())
        .map(parse_hash)
        .transpose()?;
    let size = fields
        .next()
        .filter(|field| !field.is_empty())
        .map(|field| field.parse().map_err(|_| RecordProblem::BadSize(field)))
        .transpose()?;
    Ok(RecordEntry { path, hash, size, line })
}

pub(crate) fn parse_hash(field: String) -> Result<FileHash, RecordProblem> {
    let Some((name, digest)) = field.split_once('=') else {
        return Err(RecordProblem::BadHash(field));
    };
    let algorithm =
        HashAlgorithm::from_name(name).ok_or_else(|| RecordProblem::UnsupportedAlgorithm(name.to_string()))?;
    // Some writers keep base64's padding; the digest is the same.
    let digest = digest.trim_end_matches('=');
    let encoded_length = (algorithm.digest_bytes() * 8).div_ceil(6);
    let urlsafe = digest
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
    if !urlsafe || digest.len() != encoded_length {
        return Err(RecordProblem::BadHash(field));
    }
    Ok(FileHash {
        algorithm,
        digest: digest.to_string(),
    })
}

/// A CSV row's fields and the line it starts on.
type Row = (usize, Vec<String>);

/// The rows of CSV text; blank lines are skipped. An error carries the line it
/// was found on.
fn csv_rows(text: &str) -> Result<Vec<Row>, (usize, RecordProblem)> {
    let mut characters = text.chars().peekable();
    let mut line = 1;
    let mut rows = Vec::new();
    while characters.peek().is_some() {
        let start = line;
        let mut fields = Vec::new();
        loop {
            let (field, more) = csv_field(&mut characters, &mut line)?;
            fields.push(field);
            if !more {
                break;
            }
        }
        if fields != [""] {
            rows.push((start, fields));
        }
    }
    Ok(rows)
}

/// One field, and whether another follows it in the same row.
fn csv_field(characters: &mut Peekable<Chars>, line: &mut usize) -> Result<(String, bool), (usize, RecordProblem)> {
    let mut field = String::new();
    if characters.next_if_eq(&'"').is_some() {
        let opened_on = *line;
        loop {
            match characters.next() {
                None => return Err((opened_on, RecordProblem::UnterminatedQuote)),
                Some('"') if characters.next_if_eq(&'"').is_some() => field.push('"'),
                Some('"') => break,
                Some(character) => {
                    // A line break inside quotes belongs to the field but still counts as a line.
                    if character == '\n' || (character == '\r' && characters.peek() != Some(&'\n')) {
                        *line += 1;
                    }
                    field.push(character);
                }
            }
        }
        return match characters.next() {
            None => Ok((field, false)),
            Some(',') => Ok((field, true)),
            Some(character) if ends_line(character, characters, line) => Ok((field, false)),
            Some(character) => Err((*line, RecordProblem::TextAfterQuote(character))),
        };
    }
    loop {
        match characters.next() {
            None => return Ok((field, false)),
            Some(',') => return Ok((field, true)),
            Some(character) if ends_line(character, characters, line) => return Ok((field, false)),
            // Python's reader keeps a quote inside an unquoted field as it is.
            Some(character) => field.push(character),
        }
    }
}

/// Whether `character` ends a line (`\n`, `\r\n` or `\r`); if so the rest of
/// the line break is consumed and `line` advances.
fn ends_line(character: char, characters: &mut Peekable<Chars>, line: &mut usize) -> bool {
    match character {
        '\n' => {}
        '\r' => {
            characters.next_if_eq(&'\n');
        }
        _ => return false,
    }
    *line += 1;
    true
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5), the
/// encoding of RECORD digests.
pub(crate) fn urlsafe_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut encoded = String::with_capacity((bytes.len() * 8).div_ceil(6));
    for chunk in bytes.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (index, &byte)| {
            group | u32::from(byte) << (16 - 8 * index)
        });
        // n bytes fill n + 1 sextets.
        for index in 0..=chunk.len() {
            encoded.push(char::from(ALPHABET[(group >> (18 - 6 * index)) as usize & 63]));
        }
    }
    encoded
}

/// Files of a dist-info that the installer writes, not the wheel: which tool
/// installed, whether the user asked for it, where from (PEP 610), the RECORD
/// itself, and uv's cache and build notes.
const INSTALLER_WRITTEN: [&str; 6] = [
    "INSTALLER",
    "REQUESTED",
    "direct_url.json",
    "RECORD",
    "uv_cache.json",
    "uv_build.json",
];

/// `sha256:<hex>` over what the wheel put in place: the sorted `path,hash`
/// rows of its RECORD, less the rows whose content the install decides, so two
/// nodes that installed the same wheel get the same digest wherever their
/// environments live. None where there is no RECORD.
pub fn record_digest(metadata_path: &Path) -> Result<Option<String>, RecordError> {
    let Some(entries) = read_record(metadata_path)? else {
        return Ok(None);
    };
    let dist_info = metadata_path.file_name().and_then(OsStr::to_str).unwrap_or_default();
    let mut rows: Vec<String> = entries
        .iter()
        .filter(|entry| from_the_wheel(&entry.path, dist_info))
        .filter_map(|entry| Some(format!("{},{}\n", csv_quote(&entry.path), entry.hash.as_ref()?)))
        .collect();
    rows.sort_unstable();
    let mut hasher = Sha256::new();
    for row in &rows {
        hasher.update(row.as_bytes());
    }
    Ok(Some(format!("sha256:{}", crate::digest::hex(&hasher.finalize()))))
}

/// Who decided the bytes of a file a RECORD lists: one answer, which the
/// RECORD digest and `verify --files` both judge a file by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The wheel, byte for byte.
    ByTheWheel,
    /// Byte code in `__pycache__`: compiled by the installer (pip rewrites a
    /// `.pyc` the wheel ships) or by the interpreter, and checked by it
    /// against its source before use.
    ByteCodeCache,
    /// The installer's notes on the install: which tool, whether it was asked
    /// for by name, where from (PEP 610), the RECORD itself, uv's notes.
    InstallerNotes,
    /// Outside the sys.path entry: console scripts, whose first line the
    /// installer writes to name this environment's interpreter, and data files.
    OutsideLocation,
    /// An editable install's `.pth` hook or `__editable__` finder, which names
    /// the source tree by its absolute path.
    EditableHook,
}

/// Who wrote the file at RECORD path `path` of the distribution whose
/// dist-info directory is named `dist_info`.
pub fn written_by(path: &str, dist_info: &str) -> Written {
    if outside_location(path) {
        return Written::OutsideLocation;
    }
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.contains(&"__pycache__") {
        return Written::ByteCodeCache;
    }
    match parts.as_slice() {
        [directory, file] if *directory == dist_info && INSTALLER_WRITTEN.contains(file) => Written::InstallerNotes,
        [file] if file.ends_with(".pth") || file.starts_with("__editable__") => Written::EditableHook,
        _ => Written::ByTheWheel,
    }
}

/// Whether a RECORD path holds what the wheel shipped rather than what this
/// install made of it.
pub(crate) fn from_the_wheel(path: &str, dist_info: &str) -> bool {
    written_by(path, dist_info) == Written::ByTheWheel
}

/// Whether a RECORD path leads out of the directory that holds the dist-info.
fn outside_location(path: &str) -> bool {
    if path.starts_with('/') {
        return true;
    }
    let mut depth = 0usize;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if depth == 0 => return true,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    false
}

/// A field as Python's `csv` writer would write it, so a path holding a comma
/// cannot pass for another row in the digest.
fn csv_quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}
