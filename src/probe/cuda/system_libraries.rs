//! CUDA libraries on the machine itself, in the directories the dynamic loader
//! searches, in its order: `LD_LIBRARY_PATH`, then the directories configured in
//! `/etc/ld.so.conf.d` (where NVIDIA's packages register a toolkit's
//! `targets/<arch>/lib`, as cuda-pathfinder's README notes), then the defaults
//! (ld.so(8)). The toolkits' own library directories are searched too: a build
//! links against them even when the loader would not find them.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::SearchRoots;
use super::headers::version_in_header;
use super::library_table::{LibrarySpec, match_file_name};
use crate::snapshot::cuda::{Library, LibraryFoundVia, LibraryVersionSource, Provider, Toolkit};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchDir {
    pub path: PathBuf,
    pub via: LibraryFoundVia,
}

pub fn search_dirs(
    env: &dyn Fn(&str) -> Option<OsString>,
    roots: &SearchRoots,
    toolkits: &[Toolkit],
) -> Vec<SearchDir> {
    let mut dirs = Vec::new();
    let mut add = |path: PathBuf, via| dirs.push(SearchDir { path, via });
    if let Some(value) = env("LD_LIBRARY_PATH") {
        // ld.so(8): an empty entry means the current directory, which says
        // nothing about the node; it is left out.
        for path in std::env::split_paths(&value).filter(|path| path.is_absolute()) {
            add(path, LibraryFoundVia::LdLibraryPath);
        }
    }
    for path in ld_so_conf_dirs(&roots.ld_so_conf_d) {
        add(path, LibraryFoundVia::LdSoConf);
    }
    for toolkit in toolkits {
        for path in toolkit_library_dirs(&toolkit.root) {
            add(path, LibraryFoundVia::Toolkit);
        }
    }
    for path in &roots.library_dirs {
        add(path.clone(), LibraryFoundVia::StandardDir);
    }
    dirs
}

/// `lib64` (the runfile installer's link), `lib`, and `targets/<arch>/lib`,
/// where the libraries really are since CUDA 11 (and in conda-forge's layout).
fn toolkit_library_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("lib64"), root.join("lib")];
    if let Ok(entries) = fs::read_dir(root.join("targets")) {
        let mut targets: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path().join("lib"))
            .collect();
        targets.sort();
        dirs.extend(targets);
    }
    dirs
}

