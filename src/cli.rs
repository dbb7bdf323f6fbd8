//! Command-line definitions only: every flag is defined once, here, and its
//! help text is generated from this one place.

use std::path::PathBuf;

use std::ffi::OsStr;

use clap::builder::{StyledStr, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Args, Parser, Subcommand, ValueEnum};

pub use crate::findings::FailOn;
pub use crate::fleet::slurm::Collect;

const EXAMPLES: &str = "\
Examples:
  envdoctor check                          will this node train: the matrix, the checks, the GPU smoke test
  envdoctor probe                          what this node's default Python will train with
  envdoctor probe --python .venv/bin/python --format json -o node.json
  VIRTUAL_ENV=/opt/envs/train envdoctor probe

Exit codes: 0 success, 1 findings at or above --fail-on, 2 envdoctor could not do its job.";

/// `-o FILE`, for every command that prints a document (`lock`, whose file
/// is the point, has its own with a default).
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write to FILE (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// `--fail-on`, for every command whose exit code judges what it found.
#[derive(Debug, Clone, Copy, Args)]
pub struct FailOnArgs {
    /// The lowest severity that makes the exit code 1.
    #[arg(long = "fail-on", value_name = "FAIL_ON", value_enum, default_value_t = FailOn::Error)]
    pub level: FailOn,
}

/// The command's name, as the shell and its completion scripts know it.
pub const NAME: &str = "envdoctor";

#[derive(Debug, Parser)]
#[command(
    name = NAME,
    version,
    about = "Knows what a GPU training node has installed, whether it will work, and how to get it again.",
    after_help = EXAMPLES,
    arg = json_is_spelled_format_json()
)]
pub struct Cli {
    /// Set by `fleet --slurm` on the copy it broadcasts to each node: print the
    /// node's name first and remove the copy at the end (see fleet::slurm).
    #[arg(long = "fleet-task", hide = true)]
    pub fleet_task: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    // Help lists the commands in this order: `check`, what most people run, first.
    /// Judge this node (or a recorded Snapshot): the compatibility matrix and the built-in checks.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),

    /// One plan from every finding's package fix: the requirements merged, as one pip command.
    #[command(after_help = FIX_EXAMPLES)]
    Fix(FixArgs),

    /// Collect and print the Snapshot of this node: system, Python, packages. Judges nothing.
    #[command(after_help = "Examples:\n  envdoctor probe\n  envdoctor probe --python python3.11 --format json")]
    Probe(ProbeArgs),

    /// Run the GPU smoke test alone: a short, bounded test of the real stack on every GPU.
    #[command(after_help = SMOKE_EXAMPLES)]
    Smoke(SmokeArgs),

    /// Write the lockfile: this node's packages and its GPU side (driver, CUDA, GPUs).
    #[command(after_help = LOCK_EXAMPLES)]
    Lock(LockArgs),

    /// Say how this node (or a Snapshot) differs from a lockfile.
    #[command(after_help = VERIFY_EXAMPLES)]
    Verify(VerifyArgs),

    /// The differences between two Snapshots or lockfiles, grouped by area.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),

    /// Pinned requirements (requirements.txt, constraints, pylock.toml) from a lock or this node.
    #[command(after_help = EXPORT_EXAMPLES)]
    Export(ExportArgs),

    /// From a traceback or a training log to its most likely cause on this node, with the fix.
    #[command(after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),

    /// Many nodes at once: the configuration most share, and every node that differs from it.
    #[command(after_help = FLEET_EXAMPLES)]
    Fleet(FleetArgs),

    /// Inspect and validate the compatibility matrix.
    #[command(subcommand)]
    Matrix(MatrixCommand),

    /// Print the shell completion script for SHELL, generated from these definitions.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),

    /// Print the manual page (roff) of envdoctor, or of one of its commands.
    #[command(after_help = MAN_EXAMPLES)]
    Man(ManArgs),

    /// Internal: the NVML query `probe` runs in a child process, so a hung GPU can be killed.
    #[command(name = "__nvml-query", hide = true)]
    NvmlQuery,
}

