//! `torch-builds.toml`: which Python each torch release supports, the
//! torchvision and torchaudio made for its newest patch release, and which GPU
//! architectures each official CUDA build carries (release x CUDA variant x
//! platform).
//!
//! The rule for which compiled GPU code runs on which GPU is code, not data,
//! because it is NVIDIA's rule rather than a fact about a release: see
//! [`cubin_runs_on`].

use std::ops::Range;
use std::str::FromStr;

use pep440_rs::Version;
use toml_edit::Table;

use super::{Capability, MajorMinor, major_minor, source_url};
use crate::knowledge::reader::{Reader, Row};

/// Platforms a torch build row may name: the wheel's CPU architecture, as
/// `std::env::consts::ARCH` (and so a Snapshot's `system.architecture`) spells it.
const PLATFORMS: [&str; 2] = ["aarch64", "x86_64"];

#[derive(Debug, Clone, Default)]
pub struct TorchTables {
    pub releases: Vec<TorchRelease>,
    pub builds: Vec<TorchBuildRow>,
}

#[derive(Debug, Clone)]
pub struct TorchRelease {
    pub torch: MajorMinor,
    pub python_min: MajorMinor,
    pub python_max: MajorMinor,
    pub python_experimental: Vec<MajorMinor>,
    pub source: String,
    /// The newest patch release and the torchvision and torchaudio made for it
    /// (theirs `Requires-Dist: torch==` it); `None` where the table does not say.
    pub latest: Option<TorchSet>,
}

/// torch and the companions that pin it exactly: installed together, they
/// leave pip nothing to break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TorchSet {
    pub torch: String,
    pub torchvision: Option<String>,
    pub torchaudio: Option<String>,
}

impl TorchSet {
    /// The version of `companion` (`torchvision`, `torchaudio`) in this set.
    pub fn companion(&self, companion: &str) -> Option<&str> {
        match companion {
            "torchvision" => self.torchvision.as_deref(),
            "torchaudio" => self.torchaudio.as_deref(),
            _ => None,
        }
    }
}

/// Whether a build row states what the pip wheels carry, or was measured in
/// another package of the same release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowEvidence {
    Confirmed,
    Unconfirmed,
}

#[derive(Debug, Clone)]
pub struct TorchBuildRow {
    pub torch: MajorMinor,
    /// `cu128`.
    pub variant: String,
    /// The CUDA the variant names (`cu128` -> 12.8).
    pub cuda: MajorMinor,
    /// `x86_64` or `aarch64`.
    pub platform: String,
    pub arch: Vec<ArchEntry>,
    pub confidence: RowEvidence,
    pub note: Option<String>,
    pub source: String,
    pub(super) span: Option<Range<usize>>,
}

/// One entry of a TORCH_CUDA_ARCH_LIST: `8.6`, `9.0a`, `12.0+PTX`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchEntry {
    pub text: String,
    pub capability: Capability,
    /// `9.0a`: a cubin that runs on exactly this capability.
    pub arch_specific: bool,
    /// `+PTX`: PTX beside the cubin, which the driver compiles for newer GPUs.
    pub ptx: bool,
}

impl ArchEntry {
    pub fn parse(text: &str) -> Option<ArchEntry> {
        let (body, ptx) = match text.strip_suffix("+PTX") {
            Some(body) => (body, true),
            None => (text, false),
        };
        let (body, arch_specific) = match body.strip_suffix('a') {
            Some(body) => (body, true),
            None => (body, false),
        };
        Some(ArchEntry {
            text: text.to_string(),
            capability: MajorMinor::parse(body)?,
            arch_specific,
            ptx,
        })
    }

    /// Whether this code runs on a GPU of `device` capability.
    pub fn runs_on(&self, device: Capability) -> bool {
        let cubin = if self.arch_specific {
            device == self.capability
        } else {
            cubin_runs_on(self.capability, device)
        };
        // PTX is compiled by the driver for the GPU it meets, so it runs on
        // any GPU at least as new as its target (CUDA C Programming Guide,
        // "Application Compatibility"; Blackwell compatibility guide §1.2).
        cubin || (self.ptx && device >= self.capability)
    }
}

