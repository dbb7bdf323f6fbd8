//! The CUDA forward-compatibility libraries: which `libcuda.so.<version>` the
//! compat directories hold, read from the file names (the cuda-compat package
//! installs `libcuda.so.<driver version>` with the `libcuda.so.1` link, NVIDIA's
//! CUDA Compatibility guide), never by loading them. Whether they matter is the
//! checks' question: a compat libcuda no newer than the driver is never used.

use std::ffi::OsString;
use std::path::Path;

use super::library_table::match_file_name;
use super::system_libraries::file_names;
use crate::snapshot::cuda::{CompatLibcuda, ForwardCompat};

/// Where NGC images and the cuda-compat package put the libraries, under `usr_local`.
const DEFAULT_DIRECTORY: &str = "cuda/compat/lib";

/// `/usr/local/cuda/compat/lib`, then every absolute `LD_LIBRARY_PATH` entry
/// with a `compat` component, each once.
pub fn find(env: &dyn Fn(&str) -> Option<OsString>, usr_local: &Path) -> ForwardCompat {
    let mut searched = vec![usr_local.join(DEFAULT_DIRECTORY)];
    if let Some(value) = env("LD_LIBRARY_PATH") {
        for path in std::env::split_paths(&value).filter(|path| path.is_absolute()) {
            let names_compat = path.components().any(|part| part.as_os_str() == "compat");
            if names_compat && !searched.contains(&path) {
                searched.push(path);
            }
        }
    }
    let libcuda = searched.iter().flat_map(|directory| libcuda_in(directory)).collect();
    ForwardCompat { searched, libcuda }
}

/// The `libcuda.so.X.Y[.Z]` files of `directory` with their versions, sorted by name.
fn libcuda_in(directory: &Path) -> Vec<CompatLibcuda> {
    file_names(directory)
        .into_iter()
        .filter_map(|name| {
            let (spec, numbers) = match_file_name(&name)?;
            // `libcuda.so.1` is the soname link; only the full name carries the version.
            (spec.name == "cuda_driver" && numbers.len() >= 2).then(|| CompatLibcuda {
                path: directory.join(&name),
                version: numbers.join("."),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    fn touch(path: PathBuf) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, b"").unwrap();
    }

    #[test]
    fn reads_the_version_of_the_compat_libcuda_from_its_file_name() {
        let root = tempfile::tempdir().unwrap();
        let usr_local = root.path().join("usr/local");
        let lib = usr_local.join("cuda/compat/lib");
        touch(lib.join("libcuda.so.535.104.05"));
        touch(lib.join("libcuda.so.1"));
        touch(lib.join("libnvidia-ptxjitcompiler.so.535.104.05"));
        let found = find(&|_| None, &usr_local);
        assert_eq!(found.searched, vec![lib.clone()]);
        assert_eq!(
            found.libcuda,
            vec![CompatLibcuda {
                path: lib.join("libcuda.so.535.104.05"),
                version: "535.104.05".into(),
            }]
        );
    }

    #[test]
    fn an_empty_or_missing_compat_directory_holds_nothing() {
        // NGC images list the directory on LD_LIBRARY_PATH and create it only
        // when their entrypoint finds forward compatibility needed.
        let root = tempfile::tempdir().unwrap();
        let usr_local = root.path().join("usr/local");
        let other = root.path().join("opt/compat");
        fs::create_dir_all(&other).unwrap();
        let value = OsString::from(format!("{}:/usr/local/nvidia/lib64:relative/compat", other.display()));
        let env = move |name: &str| (name == "LD_LIBRARY_PATH").then(|| value.clone());
        let found = find(&env, &usr_local);
        assert_eq!(found.searched, vec![usr_local.join("cuda/compat/lib"), other]);
        assert!(found.libcuda.is_empty());
    }
}
