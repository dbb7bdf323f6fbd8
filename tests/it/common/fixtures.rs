//! The recorded fixtures that several test modules replay, relative to the
//! repository root (tests that run the binary there print no checkout path).

pub const H100: &str = "tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json";
pub const H100_DS: &str = "tests/fixtures/snapshots/h100-torch2.11-cu130-deepspeed-0.14.2-recorded.json";
pub const H200: &str = "tests/fixtures/snapshots/h200-torch2.11-cu130-recorded.json";
pub const LOCK: &str = "tests/fixtures/locks/h100-torch2.11-cu130-recorded.lock";
/// ZeRO-3 with the optimizer offloaded to the CPU: settles the DeepSpeed
/// 0.14.2 device-mismatch rule on `H100_DS` (without it the rule is unsettled).
pub const DS_ZERO3_OFFLOAD: &str = "tests/fixtures/configs/ds-zero3-offload-cpu.json";
/// The ZeRO-3 offload failure recorded on the real H100 (DeepSpeed 0.14.2).
pub const SMOKE_LOG: &str = "tests/fixtures/smoke/recorded/train-zero3-offload-deepspeed-0.14.2.log";
