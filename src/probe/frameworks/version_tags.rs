//! The build facts that wheels write into version strings: PEP 440 local labels
//! (`2.3.1+cu121`) and compact CUDA versions (`121`).

use std::str::FromStr;

use pep440_rs::Version;

/// The PEP 440 local label, after `+`: `cu121` in `2.3.1+cu121`.
pub fn local_label(version: &str) -> Option<&str> {
    version
        .split_once('+')
        .map(|(_, label)| label)
        .filter(|label| !label.is_empty())
}

/// A compact CUDA version as build scripts write it, `${CUDA_VERSION//./}`: `121`
/// is 12.1 and `102` is 10.2 (CUDA minors have one digit); the two-digit form
/// of CUDA 9 (`92`) is 9.2.
pub fn compact_cuda(digits: &str) -> Option<String> {
    if !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    match digits.len() {
        2 => Some(format!("{}.{}", &digits[..1], &digits[1..])),
        3 => Some(format!("{}.{}", &digits[..2], &digits[2..])),
        _ => None,
    }
}

/// The leading run of ASCII digits, and what follows it.
pub fn split_digits(text: &str) -> (&str, &str) {
    let end = text
        .find(|character: char| !character.is_ascii_digit())
        .unwrap_or(text.len());
    text.split_at(end)
}

/// When a version recorded in a framework's own files and the version in its
/// metadata differ beyond the local label, files of two installs are mixed: an
/// upgrade that was interrupted, or a copy over an installed tree.
pub fn recorded_version_problem(recorded: &str, file: &std::path::Path, metadata: Option<&str>) -> Option<String> {
    let metadata = metadata?;
    let public = |text: &str| Version::from_str(text).ok().map(Version::without_local);
    match (public(recorded), public(metadata)) {
        (Some(left), Some(right)) if left != right => Some(format!(
            "{}: records version {recorded}, but the installed distribution's metadata says {metadata}: \
             files of two installs are mixed",
            file.display()
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_compact_cuda() {
        assert_eq!(local_label("2.3.1+cu121"), Some("cu121"));
        assert_eq!(local_label("2.3.1"), None);
        assert_eq!(compact_cuda("121"), Some("12.1".to_string()));
        assert_eq!(compact_cuda("102"), Some("10.2".to_string()));
        assert_eq!(compact_cuda("92"), Some("9.2".to_string()));
        assert_eq!(compact_cuda("1"), None);
        assert_eq!(compact_cuda("12a"), None);
    }

    #[test]
    fn only_a_different_public_version_is_a_mix() {
        let file = std::path::Path::new("torch/version.py");
        assert_eq!(recorded_version_problem("2.3.1+cu121", file, Some("2.3.1")), None);
        assert_eq!(recorded_version_problem("2.3.1+cu121", file, None), None);
        let problem = recorded_version_problem("2.4.0+cu121", file, Some("2.3.1")).unwrap();
        assert!(
            problem.starts_with("torch/version.py: records version 2.4.0+cu121"),
            "{problem}"
        );
    }
}
