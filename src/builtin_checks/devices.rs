//! Which GPUs a job started here will get, and whether that is what the user
//! meant: `CUDA_VISIBLE_DEVICES` naming GPUs that do not exist, mixed GPUs
//! numbered by CUDA's fastest-first order, no GPU visible at all (and why), and
//! a `/dev/shm` too small for NCCL and DataLoader workers on a multi-GPU node.
//! The mapping from `cuda:N` to NVML's GPUs is the probe's
//! (`crate::probe::cuda_devices`); these checks judge it.

use super::{BuiltinCheck, finding};
use crate::facts::Facts;
use crate::findings::{Finding, Severity};
use crate::snapshot::Snapshot;
use crate::snapshot::nvidia::{DeviceOrder, NvidiaErrorKind};

const VISIBLE_DEVICES_INVALID: &str = "cuda-visible-devices-invalid";
const ORDER_UNSET: &str = "cuda-device-order-unset-mixed-gpus";
pub(crate) const NO_GPU: &str = "no-gpu-visible";
const SHM_SMALL: &str = "shm-too-small";

const CUDA_ENV_VARS: &str =
    "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html";
const NCCL_SHM: &str =
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html";

/// The `/dev/shm` size below which a multi-GPU node is reported: NCCL's
/// troubleshooting guide gives `--shm-size=1g` as the setting for containers
/// running NCCL; Docker's own default is 64 MiB.
pub(crate) const SHM_MIN_MIB: u64 = 1024;

pub(super) const CHECKS: &[BuiltinCheck] = &[
    BuiltinCheck {
        id: "cuda-visible-devices",
        title: "CUDA_VISIBLE_DEVICES names only GPUs that exist",
        produces: &[VISIBLE_DEVICES_INVALID],
        explanation: "CUDA reads CUDA_VISIBLE_DEVICES left to right and stops at the first entry that \
            names no GPU (an index past the last one, an unknown UUID, a non-number), ignoring it and \
            everything after it; a repeated entry hides every GPU. The job then gets fewer GPUs than \
            it asked for, or none, and fails with \"invalid device ordinal\" or trains on fewer ranks.",
        run: |facts, _| cuda_visible_devices(facts),
    },
    BuiltinCheck {
        id: "cuda-device-order",
        title: "Mixed GPUs are numbered in PCI order",
        produces: &[ORDER_UNSET],
        explanation: "nvidia-smi numbers GPUs in PCI bus order; CUDA numbers them fastest first unless \
            CUDA_DEVICE_ORDER=PCI_BUS_ID. On a node with different GPU models the two disagree, so \
            CUDA_VISIBLE_DEVICES=0 or cuda:0 may be another GPU than nvidia-smi's GPU 0.",
        run: |facts, _| cuda_device_order(facts),
    },
    BuiltinCheck {
        id: "gpu-visible",
        title: "CUDA sees at least one GPU",
        produces: &[NO_GPU],
        explanation: "Reports a node where a CUDA program would see no GPU, and why: no NVIDIA driver, \
            a container started without GPUs, a kernel module that is not loaded, user-space driver \
            libraries that do not match the module, a hung GPU, or CUDA_VISIBLE_DEVICES hiding every \
            GPU. An error when torch is a CUDA build (the job expects a GPU), a warning otherwise.",
        run: |facts, _| gpu_visible(facts),
    },
    BuiltinCheck {
        id: "shared-memory",
        title: "/dev/shm is large enough for several GPUs",
        produces: &[SHM_SMALL],
        explanation: "NCCL creates its intra-node shared-memory segments in /dev/shm and fails to \
            initialize when it cannot extend them; PyTorch DataLoader workers pass batches through shared \
            memory and die with a bus error when it is full. Docker gives a container 64 MiB of /dev/shm \
            unless told otherwise; NCCL's documentation runs containers with --shm-size=1g. Reported when \
            CUDA sees two or more GPUs and /dev/shm is smaller than 1 GiB.",
        run: |facts, _| shared_memory(facts),
    },
];

/// The note the probe writes when the variable is set and empty: that is a
/// deliberate way to hide GPUs, reported by `gpu-visible`, not an invalid entry.
fn is_empty_note(note: &str) -> bool {
    note.contains("is set and empty")
}

