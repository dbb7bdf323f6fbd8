//! Build facts of the frameworks a training job imports (torch, DeepSpeed,
//! bitsandbytes, ...), read from the files they install, never by importing them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::probe::packages::Package;

/// Keyed by framework name; a framework that is not installed has no entry.
pub type Frameworks = BTreeMap<String, Framework>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Framework {}

pub fn probe(_sys_path: &[PathBuf], _packages: &[Package]) -> Frameworks {
    Frameworks::new()
}
