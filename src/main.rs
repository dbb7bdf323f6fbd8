use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = envdoctor::cli::Cli::parse();
    match envdoctor::commands::run(cli) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(error) => {
            // `{:#}` prints the whole cause chain on one line.
            eprintln!("envdoctor: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
