//! Finding the interpreter a training job would use, and asking it, once, where
//! it looks for packages and what its PEP 508 marker values are.
//!
//! Discovery order (part of the public contract): `--python`, then
//! `$VIRTUAL_ENV`, then `$CONDA_PREFIX`, then `python3` and `python` on `PATH`.
//! `--python` takes an interpreter, a name on `PATH`, or an environment's
//! folder (a venv or a conda prefix), as `uv pip --python` does.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::probe::interpreter_cache;
use crate::process::{self, RunError};
use crate::snapshot::python::{MarkerValues, Origin};

pub(crate) const INTERPRETER_INFO_SCRIPT: &str = include_str!("interpreter_info.py");

/// Starts the line that carries the answer (`ANSWER_MARKER` in the script).
const ANSWER_MARKER: &str = "envdoctor-interpreter-answer:";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    pub origin: Origin,
}

/// The interpreter's own answer, as printed by `interpreter_info.py`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterpreterAnswer {
    pub executable: PathBuf,
    pub version: String,
    pub implementation: String,
    pub prefix: PathBuf,
    pub base_prefix: PathBuf,
    pub site_packages: Vec<PathBuf>,
    pub user_site: Option<PathBuf>,
    pub user_site_enabled: bool,
    pub sys_path: Vec<PathBuf>,
    pub pth_files: Vec<PathBuf>,
    /// The directories `.pth` files name, existing or not (watched by the cache).
    pub pth_directories: Vec<PathBuf>,
    pub customize_files: Vec<PathBuf>,
    /// Required, not defaulted: a cached answer from before this field existed
    /// fails to read and is asked again (its script hash differs too).
    pub markers: MarkerValues,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
enum ScriptOutput {
    Success(Box<InterpreterAnswer>),
    Error { kind: String, version: Option<String> },
}

#[derive(Debug, thiserror::Error)]
pub enum InterpreterError {
    #[error("Python interpreter `{0}` does not exist")]
    NotFound(PathBuf),
    #[error("Python interpreter `{0}` is not on PATH")]
    NotOnPath(String),
    #[error("{variable} is set to `{prefix}`, but `{prefix}/bin/python` does not exist")]
    BrokenEnvironment { variable: &'static str, prefix: PathBuf },
    #[error(
        "no Python interpreter found: --python is not given, VIRTUAL_ENV and CONDA_PREFIX are unset, and neither python3 nor python is on PATH"
    )]
    NoneFound,
    #[error("`{path}` is a directory, not a Python interpreter")]
    IsDirectory { path: PathBuf },
    #[error("`{path}` is a folder but not a Python environment: it has neither bin/python nor bin/python3")]
    NotAnEnvironment { path: PathBuf },
    #[error("`{path}` could not be run")]
    Spawn {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` did not answer within {seconds} s and was killed (raise the limit with --python-timeout)")]
    TimedOut { path: PathBuf, seconds: f64 },
    #[error("`{path}` failed with {status}{stderr}")]
    Failed {
        path: PathBuf,
        status: String,
        stderr: String,
    },
    #[error("`{path}` is not a Python interpreter: {reason}")]
    NotPython { path: PathBuf, reason: String },
    #[error("`{path}` is Python {version}; envdoctor needs Python 3.6 or newer")]
    TooOld { path: PathBuf, version: String },
}

/// Picks the interpreter. `env` is how environment variables are read, so that
/// tests can pass their own.
pub fn locate(flag: Option<&str>, env: impl Fn(&str) -> Option<OsString>) -> Result<Located, InterpreterError> {
    // An unset or empty PATH searches nothing (`which` would search the working
    // directory, which is not what a shell does).
    let search_path = env("PATH").filter(|value| !value.is_empty());
    if let Some(requested) = flag {
        return locate_requested(requested, search_path.as_deref()).map(|path| Located {
            path,
            origin: Origin::Flag,
        });
    }
    for (variable, origin) in [
        ("VIRTUAL_ENV", Origin::VirtualEnv),
        ("CONDA_PREFIX", Origin::CondaPrefix),
    ] {
        let Some(prefix) = env(variable).filter(|value| !value.is_empty()) else {
            continue;
        };
        let prefix = PathBuf::from(prefix);
        return match environment_interpreter(&prefix) {
            Some(path) => Ok(Located { path, origin }),
            None => Err(InterpreterError::BrokenEnvironment { variable, prefix }),
        };
    }
    ["python3", "python"]
        .into_iter()
        .find_map(|name| find_on_path(name, search_path.as_deref()))
        .map(|path| Located {
            path,
            origin: Origin::Path,
        })
        .ok_or(InterpreterError::NoneFound)
}

/// `--python` takes an environment's folder, a path (anything with a `/`) or
/// a name looked up on `PATH`. A folder is checked first, so that `.venv`
/// names the folder here, as it does for uv, and not a program on `PATH`.
fn locate_requested(requested: &str, search_path: Option<&std::ffi::OsStr>) -> Result<PathBuf, InterpreterError> {
    let folder = Path::new(requested);
    if folder.is_dir() {
        return environment_interpreter(folder).ok_or_else(|| InterpreterError::NotAnEnvironment {
            path: folder.to_path_buf(),
        });
    }
    if requested.contains('/') {
        let path = PathBuf::from(requested);
        return if path.exists() {
            Ok(path)
        } else {
            Err(InterpreterError::NotFound(path))
        };
    }
    find_on_path(requested, search_path).ok_or_else(|| InterpreterError::NotOnPath(requested.to_string()))
}

/// The interpreter of a venv or conda prefix: both keep it as `bin/python`,
/// and some venvs only as `bin/python3`.
fn environment_interpreter(prefix: &Path) -> Option<PathBuf> {
    [prefix.join("bin/python"), prefix.join("bin/python3")]
        .into_iter()
        .find(|candidate| candidate.exists())
}

fn find_on_path(name: &str, search_path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let found = which::which_in_global(name, Some(search_path?)).ok()?.next()?;
    std::path::absolute(found).ok()
}

/// Asks the interpreter, or reuses its earlier answer when nothing that could
/// change that answer has changed (see `interpreter_cache`).
pub fn inspect(located: &Located, deadline: Duration, use_cache: bool) -> Result<InterpreterAnswer, InterpreterError> {
    // `None`: caching is off, or this interpreter's answers are never cached.
    let key = use_cache
        .then(|| interpreter_cache::Key::for_interpreter(&located.path))
        .flatten();
    if let Some(answer) = key.as_ref().and_then(interpreter_cache::load) {
        return Ok(answer);
    }
    let asked_at = std::time::SystemTime::now();
    let mut answer = query(&located.path, deadline)?;
    // A `sys.path` entry can be a URL with credentials (a PYTHONPATH someone
    // set to one): it is no directory to scan, and must not be recorded, here
    // or in the cache.
    // Issue 32 E12: also `u:S@proxy:3128` and `?token=S`, which have no `://`.
    // Python splits PYTHONPATH at `:` first, so `u:S@proxy:3128` arrives as the
    // pieces `u`, `S@proxy` and `3128` (made absolute): a piece the whole
    // value's redaction masks is masked in sys.path too.
    let masked_pieces = std::env::var("PYTHONPATH")
        .map(|value| crate::redact::masked_pieces(&value, ':'))
        .unwrap_or_default();
    for entry in &mut answer.sys_path {
        let text = entry.to_string_lossy();
        let tainted = masked_pieces
            .iter()
            .any(|piece| text == piece.as_str() || text.ends_with(&format!("/{piece}")));
        let masked = if tainted {
            "***".to_string()
        } else {
            crate::redact::secrets(&text)
        };
        if masked != text {
            *entry = std::path::PathBuf::from(masked);
        }
    }
    if let Some(key) = key {
        interpreter_cache::store(key, &located.path, &answer, asked_at);
    }
    Ok(answer)
}