/// How long the interpreter may take to answer, unless `--python-timeout` says.
pub const PYTHON_TIMEOUT_S: f64 = 10.0;
/// How long NVML may take to answer, unless `--nvml-timeout` says.
pub const NVML_TIMEOUT_S: f64 = 15.0;

#[derive(Debug, Args)]
pub struct PythonArgs {
    /// The interpreter to inspect: a path, a venv or conda folder (its bin/python), or a name
    /// looked up on PATH. Default: $VIRTUAL_ENV, then $CONDA_PREFIX, then python3 or python on PATH.
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,

    /// Seconds to wait for the interpreter's answer before killing it.
    #[arg(long, value_name = "SECS", default_value_t = PYTHON_TIMEOUT_S, value_parser = positive_seconds)]
    pub python_timeout: f64,

    /// Ask the interpreter even when its cached answer is still valid.
    #[arg(long, env = "ENVDOCTOR_NO_CACHE", value_parser = clap::builder::FalseyValueParser::new())]
    pub no_cache: bool,
}

/// Which node: this one (probed through an interpreter and NVML) or a recording of one.
#[derive(Debug, Args)]
pub struct NodeArgs {
    #[command(flatten)]
    pub python: PythonArgs,

    /// Seconds NVML may take to answer before the GPU or driver is reported hung.
    #[arg(long, value_name = "SECS", default_value_t = NVML_TIMEOUT_S, value_parser = positive_seconds)]
    pub nvml_timeout: f64,

    /// Use a Snapshot recorded with `probe --format json` instead of probing this node.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["python", "python_timeout", "nvml_timeout"])]
    pub snapshot: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub node: NodeArgs,

    /// `text` for people; `json` for tools (schema `envdoctor.snapshot/1`).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    #[command(flatten)]
    pub output: OutputArgs,
}

/// What the job is judged against: the matrix and the job's own training configs.
#[derive(Debug, Args)]
pub struct JobArgs {
    /// A directory of the site's own rules and symptom entries, added to the built-in matrix (repeatable).
    #[arg(long = "matrix", value_name = "DIR")]
    pub matrix: Vec<PathBuf>,

    /// The DeepSpeed config (JSON) the job uses: settles rules about ZeRO stage, offload, bf16,
    /// and is what the deep smoke test's ZeRO step runs.
    #[arg(long, value_name = "FILE")]
    pub deepspeed_config: Option<PathBuf>,

    /// The accelerate config the job uses. Default, when probing this node: accelerate's
    /// own default file ($HF_HOME/accelerate/default_config.yaml), if it exists.
    #[arg(long, value_name = "FILE")]
    pub accelerate_config: Option<PathBuf>,
}

const CHECK_EXAMPLES: &str = "\
Examples:
  envdoctor check                                      this node, its default Python
  envdoctor check --deepspeed-config ds_z3.json        also judge the job's DeepSpeed config
  envdoctor check --snapshot node.json --format junit -o envdoctor.xml
  envdoctor check --fail-on warning --ignore gpu-mig-enabled=\"MIG by design\"

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 envdoctor could not do its job.";

/// The findings a user silenced: `check`'s, and what `fix` leaves out of its plan.
#[derive(Debug, Args)]
pub struct IgnoreArgs {
    /// Silence a finding, by its id or its check's id, optionally with a reason: ID or ID=REASON
    /// (repeatable). An ignore that matches nothing is itself reported.
    #[arg(long, value_name = "ID[=REASON]")]
    pub ignore: Vec<String>,

    /// A file of ignores (`[[ignore]]` tables with `id` and `reason`). Default: ./envdoctor.toml, if present.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub node: NodeArgs,

    /// Do not run the GPU smoke test (it runs when probing a node with torch and a GPU).
    #[arg(long)]
    pub no_smoke: bool,

    /// Seconds the whole smoke test may take before it is killed; each step also has its own
    /// deadline. Default: 120, or 600 with --smoke-deep.
    #[arg(long, value_name = "SECS", value_parser = positive_seconds)]
    pub smoke_timeout: Option<f64>,

