//! The platform: system, NVIDIA driver, GPUs and CUDA.

use std::collections::{BTreeMap, BTreeSet};

use super::{Area, Drift, Sides, text};
use crate::facts::dotted;
use crate::findings::Severity;
use crate::knowledge::tables::{MajorMinor, Tables};
use crate::lock::model::{self, GpuGroup, Lock};

pub(super) fn system(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let (a, b) = (&expected.system, &found.system);
    if a.architecture != b.architecture {
        drift.push(
            Drift::new("system-architecture", Area::System, Severity::Error, "architecture")
                .values(Some(a.architecture.clone()), Some(b.architecture.clone()))
                .message(format!(
                    "The CPU architecture is {} {}, {} {}: compiled wheels of one do not run on the other.",
                    b.architecture, sides.found, a.architecture, sides.expected
                )),
        );
    }
    if a.glibc != b.glibc {
        let older = match (a.glibc.as_deref().and_then(dotted), b.glibc.as_deref().and_then(dotted)) {
            (Some(locked), Some(here)) => here < locked,
            _ => false,
        };
        let consequence = if older {
            "older: manylinux wheels built for the newer glibc may not install or load"
        } else {
            "newer: wheels built for the older glibc still load"
        };
        drift.push(
            Drift::new("system-glibc", Area::System, Severity::Warning, "glibc")
                .values(a.glibc.clone(), b.glibc.clone())
                .message(format!(
                    "glibc is {} {}, {} {}: {consequence}.",
                    text(&b.glibc),
                    sides.found,
                    text(&a.glibc),
                    sides.expected
                )),
        );
    }
    if (&a.os_id, &a.os_version_id) != (&b.os_id, &b.os_version_id) {
        let describe = |system: &model::System| {
            system
                .os
                .clone()
                .or_else(|| system.os_id.clone())
                .unwrap_or_else(|| "unknown".to_string())
        };
        drift.push(
            Drift::new("system-os", Area::System, Severity::Info, "operating system")
                .values(Some(describe(a)), Some(describe(b)))
                .message(format!(
                    "The operating system is {} {}, {} {}.",
                    describe(b),
                    sides.found,
                    describe(a),
                    sides.expected
                )),
        );
    }
}

pub(super) fn nvidia(expected: &Lock, found: &Lock, sides: &Sides, tables: &Tables, drift: &mut Vec<Drift>) {
    let locked_driver = expected.nvidia.as_ref().and_then(|nvidia| nvidia.driver.clone());
    let found_driver = found.nvidia.as_ref().and_then(|nvidia| nvidia.driver.clone());
    if locked_driver.is_some() && found_driver.is_none() {
        drift.push(
            Drift::new("driver-missing", Area::Nvidia, Severity::Error, "driver")
                .values(locked_driver, None)
                .message(format!(
                    "There is an NVIDIA driver {}; {} NVML reports none.",
                    sides.expected, sides.found
                ))
                .fix(Some("install the NVIDIA driver, or run on a GPU node".to_string())),
        );
        return;
    }
    if let Some(too_old) = driver_below_torch_floor(expected, found, sides, tables) {
        drift.push(too_old);
    } else if locked_driver != found_driver {
        let same_branch = match (&locked_driver, &found_driver) {
            (Some(a), Some(b)) => a.split('.').next() == b.split('.').next(),
            _ => false,
        };
        let (severity, consequence) = if same_branch {
            (Severity::Info, "the same driver branch, which runs the same CUDA")
        } else {
            (
                Severity::Warning,
                "another driver branch: it still runs the torch, but CUDA behaviour can differ",
            )
        };
        drift.push(
            Drift::new("driver-changed", Area::Nvidia, severity, "driver")
                .values(locked_driver.clone(), found_driver.clone())
                .message(format!(
                    "The NVIDIA driver is {} {}, {} {}: {consequence}.",
                    text(&found_driver),
                    sides.found,
                    text(&locked_driver),
                    sides.expected
                )),
        );
    }
}

