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
    /// The whole config as DeepSpeed receives it (an accelerate block turned
    /// into one as accelerate turns it), for the smoke test to run.
    pub document: Value,
}

/// The job's DeepSpeed config as the smoke test runs it: where it came from,
/// in words, and the JSON DeepSpeed would be given.
#[derive(Debug, Clone, PartialEq)]
pub struct JobDeepSpeed {
    pub source: String,
    pub document: Value,
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
    /// The `deepspeed_config_file` the block names, read as `deepspeed`.
    pub deepspeed_file: Option<PathBuf>,
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

    /// The DeepSpeed config the job runs, as the smoke test's ZeRO step takes it.
    pub fn job_deepspeed(&self) -> Option<JobDeepSpeed> {
        if let Some(loaded) = &self.deepspeed {
            return Some(JobDeepSpeed {
                source: loaded.path.display().to_string(),
                document: loaded.config.document.clone(),
            });
        }
        let accelerate = self.accelerate.as_ref()?;
        // accelerate reads its DeepSpeed block only when it launches DeepSpeed.
        let launches_deepspeed = accelerate
            .config
            .distributed_type
            .as_deref()
            .is_none_or(|kind| kind.eq_ignore_ascii_case("DEEPSPEED"));
        let deepspeed = accelerate.config.deepspeed.as_ref().filter(|_| launches_deepspeed)?;
        let source = match &accelerate.config.deepspeed_file {
            Some(file) => format!("{}, named by {}", file.display(), accelerate.path.display()),
            None => format!("the deepspeed_config block of {}", accelerate.path.display()),
        };
        Some(JobDeepSpeed {
            source,
            document: deepspeed.document.clone(),
        })
    }
}

mod yaml;

use serde_json::Value;

use crate::located::Located;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config `{}`", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Malformed(#[from] Located),
}

/// Reads a DeepSpeed config (JSON, as `deepspeed --deepspeed_config` and the HF
/// Trainer take it).
pub fn read_deepspeed(path: &std::path::Path) -> Result<Loaded<DeepSpeedConfig>, ConfigError> {
    let value = read_json(path)?;
    let config = deepspeed_from(&value).map_err(|problem| Located::at(path, 1, 1, problem))?;
    Ok(Loaded {
        path: path.to_path_buf(),
        config,
    })
}

/// Reads an accelerate config, YAML or JSON as accelerate itself chooses by
/// extension. A `deepspeed_config_file` it names is read as the DeepSpeed config.
pub fn read_accelerate(path: &std::path::Path) -> Result<Loaded<AccelerateConfig>, ConfigError> {
    let value = if path.extension().is_some_and(|extension| extension == "json") {
        read_json(path)?
    } else {
        let text = read_text(path)?;
        yaml::parse(&text).map_err(|error| Located::at(path, error.line, 1, error.problem))?
    };
    let Some(map) = value.as_object() else {
        return Err(Located::at(path, 1, 1, "an accelerate config must be a mapping").into());
    };
    let text = |key: &str| map.get(key).and_then(scalar_text);
    let block = map.get("deepspeed_config").and_then(Value::as_object);
    let file = block
        .and_then(|block| block.get("deepspeed_config_file"))
        .and_then(Value::as_str)
        .filter(|file| !file.is_empty())
        .map(|file| path.parent().unwrap_or(std::path::Path::new(".")).join(file));
    let deepspeed = match &file {
        Some(file) => Some(read_deepspeed(file)?.config),
        None => block.map(|block| {
            let mixed_precision = text("mixed_precision");
            DeepSpeedConfig {
                zero_stage: block.get("zero_stage").and_then(integer),
                offload_optimizer_device: Some(device(block.get("offload_optimizer_device"))),
                offload_param_device: Some(device(block.get("offload_param_device"))),
                // accelerate sets DeepSpeed's precision from its own mixed_precision.
                bf16: mixed_precision.as_deref().map(|precision| precision == "bf16"),
                fp16: mixed_precision.as_deref().map(|precision| precision == "fp16"),
                document: deepspeed_from_accelerate_block(block, mixed_precision.as_deref()),
            }
        }),
    };
    let config = AccelerateConfig {
        distributed_type: text("distributed_type"),
        num_processes: map.get("num_processes").and_then(integer),
        mixed_precision: text("mixed_precision"),
        deepspeed,
        deepspeed_file: file,
    };
    Ok(Loaded {
        path: path.to_path_buf(),
        config,
    })
}

