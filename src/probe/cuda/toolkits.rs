//! Where the CUDA toolkits are: every place a build or a user would look, one
//! entry per directory however many ways lead to it.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{Inputs, SearchRoots};
use crate::snapshot::cuda::{Toolkit, ToolkitFoundVia};

#[derive(Debug, Default)]
pub struct FoundToolkits {
    pub toolkits: Vec<Toolkit>,
    pub problems: Vec<String>,
}

/// The toolkits, without versions yet, in the order: the `nvcc` on `PATH`,
/// `CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda*`, conda, wheels. `CUDA_HOME` and
/// `CUDA_PATH` are the variables torch's `cpp_extension` and CMake's
/// FindCUDAToolkit read; `/usr/local/cuda` and `/usr/local/cuda-<version>` are
/// where NVIDIA's installers put toolkits (CUDA Installation Guide for Linux,
/// "Post-installation Actions").
pub fn find(inputs: &Inputs, roots: &SearchRoots, wheel_nvcc: &[PathBuf]) -> FoundToolkits {
    let mut found = FoundToolkits::default();
    let mut candidates: Vec<(PathBuf, ToolkitFoundVia)> = Vec::new();

    if let Some(root) = first_nvcc_on_path(inputs).and_then(|nvcc| root_of_nvcc(&nvcc)) {
        candidates.push((root, ToolkitFoundVia::Path));
    }
    for (variable, via) in [
        ("CUDA_HOME", ToolkitFoundVia::CudaHome),
        ("CUDA_PATH", ToolkitFoundVia::CudaPath),
    ] {
        let Some(value) = (inputs.env)(variable).filter(|value| !value.is_empty()) else {
            continue;
        };
        let path = PathBuf::from(value);
        if path.is_dir() {
            candidates.push((path, via));
        } else {
            found.problems.push(format!(
                "{variable}={} is not a directory, so it names no toolkit",
                path.display()
            ));
        }
    }
    candidates.extend(
        usr_local_toolkits(&roots.usr_local)
            .into_iter()
            .map(|path| (path, ToolkitFoundVia::UsrLocal)),
    );
    if let Some(prefix) = (inputs.env)("CONDA_PREFIX").filter(|value| !value.is_empty()) {
        let prefix = PathBuf::from(prefix);
        if looks_like_toolkit(&prefix) {
            candidates.push((prefix, ToolkitFoundVia::CondaPrefix));
        }
    }
    if looks_like_toolkit(inputs.python_prefix) {
        candidates.push((inputs.python_prefix.to_path_buf(), ToolkitFoundVia::PythonPrefix));
    }
    candidates.extend(
        wheel_nvcc
            .iter()
            .filter_map(|nvcc| root_of_nvcc(nvcc))
            .map(|root| (root, ToolkitFoundVia::Wheel)),
    );

    for (path, via) in candidates {
        let root = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let index = match found.toolkits.iter().position(|toolkit| toolkit.root == root) {
            Some(index) => index,
            None => {
                found.toolkits.push(empty_toolkit(root.clone()));
                found.toolkits.len() - 1
            }
        };
        let toolkit = &mut found.toolkits[index];
        if !toolkit.found_via.contains(&via) {
            toolkit.found_via.push(via);
        }
        if path != root && !toolkit.aliases.contains(&path) {
            toolkit.aliases.push(path);
        }
    }
    found
}

fn empty_toolkit(root: PathBuf) -> Toolkit {
    let nvcc = root.join("bin/nvcc");
    Toolkit {
        nvcc: nvcc.is_file().then_some(nvcc),
        root,
        found_via: Vec::new(),
        aliases: Vec::new(),
        version: None,
        version_source: None,
        version_file: None,
        nvcc_version: None,
        problems: Vec::new(),
    }
}

/// The `nvcc` that `nvcc` on the command line would run.
fn first_nvcc_on_path(inputs: &Inputs) -> Option<PathBuf> {
    let path = (inputs.env)("PATH")?;
    std::env::split_paths(&path)
        .filter(|directory| directory.is_absolute())
        .map(|directory| directory.join("nvcc"))
        .find(|nvcc| is_executable_file(nvcc))
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// `<root>/bin/nvcc` → `<root>`, spelled as found where that spelling leads to
/// the same place, else through the links: an alternatives symlink
/// `/usr/bin/nvcc` → `/usr/local/cuda-12.4/bin/nvcc` is the toolkit
/// `/usr/local/cuda-12.4`, not `/usr`.
fn root_of_nvcc(nvcc: &Path) -> Option<PathBuf> {
    let spelled = nvcc.parent()?.parent()?;
    let real_nvcc = fs::canonicalize(nvcc).ok()?;
    let real_root = real_nvcc.parent()?.parent()?;
    if fs::canonicalize(spelled).is_ok_and(|real| real == real_root) {
        Some(spelled.to_path_buf())
    } else {
        Some(real_root.to_path_buf())
    }
}

/// `cuda` and `cuda-*` directories (or links to directories), sorted.
fn usr_local_toolkits(usr_local: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(usr_local) else {
        return Vec::new();
    };
    let names: BTreeSet<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name == "cuda" || name.starts_with("cuda-"))
        .collect();
    names
        .into_iter()
        .map(|name| usr_local.join(name))
        .filter(|path| path.is_dir())
        .collect()
}

