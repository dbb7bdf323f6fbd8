//! A package whose own compiled module is missing: `No module named
//! 'mmcv._ext'`, `name '_C' is not defined`, `cannot import name '_C' from
//! 'groundingdino'`. The package was installed without building its
//! extension. Many setup.py files build their CUDA ops only when they find a
//! CUDA toolkit (nvcc) and otherwise install without them, so the first
//! suspect is a build that found none; a "lite" or CPU package, or a source
//! checkout never built, gives the same words, so the reading is listed, not
//! named, and says what would decide. Its cause is the extension not built
//! (`extension-not-built`): a missing toolkit is one reason for that, which
//! the build's output says, not the import.

use super::{Context, Reading, text};
use crate::explain::traceback::Traceback;

pub const CAUSE: &str = "extension-not-built";

/// Words that make a name ending in an extension's suffix (`_cuda`, `_ext`,
/// `_C`, `_kernels`) a phrase about moving or testing something
/// (`move_optimizer_to_cuda`, `is_cuda`, `use_ext`): a function's name. A
/// compiled module is named for what it computes (`nms_cuda`,
/// `deform_conv_cuda`, `rasterizer_ext`).
const FUNCTION_WORDS: [&str; 10] = ["to", "on", "in", "into", "is", "has", "use", "with", "for", "from"];

/// Whether a module path's last part is named as packages name their
/// compiled module, in any case (`_C`, `mmcv._ext`, `quarot._CUDA`).
pub(super) fn is_compiled_module(name: &str) -> bool {
    // Checked as ASCII first: a stranger's name may hold any character, and
    // a suffix cut inside one would panic.
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let Some(stem) = super::extension::EXTENSION_SUFFIXES.iter().find_map(|suffix| {
        let cut = name.len().saturating_sub(suffix.len());
        name.get(cut..)
            .filter(|end| end.len() == suffix.len() && end.eq_ignore_ascii_case(suffix))
            .map(|_| &name[..cut])
    }) else {
        return false;
    };
    let last_word = stem.rsplit('_').find(|word| !word.is_empty()).unwrap_or_default();
    !FUNCTION_WORDS.iter().any(|word| last_word.eq_ignore_ascii_case(word))
}

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let module = missing_module(text)?;
    let owner = match module.split_once('.') {
        Some((package, _)) => Some(crate::explain::distribution_of(package)),
        None => super::innermost_package(traceback).map(crate::explain::distribution_of),
    };
    // torch without torch._C is torch itself broken or shadowed (run from its
    // source tree), no extension build.
    if owner.as_deref() == Some("torch") {
        return None;
    }
    let who = owner
        .clone()
        .unwrap_or_else(|| "the package that imports it".to_string());
    let mut node = vec![(
        None,
        format!(
            "whether the install of {who} found a CUDA toolkit: its build output says so (torch's extension builder warns 'No CUDA runtime is found'; many setup.py files print that they build without CUDA)"
        ),
    )];
    // A compiled module of its own (`quant_cuda`, `monarch_cuda`), not one
    // inside its package: many projects build their CUDA kernels apart
    // from the package that imports them.
    if !module.contains('.') {
        node.push((
            None,
            format!(
                "whether {module} is built by the install of {who} or by a step of its own (a csrc/ or kernels folder with its own setup.py, which the project's README names): then that step was not run in this environment"
            ),
        ));
    }
    if let Some(tree) = module
        .split_once('.')
        .and_then(|(package, _)| super::source_tree_of(package, traceback))
    {
        node.push((
            None,
            format!(
                "whether the source tree the job imports {who} from ({tree}, no installed package) was ever built: pip install --no-build-isolation -e . (or python setup.py develop) in the folder above it writes the compiled module beside its __init__.py; run from elsewhere, the job would import the installed {who} instead"
            ),
        ));
    }
    if let Some(facts) = context.facts {
        match facts.active_toolkit() {
            Some((toolkit, found)) => node.push((
                None,
                format!(
                    "a CUDA toolkit is found here ({}, {found}); a build made before it was installed, or in an isolated build, would not have used it",
                    toolkit.root.display()
                ),
            )),
            None => node.push((Some(true), "no CUDA toolkit (nvcc) is found here".to_string())),
        }
    }
    let reinstall = match &owner {
        Some(owner) => format!("pip install --force-reinstall --no-cache-dir --no-build-isolation {owner}"),
        None => "reinstall the package that imports it with --force-reinstall --no-cache-dir --no-build-isolation"
            .to_string(),
    };
    Some(Reading {
        cause: CAUSE,
        said: format!("{who} has no compiled module {module}: it was installed without building its extension"),
        node,
        fix: format!(
            "rebuild it in the environment that runs the job and read the build's output: {reinstall}; where it found no CUDA toolkit, install one of torch's CUDA major and export CUDA_HOME to its root first (a package that ships a lite or CPU build, such as mmcv-lite, needs its full build instead)"
        ),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    })
}

/// Whether the message says a package's compiled module is missing.
pub(super) fn names_a_compiled_module(text: &str) -> bool {
    missing_module(text).is_some()
}