/// Where `accelerate launch` looks when given no `--config_file`
/// (accelerate/commands/config/config_args.py): the YAML file under
/// `$HF_HOME/accelerate` (default `~/.cache/huggingface`), unless only the JSON one exists.
pub fn default_accelerate_path(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let hf_home = match env("HF_HOME") {
        Some(home) => PathBuf::from(home),
        None => {
            let cache = match env("XDG_CACHE_HOME") {
                Some(cache) => PathBuf::from(cache),
                None => PathBuf::from(env("HOME")?).join(".cache"),
            };
            cache.join("huggingface")
        }
    };
    let directory = hf_home.join("accelerate");
    let yaml = directory.join("default_config.yaml");
    let json = directory.join("default_config.json");
    if yaml.is_file() {
        Some(yaml)
    } else if json.is_file() {
        Some(json)
    } else {
        None
    }
}

/// The DeepSpeed config accelerate builds from its `deepspeed_config` block
/// when it names no file (accelerate `utils/dataclasses.py`, `DeepSpeedPlugin`
/// `__post_init__` and `set_mixed_precision`; `Accelerator._prepare_deepspeed`):
/// batch sizes left "auto" for the training script, the block's stage (default
/// 2), offload devices, accumulation and clipping (1.0 when absent), and bf16
/// (also for fp8) or fp16 with auto_cast from `mixed_precision`.
fn deepspeed_from_accelerate_block(block: &serde_json::Map<String, Value>, mixed_precision: Option<&str>) -> Value {
    let number = |key: &str| block.get(key).filter(|value| value.is_number()).cloned();
    let mut zero = serde_json::Map::new();
    zero.insert(
        "stage".into(),
        block
            .get("zero_stage")
            .and_then(integer)
            .map_or(Value::from(2), Value::from),
    );
    for (key, block_key) in [
        ("offload_optimizer", "offload_optimizer_device"),
        ("offload_param", "offload_param_device"),
    ] {
        zero.insert(
            key.into(),
            serde_json::json!({ "device": device(block.get(block_key)) }),
        );
    }
    let mut config = serde_json::Map::new();
    config.insert("train_batch_size".into(), "auto".into());
    config.insert("train_micro_batch_size_per_gpu".into(), "auto".into());
    config.insert(
        "gradient_accumulation_steps".into(),
        number("gradient_accumulation_steps").unwrap_or(Value::from(1)),
    );
    config.insert("zero_optimization".into(), Value::Object(zero));
    // Absent, accelerate leaves it "auto" and its Accelerator fills 1.0.
    config.insert(
        "gradient_clipping".into(),
        number("gradient_clipping").unwrap_or(Value::from(1.0)),
    );
    match mixed_precision {
        Some("bf16" | "fp8") => {
            config.insert("bf16".into(), serde_json::json!({"enabled": true}));
        }
        Some("fp16") => {
            config.insert("fp16".into(), serde_json::json!({"enabled": true, "auto_cast": true}));
        }
        _ => {}
    }
    Value::Object(config)
}

