//! `envdoctor diff`: the differences between two Snapshots or locks.

use std::path::Path;

use anyhow::Context;

use super::{Outcome, emit, style_for};
use crate::cli::{DiffArgs, FailOn, TextOrJson};
use crate::compare::report::{DIFF_SCHEMA, DriftReport, Side};
use crate::compare::{self, NodeState, Sides};
use crate::lock::file;
use crate::snapshot;

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
    let mut drift = compare::nodes(&a, &b, &sides, &crate::matrix::builtin_tables()?);
    // The fixes make B like A: they run B's interpreter, where B names one.
    b.address(&mut drift);
    // Any difference is what `diff` is asked for: it fails on all of them, like diff(1).
    let report = DriftReport::new(
        DIFF_SCHEMA,
        Side::new("A", Some(&args.a), &a.lock),
        Side::new("B", Some(&args.b), &b.lock),
        drift,
        FailOn::Warning,
    );
    let rendered = match args.format {
        TextOrJson::Text => crate::report::drift::text(&report, style_for(args.output.file.as_deref())),
        TextOrJson::Json => serde_json::to_string_pretty(&report)? + "\n",
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if report.drift.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// A Snapshot (JSON) or a lock (TOML), told apart by the first character:
/// a JSON document is an object, a TOML lock starts with a comment or a key.
pub(super) fn read_either(path: &Path) -> anyhow::Result<NodeState> {
    let bytes = crate::bounded_read::read(path, crate::bounded_read::DOCUMENT_LIMIT)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
    if first == Some(&b'{') {
        Ok(NodeState::of_snapshot(&snapshot::parse(&bytes, path)?))
    } else {
        Ok(NodeState::of_lock(file::parse(&bytes, path)?))
    }
}
