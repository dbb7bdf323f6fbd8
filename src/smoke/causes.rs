//! A failed smoke step's causes, ranked as `envdoctor explain` ranks a job's
//! log: the matrix's rules and symptom entries are the one place failures are
//! known. What the smoke test adds is what it knows of its own code.

use crate::explain::rank::{Candidate, CauseKind, Confidence, Judge};
use crate::explain::traceback::{self, Raised, Traceback};
use crate::facts::Facts;
use crate::findings::Finding;
use crate::matrix::Matrix;

use super::Step;

/// The label of a failure the smoke script reported in its own words, without an exception.
const OWN_WORDS: &str = "envdoctor-smoke";

/// What the matrix says about one failed step.
pub struct StepCauses {
    /// Every cause still standing, best first.
    pub standing: Vec<Candidate>,
    /// Symptom entries that blame where a job's code put its tensors: the smoke
    /// test put its own model and inputs on one device, so they are not the cause.
    pub own_code_ruled_out: Vec<String>,
}

impl StepCauses {
    /// `facts_precede_the_run`: the facts were taken before the smoke test
    /// started (`check` and `smoke` probe first), not after it.
    pub fn rank(step: &Step, matrix: &Matrix, facts: Option<&Facts>, facts_precede_the_run: bool) -> StepCauses {
        let mut judge = Judge::new(matrix, facts).run_on_gpu(step.gpu);
        if facts_precede_the_run {
            judge = judge.facts_precede_the_run();
        }
        let ranked = judge.rank(&step_traceback(step));
        let (own_code, standing): (Vec<Candidate>, Vec<Candidate>) = ranked
            .into_iter()
            .filter(|candidate| candidate.confidence > Confidence::RuledOut)
            .partition(|candidate| blames_tensor_placement(candidate, matrix));
        StepCauses {
            standing,
            own_code_ruled_out: own_code.into_iter().map(|candidate| candidate.id).collect(),
        }
    }

    /// The cause to give the step's why and fix from: the best, where it is an
    /// answer or ranks ahead of every other; none where several tie.
    pub fn leader(&self) -> Option<&Candidate> {
        let rank = |candidate: &Candidate| (candidate.confidence, candidate.tier, candidate.score);
        match self.standing.as_slice() {
            [] => None,
            [only] => Some(only),
            [best, second, ..] => (best.confidence.is_answer() || rank(best) > rank(second)).then_some(best),
        }
    }

    /// The findings of this node's checks and rules that explain a standing
    /// cause, best cause first: a rule's own finding, or one a symptom entry
    /// is confirmed by.
    pub fn explaining<'f>(&self, matrix: &Matrix, fired: &'f [Finding]) -> Vec<&'f Finding> {
        let mut explaining: Vec<&Finding> = Vec::new();
        for candidate in &self.standing {
            let confirmed_by = match candidate.kind {
                CauseKind::Rule => &[][..],
                CauseKind::Symptom => matrix
                    .symptom(&candidate.id)
                    .map_or(&[][..], |entry| entry.symptoms.confirmed_by.as_slice()),
            };
            for finding in fired {
                let explains = finding.origin == candidate.id || confirmed_by.contains(&finding.id);
                if explains && !explaining.iter().any(|known| std::ptr::eq(*known, finding)) {
                    explaining.push(finding);
                }
            }
        }
        explaining
    }
}

/// A symptom entry that names the device pairs it mixes is about where the
/// job's code put its tensors and modules.
fn blames_tensor_placement(candidate: &Candidate, matrix: &Matrix) -> bool {
    candidate.kind == CauseKind::Symptom
        && matrix
            .symptom(&candidate.id)
            .is_some_and(|entry| !entry.symptoms.devices.is_empty())
}

