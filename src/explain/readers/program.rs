//! A program the code runs is not installed. `subprocess` starts a program
//! by name through the PATH; where no file of that name is found, starting the
//! child fails in `_execute_child` and the parent raises `FileNotFoundError:
//! [Errno 2] No such file or directory: 'ffmpeg'` (Python 2: `OSError: [Errno
//! 2] No such file or directory`, without the name), or on Windows
//! `[WinError 2] The system cannot find the file specified`. pip installs no
//! such program (ffmpeg, java, tesseract): a package of the same name is a
//! Python wrapper that runs it. A path in place of a bare name may be the
//! working directory asked for, not the program, so that reading is listed,
//! not named.

use super::Reading;
use crate::explain::traceback::Traceback;

pub const CAUSE: &str = "program-not-on-path";

/// Programs ML code runs that pip installs no copy of, so that their name
/// alone in the loader's words is the program, not a file of the job's:
/// media tools (audio and video decoding), OCR and speech synthesis,
/// version control, the compilers of builds from source, Graphviz and
/// LaTeX. A name that is also a wheel's program (ninja, cmake) is left out,
/// and so is nvcc, which a CUDA toolkit provides (cuda-home-missing).
const SYSTEM_PROGRAMS: [&str; 14] = [
    "ffmpeg",
    "ffprobe",
    "sox",
    "java",
    "tesseract",
    "espeak",
    "espeak-ng",
    "git",
    "git-lfs",
    "gcc",
    "g++",
    "dot",
    "pdflatex",
    "latex",
];

/// Tools of a Unix shell that a build's Makefile or a job's script runs and
/// no package index ships: on Windows they come with Git's, MSYS2's or
/// RTools' shell (cmdstan's makefiles run `cut`).
const SHELL_TOOLS: [&str; 12] = [
    "cut", "make", "wget", "curl", "unzip", "tar", "sed", "awk", "rm", "nproc", "which", "bash",
];

pub fn read(traceback: &Traceback, earlier: &[String]) -> Option<Reading> {
    if let Some(reading) = no_audio_decoder(traceback, earlier) {
        return Some(reading);
    }
    if let Some(reading) = shell_found_no_command(&traceback.raised()?.message) {
        return Some(reading);
    }
    let started = traceback
        .frames()
        .last()
        .is_some_and(|frame| frame.function == "_execute_child" && is_subprocess(&frame.file));
    // The message raised from `_execute_child`, not an earlier one of a
    // chain (a config file `open` could not find before it).
    let raised = traceback.raised()?;
    let missing = not_found(&raised.message)?;
    // A message printed without its frames (a library's `Error: [Errno 2]
    // No such file or directory: 'ffmpeg'` in its own log): the name of a
    // program no package index ships, not a file the job opened. Not where
    // it was logged as a warning (libraries that ask git for the commit go
    // on without it), nor a pasted text that may be any line of a log.
    let printed_alone = traceback.frames().next().is_none()
        && !matches!(raised.exception.as_str(), crate::explain::PASTED)
        && !crate::explain::signals::logged_as_warning(&raised.message)
        && !crate::explain::signals::logged_below_warning(&raised.message)
        && matches!(missing, Missing::Named(name) if SYSTEM_PROGRAMS.contains(&name));
    if !started && !printed_alone {
        return None;
    }
    // Python's own exception line pasted alone (`FileNotFoundError: [Errno
    // 2] ...: 'latex'`) may be the last line of any call that opened a file
    // of that name (os.listdir('latex')); a library's own words for it
    // (`Error: `) are about the program.
    let python_exception = raised.exception.ends_with("Error") && raised.exception != "Error";
    let settles_alone = started || !python_exception;
    let caller = traceback
        .frames()
        .filter(|frame| {
            crate::explain::frame_package(&frame.file) != Some(crate::explain::STDLIB) && !is_subprocess(&frame.file)
        })
        .last()
        .map(|frame| match crate::explain::frame_package(&frame.file) {
            Some(package) => format!("{package} (in {})", frame.function),
            None => format!("the job's code ({}, in {})", frame.file, frame.function),
        });
    let by = caller.map(|caller| format!(", run by {caller}")).unwrap_or_default();
    let (program, settles, check) = match missing {
        Missing::Named(path) if path.contains(['/', '\\']) => (
            path.to_string(),
            false,
            format!(
                "whether {path} is the program (then it is not at that path) or the working directory the call asked for"
            ),
        ),
        Missing::Named(name) => (
            name.to_string(),
            true,
            format!(
                "which {name} (where {name} on Windows) in the job's shell finds it; if it does, {name} is the working directory the call asked for (cwd=), which does not exist"
            ),
        ),
        Missing::Unnamed => (
            "the program".to_string(),
            true,
            "which program it runs (the call in its source: for example ffmpeg, java or tesseract)".to_string(),
        ),
    };
    let starter = if started { "subprocess" } else { "the code" };
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{starter} could not start {program}{by}: no such file was found where it looked (the PATH, for a bare name)"
        ),
        node: vec![(None, check)],
        fix: install_program(
            &program,
            "pip's package of that name, where there is one, only wraps it",
        ),
        stated: false,
        settles: settles && settles_alone,
        rules_out: Vec::new(),
    })
}

