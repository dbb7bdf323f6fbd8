//! Writing a file so that a reader sees the old content or the new, never half.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and
/// renames it over `path`. Renames within one directory are atomic on POSIX.
/// The file gets the mode of the file it replaces, or 0666 less the umask for a
/// new one, as a plain `open(2)` would give it.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mode = fs::metadata(path).map_or(0o666, |existing| existing.permissions().mode());
    let mut temporary = tempfile::Builder::new()
        .permissions(fs::Permissions::from_mode(mode))
        .tempfile_in(directory)?;
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
