//! The parts of `envdoctor fix --apply` that touch the environment: which
//! environments it may change, the lock file that keeps two envdoctors from
//! interleaving, and running the plan's steps. `commands::fix` puts them in
//! order: lock, record, back up, run, check, and keep or put back.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::process::{self, SignalGuard};
use crate::snapshot::python::Python;

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(
        "{python} is not in a virtual environment or a conda prefix: envdoctor changes a system Python only with --system (and never runs sudo)"
    )]
    SystemPython { python: String },
    #[error("another `envdoctor fix --apply`{holder} is changing {prefix}; run again when it has finished")]
    Busy { prefix: String, holder: String },
    #[error(
        "an earlier `envdoctor fix --apply` on {prefix} was interrupted and left its backup in {backup}: `envdoctor fix --restore --python {python}` puts the environment back as it was before that apply"
    )]
    Interrupted {
        prefix: String,
        backup: String,
        python: String,
    },
    #[error("cannot take the lock file {path}: {source}")]
    LockFile { path: String, source: io::Error },
    #[error("{program} was not found on PATH; the environment was made by uv, and uv installs into it")]
    NoInstaller { program: String },
}

/// Whether envdoctor may change the environment of `python`: a virtual
/// environment or a conda prefix (`conda-meta` is conda's own record of
/// one), or any with `--system`.
pub fn changeable(python: &Python, system: bool) -> Result<(), ApplyError> {
    if system || python.is_virtual_env || python.prefix.join("conda-meta").is_dir() {
        return Ok(());
    }
    Err(ApplyError::SystemPython {
        python: python.executable.display().to_string(),
    })
}

/// An exclusive `flock` on `PREFIX/.envdoctor-fix/lock`, held while an apply
/// runs. The kernel drops it when the process ends, however it ends, so a
/// killed envdoctor never leaves the environment locked.
pub struct EnvironmentLock {
    _file: File,
}

impl EnvironmentLock {
    /// Takes the lock at once or says who holds it.
    pub fn take(prefix: &Path) -> Result<EnvironmentLock, ApplyError> {
        let directory = super::backup::state_dir(prefix);
        let path = directory.join("lock");
        let failed = |source: io::Error| ApplyError::LockFile {
            path: path.display().to_string(),
            source,
        };
        std::fs::create_dir_all(&directory).map_err(failed)?;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(failed)?;
        // SAFETY: flock on a descriptor this File owns; no memory is shared.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !taken {
            let error = io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(failed(error));
            }
            let holder = crate::bounded_read::read_to_string(&path, 64)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok())
                .map(|pid| format!(" (process {pid})"))
                .unwrap_or_default();
            return Err(ApplyError::Busy {
                prefix: prefix.display().to_string(),
                holder,
            });
        }
        // Who holds it, for the message of the envdoctor that waits.
        file.set_len(0).map_err(failed)?;
        write!(file, "{}", std::process::id()).map_err(failed)?;
        Ok(EnvironmentLock { _file: file })
    }
}

/// The interrupted apply's backup, if one is left in `prefix`: the
/// environment may be half-changed, so nothing runs until it is put back.
pub fn no_backup_left(prefix: &Path, python: &Path) -> Result<(), ApplyError> {
    let root = super::backup::backup_root(prefix);
    if root.exists() {
        return Err(ApplyError::Interrupted {
            prefix: prefix.display().to_string(),
            backup: root.display().to_string(),
            python: python.display().to_string(),
        });
    }
    Ok(())
}

/// How a step ended, when it did not succeed.
#[derive(Debug, Clone)]
pub enum StepFailure {
    /// The installer said no: the step, and how it ended.
    Failed { step: String, status: String },
    /// envdoctor was told to stop; the installer was killed.
    Interrupted(libc::c_int),
}

impl std::fmt::Display for StepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepFailure::Failed { step, status } => write!(f, "`{step}` ended with {status}"),
            StepFailure::Interrupted(signal) => {
                write!(f, "envdoctor was interrupted by {}", process::signal_name(*signal))
            }
        }
    }
}

/// Runs each step in turn, its output on envdoctor's standard error (the
/// report owns standard output), until one fails. Each runs in its own
/// process group, which a signal to envdoctor kills, so Ctrl-C or a
/// scheduler's SIGTERM stops pip and leaves envdoctor to put things back.
pub(crate) fn run_steps(steps: &[Vec<String>], guard: &SignalGuard) -> Result<(), StepFailure> {
    for step in steps {
        if let Some(signal) = guard.interrupted() {
            return Err(StepFailure::Interrupted(signal));
        }
        let shown = step.join(" ");
        eprintln!("envdoctor: running {}", crate::escape::one_line(&shown));
        let (program, arguments) = step.split_first().expect("a step has a program");
        let stdout = io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map_or_else(|_| Stdio::inherit(), Stdio::from);
        let spawned = crate::process::spawn(
            Command::new(program)
                .args(arguments)
                .stdin(Stdio::null())
                .stdout(stdout)
                .process_group(0),
        );
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => {
                return Err(StepFailure::Failed {
                    step: shown,
                    status: format!("an error before it ran ({error})"),
                });
            }
        };
        guard.watch(child.id() as libc::pid_t);
        let status = child.wait();
        if let Some(signal) = guard.interrupted() {
            return Err(StepFailure::Interrupted(signal));
        }
        match status {
            Ok(status) if status.success() => {}
            Ok(status) => {
                return Err(StepFailure::Failed {
                    step: shown,
                    status: process::describe_status(&status),
                });
            }
            Err(error) => {
                return Err(StepFailure::Failed {
                    step: shown,
                    status: format!("an error while waiting for it ({error})"),
                });
            }
        }
    }
    Ok(())
}

