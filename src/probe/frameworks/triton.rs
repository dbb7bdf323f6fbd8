//! Triton's compiler backends.
//!
//! Since 3.0, triton's `backends/__init__.py` (`_discover_backends`) loads every
//! directory of `triton/backends/` that does not start with `__` as a backend
//! (`nvidia`, `amd` in the PyPI wheels); triton 2.x has no such directory and
//! builds CUDA support in.

use super::{Installed, list_names};
use crate::snapshot::frameworks::{Build, TritonBuild};

pub fn read(found: &Installed, problems: &mut Vec<String>) -> Build {
    let directory = found.package_dir.join("backends");
    let backends = directory.is_dir().then(|| {
        list_names(&directory, problems)
            .into_iter()
            .filter(|name| !name.starts_with("__") && directory.join(name).is_dir())
            .collect()
    });
    Build::Triton(TritonBuild { backends })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triton_3_1_0_wheel_layout() {
        // triton-3.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl holds
        // triton/backends/{__init__.py,compiler.py,driver.py,amd/,nvidia/}
        let root = tempfile::tempdir().unwrap();
        let package = root.path().join("triton");
        for file in [
            "backends/__init__.py",
            "backends/compiler.py",
            "backends/amd/compiler.py",
            "backends/nvidia/compiler.py",
            "backends/__pycache__/compiler.cpython-311.pyc",
        ] {
            let path = package.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let mut problems = Vec::new();
        let found = Installed {
            package_dir: &package,
            distribution: None,
        };
        let build = read(&found, &mut problems);
        assert_eq!(
            build,
            Build::Triton(TritonBuild {
                backends: Some(vec!["amd".into(), "nvidia".into()])
            })
        );
        std::fs::remove_dir_all(package.join("backends")).unwrap();
        assert_eq!(
            read(&found, &mut problems),
            Build::Triton(TritonBuild { backends: None })
        );
        assert!(problems.is_empty());
    }
}
