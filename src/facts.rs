//! The facts a check reasons about, read once from a Snapshot (and the training
//! configs the user named) into typed values: versions as PEP 440 versions, the
//! GPUs CUDA will actually see, in `cuda:N` order. Rules and built-in checks
//! both read this, so a value is parsed in one place and judged the same way.
//!
//! Driver, CUDA and compute-capability numbers are dotted integers. They are
//! held as PEP 440 versions because for purely numeric releases the PEP 440
//! ordering is exactly the dotted-integer ordering (`580.65.06` = `580.65.6`),
//! which lets one specifier syntax (`<580.65.06`, `>=12.8`) serve every condition.

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::Version;

use crate::configs::TrainingConfigs;
use crate::knowledge::tables::DriverVersion;
use crate::packaging::normalize_name as normalize;
use crate::snapshot::Snapshot;
use crate::snapshot::cuda::{CompilerFamily, Toolkit, ToolkitFoundVia};
use crate::snapshot::frameworks::{Build, TorchBuild};
use crate::snapshot::nvidia::Gpu;
use crate::snapshot::packages::Package;

#[derive(Clone)]
pub struct Facts<'a> {
    pub snapshot: &'a Snapshot,
    /// Installed distributions by PEP 503-normalized name: the copy Python imports.
    pub packages: BTreeMap<&'a str, &'a Package>,
    /// `major.minor.micro` of the interpreter.
    pub python_version: Option<Version>,
    /// The node's glibc; `None` on musl or where it could not be read.
    pub glibc: Option<Version>,
    /// The GCC a CUDA extension build would hand to nvcc; `None` for clang or unknown.
    pub host_gcc: Option<Version>,
    pub torch: Option<&'a TorchBuild>,
    /// `torch.version.cuda`: `None` for a CPU or ROCm build, or no torch.
    pub torch_cuda: Option<Version>,
    /// As the node wrote it (`580.65.06`), with its value for comparison.
    pub driver: Option<DriverVersion>,
    /// The newest CUDA the driver supports (what `nvidia-smi` prints as "CUDA Version").
    pub driver_cuda: Option<Version>,
    /// The newest forward-compatibility `libcuda` in a compat directory;
    /// `None` where there is none, or the Snapshot did not look.
    pub compat_libcuda: Option<Version>,
    /// The GPUs a CUDA program started here would see, in `cuda:N` order.
    pub gpus: Vec<VisibleGpu<'a>>,
    pub configs: &'a TrainingConfigs,
    /// What the smoke test saw, when it ran before the checks: the live answer
    /// that outranks a table.
    pub live: Option<LiveRun>,
    /// Distributions (normalized names) whose copy here is not the one a log
    /// ran, each with the fact that shows it (see [`Facts::for_a_log_that_ran_other_copies`]).
    pub other_copies: BTreeMap<String, String>,
}

/// The smoke test's answers the checks read (`smoke::live_run` makes it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveRun {
    /// A kernel ran on every GPU the test saw (at least one).
    pub kernels_ran_everywhere: bool,
    /// `torch.cuda.get_arch_list()` of the build that ran, as reported.
    pub arch_list: Option<String>,
}

#[derive(Clone)]
pub struct VisibleGpu<'a> {
    pub ordinal: u32,
    pub gpu: &'a Gpu,
    pub compute_capability: Option<Version>,
}

