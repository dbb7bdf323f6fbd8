//! What the node says about a cause that a version condition cannot: whether
//! its driver runs torch's CUDA, whether torch has kernels for its GPUs,
//! whether `/dev/shm` is large enough. A cause names the built-in checks'
//! findings that confirm it (`confirmed_by`); those checks run once per log,
//! and their finding (with its node-specific numbers and fix) becomes the
//! evidence. A finding that is absent rules the cause out only where the node
//! holds what the check needs and the job's setting cannot differ from it;
//! otherwise the cause stays open, and the evidence says what would decide it.

use crate::builtin_checks;
use crate::facts::Facts;
use crate::findings::Finding;
use crate::knowledge::tables::Tables;

use crate::matrix::confirmable::{
    ARCH_MISSING, DRIVER_BEHIND_MINOR, DRIVER_TOO_OLD, ECC_UNCORRECTABLE, MEMORY_HELD, MEMORY_REPAIR_PENDING, NO_GPU,
    NOT_CUDA, ROW_REMAP_FAILED, SHM_SMALL,
};

/// The findings judged with the node's torch build: its kernels, whether it
/// is a CUDA build, and its CUDA against the driver.
const OF_THE_TORCH_BUILD: [&str; 3] = [ARCH_MISSING, NOT_CUDA, DRIVER_TOO_OLD];

/// GPU memory in use while no job runs, above which another process holds it:
/// a CUDA context alone takes a few hundred MiB.
const MEMORY_HELD_MIB: u64 = 1024;

/// The findings of the checks some cause names, run once.
#[derive(Default)]
pub struct NodeTests {
    findings: Vec<Finding>,
    /// The findings whose check could not judge this node: a torch build the
    /// table does not list, a GPU of unknown compute capability, a driver whose
    /// CUDA is not known. Their silence rules nothing out.
    unjudged: Vec<&'static str>,
}

/// The node's word on one cause.
pub struct NodeTest {
    /// `None`: this node cannot tell; the text says what would.
    pub holds: Option<bool>,
    pub text: String,
    /// The finding's fix, with this node's versions in it.
    pub fix: Option<String>,
    /// Whether it settles the cause (a finding, a size) or only adds to it
    /// (memory in use now, which may not be what the job met): a fact that
    /// only adds neither makes the cause near-certain nor replaces its fix.
    pub decisive: bool,
}

impl NodeTests {
    pub fn run(facts: &Facts, tables: &Tables, wanted: &[&str]) -> NodeTests {
        let mut findings: Vec<Finding> = builtin_checks::all()
            .filter(|check| check.produces.iter().any(|id| wanted.contains(id)))
            .flat_map(|check| (check.run)(facts, tables))
            .collect();
        let arch_judged = !findings
            .iter()
            .any(|finding| finding.id == builtin_checks::BUILD_UNKNOWN)
            && facts
                .gpus
                .iter()
                .all(|gpu| crate::torch_install::capability(tables, gpu).is_some());
        let driver_judged = builtin_checks::judges_driver(facts, tables);
        let unjudged = [(ARCH_MISSING, arch_judged), (DRIVER_TOO_OLD, driver_judged)]
            .into_iter()
            .filter(|(_, judged)| !judged)
            .map(|(id, _)| id)
            .collect();
        findings.retain(|finding| wanted.contains(&finding.id.as_str()));
        NodeTests { findings, unjudged }
    }

