//! Re-hashing a distribution's installed files against its `RECORD`
//! (`packaging::record` reads it) to find the ones edited or deleted since
//! (`verify --files`), which neither `pip check` nor `uv sync --check` notices.

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::bounded_read::{OpenFailure, open_regular_file};

use crate::packaging::record::*;

/// An installed file that no longer matches its RECORD row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDrift {
    /// As written in RECORD.
    pub path: PathBuf,
    pub problem: FileProblem,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblem {
    /// Same size, other content; both hashes as `sha256=...`.
    Modified {
        expected: String,
        found: String,
    },
    /// Found by its size alone, so the file is not hashed.
    SizeChanged {
        expected: u64,
        found: u64,
    },
    Missing,
    Unreadable(String),
    /// A directory, a FIFO, a device or a socket where RECORD has a file:
    /// never read, since reading one can block forever or never end.
    NotRegular(&'static str),
    /// A script outside the sys.path entry (a console script) that differs
    /// from RECORD and starts with `#!`: the line an installer writes, and
    /// relocation tools (conda-pack, `virtualenv` copies) rewrite.
    ScriptRewritten {
        first_line: String,
        expected: String,
        found: String,
    },
    /// The RECORD row names a file outside the directories an installer
    /// writes for this distribution (see `allowed_roots`), by its path or
    /// through a symbolic link: never opened.
    OutsideEnvironment {
        /// The RECORD file and the line of the row.
        record: PathBuf,
        line: usize,
        /// Where the row leads: by name, or where the symbolic link points.
        resolved: PathBuf,
        through_link: bool,
        /// The directories it had to lie in.
        allowed: Vec<PathBuf>,
    },
}

impl FileProblem {
    /// What RECORD says and what the file is, for a file whose content
    /// changed: both hashes, or both sizes in bytes.
    pub fn changed_values(&self) -> Option<(String, String)> {
        match self {
            FileProblem::Modified { expected, found } => Some((expected.clone(), found.clone())),
            FileProblem::SizeChanged { expected, found } => {
                Some((format!("{expected} bytes"), format!("{found} bytes")))
            }
            _ => None,
        }
    }
}

impl fmt::Display for FileDrift {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.problem {
            FileProblem::Modified { expected, found } => {
                write!(
                    formatter,
                    "{path}: modified (RECORD has {expected}, the file has {found})"
                )
            }
            FileProblem::SizeChanged { expected, found } => write!(
                formatter,
                "{path}: modified (RECORD has {expected} bytes, the file has {found})"
            ),
            FileProblem::ScriptRewritten {
                first_line,
                expected,
                found,
            } => write!(
                formatter,
                "{path}: a script that differs from RECORD (RECORD has {expected}, the file has {found}) \
                 and whose first line, {:?}, names this environment's interpreter: moving an environment \
                 (conda-pack) rewrites that line, and RECORD cannot tell a move from an edit; \
                 if this environment was not moved, reinstall",
                crate::escape::controls(first_line)
            ),
            FileProblem::Missing => write!(formatter, "{path}: missing"),
            FileProblem::Unreadable(error) => write!(formatter, "{path}: cannot be read: {error}"),
            FileProblem::NotRegular(kind) => {
                write!(formatter, "{path}: {kind}, not a regular file, so it was not read")
            }
            FileProblem::OutsideEnvironment {
                record,
                line,
                resolved,
                through_link,
                allowed,
            } => {
                // The entry came from a file anyone who can write the
                // environment controls: escaped, so it cannot add lines or
                // terminal sequences to the report.
                let entry = &self.path;
                let how = if *through_link {
                    format!("leads through a symbolic link to {resolved:?}")
                } else {
                    format!("is {resolved:?}")
                };
                let allowed: Vec<String> = allowed.iter().map(|root| format!("{root:?}")).collect();
                // pip uninstall (and so --force-reinstall) removes every file
                // RECORD lists, outside the environment too unless it runs
                // in a virtual environment: no reinstall is offered.
                write!(
                    formatter,
                    "{}:{line}: RECORD entry {entry:?} {how}, outside the environment ({}), so it was not read; \
                     fix this RECORD by hand before pip uninstalls or reinstalls the distribution, \
                     as pip would remove what it lists",
                    record.display(),
                    allowed.join(" or ")
                )
            }
        }
    }
}

/// Where a RECORD path lies: resolved against `location` the way the installer
/// wrote it, by name, so `..` climbs `location` even where a part of it is a
/// symbolic link.
fn resolve(location: &Path, path: &str) -> PathBuf {
    let mut resolved = PathBuf::new();
    for component in location.components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    if path.starts_with('/') {
        resolved = PathBuf::from("/");
    }
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                resolved.pop();
            }
            part => resolved.push(part),
        }
    }
    resolved
}

