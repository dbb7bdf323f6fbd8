//! Text searched with ASCII case ignored. Lowercasing ASCII moves no byte, so
//! an offset found here is an offset into the text as written, and nothing
//! is copied to find it.

/// Where `needle` first starts in `haystack`, ASCII case ignored.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Whether `haystack` holds `needle`, ASCII case ignored.
pub fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offsets are the text's own, also past characters beyond ASCII, whose
    /// case is left as it is.
    #[test]
    fn offsets_are_the_texts_own_and_only_ascii_case_is_ignored() {
        assert_eq!(find("Näme: RuntimeError: x", "runtimeerror:"), Some(7));
        assert_eq!(find("abc", ""), Some(0));
        assert_eq!(find("ab", "abc"), None);
        assert!(contains("Torch NOT compiled with XPU", "not compiled"));
        assert!(!contains("NÄME", "näme"));
    }
}
