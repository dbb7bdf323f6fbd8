//! A file that is not a pickle at all, in the unpickler's words. A pickle is
//! a program of one-byte opcodes, and CPython's unpickler stops at a byte that
//! is none of them (`invalid load key, '<'.`): the file was never a pickle
//! there (an HTML page saved in place of a checkpoint, a Git LFS pointer), and
//! no weights_only setting loads it. torch's weights_only unpickler says
//! `Unsupported operand 60` for a byte it does not handle, under torch 2.6's
//! sentence about the changed default, which it prints with every refusal; a
//! byte that is no opcode may be such a file's first, but the same unpickler
//! also stops on one inside a legacy checkpoint that loads with
//! weights_only=False (ComfyUI #9385, operand 118), so that reading is listed
//! beside the weights_only default, never named over it.

use super::{Reading, text};

pub const CAUSE: &str = "checkpoint-not-a-pickle";

/// A real pickle that weights_only refused, which CPython's unpickler
/// stopping at a byte that is no opcode rules out (with the version ranges of
/// it that the entry generalizes).
const WEIGHTS_ONLY_REFUSAL: &str = "torch-load-weights-only-default";

pub fn read(text: &str) -> Option<Reading> {
    let (byte, settled) = match invalid_load_key(text) {
        Some(byte) => (byte, true),
        None => (
            unsupported_operand(text).filter(|byte| !is_pickle_opcode(*byte))?,
            false,
        ),
    };
    let shown = match byte {
        0x20..=0x7e => format!("byte {byte} ('{}')", byte as char),
        _ => format!("byte {byte} (0x{byte:02x})"),
    };
    let (what, fix) = match byte {
        b'<' => (
            "'<' starts an HTML or XML page: a download link that needed a login, an accepted licence or the file's own URL saved a web page in place of the checkpoint",
            "download the file again from a link that serves it (log in or accept the model's licence first; on the Hugging Face Hub use /resolve/ in place of /blob/, or huggingface-cli download); head -c 200 THE_FILE shows the page that was saved",
        ),
        b'v' => (
            "'v' starts a Git LFS pointer ('version https://git-lfs.github.com/spec/v1'): the repository was cloned without git-lfs, and the file holds the pointer, not the weights",
            "fetch the real file in the clone: git lfs install && git lfs pull (head -c 200 THE_FILE shows the pointer)",
        ),
        b'{' => (
            "'{' starts a JSON file: a config or an index, not the weights",
            "load the weights file itself, not the JSON beside it (head -c 200 THE_FILE shows which file was read)",
        ),
        0 => (
            "a zero byte: the file was never fully written (a download or a save cut short)",
            "download or save the file again and compare its size or checksum with the source",
        ),
        _ => (
            "the file is of another format, or damaged",
            "look at what was read (head -c 200 THE_FILE; ls -l THE_FILE): download it again and compare its size or checksum with the source, or load it with the library that wrote it",
        ),
    };
    if settled {
        return Some(Reading {
            cause: CAUSE,
            said: format!(
                "the unpickler met {shown}, which is no pickle opcode: the file it read is not a pickle; {what}"
            ),
            node: Vec::new(),
            fix: fix.to_string(),
            stated: true,
            settles: true,
            rules_out: vec![WEIGHTS_ONLY_REFUSAL],
        });
    }
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "torch's weights_only unpickler stopped at {shown}, which is no pickle opcode: if it is the file's first byte, the file is not a pickle and {what}"
        ),
        node: vec![(
            None,
            "what the file starts with (head -c 200 THE_FILE): a pickle starts with byte 128 (0x80); a legacy checkpoint that does loads with weights_only=False, which only a trusted file may".to_string(),
        )],
        fix: fix.to_string(),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    })
}

