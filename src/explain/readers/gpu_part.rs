//! A package's GPU part missing from it: `module 'faiss' has no attribute
//! 'StandardGpuResources'`, `cannot import name 'GpuIndexFlatL2' from
//! 'faiss'`. A name that says it is for the GPU, missing where the rest of the
//! package imported, is what a package's CPU-only build looks like (faiss-cpu
//! for faiss-gpu, both imported as `faiss`): the build, not the release, lacks it.
//! Where Python's own suggestion names the name's CPU twin (`no attribute
//! 'mcubes_cuda'. Did you mean: 'mcubes_cpu'?`), the module has the CPU half
//! of a pair whose GPU half was not built: that settles it.

use super::{Context, Reading, names};
use crate::explain::traceback::Traceback;

/// The knowledge entry these readings support.
pub const CAUSE: &str = "package-cpu-only-build";

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let (module, name) = names::missing_name(text)?;
    let top = module.split('.').next()?;
    // Only a compiled module's pair settles it: a Python module's functions
    // pair CPU and GPU words as well (psutil's cpu_count beside no gpu_count).
    let last = module.rsplit('.').next().unwrap_or(module);
    let twin = cpu_twin_suggested(text, name).filter(|_| is_a_build(last));
    // torch's own CUDA names missing are torch's CPU build, its own entry; a
    // compiled module missing is an extension never built (`deform_conv_cuda`),
    // unless its CPU twin shows it is a function of a pair.
    if top == "torch"
        || crate::explain::stdlib_modules::is_stdlib_module(top)
        || (super::unbuilt::is_compiled_module(name) && twin.is_none())
        || !names_the_gpu(name)
    {
        return None;
    }
    // A compiled module named after the package that imports it
    // (`torchmcubes_module`, loaded by torchmcubes) is that package's build.
    let owner = match super::innermost_package(traceback) {
        Some(package) if built_for(top) == Some(package) => package,
        _ => top,
    };
    let distribution = crate::explain::distribution_of(owner);
    let mut node: Vec<(Option<bool>, String)> = context
        .facts
        .map(|facts| {
            let cpu_build = format!("{distribution}-cpu");
            let gpu_build = format!("{distribution}-gpu");
            match (facts.package(&cpu_build), facts.package(&gpu_build)) {
                (_, Some(gpu)) => vec![(
                    Some(false),
                    format!(
                        "{gpu_build} {} is installed here",
                        gpu.version.as_deref().unwrap_or("?")
                    ),
                )],
                (Some(cpu), None) => vec![(
                    Some(true),
                    format!(
                        "{cpu_build} {} is installed here: the build without GPU support",
                        cpu.version.as_deref().unwrap_or("?")
                    ),
                )],
                (None, None) => Vec::new(),
            }
        })
        .unwrap_or_default();
    if let Some(twin) = twin {
        node.push((
            Some(true),
            format!("{module} has {twin}, the CPU half of the pair (Python's own suggestion)"),
        ));
    }
    // The name alone is no proof: a release can drop a GPU name as any other
    // (TensorFlow 2 moved `tf.GPUOptions` to `tf.compat.v1`). Only a CPU build
    // installed, or the CPU twin present, settles it.
    let confirmed = node.iter().any(|(holds, _)| *holds == Some(true));
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{module} has no {name}, which by its name is its GPU part: the {distribution} imported was built without GPU support"
        ),
        node,
        fix: {
            let wheel = format!(
                "install {distribution}'s GPU build in place of the CPU one (pip uninstall {distribution}-cpu, then the GPU build its install page names, such as {distribution}-gpu or conda install {distribution}-gpu)"
            );
            let rebuild = format!(
                "rebuild it where the CUDA toolkit is found (CUDA_HOME set, nvcc on PATH, the toolkit's major version torch's): python -m pip install --no-build-isolation --force-reinstall --no-cache-dir {distribution}"
            );
            let check = format!("check with python -c 'import {top}; print({top}.__file__)' that the job imports it");
            // A pair with its CPU half built is a source build that found no
            // CUDA; a name missing alone is as often a CPU wheel.
            match twin {
                Some(_) => format!("{rebuild} (or install its GPU wheel where it publishes one); {check}"),
                None => format!("{wheel}; where it is built from source, {rebuild}; {check}"),
            }
        },
        stated: false,
        settles: confirmed,
        rules_out: if confirmed { vec![names::CAUSE] } else { Vec::new() },
    })
}

/// How torchmcubes names the compiled module it builds for itself, beside
/// the extension suffixes every reader knows (`_ext`, `_C`, `_cuda`, `_kernels`).
const MODULE_SUFFIX: &str = "_module";

/// A module that is a build's, not a Python file's: a compiled module's name.
fn is_a_build(module: &str) -> bool {
    super::unbuilt::is_compiled_module(module) || module.ends_with(MODULE_SUFFIX)
}

/// The package a compiled module is named after (`torchmcubes_module`:
/// torchmcubes), where its name is one.
fn built_for(module: &str) -> Option<&str> {
    let package = module
        .strip_suffix(MODULE_SUFFIX)
        .unwrap_or_else(|| super::extension::package_of_compiled_module(module));
    (package != module && !package.is_empty()).then_some(package)
}

/// The name Python suggests in place of the missing one (`Did you mean:
/// 'mcubes_cpu'?`, Python 3.10 and later), where it is the missing name with
/// its GPU word as `cpu`.
fn cpu_twin_suggested<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    // The suggestion on the missing name's own line, not another message's.
    let line = text.lines().find(|line| line.contains(&format!("'{name}'")))?;
    let (_, after) = line.split_once("Did you mean: ")?;
    let suggested = after.trim_start().strip_prefix('\'')?.split('\'').next()?;
    let as_cpu = |word: String| match word.as_str() {
        "gpu" | "gpus" | "cuda" => "cpu".to_string(),
        _ => word,
    };
    let twin: Vec<String> = words(name).into_iter().map(as_cpu).collect();
    (twin == words(suggested) && suggested != name).then_some(suggested)
}

