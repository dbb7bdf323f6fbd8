//! CUDA toolkits on the node and the CUDA libraries (runtime, cuBLAS, cuDNN,
//! NCCL, ...) that Python would load: from `nvidia-*` wheels, from a toolkit,
//! or from the system.
//!
//! Toolkits are found through `nvcc` on `PATH`, `CUDA_HOME`, `CUDA_PATH`,
//! `/usr/local/cuda` and `/usr/local/cuda-*`, a conda environment (`CONDA_PREFIX`
//! and the interpreter's prefix) and `nvidia-cuda-nvcc` wheels; one directory
//! reached several ways is one toolkit that lists every way. A toolkit's version
//! comes from `version.json`, else `version.txt`, else `bin/nvcc --version`, run
//! under a deadline of [`NVCC_DEADLINE`] (overridden, in seconds, by the
//! environment variable `ENVDOCTOR_NVCC_TIMEOUT`).
//!
//! Libraries are read from the `RECORD` of every `nvidia-*` distribution (the
//! version is the distribution's) and from the files in `LD_LIBRARY_PATH`, the
//! toolkits' library directories, `/etc/ld.so.conf.d` and the standard library
//! directories (the version is the one in the file name behind the symlinks, or
//! a header's). The forward-compatibility directories are read for the
//! `libcuda.so.<version>` they hold. Nothing here is fatal: what could not be
//! read is a problem.

mod forward_compat;
mod headers;
pub mod host_compiler;
mod library_table;
mod system_libraries;
mod toolkit_version;
mod toolkits;
mod wheels;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::snapshot::cuda::Cuda;
use crate::snapshot::packages::Package;

/// How long `nvcc --version` may take. A healthy nvcc answers in well under a
/// second; one on a hung network file system must not hang the probe.
pub const NVCC_DEADLINE: Duration = Duration::from_secs(10);

/// The environment variable that overrides [`NVCC_DEADLINE`], in seconds.
pub const NVCC_TIMEOUT_VARIABLE: &str = "ENVDOCTOR_NVCC_TIMEOUT";

/// What the CUDA probe needs to know about the rest of the node.
pub struct Inputs<'a> {
    /// Reads an environment variable; injected so tests need not touch the process environment.
    pub env: &'a dyn Fn(&str) -> Option<OsString>,
    /// The interpreter's `sys.prefix` (a conda environment keeps its toolkit there).
    pub python_prefix: &'a Path,
    pub sys_path: &'a [PathBuf],
    pub packages: &'a [Package],
}

/// The places on the machine itself that are searched; injected so tests do not
/// depend on what the test machine has installed.
#[derive(Debug, Clone)]
pub struct SearchRoots {
    /// Where `cuda` and `cuda-*` toolkit directories are looked for.
    pub usr_local: PathBuf,
    /// Where `*.conf` files list library directories for the dynamic loader.
    pub ld_so_conf_d: PathBuf,
    /// The loader's default directories, searched last.
    pub library_dirs: Vec<PathBuf>,
}

impl SearchRoots {
    /// The real machine's. The library directories are Debian's multiarch ones
    /// (x86_64 and aarch64, with and without the `/usr` merge), the Red Hat
    /// `lib64` and the local ones: ld.so(8) searches the default paths `/lib`
    /// and `/usr/lib` (`/lib64`, `/usr/lib64` on 64-bit Red Hat), and Debian's
    /// loader is configured for `/{usr/,}lib/<triplet>`
    /// (https://wiki.debian.org/Multiarch/Implementation).
    pub fn system() -> SearchRoots {
        SearchRoots {
            usr_local: PathBuf::from("/usr/local"),
            ld_so_conf_d: PathBuf::from("/etc/ld.so.conf.d"),
            library_dirs: [
                "/usr/lib/x86_64-linux-gnu",
                "/lib/x86_64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu",
                "/lib/aarch64-linux-gnu",
                "/usr/lib64",
                "/lib64",
                "/usr/local/lib",
                "/usr/lib",
                "/lib",
            ]
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        }
    }
}

pub fn probe(inputs: &Inputs) -> Cuda {
    probe_with(inputs, &SearchRoots::system())
}

