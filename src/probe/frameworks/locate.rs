//! Where `import <package>` would load a top-level package from, found on disk
//! the way Python's path-based finder looks, without running Python.

use std::fs;
use std::path::{Path, PathBuf};

use crate::probe::frameworks::python_literal::{self, Value};
use crate::snapshot::packages::Package;

/// How the package directory was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// A regular package (`<dir>/__init__.py`) in a `sys.path` entry.
    Regular { entry: PathBuf, directory: PathBuf },
    /// Only a directory without `__init__.py`: Python imports it as a namespace
    /// package, which for a framework means a partial install or leftovers.
    Namespace { entry: PathBuf, directory: PathBuf },
    /// Through the `MAPPING` of a setuptools editable-install finder.
    EditableFinder { finder: PathBuf, directory: PathBuf },
}

impl Located {
    pub fn directory(&self) -> &Path {
        match self {
            Located::Regular { directory, .. }
            | Located::Namespace { directory, .. }
            | Located::EditableFinder { directory, .. } => directory,
        }
    }
}

/// `importlib`'s `PathFinder` takes the first `sys.path` entry that holds the
/// package with its `__init__`; a bare directory counts only when no entry has
/// a regular package (PEP 420). setuptools' editable finders are appended to
/// `sys.meta_path`, after the path finder, so they come last.
pub fn package(sys_path: &[PathBuf], import_name: &str, distribution: Option<&Package>) -> Option<Located> {
    let mut namespace = None;
    for entry in sys_path {
        let directory = entry.join(import_name);
        if !directory.is_dir() {
            continue;
        }
        // CPython accepts `__init__` with any module suffix; these two are what
        // a wheel or a byte-compiled-only install leaves.
        if ["__init__.py", "__init__.pyc"]
            .iter()
            .any(|init| directory.join(init).is_file())
        {
            return Some(Located::Regular {
                entry: entry.clone(),
                directory,
            });
        }
        namespace.get_or_insert(Located::Namespace {
            entry: entry.clone(),
            directory,
        });
    }
    namespace.or_else(|| distribution.and_then(|package| through_editable_finder(package, import_name)))
}

/// setuptools writes `__editable___<name>_<version>_finder.py` with
/// `MAPPING: dict[str, str] = {mapping!r}` (pypa/setuptools,
/// setuptools/command/editable_wheel.py, `_FINDER_TEMPLATE`).
fn through_editable_finder(package: &Package, import_name: &str) -> Option<Located> {
    package
        .editable_hooks
        .iter()
        .filter(|hook| hook.extension().is_some_and(|extension| extension == "py"))
        .find_map(|finder| {
            let text = crate::bounded_read::read_to_string(finder, crate::bounded_read::METADATA_LIMIT).ok()?;
            let mapping = python_literal::assignments(&text).remove("MAPPING")?.ok()?;
            let directory = mapping.get(import_name).and_then(Value::as_str)?;
            Some(Located::EditableFinder {
                finder: finder.clone(),
                directory: PathBuf::from(directory),
            })
        })
}

/// Whether two paths name one directory, however they are spelled.
pub fn same_directory(left: &Path, right: &Path) -> bool {
    left == right
        || match (fs::canonicalize(left), fs::canonicalize(right)) {
            (Ok(left), Ok(right)) => left == right,
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "").unwrap();
    }

    #[test]
    fn the_first_regular_package_wins_over_an_earlier_bare_directory() {
        let root = tempfile::tempdir().unwrap();
        let (early, late) = (root.path().join("early"), root.path().join("late"));
        // A failed uninstall leaves `torch/lib` behind without `__init__.py`.
        touch(&early.join("torch/lib/libtorch_cuda.so"));
        touch(&late.join("torch/__init__.py"));
        let found = package(&[early.clone(), late.clone()], "torch", None).unwrap();
        assert_eq!(
            found,
            Located::Regular {
                entry: late.clone(),
                directory: late.join("torch")
            }
        );
        let only_bare = package(std::slice::from_ref(&early), "torch", None).unwrap();
        assert!(matches!(only_bare, Located::Namespace { .. }), "{only_bare:?}");
        assert_eq!(package(&[early], "deepspeed", None), None);
    }
}
