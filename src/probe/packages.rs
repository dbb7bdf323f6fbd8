//! The package inventory: every distribution on `sys.path`, read from disk.
//!
//! This mirrors what `importlib.metadata` (and so `pip list`) sees: for each
//! `sys.path` directory in order, its `*.dist-info` and `*.egg-info` children (an
//! egg-info may be a directory or a single file), and `EGG-INFO` when the entry
//! is itself an `.egg` directory. The first copy of a name on `sys.path` is the
//! one Python imports; later copies are kept as `shadowed`. Nothing is imported
//! and nothing is fatal: unreadable metadata becomes a problem of its entry.
//!
//! Where it differs from `pip list`, on purpose or not yet:
//! - zip archives on `sys.path` (zipped eggs) are reported, not read;
//! - `pip list` hides `python`, `wsgiref` and `argparse` (its `stdlib_pkgs`) and
//!   metadata without a `Name`; envdoctor lists them, the latter with a problem.

use std::collections::{BTreeSet, HashMap};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::packaging::{metadata, normalize_name};
use crate::snapshot::packages::{MetadataFormat, Package, PathProblem, ShadowedCopy};

#[derive(Debug, Default)]
pub struct Inventory {
    pub packages: Vec<Package>,
    pub problems: Vec<PathProblem>,
}

/// Files in a directory that belong to editable installs rather than to one
/// metadata directory.
#[derive(Default)]
struct EditableHooks {
    /// `name.egg-link` file names, by exact name, as pip looks them up.
    egg_links: HashMap<String, PathBuf>,
    /// `__editable__` finders and `.pth` files, by normalized `name-version`.
    setuptools_hooks: HashMap<String, Vec<PathBuf>>,
}

pub fn scan(sys_path: &[PathBuf]) -> Inventory {
    let mut inventory = Inventory::default();
    let mut hooks = EditableHooks::default();
    let mut found: Vec<Package> = Vec::new();
    // By device and inode: one directory reached by two spellings (a symlinked
    // `lib64 -> lib`, a PYTHONPATH entry through a link) is one directory.
    let mut scanned = BTreeSet::new();
    for entry in sys_path {
        let identity = fs::metadata(entry)
            .ok()
            .map(|metadata| (metadata.dev(), metadata.ino()));
        if identity.is_some_and(|identity| !scanned.insert(identity)) {
            continue;
        }
        match list_directory(entry) {
            Ok(Some(names)) => {
                collect_hooks(entry, &names, &mut hooks);
                for name in metadata_children(entry, &names) {
                    // A Snapshot is JSON, which holds only UTF-8: one such name
                    // must cost its own entry, not the node's whole report.
                    if name.to_str().is_none() {
                        inventory.problems.push(PathProblem {
                            path: PathBuf::from(entry.join(name).to_string_lossy().into_owned()),
                            problem: "a metadata directory whose name is not UTF-8: not read (shown here with \
                                      U+FFFD for the bytes that are not)"
                                .to_string(),
                        });
                        continue;
                    }
                    found.push(read_distribution(entry, name));
                }
            }
            Ok(None) => {}
            Err(problem) => inventory.problems.push(PathProblem {
                path: entry.clone(),
                problem,
            }),
        }
    }
    inventory.packages = keep_first_on_path(found);
    for package in &mut inventory.packages {
        attach_editable_hooks(package, &hooks);
    }
    inventory
}

/// `Ok(None)`: nothing to scan here (absent, or the standard library's zip),
/// which Python also passes over silently.
fn list_directory(path: &Path) -> Result<Option<Vec<OsString>>, String> {
    let reader = match fs::read_dir(path) {
        Ok(reader) => reader,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        Err(error) if error.kind() == ErrorKind::NotADirectory => {
            let is_standard_library_zip = path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("python"));
            return if is_standard_library_zip || !path.is_file() {
                Ok(None)
            } else {
                Err("a zip archive: distributions inside archives (zipped eggs) are not scanned".to_string())
            };
        }
        Err(error) => return Err(format!("cannot list directory: {error}")),
    };
    let mut names: Vec<OsString> = reader.filter_map(Result::ok).map(|entry| entry.file_name()).collect();
    // Sorted so that two runs over the same environment agree byte for byte.
    names.sort_unstable();
    Ok(Some(names))
}

