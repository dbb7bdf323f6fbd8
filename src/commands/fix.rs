//! `envdoctor fix`: the plan that fixes what `check --no-smoke` finds, as one
//! command (`fix_plan`). It changes nothing.

use super::{Outcome, emit, judged_against, replay_or_probe};
use crate::check::{CheckInput, Smoke};
use crate::cli::{FixArgs, TextOrJson};
use crate::findings::{FailOn, Finding, Severity};

pub(super) fn fix(args: FixArgs) -> anyhow::Result<Outcome> {
    // Every input is read before the probe, so a typo fails in milliseconds.
    let (matrix, configs) = judged_against(&args.job, args.node.snapshot.is_some())?;
    let ignores = super::check::ignores(&args.ignores)?;
    let snapshot = replay_or_probe(&args.node, false)?;
    let python = if snapshot.python.executable.as_os_str().is_empty() {
        snapshot.python.invoked.clone()
    } else {
        snapshot.python.executable.clone()
    };
    let input = CheckInput {
        matrix: &matrix,
        configs: &configs,
        ignores: &ignores,
        fail_on: FailOn::Error,
        smoke: Smoke::NotRun("--no-smoke".to_string()),
    };
    let installed = snapshot.packages.clone();
    let report = crate::check::run(snapshot, &input);
    // What fails a check or warns: an info finding is not a problem to fix.
    let findings: Vec<Finding> = report
        .findings
        .into_iter()
        .filter(|finding| finding.severity >= Severity::Warning)
        .collect();
    let plan = crate::fix_plan::plan(&findings, &python, &installed);
    let rendered = match args.format {
        TextOrJson::Text => crate::fix_plan::text(&plan),
        TextOrJson::Json => serde_json::to_string_pretty(&plan)? + "\n",
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if plan.has_work() {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
