//! The package-index client: for each installed package, the files its index
//! offers for that exact version, and which of them is the wheel that was
//! installed, with hashes as the index gives them.
//!
//! An index install records neither its index nor its wheel's hash (PEP 610's
//! `direct_url.json` is only written for direct URLs), so they are found again:
//! the name, the version and the `Tag:` lines of the installed `WHEEL` name one
//! file on the index the user's pip is configured with ([`resolve`]).
//! Pages come from the simple repository API (PEP 503 HTML or PEP 691 JSON),
//! are cached on disk, and are fetched on a few threads at once.

mod cache;
mod config;
mod fetch;
mod lookup;
mod redirect;
pub mod simple;

/// Whether a digest is lower-case hex of its algorithm's length (see `simple`).
pub fn digest_is_well_formed(algorithm: &str, digest: &str) -> bool {
    simple::well_formed(algorithm, digest)
}
pub mod urls;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};

pub use cache::Cache;
pub use config::{ConfigError, ConfigRoots, FALLBACK_INDEX, Index, ResolvedIndexes, resolve};
pub use fetch::MAX_PAGE_BYTES;

/// One installed package to find on the indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub name: String,
    pub version: String,
    /// The `Tag:` lines of the installed `WHEEL`; empty when it was not
    /// installed from a wheel, and then no file is the installed one.
    pub wheel_tags: Vec<String>,
    /// Indexes to try for this package after the configured ones, such as
    /// `https://download.pytorch.org/whl/cu121` for `torch 2.3.1+cu121`.
    pub extra_indexes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    Wheel,
    Sdist,
}

/// One file of a release on an index. URLs are without credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub filename: String,
    pub url: String,
    /// Lower-case hex; `None` when the index gives none (the PyTorch index
    /// often does not).
    pub sha256: Option<String>,
    pub size: Option<u64>,
    /// As the index writes it (PEP 700: ISO 8601, UTC).
    pub upload_time: Option<String>,
    pub kind: ArtifactKind,
    /// The index it was found on.
    pub index: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{index} gives no sha256 for {filename}")]
pub struct NoHash {
    pub filename: String,
    pub index: String,
}

impl Artifact {
    pub fn require_sha256(&self) -> Result<&str, NoHash> {
        self.sha256.as_deref().ok_or_else(|| NoHash {
            filename: self.filename.clone(),
            index: self.index.clone(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The first index that lists files of that exact version.
    Found {
        index: String,
        /// The file whose name and version match and whose tags are exactly
        /// the installed `WHEEL`'s.
        installed_wheel: Option<Artifact>,
        /// Every file of that version on that index, in the page's order.
        files: Vec<Artifact>,
    },
    Missing {
        reason: String,
    },
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Use only the cache; make no request.
    pub offline: bool,
    /// Where pages are cached; `None` for no cache. [`Cache::default_directory`]
    /// gives the usual place.
    pub cache_dir: Option<PathBuf>,
    /// Per request.
    pub timeout: Duration,
    /// Draw a progress bar on stderr, when stderr is a terminal.
    pub progress: bool,
}

/// Requests in flight at once: enough to hide latency, few enough to be
/// polite to an index (PyPI asks clients not to burst).
const WORKERS: usize = 8;

/// One [`Lookup`] per `wanted`, in the same order.
pub fn look_up(wanted: &[Wanted], indexes: &ResolvedIndexes, options: &Options) -> Vec<Lookup> {
    let configured: Vec<Index> = std::iter::once(indexes.primary.clone())
        .chain(indexes.extras.iter().cloned())
        .collect();
    let cache = options.cache_dir.clone().map(Cache::new);
    // Built on first use: an offline run or an all-cached one needs no client.
    let fetcher = OnceLock::new();
    let context = lookup::Context {
        configured: &configured,
        cache: cache.as_ref(),
        offline: options.offline,
        fetcher: &fetcher,
        timeout: options.timeout,
    };
    let bar = progress_bar(wanted.len(), options.progress);
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Lookup>> = vec![None; wanted.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS.min(wanted.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(package) = wanted.get(at) else { break done };
                        bar.set_message(package.name.clone());
                        done.push((at, context.look_up(package)));
                        bar.inc(1);
                    }
                })
            })
            .collect();
        for worker in workers {
            for (at, lookup) in worker.join().unwrap_or_default() {
                results[at] = Some(lookup);
            }
        }
    });
    bar.finish_and_clear();
    results
        .into_iter()
        .map(|lookup| {
            lookup.unwrap_or_else(|| Lookup::Missing {
                reason: "the lookup stopped unexpectedly (a bug in envdoctor)".to_string(),
            })
        })
        .collect()
}

fn progress_bar(length: usize, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(length as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {wide_msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix("index");
    bar
}
