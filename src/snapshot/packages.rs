//! Every installed distribution, as `packages` records it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::packaging::metadata::Source;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetadataFormat {
    #[default]
    DistInfo,
    EggInfo,
    EggInfoFile,
    Egg,
}

/// One installed distribution, as Python would import it. Beyond the public
/// contract's keys (name, version, location, installer, source) every key is
/// optional when read; [`crate::snapshot::Snapshot::complete`] derives
/// `normalized_name` where it is missing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Package {
    /// As the metadata spells it.
    pub name: String,
    /// PEP 503: lower case, runs of `-`, `_`, `.` folded to one `-`.
    pub normalized_name: String,
    /// In PEP 440's normal form (`1.0.0-RC1` is `1.0.0rc1`), as pip shows it;
    /// kept as written when it is not valid PEP 440 (a problem says so); `None`
    /// only when the metadata has no version at all.
    pub version: Option<String>,
    /// The version as the metadata spells it, when that differs from `version`.
    pub version_as_written: Option<String>,
    /// The `sys.path` entry it was found in.
    pub location: PathBuf,
    pub metadata_path: PathBuf,
    pub metadata_format: MetadataFormat,
    pub installer: Option<String>,
    /// Whether the user asked for it by name (PEP 376 `REQUESTED`); `None` for
    /// formats that do not record it.
    pub requested: Option<bool>,
    /// From `direct_url.json`; `None` means installed by name from an index,
    /// or by a tool that records no provenance.
    pub source: Option<Source>,
    /// As `pip list` reports it: the project directory of an editable install.
    pub editable_project_location: Option<PathBuf>,
    /// The import hooks of an editable install (`__editable__` finders and
    /// `.pth` files, legacy `.egg-link` files).
    pub editable_hooks: Vec<PathBuf>,
    pub requires_python: Option<String>,
    pub requires_dist: Vec<String>,
    pub wheel_tags: Vec<String>,
    /// Other copies later on `sys.path`, which Python never imports.
    pub shadowed: Vec<ShadowedCopy>,
    /// The digest of what the wheel installed (`packaging::record::record_digest`),
    /// the same on every node that installed that wheel. Recorded only when the
    /// probe is asked for it (`lock`, `verify`, `export`), since it reads every
    /// RECORD; `null` otherwise and where there is no RECORD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_digest: Option<String>,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShadowedCopy {
    pub version: Option<String>,
    pub location: PathBuf,
    pub metadata_path: PathBuf,
}

/// A problem with a `sys.path` entry as a whole (as opposed to one package).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathProblem {
    pub path: PathBuf,
    pub problem: String,
}