/// The metadata entries among a directory's names, matched without regard to
/// case as `importlib.metadata` matches them.
fn metadata_children<'a>(entry: &Path, names: &'a [OsString]) -> Vec<&'a OsStr> {
    let is_egg = entry
        .extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("egg"));
    names
        .iter()
        .filter(|name| {
            let lower = name.to_string_lossy().to_ascii_lowercase();
            lower.ends_with(".dist-info") || lower.ends_with(".egg-info") || (is_egg && lower == "egg-info")
        })
        .map(OsString::as_os_str)
        .collect()
}

fn collect_hooks(directory: &Path, names: &[OsString], hooks: &mut EditableHooks) {
    for raw_name in names {
        let path = directory.join(raw_name);
        let name = raw_name.to_string_lossy();
        let name = name.as_ref();
        if name.ends_with(".egg-link") {
            hooks.egg_links.entry(name.to_string()).or_insert(path);
        } else if let Some(stem) = name
            .strip_prefix("__editable___")
            .and_then(|rest| rest.strip_suffix("_finder.py"))
            .or_else(|| {
                name.strip_prefix("__editable__.")
                    .and_then(|rest| rest.strip_suffix(".pth"))
            })
        {
            // setuptools names them `__editable__.{name}-{version}.pth` and
            // `__editable___{name}_{version}_finder.py`; normalizing folds both
            // spellings to `name-version`.
            hooks
                .setuptools_hooks
                .entry(normalize_name(stem))
                .or_default()
                .push(path);
        }
    }
}

fn attach_editable_hooks(package: &mut Package, hooks: &EditableHooks) {
    if let Some(version) = &package.version {
        let key = normalize_name(&format!("{}-{}", package.name, version));
        if let Some(paths) = hooks.setuptools_hooks.get(&key) {
            package.editable_hooks.extend(paths.iter().cloned());
        }
    }
    match &package.source {
        Some(source) if source.is_editable() => {
            package.editable_project_location = metadata::file_url_to_path(source.url()).map(PathBuf::from);
        }
        Some(_) => {}
        None => {
            // A legacy `setup.py develop` install: pip reports the directory the
            // metadata was found in when an egg-link for the name is on sys.path.
            let safe_name: String = package
                .name
                .split(|character: char| !(character.is_ascii_alphanumeric() || character == '.'))
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let egg_link = [&package.name, &safe_name]
                .into_iter()
                .find_map(|name| hooks.egg_links.get(&format!("{name}.egg-link")));
            if let Some(egg_link) = egg_link {
                package.editable_project_location = Some(package.location.clone());
                package.editable_hooks.push(egg_link.clone());
            }
        }
    }
}

fn keep_first_on_path(found: Vec<Package>) -> Vec<Package> {
    let mut winners: Vec<Package> = Vec::with_capacity(found.len());
    let mut index_of: HashMap<String, usize> = HashMap::new();
    for package in found {
        match index_of.get(&package.normalized_name) {
            Some(&index) => {
                let winner = &mut winners[index];
                // Debian's python3-* packages ship a dist-info and an egg-info of
                // the same version side by side; only differing versions are broken.
                if winner.location == package.location && winner.version != package.version {
                    // Typically an upgrade that was interrupted: which copy Python
                    // resolves depends on directory order, so neither can be trusted.
                    winner.problems.push(format!(
                        "a second copy, version {}, is in the same directory ({}): a broken install",
                        package.version.as_deref().unwrap_or("unknown"),
                        package.metadata_path.display()
                    ));
                }
                winner.shadowed.push(ShadowedCopy {
                    version: package.version,
                    location: package.location,
                    metadata_path: package.metadata_path,
                });
            }
            None => {
                index_of.insert(package.normalized_name.clone(), winners.len());
                winners.push(package);
            }
        }
    }
    winners
}

