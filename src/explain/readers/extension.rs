//! A compiled extension built against another torch, recognized from its own
//! file and words: a torch C++ symbol (`_ZN3c10...`) undefined in a `.so`
//! under a package, `xFormers was built for: PyTorch 2.3.0+cu121 ... (you
//! have 2.1.0+cu121)`, an operator its library registers missing
//! (`operator torchvision::nms does not exist`), or a package calling a torch
//! API the installed torch lacks (`module 'torch.compiler' has no attribute
//! 'is_compiling'`). The owner is named, with the torch it was built for
//! (where the log or its `Requires-Dist` says) and the torch installed.

use super::text;
use super::{Context, Reading};
use crate::explain::traceback::Traceback;
use crate::facts::Facts;
use crate::knowledge::name_history;

pub const CAUSE: &str = "extension-built-for-other-torch";
pub const CPU_TORCH: &str = "torch-cpu-only-build";

/// torch's C++ namespaces (c10, at, torch, caffe2), and the prefixes of its C
/// APIs (the THC of torch 1.x, the THP of its Python bindings).
const TORCH_NAMESPACES: [&str; 4] = ["c10", "at", "torch", "caffe2"];
const TORCH_C_PREFIXES: [&str; 2] = ["THC", "THP"];

/// Whether a mangled symbol is torch's own: the first name it mangles (its
/// namespace, or a free function's name) is torch's. A function of another
/// library that takes an `at::Tensor` (`_Z36three_interpolate_grad_wrapper_stackN2at6TensorE...`)
/// mentions torch in its parameters only, and is that library's.
fn is_torch_symbol(symbol: &str) -> bool {
    let Some(rest) = symbol.strip_prefix("_Z") else {
        return false;
    };
    // typeinfo and vtables (`_ZTIN3c10...`), then a nested name and its qualifiers (`_ZNK2at...`).
    let rest = rest
        .strip_prefix("TI")
        .or_else(|| rest.strip_prefix("TV"))
        .or_else(|| rest.strip_prefix("TS"))
        .unwrap_or(rest);
    let rest = rest
        .strip_prefix('N')
        .unwrap_or(rest)
        .trim_start_matches(['K', 'V', 'r']);
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let Ok(length) = rest[..digits].parse::<usize>() else {
        return false;
    };
    let Some(name) = rest.get(digits..digits + length) else {
        return false;
    };
    // `__THCudaCheck`: torch 1.x's C API kept its prefix behind underscores too.
    let c_name = name.trim_start_matches('_');
    TORCH_NAMESPACES.contains(&name)
        || TORCH_C_PREFIXES.iter().any(|prefix| c_name.starts_with(prefix))
        || (name == "pybind11" && casts_a_torch_type(&rest[digits + length..]))
}

/// pybind11's caster of a torch type (`pybind11::detail::type_caster<at::Tensor>::cast`,
/// mangled `_ZN8pybind116detail11type_casterIN2at6TensorE...`): torch
/// specializes it in its own Python bindings (torch/csrc/utils/pybind.h) and
/// libtorch_python exports it, so an extension that calls it needs the torch
/// it was built with. `after` is what follows `8pybind11`.
fn casts_a_torch_type(after: &str) -> bool {
    let Some(argument) = after.strip_prefix("6detail11type_casterIN") else {
        return false;
    };
    let digits = argument.find(|c: char| !c.is_ascii_digit()).unwrap_or(argument.len());
    let Ok(length) = argument[..digits].parse::<usize>() else {
        return false;
    };
    argument
        .get(digits..digits + length)
        .is_some_and(|namespace| TORCH_NAMESPACES.contains(&namespace))
}

/// Packages whose libraries are built with torch, release for release: any
/// symbol missing from them is torch's.
const TORCH_COMPANIONS: [&str; 2] = ["torchvision", "torchaudio"];

