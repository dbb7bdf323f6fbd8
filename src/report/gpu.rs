//! The GPU side of the text summary: driver, GPUs and their health, which GPU
//! `cuda:N` is, and the limits multi-GPU jobs hit.

use std::fmt::Write;

use crate::snapshot::Snapshot;

use super::Style;
use super::layout::{block, continuation, gib, section};
use crate::snapshot::cuda::{Cuda, Provider};
use crate::snapshot::nvidia::{CudaDevices, DeviceOrder, Gpu, Nvidia};

pub fn write(out: &mut String, snapshot: &Snapshot, style: Style) {
    match (&snapshot.nvidia, &snapshot.nvidia_error) {
        (Some(nvidia), _) => write_nvidia(out, snapshot, nvidia, style),
        (None, error) => {
            let why = error
                .as_ref()
                .map_or("no NVIDIA facts recorded", |error| error.message.as_str());
            section(out, style, "nvidia", &style.warning(&format!("none: {why}")));
        }
    }
    if let Some(devices) = &snapshot.cuda_devices {
        write_cuda_devices(out, devices, style);
    }
    write_cuda(out, &snapshot.cuda, style);
    write_limits(out, snapshot, style);
}

fn write_nvidia(out: &mut String, snapshot: &Snapshot, nvidia: &Nvidia, style: Style) {
    let cuda = nvidia
        .cuda_driver_version
        .as_deref()
        .map(|version| format!(" (supports CUDA {version})"))
        .unwrap_or_default();
    // A flavor not known is left out, not printed as a word of its own ("unknown kernel module").
    let module = snapshot.nvidia_kernel_module.as_ref().map_or(String::new(), |module| {
        let flavor = module
            .flavor
            .as_deref()
            .map(|flavor| format!("{flavor} "))
            .unwrap_or_default();
        format!(
            ", {flavor}kernel module {}",
            module.version.as_deref().unwrap_or("of unknown version")
        )
    });
    section(
        out,
        style,
        "nvidia",
        &format!(
            "driver {}{cuda}{module}, {}",
            nvidia.driver_version.as_deref().unwrap_or("of unknown version"),
            count(nvidia.gpus.len(), "GPU")
        ),
    );
    for gpu in &nvidia.gpus {
        continuation(out, style, &gpu_line(gpu));
        for warning in gpu_warnings(gpu) {
            continuation(out, style, &format!("  {}", style.warning(&warning)));
        }
    }
    for (field, error) in &nvidia.query_errors {
        continuation(out, style, &style.warning(&format!("{field}: {error}")));
    }
    for gpu in &nvidia.unreadable_gpus {
        continuation(
            out,
            style,
            &style.warning(&format!("GPU {}: unreadable: {}", gpu.index, gpu.error)),
        );
    }
}

fn gpu_line(gpu: &Gpu) -> String {
    let mut line = format!("GPU {}  {}", gpu.index, gpu.name.as_deref().unwrap_or("unnamed"));
    if let Some(capability) = &gpu.compute_capability {
        let _ = write!(line, "  sm {capability}");
    }
    if let Some(total) = gpu.memory_total_mib {
        let used = gpu
            .memory_used_mib
            .map(|used| format!(" ({} used)", gib(used)))
            .unwrap_or_default();
        let _ = write!(line, "  {}{used}", gib(total));
    }
    if let Some(bus) = &gpu.pci_bus_id {
        let _ = write!(line, "  {bus}");
    }
    let pcie = &gpu.pcie;
    if let (Some(generation), Some(width)) = (pcie.generation_current, pcie.width_current) {
        let maximum = match (pcie.generation_max, pcie.width_max) {
            (Some(max_generation), Some(max_width)) if (max_generation, max_width) != (generation, width) => {
                format!(" (max gen{max_generation} x{max_width})")
            }
            _ => String::new(),
        };
        let _ = write!(line, "  PCIe gen{generation} x{width}{maximum}");
    }
    if let Some(links) = gpu.nvlinks_active.filter(|links| *links > 0) {
        let _ = write!(line, "  {links} NVLinks");
    }
    line
}

/// Clock-event reasons that mean the hardware is protecting itself, as
/// opposed to idling or obeying a configured limit.
const HARDWARE_SLOWDOWNS: &[&str] = &[
    "hw_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
    "sw_thermal_slowdown",
];

