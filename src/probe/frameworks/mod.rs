//! Build facts of the frameworks a training job imports (torch, DeepSpeed,
//! bitsandbytes, ...), read from the files they install, never by importing them.
//!
//! Which frameworks, which distributions install them, which package directory
//! `import` loads and which reader knows its files is one table, [`FRAMEWORKS`]:
//! adding a framework is adding a row. Each reader lives in its own module and
//! turns what it cannot read into a problem string naming the file; a probe
//! never fails.

mod bitsandbytes;
mod deepspeed;
mod flash_attn;
mod locate;
mod python_literal;
mod torch;
mod triton;
mod version_tags;
mod xformers;

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::snapshot::frameworks::{Build, Framework, Frameworks};
use crate::snapshot::packages::Package;

/// What a reader is given about one framework.
pub(crate) struct Installed<'a> {
    pub package_dir: &'a Path,
    pub distribution: Option<&'a Package>,
}

type Reader = fn(&Installed, &mut Vec<String>) -> Build;

/// One row of the table.
pub(crate) struct Spec {
    pub name: &'static str,
    /// PEP 503-normalized names of the distributions that install it, most usual first.
    pub distributions: &'static [&'static str],
    /// The top-level package `import` loads.
    pub import_name: &'static str,
    pub read: Option<Reader>,
}

/// The frameworks envdoctor knows. Distribution names and import names are
/// each project's own (its `setup.py`/`pyproject.toml` and its wheels' file lists).
pub(crate) const FRAMEWORKS: &[Spec] = &[
    Spec {
        name: "torch",
        distributions: &["torch"],
        import_name: "torch",
        read: Some(torch::read_torch),
    },
    Spec {
        name: "torchvision",
        distributions: &["torchvision"],
        import_name: "torchvision",
        read: Some(torch::read_companion),
    },
    Spec {
        name: "torchaudio",
        distributions: &["torchaudio"],
        import_name: "torchaudio",
        read: Some(torch::read_companion),
    },
    Spec {
        name: "deepspeed",
        distributions: &["deepspeed"],
        import_name: "deepspeed",
        read: Some(deepspeed::read),
    },
    Spec {
        name: "bitsandbytes",
        distributions: &["bitsandbytes"],
        import_name: "bitsandbytes",
        read: Some(bitsandbytes::read),
    },
    Spec {
        name: "flash-attn",
        distributions: &["flash-attn"],
        import_name: "flash_attn",
        read: Some(flash_attn::read),
    },
    Spec {
        name: "xformers",
        distributions: &["xformers"],
        import_name: "xformers",
        read: Some(xformers::read),
    },
    // PyTorch's own builds of triton are distributed as `pytorch-triton` (nightly)
    // and `pytorch-triton-rocm` (ROCm wheels); both install the `triton` package.
    Spec {
        name: "triton",
        distributions: &["triton", "pytorch-triton", "pytorch-triton-rocm"],
        import_name: "triton",
        read: Some(triton::read),
    },
    Spec {
        name: "transformers",
        distributions: &["transformers"],
        import_name: "transformers",
        read: None,
    },
    Spec {
        name: "accelerate",
        distributions: &["accelerate"],
        import_name: "accelerate",
        read: None,
    },
    Spec {
        name: "peft",
        distributions: &["peft"],
        import_name: "peft",
        read: None,
    },
    Spec {
        name: "adapters",
        distributions: &["adapters"],
        import_name: "adapters",
        read: None,
    },
    // adapter-transformers is a fork that installs its own `transformers`
    // package (the adapter_transformers-3.2.1 wheel holds only `transformers/`),
    // so it overwrites, or is overwritten by, transformers itself.
    Spec {
        name: "adapter-transformers",
        distributions: &["adapter-transformers"],
        import_name: "transformers",
        read: None,
    },
];

pub fn probe(sys_path: &[PathBuf], packages: &[Package]) -> Frameworks {
    let installed: HashMap<&str, &Package> = packages
        .iter()
        .map(|package| (package.normalized_name.as_str(), package))
        .collect();
    let distribution_of =
        |spec: &Spec| -> Option<&Package> { spec.distributions.iter().find_map(|name| installed.get(name).copied()) };
    let mut frameworks = Frameworks::new();
    for spec in FRAMEWORKS {
        let distribution = distribution_of(spec);
        // Without its own distribution, a directory shared with another row
        // belongs to the row whose distribution is installed.
        let claimed_elsewhere = FRAMEWORKS.iter().any(|other| {
            other.name != spec.name && other.import_name == spec.import_name && distribution_of(other).is_some()
        });
        if distribution.is_none() && claimed_elsewhere {
            continue;
        }
        let located = locate::package(sys_path, spec.import_name, distribution);
        if distribution.is_none() && located.is_none() {
            continue;
        }
        frameworks.insert(spec.name.to_string(), describe(spec, distribution, located));
    }
    note_shared_directories(&mut frameworks);
    frameworks
}