/// The directories a RECORD of a distribution found in `location` may name
/// files in, by name (`resolve`'s way), `location` first.
///
/// RECORD paths are relative to `location`, the sys.path entry that holds the
/// dist-info; pip writes the installation scheme's other directories (scripts,
/// data, headers) relative to it with `..`: `../../../bin/tool`. In every
/// scheme pip installs with those lie under the same base as the
/// site-packages, `{base}/lib/pythonX.Y/site-packages`: a venv's or conda's
/// prefix, the user base (`~/.local`) for `--user`, `/usr/local` for Debian's
/// `dist-packages`. So the base is read from the location's own shape rather
/// than taken from the interpreter's `sys.prefix`, which is another directory
/// for a user-site or `--system-site-packages` distribution. A location of
/// another shape (a PYTHONPATH entry) has no scheme around it: only the
/// location itself. A base of `/` would let a RECORD name every file on the
/// machine: then, too, only the location.
fn allowed_roots(location: &Path) -> Vec<PathBuf> {
    let location = resolve(location, "");
    let base = scheme_base(&location);
    std::iter::once(location).chain(base).collect()
}

/// `{base}` of a location shaped `{base}/lib*/python*|pypy*/site-packages`
/// (or `dist-packages`), where `base` is not the file system's root.
fn scheme_base(location: &Path) -> Option<PathBuf> {
    let name = |path: &Path| path.file_name().and_then(OsStr::to_str).map(str::to_ascii_lowercase);
    let version = location.parent()?;
    let lib = version.parent()?;
    let base = lib.parent()?;
    let packages = matches!(name(location)?.as_str(), "site-packages" | "dist-packages");
    let version_name = name(version)?;
    let versioned = version_name.starts_with("python") || version_name.starts_with("pypy");
    let below_root = base.components().any(|part| matches!(part, Component::Normal(_)));
    (packages && versioned && name(lib)?.starts_with("lib") && below_root).then(|| base.to_path_buf())
}

/// A job's allowed roots by name, and where they really are, for telling
/// whether a symbolic link leads out of them.
struct Roots {
    named: Vec<PathBuf>,
    real: Vec<PathBuf>,
}

impl Roots {
    fn new(location: &Path) -> Roots {
        let named = allowed_roots(location);
        // A root that cannot be resolved holds nothing that could be found in it.
        let real = named.iter().filter_map(|root| fs::canonicalize(root).ok()).collect();
        Roots { named, real }
    }

    fn outside(&self, record: &Path, entry: &RecordEntry, resolved: PathBuf, through_link: bool) -> FileDrift {
        FileDrift {
            path: PathBuf::from(&entry.path),
            problem: FileProblem::OutsideEnvironment {
                record: record.to_path_buf(),
                line: entry.line,
                resolved,
                through_link,
                allowed: self.named.clone(),
            },
        }
    }
}

/// Re-hashes every file of each `(metadata_path, location)` pair that its
/// RECORD gives a hash for (`location` is the sys.path entry that holds the
/// dist-info), one result per pair in the same order; `RecordError::NoRecord`
/// where there is no RECORD, empty when nothing changed. The files of all of
/// them share one queue served by a thread per core, so a single huge distribution (torch) is hashed
/// by every core rather than by one.
///
/// A RECORD row that leads outside the distribution's allowed roots
/// (`allowed_roots`) is a `FileProblem::OutsideEnvironment`, hash or not, and
/// is never opened: a RECORD is written by whoever can write the
/// environment, and `/etc/shadow` or `/dev/zero` must not be read for them.
pub fn verify_many(jobs: &[(&Path, &Path)]) -> Vec<Result<Vec<FileDrift>, RecordError>> {
    let records: Vec<Result<Vec<RecordEntry>, RecordError>> = jobs
        .iter()
        .map(|&(metadata_path, _)| {
            read_record(metadata_path)?.ok_or_else(|| RecordError::NoRecord {
                metadata_path: metadata_path.to_path_buf(),
            })
        })
        .collect();
    let roots: Vec<Roots> = jobs.iter().map(|&(_, location)| Roots::new(location)).collect();
    let record_files: Vec<PathBuf> = jobs
        .iter()
        .map(|&(metadata_path, _)| metadata_path.join("RECORD"))
        .collect();

    // Rows outside by name are found without touching the file system.
    let mut outside = Vec::new();
    let mut queue: Vec<(usize, &RecordEntry, Written)> = Vec::new();
    for (job, record) in records.iter().enumerate() {
        let Ok(entries) = record else { continue };
        let dist_info = jobs[job].0.file_name().and_then(OsStr::to_str).unwrap_or_default();
        for entry in entries {
            let resolved = resolve(jobs[job].1, &entry.path);
            let written = written_by(&entry.path, dist_info);
            if !roots[job].named.iter().any(|root| resolved.starts_with(root)) {
                let drift = roots[job].outside(&record_files[job], entry, resolved, false);
                outside.push((job, entry.line, drift));
            } else if entry.hash.is_some() && written != Written::InstallerNotes {
                // The installer's notes say how the install went, not what runs.
                queue.push((job, entry, written));
            }
        }
    }
    // Largest first, so the one big file does not start last and finish alone.
    queue.sort_by_key(|(_, entry, _)| std::cmp::Reverse(entry.size.unwrap_or(0)));

    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(queue.len())
        .max(1);
    let found: Vec<(usize, usize, FileDrift)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut buffer = vec![0; 1 << 18];
                    let mut found = Vec::new();
                    while let Some(&(job, entry, written)) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let path = resolve(jobs[job].1, &entry.path);
                        let drift = match check_file(&path, &roots[job], entry, &mut buffer) {
                            Checked::Fine => continue,
                            Checked::Problem(problem) => match judged(written, &path, &roots[job], problem) {
                                Some(problem) => FileDrift {
                                    path: PathBuf::from(&entry.path),
                                    problem,
                                },
                                None => continue,
                            },
                            Checked::LinkedOutside(real) => roots[job].outside(&record_files[job], entry, real, true),
                        };
                        found.push((job, entry.line, drift));
                    }
                    found
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });

    let mut results: Vec<Result<Vec<(usize, FileDrift)>, RecordError>> =
        records.into_iter().map(|record| record.map(|_| Vec::new())).collect();
    for (job, line, drift) in outside.into_iter().chain(found) {
        if let Ok(drifts) = &mut results[job] {
            drifts.push((line, drift));
        }
    }
    results
        .into_iter()
        .map(|result| {
            result.map(|mut drifts| {
                // In RECORD order, whichever thread found them.
                drifts.sort_by_key(|(line, _)| *line);
                drifts.into_iter().map(|(_, drift)| drift).collect()
            })
        })
        .collect()
}