/// The absolute directories named in `*.conf` files, in file-name order as
/// ldconfig reads them through `include /etc/ld.so.conf.d/*.conf`. Nested
/// `include` lines are not followed.
fn ld_so_conf_dirs(conf_d: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(conf_d) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "conf"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|file| crate::bounded_read::read_to_string(file, crate::bounded_read::CONFIG_LIMIT).ok())
        .flat_map(|text| {
            text.lines()
                .map(|line| line.split('#').next().unwrap_or_default().trim().to_string())
                .filter(|line| line.starts_with('/'))
                .map(PathBuf::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Adds the libraries in `dirs` to `libraries`; a file already there (a wheel's
/// directory put on `LD_LIBRARY_PATH`, one directory reached by two names) gains
/// the new way it was found instead of a second entry.
pub fn scan(dirs: &[SearchDir], toolkits: &[Toolkit], libraries: &mut Vec<Library>) {
    let mut seen_dirs: Vec<(PathBuf, PathBuf, Vec<LibraryFoundVia>)> = Vec::new();
    for dir in dirs {
        let Ok(real) = fs::canonicalize(&dir.path) else {
            continue;
        };
        if !real.is_dir() {
            continue;
        }
        match seen_dirs.iter_mut().find(|(seen, _, _)| *seen == real) {
            Some((_, _, vias)) if !vias.contains(&dir.via) => vias.push(dir.via),
            Some(_) => {}
            None => seen_dirs.push((real, dir.path.clone(), vec![dir.via])),
        }
    }
    for (real_dir, spelled_dir, vias) in &seen_dirs {
        for group in groups_in(spelled_dir) {
            let real_path = group.real_path.clone();
            if let Some(existing) = libraries
                .iter_mut()
                .find(|library| real_path.is_some() && library.real_path == real_path)
            {
                for via in vias {
                    if !existing.found_via.contains(via) {
                        existing.found_via.push(*via);
                    }
                }
                continue;
            }
            libraries.push(describe(group, real_dir, vias, toolkits));
        }
    }
}

/// The files of one library that are one real file: `libcudnn.so`,
/// `libcudnn.so.9` and `libcudnn.so.9.1.0` when the first two link to the last.
struct Group {
    spec: &'static LibrarySpec,
    /// (file name, version numbers in it), sorted by name.
    names: Vec<(String, Vec<String>)>,
    directory: PathBuf,
    real_path: Option<PathBuf>,
    problems: Vec<String>,
}

/// The names of the files in `directory` that are valid UTF-8, sorted; none
/// where it cannot be read.
pub(super) fn file_names(directory: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(directory) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

fn groups_in(directory: &Path) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for name in file_names(directory) {
        let Some((spec, numbers)) = match_file_name(&name) else {
            continue;
        };
        let path = directory.join(&name);
        let (real_path, problem) = match fs::canonicalize(&path) {
            Ok(real) => (Some(real), None),
            // A dangling `libcuda.so.1` after a driver upgrade is a classic
            // broken install: say so rather than skip it.
            Err(error) => (
                None,
                Some(format!(
                    "{}: cannot be resolved (a broken symlink?): {error}",
                    path.display()
                )),
            ),
        };
        let same = groups
            .iter_mut()
            .find(|group| group.spec.name == spec.name && real_path.is_some() && group.real_path == real_path);
        match same {
            Some(group) => group.names.push((name, numbers)),
            None => groups.push(Group {
                spec,
                names: vec![(name, numbers)],
                directory: directory.to_path_buf(),
                real_path,
                problems: problem.into_iter().collect(),
            }),
        }
    }
    groups
}

fn describe(group: Group, real_dir: &Path, vias: &[LibraryFoundVia], toolkits: &[Toolkit]) -> Library {
    let Group {
        spec,
        names,
        directory,
        real_path,
        mut problems,
    } = group;
    // The soname link is the name programs ask for: the fewest numbers, but some.
    let shown = names
        .iter()
        .filter(|(_, numbers)| !numbers.is_empty())
        .min_by_key(|(name, numbers)| (numbers.len(), name.clone()))
        .or(names.first())
        .map(|(name, _)| name.clone())
        .unwrap_or_default();
    let real_numbers = real_path
        .as_deref()
        .and_then(Path::file_name)
        .and_then(|name| match_file_name(&name.to_string_lossy()))
        .map(|(_, numbers)| numbers)
        .unwrap_or_default();
    let most = names
        .iter()
        .map(|(_, numbers)| numbers.clone())
        .chain([real_numbers])
        .max_by_key(Vec::len)
        .unwrap_or_default();

    let (mut version, mut version_source, mut version_file) = (None, None, None);
    match most.len() {
        0 => problems.push(format!(
            "{}: no version in the file name or behind its links",
            directory.join(&shown).display()
        )),
        1 => {
            let major = &most[0];
            match header_version(spec, real_dir, major, &mut problems) {
                Some((found, header)) => {
                    version = Some(found);
                    version_source = Some(LibraryVersionSource::Header);
                    version_file = Some(header);
                }
                None => {
                    version = Some(major.clone());
                    version_source = Some(LibraryVersionSource::Soname);
                }
            }
        }
        _ => {
            version = Some(most.join("."));
            version_source = Some(LibraryVersionSource::FileName);
            version_file = real_path.clone();
        }
    }

    let toolkit_root = (!spec.driver)
        .then(|| toolkits.iter().find(|toolkit| real_dir.starts_with(&toolkit.root)))
        .flatten()
        .map(|toolkit| toolkit.root.clone());
    Library {
        name: spec.name.to_string(),
        provided_by: if toolkit_root.is_some() {
            Provider::Toolkit
        } else {
            Provider::System
        },
        path: directory.join(&shown),
        real_path,
        version,
        version_source,
        version_file,
        distribution: None,
        toolkit_root,
        found_via: vias.to_vec(),
        problems,
    }
}

/// A version from the library's header, looked for where packages install it
/// relative to the library: `<prefix>/include` beside `<prefix>/lib`, and for
/// Debian's multiarch `/usr/lib/<triplet>`, `/usr/include/<triplet>` and
/// `/usr/include` (https://wiki.debian.org/Multiarch/Implementation). A header
/// of another major version is not this library's.
fn header_version(
    spec: &LibrarySpec,
    library_dir: &Path,
    major: &str,
    problems: &mut Vec<String>,
) -> Option<(String, PathBuf)> {
    if spec.headers.is_empty() {
        return None;
    }
    let mut include_dirs = Vec::new();
    if let Some(parent) = library_dir.parent() {
        include_dirs.push(parent.join("include"));
        if let (Some(triplet), Some(grandparent)) = (library_dir.file_name(), parent.parent())
            && triplet.to_string_lossy().ends_with("-linux-gnu")
        {
            include_dirs.push(grandparent.join("include").join(triplet));
            include_dirs.push(grandparent.join("include"));
        }
    }
    for directory in include_dirs {
        for header in spec.headers {
            let path = directory.join(header.replace("{major}", major));
            let Ok(text) = crate::bounded_read::read_to_string(&path, crate::bounded_read::METADATA_LIMIT) else {
                continue;
            };
            match version_in_header(spec.name, &text) {
                Some(version) if version.split('.').next() == Some(major) => return Some((version, path)),
                Some(version) => problems.push(format!(
                    "{}: says {version}, not the library's major version {major}; not used",
                    path.display()
                )),
                None => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn standard(path: &Path) -> Vec<SearchDir> {
        vec![SearchDir {
            path: path.to_path_buf(),
            via: LibraryFoundVia::StandardDir,
        }]
    }

    fn scanned(dirs: &[SearchDir], toolkits: &[Toolkit]) -> Vec<Library> {
        let mut libraries = Vec::new();
        scan(dirs, toolkits, &mut libraries);
        libraries
    }

    #[test]
    fn version_from_the_full_file_name_behind_the_soname_link() {
        // The layout of Debian's libcudnn9-cuda-12 and the driver: a dev link,
        // the soname link, and the fully versioned file.
        let machine = tempfile::tempdir().unwrap();
        let lib = machine.path().join("usr/lib/x86_64-linux-gnu");
        fs::create_dir_all(&lib).unwrap();
        fs::write(lib.join("libcudnn.so.9.1.0"), "").unwrap();
        symlink("libcudnn.so.9.1.0", lib.join("libcudnn.so.9")).unwrap();
        symlink("libcudnn.so.9", lib.join("libcudnn.so")).unwrap();
        fs::write(lib.join("libcudnn_ops.so.9.1.0"), "").unwrap();
        fs::write(lib.join("libcuda.so.550.54.15"), "").unwrap();
        symlink("libcuda.so.550.54.15", lib.join("libcuda.so.1")).unwrap();

        let libraries = scanned(&standard(&lib), &[]);
        let summary: Vec<_> = libraries
            .iter()
            .map(|library| {
                (
                    library.name.as_str(),
                    library.path.file_name().unwrap().to_str().unwrap(),
                    library.version.as_deref(),
                    library.version_source,
                    library.provided_by,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "cuda_driver",
                    "libcuda.so.1",
                    Some("550.54.15"),
                    Some(LibraryVersionSource::FileName),
                    Provider::System
                ),
                (
                    "cudnn",
                    "libcudnn.so.9",
                    Some("9.1.0"),
                    Some(LibraryVersionSource::FileName),
                    Provider::System
                ),
            ]
        );
    }

    #[test]
    fn only_a_soname_then_the_header_gives_the_version() {
        let machine = tempfile::tempdir().unwrap();
        let lib = machine.path().join("usr/lib/x86_64-linux-gnu");
        fs::create_dir_all(&lib).unwrap();
        fs::write(lib.join("libnccl.so.2"), "").unwrap();
        fs::write(lib.join("libcudart.so.12"), "").unwrap();
        let include = machine.path().join("usr/include");
        fs::create_dir_all(&include).unwrap();
        fs::write(
            include.join("nccl.h"),
            include_str!("../../../tests/fixtures/cuda/nccl-2.21.5.h"),
        )
        .unwrap();

        let libraries = scanned(&standard(&lib), &[]);
        let cudart = libraries.iter().find(|library| library.name == "cudart").unwrap();
        assert_eq!(cudart.version.as_deref(), Some("12"));
        assert_eq!(cudart.version_source, Some(LibraryVersionSource::Soname));
        let nccl = libraries.iter().find(|library| library.name == "nccl").unwrap();
        assert_eq!(nccl.version.as_deref(), Some("2.21.5"));
        assert_eq!(nccl.version_source, Some(LibraryVersionSource::Header));
        assert_eq!(nccl.version_file, Some(include.join("nccl.h")));
    }

    #[test]
    fn a_dangling_driver_link_is_reported_not_skipped() {
        let machine = tempfile::tempdir().unwrap();
        let lib = machine.path().join("lib64");
        fs::create_dir_all(&lib).unwrap();
        symlink("libcuda.so.535.104.05", lib.join("libcuda.so.1")).unwrap();
        let libraries = scanned(&standard(&lib), &[]);
        assert_eq!(libraries.len(), 1);
        assert_eq!(libraries[0].real_path, None);
        assert!(
            libraries[0].problems[0].contains("broken symlink"),
            "{:?}",
            libraries[0].problems
        );
    }

    #[test]
    fn a_directory_reached_twice_is_scanned_once_and_keeps_both_ways() {
        let machine = tempfile::tempdir().unwrap();
        let root = machine.path().join("usr/local/cuda-12.4");
        let lib = root.join("targets/x86_64-linux/lib");
        fs::create_dir_all(&lib).unwrap();
        fs::write(lib.join("libcublas.so.12.4.5.8"), "").unwrap();
        symlink("libcublas.so.12.4.5.8", lib.join("libcublas.so.12")).unwrap();
        symlink("targets/x86_64-linux/lib", root.join("lib64")).unwrap();
        let toolkit = super::super::toolkit_version::root_version(
            &fs::canonicalize(&root).unwrap(),
            std::time::Duration::from_secs(1),
        );
        let mut dirs = vec![SearchDir {
            path: root.join("lib64"),
            via: LibraryFoundVia::LdLibraryPath,
        }];
        dirs.extend(toolkit_library_dirs(&toolkit.root).into_iter().map(|path| SearchDir {
            path,
            via: LibraryFoundVia::Toolkit,
        }));
        let libraries = scanned(&dirs, std::slice::from_ref(&toolkit));
        assert_eq!(libraries.len(), 1, "{libraries:?}");
        let cublas = &libraries[0];
        assert_eq!(cublas.provided_by, Provider::Toolkit);
        assert_eq!(cublas.toolkit_root.as_ref(), Some(&toolkit.root));
        assert_eq!(cublas.version.as_deref(), Some("12.4.5.8"));
        assert_eq!(
            cublas.found_via,
            [LibraryFoundVia::LdLibraryPath, LibraryFoundVia::Toolkit]
        );
    }

    #[test]
    fn ld_so_conf_d_lines_with_comments_and_includes() {
        let machine = tempfile::tempdir().unwrap();
        let conf_d = machine.path().join("ld.so.conf.d");
        fs::create_dir_all(&conf_d).unwrap();
        fs::write(
            conf_d.join("988_cuda-12.conf"),
            "/usr/local/cuda-12.4/targets/x86_64-linux/lib\n",
        )
        .unwrap();
        fs::write(
            conf_d.join("x86_64-linux-gnu.conf"),
            "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu # trailing\ninclude other/*.conf\n",
        )
        .unwrap();
        fs::write(conf_d.join("ignored.txt"), "/nowhere\n").unwrap();
        assert_eq!(
            ld_so_conf_dirs(&conf_d),
            [
                PathBuf::from("/usr/local/cuda-12.4/targets/x86_64-linux/lib"),
                PathBuf::from("/usr/local/lib/x86_64-linux-gnu"),
                PathBuf::from("/lib/x86_64-linux-gnu"),
            ]
        );
    }
}
