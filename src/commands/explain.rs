//! `envdoctor explain`: the log is opened before the node is probed, so a
//! wrong path fails at once; it is then read as a stream.

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal};

use anyhow::Context;

use super::{Outcome, emit, judged_against, replay_or_probe, style_for};
use crate::cli::{ExplainArgs, TextOrJson};
use crate::facts::Facts;

pub fn explain(args: ExplainArgs) -> anyhow::Result<Outcome> {
    let (matrix, configs) = judged_against(&args.job, args.node.snapshot.is_some())?;
    let (source, reader): (String, Box<dyn BufRead>) = match &args.log {
        Some(path) if path.as_os_str() != "-" => {
            let file = File::open(path).with_context(|| format!("cannot read log `{}`", path.display()))?;
            if file.metadata().is_ok_and(|metadata| metadata.is_dir()) {
                anyhow::bail!("cannot read log `{}`: it is a directory", path.display());
            }
            (
                path.display().to_string(),
                Box::new(BufReader::with_capacity(1 << 16, file)),
            )
        }
        Some(_) => ("-".to_string(), Box::new(std::io::stdin().lock())),
        None if std::io::stdin().is_terminal() => {
            anyhow::bail!("no log to explain: pass LOG, or pipe one in (`python train.py 2>&1 | envdoctor explain -`)")
        }
        None => ("-".to_string(), Box::new(std::io::stdin().lock())),
    };
    let reader = crate::explain::encoding::as_utf8(reader).with_context(|| format!("cannot read log `{source}`"))?;
    let snapshot = replay_or_probe(&args.node, false)?;
    let facts = Facts::new(&snapshot, &configs);
    let from = match args.node.snapshot {
        Some(_) => crate::explain::FactsFrom::TheLogsNode,
        None => crate::explain::FactsFrom::ThisNode,
    };
    let explanation = crate::explain::explain(reader, &source, &matrix, &facts, from)
        .with_context(|| format!("cannot read log `{source}`"))?;
    let rendered = match args.format {
        TextOrJson::Text => {
            crate::report::explain::text(&explanation, style_for(args.output.file.as_deref()), args.verbose)
        }
        TextOrJson::Json => serde_json::to_string_pretty(&explanation)? + "\n",
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(
        if explanation.outcome.is_explained() || explanation.outcome == crate::explain::Outcome::NoError {
            Outcome::Clean
        } else {
            Outcome::Findings
        },
    )
}
