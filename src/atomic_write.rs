//! Writing a file so that a reader sees the old content or the new, never half.

use std::fs;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and
/// renames it over `path`. Renames within one directory are atomic on POSIX.
/// The file gets the mode of the file it replaces, or 0666 less the umask for a
/// new one, as a plain `open(2)` would give it.
///
/// A symlink is followed: the file it points to is replaced, the link stays.
/// A path that is not a regular file (`/dev/stdout`, a FIFO, a terminal) is
/// written in place, since renaming over it would replace the device itself.
/// A FIFO no process reads is an error, not a wait without end.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Ok(target) = fs::metadata(path)
        && !target.is_file()
    {
        let mut file = if target.file_type().is_fifo() {
            open_fifo_with_reader(path)?
        } else {
            fs::OpenOptions::new().write(true).open(path)?
        };
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
    let name = path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    sweep_stale(directory, &name);
    // tempfile names its random file in errors; the directory is what the user can act on.
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!("{}{}-", stale_prefix(&name), std::process::id()))
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

/// How long a FIFO may take to get its reader (a process substitution's
/// reader is there at once; a reader started beside envdoctor, soon after).
const FIFO_READER_WAIT: Duration = Duration::from_secs(2);

/// Opens a FIFO for writing once a process reads it. A plain open(2) would
/// block until one does, forever if none ever will; a non-blocking open fails
/// with ENXIO instead, and is retried for [`FIFO_READER_WAIT`].
fn open_fifo_with_reader(path: &Path) -> std::io::Result<fs::File> {
    let started = Instant::now();
    let file = loop {
        match fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(file) => break file,
            Err(error) if error.raw_os_error() == Some(libc::ENXIO) && started.elapsed() < FIFO_READER_WAIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(error) if error.raw_os_error() == Some(libc::ENXIO) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    format!("no process reads the FIFO `{}`", path.display()),
                ));
            }
            Err(error) => return Err(error),
        }
    };
    // Writes then wait for the reader as usual, rather than failing when the pipe is full.
    // SAFETY: fcntl(2) on a descriptor this function owns.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

/// `.report.json.envdoctor-`: the start of the temporary files written for
/// `report.json`, followed by the writer's process id.
fn stale_prefix(name: &str) -> String {
    format!(".{name}.envdoctor-")
}

/// Removes the temporary files an earlier writer of `name` left behind when it
/// was killed between writing and renaming (SIGKILL cannot be caught): those
/// whose process no longer exists. A live writer's file is left alone.
fn sweep_stale(directory: &Path, name: &str) {
    let prefix = stale_prefix(name);
    let Ok(entries) = fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|text| text.strip_prefix(&prefix)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|pid| pid.parse::<libc::pid_t>().ok()) else {
            continue;
        };
        // kill(pid, 0) sends nothing; ESRCH means no such process.
        let gone = pid > 0
            && unsafe { libc::kill(pid, 0) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 20 D12: a writer killed before its rename leaves a temporary
    /// file; the next write beside it removes it, and only if its writer is gone.
    #[test]
    fn temporary_files_of_dead_writers_are_swept_and_a_live_ones_kept() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("report.json");
        // Process ids stay below 2^22 on Linux: this one never exists.
        let dead = directory.path().join(".report.json.envdoctor-999999999-Ab3dEf");
        let live = directory
            .path()
            .join(format!(".report.json.envdoctor-{}-Xy9zQw", std::process::id()));
        let other = directory.path().join(".other.json.envdoctor-999999999-Ab3dEf");
        for file in [&dead, &live, &other] {
            fs::write(file, "partial").unwrap();
        }
        write(&path, b"new").unwrap();
        assert!(!dead.exists());
        assert!(live.exists() && other.exists());
        let left: Vec<_> = fs::read_dir(directory.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 3, "{left:?}");
    }

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
        // Issue 20: a FIFO nobody reads is an error after a short wait, not a hang.
        let started = Instant::now();
        let error = write(&fifo, b"nobody").unwrap_err();
        assert!(error.to_string().contains("no process reads the FIFO"), "{error}");
        assert!(started.elapsed() < FIFO_READER_WAIT * 3, "{:?}", started.elapsed());
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