/// An error when the node's driver cannot run the CUDA the locked torch was
/// built with: below NVIDIA's minor-version compatibility floor for that
/// CUDA major, or reporting an older CUDA major.
fn driver_below_torch_floor(expected: &Lock, found: &Lock, sides: &Sides, tables: &Tables) -> Option<Drift> {
    let torch_cuda = match expected.frameworks.get("torch")?.get("cuda")? {
        model::Fact::Text(cuda) => MajorMinor::parse(cuda)?,
        _ => return None,
    };
    let nvidia = found.nvidia.as_ref()?;
    let floor = tables.drivers.floor(torch_cuda.major);
    let driver = nvidia.driver.as_deref().and_then(dotted);
    let below_floor =
        matches!((&driver, floor), (Some(driver), Some(floor)) if *driver < floor.linux_min_driver.version);
    let cuda_behind = nvidia
        .cuda_driver
        .as_deref()
        .and_then(MajorMinor::parse)
        .is_some_and(|cuda| cuda.major < torch_cuda.major);
    if !below_floor && !cuda_behind {
        return None;
    }
    let needed = match floor {
        Some(floor) => format!("NVIDIA driver {} or newer", floor.linux_min_driver),
        None => format!("an NVIDIA driver that supports CUDA {}", torch_cuda.major),
    };
    let locked_driver = expected.nvidia.as_ref().and_then(|nvidia| nvidia.driver.clone());
    Some(
        Drift::new("driver-too-old", Area::Nvidia, Severity::Error, "driver")
            .values(locked_driver, nvidia.driver.clone())
            .message(format!(
                "The NVIDIA driver {} {} cannot run the torch {}, built with CUDA {torch_cuda}, which needs {needed}: \
                 torch.cuda.is_available() will be False.",
                text(&nvidia.driver),
                sides.found,
                sides.expected
            ))
            .fix(Some(format!("install {needed}"))),
    )
}

