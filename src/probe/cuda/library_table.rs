//! Which files are which CUDA library: a table, and the one rule that matches a
//! file name against it.

/// One library the probe looks for.
#[derive(Debug)]
pub struct LibrarySpec {
    /// The name in the Snapshot.
    pub name: &'static str,
    /// The file name before the version: `libcudnn.so` matches `libcudnn.so`,
    /// `libcudnn.so.9` and `libcudnn.so.9.1.0`, and not `libcudnn_ops.so.9`.
    pub stem: &'static str,
    /// Headers that carry the version when the file name does not, tried in order;
    /// `{major}` stands for the soname's major version.
    pub headers: &'static [&'static str],
    /// Installed by the driver, never by a wheel or a toolkit.
    pub driver: bool,
}

/// The file names are the ones torch itself looks for when it preloads the
/// wheels' libraries: `cuda_libs` in `_load_global_deps`, torch/__init__.py
/// (pytorch/pytorch at 0027c653a25545d8fff1b053ddb722a86722adf8): `libcudart.so.*[0-9]`,
/// `libcublas.so.*[0-9]`, `libcudnn.so.*[0-9]`, `libnccl.so.*[0-9]`,
/// `libnvJitLink.so.*[0-9]`, `libcusparse.so.*[0-9]`, `libcufft.so.*[0-9]`.
/// `libcublasLt` sits beside `libcublas` in the `nvidia-cublas-cu12` wheel
/// (its RECORD, tests/fixtures/cuda/records). The driver's user-space library
/// is `libcuda.so.1`, a link to `libcuda.so.<driver version>` (NVIDIA Linux
/// driver README, "Installed Components").
///
/// The headers: cuDNN 8 and later keep the version in `cudnn_version.h`
/// (`CUDNN_MAJOR`, `CUDNN_MINOR`, `CUDNN_PATCHLEVEL`; the nvidia-cudnn-cu12
/// wheel also ships `cudnn_version_v9.h`), cuDNN 7 in `cudnn.h`; NCCL in
/// `nccl.h` (`NCCL_MAJOR`, `NCCL_MINOR`, `NCCL_PATCH`, NVIDIA/nccl src/nccl.h.in).
pub const LIBRARIES: &[LibrarySpec] = &[
    LibrarySpec {
        name: "cudart",
        stem: "libcudart.so",
        headers: &[],
        driver: false,
    },
    LibrarySpec {
        name: "cublas",
        stem: "libcublas.so",
        headers: &[],
        driver: false,
    },
    LibrarySpec {
        name: "cublaslt",
        stem: "libcublasLt.so",
        headers: &[],
        driver: false,
    },
    LibrarySpec {
        name: "cudnn",
        stem: "libcudnn.so",
        headers: &["cudnn_version.h", "cudnn_version_v{major}.h", "cudnn.h"],
        driver: false,
    },
    LibrarySpec {
        name: "nccl",
        stem: "libnccl.so",
        headers: &["nccl.h"],
        driver: false,
    },
    LibrarySpec {
        name: "nvjitlink",
        stem: "libnvJitLink.so",
        headers: &[],
        driver: false,
    },
    LibrarySpec {
        name: "cusparse",
        stem: "libcusparse.so",
        headers: &[],
        driver: false,
    },
    LibrarySpec {
        name: "cufft",
        stem: "libcufft.so",
        headers: &[],
        driver: false,
    },
    LibrarySpec {
        name: "cuda_driver",
        stem: "libcuda.so",
        headers: &[],
        driver: true,
    },
];

/// The library a file name belongs to, and the version numbers after its stem
/// (`libcublas.so.12.4.5.8` is cuBLAS with `[12, 4, 5, 8]`; `libcublas.so`, `[]`).
pub fn match_file_name(file_name: &str) -> Option<(&'static LibrarySpec, Vec<String>)> {
    LIBRARIES.iter().find_map(|spec| {
        let rest = file_name.strip_prefix(spec.stem)?;
        if rest.is_empty() {
            return Some((spec, Vec::new()));
        }
        let numbers: Vec<String> = rest.strip_prefix('.')?.split('.').map(str::to_string).collect();
        numbers
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
            .then_some((spec, numbers))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(file_name: &str) -> Option<(&'static str, String)> {
        match_file_name(file_name).map(|(spec, numbers)| (spec.name, numbers.join(".")))
    }

    #[test]
    fn names_the_library_and_its_version_numbers() {
        assert_eq!(matched("libcublas.so.12.4.5.8"), Some(("cublas", "12.4.5.8".into())));
        assert_eq!(matched("libcublasLt.so.12"), Some(("cublaslt", "12".into())));
        assert_eq!(matched("libcudnn.so"), Some(("cudnn", String::new())));
        assert_eq!(matched("libcuda.so.1"), Some(("cuda_driver", "1".into())));
        assert_eq!(matched("libnvJitLink.so.12"), Some(("nvjitlink", "12".into())));
    }

    #[test]
    fn other_files_with_a_shared_prefix_are_not_the_library() {
        for name in [
            "libcudnn_ops.so.9",
            "libcudart_static.a",
            "libcudadevrt.a",
            "libcudart.so.12.bak",
            "libcuda.so.1.",
            "libnccl.so.2.21.5.sig",
            "libnvblas.so.12",
        ] {
            assert_eq!(matched(name), None, "{name}");
        }
    }

    #[test]
    fn stems_are_unique_and_none_is_a_prefix_of_another_with_a_dot() {
        // A stem that were a prefix of another plus '.' would steal its files.
        for a in LIBRARIES {
            for b in LIBRARIES {
                if a.name != b.name {
                    assert!(!b.stem.starts_with(&format!("{}.", a.stem)), "{} {}", a.name, b.name);
                    assert_ne!(a.stem, b.stem);
                }
            }
        }
    }
}
