//! CUDA toolkits and libraries on the node, and the host compiler nvcc would use.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Every key is optional when read: the public contract names the toolkits only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cuda {
    /// Every toolkit found, one entry per directory.
    pub toolkits: Vec<Toolkit>,
    /// Every CUDA library file found, one entry per real file: wheels first, in
    /// `sys.path` order, then the system's in the loader's search order.
    pub libraries: Vec<Library>,
    /// Problems that belong to no one toolkit or library.
    pub problems: Vec<String>,
    /// The C++ compiler an extension build would hand to nvcc; only looked for
    /// where a toolkit has an nvcc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_compiler: Option<HostCompiler>,
    /// What the CUDA forward-compatibility directories hold; `None` in a
    /// Snapshot from an envdoctor that did not look.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_compat: Option<ForwardCompat>,
}

/// The forward-compatibility libraries (NVIDIA's cuda-compat package: a
/// `libcuda.so` newer than the driver) in `/usr/local/cuda/compat/lib` and in
/// every `LD_LIBRARY_PATH` directory whose path names `compat`. NGC images put
/// `/usr/local/cuda/compat/lib` on `LD_LIBRARY_PATH` always and fill it only
/// where forward compatibility is needed, so the path alone says nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForwardCompat {
    /// Every directory looked in, found or not, in the order looked.
    pub searched: Vec<PathBuf>,
    /// Each `libcuda.so.<version>` found there.
    pub libcuda: Vec<CompatLibcuda>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompatLibcuda {
    pub path: PathBuf,
    /// The driver version in its file name (`535.104.05` of `libcuda.so.535.104.05`).
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toolkit {
    /// The toolkit's directory, with symlinks resolved.
    pub root: PathBuf,
    /// Every way it was found, in the order they were tried.
    pub found_via: Vec<ToolkitFoundVia>,
    /// Other spellings that lead to `root`: `/usr/local/cuda` when it is a
    /// symlink to `/usr/local/cuda-12.4`, a `CUDA_HOME` through a link.
    pub aliases: Vec<PathBuf>,
    /// The toolkit release (`12.8.2`, `10.2.89`; `12.4` from nvcc, which says no more).
    pub version: Option<String>,
    pub version_source: Option<ToolkitVersionSource>,
    /// The file the version was read from (for `nvcc`, the compiler that was run).
    pub version_file: Option<PathBuf>,
    pub nvcc: Option<PathBuf>,
    /// The compiler's own version (`12.8.93`), which differs from the release's.
    pub nvcc_version: Option<String>,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolkitFoundVia {
    /// The first `nvcc` on `PATH`, the one a build would run.
    Path,
    CudaHome,
    CudaPath,
    /// `/usr/local/cuda` or `/usr/local/cuda-*`.
    UsrLocal,
    CondaPrefix,
    /// The interpreter's `sys.prefix` (a conda environment without `CONDA_PREFIX` set).
    PythonPrefix,
    /// An `nvcc` installed by an `nvidia-*` wheel (`nvidia-cuda-nvcc-cu12`, `nvidia-cuda-nvcc`).
    Wheel,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolkitVersionSource {
    VersionJson,
    VersionTxt,
    Nvcc,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

/// One library file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Library {
    /// `cudart`, `cublas`, `cublaslt`, `cudnn`, `nccl`, `nvjitlink`, `cusparse`,
    /// `cufft`, or `cuda_driver` (the driver's user-space `libcuda`).
    pub name: String,
    pub provided_by: Provider,
    /// The file as found: the soname link (`libcudnn.so.9`) where there is one.
    pub path: PathBuf,
    /// The file behind the symlinks (`libcudnn.so.9.1.0`).
    pub real_path: Option<PathBuf>,
    pub version: Option<String>,
    pub version_source: Option<LibraryVersionSource>,
    /// The file the version was read from, where it was not the distribution.
    pub version_file: Option<PathBuf>,
    /// For `provided_by: wheel`, the distribution that installed the file.
    pub distribution: Option<Distribution>,
    /// For `provided_by: toolkit`, the toolkit's root.
    pub toolkit_root: Option<PathBuf>,
    /// Every way the file was found.
    pub found_via: Vec<LibraryFoundVia>,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    /// Installed by an `nvidia-*` Python distribution.
    Wheel,
    /// Inside a toolkit's directory.
    Toolkit,
    /// Anywhere else on the machine: a distribution package, a manual copy, the driver.
    System,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LibraryVersionSource {
    /// The version of the distribution that installed it (wheels name their
    /// files by soname only: `libcudnn.so.9`).
    Distribution,
    /// The fully versioned file name behind the symlinks.
    FileName,
    /// A header beside the library (`cudnn_version.h`, `nccl.h`).
    Header,
    /// Only the major version, from the soname.
    Soname,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LibraryFoundVia {
    /// Listed in a distribution's `RECORD`.
    WheelRecord,
    LdLibraryPath,
    /// In a toolkit's `lib64`, `lib` or `targets/*/lib`.
    Toolkit,
    /// In a directory named by `/etc/ld.so.conf.d/*.conf`.
    LdSoConf,
    /// In one of the loader's default directories.
    StandardDir,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub name: String,
    pub version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostCompiler {
    /// `CXX` or `c++`: what named it.
    pub chosen_by: String,
    pub path: PathBuf,
    /// `None` when its `--version` names neither GCC nor clang.
    pub family: Option<CompilerFamily>,
    /// `13.2.0`, from its `--version`.
    pub version: Option<String>,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompilerFamily {
    Gcc,
    Clang,
}
