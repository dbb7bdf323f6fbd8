//! A shared library the loader could not find, traced to who should provide
//! it: one of NVIDIA's pip wheels (`libcublas.so.11` is `nvidia-cublas-cu11`),
//! torch itself, the driver, or the system; what the node has of it; and the
//! fix. A CUDA runtime library of another CUDA major than torch's, wanted by a
//! compiled extension, is the extension built for another CUDA, not a missing library.

use super::{Context, Reading, text};
use crate::explain::traceback::Traceback;
use crate::facts::{Facts, dotted};
use crate::matrix::rule::Framework;

pub const MISSING: &str = "shared-library-missing";
pub const OTHER_BUILD: &str = "extension-built-for-other-torch";

/// What the loader and the libraries that load others say when a file is missing.
const LOADER_WORDS: [&str; 13] = [
    "cannot open shared object file",
    // Taichi's loader, after the library's file: `libcuda.so lib not found.`
    " lib not found",
    // Libraries that dlopen on their own (cuda-python's `Failed to dlopen libcuda.so`).
    "failed to dlopen",
    // NVRTC's own words for its builtins library: `failed to open libnvrtc-builtins.so.11.5`.
    "failed to open",
    "could not load library",
    // A framework's own loader, naming the library without its file: `Cannot load cudnn shared library`.
    "cannot load",
    "unable to load any of",
    "could not load dynamic library",
    "is not found",
    "library not found",
    // cffi's, for a library it looked up by name: `ctypes.util.find_library()
    // did not manage to locate a library called 'sndfile'`.
    "did not manage to locate a library called",
    // Python's ctypes on Windows: `Could not find module 'nvrtc64_112_0.dll' (or one of its dependencies)`.
    "could not find module",
    // cairocffi's, after trying each name it knows for one library by name
    // (cairocffi/__init__.py's dlopen): `dlopen() failed to load a library:
    // cairo / cairo-2`, the names without `lib` or a suffix.
    "failed to load a library:",
];

/// Windows' words for a DLL that did not load, which name no file the
/// readers can trace (`DLL load failed while importing _C`, torch's `Error
/// loading "...\\c10.dll" or one of its dependencies`).
const WINDOWS_LOADER_WORDS: [&str; 2] = ["dll load failed", "or one of its dependencies"];

/// Whether the text is a loader's failure to load a library, traced or not:
/// a failure that a cause elsewhere (a runtime missing, a PATH) may lead to.
/// The loader's words must name a library (`is not found` alone is any
/// application's words: `dataset 'x' is not found`), or be Windows' own.
pub fn is_loader_failure(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    WINDOWS_LOADER_WORDS.iter().any(|words| lower.contains(words)) || missing_library(text).is_some()
}

/// Who provides a library, by the name between `lib` and `.so`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    /// One of NVIDIA's wheels, `nvidia-{0}-cuNN`; whether the soname's major is CUDA's.
    Wheel(&'static str, bool),
    /// torch's own libraries (`libc10.so`, `libtorch_cpu.so`).
    Torch,
    /// The NVIDIA driver's user-space libraries.
    Driver,
    /// A CUDA toolkit's part no wheel of torch's brings (libnvvm).
    Toolkit,
    /// A system package, by its Debian name.
    System(&'static str),
}

/// The libraries envdoctor knows the provider of; the name is matched as a prefix.
const PROVIDERS: [(&str, Provider, &str); 18] = [
    ("cudart", Provider::Wheel("cuda-runtime", true), "cudart"),
    ("cublasLt", Provider::Wheel("cublas", true), "cublaslt"),
    ("cublas", Provider::Wheel("cublas", true), "cublas"),
    ("nvrtc", Provider::Wheel("cuda-nvrtc", true), ""),
    ("cudnn", Provider::Wheel("cudnn", false), "cudnn"),
    ("cufft", Provider::Wheel("cufft", false), "cufft"),
    ("curand", Provider::Wheel("curand", false), ""),
    ("cusparse", Provider::Wheel("cusparse", true), "cusparse"),
    ("cusolver", Provider::Wheel("cusolver", false), ""),
    ("nccl", Provider::Wheel("nccl", false), "nccl"),
    ("nvJitLink", Provider::Wheel("nvjitlink", true), "nvjitlink"),
    ("nvToolsExt", Provider::Wheel("nvtx", false), ""),
    ("cupti", Provider::Wheel("cuda-cupti", false), ""),
    ("c10", Provider::Torch, ""),
    ("torch", Provider::Torch, ""),
    ("nvvm", Provider::Toolkit, ""),
    ("GL", Provider::System("libgl1"), ""),
    // libsndfile, which soundfile (and librosa, torchaudio's soundfile backend) finds by name.
    ("sndfile", Provider::System("libsndfile1"), ""),
];

/// The driver's libraries: matched exactly, `libcuda` is a prefix of
/// `libcudart`; `nvcuda.dll` and `nvml.dll` are their Windows names.
const DRIVER: [&str; 4] = ["cuda", "nvidia-ml", "nvcuda", "nvml"];

/// A library file name: `libcublas.so.11` gives (`cublas`, `11`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Soname<'t> {
    file: &'t str,
    stem: &'t str,
    /// The version after `.so.`, if any (`11.0`).
    version: Option<&'t str>,
}

impl Soname<'_> {
    /// A Windows library (`cublas64_12.dll`), found through PATH, not the loader path.
    fn is_dll(&self) -> bool {
        self.file.to_ascii_lowercase().ends_with(".dll")
    }
}

fn soname(token: &str) -> Option<Soname<'_>> {
    let file = text::file_name(token);
    if let Some(base) = file
        .len()
        .checked_sub(4)
        .filter(|&at| file.is_char_boundary(at) && file[at..].eq_ignore_ascii_case(".dll"))
        .map(|at| &file[..at])
    {
        return windows_library(file, base);
    }
    // macOS's: `libomp.dylib`, `libcudart.10.1.dylib`, the version before the suffix.
    if let Some(base) = file.strip_suffix(".dylib") {
        let rest = base.strip_prefix("lib")?;
        let (stem, version) = match rest.split_once('.') {
            Some((stem, version)) if version.starts_with(|c: char| c.is_ascii_digit()) => (stem, Some(version)),
            _ => (rest, None),
        };
        return (!stem.is_empty()).then_some(Soname { file, stem, version });
    }
    let rest = file.strip_prefix("lib")?;
    let at = rest.find(".so")?;
    let stem = &rest[..at];
    let after = &rest[at + 3..];
    if stem.is_empty() || !(after.is_empty() || after.starts_with('.')) {
        return None;
    }
    let version = after
        .strip_prefix('.')
        .filter(|version| version.starts_with(|c: char| c.is_ascii_digit()));
    Some(Soname { file, stem, version })
}

/// A Windows library's file name as a soname: NVIDIA's DLLs carry the
/// soname's major after `64_` (`cublas64_12.dll` is libcublas.so.12,
/// `cudnn_ops_infer64_8.dll` libcudnn_ops_infer.so.8, as the win_amd64
/// wheels of nvidia-cublas-cu12 and nvidia-cudnn-cu12 ship them). Three
/// digits are a CUDA release (`cudart64_110.dll` is CUDA 11.0's,
/// `nvrtc64_112_0.dll` 11.2's), which gives the major of a library that
/// CUDA versions, and nothing of one versioned on its own (`cufft64_100.dll`
/// is CUDA 10.0's, not libcufft.so.10).
fn windows_library<'t>(file: &'t str, base: &'t str) -> Option<Soname<'t>> {
    let (stem, digits) = match base.find("64_") {
        Some(at) => (
            &base[..at],
            base[at + 3..]
                .split('_')
                .next()
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())),
        ),
        None => (base, None),
    };
    if stem.is_empty() {
        return None;
    }
    let versioned_by_cuda = PROVIDERS
        .iter()
        .any(|(prefix, provider, _)| stem.starts_with(prefix) && matches!(provider, Provider::Wheel(_, true)));
    // CUDA 8 and 9 wrote their release in two digits (`cudart64_92.dll` is 9.2).
    let release_in_two = |digits: &str| digits.len() == 2 && digits >= "80";
    let version = digits.and_then(|digits| match digits.len() {
        _ if versioned_by_cuda && release_in_two(digits) => Some(&digits[..1]),
        1 | 2 => Some(digits),
        _ if versioned_by_cuda => Some(&digits[..digits.len() - 1]),
        _ => None,
    });
    Some(Soname { file, stem, version })
}

/// The missing library a loader message names: the file before `: cannot
/// open`, or the first in `Could not load library ...` and `Unable to load any of {...}`;
/// else a library's file that the system says is not there (ecole378's
/// `ImportError: libscip.so.8.0: No such file or directory`, the loader's
/// words with their middle cut).
fn missing_library(text: &str) -> Option<Soname<'_>> {
    missing_library_worded(text).map(|(missing, _)| missing)
}

