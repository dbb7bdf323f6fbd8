//! `envdoctor verify`: how this node (or a Snapshot) differs from a lock.

use super::{Outcome, emit, replay_or_probe, style_for};
use crate::cli::{DriftFormat, VerifyArgs};
use crate::compare::report::{DriftReport, Side, VERIFY_SCHEMA, file_drift};
use crate::compare::{self, NodeState, Sides};
use crate::lock::file;

pub(super) fn verify(args: VerifyArgs) -> anyhow::Result<Outcome> {
    // The lock is read before the probe, so a bad lock fails in milliseconds.
    let locked = file::read(&args.lock)?;
    let snapshot = replay_or_probe(&args.node, true)?;
    let locked = NodeState::of_lock(locked);
    let here = NodeState::of_snapshot(&snapshot);
    let tables = crate::matrix::builtin_tables()?;
    let mut drift = compare::nodes(&locked, &here, &Sides::verify(), &tables);
    let mut files_checked = None;
    if args.files {
        let (files, checked) = file_drift(&snapshot);
        drift.extend(files);
        drift.sort_by_key(|item| item.area);
        files_checked = Some(checked);
    }
    here.address(&mut drift);
    let mut report = DriftReport::new(
        VERIFY_SCHEMA,
        Side::new("lock", Some(&args.lock), &locked.lock),
        Side::new("node", args.node.snapshot.as_deref(), &here.lock),
        drift,
        args.fail_on.level,
    );
    report.files_checked = files_checked;
    let rendered = match args.format {
        DriftFormat::Text => crate::report::drift::text(&report, style_for(args.output.file.as_deref())),
        DriftFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        DriftFormat::Junit => crate::report::drift::junit(&report),
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(outcome(&report))
}

fn outcome(report: &DriftReport) -> Outcome {
    if report.summary.failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}
