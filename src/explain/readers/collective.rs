//! NCCL's watchdog names the collective that waited too long: `WorkNCCL(SeqNum=808,
//! OpType=ALLREDUCE, ..., Timeout(ms)=600000) ran for 600020 milliseconds`. Read apart, it
//! says which operation, how long it waited and what the timeout was, so the fix can name the
//! timeout to raise and what to look for: the rank that was doing something else meanwhile.

use super::{Context, Reading};

pub const TIMEOUT: &str = "nccl-collective-timeout";

/// The number after `key=` up to the next `,` or `)`.
fn field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest.find([',', ')']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

pub fn read(text: &str, _context: Context) -> Option<Reading> {
    let work = &text[text.find("WorkNCCL(")?..];
    let operation = field(work, "OpType=")?;
    let timeout_ms: u64 = field(work, "Timeout(ms)=")?.parse().ok()?;
    let sequence = field(work, "SeqNum=")
        .map(|number| format!(" (collective number {number})"))
        .unwrap_or_default();
    let waited = work
        .find("ran for ")
        .and_then(|at| work[at + 8..].split_whitespace().next())
        .and_then(|number| number.parse::<u64>().ok())
        .map(|ms| format!(" waited {} s", ms / 1000))
        .unwrap_or_default();
    let seconds = timeout_ms / 1000;
    Some(Reading {
        cause: TIMEOUT,
        said: format!(
            "the watchdog says an {operation}{sequence}{waited}, past the process group's timeout of {seconds} s: a rank did not reach it in time"
        ),
        node: Vec::new(),
        fix: format!(
            "find what one rank did while the others waited in the {operation} (the last lines each rank printed before it: a checkpoint save, evaluation, data loading) and have every rank reach the collective; if that work must take longer than {seconds} s, raise the timeout: init_process_group(backend=\"nccl\", timeout=datetime.timedelta(seconds=N)) (transformers: --ddp_timeout N; accelerate: InitProcessGroupKwargs(timeout=...)); to see which rank lagged, rerun with TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1"
        ),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operation_the_wait_and_the_timeout_are_read() {
        let found = read(
            "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
            Context::alone(),
        )
        .unwrap();
        assert_eq!(
            found.said,
            "the watchdog says an ALLREDUCE (collective number 808) waited 600 s, past the process group's timeout of 600 s: a rank did not reach it in time"
        );
        assert!(found.fix.contains("longer than 600 s"), "{}", found.fix);
        assert!(read("Watchdog caught collective operation timeout", Context::alone()).is_none());
    }
}