/// The missing library, and whether the loader's own words named it (not only
/// the system's `No such file or directory`).
fn missing_library_worded(text: &str) -> Option<(Soname<'_>, bool)> {
    in_loader_words(text)
        .map(|missing| (missing, true))
        .or_else(|| library_file_not_there(text).map(|missing| (missing, false)))
}

fn library_file_not_there(text: &str) -> Option<Soname<'_>> {
    const NOT_THERE: &str = ": No such file or directory";
    // Only as an import's error: a compiler's or a shell's words for a
    // missing file (`g++: error: .../libcudart.so: No such file or
    // directory`) are about a build or a command, not the loader.
    // Only the lines that hold the words: the text may be a whole log.
    text.match_indices(NOT_THERE).find_map(|(at, _)| {
        let start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
        let end = text[at..].find('\n').map_or(text.len(), |newline| at + newline);
        let line = text[start..end].trim_matches(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '.'));
        let message = ["ImportError: ", "OSError: "]
            .iter()
            .find_map(|class| line.strip_prefix(class))
            .unwrap_or(line);
        // The whole message is the file and the system's words: nothing names a command.
        let file = message.strip_suffix(NOT_THERE.trim_end_matches('.'))?;
        if file.contains(char::is_whitespace) {
            return None;
        }
        // `.so` files only: a Windows DLL's absence has its own words.
        soname(file).filter(|found| found.file.contains(".so"))
    })
}

fn in_loader_words(text: &str) -> Option<Soname<'_>> {
    let lower = text.to_ascii_lowercase();
    let at = LOADER_WORDS.iter().filter_map(|word| lower.find(word)).min()?;
    let near = token_before(text, at);
    if let Some(found) = soname(near.trim_end_matches(':')) {
        return Some(found);
    }
    // A library looked up by its bare name (ctypes.util.find_library), as the
    // package words it (`OSError: sndfile library not found`) or cffi does.
    let called = [
        "did not manage to locate a library called ",
        "failed to load a library: ",
    ]
    .into_iter()
    .find(|words| lower[at..].starts_with(words));
    let near = match called {
        Some(words) => text[at + words.len()..]
            .trim_start_matches(['\'', '"', ' '])
            .split(['\'', '"', ' ', '\n'])
            .next()
            .unwrap_or_default(),
        None => near,
    };
    if (lower[at..].starts_with("library not found") || called.is_some()) && !near.is_empty() {
        let bare = near.strip_prefix("lib").filter(|rest| !rest.is_empty()).unwrap_or(near);
        // `gobject-2.0`, `pango-1.0`: cairocffi's and WeasyPrint's names carry the API's version.
        if bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Some(Soname {
                file: near,
                stem: bare,
                version: None,
            });
        }
    }
    let tokens = || {
        text[at..]
            .split(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | ',' | '\'' | '"' | '`' | '(' | ')'))
            .take(12)
            .map(|token| token.trim_end_matches(['.', ':']))
    };
    tokens()
        .find_map(soname)
        .or_else(|| tokens().take(4).find_map(library_by_name))
}

/// Windows' words for a module or DLL it could not load because a DLL it
/// needs is not there (error 126, ERROR_MOD_NOT_FOUND), as Python prints
/// them for an extension module (`DLL load failed while importing _ext: The
/// specified module could not be found.`) and for a DLL a package loads
/// itself (torch's `[WinError 126] The specified module could not be found.
/// Error loading "...\\torch\\lib\\c10.dll" or one of its dependencies.`).
/// They name no missing file: the module or DLL was found, and one it loads
/// was not, which may be a CUDA or MPI runtime not on PATH, the Visual C++
/// runtime, or a DLL of the Python it was built for. So the cause is listed,
/// not named.
fn windows_module_not_found(text: &str) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("dll load failed").or_else(|| lower.find("[winerror 126]"))?;
    // The second is how some Windows versions word error 126 (improveddiffusion5).
    if !["the specified module could not be found", "the module was not found"]
        .iter()
        .any(|words| lower[at..].contains(words))
    {
        return None;
    }
    let module = text::after_marker(&text[at..], "DLL load failed while importing ")
        .and_then(|rest| rest.split(':').next())
        .map(|name| format!("the extension module {name}"))
        .or_else(|| dll_loading(&text[at..]).map(str::to_string));
    let said = match module {
        Some(what) => format!("Windows found {what} but not a DLL it loads (error 126); the message does not say which"),
        None if lower[at..].starts_with("dll load failed") => "Windows found an extension module but not a DLL it loads (error 126); the message does not say which".to_string(),
        // `[WinError 126]` alone (ctypes loading a DLL by name): that DLL, or one it loads, is missing.
        None => "Windows could not load a DLL (error 126): it, or a DLL it loads, was not found; the message does not say which".to_string(),
    };
    Some(Reading {
        cause: MISSING,
        said,
        node: vec![(
            None,
            "which DLL is missing: `dumpbin /dependents` on the module's .pyd or .dll (Visual Studio's tools) or the Dependencies program lists what it loads; a CUDA or MPI runtime whose folder is not on PATH, the Visual C++ runtime, or a module built for another Python are the usual ones".to_string(),
        )],
        fix: "install what provides the missing DLL (the project's install notes name its runtime; torch's own DLLs need the Visual C++ Redistributable) or add the folder that holds it with os.add_dll_directory before the import".to_string(),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    })
}

/// The DLL a package was loading, by its file name: `Error loading
/// "C:\\...\\torch\\lib\\c10.dll" or one of its dependencies.`
fn dll_loading(text: &str) -> Option<&str> {
    let file = text::file_name(text::after_marker(text, "Error loading \"")?.split('"').next()?);
    file.to_ascii_lowercase().ends_with(".dll").then_some(file)
}

/// A library a package keeps in its own directory, one file per torch
/// release, named by that release (DGL's
/// `site-packages/dgl/tensoradapter/pytorch/libtensoradapter_pytorch_1.10.2.so`):
/// the file for the torch that runs is missing because the package's build
/// has none for it, not because a library is to be installed (equibind8).
fn made_per_torch(text: &str, missing: &Soname) -> Option<Reading> {
    let stem = missing.stem.to_ascii_lowercase();
    let at = stem.find("torch")?;
    let torch = super::text::version_at(stem[at + "torch".len()..].trim_start_matches(['_', '-']))?;
    if torch.split('.').count() < 2 || torch.split('.').any(str::is_empty) {
        return None;
    }
    let path = text
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"'))
        .map(|token| token.trim_end_matches(':'))
        .find(|token| token.ends_with(missing.file))?;
    let (_, inside) = path.split_once("-packages/")?;
    let package = inside
        .split('/')
        .next()
        .filter(|name| !name.is_empty() && inside.contains('/'))?;
    let package = crate::explain::distribution_of(package);
    Some(Reading {
        cause: OTHER_BUILD,
        said: format!(
            "{package} looks for its own {} for torch {torch} and has none: the {package} installed is not built for that torch",
            missing.file
        ),
        node: Vec::new(),
        fix: format!(
            "install the {package} build made for torch {torch} (its install page lists one per torch and CUDA), or the torch release the installed {package} is built for"
        ),
        stated: true,
        settles: true,
        rules_out: vec![MISSING],
    })
}

/// The stem of one of NVIDIA's CUDA libraries that a wheel of theirs
/// provides (`libcublasLt.so.12` gives `cublasLt`), when `file` is one: the
/// libraries of one CUDA release that ask each other for versioned symbols.
pub(super) fn nvidia_library(file: &str) -> Option<&'static str> {
    let stem = soname(file)?.stem;
    PROVIDERS
        .iter()
        .find(|(prefix, provider, _)| matches!(provider, Provider::Wheel(..)) && *prefix == stem)
        .map(|(prefix, _, _)| *prefix)
}