/// Whether a cubin compiled for `code` runs on a GPU of `device` capability.
///
/// NVIDIA's rule: a cubin runs on GPUs of the same major and an equal or higher
/// minor. PyTorch encodes it with its exceptions in `DEVICE_REQUIREMENT`
/// (pytorch/pytorch `torch/cuda/__init__.py`): the integrated (Jetson) GPUs
/// 5.3, 6.2, 7.2 and 8.7 run only code built for them and their code runs
/// nowhere else, and 10.1 (Jetson Thor, renamed 11.0 in CUDA 13) runs only
/// 10.1 code, which also runs on 11.0.
pub fn cubin_runs_on(code: Capability, device: Capability) -> bool {
    const INTEGRATED: [Capability; 4] = [
        MajorMinor::new(5, 3),
        MajorMinor::new(6, 2),
        MajorMinor::new(7, 2),
        MajorMinor::new(8, 7),
    ];
    const THOR_OLD: Capability = MajorMinor::new(10, 1);
    const THOR_NEW: Capability = MajorMinor::new(11, 0);
    if code == THOR_OLD {
        return device == THOR_OLD || device == THOR_NEW;
    }
    if INTEGRATED.contains(&code) {
        return device == code;
    }
    if INTEGRATED.contains(&device) || device == THOR_OLD {
        return false;
    }
    code.major == device.major && device.minor >= code.minor
}

impl TorchBuildRow {
    /// The entry whose code runs on `device`, if any.
    pub fn runnable_entry(&self, device: Capability) -> Option<&ArchEntry> {
        self.arch.iter().find(|entry| entry.runs_on(device))
    }

    /// The list as TORCH_CUDA_ARCH_LIST writes it: `7.5;8.0;12.0+PTX`.
    pub fn arch_list(&self) -> String {
        self.arch
            .iter()
            .map(|entry| entry.text.as_str())
            .collect::<Vec<_>>()
            .join(";")
    }
}

impl TorchTables {
    pub fn release(&self, torch: MajorMinor) -> Option<&TorchRelease> {
        self.releases.iter().find(|row| row.torch == torch)
    }

    pub fn build(&self, torch: MajorMinor, variant: &str, platform: &str) -> Option<&TorchBuildRow> {
        self.builds
            .iter()
            .find(|row| row.torch == torch && row.variant == variant && row.platform == platform)
    }
}

/// `cu128` -> 12.8: PyTorch's compact spelling, whose last digit is the minor.
pub fn variant_cuda(variant: &str) -> Option<MajorMinor> {
    let digits = variant.strip_prefix("cu")?;
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some(MajorMinor::new(major.parse().ok()?, minor.parse().ok()?))
}

/// `latest`, `torchvision`, `torchaudio` of a release row: all PEP 440
/// versions, `latest` of the row's own release, and no companion without it.
fn torch_set(row: &mut Row, release: MajorMinor) -> Option<TorchSet> {
    let what = "a version such as \"2.5.1\"";
    let version = |row: &mut Row, key: &str| {
        let text = row.optional_string(key, what)?;
        if Version::from_str(text).is_err() {
            row.wrong(key, format!("`{text}` is not a version ({what})"));
            return None;
        }
        Some(text.to_string())
    };
    let latest = version(row, "latest");
    let torchvision = version(row, "torchvision");
    let torchaudio = version(row, "torchaudio");
    let Some(latest) = latest else {
        if torchvision.is_some() || torchaudio.is_some() {
            row.missing("latest", "the torch patch release the companions were made for");
        }
        return None;
    };
    if Version::from_str(&latest)
        .ok()
        .and_then(|version| MajorMinor::of(&version))
        != Some(release)
    {
        row.wrong("latest", format!("`{latest}` is not a release of torch {release}"));
        return None;
    }
    Some(TorchSet {
        torch: latest,
        torchvision,
        torchaudio,
    })
}

