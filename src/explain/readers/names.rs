//! A name the code uses that the installed package does not have:
//! `module 'numpy' has no attribute 'float'`, `cannot import name
//! 'cached_download' from 'huggingface_hub'`, `No module named 'x.y'`. Where
//! `compat-matrix/tables/names.toml` dates the name (the release that removed
//! it, or added it), the reading says so, compares the package installed, and
//! pins the package back (or forward) to where the name is. A name the table
//! does not date says nothing: a typo in the job's own code reads the same.

use super::text::FoundIn;
use super::{Context, Reading, text};
use crate::explain::traceback::Traceback;
use crate::knowledge::name_history;
use crate::knowledge::tables::{Change, NameChange};

/// The knowledge entry these readings support.
pub const CAUSE: &str = "package-lacks-used-name";

/// A package whose own import of its own name failed: its modules are from
/// two releases, which no release pinned fixes.
pub const OWN_FILES: &str = "package-files-from-two-releases";

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    // The sentence's package must be a distribution the tables know: the same
    // words name a CLI's option, the standard library or a release of
    // anything (`The imp module was removed from stdlib in Python 3.12`).
    let known = |package: &str| {
        context
            .tables
            .is_none_or(|tables| tables.import_names.distribution(package).is_some())
    };
    if let Some(row) = removal_stated(text).filter(|row| known(&row.package)) {
        let name = row.names[0].clone();
        let module = row.modules[0].clone();
        return Some(dated(
            &row,
            &module,
            &name,
            &format!("{module}.{name}"),
            traceback,
            context,
        ));
    }
    if let Some(reading) = own_import_failed(text, traceback) {
        return Some(reading);
    }
    let (module, name, dotted, keyword) = match unexpected_keyword(text) {
        Some((class, keyword)) => (class, keyword, format!("{class}({keyword}=...)"), true),
        None => match missing_name(text) {
            Some((module, name)) => (module, name, format!("{module}.{name}"), false),
            None => {
                // Only where a row dates it: a compiled type that never had
                // the name (`'numpy.ndarray' object has no attribute
                // 'float'`) is the code's mistake, and reads the same.
                let (class, name) = attribute_of_a_compiled_type(text)?;
                let row = context.tables?.names.of(class, name)?;
                return Some(dated(row, class, name, &format!("{class}.{name}"), traceback, context));
            }
        },
    };
    let Some(row) = context.tables.and_then(|tables| tables.names.of(module, name)) else {
        if keyword {
            // A class's name says nothing of the package it is from.
            return None;
        }
        if let Some(reading) = transformers_model(module, name, &dotted, traceback, context) {
            return Some(reading);
        }
        if let Some(reading) = history_dated(text, module, name, &dotted, traceback, context) {
            return Some(reading);
        }
        // A class of a model type every release read has (BertModel) is no
        // release's to lack: a path cannot settle what the table contradicts.
        let in_transformers = module == "transformers" || module.starts_with("transformers.");
        let type_undated = in_transformers
            && context
                .tables
                .is_some_and(|tables| tables.transformers_models.of_class(name).is_some());
        return undated(text, traceback, context, module, &dotted, !type_undated);
    };
    Some(dated(row, module, name, &dotted, traceback, context))
}

/// The reading of a name whose change `row` dates.
fn dated(row: &NameChange, module: &str, name: &str, dotted: &str, traceback: &Traceback, context: Context) -> Reading {
    let caller = caller(traceback, &row.package);
    let (bound, when) = match row.change {
        Change::Removed => (format!("<{}", row.version), "removed"),
        Change::Added => (format!(">={}", row.version), "added"),
    };
    let said = format!(
        "{} uses {dotted}, which {} {} {when} ({})",
        caller.as_deref().unwrap_or("the code"),
        row.package,
        row.version,
        row.source
    );
    let node = context
        .facts
        .map(|facts| installed_against(facts.package_version(&row.package), row, dotted));
    let confirmed = node.as_ref().is_some_and(|(holds, _)| *holds == Some(true));
    let pin = pin_fix(&row.package, &bound, row.change, caller.as_deref(), dotted);
    // A renamed keyword is the code's to follow: pinning the package back
    // would hold back every other user of it.
    let fix = match &row.renamed_to {
        Some(new) => format!(
            "pass {new}= in place of {name}= to {module} (in {}); or {pin}",
            caller.as_deref().unwrap_or("the code")
        ),
        None => pin,
    };
    Reading {
        cause: CAUSE,
        said,
        node: node.into_iter().collect(),
        fix,
        stated: confirmed,
        settles: true,
        rules_out: Vec::new(),
    }
}

/// The pin that installs `package` within `bound`, or the caller's release
/// that agrees with the one installed.
pub(super) fn pin_fix(package: &str, bound: &str, change: Change, caller: Option<&str>, dotted: &str) -> String {
    let other_side = match (change, caller) {
        (Change::Removed, Some(caller)) => format!(", or upgrade {caller} to a release that no longer uses {dotted}"),
        (Change::Added, Some(caller)) => format!(", or install the {caller} release made for the {package} installed"),
        (_, None) => String::new(),
    };
    format!("python -m pip install \"{package}{bound}\"{other_side}")
}

/// A transformers model class (`cannot import name 'Qwen2VLForConditionalGeneration'
/// from 'transformers'`) or model module (`No module named 'transformers.models.qwen2'`)
/// of a model type transformers-models.toml dates: the installed release is older than
/// the one that brought the type (or not older than the one that took it away).
/// Where the installed release already has the type, the class came to it later,
/// or the code misspells it: the table says nothing of that.
fn transformers_model(
    module: &str,
    name: &str,
    dotted: &str,
    traceback: &Traceback,
    context: Context,
) -> Option<Reading> {
    let models = &context.tables?.transformers_models;
    let model = match module {
        "transformers" => models.of_class(name)?,
        "transformers.models" => models.of_module(name)?,
        _ => {
            let model = models.of_class(name)?;
            let family = module.strip_prefix("transformers.models.")?.split('.').next()?;
            // `module transformers.models.llama has no attribute
            // LlamaForCausalLM`: the message found the family's module, so
            // the release installed has the type; what lacks the class is
            // something else (a backend not installed, as torch for the
            // model classes), which the type's date does not tell.
            if models
                .of_module(family)
                .is_some_and(|found| found.model_type == model.model_type)
            {
                return None;
            }
            model
        }
    };
    let (change, version) = match (&model.added, &model.removed) {
        (_, Some(removed)) => (Change::Removed, removed.clone()),
        (Some(added), None) => (Change::Added, added.clone()),
        (None, None) => return None,
    };
    let row = NameChange {
        change,
        package: "transformers".to_string(),
        modules: vec![module.to_string()],
        names: vec![name.to_string()],
        version,
        source: model.source.clone(),
        renamed_to: None,
    };
    let mut reading = dated(&row, module, name, dotted, traceback, context);
    // The installed release has the type: the table says nothing of the name.
    if reading.node.iter().any(|(holds, _)| *holds == Some(false)) {
        return None;
    }
    // A class can come to a family after the type did, which --upgrade covers.
    if change == Change::Added {
        reading.fix = super::auto_config::upgrade_to(
            &row.version,
            &format!(
                "the release that brought {}; a class added to the family later needs a later one, which --upgrade installs",
                model.model_type
            ),
        );
    }
    let when = match change {
        Change::Added => "brought",
        Change::Removed => "took away",
    };
    // The release that lacks it is the one the job imported, which pip may not have upgraded.
    reading.node.push((
        None,
        "which transformers the job imports (python -c \"import transformers; print(transformers.__version__, transformers.__file__)\" with the job's python): a pip of another Python upgrades another one, which python -m pip avoids".to_string(),
    ));
    let what = match module {
        "transformers.models" => "the module of",
        _ => "a class of",
    };
    reading.said = format!(
        "{} uses {dotted}, {what} transformers' model type {} ({}...), which transformers {} {when} ({})",
        caller(traceback, "transformers").as_deref().unwrap_or("the code"),
        model.model_type,
        model.prefix,
        row.version,
        row.source
    );
    Some(reading)
}

