//! GPU health as NVML reported it: memory errors and pending memory repairs,
//! PCIe links trained below their maximum, clocks held down by heat or power,
//! MIG mode, and GPUs NVML counts but cannot read. Every GPU of the node is
//! judged, not only those CUDA_VISIBLE_DEVICES selects; a GPU this job cannot
//! see is reported one level milder, since it affects the node, not this job.

use super::{BuiltinCheck, finding};
use crate::facts::Facts;
use crate::findings::{Finding, Severity};
use crate::snapshot::nvidia::Gpu;

const ECC_UNCORRECTABLE: &str = "gpu-uncorrectable-ecc-errors";
const REPAIR_PENDING: &str = "gpu-memory-repair-pending";
const REMAP_FAILED: &str = "gpu-row-remap-failed";
const PCIE_DEGRADED: &str = "gpu-pcie-link-degraded";
const CLOCKS_SLOWED: &str = "gpu-clocks-slowed";
const MIG_ENABLED: &str = "gpu-mig-enabled";
const UNREADABLE: &str = "gpu-unreadable";

const MEMORY_ERRORS: &str = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html";
const PAGE_RETIREMENT: &str = "https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html";
const XID: &str = "https://docs.nvidia.com/deploy/xid-errors/index.html";
const NVIDIA_SMI: &str = "https://docs.nvidia.com/deploy/nvidia-smi/index.html";
const CLOCK_REASONS: &str = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html";
const MIG_GUIDE: &str = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/";

pub(super) const CHECKS: &[BuiltinCheck] = &[
    BuiltinCheck {
        id: "gpu-memory-health",
        title: "GPU memory has no uncorrectable errors or pending repairs",
        produces: &[ECC_UNCORRECTABLE, REPAIR_PENDING, REMAP_FAILED],
        explanation: "Reads each GPU's uncorrectable ECC error counts and the state of its memory repair. \
            Uncorrectable errors since the driver loaded killed the work running then and point at failing \
            memory (lifetime counts alone are history). Pages pending retirement (before Ampere) keep the \
            GPU from taking new work until it is reset; row remaps pending (Ampere and later) take effect \
            at the next reset; a failed row remap leaves a bad row in use and is grounds for replacing the GPU.",
        run: |facts, _| gpu_memory_health(facts),
    },
    BuiltinCheck {
        id: "gpu-pcie-link",
        title: "GPU PCIe links run at their full width and generation",
        produces: &[PCIE_DEGRADED],
        explanation: "Compares each GPU's current PCIe link with the maximum the GPU and slot support. \
            NVIDIA documents that both the current generation and width \"may be reduced when the GPU is \
            not in use\", so an idle GPU below its maximum generation is normal and not reported; a link \
            narrower than its maximum is reported (as info on an idle GPU, to re-check under load), and \
            either shortfall on a busy GPU is a warning: host-to-GPU copies and NCCL traffic over PCIe slow \
            down accordingly.",
        run: |facts, _| gpu_pcie_link(facts),
    },
    BuiltinCheck {
        id: "gpu-clock-slowdown",
        title: "GPU clocks are not held down by heat or power",
        produces: &[CLOCKS_SLOWED],
        explanation: "Reads the reasons NVML gives for the current clocks. Thermal slowdown (hardware or \
            software) and the hardware power brake cut the clocks by half or more and make one GPU the \
            straggler every collective waits for; a bare hardware-slowdown flag, which NVML says may also \
            appear during a power-state change, is only noted.",
        run: |facts, _| gpu_clock_slowdown(facts),
    },
    BuiltinCheck {
        id: "gpu-mig-mode",
        title: "GPUs are whole, not split by MIG",
        produces: &[MIG_ENABLED],
        explanation: "With MIG mode on, CUDA programs run on MIG devices (slices with a fraction of the \
            GPU's compute and memory), not on the GPU: torch sees a slice. On a node meant for training on \
            whole GPUs that is a configuration left behind; where slices are intended, ignore this finding.",
        run: |facts, _| gpu_mig_mode(facts),
    },
    BuiltinCheck {
        id: "gpu-readable",
        title: "NVML can read every GPU it counts",
        produces: &[UNREADABLE],
        explanation: "NVML counted a GPU it could not read: most often one that fell off the bus (Xid 79) \
            or hung, sometimes missing permissions. A job that uses it fails, and on a multi-GPU job so \
            does every rank waiting on it.",
        run: |facts, _| gpu_readable(facts),
    },
];

