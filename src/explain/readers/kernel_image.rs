//! A kernel without an image for the GPU, in an extension's own words. torch
//! reports its own as `CUDA error: no kernel image is available for execution
//! on the device` (or, before 1.x, `cuda runtime error (209) : ... at
//! /pytorch/aten/src/THC/...`); an extension's error check names the kernel
//! that failed: `error in modulated_deformable_im2col_cuda: no kernel image
//! ...`, `Error in forward_face_index_map_1: ...`, or the pointnet2 ops'
//! `CUDA kernel failed : ...` with `void furthest_point_sampling_kernel_wrapper(...)
//! at L:231 in .../sampling_gpu.cu` after it. That kernel is the extension's,
//! built without this GPU's architecture, whatever torch's build carries.
//! So is one torch's own words report where the failing line of code calls
//! into an extension's compiled module (`return quarot._CUDA.matmul(A, B)`):
//! torch checks each launch of its own kernels as it makes it, so a launch
//! that failed inside that call was the extension's.

use super::{Context, Reading, text};
use crate::explain::node::{NodeTests, TheRun};
use crate::explain::traceback::Traceback;
use crate::matrix::confirmable::ARCH_MISSING;

pub const CAUSE: &str = "extension-built-without-gpu-arch";

const NO_IMAGE: &str = "no kernel image is available for execution on the device";

/// Runtimes other than torch that run CUDA kernels of their own build and
/// name themselves in the error (hunyuan3d2winportable67: `[ONNXRuntimeError]
/// ... while running Relu node ... cudaErrorNoKernelImageForDevice`), and the
/// distribution that holds those kernels.
const RUNTIMES: [(&str, &str); 1] = [("[onnxruntimeerror]", "onnxruntime-gpu")];

/// Where torch's own kernels and error checks live: a `.cu` file under one
/// of these is torch's.
const TORCH_SOURCES: [&str; 6] = ["aten/src/", "/thc/", "c10/", "torch/csrc/", "caffe2/", "torch/lib/"];

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find(NO_IMAGE)?;
    let runtime = RUNTIMES
        .iter()
        .find(|(words, _)| lower.contains(words))
        .map(|(_, distribution)| *distribution);
    let named = match runtime {
        Some(distribution) => Some(format!("that {distribution} ran")),
        None => kernel_named(&lower, at)
            .or_else(|| extension_source(&lower[at..]))
            .or_else(|| pointnet2_check(&lower, at))
            .or_else(|| extension_call(traceback).map(|call| format!("that {call} launched"))),
    };
    // A `.cu` file named by a check is a package's own kernel, but the check
    // is as often a vendor's kernels that were never written for the GPU
    // (nunchaku's int4 GEMV below sm_80, libspconv below sm_80) as a build
    // that left its architecture out: which one the package's list of
    // supported GPUs says.
    let (kernel, from_file) = match named {
        Some(kernel) => (kernel, false),
        // The text as written: a file name keeps its case (ASCII
        // lowercasing keeps every offset).
        None => (source_on_line(&text[at + NO_IMAGE.len()..])?, true),
    };
    let mut node = Vec::new();
    if from_file {
        node.push((
            None,
            "whether the package supports this GPU at all (its README or install page lists the GPUs or compute capabilities it supports): if it does, its build left the architecture out; if not, the GPU is below what it needs".to_string(),
        ));
    }
    let mut settles = !from_file;
    let torch = context.facts.zip(context.tables).and_then(|(facts, tables)| {
        let run = TheRun {
            same_environment: context.absence_is_a_fact,
            ..TheRun::default()
        };
        NodeTests::run(facts, tables, &[ARCH_MISSING]).judge(&[ARCH_MISSING.to_string()], facts, run, "")
    });
    match torch.map(|test| (test.holds, test.text)) {
        // torch's build lacks the GPU too: its kernels are the first to fix.
        Some((Some(true), text)) => {
            settles = false;
            node.push((
                None,
                format!("{text}; torch's build lacks the GPU too, so torch is the first to replace, and the extension is rebuilt after it"),
            ));
        }
        Some((Some(false), _)) => node.push((
            Some(true),
            "torch's build has kernels for this node's GPUs: the kernel without an image is the extension's".to_string(),
        )),
        _ => node.push((
            None,
            "which architectures the extension was built for (cuobjdump --list-elf on its .so lists them; TORCH_CUDA_ARCH_LIST or the -gencode flags at its build set them) against the GPU's compute capability".to_string(),
        )),
    }
    Some(Reading {
        cause: CAUSE,
        said: match runtime {
            Some(distribution) => format!(
                "{distribution} raised the error: the kernel without an image for the GPU is one {distribution} built, not torch's"
            ),
            None => format!("the kernel {kernel} has no image for the GPU: an extension's kernel, not torch's"),
        },
        node,
        fix: match runtime {
            Some(distribution) => format!(
                "install an {distribution} build whose CUDA kernels cover this GPU's architecture (each release's notes say which CUDA and GPUs it is built for; nvidia-smi --query-gpu=name,compute_cap --format=csv gives the GPU's), or build it from source with CMAKE_CUDA_ARCHITECTURES set to it"
            ),
            None => format!(
                "rebuild the extension that holds the kernel {kernel} with the GPU's architecture: remove its old build (build/ and the compiled .so files), export TORCH_CUDA_ARCH_LIST=\"X.Y\" (the GPU's capability: nvidia-smi --query-gpu=compute_cap --format=csv) for a torch extension, or set CMAKE_CUDA_ARCHITECTURES or its -gencode flags to it for a CMake or Makefile build, and rebuild it in its source tree (pip install --no-build-isolation --no-cache-dir -e .); if nvcc --list-gpu-arch lacks the GPU, use a newer CUDA toolkit of torch's major (export CUDA_HOME=/usr/local/cuda-X.Y)"
            ),
        },
        stated: false,
        settles,
        rules_out: Vec::new(),
    })
}

