//! The child side of the NVIDIA probe: load NVML, read every GPU, print one
//! JSON answer. Runs in its own process so the parent can kill it if NVML hangs.

use std::collections::BTreeMap;
use std::ffi::OsString;

use nvml_wrapper::enum_wrappers::device::{ComputeMode, EccCounter, MemoryError, TemperatureSensor};
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, Nvml};

use super::{Cause, Driver, Failure, LIBRARY_VARIABLE, Line};
use crate::snapshot::nvidia::{Gpu, MigDevice, PcieLink, RemappedRows, Toggle, UnreadableGpu};

/// The hidden subcommand the parent runs.
pub const QUERY_COMMAND: &str = "__nvml-query";

/// NVML's own cap on NVLinks per GPU (`NVML_NVLINK_MAX_LINKS` in nvml.h).
const NVLINK_MAX_LINKS: u32 = 18;

const MIB: u64 = 1024 * 1024;

/// Prints the answer on standard output, one JSON line at a time (see `Line`),
/// each as soon as it is known.
pub fn answer_query() {
    let nvml = match init() {
        Ok(nvml) => nvml,
        Err(error) => {
            emit(&Line::Failed(Failure {
                cause: match error {
                    NvmlError::LibloadingError(_) => Cause::LibraryMissing,
                    NvmlError::DriverNotLoaded => Cause::DriverNotLoaded,
                    NvmlError::NoPermission => Cause::NoPermission,
                    _ => Cause::Other,
                },
                message: match error {
                    NvmlError::LibloadingError(error) => format!("cannot load the NVML library ({error})"),
                    other => format!("NVML: {other}"),
                },
            }));
            return;
        }
    };
    let mut fields = Fields::default();
    let gpu_count = fields.get("gpu_count", nvml.device_count()).unwrap_or(0);
    emit(&Line::Driver(Driver {
        driver_version: fields.get("driver_version", nvml.sys_driver_version()),
        cuda_driver_version: fields
            .get("cuda_driver_version", nvml.sys_cuda_driver_version())
            .map(|version| {
                format!(
                    "{}.{}",
                    nvml_wrapper::cuda_driver_version_major(version),
                    nvml_wrapper::cuda_driver_version_minor(version)
                )
            }),
        nvml_version: fields.get("nvml_version", nvml.sys_nvml_version()),
        gpu_count,
        query_errors: fields.errors,
    }));
    for index in 0..gpu_count {
        match nvml.device_by_index(index) {
            Ok(device) => emit(&Line::Gpu(Box::new(read_gpu(&nvml, index, &device)))),
            Err(error) => emit(&Line::UnreadableGpu(UnreadableGpu {
                index,
                error: error.to_string(),
            })),
        }
    }
    emit(&Line::Done);
}

/// Rust's stdout is line-buffered, so each line reaches the parent when printed.
fn emit(line: &Line) {
    // The parent reads from a pipe; if it went away there is nobody to tell.
    println!("{}", serde_json::to_string(line).unwrap_or_default());
}

fn init() -> Result<Nvml, NvmlError> {
    let library: Option<OsString> = std::env::var_os(LIBRARY_VARIABLE);
    match &library {
        Some(path) => Nvml::builder().lib_path(path).init(),
        None => Nvml::init(),
    }
}

/// Keeps one GPU's query errors: "not supported" is an answer (`null`), any
/// other error is kept by field name so nothing fails silently.
#[derive(Default)]
struct Fields {
    errors: BTreeMap<String, String>,
}

impl Fields {
    fn get<T>(&mut self, field: &str, result: Result<T, NvmlError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(NvmlError::NotSupported | NvmlError::FunctionNotFound | NvmlError::FailedToLoadSymbol(_)) => None,
            Err(error) => {
                self.errors.insert(field.to_string(), error.to_string());
                None
            }
        }
    }
}

