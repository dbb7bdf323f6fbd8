//! One package against the indexes in order: the cache first where it already
//! knows the answer, then the network.

use std::collections::{BTreeSet, HashSet};
use std::sync::OnceLock;
use std::time::Duration;

use super::cache::Cache;
use super::fetch::{FetchError, Fetcher};
use super::simple::{IndexFile, well_formed};
use super::urls::{index_key, strip_credentials};
use super::{Artifact, ArtifactKind, Index, Lookup, Wanted};
use crate::packaging::normalize_name;
use crate::packaging::wheel_name::{expand_tags, parse_sdist, parse_wheel, same_version};

pub(super) struct Context<'a> {
    /// The primary index, then the extra ones.
    pub configured: &'a [Index],
    pub cache: Option<&'a Cache>,
    pub offline: bool,
    pub fetcher: &'a OnceLock<Result<Fetcher, FetchError>>,
    pub timeout: Duration,
}

/// What one page says about the wanted release.
struct Release {
    installed_wheel: Option<Artifact>,
    files: Vec<Artifact>,
}

impl Release {
    /// Enough to answer without asking the index again: released files do
    /// not change, so a page that had the installed file still has it.
    fn is_complete_for(&self, wanted: &Wanted) -> bool {
        if wanted.wheel_tags.is_empty() {
            !self.files.is_empty()
        } else {
            self.installed_wheel.is_some()
        }
    }

    fn found(self, index: &Index) -> Lookup {
        Lookup::Found {
            index: index.shown(),
            installed_wheel: self.installed_wheel,
            files: self.files,
        }
    }
}

impl Context<'_> {
    pub fn look_up(&self, wanted: &Wanted) -> Lookup {
        let project = normalize_name(&wanted.name);
        let mut notes = Vec::new();
        let mut cached_anywhere = false;
        let not_listed =
            |index: &Index| format!("{} lists no files of {} {}", index.shown(), wanted.name, wanted.version);
        for index in self.candidates(wanted) {
            let cached = self.cache.and_then(|cache| cache.load(&index.url, &project));
            let cached_here = cached.is_some();
            cached_anywhere |= cached_here;
            let from_cache = cached
                .map(|page| release(&page.files, wanted, &index))
                .filter(|release| !release.files.is_empty());
            let from_cache = match from_cache {
                Some(release) if self.offline || release.is_complete_for(wanted) => return release.found(&index),
                other => other,
            };
            if self.offline {
                if cached_here {
                    notes.push(format!("{} (cached)", not_listed(&index)));
                }
                continue;
            }
            match self.fetch(&index, &project, wanted) {
                Ok(page) => {
                    let release = release(&page.files, wanted, &index);
                    if !release.files.is_empty() {
                        return release.found(&index);
                    }
                    notes.push(not_listed(&index));
                }
                // A stale page that has the version beats no answer.
                Err(error) => match from_cache {
                    Some(release) => return release.found(&index),
                    None => notes.push(error.to_string()),
                },
            }
        }
        let reason = if self.offline && !cached_anywhere {
            "not in the index cache".to_string()
        } else {
            notes.join("; ")
        };
        Lookup::Missing { reason }
    }

    /// The configured indexes, then the package's own, each once.
    fn candidates(&self, wanted: &Wanted) -> Vec<Index> {
        let own = wanted.extra_indexes.iter().map(|url| Index {
            url: url.clone(),
            from: format!("given for {}", wanted.name),
        });
        let mut seen = HashSet::new();
        self.configured
            .iter()
            .cloned()
            .chain(own)
            .filter(|index| seen.insert(index_key(&index.url)))
            .collect()
    }

    /// The page of `project` on `index`, with the files of `wanted`'s version
    /// alone: a page of every release ever made costs no more than that.
    fn fetch(&self, index: &Index, project: &str, wanted: &Wanted) -> Result<super::fetch::Page, FetchError> {
        let fetcher = self
            .fetcher
            .get_or_init(|| Fetcher::new(self.timeout))
            .as_ref()
            .map_err(Clone::clone)?;
        let keep = |filename: &str| release_file(filename, project, &wanted.version).is_some();
        let page = fetcher.project_page(&index.url, project, &keep)?;
        if let Some(cache) = self.cache {
            cache.store(&index.url, project, &page.url, &page.files);
        }
        Ok(page)
    }
}

/// The files of `wanted`'s exact version on a page, and among them the
/// installed wheel.
fn release(files: &[IndexFile], wanted: &Wanted, index: &Index) -> Release {
    let project = normalize_name(&wanted.name);
    let installed_tags = expand_tags(&wanted.wheel_tags);
    let mut release = Release {
        installed_wheel: None,
        files: Vec::new(),
    };
    for file in files {
        let Some((kind, tags)) = release_file(&file.filename, &project, &wanted.version) else {
            continue;
        };
        let artifact = Artifact {
            filename: file.filename.clone(),
            url: strip_credentials(&file.url),
            // Checked again here: a cached page is read back from disk.
            sha256: file
                .hashes
                .get("sha256")
                .filter(|digest| well_formed("sha256", digest))
                .cloned(),
            size: file.size,
            upload_time: file.upload_time.clone(),
            kind,
            index: index.shown(),
        };
        let is_installed = !installed_tags.is_empty() && tags.as_ref() == Some(&installed_tags);
        if is_installed && release.installed_wheel.is_none() {
            release.installed_wheel = Some(artifact.clone());
        }
        release.files.push(artifact);
    }
    release
}

