//! Why the smoke test cannot run on a node: it needs torch and a GPU that CUDA
//! sees. `check` skips the test for these reasons and `smoke` stops on them,
//! in the same words, so a user meets one sentence for one situation.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::causes::StepCauses;
use super::{Diagnosis, SmokeRun, Status};
use crate::builtin_checks::devices;
use crate::explain::rank::CauseKind;
use crate::snapshot::Snapshot;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unsupported {
    /// What a tool branches on.
    pub reason: Reason,
    /// The reason in words; `check` shows it as why the test did not run.
    pub detail: String,
    /// What to do about it.
    pub fix: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    NoTorch,
    NoGpu,
}

/// Why the smoke test cannot run with the interpreter and on the node that
/// `snapshot` describes; `None` where it can.
pub fn unsupported(snapshot: &Snapshot) -> Option<Unsupported> {
    let configs = crate::configs::TrainingConfigs::default();
    let facts = crate::facts::Facts::new(snapshot, &configs);
    if facts.torch.is_none() {
        Some(no_torch(&snapshot.python.invoked))
    } else if facts.gpus.is_empty() {
        let absence = devices::why_no_gpu(snapshot);
        Some(Unsupported {
            reason: Reason::NoGpu,
            detail: format!("no GPU is visible to CUDA on this node: {}", absence.reason),
            fix: absence.fix,
        })
    } else {
        None
    }
}

/// Most often the interpreter is not the job's (envdoctor found another
/// Python first), so naming the right one comes before installing torch.
fn no_torch(python: &Path) -> Unsupported {
    Unsupported {
        reason: Reason::NoTorch,
        detail: "torch is not installed for this interpreter".to_string(),
        fix: format!(
            "name the job's interpreter with `--python` (its venv or conda folder will do), or install torch \
             into this one: `{} -m pip install torch`",
            crate::shell::quote(&python.display().to_string())
        ),
    }
}

/// torch's words where it found no driver library at all (`driver_version()
/// <= 0` in c10/cuda/CUDAFunctions.cpp): the node's own reason, whichever
/// entry explains the words in a job's log.
const TORCH_FOUND_NO_DRIVER: &str = "Found no NVIDIA driver on your system";

/// Whether torch, in `run`, found no GPU for the reason the node's own
/// `no-gpu-visible` check confirms, rather than for one of its own (a driver
/// too old for it): then the run says where it ran, not how the stack works.
pub fn torch_saw_no_gpu(run: &SmokeRun, diagnosis: &Diagnosis) -> bool {
    let Some(step) = run.step("torch.cuda").filter(|step| step.status == Status::Fail) else {
        return false;
    };
    if step.figures.get("device_count").and_then(serde_json::Value::as_u64) != Some(0) {
        return false;
    }
    if step.detail.contains(TORCH_FOUND_NO_DRIVER) {
        return true;
    }
    let causes = StepCauses::rank(step, diagnosis.matrix, diagnosis.facts, diagnosis.facts_precede_the_run);
    causes.leader().is_some_and(|leader| {
        leader.kind == CauseKind::Symptom
            && diagnosis
                .matrix
                .symptom(&leader.id)
                .is_some_and(|entry| entry.symptoms.confirmed_by.iter().any(|id| id == devices::NO_GPU))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::nvidia::{NvidiaError, NvidiaErrorKind};

    const NODE: &str = "tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json";

    #[test]
    fn torch_is_asked_for_first_then_a_gpu_cuda_sees() {
        let mut snapshot = crate::snapshot::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(NODE)).unwrap();
        assert_eq!(unsupported(&snapshot), None);

        snapshot.nvidia = None;
        snapshot.cuda_devices = None;
        snapshot.nvidia_error = Some(NvidiaError {
            kind: NvidiaErrorKind::NoDriver,
            message: "libnvidia-ml.so.1: cannot open shared object file".to_string(),
        });
        let no_gpu = unsupported(&snapshot).unwrap();
        assert_eq!(no_gpu.reason, Reason::NoGpu);
        assert_eq!(
            no_gpu.detail,
            "no GPU is visible to CUDA on this node: there is no NVIDIA driver: neither its library \
             (libnvidia-ml) nor its kernel module is present"
        );
        // The `no-gpu-visible` finding's own fix.
        assert_eq!(no_gpu.fix, devices::why_no_gpu(&snapshot).fix);

        snapshot.frameworks.remove("torch");
        assert_eq!(unsupported(&snapshot).unwrap().reason, Reason::NoTorch);
    }

    #[test]
    fn the_fix_for_a_missing_torch_names_the_interpreter_as_one_shell_word() {
        let fix = no_torch(Path::new("/opt/my venv/bin/python")).fix;
        assert!(
            fix.ends_with("`'/opt/my venv/bin/python' -m pip install torch`"),
            "{fix}"
        );
        assert!(fix.starts_with("name the job's interpreter with `--python`"), "{fix}");
    }
}
