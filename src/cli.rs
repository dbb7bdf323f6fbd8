//! Command-line definitions only: every flag is defined once, here, and its
//! help text is generated from this one place.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  envdoctor probe                          what this node's default Python will train with
  envdoctor probe --python .venv/bin/python --format json -o node.json
  VIRTUAL_ENV=/opt/envs/train envdoctor probe

Exit codes: 0 success, 1 findings at or above --fail-on, 2 envdoctor could not do its job.";

#[derive(Debug, Parser)]
#[command(
    name = "envdoctor",
    version,
    about = "Knows what a GPU training node has installed, whether it will work, and how to get it again.",
    after_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Collect and print the Snapshot of this node: system, Python, packages. Judges nothing.
    #[command(after_help = "Examples:\n  envdoctor probe\n  envdoctor probe --python python3.11 --format json")]
    Probe(ProbeArgs),

    /// Internal: the NVML query `probe` runs in a child process, so a hung GPU can be killed.
    #[command(name = "__nvml-query", hide = true)]
    NvmlQuery,
}

#[derive(Debug, Args)]
pub struct PythonArgs {
    /// The interpreter to inspect: a path, or a name looked up on PATH. Default: $VIRTUAL_ENV,
    /// then $CONDA_PREFIX, then python3 or python on PATH.
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,

    /// Seconds to wait for the interpreter's answer before killing it.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = positive_seconds)]
    pub python_timeout: f64,

    /// Ask the interpreter even when its cached answer is still valid.
    #[arg(long, env = "ENVDOCTOR_NO_CACHE", value_parser = clap::builder::FalseyValueParser::new())]
    pub no_cache: bool,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub python: PythonArgs,

    /// Seconds NVML may take to answer before the GPU or driver is reported hung.
    #[arg(long, value_name = "SECS", default_value_t = 15.0, value_parser = positive_seconds)]
    pub nvml_timeout: f64,

    /// Show a Snapshot recorded with `probe --format json` instead of probing this node.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["python", "python_timeout", "nvml_timeout"])]
    pub snapshot: Option<PathBuf>,

    /// `text` for people; `json` for tools (schema `envdoctor.snapshot/1`).
    #[arg(long, value_enum, default_value_t = SnapshotFormat::Text)]
    pub format: SnapshotFormat,

    /// Write to FILE (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SnapshotFormat {
    Text,
    Json,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    match std::time::Duration::try_from_secs_f64(seconds) {
        Ok(duration) if !duration.is_zero() => Ok(seconds),
        _ => Err(format!(
            "`{text}` is not a positive number of seconds that fits a timer"
        )),
    }
}
