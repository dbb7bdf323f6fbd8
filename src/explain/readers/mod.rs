//! What a failure says about itself. Many errors name their own cause: a
//! library states the requirement it checked (`requires accelerate>=0.20.1`),
//! the loader names the library it could not find (`libcublas.so.11`), an
//! extension names the torch it was built for or the torch symbol it lacks.
//! Each reader here takes such a sentence apart into facts (a package, a bound,
//! a soname, the owner of a `.so`), compares them with the node where the node
//! speaks for the log, and writes the fix with those facts filled in. They are
//! generic on purpose: one reader of requirement phrases, not one entry per
//! package; the knowledge entry each reading supports says why and cites the source.

mod accelerator;
mod auto_config;
pub(crate) mod build;
mod collective;
mod driver;
mod dyld;
mod enum_member;
mod extension;
mod fbgemm;
mod gpu_part;
mod host_compiler;
mod host_memory;
mod interpreter;
mod kernel_image;
pub mod library;
mod loader_version;
mod loss_target;
mod names;
mod namesake;
mod not_installed;
mod numpy_api;
mod nvcc;
mod oom;
mod pip_index;
mod program;
mod ptx_isa;
mod python_abi;
mod requirement;
mod saved_file;
mod shadowed;
mod signature;
mod text;
mod unbuilt;
mod unpickle;

pub use extension::CAUSE as EXTENSION;
/// The cause of a library the loader could not find.
pub use library::MISSING as LIBRARY_MISSING;
pub use library::is_loader_failure;

use super::traceback::Traceback;
use crate::facts::Facts;
use crate::knowledge::tables::Tables;

/// The file a message says the module it could not import a name from was
/// found in: `cannot import name 'X' from 'M' (/path/M/__init__.py)`.
pub fn import_found_in(message: &str) -> Option<&str> {
    let (_, module) = text::name_not_importable(message)?;
    text::import_found_at(message, module)
}

/// One cause read from the failure's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The knowledge entry it supports.
    pub cause: &'static str,
    /// What was read, in words: "the message requires accelerate>=0.20.1".
    pub said: String,
    /// Node facts compared with what was read: `Some(true)` confirms,
    /// `Some(false)` contradicts, `None` could not be settled.
    pub node: Vec<(Option<bool>, String)>,
    /// The fix with the packages and versions filled in; empty where the
    /// reading fills nothing in, and the entry's own fix stands.
    pub fix: String,
    /// The reading names its cause outright (a stated bound that the message
    /// or the node shows unmet); else it only points at it.
    pub stated: bool,
    /// The reading alone cannot tell its cause from a sibling (a CUDA library
    /// missing, or an extension built for another CUDA, while torch's CUDA is
    /// unknown): it is listed, never named.
    pub settles: bool,
    /// Sibling causes the reading shows are not the cause (a missing CUDA 10
    /// runtime is an extension built for CUDA 10, not a library to install).
    pub rules_out: Vec<&'static str>,
}

impl Reading {
    /// A reading whose words name its cause outright and settle it, ruling
    /// out no sibling: most readings of a stated requirement or refusal.
    fn stated_outright(cause: &'static str, said: String, node: Vec<(Option<bool>, String)>, fix: String) -> Reading {
        Reading {
            cause,
            said,
            node,
            fix,
            stated: true,
            settles: true,
            rules_out: Vec::new(),
        }
    }
}

/// The causes the readers read, which are generic: any package's requirement,
/// any library, any extension. An entry about one package's case of them
/// (flash-attn built for another torch) says more.
pub const GENERIC: [&str; 14] = [
    requirement::PACKAGE,
    requirement::TOOLKIT,
    requirement::CUDA_HOME,
    requirement::CUDNN,
    requirement::ARCH,
    library::MISSING,
    extension::CAUSE,
    names::CAUSE,
    not_installed::CAUSE,
    not_installed::BUILD_ISOLATION,
    saved_file::CAUSE,
    saved_file::OTHER_GPU,
    interpreter::CAUSE,
    program::CAUSE,
];

/// Failure messages a reader reads whose words no entry lists as its
/// symptom, since alone they point to no one cause: xformers' refusal, whose
/// reasons under each operator tell which. They are found without an
/// exception class in front, as entries' messages are.
pub const MESSAGES_READ: [&str; 3] = [
    "No operator found for `memory_efficient_attention",
    "No operator found for memory_efficient_attention",
    // pip's report of the requirements its install left unmet
    // (src/pip/_internal/commands/install.py, _warn_about_conflicts): `rembg
    // 2.0.29 requires uvicorn==0.20.0, but you have uvicorn 0.17.6 which is
    // incompatible.` ("you'll have" before pip 20.3's resolver). Read in a log
    // of any length; a failure of its own after it still decides.
    "which is incompatible.",
];

