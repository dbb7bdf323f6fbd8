//! Writing a file so that a reader sees the old content or the new, never
//! half; never through a symbolic link another user planted; and without a
//! temporary file left behind when envdoctor is told to stop.

use std::fs;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::process::{SignalGuard, die_of};

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and
/// renames it over `path`. Renames within one directory are atomic on POSIX.
/// The file gets the mode of the file it replaces, or 0666 less the umask for a
/// new one, as a plain `open(2)` would give it.
///
/// A symlink is followed, as the kernel follows one, and refused where the
/// kernel's `fs.protected_symlinks` would refuse it (issue 32 E6): a link in a
/// sticky world-writable folder (`/tmp`, a shared reports folder) that belongs
/// neither to us nor to the folder's owner. A path that is not a regular file
/// (`/dev/stdout`, a FIFO, a terminal) is written in place, since renaming over
/// it would replace the device itself. A FIFO no process reads is an error,
/// not a wait without end.
///
/// SIGINT, SIGTERM or SIGHUP while the temporary file exists removes it and
/// then ends envdoctor by that signal ([`SignalGuard`]), as it would have.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let resolved = follow_links(path)?;
    if let Ok(target) = fs::metadata(path)
        && !target.is_file()
    {
        // Opened by its own name, for the kernel to follow: `/dev/stdout`'s
        // link leads to `/proc/self/fd/1`, whose target is no path (`pipe:[…]`).
        let mut file = if target.file_type().is_fifo() {
            open_fifo_with_reader(path)?
        } else {
            fs::OpenOptions::new().write(true).open(path)?
        };
        return file.write_all(bytes);
    }
    let path = resolved.as_path();
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let existing_mode = fs::symlink_metadata(path)
        .ok()
        .filter(fs::Metadata::is_file)
        .map(|existing| existing.permissions().mode());
    let name = path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    sweep_stale(directory, &name);
    let guard = SignalGuard::install();
    let temporary = Temporary::create(directory, &name, existing_mode)?;
    let written = temporary
        .write(bytes)
        .and_then(|()| pause_for_tests())
        .and_then(|()| end_if_interrupted(&guard))
        // rename(2) replaces the name itself: a link put there since is replaced, not followed.
        .and_then(|()| fs::rename(&temporary.path, path));
    temporary.remove();
    written?;
    end_if_interrupted(&guard)?;
    drop(guard);
    Ok(())
}

/// The temporary files being written, removed by whoever sees a signal first.
/// A file is named here before it is created, under this lock, so that none is
/// made after the cleanup has begun.
static TEMPORARY_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static TEMPORARY_COUNT: AtomicU64 = AtomicU64::new(0);

struct Temporary {
    path: PathBuf,
    file: fs::File,
}

impl Temporary {
    fn create(directory: &Path, name: &str, mode: Option<u32>) -> std::io::Result<Temporary> {
        let mut files = TEMPORARY_FILES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut attempt = 0;
        loop {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.subsec_nanos());
            let count = TEMPORARY_COUNT.fetch_add(1, Ordering::Relaxed);
            let path = directory.join(format!("{}{}-{count}{nanos:x}", stale_prefix(name), std::process::id()));
            // create_new is O_CREAT|O_EXCL: never a file or a link already there.
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)
            {
                Ok(file) => {
                    if let Some(mode) = mode {
                        file.set_permissions(fs::Permissions::from_mode(mode))?;
                    }
                    files.push(path.clone());
                    return Ok(Temporary { path, file });
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
                Err(error) => {
                    // The directory is what the user can act on, not a random file name.
                    return Err(std::io::Error::new(
                        error.kind(),
                        format!("cannot create a file in `{}`: {error}", directory.display()),
                    ));
                }
            }
        }
    }

    fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        (&self.file).write_all(bytes)?;
        self.file.sync_all()
    }

    /// Removes the file where the rename left it (after an error or a signal).
    fn remove(self) {
        let mut files = TEMPORARY_FILES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = fs::remove_file(&self.path);
        files.retain(|path| *path != self.path);
    }
}

/// After a signal: every temporary file of every writer removed, then the end
/// the signal asked for. The lock is kept until the end, so no writer makes
/// another file meanwhile.
fn end_if_interrupted(guard: &SignalGuard) -> std::io::Result<()> {
    let Some(signal) = guard.interrupted() else {
        return Ok(());
    };
    let files = TEMPORARY_FILES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for path in files.iter() {
        let _ = fs::remove_file(path);
    }
    die_of(signal)
}

/// `ENVDOCTOR_TEST_WRITE_PAUSE_MS`: how long to wait between writing the
/// temporary file and renaming it, so that a test can send a signal while the
/// file exists (`tests/it/safe_writes.rs`); unset, no wait.
fn pause_for_tests() -> std::io::Result<()> {
    if let Some(pause) = std::env::var("ENVDOCTOR_TEST_WRITE_PAUSE_MS")
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(pause.min(60_000)));
    }
    Ok(())
}

/// The path a write to `path` lands on: each symbolic link on the way is
/// followed (at most 40, as the kernel does), and refused where the kernel's
/// `fs.protected_symlinks` would refuse to follow it. atomic_write follows a
/// link itself to rename over its target, so the kernel's own check never runs.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        let link = match fs::symlink_metadata(&current) {
            Ok(link) if link.file_type().is_symlink() => link,
            _ => return Ok(current),
        };
        let directory = match current.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Ok(folder) = fs::metadata(&directory) {
            let shared = folder.mode() & 0o1002 == 0o1002;
            // SAFETY: geteuid(2) cannot fail and touches no memory.
            let us = unsafe { libc::geteuid() };
            if shared && link.uid() != us && link.uid() != folder.uid() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!(
                        "refusing to write through `{}`: a symbolic link owned by another user (uid {})                          in the shared folder `{}`; remove it or write elsewhere",
                        crate::escape::controls(&current.display().to_string()),
                        link.uid(),
                        crate::escape::controls(&directory.display().to_string())
                    ),
                ));
            }
        }
        let target = fs::read_link(&current)?;
        current = directory.join(target);
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("`{}`: too many levels of symbolic links", path.display()),
    ))
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
