//! Which reference the short view of a cause shows. An entry's own
//! references are about it, except for the generic causes the readers fill in
//! (any package's requirement, any library, any extension, any name): theirs
//! are examples from other packages (NumPy's release notes for a name spconv
//! lacks), and the reading's own source, where it has one, is in its evidence.
//! Those show a reference only where it is about no one project (a manual
//! page, a packaging specification) or about a project the evidence names.

use super::rank::Candidate;

impl Candidate {
    /// The reference `explain` shows without `--verbose`, if any: the entry's
    /// first; for a generic cause, the first that is about no one project (a
    /// manual page, a packaging specification) or about one its evidence names.
    pub fn leading_reference(&self) -> Option<&str> {
        if !super::readers::GENERIC.contains(&self.id.as_str()) {
            return self.references.first().map(String::as_str);
        }
        let said: String = self
            .evidence
            .iter()
            .map(|evidence| evidence.text.to_ascii_lowercase().replace('_', "-"))
            .collect::<Vec<_>>()
            .join("\n");
        self.references
            .iter()
            .map(String::as_str)
            .find(|reference| project_of(reference).is_none_or(|project| names(&said, &project)))
    }
}

/// The project a URL is about, lowercase with `_` as `-`: a repository's name
/// on a forge, a Read the Docs site's name, else the host's own name
/// (`numpy.org`: numpy). `None` for hosts of documentation about no one
/// project (a manual page, Python's or NVIDIA's documentation).
fn project_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let mut parts = rest.split('/');
    let host = parts.next()?.to_ascii_lowercase();
    let project = if FORGES.contains(&host.as_str()) {
        parts.nth(1)?.to_string()
    } else if let Some(site) = host.strip_suffix(".readthedocs.io") {
        site.to_string()
    } else {
        let labels: Vec<&str> = host.split('.').collect();
        let name = labels.get(labels.len().checked_sub(2)?)?;
        if GENERAL_HOSTS.contains(name) {
            return None;
        }
        name.to_string()
    };
    Some(project.to_ascii_lowercase().replace('_', "-"))
}

/// Hosts whose second path part is a repository.
const FORGES: [&str; 4] = ["github.com", "gitlab.com", "bitbucket.org", "huggingface.co"];

/// Hosts (by the name before the top-level domain) of documentation about no
/// one project: manual pages, Python's and PyPA's, NVIDIA's, Rust's, conda's.
const GENERAL_HOSTS: [&str; 9] = [
    "man7",
    "python",
    "pypa",
    "nvidia",
    "docs",
    "anaconda",
    "kitware",
    "cppreference",
    "gnu",
];

/// Whether `text` (lowercase) has `word` with no letter or digit either side.
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric()) && !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::rank::{Evidence, EvidenceKind};

    fn candidate(id: &str, evidence: &str, references: &[&str]) -> Candidate {
        Candidate {
            id: id.to_string(),
            kind: crate::explain::rank::CauseKind::Symptom,
            confidence: crate::explain::Confidence::Likely,
            score: 0,
            tier: 1,
            specific: false,
            owner_guessed: false,
            read_by: None,
            title: String::new(),
            evidence: vec![Evidence {
                kind: EvidenceKind::Stated,
                holds: Some(true),
                text: evidence.to_string(),
            }],
            why: String::new(),
            fix: String::new(),
            fix_note: None,
            references: references.iter().map(|reference| reference.to_string()).collect(),
        }
    }

    const NUMPY_NOTES: &str = "https://numpy.org/doc/stable/release/1.24.0-notes.html";
    const HUB: &str = "https://github.com/huggingface/huggingface_hub/releases/tag/v0.26.0";

    /// pointpainting34: NumPy's notes are no reading of a name spconv lacks.
    #[test]
    fn a_generic_cause_shows_only_a_reference_about_what_its_evidence_names() {
        let spconv = candidate(
            "package-lacks-used-name",
            "the job's code imports spconv.utils.VoxelGenerator from the spconv installed in site-packages",
            &[NUMPY_NOTES, HUB],
        );
        assert_eq!(spconv.leading_reference(), None);
        let numpy = candidate(
            "package-lacks-used-name",
            "cython-bbox uses numpy.float, which numpy 1.24.0 removed",
            &[NUMPY_NOTES, HUB],
        );
        assert_eq!(numpy.leading_reference(), Some(NUMPY_NOTES));
        let hub = candidate(
            "package-lacks-used-name",
            "the code uses huggingface_hub.cached_download, which huggingface_hub 0.26.0 removed",
            &[NUMPY_NOTES, HUB],
        );
        assert_eq!(hub.leading_reference(), Some(HUB));
        // A word inside another is not it: `numpy` is not in `numpyro`.
        let numpyro = candidate("package-lacks-used-name", "numpyro.infer lacks it", &[NUMPY_NOTES]);
        assert_eq!(numpyro.leading_reference(), None);
        // A manual page is about no one project: shown whatever the evidence names.
        let man = "https://man7.org/linux/man-pages/man8/ld.so.8.html";
        let library = candidate("shared-library-missing", "libcublas.so.11 is not found", &[man]);
        assert_eq!(library.leading_reference(), Some(man));
    }

    #[test]
    fn an_entry_about_one_failure_shows_its_first_reference() {
        let rule = candidate(
            "deepspeed-zero3-offload-device-mismatch",
            "anything",
            &[NUMPY_NOTES, HUB],
        );
        assert_eq!(rule.leading_reference(), Some(NUMPY_NOTES));
    }
}
