//! torch's out-of-memory message states how the GPU's memory was spent: its
//! total, what is free, and what this process's torch holds. Where this
//! process holds little of a full GPU, the memory is held elsewhere (another
//! process on the GPU, or another library in this process): what holds it is
//! the first thing to free, before the job is made smaller.

use super::{Context, Reading, text};

pub const CAUSE: &str = "cuda-out-of-memory";

/// The sizes an out-of-memory message states, in MiB.
#[derive(Debug, PartialEq)]
struct Spent {
    gpu: Option<u32>,
    total: f64,
    free: f64,
    /// This process's: all of it where the message says so (torch 2.1 and
    /// later), else what torch's allocator reserved.
    this_process: f64,
}

/// Held elsewhere counts only when it is most of the GPU and more than a
/// CUDA context and a library's workspaces could be.
const ELSEWHERE_SHARE: f64 = 0.5;
const ELSEWHERE_MIB: f64 = 2048.0;

pub fn read(text: &str, _context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    held_elsewhere(&lower)
        .or_else(|| device_allocation_failed(&lower))
        .or_else(|| no_room_for_the_kv_cache(&lower))
}

/// vLLM's words for a GPU whose memory, within `gpu_memory_utilization`, the
/// weights and the profiling run left none of for the KV cache (the V0
/// engine's raise_if_cache_size_invalid in vllm/worker/worker.py, and the V1
/// engine's check in vllm/v1/core/kv_cache_utils.py): the model does not fit
/// the memory the engine may use. Its sibling, a KV cache too small for
/// `max_model_len` (`... is larger than the maximum number of tokens that can
/// be stored in KV cache`, `... KV cache is needed, which is larger than the
/// available KV cache memory`), is the context length the job asked for, a
/// setting of its own (bonito7), and is not read as the GPU's.
fn no_room_for_the_kv_cache(lower: &str) -> Option<Reading> {
    const NONE_LEFT: &str = "no available memory for the cache blocks";
    if !lower.contains(NONE_LEFT) {
        return None;
    }
    Some(Reading {
        cause: CAUSE,
        said: "vLLM found no GPU memory left for its KV cache once the model was loaded, within gpu_memory_utilization".to_string(),
        node: Vec::new(),
        fix: "give the engine room: a higher gpu_memory_utilization (0.9 by default) where nothing else uses the GPU (nvidia-smi), a quantized model, or the model split over more GPUs (tensor_parallel_size); a smaller max_model_len and max_num_seqs lower what its profiling run holds".to_string(),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// Words that put the allocation on a GPU.
pub(super) const ON_A_GPU: [&str; 3] = ["cuda", "gpu", "vram"];

/// Any library's words for an allocation on a GPU that failed, which its
/// entry does not list one by one: faiss's `StandardGpuResources: alloc fail
/// ... (cudaMalloc error out of memory [2])`, older XLA's `Resource
/// exhausted: Out of memory while trying to allocate 15273920000 bytes.`
/// (XLA's allocator is the GPU's wherever it says so). torch's own message is
/// the entry's, and the sizes reader's where it states them.
fn device_allocation_failed(lower: &str) -> Option<Reading> {
    const XLA: &str = "resource exhausted: out of memory while trying to allocate";
    // "Out of memory" itself: an allocation that failed otherwise (`failed
    // to allocate ... pinned memory: unknown error`) is no sign of a full GPU,
    // and pinned memory is the host's.
    let on_a_gpu = lower.contains(XLA)
        || (lower.contains("out of memory")
            && ON_A_GPU.iter().any(|words| lower.contains(words))
            && !lower.contains("cpu")
            && !lower.contains("pinned memory"));
    if !on_a_gpu || ENTRY_WORDS.iter().any(|words| lower.contains(words)) {
        return None;
    }
    let size = requested_bytes(lower).map_or_else(String::new, |bytes| {
        format!(" of {}", mib(bytes as f64 / 1024.0 / 1024.0))
    });
    Some(Reading {
        cause: CAUSE,
        said: format!("the message says an allocation{size} on the GPU failed: its memory was full"),
        node: Vec::new(),
        fix: "see what holds the GPU's memory (nvidia-smi) and stop what need not run; else make the job fit: a smaller batch or input, half precision, or free what the job no longer needs before the next allocation".to_string(),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The entry's own messages with "out of memory" in them (lowercased): the
/// entry names those, with its own fix, and a confirming check on the node
/// may make that fix more precise; a reading would put its fix in their place.
const ENTRY_WORDS: [&str; 8] = [
    "cuda out of memory",
    "would exceed allowed memory. (out of memory)",
    "resource_exhausted",
    "cuda error: out of memory",
    "cuda failed with error out of memory",
    "cuda failure 2: out of memory",
    "cumemalloc failed: out of memory",
    "cudaerrormemoryallocation",
];

/// The bytes an allocation asked for: `allocate 15273920000 bytes`,
/// `requested buffer of size 810263552`, `size 1073741824 bytes`.
fn requested_bytes(lower: &str) -> Option<u64> {
    ["allocate ", "of size ", "size "].iter().find_map(|marker| {
        lower.match_indices(marker).find_map(|(at, _)| {
            let rest = &lower[at + marker.len()..];
            let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
            let after = rest[digits.len()..].trim_start();
            // A number of bytes, not of GiB: `allocate 2.00 GiB` is torch's.
            (digits.len() >= 4 && !after.starts_with(['.', 'g', 'm', 'k']))
                .then(|| digits.parse().ok())
                .flatten()
        })
    })
}

/// torch's message, where the GPU was full and this process held little of it.
fn held_elsewhere(lower: &str) -> Option<Reading> {
    if !lower.contains("out of memory") {
        return None;
    }
    let spent = spent(lower)?;
    let elsewhere = spent.total - spent.free - spent.this_process;
    if elsewhere < ELSEWHERE_MIB || elsewhere < spent.total * ELSEWHERE_SHARE {
        return None;
    }
    let gpu = spent
        .gpu
        .map_or_else(|| "the GPU".to_string(), |gpu| format!("GPU {gpu}"));
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{gpu} was full ({} free of {}), and this process held only {} of it: {} was held outside it, by another process on {gpu} or another library in this process (TensorFlow and JAX take most of a GPU when they start)",
            mib(spent.free),
            mib(spent.total),
            mib(spent.this_process),
            mib(elsewhere)
        ),
        node: Vec::new(),
        fix: format!(
            "see what else holds {gpu}'s memory (nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv; torch's GPU numbers follow CUDA_VISIBLE_DEVICES, nvidia-smi's do not) and stop it, or run on a free GPU: export CUDA_VISIBLE_DEVICES=N before the job (set on a line of its own without export, it does not reach python); else the job must fit in what is left (a smaller batch, gradient checkpointing)"
        ),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

pub(super) fn mib(value: f64) -> String {
    match value >= 1024.0 {
        true => format!("{:.2} GiB", value / 1024.0),
        false => format!("{value:.0} MiB"),
    }
}

/// `(GPU 0; 23.65 GiB total capacity; 412.68 MiB already allocated; 8.56 MiB
/// free; 442.00 MiB reserved in total by PyTorch)`, or torch 2.1's `GPU 0 has
/// a total capacity of 23.65 GiB of which 8.56 MiB is free. ... this process
/// has 440.00 MiB memory in use.`
/// `lower` is the message lowercased.
fn spent(lower: &str) -> Option<Spent> {
    if let Some(rest) = text::after_marker(lower, "has a total capacity of ") {
        let total = size_at(rest)?;
        let free = size_at(text::after_marker(rest, "of which ")?)?;
        let this_process = size_at(text::after_marker(rest, "this process has ")?)?;
        let gpu = number_before(lower, "has a total capacity of ");
        return Some(Spent {
            gpu,
            total,
            free,
            this_process,
        });
    }
    let total_at = lower.find(" total capacity;")?;
    let opening = lower[..total_at].rfind('(')?;
    let inside = &lower[opening + 1..];
    let inside = &inside[..inside.find(')').unwrap_or(inside.len())];
    let mut total = None;
    let mut free = None;
    let mut reserved = None;
    let mut gpu = None;
    for part in inside.split(';').map(str::trim) {
        if let Some(number) = part.strip_prefix("gpu ") {
            gpu = number.parse().ok();
        } else if part.ends_with("total capacity") {
            total = size_at(part);
        } else if part.ends_with(" free") {
            free = size_at(part);
        } else if part.ends_with("reserved in total by pytorch") {
            reserved = size_at(part);
        }
    }
    Some(Spent {
        gpu,
        total: total?,
        free: free?,
        this_process: reserved?,
    })
}

/// The GPU number just before `marker` (`GPU 0 has a total capacity of`).
fn number_before(text: &str, marker: &str) -> Option<u32> {
    let before = &text[..text.find(marker)?];
    before.trim_end().rsplit(' ').next()?.parse().ok()
}

/// A size at the start of `text`, in MiB: `23.65 GiB`, `8.56 MiB`, `512.00 KiB`.
pub(super) fn size_at(text: &str) -> Option<f64> {
    let mut words = text.split_whitespace();
    let number: f64 = words
        .next()?
        .parse()
        .ok()
        .filter(|number: &f64| number.is_finite() && *number >= 0.0)?;
    let unit = words.next()?.trim_end_matches(['.', ';', ',', ')']);
    let scale = match unit {
        "tib" => 1024.0 * 1024.0,
        "gib" => 1024.0,
        "mib" => 1.0,
        "kib" => 1.0 / 1024.0,
        "bytes" | "b" => 1.0 / 1024.0 / 1024.0,
        _ => return None,
    };
    Some(number * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(message: &str) -> Option<Reading> {
        read(message, Context::alone())
    }

    /// vLLM's refusal of a KV cache for want of any GPU memory; a context
    /// length that does not fit is the job's own setting (bonito7).
    #[test]
    fn vllms_kv_cache_without_room_is_the_gpus_memory() {
        let found = read(
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
            Context::alone(),
        )
        .unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.fix.contains("gpu_memory_utilization"), "{}", found.fix);
        for message in [
            "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (21088). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
            "ValueError: To serve at least one request with the models's max seq len (40960), (5.62 GiB KV cache is needed, which is larger than the available KV cache memory (4.50 GiB).",
            "ValueError: No memory should be allocated for the cache blocks for an attention-free model",
        ] {
            assert!(read(message, Context::alone()).is_none(), "{message}");
        }
    }

    #[test]
    fn a_full_gpu_this_process_holds_little_of_is_held_elsewhere() {
        let old = "CUDA out of memory. Tried to allocate 16.00 MiB (GPU 0; 23.65 GiB total capacity; 412.68 MiB already allocated; 8.56 MiB free; 442.00 MiB reserved in total by PyTorch)";
        let found = reading(old).unwrap();
        assert!(
            found
                .said
                .starts_with("GPU 0 was full (9 MiB free of 23.65 GiB), and this process held only 442 MiB"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("CUDA_VISIBLE_DEVICES"), "{}", found.fix);
        let new = "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total capacity of 79.15 GiB of which 4.75 MiB is free. Process 1234 has 78.00 GiB memory in use. Including non-PyTorch memory, this process has 1.10 GiB memory in use. Of the allocated memory 512.00 MiB is allocated by PyTorch";
        assert!(reading(new).unwrap().said.starts_with("GPU 3 was full"));
    }

    #[test]
    fn any_librarys_failed_allocation_on_a_gpu_is_read_and_a_hosts_is_not() {
        let faiss = "Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at /project/faiss/faiss/gpu/StandardGpuResources.cpp:452: Error: 'err == cudaSuccess' failed: StandardGpuResources: alloc fail type TemporaryMemoryBuffer dev 0 space Device stream 0x397eefa0 size 1073741824 bytes (cudaMalloc error out of memory [2])";
        let found = reading(faiss).unwrap();
        assert!(found.said.contains("of 1.00 GiB"), "{}", found.said);
        let xla = "Resource exhausted: Out of memory while trying to allocate 15273920000 bytes.";
        assert!(reading(xla).unwrap().said.contains("14.22 GiB"));
        // The host's memory is another cause.
        assert_eq!(
            reading("MemoryError: Unable to allocate 3.2 GiB for an array with shape (1000, 1000)"),
            None
        );
        assert_eq!(
            reading(
                "RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: not enough memory: you tried to allocate 1048576 bytes."
            ),
            None
        );
        assert_eq!(reading("OSError: [Errno 12] Cannot allocate memory"), None);
        // streamlitllama2: a failure to allocate that is not memory running out.
        assert_eq!(
            reading(
                "WARNING: failed to allocate 0.09 MB of pinned memory: unknown error\nCUDA error 999 at ggml-cuda.cu:6047: unknown error"
            ),
            None
        );
    }

    /// The reader adds only what the entry's messages miss: every one of
    /// them that says "out of memory" is left to the entry.
    #[test]
    fn the_entrys_own_messages_are_left_to_the_entry() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/compat-matrix/symptoms/cuda-out-of-memory.toml"
        );
        let document: toml_edit::DocumentMut = std::fs::read_to_string(path).unwrap().parse().unwrap();
        let messages = document["symptoms"]["messages"].as_array().unwrap();
        let mut checked = 0;
        for message in messages.iter().filter_map(|value| value.as_str()) {
            let lower = message.to_ascii_lowercase();
            if lower.contains("out of memory") {
                assert_eq!(
                    device_allocation_failed(&format!("{lower} on gpu 0")),
                    None,
                    "{message}"
                );
                checked += 1;
            }
        }
        assert!(checked >= 4, "{checked}");
    }

    #[test]
    fn a_gpu_this_process_filled_itself_is_no_reading() {
        let own = "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 13.90 GiB already allocated; 120.00 MiB free; 14.60 GiB reserved in total by PyTorch)";
        assert_eq!(reading(own), None);
        let new = "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.8 GiB of which 1.2 GiB is free. Including non-PyTorch memory, this process has 138.50 GiB memory in use.";
        assert_eq!(reading(new), None);
        // Without what this process holds, nothing says where the memory went.
        assert_eq!(
            reading(
                "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.8 GiB of which 1.2 GiB is free."
            ),
            None
        );
    }
}
