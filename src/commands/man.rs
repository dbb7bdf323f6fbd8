//! `envdoctor man [COMMAND]...`: a manual page in roff, generated from the
//! parser's own definitions. envdoctor's page lists its commands as
//! `envdoctor-check(1)` and so on; `envdoctor man check` prints that page.

use anyhow::{Context, anyhow};
use clap::CommandFactory;

use super::{Outcome, emit};
use crate::cli::{Cli, ManArgs};

pub(super) fn man(args: ManArgs) -> anyhow::Result<Outcome> {
    // Built whole, as clap_mangen's own `generate_to` does, so that every command
    // knows its full name (`envdoctor-check`, `envdoctor check`); clap's `help`
    // command has no page.
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    let command = find(&root, &args.command)?;
    let page = clap_mangen::Man::new(command.clone()).source(format!("envdoctor {}", env!("CARGO_PKG_VERSION")));
    let mut roff = Vec::new();
    page.render(&mut roff).context("cannot render the manual page")?;
    emit(None, &roff)?;
    Ok(Outcome::Clean)
}

/// The command that `path` (`["matrix", "lint"]`) names under `root`.
fn find<'a>(root: &'a clap::Command, path: &[String]) -> anyhow::Result<&'a clap::Command> {
    let mut command = root;
    for name in path {
        let visible: Vec<&clap::Command> = command.get_subcommands().filter(|sub| !sub.is_hide_set()).collect();
        let Some(found) = visible.iter().find(|sub| sub.get_name() == name) else {
            let within = command.get_bin_name().unwrap_or(command.get_name());
            let known: Vec<&str> = visible.iter().map(|sub| sub.get_name()).collect();
            return Err(match known.is_empty() {
                true => anyhow!("`{within}` has no commands, so no page for `{name}`"),
                false => anyhow!("`{within}` has no command `{name}`; its commands: {}", known.join(", ")),
            });
        };
        command = found;
    }
    Ok(command)
}