/// A difference from RECORD, judged for what wrote the file: `None` where
/// it does not change what runs.
///
/// A byte-code cache is rewritten by pip's compile step (numpy's wheel ships
/// `.pyc` files pip compiles again) and by the interpreter; a missing one is
/// written again on import. Python uses it only after checking it against its
/// source (by the source's time and size, or its hash), and the source is
/// judged by its own RECORD row: so it is judged only where it runs
/// unchecked, or has no source beside it and is the code itself.
fn judged(written: Written, path: &Path, roots: &Roots, problem: FileProblem) -> Option<FileProblem> {
    let changed = matches!(problem, FileProblem::Modified { .. } | FileProblem::SizeChanged { .. });
    match written {
        Written::ByteCodeCache if matches!(problem, FileProblem::Missing) && source_of(path).is_some() => None,
        Written::ByteCodeCache if changed && checked_against_source(path) => None,
        Written::OutsideLocation if changed => match (relocated_script(path, roots), problem.changed_values()) {
            (Some(first_line), Some((expected, found))) => Some(FileProblem::ScriptRewritten {
                first_line,
                expected,
                found,
            }),
            _ => Some(problem),
        },
        _ => Some(problem),
    }
}

/// The source file a `__pycache__/NAME.TAG[.opt-N].pyc` was compiled from,
/// where it exists as a regular file.
fn source_of(pyc: &Path) -> Option<PathBuf> {
    let cache = pyc.parent()?;
    if cache.file_name()? != "__pycache__" {
        return None;
    }
    let name = pyc.file_name()?.to_str()?.strip_suffix(".pyc")?;
    let module = name.split('.').next()?;
    let source = cache.parent()?.join(format!("{module}.py"));
    fs::symlink_metadata(&source)
        .ok()
        .filter(fs::Metadata::is_file)
        .map(|_| source)
}

/// Whether the interpreter checks this `.pyc` against its source before use
/// (PEP 552: flags 0, by the source's time and size; flags 3, by its hash),
/// and that source is there. Flags 1, an unchecked hash, runs as it is.
fn checked_against_source(pyc: &Path) -> bool {
    // Only a regular file is opened: a FIFO planted as a `.pyc` must not hang `verify --files`.
    let Ok(header) = crate::bounded_read::read_start(pyc, 8) else {
        return false;
    };
    let Ok(header) = <[u8; 8]>::try_from(header.as_slice()) else {
        return false;
    };
    let flags = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    // A byte-code file's magic number ends in `\r\n`.
    header[2..4] == *b"\r\n" && matches!(flags, 0 | 3) && source_of(pyc).is_some()
}