/// Whether a bare line is one of [`MESSAGES_GONE_ON`].
pub fn is_gone_on(traceback: &Traceback) -> bool {
    traceback.frames().next().is_none() && traceback.raised().is_some_and(|raised| says_gone_on(&raised.message))
}

/// Whether `line` holds words of [`MESSAGES_GONE_ON`].
pub fn says_gone_on(line: &str) -> bool {
    MESSAGES_GONE_ON.iter().any(|words| line.contains(words))
}

/// Lines the readers read that a job goes on past, as past a warning: a
/// failure after one decides, and one decides only where nothing else failed
/// (signals::known_message marks them so).
pub const MESSAGES_GONE_ON: [&str; 5] = [
    // NVIDIA Warp's warning at init, on a line of its own under `Warp
    // UserWarning:`; Warp goes on without CUDA (driver.rs).
    "The minimum required CUDA driver version is",
    // A shell's words for a command on no PATH folder (program.rs): bash's,
    // zsh's, Windows cmd's and PowerShell's. A script goes on past one (a
    // cleanup step, a probe for git's commit hash).
    ": command not found",
    "zsh: command not found: ",
    "is not recognized as an internal or external command",
    "is not recognized as the name of a cmdlet",
];

/// What the readers know of the run: the node's facts, when they are the log's.
#[derive(Clone, Copy)]
pub struct Context<'f> {
    /// `None` when the facts cannot speak for the log (it came from elsewhere).
    pub facts: Option<&'f Facts<'f>>,
    /// A package missing from the facts was missing from the run: the log ran
    /// from this environment. Else an absence only says the report did not list it.
    pub absence_is_a_fact: bool,
    /// The GPU and CUDA tables, to date what a message names.
    pub tables: Option<&'f Tables>,
    /// The lines printed before the failure, warnings and notes included:
    /// what its printer said on the way to it (pip's retries of an index it
    /// could not reach, the releases it passed over for their Requires-Python).
    pub earlier: &'f [String],
    /// What the whole log shows of the frameworks it ran: a log that shows
    /// only TensorFlow asks nothing of torch.
    pub frameworks: Option<&'f crate::explain::frameworks::FrameworksShown>,
}

#[cfg(test)]
impl<'f> Context<'f> {
    /// No facts: what the words alone say.
    pub fn alone() -> Self {
        Context {
            facts: None,
            absence_is_a_fact: false,
            tables: None,
            earlier: &[],
            frameworks: None,
        }
    }

    /// No facts: what the words say, read against the knowledge's tables.
    pub fn with_tables(tables: &'f Tables) -> Self {
        Context {
            tables: Some(tables),
            ..Context::alone()
        }
    }
}

/// What `read` makes of `log` alone, with no earlier lines: the readers' tests.
#[cfg(test)]
pub(super) fn read_alone(read: fn(&str, &Traceback, Context) -> Option<Reading>, log: &str) -> Option<Reading> {
    let (traceback, text) = parsed(log);
    read(&text, &traceback, Context::alone())
}

/// What `read` says with the recorded H100's Snapshot as the node, after
/// `edit` changed it (a Python version, torch's CUDA, the GPUs).
#[cfg(test)]
pub(crate) fn read_on_recorded_h100<R>(
    edit: impl FnOnce(&mut serde_json::Value),
    read: impl FnOnce(Context) -> R,
) -> R {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json"
    );
    let mut snapshot: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut snapshot);
    let snapshot: crate::snapshot::Snapshot = serde_json::from_value(snapshot).unwrap();
    let configs = crate::configs::TrainingConfigs::default();
    let facts = crate::facts::Facts::new(&snapshot, &configs);
    let tables = crate::matrix::builtin_tables().unwrap();
    read(Context {
        facts: Some(&facts),
        absence_is_a_fact: false,
        tables: Some(&tables),
        earlier: &[],
        frameworks: None,
    })
}

/// A Snapshot (as JSON) with `name` at `version` installed besides its own
/// packages, listed as the recorded ones are.
#[cfg(test)]
pub(crate) fn add_package(snapshot: &mut serde_json::Value, name: &str, version: &str) {
    let packages = snapshot["packages"].as_array_mut().unwrap();
    let mut package = packages[0].clone();
    package["name"] = serde_json::json!(name);
    package["normalized_name"] = serde_json::json!(name);
    package["version"] = serde_json::json!(version);
    packages.push(package);
}