    /// The node's answer for a cause confirmed by any of `ids`; `None` when
    /// it names none. A finding absent here rules the cause out only when the
    /// traceback ran from this node's environment (`same_environment`): a
    /// container's /dev/shm, another environment's torch, are the job's own.
    /// `message` (lowercase) says which GPU an out of memory was on.
    pub fn judge(&self, ids: &[String], facts: &Facts, run: TheRun, message: &str) -> Option<NodeTest> {
        let same_environment = run.same_environment;
        if ids.is_empty() {
            return None;
        }
        // The findings were judged with this node's torch build; the log ran another copy.
        if let Some(other_copy) = facts.other_copy("torch")
            && ids.iter().any(|id| OF_THE_TORCH_BUILD.contains(&id.as_str()))
        {
            return Some(NodeTest::open(other_copy.to_string()));
        }
        let found = self
            .findings
            .iter()
            .find(|finding| ids.contains(&finding.id) && speaks_for_the_job(finding, facts));
        if let Some(finding) = found {
            return Some(NodeTest {
                holds: Some(true),
                text: format!("this node: {}", finding.detail),
                fix: finding.fix.clone(),
                decisive: true,
            });
        }
        if ids.iter().any(|id| id == MEMORY_HELD) {
            return memory_held(facts, message, run);
        }
        let answer = combined(ids.iter().map(|id| absence(id, facts, &self.unjudged)).collect());
        Some(match answer.holds {
            Some(false) if !same_environment => NodeTest::open(format!(
                "{}; but nothing shows the job ran in this node's environment, and its own may differ ({ELSEWHERE})",
                answer.text
            )),
            _ => answer,
        })
    }
}

/// What settles a node fact that this node cannot speak to for a log: every
/// such fact ends with it, worded once.
pub(super) const ELSEWHERE: &str = "run explain on the node the log came from, or pass its Snapshot with --snapshot";

impl NodeTest {
    fn open(text: String) -> NodeTest {
        NodeTest {
            holds: None,
            text,
            fix: None,
            decisive: true,
        }
    }

    fn ruling_out(text: String) -> NodeTest {
        NodeTest {
            holds: Some(false),
            text,
            fix: None,
            decisive: true,
        }
    }
}

/// A node without a driver says nothing about the GPUs a job had: it is a
/// login node, or the Snapshot of a report that named none.
fn speaks_for_the_job(finding: &Finding, facts: &Facts) -> bool {
    finding.id != NO_GPU || facts.driver.is_some()
}

/// What the absence of one confirming finding says.
enum Absence {
    /// A fact read here that confirms the cause all the same (a small /dev/shm).
    Holds(NodeTest),
    /// The fact that rules the cause out.
    RulesOut(String),
    /// What would decide it.
    Open(String),
}

/// The absences of all of a cause's confirming findings, as one answer: a
/// fact that holds confirms it; one that stays open keeps it open (a generic
/// cause, an NCCL error, is not ruled out because one of its causes, a small
/// /dev/shm, is); only where every one rules it out is it ruled out.
fn combined(absences: Vec<Absence>) -> NodeTest {
    let mut ruling_out = Vec::new();
    let mut open = None;
    for absence in absences {
        match absence {
            Absence::Holds(test) => return test,
            Absence::Open(text) => open = open.or(Some(text)),
            Absence::RulesOut(fact) => ruling_out.push(fact),
        }
    }
    match open {
        Some(text) => NodeTest::open(format!("not known here: {text}")),
        None => NodeTest::ruling_out(format!("this node: {}", ruling_out.join("; "))),
    }
}

fn absence(id: &str, facts: &Facts, unjudged: &[&str]) -> Absence {
    if id == SHM_SMALL {
        return shared_memory(facts);
    }
    match absent(id, facts, !unjudged.contains(&id)) {
        Ok(fact) => Absence::RulesOut(fact),
        Err(open) => Absence::Open(open),
    }
}