/// `cuda:0 = nvidia-smi GPU 2, cuda:1 = nvidia-smi GPU 3`, or `no GPU`.
fn mapping(facts: &Facts) -> String {
    let Some(devices) = &facts.snapshot.cuda_devices else {
        return "no GPU".to_string();
    };
    if devices.devices.is_empty() {
        return "no GPU".to_string();
    }
    devices
        .devices
        .iter()
        .map(|device| format!("cuda:{} = nvidia-smi GPU {}", device.ordinal, device.nvml_index))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `6 GPUs: 5x NVIDIA H100 80GB HBM3 (compute capability 9.0), 1x Tesla T4 (compute capability 7.5)`.
fn models(facts: &Facts) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for gpu in &facts.gpus {
        let name = gpu.gpu.name.as_deref().unwrap_or("unnamed GPU");
        let model = match &gpu.gpu.compute_capability {
            Some(capability) => format!("{name} (compute capability {capability})"),
            None => name.to_string(),
        };
        match counts.iter_mut().find(|(seen, _)| *seen == model) {
            Some((_, count)) => *count += 1,
            None => counts.push((model, 1)),
        }
    }
    let listed: Vec<String> = counts
        .iter()
        .map(|(model, count)| format!("{count}x {model}"))
        .collect();
    format!("{} GPUs: {}", facts.gpus.len(), listed.join(", "))
}

fn nvml_gpu_count(facts: &Facts) -> usize {
    facts.snapshot.nvidia.as_ref().map_or(0, |nvidia| nvidia.gpus.len())
}

fn cuda_visible_devices(facts: &Facts) -> Vec<Finding> {
    let Some(devices) = &facts.snapshot.cuda_devices else {
        return Vec::new();
    };
    let Some(value) = &devices.cuda_visible_devices else {
        return Vec::new();
    };
    let problems: Vec<&str> = devices
        .notes
        .iter()
        .map(String::as_str)
        .filter(|note| note.starts_with("CUDA_VISIBLE_DEVICES") && !is_empty_note(note))
        .collect();
    if problems.is_empty() {
        return Vec::new();
    }
    let count = nvml_gpu_count(facts);
    let existing = (0..count).map(|index| index.to_string()).collect::<Vec<_>>().join(",");
    let fix = if count == 0 {
        "unset CUDA_VISIBLE_DEVICES".to_string()
    } else {
        format!(
            "name only GPUs that exist (this node has {count}: nvidia-smi -L lists them with their UUIDs), \
             for example export CUDA_VISIBLE_DEVICES={existing}"
        )
    };
    vec![finding(
        VISIBLE_DEVICES_INVALID,
        Severity::Error,
        format!("CUDA_VISIBLE_DEVICES={value} names GPUs that do not exist"),
        format!("{}. So CUDA sees: {}.", problems.join("; "), mapping(facts)),
        "CUDA stops reading CUDA_VISIBLE_DEVICES at the first entry that names no GPU and drops it and \
         every entry after it; a repeated entry hides all GPUs. A launcher that starts one rank per \
         listed GPU then fails with \"invalid device ordinal\", or the job silently trains on fewer GPUs."
            .to_string(),
        Some(fix),
        vec![
            CUDA_ENV_VARS.to_string(),
            "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py".to_string(),
        ],
    )]
}