/// Every GPU NVML read, with how this job sees it.
fn gpus<'a>(facts: &Facts<'a>) -> Vec<Judged<'a>> {
    let Some(nvidia) = &facts.snapshot.nvidia else {
        return Vec::new();
    };
    nvidia
        .gpus
        .iter()
        .map(|gpu| {
            let visible = facts.gpus.iter().find(|visible| visible.gpu.index == gpu.index);
            let name = gpu.name.as_deref().unwrap_or("unnamed GPU");
            let label = match visible {
                Some(visible) => format!("cuda:{} {name} (nvidia-smi GPU {})", visible.ordinal, gpu.index),
                None => format!("nvidia-smi GPU {} {name} (not visible to CUDA here)", gpu.index),
            };
            Judged {
                gpu,
                label,
                visible: visible.is_some(),
            }
        })
        .collect()
}

struct Judged<'a> {
    gpu: &'a Gpu,
    label: String,
    visible: bool,
}

impl Judged<'_> {
    /// A problem of a GPU this job does not use is the node's, one level milder.
    fn severity(&self, severity: Severity) -> Severity {
        if self.visible { severity } else { severity.lowered() }
    }

    fn idle(&self) -> Option<bool> {
        self.gpu
            .clock_event_reasons
            .as_ref()
            .map(|reasons| reasons.iter().any(|reason| reason == "gpu_idle"))
    }
}