/// A shell's words for a command it found on no PATH folder: bash's
/// `bash: ffmpeg: command not found`, zsh's `zsh: command not found:
/// ffmpeg`, Windows cmd's `'cut' is not recognized as an internal or external
/// command,` and PowerShell's `The term 'ffmpeg' is not recognized as the
/// name of a cmdlet`. Named only for a program no package index ships: a
/// package's own command (`accelerate`, a project's entry point) missing is
/// its package not installed in the shell's environment, or a README that
/// names a command the release does not have, which the words do not tell
/// apart; nvcc is a CUDA toolkit's (cuda-home-missing).
fn shell_found_no_command(message: &str) -> Option<Reading> {
    let name = shell_missing_command(message)?;
    let lower = name.to_ascii_lowercase();
    let lower = lower.strip_suffix(".exe").unwrap_or(&lower);
    if !(SYSTEM_PROGRAMS.contains(&lower) || SHELL_TOOLS.contains(&lower)) {
        return None;
    }
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "the shell found no command {name} on its PATH: the program is not installed there, or its folder is not on the PATH"
        ),
        node: vec![(
            None,
            format!("which {name} (where {name} on Windows) in the job's shell"),
        )],
        fix: install_program(
            name,
            "on Windows a Unix tool comes with Git for Windows', MSYS2's or RTools' shell",
        ),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The fix for a program not on the PATH: the system's installers, not pip,
/// then a new shell; `aside` is what to know of this program's case.
fn install_program(program: &str, aside: &str) -> String {
    format!(
        "install {program} with the system's package manager or conda, not pip (apt install PACKAGE, brew install PACKAGE, conda install -c conda-forge PACKAGE; {aside}), open a new shell so that PATH finds it, and check with which (where on Windows)"
    )
}

/// The command a shell's not-found message names.
fn shell_missing_command(message: &str) -> Option<&str> {
    let line = message.lines().find(|line| {
        line.contains(": command not found")
            || line.contains("command not found: ")
            || line.contains(" is not recognized as ")
    })?;
    let line = line.trim();
    let name = if let Some(rest) = line.split_once("command not found: ").map(|(_, rest)| rest) {
        rest.split_whitespace().next()?
    } else if let Some((before, _)) = line.split_once(": command not found") {
        // `bash: x`, `./run.sh: line 3: x`, `x`
        before.rsplit(": ").next()?
    } else {
        let (before, after) = line.split_once(" is not recognized as ")?;
        if !(after.starts_with("an internal or external command") || after.starts_with("the name of a cmdlet")) {
            return None;
        }
        let quoted = before.rsplit_once('\'').map(|(head, _)| head)?;
        &quoted[quoted.rfind('\'')? + 1..]
    };
    let name = name.trim();
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
    plain.then_some(name)
}

