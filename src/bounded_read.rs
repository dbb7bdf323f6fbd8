//! Reading a file someone else wrote: only a regular file, and only up to a
//! limit. A Snapshot, lock, config, rule or METADATA path may name a FIFO
//! (a plain open would wait forever for a writer) or `/dev/zero` (a plain read
//! would fill memory); both are refused with an error saying which.
//!
//! Every file envdoctor reads from outside (an environment, a CUDA root, a
//! config, a document) is read here, whole ([`read`]), line by line
//! ([`Lines`]) or by its first bytes ([`read_start`]);
//! `tests/it/architecture.rs` (`every_outside_read_is_bounded`) holds the rest
//! of `src/` to that, with a short list of the reads it allows elsewhere.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Documents envdoctor reads whole (Snapshots, locks, fleet reports, configs,
/// matrix files): far above the largest real one (a recorded Snapshot of 200
/// packages is 0.5 MB), far below what would trouble a node.
pub const DOCUMENT_LIMIT: u64 = 256 << 20;

/// One distribution's METADATA, RECORD or a framework's version file, a
/// library's header, an editable finder: the largest real METADATA (a long
/// README inlined) is well under 1 MB.
pub const METADATA_LIMIT: u64 = 16 << 20;

/// A lock: a recorded one of 197 packages is 36 KB, so this holds a lock of
/// some 45,000 packages. Parsing TOML costs tens of bytes per byte read (a
/// 100 MB lock cost 8.9 GB before this limit, issue 32 E7): the limit keeps
/// that below what would trouble a node.
pub const LOCK_LIMIT: u64 = 8 << 20;

/// A small file of a known shape: a CUDA root's `version.json`, a `pip.conf`,
/// an `ld.so.conf.d` file, `/etc/os-release`. The real ones are a few KB.
pub const CONFIG_LIMIT: u64 = 1 << 20;

/// One line of a file read line by line (a core metadata header): a real
/// header line is a few hundred bytes; a long description is folded over
/// many lines.
pub const LINE_LIMIT: u64 = 1 << 20;

/// The whole file at `path`, if it is a regular file of at most `limit` bytes
/// (see [`open_regular_file`]).
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_at_most(open_regular(path)?, limit)
}

/// `path` opened for reading if it is a regular file, for readers that stream
/// it (a fleet's reports); never blocks on a FIFO.
pub fn open_regular(path: &Path) -> io::Result<File> {
    open_regular_file(path, true)
        .map(|(file, _)| file)
        .map_err(io::Error::from)
}

/// Why [`open_regular_file`] opened nothing.
pub enum OpenFailure {
    Io(io::Error),
    /// What it is instead, as [`describe`] words it.
    NotRegular(&'static str),
}

impl From<OpenFailure> for io::Error {
    fn from(failure: OpenFailure) -> io::Error {
        match failure {
            OpenFailure::Io(error) => error,
            OpenFailure::NotRegular(what) => {
                io::Error::new(io::ErrorKind::InvalidInput, format!("not a regular file ({what})"))
            }
        }
    }
}

/// Opens `path` for reading if it is a regular file, with its length. Its type
/// is checked before opening, so a FIFO or a device is never opened, and again
/// on what was opened, in case the path was replaced in between; `O_NONBLOCK`
/// keeps that open from waiting on a FIFO's writer (it changes nothing for a
/// regular file's reads). `follow`: whether a symbolic link as the last part
/// of `path` is followed.
pub fn open_regular_file(path: &Path, follow: bool) -> Result<(File, u64), OpenFailure> {
    let metadata = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(OpenFailure::Io)?;
    if !metadata.is_file() {
        return Err(OpenFailure::NotRegular(describe(metadata.file_type())));
    }
    let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(OpenFailure::Io)?;
    let metadata = file.metadata().map_err(OpenFailure::Io)?;
    if !metadata.is_file() {
        return Err(OpenFailure::NotRegular(describe(metadata.file_type())));
    }
    Ok((file, metadata.len()))
}

/// What a file that is not a regular one is, in words: `a FIFO`, `a directory`.
pub fn describe(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "an unknown kind of file"
    }
}

