//! Collecting the Snapshot. Each submodule fills one part of it and judges nothing.

pub mod environment;
pub mod interpreter_cache;
pub mod metadata;
pub mod packages;
pub mod python;
pub mod system;

use std::time::Duration;

use crate::snapshot::{self, Python, Snapshot};

/// How to find and ask the interpreter.
#[derive(Debug, Clone)]
pub struct PythonOptions {
    pub requested: Option<String>,
    pub deadline: Duration,
    pub use_cache: bool,
}

pub fn snapshot(options: &PythonOptions) -> Result<Snapshot, python::InterpreterError> {
    let located = python::locate(options.requested.as_deref(), |name| std::env::var_os(name))?;
    let answer = python::inspect(&located, options.deadline, options.use_cache)?;
    let inventory = packages::scan(&answer.sys_path);
    Ok(Snapshot {
        schema: snapshot::SCHEMA,
        envdoctor_version: env!("CARGO_PKG_VERSION"),
        system: system::probe(),
        python: Python {
            is_virtual_env: answer.prefix != answer.base_prefix,
            executable: answer.executable,
            invoked: std::path::absolute(&located.path).unwrap_or(located.path),
            origin: located.origin,
            version: answer.version,
            implementation: answer.implementation,
            prefix: answer.prefix,
            base_prefix: answer.base_prefix,
            site_packages: answer.site_packages,
            user_site: answer.user_site,
            user_site_enabled: answer.user_site_enabled,
            sys_path: answer.sys_path,
        },
        packages: inventory.packages,
        package_scan_problems: inventory.problems,
        env: environment::selected(
            std::env::vars_os().filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?))),
        ),
    })
}