/// The first line of a script whose `#!` names this environment's own
/// interpreter (`{base}/bin/python...`), directly or through pip's `/bin/sh`
/// trampoline for long paths: what an installer writes, and what moving the
/// environment (conda-pack's unpack) writes again. Any other first line is
/// not the installer's, so the file was edited.
fn relocated_script(path: &Path, roots: &Roots) -> Option<String> {
    let start = crate::bounded_read::read_start(path, 1024).ok()?;
    let text = String::from_utf8_lossy(&start);
    let mut lines = text.lines();
    let first_line = lines.next()?.trim_end().to_string();
    let named = first_line.strip_prefix("#!")?.split_whitespace().next()?;
    let interpreter = match named {
        // pip's trampoline: `#!/bin/sh`, then `'''exec' "/long/path/python" "$0" "$@"`.
        "/bin/sh" => lines.next()?.strip_prefix("'''exec' \"")?.split('"').next()?,
        named => named,
    };
    let interpreter = Path::new(interpreter);
    let python = interpreter
        .file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|name| name.starts_with("python"));
    let in_bin = roots
        .named
        .iter()
        .any(|root| interpreter.parent() == Some(root.join("bin").as_path()));
    (python && in_bin).then_some(first_line)
}

/// The outcome of checking one installed file.
enum Checked {
    Fine,
    Problem(FileProblem),
    /// Inside the roots by name, but a symbolic link on the way leads here,
    /// outside them.
    LinkedOutside(PathBuf),
}

