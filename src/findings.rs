//! What a check says about a node: a Finding with a stable id, a severity, what
//! was observed, why it matters and the command that fixes it. Matrix rules and
//! built-in checks both produce these; every report format renders the same value.

use serde::{Deserialize, Serialize};

/// Ordered so that `severity >= threshold` reads as "at least this bad".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// One step down: what a rule says when a fact it needs (a training config
    /// it was not given) is missing, so it can still speak without crying wolf.
    pub fn lowered(self) -> Severity {
        match self {
            Severity::Error => Severity::Warning,
            Severity::Warning | Severity::Info => Severity::Info,
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The lowest severity that fails a run (exit code 1): `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

impl FailOn {
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Never => "never",
        }
    }

    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity >= Severity::Error,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Never => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable kebab-case id: what `--ignore` and `matrix explain` take.
    pub id: String,
    /// The rule or built-in check that produced it (a rule's own id; a check's
    /// id, which may produce several kinds of finding). Filled in by the runner.
    #[serde(default)]
    pub origin: String,
    pub severity: Severity,
    pub title: String,
    /// What was observed on this node, naming the values (versions, GPUs, paths).
    pub detail: String,
    /// Why that breaks training, in a sentence or two. Not in the public
    /// contract, so optional when read.
    #[serde(default)]
    pub why: String,
    /// The exact command (or, where no command exists, the exact action) that
    /// fixes it: one command line, nothing a paste would run by mistake
    /// (`fix_command::one_command`), with every pip the judged interpreter's
    /// (`fix_command::address`).
    pub fix: Option<String>,
    /// What a person should know before running the fix (a variant for
    /// another setup, what to check after it): words, never part of `fix`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_note: Option<String>,
    /// Upstream issues, pull requests, release notes; the first is the one to read.
    pub references: Vec<String>,
    /// Set when the finding was lowered because a fact was missing: what would
    /// settle it (`pass --deepspeed-config FILE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsettled: Option<String>,
}

/// Programs a fix may start with to be a command to paste rather than an
/// action described in words ("load the model with ...").
const COMMANDS: [&str; 24] = [
    "pip",
    "pip3",
    "python",
    "python3",
    "uv",
    "conda",
    "mamba",
    "sudo",
    "apt",
    "apt-get",
    "dnf",
    "yum",
    "export",
    "unset",
    "ldd",
    "nvidia-smi",
    "systemctl",
    "docker",
    "accelerate",
    "torchrun",
    "deepspeed",
    "envdoctor",
    "ulimit",
    "cd",
];

/// Whether `fix` is a shell command (it starts with a known program, a
/// program named by its path, such as the judged interpreter, or a
/// `NAME=value` assignment), which renderers set as code, or prose.
pub fn fix_is_command(fix: &str) -> bool {
    let first = fix.split_whitespace().next().unwrap_or("");
    let by_path = first.trim_start_matches(['\'', '"']).starts_with(['/', '.', '~']);
    let assignment = first.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    });
    assignment || by_path || COMMANDS.contains(&first)
}

#[cfg(test)]
mod tests {
    use super::fix_is_command;

    #[test]
    fn a_command_is_told_from_an_action_in_words() {
        for command in [
            "pip install -U peft",
            "sudo apt-get install -y g++-13 && export CXX=g++-13",
            "CUDA_VISIBLE_DEVICES=0 python train.py",
            "export DS_SKIP_CUDA_CHECK=1",
            "nvidia-smi topo -p2p r; then run NCCL's all_reduce_perf",
            "'/opt/venvs/train/bin/python' -m pip install -U peft",
            "/usr/bin/python3 -m pip check",
        ] {
            assert!(fix_is_command(command), "{command}");
        }
        for prose in [
            "load the model with attn_implementation=\"sdpa\"",
            "Install torch 2.3 or newer, with the torchvision and torchaudio made for it",
            "set mixed_precision: fp16 in the accelerate config",
            "pin NumPy 1.x: pip install \"numpy<2\"",
            "",
            "lower=case assignment is not a command",
        ] {
            assert!(!fix_is_command(prose), "{prose}");
        }
    }
}
