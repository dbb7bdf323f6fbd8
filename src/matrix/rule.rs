//! A compat-matrix rule as the evaluator sees it: already validated, every
//! specifier parsed. `compat-matrix/EXAMPLE.toml` documents each field.

use std::path::PathBuf;

use pep440_rs::{Operator, Version, VersionSpecifiers};

use crate::calendar::Date;
use crate::findings::Severity;

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub title: String,
    pub severity: Severity,
    pub message: String,
    pub why: String,
    pub fix: String,
    /// What to know before running `fix`, in words (`Finding::fix_note`).
    pub fix_note: Option<String>,
    /// Set when the fix changes torch: the torch versions it may install. The
    /// command is then computed for the node (see `torch_install`), and `fix`
    /// is what is printed where no official build would do.
    pub fix_torch: Option<TorchFix>,
    pub references: Vec<String>,
    /// When its references were last read against the range and the fix.
    pub checked: Date,
    /// What the failure looks like in a traceback: what `envdoctor explain` matches.
    pub symptoms: Symptoms,
    /// Why the rule was withdrawn; a withdrawn rule is never evaluated.
    pub withdrawn: Option<String>,
    pub when: When,
    /// The file it was read from (for compiled-in rules, its path in the repository).
    pub path: PathBuf,
    /// `None` for compiled-in rules; the `--matrix DIR` for a site's own.
    pub site: Option<PathBuf>,
    /// The file as written, comments and all: what `matrix explain` shows.
    pub text: String,
}

/// A cause of failure that is not a version fact (a module created after
/// `model.to(device)`, inputs left on the CPU): `compat-matrix/symptoms/*.toml`.
/// It never raises a finding on its own; `envdoctor explain` ranks it against a
/// traceback. Its `when` holds the node facts without which the cause is impossible.
#[derive(Debug, Clone)]
pub struct SymptomEntry {
    pub id: String,
    pub title: String,
    pub why: String,
    pub fix: String,
    /// What to know before running `fix`, in words.
    pub fix_note: Option<String>,
    pub references: Vec<String>,
    /// When its references were last read against what it says.
    pub checked: Date,
    pub symptoms: Symptoms,
    pub when: When,
    /// The systems where the cause cannot happen, with the reason: a log
    /// from one of them rules it out.
    pub not_on: Vec<(System, String)>,
    /// The framework whose own build or code the cause is about: a log that
    /// shows another framework and nothing of this one makes it no answer.
    pub framework: Option<Framework>,
    pub path: PathBuf,
    pub site: Option<PathBuf>,
    pub text: String,
}

/// A system other than Linux that a log's own paths can show it ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    Windows,
    MacOs,
}

impl System {
    pub fn named(name: &str) -> Option<System> {
        match name {
            "Windows" => Some(System::Windows),
            "macOS" => Some(System::MacOs),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            System::Windows => "Windows",
            System::MacOs => "macOS",
        }
    }
}

/// An ML framework a log's lines can show it ran (its frames, its own log
/// lines, its name in a message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    Torch,
    TensorFlow,
    Jax,
    Paddle,
}

impl Framework {
    pub fn named(name: &str) -> Option<Framework> {
        Framework::ALL.into_iter().find(|framework| framework.name() == name)
    }

    pub const ALL: [Framework; 4] = [
        Framework::Torch,
        Framework::TensorFlow,
        Framework::Jax,
        Framework::Paddle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Framework::Torch => "torch",
            Framework::TensorFlow => "TensorFlow",
            Framework::Jax => "JAX",
            Framework::Paddle => "PaddlePaddle",
        }
    }

    /// The distribution that brings the framework's compiled runtime.
    pub fn distribution(self) -> &'static str {
        match self {
            Framework::Torch => "torch",
            Framework::TensorFlow => "tensorflow",
            Framework::Jax => "jaxlib",
            Framework::Paddle => "paddlepaddle",
        }
    }
}

