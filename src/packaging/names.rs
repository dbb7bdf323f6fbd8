//! Distribution names as the packaging specifications compare them, and
//! requirements (PEP 508) that name them.

/// PEP 503 normalization: lower case, and every run of `-`, `_` and `.` one
/// `-`, which is how pip, indexes and lock files tell two spellings apart.
pub fn normalize_name(name: &str) -> String {
    let mut normalized = String::with_capacity(name.len());
    let mut in_separator_run = false;
    for character in name.trim().chars() {
        if matches!(character, '-' | '_' | '.') {
            in_separator_run = true;
            continue;
        }
        if in_separator_run && !normalized.is_empty() {
            normalized.push('-');
        }
        in_separator_run = false;
        normalized.push(character.to_ascii_lowercase());
    }
    normalized
}

/// A PEP 508 requirement, as pep508_rs parses it, from text a stranger wrote
/// (a package's `Requires-Dist`, a fix's pip command). A name that ends in
/// `.`, `-` or `_` before anything but the end (`a_+`, `a- >=1`) makes
/// pep508_rs 0.9.2 panic (its check of the name it parsed is an `expect`):
/// `check` exited 101 on such a `Requires-Dist`. Refused here first, with the
/// words pep508_rs uses for the same name at the end of a line.
pub fn parse_requirement(line: &str) -> Result<pep508_rs::Requirement<pep508_rs::VerbatimUrl>, String> {
    let name_end = line
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .last();
    if let Some(last @ ('.' | '-' | '_')) = name_end {
        return Err(format!(
            "Package name must end with an alphanumeric character, not '{last}'"
        ));
    }
    // The message alone: pep508_rs's own Display of the error underlines the
    // place by slicing the input at a character count taken as a byte
    // offset, which panics on a requirement holding U+2028 (found by the
    // long-strings fuzz target).
    line.parse()
        .map_err(|error: pep508_rs::Pep508Error<pep508_rs::VerbatimUrl>| error.message.to_string())
}

#[cfg(test)]
mod tests {
    use super::{normalize_name, parse_requirement};

    #[test]
    fn a_name_ending_in_a_separator_is_an_error_not_a_panic() {
        for line in [
            "a_+",
            "a- >=1",
            "a.;python_version>'3'",
            " x_[extra]",
            "a_",
            "\u{2028}",
            "é>=1",
            "a>=1;\u{2028}",
        ] {
            assert!(parse_requirement(line).is_err(), "{line}");
        }
        let requirement = parse_requirement("torch_x.y-z>=2.1; python_version >= '3.10'").unwrap();
        assert_eq!(requirement.name.as_ref(), "torch-x-y-z");
    }

    #[test]
    fn pep_503_examples() {
        for spelling in [
            "friendly-bard",
            "Friendly-Bard",
            "FRIENDLY-BARD",
            "friendly.bard",
            "friendly_bard",
            "friendly--bard",
            "FrIeNdLy-._.-bArD",
        ] {
            assert_eq!(normalize_name(spelling), "friendly-bard", "{spelling}");
        }
    }
}
