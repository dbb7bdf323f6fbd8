//! Distribution names as the packaging specifications compare them.

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

#[cfg(test)]
mod tests {
    use super::normalize_name;

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
