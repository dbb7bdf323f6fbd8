//! Reading a file someone else wrote: only a regular file, and only up to a
//! limit. A Snapshot, lock, config, rule or METADATA path may name a FIFO
//! (a plain open would wait forever for a writer) or `/dev/zero` (a plain read
//! would fill memory); both are refused with an error saying which.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Documents envdoctor reads whole (Snapshots, locks, fleet reports, configs,
/// matrix files): far above the largest real one (a recorded Snapshot of 200
/// packages is 0.5 MB), far below what would trouble a node.
pub const DOCUMENT_LIMIT: u64 = 256 << 20;

/// One distribution's METADATA, RECORD or a framework's version file: the
/// largest real METADATA (a long README inlined) is well under 1 MB.
pub const METADATA_LIMIT: u64 = 16 << 20;

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

fn read_at_most(file: File, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than envdoctor reads ({} MiB)", limit >> 20),
        ));
    }
    Ok(bytes)
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
