use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = envdoctor::cli::Cli::parse();
    let fleet_task = cli.fleet_task;
    if fleet_task {
        envdoctor::fleet::slurm::announce_node();
    }
    let result = envdoctor::commands::run(cli);
    if fleet_task {
        envdoctor::fleet::slurm::remove_broadcast_copy();
    }
    match result {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(error) => {
            if let Some(envdoctor::smoke::SmokeError::Interrupted { signal }) = error.downcast_ref() {
                // Cleaned up after; now end as the signal asked, so that the
                // shell or scheduler that sent it sees it.
                eprintln!("envdoctor: {error}");
                envdoctor::process::die_of(*signal);
            }
            eprintln!("envdoctor: {}", envdoctor::error_line::render(&error));
            ExitCode::from(2)
        }
    }
}
