//! The NVIDIA driver, every GPU, the kernel module, and which GPU `cuda:N` is.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nvidia {
    pub driver_version: Option<String>,
    /// The newest CUDA the driver supports (`nvmlSystemGetCudaDriverVersion_v2`),
    /// as `major.minor`.
    pub cuda_driver_version: Option<String>,
    pub nvml_version: Option<String>,
    /// In NVML index order, which is PCI bus order, as `nvidia-smi` numbers them.
    pub gpus: Vec<Gpu>,
    /// GPUs NVML counts but cannot read (fallen off the bus, no permission, or
    /// NVML stopped answering while reading them).
    #[serde(default)]
    pub unreadable_gpus: Vec<UnreadableGpu>,
    /// Driver-wide queries that failed, by field name.
    #[serde(default)]
    pub query_errors: BTreeMap<String, String>,
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
    /// Beyond the public contract's keys, every key is optional when read:
    /// older envdoctors, other tools and hand-written nodes leave them out.
    #[serde(default)]
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
    #[serde(default)]
    pub pcie: PcieLink,
    pub nvlinks_active: Option<u32>,
    #[serde(default)]
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
    /// The kernel module is loaded but `/dev/nvidiactl` is missing: most often a
    /// container started without GPUs on a GPU host.
    NoDeviceNodes,
    /// NVML did not answer before the deadline: a hung GPU or driver.
    Timeout,
    /// Anything else, such as no permission on `/dev/nvidia*`.
    Failed,
    /// A kind this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelModule {
    pub version: Option<String>,
    /// `open` (NVIDIA's open GPU kernel modules, required by Blackwell) or `proprietary`.
    pub flavor: Option<String>,
    /// The compiler the module was built with, as the module reports it.
    pub built_with: Option<String>,
    /// The file the facts came from.
    pub read_from: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CudaDevices {
    /// The order CUDA enumerates GPUs in.
    pub order: DeviceOrder,
    /// False when the mapping rests on CUDA's undocumented FASTEST_FIRST
    /// heuristic for GPUs that differ, or on MIG enumeration.
    pub certain: bool,
    pub cuda_visible_devices: Option<String>,
    pub cuda_device_order: Option<String>,
    /// `cuda:0`, `cuda:1`, ... in order.
    pub devices: Vec<CudaDevice>,
    /// What a user should know about how the mapping came to be.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceOrder {
    FastestFirst,
    PciBusId,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CudaDevice {
    /// N in `cuda:N`.
    pub ordinal: u32,
    /// The GPU's index in NVML and `nvidia-smi`.
    pub nvml_index: u32,
    pub uuid: Option<String>,
    pub pci_bus_id: Option<String>,
    pub name: Option<String>,
    /// Set when the device is a MIG slice of the GPU.
    pub mig_uuid: Option<String>,
}
