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
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use nvml_query::{QUERY_COMMAND, answer_query};

use crate::process::{self, RunError};
use crate::snapshot::nvidia::{Gpu, KernelModule, Nvidia, NvidiaError, NvidiaErrorKind, UnreadableGpu};

/// Names the NVML library to load instead of `libnvidia-ml.so.1` from the
/// loader's search path: for drivers installed outside it.
pub const LIBRARY_VARIABLE: &str = "ENVDOCTOR_NVML_LIBRARY";

/// What the NVIDIA probe found: facts, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub struct NvidiaAnswer {
    pub nvidia: Option<Nvidia>,
    pub error: Option<NvidiaError>,
    pub kernel_module: Option<KernelModule>,
}

/// One line of the child's answer. The driver comes first, then one line per
/// GPU as it is read, so a GPU that hangs costs only itself and those after it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Failed(Failure),
    Driver(Driver),
    Gpu(Box<Gpu>),
    UnreadableGpu(UnreadableGpu),
    Done,
}

#[derive(Debug, Serialize, Deserialize)]
struct Driver {
    driver_version: Option<String>,
    cuda_driver_version: Option<String>,
    nvml_version: Option<String>,
    gpu_count: u32,
    query_errors: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Failure {
    cause: Cause,
    message: String,
}

/// The NVML failures that decide the diagnosis; the rest are `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Cause {
    /// The library could not be loaded at all.
    LibraryMissing,
    /// NVML said the kernel driver is not loaded.
    DriverNotLoaded,
    /// NVML may not open the GPU devices.
    NoPermission,
    Other,
}

/// What the child's run came to.
enum ChildResult {
    Facts(Nvidia),
    NvmlFailed(Failure),
    Error(NvidiaError),
}

pub fn probe(deadline: Duration) -> NvidiaAnswer {
    let kernel_module = kernel_module::probe();
    let (nvidia, error) = match ask_child(deadline) {
        ChildResult::Facts(nvidia) => (Some(nvidia), None),
        ChildResult::NvmlFailed(failure) => (
            None,
            Some(classify(
                failure,
                kernel_module.as_ref(),
                Path::new(CONTROL_DEVICE).exists(),
            )),
        ),
        ChildResult::Error(error) => (None, Some(error)),
    };
    NvidiaAnswer {
        nvidia,
        error,
        kernel_module,
    }
}

/// The device every NVIDIA client opens first; a container given no GPU lacks it
/// even though the host's kernel module shows through `/proc`.
const CONTROL_DEVICE: &str = "/dev/nvidiactl";

fn ask_child(deadline: Duration) -> ChildResult {
    let failed = |message: String| {
        ChildResult::Error(NvidiaError {
            kind: NvidiaErrorKind::Failed,
            message,
        })
    };
    let executable = match std::env::current_exe() {
        Ok(executable) => executable,
        Err(error) => return failed(format!("cannot find envdoctor's own executable: {error}")),
    };
    let mut command = Command::new(executable);
    command.arg(QUERY_COMMAND);
    let (stdout, ending) = match process::run_with_deadline(command, deadline) {
        Ok(finished) if finished.status.success() => (finished.stdout, None),
        Ok(finished) => {
            let why = format!(
                "the NVML query ended ({}): {}",
                process::describe_status(&finished.status),
                process::failure_line(&finished.stderr).unwrap_or_else(|| "it printed nothing".to_string())
            );
            (finished.stdout, Some(Ending::Failed(why)))
        }
        Err(RunError::TimedOut {
            seconds,
            partial_stdout,
        }) => (partial_stdout, Some(Ending::TimedOut(seconds))),
        Err(RunError::Spawn(error)) => return failed(format!("cannot start the NVML query: {error}")),
    };
    assemble(&String::from_utf8_lossy(&stdout), ending)
}

/// How a child that did not finish its answer ended.
enum Ending {
    TimedOut(f64),
    Failed(String),
}

impl Ending {
    fn kind(&self) -> NvidiaErrorKind {
        match self {
            Ending::TimedOut(_) => NvidiaErrorKind::Timeout,
            Ending::Failed(_) => NvidiaErrorKind::Failed,
        }
    }

    fn message(&self) -> String {
        match self {
            Ending::TimedOut(seconds) => format!(
                "NVML did not answer within {seconds} s and was stopped: a GPU or the driver may be hung \
                 (check `dmesg` for Xid errors; raise the limit with --nvml-timeout)"
            ),
            Ending::Failed(why) => why.clone(),
        }
    }
}