    /// Also run the smoke test's long steps: DeepSpeed ZeRO runs with CPU optimizer offload, with
    /// the job's own DeepSpeed config when --deepspeed-config (or an accelerate config) gives one.
    #[arg(long)]
    pub smoke_deep: bool,

    #[command(flatten)]
    pub job: JobArgs,

    #[command(flatten)]
    pub ignores: IgnoreArgs,

    /// `text` for people, `json` (schema `envdoctor.report/1`), `junit` for CI test reports,
    /// `markdown` for a CI job summary or a pull-request comment.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    #[command(flatten)]
    pub fail_on: FailOnArgs,

    #[command(flatten)]
    pub output: OutputArgs,
}

const FIX_EXAMPLES: &str = "\
Examples:
  envdoctor fix                                        this node's default Python: the plan as text
  envdoctor fix --python .venv/bin/python --apply      asks, installs, checks again; puts back on failure
  envdoctor fix --python .venv/bin/python --apply --yes --format json -o applied.json
  envdoctor fix --lock envdoctor.lock                  the plan also brings the packages back to the lock
  envdoctor fix --snapshot node.json --deepspeed-config ds_z3.json

It runs the checks of `check --no-smoke`, merges every package fix into one requirement per package
(every specifier that spoke, which pip reads as their intersection), tries the merged versions
against the matrix and the installed packages' own requirements, and prints one command for the
judged interpreter, what each requirement fixes, what no package install fixes, and the conflicts.

--apply runs the plan with the interpreter's pip (uv pip where uv made the environment). First it
writes a lock of the environment and a hard-linked backup of its files into PREFIX/.envdoctor-fix;
when a step fails, envdoctor is interrupted, or the check after raises a finding the check before
did not, it puts every file back and verifies the environment against that lock. It changes only a
virtual environment or a conda prefix unless --system is given, and never runs sudo.

Exit codes: 0 nothing to fix (with --apply: the plan was applied and the check after is clean), 1 a
plan, a conflict or a finding it cannot fix (with --apply: findings remain), 2 envdoctor could not
do its job (with --apply: nothing changed, or the environment was put back).";

#[derive(Debug, Args)]
pub struct FixArgs {
    #[command(flatten)]
    pub node: NodeArgs,

    #[command(flatten)]
    pub job: JobArgs,

    #[command(flatten)]
    pub ignores: IgnoreArgs,

    /// Also bring the packages back to this lock: each package's drift (another version, missing)
    /// becomes a requirement of the plan.
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,

    /// Run the plan: record the environment, install, check again, and put everything back when a
    /// step fails or the check after is worse.
    #[arg(long, conflicts_with = "snapshot")]
    pub apply: bool,

    /// Apply without asking (for scripts); without it, --apply asks on a terminal and refuses elsewhere.
    #[arg(long, requires = "apply")]
    pub yes: bool,

    /// Allow --apply to change a Python that is neither a virtual environment nor a conda prefix.
    #[arg(long, requires = "apply")]
    pub system: bool,

    /// Put back the environment an interrupted --apply left half-changed, from the backup it left.
    #[arg(long, conflicts_with_all = ["apply", "snapshot", "lock"])]
    pub restore: bool,

    /// `text` for people; `json` for tools (schema `envdoctor.fix/1`).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    #[command(flatten)]
    pub output: OutputArgs,
}

const EXPLAIN_EXAMPLES: &str = "\
Examples:
  envdoctor explain train.log                   the log's tracebacks, judged with this node's facts
  python train.py 2>&1 | tail -200 | envdoctor explain -
  envdoctor explain job-1234.err --snapshot node.json --deepspeed-config ds_z3.json --format json

Exit codes: 0 a cause was named (or the log holds no error), 1 an error no known cause fits, 2 envdoctor
could not read the log or probe the node.";

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The traceback or log to explain; `-` (or nothing, when piped) for standard input. Long logs
    /// are fine: every traceback in it is read, and the one that explains the failure is used.
    #[arg(value_name = "LOG")]
    pub log: Option<PathBuf>,

    #[command(flatten)]
    pub node: NodeArgs,

    #[command(flatten)]
    pub job: JobArgs,

    /// `text` for people; `json` for tools (schema `envdoctor.explain/1`).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    /// Text: everything, not only the answer, its evidence, fix and three other candidates: why the
    /// cause breaks training, every reference, every candidate in full and the other tracebacks.
    #[arg(long, short)]
    pub verbose: bool,

    #[command(flatten)]
    pub output: OutputArgs,
}

