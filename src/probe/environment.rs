//! The environment variables recorded in a Snapshot.
//!
//! An allow-list, never "everything": environments hold tokens (`HF_TOKEN`,
//! `WANDB_API_KEY`, index URLs with passwords) that must not end up in a report
//! pasted into an issue.

use std::collections::BTreeMap;

const NAMES: &[&str] = &[
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONNOUSERSITE",
    "PYTHONUSERBASE",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "OMP_NUM_THREADS",
    "HF_HOME",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "BNB_CUDA_VERSION",
    "DS_BUILD_OPS",
    "DS_SKIP_CUDA_CHECK",
    "MASTER_ADDR",
    "MASTER_PORT",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "RANK",
];

/// Whole families whose members are settings, not secrets.
const PREFIXES: &[&str] = &["CUDA_", "NCCL_", "TORCH_", "PYTORCH_", "ACCELERATE_", "NVIDIA_"];

pub fn selected(variables: impl Iterator<Item = (String, String)>) -> BTreeMap<String, String> {
    variables
        .filter(|(name, _)| NAMES.contains(&name.as_str()) || PREFIXES.iter().any(|prefix| name.starts_with(prefix)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_settings_and_drops_secrets() {
        let variables = [
            ("CUDA_VISIBLE_DEVICES", "0,1"),
            ("NCCL_DEBUG", "INFO"),
            ("HF_TOKEN", "hf_secret"),
            ("WANDB_API_KEY", "secret"),
            ("PIP_INDEX_URL", "https://user:pass@example/simple"),
        ]
        .map(|(name, value)| (name.to_string(), value.to_string()));
        let kept = selected(variables.into_iter());
        assert_eq!(kept.keys().collect::<Vec<_>>(), ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG"]);
    }
}