fn gpu_memory_health(facts: &Facts) -> Vec<Finding> {
    let mut findings = Vec::new();
    for judged in gpus(facts) {
        let gpu = judged.gpu;
        let index = gpu.index;
        let volatile = gpu.ecc_uncorrectable_volatile.unwrap_or(0);
        let aggregate = gpu.ecc_uncorrectable_aggregate.unwrap_or(0);
        if volatile > 0 {
            findings.push(finding(
                ECC_UNCORRECTABLE,
                judged.severity(Severity::Warning),
                format!("{} had {volatile} uncorrectable memory errors since the driver loaded", judged.label),
                format!(
                    "{}: {volatile} uncorrectable ECC errors since the driver loaded, {aggregate} over its lifetime.",
                    judged.label
                ),
                "An uncorrectable ECC error kills the work running on the GPU when it happens (Xid 48, or 94/95 \
                 on GPUs with error containment). Errors in this boot mean the memory is failing now; the \
                 driver takes the bad page out of use (at once on Ampere and later, at the next reset before), \
                 and recurring errors are a reason to replace the GPU."
                    .to_string(),
                Some(format!(
                    "sudo dmesg | grep -i xid (what failed, and when); drain GPU {index} and reset it \
                     (sudo nvidia-smi --gpu-reset -i {index}) so pending repairs take effect; replace it if errors recur"
                )),
                vec![MEMORY_ERRORS.to_string(), PAGE_RETIREMENT.to_string(), XID.to_string()],
            ));
        } else if aggregate > 0 {
            findings.push(finding(
                ECC_UNCORRECTABLE,
                Severity::Info,
                format!(
                    "{} had {aggregate} uncorrectable memory errors over its lifetime",
                    judged.label
                ),
                format!(
                    "{}: {aggregate} uncorrectable ECC errors over its lifetime, none since the driver loaded.",
                    judged.label
                ),
                "Lifetime counts persist across reboots; with no error in this boot and no repair pending, \
                 the pages concerned have been retired or their rows remapped. Worth watching if it grows."
                    .to_string(),
                None,
                vec![MEMORY_ERRORS.to_string(), PAGE_RETIREMENT.to_string()],
            ));
        }
        if gpu.retired_pages_pending == Some(true) {
            findings.push(finding(
                REPAIR_PENDING,
                judged.severity(Severity::Error),
                format!("{} has memory pages waiting to be retired", judged.label),
                format!("{}: NVML reports pages pending retirement.", judged.label),
                "After an uncorrectable error on a GPU before Ampere the driver retires the page only when the \
                 GPU is next attached, and until then creates no new work on it: jobs fail to start on this GPU."
                    .to_string(),
                Some(format!(
                    "sudo nvidia-smi --gpu-reset -i {index} (with nothing running on it), or reboot the node"
                )),
                vec![PAGE_RETIREMENT.to_string()],
            ));
        }
        if let Some(rows) = gpu.remapped_rows {
            if rows.failed {
                findings.push(finding(
                    REMAP_FAILED,
                    judged.severity(Severity::Error),
                    format!("{} failed to remap a bad memory row", judged.label),
                    format!(
                        "{}: row remapping failed ({} rows remapped for uncorrectable and {} for correctable errors).",
                        judged.label, rows.uncorrectable, rows.correctable
                    ),
                    "Row remapping replaces a memory row that had errors with a spare row; when a remap fails (Xid 64 \
                     records a failure to store one), the bad row stays in use and its errors recur. NVIDIA's memory \
                     error management guide sets out in its RMA policy when such a GPU is replaced."
                        .to_string(),
                    Some(format!(
                        "drain GPU {index} (exclude it with CUDA_VISIBLE_DEVICES or the scheduler) and have it serviced"
                    )),
                    vec![MEMORY_ERRORS.to_string()],
                ));
            } else if rows.pending {
                findings.push(finding(
                    REPAIR_PENDING,
                    judged.severity(Severity::Warning),
                    format!("{} has a memory row remap waiting for a GPU reset", judged.label),
                    format!(
                        "{}: a row remap is pending ({} rows remapped for uncorrectable errors so far).",
                        judged.label, rows.uncorrectable
                    ),
                    "A remap replaces a memory row that had an uncorrectable error with a spare, but takes effect \
                     only when the GPU is reset; until then the driver keeps the affected page out of use."
                        .to_string(),
                    Some(format!(
                        "sudo nvidia-smi --gpu-reset -i {index} (with nothing running on it), or reboot the node"
                    )),
                    vec![MEMORY_ERRORS.to_string()],
                ));
            }
        }
    }
    findings
}

fn gpu_pcie_link(facts: &Facts) -> Vec<Finding> {
    let mut findings = Vec::new();
    for judged in gpus(facts) {
        let link = judged.gpu.pcie;
        let narrow = matches!((link.width_current, link.width_max), (Some(current), Some(max)) if current < max);
        let slow =
            matches!((link.generation_current, link.generation_max), (Some(current), Some(max)) if current < max);
        let idle = judged.idle();
        // Busy only when NVML said so: without its reasons, the GPU is given the benefit of the doubt.
        let busy = idle == Some(false);
        let severity = match (narrow, slow, busy) {
            (_, _, true) if narrow || slow => Severity::Warning,
            (true, _, false) => Severity::Info,
            _ => continue,
        };
        let state = match idle {
            Some(true) => "idle",
            Some(false) => "busy",
            None => "of unknown load",
        };
        let text = |current: Option<u32>, max: Option<u32>, prefix: &str| match (current, max) {
            (Some(current), Some(max)) => format!("{prefix}{current} of {prefix}{max}"),
            _ => "unknown".to_string(),
        };
        let bus = judged
            .gpu
            .pci_bus_id
            .as_deref()
            .map(lspci_address)
            .unwrap_or("<bus id>");
        findings.push(finding(
            PCIE_DEGRADED,
            judged.severity(severity),
            format!("{} runs its PCIe link below its maximum", judged.label),
            format!(
                "{}, {state}: PCIe width {}, generation {}.",
                judged.label,
                text(link.width_current, link.width_max, "x"),
                text(link.generation_current, link.generation_max, "Gen"),
            ),
            "NVIDIA documents that the current link generation and width may be reduced while a GPU is not in \
             use, so an idle reading is only a hint; a link that stays narrower or slower under load cuts \
             host-to-GPU copy bandwidth (data loading, CPU offload) and NCCL traffic over PCIe, often because of \
             a badly seated card or riser or a slot configured for fewer lanes."
                .to_string(),
            Some(format!(
                "re-check while the GPU is busy (nvidia-smi -q -d PCIE -i {}); compare the slot's capability with \
                 its status (sudo lspci -vv -s {bus} | grep -E 'LnkCap|LnkSta') and reseat the card or riser",
                judged.gpu.index
            )),
            vec![NVIDIA_SMI.to_string()],
        ));
    }
    findings
}

