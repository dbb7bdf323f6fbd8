//! The smoke test as one of the built-in checks: its id, the findings it can
//! produce and what it does, for `matrix list`, `matrix explain` and
//! `--ignore`. Its findings come from running the test (`smoke::diagnose`),
//! not from the Snapshot, so `run` has nothing to say on its own.

use super::BuiltinCheck;

pub const STEP_FAILED: &str = "smoke-step-failed";
pub const STEP_TIMEOUT: &str = "smoke-step-timeout";
pub const CRASHED: &str = "smoke-crashed";
pub const INCOMPLETE: &str = "smoke-incomplete";
pub const STRAGGLER: &str = "smoke-gpu-straggler";
pub const DEEPSPEED_CONFIG_REFUSED: &str = "smoke-deepspeed-config-refused";

/// The smoke test's entry in the catalogue of checks.
pub const CHECK: BuiltinCheck = BuiltinCheck {
    id: "smoke-test",
    title: "The GPU smoke test: the real stack runs on every GPU",
    produces: &[
        STEP_FAILED,
        STEP_TIMEOUT,
        CRASHED,
        INCOMPLETE,
        STRAGGLER,
        DEEPSPEED_CONFIG_REFUSED,
    ],
    explanation: "Runs a short, bounded test of the real stack with the job's interpreter: import torch, \
        CUDA as torch sees it, on every GPU a kernel, memory fill and copy, fp32/fp16/bf16 matrix products \
        against a CPU reference with their throughput, between GPUs peer access, copies and an NCCL \
        all-reduce, then bitsandbytes 4-bit and 8-bit layers, a PEFT LoRA (and QLoRA) training step and \
        DeepSpeed's op compatibility where installed; with --deep, DeepSpeed ZeRO-3 and ZeRO-2 runs with the \
        optimizer offloaded to the CPU (or the job's own DeepSpeed config), clipping at every step. Every step \
        has a deadline; a hung step is killed with its whole process group. A failure is tied to the rule or \
        check that explains it on this node; one a rule explains near-certainly is reported under that rule's id.",
    run: |_, _| Vec::new(),
};