fn query(path: &Path, deadline: Duration) -> Result<InterpreterAnswer, InterpreterError> {
    if path.is_dir() {
        return Err(InterpreterError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let mut command = Command::new(path);
    // -B: asking must not leave .pyc files behind in the user's environment.
    command.args(["-B", "-c", INTERPRETER_INFO_SCRIPT]);
    let finished = process::run_with_deadline(command, deadline).map_err(|error| match error {
        RunError::Spawn(source) => InterpreterError::Spawn {
            path: path.to_path_buf(),
            source,
        },
        RunError::TimedOut { seconds, .. } => InterpreterError::TimedOut {
            path: path.to_path_buf(),
            seconds,
        },
    })?;

    let stdout = String::from_utf8_lossy(&finished.stdout);
    let answer_line = stdout.lines().rev().find_map(|line| line.strip_prefix(ANSWER_MARKER));
    let last_line = stdout.lines().rfind(|line| !line.trim().is_empty());
    let parsed = answer_line.map(serde_json::from_str::<ScriptOutput>);
    // Without an answer line the program may not be Python at all: `/bin/ls`
    // or a shell given the script. What it said about the script would quote
    // the script back, so its own account of itself is asked instead.
    if parsed.is_none()
        && let Some(reason) = not_python(path, deadline)
    {
        return Err(InterpreterError::NotPython {
            path: path.to_path_buf(),
            reason,
        });
    }
    match (finished.status.success(), parsed) {
        (_, Some(Ok(ScriptOutput::Success(answer)))) => Ok(*answer),
        (_, Some(Ok(ScriptOutput::Error { kind, version }))) if kind == "unsupported_version" => {
            Err(InterpreterError::TooOld {
                path: path.to_path_buf(),
                version: version.unwrap_or_else(|| "unknown".to_string()),
            })
        }
        (true, Some(Err(error))) => Err(InterpreterError::NotPython {
            path: path.to_path_buf(),
            reason: format!("its answer could not be read: {error}"),
        }),
        (true, _) => Err(InterpreterError::NotPython {
            path: path.to_path_buf(),
            reason: printed(last_line),
        }),
        (false, _) => Err(InterpreterError::Failed {
            path: path.to_path_buf(),
            status: process::describe_status(&finished.status),
            stderr: process::failure_line(&finished.stderr)
                .map(|line| format!(": {line}"))
                .unwrap_or_default(),
        }),
    }
}

/// Why `path` is not Python, by what it prints for `--version`; `None` where
/// it is Python (every Python answers `Python 3.11.7`, PyPy and GraalPy by
/// their names too), whose own failure then says what went wrong.
fn not_python(path: &Path, deadline: Duration) -> Option<String> {
    let mut command = Command::new(path);
    command.arg("--version");
    let Ok(finished) = process::run_with_deadline(command, deadline) else {
        return Some("it does not answer `--version` either".to_string());
    };
    let said = String::from_utf8_lossy(&[finished.stdout, finished.stderr].concat()).into_owned();
    if ["Python", "PyPy", "GraalPy"].iter().any(|name| said.contains(name)) {
        return None;
    }
    let first_line = said.lines().map(str::trim).find(|line| !line.is_empty());
    Some(format!("asked for its `--version`, {}", printed(first_line)))
}

/// A line a program printed, shortened: enough to recognise the program.
fn printed(line: Option<&str>) -> String {
    match line {
        None => "it printed nothing".to_string(),
        Some(line) => format!("it printed `{}`", line.chars().take(120).collect::<String>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + use<> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(key, value)| (key.to_string(), OsString::from(value)))
            .collect();
        move |key| map.get(key).cloned()
    }

    #[test]
    fn virtual_env_wins_over_conda_and_path() {
        let venv = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(venv.path().join("bin")).unwrap();
        std::fs::write(venv.path().join("bin/python"), "").unwrap();
        let env = env_of(&[
            ("VIRTUAL_ENV", venv.path().to_str().unwrap()),
            ("CONDA_PREFIX", "/nonexistent-conda"),
        ]);
        let located = locate(None, env).unwrap();
        assert_eq!(located.origin, Origin::VirtualEnv);
        assert_eq!(located.path, venv.path().join("bin/python"));
    }

    #[test]
    fn a_broken_virtual_env_is_an_error_not_a_silent_fallback() {
        let env = env_of(&[("VIRTUAL_ENV", "/nonexistent-venv"), ("PATH", "/usr/bin")]);
        let error = locate(None, env).unwrap_err();
        assert!(matches!(
            error,
            InterpreterError::BrokenEnvironment {
                variable: "VIRTUAL_ENV",
                ..
            }
        ));
    }

    #[test]
    fn path_is_searched_in_order_and_an_empty_one_finds_nothing() {
        let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for directory in [&first, &second] {
            let python = directory.path().join("python3");
            std::fs::write(&python, "").unwrap();
            std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
        let search = format!("{}:{}", first.path().display(), second.path().display());
        let located = locate(None, env_of(&[("PATH", &search)])).unwrap();
        assert_eq!(
            (located.path, located.origin),
            (first.path().join("python3"), Origin::Path)
        );

        // An empty PATH finds nothing, wherever this runs.
        let error = locate(None, env_of(&[("PATH", "")])).unwrap_err();
        assert!(matches!(error, InterpreterError::NoneFound), "{error}");
        let error = locate(Some("python3"), env_of(&[])).unwrap_err();
        assert!(matches!(error, InterpreterError::NotOnPath(_)), "{error}");
    }

    #[test]
    fn the_script_prints_the_marker_this_side_looks_for() {
        let definition = format!("ANSWER_MARKER = \"{ANSWER_MARKER}\"");
        assert!(INTERPRETER_INFO_SCRIPT.contains(&definition), "{definition}");
    }

    #[test]
    fn a_flag_folder_is_taken_for_the_environment_it_holds() {
        let prefix = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(prefix.path().join("bin")).unwrap();
        let flag = prefix.path().to_str().unwrap();
        let error = locate(Some(flag), env_of(&[])).unwrap_err();
        assert!(matches!(error, InterpreterError::NotAnEnvironment { .. }), "{error}");

        // Some environments have only bin/python3; bin/python wins where both are.
        std::fs::write(prefix.path().join("bin/python3"), "").unwrap();
        let located = locate(Some(flag), env_of(&[])).unwrap();
        assert_eq!(
            (located.path, located.origin),
            (prefix.path().join("bin/python3"), Origin::Flag)
        );
        std::fs::write(prefix.path().join("bin/python"), "").unwrap();
        assert_eq!(
            locate(Some(flag), env_of(&[])).unwrap().path,
            prefix.path().join("bin/python")
        );
    }

    #[test]
    fn a_flag_path_that_does_not_exist_is_named() {
        let error = locate(Some("/no/such/python"), env_of(&[])).unwrap_err();
        assert_eq!(error.to_string(), "Python interpreter `/no/such/python` does not exist");
    }
}