/// A library named by what it is rather than by its file (`cudnn`, `cuDNN`,
/// `NCCL`), as frameworks with their own loader name it.
fn library_by_name(token: &str) -> Option<Soname<'_>> {
    let stem = PROVIDERS
        .iter()
        .map(|(prefix, _, _)| *prefix)
        .filter(|prefix| prefix.starts_with("cu") || *prefix == "nccl")
        .find(|prefix| prefix.eq_ignore_ascii_case(token))?;
    Some(Soname {
        file: token,
        stem,
        version: None,
    })
}

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let worded = missing_library_worded(text);
    if let Some(reading) = worded.as_ref().and_then(|(missing, _)| made_per_torch(text, missing)) {
        return Some(reading);
    }
    if let Some(path) = library_named_by_path(text) {
        return Some(not_at_its_path(path));
    }
    let Some((missing, loader_worded)) = worded else {
        return windows_module_not_found(text);
    };
    let known = if DRIVER.contains(&missing.stem) {
        Some((Provider::Driver, "cuda_driver"))
    } else {
        PROVIDERS
            .iter()
            .find(|(prefix, _, _)| missing.stem.starts_with(prefix))
            .map(|(_, provider, name)| (*provider, *name))
    };
    let Some((provider, snapshot_name)) = known else {
        // A library no reader traces is the entry's to name by the loader's
        // words; where those words were cut, this says the same.
        return (!loader_worded).then(|| Reading {
            cause: MISSING,
            said: format!("the loader found no file {} in the directories it searches", missing.file),
            node: Vec::new(),
            fix: format!(
                "install what provides {0} (the project's install notes name it; apt-file search {0} or conda search find the package), or add the directory that holds it to LD_LIBRARY_PATH",
                missing.file
            ),
            stated: false,
            settles: true,
            rules_out: Vec::new(),
        });
    };
    let major = missing
        .version
        .map(|version| version.split('.').next().unwrap_or(version));
    // torch and NVIDIA's wheels load the CUDA libraries for everyone: they ask on no package's behalf.
    let launched = launched_program(text);
    let requester = asker_by_library(text)
        .map(str::to_string)
        .or_else(|| launched.clone())
        .or_else(|| asker_by_own_words(text))
        .or_else(|| {
            super::owner_of_failure(text, traceback).filter(|owner| !matches!(owner.as_str(), "torch" | "nvidia"))
        })
        // A log that shows only a framework with its own CUDA build (TensorFlow's
        // `Failed to load the native TensorFlow runtime.` under the loader's
        // line) loads the library for that framework, not for torch.
        .or_else(|| {
            let (framework, _) = context.frameworks?.only_others_than(Framework::Torch)?;
            Some(framework.distribution().to_string()).filter(|runtime| brings_its_own_cuda(runtime))
        });
    let facts = context.facts;
    let torch_cuda = facts
        .and_then(|facts| facts.torch_cuda.as_ref())
        .map(|version| version.release()[0]);

    // A CUDA runtime library of another CUDA major than torch's: whatever asks
    // for it was built for that CUDA (torch brings its own CUDA's libraries).
    // A library versioned on its own (`libcufft.so.10`) is dated by the CUDA
    // wheels that ship it.
    let cuda_majors: Vec<u64> = match (provider, major) {
        (Provider::Wheel(_, true), Some(major)) => major.parse::<u64>().into_iter().collect(),
        (Provider::Wheel(wheel, false), Some(major)) => OWN_VERSIONED
            .iter()
            .find(|(stem, soname_major, _)| missing.stem.starts_with(stem) && *soname_major == major)
            .map(|(_, _, cudas)| cudas.to_vec())
            .or_else(|| toolkit_release_in_soname(wheel, missing.version).map(|cuda| vec![cuda]))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let cuda_major = cuda_majors.last().copied();
    let wanted_cuda = match cuda_majors.as_slice() {
        [] => "?".to_string(),
        majors => majors.iter().map(u64::to_string).collect::<Vec<_>>().join(" or "),
    };
    let owner = requester.clone().unwrap_or_else(|| super::UNKNOWN_ASKER.to_string());
    // Only a package the log names is judged by torch's CUDA: a library asked
    // for by nobody named may be wanted by a runtime that brings its own CUDA
    // (CTranslate2, ONNX Runtime, jaxlib), whose fix is that CUDA's library;
    // the log does not say which, so that case settles nothing (below).
    let not_torchs_cuda = matches!(torch_cuda, Some(torch) if !cuda_majors.is_empty() && !cuda_majors.contains(&torch));
    // A runtime with its own CUDA build (ONNX Runtime's, CTranslate2's) is no
    // torch extension: torch's CUDA says nothing of it, and reinstalling it
    // as one (`pip install onnxruntime`) would bring its CPU-only build.
    // So is a program the loader was starting: its build wants the library,
    // whatever torch's CUDA.
    let brings_own_cuda = launched.is_some() || requester.as_deref().is_some_and(brings_its_own_cuda);
    // What a runtime's own CUDA build decides: the CUDA libraries, not the
    // driver's or the system's (no build of it brings a missing libcuda.so.1).
    let runtime_cuda = brings_own_cuda && matches!(provider, Provider::Wheel(..) | Provider::Toolkit);
    let unknown_asker_of_other_cuda = not_torchs_cuda && (requester.is_none() || brings_own_cuda);
    // No pip wheel ships CUDA 10's libraries or older: a torch of that CUDA
    // (1.x, cu101/cu102) and the extensions built for it load them from a toolkit.
    let no_wheel = !cuda_majors.is_empty() && cuda_majors.iter().all(|cuda| *cuda <= LAST_CUDA_WITHOUT_WHEELS);
    let toolkit_cuda = facts
        .and_then(Facts::active_toolkit_version)
        .map(|version| version.release()[0]);
    let other_cuda = match (cuda_major, torch_cuda, toolkit_cuda) {
        (_, Some(torch), _) if not_torchs_cuda && requester.is_some() && !brings_own_cuda => {
            Some(format!("torch here is built with CUDA {torch}"))
        }
        // Only a toolkit could bring that library, and the toolkit here is another CUDA's.
        (Some(wanted), None, Some(toolkit)) if no_wheel && toolkit != wanted && !brings_own_cuda => Some(format!(
            "no pip wheel ships CUDA {wanted}'s libraries, and the CUDA toolkit here is CUDA {toolkit}'s"
        )),
        _ => None,
    };
    if let (Some(why), false) = (other_cuda, cuda_majors.is_empty()) {
        return Some(Reading {
            cause: OTHER_BUILD,
            said: format!(
                "{owner} asks for {}, a CUDA {wanted_cuda} library, and {why}",
                missing.file
            ),
            node: Vec::new(),
            fix: match &requester {
                Some(owner) => format!(
                    "install the {owner} build made for the CUDA torch is built with (its install page lists one per CUDA), or rebuild it here: pip install --force-reinstall --no-cache-dir --no-build-isolation {owner}"
                ),
                None => format!(
                    "find the package whose compiled library asks for {} (the import that failed names it; `ldd` on that package's .so files lists what each needs), then install its build made for the CUDA torch is built with (its install page lists one per CUDA), or rebuild it here with pip install --force-reinstall --no-cache-dir --no-build-isolation and the package's name",
                    missing.file
                ),
            },
            stated: true,
            settles: true,
            rules_out: vec![MISSING],
        });
    }
    // A CUDA runtime library missing while torch's CUDA is unknown: a library
    // nobody installed, or whatever asks for it built for another CUDA (torch
    // brings its own CUDA's runtime, so the asker is rarely torch). A library
    // that another CUDA library loads for itself, of its own version, is asked
    // for by no extension: it is missing, whatever torch's CUDA.
    let loaded_by_its_own = SELF_LOADED.contains(&missing.stem);
    // A runtime with its own CUDA build is judged by that build alone: the
    // library it asks for is missing, whatever torch's CUDA.
    let settles = loaded_by_its_own
        || runtime_cuda
        || !(cuda_major.is_some() && (torch_cuda.is_none() || unknown_asker_of_other_cuda));
    if provider == Provider::Torch {
        let owner = requester.clone().unwrap_or_else(|| "the extension".to_string());
        // torch itself failing on its own file is a broken torch install.
        let torch_itself = requester.is_none()
            && traceback
                .frames()
                .any(|frame| crate::explain::frame_package(&frame.file) == Some("torch"));
        if torch_itself {
            return Some(Reading {
                cause: MISSING,
                said: format!("torch's own {} is missing from its install", missing.file),
                node: Vec::new(),
                fix: "reinstall the torch installed, whose files are incomplete: python -m pip install --force-reinstall --no-deps torch==VERSION (VERSION from pip show torch, from the index it came from)".to_string(),
                stated: true,
                settles: false,
                rules_out: Vec::new(),
            });
        }
        // Every torch ships these, and importing torch loads them: not finding
        // one says torch was not imported first (mambainstall1: `import
        // causal_conv1d_cuda` in a fresh shell), not which torch the extension
        // was built for. A library only some torch releases have
        // (libtorch_cuda_cpp.so, 1.8-1.12) is another torch's.
        let in_every_torch = IN_EVERY_TORCH.contains(&missing.stem);
        let node = match in_every_torch {
            true => vec![(
                None,
                format!(
                    "whether torch was imported before {owner}: if `import torch` first makes the error go, nothing is wrong with the build"
                ),
            )],
            false => Vec::new(),
        };
        return Some(Reading {
            cause: OTHER_BUILD,
            said: format!(
                "{owner} links torch's own {} and the loader did not find it",
                missing.file
            ),
            node,
            fix: format!(
                "import torch before {owner}; if that does not help, {owner} was built for another torch: install its build for the torch installed here"
            ),
            stated: false,
            settles: !in_every_torch,
            // torch has the file: nothing is to be installed for it.
            rules_out: match in_every_torch {
                true => vec![MISSING],
                false => Vec::new(),
            },
        });
    }

    let mut node = Vec::new();
    if let (Some(facts), false) = (facts, snapshot_name.is_empty()) {
        node.push(present_here(facts, snapshot_name, &missing, major));
    }
    if !settles && unknown_asker_of_other_cuda {
        node.push((
            None,
            format!(
                "which package asks for {} (the import that failed names it): a runtime that brings its own CUDA (CTranslate2, ONNX Runtime) needs CUDA {}'s library installed beside torch's CUDA {}; a torch extension was built for another CUDA than torch's",
                missing.file,
                wanted_cuda,
                torch_cuda.map(|cuda| cuda.to_string()).unwrap_or_default()
            ),
        ));
    } else if !settles {
        node.push((
            None,
            format!(
                "torch's CUDA version where the log ran (python -c 'import torch; print(torch.version.cuda)'): if it is not CUDA {}, {owner} was built for another CUDA",
                wanted_cuda
            ),
        ));
    }
    let wanted_by = requester
        .as_ref()
        .map(|owner| format!(" ({owner} asks for it)"))
        .unwrap_or_default();
    // The CUDA whose wheel ships this soname: torch's, where it is one of them.
    let wheel_cuda = match (torch_cuda, cuda_majors.as_slice()) {
        (Some(torch), []) => Some(torch),
        (Some(torch), majors) if majors.contains(&torch) => Some(torch),
        (_, majors) => majors.first().copied(),
    };
    let provider = match provider {
        Provider::Wheel(..) if no_wheel => Provider::Toolkit,
        provider => provider,
    };
    // A runtime with its own CUDA build is told of its own builds below, not torch's.
    let torch_builds = match runtime_cuda {
        true => "",
        false => ", or install the builds of torch and its extensions made for a CUDA with pip wheels",
    };
    let fix = match provider {
        Provider::Wheel(wheel, _) => {
            // Whose CUDA the wheel must match: the asking runtime's own build, else torch's.
            let whose = match (&requester, brings_own_cuda) {
                (Some(runtime), true) => format!("the CUDA major {runtime} is built for"),
                _ => "torch's CUDA major".to_string(),
            };
            let distribution = match wheel_cuda {
                Some(cuda) => wheel_for_cuda(wheel, cuda),
                None if RELEASED_ON_THEIR_OWN.contains(&wheel) => format!("nvidia-{wheel}-cuXX (XX: {whose})"),
                None => format!("nvidia-{wheel}-cuXX (XX: {whose}; for CUDA 13, nvidia-{wheel})"),
            };
            let bound = match (wheel, major) {
                ("cudnn", Some(major)) => major
                    .parse::<u32>()
                    .map(|major| format!("\"{distribution}>={major},<{}\"", major + 1))
                    .unwrap_or(distribution.clone()),
                _ => distribution.clone(),
            };
            if missing.is_dll() {
                let folder = wheel.replace('-', "_");
                format!(
                    "pip install {bound}; it puts {} in site-packages\\nvidia\\{folder}\\bin, which Windows searches only when that folder is on PATH (or added with os.add_dll_directory); or put on PATH another folder that holds it (a CUDA toolkit's bin, for the libraries a toolkit ships)",
                    missing.file
                )
            } else {
                format!(
                    "pip install {bound}; it installs the library under site-packages/nvidia/, where torch finds it; for any other program add that lib directory to LD_LIBRARY_PATH"
                )
            }
        }
        Provider::Driver => "the NVIDIA driver's libraries are not visible: install the driver, or in a container run it with the GPUs passed in (docker run --gpus all, with the NVIDIA Container Toolkit)".to_string(),
        Provider::Toolkit if no_wheel && missing.is_dll() => format!(
            "{} is CUDA {wanted_cuda}'s, which only a CUDA {wanted_cuda} toolkit ships: put that toolkit's bin folder on PATH{torch_builds}",
            missing.file
        ),
        Provider::Toolkit if no_wheel => format!(
            "{} is CUDA {wanted_cuda}'s, which only a CUDA {wanted_cuda} toolkit ships: put that toolkit's lib64 on the loader path (export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH, where /usr/local/cuda is that toolkit){torch_builds}",
            missing.file
        ),
        Provider::Toolkit => format!(
            "install a CUDA toolkit that ships {} (NVIDIA's installer, or conda install -c nvidia cuda-nvcc) and make it findable (CUDA_HOME, LD_LIBRARY_PATH)",
            missing.file
        ),
        Provider::System(package) => format!("apt-get install {package} (or the distribution's package that ships {})", missing.file),
        Provider::Torch => unreachable!("handled above"),
    };
    // A runtime with its own CUDA build has two fixes: its build for the CUDA
    // the node has, first, and the library its build wants, which may be
    // another major of one torch pins (nvidia-cudnn-cu12 9.x).
    let fix = match (&requester, runtime_cuda) {
        (Some(runtime), true) => {
            let build = match cuda_majors.is_empty() {
                true => String::new(),
                false => format!(", and the one installed is for CUDA {wanted_cuda}"),
            };
            format!(
                "{runtime} brings its own CUDA build{build}: install the {runtime} build made for the CUDA and cuDNN the node has (its install page lists one per CUDA); or give it the {} it wants, where that replaces no copy torch depends on: {fix}",
                missing.file
            )
        }
        _ => fix,
    };
    // Windows' error 126 (ERROR_MOD_NOT_FOUND), which Python's ctypes words
    // "(or one of its dependencies)", is also what loading a DLL that is
    // there gives when a DLL it loads is not.
    let either = text.contains("rror code 126") || text.contains("or one of its dependencies");
    let (module_or_dependency, fix) = match missing.is_dll() && either {
        true => {
            let zlib = match missing.stem.starts_with("cudnn") {
                true => {
                    ": cuDNN 8 for Windows from 8.3 loads zlibwapi.dll, which the zlib step of cuDNN's install guide puts on PATH"
                }
                false => " (dumpbin /dependents, from Visual Studio's build tools, lists what it loads)",
            };
            (
                ", or a DLL it loads (Windows' error 126 says either)",
                format!("{fix}; if {} is there, a DLL it loads is not{zlib}", missing.file),
            )
        }
        false => ("", fix),
    };
    Some(Reading {
        cause: MISSING,
        said: format!(
            "the loader could not find {}{module_or_dependency}{wanted_by}",
            missing.file
        ),
        node,
        fix,
        stated: true,
        settles,
        rules_out: Vec::new(),
    })
}