/// A name (or module) that `name-history.txt` finds in some releases of its
/// distribution and not in others: dated as a row of names.toml would be, by
/// the newest releases that have it. Where the release installed here has it,
/// or the message found the module outside that distribution's install, the
/// history is not the question.
fn history_dated(
    text: &str,
    module: &str,
    name: &str,
    dotted: &str,
    traceback: &Traceback,
    context: Context,
) -> Option<Reading> {
    let top = module.split('.').next()?;
    if top == "torch" {
        return None;
    }
    // A module another package lends (tensorflow.keras from keras) has the
    // lender's history, not this name's.
    if matches!(
        text::import_found_in(text, module, top),
        Some(FoundIn::Outside | FoundIn::OtherInstall(_))
    ) {
        return None;
    }
    let lineage = lineage_of(text, module, name)?;
    let run = lineage.newest_run()?;
    let package = crate::packaging::normalize_name(&lineage.distribution);
    let installed = context.facts.and_then(|facts| facts.package_version(&package));
    let holds = installed
        .as_ref()
        .map(|version| lineage.has_at(version).map(|has| !has));
    if holds == Some(Some(false)) || undecided_within(&lineage, installed.as_ref()) {
        return None;
    }
    let change = lineage.change(&run);
    let caller = caller(traceback, &package);
    let version_known = installed.is_some();
    let node = release_evidence(
        context,
        &package,
        installed.as_ref(),
        holds.flatten(),
        &format!("which lacks {dotted}"),
        &format!("whether it has {dotted}"),
    );
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{} uses {dotted}, which {} has in its releases {} ({})",
            caller.as_deref().unwrap_or("the code"),
            lineage.distribution,
            run.described(),
            name_history::SOURCE
        ),
        node,
        fix: pin_fix(&package, &run.specifier(), change, caller.as_deref(), dotted),
        stated: holds == Some(Some(true)),
        // A name nearly every release has, missing where the release is not
        // known, is more often a folder shadowing the package than a release
        // that old (tritonwindows68: a triton source tree lacked triton.jit).
        settles: version_known || !name_history::nearly_always_there(&lineage),
        rules_out: Vec::new(),
    })
}

/// What the node's release of `package` says of a change a history dates:
/// installed and on the side without it (`lacks`, which confirms), installed
/// where the releases read do not tell (`unknown`), or not known.
pub(super) fn release_evidence(
    context: Context,
    package: &str,
    installed: Option<&pep440_rs::Version>,
    lacks: Option<bool>,
    lacking: &str,
    unknown: &str,
) -> Vec<(Option<bool>, String)> {
    match (context.facts, installed, lacks) {
        (_, Some(version), Some(true)) => {
            vec![(Some(true), format!("{package} {version} is installed here, {lacking}"))]
        }
        (_, Some(version), _) => vec![(
            None,
            format!("{package} {version} is installed here; the releases read do not tell {unknown}"),
        )],
        (Some(_), None, _) => vec![(None, format!("the version of {package} installed is not known here"))],
        (None, None, _) => Vec::new(),
    }
}

/// The presence across releases of what the message says is missing: the
/// module `module.name` where no module of that name was found, the name
/// `name` of `module` where an attribute is missing, and either for `from
/// module import name`.
pub(super) fn lineage_of(text: &str, module: &str, name: &str) -> Option<name_history::Lineage> {
    let submodule = format!("{module}.{name}");
    if text::module_not_found(text).is_some() {
        name_history::of_module(&submodule)
    } else if missing_attribute(text).is_some() {
        // An attribute is a name the module binds; a submodule it does not import is none.
        name_history::of_name(module, name)
    } else {
        // `from package import submodule` finds a submodule its __init__ does not import.
        name_history::of_name(module, name).or_else(|| name_history::of_module(&submodule))
    }
}

/// Whether the release installed lies where the table cannot say it lacks the
/// name, yet within the span of releases its fix would install: pinning to
/// that span would change nothing, so the table does not date this failure.
pub(super) fn undecided_within(lineage: &name_history::Lineage, installed: Option<&pep440_rs::Version>) -> bool {
    installed.is_some_and(|version| {
        lineage.has_at(version).is_none() && lineage.newest_run().is_some_and(|run| run.spans(version))
    })
}

/// A package's own words for a name it removed, with the release: NumPy 2's
/// `__getattr__` ("`np.asfarray` was removed in the NumPy 2.0 release. Use
/// `np.asarray` with a proper dtype instead.") and JAX's ("jax.tree_map was
/// removed in JAX v0.6.0: use jax.tree.map"). The message dates the change as
/// a row of names.toml would. The name's first part is the package, or the
/// alias it is imported as (`np`); the package the sentence names must be it.
fn removal_stated(text: &str) -> Option<NameChange> {
    const REMOVED: &str = " was removed in ";
    if let Some(row) = removal_from_a_class_stated(text) {
        return Some(row);
    }
    let at = text.find(REMOVED)?;
    let (first, name) = word_before(text, at)?.split_once('.')?;
    let package = IMPORT_ALIASES
        .iter()
        .find(|(alias, _)| *alias == first)
        .map_or(first, |(_, package)| *package)
        .to_ascii_lowercase();
    if package == "torch" || !text::is_identifier(&package) || !name.split('.').all(text::is_identifier) {
        return None;
    }
    let rest = text[at + REMOVED.len()..].trim_start_matches("the ");
    let (said_package, rest) = rest.split_once(' ')?;
    if !said_package.eq_ignore_ascii_case(&package) {
        return None;
    }
    let rest = rest.trim_start_matches("version ");
    let version = text::version_at(rest.strip_prefix('v').unwrap_or(rest))?;
    Some(NameChange {
        change: Change::Removed,
        package: package.clone(),
        modules: vec![package.clone()],
        names: vec![name.to_string()],
        version: std::str::FromStr::from_str(version).ok()?,
        source: format!("{package}'s own message"),
        renamed_to: None,
    })
}

/// A package's words for a member it took off a class, with the release:
/// NumPy 2.0's "`ptp` was removed from the ndarray class in NumPy 2.0. Use
/// np.ptp(arr, ...) instead." (numpy/_core/src/multiarray/getset.c) and
/// Gensim 4's "The vocab attribute was removed from KeyedVector in Gensim
/// 4.0.0." (gensim/models/keyedvectors.py): the package, the class and the
/// release, as the message names them.
fn removal_from_a_class_stated(text: &str) -> Option<NameChange> {
    const REMOVED: &str = " was removed from ";
    let at = text.find(REMOVED)?;
    let name = word_before(text, at)?;
    // "The vocab attribute was removed": the member is the word before its kind.
    let name = match name {
        "attribute" | "method" | "property" | "function" => {
            let before = text[..at - name.len()].trim_end();
            word_before(before, before.len())?
        }
        // An argument, an option or a module is no member of a class.
        "argument" | "parameter" | "option" | "flag" | "keyword" | "module" | "class" => return None,
        _ => name,
    };
    let (class, rest) = text[at + REMOVED.len()..].split_once(" in ")?;
    let class = class.strip_prefix("the ").unwrap_or(class);
    let class = class.strip_suffix(" class").unwrap_or(class);
    let (package, rest) = rest.split_once(' ')?;
    let package = package.to_ascii_lowercase();
    let version = text::version_at(rest.strip_prefix('v').unwrap_or(rest))?;
    if package == "torch"
        || ![name, class, package.as_str()]
            .iter()
            .all(|part| text::is_identifier(part))
    {
        return None;
    }
    Some(NameChange {
        change: Change::Removed,
        package: package.clone(),
        modules: vec![format!("{package}.{class}")],
        names: vec![name.to_string()],
        version: std::str::FromStr::from_str(version).ok()?,
        source: format!("{package}'s own message"),
        renamed_to: None,
    })
}

