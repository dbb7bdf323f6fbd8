//! Which program installs the plan: the judged interpreter's own pip, or
//! `uv pip` for an environment uv made. uv's virtual environments have no
//! pip of their own, and pip run by another interpreter would not know
//! uv's cache or settings, so the plan follows whoever made the environment.

use std::path::{Path, PathBuf};

use super::{Word, literal, value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installer {
    /// `PYTHON -m pip`.
    Pip(PathBuf),
    /// `uv pip ... --python PYTHON`.
    Uv(PathBuf),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Install,
    Uninstall,
}

impl Installer {
    /// The installer of the environment whose interpreter is `python` and
    /// whose prefix is `prefix`: uv when the prefix's `pyvenv.cfg` says uv
    /// made it (uv writes `uv = VERSION` there; venv and virtualenv do not).
    /// A Snapshot replayed elsewhere has no `pyvenv.cfg` to read: pip.
    pub fn for_environment(python: &Path, prefix: &Path) -> Installer {
        if made_by_uv(prefix) {
            Installer::Uv(python.to_path_buf())
        } else {
            Installer::Pip(python.to_path_buf())
        }
    }

    pub fn python(&self) -> &Path {
        match self {
            Installer::Pip(python) | Installer::Uv(python) => python,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Installer::Pip(_) => "pip",
            Installer::Uv(_) => "uv",
        }
    }

    /// The words that start a step: the program, its action, and the
    /// interpreter it acts on.
    pub(super) fn words(&self, action: Action) -> Vec<Word> {
        let python = value(&self.python().display().to_string());
        match (self, action) {
            (Installer::Pip(_), Action::Install) => vec![python, literal("-m"), literal("pip"), literal("install")],
            (Installer::Pip(_), Action::Uninstall) => {
                vec![
                    python,
                    literal("-m"),
                    literal("pip"),
                    literal("uninstall"),
                    literal("-y"),
                ]
            }
            // `uv pip uninstall` asks nothing, so it needs no `-y`.
            (Installer::Uv(_), action) => vec![
                literal("uv"),
                literal("pip"),
                literal(match action {
                    Action::Install => "install",
                    Action::Uninstall => "uninstall",
                }),
                literal("--python"),
                python,
            ],
        }
    }
}

fn made_by_uv(prefix: &Path) -> bool {
    let Ok(text) = crate::bounded_read::read_to_string(&prefix.join("pyvenv.cfg"), 64 << 10) else {
        return false;
    };
    text.lines()
        .filter_map(|line| line.split_once('='))
        .any(|(key, _)| key.trim() == "uv")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_uv_made_is_installed_into_by_uv() {
        let prefix = tempfile::tempdir().unwrap();
        let python = prefix.path().join("bin/python");
        assert_eq!(
            Installer::for_environment(&python, prefix.path()),
            Installer::Pip(python.clone())
        );
        std::fs::write(
            prefix.path().join("pyvenv.cfg"),
            "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
        )
        .unwrap();
        assert_eq!(Installer::for_environment(&python, prefix.path()).name(), "pip");
        std::fs::write(
            prefix.path().join("pyvenv.cfg"),
            "home = /usr/bin\nimplementation = CPython\nuv = 0.9.2\nversion_info = 3.11.7\n",
        )
        .unwrap();
        assert_eq!(
            Installer::for_environment(&python, prefix.path()),
            Installer::Uv(python)
        );
    }
}
