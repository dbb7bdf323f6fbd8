//! CUDA toolkits on the node and the CUDA libraries (runtime, cuBLAS, cuDNN,
//! NCCL) that Python would load: from `nvidia-*` wheels, or from the system.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::probe::packages::Package;

/// What the CUDA probe needs to know about the rest of the node.
pub struct Inputs<'a> {
    /// Reads an environment variable; injected so tests need not touch the process environment.
    pub env: &'a dyn Fn(&str) -> Option<OsString>,
    /// The interpreter's `sys.prefix` (a conda environment keeps its toolkit there).
    pub python_prefix: &'a Path,
    pub sys_path: &'a [PathBuf],
    pub packages: &'a [Package],
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cuda {}

pub fn probe(_inputs: &Inputs) -> Cuda {
    Cuda::default()
}
