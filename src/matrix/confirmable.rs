//! The findings a symptom entry may name in `confirmed_by`: the built-in
//! checks' findings `explain` runs on the node to confirm or rule out a cause.
//! Part of the symptom entry's format, so the matrix reader checks names
//! against it; `explain::node` runs them.

pub const DRIVER_TOO_OLD: &str = "driver-too-old-for-torch-cuda";
/// Above the major's floor but older than torch's CUDA minor: PTX JIT fails.
pub const DRIVER_BEHIND_MINOR: &str = "driver-older-than-torch-cuda-minor";
pub const ARCH_MISSING: &str = "gpu-arch-not-in-torch-build";
pub const NOT_CUDA: &str = "torch-not-built-for-cuda";
pub const NO_GPU: &str = "no-gpu-visible";
pub const VISIBLE_DEVICES_INVALID: &str = "cuda-visible-devices-invalid";
pub const SHM_SMALL: &str = "shm-too-small";
pub const ECC_UNCORRECTABLE: &str = "gpu-uncorrectable-ecc-errors";
pub const MEMORY_REPAIR_PENDING: &str = "gpu-memory-repair-pending";
pub const ROW_REMAP_FAILED: &str = "gpu-row-remap-failed";
/// Not a check's finding: read here from the GPUs' memory in the Snapshot.
pub const MEMORY_HELD: &str = "gpu-memory-held";

/// The finding ids a cause may name in `confirmed_by`.
pub const KNOWN: [&str; 11] = [
    DRIVER_TOO_OLD,
    DRIVER_BEHIND_MINOR,
    ARCH_MISSING,
    NOT_CUDA,
    NO_GPU,
    VISIBLE_DEVICES_INVALID,
    SHM_SMALL,
    ECC_UNCORRECTABLE,
    MEMORY_REPAIR_PENDING,
    ROW_REMAP_FAILED,
    MEMORY_HELD,
];
