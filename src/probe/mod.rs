//! Collecting the Snapshot. Each submodule fills one part of it and judges nothing.

pub mod cuda;
pub mod cuda_devices;
pub mod environment;
pub mod frameworks;
pub mod interpreter_cache;
pub mod limits;
pub mod nvidia;
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

/// Everything a probe can be told.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub python: PythonOptions,
    /// How long NVML may take before the GPU or driver is reported hung.
    pub nvml_deadline: Duration,
    /// Also record each distribution's RECORD digest (what a lock pins).
    pub record_digests: bool,
}

pub fn snapshot(options: &ProbeOptions) -> Result<Snapshot, python::InterpreterError> {
    // NVML initialisation costs tens of milliseconds to seconds (without
    // persistence mode the driver sets every GPU up); it overlaps with the
    // interpreter's start-up instead of following it.
    std::thread::scope(|scope| {
        let nvidia = scope.spawn(|| nvidia::probe(options.nvml_deadline));
        let snapshot = python_side(&options.python).map(|mut snapshot| {
            if options.record_digests {
                record_digests(&mut snapshot.packages);
            }
            snapshot
        });
        let nvidia = nvidia.join().expect("the NVIDIA probe does not panic");
        snapshot.map(|snapshot| with_nvidia(snapshot, nvidia))
    })
}

/// A RECORD that cannot be read leaves the digest out: the lock then pins
/// the version alone, as for a distribution without RECORD.
fn record_digests(packages: &mut [crate::snapshot::packages::Package]) {
    for package in packages {
        package.record_digest = crate::packaging::record::record_digest(&package.metadata_path)
            .ok()
            .flatten();
    }
}

fn with_nvidia(mut snapshot: Snapshot, found: nvidia::NvidiaAnswer) -> Snapshot {
    snapshot.cuda_devices = found.nvidia.as_ref().map(|nvidia| {
        let mut devices = cuda_devices::map(
            &nvidia.gpus,
            snapshot.env.get("CUDA_VISIBLE_DEVICES").map(String::as_str),
            snapshot.env.get("CUDA_DEVICE_ORDER").map(String::as_str),
        );
        if !nvidia.unreadable_gpus.is_empty() {
            // CUDA counts the GPUs NVML could not read; the numbering may shift.
            devices.certain = false;
            devices
                .notes
                .push("some GPUs could not be read, so CUDA's numbering may include GPUs not listed here".to_string());
        }
        devices
    });
    snapshot.nvidia = found.nvidia;
    snapshot.nvidia_error = found.error;
    snapshot.nvidia_kernel_module = found.kernel_module;
    snapshot
}

fn python_side(options: &PythonOptions) -> Result<Snapshot, python::InterpreterError> {
    let located = python::locate(options.requested.as_deref(), |name| std::env::var_os(name))?;
    let answer = python::inspect(&located, options.deadline, options.use_cache)?;
    let inventory = packages::scan(&answer.sys_path);
    let env = environment::selected(
        std::env::vars_os().filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?))),
    );
    let cuda = cuda::probe(&cuda::Inputs {
        env: &|name| std::env::var_os(name),
        python_prefix: &answer.prefix,
        sys_path: &answer.sys_path,
        packages: &inventory.packages,
    });
    let frameworks = frameworks::probe(&answer.sys_path, &inventory.packages);
    Ok(Snapshot {
        schema: snapshot::SCHEMA.to_string(),
        envdoctor_version: env!("CARGO_PKG_VERSION").to_string(),
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
            markers: Some(answer.markers),
        },
        nvidia: None,
        nvidia_error: None,
        nvidia_kernel_module: None,
        cuda_devices: None,
        cuda,
        frameworks,
        packages: inventory.packages,
        package_scan_problems: inventory.problems,
        env: env.values,
        env_withheld: env.withheld,
    })
}
