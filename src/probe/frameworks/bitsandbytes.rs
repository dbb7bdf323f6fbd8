//! The native libraries bitsandbytes ships, which decide the backends and CUDA
//! versions it can run with.
//!
//! bitsandbytes' CMakeLists.txt (bitsandbytes-foundation/bitsandbytes) names the
//! library `libbitsandbytes_` + `cpu`, `cuda{major}{minor}`, `rocm{major}{minor}`
//! (the HIP version), `mps` or `xpu`; its `cextension.py` adds `xpu{year}`
//! (the first four characters of `torch.version.xpu`) and reads CUDA codes as
//! two major digits (`118` -> 11.8) and ROCm codes as one (`72` -> 7.2,
//! `713` -> 7.13). Releases before 0.44 also shipped `_nocublaslt` variants
//! for GPUs without int8 tensor cores. The suffix is the platform's: `.so`,
//! `.dylib`, `.dll`.

use super::version_tags::split_digits;
use super::{Installed, list_names};
use crate::snapshot::frameworks::{BitsAndBytesBuild, Build, NativeLibrary};

const PREFIX: &str = "libbitsandbytes_";
const SUFFIXES: [&str; 3] = [".so", ".dylib", ".dll"];

pub fn read(found: &Installed, problems: &mut Vec<String>) -> Build {
    let names = list_names(found.package_dir, problems);
    let native_libraries: Vec<NativeLibrary> = names.iter().filter_map(|name| parse_library(name)).collect();
    if native_libraries.is_empty() {
        problems.push(format!(
            "{}: no native library ({PREFIX}*): every quantized operation fails to load",
            found.package_dir.display()
        ));
    }
    Build::Bitsandbytes(BitsAndBytesBuild { native_libraries })
}

pub fn parse_library(file: &str) -> Option<NativeLibrary> {
    let stem = SUFFIXES
        .iter()
        .find_map(|suffix| file.strip_suffix(suffix))?
        .strip_prefix(PREFIX)?;
    let (tag, variant) = match stem.split_once('_') {
        Some((tag, variant)) => (tag, Some(variant.to_string())),
        None => (stem, None),
    };
    let letters_end = tag
        .find(|character: char| !character.is_ascii_alphabetic())
        .unwrap_or(tag.len());
    let (backend, rest) = tag.split_at(letters_end);
    let (digits, trailing) = split_digits(rest);
    if backend.is_empty() || !trailing.is_empty() {
        return None;
    }
    let version = match (backend, digits.len()) {
        (_, 0) => None,
        ("cuda", 3..) => Some(format!("{}.{}", &digits[..2], &digits[2..])),
        ("rocm", 2..) => Some(format!("{}.{}", &digits[..1], &digits[1..])),
        _ => Some(digits.to_string()),
    };
    Some(NativeLibrary {
        file: file.to_string(),
        backend: backend.to_string(),
        version,
        variant,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/frameworks");

    fn libraries(wheel: &str) -> Vec<NativeLibrary> {
        let path = format!("{FIXTURES}/{wheel}.native-libraries.txt");
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|name| parse_library(name).unwrap_or_else(|| panic!("{name} not read")))
            .collect()
    }

    fn summary(libraries: &[NativeLibrary]) -> Vec<String> {
        libraries
            .iter()
            .map(|library| {
                let mut text = library.backend.clone();
                if let Some(version) = &library.version {
                    text = format!("{text} {version}");
                }
                if let Some(variant) = &library.variant {
                    text = format!("{text} ({variant})");
                }
                text
            })
            .collect()
    }

    #[test]
    fn bitsandbytes_0_41_1_ships_cuda_11_0_to_12_2_with_nocublaslt_variants() {
        let all = libraries("bitsandbytes-0.41.1-py3-none-any");
        assert_eq!(all.len(), 19);
        assert_eq!(summary(&all[..3]), ["cpu", "cuda 11.0", "cuda 11.0 (nocublaslt)"]);
        assert_eq!(summary(&all[all.len() - 1..]), ["cuda 12.2 (nocublaslt)"]);
    }

    #[test]
    fn bitsandbytes_0_50_2_linux_ships_cuda_rocm_and_xpu() {
        let all = libraries("bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64");
        assert_eq!(
            summary(&all),
            [
                "cpu",
                "cuda 11.8",
                "cuda 12.1",
                "cuda 12.4",
                "cuda 12.6",
                "cuda 12.8",
                "cuda 13.0",
                "cuda 13.2",
                "rocm 6.4",
                "rocm 7.0",
                "rocm 7.1",
                "rocm 7.14",
                "rocm 7.15",
                "rocm 7.2",
                "xpu 2025",
                "xpu 2026"
            ]
        );
    }

    #[test]
    fn other_platforms_and_releases() {
        assert_eq!(
            summary(&libraries("bitsandbytes-0.49.2-py3-none-macosx_14_0_arm64")),
            ["cpu"]
        );
        let windows = libraries("bitsandbytes-0.49.2-py3-none-win_amd64");
        assert_eq!(windows[1].file, "libbitsandbytes_cuda118.dll");
        assert_eq!(summary(&windows).last().map(String::as_str), Some("xpu"));
        let release_0_48 = libraries("bitsandbytes-0.48.2-py3-none-manylinux_2_24_x86_64");
        assert_eq!(release_0_48.len(), 13);
        let release_0_43 = libraries("bitsandbytes-0.43.1-py3-none-manylinux_2_24_x86_64");
        assert_eq!(summary(&release_0_43[1..3]), ["cuda 11.7", "cuda 11.7 (nocublaslt)"]);
    }

    #[test]
    fn other_files_are_not_libraries() {
        for name in [
            "__init__.py",
            "libbitsandbytes_cuda121.so.bak",
            "libbitsandbytes_.so",
            "libbitsandbytes_12.so",
            "libbitsandbytes_cuda12x.so",
            "bitsandbytes.metallib",
        ] {
            assert_eq!(parse_library(name), None, "{name}");
        }
        assert_eq!(parse_library("libbitsandbytes_mps.dylib").unwrap().backend, "mps");
    }

    #[test]
    fn a_package_without_libraries_is_a_problem() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("__init__.py"), "").unwrap();
        let mut problems = Vec::new();
        let found = Installed {
            package_dir: root.path(),
            distribution: None,
        };
        read(&found, &mut problems);
        assert!(problems[0].contains("no native library"), "{problems:?}");
    }
}