fn cuda_device_order(facts: &Facts) -> Vec<Finding> {
    if facts.gpus.len() < 2 {
        return Vec::new();
    }
    let first = &facts.gpus[0].gpu;
    let mixed = facts
        .gpus
        .iter()
        .any(|gpu| gpu.gpu.name != first.name || gpu.gpu.compute_capability != first.compute_capability);
    if !mixed {
        return Vec::new();
    }
    let order = match &facts.snapshot.cuda_devices {
        Some(devices) => devices.order,
        None if facts.env("CUDA_DEVICE_ORDER") == Some("PCI_BUS_ID") => DeviceOrder::PciBusId,
        None => DeviceOrder::FastestFirst,
    };
    if order == DeviceOrder::PciBusId {
        return Vec::new();
    }
    let setting = match facts.env("CUDA_DEVICE_ORDER") {
        Some(value) => format!("CUDA_DEVICE_ORDER={value}"),
        None => "CUDA_DEVICE_ORDER is unset (CUDA's default, FASTEST_FIRST)".to_string(),
    };
    let renumbered: Vec<String> = facts
        .gpus
        .iter()
        .filter(|gpu| gpu.ordinal != gpu.gpu.index)
        .map(|gpu| format!("cuda:{} is nvidia-smi GPU {}", gpu.ordinal, gpu.gpu.index))
        .collect();
    let numbering = if renumbered.is_empty() {
        "CUDA's numbering happens to match nvidia-smi's here, but any change to the set of visible GPUs can \
         change that"
            .to_string()
    } else {
        format!(
            "by envdoctor's reading of CUDA's undocumented fastest-first heuristic, {}",
            renumbered.join(", ")
        )
    };
    vec![finding(
        ORDER_UNSET,
        Severity::Warning,
        "Different GPU models are numbered fastest first, not as nvidia-smi numbers them".to_string(),
        format!("{setting}, and CUDA sees {}; {numbering}.", models(facts)),
        "nvidia-smi and NVML number GPUs by PCI bus id; CUDA numbers them fastest first by default, so \
         CUDA_VISIBLE_DEVICES indices and cuda:N may point at another GPU than the nvidia-smi index a user \
         or scheduler picked, putting a job on the slower card or two jobs on one."
            .to_string(),
        Some("export CUDA_DEVICE_ORDER=PCI_BUS_ID".to_string()),
        vec![
            CUDA_ENV_VARS.to_string(),
            "https://github.com/anderskm/gputil/issues/18".to_string(),
        ],
    )]
}

fn gpu_visible(facts: &Facts) -> Vec<Finding> {
    if !facts.gpus.is_empty() {
        return Vec::new();
    }
    let expects_gpu = facts.torch_cuda.is_some();
    let severity = if expects_gpu {
        Severity::Error
    } else {
        Severity::Warning
    };
    let NoGpu {
        reason,
        fix,
        references,
    } = why_no_gpu(facts.snapshot);
    let consequence = if expects_gpu {
        "torch is a CUDA build, so the job expects a GPU: torch.cuda.is_available() returns False and \
         training fails at the first .cuda() or runs on the CPU."
    } else {
        "torch here is not a CUDA build (or is not installed), so this may be intended; a GPU job would run \
         on the CPU or fail."
    };
    vec![finding(
        NO_GPU,
        severity,
        "CUDA sees no GPU".to_string(),
        format!("A CUDA program started here would see no GPU: {reason}."),
        consequence.to_string(),
        Some(fix),
        references,
    )]
}

/// Why a node shows CUDA no GPU, and what to do: the `no-gpu-visible` finding
/// says it, and the smoke test when it cannot run for that reason.
pub(crate) struct NoGpu {
    pub reason: String,
    pub fix: String,
    pub references: Vec<String>,
}

