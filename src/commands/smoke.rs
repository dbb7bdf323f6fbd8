//! `envdoctor smoke`: the GPU smoke test alone.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use super::{Outcome, emit, judged_against, style_for};
use crate::cli::{SmokeArgs, TextOrJson};

pub(super) fn smoke(args: SmokeArgs) -> anyhow::Result<Outcome> {
    let (matrix, configs) = judged_against(&args.job, false)?;
    let python = crate::probe::python::locate(args.python.as_deref(), |name| std::env::var_os(name))?;
    let options = crate::smoke::Options {
        python: python.path.clone(),
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
    // A failure is judged against what is installed, as `check` and `explain`
    // judge it: the versions tell a known bug from an unknown one. The probe
    // takes milliseconds beside the test; without it the failure is still
    // reported, only less surely explained.
    let snapshot = run
        .steps
        .iter()
        .any(|step| step.status.is_problem())
        .then(|| {
            crate::probe::snapshot(&crate::probe::ProbeOptions {
                python: python_options_for(&python.path),
                nvml_deadline: Duration::from_secs_f64(crate::cli::NVML_TIMEOUT_S),
                record_digests: false,
            })
            .ok()
        })
        .flatten();
    let facts = snapshot
        .as_ref()
        .map(|snapshot| crate::facts::Facts::new(snapshot, &configs));
    let diagnosis = crate::smoke::Diagnosis {
        matrix: &matrix,
        facts: facts.as_ref(),
        // Probed after the test, when a step failed: what it shows now may be the test's own.
        facts_precede_the_run: false,
        fired: &[],
    };
    let report = crate::smoke::SmokeReport::new(run, &diagnosis, args.fail_on.level);
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

/// The probe of the interpreter the smoke test ran, with the defaults of `--python`.
fn python_options_for(python: &Path) -> crate::probe::PythonOptions {
    crate::probe::PythonOptions {
        requested: Some(python.display().to_string()),
        deadline: Duration::from_secs_f64(crate::cli::PYTHON_TIMEOUT_S),
        use_cache: true,
    }
}