/// Operators a library registers with torch, by the library that owns them.
const OPERATOR_OWNERS: [(&str, &str); 2] = [
    ("operator torchvision::", "torchvision"),
    ("operator torchaudio::", "torchaudio"),
];

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    // A torch name a package's Python code uses and this torch lacks: the
    // package is made for another torch, but nothing compiled is involved,
    // so no rebuild helps.
    let mut python_code = false;
    let mut job_code = false;
    // xformers' list of operators it refused says a build did not load, not
    // which: one made for another torch, or one without CUDA at all.
    let mut build_unsaid = false;
    let mut torch_dated = None;
    let (owner, said, built_for) = if let Some(found) = built_for(text) {
        found
    } else if let Some((symbol, owner)) = torch_symbol(text, traceback) {
        (
            owner.clone(),
            format!(
                "{owner}'s compiled library lacks torch's symbol {symbol}{}",
                abi_note(symbol, &owner)
            ),
            None,
        )
    } else if let Some((symbol, module)) = torch_symbol_in_a_bare_module(text) {
        // Named by its file alone: the module is known, the distribution that
        // installs it is not (transformer_engine_extensions is transformer-engine's).
        let reading = Reading {
            cause: CAUSE,
            said: format!(
                "the compiled module {module} lacks torch's symbol {symbol}{}",
                abi_note(symbol, module)
            ),
            node: Vec::new(),
            fix: format!(
                "find the package that installs the module {module} (python -c 'import {module}; print({module}.__file__)' shows where it lies; pip show -f PACKAGE lists a package's files), then install its build made for the installed torch, or rebuild it against it: pip install --force-reinstall --no-cache-dir --no-build-isolation PACKAGE"
            ),
            stated: false,
            settles: true,
            rules_out: Vec::new(),
        };
        return Some(unless_imported_before_torch(reading, module, traceback));
    } else if let Some(built_here) = torch_symbol_in_a_source_tree(text) {
        // Built in its source tree (`python setup.py develop`), not installed:
        // no index has it, so the fix is a rebuild where it lies.
        let BuiltHere { symbol, module, tree } = built_here;
        let reading = Reading {
            cause: CAUSE,
            said: format!("{module}'s compiled library, built in {tree}, lacks torch's symbol {symbol}"),
            node: Vec::new(),
            fix: format!(
                "rebuild {module} against the installed torch where it lies: cd to the source tree holding {tree}, remove its build/ directory and the old .so, and rerun its build (pip install -e . --no-build-isolation, or the python setup.py develop its README gives)"
            ),
            stated: false,
            settles: true,
            rules_out: Vec::new(),
        };
        return Some(unless_imported_before_torch(reading, module, traceback));
    } else if let Some(unregistered) = operator_never_registered(&lower, traceback) {
        // `torch.ops.torchvision.nms` before `import torchvision`, or a library that did not load.
        let Unregistered {
            namespace,
            module,
            distribution,
        } = unregistered;
        return Some(Reading {
            cause: CAUSE,
            said: format!(
                "torch has no {namespace} operators: {module} was not imported, or its compiled library did not load"
            ),
            node: vec![(
                None,
                format!(
                    "whether the code imported {module} before calling torch.ops.{namespace} (an import registers its operators)"
                ),
            )],
            fix: format!(
                "import {module} before calling its operators through torch.ops; if it is imported, install the {distribution} release made for the installed torch (its own import error, printed above the operator's, says what did not load)"
            ),
            stated: false,
            settles: false,
            rules_out: Vec::new(),
        });
    } else if let Some((owner, operator)) = no_cuda_kernel(&lower) {
        if let Some(reading) = built_without_cuda(text, &lower, &owner, &operator) {
            return Some(reading);
        }
        // A CPU wheel of the package beside a CUDA torch registers only its CPU kernels.
        let installed = context.facts.and_then(|facts| facts.package(&owner)?.version.clone());
        let cpu_build = installed.as_deref().map(|version| version.ends_with("+cpu"));
        let node = match (&installed, cpu_build) {
            (Some(version), Some(true)) => {
                vec![(Some(true), format!("{owner} {version} is installed here: a CPU build"))]
            }
            _ => vec![(
                None,
                format!(
                    "which {owner} build ran: python -c 'import {module}; print({module}.__version__)' (a CUDA build ends in +cuXXX like torch; a CPU wheel in +cpu, or in nothing where PyPI's default is CPU-only, as on Windows)",
                    module = owner.replace('-', "_")
                ),
            )],
        };
        return Some(Reading {
            cause: CAUSE,
            said: format!(
                "{operator} has no CUDA kernel: {owner} is a build without CUDA (a CPU wheel beside a CUDA torch), or made for another torch"
            ),
            node,
            fix: format!(
                "install the {owner} build paired with the installed torch from the same index torch came from (pip install --force-reinstall torch {owner} --index-url https://download.pytorch.org/whl/cuXYZ, XYZ torch's CUDA)"
            ),
            stated: cpu_build == Some(true),
            settles: cpu_build == Some(true),
            rules_out: Vec::new(),
        });
    } else if let Some(refusal) = xformers_refusal(text) {
        let said = match refusal {
            // Every operator refused the inputs themselves: no build of
            // xformers takes them, so its build is not what failed.
            Refusal::ByTheInputs => return None,
            Refusal::BuildOnly(operator) => {
                build_unsaid = !xformers_says_its_build(text, context.earlier);
                format!(
                    "xformers lists {operator} as refusing these inputs only because it was not built: its compiled library did not load for this torch"
                )
            }
            Refusal::Unlisted => {
                "xformers found no operator for memory_efficient_attention: its compiled library did not load for this torch, or the inputs suit none (the reasons it lists under each operator tell which)".to_string()
            }
        };
        ("xformers".to_string(), said, None)
    } else if let Some((_, owner)) = OPERATOR_OWNERS.iter().find(|(words, _)| lower.contains(words)) {
        (
            owner.to_string(),
            format!(
                "the operators {owner} registers with torch are missing: its compiled library did not load for this torch"
            ),
            None,
        )
    } else if let Some(owner) = windows_procedure_missing(text, traceback) {
        (
            owner.clone(),
            format!(
                "Windows did not find a function {owner}'s compiled module imports (\"The specified procedure could not be found\"): it was built against another torch than the one loaded"
            ),
            None,
        )
    } else if let Some(attribute) = torch_attribute(text)
        .or_else(|| torch_import_missing(text, traceback))
        .filter(|name| made_for_another_torch(name, text))
    {
        python_code = true;
        torch_dated = TorchDated::of(text, &attribute, context.facts);
        let dated = torch_dated
            .as_ref()
            .map_or_else(String::new, |dated| format!("; {}", dated.said));
        match super::innermost_package(traceback).map(crate::explain::distribution_of) {
            Some(owner) => (
                owner.clone(),
                format!(
                    "{owner} calls {attribute}, which the torch that ran does not have: {owner} is made for another torch{dated}"
                ),
                None,
            ),
            None if is_torch_private(&attribute) || found_in_installed_torch(text) || torch_dated.is_some() => {
                job_code = true;
                (
                    JOB_CODE.to_string(),
                    format!(
                        "the code that {} {attribute} ({}) was written for another torch: the torch that ran does not have it, and {}",
                        if torch_attribute(text).is_some() {
                            "uses"
                        } else {
                            "imports"
                        },
                        importing_file(traceback)
                            .map_or_else(|| "no frame names it".to_string(), |file| format!("in {file}")),
                        if let Some(dated) = &torch_dated {
                            dated.said.clone()
                        } else if is_torch_private(&attribute) {
                            "a name private to torch is no typo of the job's".to_string()
                        } else {
                            "the message found the module in the installed torch, not in a file shadowing it"
                                .to_string()
                        }
                    ),
                    None,
                )
            }
            None => return None,
        }
    } else {
        return None;
    };
    // Built for a CUDA torch, run with a CPU build: torch is the one to change.
    let ran_with_cpu_torch = built_for.as_ref().is_some_and(|built| {
        built.for_a_cuda_build && built.ran_with.as_deref().is_some_and(|torch| torch.ends_with("+cpu"))
    });
    if ran_with_cpu_torch {
        return Some(Reading::stated_outright(CPU_TORCH, said, Vec::new(), "install a CUDA build of torch (pip install torch --index-url https://download.pytorch.org/whl/cuXYZ, XYZ the CUDA the driver supports)".to_string()));
    }
    let mut node = Vec::new();
    let mut stated = built_for.is_some();
    if let Some(facts) = context.facts {
        if let Some(judged) =
            super::requirement_judged(facts, &owner, "torch").map(|judged| (Some(judged.outside), judged.text))
        {
            stated |= judged.0 == Some(true);
            node.push(judged);
        } else if torch_dated.is_none()
            && let Some(torch) = torch_here(facts)
        {
            node.push((None, format!("torch {torch} is installed here")));
        }
    }
    // The dating says what the torch installed here is, and whether it has the name.
    if let Some(dated) = &torch_dated {
        stated |= dated.installed.0 == Some(true);
        node.push(dated.installed.clone());
    }
    let fix = match &built_for {
        _ if job_code => match &torch_dated {
            Some(dated) => format!(
                "install a torch release that has it: pip install \"torch{}\" --index-url https://download.pytorch.org/whl/cuXYZ (XYZ: the CUDA build the node needs), or change the code to the name the installed torch has",
                dated.specifier
            ),
            None => "install the torch release the code was written for (the project's requirements file or README names it), or change the import to the name the installed torch has".to_string(),
        },
        _ if python_code => format!(
            "make {owner} and torch agree: install the torch release {owner} is made for (pip show {owner} lists its requirement on torch; reinstall torch from the index it came from{}), or the {owner} release made for the installed torch",
            torch_dated.as_ref().map_or_else(String::new, |dated| format!("; torch{} has the name", dated.specifier))
        ),
        Some(Built { torch: version, .. }) => format!(
            "install the {owner} build made for the torch installed (pip install -U {owner} picks one where it publishes wheels per torch), or install the torch it was built for: pip install \"torch=={}\"",
            release_pin(version)
        ),
        None if matches!(owner.as_str(), "torchvision" | "torchaudio") => format!(
            "install the {owner} release paired with the installed torch, from the same index (pip install --force-reinstall torch {owner} together, with the index URL torch came from)"
        ),
        None => format!(
            "install the {owner} build made for the installed torch, or rebuild it here against it: pip install --force-reinstall --no-cache-dir --no-build-isolation {owner}"
        ),
    };
    if build_unsaid {
        node.push((
            None,
            "which xformers build ran and what it was built for: python -m xformers.info (a wheel made for another torch, or one built without CUDA, refuses its operators alike; xformers' own warning `xFormers was built for: PyTorch ...` says which)".to_string(),
        ));
    }
    let reading = Reading {
        cause: CAUSE,
        said,
        node,
        fix,
        stated,
        settles: !build_unsaid,
        rules_out: Vec::new(),
    };
    // A torch name in Python code, or a torch the extension states it was
    // built for, is no matter of which library was loaded first.
    match super::package_of_library_path(text).filter(|_| !python_code && built_for.is_none()) {
        Some(module) => Some(unless_imported_before_torch(reading, module, traceback)),
        None => Some(reading),
    }
}

/// Imported at a prompt, an extension may have come before `import torch`,
/// which loads the libraries its torch symbols resolve in: a build for this
/// very torch fails the same way there (3d-coded4), so the reading stays open
/// until the session shows torch imported first. Every reading of a torch
/// symbol missing from a module passes through here.
fn unless_imported_before_torch(mut reading: Reading, module: &str, traceback: &Traceback) -> Reading {
    if !imported_at_a_prompt(traceback) || torch_typed(traceback) {
        return reading;
    }
    reading.node.push((
        None,
        format!(
            "whether torch was imported before {module} in that session: it is imported at a prompt, and an extension resolves torch's symbols only in the libraries `import torch` loads"
        ),
    ));
    reading.fix = format!(
        "import torch before {module} (python -c 'import torch, {module}'); if the symbol is still missing, {}",
        reading.fix
    );
    reading.stated = false;
    reading.settles = false;
    reading
}

/// Whether the failing import was typed at a prompt or given to `python -c`:
/// every frame is `<stdin>` or `<string>`, so no package's code (which would
/// import torch first) ran before it.
fn imported_at_a_prompt(traceback: &Traceback) -> bool {
    traceback.frames().next().is_some()
        && traceback
            .frames()
            .all(|frame| frame.may_be_pseudo_file("<stdin>") || frame.may_be_pseudo_file("<string>"))
}

/// Whether the session the log shows imported torch at its prompt
/// (`>>> import torch`, `>>> import os, torch.nn`, `>>> from torch import nn`).
fn torch_typed(traceback: &Traceback) -> bool {
    traceback.typed.iter().any(|statement| {
        let words = || statement.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'));
        words().any(|word| word == "import") && words().any(|word| word == "torch" || word.starts_with("torch."))
    })
}

/// What a library says of the torch its compiled part was built for, in one
/// of the wordings below.
fn built_for(text: &str) -> Option<(String, String, Option<Built>)> {
    was_built_for(text).or_else(|| builds_found_for(text))
}

/// The loader of lab-cosmo's torch extensions (metatensor-torch, and those
/// built on it), which ships one build per torch release and lists them:
/// `Trying to load metatensor-torch with torch v2.7.0+cu126, we found builds
/// for torch v2.3, v2.2, v2.6; which are not ABI compatible.`
fn builds_found_for(text: &str) -> Option<(String, String, Option<Built>)> {
    const FOUND: &str = ", we found builds for torch ";
    let at = text.find(FOUND)?;
    let (before, with) = text[..at].rsplit_once(" with torch v")?;
    let owner = before.rsplit_once(" load ")?.1.trim();
    let plausible = !owner.is_empty()
        && owner
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let have = with.trim();
    if !plausible || have.parse::<pep440_rs::Version>().is_err() {
        return None;
    }
    let listed = text[at + FOUND.len()..]
        .split([';', '\n'])
        .next()?
        .trim_end_matches('.');
    let mut builds: Vec<pep440_rs::Version> = listed
        .split(", ")
        .filter_map(|build| build.trim().trim_start_matches('v').parse().ok())
        .collect();
    builds.sort();
    let newest = builds.last()?.to_string();
    let owner = owner.to_ascii_lowercase();
    Some((
        owner.clone(),
        format!(
            "the message says {owner} has builds for torch {} only, and the run has torch {have}",
            builds.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        ),
        Some(Built {
            torch: newest,
            ran_with: Some(have.to_string()),
            // One build per torch release serves its CPU and CUDA variants alike.
            for_a_cuda_build: false,
        }),
    ))
}