/// A library the message names by its path, which no reader traces (no CUDA
/// library, no driver's): `.../tf_ops/tf_sampling_so.so: cannot open shared
/// object file`. ctypes, tf.load_op_library and torch.ops.load_library open a
/// path as given, so the loader searched no directory for it.
fn library_named_by_path(text: &str) -> Option<&str> {
    // Only the loader's words for a file not there: `Permission denied` or
    // `Too many open files` after them is another failure.
    const WORDS: &str = ": cannot open shared object file: ";
    // As glibc words it; a paste retyped by hand may lower its case (get3d108).
    let at = text.match_indices(WORDS).find_map(|(at, _)| {
        text[at + WORDS.len()..]
            .get(..25)
            .is_some_and(|errno| errno.eq_ignore_ascii_case("No such file or directory"))
            .then_some(at)
    })?;
    let path = token_before(text, at).trim_start_matches('`');
    let file = text::file_name(path);
    let named_by_path = path.len() > file.len() && file.contains(".so") && !file.starts_with('.');
    let traced = soname(path).is_some_and(|missing| {
        DRIVER.contains(&missing.stem) || PROVIDERS.iter().any(|(prefix, _, _)| missing.stem.starts_with(prefix))
    });
    (named_by_path && !traced).then_some(path)
}

/// The word of `text` that ends right before byte `at`, the loader's words'
/// start: the file they are about.
fn token_before(text: &str, at: usize) -> &str {
    text[..at]
        .trim_end_matches([':', ' ', '\'', '"'])
        .rsplit([' ', '\n', '\'', '"', '(', ','])
        .next()
        .unwrap_or_default()
}