pub(super) fn gpus(expected: &[GpuGroup], found: &[GpuGroup], sides: &Sides, drift: &mut Vec<Drift>) {
    if expected == found {
        return;
    }
    let describe = |groups: &[GpuGroup]| {
        if groups.is_empty() {
            return "no GPU".to_string();
        }
        groups
            .iter()
            .map(|group| match &group.compute_capability {
                Some(cc) => format!("{} × {} (compute capability {cc})", group.count, group.name),
                None => format!("{} × {}", group.count, group.name),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let count = |groups: &[GpuGroup]| groups.iter().map(|group| group.count).sum::<u32>();
    let models = |groups: &[GpuGroup]| {
        groups
            .iter()
            .map(|group| (group.name.clone(), group.compute_capability.clone()))
            .collect::<BTreeSet<_>>()
    };
    if models(expected) != models(found) {
        let capabilities = |groups: &[GpuGroup]| {
            groups
                .iter()
                .map(|group| group.compute_capability.clone())
                .collect::<BTreeSet<_>>()
        };
        let severity = if found.is_empty() && !expected.is_empty() {
            Severity::Error
        } else {
            Severity::Warning
        };
        let consequence = if found.is_empty() {
            "nothing runs CUDA"
        } else if capabilities(expected) != capabilities(found) {
            "another compute capability: kernels built for one may not run on the other, and memory-sized settings may not fit"
        } else {
            "the same compute capability, but memory-sized settings (batch size, offload) may not fit"
        };
        drift.push(
            Drift::new("gpu-model", Area::Gpus, severity, "GPU model")
                .values(Some(describe(expected)), Some(describe(found)))
                .message(format!(
                    "The GPUs are {} {}, {} {}: {consequence}.",
                    describe(found),
                    sides.found,
                    describe(expected),
                    sides.expected
                )),
        );
    }
    let memory = |groups: &[GpuGroup]| {
        groups
            .iter()
            .map(|group| (group.name.clone(), group.memory_total_mib))
            .collect::<BTreeSet<_>>()
    };
    if models(expected) == models(found) && memory(expected) != memory(found) {
        let describe_memory = |groups: &[GpuGroup]| {
            groups
                .iter()
                .map(|group| match group.memory_total_mib {
                    Some(mib) => format!("{} with {mib} MiB", group.name),
                    None => format!("{} with unknown memory", group.name),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        // The same model reports other memory with ECC switched, or another driver's reservation.
        drift.push(
            Drift::new("gpu-memory", Area::Gpus, Severity::Warning, "GPU memory")
                .values(Some(describe_memory(expected)), Some(describe_memory(found)))
                .message(format!(
                    "The GPUs are {} {}, {} {}: the same model with other usable memory (ECC mode, \
                     driver), so memory-sized settings (batch size, offload) may not fit.",
                    describe_memory(found),
                    sides.found,
                    describe_memory(expected),
                    sides.expected
                )),
        );
    }
    if count(expected) != count(found) {
        drift.push(
            Drift::new("gpu-count", Area::Gpus, Severity::Warning, "GPU count")
                .values(Some(count(expected).to_string()), Some(count(found).to_string()))
                .message(format!(
                    "There are {} GPUs {}, {} {}: launchers sized for one (--nproc_per_node, \
                     num_processes, world size) start the wrong number of ranks on the other.",
                    count(found),
                    sides.found,
                    count(expected),
                    sides.expected
                )),
        );
    }
}

pub(super) fn cuda(expected: &Lock, found: &Lock, sides: &Sides, drift: &mut Vec<Drift>) {
    let toolkit_versions = |lock: &Lock| {
        lock.cuda
            .toolkits
            .iter()
            .map(|toolkit| toolkit.version.clone().unwrap_or_else(|| toolkit.root.clone()))
            .collect::<BTreeSet<_>>()
    };
    let (a, b) = (toolkit_versions(expected), toolkit_versions(found));
    if a != b {
        let list = |set: &BTreeSet<String>| {
            if set.is_empty() {
                "none".to_string()
            } else {
                set.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        };
        drift.push(
            Drift::new("cuda-toolkit-changed", Area::Cuda, Severity::Warning, "CUDA toolkits")
                .values(Some(list(&a)), Some(list(&b)))
                .message(format!(
                    "CUDA toolkits {}: {}; {}: {}. Extensions built at run time (DeepSpeed ops, \
                     flash-attn, bitsandbytes from source) compile against the toolkit.",
                    sides.found,
                    list(&b),
                    sides.expected,
                    list(&a)
                )),
        );
    }
    let libraries = |lock: &Lock| {
        lock.cuda
            .libraries
            .iter()
            .map(|library| {
                (
                    (library.name.clone(), library.provided_by.clone()),
                    library.version.clone(),
                )
            })
            .collect::<BTreeMap<_, _>>()
    };
    let (a, b) = (libraries(expected), libraries(found));
    for key in a.keys().chain(b.keys()).collect::<BTreeSet<_>>() {
        let (locked, here) = (a.get(key).cloned().flatten(), b.get(key).cloned().flatten());
        let (in_lock, on_node) = (a.contains_key(key), b.contains_key(key));
        if in_lock == on_node && locked == here {
            continue;
        }
        let (name, provider) = key;
        let show = |present: bool, version: &Option<String>| match (present, version) {
            (false, _) => "absent".to_string(),
            (true, Some(version)) => version.clone(),
            (true, None) => "present, version unknown".to_string(),
        };
        drift.push(
            Drift::new(
                "cuda-library-changed",
                Area::Cuda,
                Severity::Warning,
                format!("{name} ({provider})"),
            )
            .values(Some(show(in_lock, &locked)), Some(show(on_node, &here)))
            .message(format!(
                "{name} from {provider} is {} {}, {} {}.",
                show(on_node, &here),
                sides.found,
                show(in_lock, &locked),
                sides.expected
            )),
        );
    }
}