impl<'a> VisibleGpu<'a> {
    pub fn new(ordinal: u32, gpu: &'a Gpu) -> VisibleGpu<'a> {
        let compute_capability = gpu.compute_capability.as_deref().and_then(dotted);
        VisibleGpu {
            ordinal,
            gpu,
            compute_capability,
        }
    }

    /// `cuda:0 NVIDIA H100 80GB HBM3 (compute capability 9.0)`: how findings name a GPU.
    pub fn describe(&self) -> String {
        let name = self.gpu.name.as_deref().unwrap_or("unnamed GPU");
        match &self.gpu.compute_capability {
            Some(cc) => format!("cuda:{} {name} (compute capability {cc})", self.ordinal),
            None => format!("cuda:{} {name}", self.ordinal),
        }
    }
}

impl<'a> Facts<'a> {
    pub fn new(snapshot: &'a Snapshot, configs: &'a TrainingConfigs) -> Facts<'a> {
        let mut packages = BTreeMap::new();
        for package in &snapshot.packages {
            // The inventory lists the winning copy once; a later duplicate would be a
            // shadowed copy, which `shadowed` already records.
            packages.entry(package.normalized_name.as_str()).or_insert(package);
        }
        let torch = snapshot
            .frameworks
            .get("torch")
            .and_then(|framework| match &framework.build {
                Some(Build::Torch(build)) => Some(build),
                _ => None,
            });
        let nvidia = snapshot.nvidia.as_ref();
        Facts {
            snapshot,
            packages,
            python_version: dotted(&snapshot.python.version),
            glibc: snapshot.system.glibc_version.as_deref().and_then(dotted),
            host_gcc: snapshot
                .cuda
                .host_compiler
                .as_ref()
                .filter(|compiler| compiler.family == Some(CompilerFamily::Gcc))
                .and_then(|compiler| compiler.version.as_deref())
                .and_then(dotted),
            torch,
            torch_cuda: torch.and_then(|build| build.cuda.as_deref()).and_then(dotted),
            driver: nvidia
                .and_then(|n| n.driver_version.as_deref())
                .and_then(DriverVersion::reported),
            driver_cuda: nvidia.and_then(|n| n.cuda_driver_version.as_deref()).and_then(dotted),
            compat_libcuda: snapshot
                .cuda
                .forward_compat
                .iter()
                .flat_map(|compat| &compat.libcuda)
                .filter_map(|library| dotted(&library.version))
                .max(),
            gpus: visible_gpus(snapshot),
            configs,
            live: None,
            other_copies: BTreeMap::new(),
        }
    }

    /// These facts as they speak for a log that ran other copies of some
    /// distributions than this node's (`name` to the fact that shows it): a
    /// job started with `PYTHONPATH`, a project's bundled copy of a library,
    /// a user site. Those distributions are left out, so that no version of
    /// this node's copy confirms or rules out a cause; and, unlike a package
    /// that is not installed, their absence is no fact either
    /// ([`Facts::other_copy`]).
    pub fn for_a_log_that_ran_other_copies(&self, other_copies: BTreeMap<String, String>) -> Facts<'a> {
        let mut facts = self.clone();
        facts.packages.retain(|name, _| !other_copies.contains_key(*name));
        // The torch build (its CUDA, its kernels, what the smoke test saw of
        // it) is the node's copy's too.
        if other_copies.contains_key("torch") {
            facts.torch = None;
            facts.torch_cuda = None;
            facts.live = None;
        }
        facts.other_copies = other_copies;
        facts
    }

    /// Why this node's copy of a distribution is not the one the log ran,
    /// where it is not.
    pub fn other_copy(&self, name: &str) -> Option<&str> {
        self.other_copies.get(normalize(name).as_str()).map(String::as_str)
    }

    /// The installed distribution, by any spelling of its name.
    pub fn package(&self, name: &str) -> Option<&'a Package> {
        self.packages.get(normalize(name).as_str()).copied()
    }

    /// The installed version of a distribution, by any spelling of its name.
    pub fn package_version(&self, name: &str) -> Option<Version> {
        Version::from_str(self.package(name)?.version.as_deref()?).ok()
    }

    pub fn is_installed(&self, name: &str) -> bool {
        self.package(name).is_some()
    }

    /// The version of [`Facts::active_toolkit`], where it is known.
    pub fn active_toolkit_version(&self) -> Option<Version> {
        self.active_toolkit()
            .and_then(|(toolkit, _)| toolkit.version.as_deref().and_then(dotted))
    }

    /// The toolkit torch's cpp_extension (and so DeepSpeed's JIT ops and
    /// flash-attn's source build) would use: `CUDA_HOME`, else `CUDA_PATH`,
    /// else the `nvcc` on `PATH`, else `/usr/local/cuda` (`_find_cuda_home` in
    /// pytorch/pytorch `torch/utils/cpp_extension.py`), with how it was chosen.
    pub fn active_toolkit(&self) -> Option<(&'a Toolkit, &'static str)> {
        let toolkits = &self.snapshot.cuda.toolkits;
        for (via, name) in [
            (ToolkitFoundVia::CudaHome, "CUDA_HOME"),
            (ToolkitFoundVia::CudaPath, "CUDA_PATH"),
            (ToolkitFoundVia::Path, "the nvcc on PATH"),
        ] {
            if let Some(toolkit) = toolkits.iter().find(|toolkit| toolkit.found_via.contains(&via)) {
                return Some((toolkit, name));
            }
        }
        let usr_local_cuda = std::path::Path::new("/usr/local/cuda");
        toolkits
            .iter()
            .find(|toolkit| {
                toolkit.root == usr_local_cuda || toolkit.aliases.iter().any(|alias| alias == usr_local_cuda)
            })
            .map(|toolkit| (toolkit, "/usr/local/cuda"))
    }

    pub fn env(&self, name: &str) -> Option<&'a str> {
        self.snapshot.env.get(name).map(String::as_str)
    }
}