/// The compiled module a message says is missing: `No module named 'mmcv._ext'`,
/// `name '_C' is not defined`, `cannot import name '_C' from 'groundingdino'`.
fn missing_module(text: &str) -> Option<String> {
    if let Some(module) = text::module_not_found(text) {
        let last = module.rsplit('.').next()?;
        return is_compiled_module(last).then(|| module.to_string());
    }
    if let Some((name, from)) = text::name_not_importable(text) {
        return is_compiled_module(name).then(|| format!("{from}.{name}"));
    }
    // A package's own wording of the failed import: `Cannot import 'detrex._C', therefore ...`.
    if let Some(module) = text::after_marker(text, "import '").and_then(|rest| rest.split('\'').next()) {
        let last = module.rsplit('.').next()?;
        if module.contains('.') && is_compiled_module(last) {
            return Some(module.to_string());
        }
    }
    let rest = text::after_marker(text, "name '")?;
    let (name, after) = rest.split_once('\'')?;
    (after.trim_start().starts_with("is not defined") && is_compiled_module(name) && name.starts_with('_'))
        .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(read, log)
    }

    /// torchint10: the compiled module's name in capitals, imported from a
    /// checkout of the package: whether that checkout was built decides.
    /// A name with characters beyond ASCII is no compiled module, and reading
    /// it never cuts a character.
    #[test]
    fn a_name_beyond_ascii_is_no_compiled_module() {
        assert!(is_compiled_module("quarot_CUDA") && is_compiled_module("_C"));
        for name in ["x\u{202e}_C", "\u{202e}C", "_é", "é"] {
            assert!(!is_compiled_module(name), "{name}");
        }
    }

    /// visualbert20: `cannot import name 'move_optimizer_to_cuda'` is a
    /// function a release of allennlp lacks, no compiled module; a name
    /// about what it computes still is one.
    #[test]
    fn a_name_that_moves_or_tests_is_a_function_not_a_compiled_module() {
        for name in ["move_optimizer_to_cuda", "is_cuda", "tensor_TO_CUDA", "use_ext"] {
            assert!(!is_compiled_module(name), "{name}");
        }
        for name in ["nms_cuda", "deform_conv_cuda", "rasterizer_ext", "_ext"] {
            assert!(is_compiled_module(name), "{name}");
        }
        let log = "    from allennlp.training.trainer import move_optimizer_to_cuda\nImportError: cannot import name 'move_optimizer_to_cuda'\n";
        assert!(reading(log).is_none());
    }

    /// pyllama30, flashfftconv28: a compiled module of its own, imported by
    /// an installed package, was never built here; whether the package's
    /// install or a step of its own builds it is what decides, so it is
    /// listed, never named. A module no compiled name is is not read.
    #[test]
    fn a_compiled_module_of_its_own_missing_asks_which_step_builds_it() {
        let log = "Traceback (most recent call last):\n  File \"/usr/local/lib/python3.9/dist-packages/gptq/quant.py\", line 4, in <module>\n    from quant_cuda import matvmul2\nModuleNotFoundError: No module named 'quant_cuda'\n";
        let found = reading(log).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(!found.settles);
        assert!(
            found.node.iter().any(|(_, text)| text
                .starts_with("whether quant_cuda is built by the install of gptq or by a step of its own")),
            "{:?}",
            found.node
        );
        assert!(reading(&log.replace("quant_cuda", "quantizer")).is_none());
    }

    #[test]
    fn a_compiled_module_missing_from_a_source_tree_asks_whether_the_tree_was_built() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/torch-int/torch_int/nn/linear.py\", line 2, in <module>\n    from .._CUDA import (linear_a8_w8_b32_o32,\nModuleNotFoundError: No module named 'torch_int._CUDA'\n";
        let found = reading(log).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found
                .node
                .iter()
                .any(|(_, text)| text
                    .contains("source tree the job imports torch-int from (/home/u/torch-int/torch_int")),
            "{found:#?}"
        );
        let installed = log.replace("/home/u/torch-int/", "/opt/venv/lib/python3.10/site-packages/");
        let found = reading(&installed).unwrap();
        assert!(
            !found.node.iter().any(|(_, text)| text.contains("source tree")),
            "{found:#?}"
        );
    }

    #[test]
    fn a_packages_own_compiled_module_missing_points_at_a_build_without_a_toolkit() {
        let mmcv = reading("ModuleNotFoundError: No module named 'mmcv._ext'\n").unwrap();
        assert_eq!(mmcv.cause, CAUSE);
        // detrex85: the package's own words for the same import.
        let detrex = reading(
            "ImportError: Cannot import 'detrex._C', therefore 'MultiScaleDeformableAttention' is not available\n",
        )
        .unwrap();
        assert!(detrex.said.contains("detrex"), "{detrex:#?}");
        assert!(!mmcv.settles, "a lite package gives the same words");
        assert!(
            mmcv.said.starts_with("mmcv has no compiled module mmcv._ext"),
            "{}",
            mmcv.said
        );
        let frames = reading("Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.9/site-packages/groundingdino/models/GroundingDINO/ms_deform_attn.py\", line 53, in forward\n    output = _C.ms_deform_attn_forward(\nNameError: name '_C' is not defined\n").unwrap();
        assert!(
            frames.said.starts_with("groundingdino has no compiled module _C"),
            "{}",
            frames.said
        );
        let named = reading("ImportError: cannot import name '_C' from 'groundingdino' (unknown location)\n").unwrap();
        assert!(named.said.contains("groundingdino._C"), "{}", named.said);
    }

    #[test]
    fn other_missing_names_and_modules_are_not_read() {
        assert!(reading("ModuleNotFoundError: No module named 'mmcv'\n").is_none());
        assert!(reading("ModuleNotFoundError: No module named 'torch._six'\n").is_none());
        assert!(reading("ModuleNotFoundError: No module named 'torch._C'\n").is_none());
        assert!(reading("NameError: name 'model' is not defined\n").is_none());
        assert!(reading("ImportError: cannot import name 'AutoModel' from 'transformers'\n").is_none());
    }
}