/// `xFormers was built for: PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)`.
fn was_built_for(text: &str) -> Option<(String, String, Option<Built>)> {
    let at = text.find(" was built for")?;
    // `it was built for`: a word of the sentence names no package (the kind
    // of blinklinmult17's `in`), and the reading is not this one's.
    let owner = text::name_before(&text[..at])
        .filter(|name| !text::is_prose_word(name))?
        .to_ascii_lowercase();
    let rest = &text[at..];
    let version = text::version_after(rest, "PyTorch")?;
    let ran_with = text::version_after(rest, "you have");
    let have = ran_with.unwrap_or("another version");
    Some((
        owner.clone(),
        format!("the message says {owner} was built for torch {version} and the run has torch {have}"),
        Some(Built {
            torch: version.to_string(),
            ran_with: ran_with.map(str::to_string),
            for_a_cuda_build: version.contains("+cu"),
        }),
    ))
}

/// A release as `==` pins it: without its local tag, and a `major.minor`
/// (a build for any patch of it) as its patches' wildcard, which `==2.6`
/// (only 2.6.0) is not.
fn release_pin(version: &str) -> String {
    let release = version.split('+').next().unwrap_or(version);
    match release.matches('.').count() {
        1 => format!("{release}.*"),
        _ => release.to_string(),
    }
}

/// The torch an extension says it was built for, and the one it says ran.
struct Built {
    torch: String,
    ran_with: Option<String>,
    /// Built for a CUDA variant of that torch (`2.3.0+cu121`): run with a CPU
    /// build, torch is the one to change.
    for_a_cuda_build: bool,
}

/// A torch symbol the loader could not resolve in a package's library, and that package.
fn torch_symbol<'t>(text: &'t str, traceback: &Traceback) -> Option<(&'t str, String)> {
    let (_, symbol) = text::undefined_symbol(text)?;
    let owner = super::owner_of_failure(text, traceback)?;
    let torchs = is_torch_symbol(symbol) || symbol.starts_with("torch_") || TORCH_COMPANIONS.contains(&owner.as_str());
    torchs.then_some((symbol, owner))
}

/// Whether a file is a Python extension module (`_C.cpython-37m-x86_64-linux-gnu.so`, `ops.abi3.so`).
fn is_extension_module(file: &str) -> bool {
    file.ends_with(".so") && (file.contains(".cpython-") || file.contains(".abi3."))
}

/// A torch symbol missing from a Python extension module the message names
/// by its file alone (`transformer_engine_extensions.cpython-310-x86_64-linux-gnu.so:
/// undefined symbol: _ZN5torch...`), and the module: the file's name up to its
/// first dot. A private submodule (`_C`) names nothing anyone installs.
fn torch_symbol_in_a_bare_module(text: &str) -> Option<(&str, &str)> {
    let (before, symbol) = text::undefined_symbol(text)?;
    if !is_torch_symbol(symbol) {
        return None;
    }
    let file = before
        .trim_end_matches([':', ' '])
        .rsplit([' ', '\n', '\'', '"', '('])
        .next()?;
    if !is_extension_module(file) || file.contains('/') {
        return None;
    }
    let module = file.split('.').next()?;
    let named = module.starts_with(|c: char| c.is_ascii_alphabetic())
        && module.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    named.then_some((symbol, module))
}

/// What the symbol's spelling of `std::string` says of how `who` was built.
fn abi_note(symbol: &str, who: &str) -> String {
    string_abi(symbol)
        .map(|(abi, flag)| {
            format!(
                "; the symbol spells std::string in the {abi} ABI, so {who} was compiled with -D_GLIBCXX_USE_CXX11_ABI={flag}, and a torch built with the other ABI lacks it even at the same release (python -c 'import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)' says which torch has)"
            )
        })
        .unwrap_or_default()
}

/// The C++ ABI a mangled symbol's `std::string` is spelt in, and the value of
/// `_GLIBCXX_USE_CXX11_ABI` that gives it: the C++11 ABI's string lives in
/// `std::__cxx11` (`NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE`),
/// the older one is the abbreviation `Ss` (`RKSs`: a `const std::string&`).
/// Extensions built with torch's `cpp_extension` take the flag from torch;
/// one that sets it by hand can disagree with the torch it loads into.
fn string_abi(symbol: &str) -> Option<(&'static str, u8)> {
    if symbol.contains("__cxx11") {
        Some(("C++11", 1))
    } else if symbol.contains("RKSs") || symbol.contains("PKSs") {
        Some(("pre-C++11", 0))
    } else {
        None
    }
}

/// A Python extension module compiled in a project's own tree, not in
/// site-packages, that lacks a torch symbol:
/// `/home/me/FCOS/maskrcnn_benchmark/_C.cpython-37m-x86_64-linux-gnu.so:
/// undefined symbol: _ZN6caffe26detail...`.
struct BuiltHere<'t> {
    symbol: &'t str,
    /// The directory the module sits in: the Python package it belongs to.
    module: &'t str,
    tree: &'t str,
}

fn torch_symbol_in_a_source_tree(text: &str) -> Option<BuiltHere<'_>> {
    let (before, symbol) = text::undefined_symbol(text)?;
    if !is_torch_symbol(symbol) {
        return None;
    }
    let path = before
        .trim_end_matches([':', ' '])
        .rsplit([' ', '\n', '\'', '"'])
        .next()?;
    let (tree, file) = path.rsplit_once('/')?;
    // A Python extension module, outside any installed environment: an
    // absolute path, or one relative to where the job started (adelaidet181:
    // `adet/_C.cpython-37m-x86_64-linux-gnu.so`, the checkout's own package).
    let windows = tree.contains(':') || tree.contains('\\');
    if !is_extension_module(file) || tree.contains("-packages") || windows {
        return None;
    }
    let module = tree
        .rsplit('/')
        .next()
        .filter(|name| name.starts_with(|c: char| c.is_ascii_alphabetic()))?;
    Some(BuiltHere { symbol, module, tree })
}

/// What xformers' dispatcher says when no memory-efficient-attention operator
/// takes the inputs (`No operator found for `memory_efficient_attention_forward`
/// with inputs:`): under each operator (`` `cutlassF` is not supported
/// because:``), one reason a line (fmha/common.py, not_supported_reasons).
enum Refusal {
    /// An operator's only reasons are its build (`xFormers wasn't build with
    /// CUDA support`, `operator wasn't built`): built, it would have run.
    BuildOnly(String),
    /// Every operator lists a reason of the inputs (`device=cpu (supported:
    /// {'cuda'})`, a dtype, a head size, the GPU's capability).
    ByTheInputs,
    /// No reasons were posted: the line alone.
    Unlisted,
}

/// Words of a reason that is the build's, not the inputs'.
const BUILD_REASONS: [&str; 4] = [
    "wasn't build",
    "wasn't built",
    "was built without",
    "operator not available",
];

/// Each operator xformers lists under `No operator found`, with its reasons;
/// `None` where the text is no such refusal.
fn xformers_operators(text: &str) -> Option<Vec<(&str, Vec<&str>)>> {
    // A page that renders Markdown drops the backticks around the operator's name.
    let lower = text.to_ascii_lowercase().replace('`', "");
    if !lower.contains("no operator found for memory_efficient_attention") {
        return None;
    }
    let mut operators: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_suffix("is not supported because:") {
            operators.push((name.trim().trim_matches('`'), Vec::new()));
        } else if let Some((_, reasons)) = operators.last_mut()
            && !line.is_empty()
        {
            reasons.push(line);
        }
    }
    Some(operators)
}

/// A reason every operator xformers lists gives (`bf16 is only supported on
/// A100+ GPUs`): with it gone, an operator would have run; a reason only some
/// give (a capability the flash kernels need) leaves the others' open.
pub(super) fn xformers_reason_of_every_operator(text: &str) -> Option<String> {
    let operators = xformers_operators(text)?;
    let (_, first) = operators.first()?;
    first
        .iter()
        .find(|reason| operators.iter().all(|(_, reasons)| reasons.contains(reason)))
        .map(|reason| reason.to_string())
}

/// Whether xformers said, in the failure or a line before it, which build of
/// its compiled part failed to load (`WARNING[XFORMERS]: xFormers can't load
/// C++/CUDA extensions. xFormers was built for: PyTorch 2.1.0+cu121 ...`).
fn xformers_says_its_build(text: &str, earlier: &[String]) -> bool {
    std::iter::once(text)
        .chain(earlier.iter().map(String::as_str))
        .any(|line| line.to_ascii_lowercase().contains("xformers was built for"))
}

fn xformers_refusal(text: &str) -> Option<Refusal> {
    let operators = xformers_operators(text)?;
    if operators.is_empty() {
        return Some(Refusal::Unlisted);
    }
    let is_build = |reason: &&str| {
        let reason = reason.to_ascii_lowercase();
        BUILD_REASONS.iter().any(|words| reason.contains(words))
    };
    let build_only = operators
        .iter()
        .find(|(_, reasons)| !reasons.is_empty() && reasons.iter().all(is_build));
    Some(match build_only {
        Some((name, _)) => Refusal::BuildOnly(name.to_string()),
        None => Refusal::ByTheInputs,
    })
}

/// `Could not run 'torchvision::nms' with arguments from the 'CUDA' backend`:
/// an extension's operator with kernels for other backends only. The
/// namespace is the package's; torch's own (`aten::`) is not an extension's.
fn no_cuda_kernel(lower: &str) -> Option<(String, String)> {
    let rest = text::after_marker(lower, "could not run '")?;
    let (operator, after) = rest.split_once('\'')?;
    if !after.starts_with(" with arguments from the 'cuda' backend") {
        return None;
    }
    let (namespace, _) = operator.split_once("::")?;
    extension_namespace(namespace).then(|| (crate::explain::distribution_of(namespace), operator.to_string()))
}