pub fn probe_with(inputs: &Inputs, roots: &SearchRoots) -> Cuda {
    let mut cuda = Cuda::default();
    let from_wheels = wheels::scan(inputs.packages);
    cuda.problems.extend(from_wheels.problems);

    let deadline = nvcc_deadline(inputs.env, &mut cuda.problems);
    let found = toolkits::find(inputs, roots, &from_wheels.nvcc);
    cuda.problems.extend(found.problems);
    let compiles = found.toolkits.iter().any(|toolkit| toolkit.nvcc.is_some());
    // Both may run a program: ask the compiler while the toolkits' nvcc answer.
    let (path, cxx) = ((inputs.env)("PATH"), (inputs.env)("CXX"));
    let compiler_env = move |name: &str| match name {
        "PATH" => path.clone(),
        "CXX" => cxx.clone(),
        _ => None,
    };
    let (toolkits, host_compiler) = std::thread::scope(|scope| {
        let compiler = compiles.then(|| scope.spawn(|| host_compiler::find(&compiler_env, deadline)));
        let toolkits = toolkit_version::fill_versions(found.toolkits, deadline);
        (toolkits, compiler.and_then(|handle| handle.join().ok().flatten()))
    });
    cuda.toolkits = toolkits;
    cuda.host_compiler = host_compiler;

    cuda.forward_compat = Some(forward_compat::find(inputs.env, &roots.usr_local));
    cuda.libraries = from_wheels.libraries;
    let search = system_libraries::search_dirs(inputs.env, roots, &cuda.toolkits);
    system_libraries::scan(&search, &cuda.toolkits, &mut cuda.libraries);
    cuda
}

fn nvcc_deadline(env: &dyn Fn(&str) -> Option<OsString>, problems: &mut Vec<String>) -> Duration {
    let Some(raw) = env(NVCC_TIMEOUT_VARIABLE) else {
        return NVCC_DEADLINE;
    };
    let text = raw.to_string_lossy();
    let deadline = text
        .trim()
        .parse::<f64>()
        .ok()
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok());
    match deadline {
        Some(deadline) if !deadline.is_zero() => deadline,
        _ => {
            problems.push(format!(
                "{NVCC_TIMEOUT_VARIABLE}={text:?} is not a positive number of seconds; using {} s",
                NVCC_DEADLINE.as_secs()
            ));
            NVCC_DEADLINE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_that_fits_no_timer_falls_back_to_the_default() {
        for value in ["1e20", "1e-12", "0", "-3", "soon", "NaN"] {
            let mut problems = Vec::new();
            let env = |_: &str| Some(OsString::from(value));
            assert_eq!(nvcc_deadline(&env, &mut problems), NVCC_DEADLINE, "{value}");
            assert_eq!(problems.len(), 1, "{value}");
        }
        let env = |_: &str| Some(OsString::from("2.5"));
        assert_eq!(nvcc_deadline(&env, &mut Vec::new()), Duration::from_millis(2500));
    }

    #[test]
    fn no_cuda_anywhere_is_reported_as_nothing_found() {
        let empty = tempfile::tempdir().unwrap();
        let roots = SearchRoots {
            usr_local: empty.path().join("usr/local"),
            ld_so_conf_d: empty.path().join("etc/ld.so.conf.d"),
            library_dirs: vec![empty.path().join("usr/lib")],
        };
        let cuda = probe_with(
            &Inputs {
                env: &|_| None,
                python_prefix: empty.path(),
                sys_path: &[],
                packages: &[],
            },
            &roots,
        );
        assert_eq!(
            cuda,
            Cuda {
                forward_compat: Some(crate::snapshot::cuda::ForwardCompat {
                    searched: vec![empty.path().join("usr/local/cuda/compat/lib")],
                    libcuda: Vec::new(),
                }),
                ..Cuda::default()
            }
        );
    }

    #[test]
    fn a_bad_nvcc_timeout_is_a_problem_and_the_default_is_kept() {
        let mut problems = Vec::new();
        let deadline = nvcc_deadline(&|_| Some("soon".into()), &mut problems);
        assert_eq!(deadline, NVCC_DEADLINE);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            nvcc_deadline(&|_| Some("0.5".into()), &mut problems),
            Duration::from_millis(500)
        );
    }
}