/// audioread's `NoBackendError`, which librosa falls back to for what
/// soundfile cannot read: every decoder audioread tried failed. Beside its
/// own reader of WAV, AIFF and AU, its decoders are programs and system
/// libraries (ffmpeg, GStreamer, Core Audio, MAD) that pip does not install,
/// so for a compressed file on Linux or Windows it is ffmpeg that is missing.
/// Its docstring gives the other reading, a file every decoder found failed
/// on: a WAV file, or a Mac (Core Audio is always there), is that one's as
/// likely, and so is a file the log does not name.
fn no_audio_decoder(traceback: &Traceback, earlier: &[String]) -> Option<Reading> {
    let raised = traceback.raised()?;
    let by_audioread = raised.exception.starts_with("audioread.")
        || traceback
            .frames()
            .any(|frame| crate::explain::frame_package(&frame.file) == Some("audioread"));
    if raised.class() != "NoBackendError" || !by_audioread {
        return None;
    }
    let on_a_mac = matches!(
        crate::explain::rank::other_system_sign(traceback),
        Some((crate::matrix::rule::System::MacOs, _))
    );
    // soundfile's refusal is the first of a chain, or a line of its own above it.
    let compressed = traceback
        .messages()
        .map(|raised| raised.message.as_str())
        .chain(earlier.iter().map(String::as_str))
        .any(names_compressed_media);
    Some(Reading {
        cause: CAUSE,
        said: "audioread found no decoder that could open the file: beside its own reader of WAV, AIFF and AU, its decoders are programs and system libraries (ffmpeg, GStreamer, Core Audio, MAD) that pip does not install, and ffmpeg is the one it finds on Linux and Windows".to_string(),
        node: vec![(
            None,
            "which ffmpeg (where ffmpeg on Windows) in the job's shell: if it finds ffmpeg, the file is one no decoder reads (ffmpeg -i FILE says why)".to_string(),
        )],
        fix: "install ffmpeg with the system's package manager or conda, not pip (apt install ffmpeg, brew install ffmpeg, conda install -c conda-forge ffmpeg), open a new shell so that PATH finds it, and check with which ffmpeg (where ffmpeg on Windows)".to_string(),
        stated: false,
        settles: compressed && !on_a_mac,
        rules_out: Vec::new(),
    })
}

/// Whether a message names a file in a format libsndfile does not read
/// (soundfile's `Error opening 'clip.mp4': ...`): one only a decoder program
/// opens. MP3 is left out: libsndfile reads it from 1.1.
fn names_compressed_media(message: &str) -> bool {
    const COMPRESSED: [&str; 9] = [".mp4", ".m4a", ".aac", ".webm", ".mkv", ".avi", ".mov", ".wma", ".3gp"];
    let lower = message.to_ascii_lowercase();
    COMPRESSED.iter().any(|extension| {
        lower
            .match_indices(extension)
            .any(|(at, _)| !lower[at + extension.len()..].starts_with(|c: char| c.is_alphanumeric()))
    })
}

enum Missing<'t> {
    Named(&'t str),
    Unnamed,
}

/// The missing file in the operating system's words, with its name where
/// the message gives one.
fn not_found(text: &str) -> Option<Missing<'_>> {
    const POSIX: &str = "[Errno 2] No such file or directory";
    const WINDOWS: &str = "[WinError 2] ";
    if let Some(at) = text.find(POSIX) {
        let rest = &text[at + POSIX.len()..];
        return Some(match rest.strip_prefix(": '").and_then(|rest| rest.split_once('\'')) {
            Some((name, _)) if !name.is_empty() => Missing::Named(name),
            _ => Missing::Unnamed,
        });
    }
    text.contains(WINDOWS).then_some(Missing::Unnamed)
}