/// The operator namespaces of packages PyTorch's own index publishes in a CPU
/// and a CUDA variant for each torch: their CPU build beside a CUDA torch is
/// a wheel chosen from the wrong index, not a build of the user's.
const TORCH_INDEX_NAMESPACES: [&str; 6] = [
    "torchvision",
    "torchaudio",
    "torchtext",
    "torchrec",
    "fbgemm",
    "torchao",
];

/// How a compiled extension module's name ends (lower case): the namespace a
/// setup.py's extension registers its operators under, as stable-fast-3d's
/// `texture_baker_cpp`. A namespace of other words (torch's own `quantized::`
/// and `onednn::`, pyg-lib's `pyg::`, a Python `torch.library` op's) may be
/// CPU-only by design, and vllm's bare `_C::` names no package.
const COMPILED_MODULE_ENDINGS: [&str; 6] = ["_cpp", "_cuda", "_ext", "_kernels", "_ops", "_c"];

/// An operator of a package built on the node (stable-fast-3d's
/// `texture_baker_cpp::rasterize`), which torch lists with a CPU kernel and no
/// CUDA one: the extension was compiled without its CUDA sources, as a
/// setup.py does where it finds no nvcc or CUDA_HOME, or torch saw no GPU at
/// build time and nothing forced CUDA. Read only where the namespace is named
/// as a compiled module is and the message lists the backends, CPU among them.
/// `lower` is `text` in lower case.
fn built_without_cuda(text: &str, lower: &str, owner: &str, operator: &str) -> Option<Reading> {
    let namespace = operator.split("::").next()?;
    let compiled_module = COMPILED_MODULE_ENDINGS
        .iter()
        .any(|ending| namespace.len() > ending.len() && namespace.ends_with(ending));
    if TORCH_INDEX_NAMESPACES.contains(&namespace) || !compiled_module {
        return None;
    }
    // The operator as the message writes it (lowering keeps byte offsets).
    let operator = lower
        .find(operator)
        .map_or(operator, |at| &text[at..at + operator.len()]);
    let listed = text::after_marker(lower, "is only available for these backends: [")?;
    let backends: Vec<&str> = listed.split(']').next()?.split(',').map(str::trim).collect();
    if !backends.contains(&"cpu") || backends.contains(&"cuda") {
        return None;
    }
    Some(Reading {
        cause: super::gpu_part::CAUSE,
        said: format!(
            "{operator} has a CPU kernel and no CUDA one: {owner} was compiled without its CUDA sources (its build found no nvcc or CUDA_HOME, or torch saw no GPU and nothing forced CUDA)"
        ),
        node: vec![(
            None,
            format!("whether {owner}'s build log shows nvcc compiling its .cu files (a build without CUDA shows none)"),
        )],
        fix: format!(
            "rebuild {owner} with CUDA: delete its build/ folder and the installed copy, then build it where nvcc is on PATH and python -c 'import torch; from torch.utils.cpp_extension import CUDA_HOME; print(torch.cuda.is_available(), CUDA_HOME)' prints True and a CUDA folder (with FORCE_CUDA=1, or the package's own switch such as USE_CUDA=1, where its setup.py reads one)"
        ),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// Whether an operator namespace is an extension's: an identifier, and not
/// one of torch's own (`aten::`, `prim::`, `c10d::`).
fn extension_namespace(namespace: &str) -> bool {
    !namespace.is_empty()
        && namespace.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(namespace, "aten" | "prim" | "prims" | "c10d" | "_c10d_functional")
}

/// `No such operator torchvision::nms`, or torch.ops' later wording
/// `'_OpNamespace' 'fbgemm' object has no attribute 'jagged_2d_to_dense'`:
/// torch.ops looked the operator up and nothing had registered it, which an
/// import does; unlike `operator torchvision::nms does not exist`, the
/// library may never have been asked to load. The owner is the innermost
/// package frame named after the namespace (`fbgemm_gpu` for `fbgemm::`),
/// else the namespace's distribution.
fn operator_never_registered<'t>(lower: &'t str, traceback: &'t Traceback) -> Option<Unregistered<'t>> {
    let namespace = match text::after_marker(lower, "no such operator ") {
        Some(rest) => rest.split_once("::")?.0,
        None => text::after_marker(lower, "'_opnamespace' '")?.split_once('\'')?.0,
    };
    if !extension_namespace(namespace) {
        return None;
    }
    let framed = traceback
        .frames()
        .filter_map(|frame| crate::explain::frame_package(&frame.file))
        .filter(|package| package.starts_with(namespace))
        .last();
    let module = framed.unwrap_or(namespace);
    Some(Unregistered {
        namespace,
        module,
        distribution: crate::explain::distribution_of(module),
    })
}

/// Operators torch.ops looked up and nothing registered.
struct Unregistered<'t> {
    /// As torch.ops names it: `fbgemm`.
    namespace: &'t str,
    /// The module whose import registers them: `fbgemm_gpu`.
    module: &'t str,
    distribution: String,
}

/// `ImportError: DLL load failed while importing exllamav2_ext: The specified
/// procedure could not be found.`: Windows' word for an undefined symbol. The
/// owner is the innermost package frame, else the module, its extension suffix
/// left off; torch's own modules failing so are not an extension's doing.
fn windows_procedure_missing(text: &str, traceback: &Traceback) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if !(lower.contains("dll load failed") && lower.contains("specified procedure could not be found")) {
        return None;
    }
    let owner = super::innermost_package(traceback)
        .map(crate::explain::distribution_of)
        .or_else(|| {
            let module = text::name_after(text::after_marker(text, "while importing ")?)?;
            Some(crate::explain::distribution_of(package_of_compiled_module(module)))
        })?;
    (owner != "torch").then_some(owner)
}

/// How compiled modules are often named after their package (`exllamav2_ext`, `mmcv._ext`).
pub(super) const EXTENSION_SUFFIXES: [&str; 4] = ["_ext", "_C", "_cuda", "_kernels"];

/// The package a top-level compiled module is named after, its extension
/// suffix left off (`exllamav2_ext`: exllamav2; `causal_conv1d_cuda`:
/// causal_conv1d); the module itself where no suffix leaves a name.
pub(super) fn package_of_compiled_module(module: &str) -> &str {
    EXTENSION_SUFFIXES
        .iter()
        .find_map(|suffix| module.strip_suffix(suffix))
        .filter(|package| !package.is_empty())
        .unwrap_or(module)
}

/// `Detected that PyTorch and torch_sparse were compiled with different CUDA
/// versions. PyTorch has CUDA version 10.2 and torch_sparse has CUDA version
/// 11.1.` (torchvision: `CUDA Version=11.8`; torchaudio: `... 12.1 whereas
/// TorchAudio has ...`). Two causes give it and the words cannot tell them
/// apart: a build of the package made for another CUDA, or a build made here
/// with a toolkit of another CUDA than torch's: both are listed, with what
/// decides. torch's companions are wheels of torch's index, so for them it is
/// the first.
pub fn read_cuda_disagreement(text: &str) -> Vec<Reading> {
    let Some(torch_cuda) = text::version_after(text, "PyTorch has CUDA Version") else {
        return Vec::new();
    };
    // torchvision and the PyG packages join the two with "and", torchaudio with "whereas".
    let Some(rest) = text::after_marker(text, "PyTorch has CUDA Version").and_then(|rest| {
        [" and ", " whereas "]
            .into_iter()
            .filter_map(|joint| text::after_marker(rest, joint))
            .max_by_key(|after| after.len())
    }) else {
        return Vec::new();
    };
    let (Some(owner), Some(owner_cuda)) = (text::name_after(rest), text::version_after(rest, "has CUDA Version"))
    else {
        return Vec::new();
    };
    let owner = crate::explain::distribution_of(owner);
    let decide = (
        None,
        format!(
            "whether {owner} was built on the node (pip printed \"Building wheel for {owner}\", with the CUDA {owner_cuda} toolkit found there) or installed as a wheel made for CUDA {owner_cuda}"
        ),
    );
    let fix = if TORCH_COMPANIONS.contains(&owner.as_str()) {
        format!(
            "install torch and {owner} together from one index, so that both are built for one CUDA: pip install --force-reinstall torch {owner} --index-url https://download.pytorch.org/whl/cuXYZ (XYZ: the CUDA of the torch to keep, {torch_cuda} now)"
        )
    } else {
        format!(
            "install the {owner} build made for CUDA {torch_cuda}, torch's (its install page lists one per CUDA), or rebuild it with a CUDA {torch_cuda} toolkit: CUDA_HOME=/usr/local/cuda-{torch_cuda} pip install --force-reinstall --no-cache-dir --no-build-isolation {owner}"
        )
    };
    let said = format!("the message says torch is built with CUDA {torch_cuda} and {owner} with CUDA {owner_cuda}");
    // torch's own companions come as wheels from torch's index, one per CUDA:
    // another CUDA is another index's wheel, not a build on the node.
    if TORCH_COMPANIONS.contains(&owner.as_str()) {
        return vec![Reading {
            cause: CAUSE,
            said,
            node: Vec::new(),
            fix,
            stated: true,
            settles: true,
            rules_out: vec![super::requirement::TOOLKIT],
        }];
    }
    [CAUSE, super::requirement::TOOLKIT]
        .into_iter()
        .map(|cause| Reading {
            cause,
            said: said.clone(),
            node: vec![decide.clone()],
            fix: fix.clone(),
            stated: true,
            settles: false,
            rules_out: Vec::new(),
        })
        .collect()
}

/// `module 'torch.compiler' has no attribute 'is_compiling'`, as `torch.compiler.is_compiling`.
fn torch_attribute(text: &str) -> Option<String> {
    let rest = text::after_marker(text, "module 'torch")?;
    // torch or one of its modules, not torchvision's or torchaudio's.
    if !rest.starts_with(['\'', '.']) {
        return None;
    }
    let module_end = rest.find('\'')?;
    let module = format!("torch{}", &rest[..module_end]);
    let attribute = text::after_marker(&rest[module_end..], "has no attribute '")?;
    let attribute = &attribute[..attribute.find('\'')?];
    Some(format!("{module}.{attribute}"))
}

/// `No module named 'torch._six'` or `cannot import name 'X' from 'torch.Y'`,
/// as the torch name code outside torch imports and the torch that ran lacks:
/// not where the last frame outside the import machinery is torch's own,
/// since a torch that fails to import its own parts (`torch._C`) is a broken
/// torch, not code made for another.
fn torch_import_missing(text: &str, traceback: &Traceback) -> Option<String> {
    let missing = match text::module_not_found(text).filter(|module| module.starts_with("torch.")) {
        Some(module) => module.to_string(),
        None => {
            let (name, module) = text::name_not_importable(text)?;
            if module != "torch" && !module.starts_with("torch.") {
                return None;
            }
            format!("{module}.{name}")
        }
    };
    let importer = traceback
        .frames()
        .filter_map(|frame| crate::explain::frame_package(&frame.file))
        .filter(|package| !crate::explain::is_lookup_machinery(package))
        .last();
    (importer != Some("torch")).then_some(missing)
}

/// A compiler's error in an extension's own source that names torch's C++ API
/// (fairmot69's `dcn_v2_cuda.cu(86): error: identifier "THCState_getCurrentStream"
/// is undefined`, pointtransformer73's `fatal error: THC/THC.h: No such file or
/// directory`, redet5's `'AT_CHECK' was not declared`, edvr105's `no suitable
/// constructor exists to convert from "c10::ScalarType" to "at::Type"`): the
/// source was written against another torch's headers. An error inside torch's
/// own headers is a compiler's or toolkit's disagreement, not this.
pub fn read_source_for_other_torch(text: &str) -> Option<Reading> {
    let line = text.lines().find(|line| {
        (line.contains(": error: ") || line.contains(": fatal error: "))
            && !line.contains("/torch/include/")
            && !line.contains("\\torch\\include\\")
    })?;
    let (place, error) = line.split_once(" error: ")?;
    let in_source = [".cu", ".cpp", ".cc", ".cuh", ".h", ".hpp"]
        .iter()
        .any(|extension| place.contains(&format!("{extension}(")) || place.contains(&format!("{extension}:")));
    if !in_source {
        return None;
    }
    let api = torch_api_named(error)?;
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "the extension's source does not compile against the installed torch: the compiler's error names torch's C++ API ({api}), which these torch headers lack or define otherwise, so the source was written for another torch"
        ),
        node: Vec::new(),
        fix: "build the extension against the torch release its source was written for (its README or setup.py names it), or take a release of the extension whose source is written for the installed torch (code using THC or AT_CHECK needs one ported to ATen's current API)".to_string(),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The first name of torch's C++ API in a compiler's error: THC's (`THC/THC.h`,
/// `THCState`, `THCudaCheck`), `AT_CHECK`, or one qualified by `at::`, `c10::` or
/// `torch::`.
fn torch_api_named(error: &str) -> Option<&str> {
    let is_part = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '/' | '.');
    error
        .split(|c: char| !is_part(c))
        .map(|token| token.trim_end_matches(['.', ':']))
        .find(|token| {
            token.starts_with("THC")
                || *token == "AT_CHECK"
                || ["at::", "c10::", "torch::"]
                    .iter()
                    .any(|namespace| token.strip_prefix(namespace).is_some_and(|rest| !rest.is_empty()))
        })
}

