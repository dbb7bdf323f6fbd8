//! One function per command: read the arguments, call the library, write the
//! result. Each returns the outcome that decides the exit code (docs/reference.md: "Exit codes").

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;

mod check;
mod completions;
mod diff;
mod explain;
mod export;
mod fix;
mod fix_trial;
mod fleet;
mod lock;
mod man;
mod matrix;
mod probe;
mod smoke;
mod verify;

use crate::cli::{Cli, Command, JobArgs, NodeArgs, PythonArgs};
use crate::configs::TrainingConfigs;
use crate::matrix::Matrix;
use crate::report::Style;
use crate::{atomic_write, configs, snapshot};

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
        Command::Probe(args) => probe::probe(args),
        Command::Check(args) => check::check(args),
        Command::Fix(args) => fix::fix(args),
        Command::Smoke(args) => smoke::smoke(args),
        Command::Lock(args) => lock::lock(args),
        Command::Verify(args) => verify::verify(args),
        Command::Diff(args) => diff::diff(args),
        Command::Export(args) => export::export(args),
        Command::Explain(args) => explain::explain(args),
        Command::Fleet(args) => fleet::fleet(args),
        Command::Matrix(command) => matrix::matrix_command(command),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => man::man(args),
        Command::NvmlQuery => {
            crate::probe::nvidia::answer_query();
            Ok(Outcome::Clean)
        }
    }
}

/// The Snapshot to work on: a recorded one, or this node's, probed now
/// (with RECORD digests where a lock is to be made of it).
pub(super) fn replay_or_probe(node: &NodeArgs, record_digests: bool) -> anyhow::Result<snapshot::Snapshot> {
    Ok(match &node.snapshot {
        Some(path) => snapshot::read(path)?,
        None => crate::probe::snapshot(&crate::probe::ProbeOptions {
            python: python_options(&node.python),
            nvml_deadline: Duration::from_secs_f64(node.nvml_timeout),
            record_digests,
        })?,
    })
}

pub(super) fn style_for(output: Option<&Path>) -> Style {
    Style::for_output(output.is_none() && std::io::stdout().is_terminal())
}

fn python_options(args: &PythonArgs) -> crate::probe::PythonOptions {
    crate::probe::PythonOptions {
        requested: args.python.clone(),
        deadline: Duration::from_secs_f64(args.python_timeout),
        use_cache: !args.no_cache,
    }
}

/// Data goes to stdout or, atomically, to `-o FILE` (`{host}` in it becomes
/// this node's name). A closed pipe (`envdoctor probe | head`) is the
/// reader's choice, not an error.
pub(super) fn emit(output: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(path) = output {
        let path = crate::node_name::expand_host(path, crate::node_name::this_node_name)
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

/// The matrix and the training configs named on the command line; without
/// `--accelerate-config`, accelerate's own default file when probing this node
/// (it describes jobs launched from here, not a recorded node).
pub(super) fn judged_against(job: &JobArgs, replaying: bool) -> anyhow::Result<(Matrix, TrainingConfigs)> {
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
