//! `envdoctor matrix list|lint|explain`.

use super::{Outcome, emit, style_for};
use crate::cli::{MatrixCommand, TextOrJson};
use crate::hint::Hinted;
use crate::matrix::Matrix;

pub(super) fn matrix_command(command: MatrixCommand) -> anyhow::Result<Outcome> {
    match command {
        MatrixCommand::List { matrix, format } => {
            let matrix = Matrix::load(&matrix)?;
            let rendered = match format {
                TextOrJson::Text => crate::report::matrix::list_text(&matrix, style_for(None)),
                TextOrJson::Json => {
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
            let Some(rendered) = crate::report::matrix::explain(&matrix, &id, style_for(None)) else {
                let unknown = anyhow::anyhow!("no rule, check or finding has the id `{id}`");
                return Err(Hinted::new(unknown, "`envdoctor matrix list` lists every id").into());
            };
            emit(None, rendered.as_bytes())?;
            Ok(Outcome::Clean)
        }
    }
}
