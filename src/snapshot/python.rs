//! The interpreter a job would run with, as `python` records it.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where the interpreter came from, so a user can see why this one was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Flag,
    VirtualEnv,
    CondaPrefix,
    Path,
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

/// The PEP 508 environment marker variables of an interpreter, as
/// `packaging.markers.default_environment()` computes them: what pip evaluates a
/// `Requires-Dist` marker such as `python_version < "3.11"` against.
/// <https://packaging.python.org/en/latest/specifications/dependency-specifiers/#environment-markers>
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkerValues {
    pub implementation_name: String,
    pub implementation_version: String,
    pub os_name: String,
    pub platform_machine: String,
    pub platform_python_implementation: String,
    pub platform_release: String,
    pub platform_system: String,
    pub platform_version: String,
    pub python_full_version: String,
    pub python_version: String,
    pub sys_platform: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Python {
    /// `sys.executable` as the interpreter reports it.
    pub executable: PathBuf,
    /// The file envdoctor ran, and why it chose that one. Beyond the public
    /// contract's keys (executable, version, prefix, site_packages) every key
    /// is optional when read; [`Snapshot::complete`] fills what follows from them.
    #[serde(default)]
    pub invoked: PathBuf,
    #[serde(default = "unknown_origin")]
    pub origin: Origin,
    pub version: String,
    #[serde(default)]
    pub implementation: String,
    pub prefix: PathBuf,
    #[serde(default)]
    pub base_prefix: PathBuf,
    /// A virtual environment (venv or virtualenv): `prefix` differs from `base_prefix`.
    #[serde(default)]
    pub is_virtual_env: bool,
    pub site_packages: Vec<PathBuf>,
    #[serde(default)]
    pub user_site: Option<PathBuf>,
    #[serde(default)]
    pub user_site_enabled: bool,
    /// As a job started with this interpreter sees it, without the script's own directory.
    #[serde(default)]
    pub sys_path: Vec<PathBuf>,
    /// The PEP 508 marker variables, for evaluating `Requires-Dist` markers as pip
    /// would. `None` in a Snapshot from an envdoctor before they were recorded;
    /// the dependency check then rebuilds what it can from the fields above.
    /// Left out when `None`, so an older Snapshot replays exactly as recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markers: Option<MarkerValues>,
}

fn unknown_origin() -> Origin {
    Origin::Unknown
}
