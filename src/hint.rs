//! The command that fixes or explains an error, which the error line shows
//! after the error and its causes as `hint: ...`. A typed error says its hint
//! by implementing [`HasHint`] (and is listed in `error_line`); code at the
//! edges adds one to any error with [`WithHint::hint`].
//!
//! A hint names something to run, with the command in backticks; advice
//! without a command belongs in the message.

use std::fmt;

/// An error type that knows, for some of its cases, what to run.
pub trait HasHint {
    fn hint(&self) -> Option<String>;
}

/// Where a file came from a newer envdoctor: install the newer one, the way
/// this binary was installed (see [`upgrade_for`]).
pub fn upgrade() -> &'static str {
    static HINT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    HINT.get_or_init(|| match std::env::current_exe() {
        Ok(exe) => upgrade_for(&exe),
        Err(_) => FROM_CHECKOUT,
    })
}

const FROM_CHECKOUT: &str = "upgrade envdoctor to read it: `./install.sh` in a newer checkout";
const FROM_WHEEL: &str = "upgrade envdoctor to read it: `pip install -U envdoctor-*.whl` with the newer wheel, into the same Python environment";

/// The upgrade hint for the binary at `exe` (symbolic links resolved, as
/// `current_exe` gives it: pipx's and uv's links lead into their environments).
/// pip installs the wheel's binary into a scheme's `bin/` and its metadata,
/// `envdoctor-VERSION.dist-info`, into the same prefix's site-packages (or
/// Debian's dist-packages; lib64 where platlib is there): that pair means a
/// wheel install, whether a venv, pipx, uvx, `--user` or the system's.
/// Anything else came from a checkout (`./install.sh` or cargo).
pub fn upgrade_for(exe: &std::path::Path) -> &'static str {
    let Some(prefix) = exe.parent().and_then(std::path::Path::parent) else {
        return FROM_CHECKOUT;
    };
    let has_dist_info = |packages: std::path::PathBuf| {
        std::fs::read_dir(packages)
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with("envdoctor-") && name.ends_with(".dist-info")
            })
    };
    let from_wheel = ["lib", "lib64"].iter().any(|lib| {
        std::fs::read_dir(prefix.join(lib))
            .into_iter()
            .flatten()
            .flatten()
            .any(|python| {
                python.file_name().to_string_lossy().starts_with("python")
                    && ["site-packages", "dist-packages"]
                        .iter()
                        .any(|packages| has_dist_info(python.path().join(packages)))
            })
    });
    if from_wheel { FROM_WHEEL } else { FROM_CHECKOUT }
}

/// An error with a hint given where it was handled. It displays, and chains
/// its causes, as the error itself, so the hint adds nothing to the chain.
#[derive(Debug)]
pub struct Hinted {
    error: anyhow::Error,
    hint: String,
}

impl Hinted {
    pub fn new(error: impl Into<anyhow::Error>, hint: impl Into<String>) -> Hinted {
        Hinted {
            error: error.into(),
            hint: hint.into(),
        }
    }
}

impl fmt::Display for Hinted {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `{}` of an anyhow::Error is its outermost message only; the causes follow in the chain.
        write!(formatter, "{}", self.error)
    }
}

impl std::error::Error for Hinted {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

impl HasHint for Hinted {
    fn hint(&self) -> Option<String> {
        Some(self.hint.clone())
    }
}

/// `.hint("run `...`")` on a result whose error should carry one.
pub trait WithHint<T> {
    fn hint(self, hint: impl Into<String>) -> Result<T, Hinted>;
}

impl<T, E: Into<anyhow::Error>> WithHint<T> for Result<T, E> {
    fn hint(self, hint: impl Into<String>) -> Result<T, Hinted> {
        self.map_err(|error| Hinted::new(error, hint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hinted_error_displays_and_chains_as_the_error() {
        let error: Result<(), _> = Err(anyhow::anyhow!("inner").context("outer"));
        let hinted = error.hint("run `x`").unwrap_err();
        assert_eq!(hinted.to_string(), "outer");
        assert_eq!(std::error::Error::source(&hinted).unwrap().to_string(), "inner");
        assert_eq!(hinted.hint().as_deref(), Some("run `x`"));
    }

    #[test]
    fn the_upgrade_hint_names_how_the_binary_was_installed() {
        let root = tempfile::tempdir().unwrap();
        // A venv (or pipx's, uv's) after `pip install envdoctor-*.whl`.
        let venv = root.path().join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::create_dir_all(venv.join("lib/python3.9/site-packages/envdoctor-0.1.0.dist-info")).unwrap();
        assert_eq!(upgrade_for(&venv.join("bin/envdoctor")), FROM_WHEEL);
        // Debian's system pip: /usr/local/lib/python3.11/dist-packages.
        let local = root.path().join("usr/local");
        std::fs::create_dir_all(local.join("lib/python3.11/dist-packages/envdoctor-0.2.0.dist-info")).unwrap();
        assert_eq!(upgrade_for(&local.join("bin/envdoctor")), FROM_WHEEL);
        // ./install.sh's ~/.local/bin, beside a Python prefix that holds other packages only.
        let home = root.path().join("home/.local");
        std::fs::create_dir_all(home.join("lib/python3.11/site-packages/envdoctorx-1.0.dist-info")).unwrap();
        assert_eq!(upgrade_for(&home.join("bin/envdoctor")), FROM_CHECKOUT);
        // cargo's target/release, and a path with no parent to look in.
        assert_eq!(
            upgrade_for(&root.path().join("target/release/envdoctor")),
            FROM_CHECKOUT
        );
        assert_eq!(upgrade_for(std::path::Path::new("envdoctor")), FROM_CHECKOUT);
        assert!(FROM_WHEEL.contains("`pip install -U envdoctor-*.whl`"));
    }
}
