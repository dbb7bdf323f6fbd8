//! What `envdoctor.lock` holds: the parts of a Snapshot that must be the same on
//! every node of a fleet for training to behave the same. Per-node facts (host
//! name, GPU UUIDs and PCI addresses, temperatures, paths of the virtual
//! environment, job variables such as `RANK`) stay in Snapshots.
//!
//! Every list is sorted and every map is a `BTreeMap`, so one environment always
//! gives one lock, byte for byte, and the fingerprint is a function of content.
//!
//! A lock's identity is what runs: names, versions, builds (wheel tags, RECORD
//! digests), sources, the frameworks' build facts, the GPU side. How a package
//! was asked for (pip's `REQUESTED`) or which installer wrote it does not
//! change what runs; those stay in the Snapshot, so two nodes built from the
//! same files by different commands get one lock, one fingerprint and one
//! fleet configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::packaging::normalize_name;
use crate::snapshot::Snapshot;
use crate::snapshot::packages::Source as ProbedSource;

/// The format this envdoctor writes. A lock with a greater major version is
/// refused (its meaning may have changed); a greater minor only added keys.
///
/// 1.1: packages no longer carry `installer` and `requested` (how a package
/// was installed, not what runs), and the fingerprint covers the identity.
pub const FORMAT_VERSION: &str = "1.1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Lock {
    pub format_version: String,
    /// `envdoctor X.Y.Z`; not part of the fingerprint, so upgrading envdoctor
    /// does not make an unchanged environment look different.
    pub created_by: String,
    /// `sha256:` of the canonical content (everything but `created-by` and this).
    pub fingerprint: String,
    pub system: System,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvidia: Option<Nvidia>,
    /// One entry per GPU model, with how many of it the node has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuGroup>,
    #[serde(default)]
    pub cuda: Cuda,
    pub python: Python,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<Package>,
    /// Build facts of the frameworks, as their own files record them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub frameworks: BTreeMap<String, BTreeMap<String, Fact>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct System {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version_id: Option<String>,
    pub architecture: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glibc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Nvidia {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// The newest CUDA the driver runs (`nvidia-smi`'s "CUDA Version").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_driver: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct GpuGroup {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_total_mib: Option<u64>,
    pub count: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Cuda {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolkits: Vec<Toolkit>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub libraries: Vec<Library>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Toolkit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub root: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvcc_version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Library {
    /// `cudart`, `cudnn`, `nccl`, ...
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `wheel`, `toolkit` or `system`.
    pub provided_by: String,
    /// The `nvidia-*` distribution that installed it, for wheels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Python {
    pub version: String,
    pub implementation: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Package {
    /// As the metadata spells it; compared in PEP 503 normal form.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Written by locks before format 1.1, which counted it in the fingerprint;
    /// read only so such a lock's fingerprint can be checked, then dropped
    /// (`Lock::identity`). The Snapshot keeps the installer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installer: Option<String>,
    /// As `installer`: pip's `REQUESTED` marker, in locks before format 1.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<bool>,
    pub source: Source,
    /// The `Tag:` lines of its `WHEEL`: with name and version, they name the wheel file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheel_tags: Vec<String>,
    /// `sha256:` over its RECORD's entries that every install of the same wheel
    /// shares (see `packaging::record::record_digest`): same version, other files, shows here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_digest: Option<String>,
}

impl Package {
    pub fn normalized_name(&self) -> String {
        normalize_name(&self.name)
    }

    /// The PEP 508 direct reference `pip freeze` writes for a non-editable
    /// install from a URL: `name @ git+URL@COMMIT`, `name @ file:///...`,
    /// `name @ URL#sha256=...`. `None` for index and editable installs.
    pub fn direct_reference(&self) -> Option<String> {
        let name = &self.name;
        Some(match &self.source {
            Source::Directory { editable: true, .. } | Source::Index | Source::Unknown => return None,
            Source::Directory { url, .. } | Source::Archive { url, hash: None, .. } => format!("{name} @ {url}"),
            Source::Archive {
                url, hash: Some(hash), ..
            } => format!("{name} @ {url}#{hash}"),
            Source::Vcs {
                url,
                vcs,
                commit_id,
                subdirectory,
                ..
            } => {
                let fragment = subdirectory
                    .as_ref()
                    .map(|subdirectory| format!("#subdirectory={subdirectory}"))
                    .unwrap_or_default();
                format!("{name} @ {vcs}+{url}@{commit_id}{fragment}")
            }
        })
    }
}

/// Where a distribution came from, from its `direct_url.json` (PEP 610).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Source {
    /// Installed by name from a package index (no `direct_url.json`).
    Index,
    #[serde(rename_all = "kebab-case")]
    Directory {
        url: String,
        editable: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subdirectory: Option<String>,
    },
    #[serde(rename_all = "kebab-case")]
    Vcs {
        url: String,
        vcs: String,
        commit_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        requested_revision: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subdirectory: Option<String>,
    },
    #[serde(rename_all = "kebab-case")]
    Archive {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hash: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subdirectory: Option<String>,
    },
    /// A provenance this envdoctor cannot describe.
    Unknown,
}

impl Source {
    fn from_probed(source: Option<&ProbedSource>) -> Source {
        match source {
            None => Source::Index,
            Some(ProbedSource::Directory {
                url,
                editable,
                subdirectory,
            }) => Source::Directory {
                url: url.clone(),
                editable: *editable,
                subdirectory: subdirectory.clone(),
            },
            Some(ProbedSource::Vcs {
                url,
                vcs,
                commit_id,
                requested_revision,
                subdirectory,
            }) => Source::Vcs {
                url: url.clone(),
                vcs: vcs.clone(),
                commit_id: commit_id.clone(),
                requested_revision: requested_revision.clone(),
                subdirectory: subdirectory.clone(),
            },
            Some(ProbedSource::Archive {
                url,
                hash,
                subdirectory,
            }) => Source::Archive {
                url: url.clone(),
                hash: hash.clone(),
                subdirectory: subdirectory.clone(),
            },
            Some(ProbedSource::Unknown) => Source::Unknown,
        }
    }

    /// How a person reads it: `index`, `editable file:///src/x`, `git https://...@abc123`.
    pub fn describe(&self) -> String {
        match self {
            Source::Index => "a package index".to_string(),
            Source::Directory { url, editable, .. } => {
                format!("{}{url}", if *editable { "editable " } else { "" })
            }
            Source::Vcs {
                url, vcs, commit_id, ..
            } => format!("{vcs} {url}@{commit_id}"),
            Source::Archive { url, .. } => url.clone(),
            Source::Unknown => "an unknown source".to_string(),
        }
    }
}

/// A framework build fact: TOML has no null, so absent facts are left out.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fact {
    Bool(bool),
    Integer(i64),
    Float(f64),
    Text(String),
    List(Vec<Fact>),
}

/// Floats compare by their bits: a fact is the same when it was recorded the
/// same, which also makes facts usable as keys (a fleet interns them).
impl PartialEq for Fact {
    fn eq(&self, other: &Fact) -> bool {
        match (self, other) {
            (Fact::Bool(a), Fact::Bool(b)) => a == b,
            (Fact::Integer(a), Fact::Integer(b)) => a == b,
            (Fact::Float(a), Fact::Float(b)) => a.to_bits() == b.to_bits(),
            (Fact::Text(a), Fact::Text(b)) => a == b,
            (Fact::List(a), Fact::List(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Fact {}

impl std::hash::Hash for Fact {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Fact::Bool(flag) => flag.hash(state),
            Fact::Integer(number) => number.hash(state),
            Fact::Float(number) => number.to_bits().hash(state),
            Fact::Text(text) => text.hash(state),
            Fact::List(items) => items.hash(state),
        }
    }
}

impl Fact {
    fn from_json(value: &serde_json::Value) -> Option<Fact> {
        use serde_json::Value;
        match value {
            Value::Null | Value::Object(_) => None,
            Value::Bool(flag) => Some(Fact::Bool(*flag)),
            Value::Number(number) => number
                .as_i64()
                .map(Fact::Integer)
                .or_else(|| number.as_f64().map(Fact::Float)),
            Value::String(text) => Some(Fact::Text(text.clone())),
            Value::Array(items) => Some(Fact::List(items.iter().filter_map(Fact::from_json).collect())),
        }
    }
}

impl std::fmt::Display for Fact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fact::Bool(flag) => write!(f, "{flag}"),
            Fact::Integer(number) => write!(f, "{number}"),
            Fact::Float(number) => write!(f, "{number}"),
            Fact::Text(text) => f.write_str(text),
            Fact::List(items) => {
                let items: Vec<String> = items.iter().map(ToString::to_string).collect();
                write!(f, "[{}]", items.join(", "))
            }
        }
    }
}

/// Variables that set how training behaves and should match across a fleet.
/// Job and node variables (`RANK`, `MASTER_ADDR`, `SLURM_*`, `PATH`,
/// `VIRTUAL_ENV`, the container runtime's `NVIDIA_*`) differ by design and are
/// left to Snapshots.
const LOCKED_ENV_PREFIXES: &[&str] = &[
    "CUDA_",
    "NCCL_",
    "TORCH_",
    "PYTORCH_",
    "ACCELERATE_",
    "DS_",
    "BNB_",
    "HF_",
    "TRANSFORMERS_",
    "CUDNN_",
    "TRITON_",
    "NVTE_",
    "XLA_",
];
const LOCKED_ENV_NAMES: &[&str] = &[
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONNOUSERSITE",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "CUBLAS_WORKSPACE_CONFIG",
    "TOKENIZERS_PARALLELISM",
];

fn is_locked_env(name: &str) -> bool {
    LOCKED_ENV_NAMES.contains(&name) || LOCKED_ENV_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

impl Lock {
    /// The lock of a node: a projection of its Snapshot, RECORD digests
    /// included where the probe recorded them.
    pub fn from_snapshot(snapshot: &Snapshot) -> Lock {
        let system = &snapshot.system;
        let mut lock = Lock {
            format_version: FORMAT_VERSION.to_string(),
            created_by: format!("envdoctor {}", env!("CARGO_PKG_VERSION")),
            fingerprint: String::new(),
            system: System {
                os: system.os.clone(),
                os_id: system.os_id.clone(),
                os_version_id: system.os_version_id.clone(),
                architecture: system.architecture.clone(),
                glibc: system.glibc_version.clone(),
            },
            nvidia: snapshot.nvidia.as_ref().map(|nvidia| Nvidia {
                driver: nvidia.driver_version.clone(),
                cuda_driver: nvidia.cuda_driver_version.clone(),
            }),
            gpus: gpu_groups(snapshot),
            cuda: Cuda {
                toolkits: sorted(snapshot.cuda.toolkits.iter().map(|toolkit| Toolkit {
                    version: toolkit.version.clone(),
                    root: toolkit.root.display().to_string(),
                    nvcc_version: toolkit.nvcc_version.clone(),
                })),
                libraries: sorted(snapshot.cuda.libraries.iter().map(|library| {
                    Library {
                        name: library.name.clone(),
                        version: library.version.clone(),
                        provided_by: serde_plain(&library.provided_by),
                        distribution: library
                            .distribution
                            .as_ref()
                            .map(|distribution| distribution.name.clone()),
                    }
                })),
            },
            python: Python {
                version: snapshot.python.version.clone(),
                implementation: snapshot.python.implementation.clone(),
            },
            packages: packages(snapshot),
            frameworks: snapshot
                .frameworks
                .iter()
                .map(|(name, framework)| (name.clone(), framework_facts(framework)))
                .collect(),
            env: snapshot
                .env
                .iter()
                .filter(|(name, _)| is_locked_env(name))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        };
        lock.fingerprint = lock.content_fingerprint();
        lock
    }

    /// The lock as it is compared: without what does not change what runs
    /// (who wrote the lock, each package's installer and `REQUESTED` marker,
    /// which locks before format 1.1 recorded). The fingerprint, `diff`,
    /// `verify` and `fleet` all see a lock through this.
    pub fn identity(self) -> Lock {
        let mut identity = self.without_install_notes();
        identity.fingerprint = identity.clone().digest_without_writer();
        identity
    }

    /// The lock less each package's installer and `REQUESTED` marker.
    fn without_install_notes(mut self) -> Lock {
        for package in &mut self.packages {
            package.installer = None;
            package.requested = None;
        }
        self
    }

    /// `sha256:` of the canonical JSON of the identity: everything but
    /// `created-by`, `fingerprint` and the packages' installer and `REQUESTED`
    /// marker. Field order is the struct's and maps are sorted, so the JSON is
    /// canonical without further work.
    pub fn content_fingerprint(&self) -> String {
        self.clone().without_install_notes().digest_without_writer()
    }

    /// The fingerprint a lock before format 1.1 recorded: its whole content
    /// but `created-by`, installer and `REQUESTED` markers included.
    pub fn legacy_fingerprint(&self) -> String {
        self.clone().digest_without_writer()
    }

    fn digest_without_writer(mut self) -> String {
        self.created_by.clear();
        self.fingerprint.clear();
        let canonical = serde_json::to_vec(&self).expect("a Lock always serializes");
        format!("sha256:{}", crate::digest::hex(&Sha256::digest(&canonical)))
    }
}

fn packages(snapshot: &Snapshot) -> Vec<Package> {
    let mut packages: Vec<Package> = snapshot
        .packages
        .iter()
        .map(|package| Package {
            name: package.name.clone(),
            version: package.version.clone(),
            installer: None,
            requested: None,
            source: Source::from_probed(package.source.as_ref()),
            wheel_tags: {
                let mut tags = package.wheel_tags.clone();
                tags.sort();
                tags
            },
            record_digest: package.record_digest.clone(),
        })
        .collect();
    packages.sort_by_key(Package::normalized_name);
    packages
}

/// GPUs grouped by model, memory and capability: a fleet lock says "8 × H100",
/// not which 8.
fn gpu_groups(snapshot: &Snapshot) -> Vec<GpuGroup> {
    let mut groups: BTreeMap<(String, Option<String>, Option<u64>), u32> = BTreeMap::new();
    for gpu in snapshot.nvidia.iter().flat_map(|nvidia| &nvidia.gpus) {
        let key = (
            gpu.name.clone().unwrap_or_else(|| "unnamed GPU".to_string()),
            gpu.compute_capability.clone(),
            gpu.memory_total_mib,
        );
        *groups.entry(key).or_default() += 1;
    }
    groups
        .into_iter()
        .map(|((name, compute_capability, memory_total_mib), count)| GpuGroup {
            name,
            compute_capability,
            memory_total_mib,
            count,
        })
        .collect()
}

fn framework_facts(framework: &crate::snapshot::frameworks::Framework) -> BTreeMap<String, Fact> {
    let mut facts = BTreeMap::new();
    if let Some(version) = &framework.version {
        facts.insert("version".to_string(), Fact::Text(version.clone()));
    }
    let build = framework.build.as_ref().map(serde_json::to_value);
    if let Some(Ok(serde_json::Value::Object(fields))) = build {
        for (key, value) in fields {
            if key == "kind" {
                continue;
            }
            if let Some(fact) = Fact::from_json(&value) {
                facts.insert(key.replace('_', "-"), fact);
            }
        }
    }
    facts
}

fn sorted<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.collect();
    items.sort();
    items.dedup();
    items
}

/// A unit enum's serde name (`wheel`), without quoting.
pub(crate) fn serde_plain<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        _ => "unknown".to_string(),
    }
}