/// The word that ends `text[..at]`, out of the quotes a message puts it in.
fn word_before(text: &str, at: usize) -> Option<&str> {
    Some(
        text[..at]
            .rsplit(char::is_whitespace)
            .next()?
            .trim_matches(|c: char| matches!(c, '`' | '\'' | '"')),
    )
}

/// The names packages are imported as, in their own documentation.
const IMPORT_ALIASES: [(&str, &str); 3] = [("np", "numpy"), ("pd", "pandas"), ("jnp", "jax")];

/// A name no row dates, missing from an installed package. Where another
/// installed package is what uses it, the two are at releases that do not
/// agree: released code does not ship a typo in an import that every user runs
/// into, and a file shadowing the package would not be under site-packages.
/// Where the job's own code uses it, a typo reads the same: the reading is
/// listed, not named.
/// `path_may_settle`: false where a table says the name's release is not the question.
fn undated(
    text: &str,
    traceback: &Traceback,
    context: Context,
    module: &str,
    dotted: &str,
    path_may_settle: bool,
) -> Option<Reading> {
    if text::circular_import(text) {
        return None;
    }
    // Every module has its dunders (`__version__` of every release of a
    // package): one without them, where no row dates it, is some other
    // module of that name (a folder shadowing the package), not a release.
    let missing = dotted.rsplit('.').next().unwrap_or(dotted);
    if text::is_dunder(missing) {
        return None;
    }
    // A name for the GPU is also what a package's CPU-only build lacks
    // (gpu_part reads it): the name alone does not tell the release from the build.
    let gpu_named = super::gpu_part::names_the_gpu(missing);
    // A compiled module missing, or lacking a function, is a build's, not a
    // release's: an extension never built, or built from older sources.
    let last = module.rsplit('.').next().unwrap_or(module);
    if super::unbuilt::names_a_compiled_module(text) || super::unbuilt::is_compiled_module(last) {
        return None;
    }
    let top = module.split('.').next()?;
    // torch's own names are the extension reader's: a package made for another torch.
    if top == "torch" || crate::explain::stdlib_modules::is_stdlib_module(top) {
        return None;
    }
    let lacking = match super::NAMESPACES.contains(&top) {
        // A namespace is no distribution: the one under it is (`google.protobuf`
        // is protobuf's); the namespace alone lacking a module is a package
        // not installed, not a release.
        true => match module.split('.').nth(1) {
            Some("protobuf") => "protobuf".to_string(),
            _ => return None,
        },
        // The package whose files the message found the module in lacks it.
        false => crate::explain::distribution_of(match text::import_found_in(text, module, top) {
            Some(FoundIn::OtherInstall(found)) => found,
            _ => top,
        }),
    };
    let facts = context.facts;
    let installed = facts.and_then(|facts| facts.package_version(&lacking));
    // The message's own path (`from 'x' (/v/lib/python3.10/site-packages/x/__init__.py)`)
    // says where the module was found; without one, that it was found at
    // all (its name is missing, not the module) is what there is.
    let found_at = text::import_found_at(text, module);
    if text::import_found_in(text, module, top) == Some(FoundIn::Outside) {
        return None;
    }
    // The path is in site-packages or dist-packages (frame_package above): the
    // installed distribution is what was imported, no file or folder of the
    // same name shadowing it. That rules out a shadowing file, not a mistaken
    // import path, a fork the project expects in place of the release, or an
    // install left half done: on the batches held out when this reading was
    // written it was right 9 times in 16 (17 in 20 on the batches it was
    // written from), so the job's own code lacking a name, with no table that
    // dates the name, is listed with what would decide it, not named.
    let imported_installed = path_may_settle && found_at.is_some();
    let user = innermost_user(traceback, top);
    let versions = |name: &str| {
        facts
            .and_then(|facts| facts.package_version(name))
            .map_or_else(|| name.to_string(), |version| format!("{name} {version}"))
    };
    let node = match (facts, &installed) {
        (Some(_), Some(version)) => vec![(None, format!("{lacking} {version} is installed here"))],
        _ => Vec::new(),
    };
    Some(match user {
        User::Package(caller) => {
            // The caller's own Requires-Dist, where the node has it, says
            // which releases it was made for.
            let judged = facts.and_then(|facts| super::requirement_judged(facts, &caller, &lacking));
            let fix = match &judged {
                Some(judged) if judged.outside => format!(
                    "python -m pip install \"{lacking}{}\" (what {} requires), or the {caller} release made for {}",
                    judged.specifiers,
                    versions(&caller),
                    versions(&lacking)
                ),
                _ => format!(
                    "install the {lacking} release {} was made for (its requirements: python -m pip show {caller}; python -m pip check names a conflict pip knows), or the {caller} release made for {}",
                    versions(&caller),
                    versions(&lacking)
                ),
            };
            let mut node = match judged {
                Some(judged) => vec![(Some(judged.outside), judged.text)],
                None => node,
            };
            // `getattr(transformers, flavor_config["instance_type"])`: the
            // name is a value the package read (a config, a model's files:
            // trust_remote_code classes no transformers release has), not
            // one its release wrote.
            let from_data = looked_up_by_value(traceback);
            if from_data {
                node.push((
                    None,
                    format!(
                        "where {caller} got the name: its line looks it up by a value (getattr), so a config or a model's files may name a class no {lacking} release has"
                    ),
                ));
            }
            Reading {
            cause: CAUSE,
            said: format!(
                "{caller}, an installed package, uses {dotted}, which the {lacking} installed does not have: their releases do not agree"
            ),
            node,
            fix,
            stated: false,
            settles: !gpu_named && !from_data,
            rules_out: Vec::new(),
        }
        }
        User::TheJob => Reading {
            node: node
                .into_iter()
                .chain([(
                    None,
                    format!(
                        "which {lacking} release the code was written for (the project's requirements file pins it) and whether that release has {dotted} ({lacking}'s changelog); if it does, python -m pip install \"{lacking}==THAT_RELEASE\""
                    ),
                )])
                .chain((!imported_installed).then(|| (
                    None,
                    format!(
                        "which {top} the job imports (python -c \"import {top}; print({top}.__file__)\"): a file or folder named {top} where the job starts shadows the installed one"
                    ),
                )))
                .collect(),
            cause: CAUSE,
            said: if imported_installed {
                format!(
                    "the job's code imports {dotted} from the {lacking} installed in site-packages, which does not have it: the release installed is not the one the code was written for (or the import is mistaken)"
                )
            } else {
                format!(
                    "the job's code (not an installed package) uses {dotted}, which the {lacking} installed does not have: a {lacking} release without it, or a mistake in that code"
                )
            },
            fix: format!(
                "find the {lacking} release that has {dotted} (its changelog, or the project's requirements file) and install it: python -m pip install \"{lacking}==VERSION\""
            ),
            stated: false,
            settles: false,
            rules_out: Vec::new(),
        },
    })
}

