//! Evaluates one rule against the facts. A condition on a training config that
//! was not given is neither true nor false: the rule still speaks, one severity
//! lower, and says which file would settle it.

use std::path::Path;

use super::rule::*;
use super::template;
use crate::configs::{AccelerateConfig, DeepSpeedConfig};
use crate::facts::{Facts, VisibleGpu};
use crate::findings::Finding;
use crate::knowledge::tables::Tables;
use crate::torch_install::{self, Prefer};

/// How a rule matched: the GPUs that satisfied it, the config it read, and
/// what was left unsettled.
struct Matched<'f, 'a> {
    gpus: Vec<&'f VisibleGpu<'a>>,
    config: Option<&'f Path>,
    unsettled: Vec<String>,
}

/// One condition of a `[when]`, judged on this node.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    /// `Some(true)` holds, `Some(false)` does not, `None` when what was given
    /// cannot settle it (a training config that was not passed, or leaves it "auto").
    pub holds: Option<bool>,
    /// The fact and the condition, in words: `deepspeed 0.14.2 is installed (>=0.14.1,<0.14.3)`.
    pub fact: String,
    #[serde(skip)]
    pub condition: Condition,
}

/// Which condition of a `[when]` a verdict is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Package(String),
    Python,
    Glibc,
    Driver,
    DriverCuda,
    TorchCuda,
    CudaToolkit,
    HostGcc,
    GpuCount,
    CompatLibcuda,
    AnyGpu,
    AllGpus,
    Env(String),
    Platform,
    DeepSpeedConfig,
    AccelerateConfig,
}

/// A verdict and what the finding's message needs from it.
struct Judged<'f, 'a> {
    verdict: Verdict,
    gpus: Option<Vec<&'f VisibleGpu<'a>>>,
    config: Option<&'f Path>,
}

impl<'f, 'a> Judged<'f, 'a> {
    fn new(condition: Condition, holds: bool, fact: String) -> Self {
        Judged {
            verdict: Verdict {
                holds: Some(holds),
                fact,
                condition,
            },
            gpus: None,
            config: None,
        }
    }
}

/// The finding `rule` raises on this node, if it matches; its fix computed
/// with `tables` (the matrix's). Withdrawn rules never do.
pub fn evaluate(rule: &Rule, facts: &Facts, tables: &Tables) -> Option<Finding> {
    if rule.withdrawn.is_some() {
        return None;
    }
    let matched = matches(&rule.when, facts)?;
    let mut detail = template::render(&rule.message, facts, &matched.gpus, matched.config);
    let unsettled = (!matched.unsettled.is_empty()).then(|| matched.unsettled.join("; "));
    let mut severity = rule.severity;
    if let Some(unsettled) = &unsettled {
        severity = severity.lowered();
        detail.push_str(&format!(" Not settled: {unsettled}."));
    }
    let (fix, fix_note) = fix(rule, facts, tables);
    Some(Finding {
        id: rule.id.clone(),
        origin: rule.id.clone(),
        severity,
        title: rule.title.clone(),
        detail,
        why: rule.why.clone(),
        fix: Some(fix),
        fix_note,
        references: rule.references.clone(),
        unsettled,
    })
}

/// The rule's fix and its note; for one that changes torch, the command made
/// for this node, and what that build is.
fn fix(rule: &Rule, facts: &Facts, tables: &Tables) -> (String, Option<String>) {
    let written = (rule.fix.clone(), rule.fix_note.clone());
    let Some(torch_fix) = &rule.fix_torch else {
        return written;
    };
    let needed = torch_install::visible_capabilities(facts, tables);
    match torch_install::choose(
        facts,
        tables,
        &needed,
        &|version| torch_fix.allows(version),
        Prefer::Lowest,
    ) {
        Some(install) => (install.command.clone(), Some(install.note())),
        None => written,
    }
}

/// Every condition of `when`, judged on this node, in the order the format lists them.
pub fn assess(when: &When, facts: &Facts) -> Vec<Verdict> {
    judge(when, facts).into_iter().map(|judged| judged.verdict).collect()
}

