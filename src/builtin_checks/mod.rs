//! Built-in checks: what needs computing rather than matching (dependency
//! consistency, which GPU architectures a torch build can run, hardware health).
//! Knowledge they compute from (driver floors, compiled architectures) lives in
//! `compat-matrix/tables/`, not here.
//!
//! Each module exports `CHECKS`; a check is one JUnit test case and may produce
//! any number of findings, each with one of the ids it declares in `produces`.

use crate::facts::Facts;
use crate::findings::Finding;
use crate::knowledge::tables::Tables;

pub(crate) mod devices;
pub(crate) use devices::SHM_MIN_MIB;
mod driver;
pub use driver::judges_driver;
mod frameworks;
pub use frameworks::{BUILD_UNKNOWN, cuda_of_toolkit};
mod hardware;
mod requirements;
pub(crate) use requirements::specifiers_on;
mod shadowing;
pub mod smoke_test;

pub struct BuiltinCheck {
    /// Stable kebab-case id of the check itself.
    pub id: &'static str,
    pub title: &'static str,
    /// Every finding id `run` can return, so `--ignore`, `matrix list` and
    /// `matrix explain` know them without running anything.
    pub produces: &'static [&'static str],
    /// What the check looks at and why it matters: `matrix explain` prints it.
    pub explanation: &'static str,
    /// What it finds on a node, computing with the matrix's tables.
    pub run: fn(&Facts, &Tables) -> Vec<Finding>,
}

/// A finding with the fields every built-in check fills; `origin` is set by the runner.
pub(crate) fn finding(
    id: &str,
    severity: crate::findings::Severity,
    title: String,
    detail: String,
    why: String,
    fix: Option<String>,
    references: Vec<String>,
) -> Finding {
    Finding {
        id: id.to_string(),
        origin: String::new(),
        severity,
        title,
        detail,
        why,
        fix,
        references,
        fix_note: None,
        unsettled: None,
    }
}

/// `finding` with a note to its fix: what a comment or parentheses inside
/// the command would have said (`Finding::fix_note`).
pub(crate) fn with_note(finding: Finding, fix_note: Option<String>) -> Finding {
    Finding { fix_note, ..finding }
}

/// Every check that runs on the Snapshot, in report order.
pub fn all() -> impl Iterator<Item = &'static BuiltinCheck> {
    [
        driver::CHECKS,
        devices::CHECKS,
        hardware::CHECKS,
        frameworks::CHECKS,
        requirements::CHECKS,
        shadowing::CHECKS,
    ]
    .into_iter()
    .flatten()
}

/// Every check envdoctor knows, for listing, explaining and ignoring: those that
/// run on the Snapshot, and the smoke test, whose findings come from running it.
pub fn catalogue() -> impl Iterator<Item = &'static BuiltinCheck> {
    all().chain(std::iter::once(&smoke_test::CHECK))
}

/// What the checks' unit tests share: the recorded healthy node and a runner.
#[cfg(test)]
pub(super) mod test_support {
    use crate::configs::TrainingConfigs;
    use crate::facts::Facts;
    use crate::findings::{Finding, Severity};
    use crate::knowledge::tables::Tables;
    use crate::snapshot::{self, Snapshot};

    const HEALTHY: &str = "tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json";

    pub fn healthy() -> Snapshot {
        snapshot::read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(HEALTHY)).expect("the fixture reads")
    }

    /// A check function as tests name it: most read the facts alone, a few
    /// the tables too (the marker type tells the two apart for inference).
    pub trait CheckFn<Marker> {
        fn call(&self, facts: &Facts, tables: &Tables) -> Vec<Finding>;
    }

    pub struct FactsOnly;
    pub struct WithTables;

    impl<F: Fn(&Facts) -> Vec<Finding>> CheckFn<FactsOnly> for F {
        fn call(&self, facts: &Facts, _: &Tables) -> Vec<Finding> {
            self(facts)
        }
    }

    impl<F: Fn(&Facts, &Tables) -> Vec<Finding>> CheckFn<WithTables> for F {
        fn call(&self, facts: &Facts, tables: &Tables) -> Vec<Finding> {
            self(facts, tables)
        }
    }

    pub fn run<Marker>(snapshot: &Snapshot, check: impl CheckFn<Marker>) -> Vec<Finding> {
        let configs = TrainingConfigs::default();
        check.call(
            &Facts::new(snapshot, &configs),
            &crate::matrix::builtin_tables().unwrap(),
        )
    }

    pub fn ids(findings: &[Finding]) -> Vec<(&str, Severity)> {
        findings.iter().map(|f| (f.id.as_str(), f.severity)).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn the_healthy_node_is_quiet() {
        let snapshot = test_support::healthy();
        for check in all() {
            assert_eq!(test_support::run(&snapshot, check.run), [], "{}", check.id);
        }
    }

    #[test]
    fn check_and_finding_ids_are_unique_and_kebab_case() {
        let mut seen = BTreeSet::new();
        for check in catalogue() {
            for id in std::iter::once(check.id).chain(check.produces.iter().copied()) {
                assert!(
                    id.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                    "{id} is not kebab-case"
                );
                // A check may produce a finding under its own id.
                if id != check.id || !check.produces.contains(&id) {
                    assert!(seen.insert(id), "{id} is declared twice");
                }
            }
        }
    }
}