/// Whether the line that raised looks the name up by a value, not by a name
/// written in the code: `getattr(module, variable)`, a second argument that
/// is no string literal.
fn looked_up_by_value(traceback: &Traceback) -> bool {
    let Some(line) = traceback
        .raising_section()
        .and_then(|section| section.source_line.as_deref())
    else {
        return false;
    };
    text::word_starts(line, "getattr(", true).any(|at| {
        let arguments = &line[at + "getattr(".len()..];
        arguments
            .split_once(',')
            .map(|(_, second)| second.trim_start())
            .is_some_and(|second| !second.starts_with(['\'', '"']))
    })
}

/// An installed package that could not import a name from its own modules
/// (`from ._util import isDirectory, isPath, py3` in PIL/ImageFont.py): a
/// release imports its own names whole, so the modules loaded are of two
/// releases (tiatoolbox595: a Colab kernel that held Pillow's modules while
/// pip replaced its files). The failing import is the package's own where it
/// is relative, or where the innermost frame is in the package's installed
/// files and imports from the package by name.
fn own_import_failed(text: &str, traceback: &Traceback) -> Option<Reading> {
    let (name, module) = text::name_not_importable(text)?;
    let top = module.split('.').next()?;
    let section = traceback.raising_section()?;
    let statement = section.import_statement.as_deref()?.trim_start();
    let relative = text::is_relative_import(statement);
    let installed = |path: &str| crate::explain::frame_package(path) == Some(top);
    let own = match section.frames.last() {
        Some(frame) => {
            installed(&frame.file)
                && (relative
                    // A namespace (`google`) is many distributions: by name,
                    // one of them may import another's.
                    || (!super::NAMESPACES.contains(&top)
                        && statement
                            .strip_prefix("from ")
                            .is_some_and(|rest| rest.split(['.', ' ']).next() == Some(top))))
        }
        // No frame posted: the line above the error, relative, and the
        // module's installed copy named in the message.
        None => relative && text::import_found_at(text, module).is_some_and(installed),
    };
    if !own || text::circular_import(text) {
        return None;
    }
    let package = crate::explain::distribution_of(top);
    Some(Reading {
        cause: OWN_FILES,
        said: format!(
            "{package}'s own code imports {name} from {module}, which the copy loaded lacks: a release imports its own names whole, so the modules loaded of {package} are from two releases"
        ),
        node: Vec::new(),
        fix: format!(
            "restart the interpreter (in a notebook, restart the runtime or kernel) so that all of {package} loads from the release installed; if the error stays in a fresh process, reinstall it whole: python -m pip install --force-reinstall --no-deps {package}"
        ),
        stated: false,
        settles: true,
        rules_out: vec![CAUSE],
    })
}

/// Who used the missing name: the innermost frame that is neither the
/// package lacking it nor the interpreter's import machinery; the job's
/// code when no frame was posted.
enum User {
    Package(String),
    TheJob,
}

/// The installed package whose frame is the innermost user of something of
/// `top`'s; `None` where that is the job's own code.
pub(super) fn user_of(traceback: &Traceback, top: &str) -> Option<String> {
    match innermost_user(traceback, top) {
        User::Package(package) => Some(package),
        User::TheJob => None,
    }
}

fn innermost_user(traceback: &Traceback, top: &str) -> User {
    let user = traceback
        .frames()
        .filter_map(|frame| match crate::explain::frame_package(&frame.file) {
            // The lacking package's own frames (under its import name, a
            // namespace's included) and the import machinery's.
            Some(package) if crate::explain::is_lookup_machinery(package) => None,
            Some(package) if package == top => None,
            Some(package) => Some(Some(crate::explain::distribution_of(package))),
            None => Some(None),
        })
        .last()
        .flatten();
    match user {
        Some(package) => User::Package(package),
        None => User::TheJob,
    }
}

/// The module and the name a message says is missing from it.
pub(super) fn missing_name(text: &str) -> Option<(&str, &str)> {
    if let Some((name, module)) = text::name_not_importable(text) {
        return Some((module, name));
    }
    if let Some(found) = missing_attribute(text) {
        return Some(found);
    }
    if let Some(module) = text::module_not_found(text) {
        return module.rsplit_once('.');
    }
    moved_module(text)
}

/// A package's own words for a module it moved away (fastcore 1.8:
/// `Could not import '__path__' from fastcore.dispatch - this module has
/// been moved to the fasttransform package.`): the module, as its package
/// and its last part.
fn moved_module(text: &str) -> Option<(&str, &str)> {
    const MOVED: [&str; 3] = ["module has been moved to", "module has moved to", "module was moved to"];
    let at = MOVED.iter().filter_map(|words| text.find(words)).min()?;
    let dotted = text::line_before(text, at)
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ','))
        .rev()
        .find(|token| token.contains('.'))?
        .trim_end_matches(['.', ':']);
    let (package, rest) = dotted.rsplit_once('.')?;
    (dotted.split('.').all(text::is_identifier) && !rest.is_empty()).then_some((package, rest))
}

/// `TrainingArguments.__init__() got an unexpected keyword argument
/// 'evaluation_strategy'`: the class and the keyword its constructor lacks.
/// Python names the class from 3.10 on; a paste whose markdown ate the
/// underscores says `.init()`.
fn unexpected_keyword(text: &str) -> Option<(&str, &str)> {
    const MARK: &str = "() got an unexpected keyword argument '";
    let at = text.find(MARK)?;
    let keyword = text[at + MARK.len()..].split_once('\'')?.0;
    let callable = text[..at]
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ':'))
        .next()?;
    let class = callable
        .strip_suffix(".__init__")
        .or_else(|| callable.strip_suffix(".init"))?;
    Some((class.rsplit('.').next()?, keyword))
}

/// `module 'numpy' has no attribute 'float'`; not `'Foo' object has no attribute`.
/// Unpickling says it its own way: `Can't get attribute 'DGLHeteroGraph' on
/// <module 'dgl.heterograph' from '...'>`, a class the pickle names that the
/// module installed lacks.
fn missing_attribute(text: &str) -> Option<(&str, &str)> {
    let found = match text::after_marker(text, "Can't get attribute '") {
        Some(rest) => {
            let (attribute, after) = rest.split_once('\'')?;
            let module = after.trim_start().strip_prefix("on <module '")?.split_once('\'')?.0;
            Some((module, attribute))
        }
        None => text::after_marker(text, "module '")
            .and_then(|rest| {
                let (module, after) = rest.split_once('\'')?;
                let attribute = after.trim_start().strip_prefix("has no attribute '")?;
                Some((module, attribute.split_once('\'')?.0))
            })
            .or_else(|| text.lines().find_map(lazy_module_words)),
    };
    // The script's own module (a class the pickling script defined itself) is no package's.
    found.filter(|(module, _)| *module != "__main__")
}

/// A lazily loaded module's own words for a name it does not have, which
/// Python's would quote: lazy_loader's `No librosa.core attribute audio`
/// (librosa, scikit-image and networkx load their submodules through it) and
/// the `_LazyModule` of transformers and the projects that copied it, `module
/// transformers has no attribute Qwen2VLForConditionalGeneration`. A whole
/// line must be the sentence, so prose that holds the words within a longer
/// line is none (a line that is nothing but such prose may still be read).
fn lazy_module_words(line: &str) -> Option<(&str, &str)> {
    let message = line.trim().strip_prefix("AttributeError: ").unwrap_or(line.trim());
    let (module, attribute) = match message.strip_prefix("module ") {
        Some(rest) => rest.split_once(" has no attribute ")?,
        None => message
            .strip_prefix("No ")?
            .split_once(" attribute ")
            // `No such attribute x`: English, not a module.
            .filter(|(module, _)| !module.eq_ignore_ascii_case("such") && !text::is_prose_word(module))?,
    };
    let dotted = !module.is_empty() && module.split('.').all(text::is_identifier);
    (dotted && text::is_identifier(attribute)).then_some((module, attribute))
}