/// The step's failure as a traceback: the one the script recorded, else its
/// exception (or, for a failure the script put in its own words, the step's
/// detail) without frames.
fn step_traceback(step: &Step) -> Traceback {
    let recorded = step
        .error
        .as_ref()
        .and_then(|error| traceback::parse(&error.traceback).pop());
    recorded.unwrap_or_else(|| {
        let (exception, mut message) = match &step.error {
            Some(error) => (error.kind.clone(), error.message.clone()),
            None => (OWN_WORDS.to_string(), String::new()),
        };
        // The detail says what the step was doing; for a failure in the
        // script's own words it is the whole of it.
        if !message.contains(&step.detail) {
            if !message.is_empty() {
                message.push('\n');
            }
            message.push_str(&step.detail);
        }
        Traceback::bare(1, Raised { exception, message })
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::smoke::{Status, StepError};

    fn failed(kind: &str, message: &str) -> Step {
        Step {
            name: "gpu0.kernels".into(),
            title: "kernels".into(),
            status: Status::Fail,
            duration_ms: 1,
            detail: format!("{kind}: {}", message.lines().next().unwrap_or_default()),
            gpu: Some(0),
            figures: BTreeMap::new(),
            error: Some(StepError {
                kind: kind.into(),
                message: message.into(),
                traceback: String::new(),
            }),
        }
    }

    fn standing(step: &Step) -> Vec<String> {
        let matrix = Matrix::load(&[]).unwrap();
        StepCauses::rank(step, &matrix, None, false)
            .standing
            .into_iter()
            .map(|candidate| candidate.id)
            .collect()
    }

    /// Texts near each entry the smoke test's failures became, that are not it.
    #[test]
    fn near_misses_are_not_the_entries_they_resemble() {
        let near_misses = [
            // The PTX JIT compiler's library is missing: not PTX it cannot compile.
            (
                "RuntimeError",
                "CUDA error: PTX JIT compiler library not found",
                "ptx-jit-compilation-failed",
            ),
            (
                "RuntimeError",
                "CUDA error: an illegal instruction was encountered",
                "cuda-illegal-memory-access",
            ),
            (
                "RuntimeError",
                "single-bit ECC error corrected on cuda:0",
                "gpu-uncorrectable-ecc-error",
            ),
            // The CUDA libraries shadowed, not NCCL's.
            (
                "ImportError",
                "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
                "torch-loads-other-nccl",
            ),
            ("RuntimeError", "Gloo connectFullMesh failed", "nccl-collective-failed"),
        ];
        for (kind, message, entry) in near_misses {
            let ids = standing(&failed(kind, message));
            assert!(!ids.iter().any(|id| id == entry), "{message}: {ids:?}");
        }
    }

    #[test]
    fn an_nccl_error_that_names_its_reason_is_that_reason() {
        let message = "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, invalid usage (run with \
                       NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nncclInvalidUsage: This usually reflects invalid \
                       usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000";
        let step = failed("torch.distributed.DistBackendError", message);
        let matrix = Matrix::load(&[]).unwrap();
        let causes = StepCauses::rank(&step, &matrix, None, false);
        assert_eq!(
            causes.leader().map(|cause| cause.id.as_str()),
            Some("nccl-duplicate-gpu")
        );
        let ids = standing(&step);
        assert!(!ids.iter().any(|id| id == "nccl-collective-failed"), "{ids:?}");
        // Without the reason, the generic cause is the answer.
        let bare = failed("torch.distributed.DistBackendError", message.lines().next().unwrap());
        let causes = StepCauses::rank(&bare, &matrix, None, false);
        assert_eq!(
            causes.leader().map(|cause| cause.id.as_str()),
            Some("nccl-collective-failed")
        );
    }

    #[test]
    fn a_failure_in_the_scripts_own_words_is_ranked_by_its_detail() {
        let mut step = failed("", "");
        step.error = None;
        step.detail = "torch 2.11.0+cpu is not a CUDA build (torch.version.cuda is None)".into();
        assert_eq!(standing(&step), ["torch-cpu-only-build"]);
    }
}