fn gpu_warnings(gpu: &Gpu) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(errors) = gpu.ecc_uncorrectable_volatile.filter(|errors| *errors > 0) {
        warnings.push(format!("{errors} uncorrectable ECC errors since the driver loaded"));
    }
    if let Some(rows) = gpu.remapped_rows {
        if rows.failed {
            warnings.push("a memory row remap failed: the GPU needs service".to_string());
        } else if rows.pending {
            warnings.push("memory row remap pending: reset the GPU".to_string());
        }
    }
    if gpu.retired_pages_pending == Some(true) {
        warnings.push("memory pages pending retirement: reboot".to_string());
    }
    let slowdowns: Vec<&str> = gpu
        .clock_event_reasons
        .iter()
        .flatten()
        .map(String::as_str)
        .filter(|reason| HARDWARE_SLOWDOWNS.contains(reason))
        .collect();
    if !slowdowns.is_empty() {
        warnings.push(format!("clocks held down by {}", slowdowns.join(", ")));
    }
    if gpu.mig_mode.is_some_and(|mode| mode.current) {
        warnings.push(format!("MIG mode on, {} MIG devices", gpu.mig_devices.len()));
    }
    for (field, error) in &gpu.query_errors {
        warnings.push(format!("{field}: {error}"));
    }
    warnings
}

fn write_cuda_devices(out: &mut String, devices: &CudaDevices, style: Style) {
    let order = match devices.order {
        DeviceOrder::FastestFirst => "FASTEST_FIRST",
        DeviceOrder::PciBusId => "PCI_BUS_ID",
        DeviceOrder::Unknown => "unknown",
    };
    let visible = devices
        .cuda_visible_devices
        .as_deref()
        .map_or("CUDA_VISIBLE_DEVICES unset".to_string(), |value| {
            format!("CUDA_VISIBLE_DEVICES={value}")
        });
    let mapping: Vec<String> = devices
        .devices
        .iter()
        .map(|device| match &device.mig_uuid {
            Some(mig) => format!("cuda:{}=GPU {} ({mig})", device.ordinal, device.nvml_index),
            None => format!("cuda:{}=GPU {}", device.ordinal, device.nvml_index),
        })
        .collect();
    let mapping = if mapping.is_empty() {
        "no GPU visible to CUDA".to_string()
    } else {
        mapping.join(", ")
    };
    section(out, style, "cuda:N", &mapping);
    let certainty = if devices.certain { "" } else { ", uncertain" };
    continuation(out, style, &style.dim(&format!("order {order}{certainty}, {visible}")));
    for note in &devices.notes {
        continuation(out, style, &style.warning(note));
    }
}

fn write_cuda(out: &mut String, cuda: &Cuda, style: Style) {
    if cuda.toolkits.is_empty() && cuda.libraries.is_empty() && cuda.problems.is_empty() {
        section(out, style, "cuda", &style.dim("no toolkit and no CUDA library found"));
        return;
    }
    let mut lines = Vec::new();
    for toolkit in &cuda.toolkits {
        let version = toolkit.version.as_deref().unwrap_or("of unknown version");
        lines.push(format!("toolkit {version} at {}", toolkit.root.display()));
        lines.extend(toolkit.problems.iter().map(|problem| style.warning(problem)));
    }
    for library in &cuda.libraries {
        let version = library.version.as_deref().unwrap_or("?");
        let from = match (library.provided_by, &library.distribution) {
            (Provider::Wheel, Some(distribution)) => format!("wheel {}", distribution.name),
            (Provider::Wheel, None) => "wheel".to_string(),
            (Provider::Toolkit, _) => "toolkit".to_string(),
            (Provider::System, _) => "system".to_string(),
            (Provider::Unknown, _) => "unknown provider".to_string(),
        };
        lines.push(format!(
            "{} {version} ({from}) {}",
            library.name,
            library.path.display()
        ));
        lines.extend(library.problems.iter().map(|problem| style.warning(problem)));
    }
    lines.extend(cuda.problems.iter().map(|problem| style.warning(problem)));
    block(out, style, "cuda", lines);
}

fn write_limits(out: &mut String, snapshot: &Snapshot, style: Style) {
    let limits = &snapshot.system.limits;
    let shm = limits.shm_total_mib.map_or("/dev/shm unknown".to_string(), |total| {
        format!("/dev/shm {}", mebibytes(total))
    });
    let unlimited = |value: Option<u64>| value.map_or("unlimited".to_string(), |value| value.to_string());
    let files = limits
        .open_files
        .map_or("unknown".to_string(), |limit| unlimited(limit.soft));
    let locked = limits.locked_memory_kib.map_or("unknown".to_string(), |limit| {
        limit.soft.map_or("unlimited".to_string(), |kib| match kib {
            0..1024 => format!("{kib} KiB"),
            _ => mebibytes(kib / 1024),
        })
    });
    section(
        out,
        style,
        "limits",
        &format!("{shm}, open files {files}, locked memory {locked}"),
    );
}

fn mebibytes(mib: u64) -> String {
    if mib >= 1024 { gib(mib) } else { format!("{mib} MiB") }
}

fn count(number: usize, noun: &str) -> String {
    if number == 1 {
        format!("1 {noun}")
    } else {
        format!("{number} {noun}s")
    }
}
