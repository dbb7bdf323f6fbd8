//! From what the smoke test saw to findings: a failed or hung step, tied to the
//! rule or check that explains it on this node; a GPU far slower than its peers;
//! and the live answer on architectures, which outranks the table's.

use crate::builtin_checks::smoke_test::{
    CRASHED, DEEPSPEED_CONFIG_REFUSED, INCOMPLETE, STEP_FAILED, STEP_TIMEOUT, STRAGGLER,
};
use crate::configs::{DeepSpeedConfig, Loaded, TrainingConfigs};
use crate::explain::rank::{Candidate, CauseKind, Confidence, EvidenceKind};
use crate::facts::{Facts, LiveRun};
use crate::findings::{Finding, Severity};
use crate::matrix::Matrix;

use super::causes::StepCauses;
use super::{Ending, SmokeRun, Status, Step};

/// What else is known about the node, to explain a failure with.
pub struct Diagnosis<'a> {
    pub matrix: &'a Matrix,
    /// The node's facts, when a Snapshot was taken (`check` and `smoke`
    /// take it before the test).
    pub facts: Option<&'a crate::facts::Facts<'a>>,
    /// The facts were taken before the smoke test started: memory in use
    /// then was another process's.
    pub facts_precede_the_run: bool,
    /// What the rules and checks found on this node (empty for `envdoctor smoke` alone).
    pub fired: &'a [Finding],
}

/// What the smoke test knows of its own code: it builds its model and inputs
/// on one device, so unlike in a job's log, a device mismatch is not where
/// the code put its tensors but a library that moved some.
const OWN_CODE_WHY: &str = "The smoke test puts its own model and every input on one device, so what {ids} blame in a \
    job's code is not the cause here: a library mixed the devices, a bug in the library release the traceback ends in. \
    The job runs the same library and fails the same way.";
const OWN_CODE_FIX: &str = "pip index versions NAME  # NAME: the library the traceback ends in; pin the release before \
    the installed one and rerun envdoctor smoke --deep: a pass names the release that broke it";
const OWN_CODE_REFERENCE: &str = "https://docs.pytorch.org/docs/stable/notes/cuda.html";

/// Every finding the run gives, in step order, then the stragglers.
pub fn findings(run: &SmokeRun, diagnosis: &Diagnosis) -> Vec<Finding> {
    let mut findings: Vec<Finding> = run
        .steps
        .iter()
        .filter(|step| step.status.is_problem())
        .map(|step| {
            let crashed = run.ending == Ending::Crashed && run.ended_during.as_deref() == Some(&step.name);
            step_finding(step, crashed, diagnosis)
        })
        .collect();
    // An ending no step answers for: a crash or a hang between steps or at exit.
    if run.ending != Ending::Completed && run.ended_during.is_none() {
        findings.push(incomplete(run));
    }
    findings.extend(stragglers(run));
    findings
}

/// The DeepSpeed config a ZeRO step ran, from its figures, as the training
/// configs a rule's `[when.deepspeed_config]` is judged by: the step's own
/// config settles what the job's config might leave open.
fn step_deepspeed_config(step: &Step) -> Option<TrainingConfigs> {
    let stage = step.figures.get("zero_stage")?.as_u64()?;
    let precision = step.figure_str("precision").unwrap_or_default();
    let config = DeepSpeedConfig {
        zero_stage: Some(stage),
        offload_optimizer_device: step.figure_str("offload_optimizer_device").map(str::to_string),
        offload_param_device: step.figure_str("offload_param_device").map(str::to_string),
        bf16: Some(precision == "bf16"),
        fp16: Some(precision.starts_with("fp16")),
        document: serde_json::Value::Null,
    };
    let source = step.figure_str("config").unwrap_or("built-in");
    Some(TrainingConfigs {
        deepspeed: Some(Loaded {
            path: format!("the config smoke step {} ran ({source})", step.name).into(),
            config,
        }),
        accelerate: None,
    })
}

/// A DeepSpeed step whose config DeepSpeed's own parser refused: the job would
/// stop at `deepspeed.initialize` with the same message.
fn refused_config(step: &Step) -> Option<Finding> {
    if step.figures.get("refused") != Some(&serde_json::Value::Bool(true)) {
        return None;
    }
    Some(crate::builtin_checks::finding(
        DEEPSPEED_CONFIG_REFUSED,
        Severity::Error,
        "The installed DeepSpeed refuses the job's config".to_string(),
        step.detail.clone(),
        "deepspeed.initialize parses the config before anything else; the job stops there with this message."
            .to_string(),
        Some(
            "correct the config as DeepSpeed's message says, against the keys the installed release accepts \
             (https://www.deepspeed.ai/docs/config-json/)"
                .to_string(),
        ),
        vec!["https://www.deepspeed.ai/docs/config-json/".to_string()],
    ))
}