/// What the absence of a finding says: `Ok` the fact that rules the cause
/// out, `Err` what would decide it.
fn absent(id: &str, facts: &Facts, judged: bool) -> Result<String, String> {
    const CHECK_THERE: &str = "run `envdoctor check` on the node the job ran on, or pass its Snapshot with --snapshot";
    let torch = facts.torch.and_then(|torch| torch.version.clone());
    match id {
        DRIVER_TOO_OLD => match (&facts.driver, &facts.torch_cuda) {
            (Some(driver), Some(cuda)) if judged => Ok(format!(
                "driver {driver} runs torch's CUDA {}.{}",
                cuda.release().first().unwrap_or(&0),
                cuda.release().get(1).unwrap_or(&0)
            )),
            _ => Err(format!(
                "the driver (`nvidia-smi`) and torch's CUDA build (`python -c 'import torch; print(torch.version.cuda)'`) where the job ran; {CHECK_THERE}"
            )),
        },
        ARCH_MISSING => match (&torch, facts.torch_cuda.is_some() && !facts.gpus.is_empty()) {
            (Some(torch), true) if judged => Ok(format!("torch {torch} has kernels for every GPU here")),
            (Some(torch), true) => Err(format!(
                "which GPU architectures torch {torch} has kernels for: envdoctor's table does not list that build (`python -c 'import torch; print(torch.cuda.get_arch_list())'` where the job ran lists them)"
            )),
            // Say only what is unknown: facts that give every GPU's compute
            // capability leave the torch build alone to ask for.
            _ => match described_gpus(facts) {
                Some(gpus) => Err(format!(
                    "the torch build where the job ran, for the GPU these facts give ({gpus}) (`python -c 'import torch; print(torch.__version__, torch.cuda.get_arch_list())'`); {CHECK_THERE}"
                )),
                None => Err(format!(
                    "the GPU model and the torch build where the job ran (`nvidia-smi -L`, `python -c 'import torch; print(torch.__version__, torch.cuda.get_arch_list())'`); {CHECK_THERE}"
                )),
            },
        },
        NOT_CUDA => match &torch {
            Some(torch) if facts.torch_cuda.is_some() => Ok(format!("torch {torch} is a CUDA build")),
            _ => Err(format!(
                "torch's build where the job ran (`python -c 'import torch; print(torch.__version__, torch.version.cuda)'`); {CHECK_THERE}"
            )),
        },
        // Triton's and extensions' PTX may come from a newer toolkit than torch's.
        DRIVER_BEHIND_MINOR => Err(format!(
            "the CUDA version the failing PTX was compiled with (torch's is torch.version.cuda; Triton's or an extension's may be newer) against the CUDA version of the driver where the job ran (`nvidia-smi`); {CHECK_THERE}"
        )),
        // Counters since the driver loaded restart at a reboot; the job's GPU may be another.
        ECC_UNCORRECTABLE | MEMORY_REPAIR_PENDING | ROW_REMAP_FAILED => Err(
            "the memory errors of the GPU the job ran on (`nvidia-smi -q -d ECC,ROW_REMAPPER` and `sudo dmesg | grep -i xid` on its node)"
                .to_string(),
        ),
        // The job's CUDA_VISIBLE_DEVICES and container are its own, not this shell's.
        _ => Err(
            "the job's CUDA_VISIBLE_DEVICES and whether its container was given GPUs (run `nvidia-smi` and `echo $CUDA_VISIBLE_DEVICES` inside the job)"
                .to_string(),
        ),
    }
}

/// The node's GPUs, each model once with its compute capability (what
/// decides whether a build has kernels for it); `None` where there is none,
/// or where one's capability is unknown and the GPU is still to ask about.
fn described_gpus(facts: &Facts) -> Option<String> {
    let mut described: Vec<String> = Vec::new();
    for visible in &facts.gpus {
        let capability = visible.compute_capability.as_ref()?;
        let text = match visible.gpu.name.as_deref() {
            Some(name) => format!("{name}, compute capability {capability}"),
            None => format!("compute capability {capability}"),
        };
        if !described.contains(&text) {
            described.push(text);
        }
    }
    (!described.is_empty()).then(|| described.join("; "))
}

