//! `lock`, `verify` and `diff`: a node's environment written down, and how
//! another node (or a recording of one) differs from it.

use std::path::Path;

use anyhow::Context;

use super::{Outcome, emit, replay_or_probe, style_for};
use crate::cli::{DiffArgs, DriftFormat, FailOn, LockArgs, SnapshotFormat, VerifyArgs};
use crate::lock::drift::{self, Sides};
use crate::lock::model::Lock;
use crate::lock::report::{DIFF_SCHEMA, DriftReport, Side, VERIFY_SCHEMA, file_drift};
use crate::lock::{file, record};
use crate::snapshot::{self, Snapshot};

/// The lock of a Snapshot. RECORD digests are read only from a live probe: a
/// replayed Snapshot's files belong to another machine, or to none.
pub(super) fn lock_of(snapshot: &Snapshot, live: bool) -> Lock {
    let digest = |metadata_path: &Path| {
        if live {
            record::record_digest(metadata_path).ok().flatten()
        } else {
            None
        }
    };
    Lock::from_snapshot(snapshot, &digest)
}

pub(super) fn lock(args: LockArgs) -> anyhow::Result<Outcome> {
    let snapshot = replay_or_probe(&args.node)?;
    let lock = lock_of(&snapshot, args.node.snapshot.is_none());
    if let Some(note) = gpu_side_missing(&snapshot) {
        eprintln!("envdoctor: note: {}", crate::escape::one_line(&note));
    }
    let rendered = file::render(&lock);
    if args.output.as_os_str() == "-" {
        emit(None, rendered.as_bytes())?;
    } else {
        emit(Some(&args.output), rendered.as_bytes())?;
        let gpus: u32 = lock.gpus.iter().map(|group| group.count).sum();
        eprintln!(
            "envdoctor: wrote {}: {} packages, Python {}, {} GPU{}, fingerprint {}",
            args.output.display(),
            lock.packages.len(),
            lock.python.version,
            gpus,
            if gpus == 1 { "" } else { "s" },
            lock.fingerprint
        );
    }
    Ok(Outcome::Clean)
}

/// A lock without a GPU side is still a lock (of a CPU node, or a login
/// node), but whoever wrote it should know that is what they have.
fn gpu_side_missing(snapshot: &Snapshot) -> Option<String> {
    let consequence = "`verify` on a GPU node will report its driver and GPUs as drift; \
                       write the lock on a node of the kind the jobs run on to record them";
    match &snapshot.nvidia {
        None => {
            let why = snapshot.nvidia_error.as_ref().map_or_else(
                || "the Snapshot records no NVIDIA facts".to_string(),
                |error| error.message.clone(),
            );
            Some(format!(
                "the lock records no GPU side: no NVIDIA driver answered ({why}); {consequence}"
            ))
        }
        Some(nvidia) if nvidia.gpus.is_empty() => Some(format!(
            "the lock records no GPUs: the NVIDIA driver answered but named none; {consequence}"
        )),
        Some(_) => None,
    }
}

pub(super) fn verify(args: VerifyArgs) -> anyhow::Result<Outcome> {
    // The lock is read before the probe, so a bad lock fails in milliseconds.
    let locked = file::read(&args.lock)?;
    let snapshot = replay_or_probe(&args.node)?;
    let live = args.node.snapshot.is_none();
    let here = lock_of(&snapshot, live);
    let mut drift = drift::compare(&locked, &here, &Sides::verify());
    let mut files_checked = None;
    if args.files {
        let (files, checked) = file_drift(&snapshot);
        drift.extend(files);
        drift.sort_by_key(|item| item.area);
        files_checked = Some(checked);
    }
    let mut report = DriftReport::new(
        VERIFY_SCHEMA,
        Side::new("lock", Some(&args.lock), &locked),
        Side::new("node", args.node.snapshot.as_deref(), &here),
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

pub(super) fn diff(args: DiffArgs) -> anyhow::Result<Outcome> {
    let a = read_either(&args.a)?;
    let b = read_either(&args.b)?;
    let name = |path: &Path| {
        path.file_name().map_or_else(
            || path.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        )
    };
    let sides = Sides {
        expected: format!("in A ({})", name(&args.a)),
        found: format!("in B ({})", name(&args.b)),
    };
    // Any difference is what `diff` is asked for: it fails on all of them, like diff(1).
    let report = DriftReport::new(
        DIFF_SCHEMA,
        Side::new("A", Some(&args.a), &a),
        Side::new("B", Some(&args.b), &b),
        drift::compare(&a, &b, &sides),
        FailOn::Warning,
    );
    let rendered = match args.format {
        SnapshotFormat::Text => crate::report::drift::text(&report, style_for(args.output.file.as_deref())),
        SnapshotFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if report.drift.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn outcome(report: &DriftReport) -> Outcome {
    if report.summary.failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

/// A Snapshot (JSON) or a lock (TOML), told apart by the first character:
/// a JSON document is an object, a TOML lock starts with a comment or a key.
pub(super) fn read_either(path: &Path) -> anyhow::Result<Lock> {
    let bytes = crate::bounded_read::read(path, crate::bounded_read::DOCUMENT_LIMIT)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
    if first == Some(&b'{') {
        Ok(lock_of(&snapshot::parse(&bytes, path)?, false))
    } else {
        Ok(file::parse(&bytes, path)?)
    }
}
