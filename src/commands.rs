//! One function per command: read the arguments, call the library, write the
//! result. Each returns the outcome that decides the exit code (README: "Exit codes").

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{Cli, Command, ProbeArgs, PythonArgs, SnapshotFormat};
use crate::report::{Style, text};
use crate::{atomic_write, probe, snapshot};

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
        Command::NvmlQuery => {
            probe::nvidia::answer_query();
            Ok(Outcome::Clean)
        }
    }
}

fn probe(args: ProbeArgs) -> anyhow::Result<Outcome> {
    let snapshot = match &args.snapshot {
        Some(path) => snapshot::read(path)?,
        None => probe::snapshot(&probe::ProbeOptions {
            python: python_options(&args.python),
            nvml_deadline: Duration::from_secs_f64(args.nvml_timeout),
        })?,
    };
    let style = Style::for_output(args.output.is_none() && std::io::stdout().is_terminal());
    let rendered = match args.format {
        SnapshotFormat::Json => serde_json::to_string_pretty(&snapshot)? + "\n",
        SnapshotFormat::Text => text::snapshot(&snapshot, style),
    };
    emit(args.output.as_deref(), rendered.as_bytes())?;
    Ok(Outcome::Clean)
}

fn python_options(args: &PythonArgs) -> probe::PythonOptions {
    probe::PythonOptions {
        requested: args.python.clone(),
        deadline: Duration::from_secs_f64(args.python_timeout),
        use_cache: !args.no_cache,
    }
}

/// Data goes to stdout or, atomically, to `-o FILE`. A closed pipe
/// (`envdoctor probe | head`) is the reader's choice, not an error.
fn emit(output: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(path) = output {
        return atomic_write::write(path, bytes).with_context(|| format!("cannot write `{}`", path.display()));
    }
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(error).context("cannot write to standard output")
        }
        _ => Ok(()),
    }
}