/// What a library opened by its path and not loaded says: glibc's loader
/// (elf/dl-load.c, open_verify) reports a file built for another machine
/// (an x86_64 library on aarch64) with the errno of a file that is not there,
/// so the words say only that nothing loadable is at the path.
fn not_at_its_path(path: &str) -> Reading {
    // A path that climbs out of a folder (`torch/lib/../../x.so`) is not that folder's package's.
    let package = crate::explain::frame_package(path)
        .filter(|package| *package != crate::explain::STDLIB && !path.contains("/../"));
    // torch.utils.cpp_extension.load builds an op on first use into a
    // folder named for it in its cache (TORCH_EXTENSIONS_DIR,
    // ~/.cache/torch_extensions by default: `<cache>/<op>/<op>.so`, or a
    // folder per build below the op's, as StyleGAN's loader makes), and
    // the import after a build that stopped short finds nothing there.
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let op = text::file_name(path).split('.').next().unwrap_or_default();
    let jit_cache = parts
        .iter()
        .position(|part| *part == "torch_extensions")
        .and_then(|cache| {
            let at = cache + 1 + parts[cache + 1..parts.len() - 1].iter().position(|part| *part == op)?;
            // A folder an ellipsis stands in for cannot be typed: the op's own
            // folder is named, where that is not elided too.
            (!parts[..=at].iter().any(|part| part.contains("..."))).then(|| parts[..=at].join("/"))
        });
    let fix = match (jit_cache, package) {
        (Some(cache), _) => format!(
            "torch's build of this op at first use (torch.utils.cpp_extension.load) left nothing loadable at {path}: remove {cache} and rerun, and read the build's output above the error (ninja's, nvcc's or the compiler's first error says why; run ninja by hand in the op's build folder to see it alone)"
        ),
        (None, Some(package)) => {
            let package = crate::explain::distribution_of(package);
            format!(
                "the file is {package}'s own: reinstall it (pip install --force-reinstall --no-cache-dir {package}); if the file is there (ls -l {path}), compare its machine (file {path}) with this one's (uname -m): a build of {package} for another platform needs its build for this one, or a build from source"
            )
        }
        (None, None) => format!(
            "if {path} is a library the project builds itself (a custom op in its source tree), run the project's build step for it (its README's compile script, or python setup.py build_ext --inplace in that folder) before the job; if the file is there (ls -l {path}), compare its machine (file {path}) with this one's (uname -m) and build it here"
        ),
    };
    Reading {
        cause: MISSING,
        said: format!(
            "nothing the loader can load is at {path}, the path the job opened: no file is there, or the one there is built for another machine (the loader says both in these words)"
        ),
        node: Vec::new(),
        fix,
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    }
}

/// NVIDIA's wheel of `wheel` for CUDA `cuda`. From CUDA 13 the toolkit's
/// libraries are published without the `-cuNN` suffix (nvidia-cublas 13.x;
/// nvidia-cublas-cu13 holds only 0.0.1 placeholders), while cuDNN and NCCL,
/// released on their own, keep it (nvidia-cudnn-cu13 9.x, nvidia-nccl-cu13
/// 2.x): PyPI's release histories of each, read 2026-12-02.
fn wheel_for_cuda(wheel: &str, cuda: u64) -> String {
    if cuda >= 13 && !RELEASED_ON_THEIR_OWN.contains(&wheel) {
        format!("nvidia-{wheel}")
    } else {
        format!("nvidia-{wheel}-cu{cuda}")
    }
}

/// Runtimes whose GPU builds are made per CUDA on their own, not against
/// torch: ONNX Runtime, CTranslate2, jaxlib, TensorFlow, PaddlePaddle, CuPy,
/// TensorRT, llama-cpp-python.
const OWN_CUDA_RUNTIMES: [&str; 8] = [
    "onnxruntime",
    "ctranslate2",
    "jaxlib",
    "tensorflow",
    "paddlepaddle",
    "cupy",
    "tensorrt",
    "llama-cpp-python",
];

/// The runtime whose library a loader line says it was loading when the
/// missing one was wanted (`Failed to load library
/// libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: ...`):
/// the log names who asks even where no frame does.
fn asker_by_library(text: &str) -> Option<&'static str> {
    const LOADING: &str = "failed to load library ";
    let lower = text.to_ascii_lowercase();
    let at = lower.find(LOADING)? + LOADING.len();
    let file = text::file_name(lower[at..].split_whitespace().next()?);
    let name = file.strip_prefix("lib").unwrap_or(file);
    RUNTIME_LIBRARIES
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, distribution)| *distribution)
}

/// The program the loader was starting when it did not find a library, in
/// ld.so's words for an executable (`./gnina: error while loading shared
/// libraries: libcudart.so.12: cannot open shared object file`): a program
/// built for its own CUDA, not a torch extension.
fn launched_program(text: &str) -> Option<String> {
    let (before, _) = text.lines().find_map(|line| line.split_once(LOADER_NOT_STARTED))?;
    let program = before.rsplit([' ', '/']).next()?;
    (!program.is_empty()).then(|| program.to_string())
}

/// ld.so's words for an executable it could not start for want of a library.
const LOADER_NOT_STARTED: &str = ": error while loading shared libraries: ";

/// Whether an earlier line is ld.so's refusal to start a program (not a
/// library's failed dlopen, which its caller may go on without) and the
/// error after it (lowercased) wants what that program would have made: the
/// file it should have written, or a good exit status. Any other error may
/// have nothing to do with it (a job that ran `nvidia-smi` for its log and
/// failed later of its own).
pub fn program_not_started_before(line: &str, error_lower: &str) -> bool {
    const FOLLOWS: [&str; 3] = [
        "no such file or directory",
        "returned non-zero exit status",
        "non-zero exit code",
    ];
    line.contains(LOADER_NOT_STARTED) && FOLLOWS.iter().any(|words| error_lower.contains(words))
}

/// A runtime with its own CUDA build that names itself as the one loading:
/// `CuPy failed to load nvrtc64_112_0.dll`.
fn asker_by_own_words(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    // CTranslate2 loads cuBLAS, NCCL and MPI itself and words a failure as
    // `Library libcublas.so.12 is not found or cannot be loaded` (its
    // src/cuda/cublas_stub.cc, nccl_stub.cc, mpi_stub.cc), wording no loader uses.
    if lower.lines().any(is_ctranslate2_loader_failure) {
        return Some("ctranslate2".to_string());
    }
    let at = lower.find(" failed to load ")?;
    let name = lower[..at].rsplit([' ', '\n', ':']).next()?;
    brings_its_own_cuda(name).then(|| name.to_string())
}

/// CTranslate2's words for a CUDA library its own loader could not load:
/// `Library cublas64_12.dll is not found or cannot be loaded`, as a whole
/// line (a paste may end it after `is not found`).
fn is_ctranslate2_loader_failure(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("library ") else {
        return false;
    };
    let Some((file, words)) = rest.split_once(' ') else {
        return false;
    };
    soname(file).is_some() && words.trim_end().starts_with("is not found")
}

/// The file names of runtimes' own libraries, by the distribution that ships them.
const RUNTIME_LIBRARIES: [(&str, &str); 5] = [
    // The CUDA provider is onnxruntime-gpu's; `onnxruntime` is the CPU build.
    ("onnxruntime", "onnxruntime-gpu"),
    ("ctranslate2", "ctranslate2"),
    ("nvinfer", "tensorrt"),
    ("tensorflow", "tensorflow"),
    ("paddle", "paddlepaddle"),
];

fn brings_its_own_cuda(distribution: &str) -> bool {
    OWN_CUDA_RUNTIMES
        .iter()
        .any(|runtime| distribution == *runtime || distribution.starts_with(&format!("{runtime}-")))
}

/// torch's libraries that every release since 1.5 ships (`libc10.so`,
/// `libtorch_cpu.so`, ...), which `import torch` loads for everyone after it.
const IN_EVERY_TORCH: [&str; 4] = ["c10", "torch", "torch_cpu", "torch_python"];

/// NVIDIA's wheels that keep the `-cuNN` suffix from CUDA 13 on.
const RELEASED_ON_THEIR_OWN: [&str; 2] = ["cudnn", "nccl"];

/// Libraries whose soname carries their own version, not CUDA's: (stem,
/// soname major, the CUDA majors whose wheels ship it). A wheel's version
/// major is its soname's: nvidia-cufft-cu11 is 10.x (libcufft.so.10),
/// nvidia-cufft-cu12 11.x, nvidia-cufft (CUDA 13) 12.x; nvidia-cusolver-cu11
/// and -cu12 are 11.x, nvidia-cusolver 12.x (PyPI's release histories, read
/// 2026-12-02). libcurand.so.10 comes with every CUDA from 11 to 13, and cuDNN
/// and NCCL wheels exist for each CUDA from 11 on: their sonames date nothing
/// there. cuDNN 7 is older than every cuDNN wheel (nvidia-cudnn-cu11 begins
/// at 8.5), and was built for CUDA 8.0 to 10.2 (NVIDIA's cuDNN archive): a
/// build that asks for libcudnn.so.7 is of that era, and only a cuDNN 7
/// install brings the file.
const OWN_VERSIONED: [(&str, &str, &[u64]); 6] = [
    ("cudnn", "7", &[8, 9, 10]),
    ("cufft", "10", &[11]),
    ("cufft", "11", &[12]),
    ("cufft", "12", &[13]),
    ("cusolver", "11", &[11, 12]),
    ("cusolver", "12", &[13]),
];

/// The CUDA major a library's soname names where the toolkit's own release
/// is in it: up to CUDA 10.0 every library of the toolkit carried the
/// toolkit's major.minor (`libcusolver.so.8.0` is CUDA 8.0's), and CUDA 10.1
/// took the minor out ("the cuFFT library soname has changed from
/// libcufft.so.10.1 to libcufft.so.10", its release notes). cuDNN and NCCL
/// are released apart from the toolkit and never were so named.
fn toolkit_release_in_soname(wheel: &str, version: Option<&str>) -> Option<u64> {
    if matches!(wheel, "cudnn" | "nccl") {
        return None;
    }
    let (major, minor) = version?.split_once('.')?;
    let (major, minor) = (major.parse::<u64>().ok()?, minor.parse::<u64>().ok()?);
    ((7..10).contains(&major) || (major, minor) == (10, 0)).then_some(major)
}

