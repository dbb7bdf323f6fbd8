//! Reusing an interpreter's answer between runs.
//!
//! Starting Python with `site` enabled costs 15 ms in a plain venv and 45 ms on a
//! machine whose `.pth` files import something (both measured with
//! `bench/probe.sh`), which is most of a probe. Like uv, which
//! caches its interpreter query keyed on the executable, envdoctor keeps the last
//! answer, but trusts it only while nothing that shapes `sys.path` has changed:
//! the interpreter binary, the environment variables Python reads at start-up,
//! and the status (mtime, ctime, size, inode) of every `sys.path` directory,
//! site directory, `.pth` file, directory a `.pth` file names (existing or not:
//! `site` skips a missing one until it appears), `sitecustomize`/`usercustomize`
//! and `pyvenv.cfg`. A new or removed `.pth` file or package directory changes
//! its parent directory's status, so it is seen too. An answer is not stored
//! when anything watched changed while the interpreter was answering, since its
//! stamp could then describe a newer state than the answer (git's "racy" rule).
//!
//! What it cannot see: the `import` lines of `.pth` files and `sitecustomize`
//! code whose effect depends on something else (another environment variable, a
//! file elsewhere), and changes within a filesystem's timestamp granularity on
//! filesystems with whole-second timestamps. `--no-cache` asks the interpreter
//! every time. Interpreters that are scripts (pyenv shims) pick their target at
//! run time, so their answers are never cached.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::atomic_write;
use crate::probe::python::{INTERPRETER_INFO_SCRIPT, InterpreterAnswer};

/// Environment variables that change what Python puts on `sys.path`.
const KEYED_VARIABLES: &[&str] = &[
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONNOUSERSITE",
    "PYTHONUSERBASE",
    "PYTHONSAFEPATH",
    "PYTHONPLATLIBDIR",
    "HOME",
];

const COARSE_CLOCK_SLACK_NS: i128 = 10_000_000;

/// What an answer is an answer to: computed once per run.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Key {
    envdoctor_version: String,
    /// A changed question makes every earlier answer irrelevant.
    script_hash: u64,
    interpreter: PathBuf,
    /// Raw bytes: two values that differ only in invalid UTF-8 still differ.
    variables: Vec<(String, Option<Vec<u8>>)>,
    /// Only when `PYTHONPATH` has relative entries, which Python makes absolute
    /// against the working directory.
    working_directory: Option<PathBuf>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Stamp {
    mtime_ns: i128,
    ctime_ns: i128,
    size: u64,
    inode: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    key: Key,
    watched: Vec<(PathBuf, Option<Stamp>)>,
    answer: InterpreterAnswer,
}

pub fn load(key: &Key) -> Option<InterpreterAnswer> {
    // Written by envdoctor, but in a folder others may write to: read as any
    // outside file is.
    let text = crate::bounded_read::read(&cache_file(key)?, crate::bounded_read::DOCUMENT_LIMIT).ok()?;
    read_entry(&text, key)
}

/// An entry written by an envdoctor whose answer had another shape (a field
/// added since, such as `markers`) does not read, and counts as absent: the
/// interpreter is asked again. Its key could not match anyway, since the key
/// holds the script's hash and envdoctor's version; this is the second lock.
fn read_entry(text: &[u8], key: &Key) -> Option<InterpreterAnswer> {
    let entry: Entry = serde_json::from_slice(text).ok()?;
    let still_valid = entry.key == *key && entry.watched.iter().all(|(path, stamp)| stamp_of(path) == *stamp);
    still_valid.then_some(entry.answer)
}

/// Stores an answer obtained by a question asked at `asked_at`. Best effort: a
/// cache that cannot be written only makes the next run slower.
pub fn store(key: Key, interpreter: &Path, answer: &InterpreterAnswer, asked_at: SystemTime) {
    let Some(file) = cache_file(&key) else { return };
    let watched: Vec<(PathBuf, Option<Stamp>)> = watched_paths(interpreter, answer)
        .into_iter()
        .map(|path| {
            let stamp = stamp_of(&path);
            (path, stamp)
        })
        .collect();
    // File times come from the kernel's coarse clock, a few milliseconds behind
    // the clock `asked_at` was read from.
    let asked_at_ns = nanoseconds_since_epoch(asked_at) - COARSE_CLOCK_SLACK_NS;
    let changed_while_asking = watched
        .iter()
        .filter_map(|(_, stamp)| stamp.as_ref())
        .any(|stamp| stamp.mtime_ns >= asked_at_ns || stamp.ctime_ns >= asked_at_ns);
    if changed_while_asking {
        return;
    }
    let entry = Entry {
        key,
        watched,
        answer: answer.clone(),
    };
    if let (Some(directory), Ok(bytes)) = (file.parent(), serde_json::to_vec(&entry)) {
        let _ = fs::create_dir_all(directory).and_then(|()| atomic_write::write(&file, &bytes));
    }
}