/// The file of the innermost frame outside torch and the import machinery:
/// where the code that imports a torch name is, when no package's frame is.
fn importing_file(traceback: &Traceback) -> Option<&str> {
    traceback
        .frames()
        .filter(|frame| {
            crate::explain::frame_package(&frame.file)
                .is_none_or(|package| !crate::explain::is_lookup_machinery(package) && package != "torch")
        })
        .last()
        .map(|frame| frame.file.as_str())
}

/// A torch name the table of names dates: the releases of torch that have it,
/// read from their files, and what that says of the torch installed here.
struct TorchDated {
    said: String,
    specifier: String,
    installed: (Option<bool>, String),
}

impl TorchDated {
    /// None where no torch release read has the name, or where the torch
    /// installed here has it or lies where the table cannot tell: the table
    /// is then no evidence about this failure.
    fn of(text: &str, dotted: &str, facts: Option<&Facts>) -> Option<TorchDated> {
        let (module, name) = dotted.rsplit_once('.')?;
        // A module found outside the installed torch is a folder shadowing it
        // or another package's, not a release of torch.
        if matches!(
            text::import_found_in(text, module, "torch"),
            Some(text::FoundIn::Outside | text::FoundIn::OtherInstall(_))
        ) {
            return None;
        }
        let lineage = super::names::lineage_of(text, module, name).filter(|lineage| lineage.distribution == "torch")?;
        let run = lineage.newest_run()?;
        let installed = facts.and_then(|facts| facts.package_version("torch"));
        let has = installed.as_ref().and_then(|version| lineage.has_at(version));
        if has == Some(true) || super::names::undecided_within(&lineage, installed.as_ref()) {
            return None;
        }
        // A name nearly every torch has, missing where the release is not
        // known, is more often a torch shadowed or half-removed than one that old.
        if installed.is_none() && name_history::nearly_always_there(&lineage) {
            return None;
        }
        // As the node names it, with its local tag (2.11.0+cu130).
        let shown = |version: &pep440_rs::Version| facts.and_then(torch_here).unwrap_or_else(|| version.to_string());
        let node = match (&installed, has) {
            (Some(version), Some(false)) => (
                Some(true),
                format!("torch {} is installed here, which lacks {dotted}", shown(version)),
            ),
            (Some(version), _) => (
                None,
                format!(
                    "torch {} is installed here: the releases read do not say whether it has {dotted} (not read, between releases that differ, or its names partly built at run time), and the failure says it does not",
                    shown(version)
                ),
            ),
            (None, _) => (None, "the version of torch installed is not known here".to_string()),
        };
        Some(TorchDated {
            said: format!(
                "torch has {dotted} in its releases {} ({})",
                run.described(),
                name_history::SOURCE
            ),
            specifier: run.specifier(),
            installed: node,
        })
    }
}

/// Who imports a torch name when no package's frame does.
const JOB_CODE: &str = "the job's code";

/// `torch._six`, `torch.nn.modules.linear._LinearWithBias`: a part private to
/// torch (one underscore; dunders are every release's).
fn is_torch_private(name: &str) -> bool {
    name.split('.')
        .skip(1)
        .any(|part| part.starts_with('_') && !part.starts_with("__"))
}

/// `cannot import name 'X' from 'torch.y' (/v/lib/python3.10/site-packages/torch/y.py)`.
fn found_in_installed_torch(text: &str) -> bool {
    text::name_not_importable(text)
        .and_then(|(_, module)| text::import_found_at(text, module))
        .is_some_and(|path| crate::explain::frame_package(path) == Some("torch"))
}

/// Whether a torch name missing from the torch that ran says a release of it
/// differs from the one the caller was made for. Every release has its dunder
/// names (`torch.__version__`), so their absence is a torch shadowed by a
/// local `torch.py` or left half-removed, as is a "partially initialized"
/// module; `torch._C`'s private bindings (`_cuda_setDevice`) are missing from a
/// CPU build, not from another release.
fn made_for_another_torch(name: &str, text: &str) -> bool {
    let attribute = name.rsplit('.').next().unwrap_or(name);
    !(attribute.starts_with("__") || name.starts_with("torch._C.") || text::circular_import(text))
}