/// Whether an identifier names the GPU as one of its words: `StandardGpuResources`,
/// `index_cpu_to_gpu`, `GPUOptions`; not `gpustat` or `cudagraphs`-like blends.
pub(super) fn names_the_gpu(name: &str) -> bool {
    words(name)
        .iter()
        .any(|word| matches!(word.as_str(), "gpu" | "gpus" | "cuda"))
}

/// An identifier's words, lowercase: split at `_` and where lowercase meets
/// uppercase (`StandardGpuResources`: standard, gpu, resources; `GPUOptions`:
/// gpu, options).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in name.split('_').filter(|part| !part.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (at, &c) in chars.iter().enumerate() {
            let next_lower = chars.get(at + 1).is_some_and(|next| next.is_lowercase());
            let prev = at.checked_sub(1).map(|before| chars[before]);
            let boundary = c.is_uppercase()
                && prev.is_some_and(|prev| {
                    prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower)
                });
            if boundary && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.extend(c.to_lowercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        let (traceback, text) = crate::explain::readers::parsed(log);
        read(&text, &traceback, Context::alone())
    }

    #[test]
    fn a_name_for_the_gpu_missing_from_a_package_is_its_cpu_build() {
        let found = reading("AttributeError: module 'faiss' has no attribute 'StandardGpuResources'").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.starts_with("faiss has no StandardGpuResources"),
            "{}",
            found.said
        );
        assert!(
            reading(
                "ImportError: cannot import name 'GpuIndexFlatL2' from 'faiss' (/x/site-packages/faiss/__init__.py)"
            )
            .is_some()
        );
        // Without the node's CPU build, the name alone is listed, not named:
        // TensorFlow 2 dropped tf.GPUOptions from its release, not its build.
        let release = reading("AttributeError: module 'tensorflow' has no attribute 'GPUOptions'").unwrap();
        assert!(!found.settles && !release.settles, "{found:?} {release:?}");
        assert!(release.rules_out.is_empty());
    }

    #[test]
    fn other_names_torch_and_compiled_modules_are_not_read() {
        for text in [
            "AttributeError: module 'numpy' has no attribute 'float'",
            "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'",
            "ImportError: cannot import name 'deform_conv_cuda' from 'mmdet.ops'",
            "AttributeError: module 'gpustat' has no attribute 'new_query'",
        ] {
            assert_eq!(reading(text), None, "{text}");
        }
    }

    /// triposr3: torchmcubes built from source without CUDA has `mcubes_cpu` only.
    #[test]
    fn the_cpu_twin_suggested_settles_it_and_names_the_importing_package() {
        let log = r#"Traceback (most recent call last):
  File "D:\3d\TripoSR\env\lib\site-packages\torchmcubes\__init__.py", line 12, in marching_cubes
    return mc.mcubes_cuda(vol, thresh)
AttributeError: module 'torchmcubes_module' has no attribute 'mcubes_cuda'. Did you mean: 'mcubes_cpu'?"#;
        let found = reading(log).unwrap();
        assert!(found.settles, "{found:?}");
        assert_eq!(found.rules_out, [names::CAUSE]);
        assert!(
            found.fix.contains("--force-reinstall --no-cache-dir torchmcubes ("),
            "{}",
            found.fix
        );
        // A suggestion that is no CPU twin settles nothing.
        let other =
            reading("AttributeError: module 'foo' has no attribute 'GpuRunner'. Did you mean: 'GpuRunners'?").unwrap();
        assert!(!other.settles, "{other:?}");
        // A Python module's pair of functions is no build's.
        let psutil =
            reading("AttributeError: module 'psutil' has no attribute 'gpu_count'. Did you mean: 'cpu_count'?")
                .unwrap();
        assert!(!psutil.settles, "{psutil:?}");
        // A package whose name merely starts like the frame's is not its build.
        let log = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/tensorflow/python/x.py\", line 3, in f\n    tensorflow_io.GpuDevice()\nAttributeError: module 'tensorflow_io' has no attribute 'GpuDevice'\n";
        assert!(
            reading(log).unwrap().said.contains("the tensorflow-io imported"),
            "{:?}",
            reading(log)
        );
    }

    #[test]
    fn words_split_where_identifiers_change_case() {
        assert_eq!(words("StandardGpuResources"), ["standard", "gpu", "resources"]);
        assert_eq!(words("GPUOptions"), ["gpu", "options"]);
        assert_eq!(words("index_cpu_to_gpu"), ["index", "cpu", "to", "gpu"]);
    }

    /// deepcluster56: the node's faiss-cpu confirms it; a GPU build installed contradicts it.
    #[test]
    fn the_nodes_cpu_build_confirms_and_its_gpu_build_contradicts() {
        use crate::explain::readers::read_on_recorded_h100;
        let text = "AttributeError: module 'faiss' has no attribute 'StandardGpuResources'";
        for (installed, holds) in [("faiss-cpu", true), ("faiss-gpu", false)] {
            let found = read_on_recorded_h100(
                |snapshot| crate::explain::readers::add_package(snapshot, installed, "1.7.4"),
                |context| read(text, &crate::explain::readers::parsed(text).0, context),
            )
            .unwrap();
            assert_eq!(found.node[0].0, Some(holds), "{installed}: {found:?}");
            assert_eq!(found.settles, holds, "{installed}: {found:?}");
        }
    }
}