/// The standard library's subprocess module, which an Anaconda install on
/// Windows keeps under a `lib` that names no Python (`C:\Users\u\anaconda3\lib`).
fn is_subprocess(file: &str) -> bool {
    super::text::file_name(file) == "subprocess.py" && !crate::explain::is_installed_code(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        read(&super::super::parsed(log).0, &[])
    }

    /// cmdstanpy282 (Windows cmd, cmdstan's makefile running `cut`), and the
    /// other shells' words; a package's own command is not named.
    #[test]
    fn a_command_the_shell_found_on_no_path_folder_is_named_when_no_package_ships_it() {
        let cmd = "'cut' is not recognized as an internal or external command,\n";
        let found = reading(cmd).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.settles, "{found:?}");
        assert!(found.said.contains("no command cut"), "{}", found.said);
        for line in [
            "bash: ffmpeg: command not found",
            "./scripts/prep.sh: line 3: wget: command not found",
            "zsh: command not found: ffmpeg",
            "ffprobe : The term 'ffprobe' is not recognized as the name of a cmdlet, function, script file, or operable program.",
            "'ffmpeg.exe' is not recognized as an internal or external command,",
        ] {
            assert!(shell_missing_command(line).is_some(), "{line}");
            assert!(reading(&format!("{line}\n")).is_some(), "{line}");
        }
        // A package's command, a project's entry point, nvcc: not named here.
        for line in [
            "'transparent-background' is not recognized as an internal or external command,",
            "bash: py-irt: command not found",
            "bash: accelerate: command not found",
            "sh: nvcc: command not found",
        ] {
            assert!(reading(&format!("{line}\n")).is_none(), "{line}");
        }
        assert_eq!(shell_missing_command("bash: ./run.sh: command not found"), None);
    }

    const STARTED: &str = "Traceback (most recent call last):\n  File \"/home/u/job/run.py\", line 9, in <module>\n    transcribe(\"a.wav\")\n  File \"/home/u/venv/lib/python3.10/site-packages/whisper/audio.py\", line 58, in load_audio\n    out = run(cmd, capture_output=True, check=True).stdout\n  File \"/usr/lib/python3.10/subprocess.py\", line 503, in run\n    with Popen(*popenargs, **kwargs) as process:\n  File \"/usr/lib/python3.10/subprocess.py\", line 1847, in _execute_child\n    raise child_exception_type(errno_num, err_msg, err_filename)\n";

    #[test]
    fn a_program_subprocess_could_not_find_is_named_with_who_ran_it() {
        let found = reading(&format!(
            "{STARTED}FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'\n"
        ))
        .unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.settles);
        assert!(
            found
                .said
                .starts_with("subprocess could not start ffmpeg, run by whisper (in load_audio)"),
            "{}",
            found.said
        );
        assert!(found.node[0].1.contains("which ffmpeg"), "{:?}", found.node);
    }

    /// musicseparatorgui3: audio-separator's own log line, with no frames;
    /// a file's name printed so is a file the job opened, and so is a
    /// program's name that a traceback shows was not run by subprocess.
    #[test]
    fn a_programs_name_printed_without_frames_is_the_program_not_found() {
        let found = reading("Error: [Errno 2] No such file or directory: 'ffmpeg'\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.starts_with("the code could not start ffmpeg"),
            "{}",
            found.said
        );
        // The same words logged as a warning, in a paste, or as Python's
        // own exception line pasted alone (the last line of os.listdir('latex')).
        let pasted_alone = reading("FileNotFoundError: [Errno 2] No such file or directory: 'latex'\n").unwrap();
        assert!(!pasted_alone.settles);
        for log in [
            "WARNING:root:could not read the commit: [Errno 2] No such file or directory: 'git'\nTraining finished.\n".to_string(),
            "Error: [Errno 2] No such file or directory: 'dataset2'\n".to_string(),
            "Traceback (most recent call last):\n  File \"/home/u/run.py\", line 3, in <module>\n    open('git')\nFileNotFoundError: [Errno 2] No such file or directory: 'git'\n".to_string(),
        ] {
            assert!(reading(&log).is_none(), "{log}");
        }
    }

    /// lipreadingusingtemporalconvolutionalnetworks20: librosa's fallback to
    /// audioread after soundfile could not read an mp4, on Windows without
    /// ffmpeg on the PATH. A WAV file, a Mac, or no file named leaves the
    /// damaged file open; another library's class of that name is not read.
    #[test]
    fn audioreads_missing_decoder_is_a_program_not_found() {
        let log = |file: &str, site: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"{site}/soundfile.py\", line 740, in __init__\n    self._file = self._open(file, mode_int, closefd)\nRuntimeError: Error opening '{file}': File contains data in an unknown format.\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"{site}/librosa/core/audio.py\", line 190, in __audioread_load\n    with audioread.audio_open(path) as input_file:\n  File \"{site}/audioread/__init__.py\", line 116, in audio_open\n    raise NoBackendError()\naudioread.exceptions.NoBackendError\n"
            )
        };
        let windows = "C:\\Users\\u\\Anaconda3\\lib\\site-packages";
        let found = reading(&log("D:\\lrw\\ABOUT_00001.mp4", windows)).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.settles && found.fix.contains("install ffmpeg"), "{found:?}");
        assert!(
            !reading(&log("D:\\speech\\0a7c2a8d_nohash_0.wav", windows))
                .unwrap()
                .settles
        );
        let mac = "/Users/u/miniconda3/lib/python3.9/site-packages";
        assert!(!reading(&log("/Users/u/clip.mp4", mac)).unwrap().settles);
        let bare = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/audioread/__init__.py\", line 116, in audio_open\n    raise NoBackendError()\naudioread.exceptions.NoBackendError\n";
        assert!(!reading(bare).unwrap().settles);
        // soundfile's refusal printed above the traceback, not chained to it.
        let above = [
            "RuntimeError: Error opening 'D:\\lrw\\ABOUT_00001.mp4': File contains data in an unknown format."
                .to_string(),
        ];
        assert!(read(&super::super::parsed(bare).0, &above).unwrap().settles);
        let usb = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/usb/core.py\", line 1309, in find\n    raise NoBackendError('No backend available')\nusb.core.NoBackendError: No backend available\n";
        assert!(reading(usb).is_none());
    }

    /// pycocoevalcap16 (Windows, java), pytesseract13 (Python 2, tesseract):
    /// no name in the message, but the program was not found all the same.
    #[test]
    fn windows_and_python_2_words_without_the_name_are_read() {
        let windows = STARTED.replace(
            "/usr/lib/python3.10/subprocess.py",
            "C:\\Users\\u\\anaconda3\\lib\\subprocess.py",
        );
        assert!(windows.contains("anaconda3\\lib\\subprocess.py"));
        let found = reading(&format!(
            "{windows}FileNotFoundError: [WinError 2] The system cannot find the file specified\n"
        ))
        .unwrap();
        assert!(
            found.settles && found.said.starts_with("subprocess could not start the program"),
            "{}",
            found.said
        );
        assert!(
            reading(&format!("{STARTED}OSError: [Errno 2] No such file or directory\n"))
                .unwrap()
                .settles
        );
    }

    #[test]
    fn a_path_is_listed_and_a_file_not_opened_by_subprocess_is_not_read() {
        let path = reading(&format!(
            "{STARTED}FileNotFoundError: [Errno 2] No such file or directory: '/data/work'\n"
        ))
        .unwrap();
        assert!(!path.settles);
        // open() of a missing data file: no program was started.
        let opened = "Traceback (most recent call last):\n  File \"/home/u/job/run.py\", line 3, in <module>\n    open('ffmpeg')\nFileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'\n";
        assert!(reading(opened).is_none());
        // A chain whose earlier message named a missing file: the last is the one subprocess raised.
        let chained = format!(
            "Traceback (most recent call last):\n  File \"/home/u/job/run.py\", line 3, in <module>\n    open('config.yaml')\nFileNotFoundError: [Errno 2] No such file or directory: 'config.yaml'\n\nDuring handling of the above exception, another exception occurred:\n\n{STARTED}PermissionError: [Errno 13] Permission denied: './tools/convert'\n"
        );
        assert!(reading(&chained).is_none(), "{:?}", reading(&chained));
        // A program that ran and failed is no missing program.
        assert!(
            reading(&format!(
                "{STARTED}PermissionError: [Errno 13] Permission denied: 'ffmpeg'\n"
            ))
            .is_none()
        );
    }
}
