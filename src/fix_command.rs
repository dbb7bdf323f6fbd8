//! The commands envdoctor prints to fix a node, read the way a POSIX shell
//! reads them. Two jobs, one reading:
//!
//! - `address` makes every pip a fix runs the judged interpreter's own
//!   (`'/opt/venv/bin/python' -m pip install ...`): a bare `pip` or
//!   `python -m pip` on a real machine is often another Python's (pyenv's
//!   global one), and installs where the job never looks.
//! - `one_command` says whether a fix is a command and nothing else: no
//!   comment, no prose in parentheses, no quote left open. An explanation
//!   belongs in the finding's `fix_note`, where a paste cannot run it.

use std::ops::Range;
use std::path::Path;

/// Why a fix is not one command a person can paste.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOneCommand {
    #[error("a {0} quote is never closed")]
    OpenQuote(&'static str),
    #[error("`#` at byte {0} starts a comment: put the explanation in `fix_note`")]
    Comment(usize),
    #[error("`{1}` at byte {0} is not part of a command (prose in parentheses?): put it in `fix_note`")]
    Parenthesis(usize, char),
    #[error("it ends in a `\\`")]
    TrailingBackslash,
    #[error("it spans several lines")]
    Newline,
}

/// A word of the command, as its bytes in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    span: Range<usize>,
    /// The word as the shell passes it on, quotes removed; `None` where it
    /// expands something (`$VAR`, `$(...)`), so its value is not known here.
    literal: Option<String>,
}

/// One simple command: its words, up to an operator (`&&`, `||`, `;`, `|`, `&`).
type Segment = Vec<Word>;

/// The simple commands of `text`, or why it is not one command line.
fn segments(text: &str) -> Result<Vec<Segment>, NotOneCommand> {
    let bytes = text.as_bytes();
    let mut segments = vec![Vec::new()];
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'\n' | b'\r' => return Err(NotOneCommand::Newline),
            b' ' | b'\t' => index += 1,
            b'#' => return Err(NotOneCommand::Comment(index)),
            byte @ (b'(' | b')') => return Err(NotOneCommand::Parenthesis(index, char::from(byte))),
            b'&' | b'|' | b';' => {
                let doubled = bytes.get(index + 1) == Some(&bytes[index]) && bytes[index] != b';';
                index += if doubled { 2 } else { 1 };
                segments.push(Vec::new());
            }
            _ => {
                let (end, literal) = word(text, index)?;
                segments.last_mut().expect("one segment at least").push(Word {
                    span: index..end,
                    literal,
                });
                index = end;
            }
        }
    }
    segments.retain(|segment| !segment.is_empty());
    Ok(segments)
}

/// The word starting at `start`: where it ends, and its literal value.
fn word(text: &str, start: usize) -> Result<(usize, Option<String>), NotOneCommand> {
    let bytes = text.as_bytes();
    let mut value = String::new();
    let mut literal = true;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b' ' | b'\t' | b'\n' | b'\r' | b'&' | b'|' | b';' => break,
            byte @ (b'(' | b')') => return Err(NotOneCommand::Parenthesis(index, char::from(byte))),
            b'\'' => {
                let close = text[index + 1..].find('\'').ok_or(NotOneCommand::OpenQuote("single"))?;
                value.push_str(&text[index + 1..index + 1 + close]);
                index += close + 2;
            }
            b'"' => {
                let (end, expands) = double_quoted(text, index + 1)?;
                literal &= !expands;
                value.push_str(&text[index + 1..end]);
                index = end + 1;
            }
            b'\\' => {
                let next = text[index + 1..]
                    .chars()
                    .next()
                    .ok_or(NotOneCommand::TrailingBackslash)?;
                value.push(next);
                index += 1 + next.len_utf8();
            }
            b'$' if bytes.get(index + 1) == Some(&b'(') => {
                index = substitution_end(text, index + 2)?;
                literal = false;
            }
            b'$' | b'`' => {
                literal = false;
                value.push(char::from(bytes[index]));
                index += 1;
            }
            _ => {
                let next = text[index..].chars().next().expect("inside the text");
                value.push(next);
                index += next.len_utf8();
            }
        }
    }
    Ok((index, literal.then_some(value)))
}

