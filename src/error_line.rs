//! envdoctor's own error as the one line it prints on stderr:
//!
//! ```text
//! error: OUTERMOST; caused by: INNER; caused by: INNERMOST; hint: WHAT TO RUN
//! ```
//!
//! One line, so CI logs and grep keep it whole; what it quotes from input is
//! escaped, so input can neither start a line of its own nor send terminal
//! escapes. A reader's error is `path:line:column: problem` (`crate::located`).

use std::error::Error;

use crate::escape::one_line;
use crate::hint::{HasHint, Hinted};

/// The line, without the program's name and without a line break.
pub fn render(error: &anyhow::Error) -> String {
    let mut line = format!("error: {error}");
    for cause in error.chain().skip(1) {
        line.push_str("; caused by: ");
        line.push_str(&cause.to_string());
    }
    // Bounded before the hint is added, so that a long error cannot push it out.
    let mut line = one_line(&line);
    if let Some(hint) = error.chain().find_map(hint_of) {
        line.push_str("; hint: ");
        line.push_str(&one_line(&hint));
    }
    line
}

/// The hint of one error of the chain. Every error type that has hints is
/// listed here: a chain holds `dyn Error`, which names no trait of ours.
fn hint_of(error: &(dyn Error + 'static)) -> Option<String> {
    fn as_hinted<E: HasHint + Error + 'static>(error: &(dyn Error + 'static)) -> Option<String> {
        error.downcast_ref::<E>().and_then(HasHint::hint)
    }
    as_hinted::<Hinted>(error)
        .or_else(|| as_hinted::<crate::snapshot::ReadError>(error))
        .or_else(|| as_hinted::<crate::lock::file::ReadError>(error))
        .or_else(|| as_hinted::<crate::matrix::MatrixError>(error))
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::hint::WithHint;

    #[test]
    fn causes_follow_the_error_and_the_hint_comes_last() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let error = anyhow::Error::new(io).context("cannot read `a`");
        assert_eq!(render(&error), "error: cannot read `a`; caused by: gone");
        let hinted: anyhow::Error = Err::<(), _>(error).hint("run `envdoctor lock`").unwrap_err().into();
        assert_eq!(
            render(&hinted.context("cannot verify")),
            "error: cannot verify; caused by: cannot read `a`; caused by: gone; hint: run `envdoctor lock`"
        );
    }

    #[test]
    fn input_cannot_break_the_line_nor_push_the_hint_out() {
        let long = format!("bad\n{}", "x".repeat(5000));
        let error: anyhow::Error = Err::<(), _>(anyhow::anyhow!(long)).hint("run `y`").unwrap_err().into();
        let line = render(&error);
        assert!(line.starts_with("error: bad\\nxxx"), "{line}");
        assert!(line.ends_with("more characters); hint: run `y`"), "{line}");
    }
}
