//! Facts from the training configuration files a job will use: a DeepSpeed
//! config (`--deepspeed-config`) and an accelerate config (`--accelerate-config`,
//! or accelerate's own default file). Rules can condition on these; a rule that
//! needs one that was not given speaks at a lower severity instead.

use std::path::PathBuf;

#[derive(Debug, Default)]
pub struct TrainingConfigs {
    pub deepspeed: Option<Loaded<DeepSpeedConfig>>,
    pub accelerate: Option<Loaded<AccelerateConfig>>,
}

#[derive(Debug)]
pub struct Loaded<T> {
    pub path: PathBuf,
    pub config: T,
}

/// The parts of a DeepSpeed config that known failures depend on. `None` is
/// "not stated" (or `"auto"`, which the HF integration fills in at run time).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DeepSpeedConfig {
    pub zero_stage: Option<u64>,
    /// `zero_optimization.offload_optimizer.device`: `cpu`, `nvme` or `none`.
    pub offload_optimizer_device: Option<String>,
    pub offload_param_device: Option<String>,
    pub bf16: Option<bool>,
    pub fp16: Option<bool>,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct AccelerateConfig {
    /// `NO`, `MULTI_GPU`, `DEEPSPEED`, `FSDP`, ...
    pub distributed_type: Option<String>,
    pub num_processes: Option<u64>,
    /// `no`, `fp16`, `bf16`, `fp8`.
    pub mixed_precision: Option<String>,
    /// The `deepspeed_config` block, when accelerate launches DeepSpeed itself.
    pub deepspeed: Option<DeepSpeedConfig>,
}

impl TrainingConfigs {
    /// DeepSpeed facts from `--deepspeed-config`, else from the accelerate
    /// config's own DeepSpeed block, with the file they came from.
    pub fn deepspeed(&self) -> Option<(&std::path::Path, &DeepSpeedConfig)> {
        if let Some(loaded) = &self.deepspeed {
            return Some((&loaded.path, &loaded.config));
        }
        let accelerate = self.accelerate.as_ref()?;
        Some((&accelerate.path, accelerate.config.deepspeed.as_ref()?))
    }
}
