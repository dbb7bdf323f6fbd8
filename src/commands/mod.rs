//! One function per command: read the arguments, call the library, write the
//! result. Each returns the outcome that decides the exit code (README: "Exit codes").

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;

mod explain;
mod export;
mod fleet;
mod lockfile;

use crate::check::{CheckInput, Ignore, Smoke};
use crate::cli::{
    CheckArgs, Cli, Command, JobArgs, MatrixCommand, NodeArgs, ProbeArgs, PythonArgs, ReportFormat, SmokeArgs,
    SnapshotFormat,
};
use crate::configs::TrainingConfigs;
use crate::matrix::Matrix;
use crate::report::{Style, text};
use crate::{atomic_write, check, configs, probe, snapshot};

/// The exit code contract, the same for every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing at or above the failure threshold: exit 0.
    Clean,
    /// Findings or drift at or above the threshold: exit 1.
    Findings,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
        }
    }
}

pub fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Probe(args) => probe(args),
        Command::Check(args) => check(args),
        Command::Smoke(args) => smoke(args),
        Command::Lock(args) => lockfile::lock(args),
        Command::Verify(args) => lockfile::verify(args),
        Command::Diff(args) => lockfile::diff(args),
        Command::Export(args) => export::export(args),
        Command::Explain(args) => explain::explain(args),
        Command::Fleet(args) => fleet::fleet(args),
        Command::Matrix(command) => matrix_command(command),
        Command::NvmlQuery => {
            probe::nvidia::answer_query();
            Ok(Outcome::Clean)
        }
    }
}