/// torch's weights_only unpickler: `WeightsUnpickler error: Unsupported operand 60`.
fn unsupported_operand(text: &str) -> Option<u8> {
    let rest = text::after_marker(text, "Unsupported operand ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// CPython's unpickler: `invalid load key, '<'.` for a printable byte,
/// `invalid load key, '\x00'.` for any other.
fn invalid_load_key(text: &str) -> Option<u8> {
    let rest = text::after_marker(text, "invalid load key, '")?;
    match rest.strip_prefix("\\x") {
        Some(hex) => u8::from_str_radix(hex.get(..2)?, 16).ok(),
        None => rest.bytes().next().filter(|byte| (0x20..=0x7e).contains(byte)),
    }
}

/// Whether `byte` is an opcode of some pickle protocol (0 to 5), as
/// CPython's Lib/pickle.py lists them.
fn is_pickle_opcode(byte: u8) -> bool {
    const TEXT_OPCODES: &[u8] = b"().012BCFGIJKLMNPQRSTUVXabcdeghijlopqrstu}]";
    // PROTO (0x80) to READONLY_BUFFER (0x98): the binary opcodes of protocols 2 to 5.
    TEXT_OPCODES.contains(&byte) || (0x80..=0x98).contains(&byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_alone(log: &str) -> Option<Reading> {
        read(&crate::explain::readers::parsed(log).1)
    }

    const WEIGHTS_ONLY: &str = "Traceback (most recent call last):\n  File \"/v/lib/python3.11/site-packages/torch/serialization.py\", line 1470, in load\n    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None\n_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.\nPlease file an issue with the following so that we can make `weights_only=True` compatible with your use case: WeightsUnpickler error: ";

    #[test]
    fn a_byte_that_is_no_opcode_is_a_file_that_is_no_pickle() {
        let lfs = read_alone("_pickle.UnpicklingError: invalid load key, 'v'.\n").unwrap();
        assert!(lfs.fix.contains("git lfs pull") && lfs.settles, "{}", lfs.fix);
        assert!(lfs.rules_out.contains(&"torch-load-weights-only-default"));
        let zero = read_alone("_pickle.UnpicklingError: invalid load key, '\\x00'.\n").unwrap();
        assert!(zero.said.contains("byte 0 (0x00)"), "{}", zero.said);
    }

    #[test]
    fn weights_onlys_stop_at_a_byte_that_is_no_opcode_is_listed_beside_its_refusal() {
        // ComfyUI #9385: operand 118 from a legacy checkpoint that loads with weights_only=False.
        let html = read_alone(&format!("{WEIGHTS_ONLY}Unsupported operand 60\n")).unwrap();
        assert!(
            html.said.contains("byte 60 ('<')") && html.said.contains("HTML"),
            "{}",
            html.said
        );
        assert!(!html.settles && !html.stated && html.rules_out.is_empty());
    }

    #[test]
    fn an_opcode_weights_only_does_not_handle_is_its_refusal_not_a_broken_file() {
        // 'c' (99) is protocol 0's GLOBAL: a real pickle the weights_only unpickler refuses.
        assert!(read_alone(&format!("{WEIGHTS_ONLY}Unsupported operand 99\n")).is_none());
        assert!(
            read_alone(
                &format!("{WEIGHTS_ONLY}Unsupported global: GLOBAL numpy.core.multiarray._reconstruct was not an allowed global by default.\n")
            )
            .is_none()
        );
    }

    #[test]
    fn the_opcodes_are_pickles_own() {
        for opcode in [b'(', b'.', b'c', b'}', b']', b')', 0x80, 0x95, 0x98] {
            assert!(is_pickle_opcode(opcode), "{opcode}");
        }
        for byte in [b'<', b'v', b'{', 0, b'P' + 100, 0x99] {
            assert!(!is_pickle_opcode(byte), "{byte}");
        }
    }

    #[test]
    fn the_entries_it_rules_out_are_the_matrixs() {
        let matrix = crate::matrix::Matrix::load(&[]).unwrap();
        for id in [WEIGHTS_ONLY_REFUSAL, CAUSE] {
            assert!(matrix.rule(id).is_some() || matrix.symptom(id).is_some(), "{id}");
        }
    }
}