fn read_gpu(nvml: &Nvml, index: u32, device: &Device) -> Gpu {
    let mut fields = Fields::default();
    let memory = fields.get("memory", device.memory_info());
    let mig_mode = fields.get("mig_mode", device.mig_mode()).map(|mode| Toggle {
        current: mode.current == 1,
        pending: mode.pending == 1,
    });
    let mig_devices = if mig_mode.is_some_and(|mode| mode.current) {
        read_mig_devices(device, &mut fields)
    } else {
        Vec::new()
    };
    Gpu {
        index,
        name: fields.get("name", device.name()),
        uuid: fields.get("uuid", device.uuid()),
        pci_bus_id: fields.get("pci_bus_id", device.pci_info()).map(|pci| pci.bus_id),
        compute_capability: fields
            .get("compute_capability", device.cuda_compute_capability())
            .map(|capability| format!("{}.{}", capability.major, capability.minor)),
        memory_total_mib: memory.as_ref().map(|memory| memory.total / MIB),
        memory_used_mib: memory.as_ref().map(|memory| memory.used / MIB),
        mig_mode,
        mig_devices,
        ecc_mode: fields.get("ecc_mode", device.is_ecc_enabled()).map(|state| Toggle {
            current: state.currently_enabled,
            pending: state.pending_enabled,
        }),
        ecc_uncorrectable_volatile: fields.get(
            "ecc_uncorrectable_volatile",
            device.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile),
        ),
        ecc_uncorrectable_aggregate: fields.get(
            "ecc_uncorrectable_aggregate",
            device.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Aggregate),
        ),
        retired_pages_pending: fields.get("retired_pages_pending", device.are_pages_pending_retired()),
        remapped_rows: fields.get("remapped_rows", remapped_rows(nvml, device)),
        persistence_mode: fields.get("persistence_mode", device.is_in_persistent_mode()),
        compute_mode: fields.get("compute_mode", device.compute_mode()).map(compute_mode_name),
        power_limit_watts: fields
            .get("power_limit_watts", device.enforced_power_limit())
            .map(|milliwatts| f64::from(milliwatts) / 1000.0),
        temperature_celsius: fields.get("temperature_celsius", device.temperature(TemperatureSensor::Gpu)),
        clock_event_reasons: fields
            .get("clock_event_reasons", device.current_throttle_reasons())
            .map(|reasons| {
                reasons
                    .iter_names()
                    .map(|(name, _)| name.to_ascii_lowercase())
                    .collect()
            }),
        pcie: PcieLink {
            generation_current: fields.get("pcie.generation_current", device.current_pcie_link_gen()),
            generation_max: fields.get("pcie.generation_max", device.max_pcie_link_gen()),
            width_current: fields.get("pcie.width_current", device.current_pcie_link_width()),
            width_max: fields.get("pcie.width_max", device.max_pcie_link_width()),
        },
        nvlinks_active: fields.get("nvlinks_active", active_nvlinks(device)),
        query_errors: fields.errors,
    }
}

fn read_mig_devices(device: &Device, fields: &mut Fields) -> Vec<MigDevice> {
    // The count is how many MIG devices the GPU can hold, not how many exist:
    // an empty slot answers "not found".
    let slots = fields.get("mig_devices", device.mig_device_count()).unwrap_or(0);
    (0..slots)
        .filter_map(|index| {
            let field = format!("mig_devices[{index}]");
            let mig = match device.mig_device_by_index(index) {
                Err(NvmlError::NotFound) => return None,
                other => fields.get(&field, other)?,
            };
            Some(MigDevice {
                index,
                uuid: fields.get(&field, mig.uuid()),
                memory_total_mib: fields.get(&field, mig.memory_info()).map(|memory| memory.total / MIB),
            })
        })
        .collect()
}

/// nvml-wrapper has no wrapper for `nvmlDeviceGetRemappedRows`, so it is called
/// through the loaded library; a driver too old to export it reads as unsupported.
fn remapped_rows(nvml: &Nvml, device: &Device) -> Result<RemappedRows, NvmlError> {
    let function = nvml
        .lib()
        .nvmlDeviceGetRemappedRows
        .as_ref()
        .map_err(|_| NvmlError::NotSupported)?;
    let (mut correctable, mut uncorrectable, mut pending, mut failed) = (0, 0, 0, 0);
    // SAFETY: the handle is valid for the lifetime of `device`, and each out
    // pointer refers to a live `c_uint` for the duration of the call, as nvml.h
    // documents for this function.
    let status = unsafe {
        function(
            device.handle(),
            &mut correctable,
            &mut uncorrectable,
            &mut pending,
            &mut failed,
        )
    };
    nvml_wrapper::error::nvml_try(status)?;
    Ok(RemappedRows {
        correctable,
        uncorrectable,
        pending: pending != 0,
        failed: failed != 0,
    })
}

/// Counts active links, stopping at the first link index the GPU does not have.
fn active_nvlinks(device: &Device) -> Result<u32, NvmlError> {
    let mut active = 0;
    for link in 0..NVLINK_MAX_LINKS {
        match device.link_wrapper_for(link).is_active() {
            Ok(true) => active += 1,
            Ok(false) => {}
            Err(NvmlError::NotSupported | NvmlError::InvalidArg) if link > 0 => break,
            Err(error) => return Err(error),
        }
    }
    Ok(active)
}

fn compute_mode_name(mode: ComputeMode) -> String {
    match mode {
        ComputeMode::Default => "default",
        ComputeMode::ExclusiveThread => "exclusive_thread",
        ComputeMode::Prohibited => "prohibited",
        ComputeMode::ExclusiveProcess => "exclusive_process",
    }
    .to_string()
}