/// Checks the file at `path`, inside `roots` by name, against its RECORD row.
fn check_file(path: &Path, roots: &Roots, entry: &RecordEntry, buffer: &mut [u8]) -> Checked {
    let Some(expected) = entry.hash.as_ref() else {
        return Checked::Fine;
    };
    // Where the file really is, links followed, before anything is opened: a
    // link planted inside the environment must not lead the hash out of it.
    let real = match fs::canonicalize(path) {
        Ok(real) => real,
        Err(error) if matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            return Checked::Problem(FileProblem::Missing);
        }
        Err(error) => return Checked::Problem(FileProblem::Unreadable(error.to_string())),
    };
    if !roots.real.iter().any(|root| real.starts_with(root)) {
        return Checked::LinkedOutside(real);
    }
    // `real` has no links left: not following one on open keeps a link
    // swapped in since from leading elsewhere.
    let (file, length) = match open_regular_file(&real, false) {
        Ok(opened) => opened,
        Err(OpenFailure::NotRegular(kind)) => return Checked::Problem(FileProblem::NotRegular(kind)),
        Err(OpenFailure::Io(error)) if error.kind() == io::ErrorKind::NotFound => {
            return Checked::Problem(FileProblem::Missing);
        }
        Err(OpenFailure::Io(error)) => return Checked::Problem(FileProblem::Unreadable(error.to_string())),
    };
    if let Some(expected) = entry.size
        && length != expected
    {
        return Checked::Problem(FileProblem::SizeChanged {
            expected,
            found: length,
        });
    }
    // One byte past the recorded size is enough to tell a file that grew
    // since it was measured; without a size the hash streams to the end.
    let limit = entry.size.map_or(u64::MAX, |size| size.saturating_add(1));
    match expected.algorithm.hash(&mut file.take(limit), buffer) {
        Err(error) => Checked::Problem(FileProblem::Unreadable(error.to_string())),
        Ok(digest) if digest == expected.digest => Checked::Fine,
        Ok(digest) => Checked::Problem(FileProblem::Modified {
            expected: expected.to_string(),
            found: FileHash {
                algorithm: expected.algorithm,
                digest,
            }
            .to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};
    use std::fs;
    use std::process::Command;

    use super::*;

    fn parse(text: &str) -> Result<Vec<RecordEntry>, RecordError> {
        parse_record(text, Path::new("/sp/x-1.dist-info/RECORD"))
    }

    /// One distribution's `verify_many`.
    fn verify_files(metadata_path: &Path, location: &Path) -> Result<Vec<FileDrift>, RecordError> {
        verify_many(&[(metadata_path, location)])
            .pop()
            .unwrap_or_else(|| Ok(Vec::new()))
    }

    fn paths(entries: &[RecordEntry]) -> Vec<&str> {
        entries.iter().map(|entry| entry.path.as_str()).collect()
    }

    /// The line and problem of a RECORD that must not parse.
    fn failure(text: &str) -> (usize, String) {
        match parse(text) {
            Err(RecordError::Malformed(located)) => (located.line, located.problem),
            other => panic!("{text:?} parsed as {other:?}"),
        }
    }

    const HELLO_SHA256: &str = "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ";

    #[test]
    fn base64_matches_python() {
        // Expected values from Python's base64.urlsafe_b64encode(...).rstrip(b"=").
        assert_eq!(urlsafe_base64(b""), "");
        assert_eq!(urlsafe_base64(b"f"), "Zg");
        assert_eq!(urlsafe_base64(b"fo"), "Zm8");
        assert_eq!(urlsafe_base64(b"foo"), "Zm9v");
        assert_eq!(urlsafe_base64(&[0xfb, 0xff]), "-_8");
        let hashes = [
            (HashAlgorithm::Sha224, "6gmunMZ2jFD87pA-0FRVblv8g0eQfxJZiqJBkw"),
            (HashAlgorithm::Sha256, HELLO_SHA256),
            (
                HashAlgorithm::Sha384,
                "WeF0h3dEjGnea4ANejO7-5_xtGPkQ1TDVTvNucZm-pASWjx5-QOXvfX2oT3oKGhP",
            ),
            (
                HashAlgorithm::Sha512,
                "m3HSJL1i83hdltRq0-o9czGb-8KJDKra4t_3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw",
            ),
        ];
        for (algorithm, expected) in hashes {
            // A buffer smaller than the input: the digest must not depend on the chunking.
            let digest = algorithm.hash(&mut &b"hello"[..], &mut [0; 2]).unwrap();
            assert_eq!(digest, expected, "{}", algorithm.name());
            let field = format!("{}={expected}", algorithm.name());
            assert_eq!(parse_hash(field.clone()).unwrap().to_string(), field);
        }
    }

    #[test]
    fn quoted_paths_empty_hashes_and_line_ends() {
        let text = format!(
            "\"a,b/c\"\"d\"\".py\",sha256={HELLO_SHA256},5\r\nx-1.dist-info/RECORD,,\r\n\r\n\
             \"two\nlines.txt\",SHA256={HELLO_SHA256}=,5\nlast/__pycache__/m.cpython-311.pyc,,"
        );
        let entries = parse(&text).unwrap();
        assert_eq!(
            paths(&entries),
            [
                "a,b/c\"d\".py",
                "x-1.dist-info/RECORD",
                "two\nlines.txt",
                "last/__pycache__/m.cpython-311.pyc"
            ]
        );
        assert_eq!(
            entries[0].hash.as_ref().unwrap().to_string(),
            format!("sha256={HELLO_SHA256}")
        );
        assert_eq!(entries[0].size, Some(5));
        assert_eq!((entries[1].hash.as_ref(), entries[1].size), (None, None));
        // Upper-case names and kept padding read as the same hash.
        assert_eq!(entries[2].hash, entries[0].hash);
        // Lines count from the row's start, blank and embedded line breaks included.
        let lines: Vec<usize> = entries.iter().map(|entry| entry.line).collect();
        assert_eq!(lines, [1, 2, 4, 6]);
        // A lone path is a row too; a bare quote inside an unquoted field stays, as in Python.
        assert_eq!(paths(&parse("only\nsay\"what,,\r").unwrap()), ["only", "say\"what"]);
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn malformed_rows_are_named_by_line() {
        let good = format!("ok.py,sha256={HELLO_SHA256},5\n");
        let cases = [
            (format!("{good}\"open,,\n"), 2, RecordProblem::UnterminatedQuote),
            (format!("{good}\"a\"b,,\n"), 2, RecordProblem::TextAfterQuote('b')),
            (
                format!("{good}{good}a,b.py,sha256={HELLO_SHA256},5\n"),
                3,
                RecordProblem::FieldCount(4),
            ),
            (format!("{good},sha256={HELLO_SHA256},5\n"), 2, RecordProblem::EmptyPath),
            (
                format!("{good}x.py,{HELLO_SHA256},5\n"),
                2,
                RecordProblem::BadHash(HELLO_SHA256.into()),
            ),
            (
                format!("{good}x.py,sha256=abc,5\n"),
                2,
                RecordProblem::BadHash("sha256=abc".into()),
            ),
            (
                format!("{good}x.py,sha256=LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ,5\n"),
                2,
                RecordProblem::BadHash("sha256=LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ".into()),
            ),
            (
                format!("{good}x.py,md5=XUFAKrxLKna5cZ2REBfFkg,5\n"),
                2,
                RecordProblem::UnsupportedAlgorithm("md5".into()),
            ),
            (
                format!("{good}x.py,sha256={HELLO_SHA256},5kB\n"),
                2,
                RecordProblem::BadSize("5kB".into()),
            ),
        ];
        for (text, line, problem) in cases {
            assert_eq!(failure(&text), (line, problem.to_string()), "{text:?}");
        }
        let error = parse(&format!("{good}\"a\"b,,\n")).unwrap_err().to_string();
        assert_eq!(
            error,
            "/sp/x-1.dist-info/RECORD:2: `b` after a closing quote; expected `,` or the end of the line"
        );
    }

    #[test]
    fn real_cuda_wheel_records_parse() {
        // RECORDs of nvidia-* wheels from PyPI, kept for the CUDA probe.
        let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cuda/records");
        let mut rows = 0;
        for file in fs::read_dir(&directory).unwrap() {
            let path = file.unwrap().path();
            let entries = parse_record(&fs::read_to_string(&path).unwrap(), &path).unwrap();
            let unhashed: Vec<&str> = entries
                .iter()
                .filter(|entry| entry.hash.is_none())
                .map(|entry| entry.path.as_str())
                .collect();
            assert!(unhashed.iter().all(|path| path.ends_with("/RECORD")), "{unhashed:?}");
            rows += entries.len();
        }
        assert_eq!(rows, 261);
    }

    #[test]
    fn unreadable_and_absent_records() {
        let directory = tempfile::tempdir().unwrap();
        let dist_info = directory.path().join("x-1.dist-info");
        fs::create_dir(&dist_info).unwrap();
        assert!(read_record(&dist_info).unwrap().is_none());
        assert!(record_digest(&dist_info).unwrap().is_none());
        let error = verify_files(&dist_info, directory.path()).unwrap_err();
        assert!(matches!(error, RecordError::NoRecord { .. }), "{error}");

        fs::write(dist_info.join("RECORD"), b"a.py,,\nb\xff.py,,\n").unwrap();
        let error = read_record(&dist_info).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{}:2: not UTF-8", dist_info.join("RECORD").display())
        );
    }

    #[test]
    fn what_the_digest_leaves_out() {
        let dist_info = "x-1.dist-info";
        let kept = [
            "x/__init__.py",
            "x/sub/data.bin",
            "x-1.dist-info/METADATA",
            "x/./a/../b.py",
            "x.libs/lib.so",
        ];
        let left_out = [
            "../../../bin/x",
            "/usr/share/x",
            "x/__pycache__/__init__.cpython-311.pyc",
            "x-1.dist-info/INSTALLER",
            "x-1.dist-info/REQUESTED",
            "x-1.dist-info/direct_url.json",
            "x-1.dist-info/RECORD",
            "__editable__.x-1.pth",
            "__editable___x_1_finder.py",
            "_x_editable.pth",
            "x/../../escape",
        ];
        for path in kept {
            assert!(from_the_wheel(path, dist_info), "{path}");
        }
        for path in left_out {
            assert!(!from_the_wheel(path, dist_info), "{path}");
        }
    }

    #[test]
    fn paths_resolve_by_name() {
        let location = Path::new("/venv/lib/python3.11/./site-packages");
        assert_eq!(
            resolve(location, "x/a.py"),
            Path::new("/venv/lib/python3.11/site-packages/x/a.py")
        );
        assert_eq!(resolve(location, "../../../bin/x"), Path::new("/venv/bin/x"));
        assert_eq!(resolve(location, "/etc/x.conf"), Path::new("/etc/x.conf"));
    }

    #[test]
    fn records_may_name_files_in_their_install_scheme_only() {
        let roots = |location: &str| -> Vec<PathBuf> { allowed_roots(Path::new(location)) };
        let paths = |paths: &[&str]| -> Vec<PathBuf> { paths.iter().map(PathBuf::from).collect() };
        // A venv or conda prefix, the user base, Debian's system and local schemes, PyPy.
        for (location, base) in [
            ("/venv/lib/python3.11/site-packages", "/venv"),
            ("/venv/lib64/python3.13t/site-packages", "/venv"),
            ("/home/u/.local/lib/python3.12/site-packages", "/home/u/.local"),
            ("/usr/lib/python3/dist-packages", "/usr"),
            ("/usr/local/lib/python3.11/dist-packages", "/usr/local"),
            ("/opt/pypy/lib/pypy3.10/site-packages", "/opt/pypy"),
            ("/venv/lib/./python3.11/../python3.11/site-packages", "/venv"),
        ] {
            let location = resolve(Path::new(location), "");
            assert_eq!(
                roots(&location.to_string_lossy()),
                paths(&[&location.to_string_lossy(), base]),
                "{location:?}"
            );
        }
        // No scheme around a PYTHONPATH entry, and never the whole machine.
        for location in ["/srv/code", "/srv/site-packages", "/lib/python3.11/site-packages"] {
            assert_eq!(roots(location), paths(&[location]), "{location}");
        }
    }

    #[test]
    fn only_regular_files_are_opened() {
        let directory = tempfile::tempdir().unwrap();
        let fifo = directory.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `name` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let link = directory.path().join("link");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let kind = |path: &Path, follow: bool| match open_regular_file(path, follow) {
            Err(OpenFailure::NotRegular(kind)) => kind,
            Ok(_) => "opened",
            Err(OpenFailure::Io(error)) => panic!("{path:?}: {error}"),
        };
        assert_eq!(kind(&fifo, true), "a FIFO");
        assert_eq!(kind(directory.path(), true), "a directory");
        assert_eq!(kind(&link, true), "a character device");
        assert_eq!(kind(&link, false), "a symbolic link");
        fs::write(directory.path().join("file"), "x").unwrap();
        assert_eq!(kind(&directory.path().join("file"), false), "opened");

        // A RECORD that is a FIFO is refused, not waited on.
        let dist_info = directory.path().join("x-1.dist-info");
        fs::create_dir(&dist_info).unwrap();
        fs::rename(&fifo, dist_info.join("RECORD")).unwrap();
        let error = read_record(&dist_info).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "`{}` is a FIFO, not a regular file, so it was not read",
                dist_info.join("RECORD").display()
            )
        );
    }

    // Real wheels, real pip, real virtual environments.

    const SCRIPTS_BACKEND: &str = r#"
