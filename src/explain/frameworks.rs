//! Which ML frameworks a log's lines show it ran. A cause about torch's own
//! build is no answer to a failure in a log that shows TensorFlow, JAX or
//! PaddlePaddle and nothing of torch: the HIP runtime's `hipErrorNoBinaryForGpu`
//! and CUDA's `no kernel image is available` are any framework's words, and
//! the fix (another torch build) would change nothing there.

use crate::matrix::rule::Framework;

/// The frameworks the lines read so far show, each with the first line
/// that showed it (cut short), kept for the evidence.
#[derive(Debug, Clone, Default)]
pub struct FrameworksShown {
    shown: Vec<(Framework, String)>,
}

/// How much of the line that shows a framework is kept as its sign.
const SIGN_CHARS: usize = 100;

impl FrameworksShown {
    /// Reads one line of the log. Only the first sign of each framework is kept.
    pub fn read(&mut self, line: &str) {
        // Once torch shows, no other framework can make a torch cause no
        // answer: the rest of the log need not be read for it.
        if self.shows(Framework::Torch) {
            return;
        }
        for framework in Framework::ALL {
            if !self.shows(framework)
                && words_of(framework)
                    .iter()
                    .any(|word| crate::ascii_case::contains(line, word))
            {
                let sign: String = line.trim().chars().take(SIGN_CHARS).collect();
                self.shown.push((framework, sign));
            }
        }
    }

    fn shows(&self, framework: Framework) -> bool {
        self.shown.iter().any(|(shown, _)| *shown == framework)
    }

    /// A framework other than `framework` that the log shows, and the line
    /// that shows it, where nothing in the log shows `framework` itself.
    pub fn only_others_than(&self, framework: Framework) -> Option<&(Framework, String)> {
        if self.shows(framework) {
            return None;
        }
        self.shown.iter().find(|(shown, _)| *shown != framework)
    }
}

/// The words a framework's own lines hold: its package's directory in a
/// frame, the source path its C++ logging prints (`I tensorflow/core/...`),
/// its module in an exception's class, its name in a message. torch's name is
/// in every torch traceback and most torch messages (`Torch not compiled`,
/// `PyTorch`); JAX's in `jaxlib`, `jax.` and its `XlaRuntimeError`.
fn words_of(framework: Framework) -> &'static [&'static str] {
    match framework {
        Framework::Torch => &["torch"],
        Framework::TensorFlow => &["tensorflow"],
        Framework::Jax => &["jaxlib", "jax.", "/jax/", "xlaruntimeerror"],
        Framework::Paddle => &["paddle"],
    }
}

/// The words that make a line worth reading for what it shows of a
/// framework other than torch (torch's own lines are read for other reasons
/// in any log where it matters).
pub const MARKER_WORDS: [&str; 3] = ["tensorflow", "jaxlib", "paddle"];

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(lines: &[&str]) -> FrameworksShown {
        let mut frameworks = FrameworksShown::default();
        for line in lines {
            frameworks.read(line);
        }
        frameworks
    }

    /// rocmbuild13: TensorFlow's own log lines, then the HIP runtime's abort.
    #[test]
    fn a_log_of_tensorflow_lines_only_shows_another_framework_than_torch() {
        let frameworks = shown(&[
            "2021-05-27 12:35:24.177308: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libamdhip64.so",
            "/home/ian/ROCm/HIP/rocclr/hip_code_object.cpp:486: \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"",
        ]);
        let (other, sign) = frameworks.only_others_than(Framework::Torch).unwrap();
        assert_eq!(*other, Framework::TensorFlow);
        assert!(sign.contains("I tensorflow/stream_executor"), "{sign}");
    }

    /// A torch job on a node with TensorFlow installed prints TensorFlow's
    /// start-up lines too (transformers imports it); torch shows as well.
    #[test]
    fn a_log_that_shows_torch_anywhere_shows_no_framework_instead_of_it() {
        let frameworks = shown(&[
            "2024-01-01 10:00:00.000000: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.",
            "  File \"/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1, in _call_impl",
        ]);
        assert!(frameworks.only_others_than(Framework::Torch).is_none());
        assert!(frameworks.shows(Framework::TensorFlow));
        assert!(
            shown(&["RuntimeError: CUDA error: no kernel image is available"])
                .only_others_than(Framework::Torch)
                .is_none()
        );
    }

    #[test]
    fn each_framework_is_read_from_its_own_words() {
        for (line, framework) in [
            (
                "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA",
                Framework::Jax,
            ),
            (
                "  File \"/usr/lib/python3/site-packages/jax/_src/api.py\", line 3",
                Framework::Jax,
            ),
            (
                "W0101 paddle/phi/backends/gpu/gpu_resources.cc:119] Please NOTE",
                Framework::Paddle,
            ),
            ("Torch not compiled with CUDA enabled", Framework::Torch),
        ] {
            assert!(shown(&[line]).shows(framework), "{line}");
        }
    }
}
