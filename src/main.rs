use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = envdoctor::cli::Cli::parse();
    match envdoctor::commands::run(cli) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(error) => {
            if let Some(envdoctor::smoke::SmokeError::Interrupted { signal }) = error.downcast_ref() {
                // Cleaned up after; now end as the signal asked, so that the
                // shell or scheduler that sent it sees it.
                eprintln!("envdoctor: {error}");
                envdoctor::process::die_of(*signal);
            }
            // `{:#}` prints the whole cause chain on one line; what it quotes
            // from input is escaped, so it stays one line of bounded length.
            eprintln!(
                "envdoctor: error: {}",
                envdoctor::escape::one_line(&format!("{error:#}"))
            );
            ExitCode::from(2)
        }
    }
}
