//! The Snapshot: everything a probe learned about one node. Every consumer
//! (checks, lock, verify, diff, export, fleet) reads this and nothing else, and
//! its JSON form (`envdoctor.snapshot/1`) is a public contract: keys are only
//! ever added.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::probe::cuda::Cuda;
use crate::probe::frameworks::Frameworks;
use crate::probe::packages::{Package, PathProblem};
use crate::probe::python::Origin;
use crate::probe::system::System;

pub const SCHEMA: &str = "envdoctor.snapshot/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    pub schema: String,
    pub envdoctor_version: String,
    pub system: System,
    pub python: Python,
    /// The distributions Python imports, in `sys.path` order.
    pub packages: Vec<Package>,
    /// Problems with whole `sys.path` entries (a package's own problems sit on the package).
    pub package_scan_problems: Vec<PathProblem>,
    /// Selected environment variables that change how training behaves.
    pub env: BTreeMap<String, String>,
    /// CUDA toolkits on this node, and the CUDA libraries Python would load.
    pub cuda: Cuda,
    /// Build facts of the frameworks installed, read from their files, keyed by name.
    pub frameworks: Frameworks,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Python {
    /// `sys.executable` as the interpreter reports it.
    pub executable: PathBuf,
    /// The file envdoctor ran, and why it chose that one.
    pub invoked: PathBuf,
    pub origin: Origin,
    pub version: String,
    pub implementation: String,
    pub prefix: PathBuf,
    pub base_prefix: PathBuf,
    /// A virtual environment (venv or virtualenv): `prefix` differs from `base_prefix`.
    pub is_virtual_env: bool,
    pub site_packages: Vec<PathBuf>,
    pub user_site: Option<PathBuf>,
    pub user_site_enabled: bool,
    /// As a job started with this interpreter sees it, without the script's own directory.
    pub sys_path: Vec<PathBuf>,
}
