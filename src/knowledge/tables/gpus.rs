//! `gpus.toml`: the compute capability of each GPU model, as NVML names it,
//! the architecture each capability belongs to, the first CUDA that
//! compiles code for each compute capability major, and the CUDA toolkits
//! whose nvcc compiles for a capability at all.

use std::collections::BTreeSet;

use toml_edit::Table;

use super::{Capability, MajorMinor, major_minor, source_url};
use crate::knowledge::reader::{Reader, Row};

#[derive(Debug, Clone, Default)]
pub struct GpuTables {
    pub models: Vec<GpuModel>,
    pub architectures: Vec<Architecture>,
    pub first_cuda: Vec<FirstCuda>,
    pub nvcc_targets: Vec<NvccTarget>,
}

/// The CUDA toolkits whose nvcc compiles for one compute capability: from
/// `first_cuda` on, and before `removed_in`.
#[derive(Debug, Clone)]
pub struct NvccTarget {
    pub compute_capability: Capability,
    pub first_cuda: Option<MajorMinor>,
    pub removed_in: Option<MajorMinor>,
    pub source: String,
}

/// The first CUDA whose compiler targets a compute capability major: code
/// built with an older CUDA has no cubin a GPU of that major runs, since a
/// cubin runs only on GPUs of its own major.
#[derive(Debug, Clone)]
pub struct FirstCuda {
    pub major: u64,
    pub cuda: MajorMinor,
    pub source: String,
}