/// A Snapshot (as JSON) whose torch is `version` (`1.8.1+cu101`): its
/// release, build, variant, CUDA and package entry, as a report of that
/// torch would have them.
#[cfg(test)]
pub(crate) fn set_torch_build(snapshot: &mut serde_json::Value, version: &str) {
    let public = version.split('+').next().unwrap_or(version);
    let cuda = version
        .split_once("+cu")
        .map(|(_, digits)| format!("{}.{}", &digits[..digits.len() - 1], &digits[digits.len() - 1..]));
    let torch = &mut snapshot["frameworks"]["torch"];
    torch["version"] = serde_json::json!(public);
    torch["build"]["version"] = serde_json::json!(version);
    torch["build"]["variant"] = serde_json::json!(version.split_once('+').map(|(_, local)| local));
    torch["build"]["cuda"] = serde_json::json!(cuda);
    for package in snapshot["packages"].as_array_mut().into_iter().flatten() {
        if package["name"] == "torch" {
            package["version"] = serde_json::json!(public);
        }
    }
}

/// A log's first traceback (or the log as one bare line) and its messages'
/// text, as the readers see them.
#[cfg(test)]
pub(crate) fn parsed(log: &str) -> (Traceback, String) {
    let traceback = super::traceback::parse(log).into_iter().next().unwrap_or_else(|| {
        let raised = super::traceback::Raised {
            exception: "warning".into(),
            message: log.into(),
        };
        Traceback::bare(1, raised)
    });
    let text: Vec<&str> = traceback.messages().map(|raised| raised.message.as_str()).collect();
    let text = text::squeeze_spaces(&text.join("\n"));
    (traceback, text)
}

/// Namespace packages that many distributions share (`google.protobuf`,
/// `google.cloud`, `nvidia.cudnn`, `azure.storage`): the namespace alone names
/// none of them.
const NAMESPACES: [&str; 6] = ["google", "azure", "nvidia", "backports", "mpl_toolkits", "zope"];

/// Who a reading names when neither the message nor a frame names the package
/// whose compiled library failed.
const UNKNOWN_ASKER: &str = "a compiled library of this run";

/// The package a library path in the message belongs to
/// (`.../site-packages/apex/fused_layer_norm_cuda.cpython-310-x86_64-linux-gnu.so:`).
fn package_of_library_path(text: &str) -> Option<&str> {
    text.split(|c: char| c.is_whitespace() || c == '\'' || c == '"' || c == '(')
        .filter(|token| token.contains(".so"))
        .find_map(|token| super::frame_package(token.trim_end_matches(':')))
        .filter(|package| *package != super::STDLIB)
        .map(|package| match package.split_once('.') {
            // A compiled module straight in site-packages
            // (`causal_conv1d_cuda.cpython-310-x86_64-linux-gnu.so`) is its package's.
            Some((module, _)) => extension::package_of_compiled_module(module),
            None => package,
        })
}

/// The innermost frame's package, the lookup machinery's, ctypes' and
/// torch's own frames passed over.
fn innermost_package(traceback: &Traceback) -> Option<&str> {
    traceback
        .frames()
        .filter_map(|frame| super::frame_package(&frame.file))
        .filter(|package| !super::is_lookup_machinery(package) && !matches!(*package, "ctypes" | "torch"))
        .last()
}

/// The folder of `package` that the frames show the job imported it from,
/// where that is a source tree (a checkout), not installed code:
/// `/home/u/torch-int/torch_int` for `torch_int`.
fn source_tree_of(package: &str, traceback: &Traceback) -> Option<String> {
    traceback
        .frames()
        .filter(|frame| !super::is_installed_code(&frame.file))
        .find_map(|frame| {
            let file = frame.file.as_str();
            let mut at = 0;
            for part in file.split(['/', '\\']) {
                let end = at + part.len();
                if part == package && end < file.len() {
                    return Some(file[..end].to_string());
                }
                at = end + 1;
            }
            None
        })
}

/// The distribution whose file failed: the library path the message names,
/// else the innermost frame in a package.
fn owner_of_failure(text: &str, traceback: &Traceback) -> Option<String> {
    package_of_library_path(text)
        .or_else(|| innermost_package(traceback))
        .map(super::distribution_of)
}

/// `owner`'s requirement on `dependency`, where it applies here, judged
/// against the version installed.
pub(super) struct Judged {
    /// The installed one is outside it.
    pub outside: bool,
    /// `>=0.4.2,<0.5`
    pub specifiers: String,
    pub text: String,
}

/// Read as the requirements check reads it (pip's markers, no extra), so
/// explain and `check` never judge one pair two ways.
pub(super) fn requirement_judged(facts: &Facts, owner: &str, dependency: &str) -> Option<Judged> {
    let package = facts.package(owner)?;
    let installed = facts.package_version(dependency)?;
    let specifiers = crate::builtin_checks::specifiers_on(facts, package, dependency)?;
    let version = package.version.as_deref().unwrap_or("?");
    let outside = !specifiers.contains(&std::str::FromStr::from_str(&installed.to_string()).ok()?);
    Some(Judged {
        outside,
        specifiers: specifiers.to_string(),
        text: format!(
            "{owner} {version} requires {dependency}{specifiers}; {dependency} {installed} is installed here"
        ),
    })
}

