//! `envdoctor smoke`: the GPU smoke test alone.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use super::{Outcome, emit, judged_against, style_for};
use crate::cli::{SmokeArgs, TextOrJson};
use crate::hint::Hinted;
use crate::smoke::{Reason, SmokeNotRun, Unsupported};

pub(super) fn smoke(args: SmokeArgs) -> anyhow::Result<Outcome> {
    let (matrix, configs) = judged_against(&args.job, false)?;
    // The node is probed first, as `check` probes it: an interpreter that is
    // not Python is one line before anything runs, a node without torch is
    // told so instead of a failed import, and a failure is judged against
    // what is installed (the versions tell a known bug from an unknown one).
    let snapshot = crate::probe::snapshot(&crate::probe::ProbeOptions {
        python: crate::probe::PythonOptions {
            requested: args.python.clone(),
            deadline: Duration::from_secs_f64(crate::cli::PYTHON_TIMEOUT_S),
            use_cache: true,
        },
        nvml_deadline: Duration::from_secs_f64(crate::cli::NVML_TIMEOUT_S),
        record_digests: false,
    })?;
    let python = snapshot.python.invoked.clone();
    let unsupported = crate::smoke::unsupported(&snapshot);
    if let Some(no_torch) = unsupported.as_ref().filter(|why| why.reason == Reason::NoTorch) {
        return cannot_run(&args, &python, no_torch);
    }
    let options = crate::smoke::Options {
        python: python.clone(),
        timeout: args
            .timeout
            .map_or_else(|| crate::smoke::default_timeout(args.deep), Duration::from_secs_f64),
        deep: args.deep,
        deepspeed_config: configs.job_deepspeed(),
    };
    let mut progress = crate::smoke::progress::for_stderr(args.format == TextOrJson::Text);
    let run = match crate::smoke::run(&options, progress.as_mut()) {
        Err(error @ crate::smoke::SmokeError::Interrupted { .. }) => return Err(error.into()),
        other => other.context("the smoke test could not run")?,
    };
    let facts = crate::facts::Facts::new(&snapshot, &configs);
    let diagnosis = crate::smoke::Diagnosis {
        matrix: &matrix,
        facts: Some(&facts),
        facts_precede_the_run: true,
        fired: &[],
    };
    // Where the probe saw no GPU, torch has the last word: it may see one.
    if let Some(no_gpu) = &unsupported
        && crate::smoke::torch_saw_no_gpu(&run, &diagnosis)
    {
        return cannot_run(&args, &python, no_gpu);
    }
    let mut report = crate::smoke::SmokeReport::new(run, &diagnosis, args.fail_on.level);
    crate::check::address_fixes(&mut report.findings, &snapshot);
    let rendered = match args.format {
        TextOrJson::Text => crate::report::smoke::text(&report, style_for(args.output.file.as_deref())),
        TextOrJson::Json => serde_json::to_string_pretty(&report)? + "\n",
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if report.failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Exit code 2, as for any job envdoctor could not do: a test that did not
/// run is no verdict on the node, neither a pass (0) nor a failed step (1).
/// JSON output still gets its document, saying why in fields of its own.
fn cannot_run(args: &SmokeArgs, python: &Path, why: &Unsupported) -> anyhow::Result<Outcome> {
    if args.format == TextOrJson::Json {
        let document = SmokeNotRun::new(python.to_path_buf(), why.clone());
        emit(
            args.output.file.as_deref(),
            (serde_json::to_string_pretty(&document)? + "\n").as_bytes(),
        )?;
    }
    let error = anyhow::anyhow!("the smoke test cannot run with `{}`: {}", python.display(), why.detail);
    Err(Hinted::new(error, why.fix.clone()).into())
}
