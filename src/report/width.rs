//! How wide text output may be: the one width every text renderer wraps to.
//!
//! `COLUMNS` first (the user's or the shell's word), then the terminal's own
//! width when standard output is one, else [`DEFAULT`], so that files, pipes
//! and the golden outputs do not depend on who ran the command.

use std::ffi::OsStr;

/// The width of text written to a file or a pipe, and the widest text ever
/// gets: prose wider than this is hard to read, whatever the terminal.
pub const DEFAULT: usize = 100;

/// The narrowest width honoured: below it the labels and indents of the
/// reports leave no room for their text.
pub const MINIMUM: usize = 40;

/// The width for output to a terminal (`to_terminal`) or elsewhere.
pub fn for_output(to_terminal: bool) -> usize {
    chosen(
        std::env::var_os("COLUMNS").as_deref(),
        to_terminal.then(terminal_columns).flatten(),
    )
}

/// `COLUMNS` when it is a positive number, else the terminal's columns, else
/// the default; kept between [`MINIMUM`] and [`DEFAULT`].
fn chosen(columns: Option<&OsStr>, terminal: Option<usize>) -> usize {
    let from_columns = columns
        .and_then(OsStr::to_str)
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|&columns| columns > 0);
    from_columns.or(terminal).unwrap_or(DEFAULT).clamp(MINIMUM, DEFAULT)
}

/// The columns of the terminal on standard output; `None` when it is not one
/// or does not say (a serial console may answer 0).
fn terminal_columns() -> Option<usize> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct it is given and nothing else.
    let answered = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (answered && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(text: &str) -> Option<&OsStr> {
        Some(OsStr::new(text))
    }

    #[test]
    fn columns_comes_before_the_terminal() {
        assert_eq!(chosen(columns("80"), Some(120)), 80);
        assert_eq!(chosen(columns(" 72 "), None), 72);
    }

    #[test]
    fn the_terminal_decides_without_a_usable_columns() {
        for unusable in ["", "wide", "-5", "0", "80x"] {
            assert_eq!(chosen(columns(unusable), Some(64)), 64, "{unusable:?}");
        }
        assert_eq!(chosen(None, Some(64)), 64);
    }

    #[test]
    fn files_and_pipes_get_the_default() {
        assert_eq!(chosen(None, None), DEFAULT);
        assert_eq!(chosen(columns("junk"), None), DEFAULT);
    }

    #[test]
    fn the_width_stays_between_the_minimum_and_the_default() {
        assert_eq!(chosen(columns("10"), None), MINIMUM);
        assert_eq!(chosen(None, Some(3)), MINIMUM);
        assert_eq!(chosen(columns("300"), None), DEFAULT);
        assert_eq!(chosen(None, Some(250)), DEFAULT);
    }
}
