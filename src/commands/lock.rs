//! `envdoctor lock`: a node's environment written down, GPU side included.

use super::{Outcome, emit, replay_or_probe};
use crate::cli::LockArgs;
use crate::lock::file;
use crate::lock::model::Lock;
use crate::snapshot::Snapshot;

pub(super) fn lock(args: LockArgs) -> anyhow::Result<Outcome> {
    let snapshot = replay_or_probe(&args.node, true)?;
    let lock = Lock::from_snapshot(&snapshot);
    if let Some(note) = gpu_side_missing(&snapshot) {
        eprintln!("envdoctor: note: {}", crate::escape::one_line(&note));
    }
    let rendered = file::render(&lock);
    if args.output.as_os_str() == "-" {
        emit(None, rendered.as_bytes())?;
    } else {
        emit(Some(&args.output), rendered.as_bytes())?;
        let gpus: u32 = lock.gpus.iter().map(|group| group.count).sum();
        eprintln!(
            "envdoctor: wrote {}: {} packages, Python {}, {} GPU{}, fingerprint {}",
            args.output.display(),
            lock.packages.len(),
            lock.python.version,
            gpus,
            if gpus == 1 { "" } else { "s" },
            lock.fingerprint
        );
    }
    Ok(Outcome::Clean)
}

/// A lock without a GPU side is still a lock (of a CPU node, or a login
/// node), but whoever wrote it should know that is what they have.
fn gpu_side_missing(snapshot: &Snapshot) -> Option<String> {
    let consequence = "`verify` on a GPU node will report its driver and GPUs as drift; \
                       write the lock on a node of the kind the jobs run on to record them";
    match &snapshot.nvidia {
        None => {
            let why = snapshot.nvidia_error.as_ref().map_or_else(
                || "the Snapshot records no NVIDIA facts".to_string(),
                |error| error.message.clone(),
            );
            Some(format!(
                "the lock records no GPU side: no NVIDIA driver answered ({why}); {consequence}"
            ))
        }
        Some(nvidia) if nvidia.gpus.is_empty() => Some(format!(
            "the lock records no GPUs: the NVIDIA driver answered but named none; {consequence}"
        )),
        Some(_) => None,
    }
}