fn probe(args: ProbeArgs) -> anyhow::Result<Outcome> {
    let snapshot = replay_or_probe(&args.node)?;
    let style = style_for(args.output.file.as_deref());
    let rendered = match args.format {
        SnapshotFormat::Json => serde_json::to_string_pretty(&snapshot)? + "\n",
        SnapshotFormat::Text => text::snapshot(&snapshot, style),
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(Outcome::Clean)
}

/// The Snapshot to work on: a recorded one, or this node's, probed now.
fn replay_or_probe(node: &NodeArgs) -> anyhow::Result<snapshot::Snapshot> {
    Ok(match &node.snapshot {
        Some(path) => snapshot::read(path)?,
        None => probe::snapshot(&probe::ProbeOptions {
            python: python_options(&node.python),
            nvml_deadline: Duration::from_secs_f64(node.nvml_timeout),
        })?,
    })
}

fn style_for(output: Option<&Path>) -> Style {
    Style::for_output(output.is_none() && std::io::stdout().is_terminal())
}

/// The ignore file read when `--config` is not given, if it exists.
const DEFAULT_IGNORE_FILE: &str = "envdoctor.toml";

/// The matrix and the training configs named on the command line; without
/// `--accelerate-config`, accelerate's own default file when probing this node
/// (it describes jobs launched from here, not a recorded node).
fn judged_against(job: &JobArgs, replaying: bool) -> anyhow::Result<(Matrix, TrainingConfigs)> {
    let matrix = Matrix::load(&job.matrix)?;
    let mut configs = TrainingConfigs::default();
    if let Some(path) = &job.deepspeed_config {
        configs.deepspeed = Some(configs::read_deepspeed(path)?);
    }
    let accelerate = match (&job.accelerate_config, replaying) {
        (Some(path), _) => Some(path.clone()),
        (None, false) => configs::default_accelerate_path(|name| std::env::var(name).ok()),
        (None, true) => None,
    };
    if let Some(path) = accelerate {
        configs.accelerate = Some(configs::read_accelerate(&path)?);
    }
    Ok((matrix, configs))
}

fn check(args: CheckArgs) -> anyhow::Result<Outcome> {
    // Every input is read before the probe, so a typo fails in milliseconds.
    let (matrix, configs) = judged_against(&args.job, args.node.snapshot.is_some())?;
    let mut ignores: Vec<Ignore> = args.ignore.iter().map(|flag| Ignore::from_flag(flag)).collect();
    let ignore_file = args.config.clone().or_else(|| {
        let default = Path::new(DEFAULT_IGNORE_FILE);
        default.is_file().then(|| default.to_path_buf())
    });
    if let Some(path) = ignore_file {
        ignores.extend(check::read_ignore_file(&path)?);
    }

    let snapshot = replay_or_probe(&args.node)?;
    let smoke = match (args.no_smoke, &args.node.snapshot) {
        (true, _) => Smoke::NotRun("--no-smoke".to_string()),
        (false, Some(_)) => {
            Smoke::NotRun("a recorded Snapshot was replayed; the smoke test needs the node".to_string())
        }
        (false, None) => match check::smoke_unsupported(&snapshot) {
            Some(reason) => Smoke::NotRun(reason),
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
    let report = check::run(snapshot, &input);
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

fn smoke(args: SmokeArgs) -> anyhow::Result<Outcome> {
    let (matrix, configs) = judged_against(&args.job, false)?;
    let python = probe::python::locate(args.python.as_deref(), |name| std::env::var_os(name))?;
    let options = crate::smoke::Options {
        python: python.path.clone(),
        timeout: args
            .timeout
            .map_or_else(|| crate::smoke::default_timeout(args.deep), Duration::from_secs_f64),
        deep: args.deep,
        deepspeed_config: configs.job_deepspeed(),
    };
    let mut progress = crate::smoke::progress::for_stderr(args.format == SnapshotFormat::Text);
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
            probe::snapshot(&probe::ProbeOptions {
                python: python_options_for(&python.path),
                nvml_deadline: Duration::from_secs_f64(crate::cli::NVML_TIMEOUT_S),
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
        fired: &[],
    };
    let report = crate::smoke::SmokeReport::new(run, &diagnosis, args.fail_on.level);
    let rendered = match args.format {
        SnapshotFormat::Text => crate::report::smoke::text(&report, style_for(args.output.file.as_deref())),
        SnapshotFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
    };
    emit(args.output.file.as_deref(), rendered.as_bytes())?;
    Ok(if report.failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

fn matrix_command(command: MatrixCommand) -> anyhow::Result<Outcome> {
    match command {
        MatrixCommand::List { matrix, format } => {
            let matrix = Matrix::load(&matrix)?;
            let rendered = match format {
                SnapshotFormat::Text => crate::report::matrix::list_text(&matrix),
                SnapshotFormat::Json => {
                    serde_json::to_string_pretty(&crate::report::matrix::list_document(&matrix))? + "\n"
                }
            };
            emit(None, rendered.as_bytes())?;
            Ok(Outcome::Clean)
        }
        MatrixCommand::Lint { dir } => {
            let mut linted = match &dir {
                Some(dir) => crate::matrix::lint_dir(dir)?,
                None => crate::matrix::lint_builtin(),
            };
            let future = crate::matrix::dated_after(&linted, crate::calendar::Date::today());
            linted.errors.extend(future);
            emit(
                None,
                crate::report::matrix::lint_text(&linted, dir.as_deref()).as_bytes(),
            )?;
            Ok(if linted.errors.is_empty() {
                Outcome::Clean
            } else {
                Outcome::Findings
            })
        }
        MatrixCommand::Explain { id, matrix } => {
            let matrix = Matrix::load(&matrix)?;
            let Some(rendered) = crate::report::matrix::explain(&matrix, &id) else {
                anyhow::bail!("no rule, check or finding has the id `{id}` (see `envdoctor matrix list`)");
            };
            emit(None, rendered.as_bytes())?;
            Ok(Outcome::Clean)
        }
    }
}

/// The probe of the interpreter the smoke test ran, with the defaults of `--python`.
fn python_options_for(python: &Path) -> probe::PythonOptions {
    probe::PythonOptions {
        requested: Some(python.display().to_string()),
        deadline: Duration::from_secs_f64(crate::cli::PYTHON_TIMEOUT_S),
        use_cache: true,
    }
}

fn python_options(args: &PythonArgs) -> probe::PythonOptions {
    probe::PythonOptions {
        requested: args.python.clone(),
        deadline: Duration::from_secs_f64(args.python_timeout),
        use_cache: !args.no_cache,
    }
}

/// Data goes to stdout or, atomically, to `-o FILE` (`{host}` in it becomes
/// this node's name). A closed pipe (`envdoctor probe | head`) is the
/// reader's choice, not an error.
fn emit(output: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(path) = output {
        let path = crate::fleet::reports::expand_host(path, crate::fleet::reports::this_node_name)
            .map_err(|problem| anyhow::anyhow!("cannot write `{}`: {problem}", path.display()))?;
        return atomic_write::write(&path, bytes).with_context(|| format!("cannot write `{}`", path.display()));
    }
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(error).context("cannot write to standard output")
        }
        _ => Ok(()),
    }
}
