//! The environment variables recorded in a Snapshot.
//!
//! An allow-list, never "everything": environments hold tokens (`HF_TOKEN`,
//! `WANDB_API_KEY`, index URLs with passwords) that must not end up in a report
//! pasted into an issue.

use std::collections::BTreeMap;

use crate::redact;

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
    "PATH",
    "OMP_NUM_THREADS",
    "TRANSFORMERS_OFFLINE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "WORLD_SIZE",
    "RANK",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "NODE_RANK",
    "GROUP_RANK",
    "CUBLAS_WORKSPACE_CONFIG",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "TOKENIZERS_PARALLELISM",
    // The node's name as the scheduler knows it, which `fleet` reports it by.
    // (`SLURMD_NODENAME` is not under the `SLURM_` prefix.)
    "SLURMD_NODENAME",
    "ENVDOCTOR_NODE_NAME",
];

/// Whole families whose members are settings. A member whose name looks
/// secret is still withheld (see `looks_secret`).
const PREFIXES: &[&str] = &[
    "CUDA_",
    "NCCL_",
    "TORCH_",
    "PYTORCH_",
    "ACCELERATE_",
    "NVIDIA_",
    "DS_",
    "BNB_",
    "HF_",
    "TRANSFORMERS_",
    "SLURM_",
    "CUDNN_",
    "TRITON_",
    "NVTE_",
    "XLA_",
    "FI_",
    "UCX_",
];

/// The recorded variables, and the names of those withheld because they look secret.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Selected {
    pub values: BTreeMap<String, String>,
    pub withheld: Vec<String>,
}

pub fn selected(variables: impl Iterator<Item = (String, String)>) -> Selected {
    let mut selected = Selected::default();
    for (name, value) in variables {
        let wanted = NAMES.contains(&name.as_str()) || PREFIXES.iter().any(|prefix| name.starts_with(prefix));
        if !wanted {
            continue;
        }
        if redact::looks_secret(&name) {
            selected.withheld.push(name);
        } else {
            selected.values.insert(name, redact::secrets(&value));
        }
    }
    selected.withheld.sort();
    selected
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(variables: &[(&str, &str)]) -> Selected {
        selected(
            variables
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string())),
        )
    }

    #[test]
    fn keeps_settings_and_drops_what_is_not_asked_for() {
        let kept = select(&[
            ("CUDA_VISIBLE_DEVICES", "0,1"),
            ("NCCL_DEBUG", "INFO"),
            ("DS_BUILD_OPS", "1"),
            ("EDITOR", "vi"),
            ("PIP_INDEX_URL", "https://user:pass@example/simple"),
        ]);
        assert_eq!(
            kept.values.keys().collect::<Vec<_>>(),
            ["CUDA_VISIBLE_DEVICES", "DS_BUILD_OPS", "NCCL_DEBUG"]
        );
        assert!(kept.withheld.is_empty());
    }

    #[test]
    fn secret_looking_names_are_named_but_never_their_values() {
        let kept = select(&[
            ("HF_TOKEN", "hf_secret"),
            ("HF_HUB_OFFLINE", "1"),
            ("NCCL_IB_AUTH_KEY", "secret"),
            ("SLURM_JOB_ID", "42"),
            ("ACCELERATE_Api_Key", "secret"),
        ]);
        assert_eq!(
            kept.values.keys().collect::<Vec<_>>(),
            ["HF_HUB_OFFLINE", "SLURM_JOB_ID"]
        );
        assert_eq!(kept.withheld, ["ACCELERATE_Api_Key", "HF_TOKEN", "NCCL_IB_AUTH_KEY"]);
    }

    #[test]
    fn credentials_in_recorded_values_and_secret_names_are_kept_out() {
        let kept = select(&[
            ("HF_ENDPOINT", "https://hf_TOKEN@mirror.example"),
            ("HF_HUB_PAT", "ghp_secret"),
            ("PYTHONPATH", "/opt/lib:https://u:pa/ss@host/x"),
            ("CUDA_PATH", "/usr/local/cuda"),
        ]);
        assert_eq!(kept.values["HF_ENDPOINT"], "https://***@mirror.example");
        assert_eq!(kept.values["PYTHONPATH"], "/opt/lib:https://***@host/x");
        assert_eq!(kept.values["CUDA_PATH"], "/usr/local/cuda");
        assert_eq!(kept.withheld, ["HF_HUB_PAT"]);
    }
}
