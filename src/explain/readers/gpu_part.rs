//! A package's GPU part missing from it: `module 'faiss' has no attribute
//! 'StandardGpuResources'`, `cannot import name 'GpuIndexFlatL2' from
//! 'faiss'`. A name that says it is for the GPU, missing where the rest of the
//! package imported, is what a package's CPU-only build looks like (faiss-cpu
//! for faiss-gpu, both imported as `faiss`): the build, not the release, lacks it.

use super::{Context, Reading, names};

/// The knowledge entry these readings support.
pub const CAUSE: &str = "package-cpu-only-build";

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let (module, name) = names::missing_name(text)?;
    let top = module.split('.').next()?;
    // torch's own CUDA names missing are torch's CPU build, its own entry; a
    // compiled module missing is an extension never built.
    if top == "torch"
        || crate::explain::stdlib_modules::is_stdlib_module(top)
        || super::unbuilt::is_compiled_module(name)
        || !names_the_gpu(name)
    {
        return None;
    }
    let distribution = crate::explain::distribution_of(top);
    let node = context
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
    // The name alone is no proof: a release can drop a GPU name as any other
    // (TensorFlow 2 moved `tf.GPUOptions` to `tf.compat.v1`). Only a CPU build
    // installed settles it.
    let confirmed = node.iter().any(|(holds, _)| *holds == Some(true));
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{module} has no {name}, which by its name is its GPU part: the {distribution} imported was built without GPU support"
        ),
        node,
        fix: format!(
            "install {distribution}'s GPU build in place of the CPU one (pip uninstall {distribution}-cpu, then the GPU build its install page names, such as {distribution}-gpu or conda install {distribution}-gpu), and check with python -c 'import {top}; print({top}.__file__)' that the job imports it"
        ),
        stated: false,
        settles: confirmed,
        rules_out: if confirmed { vec![names::CAUSE] } else { Vec::new() },
    })
}

/// Whether an identifier names the GPU as one of its words: `StandardGpuResources`,
/// `index_cpu_to_gpu`, `GPUOptions`; not `gpustat` or `cudagraphs`-like blends.
fn names_the_gpu(name: &str) -> bool {
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

    fn reading(text: &str) -> Option<Reading> {
        read(text, Context::alone())
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
                |snapshot| {
                    let packages = snapshot["packages"].as_array_mut().unwrap();
                    let mut package = packages[0].clone();
                    package["name"] = installed.into();
                    package["normalized_name"] = installed.into();
                    package["version"] = "1.7.4".into();
                    packages.push(package);
                },
                |context| read(text, context),
            )
            .unwrap();
            assert_eq!(found.node[0].0, Some(holds), "{installed}: {found:?}");
            assert_eq!(found.settles, holds, "{installed}: {found:?}");
        }
    }
}