fn watched_paths(interpreter: &Path, answer: &InterpreterAnswer) -> Vec<PathBuf> {
    let mut paths = vec![interpreter.to_path_buf(), answer.prefix.join("pyvenv.cfg")];
    paths.extend(answer.sys_path.iter().cloned());
    paths.extend(answer.site_packages.iter().cloned());
    paths.extend(answer.user_site.iter().cloned());
    paths.extend(answer.pth_files.iter().cloned());
    paths.extend(answer.pth_directories.iter().cloned());
    paths.extend(answer.customize_files.iter().cloned());
    paths.sort();
    paths.dedup();
    paths
}

impl Key {
    /// `None` means "do not cache": the interpreter is a script that chooses
    /// its target at run time, or it cannot be read.
    pub fn for_interpreter(interpreter: &Path) -> Option<Key> {
        if is_script(interpreter)? {
            return None;
        }
        let variables = KEYED_VARIABLES
            .iter()
            .map(|name| {
                (
                    name.to_string(),
                    std::env::var_os(name).map(|value| value.as_bytes().to_vec()),
                )
            })
            .collect();
        let relative_pythonpath = std::env::var_os("PYTHONPATH")
            .is_some_and(|value| std::env::split_paths(&value).any(|entry| entry.is_relative()));
        Some(Key {
            envdoctor_version: env!("CARGO_PKG_VERSION").to_string(),
            script_hash: fnv1a(INTERPRETER_INFO_SCRIPT.as_bytes()),
            interpreter: std::path::absolute(interpreter).ok()?,
            variables,
            working_directory: relative_pythonpath.then(|| std::env::current_dir().ok()).flatten(),
        })
    }
}

fn is_script(path: &Path) -> Option<bool> {
    // Only regular files are opened: opening a FIFO would block before any deadline.
    let head = crate::bounded_read::read_start(path, 2).ok()?;
    Some(head == b"#!")
}

fn stamp_of(path: &Path) -> Option<Stamp> {
    let metadata = fs::metadata(path).ok()?;
    Some(Stamp {
        mtime_ns: i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec()),
        ctime_ns: i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
        size: metadata.size(),
        inode: metadata.ino(),
    })
}

fn cache_file(key: &Key) -> Option<PathBuf> {
    let directory = crate::cache_home::envdoctor_cache_dir(|name| std::env::var_os(name))?;
    let serialized = serde_json::to_vec(key).ok()?;
    Some(
        directory
            .join("interpreters")
            .join(format!("{:016x}.json", fnv1a(&serialized))),
    )
}

/// A stable hash for file names; std's hasher may change between Rust releases.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn nanoseconds_since_epoch(time: SystemTime) -> i128 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key {
            envdoctor_version: env!("CARGO_PKG_VERSION").to_string(),
            script_hash: fnv1a(INTERPRETER_INFO_SCRIPT.as_bytes()),
            interpreter: PathBuf::from("/usr/bin/python3"),
            variables: Vec::new(),
            working_directory: None,
        }
    }

    fn answer_json() -> serde_json::Value {
        serde_json::json!({
            "executable": "/usr/bin/python3", "version": "3.11.7", "implementation": "cpython",
            "prefix": "/usr", "base_prefix": "/usr", "site_packages": [], "user_site": null,
            "user_site_enabled": false, "sys_path": [], "pth_files": [], "pth_directories": [],
            "customize_files": [],
            "markers": {
                "implementation_name": "cpython", "implementation_version": "3.11.7", "os_name": "posix",
                "platform_machine": "x86_64", "platform_python_implementation": "CPython",
                "platform_release": "6.1.0", "platform_system": "Linux", "platform_version": "#1 SMP",
                "python_full_version": "3.11.7", "python_version": "3.11", "sys_platform": "linux"
            }
        })
    }

    fn entry_bytes(answer: serde_json::Value) -> Vec<u8> {
        let entry = serde_json::json!({ "key": key(), "watched": [], "answer": answer });
        serde_json::to_vec(&entry).unwrap()
    }

    #[test]
    fn a_current_entry_is_read() {
        let answer = read_entry(&entry_bytes(answer_json()), &key()).expect("a current entry reads");
        assert_eq!(answer.markers.python_version, "3.11");
    }

    #[test]
    fn an_entry_from_before_markers_were_asked_is_asked_again() {
        let mut older = answer_json();
        older.as_object_mut().unwrap().remove("markers");
        assert_eq!(read_entry(&entry_bytes(older), &key()), None);
    }

    #[test]
    fn the_key_holds_the_script_so_a_changed_question_misses() {
        let mut other = key();
        other.script_hash ^= 1;
        assert_eq!(read_entry(&entry_bytes(answer_json()), &other), None);
    }
}
