//! `envdoctor fleet`: reports from files, standard input or every node of a
//! Slurm allocation, folded one at a time, then compared and rendered.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use super::{Outcome, emit, style_for};
use crate::check::{self, CheckInput, Smoke};
use crate::cli::{FleetArgs, ReportFormat};
use crate::configs::TrainingConfigs;
use crate::findings::FailOn;
use crate::fleet::aggregate::Prepared;
use crate::fleet::input::{self, Item, Raw};
use crate::fleet::reports::NodeReport;
use crate::fleet::{Aggregator, Reference, pipeline, slurm};
use crate::matrix::Matrix;

pub fn fleet(args: FleetArgs) -> anyhow::Result<Outcome> {
    // The lock is read first, so a typo fails before a whole cluster is asked.
    let reference = match &args.lock {
        Some(path) => Reference::Lock {
            path: path.display().to_string(),
            lock: Box::new(crate::lock::file::read(path)?),
        },
        None => Reference::Majority,
    };
    let judge = Judge {
        matrix: Matrix::load(&[])?,
        configs: TrainingConfigs::default(),
    };
    let mut aggregator = Aggregator::new();
    let fold = |item: Item| match item {
        Item::Report(report) => aggregator.add(*report),
        Item::Unreadable { source, problem } => aggregator.unreadable(source, problem),
        Item::NotAnswered { node, problem } => aggregator.not_answered(node, problem),
    };
    let prepare = |raw: Raw| match raw {
        Raw::Document {
            bytes,
            source,
            line,
            name,
        } => match input::parse(&bytes, &source, line, &name) {
            Ok(report) => Item::Report(Box::new(Prepared::of(judge.judged(report)))),
            Err(problem) => problem,
        },
        Raw::Done(item) => item,
    };
    let asked = match &args.slurm {
        Some(srun_args) => {
            refuse_envdoctor_flags_after_slurm(srun_args)?;
            let options = slurm::Options {
                srun_args: srun_args.clone(),
                envdoctor: match &args.envdoctor {
                    Some(path) => slurm::Envdoctor::OnNodes(path.clone()),
                    // This very executable is what srun broadcasts to the nodes.
                    None => slurm::Envdoctor::Broadcast(std::env::current_exe().map_err(|error| {
                        anyhow::anyhow!("cannot tell where this envdoctor is (pass --envdoctor PATH): {error}")
                    })?),
                },
                collect: args.collect,
                smoke: args.smoke,
                python: args.python.clone(),
                deadline: Duration::from_secs_f64(args.deadline),
            };
            pipeline::run(|sink| slurm::collect(&options, sink), prepare, fold)?;
            "the Slurm step".to_string()
        }
        None => {
            let inputs = if args.reports.is_empty() {
                anyhow::ensure!(
                    !std::io::stdin().is_terminal(),
                    "name the reports to read (files, directories, or - for standard input), or pass --slurm"
                );
                vec![PathBuf::from(input::STDIN)]
            } else {
                args.reports.clone()
            };
            pipeline::run(|sink| input::read(&inputs, sink), prepare, fold)?;
            let names: Vec<String> = inputs
                .iter()
                .map(|path| match path.as_os_str() == input::STDIN {
                    true => "standard input".to_string(),
                    false => format!("`{}`", path.display()),
                })
                .collect();
            names.join(", ")
        }
    };
    anyhow::ensure!(!aggregator.is_empty(), "no reports found in {asked}");

    let report = aggregator.finish(reference, args.fail_on.level, &judge.matrix.tables);
    let rendered = match args.format {
        ReportFormat::Text => crate::report::fleet::text(&report, style_for(args.output.file.as_deref())),
        ReportFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        ReportFormat::Junit => crate::report::fleet::junit(&report),
        ReportFormat::Markdown => crate::report::fleet::markdown(&report),
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if report.summary.failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Runs the checks on a node that sent a bare Snapshot, so every node's
/// findings are known whichever command it ran.
struct Judge {
    matrix: Matrix,
    configs: TrainingConfigs,
}

impl Judge {
    fn judged(&self, report: NodeReport) -> NodeReport {
        if report.findings.is_some() {
            return report;
        }
        let input = CheckInput {
            matrix: &self.matrix,
            configs: &self.configs,
            ignores: &[],
            fail_on: FailOn::Error,
            smoke: Smoke::NotRun("fleet judges a recorded Snapshot".to_string()),
        };
        let checked = check::run(report.snapshot, &input);
        NodeReport {
            name: report.name,
            snapshot: checked.snapshot,
            findings: Some(checked.findings),
        }
    }
}

/// fleet's own flags that srun does not have: after `--slurm` they would go to
/// srun, whose answer ("Try srun --help") names nothing useful. `-o/--output`
/// and `--deadline` are srun's too, so after --slurm they stay srun's.
const FLEET_FLAGS: &[&str] = &[
    "--lock",
    "--format",
    "--fail-on",
    "--collect",
    "--smoke",
    "--python",
    "--envdoctor",
];

fn refuse_envdoctor_flags_after_slurm(srun_args: &[String]) -> anyhow::Result<()> {
    let misplaced = srun_args.iter().find(|argument| {
        let flag = argument.split('=').next().unwrap_or(argument);
        FLEET_FLAGS.contains(&flag)
    });
    match misplaced {
        Some(flag) => anyhow::bail!(
            "`{flag}` comes after --slurm, so it would go to srun: everything after --slurm is srun's; put \
             envdoctor's own flags before it (envdoctor fleet {flag} ... --slurm -N 3)"
        ),
        None => Ok(()),
    }
}