const FLEET_EXAMPLES: &str = "\
Examples:
  envdoctor fleet reports/                       every *.json report in a directory
  srun -N 64 --ntasks-per-node=1 envdoctor check --format json -o 'reports/{host}.json'; envdoctor fleet reports/
  envdoctor fleet --slurm -N 64 -p gpu           ask every node of 64 through Slurm (SRUN_ARGS come last)
  envdoctor fleet --lock train.lock --format junit -o fleet.xml --slurm
  kubectl logs -l app.kubernetes.io/name=envdoctor | envdoctor fleet -

Exit codes: 0 nothing at or above --fail-on, 1 a node deviates, has a finding, or did not answer at
or above it, 2 envdoctor could not do its job.";

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Snapshots (`probe --format json`) or check reports (`check --format json`): files,
    /// directories of `*.json` files, or `-` for standard input (JSON lines, or documents back to back).
    #[arg(value_name = "REPORTS", conflicts_with = "slurm")]
    pub reports: Vec<PathBuf>,

    /// Compare every node with this lock instead of with the fleet's own majority.
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,

    /// `text` for people, `json` (schema `envdoctor.fleet/1`), `junit` (one test per node),
    /// `markdown` for a CI job summary.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    #[command(flatten)]
    pub fail_on: FailOnArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Seconds the nodes have to answer (--slurm); the step is then stopped and every node that
    /// has not answered is reported.
    #[arg(long, value_name = "SECS", default_value_t = 120.0, value_parser = positive_seconds)]
    pub deadline: f64,

    /// What each node runs (--slurm): `check` (the Snapshot and the node's findings) or `probe`.
    #[arg(long, value_enum, default_value_t = Collect::Check)]
    pub collect: Collect,

    /// Also run the GPU smoke test on every node (--slurm --collect check); give it a --deadline
    /// long enough for torch to start.
    #[arg(long)]
    pub smoke: bool,

    /// The interpreter each node inspects (--slurm): a path valid on every node.
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,

    /// The envdoctor each node runs (--slurm): a path valid on every node. Default: this very
    /// envdoctor, which srun copies to every node's /tmp (`srun --bcast`), so the nodes need nothing.
    #[arg(long, value_name = "PATH")]
    pub envdoctor: Option<PathBuf>,

    /// Ask every node through Slurm: one `srun --ntasks-per-node=1` task per node of the
    /// allocation, or of the nodes SRUN_ARGS select (`-N 64`, `-w gpu[01-64]`, `-p gpu`).
    /// Everything after --slurm is passed to srun, so it comes last.
    #[arg(long, value_name = "SRUN_ARGS", num_args = 0.., allow_hyphen_values = true)]
    pub slurm: Option<Vec<String>>,
}

const SMOKE_EXAMPLES: &str = "\
Examples:
  envdoctor smoke                              the default Python's torch on every visible GPU
  envdoctor smoke --python .venv --timeout 60 --format json -o smoke.json
  CUDA_VISIBLE_DEVICES=2,3 envdoctor smoke     two GPUs, with an NCCL all-reduce between them
  envdoctor smoke --deep --deepspeed-config ds_z3_offload.json
                                               also a ZeRO run of the job's DeepSpeed config

Exit codes: 0 nothing at or above --fail-on, 1 a step failed or hung, 2 envdoctor could not do its job
(among others: no torch for the interpreter, or no GPU that CUDA sees, so the test cannot run).";

#[derive(Debug, Args)]
pub struct SmokeArgs {
    /// The interpreter the job uses: a path, a venv or conda folder (its bin/python), or a name
    /// looked up on PATH. Default: $VIRTUAL_ENV, then $CONDA_PREFIX, then python3 or python on PATH.
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,

    /// Seconds the whole test may take before it is killed; each step also has its own deadline.
    /// Default: 120, or 600 with --deep (DeepSpeed may compile its CPU Adam first).
    #[arg(long, value_name = "SECS", value_parser = positive_seconds)]
    pub timeout: Option<f64>,