/// `'tensorrt.tensorrt.IBuilderConfig' object has no attribute
/// 'max_workspace_size'` (or `type object '...'`): Python prints a class
/// with its module only where a compiled module defines it (pybind11's,
/// Cython's, the C API's types); a class of Python code is printed bare
/// (`'Trainer' object`), and says nothing of whose it is. The qualified
/// class stands for the module the name is looked up in; the standard
/// library's types are no package's.
fn attribute_of_a_compiled_type(text: &str) -> Option<(&str, &str)> {
    const MARKS: [&str; 2] = ["' object has no attribute '", "' has no attribute '"];
    let (at, mark) = MARKS
        .iter()
        .filter_map(|mark| text.find(mark).map(|at| (at, *mark)))
        .min_by_key(|(at, _)| *at)?;
    let class = text[..at].rsplit('\'').next()?;
    let attribute = text[at + mark.len()..].split_once('\'')?.0;
    let top = class.split('.').next()?;
    let qualified = class.contains('.') && class.split('.').all(text::is_identifier);
    // `_io.TextIOWrapper`: the interpreter's own private modules are no package.
    let packaged = !top.starts_with('_') && top != "builtins" && !crate::explain::stdlib_modules::is_stdlib_module(top);
    (qualified && packaged).then_some((class, attribute))
}

/// The package whose frame used the name: the innermost frame in a package
/// other than the one that lacks it.
pub(super) fn caller(traceback: &Traceback, package: &str) -> Option<String> {
    traceback
        .frames()
        .filter_map(|frame| crate::explain::frame_package(&frame.file))
        .filter(|found| !crate::explain::is_lookup_machinery(found))
        .map(crate::explain::distribution_of)
        .filter(|found| crate::packaging::normalize_name(found) != package)
        .last()
}