/// A failure a matrix rule explains near-certainly (its frame, and this node
/// has what the rule needs) is that rule's finding: the smoke test reproduced
/// the known bug, so the report names it by the rule's id, with its fix.
fn reproduced_rule(step: &Step, answer: &Candidate, detail: &str) -> Finding {
    let evidence = answer.evidence_where(Some(true));
    crate::builtin_checks::finding(
        &answer.id,
        Severity::Error,
        answer.title.clone(),
        format!(
            "The smoke test reproduced it: step `{}` ({}) failed: {detail}. {} ({}): {}",
            step.name,
            step.title,
            answer.id,
            answer.confidence.label(),
            evidence.join("; ")
        ),
        answer.why.clone(),
        Some(answer.fix.clone()),
        answer.references.clone(),
    )
}

fn step_finding(step: &Step, crashed: bool, diagnosis: &Diagnosis) -> Finding {
    if let Some(refused) = refused_config(step) {
        return refused;
    }
    let step_configs = step_deepspeed_config(step);
    let step_facts = diagnosis
        .facts
        .zip(step_configs.as_ref())
        .map(|(facts, configs)| Facts::new(facts.snapshot, configs));
    let facts = step_facts.as_ref().or(diagnosis.facts);
    let causes = StepCauses::rank(step, diagnosis.matrix, facts, diagnosis.facts_precede_the_run);
    let candidates = &causes.standing;
    let explanation = causes.explaining(diagnosis.matrix, diagnosis.fired);
    let leader = causes.leader();
    let own_code = !causes.own_code_ruled_out.is_empty() && leader.is_none();

    let (id, what) = match step.status {
        Status::Timeout => (STEP_TIMEOUT, "hung"),
        _ if crashed => (CRASHED, "crashed"),
        _ => (STEP_FAILED, "failed"),
    };
    let mut detail = step.detail.clone();
    if let Some(error) = &step.error
        && !error.message.is_empty()
        && !detail.contains(&error.message)
    {
        detail.push_str(&format!(" [{}: {}]", error.kind, first_line(&error.message)));
    }
    let answer = candidates.first().filter(|candidate| candidate.confidence.is_answer());
    if let Some(answer) = answer
        && explanation.is_empty()
        && answer.confidence == Confidence::NearCertain
        && answer.kind == CauseKind::Rule
        && step.status == Status::Fail
        && !crashed
    {
        return reproduced_rule(step, answer, &detail);
    }
    match explanation.as_slice() {
        [] if !candidates.is_empty() => {
            let mut others = candidates.iter();
            if let Some(answer) = answer {
                others.next();
                detail.push_str(&format!(
                    ". Most likely ({}): {}, {}",
                    answer.confidence.label(),
                    answer.id,
                    answer.title
                ));
                // What this node showed for it (memory another process held):
                // the reason to believe the answer.
                let on_this_node: Vec<&str> = answer
                    .evidence
                    .iter()
                    .filter(|evidence| evidence.kind == EvidenceKind::Node && evidence.holds == Some(true))
                    .map(|evidence| evidence.text.as_str())
                    .collect();
                if !on_this_node.is_empty() {
                    detail.push_str(&format!(" ({})", on_this_node.join("; ")));
                }
            }
            let others: Vec<&str> = others.map(|candidate| candidate.id.as_str()).collect();
            if !others.is_empty() {
                let also = if answer.is_some() { "Also a" } else { "It is a" };
                detail.push_str(&format!(
                    ". {also} symptom of {}, which did not fire on this node",
                    list(others.into_iter())
                ));
            }
        }
        [] => {}
        found => detail.push_str(&format!(
            ". Explained by {} (reported above)",
            list(found.iter().map(|finding| finding.id.as_str()))
        )),
    }
    let why = match (step.status, leader) {
        (Status::Timeout, _) => {
            "A step that does not return in time is a GPU, driver or collective that hangs; the job \
            would hang at the same place and hold every GPU of its allocation until a scheduler limit kills it."
                .to_string()
        }
        (_, Some(cause)) => format!(
            "{} The job runs the same code on the same stack and fails the same way.",
            cause.why
        ),
        _ if own_code => OWN_CODE_WHY.replace("{ids}", &list(causes.own_code_ruled_out.iter().map(String::as_str))),
        _ if id == CRASHED => "A crash by signal inside native code (CUDA, a library's kernels) kills the job without \
            a Python traceback; the stack faulthandler printed is in the report's stderr tail."
            .to_string(),
        _ => "The job runs the same code on the same stack; what fails here fails there.".to_string(),
    };
    // The fix and its note travel together, from whichever source gives the fix.
    let (fix, fix_note) = explanation
        .first()
        .and_then(|finding| Some((finding.fix.clone()?, finding.fix_note.clone())))
        .or_else(|| leader.map(|cause| (cause.fix.clone(), cause.fix_note.clone())))
        .or_else(|| own_code.then(|| (OWN_CODE_FIX.to_string(), None)))
        .or_else(|| {
            candidates
                .first()
                .map(|candidate| (candidate.fix.clone(), candidate.fix_note.clone()))
        })
        .or_else(|| {
            (step.status == Status::Timeout).then(|| {
                (
                    "nvidia-smi".to_string(),
                    Some(
                        "a hung GPU shows 100% utilisation with no process, or no answer; then look for Xid \
                         errors with sudo dmesg | grep -i xid"
                            .to_string(),
                    ),
                )
            })
        })
        .unzip();
    let fix_note = fix_note.flatten();
    let mut references: Vec<String> = explanation
        .iter()
        .flat_map(|finding| finding.references.iter().cloned())
        .collect();
    references.extend(own_code.then(|| OWN_CODE_REFERENCE.to_string()));
    references.extend(
        candidates
            .iter()
            .flat_map(|candidate| candidate.references.iter().cloned()),
    );
    let mut seen = std::collections::BTreeSet::new();
    references.retain(|reference| seen.insert(reference.clone()));
    Finding {
        fix_note,
        ..crate::builtin_checks::finding(
            id,
            Severity::Error,
            format!("Smoke test step `{}` {what}: {}", step.name, step.title),
            detail,
            why,
            fix,
            references,
        )
    }
}