/// The findings of one check, as an apply reports them before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub errors: usize,
    pub warnings: usize,
    /// The ids at warning or above.
    pub ids: Vec<String>,
}

impl Judged {
    pub fn of(findings: &[crate::findings::Finding]) -> Judged {
        use crate::findings::Severity;
        let count = |severity| findings.iter().filter(|finding| finding.severity == severity).count();
        let mut ids: Vec<String> = findings
            .iter()
            .filter(|finding| finding.severity >= Severity::Warning)
            .map(|finding| finding.id.clone())
            .collect();
        ids.sort();
        ids.dedup();
        Judged {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            ids,
        }
    }

    /// The problems `after` has that this check did not: an apply that
    /// raises one is worse, whatever it fixed.
    pub fn new_in(&self, after: &Judged) -> Vec<String> {
        after.ids.iter().filter(|id| !self.ids.contains(id)).cloned().collect()
    }
}

/// What `--apply` did, in the plan's JSON as `apply`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Applied {
    /// The lock of the environment as it was before.
    pub before_lock: PathBuf,
    pub before: Judged,
    /// The check after the steps ran; `None` when a step failed.
    pub after: Option<Judged>,
    /// Whether the plan's changes stand.
    pub kept: bool,
    /// Why the environment was put back, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub put_back_because: Option<String>,
    /// After putting back: what differs from the lock taken before (empty: it
    /// verifies clean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_after_put_back: Option<Vec<String>>,
}

impl Judged {
    fn counts(&self) -> String {
        use super::plural;
        let mut line = format!("{}, {}", plural(self.errors, "error"), plural(self.warnings, "warning"));
        if !self.ids.is_empty() {
            line.push_str(&format!(" ({})", self.ids.join(", ")));
        }
        line
    }
}

impl Applied {
    /// The lines the text report ends with: what was done, before and after.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        match &self.put_back_because {
            None => out.push_str("Applied.\n"),
            Some(why) => out.push_str(&format!("Not applied: {why}.\n")),
        }
        out.push_str(&format!("  before: {}\n", self.before.counts()));
        if let Some(after) = &self.after {
            out.push_str(&format!("  after:  {}\n", after.counts()));
        }
        match self.drift_after_put_back.as_deref() {
            None => out.push_str(&format!(
                "  the environment before is recorded in {}\n",
                self.before_lock.display()
            )),
            Some([]) => out.push_str(&format!(
                "  put back: the environment verifies clean against {}\n",
                self.before_lock.display()
            )),
            Some(drift) => {
                out.push_str(&format!(
                    "  put back, but it differs from {} in:\n",
                    self.before_lock.display()
                ));
                for item in drift {
                    out.push_str(&format!("    {item}\n"));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_apply_on_the_same_environment_is_refused_naming_the_first() {
        let prefix = tempfile::tempdir().unwrap();
        let first = EnvironmentLock::take(prefix.path()).unwrap();
        let second = EnvironmentLock::take(prefix.path()).err().expect("the lock is held");
        let message = second.to_string();
        assert!(
            message.contains(&format!("(process {})", std::process::id())),
            "{message}"
        );
        drop(first);
        // The lock belongs to the open file, and a sibling test that spawns
        // a process copies every descriptor into its child until that
        // child's exec closes them; for that moment the dropped lock is
        // still held. Waiting out such a window is what this test allows;
        // a lock that drop never lets go still fails it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match EnvironmentLock::take(prefix.path()) {
                Ok(_) => break,
                Err(ApplyError::Busy { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                Err(error) => panic!("free again once the first lets go: {error}"),
            }
        }
    }

    #[test]
    fn a_new_problem_after_is_worse_whatever_was_fixed() {
        let before = Judged {
            errors: 2,
            warnings: 0,
            ids: vec!["a".into(), "b".into()],
        };
        let fixed = Judged {
            errors: 0,
            warnings: 0,
            ids: vec![],
        };
        let traded = Judged {
            errors: 1,
            warnings: 0,
            ids: vec!["c".into()],
        };
        assert!(before.new_in(&fixed).is_empty());
        assert_eq!(before.new_in(&traded), ["c"]);
    }
}
