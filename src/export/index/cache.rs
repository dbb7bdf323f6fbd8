//! Parsed project pages kept on disk between runs.
//!
//! The files of a released version do not change, so a cached page that
//! already lists what is wanted answers without a request; any other page is
//! fetched again and replaces its entry. One JSON file per index and project,
//! named by a hash of the two, written atomically.

use std::fs;
use std::path::PathBuf;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::simple::IndexFile;
use super::urls::index_key;
use crate::atomic_write;

/// Raised when the entry's shape changes: an older entry then reads as absent.
const SCHEMA: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedPage {
    schema: u32,
    /// Without credentials.
    index: String,
    project: String,
    /// The page's final URL, after redirects.
    pub page_url: String,
    /// Seconds since the Unix epoch.
    pub fetched_at: u64,
    pub files: Vec<IndexFile>,
}

#[derive(Debug, Clone)]
pub struct Cache {
    directory: PathBuf,
}

impl Cache {
    pub fn new(directory: PathBuf) -> Cache {
        Cache { directory }
    }

    /// `$XDG_CACHE_HOME/envdoctor/index`, else `$HOME/.cache/envdoctor/index`.
    pub fn default_directory(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
        let base = crate::cache_home::envdoctor_cache_dir(|name| env(name).map(std::ffi::OsString::from))?;
        Some(base.join("index"))
    }

    /// The entry for `project` (normalized) on `index`; `None` when there is
    /// none or it cannot be read.
    pub fn load(&self, index: &str, project: &str) -> Option<CachedPage> {
        let text = crate::bounded_read::read(&self.file(index, project), crate::bounded_read::DOCUMENT_LIMIT).ok()?;
        let page: CachedPage = serde_json::from_slice(&text).ok()?;
        let current = page.schema == SCHEMA && page.index == index_key(index) && page.project == project;
        current.then_some(page)
    }

    /// Best effort: a cache that cannot be written only costs a request later.
    /// A page is fetched for the files of one version (`fetch::project_page`
    /// keeps no others): what the entry held of other versions is kept beside
    /// them, since released files do not change.
    pub fn store(&self, index: &str, project: &str, page_url: &str, files: &[IndexFile]) {
        let mut files = files.to_vec();
        if let Some(earlier) = self.load(index, project) {
            let fresh: std::collections::HashSet<String> = files.iter().map(|file| file.filename.clone()).collect();
            files.extend(earlier.files.into_iter().filter(|file| !fresh.contains(&file.filename)));
        }
        let page = CachedPage {
            schema: SCHEMA,
            index: index_key(index),
            project: project.to_string(),
            page_url: page_url.to_string(),
            fetched_at: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs()),
            files,
        };
        let file = self.file(index, project);
        if let Ok(bytes) = serde_json::to_vec(&page) {
            let _ = fs::create_dir_all(&self.directory).and_then(|()| atomic_write::write(&file, &bytes));
        }
    }

    #[cfg(test)]
    pub fn directory(&self) -> &std::path::Path {
        &self.directory
    }

    fn file(&self, index: &str, project: &str) -> PathBuf {
        let digest = Sha256::digest(format!("{}\n{project}", index_key(index)).as_bytes());
        let name = crate::digest::hex(&digest[..16]);
        self.directory.join(format!("{name}.json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn file(name: &str) -> IndexFile {
        IndexFile {
            filename: name.to_string(),
            url: format!("https://index.example/files/{name}"),
            hashes: BTreeMap::from([("sha256".to_string(), "ab".repeat(32))]),
            requires_python: None,
            yanked: None,
            size: Some(10),
            upload_time: None,
        }
    }

    #[test]
    fn a_stored_page_loads_under_any_spelling_of_its_index() {
        let directory = tempfile::tempdir().unwrap();
        let cache = Cache::new(directory.path().join("index"));
        let files = [file("demo_pkg-1.0-py3-none-any.whl")];
        cache.store(
            "https://user:token@index.example/simple/",
            "demo-pkg",
            "https://index.example/simple/demo-pkg/",
            &files,
        );
        let page = cache.load("https://index.example/simple", "demo-pkg").expect("a hit");
        assert_eq!(page.files, files);
        assert_eq!(page.page_url, "https://index.example/simple/demo-pkg/");
        let written =
            fs::read_to_string(fs::read_dir(cache.directory()).unwrap().next().unwrap().unwrap().path()).unwrap();
        assert!(!written.contains("token"), "credentials are not written: {written}");
    }

    #[test]
    fn other_projects_indexes_and_damaged_entries_miss() {
        let directory = tempfile::tempdir().unwrap();
        let cache = Cache::new(directory.path().to_path_buf());
        cache.store(
            "https://a.example/simple",
            "demo-pkg",
            "https://a.example/simple/demo-pkg/",
            &[file("x")],
        );
        assert!(cache.load("https://b.example/simple", "demo-pkg").is_none());
        assert!(cache.load("https://a.example/simple", "other").is_none());
        fs::write(cache.file("https://a.example/simple", "demo-pkg"), "{ not json").unwrap();
        assert!(cache.load("https://a.example/simple", "demo-pkg").is_none());
    }

    #[test]
    fn the_default_directory_follows_xdg_then_home() {
        let env = |name: &str| (name == "HOME").then(|| "/home/me".to_string());
        assert_eq!(
            Cache::default_directory(&env),
            Some(PathBuf::from("/home/me/.cache/envdoctor/index"))
        );
        let env = |name: &str| match name {
            "XDG_CACHE_HOME" => Some("/var/cache/me".to_string()),
            "HOME" => Some("/home/me".to_string()),
            _ => None,
        };
        assert_eq!(
            Cache::default_directory(&env),
            Some(PathBuf::from("/var/cache/me/envdoctor/index"))
        );
        assert_eq!(Cache::default_directory(&|_: &str| None), None);
    }
}