/// Builds the answer from the lines the child printed. Lines that are not
/// the protocol's (a library writing to stdout) are skipped. A child cut short
/// after the driver line still yields the driver and every GPU read before the
/// cut; the GPUs it did not reach are unreadable, with the reason.
fn assemble(stdout: &str, ending: Option<Ending>) -> ChildResult {
    let mut nvidia: Option<(Nvidia, u32)> = None;
    let mut done = false;
    for line in stdout.lines() {
        let Ok(line) = serde_json::from_str::<Line>(line) else {
            continue;
        };
        match line {
            Line::Failed(failure) => return ChildResult::NvmlFailed(failure),
            Line::Driver(driver) => {
                let facts = Nvidia {
                    driver_version: driver.driver_version,
                    cuda_driver_version: driver.cuda_driver_version,
                    nvml_version: driver.nvml_version,
                    gpus: Vec::new(),
                    unreadable_gpus: Vec::new(),
                    query_errors: driver.query_errors,
                };
                nvidia = Some((facts, driver.gpu_count));
            }
            Line::Gpu(gpu) => {
                if let Some((facts, _)) = &mut nvidia {
                    facts.gpus.push(*gpu);
                }
            }
            Line::UnreadableGpu(gpu) => {
                if let Some((facts, _)) = &mut nvidia {
                    facts.unreadable_gpus.push(gpu);
                }
            }
            Line::Done => done = true,
        }
    }
    match (nvidia, ending) {
        (Some((facts, _)), _) if done => ChildResult::Facts(facts),
        (Some((mut facts, count)), ending) => {
            let why = ending.map_or("the NVML query stopped early".to_string(), |ending| ending.message());
            let reached = (facts.gpus.len() + facts.unreadable_gpus.len()) as u32;
            for index in reached..count {
                facts.unreadable_gpus.push(UnreadableGpu {
                    index,
                    error: why.clone(),
                });
            }
            ChildResult::Facts(facts)
        }
        (None, Some(ending)) => ChildResult::Error(NvidiaError {
            kind: ending.kind(),
            message: ending.message(),
        }),
        (None, None) => ChildResult::Error(NvidiaError {
            kind: NvidiaErrorKind::Failed,
            message: "the NVML query gave no answer".to_string(),
        }),
    }
}