/// The index of the `"` that closes a double-quoted string opened before
/// `start`, and whether it expands anything.
fn double_quoted(text: &str, start: usize) -> Result<(usize, bool), NotOneCommand> {
    let bytes = text.as_bytes();
    let mut expands = false;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => return Ok((index, expands)),
            b'\\' => index += 2,
            b'$' if bytes.get(index + 1) == Some(&b'(') => {
                index = substitution_end(text, index + 2)?;
                expands = true;
            }
            b'$' | b'`' => {
                expands = true;
                index += 1;
            }
            _ => index += 1,
        }
    }
    Err(NotOneCommand::OpenQuote("double"))
}

/// The index just past the `)` that closes a `$(` whose body starts at
/// `start`: quotes and nested substitutions inside are skipped whole.
fn substitution_end(text: &str, start: usize) -> Result<usize, NotOneCommand> {
    let bytes = text.as_bytes();
    let mut depth = 1;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'\'' => {
                let close = text[index + 1..].find('\'').ok_or(NotOneCommand::OpenQuote("single"))?;
                index += close + 2;
                continue;
            }
            b'"' => {
                index = double_quoted(text, index + 1)?.0 + 1;
                continue;
            }
            b'\\' => index += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(index + 1);
                }
            }
            _ => {}
        }
        index += 1;
    }
    Err(NotOneCommand::Parenthesis(start - 1, '('))
}

/// Whether `fix` is one command line a shell runs as written: `Ok` for a
/// command, and for prose (a fix that does not start with a program, see
/// `findings::fix_is_command`), which is an action in words.
pub fn one_command(fix: &str) -> Result<(), NotOneCommand> {
    if !crate::findings::fix_is_command(fix) {
        return Ok(());
    }
    segments(fix).map(|_| ())
}

/// `fix` with every pip it runs made `python`'s own: `pip`, `pip3`,
/// `python -m pip` and `python3 -m pip` at the start of a simple command
/// become `'PYTHON' -m pip`, and `uv pip SUBCOMMAND` gains `--python
/// 'PYTHON'`. Anything else, prose included, is left as it is.
pub fn address(fix: &str, python: &Path) -> String {
    let Ok(segments) = segments(fix) else {
        return fix.to_string();
    };
    let interpreter = crate::shell::quote(&python.display().to_string());
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for segment in &segments {
        let words: Vec<Option<&str>> = segment.iter().map(|word| word.literal.as_deref()).collect();
        // Variable assignments before the program (`DS_BUILD_OPS=1 pip ...`).
        let first = words
            .iter()
            .position(|word| !word.is_some_and(is_assignment))
            .unwrap_or(words.len());
        let rest = &words[first..];
        let replaced = match rest {
            [Some("pip" | "pip3"), ..] => Some(1),
            [Some("python" | "python3"), Some("-m"), Some("pip"), ..] => Some(3),
            _ => None,
        };
        if let Some(count) = replaced {
            let span = segment[first].span.start..segment[first + count - 1].span.end;
            edits.push((span, format!("{interpreter} -m pip")));
        } else if let [Some("uv"), Some("pip"), Some(_), ..] = rest
            && !rest.contains(&Some("--python"))
        {
            let after = segment[first + 2].span.end;
            edits.push((after..after, format!(" --python {interpreter}")));
        }
    }
    let mut addressed = fix.to_string();
    for (span, replacement) in edits.into_iter().rev() {
        addressed.replace_range(span, &replacement);
    }
    addressed
}

/// One `pip install` a fix runs, read from its words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PipInstall {
    /// The words that are not options: requirements, as pip reads them.
    pub requirements: Vec<String>,
    /// `--index-url URL` (`-i URL`): the one index pip looks in.
    pub index_url: Option<String>,
    /// Every `--extra-index-url URL`.
    pub extra_index_urls: Vec<String>,
    /// `-U` / `--upgrade` was given.
    pub upgrade: bool,
    /// What a `pip uninstall -y` right before it removes (the torch fix
    /// does so when only the build changes: pip keeps an installed version
    /// that satisfies a pin, whatever its CUDA).
    pub uninstall_first: Vec<String>,
}