    /// Also run the long steps: DeepSpeed ZeRO-3 and ZeRO-2 runs with the optimizer offloaded to
    /// the CPU, clipping at every step; with --deepspeed-config (or an accelerate config that
    /// launches DeepSpeed), the job's own config instead, with a tiny model and batch.
    #[arg(long)]
    pub deep: bool,

    #[command(flatten)]
    pub job: JobArgs,

    /// `text` for people; `json` for tools (schema `envdoctor.smoke/1`).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    #[command(flatten)]
    pub fail_on: FailOnArgs,

    #[command(flatten)]
    pub output: OutputArgs,
}

const LOCK_EXAMPLES: &str = "\
Examples:
  envdoctor lock                                   envdoctor.lock for this node's default Python
  envdoctor lock --python .venv/bin/python -o train.lock
  envdoctor lock --snapshot node3.json -o node3.lock

Exit codes: 0 written, 2 envdoctor could not do its job.";

#[derive(Debug, Args)]
pub struct LockArgs {
    #[command(flatten)]
    pub node: NodeArgs,

    /// Where to write the lock (atomically); `-` for standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = crate::lock::DEFAULT_FILE)]
    pub output: PathBuf,
}

const VERIFY_EXAMPLES: &str = "\
Examples:
  envdoctor verify                                 this node against ./envdoctor.lock
  envdoctor verify --files                         also re-hash every installed file against its RECORD
  envdoctor verify --lock train.lock --snapshot node7.json --format junit -o verify.xml

Exit codes: 0 no drift at or above --fail-on, 1 drift at or above it, 2 envdoctor could not verify.";

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The lock to verify against.
    #[arg(long, value_name = "FILE", default_value = crate::lock::DEFAULT_FILE)]
    pub lock: PathBuf,

    #[command(flatten)]
    pub node: NodeArgs,

    /// Also check every installed file against its distribution's RECORD hashes and name the
    /// files changed in place (needs the node itself, not a Snapshot).
    #[arg(long, conflicts_with = "snapshot")]
    pub files: bool,

    /// `text` for people, `json` (schema `envdoctor.verify/1`), `junit` for CI test reports.
    #[arg(long, value_enum, default_value_t = DriftFormat::Text)]
    pub format: DriftFormat,

    #[command(flatten)]
    pub fail_on: FailOnArgs,

    #[command(flatten)]
    pub output: OutputArgs,
}

const DIFF_EXAMPLES: &str = "\
Examples:
  envdoctor diff node3.json node7.json             it works on node 3 but not on node 7: why
  envdoctor diff envdoctor.lock node7.json

Exit codes: 0 the same, 1 they differ, 2 envdoctor could not read one of them.";

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// A Snapshot (`probe --format json`) or a lockfile.
    #[arg(value_name = "A")]
    pub a: PathBuf,

    /// A Snapshot (`probe --format json`) or a lockfile.
    #[arg(value_name = "B")]
    pub b: PathBuf,

    /// `text` for people, `json` (schema `envdoctor.diff/1`).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    #[command(flatten)]
    pub output: OutputArgs,
}

const EXPORT_EXAMPLES: &str = "\
Examples:
  envdoctor export --format requirements --hashes -o requirements.txt
  envdoctor export --lock envdoctor.lock --format pylock -o pylock.toml
  envdoctor export --format constraints --index-url https://pypi.example.com/simple/
  python -m pip install --require-hashes --no-deps -r requirements.txt