#[derive(Debug, Clone)]
pub struct GpuModel {
    pub name: String,
    pub compute_capability: Capability,
    pub source: String,
    words: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Architecture {
    pub name: String,
    pub compute_capabilities: Vec<Capability>,
    pub source: String,
}

/// A GPU name as words: lower case, split at spaces and dashes.
fn words(name: &str) -> Vec<String> {
    name.split([' ', '-'])
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

impl GpuTables {
    /// The model row whose name occurs in `nvml_name` as a whole run of words;
    /// the longest such name when several do.
    pub fn model(&self, nvml_name: &str) -> Option<&GpuModel> {
        let name = words(nvml_name);
        self.models
            .iter()
            .filter(|model| {
                name.windows(model.words.len())
                    .any(|window| window == model.words.as_slice())
            })
            .max_by_key(|model| model.words.len())
    }

    pub fn architecture(&self, capability: Capability) -> Option<&Architecture> {
        self.architectures
            .iter()
            .find(|row| row.compute_capabilities.contains(&capability))
    }

    /// The toolkits whose nvcc compiles for `capability`, where the table dates them.
    pub fn nvcc_target(&self, capability: Capability) -> Option<&NvccTarget> {
        self.nvcc_targets
            .iter()
            .find(|row| row.compute_capability == capability)
    }

    /// The first CUDA that compiles code for `capability`'s major, where the table knows it.
    pub fn first_cuda(&self, capability: Capability) -> Option<&FirstCuda> {
        self.first_cuda.iter().find(|row| row.major == capability.major)
    }
}

pub(super) fn read(root: &Table, reader: &mut Reader) -> GpuTables {
    reader.only_kinds(root, &["gpu", "architecture", "first_cuda", "nvcc_target"]);
    let mut gpus = GpuTables::default();

    let mut order = Vec::new();
    let mut names = BTreeSet::new();
    for table in reader.rows(root, "gpu") {
        let mut row = reader.row(table, "gpu", &["name", "compute_capability", "source"]);
        let name = row.string("name", "the model as NVIDIA names it, such as \"H100\"");
        let capability = major_minor(&mut row, "compute_capability", "such as \"9.0\"");
        let source = source_url(&mut row);
        if let Some(name) = name {
            let key = words(name);
            if key.is_empty() {
                row.wrong("name", "is empty".to_string());
            } else if !names.insert(key) {
                row.wrong("name", format!("`{name}` is listed twice"));
            }
        }
        if let (Some(name), Some(capability)) = (name, capability) {
            order.push(((capability, name.to_ascii_lowercase()), row.span()));
        }
        if let (Some(name), Some(compute_capability), Some(source)) = (name, capability, source)
            && !name.trim().is_empty()
        {
            gpus.models.push(GpuModel {
                name: name.to_string(),
                compute_capability,
                source,
                words: words(name),
            });
        }
    }
    reader.check_order(&order, "gpu", "(compute_capability, name)");

    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for table in reader.rows(root, "architecture") {
        let mut row = reader.row(table, "architecture", &["name", "compute_capabilities", "source"]);
        let name = row.string("name", "such as \"Hopper\"");
        let mut capabilities = Vec::new();
        for text in row
            .strings("compute_capabilities", "such as [\"9.0\"]", true)
            .unwrap_or_default()
        {
            match MajorMinor::parse(text) {
                Some(capability) if !seen.insert(capability) => row.wrong(
                    "compute_capabilities",
                    format!("{capability} belongs to another architecture too"),
                ),
                Some(capability) => capabilities.push(capability),
                None => row.wrong("compute_capabilities", format!("`{text}` is not MAJOR.MINOR")),
            }
        }
        if capabilities.windows(2).any(|pair| pair[1] <= pair[0]) {
            row.wrong("compute_capabilities", "are sorted and unique".to_string());
        }
        let source = source_url(&mut row);
        if let Some(first) = capabilities.first() {
            order.push((*first, row.span()));
        }
        if let (Some(name), Some(source)) = (name, source)
            && !capabilities.is_empty()
        {
            gpus.architectures.push(Architecture {
                name: name.to_string(),
                compute_capabilities: capabilities,
                source,
            });
        }
    }
    reader.check_order(&order, "architecture", "first compute capability");

    let mut order = Vec::new();
    // Site tables written before this kind existed have none: their builds are then not judged by it.
    for table in reader.optional_rows(root, "first_cuda") {
        let mut row = reader.row(table, "first_cuda", &["major", "cuda", "source"]);
        let major = row.integer("major", "a compute capability major, such as 8");
        let cuda = major_minor(&mut row, "cuda", "such as \"11.0\"");
        let source = source_url(&mut row);
        if let Some(major) = major {
            order.push((major, row.span()));
        }
        if let (Some(major), Some(cuda), Some(source)) = (major, cuda, source) {
            gpus.first_cuda.push(FirstCuda { major, cuda, source });
        }
    }
    reader.check_order(&order, "first_cuda", "major");

    let mut order = Vec::new();
    for table in reader.optional_rows(root, "nvcc_target") {
        let mut row = reader.row(
            table,
            "nvcc_target",
            &["compute_capability", "first_cuda", "removed_in", "source"],
        );
        let capability = major_minor(&mut row, "compute_capability", "such as \"8.6\"");
        let version = |row: &mut Row, key| {
            let text = row.optional_string(key, "a CUDA version, such as \"11.1\"")?;
            let parsed = MajorMinor::parse(text);
            if parsed.is_none() {
                row.wrong(key, format!("`{text}` is not MAJOR.MINOR"));
            }
            parsed
        };
        let first_cuda = version(&mut row, "first_cuda");
        let removed_in = version(&mut row, "removed_in");
        if first_cuda.is_none() && removed_in.is_none() {
            row.missing(
                "first_cuda",
                "`first_cuda` or `removed_in`, the toolkits that compile for it",
            );
        }
        let source = source_url(&mut row);
        if let Some(capability) = capability {
            order.push((capability, row.span()));
        }
        if let (Some(compute_capability), Some(source)) = (capability, source)
            && (first_cuda.is_some() || removed_in.is_some())
        {
            gpus.nvcc_targets.push(NvccTarget {
                compute_capability,
                first_cuda,
                removed_in,
                source,
            });
        }
    }
    reader.check_order(&order, "nvcc_target", "compute_capability");
    gpus
}
#[cfg(test)]
mod tests {
    use super::super::tests::builtin;
    use super::*;

    #[test]
    fn gpu_names_match_whole_words_and_prefer_the_longest() {
        let gpus = &builtin().gpus;
        let capability = |name| gpus.model(name).map(|model| model.compute_capability.to_string());
        assert_eq!(capability("NVIDIA H100 80GB HBM3").as_deref(), Some("9.0"));
        assert_eq!(capability("NVIDIA A100-SXM4-80GB").as_deref(), Some("8.0"));
        assert_eq!(capability("NVIDIA A10").as_deref(), Some("8.6"));
        assert_eq!(
            capability("NVIDIA A10G"),
            None,
            "A10G is not listed and must not read as A10"
        );
        assert_eq!(capability("Tesla T4").as_deref(), Some("7.5"));
        assert_eq!(capability("Tesla V100-SXM2-32GB").as_deref(), Some("7.0"));
        assert_eq!(capability("NVIDIA GH200 480GB").as_deref(), Some("9.0"));
        assert_eq!(capability("NVIDIA RTX 6000 Ada Generation").as_deref(), Some("8.9"));
        assert_eq!(capability("NVIDIA GeForce RTX 5090").as_deref(), Some("12.0"));
        assert_eq!(capability("NVIDIA L40S").as_deref(), Some("8.9"));
        let arch = |major, minor| {
            gpus.architecture(MajorMinor::new(major, minor))
                .map(|row| row.name.as_str())
        };
        assert_eq!(arch(9, 0), Some("Hopper"));
        assert_eq!(arch(12, 0), Some("Blackwell"));
        assert_eq!(arch(8, 9), Some("Ada Lovelace"));
        assert_eq!(arch(4, 0), None);
        let first = |major, minor| {
            gpus.first_cuda(MajorMinor::new(major, minor))
                .map(|row| row.cuda.to_string())
        };
        assert_eq!(first(8, 6).as_deref(), Some("11.0"));
        assert_eq!(first(9, 0).as_deref(), Some("11.8"));
        assert_eq!(first(12, 0).as_deref(), Some("12.8"));
        assert_eq!(first(7, 5), None, "not in the table: not guessed");
        let nvcc = |major, minor| {
            gpus.nvcc_target(MajorMinor::new(major, minor)).map(|row| {
                (
                    row.first_cuda.map(|cuda| cuda.to_string()),
                    row.removed_in.map(|cuda| cuda.to_string()),
                )
            })
        };
        assert_eq!(nvcc(8, 6), Some((Some("11.1".into()), None)));
        assert_eq!(nvcc(3, 7), Some((None, Some("12.0".into()))));
        assert_eq!(nvcc(6, 1), Some((None, Some("13.0".into()))));
        assert_eq!(nvcc(7, 5), None, "not dated here: not guessed");
    }
}