/// [`read`], as text.
pub fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// At most the first `length` bytes of the regular file at `path` (fewer where
/// it is shorter): for a file's magic number or first line.
pub fn read_start(path: &Path, length: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(length);
    open_regular(path)?.take(length as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A regular file read line by line, each line at most a limit and all of
/// them together at most another: a file without a newline, or one endless
/// line (a link to `/dev/zero` is refused before that), costs the limit, not
/// its length.
pub struct Lines {
    reader: BufReader<File>,
    line_limit: u64,
    limit: u64,
    left: u64,
    number: usize,
}

/// Why [`Lines::next_line`] stopped short.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("line {number} is longer than {} KiB, the most envdoctor reads of one line; not read further", limit >> 10)]
    LineTooLong { number: usize, limit: u64 },
    #[error("longer than {} MiB, the most envdoctor reads of it; not read past line {number}", limit >> 20)]
    TooLarge { number: usize, limit: u64 },
}

impl Lines {
    /// The regular file at `path` (see [`open_regular_file`]), read no further
    /// than `limit` bytes in all and `line_limit` in one line.
    pub fn open(path: &Path, line_limit: u64, limit: u64) -> io::Result<Lines> {
        Ok(Lines {
            reader: BufReader::new(open_regular(path)?),
            line_limit,
            limit,
            left: limit,
            number: 0,
        })
    }

    /// The number of the line [`Lines::next_line`] read last, from 1.
    pub fn number(&self) -> usize {
        self.number
    }

    /// The next line, its `\n` included, into `line` (cleared first); false at
    /// the end of the file.
    pub fn next_line(&mut self, line: &mut Vec<u8>) -> Result<bool, LineError> {
        line.clear();
        let limit = self.line_limit.min(self.left);
        let read = (&mut self.reader).take(limit + 1).read_until(b'\n', line)?;
        if read == 0 {
            return Ok(false);
        }
        self.number += 1;
        if read as u64 > limit {
            return Err(if limit < self.line_limit {
                LineError::TooLarge {
                    number: self.number,
                    limit: self.limit,
                }
            } else {
                LineError::LineTooLong {
                    number: self.number,
                    limit: self.line_limit,
                }
            });
        }
        self.left -= read as u64;
        Ok(true)
    }
}

/// The rest of a file [`open_regular_file`] opened, if it is at most `limit`
/// bytes; `None`, having read one byte past `limit` and no more, if longer.
pub fn read_opened(file: File, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

fn read_at_most(file: File, limit: u64) -> io::Result<Vec<u8>> {
    read_opened(file, limit)?.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than envdoctor reads ({} MiB)", limit >> 20),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_and_a_fifo_a_device_or_an_oversized_file_refused_without_blocking() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("snapshot.json");
        std::fs::write(&file, b"{}").unwrap();
        assert_eq!(read(&file, DOCUMENT_LIMIT).unwrap(), b"{}");

        let fifo = directory.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        // No writer ever opens it: a blocking open would hang this test.
        let error = read(&fifo, DOCUMENT_LIMIT).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");

        let error = read(Path::new("/dev/zero"), DOCUMENT_LIMIT).unwrap_err();
        assert!(error.to_string().contains("a character device"), "{error}");
        let error = read(directory.path(), DOCUMENT_LIMIT).unwrap_err();
        assert!(
            error.to_string().contains("directory") || error.kind() == io::ErrorKind::IsADirectory,
            "{error}"
        );

        std::fs::write(&file, vec![b'x'; 2 << 20]).unwrap();
        let error = read(&file, 1 << 20).unwrap_err();
        assert!(
            error.to_string().contains("larger than envdoctor reads (1 MiB)"),
            "{error}"
        );
    }
}