Exit codes: 0 written, 2 envdoctor could not export (a hash the index does not have, a lock it cannot read).";

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Export from this lock. Default: ./envdoctor.lock where it exists and neither --python
    /// nor --snapshot names a node; otherwise the node is probed.
    #[arg(long, value_name = "FILE", conflicts_with = "snapshot")]
    pub lock: Option<PathBuf>,

    #[command(flatten)]
    pub node: NodeArgs,

    /// `requirements` (pip -r), `constraints` (pip -c), or `pylock` (PEP 751 pylock.toml).
    #[arg(long, value_enum)]
    pub format: ExportFormat,

    /// Add `--hash=sha256:` lines from the package index (always on for pylock).
    #[arg(long)]
    pub hashes: bool,

    /// The package index to take hashes from. Default: PIP_INDEX_URL, then pip's configuration
    /// files, then pip's own default.
    #[arg(long, value_name = "URL")]
    pub index_url: Option<String>,

    /// Use only hashes cached by an earlier export; say which are missing.
    #[arg(long)]
    pub offline: bool,

    /// Seconds one index request may take.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = positive_seconds)]
    pub index_timeout: f64,

    /// Also pin pip, setuptools, wheel and distribute, which `pip freeze` leaves out.
    #[arg(long)]
    pub all: bool,

    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Requirements,
    Constraints,
    Pylock,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DriftFormat {
    Text,
    Json,
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
    Junit,
    Markdown,
}

#[derive(Debug, Subcommand)]
pub enum MatrixCommand {
    /// Every rule and built-in check, with its severity and title.
    List {
        /// Also list the rules of a site's matrix directory (repeatable).
        #[arg(long = "matrix", value_name = "DIR")]
        matrix: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
        format: TextOrJson,
    },
    /// Validate a matrix directory: every problem in every file, with file, line and column.
    /// Without DIR, the matrix compiled into this binary.
    Lint {
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Everything known about one rule or check: conditions, why, fix, references.
    Explain {
        #[arg(value_name = "ID")]
        id: String,
        /// Also look in a site's matrix directory (repeatable).
        #[arg(long = "matrix", value_name = "DIR")]
        matrix: Vec<PathBuf>,
    },
}

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  envdoctor completions bash > ~/.local/share/bash-completion/completions/envdoctor
  envdoctor completions zsh > ~/.zfunc/_envdoctor     with fpath+=(~/.zfunc) before compinit in ~/.zshrc
  envdoctor completions fish > ~/.config/fish/completions/envdoctor.fish";

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell whose completion script to print.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

const MAN_EXAMPLES: &str = "\
Examples:
  envdoctor man > envdoctor.1                 envdoctor's page, which lists its commands
  envdoctor man check > envdoctor-check.1     the page of one command, named as that list names it
  envdoctor man matrix lint | man -l -        read a page without installing it";

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`check`, `matrix lint`); none for envdoctor's own page.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `--format` for the documents that are text for people or JSON for tools
/// (a Snapshot, the smoke test, `explain`, `diff`, `matrix list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextOrJson {
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

/// `--json` is the flag many tools have; here it is `--format json`. A hidden
/// `--json` on every command turns that guess into a usage error (exit 2, as
/// clap's own) that names the right spelling where the command has it.
fn json_is_spelled_format_json() -> Arg {
    Arg::new("json")
        .long("json")
        .global(true)
        .hide(true)
        .action(ArgAction::SetTrue)
        .value_parser(SuggestFormatJson)
}

#[derive(Clone)]
struct SuggestFormatJson;

impl TypedValueParser for SuggestFormatJson {
    type Value = bool;

    fn parse_ref(&self, command: &clap::Command, _: Option<&Arg>, value: &OsStr) -> Result<bool, clap::Error> {
        // clap parses the flag's default (`false`) too: only the flag given is the mistake.
        if value == "false" {
            return Ok(false);
        }
        let mut error = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(command);
        error.insert(ContextKind::InvalidArg, ContextValue::String("--json".to_string()));
        if formats_json(command) {
            let valid = command.get_styles().get_valid();
            let tip = StyledStr::from(format!("use '{valid}--format json{valid:#}'"));
            error.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip]));
        }
        error.insert(
            ContextKind::Usage,
            ContextValue::StyledStr(command.clone().render_usage()),
        );
        Err(error)
    }
}

/// Whether `command` has a `--format` that takes `json`.
fn formats_json(command: &clap::Command) -> bool {
    command
        .get_arguments()
        .filter(|arg| arg.get_long() == Some("format"))
        .any(|arg| {
            arg.get_possible_values()
                .iter()
                .any(|value| value.matches("json", false))
        })
}