/// What `filename` is, a wheel (with its tags) or an sdist, when it is a file
/// of `project` (normalized) at `version`.
fn release_file(filename: &str, project: &str, version: &str) -> Option<(ArtifactKind, Option<BTreeSet<String>>)> {
    let (kind, name, found, tags) = match parse_wheel(filename) {
        Some(wheel) => (ArtifactKind::Wheel, wheel.name, wheel.version, Some(wheel.tags)),
        None => {
            let sdist = parse_sdist(filename, Some(project))?;
            (ArtifactKind::Sdist, sdist.name, sdist.version, None)
        }
    };
    (name == project && same_version(&found, version)).then_some((kind, tags))
}

#[cfg(test)]
mod tests {
    use super::super::{Options, ResolvedIndexes, look_up};
    use super::*;
    use std::collections::BTreeMap;

    /// An index where nothing listens: any request is refused, so only the
    /// cache can answer.
    fn dead_index() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}/simple/", listener.local_addr().unwrap().port())
    }

    const LINUX_WHEEL: &str = "demo_pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";

    fn cached_page(cache: &Cache, index: &str) {
        let files: Vec<IndexFile> = [
            "demo_pkg-1.0-py3-none-any.whl",
            LINUX_WHEEL,
            "demo_pkg-1.0.tar.gz",
            "demo_pkg-2.0-py3-none-any.whl",
            "demo_pkg-1.0.exe",
        ]
        .iter()
        .map(|name| IndexFile {
            filename: name.to_string(),
            url: format!("http://127.0.0.1/files/{name}"),
            hashes: BTreeMap::from([("sha256".to_string(), format!("{:0>64}", name.len()))]),
            requires_python: None,
            yanked: None,
            size: None,
            upload_time: None,
        })
        .collect();
        cache.store(index, "demo-pkg", &format!("{index}demo-pkg/"), &files);
    }

    fn wanted(version: &str, tags: &[&str]) -> Wanted {
        Wanted {
            name: "Demo.Pkg".to_string(),
            version: version.to_string(),
            wheel_tags: tags.iter().map(|tag| tag.to_string()).collect(),
            extra_indexes: Vec::new(),
        }
    }

    fn run(index: &str, cache: &Cache, offline: bool, wanted: Wanted) -> Lookup {
        let indexes = ResolvedIndexes {
            primary: Index {
                url: index.to_string(),
                from: "test".to_string(),
            },
            extras: Vec::new(),
        };
        let options = Options {
            offline,
            cache_dir: Some(cache.directory().to_path_buf()),
            timeout: Duration::from_secs(5),
            progress: false,
        };
        look_up(&[wanted], &indexes, &options).remove(0)
    }

    fn filenames(lookup: &Lookup) -> (Option<String>, Vec<String>) {
        let Lookup::Found {
            installed_wheel, files, ..
        } = lookup
        else {
            panic!("not found: {lookup:?}");
        };
        (
            installed_wheel.as_ref().map(|wheel| wheel.filename.clone()),
            files.iter().map(|file| file.filename.clone()).collect(),
        )
    }

    #[test]
    fn a_cached_page_with_the_installed_wheel_answers_without_a_request() {
        let directory = tempfile::tempdir().unwrap();
        let cache = Cache::new(directory.path().to_path_buf());
        let index = dead_index();
        cached_page(&cache, &index);
        let tags = ["cp311-cp311-manylinux2014_x86_64", "cp311-cp311-manylinux_2_17_x86_64"];
        let lookup = run(&index, &cache, false, wanted("1.0.0", &tags));
        let (installed, files) = filenames(&lookup);
        assert_eq!(installed.as_deref(), Some(LINUX_WHEEL));
        assert_eq!(
            files,
            ["demo_pkg-1.0-py3-none-any.whl", LINUX_WHEEL, "demo_pkg-1.0.tar.gz"],
            "every file of 1.0, nothing of 2.0, nothing that is neither wheel nor sdist"
        );
    }

    #[test]
    fn a_cached_page_without_the_installed_wheel_is_fetched_again() {
        let directory = tempfile::tempdir().unwrap();
        let cache = Cache::new(directory.path().to_path_buf());
        let index = dead_index();
        cached_page(&cache, &index);
        // The refetch is refused; the stale page, which has the version, answers.
        let lookup = run(
            &index,
            &cache,
            false,
            wanted("1.0", &["cp312-cp312-manylinux_2_17_x86_64"]),
        );
        assert_eq!(filenames(&lookup).0, None);
        // A version the cached page lacks gets the refetch's error.
        let Lookup::Missing { reason } = run(&index, &cache, false, wanted("3.0", &[])) else {
            panic!("3.0 is on no index");
        };
        assert_eq!(reason, format!("connection refused ({index}demo-pkg/)"));
    }

    #[test]
    fn offline_answers_from_the_cache_or_says_it_is_not_cached() {
        let directory = tempfile::tempdir().unwrap();
        let cache = Cache::new(directory.path().to_path_buf());
        let index = dead_index();
        let Lookup::Missing { reason } = run(&index, &cache, true, wanted("1.0", &[])) else {
            panic!("nothing is cached yet");
        };
        assert_eq!(reason, "not in the index cache");
        cached_page(&cache, &index);
        let lookup = run(
            &index,
            &cache,
            true,
            wanted("1.0", &["cp312-cp312-manylinux_2_17_x86_64"]),
        );
        assert_eq!(
            filenames(&lookup).1.len(),
            3,
            "offline, a page without the installed wheel still answers"
        );
        let Lookup::Missing { reason } = run(&index, &cache, true, wanted("3.0", &[])) else {
            panic!("3.0 is not cached");
        };
        assert_eq!(reason, format!("{index} lists no files of Demo.Pkg 3.0 (cached)"));
    }
}
