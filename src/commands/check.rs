//! `envdoctor check`: the node judged by the matrix, the built-in checks and
//! the smoke test.

use std::path::Path;
use std::time::Duration;

use super::{Outcome, emit, judged_against, replay_or_probe, style_for};
use crate::check::{CheckInput, Ignore, Smoke};
use crate::cli::{CheckArgs, IgnoreArgs, ReportFormat};

/// The ignore file read when `--config` is not given, if it exists.
const DEFAULT_IGNORE_FILE: &str = "envdoctor.toml";

/// The ignores of `--ignore` flags and of the ignore file (`--config`, or
/// ./envdoctor.toml when it exists).
pub(super) fn ignores(args: &IgnoreArgs) -> anyhow::Result<Vec<Ignore>> {
    let mut ignores: Vec<Ignore> = args.ignore.iter().map(|flag| Ignore::from_flag(flag)).collect();
    let ignore_file = args.config.clone().or_else(|| {
        let default = Path::new(DEFAULT_IGNORE_FILE);
        default.is_file().then(|| default.to_path_buf())
    });
    if let Some(path) = ignore_file {
        ignores.extend(crate::check::read_ignore_file(&path)?);
    }
    Ok(ignores)
}

pub(super) fn check(args: CheckArgs) -> anyhow::Result<Outcome> {
    // Every input is read before the probe, so a typo fails in milliseconds.
    let (matrix, configs) = judged_against(&args.job, args.node.snapshot.is_some())?;
    let ignores = ignores(&args.ignores)?;

    let snapshot = replay_or_probe(&args.node, false)?;
    let smoke = match (args.no_smoke, &args.node.snapshot) {
        (true, _) => Smoke::NotRun("--no-smoke".to_string()),
        (false, Some(_)) => {
            Smoke::NotRun("a recorded Snapshot was replayed; the smoke test needs the node".to_string())
        }
        (false, None) => match crate::smoke::unsupported(&snapshot) {
            Some(unsupported) => Smoke::NotRun(unsupported.detail),
            None => {
                let options = crate::smoke::Options {
                    python: snapshot.python.invoked.clone(),
                    timeout: args.smoke_timeout.map_or_else(
                        || crate::smoke::default_timeout(args.smoke_deep),
                        Duration::from_secs_f64,
                    ),
                    deep: args.smoke_deep,
                    deepspeed_config: configs.job_deepspeed(),
                };
                let mut progress = crate::smoke::progress::for_stderr(args.format == ReportFormat::Text);
                // The rest of the check stands without it: say why it is missing.
                match crate::smoke::run(&options, progress.as_mut()) {
                    Ok(run) => Smoke::Ran(run),
                    // Not a reason to go on: envdoctor was told to stop.
                    Err(error @ crate::smoke::SmokeError::Interrupted { .. }) => return Err(error.into()),
                    Err(error) => Smoke::NotRun(format!("{:#}", anyhow::Error::new(error))),
                }
            }
        },
    };
    let input = CheckInput {
        matrix: &matrix,
        configs: &configs,
        ignores: &ignores,
        fail_on: args.fail_on.level,
        smoke,
    };
    let mut report = crate::check::run(snapshot, &input);
    let installer = super::fix::installer_for(&report.snapshot, args.node.snapshot.is_none());
    let plan = super::fix_trial::prescribe(&report.snapshot, &report.findings, &input, &installer);
    report.fix_plan = plan.has_work().then_some(plan);
    let rendered = match args.format {
        ReportFormat::Text => crate::report::check::text(&report, style_for(args.output.file.as_deref())),
        ReportFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        ReportFormat::Junit => crate::report::junit::render(&report),
        ReportFormat::Markdown => crate::report::markdown::render(&report),
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if report.summary.failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
