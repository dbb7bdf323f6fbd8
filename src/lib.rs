//! envdoctor: what a GPU training node has installed, whether it will work, and
//! how to get exactly this again. `main.rs` only parses and maps outcomes to exit
//! codes; everything else lives here, one module per concern.

pub mod ascii_case;
pub mod atomic_write;
pub mod bounded_read;
pub mod builtin_checks;
pub mod cache_home;
pub mod calendar;
pub mod check;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod configs;
pub mod digest;
pub mod error_line;
pub mod escape;
pub mod explain;
pub mod export;
pub mod facts;
pub mod findings;
pub mod fix_command;
pub mod fix_plan;
pub mod fleet;
pub mod hint;
pub mod knowledge;
pub mod located;
pub mod lock;
pub mod matrix;
pub mod node_name;
pub mod packaging;
pub mod probe;
pub mod process;
pub mod python_escape;
pub mod redact;
pub mod report;
pub mod shell;
pub mod smoke;
pub mod snapshot;
pub mod tool_text;
pub mod torch_install;

/// How a unit test that cannot run here records its skip: the integration
/// tests' own helper, one file for both.
#[cfg(test)]
#[path = "../tests/it/common/skip.rs"]
pub(crate) mod test_skip;
