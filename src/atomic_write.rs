//! Writing a file so that a reader sees the old content or the new, never half.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and
/// renames it over `path`. Renames within one directory are atomic on POSIX.
/// The file gets the mode of the file it replaces, or 0666 less the umask for a
/// new one, as a plain `open(2)` would give it.
///
/// A symlink is followed: the file it points to is replaced, the link stays.
/// A path that is not a regular file (`/dev/stdout`, a FIFO, a terminal) is
/// written in place, since renaming over it would replace the device itself.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Ok(target) = fs::metadata(path)
        && !target.is_file()
    {
        let mut file = fs::OpenOptions::new().write(true).open(path)?;
        return file.write_all(bytes);
    }
    let resolved;
    let path = match fs::symlink_metadata(path) {
        Ok(link) if link.file_type().is_symlink() => {
            resolved = fs::canonicalize(path)?;
            resolved.as_path()
        }
        _ => path,
    };
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mode = fs::metadata(path).map_or(0o666, |existing| existing.permissions().mode());
    // tempfile names its random file in errors; the directory is what the user can act on.
    let mut temporary = tempfile::Builder::new()
        .permissions(fs::Permissions::from_mode(mode))
        .tempfile_in(directory)
        .map_err(|error| {
            std::io::Error::new(
                error.kind(),
                format!("cannot create a file in `{}`", directory.display()),
            )
        })?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_keeps_the_mode() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("report.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn a_symlink_is_followed_and_a_device_written_in_place() {
        let directory = tempfile::tempdir().unwrap();
        let target = directory.path().join("real.lock");
        fs::write(&target, "old").unwrap();
        let link = directory.path().join("link.lock");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
        // A FIFO stands for /dev/stdout: a reader gets the bytes and the FIFO stays one.
        let fifo = directory.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || fs::read(fifo).unwrap()
        });
        write(&fifo, b"through").unwrap();
        assert_eq!(reader.join().unwrap(), b"through");
        assert!(!fs::metadata(&fifo).unwrap().is_file());
    }

    #[test]
    fn a_new_file_is_readable_by_others_as_the_umask_allows() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("new.json");
        write(&path, b"{}").unwrap();
        // SAFETY: umask(2) only swaps the process's file mode mask.
        let umask = unsafe {
            let previous = libc::umask(0o022);
            libc::umask(previous);
            previous
        };
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o666 & !umask
        );
    }
}