/// A conda environment holds a toolkit when it has `nvcc` (conda-forge's
/// `cuda-nvcc`), a `version.json`, or the runtime headers: conda-forge's CUDA
/// 12+ packages put headers under `$PREFIX/targets/<arch>/include`, as
/// NVIDIA's own layout does, not in `$PREFIX/include`.
fn looks_like_toolkit(prefix: &Path) -> bool {
    if prefix.join("bin/nvcc").is_file() || prefix.join("version.json").is_file() {
        return true;
    }
    fs::read_dir(prefix.join("targets")).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|entry| entry.path().join("include/cuda_runtime.h").is_file())
    })
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;
    use std::os::unix::fs::{PermissionsExt, symlink};

    use super::*;

    fn write_nvcc(root: &Path) {
        fs::create_dir_all(root.join("bin")).unwrap();
        fs::write(root.join("bin/nvcc"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(root.join("bin/nvcc"), fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn find_with(env: &dyn Fn(&str) -> Option<OsString>, usr_local: &Path, prefix: &Path) -> FoundToolkits {
        let roots = SearchRoots {
            usr_local: usr_local.to_path_buf(),
            ld_so_conf_d: usr_local.join("absent"),
            library_dirs: Vec::new(),
        };
        let inputs = Inputs {
            env,
            python_prefix: prefix,
            sys_path: &[],
            packages: &[],
        };
        find(&inputs, &roots, &[])
    }

    #[test]
    fn one_toolkit_reached_four_ways_is_one_entry_with_its_symlink_noted() {
        let machine = tempfile::tempdir().unwrap();
        let usr_local = machine.path().join("usr/local");
        let real = usr_local.join("cuda-12.4");
        write_nvcc(&real);
        symlink("cuda-12.4", usr_local.join("cuda")).unwrap();
        let link = usr_local.join("cuda");
        let path = std::env::join_paths([machine.path().join("nowhere"), link.join("bin")]).unwrap();
        let env = |name: &str| match name {
            "PATH" => Some(path.clone()),
            "CUDA_HOME" => Some(link.clone().into_os_string()),
            "CUDA_PATH" => Some(real.clone().into_os_string()),
            _ => None,
        };
        let found = find_with(&env, &usr_local, machine.path());
        assert_eq!(found.problems, Vec::<String>::new());
        assert_eq!(found.toolkits.len(), 1, "{:?}", found.toolkits);
        let toolkit = &found.toolkits[0];
        assert_eq!(toolkit.root, fs::canonicalize(&real).unwrap());
        assert_eq!(
            toolkit.found_via,
            [
                ToolkitFoundVia::Path,
                ToolkitFoundVia::CudaHome,
                ToolkitFoundVia::CudaPath,
                ToolkitFoundVia::UsrLocal
            ]
        );
        assert!(toolkit.aliases.contains(&link), "{:?}", toolkit.aliases);
        assert_eq!(toolkit.nvcc, Some(toolkit.root.join("bin/nvcc")));
    }

    #[test]
    fn an_nvcc_linked_from_usr_bin_belongs_to_the_toolkit_it_links_to() {
        let machine = tempfile::tempdir().unwrap();
        let toolkit = machine.path().join("opt/cuda-11.8");
        write_nvcc(&toolkit);
        fs::create_dir_all(machine.path().join("usr/bin")).unwrap();
        symlink(toolkit.join("bin/nvcc"), machine.path().join("usr/bin/nvcc")).unwrap();
        let path = machine.path().join("usr/bin").into_os_string();
        let env = |name: &str| (name == "PATH").then(|| path.clone());
        let found = find_with(&env, &machine.path().join("usr/local"), machine.path());
        assert_eq!(found.toolkits.len(), 1);
        assert_eq!(found.toolkits[0].root, fs::canonicalize(&toolkit).unwrap());
        assert_eq!(found.toolkits[0].found_via, [ToolkitFoundVia::Path]);
    }

    #[test]
    fn a_cuda_home_that_is_not_there_is_a_problem_and_no_toolkit() {
        let machine = tempfile::tempdir().unwrap();
        let env = |name: &str| (name == "CUDA_HOME").then(|| OsString::from("/nonexistent/cuda-99"));
        let found = find_with(&env, machine.path(), machine.path());
        assert!(found.toolkits.is_empty());
        assert_eq!(found.problems.len(), 1);
        assert!(
            found.problems[0].contains("CUDA_HOME=/nonexistent/cuda-99"),
            "{:?}",
            found.problems
        );
    }

    #[test]
    fn a_conda_environment_counts_only_when_it_holds_cuda() {
        let machine = tempfile::tempdir().unwrap();
        let plain = machine.path().join("envs/plain");
        fs::create_dir_all(plain.join("bin")).unwrap();
        let with_cuda = machine.path().join("envs/cuda");
        fs::create_dir_all(with_cuda.join("targets/x86_64-linux/include")).unwrap();
        fs::write(with_cuda.join("targets/x86_64-linux/include/cuda_runtime.h"), "").unwrap();

        let env = |name: &str| (name == "CONDA_PREFIX").then(|| plain.clone().into_os_string());
        assert!(find_with(&env, machine.path(), &plain).toolkits.is_empty());

        let env = |name: &str| (name == "CONDA_PREFIX").then(|| with_cuda.clone().into_os_string());
        let found = find_with(&env, machine.path(), &with_cuda);
        assert_eq!(found.toolkits.len(), 1);
        assert_eq!(
            found.toolkits[0].found_via,
            [ToolkitFoundVia::CondaPrefix, ToolkitFoundVia::PythonPrefix]
        );
    }
}