fn classify(failure: Failure, kernel_module: Option<&KernelModule>, control_device_present: bool) -> NvidiaError {
    let Failure { cause, message } = failure;
    let error = |kind, message| NvidiaError { kind, message };
    let module = match (cause, kernel_module) {
        (Cause::NoPermission, _) => {
            return error(
                NvidiaErrorKind::Failed,
                format!("{message}: this user may not open the GPU devices (check the permissions of /dev/nvidia*)"),
            );
        }
        (Cause::LibraryMissing, None) => {
            return error(
                NvidiaErrorKind::NoDriver,
                format!("no NVIDIA driver: {message}, and no NVIDIA kernel module is loaded"),
            );
        }
        (Cause::DriverNotLoaded, None) => {
            return error(
                NvidiaErrorKind::ModuleNotLoaded,
                format!(
                    "the NVIDIA user-space driver is installed but its kernel module is not loaded ({message}); \
                     load it with `modprobe nvidia`, or reboot after a driver upgrade"
                ),
            );
        }
        (Cause::Other, None) => return error(NvidiaErrorKind::Failed, message),
        (_, Some(module)) => module,
    };
    let module_version = module.version.as_deref().unwrap_or("of unknown version");
    if !control_device_present {
        return NvidiaError {
            kind: NvidiaErrorKind::NoDeviceNodes,
            message: format!(
                "the NVIDIA kernel module {module_version} is loaded but {CONTROL_DEVICE} is missing: \
                 in a container, it was started without GPUs (`docker run --gpus all`, the NVIDIA container \
                 toolkit); on a host, the device nodes were never created ({message})"
            ),
        };
    }
    NvidiaError {
        kind: NvidiaErrorKind::BrokenInstall,
        message: format!(
            "the NVIDIA kernel module {module_version} is loaded ({}) but NVML fails: {message}; \
             the driver's user-space libraries are missing or of another version than the module",
            module.read_from.display(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(cause: Cause) -> Failure {
        Failure {
            cause,
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
        let error = classify(failure(Cause::LibraryMissing), None, false);
        assert_eq!(error.kind, NvidiaErrorKind::NoDriver);
        assert!(error.message.contains("no NVIDIA kernel module"), "{}", error.message);
    }

    #[test]
    fn a_loaded_module_without_working_nvml_is_a_broken_install() {
        for cause in [Cause::LibraryMissing, Cause::Other, Cause::DriverNotLoaded] {
            let error = classify(failure(cause), Some(&module()), true);
            assert_eq!(error.kind, NvidiaErrorKind::BrokenInstall);
            assert!(error.message.contains("550.54.14"), "{}", error.message);
        }
    }

    #[test]
    fn nvml_without_a_module_says_to_load_it() {
        let error = classify(failure(Cause::DriverNotLoaded), None, false);
        assert_eq!(error.kind, NvidiaErrorKind::ModuleNotLoaded);
        assert!(error.message.contains("modprobe nvidia"), "{}", error.message);
    }

    #[test]
    fn other_failures_without_a_module_are_reported_as_they_are() {
        let error = classify(failure(Cause::Other), None, false);
        assert_eq!(error.kind, NvidiaErrorKind::Failed);
    }

    #[test]
    fn a_module_without_device_nodes_is_a_container_without_gpus_not_a_broken_install() {
        let error = classify(failure(Cause::LibraryMissing), Some(&module()), false);
        assert_eq!(error.kind, NvidiaErrorKind::NoDeviceNodes);
        assert!(error.message.contains("--gpus"), "{}", error.message);
    }

    #[test]
    fn no_permission_is_said_as_such() {
        let error = classify(failure(Cause::NoPermission), Some(&module()), true);
        assert_eq!(error.kind, NvidiaErrorKind::Failed);
        assert!(
            error.message.contains("permissions of /dev/nvidia"),
            "{}",
            error.message
        );
    }

    fn driver_line(gpu_count: u32) -> String {
        format!(
            r#"{{"driver":{{"driver_version":"550.54.15","cuda_driver_version":"12.4","nvml_version":null,"gpu_count":{gpu_count},"query_errors":{{}}}}}}"#
        )
    }

    fn gpu_line(index: u32) -> String {
        let mut gpu = serde_json::to_value(crate::probe::cuda_devices::tests::gpu(index, "H100", "9.0", "18")).unwrap();
        gpu["index"] = index.into();
        serde_json::json!({ "gpu": gpu }).to_string()
    }

    #[test]
    fn a_complete_answer_is_the_facts() {
        let stdout = [driver_line(2), gpu_line(0), gpu_line(1), r#""done""#.to_string()].join("\n");
        let ChildResult::Facts(nvidia) = assemble(&stdout, None) else {
            panic!("not facts");
        };
        assert_eq!(nvidia.driver_version.as_deref(), Some("550.54.15"));
        assert_eq!(nvidia.gpus.len(), 2);
        assert!(nvidia.unreadable_gpus.is_empty());
    }

    #[test]
    fn a_gpu_that_hangs_costs_only_itself_and_those_after_it() {
        let stdout = [
            "some library printed this".to_string(),
            driver_line(4),
            gpu_line(0),
            gpu_line(1),
        ]
        .join("\n");
        let ChildResult::Facts(nvidia) = assemble(&stdout, Some(Ending::TimedOut(15.0))) else {
            panic!("not facts");
        };
        assert_eq!(nvidia.gpus.len(), 2);
        let unread: Vec<u32> = nvidia.unreadable_gpus.iter().map(|gpu| gpu.index).collect();
        assert_eq!(unread, [2, 3]);
        assert!(nvidia.unreadable_gpus[0].error.contains("--nvml-timeout"));
    }

    #[test]
    fn a_hang_before_the_driver_line_is_a_timeout_error() {
        let ChildResult::Error(error) = assemble("", Some(Ending::TimedOut(15.0))) else {
            panic!("not an error");
        };
        assert_eq!(error.kind, NvidiaErrorKind::Timeout);
        let ChildResult::Error(error) = assemble("", Some(Ending::Failed("signal SIGSEGV".to_string()))) else {
            panic!("not an error");
        };
        assert_eq!(error.kind, NvidiaErrorKind::Failed);
    }
}
