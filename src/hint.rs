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

/// Where a file came from a newer envdoctor: install the newer one.
pub const UPGRADE: &str = "upgrade envdoctor to read it: `./install.sh` in a newer checkout";

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
}
