//! CUDA libraries installed by `nvidia-*` Python distributions, read from the
//! files each one says it installed (its `RECORD`), so that no wheel layout is
//! guessed: CUDA 12 wheels put `libcudnn.so.9` in `nvidia/cudnn/lib/`, CUDA 13
//! ones put `libcudart.so.13` in `nvidia/cu13/lib/` (both RECORDs are in
//! tests/fixtures/cuda/records), and the next layout will be read the same way.

use std::fs;
use std::path::{Path, PathBuf};

use super::library_table::match_file_name;
use crate::snapshot::cuda::{Distribution, Library, LibraryFoundVia, LibraryVersionSource, Provider};
use crate::snapshot::packages::{MetadataFormat, Package};

#[derive(Debug, Default)]
pub struct WheelScan {
    pub libraries: Vec<Library>,
    /// `nvcc` compilers the distributions installed (`nvidia-cuda-nvcc-cu12`).
    pub nvcc: Vec<PathBuf>,
    pub problems: Vec<String>,
}

/// NVIDIA publishes its CUDA wheels under the `nvidia-` prefix on PyPI
/// (`nvidia-cudnn-cu12`, `nvidia-nccl-cu13`, `nvidia-cuda-runtime`, ...); the
/// names torch 2.x requires for its CUDA builds all have it.
const NVIDIA_PREFIX: &str = "nvidia-";

pub fn scan(packages: &[Package]) -> WheelScan {
    let mut scan = WheelScan::default();
    for package in packages {
        if !package.normalized_name.starts_with(NVIDIA_PREFIX) || package.metadata_format != MetadataFormat::DistInfo {
            continue;
        }
        let record = package.metadata_path.join("RECORD");
        let text = match crate::bounded_read::read_to_string(&record, crate::bounded_read::METADATA_LIMIT) {
            Ok(text) => text,
            Err(error) => {
                scan.problems.push(format!(
                    "{}: cannot read the RECORD of {} {}, so its libraries are not listed: {error}",
                    record.display(),
                    package.name,
                    package.version.as_deref().unwrap_or("(no version)")
                ));
                continue;
            }
        };
        for relative in record_paths(&text) {
            let path = package.location.join(&relative);
            if relative.ends_with("/bin/nvcc") {
                scan.nvcc.push(path);
                continue;
            }
            if let Some(library) = library_from_record(package, &record, &relative, path) {
                scan.libraries.push(library);
            }
        }
    }
    scan
}

fn library_from_record(package: &Package, record: &Path, relative: &str, path: PathBuf) -> Option<Library> {
    // Link-time stubs (`lib/stubs/libcuda.so`) are never loaded at run time.
    if relative.split('/').any(|part| part == "stubs") {
        return None;
    }
    let (spec, _) = match_file_name(relative.rsplit('/').next()?)?;
    let mut problems = Vec::new();
    let real_path = match fs::canonicalize(&path) {
        Ok(real) => Some(real),
        Err(error) => {
            problems.push(format!(
                "{}: listed in {} but not there: {error}",
                path.display(),
                record.display()
            ));
            None
        }
    };
    Some(Library {
        name: spec.name.to_string(),
        provided_by: Provider::Wheel,
        path,
        real_path,
        version: package.version.clone(),
        version_source: package.version.as_ref().map(|_| LibraryVersionSource::Distribution),
        version_file: None,
        distribution: Some(Distribution {
            name: package.name.clone(),
            version: package.version.clone(),
        }),
        toolkit_root: None,
        found_via: vec![LibraryFoundVia::WheelRecord],
        problems,
    })
}

/// The paths in a `RECORD`: the first field of each CSV row. The format is
/// PEP 376's, written with Python's `csv` module (packaging.python.org,
/// "Recording installed projects"): a field with a comma or a quote is quoted,
/// and a quote inside is doubled.
fn record_paths(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_end_matches('\r');
            let Some(quoted) = line.strip_prefix('"') else {
                return line
                    .split(',')
                    .next()
                    .filter(|path| !path.is_empty())
                    .map(str::to_string);
            };
            let mut path = String::new();
            let mut characters = quoted.chars().peekable();
            while let Some(character) = characters.next() {
                match character {
                    '"' if characters.peek() == Some(&'"') => {
                        path.push('"');
                        characters.next();
                    }
                    '"' => return Some(path),
                    other => path.push(other),
                }
            }
            None
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_in_a_real_cuda12_record() {
        // nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD from the PyPI wheel.
        let text = include_str!("../../../tests/fixtures/cuda/records/nvidia_cudnn_cu12-9.1.0.70.RECORD");
        let paths = record_paths(text);
        assert_eq!(paths.len(), 31);
        let libraries: Vec<_> = paths
            .iter()
            .filter_map(|path| match_file_name(path.rsplit('/').next().unwrap()))
            .map(|(spec, numbers)| (spec.name, numbers.join(".")))
            .collect();
        // libcudnn_ops.so.9 and the other sub-libraries are not cuDNN's main library.
        assert_eq!(libraries, [("cudnn", "9".to_string())]);
        assert!(paths.contains(&"nvidia/cudnn/lib/libcudnn.so.9".to_string()));
    }

    #[test]
    fn libraries_in_a_real_cuda13_record() {
        // nvidia_cuda_runtime-13.0.96.dist-info/RECORD: CUDA 13 wheels share nvidia/cu13/.
        let text = include_str!("../../../tests/fixtures/cuda/records/nvidia_cuda_runtime-13.0.96.RECORD");
        let found: Vec<_> = record_paths(text)
            .into_iter()
            .filter(|path| match_file_name(path.rsplit('/').next().unwrap()).is_some())
            .collect();
        assert_eq!(found, ["nvidia/cu13/lib/libcudart.so.13"]);
    }

    #[test]
    fn quoted_record_fields() {
        let text = "\"odd,name/lib\"\"x\"\"/libnccl.so.2\",sha256=abc,1\nplain/file,,\n\n";
        assert_eq!(record_paths(text), ["odd,name/lib\"x\"/libnccl.so.2", "plain/file"]);
    }
}