/// `18:00.0` of NVML's `00000000:18:00.0`: the form `lspci -s` is usually given.
fn lspci_address(bus: &str) -> &str {
    match bus.split_once(':') {
        Some((_, rest)) if rest.contains(':') => rest,
        _ => bus,
    }
}

fn gpu_clock_slowdown(facts: &Facts) -> Vec<Finding> {
    const SERIOUS: [&str; 3] = ["hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown"];
    let mut findings = Vec::new();
    for judged in gpus(facts) {
        let Some(reasons) = &judged.gpu.clock_event_reasons else {
            continue;
        };
        let serious: Vec<&str> = reasons
            .iter()
            .map(String::as_str)
            .filter(|reason| SERIOUS.contains(reason))
            .collect();
        let bare_hw = reasons.iter().any(|reason| reason == "hw_slowdown");
        let severity = if !serious.is_empty() {
            Severity::Warning
        } else if bare_hw {
            Severity::Info
        } else {
            continue;
        };
        let temperature = judged
            .gpu
            .temperature_celsius
            .map(|celsius| format!(", at {celsius} C"))
            .unwrap_or_default();
        let power = judged
            .gpu
            .power_limit_watts
            .map(|watts| format!(", power limit {watts} W"))
            .unwrap_or_default();
        findings.push(finding(
            CLOCKS_SLOWED,
            judged.severity(severity),
            format!("{} is slowing its clocks ({})", judged.label, reasons.join(", ")),
            format!(
                "{}: NVML gives the clock reasons {}{temperature}{power}.",
                judged.label,
                reasons.join(", ")
            ),
            "Thermal slowdown and the hardware power brake cut the core clocks by half or more; in data-parallel \
             training every step waits for the slowest GPU, so one hot GPU slows the whole job. A bare hardware \
             slowdown flag may also be reported during a power-state or clock change (NVML), so alone it is \
             only noted."
                .to_string(),
            Some(format!(
                "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {} while it is busy; check the node's cooling, fans \
                 and power supply",
                judged.gpu.index
            )),
            vec![CLOCK_REASONS.to_string()],
        ));
    }
    findings
}

fn gpu_mig_mode(facts: &Facts) -> Vec<Finding> {
    let mut findings = Vec::new();
    for judged in gpus(facts) {
        let Some(mode) = judged.gpu.mig_mode else {
            continue;
        };
        if !mode.current {
            continue;
        }
        let index = judged.gpu.index;
        let pending = if mode.pending {
            String::new()
        } else {
            " (it is set to turn off at the next GPU reset)".to_string()
        };
        findings.push(finding(
            MIG_ENABLED,
            judged.severity(Severity::Warning),
            format!("{} has MIG mode on", judged.label),
            format!(
                "{}: MIG mode is on{pending}, with {} MIG devices.",
                judged.label,
                judged.gpu.mig_devices.len()
            ),
            "With MIG mode on, CUDA programs run on MIG devices, each a slice of the GPU's compute and memory, \
             never on the whole GPU: torch sees a slice, with a fraction of the memory a training job was \
             sized for."
                .to_string(),
            Some(format!(
                "sudo nvidia-smi -i {index} -mig 0, then reset the GPU (sudo nvidia-smi --gpu-reset -i {index}) \
                 with nothing running on it; if the slices are intended, ignore this finding"
            )),
            vec![MIG_GUIDE.to_string()],
        ));
    }
    findings
}