fn incomplete(run: &SmokeRun) -> Finding {
    let last_words = crate::process::failure_line(run.stderr_tail.as_bytes()).unwrap_or_default();
    crate::builtin_checks::finding(
        INCOMPLETE,
        Severity::Error,
        "The smoke test did not finish".to_string(),
        format!(
            "{} ran the smoke test; it ended outside any step ({}) after {} of its steps: {last_words}",
            run.python.display(),
            run.ending_detail,
            run.steps.len()
        ),
        "What did not run was not tested: the node is not known to work.".to_string(),
        Some(format!(
            "{} -X faulthandler -c 'import torch'  # the same interpreter; then rerun envdoctor smoke",
            run.python.display()
        )),
        Vec::new(),
    )
}

/// A GPU this much slower than the median of its same-model peers is a straggler.
const STRAGGLER_RATIO: f64 = 0.7;

/// The figures compared between GPUs of the same model, with their step and unit.
const PEER_FIGURES: [(&str, &str, &str); 2] = [("fp16", "tflops", "TFLOPS"), ("memory", "device_copy_gbps", "GB/s")];

fn stragglers(run: &SmokeRun) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (stage, figure, unit) in PEER_FIGURES {
        // (model, cuda ordinal, value) of every GPU that measured it.
        let measured: Vec<(&str, u32, f64)> = run
            .steps
            .iter()
            .filter(|step| step.status == Status::Pass && step.name.ends_with(&format!(".{stage}")))
            .filter_map(|step| {
                let gpu = step.gpu?;
                let model = run.step(&format!("gpu{gpu}.kernels"))?.figure_str("name")?;
                Some((model, gpu, step.figure_f64(figure)?))
            })
            .collect();
        for &(model, gpu, value) in &measured {
            let mut peers: Vec<f64> = measured
                .iter()
                .filter(|(other, _, _)| *other == model)
                .map(|(_, _, value)| *value)
                .collect();
            if peers.len() < 2 {
                continue;
            }
            peers.sort_by(f64::total_cmp);
            let median = peers[peers.len() / 2];
            if value < median * STRAGGLER_RATIO {
                findings.push(crate::builtin_checks::finding(
                    STRAGGLER,
                    Severity::Warning,
                    format!("cuda:{gpu} is far slower than the other {model} GPUs"),
                    format!(
                        "cuda:{gpu} measured {value} {unit} in step gpu{gpu}.{stage}; the median of the {} {model} GPUs \
                         is {median} {unit}",
                        peers.len()
                    ),
                    "Data-parallel training waits for the slowest GPU at every collective: one slow GPU slows \
                     the whole job to its pace. Thermal or power slowdown, a degraded PCIe link or a failing \
                     GPU are the usual causes."
                        .to_string(),
                    Some(format!(
                        "nvidia-smi -q -i {gpu} -d PERFORMANCE,TEMPERATURE,POWER  # clock event reasons say why"
                    )),
                    vec!["https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html".to_string()],
                ));
            }
        }
    }
    findings
}