pub(super) fn torch_here(facts: &Facts) -> Option<String> {
    facts
        .torch
        .and_then(|build| build.version.clone())
        .or_else(|| facts.package_version("torch").map(|version| version.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_of_the_sentence_before_was_built_for_names_no_package() {
        assert!(built_for("RuntimeError: it was built for PyTorch 2.3.0+cu121 (you have 2.1.0+cu121)").is_none());
        let (owner, ..) = built_for("xFormers was built for: PyTorch 2.3.0+cu121 (you have 2.1.0+cu121)").unwrap();
        assert_eq!(owner, "xformers");
    }

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(read, log)
    }

    /// torchsim178: lab-cosmo's loader lists the torch releases it has builds
    /// for; its one build per release serves CPU and CUDA torch alike.
    #[test]
    fn a_list_of_the_torch_builds_an_extension_has_names_its_newest_and_the_torch_that_ran() {
        let (owner, said, built) = built_for("ImportError: Trying to load metatensor-torch with torch v2.7.0+cu126, we found builds for torch v2.3, v2.2, v2.0, v2.6, v1.12; which are not ABI compatible.").unwrap();
        assert_eq!(owner, "metatensor-torch");
        assert!(
            said.contains("builds for torch 1.12, 2.0, 2.2, 2.3, 2.6 only, and the run has torch 2.7.0+cu126"),
            "{said}"
        );
        let built = built.unwrap();
        assert_eq!(
            (built.torch.as_str(), built.ran_with.as_deref()),
            ("2.6", Some("2.7.0+cu126"))
        );
        assert!(built_for("we found builds for torch v2.3; which are not ABI compatible").is_none());
        assert!(built_for("Failed to download foo with torch vX, we found builds for torch v2.3").is_none());
        assert_eq!(
            (release_pin("2.6"), release_pin("2.3.0+cu121")),
            ("2.6.*".to_string(), "2.3.0".to_string())
        );
        for torch in ["2.7.0+cu126", "2.7.0+cpu"] {
            let found = reading(&format!("ImportError: Trying to load metatensor-torch with torch v{torch}, we found builds for torch v2.3, v2.6; which are not ABI compatible.\n")).unwrap();
            assert_eq!(found.cause, CAUSE, "{torch}: {found:?}");
            assert!(found.settles && found.stated, "{torch}: {found:?}");
            assert!(
                found.fix.contains("pip install \"torch==2.6.*\""),
                "{torch}: {}",
                found.fix
            );
        }
        // A build for a CUDA variant run with a CPU torch: torch is the one to change.
        let cpu = reading("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.3.0+cpu)\n").unwrap();
        assert_eq!(cpu.cause, CPU_TORCH, "{cpu:?}");
    }

    /// stellaen400mv511: xformers found no operator for inputs on the CPU,
    /// which no build of it takes; an operator refused for its build alone
    /// (everydream2-122) is a build that did not load.
    #[test]
    fn xformers_refusal_reasons_tell_its_build_from_its_inputs() {
        let on_the_cpu = "NotImplementedError: No operator found for memory_efficient_attention_forward with inputs:\nquery : shape=(1, 14074, 16, 64) (torch.float32)\np : 0.0\nckF is not supported because:\ndevice=cpu (supported: {'cuda'})\ndtype=torch.float32 (supported: {torch.bfloat16, torch.float16})\noperator wasn't built - see python -m xformers.info for more info\n";
        assert_eq!(reading(on_the_cpu), None);
        let unbuilt = "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n     query       : shape=(2, 4096, 8, 40) (torch.float16)\n`flshattF` is not supported because:\n    xFormers wasn't build with CUDA support\n    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n`cutlassF` is not supported because:\n    xFormers wasn't build with CUDA support\n    operator wasn't built - see `python -m xformers.info` for more info\n";
        let found = reading(unbuilt).unwrap();
        assert_eq!(found.cause, CAUSE);
        // Which build did not load (one for another torch, one without CUDA)
        // is xformers' own warning to say.
        assert!(!found.settles, "{found:?}");
        let warning = [
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:".to_string(),
            "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.2.0+cu121)".to_string(),
        ];
        let (traceback, text) = super::super::parsed(unbuilt);
        let context = Context {
            earlier: &warning,
            ..Context::alone()
        };
        let warned = read(&text, &traceback, context).unwrap();
        assert!(warned.settles, "{warned:?}");
        assert!(
            found.said.starts_with("xformers lists cutlassF as refusing"),
            "{}",
            found.said
        );
        let bare =
            reading("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n")
                .unwrap();
        assert!(bare.said.contains("or the inputs suit none"), "{}", bare.said);
    }

    /// 3d-coded4: an extension imported at a prompt may have come before
    /// `import torch`; a build for this torch fails the same way there.
    #[test]
    fn an_extension_imported_at_a_prompt_leaves_the_import_order_open() {
        let prompt = "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nImportError: /e/lib/python3.7/site-packages/chamfer-0.0.0-py3.7-linux-x86_64.egg/chamfer.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZN2at19UndefinedTensorImpl10_singletonE\n";
        let found = reading(prompt).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.said.starts_with("chamfer's compiled library"), "{}", found.said);
        assert!(!found.settles && !found.stated, "{found:?}");
        assert!(found.fix.starts_with("import torch before chamfer"), "{}", found.fix);
        // Imported by a script's code, the same file settles it; so does a
        // session that shows torch imported first (pytorch3d1608).
        let script = prompt.replace("<stdin>", "/home/me/train.py");
        assert!(reading(&script).unwrap().settles);
        let after_torch = format!(">>> import torch\n>>> import chamfer\n{prompt}");
        assert!(reading(&after_torch).unwrap().settles);
        let without = format!(">>> import numpy\n>>> import chamfer\n{prompt}");
        assert!(!reading(&without).unwrap().settles);
    }

    /// Every way of naming the module that lacks a torch symbol (under a
    /// package, by its file alone, in a source tree) leaves the import order
    /// open at a prompt, and settles once the session shows torch first.
    #[test]
    fn every_reading_of_a_missing_torch_symbol_asks_the_import_order_at_a_prompt() {
        let frame = "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nImportError: ";
        let symbol = ": undefined symbol: _ZN2at19UndefinedTensorImpl10_singletonE\n";
        for (module, file) in [
            (
                "chamfer",
                "/e/lib/python3.10/site-packages/chamfer/_C.cpython-310-x86_64-linux-gnu.so",
            ),
            ("knn_cuda", "knn_cuda.cpython-310-x86_64-linux-gnu.so"),
            ("ops", "/home/me/proj/ops/_C.cpython-310-x86_64-linux-gnu.so"),
        ] {
            let log = format!("{frame}{file}{symbol}");
            let found = reading(&log).unwrap_or_else(|| panic!("{file}"));
            assert_eq!(found.cause, CAUSE);
            assert!(!found.settles && !found.stated, "{file}: {found:?}");
            assert!(
                found.fix.starts_with(&format!("import torch before {module}")),
                "{}",
                found.fix
            );
            let after_torch = format!(">>> import torch\n>>> import {module}\n{log}");
            assert!(reading(&after_torch).unwrap().settles, "{file}");
            assert!(
                reading(&log.replace("<stdin>", "/home/me/train.py")).unwrap().settles,
                "{file}"
            );
        }
    }

    #[test]
    fn a_torch_symbol_missing_from_a_packages_library_names_the_package() {
        let found = reading("ImportError: /opt/conda/lib/python3.10/site-packages/apex/fused_layer_norm_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.said.starts_with("apex's compiled library"), "{}", found.said);
        assert!(found.fix.contains("--no-build-isolation apex"), "{}", found.fix);
        // mochi30: the module named by its file alone, and a symbol of torch's own namespace.
        let bare = reading("transformer_engine_extensions.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n").unwrap();
        assert_eq!(bare.cause, CAUSE);
        assert!(
            bare.said
                .contains("the compiled module transformer_engine_extensions lacks torch's symbol _ZN5torch3jit"),
            "{}",
            bare.said
        );
        assert!(bare.said.contains("_GLIBCXX_USE_CXX11_ABI=1"), "{}", bare.said);
        // No distribution is guessed from the module's name for pip to install.
        assert!(bare.fix.contains("--no-build-isolation PACKAGE"), "{}", bare.fix);
        assert!(!bare.fix.contains("transformer-engine-extensions"), "{}", bare.fix);
        // A private submodule's file names no module anyone imports or installs.
        assert!(
            reading("_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs\n")
                .is_none()
        );
        // megatronapp34's symbol, under a package: the pre-C++11 string.
        let old_abi = reading("ImportError: /v/lib/python3.12/site-packages/shm_tensor/_C.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs\n").unwrap();
        assert!(old_abi.said.contains("in the pre-C++11 ABI"), "{}", old_abi.said);
        assert!(old_abi.said.contains("_GLIBCXX_USE_CXX11_ABI=0"), "{}", old_abi.said);
        // A file that is no Python extension module names no owner.
        assert!(reading("libfoo.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameE\n").is_none());
    }

    #[test]
    fn an_extension_operator_without_a_cuda_kernel_lists_its_cpu_build_unsettled() {
        let found = reading("NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. This could be because the operator doesn't exist for this backend. 'torchvision::nms' is only available for these backends: [CPU, Meta, QuantizedCPU, BackendSelect].\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(!found.settles, "a CPU wheel or another torch's build: not decided");
        assert!(
            found.said.starts_with("torchvision::nms has no CUDA kernel"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("torch torchvision --index-url"), "{}", found.fix);
        // A package built on the node, torch listing its CPU kernel only
        // (stablefast3d39): compiled without its CUDA sources.
        let local = "NotImplementedError: Could not run 'texture_baker_cpp::rasterize' with arguments from the 'CUDA' backend. 'texture_baker_cpp::rasterize' is only available for these backends: [CPU, Meta, BackendSelect, Python, AutogradCPU, AutogradCUDA, AutocastCUDA].\n";
        let found = reading(local).unwrap();
        assert_eq!(found.cause, "package-cpu-only-build");
        assert!(found.settles && !found.stated, "{found:?}");
        assert!(
            found.fix.contains("rebuild texture-baker-cpp with CUDA"),
            "{}",
            found.fix
        );
        // Its backends not listed, or a CUDA kernel listed: not read so.
        let unlisted = "NotImplementedError: Could not run 'texture_baker_cpp::rasterize' with arguments from the 'CUDA' backend.\n";
        assert_eq!(reading(unlisted).unwrap().cause, CAUSE);
        let with_cuda = local.replace("[CPU, Meta", "[CPU, CUDA, Meta");
        assert_eq!(reading(&with_cuda).unwrap().cause, CAUSE);
        // CPU-only by design (torch's dynamic quantization, pyg-lib's
        // sampler), or a namespace that names no package (vllm's `_C`).
        for operator in [
            "quantized::linear_dynamic",
            "pyg::neighbor_sample",
            "_C::ggml_dequantize",
            "mylib::fused_op",
        ] {
            let log = local.replace("texture_baker_cpp::rasterize", operator);
            assert_ne!(
                reading(&log).map(|found| found.cause),
                Some("package-cpu-only-build"),
                "{operator}"
            );
        }
        // torch's own operators missing a backend are not an extension's.
        assert!(reading("NotImplementedError: Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the 'SparseCUDA' backend.\n").is_none());
        assert!(reading("NotImplementedError: Could not run 'aten::empty.memory_format' with arguments from the 'CUDA' backend.\n").is_none());
    }

    #[test]
    fn the_torch_an_extension_was_built_for_is_read_from_its_warning() {
        let found = reading("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)\n").unwrap();
        assert!(
            found.said.contains("xformers was built for torch 2.3.0+cu121") && found.said.contains("2.1.0+cu121"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("torch==2.3.0"), "{}", found.fix);
        assert!(found.stated);
    }

    /// A torch module the message found anywhere but in torch's own install
    /// (a folder named torch, another package's files) is no release of
    /// torch, and its history dates nothing.
    #[test]
    fn a_torch_module_found_outside_torchs_install_is_not_dated() {
        let found_at = |path: &str| {
            TorchDated::of(
                &format!("ImportError: cannot import name 'compile' from 'torch' ({path})"),
                "torch.compile",
                None,
            )
            .is_some()
        };
        assert!(found_at("/v/lib/python3.10/site-packages/torch/__init__.py"));
        assert!(!found_at(
            "/v/lib/python3.10/site-packages/torch_shim/torch/__init__.py"
        ));
        assert!(!found_at("/home/me/proj/torch/__init__.py"));
    }

    /// keymorph11, scaledyolov422, mdt23: the job's own code uses a torch
    /// name its torch lacks; the releases of torch that have it, read from
    /// their files, date the torch the code was written for.
    #[test]
    fn a_torch_name_the_jobs_code_uses_is_dated_by_the_releases_that_have_it() {
        let script = |message: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x()\n{message}\n"
            )
        };
        let compile = script("AttributeError: module 'torch' has no attribute 'compile'");
        let found = reading(&compile).unwrap();
        assert!(
            found.said.starts_with("the code that uses torch.compile (in train.py)"),
            "{}",
            found.said
        );
        assert!(found.said.contains("from 2.0.0 on"), "{}", found.said);
        assert!(found.fix.contains("pip install \"torch>=2.0.0\""), "{}", found.fix);
        let autocast = reading(&script(
            "AttributeError: module 'torch.cuda.amp' has no attribute 'autocast'",
        ))
        .unwrap();
        assert!(autocast.fix.contains("\"torch>=1.6.0\""), "{}", autocast.fix);
        let six = reading(&script("ModuleNotFoundError: No module named 'torch._six'")).unwrap();
        assert!(six.said.contains("the code that imports torch._six"), "{}", six.said);
        assert!(six.fix.contains("<2.0.0"), "{}", six.fix);
        // The recorded H100's torch 2.11 has torch.compile: the failure came
        // from another torch, and this node's says nothing of which.
        let (traceback, text) = super::super::parsed(&compile);
        let here = super::super::read_on_recorded_h100(|_| {}, |context| read(&text, &traceback, context));
        assert!(here.is_none(), "{here:?}");
        // A name no release of torch has is a typo, not a release.
        assert!(reading(&script("AttributeError: module 'torch' has no attribute 'compiled'")).is_none());
        // torchvision's modules are not torch's.
        let vision = reading(&script(
            "AttributeError: module 'torchvision.ops' has no attribute '_new_empty_tensor'",
        ));
        assert!(
            vision.is_none_or(|found| !found.said.contains("torch has")),
            "torchvision read as torch"
        );
        // A torch found outside site-packages is a folder shadowing it.
        assert!(
            reading(&script(
                "ImportError: cannot import name 'compile' from 'torch' (/home/me/proj/torch/__init__.py)"
            ))
            .is_none()
        );
        // one_hot: every torch since 1.1 has it; missing where the release is
        // not known, a shadowed or broken torch is likelier than one that old.
        assert!(
            reading(&script(
                "AttributeError: module 'torch.nn.functional' has no attribute 'one_hot'"
            ))
            .is_none()
        );
    }

    #[test]
    fn a_package_newer_than_torch_is_read_from_the_frame_that_calls_it() {
        let found = reading("Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/apex/normalization/fused_layer_norm.py\", line 10, in forward\n    if torch.compiler.is_compiling():\nAttributeError: module 'torch.compiler' has no attribute 'is_compiling'\n").unwrap();
        assert!(
            found.said.contains("apex calls torch.compiler.is_compiling"),
            "{}",
            found.said
        );
        // What every torch has, or only its CUDA builds: no release to blame.
        let accelerate = |message: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/accelerate/state.py\", line 10, in f\n    torch.x()\n{message}\n"
            )
        };
        for message in [
            "AttributeError: module 'torch' has no attribute '__version__'",
            "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'",
            "AttributeError: partially initialized module 'torch' has no attribute 'nn' (most likely due to a circular import)",
        ] {
            assert!(reading(&accelerate(message)).is_none(), "{message}");
        }
        // Python code calls it: agreeing releases fix it, a rebuild does not.
        assert!(found.fix.starts_with("make apex and torch agree"), "{}", found.fix);
        assert!(!found.fix.contains("--no-build-isolation"), "{}", found.fix);
        assert!(
            reading("AttributeError: module 'torch' has no attribute 'frobnicate'\n").is_none(),
            "the job's own call names no package"
        );
        assert!(reading("ImportError: /x/site-packages/foo/_C.so: undefined symbol: cudaLaunchKernelExC\n").is_none());
    }

    #[test]
    fn a_torch_module_or_name_a_package_imports_and_torch_lacks_names_the_package() {
        let found = reading("Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/apex/amp/_initialize.py\", line 2, in <module>\n    from torch._six import string_classes\nModuleNotFoundError: No module named 'torch._six'\n").unwrap();
        assert!(found.said.starts_with("apex calls torch._six"), "{}", found.said);
        let found = reading("Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/mmcv/runner/dist_utils.py\", line 9, in <module>\n    from torch._utils import _flatten_dense_tensors\nImportError: cannot import name '_flatten_dense_tensors' from 'torch._utils'\n").unwrap();
        assert!(
            found.said.contains("torch._utils._flatten_dense_tensors"),
            "{}",
            found.said
        );
        // torch failing to import its own part: a broken torch, no package to blame.
        let broken = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/transformers/utils/import_utils.py\", line 1, in <module>\n    import torch\n  File \"/v/lib/python3.10/site-packages/torch/__init__.py\", line 237, in <module>\n    from torch._C import *\nModuleNotFoundError: No module named 'torch._C'\n";
        assert!(reading(broken).is_none());
        // Another library's module is not torch's.
        assert!(reading("Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/peft/x.py\", line 1, in <module>\n    from transformers import A\nImportError: cannot import name 'A' from 'transformers'\n").is_none());
    }

    /// fairmot69, pointtransformer73, redet5, edvr105: a compiler's error in the
    /// extension's own source naming torch's C++ API; not one inside torch's
    /// headers, nor one naming none of it.
    #[test]
    fn a_compile_error_naming_torchs_api_is_source_written_for_another_torch() {
        for (line, api) in [
            (
                "/x/DCNv2/src/cuda/dcn_v2_cuda.cu(86): error: identifier \"THCState_getCurrentStream\" is undefined",
                "THCState_getCurrentStream",
            ),
            (
                "src/knnquery/knnquery_cuda.cpp:2:10: fatal error: THC/THC.h: No such file or directory",
                "THC/THC.h",
            ),
            (
                "src/poly_nms_cuda.cpp:3:23: error: \u{2018}AT_CHECK\u{2019} was not declared in this scope",
                "AT_CHECK",
            ),
            (
                "src/deform_conv_cuda_kernel.cu(258): error: no suitable constructor exists to convert from \"c10::ScalarType\" to \"at::Type\"",
                "c10::ScalarType",
            ),
        ] {
            let found = read_source_for_other_torch(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(found.cause, CAUSE);
            assert!(found.settles, "{found:?}");
            assert!(found.said.contains(&format!("({api})")), "{}", found.said);
        }
        for line in [
            "/v/lib/python3.10/site-packages/torch/include/c10/util/C++17.h:16:2: error: #error \"You're trying to build PyTorch with a too old version of GCC\"",
            "src/ops.cpp:12:5: error: 'foo' was not declared in this scope",
            "train.py: error: the following arguments are required: --config",
        ] {
            assert!(read_source_for_other_torch(line).is_none(), "{line}");
        }
    }

    /// mae172, timesformer63, pytracking264, conformer2: the job's own code (or
    /// code no frame names) imports a torch name the torch that ran lacks.
    /// A private name is no typo, nor is a module the message found in the
    /// installed torch; a public name found nowhere stated may be either.
    #[test]
    fn a_torch_name_the_jobs_code_imports_is_code_made_for_another_torch() {
        let job = |import: &str, error: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/home/me/mae/util/misc.py\", line 21, in <module>\n    {import}\n{error}\n"
            )
        };
        for log in [
            job(
                "from torch._six import inf",
                "ModuleNotFoundError: No module named 'torch._six'",
            ),
            job(
                "from torch.nn.modules.linear import _LinearWithBias",
                "ImportError: cannot import name '_LinearWithBias' from 'torch.nn.modules.linear'",
            ),
            job(
                "from torch.nn import Lineer",
                "ImportError: cannot import name 'Lineer' from 'torch.nn' (/v/lib/python3.10/site-packages/torch/nn/__init__.py)",
            ),
            "ModuleNotFoundError: No module named 'torch._six'\n".to_string(),
        ] {
            let found = reading(&log).unwrap_or_else(|| panic!("{log}"));
            assert!(found.settles, "{found:?}");
            assert!(found.said.starts_with("the code that imports torch."), "{}", found.said);
            // Dated by the releases that have the name where the table has it (torch._six).
            assert!(
                [
                    "install the torch release the code was written for",
                    "install a torch release that has it"
                ]
                .iter()
                .any(|start| found.fix.starts_with(start)),
                "{}",
                found.fix
            );
        }
        let placed = reading(&job(
            "from torch._six import inf",
            "ModuleNotFoundError: No module named 'torch._six'",
        ))
        .unwrap();
        assert!(
            placed.said.contains("(in /home/me/mae/util/misc.py)"),
            "{}",
            placed.said
        );
        let unplaced = reading("ModuleNotFoundError: No module named 'torch._six'\n").unwrap();
        assert!(unplaced.said.contains("(no frame names it)"), "{}", unplaced.said);
        // A public name with no path: a typo reads the same.
        assert!(
            reading(&job(
                "from torch.nn import Lineer",
                "ImportError: cannot import name 'Lineer' from 'torch.nn'"
            ))
            .is_none()
        );
        // torch failing on its own dunder: a shadowed or half-removed torch.
        assert!(
            reading(&job(
                "torch.__version__",
                "AttributeError: module 'torch' has no attribute '__version__'"
            ))
            .is_none()
        );
    }

    #[test]
    fn an_operator_nothing_registered_may_be_an_import_never_made() {
        let found = reading("RuntimeError: No such operator torchvision::nms\n").unwrap();
        assert!(!found.settles, "{found:#?}");
        assert!(found.fix.starts_with("import torchvision before"), "{}", found.fix);
        let loaded = reading("RuntimeError: operator torchvision::nms does not exist\n").unwrap();
        assert!(loaded.settles, "{loaded:#?}");
        // Any extension's namespace, in torch.ops' later wording too; the owner is
        // the package frame named after it (genrec18).
        let fbgemm = reading("Traceback (most recent call last):\n  File \"/c/lib/python3.8/site-packages/fbgemm_gpu/docs/jagged_tensor_ops.py\", line 14, in <module>\n    torch.ops.fbgemm.jagged_2d_to_dense,\n  File \"/c/lib/python3.8/site-packages/torch/_ops.py\", line 569, in __getattr__\n    raise AttributeError(\nAttributeError: '_OpNamespace' 'fbgemm' object has no attribute 'jagged_2d_to_dense'\n").unwrap();
        assert!(
            !fbgemm.settles
                && fbgemm
                    .said
                    .starts_with("torch has no fbgemm operators: fbgemm_gpu was not"),
            "{fbgemm:#?}"
        );
        let bare = reading("RuntimeError: No such operator mylib::fused_op\n").unwrap();
        assert!(bare.said.starts_with("torch has no mylib operators"), "{bare:#?}");
        // torch's own namespaces are no extension's.
        assert!(reading("RuntimeError: No such operator aten::foo\n").is_none());
    }

    #[test]
    fn a_procedure_windows_did_not_find_in_a_packages_module_is_an_extension_for_another_torch() {
        let found = reading(
            "ImportError: DLL load failed while importing exllamav2_ext: The specified procedure could not be found.\n",
        )
        .unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.starts_with("Windows did not find a function exllamav2's"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("--no-build-isolation exllamav2"), "{}", found.fix);
        // torch's own module, or a module that is missing rather than a function: not this.
        assert!(
            reading("ImportError: DLL load failed while importing _C: The specified procedure could not be found.\n")
                .is_none()
        );
        assert!(
            reading("ImportError: DLL load failed while importing foo_ext: The specified module could not be found.\n")
                .is_none()
        );
    }

    #[test]
    fn torch_and_a_package_built_for_two_cudas_leave_two_causes_open() {
        let (_, text) = super::super::parsed(
            "RuntimeError: Detected that PyTorch and torch_sparse were compiled with different CUDA versions. PyTorch has CUDA version 10.2 and torch_sparse has CUDA version 11.1. Please reinstall the torch_sparse that matches your PyTorch install.\n",
        );
        let found = read_cuda_disagreement(&text);
        let causes: Vec<&str> = found.iter().map(|reading| reading.cause).collect();
        assert_eq!(causes, [CAUSE, super::super::requirement::TOOLKIT]);
        assert!(found.iter().all(|reading| !reading.settles));
        assert!(
            found[0].said.contains("CUDA 10.2 and torch-sparse with CUDA 11.1"),
            "{}",
            found[0].said
        );
        assert!(found[0].fix.contains("cuda-10.2"), "{}", found[0].fix);
        let (_, text) = super::super::parsed(
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please reinstall the torchvision that matches your PyTorch install.\n",
        );
        let found = read_cuda_disagreement(&text);
        assert!(
            found[0].fix.contains("torch torchvision --index-url"),
            "{}",
            found[0].fix
        );
    }

    #[test]
    fn a_companion_of_torch_for_another_cuda_is_another_indexs_wheel_in_either_wording() {
        for log in [
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please reinstall the torchvision that matches your PyTorch install.\n",
            "RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has CUDA version 12.1 whereas TorchAudio has CUDA version 11.8. Please install the TorchAudio version that matches your PyTorch version.\n",
        ] {
            let (_, text) = super::super::parsed(log);
            let found = read_cuda_disagreement(&text);
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(found[0].cause, CAUSE);
            assert!(found[0].settles && found[0].rules_out == [super::super::requirement::TOOLKIT]);
            assert!(found[0].fix.contains("--index-url"), "{}", found[0].fix);
        }
    }
    /// batch L's fcos51: maskrcnn_benchmark built in FCOS's tree for an older torch.
    #[test]
    fn an_extension_built_in_its_source_tree_is_rebuilt_where_it_lies() {
        let found = reading("ImportError: /home/me/FCOS/maskrcnn_benchmark/_C.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZN6caffe26detail37_typeMetaDataInstance_preallocated_30E\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found
                .said
                .starts_with("maskrcnn_benchmark's compiled library, built in /home/me/FCOS/maskrcnn_benchmark"),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("rebuild maskrcnn_benchmark") && !found.fix.contains("pip install --force-reinstall"),
            "{}",
            found.fix
        );
        // adelaidet181: the same, loaded by a path relative to where the job started.
        let relative = reading(
            "ImportError: adet/_C.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZNK2at6Tensor6deviceEv\n",
        )
        .unwrap();
        assert!(
            relative.said.starts_with("adet's compiled library, built in adet"),
            "{}",
            relative.said
        );
        // A library that is no Python extension module, or no torch symbol, is not read so.
        assert!(reading("OSError: /home/me/lib/libfoo.so: undefined symbol: _ZN6caffe26detail\n").is_none());
        assert!(
            reading("ImportError: /home/me/x/_C.cpython-37m-x86_64-linux-gnu.so: undefined symbol: png_read\n")
                .is_none()
        );
    }
    #[test]
    fn a_symbol_is_torchs_by_the_name_it_mangles_first_not_its_parameters() {
        for torchs in [
            "_ZN3c104cuda20CUDACachingAllocator9allocatorE",
            "_ZNK2at6Tensor7is_cudaEv",
            "_ZN5torch3jit17parseSchemaOrNameERKSs",
            "_ZN6caffe26detail37_typeMetaDataInstance_preallocated_30E",
            "_ZTIN3c1021AutogradMetaInterfaceE",
            "_Z16THPVariable_WrapN2at10TensorBaseE",
            "_Z13__THCudaCheck9cudaErrorPKci",
            // torchrl1308 (through macOS's loader): pybind11's caster of at::Tensor, torch's own.
            "_ZN8pybind116detail11type_casterIN2at6TensorEvE4castERKS3_NS_19return_value_policyENS_6handleE",
        ] {
            assert!(is_torch_symbol(torchs), "{torchs}");
        }
        // batch F's openpcdet216: pcdet's own function, which takes at::Tensor.
        for others in [
            "_Z36three_interpolate_grad_wrapper_stackN2at6TensorES0_S0_S0_",
            "png_read_info",
            "_ZN2cv3Mat5dealloEv",
            "_ZN8pybind116detail11type_casterIN5Eigen6MatrixIdLin1ELi1ELi0ELin1ELi1EEEvE4castE",
            "_ZN5boost6detail11type_casterIN2at6TensorEE",
        ] {
            assert!(!is_torch_symbol(others), "{others}");
        }
    }
}