fn read_distribution(location: &Path, child: &OsStr) -> Package {
    let metadata_path = location.join(child);
    let child = child.to_string_lossy();
    let lower = child.to_ascii_lowercase();
    let format = if lower.ends_with(".dist-info") {
        MetadataFormat::DistInfo
    } else if lower == "egg-info" {
        MetadataFormat::Egg
    } else if metadata_path.is_dir() {
        MetadataFormat::EggInfo
    } else {
        MetadataFormat::EggInfoFile
    };
    let core_file = match format {
        MetadataFormat::DistInfo => metadata_path.join("METADATA"),
        MetadataFormat::EggInfo | MetadataFormat::Egg => metadata_path.join("PKG-INFO"),
        MetadataFormat::EggInfoFile => metadata_path.clone(),
    };
    let mut problems = Vec::new();
    let core = metadata::read_core_metadata(&core_file).unwrap_or_else(|error| {
        problems.push(format!("{}: cannot read: {error}", core_file.display()));
        metadata::CoreMetadata::default()
    });
    problems.extend(core.problems);

    let name_from_directory = child.split('-').next().unwrap_or(&child).to_string();
    let name = core.name.unwrap_or_else(|| {
        problems.push(format!("{}: no Name field", core_file.display()));
        name_from_directory
    });
    let (version, version_as_written) = match core.version {
        None => {
            problems.push(format!("{}: no Version field", core_file.display()));
            (None, None)
        }
        Some(written) => match pep440_rs::Version::from_str(&written) {
            Ok(parsed) => {
                let normal = parsed.to_string();
                let as_written = (normal != written).then_some(written);
                (Some(normal), as_written)
            }
            Err(_) => {
                problems.push(format!("version `{written}` is not a valid PEP 440 version"));
                (Some(written), None)
            }
        },
    };
    let requires_dist = match format {
        MetadataFormat::EggInfo | MetadataFormat::Egg => {
            read_optional(&metadata_path.join("requires.txt"), &mut problems)
                .map(|text| metadata::requires_txt_to_requires_dist(&text))
                .unwrap_or_default()
        }
        MetadataFormat::DistInfo | MetadataFormat::EggInfoFile => core.requires_dist,
    };

    let mut package = Package {
        normalized_name: normalize_name(&name),
        name,
        version,
        version_as_written,
        location: location.to_path_buf(),
        metadata_format: format,
        installer: None,
        requested: None,
        source: None,
        editable_project_location: None,
        editable_hooks: Vec::new(),
        requires_python: core.requires_python,
        requires_dist,
        wheel_tags: Vec::new(),
        shadowed: Vec::new(),
        problems,
        metadata_path,
        record_digest: None,
    };
    if format == MetadataFormat::DistInfo {
        read_dist_info_extras(&mut package);
    }
    package
}

/// INSTALLER, REQUESTED, direct_url.json and WHEEL: each optional (PEP 376, 610, 427).
fn read_dist_info_extras(package: &mut Package) {
    let directory = package.metadata_path.clone();
    package.installer = read_optional(&directory.join("INSTALLER"), &mut package.problems)
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty());
    package.requested = Some(directory.join("REQUESTED").exists());
    let direct_url_path = directory.join("direct_url.json");
    if let Some(text) = read_optional(&direct_url_path, &mut package.problems) {
        match metadata::parse_direct_url(&text) {
            Ok(source) => package.source = Some(source),
            Err(error) => package
                .problems
                .push(format!("{}: malformed: {error}", direct_url_path.display())),
        }
    }
    if let Some(text) = read_optional(&directory.join("WHEEL"), &mut package.problems) {
        package.wheel_tags = metadata::wheel_tags(&text);
    }
}