/// The pip installs `fix` is made of, when it is nothing else: every simple
/// command is a pip (bare, `python -m pip`, or the judged interpreter's after
/// `address`) that installs requirements with no option but an index and
/// `-U`, or uninstalls with `-y` right before an install. `None` for
/// anything else: prose, another program, an environment variable set for
/// pip, an option that changes what pip does (`--no-deps`), a word the
/// shell expands.
pub fn pip_installs(fix: &str) -> Option<Vec<PipInstall>> {
    if !crate::findings::fix_is_command(fix) {
        return None;
    }
    let segments = segments(fix).ok()?;
    let mut installs = Vec::new();
    let mut uninstalled: Vec<String> = Vec::new();
    for segment in &segments {
        let words: Vec<&str> = segment
            .iter()
            .map(|word| word.literal.as_deref())
            .collect::<Option<_>>()?;
        let arguments = match words.as_slice() {
            ["pip" | "pip3", rest @ ..] => rest,
            [_, "-m", "pip", rest @ ..] => rest,
            _ => return None,
        };
        match arguments {
            ["install", rest @ ..] => {
                let mut install = PipInstall {
                    uninstall_first: std::mem::take(&mut uninstalled),
                    ..PipInstall::default()
                };
                let mut rest = rest.iter();
                while let Some(&word) = rest.next() {
                    match word {
                        "-U" | "--upgrade" => install.upgrade = true,
                        "-i" | "--index-url" => install.index_url = Some(rest.next()?.to_string()),
                        "--extra-index-url" => install.extra_index_urls.push(rest.next()?.to_string()),
                        _ if word.starts_with("--index-url=") => {
                            install.index_url = Some(word["--index-url=".len()..].to_string());
                        }
                        _ if word.starts_with("--extra-index-url=") => {
                            install
                                .extra_index_urls
                                .push(word["--extra-index-url=".len()..].to_string());
                        }
                        _ if word.starts_with('-') => return None,
                        _ => install.requirements.push(word.to_string()),
                    }
                }
                if install.requirements.is_empty() {
                    return None;
                }
                installs.push(install);
            }
            ["uninstall", rest @ ..] => {
                let (yes, names): (Vec<&str>, Vec<&str>) =
                    rest.iter().partition(|word| matches!(**word, "-y" | "--yes"));
                if yes.is_empty() || names.is_empty() || names.iter().any(|name| name.starts_with('-')) {
                    return None;
                }
                uninstalled.extend(names.iter().map(|name| name.to_string()));
            }
            _ => return None,
        }
    }
    (uninstalled.is_empty() && !installs.is_empty()).then_some(installs)
}

