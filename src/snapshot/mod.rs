//! The Snapshot: everything a probe learned about one node. Every consumer
//! (checks, lock, verify, diff, export, fleet) reads this and nothing else, and
//! its JSON form (`envdoctor.snapshot/1`) is a public contract: keys are only
//! ever added.
//!
//! This module holds the types and nothing else; `probe` fills them, and no
//! consumer needs to know how.

pub mod cuda;
pub mod frameworks;
pub mod nvidia;
pub mod packages;
pub mod python;
pub mod system;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::hint::HasHint;
use crate::located::{Located, without_position};
use cuda::Cuda;
use frameworks::Frameworks;
use nvidia::{CudaDevices, KernelModule, Nvidia, NvidiaError};
use packages::{Package, PathProblem};
pub use python::Python;
use system::System;

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
    #[serde(default)]
    pub package_scan_problems: Vec<PathProblem>,
    /// Selected environment variables that change how training behaves.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables that were selected but whose names look secret (TOKEN, KEY,
    /// SECRET, PASSWORD, ...): named, so their presence is known, never valued.
    #[serde(default)]
    pub env_withheld: Vec<String>,
    /// The driver and every GPU, from NVML; `null` when NVML gave nothing, and then
    /// `nvidia_error` says why.
    #[serde(default)]
    pub nvidia: Option<Nvidia>,
    #[serde(default)]
    pub nvidia_error: Option<NvidiaError>,
    /// The loaded kernel module, read from `/proc` (or `/sys`) whether NVML works or not.
    #[serde(default)]
    pub nvidia_kernel_module: Option<KernelModule>,
    /// Which GPU `cuda:N` is, under this environment's `CUDA_VISIBLE_DEVICES` and `CUDA_DEVICE_ORDER`.
    #[serde(default)]
    pub cuda_devices: Option<CudaDevices>,
    /// CUDA toolkits on this node, and the CUDA libraries Python would load.
    #[serde(default)]
    pub cuda: Cuda,
    /// Build facts of the frameworks installed, read from their files, keyed by name.
    #[serde(default)]
    pub frameworks: Frameworks,
}

/// Why a recorded Snapshot cannot be used. Each renders as one line that
/// names the file, the place and the problem.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read Snapshot `{path}`")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Malformed(Located),
    #[error("{path}: {problem}")]
    NotASnapshot { path: PathBuf, problem: SchemaRefusal },
}

/// Why a document's schema is not one this envdoctor reads.
#[derive(Debug, thiserror::Error)]
pub enum SchemaRefusal {
    #[error("{0}")]
    NotASnapshot(String),
    #[error(
        "written by a newer envdoctor (schema \"{schema}\"); this envdoctor {version} reads up to \"{SCHEMA}\"",
        version = env!("CARGO_PKG_VERSION")
    )]
    Newer { schema: String },
}

impl HasHint for ReadError {
    fn hint(&self) -> Option<String> {
        const RECORD: &str = "record one on the node with `envdoctor probe --format json -o node.json`";
        match self {
            ReadError::Unreadable { .. } => None,
            ReadError::NotASnapshot {
                problem: SchemaRefusal::Newer { .. },
                ..
            } => Some(crate::hint::upgrade().to_string()),
            ReadError::Malformed(_) | ReadError::NotASnapshot { .. } => Some(RECORD.to_string()),
        }
    }
}

/// Reads a Snapshot written by `envdoctor probe --format json`.
///
/// Later envdoctors only add keys within one schema version, so unknown keys
/// are ignored and keys this version added are optional; a newer schema
/// version is refused, because its meaning may have changed.
pub fn read(path: &Path) -> Result<Snapshot, ReadError> {
    let bytes = crate::bounded_read::read(path, crate::bounded_read::DOCUMENT_LIMIT).map_err(|source| {
        ReadError::Unreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    parse(&bytes, path)
}

/// A Snapshot from bytes already read from `path` (which names it in errors).
pub fn parse(bytes: &[u8], path: &Path) -> Result<Snapshot, ReadError> {
    let malformed = |error: serde_json::Error| {
        let problem = match error.classify() {
            serde_json::error::Category::Eof => format!("truncated: {}", without_position(&error)),
            serde_json::error::Category::Syntax => format!("not JSON: {}", without_position(&error)),
            _ => format!("not a valid Snapshot: {}", without_position(&error)),
        };
        ReadError::Malformed(Located::at(path, error.line(), error.column(), problem))
    };
    let document: serde_json::Value = serde_json::from_slice(bytes).map_err(malformed)?;
    check_schema(&document).map_err(|problem| ReadError::NotASnapshot {
        path: path.to_path_buf(),
        problem,
    })?;
    let mut snapshot: Snapshot = serde_json::from_slice(bytes).map_err(malformed)?;
    snapshot.complete();
    Ok(snapshot)
}

impl Snapshot {
    /// Fills what a Snapshot with only the contract's keys leaves out but
    /// implies: a package's normalized name, and an interpreter invoked as
    /// itself outside any virtual environment unless it says otherwise.
    pub fn complete(&mut self) {
        for package in &mut self.packages {
            if package.normalized_name.is_empty() {
                package.normalized_name = crate::packaging::normalize_name(&package.name);
            }
        }
        let python = &mut self.python;
        if python.invoked.as_os_str().is_empty() {
            python.invoked = python.executable.clone();
        }
        if python.base_prefix.as_os_str().is_empty() {
            python.base_prefix = python.prefix.clone();
        }
    }
}

fn check_schema(document: &serde_json::Value) -> Result<(), SchemaRefusal> {
    let not_a_snapshot = |why: String| SchemaRefusal::NotASnapshot(format!("not an envdoctor Snapshot: {why}"));
    let Some(object) = document.as_object() else {
        return Err(not_a_snapshot("the document is not a JSON object".to_string()));
    };
    let Some(schema) = object.get("schema") else {
        return Err(not_a_snapshot("it has no \"schema\" key".to_string()));
    };
    let Some(schema) = schema.as_str() else {
        return Err(not_a_snapshot(format!("\"schema\" is {schema}, not a string")));
    };
    check_schema_name(schema)
}

/// Whether a document with this `schema` value is a Snapshot this envdoctor reads.
pub(crate) fn check_schema_name(schema: &str) -> Result<(), SchemaRefusal> {
    let (kind, version) = schema.rsplit_once('/').unwrap_or((schema, ""));
    let (expected_kind, expected_version) = SCHEMA.rsplit_once('/').expect("SCHEMA is kind/version");
    if kind != expected_kind {
        return Err(SchemaRefusal::NotASnapshot(format!(
            "not an envdoctor Snapshot: its schema is \"{schema}\", expected \"{SCHEMA}\""
        )));
    }
    match (version.parse::<u32>(), expected_version.parse::<u32>()) {
        (Ok(found), Ok(supported)) if found == supported => Ok(()),
        (Ok(found), Ok(supported)) if found > supported => Err(SchemaRefusal::Newer {
            schema: schema.to_string(),
        }),
        _ => Err(SchemaRefusal::NotASnapshot(format!(
            "unsupported Snapshot schema \"{schema}\", expected \"{SCHEMA}\""
        ))),
    }
}
