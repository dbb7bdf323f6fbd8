//! The environment as it was before `fix --apply` changed it, kept so that it
//! can be put back exactly: every file of its site-packages and scripts
//! folders, and every file outside them that an installed RECORD names (data
//! files, headers), hard-linked into a folder inside the prefix.
//!
//! Hard links cost no copy, and they keep the old contents because pip never
//! writes into an installed file: an uninstall moves files aside and an
//! install unlinks a file before it writes the new one (pip's
//! `wheel.py` does so, so a running process keeps its mapped libraries).
//! Where a link cannot be made (another file system) the file is copied.
//! Putting back swaps each folder for its copy by rename, which either
//! happens whole or not at all.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What a backup holds, written beside it so that an interrupted apply can
/// be put back by a later envdoctor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Backup {
    /// The environment's prefix.
    pub prefix: PathBuf,
    /// The backup folder: `PREFIX/.envdoctor-fix/backup`.
    pub root: PathBuf,
    /// The folders copied whole, relative to the prefix.
    pub trees: Vec<PathBuf>,
    /// The files outside them that RECORDs named, relative to the prefix.
    pub loose: Vec<PathBuf>,
    /// The lock of the environment as it was.
    pub before_lock: PathBuf,
    /// How many files and links the backup holds.
    #[serde(default)]
    pub files: usize,
    /// Whether every copy was made. Nothing is installed before it is, so an
    /// incomplete backup (envdoctor killed while making it) stands beside an
    /// environment that was never changed: putting back is removing it.
    #[serde(default)]
    pub complete: bool,
}

const MANIFEST: &str = "manifest.json";

/// `PREFIX/.envdoctor-fix`: the lock file, the backup and the locks taken
/// before each apply.
pub fn state_dir(prefix: &Path) -> PathBuf {
    prefix.join(".envdoctor-fix")
}

/// The backup folder of `prefix`, whether or not one is there.
pub fn backup_root(prefix: &Path) -> PathBuf {
    state_dir(prefix).join("backup")
}

impl Backup {
    /// Copies (by hard link) `trees` (absolute folders inside `prefix`) and
    /// the files outside them that their RECORDs name.
    pub fn take(prefix: &Path, trees: &[PathBuf], before_lock: &Path) -> io::Result<Backup> {
        let root = backup_root(prefix);
        fs::create_dir_all(&root)?;
        let mut backup = Backup {
            prefix: prefix.to_path_buf(),
            root: root.clone(),
            trees: Vec::new(),
            loose: Vec::new(),
            before_lock: before_lock.to_path_buf(),
            files: 0,
            complete: false,
        };
        for tree in trees {
            let Some(relative) = inside(prefix, tree) else { continue };
            if !tree.is_dir() || backup.trees.iter().any(|kept| relative.starts_with(kept)) {
                continue;
            }
            backup.trees.push(relative);
        }
        // The manifest first: a backup interrupted while it is made is still found.
        backup.write_manifest()?;
        for relative in &backup.trees {
            backup.files += mirror(&prefix.join(relative), &root.join("trees").join(relative))?;
        }
        backup.loose = loose_files(prefix, &backup.trees);
        for relative in &backup.loose {
            let from = prefix.join(relative);
            if fs::symlink_metadata(&from).is_ok() {
                let to = root.join("loose").join(relative);
                if let Some(parent) = to.parent() {
                    fs::create_dir_all(parent)?;
                }
                link_or_copy(&from, &to)?;
                backup.files += 1;
            }
        }
        backup.complete = true;
        backup.write_manifest()?;
        Ok(backup)
    }