/// `address` on a fix in place, where there is one: what every report that
/// prints fixes for a node runs them through.
pub fn address_in_place(fix: &mut Option<String>, python: &Path) {
    if let Some(command) = fix.as_deref() {
        *fix = Some(address(command, python));
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const VENV: &str = "/opt/venvs/train/bin/python";

    fn addressed(fix: &str) -> String {
        address(fix, Path::new(VENV))
    }

    #[test]
    fn every_pip_a_fix_runs_is_the_judged_interpreters() {
        let cases = [
            (
                "pip install -U peft",
                "'/opt/venvs/train/bin/python' -m pip install -U peft",
            ),
            (
                "pip3 install 'a>=1'",
                "'/opt/venvs/train/bin/python' -m pip install 'a>=1'",
            ),
            (
                "python -m pip uninstall -y 'delta'",
                "'/opt/venvs/train/bin/python' -m pip uninstall -y 'delta'",
            ),
            (
                "DS_BUILD_CPU_ADAM=1 pip install --no-build-isolation deepspeed",
                "DS_BUILD_CPU_ADAM=1 '/opt/venvs/train/bin/python' -m pip install --no-build-isolation deepspeed",
            ),
            (
                "rm -r /x && pip install --force-reinstall --no-deps 'y'",
                "rm -r /x && '/opt/venvs/train/bin/python' -m pip install --force-reinstall --no-deps 'y'",
            ),
            (
                "uv pip install 'torch==2.6.0'",
                "uv pip install --python '/opt/venvs/train/bin/python' 'torch==2.6.0'",
            ),
            // Already the judged interpreter's, or not pip at all: unchanged.
            (
                "'/opt/venvs/train/bin/python' -m pip install x",
                "'/opt/venvs/train/bin/python' -m pip install x",
            ),
            ("uv pip install --python /p x", "uv pip install --python /p x"),
            (
                "export CUDA_HOME=/usr/local/cuda-12.6",
                "export CUDA_HOME=/usr/local/cuda-12.6",
            ),
            ("python train.py", "python train.py"),
            // Prose is an action in words, not a command to rewrite.
            (
                "Install torch 2.3 or newer, then pip install it",
                "Install torch 2.3 or newer, then pip install it",
            ),
        ];
        for (fix, expected) in cases {
            assert_eq!(addressed(fix), expected, "{fix}");
        }
        // A path that needs quoting is one word.
        assert_eq!(
            address("pip install x", Path::new("/home/o'neil/v env/bin/python")),
            r"'/home/o'\''neil/v env/bin/python' -m pip install x"
        );
    }

    /// The shell is the judge: what `address` writes runs the interpreter it
    /// names, with the arguments meant, however odd its path.
    #[test]
    fn the_shell_runs_the_interpreter_the_fix_names() {
        use std::os::unix::fs::PermissionsExt;
        let directory = tempfile::tempdir().unwrap();
        let folder = directory.path().join("envdoctor test/it's");
        std::fs::create_dir_all(&folder).unwrap();
        let python = folder.join("python");
        std::fs::write(&python, "#!/bin/sh\nprintf '[%s]' \"$@\"; echo\n").unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        let fix = address("A=1 pip install 'x>=1' && python3 -m pip check", &python);
        let output = std::process::Command::new("sh").arg("-c").arg(&fix).output().unwrap();
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            "[-m][pip][install][x>=1]\n[-m][pip][check]\n",
            "{fix}"
        );
    }

    #[test]
    fn a_fix_is_one_command_or_words_never_both() {
        for command in [
            "pip install \"deepspeed>=0.14.4\"",
            "sudo apt-get install -y g++-12 && export CXX=g++-12 NVCC_PREPEND_FLAGS=\"-ccbin g++-12\"",
            r#"export LD_LIBRARY_PATH="$(printf '%s' "$LD_LIBRARY_PATH" | tr ':' '\n' | grep -v '/compat' | paste -sd: -)""#,
            "ldd --version | head -n 1",
            "load the model with attn_implementation=\"sdpa\" (or \"flash_attention_2\")",
        ] {
            assert_eq!(one_command(command), Ok(()), "{command}");
        }
        let refused = [
            (
                "pip install \"deepspeed>=0.14.4\" (with pydantic 1 pinned: \"deepspeed>=0.14.4,<0.15\")",
                NotOneCommand::Parenthesis(32, '('),
            ),
            (
                "pip install \"h5py>=3.11\"   # needs numpy 2",
                NotOneCommand::Comment(27),
            ),
            (
                "nvidia-smi topo -p2p r; then run NCCL's all_reduce_perf",
                NotOneCommand::OpenQuote("single"),
            ),
            ("pip install x\npip check", NotOneCommand::Newline),
        ];
        for (fix, problem) in refused {
            assert_eq!(one_command(fix), Err(problem), "{fix}");
        }
    }

    #[test]
    fn the_pip_installs_a_fix_is_made_of() {
        let torch = "'/opt/v/bin/python' -m pip uninstall -y torch torchvision && '/opt/v/bin/python' -m pip install \"torch==2.9.1\" \"torchvision==0.24.1\" --index-url https://download.pytorch.org/whl/cu126";
        assert_eq!(
            pip_installs(torch),
            Some(vec![PipInstall {
                requirements: vec!["torch==2.9.1".to_string(), "torchvision==0.24.1".to_string()],
                index_url: Some("https://download.pytorch.org/whl/cu126".to_string()),
                extra_index_urls: Vec::new(),
                upgrade: false,
                uninstall_first: vec!["torch".to_string(), "torchvision".to_string()],
            }])
        );
        let plain = pip_installs("pip install -U 'numpy<2' \"h5py>=3.11\"").unwrap();
        assert_eq!(plain[0].requirements, ["numpy<2", "h5py>=3.11"]);
        assert!(plain[0].upgrade);
        for not_only_pip in [
            "DS_BUILD_CPU_ADAM=1 pip install deepspeed",
            "pip install --no-deps 'y'",
            "rm -r /x && pip install 'y'",
            "pip install \"$PKG\"",
            "pip uninstall -y torch",
            "pip uninstall torch && pip install torch",
            "pip check",
            "pip install",
            "Install torch 2.3 or newer, then pip install it",
            "sudo apt-get install -y g++-12",
        ] {
            assert_eq!(pip_installs(not_only_pip), None, "{not_only_pip}");
        }
    }
}