/// The call into an extension's compiled module on the failing line of code
/// (`quarot._CUDA.matmul` in `return quarot._CUDA.matmul(A, B).view(...)`,
/// `_C.dcn_forward` after `from . import _C`): a dotted name called, one part
/// of which is a compiled module's (`_C`, `_ext`, `_cuda`, `_kernels`, in any
/// case), and torch's own (`torch._C._cuda_init`) excepted.
fn extension_call(traceback: &Traceback) -> Option<String> {
    let line = traceback.sections.last()?.source_line.as_deref()?;
    let mut rest = line;
    while let Some(open) = rest.find('(') {
        let before = &rest[..open];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.'))
            .map_or(0, |(at, c)| at + c.len_utf8());
        let called = &before[start..];
        let parts: Vec<&str> = called.split('.').collect();
        let compiled = parts[..parts.len().saturating_sub(1)]
            .iter()
            .any(|part| part.starts_with('_') && super::unbuilt::is_compiled_module(part));
        if compiled && parts.first() != Some(&"torch") && parts.iter().all(|part| text::is_identifier(part)) {
            return Some(called.to_string());
        }
        rest = &rest[open + 1..];
    }
    None
}

/// `error in modulated_deformable_im2col_cuda: no kernel image ...`: the
/// name the extension's check prints before the message, on its line.
fn kernel_named(lower: &str, at: usize) -> Option<String> {
    let before = check_before(lower, at)?;
    let name = before
        .strip_prefix("error in ")
        .or_else(|| before.rsplit_once(" error in ").map(|(_, name)| name))?
        .trim();
    text::is_identifier(name).then(|| name.to_string())
}

/// What an error check printed before the message on its line, up to the
/// colon it ends on (`error in modulated_deformable_im2col_cuda`).
fn check_before(lower: &str, at: usize) -> Option<&str> {
    Some(text::line_before(lower, at).trim_end().strip_suffix(':')?.trim_end())
}

/// The `.cu` file an error check names after the message on its line, as
/// the CUDA samples' checks print it (`... on the device in
/// libfusiongpu/fusion.cu at 51`, `GPUassert: ... on the device kernel.cu 42`):
/// the kernel is in that file, which is no file of torch's.
fn source_on_line(after: &str) -> Option<String> {
    let line = after.lines().next()?;
    let file = line
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '"' | '\'' | '`'))
        .map(|token| token.trim_end_matches(|c: char| c.is_ascii_digit() || c == ':' || c == '.'))
        .find(|token| token.ends_with(".cu") || token.ends_with(".cuh"))?;
    // Windows builds print mixed separators (`aten/src\\THC/generic/...`).
    let path = file.to_ascii_lowercase().replace('\\', "/");
    let torch = TORCH_SOURCES.iter().any(|torch| path.contains(torch));
    (!torch).then(|| format!("in {file}"))
}