fn matches<'f, 'a>(when: &When, facts: &'f Facts<'a>) -> Option<Matched<'f, 'a>> {
    let mut matched = Matched {
        gpus: Vec::new(),
        config: None,
        unsettled: Vec::new(),
    };
    for judged in judge(when, facts) {
        match judged.verdict.holds {
            Some(false) => return None,
            Some(true) => {}
            None => matched.unsettled.push(judged.verdict.fact),
        }
        if let Some(gpus) = judged.gpus {
            matched.gpus = gpus;
        }
        matched.config = judged.config.or(matched.config);
    }
    Some(matched)
}

fn judge<'f, 'a>(when: &When, facts: &'f Facts<'a>) -> Vec<Judged<'f, 'a>> {
    let mut judged = Vec::new();
    for (name, condition) in &when.packages {
        if let Some(other_copy) = facts.other_copy(name) {
            judged.push(unsettled(Condition::Package(name.clone()), other_copy.to_string()));
            continue;
        }
        let installed = facts.is_installed(name);
        let presence = if installed { "installed" } else { "not installed" };
        let (holds, fact) = match (condition, facts.package_version(name)) {
            (PackageCondition::Installed, Some(version)) => (true, format!("{name} {version} is installed")),
            (PackageCondition::Installed, None) => (installed, format!("{name} is {presence}")),
            (PackageCondition::Absent, _) => (!installed, format!("{name} is {presence}")),
            (PackageCondition::Version(spec), Some(version)) => {
                let relation = |holds: bool| if holds { "within" } else { "outside" };
                match spec.contains_either_way(&version) {
                    Err((holds, release)) if !when.pre_releases_ordered => {
                        let fact = format!(
                            "{name} {version} is installed, a pre-release of {release}: {} {} by version order, {} it as the release it previews (which the rule means is not decided)",
                            relation(holds),
                            spec.text,
                            relation(!holds)
                        );
                        judged.push(unsettled(Condition::Package(name.clone()), fact));
                        continue;
                    }
                    Ok(holds) | Err((holds, _)) => (
                        holds,
                        format!("{name} {version} is installed, {} {}", relation(holds), spec.text),
                    ),
                }
            }
            (PackageCondition::Version(spec), None) if installed => {
                let fact = format!("{name} is installed but its version is unknown (needs {})", spec.text);
                judged.push(unsettled(Condition::Package(name.clone()), fact));
                continue;
            }
            (PackageCondition::Version(spec), None) => {
                (false, format!("{name} is not installed (needs {})", spec.text))
            }
        };
        judged.push(Judged::new(Condition::Package(name.clone()), holds, fact));
    }
    // Each version with the text to show: a driver as the node wrote it
    // (`580.65.06`), the rest as parsed.
    let shown =
        |version: &Option<pep440_rs::Version>| version.as_ref().map(|version| (version.clone(), version.to_string()));
    let driver = facts
        .driver
        .as_ref()
        .map(|driver| (driver.version.clone(), driver.text.clone()));
    let versions: [(Condition, &str, &Option<Spec>, Option<Shown>); 6] = [
        (Condition::Python, "Python", &when.python, shown(&facts.python_version)),
        (Condition::Glibc, "glibc", &when.glibc, shown(&facts.glibc)),
        (
            Condition::HostGcc,
            "the GCC a CUDA extension build would use",
            &when.host_gcc,
            shown(&facts.host_gcc),
        ),
        (Condition::Driver, "the NVIDIA driver", &when.driver, driver),
        (
            Condition::DriverCuda,
            "the driver's CUDA",
            &when.driver_cuda,
            shown(&facts.driver_cuda),
        ),
        (
            Condition::TorchCuda,
            "torch's CUDA",
            &when.torch_cuda,
            shown(&facts.torch_cuda),
        ),
    ];
    for (condition, what, spec, version) in versions {
        if let Some(spec) = spec {
            judged.push(version_verdict(condition, what, spec, version.as_ref()));
        }
    }
    if let Some(spec) = &when.cuda_toolkit {
        // The toolkit a build would use, not any toolkit left on disk.
        let active = shown(&facts.active_toolkit_version());
        judged.push(version_verdict(
            Condition::CudaToolkit,
            "the CUDA toolkit",
            spec,
            active.as_ref(),
        ));
    }
    if let Some(spec) = &when.gpu_count {
        let count = facts.gpus.len();
        judged.push(Judged::new(
            Condition::GpuCount,
            spec.contains_number(count as u64),
            format!("{count} GPU(s) visible (needs {})", spec.text),
        ));
    }
    if let Some(wanted) = when.compat_libcuda_newer_than_driver {
        let (newer, fact) = match (&facts.compat_libcuda, &facts.driver) {
            (Some(compat), Some(driver)) if *compat > driver.version => (
                true,
                format!("a forward-compatibility libcuda {compat} is newer than the driver {driver}"),
            ),
            (Some(compat), Some(driver)) => (
                false,
                format!("the forward-compatibility libcuda {compat} is not newer than the driver {driver}"),
            ),
            (Some(compat), None) => (
                false,
                format!("a forward-compatibility libcuda {compat}, and no driver"),
            ),
            (None, _) => (false, "no forward-compatibility libcuda was found".to_string()),
        };
        judged.push(Judged::new(Condition::CompatLibcuda, newer == wanted, fact));
    }
    if let Some(condition) = &when.any_gpu {
        let satisfying: Vec<_> = facts.gpus.iter().filter(|gpu| gpu_holds(condition, gpu)).collect();
        let fact = match satisfying.first() {
            Some(gpu) => format!("{} is {}", gpu.describe(), describe_gpu(condition)),
            None => format!("no visible GPU is {}", describe_gpu(condition)),
        };
        let mut verdict = Judged::new(Condition::AnyGpu, !satisfying.is_empty(), fact);
        verdict.gpus = Some(satisfying);
        judged.push(verdict);
    }
    if let Some(condition) = &when.all_gpus {
        let holds = !facts.gpus.is_empty() && facts.gpus.iter().all(|gpu| gpu_holds(condition, gpu));
        let fact = match facts.gpus.iter().find(|gpu| !gpu_holds(condition, gpu)) {
            _ if facts.gpus.is_empty() => "no GPU is visible".to_string(),
            None => format!("every visible GPU is {}", describe_gpu(condition)),
            Some(gpu) => format!("{} is not {}", gpu.describe(), describe_gpu(condition)),
        };
        let mut verdict = Judged::new(Condition::AllGpus, holds, fact);
        verdict.gpus = Some(facts.gpus.iter().collect());
        judged.push(verdict);
    }
    for (name, condition) in &when.env {
        let value = facts.env(name);
        let holds = match condition {
            // Empty counts as unset, as the tools reading these variables treat it
            // (bitsandbytes: `if override_value:`; shells: `${VAR:+...}`).
            EnvCondition::Set(set) => value.is_some_and(|value| !value.is_empty()) == *set,
            EnvCondition::Equals(expected) => value == Some(expected.as_str()),
            EnvCondition::Differs(other) => value != Some(other.as_str()),
            EnvCondition::Contains(text) => value.is_some_and(|value| value.contains(text.as_str())),
        };
        let fact = match value {
            Some(value) => format!("{name}={value}"),
            None => format!("{name} is unset"),
        };
        judged.push(Judged::new(Condition::Env(name.clone()), holds, fact));
    }
    if let Some(platform) = &when.platform {
        let system = &facts.snapshot.system;
        let listed = |list: &[String], value: Option<&str>| {
            list.is_empty() || value.is_some_and(|value| list.iter().any(|item| item == value))
        };
        let holds =
            listed(&platform.machine, Some(&system.architecture)) && listed(&platform.os_id, system.os_id.as_deref());
        // An OS not known is left out, not printed as a word of its own ("unknown aarch64").
        let fact = match system.os_id.as_deref() {
            Some(os) => format!("the platform is {os} {}", system.architecture),
            None => format!("the platform is {} (its OS not known)", system.architecture),
        };
        judged.push(Judged::new(Condition::Platform, holds, fact));
    }
    if let Some(condition) = &when.deepspeed_config {
        let wanted = describe_deepspeed(condition);
        judged.push(match facts.configs.deepspeed() {
            Some((path, config)) => {
                let mut unsettled = Vec::new();
                let holds = deepspeed_holds(condition, config, path, &mut unsettled);
                config_verdict(Condition::DeepSpeedConfig, path, holds, unsettled, &wanted)
            }
            None => unsettled(
                Condition::DeepSpeedConfig,
                format!(
                    "no DeepSpeed config was given; pass --deepspeed-config FILE to know whether the job uses {wanted}"
                ),
            ),
        });
    }
    if let Some(condition) = &when.accelerate_config {
        let wanted = describe_accelerate(condition);
        judged.push(match &facts.configs.accelerate {
            Some(loaded) => {
                let mut unsettled = Vec::new();
                let holds = accelerate_holds(condition, &loaded.config, &loaded.path, &mut unsettled);
                config_verdict(Condition::AccelerateConfig, &loaded.path, holds, unsettled, &wanted)
            }
            None => unsettled(Condition::AccelerateConfig, format!(
                "no accelerate config was given; pass --accelerate-config FILE to know whether the job uses {wanted}"
            )),
        });
    }
    judged
}

