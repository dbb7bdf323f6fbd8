//! Build facts of the frameworks installed, read from their files.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Keyed by framework name; a framework that is not installed has no entry.
pub type Frameworks = BTreeMap<String, Framework>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Framework {
    /// The key it is stored under: `torch`, `flash-attn`, ...
    pub name: String,
    /// The distribution that provides it, as its metadata spells the name;
    /// `None` when the package directory is there without any metadata.
    pub distribution: Option<String>,
    /// The distribution's version, as pip shows it.
    pub version: Option<String>,
    /// The directory `import` loads the package from; `None` when it is missing.
    pub package_dir: Option<PathBuf>,
    /// What the framework's own files record about how it was built; `None`
    /// for frameworks whose files record nothing beyond their version, and
    /// when the package directory is missing.
    pub build: Option<Build>,
    /// What is wrong with this install, one sentence each, naming the file.
    pub problems: Vec<String>,
}

/// One variant per reader; `kind` names it in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Build {
    /// `version.py` of torch, torchvision and torchaudio.
    Torch(TorchBuild),
    Deepspeed(DeepSpeedBuild),
    Bitsandbytes(BitsAndBytesBuild),
    Xformers(XformersBuild),
    FlashAttn(FlashAttnBuild),
    Triton(TritonBuild),
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorchBuild {
    /// `__version__` as `version.py` records it. PyPI's wheels keep the local
    /// label here (`2.3.1+cu121`) though their metadata says `2.3.1`.
    pub version: Option<String>,
    /// The local label of that version: `cu121`, `rocm6.0`, `cpu`; `None` when there is none.
    pub variant: Option<String>,
    /// The CUDA version it was built with (`12.1`); `None` for a CPU or ROCm build.
    /// torch records it; for torchvision and torchaudio it is read from `variant`.
    pub cuda: Option<String>,
    /// The HIP version of a ROCm build of torch (`6.0.32830-d62f6a171`).
    pub hip: Option<String>,
    /// The ROCm version: torch's `rocm` where recorded, else from `variant` (`rocm6.0`).
    pub rocm: Option<String>,
    /// torch 2.7 and later: the SYCL/oneAPI version of an XPU build.
    pub xpu: Option<String>,
    pub git_version: Option<String>,
    pub debug: Option<bool>,
    /// torch only: whether `torch/lib/libtorch_cuda.so` is present, the library
    /// a CUDA build of torch ships and a CPU build lacks.
    pub libtorch_cuda: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeepSpeedBuild {
    /// Whether `git_version_info_installed.py` exists; without it every op is JIT-compiled.
    pub build_record: bool,
    pub version: Option<String>,
    pub git_hash: Option<String>,
    pub git_branch: Option<String>,
    /// The accelerator it was built for: `cuda`, `cpu`, `npu`, `xpu`, ...
    pub accelerator_name: Option<String>,
    /// Op name -> whether it was compiled at install time (the rest are JIT-compiled on first use).
    pub installed_ops: BTreeMap<String, bool>,
    /// Op name -> whether it could be built on the build machine; recorded by 0.7 to 0.10 only.
    pub compatible_ops: Option<BTreeMap<String, bool>>,
    pub torch_info: Option<DeepSpeedTorchInfo>,
}

/// The torch DeepSpeed was built against; `"0.0"` is DeepSpeed's own "none".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeepSpeedTorchInfo {
    /// `major.minor` of torch.
    pub version: Option<String>,
    pub cuda_version: Option<String>,
    pub hip_version: Option<String>,
    pub nccl_version: Option<String>,
    pub bf16_support: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BitsAndBytesBuild {
    /// In file name order.
    pub native_libraries: Vec<NativeLibrary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NativeLibrary {
    pub file: String,
    /// `cpu`, `cuda`, `rocm`, `mps`, `xpu`, or whatever a newer release names.
    pub backend: String,
    /// `12.1` for CUDA, `6.4` for ROCm, the oneAPI year (`2025`) for XPU.
    pub version: Option<String>,
    /// What follows the backend, as written: `nocublaslt`.
    pub variant: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlashAttnBuild {
    /// The compiled extension beside the package (`flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so`).
    pub extension: Option<String>,
    /// The build tags of the prebuilt wheel, when the install records them.
    pub wheel_tags: Option<FlashAttnTags>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlashAttnTags {
    /// Where they were read: `version` (the installed version's local label) or `direct_url`.
    pub source: String,
    /// The local label as written there: `cu123torch2.4cxx11abiFALSE`.
    pub label: String,
    /// `12.3`, or `12` where the wheel names the major only.
    pub cuda: Option<String>,
    pub rocm: Option<String>,
    /// `major.minor` of the torch it was built against.
    pub torch: Option<String>,
    /// Whether it was built with the C++11 ABI; it must match torch's.
    pub cxx11_abi: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TritonBuild {
    /// The backends it ships (`amd`, `nvidia`); `None` before triton 3.0.
    pub backends: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct XformersBuild {
    /// Whether `cpp_lib.json` exists: without it there is no compiled extension to describe.
    pub build_record: bool,
    /// The compiled extension in the package (`_C.so`), when present.
    pub extension: Option<String>,
    /// The CUDA version it was compiled with, `12.1`.
    pub cuda: Option<String>,
    pub hip: Option<String>,
    /// The torch it was compiled against, `2.4.0+cu121`: its C++ ABI must match the torch installed.
    pub torch: Option<String>,
    pub python: Option<String>,
    /// The bundled Flash-Attention, `v2.3.0` or `2.5.6-pt`.
    pub flash: Option<String>,
    pub use_torch_flash: Option<bool>,
    /// The build variables that were set (`TORCH_CUDA_ARCH_LIST`, ...).
    pub build_env: BTreeMap<String, String>,
}
