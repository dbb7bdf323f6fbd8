//! The plan asked of the matrix before it is offered: each requirement's
//! version, where its specifiers name one, tried on a copy of the node, and
//! the findings it would raise that the node does not have now. The node's
//! other facts (a framework's build, what an import said) stay as probed,
//! so a trial judges what a version changes in the packages alone.

use std::collections::BTreeSet;

use crate::check::{CheckInput, Smoke};
use crate::findings::{Finding, Severity};
use crate::fix_plan::{Installer, Plan, Trial};
use crate::snapshot::Snapshot;
use crate::snapshot::packages::Package;

/// Checks the node again with one package at another version.
struct CheckTrial<'a> {
    snapshot: &'a Snapshot,
    input: CheckInput<'a>,
    /// What is raised now: a trial reports only what is new.
    raised_now: BTreeSet<String>,
}

impl<'a> CheckTrial<'a> {
    fn new(snapshot: &'a Snapshot, input: &CheckInput<'a>, raised_now: &[Finding]) -> CheckTrial<'a> {
        CheckTrial {
            snapshot,
            input: CheckInput {
                matrix: input.matrix,
                configs: input.configs,
                ignores: input.ignores,
                fail_on: input.fail_on,
                smoke: Smoke::NotRun("a trial of the fix plan".to_string()),
            },
            raised_now: raised_now.iter().map(|finding| finding.id.clone()).collect(),
        }
    }
}

impl Trial for CheckTrial<'_> {
    fn raises(&self, name: &str, version: &str) -> Vec<String> {
        let mut tried = self.snapshot.clone();
        let key = crate::packaging::normalize_name(name);
        match tried.packages.iter_mut().find(|package| package.normalized_name == key) {
            Some(package) => {
                package.version = Some(version.to_string());
                package.version_as_written = None;
            }
            None => tried.packages.push(Package {
                name: name.to_string(),
                normalized_name: key,
                version: Some(version.to_string()),
                ..Package::default()
            }),
        }
        crate::check::run(tried, &self.input)
            .findings
            .into_iter()
            .filter(|finding| finding.severity >= Severity::Warning && !self.raised_now.contains(&finding.id))
            .map(|finding| finding.id)
            .collect()
    }
}

/// The plan for what a check found at warning or above on `snapshot`,
/// tried against the same matrix and configs: what `envdoctor fix` offers
/// and what `check` ends with.
pub(super) fn prescribe(snapshot: &Snapshot, findings: &[Finding], input: &CheckInput, installer: &Installer) -> Plan {
    // An info finding is not a problem to fix.
    let problems: Vec<Finding> = findings
        .iter()
        .filter(|finding| finding.severity >= Severity::Warning)
        .cloned()
        .collect();
    let trial = CheckTrial::new(snapshot, input, findings);
    crate::fix_plan::plan(&problems, installer, &snapshot.packages, &trial)
}