/// What the checks read of a run: whether a kernel ran on every GPU, and the
/// architectures the live build reports.
pub fn live_run(run: &SmokeRun) -> LiveRun {
    let kernels: Vec<&Step> = run
        .steps
        .iter()
        .filter(|step| step.name.ends_with(".kernels"))
        .collect();
    LiveRun {
        kernels_ran_everywhere: !kernels.is_empty() && kernels.iter().all(|step| step.status == Status::Pass),
        arch_list: run
            .step("torch.cuda")
            .and_then(|step| step.figures.get("arch_list"))
            .map(|list| list.to_string()),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn list<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    let mut ids: Vec<&str> = ids.collect();
    ids.dedup();
    ids.join(", ")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::smoke::StepError;

    /// The finding of the table-driven architecture check.
    const ARCH_FROM_TABLE: &str = "gpu-arch-not-in-torch-build";

    fn step(name: &str, status: Status, detail: &str) -> Step {
        Step {
            name: name.to_string(),
            title: format!("the {name} step"),
            status,
            duration_ms: 10,
            detail: detail.to_string(),
            gpu: name
                .strip_prefix("gpu")
                .and_then(|rest| rest.split('.').next()?.parse().ok()),
            figures: BTreeMap::new(),
            error: None,
        }
    }

    fn with_figures(mut step: Step, figures: serde_json::Value) -> Step {
        step.figures = serde_json::from_value(figures).unwrap();
        step
    }

    fn run_of(steps: Vec<Step>, ending: Ending) -> SmokeRun {
        SmokeRun {
            python: PathBuf::from("/venv/bin/python"),
            timeout_s: 120.0,
            deep: false,
            duration_ms: 1000,
            ending,
            ending_detail: "exit status 0".to_string(),
            // As the harness does: the step the run ended in, if it ended in one.
            ended_during: (ending != Ending::Completed)
                .then(|| {
                    steps
                        .iter()
                        .rfind(|step| step.status.is_problem())
                        .map(|step| step.name.clone())
                })
                .flatten(),
            steps,
            stderr_tail: String::new(),
        }
    }

    fn fired(id: &str, origin: &str, fix: &str) -> Finding {
        Finding {
            origin: origin.to_string(),
            ..crate::builtin_checks::finding(
                id,
                Severity::Error,
                "t".into(),
                "d".into(),
                "w".into(),
                Some(fix.into()),
                vec![],
            )
        }
    }

    fn diagnose(run: &SmokeRun, fired: &[Finding]) -> Vec<Finding> {
        let matrix = Matrix::load(&[]).unwrap();
        findings(
            run,
            &Diagnosis {
                matrix: &matrix,
                facts: None,
                facts_precede_the_run: false,
                fired,
            },
        )
    }

    #[test]
    fn a_device_mismatch_is_explained_by_the_rule_that_fired_on_this_node() {
        let mut failed = step(
            "peft.qlora",
            Status::Fail,
            "RuntimeError: Expected all tensors to be on the same device",
        );
        failed.error = Some(StepError {
            kind: "RuntimeError".into(),
            // torch 2.11's wording; the rules' symptoms quote the older "but found at least two devices".
            message: "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other \
                      tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)"
                .into(),
            traceback: String::new(),
        });
        let run = run_of(vec![failed], Ending::Completed);
        let rule = "quantized-lora-cpu-offload-small-gpu";
        let explained = diagnose(&run, &[fired(rule, rule, "load the model on one GPU")]);
        assert_eq!(explained.len(), 1);
        assert_eq!(explained[0].id, STEP_FAILED);
        assert!(
            explained[0].detail.contains(&format!("Explained by {rule}")),
            "{}",
            explained[0].detail
        );
        assert_eq!(explained[0].fix.as_deref(), Some("load the model on one GPU"));

        // The same failure where no rule fired: the rules that list it are named as such.
        let unexplained = diagnose(&run, &[]);
        assert!(
            unexplained[0].detail.contains("which did not fire on this node"),
            "{}",
            unexplained[0].detail
        );
        assert!(unexplained[0].detail.contains(rule));
    }

    #[test]
    fn a_step_traceback_is_ranked_as_explain_ranks_it() {
        let mut failed = step(
            "deepspeed.zero3_offload",
            Status::Fail,
            "RuntimeError in the optimizer step",
        );
        failed.error = Some(StepError {
            kind: "RuntimeError".into(),
            message: "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
                .into(),
            traceback: "Traceback (most recent call last):\n  File \"/v/site-packages/deepspeed/runtime/zero/stage3.py\", \
                        line 2117, in unscale_and_clip_grads\n    x.grad.mul_(1. / s)\nRuntimeError: Expected all tensors \
                        to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
                .into(),
        });
        let found = diagnose(&run_of(vec![failed], Ending::Completed), &[]);
        let rule = "deepspeed-zero3-offload-device-mismatch";
        assert!(
            found[0].detail.contains(&format!("Most likely (likely): {rule}")),
            "{}",
            found[0].detail
        );
        assert_eq!(found[0].fix.as_deref(), Some("pip install \"deepspeed>=0.14.4\""));
    }

    /// The ZeRO-3 step as it fails on DeepSpeed 0.14.2: the traceback of the
    /// real job recorded on an H100, as the worker reports it, and the
    /// figures of the config the step ran.
    fn recorded_zero3_failure() -> Step {
        let log = include_str!("../../tests/fixtures/smoke/recorded/train-zero3-offload-deepspeed-0.14.2.log");
        let traceback: String = log
            .lines()
            .map(|line| line.strip_prefix("[rank0]: ").unwrap_or(line))
            .skip_while(|line| !line.starts_with("Traceback"))
            .take_while(|line| !line.is_empty())
            .map(|line| format!("{line}\n"))
            .collect();
        let message = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
        assert!(traceback.trim_end().ends_with(message), "{traceback}");
        let mut failed = with_figures(
            step(
                "deepspeed.zero3",
                Status::Fail,
                &format!("rank 0: RuntimeError: {message}"),
            ),
            serde_json::json!({
                "config": "built-in", "zero_stage": 3, "offload_optimizer_device": "cpu",
                "offload_param_device": "cpu", "precision": "bf16", "gradient_clipping": 1e-6
            }),
        );
        failed.error = Some(StepError {
            kind: "RuntimeError".into(),
            message: message.into(),
            traceback,
        });
        failed
    }

    /// The recorded H100 node (DeepSpeed 0.14.2 installed), with DeepSpeed at `version`.
    fn recorded_node(version: &str) -> crate::snapshot::Snapshot {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/snapshots/h100-torch2.11-cu130-deepspeed-0.14.2-recorded.json"
        );
        let mut snapshot = crate::snapshot::read(std::path::Path::new(path)).unwrap();
        let deepspeed = snapshot
            .packages
            .iter_mut()
            .find(|package| package.normalized_name == "deepspeed")
            .expect("the recording has DeepSpeed");
        deepspeed.version = Some(version.into());
        snapshot
    }

    /// As `check` diagnoses: the Snapshot taken before the smoke test.
    fn diagnose_on(run: &SmokeRun, snapshot: &crate::snapshot::Snapshot) -> Vec<Finding> {
        diagnose_with(run, snapshot, true)
    }

    fn diagnose_with(
        run: &SmokeRun,
        snapshot: &crate::snapshot::Snapshot,
        facts_precede_the_run: bool,
    ) -> Vec<Finding> {
        let matrix = Matrix::load(&[]).unwrap();
        let configs = TrainingConfigs::default();
        let facts = Facts::new(snapshot, &configs);
        findings(
            run,
            &Diagnosis {
                matrix: &matrix,
                facts: Some(&facts),
                facts_precede_the_run,
                fired: &[],
            },
        )
    }

    /// Recorded on a real H100 while another process held all but 256 MiB
    /// of its memory: torch's "CUDA error: out of memory" names no GPU, yet
    /// the Snapshot taken before the smoke test shows the memory in use on
    /// the one GPU there is, so the cause is settled and the fix leads with
    /// finding the process. Before, the run was "likely" out of memory, with
    /// the batch-size advice first.
    #[test]
    fn out_of_memory_on_a_gpu_another_process_holds_is_named_near_certain() {
        let (report, path) = memory_held_report();
        let (snapshot, run) = recorded_parts(&report, path);
        let found = diagnose_on(&run, &snapshot);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0]
                .detail
                .contains("Most likely (near-certain): cuda-out-of-memory"),
            "{:#?}",
            found[0]
        );
        let fix = found[0].fix.as_deref().unwrap_or_default();
        assert!(
            fix.starts_with("find the process that holds the GPU with nvidia-smi"),
            "{fix}"
        );
        assert!(
            found[0].detail.contains(
                "GPU 0 had 80824 of 81559 MiB in use before the run started, by another process, 735 MiB free"
            ),
            "{:#?}",
            found[0]
        );
        // `envdoctor smoke` alone probes after a step failed: the memory in
        // use then may be the test's own or a job started since; it adds only.
        let after = diagnose_with(&run, &snapshot, false);
        assert!(
            after[0].detail.contains("Most likely (likely): cuda-out-of-memory"),
            "{:#?}",
            after[0]
        );
        assert!(after[0].detail.contains("in use now"), "{:#?}", after[0]);
    }

    /// The Snapshot and the smoke run of a recorded check report.
    fn recorded_parts(report: &serde_json::Value, path: &str) -> (crate::snapshot::Snapshot, SmokeRun) {
        let snapshot = crate::snapshot::parse(
            &serde_json::to_vec(&report["snapshot"]).unwrap(),
            std::path::Path::new(path),
        )
        .unwrap();
        (snapshot, serde_json::from_value(report["smoke"].clone()).unwrap())
    }

    fn memory_held_report() -> (serde_json::Value, &'static str) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/smoke/recorded/check-h100-gpu-memory-held.json"
        );
        (serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap(), path)
    }

    /// Memory another process held before the test settles an out of memory
    /// only where it left the test little: with half the GPU free, it adds.
    #[test]
    fn memory_held_with_plenty_left_free_does_not_settle_an_out_of_memory() {
        let (mut report, path) = memory_held_report();
        report["snapshot"]["nvidia"]["gpus"][0]["memory_used_mib"] = 40_000.into();
        let (snapshot, run) = recorded_parts(&report, path);
        let found = diagnose_on(&run, &snapshot);
        assert!(
            found[0].detail.contains("Most likely (likely): cuda-out-of-memory"),
            "{:#?}",
            found[0]
        );
        assert!(found[0].detail.contains("41559 MiB free"), "{:#?}", found[0]);
    }

    /// The same recording on a node given a second, idle H100: the message
    /// names no GPU, so the step's own GPU decides which memory counts.
    #[test]
    fn out_of_memory_is_read_against_the_gpu_the_step_ran_on() {
        let (mut report, path) = memory_held_report();
        let snapshot = &mut report["snapshot"];
        let mut idle = snapshot["nvidia"]["gpus"][0].clone();
        idle["index"] = 1.into();
        idle["uuid"] = "GPU-00000000-0000-0000-0000-000000000001".into();
        idle["pci_bus_id"] = "00000000:00:07.0".into();
        idle["memory_used_mib"] = 0.into();
        snapshot["nvidia"]["gpus"].as_array_mut().unwrap().push(idle.clone());
        let mut device = snapshot["cuda_devices"]["devices"][0].clone();
        device["ordinal"] = 1.into();
        device["nvml_index"] = 1.into();
        device["uuid"] = idle["uuid"].clone();
        device["pci_bus_id"] = idle["pci_bus_id"].clone();
        snapshot["cuda_devices"]["devices"].as_array_mut().unwrap().push(device);
        let (snapshot, mut run) = recorded_parts(&report, path);
        let on = |run: &SmokeRun| diagnose_on(run, &snapshot)[0].detail.clone();
        assert!(
            on(&run).contains("Most likely (near-certain): cuda-out-of-memory"),
            "{}",
            on(&run)
        );
        let step = run.steps.iter_mut().find(|step| step.name == "gpu0.kernels").unwrap();
        step.gpu = Some(1);
        assert!(
            on(&run).contains("Most likely (likely): cuda-out-of-memory"),
            "{}",
            on(&run)
        );
    }

    #[test]
    fn the_zero3_failure_on_deepspeed_0_14_2_is_the_rule_s_finding_near_certain() {
        let run = run_of(vec![recorded_zero3_failure()], Ending::Completed);
        let found = diagnose_on(&run, &recorded_node("0.14.2"));
        assert_eq!(found.len(), 1, "{found:#?}");
        let rule = "deepspeed-zero3-offload-device-mismatch";
        assert_eq!(found[0].id, rule);
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(found[0].fix.as_deref(), Some("pip install \"deepspeed>=0.14.4\""));
        let detail = &found[0].detail;
        assert!(
            detail.starts_with("The smoke test reproduced it: step `deepspeed.zero3`"),
            "{detail}"
        );
        assert!(detail.contains(&format!("{rule} (near-certain)")), "{detail}");
        // The step's own config settles the rule's config condition.
        assert!(detail.contains("the config smoke step deepspeed.zero3 ran"), "{detail}");
    }

    #[test]
    fn the_same_failure_where_deepspeed_is_not_0_14_1_or_0_14_2_is_not_that_bug() {
        let run = run_of(vec![recorded_zero3_failure()], Ending::Completed);
        for version in ["0.14.0", "0.14.3"] {
            let found = diagnose_on(&run, &recorded_node(version));
            assert_eq!(found.len(), 1, "{found:#?}");
            assert_eq!(found[0].id, STEP_FAILED, "{version}");
            assert!(
                !found[0]
                    .detail
                    .contains("deepspeed-zero3-offload-device-mismatch (near-certain)"),
                "{}",
                found[0].detail
            );
        }
    }

    #[test]
    fn a_config_deepspeed_refuses_is_its_own_finding() {
        let refused = with_figures(
            step(
                "deepspeed.job_config",
                Status::Fail,
                "DeepSpeed 0.14.2 refused the config ZeRO-4, fp32 (ds.json): ValidationError: 1 validation error",
            ),
            serde_json::json!({"refused": true, "zero_stage": 4}),
        );
        let found = diagnose(&run_of(vec![refused], Ending::Completed), &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, DEEPSPEED_CONFIG_REFUSED);
        assert!(found[0].detail.contains("ValidationError"), "{}", found[0].detail);
    }

    #[test]
    fn an_nccl_symbol_missing_at_import_is_a_library_mismatch_not_a_collective_failure() {
        let failed = step(
            "torch.import",
            Status::Fail,
            "ImportError: libtorch_cuda.so: undefined symbol: ncclCommWindowRegister",
        );
        let found = diagnose(&run_of(vec![failed], Ending::Completed), &[]);
        assert!(found[0].why.contains("another NCCL"), "{}", found[0].why);
    }

    /// A failure as the smoke script reports it: an exception's class and
    /// message, or (`kind` empty) a failure the script put in its own words.
    fn failed_step(name: &str, kind: &str, message: &str) -> Step {
        if kind.is_empty() {
            return step(name, Status::Fail, message);
        }
        let mut failed = step(name, Status::Fail, &format!("{kind}: {}", first_line(message)));
        failed.error = Some(StepError {
            kind: kind.into(),
            message: message.into(),
            traceback: String::new(),
        });
        failed
    }

    /// The texts the smoke test's own table of known failures matched, each
    /// in a message as torch, CUDA or the script writes it: the symptom entry
    /// that names its cause, and the findings that explained it there.
    const KNOWN_FAILURES: &[(&str, &str, &str, &str, &[&str])] = &[
        (
            "gpu0.kernels",
            "torch.AcceleratorError",
            "CUDA error: no kernel image is available for execution on the device",
            "torch-build-lacks-gpu-arch",
            &["gpu-arch-not-in-torch-build"],
        ),
        (
            "gpu0.kernels",
            "torch.AcceleratorError",
            "CUDA error: the provided PTX was compiled with an unsupported toolchain.",
            "ptx-jit-compilation-failed",
            &["driver-older-than-torch-cuda-minor", "driver-too-old-for-torch-cuda"],
        ),
        (
            "gpu0.kernels",
            "RuntimeError",
            "CUDA error: a PTX JIT compilation failed",
            "ptx-jit-compilation-failed",
            &[
                "driver-older-than-torch-cuda-minor",
                "driver-too-old-for-torch-cuda",
                "gpu-arch-not-in-torch-build",
            ],
        ),
        (
            "torch.cuda",
            "RuntimeError",
            "CUDA error: CUDA driver version is insufficient for CUDA runtime version",
            "driver-too-old-for-torch",
            &["driver-too-old-for-torch-cuda"],
        ),
        (
            "torch.cuda",
            "",
            "torch.cuda.is_available() is False: CUDA initialization: The NVIDIA driver on your system is too old \
             (found version 12020). Please update your GPU driver",
            "driver-too-old-for-torch",
            &["driver-too-old-for-torch-cuda"],
        ),
        (
            "torch.cuda",
            "",
            "torch 2.11.0+cpu is not a CUDA build (torch.version.cuda is None)",
            "torch-cpu-only-build",
            &["torch-not-built-for-cuda"],
        ),
        (
            "torch.cuda",
            "",
            "torch.cuda.is_available() is False: CUDA sees no GPU (no NVIDIA driver loaded, or CUDA_VISIBLE_DEVICES \
             hides every GPU)",
            "no-cuda-gpu-visible",
            &["no-gpu-visible", "cuda-visible-devices-invalid"],
        ),
        (
            "gpu0.memory",
            "torch.OutOfMemoryError",
            "CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which \
             3.06 MiB is free.",
            "cuda-out-of-memory",
            &[],
        ),
        (
            "gpu0.fp16",
            "torch.AcceleratorError",
            "CUDA error: an illegal memory access was encountered",
            "cuda-illegal-memory-access",
            &[
                "gpu-uncorrectable-ecc-errors",
                "gpu-memory-repair-pending",
                "gpu-row-remap-failed",
            ],
        ),
        (
            "torch.import",
            "ImportError",
            "/v/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommWindowRegister",
            "torch-loads-other-nccl",
            &[],
        ),
        (
            "gpu0.memory",
            "torch.AcceleratorError",
            "CUDA error: uncorrectable ECC error encountered",
            "gpu-uncorrectable-ecc-error",
            &[
                "gpu-uncorrectable-ecc-errors",
                "gpu-memory-repair-pending",
                "gpu-row-remap-failed",
            ],
        ),
        (
            "nccl.all_reduce",
            "torch.distributed.DistBackendError",
            "NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled system error (run with \
             NCCL_DEBUG=INFO for details), NCCL version 2.28.9",
            "nccl-collective-failed",
            &["shm-too-small", "cuda-visible-devices-invalid"],
        ),
    ];

    #[test]
    fn every_known_failure_names_its_cause_its_fix_and_the_findings_that_explain_it() {
        let matrix = Matrix::load(&[]).unwrap();
        for (name, kind, message, cause, explained_by) in KNOWN_FAILURES {
            let run = run_of(vec![failed_step(name, kind, message)], Ending::Completed);
            let entry = matrix.symptom(cause).unwrap();
            let alone = &diagnose(&run, &[])[0];
            let named = [format!("): {cause}, "), format!("symptom of {cause}")];
            assert!(
                named.iter().any(|name| alone.detail.contains(name.as_str())),
                "{cause}: {}",
                alone.detail
            );
            assert!(alone.why.starts_with(&entry.why), "{cause}: {}", alone.why);
            assert_eq!(alone.fix.as_deref(), Some(entry.fix.as_str()), "{cause}");
            assert!(alone.references.contains(&entry.references[0]), "{cause}");
            // Each finding that explained it, fired alone, is named and gives the fix.
            for id in *explained_by {
                let found = &diagnose(&run, &[fired(id, "some-check", "the check's fix")])[0];
                assert!(
                    found.detail.ends_with(&format!("Explained by {id} (reported above)")),
                    "{cause}: {}",
                    found.detail
                );
                assert_eq!(found.fix.as_deref(), Some("the check's fix"), "{cause}");
            }
            // A finding that explains another cause is not named.
            let unrelated = &diagnose(&run, &[fired("gpu-clocks-slowed", "gpu-clock-slowdown", "f")])[0];
            assert!(
                !unrelated.detail.contains("Explained by"),
                "{cause}: {}",
                unrelated.detail
            );
        }
    }

    #[test]
    fn a_device_mismatch_on_the_smoke_tests_own_model_is_a_library_bug_not_the_jobs_code() {
        let failed = failed_step(
            "peft.qlora",
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        );
        let found = &diagnose(&run_of(vec![failed], Ending::Completed), &[])[0];
        // The symptom entries that blame a job's code are named as ruled out, not as the cause.
        assert!(
            found.why.starts_with("The smoke test puts its own model"),
            "{}",
            found.why
        );
        assert!(found.why.contains("inputs-not-on-model-device"), "{}", found.why);
        assert!(!found.detail.contains("inputs-not-on-model-device"), "{}", found.detail);
        assert!(
            found.fix.as_deref().unwrap().starts_with("pip index versions NAME"),
            "{:?}",
            found.fix
        );
    }

    #[test]
    fn a_missing_kernel_image_points_at_the_architecture_check() {
        let run = run_of(
            vec![step(
                "gpu0.kernels",
                Status::Fail,
                "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
            )],
            Ending::Completed,
        );
        let check = fired(ARCH_FROM_TABLE, "torch-runs-on-gpus", "pip install torch for sm_61");
        let found = diagnose(&run, &[check]);
        assert!(found[0].detail.contains(ARCH_FROM_TABLE));
        assert_eq!(found[0].fix.as_deref(), Some("pip install torch for sm_61"));
        // Without the check firing, the known fix still comes with it.
        let found = diagnose(&run, &[]);
        assert!(found[0].fix.as_deref().unwrap().contains("download.pytorch.org"));
        assert!(!found[0].detail.contains("Explained by"));
    }

    #[test]
    fn timeouts_and_crashes_have_their_own_ids_and_passes_give_nothing() {
        let mut crashed = step(
            "torch.cuda",
            Status::Fail,
            "the interpreter crashed (signal SIGSEGV) during this step",
        );
        crashed.error = Some(StepError {
            kind: "SIGSEGV".into(),
            message: "Fatal Python error: Segmentation fault".into(),
            traceback: String::new(),
        });
        let passed = step("torch.import", Status::Pass, "");
        let skipped = step("gpu0.bf16", Status::Skip, "bf16 needs 8.0");
        let ids =
            |run: &SmokeRun| -> Vec<String> { diagnose(run, &[]).into_iter().map(|finding| finding.id).collect() };
        let run = run_of(vec![passed.clone(), skipped.clone(), crashed.clone()], Ending::Crashed);
        assert_eq!(ids(&run), [CRASHED]);
        let hung = step("nccl.all_reduce", Status::Timeout, "no answer within 70 s");
        let run = run_of(vec![passed, skipped, hung], Ending::TimedOut);
        assert_eq!(ids(&run), [STEP_TIMEOUT]);
        // A crash after every step ended is a run that did not finish cleanly.
        let mut run = run_of(vec![crashed], Ending::Crashed);
        run.ended_during = None;
        assert_eq!(ids(&run), [STEP_FAILED, INCOMPLETE]);
    }

    #[test]
    fn a_run_that_ends_outside_a_step_is_incomplete() {
        let mut run = run_of(vec![step("torch.import", Status::Pass, "")], Ending::Exited);
        run.ending_detail = "exit status 1".into();
        run.stderr_tail = "SyntaxError: invalid syntax".into();
        let found = diagnose(&run, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, INCOMPLETE);
        assert!(found[0].detail.contains("SyntaxError"));
        // Killed at the run's deadline between two steps.
        let run = run_of(vec![step("torch.import", Status::Pass, "")], Ending::TimedOut);
        assert_eq!(diagnose(&run, &[])[0].id, INCOMPLETE);
    }

    fn gpu(index: u32, model: &str, tflops: f64) -> [Step; 2] {
        [
            with_figures(
                step(&format!("gpu{index}.kernels"), Status::Pass, ""),
                serde_json::json!({"name": model}),
            ),
            with_figures(
                step(&format!("gpu{index}.fp16"), Status::Pass, ""),
                serde_json::json!({"tflops": tflops}),
            ),
        ]
    }

    #[test]
    fn a_gpu_far_slower_than_its_peers_is_a_straggler() {
        let steps = [
            gpu(0, "H100", 700.0),
            gpu(1, "H100", 690.0),
            gpu(2, "H100", 300.0),
            gpu(3, "L4", 100.0),
        ];
        let run = run_of(steps.into_iter().flatten().collect(), Ending::Completed);
        let found = diagnose(&run, &[]);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].id, STRAGGLER);
        assert!(found[0].title.contains("cuda:2"));
        // A slower model is not a straggler among its betters, and peers within the ratio are not.
        let steps = [gpu(0, "H100", 700.0), gpu(1, "H100", 520.0), gpu(2, "L4", 100.0)];
        let run = run_of(steps.into_iter().flatten().collect(), Ending::Completed);
        assert!(diagnose(&run, &[]).is_empty());
    }

    /// The smoke run recorded on a real H100 (torch 2.11.0+cu130): every step passed.
    fn recorded_healthy_run() -> SmokeRun {
        serde_json::from_str(include_str!(
            "../../tests/fixtures/smoke/recorded/smoke-run-h100-torch2.11-cu130.json"
        ))
        .unwrap()
    }

    #[test]
    fn the_recorded_h100_run_is_healthy() {
        let run = recorded_healthy_run();
        assert_eq!(run.ending, Ending::Completed);
        assert!(run.steps.iter().all(|step| step.status == Status::Pass), "{run:#?}");
        assert!(diagnose(&run, &[]).is_empty(), "{:#?}", diagnose(&run, &[]));
    }

    #[test]
    fn the_live_run_says_whether_kernels_ran_everywhere() {
        // The real run: torch.cuda reports the build's architectures and cuda:0 ran its kernels.
        let live = live_run(&recorded_healthy_run());
        assert!(live.kernels_ran_everywhere);
        assert!(
            live.arch_list.as_deref().is_some_and(|list| list.contains("sm_90")),
            "{live:?}"
        );
        let failed = run_of(
            vec![step("gpu0.kernels", Status::Fail, "no kernel image")],
            Ending::Completed,
        );
        assert!(!live_run(&failed).kernels_ran_everywhere);
        assert!(!live_run(&run_of(Vec::new(), Ending::Completed)).kernels_ran_everywhere);
    }
}