/// A file that may be absent; any other failure to read it is a problem.
fn read_optional(path: &Path, problems: &mut Vec<String>) -> Option<String> {
    match crate::bounded_read::read(path, crate::bounded_read::METADATA_LIMIT) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(error) => {
                problems.push(format!("{}: invalid UTF-8", path.display()));
                Some(String::from_utf8_lossy(error.as_bytes()).into_owned())
            }
        },
        Err(error) if error.kind() == ErrorKind::NotFound => None,
        Err(error) => {
            problems.push(format!("{}: cannot read: {error}", path.display()));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn first_on_path_wins_and_the_rest_are_shadowed() {
        let root = tempfile::tempdir().unwrap();
        let (early, late) = (root.path().join("early"), root.path().join("late"));
        write(
            &early.join("Foo_Bar-2.0.dist-info/METADATA"),
            "Name: Foo_Bar\nVersion: 2.0\n",
        );
        write(
            &late.join("foo.bar-1.0.dist-info/METADATA"),
            "Name: foo.bar\nVersion: 1.0\n",
        );
        let inventory = scan(&[early.clone(), late.clone()]);
        assert_eq!(inventory.packages.len(), 1);
        let package = &inventory.packages[0];
        assert_eq!(
            (package.normalized_name.as_str(), package.version.as_deref()),
            ("foo-bar", Some("2.0"))
        );
        assert_eq!(package.shadowed.len(), 1);
        assert_eq!(package.shadowed[0].location, late);
    }

    #[test]
    fn two_copies_in_one_directory_are_a_broken_install() {
        let root = tempfile::tempdir().unwrap();
        write(
            &root.path().join("torch-2.3.0.dist-info/METADATA"),
            "Name: torch\nVersion: 2.3.0\n",
        );
        write(
            &root.path().join("torch-2.4.1.dist-info/METADATA"),
            "Name: torch\nVersion: 2.4.1\n",
        );
        let inventory = scan(&[root.path().to_path_buf()]);
        let package = &inventory.packages[0];
        assert_eq!(package.shadowed.len(), 1);
        assert!(
            package.problems[0].contains("version 2.4.1, is in the same directory"),
            "{:?}",
            package.problems
        );
    }

    #[test]
    fn debian_dist_info_beside_egg_info_of_the_same_version_is_not_broken() {
        let root = tempfile::tempdir().unwrap();
        write(
            &root.path().join("cryptography-38.0.4.dist-info/METADATA"),
            "Name: cryptography\nVersion: 38.0.4\n",
        );
        write(
            &root.path().join("cryptography.egg-info/PKG-INFO"),
            "Name: cryptography\nVersion: 38.0.4\n",
        );
        let package = &scan(&[root.path().to_path_buf()]).packages[0];
        assert!(package.problems.is_empty(), "{:?}", package.problems);
    }

    #[test]
    fn one_directory_reached_through_a_link_is_scanned_once() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("lib");
        write(&real.join("foo-1.0.dist-info/METADATA"), "Name: foo\nVersion: 1.0\n");
        std::os::unix::fs::symlink(&real, root.path().join("lib64")).unwrap();
        let inventory = scan(&[root.path().join("lib64"), real]);
        assert_eq!(inventory.packages.len(), 1);
        assert!(
            inventory.packages[0].shadowed.is_empty(),
            "{:?}",
            inventory.packages[0].shadowed
        );
    }

    #[test]
    fn a_zipped_egg_is_reported_not_silently_skipped() {
        let root = tempfile::tempdir().unwrap();
        let egg = root.path().join("zegg-2.0-py3.11.egg");
        fs::write(&egg, b"PK\x05\x06").unwrap();
        let stdlib_zip = root.path().join("python311.zip");
        fs::write(&stdlib_zip, b"PK\x05\x06").unwrap();
        let inventory = scan(&[egg.clone(), stdlib_zip]);
        assert_eq!(inventory.problems.len(), 1);
        assert_eq!(inventory.problems[0].path, egg);
    }

    #[test]
    fn broken_metadata_is_kept_with_its_problem() {
        let root = tempfile::tempdir().unwrap();
        write(
            &root.path().join("noversion-1.0.dist-info/METADATA"),
            "Name: noversion\n",
        );
        write(
            &root.path().join("odd-1.dist-info/METADATA"),
            "Name: odd\nVersion: banana\n",
        );
        fs::create_dir_all(root.path().join("empty-1.0.dist-info")).unwrap();
        write(
            &root.path().join("rc-1.0.0rc1.dist-info/METADATA"),
            "Name: rc\nVersion: 1.0.0-RC1\n",
        );
        let inventory = scan(&[root.path().to_path_buf()]);
        let by_name: HashMap<_, _> = inventory.packages.iter().map(|p| (p.name.as_str(), p)).collect();
        assert_eq!(by_name["noversion"].version, None);
        assert!(by_name["noversion"].problems[0].ends_with("no Version field"));
        assert_eq!(by_name["odd"].version.as_deref(), Some("banana"));
        assert!(by_name["odd"].problems[0].contains("not a valid PEP 440"));
        assert!(by_name["empty"].problems[0].contains("cannot read"));
        assert_eq!(
            by_name["rc"].version.as_deref(),
            Some("1.0.0rc1"),
            "shown as pip shows it"
        );
        assert_eq!(by_name["rc"].version_as_written.as_deref(), Some("1.0.0-RC1"));
        assert!(by_name["rc"].problems.is_empty());
    }

    #[test]
    fn egg_info_file_and_directory_and_egg() {
        let root = tempfile::tempdir().unwrap();
        write(
            &root.path().join("legacy-0.5-py3.11.egg-info"),
            "Metadata-Version: 1.0\nName: legacy\nVersion: 0.5\n",
        );
        write(&root.path().join("tree.egg-info/PKG-INFO"), "Name: tree\nVersion: 3\n");
        write(&root.path().join("tree.egg-info/requires.txt"), "six\n[extra]\nrich\n");
        let egg = root.path().join("zipped-1.0-py3.11.egg");
        write(&egg.join("EGG-INFO/PKG-INFO"), "Name: zipped\nVersion: 1.0\n");
        let inventory = scan(&[root.path().to_path_buf(), egg]);
        let formats: Vec<_> = inventory
            .packages
            .iter()
            .map(|p| (p.name.as_str(), p.metadata_format))
            .collect();
        assert_eq!(
            formats,
            [
                ("legacy", MetadataFormat::EggInfoFile),
                ("tree", MetadataFormat::EggInfo),
                ("zipped", MetadataFormat::Egg)
            ]
        );
        assert_eq!(inventory.packages[1].requires_dist, ["six", "rich; extra == \"extra\""]);
    }

    #[test]
    fn setuptools_editable_hooks_attach_to_their_distribution() {
        let root = tempfile::tempdir().unwrap();
        write(
            &root.path().join("my_pkg-0.1.0.dist-info/METADATA"),
            "Name: my-pkg\nVersion: 0.1.0\n",
        );
        write(
            &root.path().join("my_pkg-0.1.0.dist-info/direct_url.json"),
            r#"{"url": "file:///src/my-pkg", "dir_info": {"editable": true}}"#,
        );
        write(
            &root.path().join("__editable__.my_pkg-0.1.0.pth"),
            "import __editable___my_pkg_0_1_0_finder\n",
        );
        write(&root.path().join("__editable___my_pkg_0_1_0_finder.py"), "");
        let package = &scan(&[root.path().to_path_buf()]).packages[0];
        assert_eq!(package.editable_project_location, Some(PathBuf::from("/src/my-pkg")));
        assert_eq!(package.editable_hooks.len(), 2, "{:?}", package.editable_hooks);
    }

    /// Issue 20 D8: a dist-info directory whose name is not UTF-8 is one
    /// problem, named; the other distributions are read and the inventory is
    /// still JSON.
    #[test]
    fn a_metadata_directory_named_in_bytes_that_are_not_utf8_is_one_problem() {
        use std::os::unix::ffi::OsStrExt;
        let site = tempfile::tempdir().unwrap();
        let good = site.path().join("good-1.0.dist-info");
        fs::create_dir(&good).unwrap();
        fs::write(
            good.join("METADATA"),
            "Metadata-Version: 2.1\nName: good\nVersion: 1.0\n",
        )
        .unwrap();
        let bad = site.path().join(OsStr::from_bytes(b"bad\xff-1.0.dist-info"));
        fs::create_dir(&bad).unwrap();
        fs::write(bad.join("METADATA"), "Metadata-Version: 2.1\nName: bad\nVersion: 1.0\n").unwrap();
        let inventory = scan(&[site.path().to_path_buf()]);
        let names: Vec<&str> = inventory.packages.iter().map(|package| package.name.as_str()).collect();
        assert_eq!(names, ["good"]);
        assert_eq!(inventory.problems.len(), 1, "{:?}", inventory.problems);
        assert!(
            inventory.problems[0]
                .path
                .to_str()
                .unwrap()
                .contains("bad\u{fffd}-1.0.dist-info")
        );
        serde_json::to_string(&inventory.problems).unwrap();
        serde_json::to_string(&inventory.packages).unwrap();
    }
}
