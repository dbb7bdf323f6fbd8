//! The fresh batches (`tests/fixtures/explain-fresh/`) are measured
//! (`bench/explain_corpus.py`), not scored here: each case must still replay
//! on its node, as JSON and as text, so that its figure can be taken again.
//!
//! They are replayed in this process, the knowledge loaded and its searchers
//! made once ([`Explainer`]), and the cases spread over the cores. Spawning the binary for each case took 144 s of a
//! debug build's test run for 2,500 cases (58 ms a case, most of it loading
//! the knowledge), a third of the suite, and grew with every batch. The
//! binary's own path (`--snapshot`, its exit codes, its output) is driven on
//! the corpus by `explain_cli`.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use envdoctor::configs::TrainingConfigs;
use envdoctor::explain::{Explainer, FactsFrom, encoding};
use envdoctor::facts::Facts;
use envdoctor::matrix::Matrix;
use envdoctor::report::Style;

/// Every case of every batch replays: no error, no panic, an outcome in its
/// JSON and a text report.
#[test]
fn every_fresh_batch_case_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/explain-fresh");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|batch| batch.unwrap().path())
        .filter(|batch| batch.is_dir())
        .flat_map(|batch| std::fs::read_dir(batch).unwrap().map(|case| case.unwrap().path()))
        .filter(|case| case.join("case.toml").is_file())
        .collect();
    cases.sort();
    let matrix = Matrix::load(&[]).unwrap();
    let explainer = Explainer::new(&matrix);
    let failures: Vec<String> = crate::common::across_cores(&cases, |_, case| replay(case, &explainer).err())
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases.len() >= 3853, "only {} fresh cases replayed", cases.len());
}

/// One case explained as `envdoctor explain LOG --snapshot SNAPSHOT` explains it.
fn replay(case: &Path, explainer: &Explainer) -> Result<(), String> {
    let failed = |what: &str, error: &dyn std::fmt::Display| format!("{}: {what}: {error}", case.display());
    let snapshot =
        envdoctor::snapshot::read(&case.join("snapshot.json")).map_err(|error| failed("snapshot", &error))?;
    let configs = TrainingConfigs::default();
    let facts = Facts::new(&snapshot, &configs);
    let log = File::open(case.join("log.txt")).map_err(|error| failed("log", &error))?;
    let reader = encoding::as_utf8(Box::new(BufReader::new(log))).map_err(|error| failed("log", &error))?;
    let explanation = explainer
        .explain(reader, "log.txt", &facts, FactsFrom::TheLogsNode)
        .map_err(|error| failed("explain", &error))?;
    let json = serde_json::to_value(&explanation).map_err(|error| failed("json", &error))?;
    if !json["outcome"].is_string() {
        return Err(failed("json", &"no outcome"));
    }
    let text = envdoctor::report::explain::text(&explanation, Style::for_output(false), true);
    if text.trim().is_empty() {
        return Err(failed("text", &"an empty report"));
    }
    Ok(())
}
