//! Lines a run prints on its way that are never what failed: a progress
//! bar, pip's account of what it found and installed, a table's rules and
//! rows (`nvidia-smi`'s), Weights & Biases' status. A paste of an error's
//! words with such output around them is still a paste of those words.

/// Whether `line` (unwrapped, trimmed) is routine output, a notice of
/// deprecation ([`is_deprecation_notice`], asked on its own where the line
/// under it matters) aside.
pub fn is_routine(line: &str) -> bool {
    is_progress_bar(line) || is_pips_routine(line) || is_table_rule(line) || is_table_row(line) || is_wandb_status(line)
}

/// Python's notice of a change to come, as its warnings module prints it:
/// `/x/transformers/utils/generic.py:311: FutureWarning: ... is deprecated`.
/// It says what will break later, never what failed now. A UserWarning may
/// be the cause (torch's `CUDA initialization: The NVIDIA driver on your
/// system is too old`), and is read as any line. The source line Python
/// prints below the notice is passed over by the paste reader, which sees
/// the lines in order.
pub fn is_deprecation_notice(line: &str) -> bool {
    const NOTICES: [&str; 3] = [
        ": FutureWarning: ",
        ": DeprecationWarning: ",
        ": PendingDeprecationWarning: ",
    ];
    NOTICES.iter().any(|notice| {
        line.find(notice).is_some_and(|at| {
            let place = &line[..at];
            place.rsplit_once(':').is_some_and(|(file, number)| {
                !file.is_empty() && !number.is_empty() && number.bytes().all(|byte| byte.is_ascii_digit())
            })
        })
    })
}

/// `wandb: Synced 5 W&B file(s) ...`, `wandb: Find logs at: ...`, a blank
/// `wandb:`: what wandb says of its run, however the run ended. Its errors
/// and warnings (`wandb: ERROR api_key not configured`) are what they say.
fn is_wandb_status(line: &str) -> bool {
    line.strip_prefix("wandb:").is_some_and(|rest| {
        let rest = rest.trim_start().to_ascii_uppercase();
        !rest.starts_with("ERROR") && !rest.starts_with("WARNING")
    })
}

/// tqdm's `Loading checkpoint shards:  40%|####      | 4/10 [00:04<00:06,  1.2it/s]`,
/// and pip's and rich's `━━━━━━━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00`.
fn is_progress_bar(line: &str) -> bool {
    let tqdm = line.contains("%|")
        && line.ends_with(']')
        && line.rfind('[').is_some_and(|open| {
            let inside = &line[open..];
            inside.contains("it/s") || inside.contains("s/it") || inside.contains("B/s") || inside.contains('<')
        });
    let bar = line.starts_with('━') && line.contains(" eta ");
    tqdm || bar
}

/// pip's lines about what it found, fetched and installed, none of them an error.
fn is_pips_routine(line: &str) -> bool {
    const ROUTINE: [&str; 12] = [
        "Requirement already satisfied: ",
        "Collecting ",
        "Downloading ",
        "Using cached ",
        "Installing collected packages: ",
        "Successfully installed ",
        "Attempting uninstall: ",
        "Found existing installation: ",
        "Uninstalling ",
        "Successfully uninstalled ",
        "Looking in indexes: ",
        "WARNING: Running pip as the 'root' user",
    ];
    ROUTINE.iter().any(|start| line.starts_with(start))
}

/// A table's border or rule (`+-----+`, `|=====|`, `+=====+`), which holds
/// no words; its rows are [`is_table_row`]'s.
fn is_table_rule(line: &str) -> bool {
    line.len() >= 3
        && matches!(line.as_bytes()[0], b'+' | b'|')
        && line
            .bytes()
            .all(|byte| matches!(byte, b'+' | b'|' | b'-' | b'=' | b' '))
}

/// A table's row of words between bars (`| GPU  Name  Persistence-M |`),
/// unless it says something failed: nvidia-smi's `ERR!`, or an error a
/// paste framed in bars (`| RuntimeError: CUDA error: ... |`).
fn is_table_row(line: &str) -> bool {
    line.len() >= 3 && line.starts_with('|') && line.ends_with('|') && !line.contains("ERR!") && !says_it_failed(line)
}

/// Whether a line holds words any library uses to say a thing failed.
fn says_it_failed(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    super::FAILURE_WORDS.iter().any(|word| lower.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_of_a_change_to_come_is_routine_and_a_user_warning_is_not() {
        assert!(is_deprecation_notice(
            "/usr/lib/python3/site-packages/transformers/utils/generic.py:311: FutureWarning: `torch.utils._pytree._register_pytree_node` is deprecated."
        ));
        assert!(is_deprecation_notice(
            "C:\\venv\\lib\\site-packages\\x.py:12: DeprecationWarning: pkg_resources is deprecated as an API"
        ));
        for line in [
            "/usr/lib/python3/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old",
            "ValueError: FutureWarning: is no file and line",
            "x.py:12a: FutureWarning: no line number",
        ] {
            assert!(!is_routine(line) && !is_deprecation_notice(line), "{line}");
        }
    }

    #[test]
    fn progress_pip_and_rules_are_routine_and_errors_are_not() {
        for line in [
            "Loading checkpoint shards:  40%|####      | 4/10 [00:04<00:06,  1.2it/s]",
            "100%|██████████| 1.2G/1.2G [01:02<00:00, 19.5MB/s]",
            "━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00",
            "Requirement already satisfied: numpy in /usr/lib/python3/dist-packages (1.26.4)",
            "WARNING: Running pip as the 'root' user can result in broken permissions",
            "+-----------------------------------------------------------------------------+",
            "|=============================+======================+======================|",
            "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
            "wandb: Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.",
            "wandb:",
        ] {
            assert!(is_routine(line), "{line}");
        }
        for line in [
            "MMCV==1.7.1 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.1.0.",
            "ERROR: Could not find a version that satisfies the requirement torch==2.9.9",
            "| N/A   34C    P0    25W / 250W |  ERR!  |",
            "| RuntimeError: CUDA error: an illegal memory access was encountered |",
            "Collected 3 items",
            "+ python train.py",
            "50% done [ERROR]",
            "wandb: ERROR api_key not configured (no-tty). call wandb.login(key=[your_api_key])",
            "wandb: error Run initialization has timed out",
        ] {
            assert!(!is_routine(line), "{line}");
        }
    }
}