/// `/dev/shm` holds for one GPU as for many: DataLoader workers fill it too,
/// so its size is read here rather than through the multi-GPU check.
fn shared_memory(facts: &Facts) -> Absence {
    let minimum = builtin_checks::SHM_MIN_MIB;
    match facts.snapshot.system.limits.shm_total_mib {
        Some(total) if total < minimum => Absence::Holds(NodeTest {
            holds: Some(true),
            text: format!(
                "this node: /dev/shm holds {total} MiB, under the {minimum} MiB NCCL's guide runs containers with"
            ),
            fix: None,
            decisive: true,
        }),
        Some(total) => Absence::RulesOut(format!(
            "/dev/shm holds {total} MiB, enough for NCCL and DataLoader workers"
        )),
        None => Absence::Open(
            "the size of /dev/shm where the job ran (`df -h /dev/shm` inside the job's container)".to_string(),
        ),
    }
}

/// What is known of the failed run besides its traceback.
#[derive(Debug, Clone, Copy, Default)]
pub struct TheRun {
    /// A frame ran from this node's Python environment: its facts are the run's.
    pub same_environment: bool,
    /// The facts were taken just before the run started, in its environment
    /// (the smoke test, after `check`'s probe).
    pub facts_precede_it: bool,
    /// The GPU it ran on, where known (a smoke test step's).
    pub gpu: Option<u32>,
    /// The facts were probed on the node explain runs on, not replayed from
    /// the log's node: they speak for a log only if it ran here.
    pub probed_here: bool,
}

/// Memory another process holds on the GPU the out of memory was on (named
/// in it: `GPU 0 has a total capacity`, `(GPU 0; 14.75 GiB total capacity`;
/// else the run's GPU, or the one GPU there is). Taken after a job, it adds
/// to the cause and never settles it: the job's own hung ranks may still
/// hold it. Taken before the run started, it was another process's.
fn memory_held(facts: &Facts, message: &str, run: TheRun) -> Option<NodeTest> {
    // "CUDA error: out of memory" (a CUDA context, a library's workspace) names no GPU.
    let only = match facts.gpus.as_slice() {
        [only] => Some(only.ordinal),
        _ => None,
    };
    let ordinal = gpu_named(message).or(run.gpu).or(only)?;
    let visible = facts.gpus.iter().find(|visible| visible.ordinal == ordinal)?;
    let used = visible.gpu.memory_used_mib?;
    let total = visible.gpu.memory_total_mib?;
    if used < MEMORY_HELD_MIB {
        return None;
    }
    let free = total.saturating_sub(used);
    // Taken before the run started, the memory in use was another process's,
    // and it settles the cause where it left the run little: under a tenth of
    // the GPU. Taken after a job, the job's own ranks may still hold it.
    let settles = run.facts_precede_it && free.saturating_mul(10) < total;
    let text = if run.facts_precede_it {
        format!(
            "this node: GPU {ordinal} had {used} of {total} MiB in use before the run started, by another process, {free} MiB free"
        )
    } else {
        format!(
            "this node: GPU {ordinal} has {used} of {total} MiB in use now; if the job is gone, another process holds it"
        )
    };
    let fix = if settles {
        "find the process that holds the GPU with nvidia-smi --query-compute-apps=pid,used_memory --format=csv and stop it"
    } else {
        "if another process holds the GPU, find it with nvidia-smi --query-compute-apps=pid,used_memory --format=csv and stop it"
    };
    Some(NodeTest {
        holds: Some(true),
        text,
        fix: Some(fix.to_string()),
        decisive: settles,
    })
}

/// The GPU ordinal an out-of-memory message names.
fn gpu_named(message: &str) -> Option<u32> {
    let at = message.find("gpu ")? + "gpu ".len();
    let digits: String = message[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gpu_an_out_of_memory_names_is_read_from_either_wording() {
        assert_eq!(
            gpu_named("tried to allocate 2.00 gib. gpu 3 has a total capacity of 79 gib"),
            Some(3)
        );
        assert_eq!(
            gpu_named("tried to allocate 20.00 mib (gpu 0; 14.75 gib total capacity"),
            Some(0)
        );
        assert_eq!(gpu_named("cuda out of memory"), None);
    }
}
