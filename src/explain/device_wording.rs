//! torch's older words, in today's: for a CUDA runtime error (THC's `cuda
//! runtime error (2) : out of memory`, now `CUDA error: out of memory`), and
//! for two tensors on two devices. Before
//! 1.6, ATen's argument check said `Expected object of backend CUDA but got
//! backend CPU for argument #2 'mat2'` (later `device type cuda ... device
//! type cpu ... in call to _th_mm`): the expected device is the one the
//! operator dispatched on, its first tensor's, and the device it got is the
//! named argument's. Today's torch says the same facts as `but got mat2 is on
//! cpu, different from other tensors on cuda:0`, and the entries list those
//! words; reading the old sentence as the new one lets every entry that knows
//! which argument sat where judge a log of any age, where a list of both
//! wordings in each entry would have to be kept in step by hand.

use std::borrow::Cow;

const OPENING: &str = "Expected object of ";

/// `message` with torch's pre-1.6 device check reworded as today's; any other
/// message as it is. A scalar-type check (`Expected object of scalar type
/// Float but got scalar type Double`) is no device's and stays.
pub fn in_current_words(message: &str) -> Cow<'_, str> {
    match old_cuda_runtime_error(message) {
        Some(reworded) => Cow::Owned(old_device_check_reworded(&reworded).into_owned()),
        None => old_device_check_reworded(message),
    }
}

fn old_device_check_reworded(message: &str) -> Cow<'_, str> {
    match old_device_check(message) {
        Some(check) => Cow::Owned(format!(
            "{}Expected all tensors to be on the same device, but got {} is on {}, different from other tensors on {}{}",
            &message[..check.start],
            check.argument,
            check.got,
            check.expected,
            &message[check.end..]
        )),
        None => Cow::Borrowed(message),
    }
}

/// THC's `cuda runtime error (2) : out of memory at .../THCStorage.cu:58`
/// (torch before 1.0) as today's `CUDA error: out of memory at ...`: the words
/// after the code are the CUDA runtime's own (cudaGetErrorString), which
/// today's message quotes the same way.
fn old_cuda_runtime_error(message: &str) -> Option<String> {
    const OLD: &str = "cuda runtime error (";
    let start = message.find(OLD)?;
    let rest = &message[start + OLD.len()..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let words = rest[digits..].strip_prefix(") : ").filter(|_| digits > 0)?;
    Some(format!("{}CUDA error: {words}", &message[..start]))
}

struct OldDeviceCheck<'m> {
    start: usize,
    end: usize,
    expected: &'static str,
    got: &'static str,
    argument: &'m str,
}

fn old_device_check(message: &str) -> Option<OldDeviceCheck<'_>> {
    let start = message.find(OPENING)?;
    let rest = &message[start + OPENING.len()..];
    let (expected, rest) = device(rest)?;
    let rest = rest.strip_prefix(" but got ")?;
    let (got, rest) = device(rest)?;
    let rest = rest.strip_prefix(" for argument #")?;
    let rest = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .strip_prefix(" '")?;
    let (argument, _) = rest.split_once('\'')?;
    let is_a_name = !argument.is_empty() && argument.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_a_name || expected == got {
        return None;
    }
    let end = message.len() - rest.len() + argument.len() + 1;
    Some(OldDeviceCheck {
        start,
        end,
        expected,
        got,
        argument,
    })
}

/// `backend CUDA` or `device type cuda` at the start of `text`, as today's
/// device word, and what follows it. Other backends (`SparseCUDA`, XLA) are
/// not the CPU-or-GPU mix the entries know.
fn device(text: &str) -> Option<(&'static str, &str)> {
    let text = text
        .strip_prefix("backend ")
        .or_else(|| text.strip_prefix("device type "))?;
    let end = text.find(' ').unwrap_or(text.len());
    let device = match &text[..end] {
        "CUDA" | "cuda" => "cuda",
        "CPU" | "cpu" => "cpu",
        _ => return None,
    };
    Some((device, &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pytorchcycleganandpix2pix193: torch 0.3's THC words for an out-of-memory.
    #[test]
    fn thcs_cuda_runtime_error_reads_as_todays_cuda_error() {
        assert_eq!(
            in_current_words(
                "cuda runtime error (2) : out of memory at /opt/conda/conda-bld/pytorch_1513363039688/work/torch/lib/THC/generic/THCStorage.cu:58"
            ),
            "CUDA error: out of memory at /opt/conda/conda-bld/pytorch_1513363039688/work/torch/lib/THC/generic/THCStorage.cu:58"
        );
        for message in ["cuda runtime error () : x", "a cuda runtime error (2) happened"] {
            assert_eq!(in_current_words(message), message);
        }
    }

    #[test]
    fn torch_1_0s_backend_check_names_the_argument_on_the_device_it_got() {
        assert_eq!(
            in_current_words("Expected object of backend CUDA but got backend CPU for argument #2 'mat2'"),
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda"
        );
    }

    #[test]
    fn torch_1_4s_device_type_check_keeps_what_follows() {
        assert_eq!(
            in_current_words(
                "RuntimeError: Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _th_index_select"
            ),
            "RuntimeError: Expected all tensors to be on the same device, but got self is on cpu, different from other tensors on cuda in call to _th_index_select"
        );
    }

    #[test]
    fn a_scalar_type_check_or_another_backend_is_left_as_it_is() {
        for message in [
            "Expected object of scalar type Float but got scalar type Double for argument #2 'mat2'",
            "Expected object of backend SparseCUDA but got backend CUDA for argument #1 'self'",
            "Expected object of backend CPU but got backend CPU for argument #1 'self'",
            "Expected object of backend CUDA but got backend CPU for sequence element 1 in sequence argument at position #1 'tensors'",
        ] {
            assert_eq!(in_current_words(message), message);
        }
    }
}
