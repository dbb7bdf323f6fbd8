//! An allocation of the host's memory that was refused: Python's
//! `MemoryError` (NumPy's subclass shows as it, and says how much it wanted),
//! and torch's CPU allocator in its own words. The size asked for, where the
//! message states it, is set against the node's memory: a request larger than
//! the whole machine is no matter of what else was running.

use super::oom::{ON_A_GPU, mib, size_at};
use super::{Context, Reading, text};
use crate::explain::traceback::Traceback;

pub const CAUSE: &str = "host-memory-exhausted";

/// A refusal in words, whatever class it was raised as, lowercased: torch's
/// CPU allocator as Windows builds and Linux builds word it
/// (c10/core/impl/alloc_cpu.cpp); C++'s `std::bad_alloc`, which pybind11
/// raises as MemoryError and torch as RuntimeError. The system's ENOMEM by
/// its number is [`enomem_reported`].
const REFUSAL_WORDS: [&str; 3] = [
    "defaultcpuallocator: not enough memory",
    "defaultcpuallocator: can't allocate memory",
    "std::bad_alloc",
];

/// The system's ENOMEM (errno 12, "Cannot allocate memory") in the words of
/// whoever reported the failed call: Python's `OSError: [Errno 12]` (a
/// DataLoader forking its workers from a large process), and the older CPU
/// allocator's enforce on posix_memalign, which prints the call's return
/// beside the 0 it wanted (`posix_memalign(&data, gAlignment, nbytes) == 0.
/// 12 vs 0`; 22, EINVAL, is an alignment, not memory). torch's later
/// allocator adds `Error code 12 (Cannot allocate memory)` to its own
/// [`REFUSAL_WORDS`]. `lower` is lowercased.
fn enomem_reported(lower: &str) -> bool {
    lower.contains("[errno 12]") || (lower.contains("posix_memalign") && lower.contains(" 12 vs 0"))
}

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let memory_error = traceback
        .messages()
        .any(|raised| matches!(raised.class(), "MemoryError" | "_ArrayMemoryError"));
    if !memory_error && !REFUSAL_WORDS.iter().any(|words| lower.contains(words)) && !enomem_reported(&lower) {
        return None;
    }
    // A MemoryError of a GPU's allocator is the GPU's (pycuda's
    // `pycuda._driver.MemoryError: cuMemAlloc failed: out of memory`).
    if ON_A_GPU
        .iter()
        .chain(&["cumemalloc", "device memory"])
        .any(|words| lower.contains(words))
    {
        return None;
    }
    let asked = asked_mib(&lower);
    let said = match asked {
        Some(size) => format!(
            "an allocation of {} of CPU memory was refused: the process asked for more than the host had free",
            mib(size)
        ),
        None => {
            "an allocation of CPU memory was refused: the process asked for more than the host had free".to_string()
        }
    };
    let total = context
        .facts
        .and_then(|facts| facts.snapshot.system.memory_total_mib)
        .map(|total| total as f64);
    let node = match (asked, total) {
        (Some(size), Some(total)) if size > total => vec![(
            Some(true),
            format!(
                "{} is more than the {} of memory this node has in all: the job must ask for less",
                mib(size),
                mib(total)
            ),
        )],
        (_, Some(total)) => vec![(
            None,
            format!(
                "this node has {} of memory; what was free when the job ran (and a container's limit) is not known here",
                mib(total)
            ),
        )],
        _ => Vec::new(),
    };
    Some(Reading {
        cause: CAUSE,
        said,
        node,
        fix: "hold less in CPU memory at once (a smaller batch, replay buffer, image or index; a dataset read lazily or memory-mapped; a checkpoint loaded with low_cpu_mem_usage=True or straight to the GPU), or run where there is more RAM (free -g shows it; a container's limit may be lower)".to_string(),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// What the message says was asked for, in MiB: NumPy's `Unable to allocate
/// 315. GiB for an array`, torch's `you tried to allocate 12919504896 bytes`.
/// `lower` is the message lowercased.
fn asked_mib(lower: &str) -> Option<f64> {
    ["unable to allocate ", "you tried to allocate "]
        .iter()
        .find_map(|marker| size_at(text::after_marker(lower, marker)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::traceback::parse;

    fn reading(log: &str) -> Option<Reading> {
        let traceback = &parse(log)[0];
        read(
            &traceback
                .messages()
                .map(|raised| raised.message.clone())
                .collect::<Vec<_>>()
                .join("\n"),
            traceback,
            Context::alone(),
        )
    }

    #[test]
    fn a_refused_allocation_names_the_size_it_asked_for() {
        let numpy = reading("MemoryError: Unable to allocate 315. GiB for an array with shape (10000, 100, 84480) and data type float32\n").unwrap();
        assert_eq!(numpy.cause, CAUSE);
        assert!(numpy.said.contains("315.00 GiB"), "{}", numpy.said);
        let torch = reading("RuntimeError: [enforce fail at ..\\c10\\core\\CPUAllocator.cpp:75] data. DefaultCPUAllocator: not enough memory: you tried to allocate 12919504896 bytes. Buy new RAM!\n").unwrap();
        assert!(torch.said.contains("12.03 GiB"), "{}", torch.said);
        let bare = reading("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    x = np.vstack(images)\nMemoryError\n").unwrap();
        assert!(bare.settles && bare.stated, "{bare:?}");
        assert!(reading("MemoryError: std::bad_alloc\n").is_some());
        // The same refusals raised as other classes.
        for log in [
            "RuntimeError: std::bad_alloc\n",
            "OSError: [Errno 12] Cannot allocate memory\n",
            // BLINK's entity index on a small host, under an older torch.
            "RuntimeError: [enforce fail at CPUAllocator.cpp:56] posix_memalign(&data, gAlignment, nbytes) == 0. 12 vs 0\n",
            "RuntimeError: [enforce fail at alloc_cpu.cpp:83] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4096 bytes. Error code 12 (Cannot allocate memory)\n",
        ] {
            assert!(reading(log).is_some_and(|reading| reading.cause == CAUSE), "{log}");
        }
    }

    #[test]
    fn the_gpus_memory_and_other_errors_are_not_the_hosts() {
        for log in [
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
            "RuntimeError: CUDA error: out of memory\n",
            "pycuda._driver.MemoryError: cuMemAlloc failed: out of memory\n",
            "ValueError: Unable to allocate the tokenizer's buffers\n",
            // ENOSPC and another errno are not the memory's.
            "OSError: [Errno 28] No space left on device\n",
            "OSError: [Errno 121] Cannot allocate memory for the remote I/O buffer\n",
            // EINVAL from posix_memalign is an alignment; a static TLS block is the loader's.
            "RuntimeError: [enforce fail at CPUAllocator.cpp:56] posix_memalign(&data, gAlignment, nbytes) == 0. 22 vs 0\n",
            "ImportError: /lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block\n",
        ] {
            assert!(reading(log).is_none(), "{log}");
        }
    }
}