    /// The backup an earlier apply left, if one is there.
    pub fn find(prefix: &Path) -> io::Result<Option<Backup>> {
        let manifest = backup_root(prefix).join(MANIFEST);
        match crate::bounded_read::read(&manifest, 16 << 20) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|error| {
                io::Error::new(io::ErrorKind::InvalidData, format!("{}: {error}", manifest.display()))
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound && !backup_root(prefix).exists() => Ok(None),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} has no {MANIFEST}", backup_root(prefix).display()),
            )),
            Err(error) => Err(error),
        }
    }

    fn write_manifest(&self) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        crate::atomic_write::write(&self.root.join(MANIFEST), &bytes)
    }

    /// Puts the environment back as it was when the backup was taken, then
    /// removes the backup.
    pub fn restore(self) -> io::Result<()> {
        if !self.complete {
            return self.discard();
        }
        // What the RECORDs of now name outside the trees goes, whether or not
        // it was there before; then what was there comes back.
        let mut loose = loose_files(&self.prefix, &self.trees);
        loose.extend(self.loose.iter().cloned());
        for relative in &loose {
            remove_if_present(&self.prefix.join(relative))?;
        }
        let discarded = self.root.join("discarded");
        for (index, relative) in self.trees.iter().enumerate() {
            let original = self.prefix.join(relative);
            let copy = self.root.join("trees").join(relative);
            if !copy.exists() {
                // The backup was interrupted before it copied this folder:
                // nothing was installed yet, so the folder is as it was.
                continue;
            }
            if original.exists() {
                let aside = discarded.join(index.to_string());
                fs::create_dir_all(&discarded)?;
                fs::rename(&original, &aside)?;
            }
            if let Err(error) = fs::rename(&copy, &original) {
                if error.kind() != io::ErrorKind::CrossesDevices {
                    return Err(error);
                }
                mirror(&copy, &original)?;
            }
        }
        for relative in &self.loose {
            let copy = self.root.join("loose").join(relative);
            if fs::symlink_metadata(&copy).is_ok() {
                link_or_copy(&copy, &self.prefix.join(relative))?;
            }
        }
        self.discard()
    }

    /// Removes the backup: the apply stands.
    pub fn discard(self) -> io::Result<()> {
        fs::remove_dir_all(&self.root)
    }
}

/// `path` relative to `prefix`, when it is inside it.
fn inside(prefix: &Path, path: &Path) -> Option<PathBuf> {
    let relative = lexical(path).strip_prefix(lexical(prefix)).ok()?.to_path_buf();
    (!relative.as_os_str().is_empty()).then_some(relative)
}

/// `path` with `.` and `..` resolved as text, as a RECORD's
/// `../../../bin/tool` means it.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The files outside `trees` (but inside `prefix`) that the RECORDs of the
/// distributions in the trees name, relative to the prefix.
fn loose_files(prefix: &Path, trees: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for tree in trees {
        let folder = prefix.join(tree);
        let Ok(entries) = fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !name.to_string_lossy().ends_with(".dist-info") {
                continue;
            }
            let Ok(Some(rows)) = crate::packaging::record::read_record(&entry.path()) else {
                continue;
            };
            for row in rows {
                let Some(relative) = inside(prefix, &folder.join(&row.path)) else {
                    continue;
                };
                if !trees.iter().any(|tree| relative.starts_with(tree)) && !found.contains(&relative) {
                    found.push(relative);
                }
            }
        }
    }
    found.sort();
    found
}

/// Copies the folder `from` to `to` (which must not exist): folders made
/// with the same permissions, links as links, files hard-linked. How many
/// files and links it copied.
fn mirror(from: &Path, to: &Path) -> io::Result<usize> {
    fs::create_dir_all(to)?;
    fs::set_permissions(to, fs::metadata(from)?.permissions())?;
    let mut files = 0;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            files += mirror(&entry.path(), &target)?;
        } else {
            link_or_copy(&entry.path(), &target)?;
            files += 1;
        }
    }
    Ok(files)
}

