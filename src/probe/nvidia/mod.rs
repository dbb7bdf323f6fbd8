//! The NVIDIA side of the Snapshot: driver, CUDA driver API and every GPU, from
//! NVML, and the kernel module from `/proc`.
//!
//! NVML runs in a child process (`envdoctor` re-executed with a hidden
//! subcommand) under a deadline. On a sick GPU `nvmlInit` or a device query can
//! block for minutes; a thread cannot be cancelled, but a process group can be
//! killed, so a hang becomes an error entry instead of a hung doctor.

mod kernel_module;
mod nvml_query;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use kernel_module::KernelModule;
pub use nvml_query::{QUERY_COMMAND, answer_query};

use crate::process::{self, RunError};

/// Names the NVML library to load instead of `libnvidia-ml.so.1` from the
/// loader's search path: for drivers installed outside it.
pub const LIBRARY_VARIABLE: &str = "ENVDOCTOR_NVML_LIBRARY";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nvidia {
    pub driver_version: String,
    /// The newest CUDA the driver supports (`nvmlSystemGetCudaDriverVersion_v2`),
    /// as `major.minor`.
    pub cuda_driver_version: Option<String>,
    pub nvml_version: Option<String>,
    /// In NVML index order, which is PCI bus order, as `nvidia-smi` numbers them.
    pub gpus: Vec<Gpu>,
    /// GPUs NVML counts but cannot open (fallen off the bus, no permission).
    pub unreadable_gpus: Vec<UnreadableGpu>,
}

/// One GPU. A field the driver does not support for this GPU is `null`; a
/// field whose query failed for another reason is `null` and its error is in
/// `query_errors`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gpu {
    pub index: u32,
    pub name: Option<String>,
    pub uuid: Option<String>,
    /// As `nvidia-smi` prints it: `00000000:3B:00.0`.
    pub pci_bus_id: Option<String>,
    /// `major.minor`, as in `8.0` for an A100.
    pub compute_capability: Option<String>,
    pub memory_total_mib: Option<u64>,
    pub memory_used_mib: Option<u64>,
    pub mig_mode: Option<Toggle>,
    /// The MIG devices (GPU instance + compute instance) carved out of this GPU.
    pub mig_devices: Vec<MigDevice>,
    pub ecc_mode: Option<Toggle>,
    /// Uncorrectable ECC errors since the driver loaded.
    pub ecc_uncorrectable_volatile: Option<u64>,
    /// Uncorrectable ECC errors over the GPU's lifetime.
    pub ecc_uncorrectable_aggregate: Option<u64>,
    /// Memory pages waiting for a reboot to be retired (GPUs before Ampere).
    pub retired_pages_pending: Option<bool>,
    /// Row remapping (Ampere and later), which replaced page retirement.
    pub remapped_rows: Option<RemappedRows>,
    pub persistence_mode: Option<bool>,
    /// `default`, `exclusive_process`, `prohibited` or `exclusive_thread`.
    pub compute_mode: Option<String>,
    /// The enforced power limit.
    pub power_limit_watts: Option<f64>,
    pub temperature_celsius: Option<u32>,
    /// Why the clocks are held down right now (`hw_slowdown`, `sw_thermal_slowdown`, ...);
    /// empty when nothing holds them.
    pub clock_event_reasons: Option<Vec<String>>,
    pub pcie: PcieLink,
    pub nvlinks_active: Option<u32>,
    pub query_errors: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toggle {
    pub current: bool,
    /// What the GPU will use after the next reset or reboot.
    pub pending: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigDevice {
    pub index: u32,
    pub uuid: Option<String>,
    pub memory_total_mib: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemappedRows {
    pub correctable: u32,
    pub uncorrectable: u32,
    /// A remap waits for the GPU to be reset.
    pub pending: bool,
    /// A remap failed: the GPU needs service.
    pub failed: bool,
}

/// Current against maximum: a link trained below its maximum starves a GPU of host bandwidth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PcieLink {
    pub generation_current: Option<u32>,
    pub generation_max: Option<u32>,
    pub width_current: Option<u32>,
    pub width_max: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadableGpu {
    pub index: u32,
    pub error: String,
}

/// Why there are no NVIDIA facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvidiaError {
    pub kind: NvidiaErrorKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NvidiaErrorKind {
    /// No NVML library and no kernel module: a node without an NVIDIA driver.
    NoDriver,
    /// The kernel module is loaded but NVML is missing or fails: a broken install
    /// (most often user-space libraries of another version than the module).
    BrokenInstall,
    /// NVML is there but the kernel module is not loaded.
    ModuleNotLoaded,
    /// NVML did not answer before the deadline: a hung GPU or driver.
    Timeout,
    /// Anything else, such as no permission on `/dev/nvidia*`.
    Failed,
}

/// What the NVIDIA probe found: facts, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub nvidia: Option<Nvidia>,
    pub error: Option<NvidiaError>,
    pub kernel_module: Option<KernelModule>,
}

/// How the child answers: the facts, or the NVML failure it met.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    Found(Nvidia),
    Failed(Failure),
}