/// A version and the text to show for it.
type Shown = (pep440_rs::Version, String);

fn version_verdict<'f, 'a>(condition: Condition, what: &str, spec: &Spec, version: Option<&Shown>) -> Judged<'f, 'a> {
    match version {
        Some((version, shown)) => Judged::new(
            condition,
            spec.contains(version),
            format!("{what} is {shown} (needs {})", spec.text),
        ),
        None => Judged::new(
            condition,
            false,
            format!("{what} is unknown or absent (needs {})", spec.text),
        ),
    }
}

fn unsettled<'f, 'a>(condition: Condition, fact: String) -> Judged<'f, 'a> {
    Judged {
        verdict: Verdict {
            holds: None,
            fact,
            condition,
        },
        gpus: None,
        config: None,
    }
}

fn config_verdict<'f, 'a>(
    condition: Condition,
    path: &'f Path,
    holds: Option<()>,
    unsettled: Vec<String>,
    wanted: &str,
) -> Judged<'f, 'a> {
    let file = path.display();
    let (holds, fact) = match holds {
        None => (Some(false), format!("`{file}` does not use {wanted}")),
        Some(()) if unsettled.is_empty() => (Some(true), format!("`{file}` uses {wanted}")),
        Some(()) => (None, unsettled.join("; ")),
    };
    Judged {
        verdict: Verdict { holds, fact, condition },
        gpus: None,
        config: Some(path),
    }
}