/// One file or link from `from` at `to`, replacing what is at `to`.
fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    remove_if_present(to)?;
    let kind = fs::symlink_metadata(from)?.file_type();
    if kind.is_symlink() {
        return std::os::unix::fs::symlink(fs::read_link(from)?, to);
    }
    if !kind.is_file() {
        // A socket or a FIFO in a site-packages is no package's file.
        return Ok(());
    }
    match fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(_) => fs::copy(from, to).map(drop),
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Every file under `root`, with its contents or its link's target.
    fn tree(root: &Path) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(folder) = stack.pop() {
            for entry in fs::read_dir(&folder).unwrap() {
                let entry = entry.unwrap();
                let path = entry.path();
                let kind = entry.file_type().unwrap();
                let relative = path.strip_prefix(root).unwrap().to_path_buf();
                if relative.starts_with(".envdoctor-fix") {
                    continue;
                }
                if kind.is_symlink() {
                    out.push((relative, format!("-> {}", fs::read_link(&path).unwrap().display())));
                } else if kind.is_dir() {
                    stack.push(path);
                } else {
                    out.push((relative, fs::read_to_string(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    /// What pip does to files: an uninstall moves them aside, an install
    /// unlinks before it writes, and a new data file appears outside the trees.
    #[test]
    fn an_environment_changed_as_pip_changes_it_is_put_back_exactly() {
        let prefix = tempfile::tempdir().unwrap();
        let prefix = prefix.path();
        let site = prefix.join("lib/python3.11/site-packages");
        write(&site.join("alpha/__init__.py"), "one");
        write(
            &site.join("alpha-1.0.dist-info/RECORD"),
            "alpha/__init__.py,,\n../../../share/alpha/data.txt,,\n../../../bin/alpha,,\nalpha-1.0.dist-info/RECORD,,\n",
        );
        write(&prefix.join("share/alpha/data.txt"), "data one");
        write(&prefix.join("bin/alpha"), "#!python one");
        std::os::unix::fs::symlink("python3.11", prefix.join("bin/python")).unwrap();
        let before = tree(prefix);

        let backup = Backup::take(prefix, &[site.clone(), prefix.join("bin")], &prefix.join("before.lock")).unwrap();
        assert_eq!(backup.loose, [PathBuf::from("share/alpha/data.txt")]);
        // pip: alpha 1.0 out, alpha 2.0 in, with a data file of its own.
        fs::remove_dir_all(site.join("alpha-1.0.dist-info")).unwrap();
        fs::remove_file(site.join("alpha/__init__.py")).unwrap();
        write(&site.join("alpha/__init__.py"), "two");
        write(
            &site.join("alpha-2.0.dist-info/RECORD"),
            "alpha/__init__.py,,\n../../../share/alpha/new.txt,,\n../../../share/alpha/data.txt,,\n",
        );
        fs::remove_file(prefix.join("share/alpha/data.txt")).unwrap();
        write(&prefix.join("share/alpha/data.txt"), "data two");
        write(&prefix.join("share/alpha/new.txt"), "new");
        fs::remove_file(prefix.join("bin/alpha")).unwrap();
        write(&prefix.join("bin/alpha"), "#!python two");
        assert_ne!(tree(prefix), before);

        let found = Backup::find(prefix).unwrap().expect("the manifest names the backup");
        found.restore().unwrap();
        assert_eq!(tree(prefix), before);
        assert!(!backup_root(prefix).exists());
    }

    /// Killed while copying: the copy is partial, pip never ran, and putting
    /// back must not swap the partial copy in.
    #[test]
    fn an_incomplete_backup_is_removed_not_put_back() {
        let prefix = tempfile::tempdir().unwrap();
        let prefix = prefix.path();
        let site = prefix.join("site-packages");
        write(&site.join("a.py"), "one");
        write(&site.join("b.py"), "two");
        let mut backup = Backup::take(prefix, std::slice::from_ref(&site), &prefix.join("before.lock")).unwrap();
        backup.complete = false;
        backup.write_manifest().unwrap();
        fs::remove_file(backup.root.join("trees/site-packages/b.py")).unwrap();
        Backup::find(prefix).unwrap().unwrap().restore().unwrap();
        assert_eq!(fs::read_to_string(site.join("b.py")).unwrap(), "two");
        assert!(!backup_root(prefix).exists());
    }

    #[test]
    fn a_discarded_backup_leaves_the_environment_as_changed() {
        let prefix = tempfile::tempdir().unwrap();
        let prefix = prefix.path();
        let site = prefix.join("site-packages");
        write(&site.join("a.py"), "one");
        let backup = Backup::take(prefix, std::slice::from_ref(&site), &prefix.join("before.lock")).unwrap();
        fs::remove_file(site.join("a.py")).unwrap();
        write(&site.join("a.py"), "two");
        backup.discard().unwrap();
        assert_eq!(fs::read_to_string(site.join("a.py")).unwrap(), "two");
        assert!(Backup::find(prefix).unwrap().is_none());
    }
}