pub(super) fn read(root: &Table, reader: &mut Reader) -> TorchTables {
    reader.only_kinds(root, &["release", "build"]);
    let mut torch = TorchTables::default();

    let mut order = Vec::new();
    for table in reader.rows(root, "release") {
        let mut row = reader.row(
            table,
            "release",
            &[
                "torch",
                "python_min",
                "python_max",
                "python_experimental",
                "source",
                "latest",
                "torchvision",
                "torchaudio",
            ],
        );
        let release = major_minor(&mut row, "torch", "the torch release, such as \"2.8\"");
        let python_min = major_minor(&mut row, "python_min", "the oldest Python, such as \"3.9\"");
        let python_max = major_minor(&mut row, "python_max", "the newest Python, such as \"3.13\"");
        let mut experimental = Vec::new();
        for text in row
            .strings("python_experimental", "Python versions such as \"3.13\"", false)
            .unwrap_or_default()
        {
            match MajorMinor::parse(text) {
                Some(version) => experimental.push(version),
                None => row.wrong("python_experimental", format!("`{text}` is not MAJOR.MINOR")),
            }
        }
        if let (Some(min), Some(max)) = (python_min, python_max)
            && min > max
        {
            row.wrong("python_min", format!("{min} is newer than python_max {max}"));
        }
        let source = source_url(&mut row);
        let latest = release.and_then(|release| torch_set(&mut row, release));
        if let Some(release) = release {
            order.push((release, row.span()));
        }
        if let (Some(release), Some(python_min), Some(python_max), Some(source)) =
            (release, python_min, python_max, source)
        {
            torch.releases.push(TorchRelease {
                torch: release,
                python_min,
                python_max,
                python_experimental: experimental,
                source,
                latest,
            });
        }
    }
    reader.check_order(&order, "release", "torch");

    let mut order = Vec::new();
    for table in reader.rows(root, "build") {
        let mut row = reader.row(
            table,
            "build",
            &["torch", "variant", "platform", "arch", "confidence", "note", "source"],
        );
        let release = major_minor(&mut row, "torch", "the torch release, such as \"2.8\"");
        let variant = row.string("variant", "the CUDA variant, such as \"cu128\"");
        let cuda = variant.and_then(|variant| {
            let cuda = variant_cuda(variant);
            if cuda.is_none() {
                row.wrong(
                    "variant",
                    format!("`{variant}` is not a CUDA variant such as \"cu128\""),
                );
            }
            cuda
        });
        let platform = row.string("platform", "\"x86_64\" or \"aarch64\"");
        if let Some(platform) = platform
            && !PLATFORMS.contains(&platform)
        {
            row.wrong(
                "platform",
                format!("`{platform}` is not one of {}", PLATFORMS.join(", ")),
            );
        }
        let mut arch = Vec::new();
        let entries = row.strings(
            "arch",
            "TORCH_CUDA_ARCH_LIST entries such as \"8.6\", \"9.0a\", \"12.0+PTX\"",
            true,
        );
        for text in entries.clone().unwrap_or_default() {
            match ArchEntry::parse(text) {
                Some(entry) => arch.push(entry),
                None => row.wrong(
                    "arch",
                    format!("`{text}` is not an entry such as \"8.6\", \"9.0a\" or \"12.0+PTX\""),
                ),
            }
        }
        if entries.is_some_and(|entries| entries.is_empty()) {
            row.wrong("arch", "is empty".to_string());
        }
        for pair in arch.windows(2) {
            let key = |entry: &ArchEntry| (entry.capability, entry.arch_specific);
            if key(&pair[1]) <= key(&pair[0]) {
                row.wrong(
                    "arch",
                    format!(
                        "entries are sorted and unique: `{}` comes after `{}`",
                        pair[1].text, pair[0].text
                    ),
                );
            }
        }
        let confidence = match row.string("confidence", "\"confirmed\" or \"unconfirmed\"") {
            Some("confirmed") => Some(RowEvidence::Confirmed),
            Some("unconfirmed") => Some(RowEvidence::Unconfirmed),
            Some(other) => {
                row.wrong(
                    "confidence",
                    format!("`{other}` is neither \"confirmed\" nor \"unconfirmed\""),
                );
                None
            }
            None => None,
        };
        let note = row.optional_string("note", "what the reader should know about the row");
        if confidence == Some(RowEvidence::Unconfirmed) && note.is_none() {
            row.missing("note", "an unconfirmed row says where its list was measured");
        }
        let source = source_url(&mut row);
        let span = row.span();
        if let (Some(release), Some(variant), Some(platform)) = (release, variant, platform) {
            order.push(((release, variant.to_string(), platform.to_string()), span.clone()));
        }
        if let (Some(release), Some(variant), Some(cuda), Some(platform), Some(confidence), Some(source)) =
            (release, variant, cuda, platform, confidence, source)
            && !arch.is_empty()
        {
            torch.builds.push(TorchBuildRow {
                torch: release,
                variant: variant.to_string(),
                cuda,
                platform: platform.to_string(),
                arch,
                confidence,
                note: note.map(str::to_string),
                source,
                span,
            });
        }
    }
    reader.check_order(&order, "build", "(torch, variant, platform)");
    for row in &torch.builds {
        if torch.release(row.torch).is_none() {
            reader.problem(
                row.span.clone(),
                format!(
                    "build {} {} has no [[release]] row for torch {}",
                    row.torch, row.variant, row.torch
                ),
            );
        }
    }
    torch
}
#[cfg(test)]
mod tests {
    use super::super::tests::builtin;
    use super::*;