fn describe_gpu(condition: &GpuCondition) -> String {
    let mut parts = Vec::new();
    if let Some(spec) = &condition.compute_capability {
        parts.push(format!("compute capability {}", spec.text));
    }
    if !condition.name.is_empty() {
        parts.push(format!("named like {}", condition.name.join(" or ")));
    }
    if let Some(spec) = &condition.memory_mib {
        parts.push(format!("{} MiB of memory", spec.text));
    }
    parts.join(", ")
}

fn gpu_holds(condition: &GpuCondition, gpu: &VisibleGpu) -> bool {
    let capability_holds = condition.compute_capability.as_ref().is_none_or(|spec| {
        gpu.compute_capability
            .as_ref()
            .is_some_and(|capability| spec.contains(capability))
    });
    let name_holds = condition.name.is_empty()
        || gpu.gpu.name.as_deref().is_some_and(|name| {
            let name = name.to_lowercase();
            condition.name.iter().any(|part| name.contains(&part.to_lowercase()))
        });
    let memory_holds = condition.memory_mib.as_ref().is_none_or(|spec| {
        gpu.gpu
            .memory_total_mib
            .is_some_and(|memory| spec.contains_number(memory))
    });
    capability_holds && name_holds && memory_holds
}

/// One config condition: `Some(true)` holds, `Some(false)` does not, `None`
/// when the file leaves the value open (`"auto"`, filled in at run time).
fn config_fact<T: PartialEq>(allowed: &[T], actual: Option<&T>) -> Option<bool> {
    if allowed.is_empty() {
        return Some(true);
    }
    actual.map(|actual| allowed.contains(actual))
}