/// For a node whose GPUs CUDA would not see (`Facts::gpus` is empty).
pub(crate) fn why_no_gpu(snapshot: &Snapshot) -> NoGpu {
    let (reason, fix, references): (String, String, Vec<String>) = match (&snapshot.nvidia, &snapshot.nvidia_error) {
        (None, Some(error)) => match error.kind {
            NvidiaErrorKind::NoDriver => (
                "there is no NVIDIA driver: neither its library (libnvidia-ml) nor its kernel module is present"
                    .to_string(),
                "install the NVIDIA driver (on a GPU node), or run the job on a node that has GPUs".to_string(),
                vec!["https://docs.nvidia.com/datacenter/tesla/drivers/".to_string()],
            ),
            NvidiaErrorKind::NoDeviceNodes => (
                "the NVIDIA kernel module is loaded but /dev/nvidiactl is missing: a container started without \
                 GPUs on a GPU host"
                    .to_string(),
                "start the container with GPUs: docker run --gpus all ... (NVIDIA Container Toolkit), or \
                 request GPUs from the scheduler (for Slurm, --gpus or --gres=gpu:N)"
                    .to_string(),
                vec!["https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/index.html".to_string()],
            ),
            NvidiaErrorKind::ModuleNotLoaded => (
                "the NVIDIA user-space driver is installed but its kernel module is not loaded".to_string(),
                "sudo modprobe nvidia (and check dmesg for why it did not load, such as Secure Boot or a kernel \
                 without the module built)"
                    .to_string(),
                vec!["https://docs.nvidia.com/datacenter/tesla/drivers/".to_string()],
            ),
            NvidiaErrorKind::BrokenInstall => (
                format!(
                    "the NVIDIA kernel module is loaded but NVML fails ({}): most often user-space driver \
                     libraries of another version than the module, after a driver upgrade without a reboot",
                    error.message
                ),
                "reboot so the kernel module matches the installed driver libraries, or reinstall the driver"
                    .to_string(),
                vec!["https://docs.nvidia.com/datacenter/tesla/drivers/".to_string()],
            ),
            NvidiaErrorKind::Timeout => (
                format!(
                    "NVML did not answer in time: a GPU or the driver may be hung ({})",
                    error.message
                ),
                "check dmesg for Xid errors (sudo dmesg | grep -i xid), then reset the GPU or reboot the node"
                    .to_string(),
                vec!["https://docs.nvidia.com/deploy/xid-errors/index.html".to_string()],
            ),
            NvidiaErrorKind::Failed | NvidiaErrorKind::Other => (
                format!("NVML failed: {}", error.message),
                "run nvidia-smi to see the driver's own error (permissions on /dev/nvidia* are a common cause)"
                    .to_string(),
                vec!["https://docs.nvidia.com/deploy/nvidia-smi/index.html".to_string()],
            ),
        },
        (None, None) => (
            "the Snapshot holds no NVIDIA facts and no reason for their absence".to_string(),
            "run envdoctor probe on the node itself".to_string(),
            Vec::new(),
        ),
        (Some(nvidia), _) if nvidia.gpus.is_empty() => {
            let unreadable = if nvidia.unreadable_gpus.is_empty() {
                String::new()
            } else {
                format!(
                    "; it counts {} it cannot read (gpu-unreadable names them)",
                    nvidia.unreadable_gpus.len()
                )
            };
            (
                format!(
                    "driver {} is loaded but NVML lists no GPU it can read{unreadable}",
                    nvidia.driver_version.as_deref().unwrap_or("(unknown version)")
                ),
                "run nvidia-smi; check dmesg for Xid errors (a GPU that fell off the bus) and that the GPUs are \
                 passed to this machine or container"
                    .to_string(),
                vec!["https://docs.nvidia.com/deploy/xid-errors/index.html".to_string()],
            )
        }
        (Some(nvidia), _) => {
            let devices = snapshot.cuda_devices.as_ref();
            let value = devices.and_then(|devices| devices.cuda_visible_devices.as_deref());
            let notes: Vec<&str> = devices
                .map(|devices| {
                    devices
                        .notes
                        .iter()
                        .map(String::as_str)
                        .filter(|note| note.starts_with("CUDA_VISIBLE_DEVICES"))
                        .collect()
                })
                .unwrap_or_default();
            let why = if notes.is_empty() {
                "CUDA_VISIBLE_DEVICES selects none of them".to_string()
            } else {
                notes.join("; ")
            };
            (
                format!(
                    "NVML lists {} GPU(s), but CUDA_VISIBLE_DEVICES={} hides them: {why}",
                    nvidia.gpus.len(),
                    value.unwrap_or("")
                ),
                "unset CUDA_VISIBLE_DEVICES, or set it to the GPUs the job should use (nvidia-smi -L lists them)"
                    .to_string(),
                vec![CUDA_ENV_VARS.to_string()],
            )
        }
    };
    NoGpu {
        reason,
        fix,
        references,
    }
}