/// The marks a cause leaves in a traceback. Every list is optional; what is
/// given is evidence, what is absent proves nothing.
#[derive(Debug, Clone, Default)]
pub struct Symptoms {
    /// Case-insensitive substrings of the exception message.
    pub messages: Vec<String>,
    /// Messages of a class of failure that many causes give (a cuDNN or
    /// cuBLAS kernel that failed to execute, a device mismatch whose argument
    /// says only which side is on the CPU): they list the cause, and name it
    /// only where a check in `confirmed_by` finds it on the node or one of
    /// `frames` is in the traceback.
    pub shared_messages: Vec<String>,
    /// Exception class names without their module (`RuntimeError`, `OutOfMemoryError`).
    pub exceptions: Vec<String>,
    /// The pairs of devices the message names.
    pub devices: Vec<DevicePair>,
    /// Frames that only this cause's code path passes through.
    pub frames: Vec<FramePattern>,
    /// Where users reported this pattern.
    pub reported: Vec<String>,
    /// Built-in check findings that confirm the cause on the node the log ran
    /// on (`driver-too-old-for-torch-cuda`): see `explain::node`.
    pub confirmed_by: Vec<String>,
    /// Rules that are special cases of this symptom (one version range of
    /// the same failure): the messages it shares with them still name it, and
    /// the rule leads only where the node meets its versions.
    pub generalizes: Vec<String>,
}

impl Symptoms {
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
            && self.shared_messages.is_empty()
            && self.exceptions.is_empty()
            && self.devices.is_empty()
            && self.frames.is_empty()
    }

    /// Its own messages, then the ones it shares with a class of failure.
    pub fn every_message(&self) -> impl Iterator<Item = &String> {
        self.messages.iter().chain(&self.shared_messages)
    }
}

/// A frame a cause's code path passes through: a path suffix, compared on `/`
/// boundaries, and optionally the function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramePattern {
    pub file: String,
    pub function: Option<String>,
}

impl FramePattern {
    pub fn matches(&self, file: &str, function: &str) -> bool {
        let file = file.replace('\\', "/");
        let suffix_holds = file == self.file
            || file
                .strip_suffix(&self.file)
                .is_some_and(|rest| rest.ends_with('/') || self.file.starts_with('/'));
        suffix_holds && self.function.as_deref().is_none_or(|wanted| wanted == function)
    }

    pub fn describe(&self) -> String {
        match &self.function {
            Some(function) => format!("{} in {function}", self.file),
            None => self.file.clone(),
        }
    }
}

/// The kind of device a message names: `cuda:1` is a `Cuda`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DeviceKind {
    Cuda,
    Cpu,
    Meta,
    Mps,
    Xpu,
}

/// Each kind with the name torch prints for it.
const DEVICE_KINDS: [(DeviceKind, &str); 5] = [
    (DeviceKind::Cuda, "cuda"),
    (DeviceKind::Cpu, "cpu"),
    (DeviceKind::Meta, "meta"),
    (DeviceKind::Mps, "mps"),
    (DeviceKind::Xpu, "xpu"),
];

impl DeviceKind {
    pub fn parse(text: &str) -> Option<DeviceKind> {
        DEVICE_KINDS
            .iter()
            .find(|(_, name)| *name == text)
            .map(|(kind, _)| *kind)
    }

    pub fn name(self) -> &'static str {
        DEVICE_KINDS
            .iter()
            .find(|(kind, _)| *kind == self)
            .map_or("", |(_, name)| name)
    }
}

/// Two kinds of device, in either order (`cuda+cpu` is `cpu+cuda`); `cuda+cuda`
/// means two different GPUs. Built through [`DevicePair::new`], so equal pairs compare equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DevicePair(DeviceKind, DeviceKind);

impl DevicePair {
    pub fn new(first: DeviceKind, second: DeviceKind) -> DevicePair {
        DevicePair(first.min(second), first.max(second))
    }

    /// `"cuda+cpu"`.
    pub fn parse(text: &str) -> Option<DevicePair> {
        let (first, second) = text.split_once('+')?;
        Some(DevicePair::new(
            DeviceKind::parse(first.trim())?,
            DeviceKind::parse(second.trim())?,
        ))
    }

    pub fn describe(self) -> String {
        format!("{}+{}", self.0.name(), self.1.name())
    }
}

/// The torch versions a fix may install: any (`"*"`) or a specifier set.
#[derive(Debug, Clone)]
pub enum TorchFix {
    Any,
    Within(Spec),
}

impl TorchFix {
    pub fn allows(&self, version: &Version) -> bool {
        match self {
            TorchFix::Any => true,
            TorchFix::Within(spec) => spec.contains(version),
        }
    }
}

/// A PEP 440 specifier set, with the text it was written as (for messages).
#[derive(Debug, Clone)]
pub struct Spec {
    pub text: String,
    pub specifiers: VersionSpecifiers,
}