"""intree_backend's wheel, with the module text of body.py and a console script."""
import intree_backend as base


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version = base._project()
    module = base._safe(name).lower()
    dist_info = "%s-%s.dist-info" % (base._safe(name), version)
    files = {
        module + "/__init__.py": open("body.py", encoding="utf-8").read(),
        module + "/data.txt": "some data\n",
        dist_info + "/entry_points.txt": "[console_scripts]\n%s = %s:main\n" % (module, module),
    }
    return base._build(wheel_directory, files)
"#;

    const BODY: &str = "def main():\n    print('hello')\n";

    /// Runs `python3 ARGUMENTS` with pip kept off the network; it must succeed.
    fn python(arguments: &[&OsStr]) {
        let output = Command::new("python3")
            .args(arguments)
            .env("PIP_NO_INDEX", "1")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env_remove("PYTHONPATH")
            .output()
            .expect("python3 must be on PATH to run the tests");
        assert!(
            output.status.success(),
            "python3 {arguments:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// A wheel of project `name` 1.0 whose module is `body`, built offline by pip.
    fn build_wheel(directory: &Path, name: &str, body: &str) -> PathBuf {
        let project = directory.join("project");
        fs::create_dir_all(&project).unwrap();
        fs::write(
            project.join("intree_backend.py"),
            include_str!("../../tests/fixtures/intree_backend.py"),
        )
        .unwrap();
        fs::write(project.join("scripts_backend.py"), SCRIPTS_BACKEND).unwrap();
        fs::write(project.join("body.py"), body).unwrap();
        fs::write(
            project.join("pyproject.toml"),
            format!(
                "[build-system]\nrequires = []\nbuild-backend = \"scripts_backend\"\nbackend-path = [\".\"]\n\n\
                 [project]\nname = \"{name}\"\nversion = \"1.0\"\n"
            ),
        )
        .unwrap();
        let wheels = directory.join("wheels");
        python(&[
            "-m".as_ref(),
            "pip".as_ref(),
            "wheel".as_ref(),
            "--no-deps".as_ref(),
            "--no-build-isolation".as_ref(),
            "--no-index".as_ref(),
            "-w".as_ref(),
            wheels.as_os_str(),
            project.as_os_str(),
        ]);
        wheels.join(format!("{name}-1.0-py3-none-any.whl"))
    }

    /// A new virtual environment at `path`; its site-packages.
    fn venv(path: &Path, with_pip: bool) -> PathBuf {
        let mut arguments = vec!["-m".as_ref(), "venv".as_ref()];
        if !with_pip {
            arguments.push("--without-pip".as_ref());
        }
        arguments.push(path.as_os_str());
        python(&arguments);
        let lib = path.join("lib");
        let version = fs::read_dir(&lib).unwrap().next().unwrap().unwrap().file_name();
        lib.join(version).join("site-packages")
    }

    /// Installs `wheel` with the machine's pip into a new environment at
    /// `path`; the site-packages and the dist-info.
    fn install(path: &Path, wheel: &Path) -> (PathBuf, PathBuf) {
        let site_packages = venv(path, false);
        python(&[
            "-m".as_ref(),
            "pip".as_ref(),
            "--python".as_ref(),
            path.join("bin/python").as_os_str(),
            "install".as_ref(),
            "--no-deps".as_ref(),
            "--no-index".as_ref(),
            wheel.as_os_str(),
        ]);
        let dist_info = dist_info(&site_packages, "tool-");
        (site_packages, dist_info)
    }

    fn dist_info(site_packages: &Path, prefix: &str) -> PathBuf {
        fs::read_dir(site_packages)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| {
                let name = path.file_name().unwrap().to_string_lossy();
                name.starts_with(prefix) && name.ends_with(".dist-info")
            })
            .unwrap_or_else(|| panic!("no {prefix}*.dist-info in {}", site_packages.display()))
    }

    fn drifts(site_packages: &Path, dist_info: &Path) -> Vec<(String, FileProblem)> {
        verify_files(dist_info, site_packages)
            .unwrap()
            .into_iter()
            .map(|drift| (drift.path.to_string_lossy().into_owned(), drift.problem))
            .collect()
    }

    #[test]
    fn the_same_wheel_has_one_digest_wherever_it_is_installed() {
        let directory = tempfile::tempdir().unwrap();
        let wheel = build_wheel(&directory.path().join("a"), "tool", BODY);
        let (first_site, first) = install(&directory.path().join("first-env"), &wheel);
        let (second_site, second) = install(&directory.path().join("second/env"), &wheel);

        // The console script differs between the two (its shebang names the
        // environment), and RECORD lists it with a hash: the digest must leave it out.
        let script = |environment: &str| fs::read(directory.path().join(environment).join("bin/tool")).unwrap();
        assert_ne!(script("first-env"), script("second/env"));
        let record = read_record(&first).unwrap().unwrap();
        assert!(
            record
                .iter()
                .any(|entry| entry.path == "../../../bin/tool" && entry.hash.is_some()),
            "{record:?}"
        );
        let digest = record_digest(&first).unwrap().unwrap();
        assert!(digest.starts_with("sha256:") && digest.len() == 7 + 64, "{digest}");
        assert_eq!(record_digest(&second).unwrap().unwrap(), digest);
        // Nothing was touched, the script included.
        assert_eq!(drifts(&first_site, &first), []);
        assert_eq!(drifts(&second_site, &second), []);

        // The same name and version with other content is another wheel.
        let other = build_wheel(&directory.path().join("b"), "tool", "def main():\n    print('other')\n");
        let (_, third) = install(&directory.path().join("third"), &other);
        assert_ne!(record_digest(&third).unwrap().unwrap(), digest);
    }

    #[test]
    fn edited_deleted_and_unreadable_files_are_named() {
        let directory = tempfile::tempdir().unwrap();
        let wheel = build_wheel(directory.path(), "tool", BODY);
        let (site_packages, dist_info) = install(&directory.path().join("env"), &wheel);
        assert_eq!(drifts(&site_packages, &dist_info), []);

        let module = site_packages.join("tool/__init__.py");
        fs::write(&module, BODY.replace("hello", "HELLO")).unwrap();
        fs::write(site_packages.join("tool/data.txt"), "more data than before\n").unwrap();
        fs::remove_file(directory.path().join("env/bin/tool")).unwrap();
        let entry_points = dist_info.join("entry_points.txt");
        fs::remove_file(&entry_points).unwrap();
        fs::create_dir(&entry_points).unwrap();

        let found = drifts(&site_packages, &dist_info);
        let expected = format!("sha256={}", urlsafe_base64(&Sha256::digest(BODY)));
        let modified = format!("sha256={}", urlsafe_base64(&Sha256::digest(fs::read(&module).unwrap())));
        let entry_points = format!("{}/entry_points.txt", dist_info.file_name().unwrap().to_string_lossy());
        let mut found_paths: Vec<&str> = found.iter().map(|(path, _)| path.as_str()).collect();
        found_paths.sort_unstable();
        let mut expected_paths = ["../../../bin/tool", "tool/__init__.py", "tool/data.txt", &entry_points];
        expected_paths.sort_unstable();
        assert_eq!(found_paths, expected_paths, "{found:?}");
        let problem = |path: &str| &found.iter().find(|(found, _)| found == path).unwrap().1;
        assert_eq!(
            problem("tool/__init__.py"),
            &FileProblem::Modified {
                expected,
                found: modified
            }
        );
        assert_eq!(
            problem("tool/data.txt"),
            &FileProblem::SizeChanged {
                expected: 10,
                found: 22
            }
        );
        assert_eq!(problem("../../../bin/tool"), &FileProblem::Missing);
        assert_eq!(problem(&entry_points), &FileProblem::NotRegular("a directory"));
        // Reported in RECORD order, whichever thread hashed them.
        let record = read_record(&dist_info).unwrap().unwrap();
        let order = |path: &str| record.iter().position(|entry| entry.path == path).unwrap();
        assert!(
            found.windows(2).all(|pair| order(&pair[0].0) < order(&pair[1].0)),
            "{found:?}"
        );
    }

    #[test]
    fn pip_matches_its_own_record_in_two_environments() {
        // pip as ensurepip installs it: hundreds of files, compiled .pyc files
        // without hashes, and console scripts that name their environment.
        let directory = tempfile::tempdir().unwrap();
        let first = venv(&directory.path().join("one"), true);
        let second = venv(&directory.path().join("two/deeper"), true);
        let (first_pip, second_pip) = (dist_info(&first, "pip-"), dist_info(&second, "pip-"));
        let record = read_record(&first_pip).unwrap().unwrap();
        assert!(record.len() > 500, "{}", record.len());
        assert!(record.iter().any(|entry| entry.path.starts_with("../../../bin/pip")));

        let results = verify_many(&[
            (&first_pip, &first),
            (&directory.path().join("none.dist-info"), &first),
            (&second_pip, &second),
        ]);
        assert!(
            matches!(results[0], Ok(ref drifts) if drifts.is_empty()),
            "{:?}",
            results[0]
        );
        assert!(
            matches!(results[1], Err(RecordError::NoRecord { .. })),
            "{:?}",
            results[1]
        );
        assert!(
            matches!(results[2], Ok(ref drifts) if drifts.is_empty()),
            "{:?}",
            results[2]
        );
        assert_eq!(record_digest(&first_pip).unwrap(), record_digest(&second_pip).unwrap());
    }
}