fn shared_memory(facts: &Facts) -> Vec<Finding> {
    let gpus = facts.gpus.len();
    if gpus < 2 {
        return Vec::new();
    }
    let limits = &facts.snapshot.system.limits;
    let Some(total) = limits.shm_total_mib else {
        return Vec::new();
    };
    if total >= SHM_MIN_MIB {
        return Vec::new();
    }
    let free = limits
        .shm_available_mib
        .map(|free| format!(" ({free} MiB free)"))
        .unwrap_or_default();
    vec![finding(
        SHM_SMALL,
        Severity::Warning,
        format!("/dev/shm is {total} MiB on a node with {gpus} GPUs"),
        format!("/dev/shm holds {total} MiB{free}; CUDA sees {}.", models(facts)),
        "NCCL creates its shared-memory segments in /dev/shm and fails to initialize when it cannot extend \
         them (\"NCCL WARN Error: failed to extend /dev/shm/nccl-... to ... bytes\"); DataLoader workers pass \
         batches through shared memory and die when it is full (\"Unexpected bus error encountered in worker. \
         This might be caused by insufficient shared memory (shm)\"). Docker gives containers \
         64 MiB unless told otherwise."
            .to_string(),
        Some(
            "run the container with a larger /dev/shm: docker run --shm-size=1g --ulimit memlock=-1 ... \
             (NCCL's setting), or --ipc=host; on Kubernetes mount an emptyDir with medium: Memory at /dev/shm"
                .to_string(),
        ),
        vec![
            NCCL_SHM.to_string(),
            "https://github.com/pytorch/pytorch#using-pre-built-images".to_string(),
        ],
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin_checks::test_support::{healthy, ids, run};
    use crate::probe::cuda_devices;
    use crate::snapshot::Snapshot;
    use crate::snapshot::frameworks::Build;
    use crate::snapshot::nvidia::NvidiaError;

    /// Sets the variables and maps the devices again, as the probe would have.
    fn with_env(snapshot: &mut Snapshot, visible: Option<&str>, order: Option<&str>) {
        for (name, value) in [("CUDA_VISIBLE_DEVICES", visible), ("CUDA_DEVICE_ORDER", order)] {
            match value {
                Some(value) => snapshot.env.insert(name.to_string(), value.to_string()),
                None => snapshot.env.remove(name),
            };
        }
        let gpus = &snapshot.nvidia.as_ref().unwrap().gpus;
        snapshot.cuda_devices = Some(cuda_devices::map(gpus, visible, order));
    }

    #[test]
    fn an_index_past_the_last_gpu_is_an_error_naming_what_cuda_sees() {
        let mut snapshot = healthy();
        with_env(&mut snapshot, Some("0,1,7"), None);
        let findings = run(&snapshot, cuda_visible_devices);
        assert_eq!(ids(&findings), [(VISIBLE_DEVICES_INVALID, Severity::Error)]);
        assert!(
            findings[0]
                .detail
                .contains("entry `7` is past the last GPU (there are 6)"),
            "{}",
            findings[0].detail
        );
        assert!(
            findings[0]
                .detail
                .contains("cuda:0 = nvidia-smi GPU 0, cuda:1 = nvidia-smi GPU 1")
        );
        assert!(
            findings[0]
                .fix
                .as_deref()
                .unwrap()
                .contains("CUDA_VISIBLE_DEVICES=0,1,2,3,4,5")
        );
    }

    #[test]
    fn valid_lists_and_a_deliberately_empty_one_are_not_invalid() {
        let mut snapshot = healthy();
        with_env(&mut snapshot, Some("5,3"), None);
        assert_eq!(run(&snapshot, cuda_visible_devices), []);
        with_env(&mut snapshot, Some(""), None);
        assert_eq!(run(&snapshot, cuda_visible_devices), []);
        // ... which is the device check's finding instead, with the reason.
        let findings = run(&snapshot, gpu_visible);
        assert_eq!(ids(&findings), [(NO_GPU, Severity::Error)]);
        assert!(
            findings[0].detail.contains("CUDA_VISIBLE_DEVICES is set and empty"),
            "{}",
            findings[0].detail
        );
    }

    #[test]
    fn a_repeated_entry_hides_every_gpu() {
        let mut snapshot = healthy();
        with_env(&mut snapshot, Some("1,1"), None);
        assert_eq!(
            ids(&run(&snapshot, cuda_visible_devices)),
            [(VISIBLE_DEVICES_INVALID, Severity::Error)]
        );
        assert!(
            run(&snapshot, cuda_visible_devices)[0]
                .detail
                .ends_with("So CUDA sees: no GPU.")
        );
        assert_eq!(ids(&run(&snapshot, gpu_visible)), [(NO_GPU, Severity::Error)]);
    }

    fn mix_models(snapshot: &mut Snapshot) {
        let gpus = &mut snapshot.nvidia.as_mut().unwrap().gpus;
        gpus[0].name = Some("Tesla T4".to_string());
        gpus[0].compute_capability = Some("7.5".to_string());
    }

    #[test]
    fn mixed_models_without_pci_order_are_a_warning() {
        let mut snapshot = healthy();
        mix_models(&mut snapshot);
        with_env(&mut snapshot, None, None);
        let findings = run(&snapshot, cuda_device_order);
        assert_eq!(ids(&findings), [(ORDER_UNSET, Severity::Warning)]);
        // Fastest first puts the H100s before the T4 that nvidia-smi calls GPU 0.
        let detail = &findings[0].detail;
        assert!(
            detail.contains(
                "CUDA sees 6 GPUs: 5x NVIDIA H100 80GB HBM3 (compute capability 9.0), 1x Tesla T4 (compute capability 7.5)"
            ),
            "{detail}"
        );
        assert!(detail.contains("cuda:0 is nvidia-smi GPU 1"), "{detail}");
        assert!(detail.contains("cuda:5 is nvidia-smi GPU 0"), "{detail}");
        assert_eq!(findings[0].fix.as_deref(), Some("export CUDA_DEVICE_ORDER=PCI_BUS_ID"));
        with_env(&mut snapshot, None, Some("PCI_BUS_ID"));
        assert_eq!(run(&snapshot, cuda_device_order), []);
    }

    #[test]
    fn one_model_or_one_gpu_is_quiet() {
        let mut snapshot = healthy();
        mix_models(&mut snapshot);
        with_env(&mut snapshot, Some("0"), None);
        assert_eq!(
            run(&snapshot, cuda_device_order),
            [],
            "a single visible GPU has no order"
        );
    }

    fn without_nvidia(snapshot: &mut Snapshot, kind: NvidiaErrorKind) {
        snapshot.nvidia = None;
        snapshot.cuda_devices = None;
        snapshot.nvidia_error = Some(NvidiaError {
            kind,
            message: "nvmlInit failed: Driver Not Loaded".to_string(),
        });
    }

    #[test]
    fn no_gpu_says_which_absence_it_is() {
        let mut snapshot = healthy();
        without_nvidia(&mut snapshot, NvidiaErrorKind::NoDeviceNodes);
        let findings = run(&snapshot, gpu_visible);
        assert_eq!(ids(&findings), [(NO_GPU, Severity::Error)]);
        assert!(findings[0].detail.contains("/dev/nvidiactl is missing"));
        assert!(findings[0].fix.as_deref().unwrap().contains("docker run --gpus all"));

        without_nvidia(&mut snapshot, NvidiaErrorKind::NoDriver);
        assert!(
            run(&snapshot, gpu_visible)[0]
                .detail
                .contains("there is no NVIDIA driver")
        );
        without_nvidia(&mut snapshot, NvidiaErrorKind::Timeout);
        assert!(run(&snapshot, gpu_visible)[0].fix.as_deref().unwrap().contains("Xid"));

        // Without a CUDA torch the absence may be intended: a warning.
        if let Some(Build::Torch(build)) = snapshot.frameworks.get_mut("torch").and_then(|f| f.build.as_mut()) {
            build.cuda = None;
        }
        assert_eq!(ids(&run(&snapshot, gpu_visible)), [(NO_GPU, Severity::Warning)]);
    }

    #[test]
    fn a_small_shm_matters_on_several_gpus_only() {
        let mut snapshot = healthy();
        snapshot.system.limits.shm_total_mib = Some(64);
        snapshot.system.limits.shm_available_mib = Some(60);
        let findings = run(&snapshot, shared_memory);
        assert_eq!(ids(&findings), [(SHM_SMALL, Severity::Warning)]);
        assert!(findings[0].title.contains("64 MiB on a node with 6 GPUs"));
        with_env(&mut snapshot, Some("0"), None);
        assert_eq!(run(&snapshot, shared_memory), []);
        with_env(&mut snapshot, None, None);
        snapshot.system.limits.shm_total_mib = Some(1024);
        assert_eq!(run(&snapshot, shared_memory), []);
    }
}