    #[test]
    fn cubins_follow_pytorchs_device_requirement() {
        let cc = MajorMinor::new;
        assert!(cubin_runs_on(cc(8, 0), cc(8, 6)));
        assert!(cubin_runs_on(cc(8, 0), cc(8, 9)));
        assert!(
            !cubin_runs_on(cc(8, 6), cc(8, 0)),
            "a cubin never runs on an older minor"
        );
        assert!(!cubin_runs_on(cc(9, 0), cc(10, 0)), "nor on another major");
        assert!(!cubin_runs_on(cc(8, 0), cc(8, 7)), "Jetson Orin runs only sm_87 code");
        assert!(cubin_runs_on(cc(8, 7), cc(8, 7)));
        assert!(!cubin_runs_on(cc(8, 7), cc(8, 9)));
        assert!(!cubin_runs_on(cc(7, 0), cc(7, 2)));
        assert!(!cubin_runs_on(cc(10, 0), cc(10, 1)));
        assert!(cubin_runs_on(cc(10, 0), cc(10, 3)));
        assert!(cubin_runs_on(cc(10, 1), cc(11, 0)), "10.1 was renamed 11.0");
        assert!(cubin_runs_on(cc(12, 0), cc(12, 1)));
    }

    #[test]
    fn ptx_runs_on_newer_gpus_and_arch_specific_code_on_one() {
        let ptx = ArchEntry::parse("12.0+PTX").unwrap();
        assert!(ptx.runs_on(MajorMinor::new(12, 0)));
        assert!(
            ptx.runs_on(MajorMinor::new(13, 0)),
            "PTX is JIT-compiled for newer majors"
        );
        assert!(!ptx.runs_on(MajorMinor::new(10, 0)));
        let specific = ArchEntry::parse("9.0a").unwrap();
        assert!(specific.arch_specific && !specific.ptx);
        assert!(specific.runs_on(MajorMinor::new(9, 0)));
        assert!(!specific.runs_on(MajorMinor::new(9, 1)));
        assert_eq!(ArchEntry::parse("sm_90"), None);
        assert_eq!(variant_cuda("cu128"), Some(MajorMinor::new(12, 8)));
        assert_eq!(variant_cuda("cu130"), Some(MajorMinor::new(13, 0)));
        assert_eq!(variant_cuda("cpu"), None);
        assert_eq!(variant_cuda("rocm6.0"), None);
    }

    #[test]
    fn torch_builds_answer_known_questions() {
        let torch = &builtin().torch;
        let build = |release: (u64, u64), variant| {
            torch
                .build(MajorMinor::new(release.0, release.1), variant, "x86_64")
                .unwrap_or_else(|| panic!("{release:?} {variant}"))
        };
        let cc = MajorMinor::new;
        // A Blackwell RTX 50xx (12.0) cannot run a cu124 build: the field report in
        // compat-facts §2c (pytorch/pytorch:2.5.1-cuda12.4 on an RTX 5060, sm_120).
        assert!(build((2, 5), "cu124").runnable_entry(cc(12, 0)).is_none());
        assert!(build((2, 7), "cu128").runnable_entry(cc(12, 0)).is_some());
        // Pascal (6.1) is gone from cu128 builds and kept in cu126.
        assert!(build((2, 8), "cu128").runnable_entry(cc(6, 1)).is_none());
        assert!(build((2, 8), "cu126").runnable_entry(cc(6, 1)).is_some());
        // Volta came back in 2.8 cu128 and left again in 2.11.
        assert!(build((2, 8), "cu128").runnable_entry(cc(7, 0)).is_some());
        assert!(build((2, 11), "cu128").runnable_entry(cc(7, 0)).is_none());
        // GB10 (12.1) runs the 12.0 cubin; a future 13.x runs 12.0's PTX.
        assert!(build((2, 14), "cu130").runnable_entry(cc(12, 1)).is_some());
        assert_eq!(build((2, 14), "cu130").arch_list(), "7.5;8.0;8.6;9.0;10.0;12.0+PTX");
        assert_eq!(build((2, 3), "cu121").confidence, RowEvidence::Unconfirmed);
        let python = torch.release(MajorMinor::new(2, 9)).unwrap();
        assert_eq!((python.python_min, python.python_max), (cc(3, 10), cc(3, 14)));
    }
}