/// Applies one config fact: a definite "no" ends the match (`None`); an open
/// value is recorded as unsettled.
fn settle(fact: Option<bool>, path: &Path, key: &str, unsettled: &mut Vec<String>) -> Option<()> {
    match fact {
        Some(true) => Some(()),
        Some(false) => None,
        None => {
            unsettled.push(format!(
                "`{}` leaves `{key}` to be decided at run time (\"auto\")",
                path.display()
            ));
            Some(())
        }
    }
}

fn deepspeed_holds(
    condition: &DeepSpeedCondition,
    config: &DeepSpeedConfig,
    path: &Path,
    unsettled: &mut Vec<String>,
) -> Option<()> {
    settle(
        config_fact(&condition.zero_stage, config.zero_stage.as_ref()),
        path,
        "zero_optimization.stage",
        unsettled,
    )?;
    let optimizer = config_fact(
        &condition.offload_optimizer_device,
        config.offload_optimizer_device.as_ref(),
    );
    settle(optimizer, path, "zero_optimization.offload_optimizer.device", unsettled)?;
    let param = config_fact(&condition.offload_param_device, config.offload_param_device.as_ref());
    settle(param, path, "zero_optimization.offload_param.device", unsettled)?;
    let flag = |wanted: Option<bool>, actual: Option<bool>| match wanted {
        None => Some(true),
        Some(wanted) => actual.map(|actual| actual == wanted),
    };
    settle(flag(condition.bf16, config.bf16), path, "bf16.enabled", unsettled)?;
    settle(flag(condition.fp16, config.fp16), path, "fp16.enabled", unsettled)
}

fn accelerate_holds(
    condition: &AccelerateCondition,
    config: &AccelerateConfig,
    path: &Path,
    unsettled: &mut Vec<String>,
) -> Option<()> {
    let distributed = config_fact(&condition.distributed_type, config.distributed_type.as_ref());
    settle(distributed, path, "distributed_type", unsettled)?;
    let processes = match &condition.num_processes {
        None => Some(true),
        Some(spec) => config.num_processes.map(|count| spec.contains_number(count)),
    };
    settle(processes, path, "num_processes", unsettled)?;
    let precision = config_fact(&condition.mixed_precision, config.mixed_precision.as_ref());
    settle(precision, path, "mixed_precision", unsettled)
}

fn describe_deepspeed(condition: &DeepSpeedCondition) -> String {
    let mut parts = Vec::new();
    if !condition.zero_stage.is_empty() {
        let stages: Vec<_> = condition.zero_stage.iter().map(u64::to_string).collect();
        parts.push(format!("ZeRO stage {}", stages.join(" or ")));
    }
    if !condition.offload_optimizer_device.is_empty() {
        parts.push(format!(
            "optimizer offload to {}",
            condition.offload_optimizer_device.join(" or ")
        ));
    }
    if !condition.offload_param_device.is_empty() {
        parts.push(format!(
            "parameter offload to {}",
            condition.offload_param_device.join(" or ")
        ));
    }
    for (name, wanted) in [("bf16", condition.bf16), ("fp16", condition.fp16)] {
        if let Some(wanted) = wanted {
            parts.push(format!("{name} {}", if wanted { "enabled" } else { "disabled" }));
        }
    }
    parts.join(" with ")
}