/// The pointnet2 ops' `CUDA_CHECK_ERRORS` (`CUDA kernel failed : ...`), a
/// check torch has none of, where the line naming the kernel is not at hand.
fn pointnet2_check(lower: &str, at: usize) -> Option<String> {
    check_before(lower, at)?
        .ends_with("cuda kernel failed")
        .then(|| "its error check names".to_string())
}

/// The pointnet2 ops' check: the line after the message names the kernel's
/// function and its `.cu` file, which is no file of torch's.
fn extension_source(after: &str) -> Option<String> {
    let mut lines = after.lines();
    lines.next();
    let line = lines.next()?.trim();
    let (function, file) = line.split_once(" at l:")?;
    let file = file.split_once(" in ")?.1.trim();
    if !file.ends_with(".cu") || TORCH_SOURCES.iter().any(|torch| file.contains(torch)) {
        return None;
    }
    let function = function.split('(').next()?.rsplit(' ').next()?;
    Some(function.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(read, log)
    }

    /// A traceback with no line of code: only the text is read.
    fn no_frames() -> Traceback {
        super::super::parsed("no traceback\n").0
    }

    /// meshfusion13, nunchaku1: the check names the `.cu` file after the message; a
    /// file of torch's names torch's kernel, and is not read.
    #[test]
    fn a_cu_file_named_after_the_message_holds_the_kernel() {
        let found =
            reading("no kernel image is available for execution on the device in libfusiongpu/fusion.cu at 51\n")
                .unwrap();
        assert_eq!(found.cause, CAUSE);
        // A vendor's kernels may never have been written for the GPU: listed, not named.
        assert!(!found.settles);
        assert!(
            found.said.contains("in libfusiongpu/fusion.cu has no image"),
            "{}",
            found.said
        );
        assert!(
            reading("GPUassert: no kernel image is available for execution on the device src/nms_kernel.cu 42\n")
                .is_some()
        );
        for torch in [
            "RuntimeError: cuda runtime error (209) : no kernel image is available for execution on the device at /pytorch/aten/src/THC/THCReduceAll.cuh:327\n",
            "RuntimeError: cuda runtime error (209) : no kernel image is available for execution on the device at C:/w/1/s/windows/pytorch/aten/src\\THC/generic/THCTensorMath.cu:35\n",
            "RuntimeError: cuda runtime error (209) : no kernel image is available for execution on the device at /pytorch/torch/lib/THCUNN/generic/SpatialConvolutionMM.cu:21\n",
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be asynchronously reported at some other API call\n",
        ] {
            assert!(reading(torch).is_none(), "{torch}");
        }
    }

    /// hunyuan3d2winportable67: ONNX Runtime names itself; the kernel is its
    /// build's, not torch's. Without its name the same words are torch's.
    #[test]
    fn a_runtime_that_names_itself_holds_the_kernel_without_an_image() {
        let ort = "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Relu node. Name:'Relu_1' Status Message: CUDA error cudaErrorNoKernelImageForDevice:no kernel image is available for execution on the device\n";
        let found = reading(ort).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.starts_with("onnxruntime-gpu raised the error"),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("install an onnxruntime-gpu build"),
            "{}",
            found.fix
        );
        assert!(
            reading("RuntimeError: CUDA error: no kernel image is available for execution on the device\n").is_none()
        );
    }

    /// dcpose29, ipercore47, vote2cap-detr22: the extension's check names its kernel.
    #[test]
    fn an_extensions_own_check_names_the_kernel_without_an_image() {
        let dcn = reading(
            "error in modulated_deformable_im2col_cuda: no kernel image is available for execution on the device\n",
        )
        .unwrap();
        assert_eq!(dcn.cause, CAUSE);
        assert!(dcn.settles && !dcn.stated, "{dcn:?}");
        assert!(
            dcn.said.starts_with("the kernel modulated_deformable_im2col_cuda"),
            "{}",
            dcn.said
        );
        let renderer =
            reading("Error in forward_face_index_map_1: no kernel image is available for execution on the device\n")
                .unwrap();
        assert!(renderer.said.contains("forward_face_index_map_1"), "{}", renderer.said);
        let pointnet2 = "CUDA kernel failed : no kernel image is available for execution on the device\nvoid furthest_point_sampling_kernel_wrapper(int, int, int, const float*, float*, int*) at L:231 in /home/me/proj/third_party/pointnet2/_ext_src/src/sampling_gpu.cu\n";
        assert_eq!(reading(pointnet2).unwrap().cause, CAUSE);
        let read_whole = read(pointnet2, &no_frames(), Context::alone()).unwrap();
        assert!(
            read_whole.said.contains("furthest_point_sampling_kernel_wrapper"),
            "{}",
            read_whole.said
        );
    }

    /// torch's own words name no kernel of an extension.
    #[test]
    fn torchs_own_report_of_a_kernel_without_an_image_is_not_an_extensions() {
        assert!(reading("RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be asynchronously reported at some other API call\n").is_none());
        assert!(reading("RuntimeError: cuda runtime error (209) : no kernel image is available for execution on the device at /pytorch/aten/src/THC/THCGeneral.cpp:50\n").is_none());
        let torch_file = "CUDA error: no kernel image is available for execution on the device\nvoid foo(int) at L:9 in /pytorch/aten/src/ATen/native/cuda/Foo.cu\n";
        assert!(read(torch_file, &no_frames(), Context::alone()).is_none());
        assert!(reading("error in my kernel: no kernel image is available for execution on the device\n").is_none());
    }

    /// quarot48: torch's own words, raised on a line that calls into the
    /// project's compiled module: the kernel is the extension's. A line that
    /// calls torch's own compiled module, or no compiled module, is torch's.
    #[test]
    fn a_line_that_calls_an_extensions_compiled_module_holds_the_kernel_without_an_image() {
        let raised_at = |code: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/home/u/QuaRot/quarot/__init__.py\", line 41, in matmul\n    {code}\nRuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
            )
        };
        let quarot = reading(&raised_at(
            "return quarot._CUDA.matmul(A, B).view(*A_shape_excl_last, *B_shape_excl_last)",
        ))
        .unwrap();
        assert_eq!(quarot.cause, CAUSE);
        assert!(
            quarot.said.contains("that quarot._CUDA.matmul launched"),
            "{}",
            quarot.said
        );
        assert!(reading(&raised_at("out = _C.dcn_v2_forward(input, weight)")).is_some());
        assert!(reading(&raised_at("y = «é»._C.run(x)")).is_none());
        for torch_or_python in [
            "torch._C._cuda_init()",
            "return F.conv2d(x, self.weight)",
            "x = self._cache.get(key)",
        ] {
            assert!(reading(&raised_at(torch_or_python)).is_none(), "{torch_or_python}");
        }
    }

    /// torch's build lacking the GPU too leaves the extension unsettled; a
    /// build with kernels for the GPU confirms it.
    #[test]
    fn torchs_build_on_the_node_decides_whose_kernels_to_fix_first() {
        let on = |torch: Option<&str>| {
            let edit = |snapshot: &mut serde_json::Value| {
                if let Some(version) = torch {
                    super::super::set_torch_build(snapshot, version);
                }
            };
            // The job ran in the recorded environment: its torch is the job's.
            super::super::read_on_recorded_h100(edit, |context| {
                let context = Context {
                    absence_is_a_fact: true,
                    ..context
                };
                read("error in modulated_deformable_im2col_cuda: no kernel image is available for execution on the device\n", &no_frames(), context).unwrap()
            })
        };
        let having = on(None);
        assert!(having.settles, "{having:?}");
        assert!(
            having
                .node
                .iter()
                .any(|(holds, text)| *holds == Some(true) && text.contains("torch's build has kernels")),
            "{having:?}"
        );
        let lacking = on(Some("1.8.1+cu101"));
        assert!(!lacking.settles, "{lacking:?}");
        assert!(
            lacking
                .node
                .iter()
                .any(|(_, text)| text.contains("torch's build lacks the GPU too")),
            "{lacking:?}"
        );
    }
}