fn describe(spec: &Spec, distribution: Option<&Package>, located: Option<locate::Located>) -> Framework {
    let mut problems = Vec::new();
    let import_name = spec.import_name;
    match (&located, distribution) {
        (None, Some(package)) => problems.push(format!(
            "{}: distribution {} {} is installed here, but no `{import_name}` package is on sys.path: \
             `import {import_name}` fails",
            package.location.display(),
            package.name,
            package.version.as_deref().unwrap_or("(no version)"),
        )),
        (Some(located), None) => problems.push(format!(
            "{}: no installed distribution provides it: files copied in by hand, or left behind by an uninstall",
            located.directory().display()
        )),
        _ => {}
    }
    if let Some(locate::Located::Namespace { directory, .. }) = &located {
        problems.push(format!(
            "{}: has no __init__.py, so Python imports it as an empty namespace package: \
             a partial install or the leftovers of an uninstall",
            directory.display()
        ));
    }
    if let (Some(locate::Located::Regular { entry, directory }), Some(package)) = (&located, distribution) {
        let editable_source = package
            .editable_project_location
            .as_deref()
            .is_some_and(|project| directory.starts_with(project));
        if !editable_source && !locate::same_directory(entry, &package.location) {
            problems.push(format!(
                "{}: `import {import_name}` loads this, but distribution {} {} is installed in {}: \
                 the import does not come from the installed distribution",
                directory.display(),
                package.name,
                package.version.as_deref().unwrap_or("(no version)"),
                package.location.display()
            ));
        }
    }
    let package_dir = located.map(|located| located.directory().to_path_buf());
    let build = match (spec.read, &package_dir) {
        (Some(read), Some(package_dir)) => Some(read(
            &Installed {
                package_dir,
                distribution,
            },
            &mut problems,
        )),
        _ => None,
    };
    Framework {
        name: spec.name.to_string(),
        distribution: distribution.map(|package| package.name.clone()),
        version: distribution.and_then(|package| package.version.clone()),
        package_dir,
        build,
        problems,
    }
}

/// Two distributions that install one directory overwrite each other's files.
fn note_shared_directories(frameworks: &mut Frameworks) {
    let mut owners: BTreeMap<PathBuf, Vec<(String, String)>> = BTreeMap::new();
    for (name, framework) in frameworks.iter() {
        if let (Some(directory), Some(distribution)) = (&framework.package_dir, &framework.distribution) {
            owners
                .entry(directory.clone())
                .or_default()
                .push((name.clone(), distribution.clone()));
        }
    }
    for (directory, sharing) in owners.into_iter().filter(|(_, sharing)| sharing.len() > 1) {
        for (name, _) in &sharing {
            let others: Vec<&str> = sharing
                .iter()
                .filter(|(other, _)| other != name)
                .map(|(_, distribution)| distribution.as_str())
                .collect();
            if let Some(framework) = frameworks.get_mut(name) {
                framework.problems.push(format!(
                    "{}: also installed by {}: whichever was installed last overwrote the other's files",
                    directory.display(),
                    others.join(", ")
                ));
            }
        }
    }
}

/// A file a reader needs: `None` when absent (the reader says what that
/// means); any other failure is a problem.
pub(crate) fn read_text(path: &Path, problems: &mut Vec<String>) -> Option<String> {
    match crate::bounded_read::read(path, crate::bounded_read::METADATA_LIMIT) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(_) => {
                problems.push(format!("{}: not valid UTF-8", path.display()));
                None
            }
        },
        Err(error) if error.kind() == ErrorKind::NotFound => None,
        Err(error) => {
            problems.push(format!("{}: cannot read: {error}", path.display()));
            None
        }
    }
}

/// The names in a directory, sorted; a missing directory has none.
pub(crate) fn list_names(directory: &Path, problems: &mut Vec<String>) -> Vec<String> {
    match fs::read_dir(directory) {
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort_unstable();
            names
        }
        Err(error) if error.kind() == ErrorKind::NotFound => Vec::new(),
        Err(error) => {
            problems.push(format!("{}: cannot list: {error}", directory.display()));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_unique_and_normalized() {
        let mut names = std::collections::BTreeSet::new();
        for spec in FRAMEWORKS {
            assert!(names.insert(spec.name), "{} twice", spec.name);
            for distribution in spec.distributions {
                assert_eq!(
                    *distribution,
                    crate::packaging::normalize_name(distribution),
                    "{}",
                    spec.name
                );
            }
        }
    }
}