fn describe_accelerate(condition: &AccelerateCondition) -> String {
    let mut parts = Vec::new();
    if !condition.distributed_type.is_empty() {
        parts.push(format!("distributed_type {}", condition.distributed_type.join(" or ")));
    }
    if let Some(spec) = &condition.num_processes {
        parts.push(format!("num_processes {}", spec.text));
    }
    if !condition.mixed_precision.is_empty() {
        parts.push(format!("mixed_precision {}", condition.mixed_precision.join(" or ")));
    }
    parts.join(" with ")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::configs::{Loaded, TrainingConfigs};
    use crate::findings::Severity;
    use crate::snapshot::Snapshot;

    const H100: &str = include_str!("../../tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json");

    fn rule(text: &str) -> Rule {
        super::super::parse::rule(Path::new("t.toml"), text, "t").unwrap_or_else(|errors| panic!("{errors:?}"))
    }

    fn rule_with(when: &str) -> Rule {
        let message = if when.contains("gpu") {
            "torch {package.torch} on {gpus}"
        } else {
            "torch {package.torch}"
        };
        rule(&format!(
            "id = \"t\"\ntitle = \"T\"\nseverity = \"error\"\nmessage = \"{message}\"\n\
             why = \"w\"\nfix = \"f\"\nreferences = [\"https://example.org\"]\nchecked = \"2026-11-21\"\n[when]\n{when}\n"
        ))
    }

    fn h100() -> Snapshot {
        serde_json::from_str(H100).unwrap()
    }

    fn evaluate_on(rule: &Rule, snapshot: &Snapshot, configs: &TrainingConfigs) -> Option<Finding> {
        let tables = crate::matrix::builtin_tables().unwrap();
        evaluate(rule, &Facts::new(snapshot, configs), &tables)
    }

    #[test]
    fn versions_and_gpus_match_and_fill_the_message() {
        let snapshot = h100();
        let configs = TrainingConfigs::default();
        let fires =
            rule_with("packages = { torch = \"<2.4\" }\nany_gpu = { compute_capability = \">=9.0\", name = \"h100\" }");
        let finding = evaluate_on(&fires, &snapshot, &configs).expect("torch 2.3.1 on H100s");
        assert_eq!(finding.severity, Severity::Error);
        assert!(
            finding.detail.starts_with("torch 2.3.1 on cuda:0 "),
            "{}",
            finding.detail
        );
        let quiet = rule_with("packages = { torch = \">=2.4\" }\nany_gpu = { compute_capability = \">=9.0\" }");
        assert!(evaluate_on(&quiet, &snapshot, &configs).is_none());
        let no_such_gpu = rule_with("any_gpu = { name = [\"T4\", \"V100\"] }");
        assert!(evaluate_on(&no_such_gpu, &snapshot, &configs).is_none());
    }

    #[test]
    fn a_pre_release_its_release_would_judge_otherwise_is_not_decided() {
        let mut snapshot = h100();
        for package in snapshot.packages.iter_mut().filter(|package| package.name == "torch") {
            package.version = Some("2.4.0rc1".into());
        }
        let configs = TrainingConfigs::default();
        // Below 2.4 by order, 2.4 as the release it previews: either way the rule is listed, lowered.
        for bound in ["<2.4", ">=2.4"] {
            let finding = evaluate_on(
                &rule_with(&format!("packages = {{ torch = \"{bound}\" }}")),
                &snapshot,
                &configs,
            )
            .unwrap_or_else(|| panic!("{bound} is not decided for 2.4.0rc1"));
            assert_eq!(finding.severity, Severity::Warning, "{bound}");
            let unsettled = finding.unsettled.unwrap_or_default();
            assert!(unsettled.contains("a pre-release of 2.4.0"), "{bound}: {unsettled}");
        }
        // Both agree, or the rule is about a version test: judged as before.
        assert!(evaluate_on(&rule_with("packages = { torch = \"<2.3\" }"), &snapshot, &configs).is_none());
        let ordered = rule_with("packages = { torch = \"<2.4\" }\npre_releases_ordered = true");
        let finding = evaluate_on(&ordered, &snapshot, &configs).unwrap();
        assert_eq!((finding.severity, finding.unsettled), (Severity::Error, None));
        let ordered_above = rule_with("packages = { torch = \">=2.4\" }\npre_releases_ordered = true");
        assert!(evaluate_on(&ordered_above, &snapshot, &configs).is_none());
    }

    #[test]
    fn env_differs_holds_when_unset() {
        let snapshot = h100();
        let configs = TrainingConfigs::default();
        let differs = rule_with("env = { CUDA_DEVICE_ORDER = { differs = \"PCI_BUS_ID\" } }");
        assert!(evaluate_on(&differs, &snapshot, &configs).is_some());
        let set = rule_with("env = { NCCL_DEBUG = { equals = \"WARN\" } }");
        assert!(evaluate_on(&set, &snapshot, &configs).is_some());
        let unset = rule_with("env = { NCCL_DEBUG = { set = false } }");
        assert!(evaluate_on(&unset, &snapshot, &configs).is_none());
    }

    #[test]
    fn a_missing_config_lowers_the_severity_and_names_the_flag() {
        let snapshot = h100();
        let rule = rule_with("packages = { torch = \"*\" }\ndeepspeed_config = { zero_stage = [3] }");
        let finding = evaluate_on(&rule, &snapshot, &TrainingConfigs::default()).expect("still speaks");
        assert_eq!(finding.severity, Severity::Warning);
        assert!(finding.unsettled.as_deref().unwrap().contains("--deepspeed-config"));

        let with = |stage| TrainingConfigs {
            deepspeed: Some(Loaded {
                path: "ds.json".into(),
                config: DeepSpeedConfig {
                    zero_stage: stage,
                    ..DeepSpeedConfig::default()
                },
            }),
            accelerate: None,
        };
        let settled = evaluate_on(&rule, &snapshot, &with(Some(3))).expect("stage 3");
        assert_eq!((settled.severity, settled.unsettled), (Severity::Error, None));
        assert!(evaluate_on(&rule, &snapshot, &with(Some(2))).is_none());
        let open = evaluate_on(&rule, &snapshot, &with(None)).expect("auto stays open");
        assert_eq!(open.severity, Severity::Warning);
    }

    #[test]
    fn withdrawn_rules_never_fire() {
        let mut rule = rule_with("packages = { torch = \"*\" }");
        rule.withdrawn = Some("wrong".into());
        assert!(evaluate_on(&rule, &h100(), &TrainingConfigs::default()).is_none());
    }

    #[test]
    fn installed_versions_compare_as_the_frameworks_compare_them() {
        let spec = |text: &str| Spec {
            text: text.into(),
            specifiers: text.parse().unwrap(),
        };
        let version = |text: &str| text.parse::<pep440_rs::Version>().unwrap();
        // transformers disables an NVIDIA container's torch 2.6.0a0 as "below 2.6".
        assert!(spec("<2.6").contains(&version("2.6.0a0+ecf3bae40a.nv25.01")));
        assert!(!spec("<2.6").contains(&version("2.6.0+cu126")));
        // Local build labels never move a version across a bound.
        assert!(spec("<=0.14.2").contains(&version("0.14.2+cu121")));
        assert!(!spec(">0.14.2").contains(&version("0.14.2+cu121")));
        assert!(spec(">=0.14.1,<0.14.3").contains(&version("0.14.2")));
        assert!(spec("==2.7.*").contains(&version("2.7.1+cu128")));
    }

    #[test]
    fn an_empty_variable_is_not_set() {
        let mut snapshot = h100();
        snapshot.env.insert("BNB_CUDA_VERSION".into(), String::new());
        let configs = TrainingConfigs::default();
        let set = rule_with("env = { BNB_CUDA_VERSION = { set = true } }");
        assert!(evaluate_on(&set, &snapshot, &configs).is_none());
        snapshot.env.insert("BNB_CUDA_VERSION".into(), "124".into());
        assert!(evaluate_on(&set, &snapshot, &configs).is_some());
    }
}