/// A message in the words the readers and every cause's messages match,
/// whoever printed it: dyld's in ld.so's (`Library not loaded: @rpath/x.dylib`
/// is `x.dylib: cannot open shared object file`), an exit status followed by
/// what it says (`exit status 137` is SIGKILL).
pub fn in_common_words(message: &str) -> String {
    dyld::in_linux_words(&super::signals::with_exit_status_read(message)).into_owned()
}

/// Every reading of one traceback, its messages and frames.
pub fn read(traceback: &Traceback, context: Context) -> Vec<Reading> {
    let messages: Vec<_> = traceback
        .sections
        .iter()
        .filter_map(|section| {
            let raised = section.raised.as_ref()?;
            let completed = text::import_message_completed(&raised.message, section.import_statement.as_deref());
            Some(in_common_words(&completed))
        })
        .collect();
    // Messages are wrapped and padded as their printers please (`compiled  against`).
    let text = text::squeeze_spaces(&messages.join("\n"));
    let mut readings = Vec::new();
    readings.extend(requirement::read(&text, context));
    readings.extend(accelerator::read(&text));
    readings.extend(pip_index::read(&text, context));
    readings.extend(shadowed::read(&text));
    readings.extend(library::read(&text, traceback, context));
    readings.extend(extension::read(&text, traceback, context));
    readings.extend(extension::read_cuda_disagreement(&text));
    readings.extend(extension::read_source_for_other_torch(&text));
    readings.extend(gpu_part::read(&text, traceback, context));
    readings.extend(interpreter::read(&text, traceback, context));
    readings.extend(python_abi::read(&text, traceback));
    readings.extend(numpy_api::read(&text, traceback, context));
    readings.extend(namesake::read(&text, traceback, context));
    readings.extend(names::read(&text, traceback, context));
    readings.extend(enum_member::read(traceback, context));
    readings.extend(signature::read(&text, traceback, context));
    readings.extend(driver::read(&text, traceback, context));
    readings.extend(collective::read(&text, context));
    readings.extend(nvcc::read(&text, context));
    readings.extend(host_compiler::read(&text, context));
    readings.extend(kernel_image::read(&text, traceback, context));
    readings.extend(ptx_isa::read(&text, context));
    readings.extend(unbuilt::read(&text, traceback, context));
    readings.extend(not_installed::read(&text, traceback, context));
    readings.extend(loader_version::read(&text, context));
    readings.extend(loss_target::read(&text));
    readings.extend(unpickle::read(&text));
    readings.extend(program::read(traceback, context.earlier));
    readings.extend(fbgemm::read(&text));
    readings.extend(saved_file::read(&text, context));
    readings.extend(oom::read(&text, context));
    readings.extend(host_memory::read(&text, traceback, context));
    readings.extend(auto_config::read(traceback, context));
    // One reading per cause: the first (the most specific reader) wins.
    let mut seen: Vec<&str> = Vec::new();
    readings.retain(|reading| {
        let fresh = !seen.contains(&reading.cause);
        seen.push(reading.cause);
        fresh
    });
    readings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::traceback::parse;

    /// A library in a package's folder is that package's; a compiled module
    /// straight in site-packages is the package it is named after.
    #[test]
    fn a_librarys_path_names_the_package_it_belongs_to() {
        let owner = |path: &str| {
            package_of_library_path(&format!("ImportError: {path}: undefined symbol: _ZN3c104x")).map(str::to_string)
        };
        assert_eq!(
            owner("/v/lib/python3.10/site-packages/causal_conv1d_cuda.cpython-310-x86_64-linux-gnu.so"),
            Some("causal_conv1d".to_string())
        );
        assert_eq!(
            owner("/v/lib/python3.10/site-packages/mmcv/_ext.cpython-310-x86_64-linux-gnu.so"),
            Some("mmcv".to_string())
        );
        assert_eq!(
            owner("/v/lib/python3.10/site-packages/_C.cpython-310-x86_64-linux-gnu.so"),
            Some("_C".to_string())
        );
        assert_eq!(owner("/home/me/proj/x_cuda.so"), None);
    }

    #[test]
    fn a_plain_error_reads_as_nothing() {
        let traceback = &parse(
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\nValueError: learning rate schedule is empty\n",
        )[0];
        assert!(read(traceback, Context::alone()).is_empty());
    }
}