/// The PyTorch index that serves a local version such as `2.3.1+cu121`:
/// `https://download.pytorch.org/whl/cu121`. PyPI refuses local versions, so
/// without this index line pip cannot find the pin at all. Labels are those
/// the PyTorch index is organised by (`cpu`, `cuXYZ`, `rocmX.Y`, `xpu`; see
/// <https://pytorch.org/get-started/previous-versions/>).
pub fn index_for_local_version(version: &str) -> Option<String> {
    let (_, label) = version.split_once('+')?;
    let numbered = |prefix: &str| {
        label
            .strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    let known = label == "cpu" || label == "xpu" || numbered("cu") || numbered("rocm");
    known.then(|| format!("https://download.pytorch.org/whl/{label}"))
}

/// A small lock of an H200 node, for tests of everything that reads locks.
#[cfg(test)]
pub(crate) fn sample_lock() -> Lock {
    let mut lock = Lock {
        format_version: FORMAT_VERSION.to_string(),
        created_by: "envdoctor test".to_string(),
        fingerprint: String::new(),
        system: System {
            architecture: "x86_64".to_string(),
            glibc: Some("2.36".to_string()),
            ..System::default()
        },
        nvidia: None,
        gpus: vec![GpuGroup {
            name: "NVIDIA H200".to_string(),
            compute_capability: Some("9.0".to_string()),
            memory_total_mib: Some(143_771),
            count: 8,
        }],
        cuda: Default::default(),
        python: Python {
            version: "3.12.1".to_string(),
            implementation: "cpython".to_string(),
        },
        packages: vec![Package {
            name: "torch".to_string(),
            version: Some("2.11.0+cu130".to_string()),
            installer: None,
            requested: None,
            source: Source::Index,
            wheel_tags: vec!["cp312-cp312-manylinux_2_28_x86_64".to_string()],
            record_digest: None,
        }],
        frameworks: BTreeMap::from([(
            "torch".to_string(),
            BTreeMap::from([
                ("cuda".to_string(), Fact::Text("13.0".to_string())),
                ("debug".to_string(), Fact::Bool(false)),
            ]),
        )]),
        env: BTreeMap::from([("NCCL_DEBUG".to_string(), "WARN".to_string())]),
    };
    lock.fingerprint = lock.content_fingerprint();
    lock
}