/// The installed version against the row: on the side without the name confirms.
fn installed_against(installed: Option<pep440_rs::Version>, row: &NameChange, dotted: &str) -> (Option<bool>, String) {
    let Some(installed) = installed else {
        return (
            None,
            format!("the version of {} installed is not known here", row.package),
        );
    };
    let lacks = match row.change {
        Change::Removed => installed >= row.version,
        Change::Added => installed < row.version,
    };
    let text = if lacks {
        format!("{} {installed} is installed here, which lacks {dotted}", row.package)
    } else {
        format!(
            "{} {installed} is installed here, which has {dotted}: the job ran with another {}, or a file of that name shadows it",
            row.package, row.package
        )
    };
    (Some(lacks), text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::readers::parsed;
    fn builtin() -> crate::knowledge::tables::Tables {
        crate::knowledge::tables::read_builtin().0
    }

    fn reading(log: &str) -> Option<Reading> {
        let tables = builtin();
        let (traceback, text) = parsed(log);
        read(&text, &traceback, Context::with_tables(&tables))
    }

    /// qulacs650: a name for the GPU, missing where the package was found in
    /// site-packages, is also what its CPU-only build lacks; any other name
    /// so missing may be a mistaken import or a fork the project expects.
    /// Neither is named where no table dates the name.
    #[test]
    fn an_undated_name_missing_from_an_installed_package_is_listed_not_named() {
        for name in ["QuantumStateGpu", "QuantumStateMpi"] {
            let found = reading(&format!(
                "ImportError: cannot import name '{name}' from 'qulacs' (/home/u/miniconda3/envs/r/lib/python3.9/site-packages/qulacs/__init__.py)\n"
            ))
            .unwrap();
            assert!(!found.settles, "{found:?}");
        }
    }

    /// fasterliveportrait24, pfrl173: a compiled class printed with its
    /// module is looked up as that module; a Python class, printed bare, and
    /// the standard library's types are not.
    #[test]
    fn a_compiled_types_missing_attribute_is_looked_up_under_its_qualified_name() {
        assert_eq!(
            attribute_of_a_compiled_type(
                "AttributeError: 'tensorrt.tensorrt.IBuilderConfig' object has no attribute 'max_workspace_size'"
            ),
            Some(("tensorrt.tensorrt.IBuilderConfig", "max_workspace_size"))
        );
        assert_eq!(
            attribute_of_a_compiled_type(
                "AttributeError: type object 'pyscipopt.scip.Model' has no attribute 'getKhalilState'"
            ),
            Some(("pyscipopt.scip.Model", "getKhalilState"))
        );
        for bare in [
            "AttributeError: 'XGRPOTrainer' object has no attribute 'num_iterations'",
            "AttributeError: type object 'HoVerNet' has no attribute '_get_instance_info'",
            "AttributeError: '_io.TextIOWrapper' object has no attribute 'buffer'",
            "AttributeError: 'builtins.dict' object has no attribute 'x'",
            "AttributeError: 'a b.c' object has no attribute 'x'",
        ] {
            assert_eq!(attribute_of_a_compiled_type(bare), None, "{bare}");
        }
        // Undated, it is not read: a release, or the code's own mistake.
        assert!(reading("AttributeError: 'pycolmap._core.Image' object has no attribute 'id'\n").is_none());
    }

    /// pianotranscriptioninference16: a lazily loaded module words a missing
    /// name its own way; read as Python's, the name history dates it, and
    /// lazy_loader's frame, which raised it for the caller, is not the user.
    #[test]
    fn a_lazy_modules_missing_name_is_read_as_pythons() {
        assert_eq!(
            missing_attribute("AttributeError: No librosa.core attribute audio"),
            Some(("librosa.core", "audio"))
        );
        assert_eq!(
            missing_attribute("module transformers has no attribute Qwen2VLForConditionalGeneration"),
            Some(("transformers", "Qwen2VLForConditionalGeneration"))
        );
        for prose in [
            "No GPU attribute was found in the config",
            "AttributeError: No such attribute foo",
            "AttributeError: No librosa.core attribute audio, try again",
            "the module foo has no attribute docs yet",
            "module my-pkg has no attribute x",
            "AttributeError: module __main__ has no attribute Net",
        ] {
            assert_eq!(missing_attribute(prose), None, "{prose}");
        }
        let lazy = reading("Traceback (most recent call last):\n  File \"/content/transcribe.py\", line 9, in transcribe\n    y, sr = librosa.core.audio.load(path)\n  File \"/usr/local/lib/python3.9/dist-packages/lazy_loader/__init__.py\", line 88, in __getattr__\n    raise AttributeError(f\"No {package_name} attribute {name}\")\nAttributeError: No librosa.core attribute audio\n").unwrap();
        assert_eq!(lazy.cause, CAUSE);
        assert!(
            lazy.said.starts_with("the code uses librosa.core.audio"),
            "{}",
            lazy.said
        );
        assert!(!lazy.fix.contains("lazy"), "{}", lazy.fix);
    }

    /// transformers26609: mlflow looks a class up by the name a model's
    /// config gives (a trust_remote_code class no transformers release has):
    /// a name read from data is listed, not named; one the line writes is named.
    #[test]
    fn a_name_an_installed_package_looks_up_by_value_is_not_its_releases() {
        let log = |line: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/usr/lib/python3.10/site-packages/mlflow/transformers/__init__.py\", line 500, in _load_model\n    {line}\nAttributeError: module 'transformers' has no attribute 'BaiChuanForCausalLM'\n"
            )
        };
        let by_value = reading(&log("cls = getattr(transformers, flavor_config[\"instance_type\"])")).unwrap();
        assert!(!by_value.settles, "{by_value:?}");
        let by_name = reading(&log("cls = getattr(transformers, \"BaiChuanForCausalLM\")")).unwrap();
        assert!(by_name.settles, "{by_name:?}");
    }

    /// NumPy 2.0's own words for a method it took off ndarray date it.
    #[test]
    fn a_method_a_package_says_it_removed_from_a_class_is_dated_by_its_words() {
        let found = reading(
            "AttributeError: `ptp` was removed from the ndarray class in NumPy 2.0. Use np.ptp(arr, ...) instead.\n",
        )
        .unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.contains("numpy.ndarray.ptp, which numpy 2.0 removed"),
            "{}",
            found.said
        );
        assert_eq!(found.fix, "python -m pip install \"numpy<2.0\"");
        assert!(reading("AttributeError: `ptp` was removed from the nd-array class in NumPy 2.0.\n").is_none());
        // Gensim 4's words, pasted without their class (spec2vec61).
        let gensim = "The vocab attribute was removed from KeyedVector in Gensim 4.0.0.\nUse KeyedVector's .key_to_index dict, .index_to_key list, and methods .get_vecattr(key, attr) and .set_vecattr(key, attr, new_val) instead.\n";
        let found = reading(gensim).unwrap();
        assert!(
            found
                .said
                .contains("gensim.KeyedVector.vocab, which gensim 4.0.0 removed"),
            "{}",
            found.said
        );
        assert_eq!(found.fix, "python -m pip install \"gensim<4.0.0\"");
        // A package word no table knows, an argument: not read.
        assert!(reading("The `normalize` option was removed from Pipeline in version 2.0.\n").is_none());
        assert!(reading("the foo attribute was removed from the CLI in release 3.0\n").is_none());
        assert!(reading("The gpus argument was removed from Trainer in mylib 2.0\n").is_none());
        // A class of several words, or no release: not read.
        assert!(reading("The vocab attribute was removed from the word vectors in Gensim 4.0.0.\n").is_none());
        assert!(reading("The vocab attribute was removed from KeyedVector in Gensim.\n").is_none());
    }

    const CYTHON_BBOX: &str = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/cython_bbox/__init__.py\", line 3, in <module>\n    DTYPE = np.float\nAttributeError: module 'numpy' has no attribute 'float'.\n";

    /// The generated name history dates what no hand-checked row does
    /// (kornia1289: ImageRegistrator came to kornia.geometry with 0.5.11).
    #[test]
    fn a_name_the_history_finds_in_some_releases_only_is_dated_by_them() {
        let found = reading("ImportError: cannot import name 'ImageRegistrator' from 'kornia.geometry'").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.said.contains("from 0.5.11 on (0.5.0 lacks it)"), "{}", found.said);
        assert!(found.fix.contains("\"kornia>=0.5.11\""), "{}", found.fix);
        // A removed module: the pin keeps a release that has it.
        let module = reading("ModuleNotFoundError: No module named 'dgl.batched_graph'").unwrap();
        // Removed by 0.4.3.post2, the release read; a post-release is its release's code.
        assert!(module.fix.contains("\"dgl>=0.0.1,<0.4.3\""), "{}", module.fix);
        // A pickle's class the installed module lacks, in the unpickler's words.
        let pickled = reading(
            "AttributeError: Can't get attribute 'DGLHeteroGraph' on <module 'dgl.heterograph' from '/env/lib/python3.12/site-packages/dgl/heterograph.py'>",
        )
        .unwrap();
        assert!(pickled.said.contains("(1.0.0 lacks it)"), "{}", pickled.said);
    }

    #[test]
    fn the_history_does_not_date_what_the_installed_release_has_or_another_module_lacks() {
        let log = "ImportError: cannot import name 'ImageRegistrator' from 'kornia.geometry'";
        let (traceback, text) = parsed(log);
        // kornia 0.6.12 has it: the release installed is not the question.
        let installed_has_it = crate::explain::readers::read_on_recorded_h100(
            |snapshot| crate::explain::readers::add_package(snapshot, "kornia", "0.6.12"),
            |context| read(&text, &traceback, context),
        );
        assert!(
            installed_has_it
                .as_ref()
                .is_none_or(|reading| !reading.said.contains("its releases")),
            "{installed_has_it:?}"
        );
        // A class a script pickled from its own `__main__`, or a project's own
        // module found outside site-packages, is no package's release.
        assert_eq!(
            reading("AttributeError: Can't get attribute 'Net' on <module '__main__' from 'train.py'>"),
            None
        );
        assert_eq!(
            reading(
                "AttributeError: Can't get attribute 'C3CA' on <module 'models.common' from 'D:\\YOLOSHOW\\models\\common.py'>"
            ),
            None
        );
        // A module without its dunders is some other module of that name.
        assert_eq!(
            reading("AttributeError: module 'paddle' has no attribute '__version__'"),
            None
        );
    }

    /// qwen2-vl-7b-instruct5, nos150, qwentensorrtllm92: a model class or module of a type
    /// transformers-models.toml dates; a type the first release read already had is not dated.
    #[test]
    fn a_transformers_model_class_or_module_is_dated_by_its_model_type() {
        let class = reading("ImportError: cannot import name 'Qwen2VLForConditionalGeneration' from 'transformers' (/v/lib/python3.10/site-packages/transformers/__init__.py)\n").unwrap();
        assert!(
            class.settles && class.said.contains("model type qwen2_vl"),
            "{}",
            class.said
        );
        assert!(
            class.fix.contains("--upgrade \"transformers>=4.45.0\""),
            "{}",
            class.fix
        );
        let module = reading("ModuleNotFoundError: No module named 'transformers.models.qwen2'\n").unwrap();
        assert!(
            module.said.contains("the module of transformers' model type qwen2 "),
            "{}",
            module.said
        );
        assert!(module.fix.contains("\"transformers>=4.37.0\""), "{}", module.fix);
        let old = reading("ImportError: cannot import name 'BertModel' from 'transformers' (/v/lib/python3.10/site-packages/transformers/__init__.py)\n").unwrap();
        assert!(!old.settles, "{}", old.said);
        let misspelt = reading("ImportError: cannot import name 'Qwen2Vl' from 'transformers'\n").unwrap();
        assert!(!misspelt.settles, "{}", misspelt.said);
    }

    /// pymotmetrics199: NumPy 2 says itself which release removed the name.
    #[test]
    fn a_removal_numpy_states_is_read_as_a_dated_row() {
        let log = "Traceback (most recent call last):\n  File \"/v/lib/python3.12/site-packages/motmetrics/distances.py\", line 117, in iou_matrix\n    objs = np.asfarray(objs)\nAttributeError: `np.asfarray` was removed in the NumPy 2.0 release. Use `np.asarray` with a proper dtype instead.\n";
        let found = reading(log).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found
                .said
                .starts_with("motmetrics uses numpy.asfarray, which numpy 2.0 removed"),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("python -m pip install \"numpy<2.0\""),
            "{}",
            found.fix
        );
        assert!(reading("AttributeError: `np.x y` was removed in the NumPy 2.0 release.\n").is_none());
    }

    /// pyrddlgymjax16: JAX's own words date the removal as NumPy's do.
    #[test]
    fn a_removal_any_package_states_with_its_release_is_dated() {
        let found = reading("AttributeError: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer) or jax.tree_util.tree_map (any JAX version).\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.contains("jax.tree_map, which jax 0.6.0 removed"),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("python -m pip install \"jax<0.6.0\""),
            "{}",
            found.fix
        );
        // The package the sentence names must be the name's own; torch's removals are not this entry's.
        assert!(removal_stated("AttributeError: jax.tree_map was removed in NumPy 2.0").is_none());
        assert!(removal_stated("AttributeError: torch.foo was removed in torch 2.0").is_none());
    }

    #[test]
    fn a_removed_name_is_dated_and_pinned_back_with_the_caller_named() {
        let found = reading(CYTHON_BBOX).unwrap();
        assert!(
            found
                .said
                .starts_with("cython-bbox uses numpy.float, which numpy 1.24.0 removed"),
            "{}",
            found.said
        );
        assert!(
            found
                .fix
                .starts_with("python -m pip install \"numpy<1.24.0\", or upgrade cython-bbox"),
            "{}",
            found.fix
        );
        let hub = reading("ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/v/lib/python3.10/site-packages/huggingface_hub/__init__.py)\n").unwrap();
        assert!(
            hub.fix.starts_with("python -m pip install \"huggingface-hub<0.26.0\""),
            "{}",
            hub.fix
        );
    }

    #[test]
    fn an_added_name_asks_for_the_release_that_has_it() {
        let found = reading("ImportError: cannot import name 'EncoderDecoderCache' from 'transformers'\n").unwrap();
        assert_eq!(found.fix, "python -m pip install \"transformers>=4.43.0\"");
    }

    /// Whisper-Finetune#112 (removed) and poseidon3 (added): a keyword
    /// argument the constructor of a class the table lists lacks.
    #[test]
    fn a_keyword_argument_is_dated_by_the_class_the_type_error_names() {
        let removed = reading(
            "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'\n",
        )
        .unwrap();
        assert!(
            removed
                .said
                .contains("uses TrainingArguments(evaluation_strategy=...), which transformers 4.51.0 removed"),
            "{}",
            removed.said
        );
        assert!(
            removed
                .fix
                .starts_with("pass eval_strategy= in place of evaluation_strategy= to TrainingArguments")
                && removed.fix.contains("or python -m pip install \"transformers<4.51.0\""),
            "{}",
            removed.fix
        );
        // A paste whose markdown ate the underscores.
        let pasted = reading(
            "TypeError: Seq2SeqTrainingArguments.init() got an unexpected keyword argument 'evaluation_strategy'\n",
        )
        .unwrap();
        assert!(
            pasted.fix.contains("python -m pip install \"transformers<4.51.0\""),
            "{}",
            pasted.fix
        );
        let added =
            reading("TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'eval_strategy'\n")
                .unwrap();
        assert_eq!(added.fix, "python -m pip install \"transformers>=4.41.0\"");
        // Another class's keyword, or no class named (Python before 3.10): nothing.
        for log in [
            "TypeError: Trainer.__init__() got an unexpected keyword argument 'evaluation_strategy'\n",
            "TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'\n",
            "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'eval_steps_typo'\n",
        ] {
            assert_eq!(reading(log), None, "{log}");
        }
    }

    /// A name no row dates, used by the job's own code, in a message that does
    /// not say where the module was found: a typo, or a file of the job
    /// shadowing the package, reads the same, so the reading is listed and
    /// never named, and says what decides.
    #[test]
    fn an_undated_name_the_jobs_code_uses_is_listed_not_named() {
        for log in [
            "AttributeError: module 'numpy' has no attribute 'arrray'\n",
            "ModuleNotFoundError: No module named 'numpy.linalg.lapack_lite2'\n",
            "Traceback (most recent call last):\n  File \"/home/me/proj/train.py\", line 3, in <module>\n    from peft.utils.other import WEIGHT_NAMES\nImportError: cannot import name 'WEIGHT_NAMES' from 'peft.utils.other'\n",
        ] {
            let found = reading(log).unwrap_or_else(|| panic!("{log}"));
            assert!(!found.settles, "{log}");
            assert!(
                found.said.starts_with("the job's code (not an installed package)"),
                "{}",
                found.said
            );
            assert!(found.node.iter().all(|(holds, _)| holds.is_none()), "{log}");
            assert!(found.node.iter().any(|(_, text)| text.contains(".__file__")), "{log}");
        }
    }

    /// chatglmefficienttuning24, pointpainting34, torchgeo291: the job's code
    /// imports a name from a module the message finds in site-packages. The
    /// installed release is what was imported, and it lacks the name: named,
    /// A package's own import of its own name that fails is its modules from
    /// two releases, not the job using a name a release lacks (tiatoolbox595);
    /// the job's import, a namespace's neighbour and a project's own package
    /// are not.
    #[test]
    fn a_packages_own_import_that_fails_is_two_releases_of_its_modules() {
        let message = "ImportError: cannot import name 'py3' from 'PIL._util' (/usr/local/lib/python3.9/dist-packages/PIL/_util.py)\n";
        let relative = reading(&format!("from ._util import isDirectory, isPath, py3\n{message}")).unwrap();
        assert_eq!(relative.cause, OWN_FILES, "{relative:?}");
        assert!(
            relative
                .said
                .starts_with("pillow's own code imports py3 from PIL._util"),
            "{}",
            relative.said
        );
        assert!(
            relative.fix.ends_with("--force-reinstall --no-deps pillow"),
            "{}",
            relative.fix
        );
        assert_eq!(relative.rules_out, vec![CAUSE]);
        let framed = reading(&format!("Traceback (most recent call last):\n  File \"/home/u/nb.py\", line 1, in <module>\n    from PIL import ImageFont\n  File \"/usr/local/lib/python3.9/dist-packages/PIL/ImageFont.py\", line 36, in <module>\n    from PIL._util import isDirectory, isPath, py3\n{message}")).unwrap();
        assert_eq!(framed.cause, OWN_FILES, "{framed:?}");
        for log in [
            format!("Traceback (most recent call last):\n  File \"/home/u/nb.py\", line 1, in <module>\n    from PIL._util import py3\n{message}"),
            "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/google/cloud/storage/blob.py\", line 9, in <module>\n    from google.protobuf import runtime_version\nImportError: cannot import name 'runtime_version' from 'google.protobuf' (/v/lib/python3.10/site-packages/google/protobuf/__init__.py)\n".to_string(),
            "from .utils import warmup\nImportError: cannot import name 'warmup' from 'proj.utils' (/home/u/proj/utils.py)\n".to_string(),
        ] {
            assert!(reading(&log).is_none_or(|found| found.cause != OWN_FILES), "{log}");
        }
    }

    /// A name the history dates is read from the history. An undated one,
    /// imported from site-packages, is listed as the installed release's,
    /// with no shadowing file left to check, but not named: a mistaken
    /// import or an expected fork lack it as well. Not where the model table
    /// says every release has the class's type.
    #[test]
    fn an_undated_name_imported_from_site_packages_is_listed_without_a_shadowing_check() {
        let log = "Traceback (most recent call last):\n  File \"/home/me/proj/train.py\", line 3, in <module>\n    from peft.utils.other import WEIGHTS_NAME\nImportError: cannot import name 'WEIGHTS_NAME' from 'peft.utils.other' (/v/lib/python3.10/site-packages/peft/utils/other.py)\n";
        // The real case's name, which the history dates: peft before 0.3.0 lacks it.
        let dated = reading(log).unwrap();
        assert!(
            dated.said.contains("peft has in its releases from 0.3.0 on"),
            "{}",
            dated.said
        );
        let log = log.replace("WEIGHTS_NAME", "WEIGHT_NAMES");
        let found = reading(&log).unwrap();
        assert!(!found.settles && !found.stated, "{}", found.said);
        assert!(
            found.said.starts_with(
                "the job's code imports peft.utils.other.WEIGHT_NAMES from the peft installed in site-packages"
            ),
            "{}",
            found.said
        );
        assert!(
            found.node.iter().all(|(_, text)| !text.contains(".__file__")),
            "{:?}",
            found.node
        );
        let windows = "ImportError: cannot import name '_ExtractPatches' from 'torchgeo.transforms.transforms' (D:\\proj\\CD\\lib\\site-packages\\torchgeo\\transforms\\transforms.py)\n";
        assert!(reading(windows).unwrap().settles);
        let bert = "ImportError: cannot import name 'BertModel' from 'transformers' (/v/lib/python3.10/site-packages/transformers/__init__.py)\n";
        assert!(!reading(bert).unwrap().settles);
        // Another package whose name starts with transformers' is not transformers.
        let other = "ImportError: cannot import name 'BertModel' from 'transformers_stream_generator' (/v/lib/python3.10/site-packages/transformers_stream_generator/__init__.py)\n";
        let other = reading(other).unwrap();
        assert!(
            other.said.contains("stream") && !other.said.contains("the transformers installed"),
            "{}",
            other.said
        );
    }

    /// spconv367: an installed package imports a name its companion package
    /// lacks. Their releases disagree, and the reading says so.
    #[test]
    fn an_undated_name_another_installed_package_uses_is_their_releases_disagreeing() {
        let log = "Traceback (most recent call last):\n  File \"D:\\Anaconda3\\lib\\site-packages\\spconv\\core.py\", line 21, in <module>\n    from cumm.conv.main import ConvFwdAndBwdInput\nImportError: cannot import name 'ConvFwdAndBwdInput' from 'cumm.conv.main'\n";
        let found = reading(log).unwrap();
        assert!(found.settles && !found.stated);
        assert!(
            found.said.starts_with(
                "spconv, an installed package, uses cumm.conv.main.ConvFwdAndBwdInput, which the cumm installed"
            ),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("install the cumm release spconv was made for"),
            "{}",
            found.fix
        );
        // The package's own frame raising the error is passed over for its
        // caller (a module names.toml does not date: torchvision.models.utils,
        // the real case, now is).
        let inside = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/basicsr/data/degradations.py\", line 8, in <module>\n    from torchvision.models.undated import load_state_dict_from_url\n  File \"/v/lib/python3.10/site-packages/torchvision/__init__.py\", line 5, in <module>\n    x\nModuleNotFoundError: No module named 'torchvision.models.undated'\n";
        let found = reading(inside).unwrap();
        assert!(
            found.settles && found.said.starts_with("basicsr, an installed package"),
            "{}",
            found.said
        );
        // Under a namespace, the distribution is the package below it.
        let protobuf = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/onnx/onnx_pb.py\", line 4, in <module>\n    from google.protobuf.internal import builder\nImportError: cannot import name 'builder' from 'google.protobuf.internal' (/v/lib/python3.10/site-packages/google/protobuf/internal/__init__.py)\n";
        // The history dates builder (protobuf 3.20.0 brought it); a name it
        // does not date is the releases disagreeing.
        let dated = reading(protobuf).unwrap();
        assert!(
            dated.said.contains("protobuf has in its releases from 3.20.0 on"),
            "{}",
            dated.said
        );
        let found = reading(&protobuf.replace("builder", "no_builder")).unwrap();
        assert!(
            found.said.contains("which the protobuf installed does not have"),
            "{}",
            found.said
        );
    }

    /// A module another installed package lends under the name (TensorFlow
    /// 2.16 and later serve tensorflow.keras from keras): the lender's release
    /// lacks the name. A folder of that name outside every install is still
    /// a shadow, not a release.
    #[test]
    fn a_module_found_in_another_installed_package_is_that_packages_release() {
        let log = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/facelib/models.py\", line 29, in <module>\n    from tensorflow.keras.layers import (\nImportError: cannot import name 'LocallyLinked9D' from 'tensorflow.keras.layers' (/v/lib/python3.10/site-packages/keras/_tf_keras/keras/layers/__init__.py)\n";
        let found = reading(log).unwrap();
        assert!(
            found.said.contains("which the keras installed does not have"),
            "{}",
            found.said
        );
        let shadowed = log.replace(
            "/v/lib/python3.10/site-packages/keras/_tf_keras",
            "/home/me/proj/tensorflow",
        );
        assert_eq!(reading(&shadowed), None);
    }

    /// What is not a package's release: the interpreter's own library, a
    /// module of the job found outside site-packages, a circular import, and
    /// a keyword whose class names no package.
    #[test]
    fn what_is_not_a_packages_release_reads_as_nothing() {
        for log in [
            "ImportError: cannot import name 'Mapping' from 'collections' (/usr/lib/python3.10/collections/__init__.py)\n",
            "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/old/x.py\", line 1, in <module>\n    from collections import Mapping\nImportError: cannot import name 'Mapping' from 'collections'\n",
            "ImportError: cannot import name 'load_data' from 'utils' (/home/me/proj/utils.py)\n",
            "AttributeError: 'numpy.ndarray' object has no attribute 'float'\n",
            "ImportError: cannot import name 'float' from partially initialized module 'numpy' (most likely due to a circular import)\n",
            "TypeError: Linear.__init__() got an unexpected keyword argument 'optimize_fallback'\n",
            "ImportError: cannot import name '_C' from 'groundingdino' (/v/lib/python3.10/site-packages/groundingdino/__init__.py)\n",
            "AttributeError: module 'alpaca_lora_4bit.quant_cuda' has no attribute 'vecquant4recons_v2'\n",
            // A package under a namespace not installed at all, which no release of another fixes.
            "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/tensorboard/compat/proto/x.py\", line 5, in <module>\n    from google.protobuf import descriptor\nModuleNotFoundError: No module named 'google.protobuf'\n",
        ] {
            assert_eq!(reading(log), None, "{log}");
        }
    }

    /// Every row's every name, in each module the row names, is read, and the
    /// installed version decides: on the side without the name it confirms,
    /// on the other it contradicts.
    #[test]
    fn every_row_is_read_and_the_installed_version_decides() {
        let tables = builtin();
        assert!(!tables.names.changes.is_empty());
        for row in &tables.names.changes {
            for module in &row.modules {
                for name in &row.names {
                    let log = format!("ImportError: cannot import name '{name}' from '{module}'\n");
                    let found = reading(&log).unwrap_or_else(|| panic!("{log}"));
                    assert!(found.said.contains(&row.source), "{}", found.said);
                    let release = row.version.release();
                    let before = match release[1] {
                        0 => format!("{}.99", release[0] - 1),
                        minor => format!("{}.{}", release[0], minor - 1),
                    };
                    let before = <pep440_rs::Version as std::str::FromStr>::from_str(&before).unwrap();
                    let (lacking, having) = match row.change {
                        Change::Removed => (row.version.clone(), before),
                        Change::Added => (before, row.version.clone()),
                    };
                    assert_eq!(installed_against(Some(lacking), row, name).0, Some(true), "{log}");
                    assert_eq!(installed_against(Some(having), row, name).0, Some(false), "{log}");
                }
            }
        }
    }

    /// tsai939: another installed package imports a module its dependency moved away.
    #[test]
    fn a_module_a_package_says_it_moved_away_is_a_name_it_lacks() {
        let log = "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n  File \"C:\\e\\Lib\\site-packages\\tsai\\imports.py\", line 57, in <module>\n    from fastcore.dispatch import *\n  File \"C:\\e\\Lib\\site-packages\\fastcore\\dispatch.py\", line 2, in __getattr__\n    raise ImportError(\nImportError: Could not import '__path__' from fastcore.dispatch - this module has been moved to the fasttransform package.\nTo migrate your code, please see the migration guide.\n";
        let found = super::super::read_alone(read, log).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.settles, "{found:?}");
        assert!(
            found
                .said
                .starts_with("tsai, an installed package, uses fastcore.dispatch"),
            "{}",
            found.said
        );
        assert_eq!(
            moved_module("ImportError: No such thing - this module has been moved to x"),
            None
        );
    }
}
