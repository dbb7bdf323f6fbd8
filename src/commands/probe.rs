//! `envdoctor probe`: the Snapshot of this node (or a recorded one), printed.

use super::{Outcome, emit, replay_or_probe, style_for};
use crate::cli::{ProbeArgs, TextOrJson};
use crate::report;

pub(super) fn probe(args: ProbeArgs) -> anyhow::Result<Outcome> {
    let snapshot = replay_or_probe(&args.node, false)?;
    let style = style_for(args.output.file.as_deref());
    let rendered = match args.format {
        TextOrJson::Json => serde_json::to_string_pretty(&snapshot)? + "\n",
        TextOrJson::Text => report::snapshot::text(&snapshot, style),
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(Outcome::Clean)
}
