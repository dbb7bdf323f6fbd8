//! `envdoctor completions SHELL`: the shell's completion script, generated
//! from the parser's own definitions, so it cannot fall behind them.

use clap::CommandFactory;

use super::{Outcome, emit};
use crate::cli::{Cli, CompletionsArgs};

pub(super) fn completions(args: CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut command = as_help_shows(Cli::command());
    let name = command.get_name().to_string();
    // Rendered into memory first: clap_complete panics when a write fails, and
    // a closed pipe (`| head`) is the reader's choice, which `emit` allows.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, name, &mut script);
    emit(None, &script)?;
    Ok(Outcome::Clean)
}

/// envdoctor's commands and flags as `--help` lists them. clap_complete's
/// scripts would also offer what is hidden: the internal `__nvml-query`, and
/// the `--json` that exists only to point at `--format json`. Both are
/// defined at the top, so the top level is rebuilt without them; each command
/// under it is kept whole (its own hidden flags would still be offered).
fn as_help_shows(cli: clap::Command) -> clap::Command {
    let shown_args = cli.get_arguments().filter(|arg| !arg.is_hide_set()).cloned();
    let shown_commands = cli.get_subcommands().filter(|sub| !sub.is_hide_set()).cloned();
    // clap keeps names as `&'static str` (its `string` feature is off).
    clap::Command::new(crate::cli::NAME)
        .version(env!("CARGO_PKG_VERSION"))
        .args(shown_args.collect::<Vec<_>>())
        .subcommands(shown_commands.collect::<Vec<_>>())
}