/// The leading dotted-integer part of a version string (`12.8`, `580.65.06`,
/// `3.11.7` out of `3.11.7+`), as a version; `None` when there is none.
pub fn dotted(text: &str) -> Option<Version> {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let numeric = text[..end].trim_end_matches('.');
    if numeric.is_empty() {
        return None;
    }
    Version::from_str(numeric).ok()
}

/// Visible GPUs in ordinal order. Without a `cuda:N` mapping (no NVML answer),
/// every GPU NVML listed counts, in NVML order.
fn visible_gpus(snapshot: &Snapshot) -> Vec<VisibleGpu<'_>> {
    let Some(nvidia) = &snapshot.nvidia else {
        return Vec::new();
    };
    match &snapshot.cuda_devices {
        Some(mapping) => {
            let mut seen = Vec::new();
            mapping
                .devices
                .iter()
                .filter_map(|device| {
                    let gpu = nvidia.gpus.iter().find(|gpu| gpu.index == device.nvml_index)?;
                    // MIG slices of one GPU appear as several devices; the hardware is one.
                    if device.mig_uuid.is_some() && seen.contains(&device.nvml_index) {
                        return None;
                    }
                    seen.push(device.nvml_index);
                    Some(VisibleGpu::new(device.ordinal, gpu))
                })
                .collect()
        }
        None => nvidia
            .gpus
            .iter()
            .enumerate()
            .map(|(i, gpu)| VisibleGpu::new(i as u32, gpu))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_reads_the_numeric_prefix() {
        assert_eq!(dotted("580.65.06"), Version::from_str("580.65.6").ok());
        assert_eq!(dotted("12.8"), Version::from_str("12.8").ok());
        assert_eq!(dotted("3.11.7+"), Version::from_str("3.11.7").ok());
        assert_eq!(dotted("unknown"), None);
    }

    /// A driver's `06` is shown as written and compared as 6: every sentence
    /// that names the driver prints its text, no parsed version.
    #[test]
    fn the_driver_keeps_the_text_the_node_wrote() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json"
        );
        let snapshot = crate::snapshot::read(std::path::Path::new(path)).unwrap();
        let configs = TrainingConfigs::default();
        let facts = Facts::new(&snapshot, &configs);
        let driver = facts.driver.unwrap();
        assert_eq!(driver.to_string(), "580.65.06");
        assert_eq!(driver.version, Version::from_str("580.65.6").unwrap());
    }
}