#[derive(Debug, Serialize, Deserialize)]
struct Failure {
    /// The library could not be loaded at all.
    library_missing: bool,
    /// NVML said the kernel driver is not loaded.
    driver_not_loaded: bool,
    message: String,
}

pub fn probe(deadline: Duration) -> Found {
    let kernel_module = kernel_module::probe();
    let outcome = ask_child(deadline);
    let (nvidia, error) = match outcome {
        Ok(Answer::Found(nvidia)) => (Some(nvidia), None),
        Ok(Answer::Failed(failure)) => (None, Some(classify(failure, kernel_module.as_ref()))),
        Err(error) => (None, Some(error)),
    };
    Found {
        nvidia,
        error,
        kernel_module,
    }
}

fn ask_child(deadline: Duration) -> Result<Answer, NvidiaError> {
    let failed = |message: String| NvidiaError {
        kind: NvidiaErrorKind::Failed,
        message,
    };
    let executable =
        std::env::current_exe().map_err(|error| failed(format!("cannot find envdoctor's own executable: {error}")))?;
    let mut command = Command::new(executable);
    command.arg(QUERY_COMMAND);
    let finished = process::run_with_deadline(command, deadline).map_err(|error| match error {
        RunError::TimedOut { seconds } => NvidiaError {
            kind: NvidiaErrorKind::Timeout,
            message: format!(
                "NVML did not answer within {seconds} s and was stopped: a GPU or the driver may be hung \
                 (check `dmesg` for Xid errors; raise the limit with --nvml-timeout)"
            ),
        },
        RunError::Spawn(error) => failed(format!("cannot start the NVML query: {error}")),
    })?;
    let stdout = String::from_utf8_lossy(&finished.stdout);
    serde_json::from_str(stdout.trim()).map_err(|_| {
        failed(format!(
            "the NVML query ended ({}) without an answer: {}",
            process::describe_status(&finished.status),
            process::last_line(&finished.stderr).unwrap_or_else(|| "it printed nothing".to_string())
        ))
    })
}

fn classify(failure: Failure, kernel_module: Option<&KernelModule>) -> NvidiaError {
    let Some(module) = kernel_module else {
        let (kind, message) = if failure.library_missing {
            (
                NvidiaErrorKind::NoDriver,
                format!(
                    "no NVIDIA driver: {}, and no NVIDIA kernel module is loaded",
                    failure.message
                ),
            )
        } else if failure.driver_not_loaded {
            (
                NvidiaErrorKind::ModuleNotLoaded,
                format!(
                    "the NVIDIA user-space driver is installed but its kernel module is not loaded ({}); \
                     load it with `modprobe nvidia`, or reboot after a driver upgrade",
                    failure.message
                ),
            )
        } else {
            (NvidiaErrorKind::Failed, failure.message)
        };
        return NvidiaError { kind, message };
    };
    let module_version = module.version.as_deref().unwrap_or("of unknown version");
    NvidiaError {
        kind: NvidiaErrorKind::BrokenInstall,
        message: format!(
            "the NVIDIA kernel module {module_version} is loaded ({}) but NVML fails: {}; \
             the driver's user-space libraries are missing or of another version than the module",
            module.read_from.display(),
            failure.message
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(library_missing: bool, driver_not_loaded: bool) -> Failure {
        Failure {
            library_missing,
            driver_not_loaded,
            message: "libnvidia-ml.so.1: cannot open shared object file".to_string(),
        }
    }

    fn module() -> KernelModule {
        KernelModule {
            version: Some("550.54.14".to_string()),
            flavor: Some("open".to_string()),
            built_with: None,
            read_from: "/proc/driver/nvidia/version".into(),
        }
    }

    #[test]
    fn no_library_and_no_module_is_a_node_without_a_driver() {
        let error = classify(failure(true, false), None);
        assert_eq!(error.kind, NvidiaErrorKind::NoDriver);
        assert!(error.message.contains("no NVIDIA kernel module"), "{}", error.message);
    }

    #[test]
    fn a_loaded_module_without_working_nvml_is_a_broken_install() {
        for (library_missing, driver_not_loaded) in [(true, false), (false, false), (false, true)] {
            let error = classify(failure(library_missing, driver_not_loaded), Some(&module()));
            assert_eq!(error.kind, NvidiaErrorKind::BrokenInstall);
            assert!(error.message.contains("550.54.14"), "{}", error.message);
        }
    }

    #[test]
    fn nvml_without_a_module_says_to_load_it() {
        let error = classify(failure(false, true), None);
        assert_eq!(error.kind, NvidiaErrorKind::ModuleNotLoaded);
        assert!(error.message.contains("modprobe nvidia"), "{}", error.message);
    }

    #[test]
    fn other_failures_without_a_module_are_reported_as_they_are() {
        let error = classify(failure(false, false), None);
        assert_eq!(error.kind, NvidiaErrorKind::Failed);
    }
}
