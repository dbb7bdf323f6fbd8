//! Every integration test, in one binary: one link instead of one per file,
//! which is most of what CI spends building tests. Each module is one area
//! (`check_cli`, `lock_verify`, ...) and drives the real binary; `common`
//! holds what they share. One area: `cargo test --test it check_cli::`.

mod architecture;
mod check_builtin;
mod check_cli;
mod check_requirements;
mod cli_help;
mod common;
mod error_lines;
mod explain_cli;
mod explain_fresh;
mod explain_presentation;
mod export_roundtrip;
mod fix_apply;
mod fix_cli;
mod fleet_cli;
mod fleet_slurm;
mod fuzz_inputs;
mod golden_outputs;
mod hostile_names;
mod hostile_text;
mod index_client;
mod interpreter_cache;
mod keyword_history_tool;
mod lock_verify;
mod matrix_rules;
mod output_width;
mod parsed_outputs;
mod probe_bad_input;
mod probe_cuda;
mod probe_frameworks;
mod probe_matches_pip;
mod probe_nvidia;
mod probe_output;
mod probe_replay;
mod python_flag;
mod safe_writes;
mod skip_report;
mod smoke_deepspeed;
mod smoke_harness;
mod smoke_not_run;
mod smoke_script;
mod writer_architecture;