/// The last CUDA major whose libraries no NVIDIA pip wheel ships: the
/// `nvidia-*-cu11` wheels are the first.
const LAST_CUDA_WITHOUT_WHEELS: u64 = 10;

/// Libraries a CUDA library loads for itself at its own version: NVRTC its builtins.
const SELF_LOADED: [&str; 1] = ["nvrtc-builtins"];

/// What the node has of the missing library, as the probe found it.
fn present_here(facts: &Facts, name: &str, missing: &Soname, major: Option<&str>) -> (Option<bool>, String) {
    let copies: Vec<String> = facts
        .snapshot
        .cuda
        .libraries
        .iter()
        .filter(|library| library.name == name)
        .map(|library| {
            format!(
                "{} {}",
                library.path.display(),
                library.version.as_deref().unwrap_or("(version unknown)")
            )
        })
        .collect();
    let same_major = facts.snapshot.cuda.libraries.iter().any(|library| {
        library.name == name
            && match (major, library.version.as_deref().and_then(dotted)) {
                (Some(major), Some(version)) => version.release()[0].to_string() == major,
                _ => true,
            }
    });
    if copies.is_empty() {
        (None, format!("no copy of {} is found here", missing.stem))
    } else if !same_major {
        (
            Some(true),
            format!("only another version is found here: {}", copies.join(", ")),
        )
    } else {
        (
            None,
            format!(
                "a copy is found here ({}): the run's loader did not search its directory",
                copies.join(", ")
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(read, log)
    }

    /// cascadedpointcompletion3, opensmilepython79, yolov5deepsorttensorrt6: a
    /// library opened by its path was searched for nowhere, and glibc words a
    /// file built for another machine as one that is not there. The reading
    /// says so, and its fix follows where the path is: a package's own file,
    /// or the project's. A CUDA library, or a bare soname, is not read so;
    /// neither is DGL's adapter for a torch it was not built for.
    #[test]
    fn a_library_opened_by_its_path_is_not_there_or_not_for_this_machine() {
        let project = reading("tensorflow.python.framework.errors_impl.NotFoundError: /home/u/pcn/tf_ops/sampling/tf_sampling_so.so: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!((project.cause, project.settles), (MISSING, true));
        assert!(project.said.contains("built for another machine"), "{}", project.said);
        assert!(project.fix.contains("the project builds itself"), "{}", project.fix);
        let package = reading("OSError: /home/pi/.local/lib/python3.9/site-packages/opensmile/core/bin/linux/libSMILEapi.so: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(
            package.fix.starts_with("the file is opensmile's own"),
            "{}",
            package.fix
        );
        let relative =
            reading("OSError: weights/libmyplugins.so: cannot open shared object file: No such file or directory\n")
                .unwrap();
        assert!(
            relative.said.contains("at weights/libmyplugins.so"),
            "{}",
            relative.said
        );
        // get3d108, as posted (retyped: its errno in lower case, a folder
        // elided): the op torch builds at first use, in its cache, named by
        // its folder there; a folder of that name elsewhere is the project's.
        let jit = reading("`Import Error:  ~/.cache/torch_extensions/upfirdn2d_plugin/......-quadro-rtx-6000/upfirdn2d_plugin.so: cannot open shared object file: no such file or directory`\n").unwrap();
        assert_eq!((jit.cause, jit.settles), (MISSING, true));
        assert!(
            jit.fix.starts_with("torch's build of this op at first use")
                && jit
                    .fix
                    .contains("remove ~/.cache/torch_extensions/upfirdn2d_plugin and rerun"),
            "{}",
            jit.fix
        );
        for not_the_cache in [
            "ImportError: /home/u/proj/torch_extensions/build/lib/fused.so: cannot open shared object file: No such file or directory\n",
            "ImportError: /data/torch_extensions/fused_adam.so: cannot open shared object file: No such file or directory\n",
        ] {
            let found = reading(not_the_cache).unwrap();
            assert!(found.fix.contains("the project builds itself"), "{}", found.fix);
        }
        let climbing = reading("OSError: /v/site-packages/torch/lib/../../../libmkl_rt.so: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(climbing.fix.contains("the project builds itself"), "{}", climbing.fix);
        for not_by_path in [
            "OSError: /home/u/proj/build/libops.so: cannot open shared object file: Permission denied\n",
            "OSError: libfoo.so.1: cannot open shared object file: No such file or directory\n",
            "OSError: /usr/local/cuda/lib64/libcudart.so.11.0: cannot open shared object file: No such file or directory\n",
            "/opt/dgl/src/runtime/tensordispatch.cc:43: TensorDispatcher: dlopen failed: /e/lib/python3.8/site-packages/dgl/tensoradapter/pytorch/libtensoradapter_pytorch_1.10.2.so: cannot open shared object file: No such file or directory\n",
        ] {
            let found = reading(not_by_path);
            assert!(
                found
                    .as_ref()
                    .is_none_or(|found| !found.said.contains("the path the job opened")),
                "{not_by_path}: {found:?}"
            );
        }
    }

    /// improveddiffusion5, pyscipopt236: Windows' error 126 names no DLL, so
    /// a missing one is listed, not named; its "procedure" words are another
    /// failure (an extension built against other DLLs), not a missing file.
    #[test]
    fn windows_words_for_a_dll_not_found_list_a_missing_library() {
        for log in [
            "ImportError: DLL load failed while importing MPI: The module was not found",
            "ImportError: DLL load failed: The specified module could not be found.",
            // torch's own loader names the DLL whose dependency is missing.
            "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\v\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
        ] {
            let found = reading(log).unwrap();
            assert_eq!(found.cause, MISSING);
            assert!(!found.settles, "{log}");
        }
        assert!(
            reading("OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\v\\torch\\lib\\c10.dll\" or one of its dependencies.")
                .unwrap()
                .said
                .contains("found c10.dll but not a DLL it loads")
        );
        // Another Windows error at the same DLL is another cause.
        assert!(reading("OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading \"C:\\v\\torch\\lib\\c10.dll\" or one of its dependencies.").is_none());
        assert!(reading("ImportError: DLL load failed while importing exllamav2_ext: The specified procedure could not be found.").is_none());
    }

    #[test]
    fn sonames_are_taken_apart() {
        assert_eq!(
            soname("libcublas.so.11"),
            Some(Soname {
                file: "libcublas.so.11",
                stem: "cublas",
                version: Some("11")
            })
        );
        assert_eq!(soname("/usr/lib/libGL.so.1").unwrap().stem, "GL");
        assert_eq!(soname("libnvrtc.so").unwrap().version, None);
        assert_eq!(soname("libfoo.sox"), None);
        let mac = soname("@rpath/libcudart.10.1.dylib").unwrap();
        assert_eq!((mac.stem, mac.version), ("cudart", Some("10.1")));
        assert_eq!(soname("libomp.dylib").unwrap().stem, "omp");
    }

    /// taichinerfs94, genesisworld400: Taichi names the file, then says it
    /// was not found; a build script's `zlib not found` names no library file.
    #[test]
    fn taichis_words_for_a_library_it_could_not_load_are_a_loaders() {
        let found =
            reading("[W 03/03/24 17:05:31.950 2179169] [cuda_driver.cpp:load_lib@36] libcuda.so lib not found.")
                .unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(found.said.contains("libcuda.so"), "{}", found.said);
        assert!(reading("-- zlib not found, building without compression").is_none());
    }

    #[test]
    fn a_missing_cuda_library_is_traced_to_its_wheel() {
        let found =
            reading("OSError: libcublas.so.11: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(found.fix.starts_with("pip install nvidia-cublas-cu11"), "{}", found.fix);
        let cudnn = reading("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(
            cudnn.fix.contains("nvidia-cudnn-cu") && cudnn.fix.contains(">=8,<9"),
            "{}",
            cudnn.fix
        );
    }

    /// faceimagequality52: cuDNN 7 is older than every cuDNN wheel. A build
    /// that asks for it is of CUDA 8 to 10, and which torch's CUDA the run had
    /// decides whether the library or the build is wrong; no pip install brings it.
    #[test]
    fn cudnn_7_is_dated_to_the_cudas_before_wheels() {
        let found =
            reading("OSError: libcudnn.so.7: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(!found.settles, "{found:?}");
        assert!(!found.fix.contains("pip install nvidia-cudnn"), "{}", found.fix);
        assert!(found.fix.contains("CUDA 8 or 9 or 10"), "{}", found.fix);
    }

    #[test]
    fn a_library_versioned_on_its_own_is_dated_by_the_cuda_whose_wheel_ships_it() {
        // libcufft.so.10 is CUDA 11's (nvidia-cufft-cu11 10.x; -cu12 ships libcufft.so.11).
        let found =
            reading("OSError: libcufft.so.10: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(found.fix.starts_with("pip install nvidia-cufft-cu11;"), "{}", found.fix);
        // Whoever asks may be built for CUDA 11 beside a torch of another: not settled without torch's CUDA.
        assert!(!found.settles, "{found:#?}");
        // libcurand.so.10 comes with every CUDA: it dates nothing.
        let curand =
            reading("OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(curand.settles, "{curand:#?}");
    }

    /// CTranslate2's loader words name it: wyomingfasterwhisper30 (cut after
    /// `is not found`), ultrasinger140 (Windows).
    #[test]
    fn ctranslate2_is_named_by_its_own_loaders_words() {
        for log in [
            "RuntimeError: Library libcublas.so.12 is not found\n",
            "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded\n",
        ] {
            let found = reading(log).unwrap();
            assert!(found.settles, "{log}: {found:#?}");
            assert!(found.said.contains("ctranslate2"), "{log}: {}", found.said);
        }
        // A sentence about a model file is no loader's.
        assert_eq!(asker_by_own_words("Library model.bin is not found"), None);
        assert_eq!(asker_by_own_words("Library results.sorted is not found"), None);
    }

    /// ONNX Runtime's loader names the library it was loading (champ95,
    /// facefusion256): the asker is known, and its CUDA build is its own.
    #[test]
    fn a_runtime_named_by_the_library_it_was_loading_settles_with_both_fixes() {
        let found = reading("[E:onnxruntime:Default, provider_bridge_ort.cc:1480 TryGetProviderInfo_CUDA] Failed to load library libonnxruntime_providers_cuda.so with error: libcufft.so.10: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(found.settles, "{found:#?}");
        assert!(found.said.contains("(onnxruntime-gpu asks for it)"), "{}", found.said);
        assert!(
            found.fix.starts_with("onnxruntime-gpu brings its own CUDA build, and the one installed is for CUDA 11: install the onnxruntime-gpu build made for the CUDA and cuDNN the node has")
                && found.fix.contains("where that replaces no copy torch depends on: pip install nvidia-cufft-cu11;"),
            "{}",
            found.fix
        );
        // cuDNN's soname dates no CUDA: the wheel is the runtime's CUDA's, not torch's (heygemlinuxpythonhack5).
        let cudnn = reading("1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(
            cudnn.fix.contains("(XX: the CUDA major onnxruntime-gpu is built for)") && !cudnn.fix.contains("torch's"),
            "{}",
            cudnn.fix
        );
        // A library being loaded that is no runtime's says nothing of who asks.
        let plain = reading("Failed to load library libcudnn.so.8 with error: libcudnn.so.8: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(!plain.said.contains("asks for it"), "{}", plain.said);
    }

    #[test]
    fn windows_library_names_read_as_sonames() {
        let stem_and_version = |file| soname(file).map(|found| (found.stem, found.version));
        assert_eq!(stem_and_version("cublas64_12.dll"), Some(("cublas", Some("12"))));
        assert_eq!(stem_and_version("cublasLt64_11.dll"), Some(("cublasLt", Some("11"))));
        assert_eq!(
            stem_and_version("cudnn_ops_infer64_8.dll"),
            Some(("cudnn_ops_infer", Some("8")))
        );
        // Three digits are the CUDA release: 11.0, 11.2.
        assert_eq!(stem_and_version("cudart64_110.dll"), Some(("cudart", Some("11"))));
        // CUDA 8 and 9 wrote two digits: 9.2.
        assert_eq!(stem_and_version("cudart64_92.dll"), Some(("cudart", Some("9"))));
        assert_eq!(stem_and_version("nvrtc64_112_0.dll"), Some(("nvrtc", Some("11"))));
        // CUDA 10.0's cuFFT is not libcufft.so.10.
        assert_eq!(stem_and_version("cufft64_100.dll"), Some(("cufft", None)));
        assert_eq!(
            stem_and_version("C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll"),
            Some(("fbgemm", None))
        );
    }

    /// Windows' error 126 is the DLL or one it loads: cuDNN 8's own DLL
    /// present and zlibwapi.dll missing reads the same.
    #[test]
    fn windows_error_126_leaves_the_dll_or_one_it_loads() {
        let found = reading("Could not load library cudnn_cnn_infer64_8.dll. Error code 126\nPlease make sure cudnn_cnn_infer64_8.dll is in your library path!\n").unwrap();
        assert!(
            found.said.contains("or a DLL it loads (Windows' error 126"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("zlibwapi.dll"), "{}", found.fix);
        let linux = reading("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(
            !linux.said.contains("error 126") && !linux.fix.contains("zlibwapi"),
            "{linux:?}"
        );
    }

    /// Python's ctypes on Windows says "Could not find module"; CuPy names
    /// itself as the one loading, and brings its own CUDA build.
    #[test]
    fn a_module_ctypes_could_not_find_is_read_with_the_runtime_that_wanted_it() {
        let found = reading("RuntimeError: CuPy failed to load nvrtc64_112_0.dll: FileNotFoundError: Could not find module 'nvrtc64_112_0.dll' (or one of its dependencies). Try using the full path with constructor syntax.\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(
            found
                .said
                .starts_with("the loader could not find nvrtc64_112_0.dll, or a DLL it loads"),
            "{}",
            found.said
        );
        assert!(found.said.contains("cupy"), "{}", found.said);
        assert!(found.settles, "{found:?}");
        assert!(found.fix.contains("dumpbin /dependents"), "{}", found.fix);
        // Failing to load a model names no library.
        assert!(reading("RuntimeError: failed to load model weights from ./ckpt\n").is_none());
    }

    /// ballonstranslator404: CTranslate2 4.x on Windows, CUDA 11 there.
    #[test]
    fn a_missing_windows_cuda_library_is_traced_to_its_wheel_and_its_folder() {
        let found = reading("RuntimeError: Library cublas64_12.dll is not found or cannot be loaded\n").unwrap();
        assert_eq!(found.cause, MISSING);
        // CTranslate2's own words name it; the wheel is the fix beside its build's.
        assert!(found.said.contains("ctranslate2"), "{}", found.said);
        assert!(
            found.fix.contains("pip install nvidia-cublas-cu12;")
                && found.fix.contains("site-packages\\nvidia\\cublas\\bin")
                && found.fix.contains("PATH"),
            "{}",
            found.fix
        );
        // A DLL no provider is known for is not read.
        assert!(
            reading(
                "OSError: [WinError 126] Error loading \"C:\\x\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n"
            )
            .is_none()
        );
    }

    /// mambainstall1 (import order) against audacitorch9 (another torch).
    #[test]
    fn a_torch_library_every_torch_has_missing_is_the_import_order_not_another_build() {
        let first =
            reading("ImportError: libc10.so: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(first.cause, OTHER_BUILD);
        assert!(!first.settles, "{first:#?}");
        assert!(first.fix.starts_with("import torch before"), "{}", first.fix);
        let other =
            reading("OSError: libtorch_cuda_cpp.so: cannot open shared object file: No such file or directory\n")
                .unwrap();
        assert!(other.settles, "{other:#?}");
        // torch's own import failing on its own file: torch's install is broken.
        let broken = reading("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import torch\n  File \"/v/lib/python3.10/site-packages/torch/__init__.py\", line 237, in <module>\n    from torch._C import *\nImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(broken.cause, MISSING);
        assert!(
            broken.fix.starts_with("reinstall the torch installed"),
            "{}",
            broken.fix
        );
    }

    /// A runtime's own build decides its CUDA libraries, not the driver's.
    #[test]
    fn a_runtime_asking_for_the_drivers_library_is_told_of_the_driver_only() {
        let found = reading("Failed to load library libonnxruntime_providers_cuda.so with error: libcuda.so.1: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(
            found.fix.contains("NVIDIA driver") && !found.fix.contains("build made for"),
            "{}",
            found.fix
        );
    }

    /// Up to CUDA 10.0 a library's soname carried the toolkit's major.minor;
    /// CUDA 10.1 took the minor out. cuDNN's and NCCL's are their own.
    #[test]
    fn a_soname_of_cuda_10_0_or_older_names_its_toolkit() {
        assert_eq!(toolkit_release_in_soname("cusolver", Some("8.0")), Some(8));
        assert_eq!(toolkit_release_in_soname("cufft", Some("10.0")), Some(10));
        for (wheel, version) in [("cufft", "10.1"), ("cusolver", "11"), ("cudnn", "7.0"), ("nccl", "2.4")] {
            assert_eq!(
                toolkit_release_in_soname(wheel, Some(version)),
                None,
                "{wheel} {version}"
            );
        }
    }

    /// installtensorflowjetsontx5: TensorFlow built for CUDA 8 on a CUDA 9
    /// node. No pip wheel ships CUDA 8's libraries: the fix is TensorFlow's
    /// build for the node's CUDA, or CUDA 8's toolkit, and nothing of torch's.
    /// The log shows only TensorFlow (the line under the loader's is
    /// `Failed to load the native TensorFlow runtime.`), so TensorFlow asks;
    /// where nothing shows who asks, torch's CUDA is the question.
    #[test]
    fn a_cuda_8_library_tensorflow_asks_for_is_its_builds_not_a_wheels() {
        const MISSING_CUDA_8: &str =
            "ImportError: libcusolver.so.8.0: cannot open shared object file: No such file or directory\n";
        let mut shown = crate::explain::frameworks::FrameworksShown::default();
        shown.read("Failed to load the native TensorFlow runtime.");
        let (traceback, text) = super::super::parsed(MISSING_CUDA_8);
        let context = Context {
            frameworks: Some(&shown),
            ..Context::alone()
        };
        let found = read(&text, &traceback, context).unwrap();
        assert!(found.settles, "{found:?}");
        assert!(
            found
                .fix
                .starts_with("tensorflow brings its own CUDA build, and the one installed is for CUDA 8"),
            "{}",
            found.fix
        );
        assert!(
            !found.fix.contains("pip install nvidia-") && !found.fix.contains("torch and its"),
            "{}",
            found.fix
        );
        let nobody = reading(MISSING_CUDA_8).unwrap();
        assert!(!nobody.settles, "{nobody:?}");
    }

    #[test]
    fn runtimes_with_their_own_cuda_builds_are_told_by_distribution_name() {
        assert!(brings_its_own_cuda("onnxruntime-gpu") && !brings_its_own_cuda("flash-attn"));
    }

    #[test]
    fn cuda_13s_toolkit_wheels_are_named_without_a_suffix_and_cudnns_with_one() {
        let cublas =
            reading("OSError: libcublas.so.13: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(cublas.fix.starts_with("pip install nvidia-cublas;"), "{}", cublas.fix);
        assert_eq!(wheel_for_cuda("cudnn", 13), "nvidia-cudnn-cu13");
        assert_eq!(wheel_for_cuda("cufft", 12), "nvidia-cufft-cu12");
    }

    #[test]
    fn a_library_a_framework_names_without_its_file_is_traced_too() {
        let paddle = reading("RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.\n  [Hint: cudnn_dso_handle should not be null.] (at ../paddle/phi/backends/dynload/cudnn.cc:76)\n").unwrap();
        assert_eq!(paddle.cause, MISSING);
        assert!(paddle.fix.contains("nvidia-cudnn-cu"), "{}", paddle.fix);
        // A model, a checkpoint or a plugin that cannot be loaded is no library.
        assert!(reading("RuntimeError: Cannot load model checkpoint from ./ckpt: file is truncated\n").is_none());
    }

    #[test]
    fn the_system_and_the_driver_are_named_as_providers() {
        let gl =
            reading("ImportError: libGL.so.1: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(gl.fix.starts_with("apt-get install libgl1"), "{}", gl.fix);
        let driver =
            reading("OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n").unwrap();
        assert!(driver.fix.contains("driver"), "{}", driver.fix);
        assert!(reading("OSError: libfoo.so.1: cannot open shared object file\n").is_none());
        // ecole378: the loader's words cut to the file and the system's error.
        let cut = reading("ImportError: libscip.so.8.0: No such file or directory\n").unwrap();
        assert_eq!(cut.cause, MISSING);
        assert!(cut.fix.contains("libscip.so.8.0"), "{}", cut.fix);
        // Any other file missing is no library's.
        assert!(reading("FileNotFoundError: [Errno 2] No such file or directory: 'data/train.json'\n").is_none());
        assert!(reading("/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n").is_none());
        assert!(reading("g++: error: /usr/local/cuda/lib64/libcudart_x.so: No such file or directory\n").is_none());
        // waveunetpytorch11, voicevoxengine745: soundfile finds libsndfile by its bare name.
        let sndfile = reading("Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/soundfile.py\", line 142, in <module>\n    raise OSError('sndfile library not found')\nOSError: sndfile library not found\n").unwrap();
        assert_eq!(sndfile.cause, MISSING);
        assert!(
            sndfile.fix.starts_with("apt-get install libsndfile1"),
            "{}",
            sndfile.fix
        );
        let cffi = reading("OSError: ctypes.util.find_library() did not manage to locate a library called 'sndfile'\n")
            .unwrap();
        assert!(cffi.fix.starts_with("apt-get install libsndfile1"), "{}", cffi.fix);
        // A name the readers do not know the provider of is left to the entry's words.
        assert!(reading("OSError: foo library not found\n").is_none());
        // axi9: cairocffi names every name it tried, without `lib` or a suffix.
        let cairo = "OSError: dlopen() failed to load a library: cairo / cairo-2\n";
        assert!(is_loader_failure(cairo));
        assert_eq!(missing_library(cairo).map(|found| found.stem), Some("cairo"));
        assert!(!is_loader_failure(
            "RuntimeError: failed to load a library of prompts: prompts.json\n"
        ));
        assert!(is_loader_failure(
            "OSError: dlopen() failed to load a library: gobject-2.0 / gobject-2.0-0\n"
        ));
    }

    #[test]
    fn nvrtcs_own_builtins_missing_are_a_missing_library_whatever_torchs_cuda() {
        let found = reading("RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.5.\n  Make sure that libnvrtc-builtins.so.11.5 is installed correctly.\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(found.settles, "{found:#?}");
        assert!(
            found.fix.starts_with("pip install nvidia-cuda-nvrtc-cu11"),
            "{}",
            found.fix
        );
        // A runtime library an extension asks for, torch's CUDA unknown: not settled.
        let other =
            reading("ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
                .unwrap();
        assert!(!other.settles, "{other:#?}");
    }

    /// No pip wheel ships CUDA 9's or 10's libraries, yet torch 1.x was built
    /// for those CUDAs: with torch's CUDA unknown, the library may be the
    /// extension's other build or a toolkit's off the loader's path.
    #[test]
    fn a_library_of_a_cuda_without_wheels_is_not_settled_by_its_version_alone() {
        let found = reading("libcudart.so.9.2: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(!found.settles, "{found:#?}");
        assert!(
            found.fix.contains("only a CUDA 9 toolkit ships") && !found.fix.contains("pip install nvidia-"),
            "{}",
            found.fix
        );
        let question = found
            .node
            .iter()
            .map(|(_, text)| text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            question.contains("if it is not CUDA 9, a compiled library of this run was built for another CUDA"),
            "{question}"
        );
    }
    /// equibind8: DGL keeps one tensor adapter per torch release in its own
    /// directory; the one for the torch that runs is missing from its build.
    #[test]
    fn a_packages_own_library_for_one_torch_release_is_a_build_for_another_torch() {
        let found = reading("/opt/dgl/src/runtime/tensordispatch.cc:43: TensorDispatcher: dlopen failed: /home/u/.conda/envs/e/lib/python3.8/site-packages/dgl/tensoradapter/pytorch/libtensoradapter_pytorch_1.10.2.so: cannot open shared object file: No such file or directory\n").unwrap();
        assert_eq!(found.cause, OTHER_BUILD);
        assert_eq!(found.rules_out, vec![MISSING]);
        assert!(found.said.starts_with("dgl looks for its own"), "{}", found.said);
        assert!(found.said.contains("torch 1.10.2"), "{}", found.said);
        // torch's own libraries, and a CUDA library in NVIDIA's wheel folder, are not one package's per-torch file.
        assert_ne!(
            reading("ImportError: /e/lib/python3.10/site-packages/nvidia/cusparse/lib/libcusparse.so.12: cannot open shared object file\n").map(|r| r.cause),
            Some(OTHER_BUILD)
        );
        let unversioned =
            reading("OSError: /e/lib/python3.10/site-packages/foo/libtorch_thing.so: cannot open shared object file\n");
        assert!(!unversioned.is_some_and(|r| r.said.contains("looks for its own")));
    }

    /// gnina303: a program the loader was starting wants a CUDA 12 runtime
    /// the node lacks; no torch extension asks, so torch's CUDA, known or
    /// not, does not leave it open.
    #[test]
    fn a_program_the_loader_was_starting_settles_its_missing_library() {
        let found = reading(
            "./gnina: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory\n",
        )
        .unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(found.settles, "{found:#?}");
        assert!(found.said.contains("gnina asks"), "{}", found.said);
        assert!(found.fix.contains("nvidia-cuda-runtime-cu12"), "{}", found.fix);
        // A Python extension's import of the same library leaves torch's CUDA to decide.
        let extension =
            reading("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
                .unwrap();
        assert!(!extension.settles, "{extension:#?}");
    }

    /// batch L's cudapython17: cuda-python opens the driver library itself.
    #[test]
    fn a_library_a_package_dlopens_itself_is_read() {
        let found = reading("RuntimeError: Failed to dlopen libcuda.so\n").unwrap();
        assert_eq!(found.cause, MISSING);
        assert!(found.fix.contains("NVIDIA driver"), "{}", found.fix);
    }
}