impl Spec {
    /// Whether an installed version satisfies every specifier, compared the
    /// way the frameworks themselves compare (`packaging.version` ordering):
    /// pre-releases are not excluded, so an NVIDIA container's
    /// `2.6.0a0+ecf3bae.nv25.01` is below `2.6` exactly as transformers judges
    /// it, and local build labels (`+cu121`) are ignored. PEP 440's
    /// pre-release exclusion is a rule for choosing what to install, not for
    /// judging what is installed.
    pub fn contains(&self, version: &Version) -> bool {
        let version = version.clone().without_local();
        self.specifiers.iter().all(|specifier| {
            let bound = specifier.version();
            match specifier.operator() {
                Operator::LessThan => version < *bound,
                Operator::LessThanEqual => version <= *bound,
                Operator::GreaterThan => version > *bound,
                Operator::GreaterThanEqual => version >= *bound,
                // ==, !=, ~=, wildcards: PEP 440's own definitions.
                _ => specifier.contains(&version),
            }
        })
    }

    /// [`Spec::contains`] for a release, or for a pre-release (or development
    /// release) that its own release judges the same; else `Err` with the
    /// pre-release's verdict and the release it previews.
    pub fn contains_either_way(&self, version: &Version) -> Result<bool, (bool, Version)> {
        let holds = self.contains(version);
        if !version.any_prerelease() {
            return Ok(holds);
        }
        let release = version.only_release();
        if self.contains(&release) == holds {
            Ok(holds)
        } else {
            Err((holds, release))
        }
    }

    pub fn contains_number(&self, number: u64) -> bool {
        self.contains(&Version::new([number]))
    }
}

#[derive(Debug, Clone)]
pub enum PackageCondition {
    Installed,
    Absent,
    Version(Spec),
}

#[derive(Debug, Clone, Default)]
pub struct GpuCondition {
    pub compute_capability: Option<Spec>,
    /// Case-insensitive substrings of the GPU name, any of which may match.
    pub name: Vec<String>,
    pub memory_mib: Option<Spec>,
}

#[derive(Debug, Clone)]
pub enum EnvCondition {
    Set(bool),
    Equals(String),
    /// Holds for any other value, and when unset.
    Differs(String),
    /// Holds when the value holds this text (a directory on `LD_LIBRARY_PATH`).
    Contains(String),
}

#[derive(Debug, Clone, Default)]
pub struct PlatformCondition {
    pub machine: Vec<String>,
    pub os_id: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct DeepSpeedCondition {
    pub zero_stage: Vec<u64>,
    pub offload_optimizer_device: Vec<String>,
    pub offload_param_device: Vec<String>,
    pub bf16: Option<bool>,
    pub fp16: Option<bool>,
}

#[derive(Debug, Clone, Default)]
pub struct AccelerateCondition {
    pub distributed_type: Vec<String>,
    pub num_processes: Option<Spec>,
    pub mixed_precision: Vec<String>,
}

/// Every condition present must hold.
#[derive(Debug, Clone, Default)]
pub struct When {
    /// In the order written, by the name as written.
    pub packages: Vec<(String, PackageCondition)>,
    pub python: Option<Spec>,
    /// The C library the node runs: what a manylinux wheel's tag needs.
    pub glibc: Option<Spec>,
    pub driver: Option<Spec>,
    pub driver_cuda: Option<Spec>,
    pub torch_cuda: Option<Spec>,
    pub cuda_toolkit: Option<Spec>,
    /// The GCC an extension build would hand to nvcc (`CXX`, else `c++`);
    /// clang or an unknown compiler never matches.
    pub host_gcc: Option<Spec>,
    pub gpu_count: Option<Spec>,
    /// Whether a forward-compatibility `libcuda` newer than the driver sits in
    /// a compat directory (the only case CUDA uses it); a Snapshot that did not
    /// look, or a node without a driver, has none.
    pub compat_libcuda_newer_than_driver: Option<bool>,
    pub any_gpu: Option<GpuCondition>,
    pub all_gpus: Option<GpuCondition>,
    pub env: Vec<(String, EnvCondition)>,
    pub platform: Option<PlatformCondition>,
    pub deepspeed_config: Option<DeepSpeedCondition>,
    pub accelerate_config: Option<AccelerateCondition>,
    /// The rule's package bounds are a version comparison a library makes
    /// (transformers' `torch >= 2.6` test), so a pre-release is judged by
    /// PEP 440's order. Without it, a pre-release that its own release would
    /// judge the other way (numpy 2.0.0rc2 against `>=2`, a torch 2.7 nightly
    /// against `<2.7`) leaves the condition open: a preview of a release
    /// mostly behaves as that release does, and the rule cannot say which it means.
    pub pre_releases_ordered: bool,
}