fn gpu_readable(facts: &Facts) -> Vec<Finding> {
    let Some(nvidia) = &facts.snapshot.nvidia else {
        return Vec::new();
    };
    nvidia
        .unreadable_gpus
        .iter()
        .map(|gpu| {
            finding(
                UNREADABLE,
                Severity::Error,
                format!("NVML cannot read GPU {}", gpu.index),
                format!("NVML counts GPU {} but cannot read it: {}.", gpu.index, gpu.error),
                "A GPU NVML counts but cannot read has most often fallen off the bus (Xid 79) or hung; CUDA work on \
                 it fails, and a multi-GPU job waits on it until its collectives time out."
                    .to_string(),
                Some(format!(
                    "sudo dmesg | grep -i xid; nvidia-smi -q -i {}; reset the GPU or reboot the node, and reseat or \
                     replace it if it recurs",
                    gpu.index
                )),
                vec![XID.to_string()],
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin_checks::test_support::{healthy, ids, run};
    use crate::probe::cuda_devices;
    use crate::snapshot::Snapshot;
    use crate::snapshot::nvidia::{RemappedRows, Toggle, UnreadableGpu};

    fn gpu(snapshot: &mut Snapshot, index: usize) -> &mut Gpu {
        &mut snapshot.nvidia.as_mut().unwrap().gpus[index]
    }

    fn hide_all_but(snapshot: &mut Snapshot, visible: &str) {
        let gpus = &snapshot.nvidia.as_ref().unwrap().gpus;
        snapshot.cuda_devices = Some(cuda_devices::map(gpus, Some(visible), None));
    }

    #[test]
    fn uncorrectable_errors_in_this_boot_warn_and_lifetime_ones_inform() {
        let mut snapshot = healthy();
        gpu(&mut snapshot, 3).ecc_uncorrectable_volatile = Some(2);
        gpu(&mut snapshot, 3).ecc_uncorrectable_aggregate = Some(5);
        gpu(&mut snapshot, 4).ecc_uncorrectable_aggregate = Some(1);
        let findings = run(&snapshot, gpu_memory_health);
        assert_eq!(
            ids(&findings),
            [
                (ECC_UNCORRECTABLE, Severity::Warning),
                (ECC_UNCORRECTABLE, Severity::Info)
            ]
        );
        assert!(
            findings[0]
                .detail
                .starts_with("cuda:3 NVIDIA H100 80GB HBM3 (nvidia-smi GPU 3): 2 uncorrectable")
        );
        assert!(
            findings[0]
                .fix
                .as_deref()
                .unwrap()
                .contains("nvidia-smi --gpu-reset -i 3")
        );
    }

    #[test]
    fn pending_repairs_and_failed_remaps_need_the_gpu_reset_or_replaced() {
        let mut snapshot = healthy();
        gpu(&mut snapshot, 1).remapped_rows = Some(RemappedRows {
            correctable: 0,
            uncorrectable: 1,
            pending: true,
            failed: false,
        });
        gpu(&mut snapshot, 2).remapped_rows = Some(RemappedRows {
            correctable: 0,
            uncorrectable: 8,
            pending: false,
            failed: true,
        });
        gpu(&mut snapshot, 5).retired_pages_pending = Some(true);
        let findings = run(&snapshot, gpu_memory_health);
        assert_eq!(
            ids(&findings),
            [
                (REPAIR_PENDING, Severity::Warning),
                (REMAP_FAILED, Severity::Error),
                (REPAIR_PENDING, Severity::Error)
            ]
        );
        // The same failure on a GPU this job does not use is the node's, one level milder.
        hide_all_but(&mut snapshot, "0");
        let findings = run(&snapshot, gpu_memory_health);
        assert_eq!(findings[1].severity, Severity::Warning);
        assert!(
            findings[1]
                .title
                .starts_with("nvidia-smi GPU 2 NVIDIA H100 80GB HBM3 (not visible to CUDA here)")
        );
    }

    #[test]
    fn an_idle_link_below_its_generation_is_normal_but_a_narrow_one_is_not() {
        let mut snapshot = healthy();
        // GPU 0 is idle in the fixture (clock reason gpu_idle).
        gpu(&mut snapshot, 0).pcie.generation_current = Some(1);
        assert_eq!(run(&snapshot, gpu_pcie_link), []);
        gpu(&mut snapshot, 0).pcie.width_current = Some(8);
        let findings = run(&snapshot, gpu_pcie_link);
        assert_eq!(ids(&findings), [(PCIE_DEGRADED, Severity::Info)]);
        assert!(
            findings[0]
                .detail
                .contains(", idle: PCIe width x8 of x16, generation Gen1 of Gen5"),
            "{}",
            findings[0].detail
        );
        assert!(findings[0].fix.as_deref().unwrap().contains("lspci -vv -s 18:00.0"));
        // Under load the same link is a warning, and so is a slow generation alone.
        gpu(&mut snapshot, 0).clock_event_reasons = Some(Vec::new());
        assert_eq!(
            ids(&run(&snapshot, gpu_pcie_link)),
            [(PCIE_DEGRADED, Severity::Warning)]
        );
        gpu(&mut snapshot, 0).pcie.width_current = Some(16);
        assert_eq!(
            ids(&run(&snapshot, gpu_pcie_link)),
            [(PCIE_DEGRADED, Severity::Warning)]
        );
    }

    #[test]
    fn thermal_slowdown_warns_and_a_bare_hardware_flag_is_noted() {
        let mut snapshot = healthy();
        gpu(&mut snapshot, 2).clock_event_reasons = Some(vec!["sw_power_cap".to_string()]);
        assert_eq!(
            run(&snapshot, gpu_clock_slowdown),
            [],
            "a power cap under load is normal"
        );
        gpu(&mut snapshot, 2).clock_event_reasons = Some(vec!["hw_slowdown".to_string()]);
        assert_eq!(
            ids(&run(&snapshot, gpu_clock_slowdown)),
            [(CLOCKS_SLOWED, Severity::Info)]
        );
        gpu(&mut snapshot, 2).clock_event_reasons =
            Some(vec!["hw_slowdown".to_string(), "hw_thermal_slowdown".to_string()]);
        gpu(&mut snapshot, 2).temperature_celsius = Some(91);
        let findings = run(&snapshot, gpu_clock_slowdown);
        assert_eq!(ids(&findings), [(CLOCKS_SLOWED, Severity::Warning)]);
        assert!(
            findings[0]
                .detail
                .contains("hw_slowdown, hw_thermal_slowdown, at 91 C, power limit 700 W")
        );
    }

    #[test]
    fn mig_mode_on_is_a_warning() {
        let mut snapshot = healthy();
        gpu(&mut snapshot, 4).mig_mode = Some(Toggle {
            current: true,
            pending: true,
        });
        let findings = run(&snapshot, gpu_mig_mode);
        assert_eq!(ids(&findings), [(MIG_ENABLED, Severity::Warning)]);
        assert!(
            findings[0]
                .fix
                .as_deref()
                .unwrap()
                .starts_with("sudo nvidia-smi -i 4 -mig 0")
        );
    }

    #[test]
    fn a_gpu_nvml_cannot_read_is_an_error() {
        let mut snapshot = healthy();
        snapshot.nvidia.as_mut().unwrap().unreadable_gpus.push(UnreadableGpu {
            index: 6,
            error: "Unknown Error".to_string(),
        });
        let findings = run(&snapshot, gpu_readable);
        assert_eq!(ids(&findings), [(UNREADABLE, Severity::Error)]);
        assert!(findings[0].detail.contains("GPU 6 but cannot read it: Unknown Error"));
        snapshot.nvidia = None;
        assert_eq!(run(&snapshot, gpu_readable), []);
    }
}