fn deepspeed_from(value: &Value) -> Result<DeepSpeedConfig, String> {
    let Some(map) = value.as_object() else {
        return Err("a DeepSpeed config must be a JSON object".to_string());
    };
    let zero = map.get("zero_optimization");
    let zero_map = zero.and_then(Value::as_object);
    // DeepSpeed's defaults: no zero_optimization block is stage 0, no offload block is no offload.
    let zero_stage = match zero_map.and_then(|zero| zero.get("stage")) {
        None => Some(0),
        Some(stage) => integer(stage),
    };
    let offload = |block: &str, legacy: &str| {
        let zero = zero_map?;
        if let Some(offload) = zero.get(block) {
            return Some(device(offload.get("device")));
        }
        // DeepSpeed before 0.3.x: `cpu_offload: true` and `cpu_offload_params: true`.
        match zero.get(legacy).and_then(Value::as_bool) {
            Some(true) => Some("cpu".to_string()),
            _ => Some("none".to_string()),
        }
    };
    let enabled = |keys: &[&str]| {
        let block = keys.iter().find_map(|key| map.get(*key));
        match block.and_then(|block| block.get("enabled")) {
            // DeepSpeed's default for a missing block or a missing `enabled` is off.
            None => Some(false),
            Some(Value::Bool(enabled)) => Some(*enabled),
            Some(_) => None, // "auto": the HF Trainer decides from its own arguments.
        }
    };
    Ok(DeepSpeedConfig {
        zero_stage,
        offload_optimizer_device: offload("offload_optimizer", "cpu_offload").or(Some("none".into())),
        offload_param_device: offload("offload_param", "cpu_offload_params").or(Some("none".into())),
        bf16: enabled(&["bf16", "bfloat16"]),
        fp16: enabled(&["fp16"]),
        document: value.clone(),
    })
}

/// An offload device as written, `none` when absent.
fn device(value: Option<&Value>) -> String {
    value
        .and_then(scalar_text)
        .map_or_else(|| "none".to_string(), |device| device.to_lowercase())
}

fn integer(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => text.parse().ok(),
        _ => None,
    }
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

pub(crate) fn read_text(path: &std::path::Path) -> Result<String, ConfigError> {
    let bytes = crate::bounded_read::read(path, crate::bounded_read::DOCUMENT_LIMIT).map_err(|source| {
        ConfigError::Unreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(String::from_utf8(bytes).map_err(|_| Located::at(path, 1, 1, "not UTF-8"))?)
}

fn read_json(path: &std::path::Path) -> Result<Value, ConfigError> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|error| {
        let problem = format!("not JSON: {}", crate::located::without_position(&error));
        ConfigError::from(Located::at(path, error.line(), error.column(), problem))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deepspeed_zero3_with_cpu_offload() {
        let config = deepspeed_from(&json!({
            "bf16": {"enabled": "auto"},
            "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true},
                                   "offload_param": {"device": "cpu"}}
        }))
        .unwrap();
        assert_eq!(config.zero_stage, Some(3));
        assert_eq!(config.offload_optimizer_device.as_deref(), Some("cpu"));
        assert_eq!(config.offload_param_device.as_deref(), Some("cpu"));
        assert_eq!(config.bf16, None, "auto is decided at run time");
        assert_eq!(config.fp16, Some(false));
    }

    #[test]
    fn deepspeed_defaults_are_stage_0_and_no_offload() {
        let config = deepspeed_from(&json!({"train_batch_size": 8})).unwrap();
        assert_eq!(config.zero_stage, Some(0));
        assert_eq!(config.offload_optimizer_device.as_deref(), Some("none"));
        let legacy = deepspeed_from(&json!({"zero_optimization": {"stage": 2, "cpu_offload": true}})).unwrap();
        assert_eq!(legacy.offload_optimizer_device.as_deref(), Some("cpu"));
    }

    #[test]
    fn default_accelerate_path_follows_hf_home() {
        let home = tempfile::tempdir().unwrap();
        let env = |name: &str| (name == "HF_HOME").then(|| home.path().display().to_string());
        assert_eq!(default_accelerate_path(env), None);
        std::fs::create_dir_all(home.path().join("accelerate")).unwrap();
        std::fs::write(home.path().join("accelerate/default_config.json"), "{}").unwrap();
        assert_eq!(
            default_accelerate_path(env),
            Some(home.path().join("accelerate/default_config.json"))
        );
        std::fs::write(home.path().join("accelerate/default_config.yaml"), "").unwrap();
        assert_eq!(
            default_accelerate_path(env),
            Some(home.path().join("accelerate/default_config.yaml"))
        );
    }
}
