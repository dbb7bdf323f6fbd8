//! A call the installed release's signature does not take: `SFTTrainer.__init__()
//! got an unexpected keyword argument 'max_seq_length'`, `training_step() takes
//! 3 positional arguments but 4 were given`, `__init__() missing 1 required
//! positional argument: 'cfg'`. Packages add, rename and drop arguments as
//! they add and drop names, so the call was most often written for another
//! release of the package that defines the callee; but the words are also what
//! a mistaken call in the job's own code prints, and no table dates
//! arguments. The reading names the callee's package where a name table knows
//! it, says what would decide, and never settles.
//!
//! torch's dispatcher words the same refusal for a registered operator, with
//! the installed schema after it: `aten::grid_sampler_2d_backward() is missing
//! value for argument 'output_mask'. Declaration: ...`, `scatter_add() expected
//! at most 5 argument(s) but received 6 argument(s)`, `Unknown keyword
//! argument 'x' for operator 'ns::op'`. An operator's namespace names the
//! library that registers it; torch's own (`aten::`) are internals no job
//! calls by mistake, so a call to one that its schema refuses was written for
//! another torch, and that reading settles.

use super::{Context, Reading, extension, names};
use crate::explain::traceback::Traceback;
use crate::knowledge::name_history;
use crate::knowledge::tables::Change;

/// What the call did that the signature does not take.
#[derive(Debug, PartialEq, Eq)]
struct Mismatch<'t> {
    /// As Python prints it: `SFTTrainer.__init__`, `dot`, `__init__`.
    callable: &'t str,
    refused: Refused<'t>,
}

#[derive(Debug, PartialEq, Eq)]
enum Refused<'t> {
    Keyword(&'t str),
    Positional {
        takes: &'t str,
        given: &'t str,
    },
    Missing {
        kind: &'t str,
        names: &'t str,
    },
    /// The dispatcher's count, which takes keyword and positional arguments together.
    Arguments {
        at_most: &'t str,
        given: &'t str,
    },
}

impl Refused<'_> {
    /// The call and the signature side by side, `defined_by` the release
    /// whose signature it is.
    fn described(&self, defined_by: &str) -> String {
        match self {
            Refused::Keyword(keyword) => {
                format!("with the keyword argument {keyword}, which {defined_by} does not take")
            }
            Refused::Positional { takes, given } => {
                format!("with {given} positional arguments, where {defined_by} takes {takes}")
            }
            Refused::Missing { kind, names } => {
                format!("without its required {kind} {names}, which {defined_by} requires")
            }
            Refused::Arguments { at_most, given } => {
                format!("with {given} arguments, where {defined_by} takes at most {at_most}")
            }
        }
    }

    /// What the signature must do for the call to stand, for the question that decides.
    fn question(&self) -> String {
        match self {
            Refused::Keyword(keyword) => format!("takes the keyword argument {keyword}"),
            Refused::Positional { given, .. } => format!("takes {given} positional arguments"),
            Refused::Missing { names, .. } => format!("requires {names}"),
            Refused::Arguments { given, .. } => format!("takes {given} arguments"),
        }
    }
}

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    if let Some(mismatch) = operator_mismatch(text) {
        return operator_reading(&mismatch, text, traceback, context);
    }
    let mismatch = mismatch(text)?;
    let callable = mismatch.callable;
    if let Refused::Keyword(keyword) = mismatch.refused {
        // Before 3.10 Python names a constructor `__init__` alone; the line
        // that made the call names its class.
        let constructor = (callable == "__init__")
            .then(|| traceback.sections.last()?.source_line.as_deref())
            .flatten()
            .and_then(|line| class_called_with(line, keyword))
            .map(|class| format!("{class}.__init__"));
        let callable = constructor.as_deref().unwrap_or(callable);
        if let Some(reading) = keyword_dated(callable, keyword, traceback, context) {
            return Some(reading);
        }
    }
    let owner = owner_of(callable).and_then(|owner| owner.judged(context));
    let caller = names::user_of(traceback, owner.as_ref().map_or("", |owner| owner.name.top.as_str()));
    // The job's own code calling a callee no table places: its own function
    // as likely as a package's, and the words say nothing of which.
    if owner.is_none() && caller.is_none() {
        return None;
    }
    let calling = calling(caller.as_deref(), "the job's code");
    let (defined_by, package) = match &owner {
        Some(Judged {
            name,
            installed: Some(version),
        }) => (
            format!("the {} {version} installed", name.distribution),
            name.distribution.clone(),
        ),
        Some(Judged { name, installed: None }) => (
            format!(
                "{}'s release installed (if the {} called is {}'s)",
                name.distribution,
                first_part(callable),
                name.distribution
            ),
            name.distribution.clone(),
        ),
        None => (
            format!("the release installed of the package that defines {callable}()"),
            format!("the package that defines {callable}()"),
        ),
    };
    let pin = owner
        .as_ref()
        .map(|owner| format!(" (python -m pip install \"{}==VERSION\")", owner.name.distribution));
    Some(listed(
        &mismatch,
        &calling,
        &defined_by,
        &package,
        pin.as_deref(),
        to_decide(owner.as_ref().map(|owner| &owner.name), callable, &mismatch.refused),
    ))
}

/// A keyword that the callable of one distribution's module took in some of
/// its releases and refuses in others (keyword-history.txt): the call was
/// written for a release that took it. The callable's name alone does not
/// place it (the job's own `Logger` may refuse `name=` as joblib's once did),
/// so the reading settles only where something else does: the node's release
/// refusing it, the name history placing the class or function in that
/// package, or the calling line naming the package. Where names.toml dates
/// the keyword by hand, that row speaks (names.rs).
fn keyword_dated(callable: &str, keyword: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let first = first_part(callable);
    if first.starts_with("__") {
        return None;
    }
    let hand_dated = callable
        .strip_suffix(".__init__")
        .zip(context.tables)
        .is_some_and(|(class, tables)| tables.names.of(class, keyword).is_some());
    if hand_dated {
        return None;
    }
    // A callable of that name in two modules, or two distributions: its name does not place it.
    let [row] = name_history::of_keyword(callable, keyword).try_into().ok()?;
    let lineage = &row.lineage;
    let package = crate::packaging::normalize_name(&lineage.distribution);
    let installed = context.facts.and_then(|facts| facts.package_version(&package));
    // The log ran here, without the package: the callable is other code's of that name.
    if installed.is_none() && context.absence_is_a_fact {
        return None;
    }
    let takes = installed.as_ref().and_then(|version| lineage.has_at(version));
    if takes == Some(true) || names::undecided_within(lineage, installed.as_ref()) {
        return None;
    }
    let top = row.module.split('.').next().unwrap_or(row.module);
    // torch's own names are the extension reader's (names.rs): code made for another torch.
    if top == "torch" {
        return None;
    }
    let run = lineage.newest_run()?;
    let placed_by_name = owner_of(callable).is_some_and(|owner| owner.top == top);
    let calling_line = traceback
        .sections
        .last()
        .and_then(|section| section.source_line.as_deref());
    let named_on_line = calling_line.is_some_and(|line| names_package(line, top));
    let caller = names::caller(traceback, &package);
    let calling = caller.as_deref().unwrap_or("the code");
    let change = lineage.change(&run);
    let pin = names::pin_fix(
        &package,
        &run.specifier(),
        change,
        caller.as_deref(),
        &format!("{callable}({keyword}=...)"),
    );
    // A keyword taken away is the call's to follow: pinning the package back
    // holds back every other user of it.
    let fix = match (change, &caller) {
        (Change::Removed, None) => format!(
            "remove {keyword}= from the call to {callable}() in {calling} (or pass it where {} now takes it, as its changelog says); or {pin}",
            lineage.distribution
        ),
        // An installed package's call is its release's to change: pin, or upgrade it.
        _ => pin,
    };
    Some(Reading {
        cause: names::CAUSE,
        said: format!(
            "{calling} calls {callable}() with the keyword argument {keyword}, which {}'s {callable}() (in {}) takes in its releases {}; source: {}",
            lineage.distribution,
            row.module,
            run.described_as("refuses it", "refuse it"),
            name_history::KEYWORD_SOURCE
        ),
        node: names::release_evidence(
            context,
            &package,
            installed.as_ref(),
            takes.map(|takes| !takes),
            &format!("whose {callable}() does not take {keyword}"),
            &format!("whether its {callable}() takes {keyword}"),
        ),
        fix,
        stated: takes == Some(false),
        settles: takes == Some(false) || placed_by_name || named_on_line,
        rules_out: Vec::new(),
    })
}

/// Whether `line` names the package `top` as a dotted name's first part
/// (`torchvision.io.decode_image(`), not inside another word (`base.` is no
/// `ase.`).
fn names_package(line: &str, top: &str) -> bool {
    super::text::word_starts(line, &format!("{top}."), true)
        .next()
        .is_some()
}

/// The class whose constructor `line` calls with `keyword=`: the name before
/// the innermost parenthesis open where the keyword is passed, where it reads
/// as a class (`Memory(cachedir=None)`, `trl.SFTTrainer(model,
/// max_seq_length=2048)`); not a function, `super().__init__(...)` or `cls(...)`.
fn class_called_with<'l>(line: &'l str, keyword: &str) -> Option<&'l str> {
    let passed = super::text::word_starts(line, keyword, true).find(|&at| {
        let after = line[at + keyword.len()..].trim_start();
        after.starts_with('=') && !after.starts_with("==")
    })?;
    let mut depth = 0usize;
    let open = line[..passed].char_indices().rev().find_map(|(at, c)| match c {
        ')' | ']' | '}' => {
            depth += 1;
            None
        }
        '(' if depth == 0 => Some(at),
        '(' | '[' | '{' => {
            depth = depth.saturating_sub(1);
            None
        }
        _ => None,
    })?;
    let callee = line[..open]
        .rsplit(|c: char| !super::text::is_dotted_name_char(c))
        .next()?;
    let class = callee.rsplit('.').next()?;
    (super::text::is_identifier(class) && class.starts_with(|c: char| c.is_ascii_uppercase())).then_some(class)
}

/// What would decide: the release the call was written for and what that
/// release's signature takes, with how to see the installed one's.
fn to_decide(owner: Option<&Owner>, callable: &str, refused: &Refused) -> String {
    let question = refused.question();
    match owner {
        Some(owner) => format!(
            "which {package} release the calling code was written for (its requirements file pins it) and whether that release's {callable}() {question}: python -c \"import inspect, {module}; print(inspect.signature({module}.{callee}))\" prints what the installed one takes",
            package = owner.distribution,
            module = owner.module,
            callee = callable.trim_end_matches(".__init__"),
        ),
        None => format!(
            "which package defines {callable}() (the frame that calls it names it), which of its releases the calling code was written for, and whether that release's {callable}() {question}"
        ),
    }
}

/// `SFTTrainer` of `SFTTrainer.__init__`.
fn first_part(callable: &str) -> &str {
    callable.split('.').next().unwrap_or(callable)
}

/// An owner as the node speaks of it: installed (with its version), or not
/// known to be.
struct Judged {
    name: Owner,
    installed: Option<String>,
}

impl Owner {
    /// The owner as the node has it: where the log ran here and the
    /// distribution is not installed, the callee is some other code's of
    /// that name (the job's own `Predictor`, not gluonts').
    fn judged(self, context: Context) -> Option<Judged> {
        let installed = context
            .facts
            .and_then(|facts| facts.package_version(&self.distribution))
            .map(|version| version.to_string());
        if installed.is_none() && context.absence_is_a_fact {
            return None;
        }
        Some(Judged { name: self, installed })
    }
}

/// The package a callable's name belongs to, where one distribution's name
/// history lists its first part (a class or a function of that package).
struct Owner {
    distribution: String,
    /// The public module the history lists it in.
    module: &'static str,
    /// The module's first part, as frames name the package.
    top: String,
}

fn owner_of(callable: &str) -> Option<Owner> {
    let first = first_part(callable);
    if first.starts_with("__") || !super::text::is_identifier(first) {
        return None;
    }
    let module = name_history::only_module_listing(first)?;
    let top = module.split('.').next()?.to_string();
    Some(Owner {
        distribution: crate::explain::distribution_of(&top),
        module,
        top,
    })
}

/// The callable and what the call did that its signature refuses, in
/// Python's three wordings.
fn mismatch(text: &str) -> Option<Mismatch<'_>> {
    const KEYWORD: &str = "() got an unexpected keyword argument '";
    const POSITIONAL: &str = "() takes ";
    const MISSING: &str = "() missing ";
    if let Some(at) = text.find(KEYWORD) {
        let keyword = text[at + KEYWORD.len()..].split_once('\'')?.0;
        return Some(Mismatch {
            callable: callable_before(text, at)?,
            refused: Refused::Keyword(keyword),
        });
    }
    if let Some(at) = text.find(POSITIONAL) {
        let rest = &text[at + POSITIONAL.len()..];
        let line = rest.lines().next()?;
        let (takes, given) = line.split_once(" but ")?;
        let given = given
            .strip_suffix(" were given")
            .or_else(|| given.strip_suffix(" was given"))?;
        if !takes.contains("positional argument") || !is_count(given) {
            return None;
        }
        let takes = takes
            .trim_end_matches(" positional arguments")
            .trim_end_matches(" positional argument");
        return Some(Mismatch {
            callable: callable_before(text, at)?,
            refused: Refused::Positional { takes, given },
        });
    }
    let at = text.find(MISSING)?;
    let line = text[at + MISSING.len()..].lines().next()?;
    let (count, arguments) = line.split_once(" required ")?;
    if !is_count(count) {
        return None;
    }
    // `positional argument: 'cfg'`, `positional arguments: 'a' and 'b'`.
    let (kind, names) = arguments.split_once(": ")?;
    Some(Mismatch {
        callable: callable_before(text, at)?,
        refused: Refused::Missing { kind, names },
    })
}

/// torch's own operator namespaces. A call one of them refuses was written
/// for another torch: these are torch's internals, whose schemas change
/// between releases and which no job calls by mistake. The list is torch's
/// registered namespaces that jobs and libraries reach (ATen, the prims, the
/// quantized and distributed ops), not every one torch has.
const TORCH_NAMESPACES: [&str; 8] = [
    "aten",
    "prim",
    "prims",
    "quantized",
    "_quantized",
    "quantized_decomposed",
    "c10d",
    "_c10d_functional",
];

/// The dispatcher's words before the schema it prints after a refusal.
const SCHEMA_WORDS: [&str; 2] = ["Declaration: ", "Schema: "];

/// A registered operator's call its schema refuses, in the dispatcher's three
/// wordings; each line comes with the schema (`Declaration:`, `Schema:`)
/// that tells it from a Python function's words.
fn operator_mismatch(text: &str) -> Option<Mismatch<'_>> {
    const MISSING_VALUE: &str = "() is missing value for argument '";
    const AT_MOST: &str = "() expected at most ";
    const UNKNOWN_KEYWORD: &str = "Unknown keyword argument '";
    let with_schema = |at: usize| {
        let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
        let line = text[line_start..].lines().next().unwrap_or_default();
        SCHEMA_WORDS.iter().any(|words| line.contains(words))
    };
    if let Some(at) = text.find(MISSING_VALUE).filter(|&at| with_schema(at)) {
        let start = at + MISSING_VALUE.len();
        let argument = text[start..].lines().next()?.split_once('\'')?.0;
        return Some(Mismatch {
            callable: operator_before(text, at)?,
            // With its quotes, as Python's own wording names missing arguments.
            refused: Refused::Missing {
                kind: "argument",
                names: &text[start - 1..=start + argument.len()],
            },
        });
    }
    if let Some(at) = text.find(AT_MOST).filter(|&at| with_schema(at)) {
        let line = text[at + AT_MOST.len()..].lines().next()?;
        let (at_most, rest) = line.split_once(" argument(s) but received ")?;
        let given = rest.split_once(" argument(s)")?.0;
        if !is_count(at_most) || !is_count(given) {
            return None;
        }
        return Some(Mismatch {
            callable: operator_before(text, at)?,
            refused: Refused::Arguments { at_most, given },
        });
    }
    let at = text.find(UNKNOWN_KEYWORD).filter(|&at| with_schema(at))?;
    let line = text[at + UNKNOWN_KEYWORD.len()..].lines().next()?;
    let (keyword, rest) = line.split_once('\'')?;
    let operator = rest.strip_prefix(" for operator '")?.split_once('\'')?.0;
    is_operator(operator).then_some(Mismatch {
        callable: operator,
        refused: Refused::Keyword(keyword),
    })
}

/// The operator's name as the dispatcher printed it before `()`:
/// `aten::grid_sampler_2d_backward`, `scatter_add`.
fn operator_before(text: &str, at: usize) -> Option<&str> {
    let name = text[..at]
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '(' | '`'))
        .next()?;
    is_operator(name).then_some(name)
}

/// `ns::name`, `ns::name.overload` or a bare `name`, each part an identifier.
fn is_operator(name: &str) -> bool {
    let parts: Vec<&str> = name.split("::").collect();
    parts.len() <= 2 && parts.iter().all(|part| part.split('.').all(super::text::is_identifier))
}

/// TorchScript's words for the job's own scripted method, whose schema's
/// first argument is the scripted module (`forward(__torch__.models.Net self,
/// ...)`): the job's code refused by the job's code, no package's.
fn scripted_method(text: &str) -> bool {
    SCHEMA_WORDS.iter().any(|words| {
        text.split(words).skip(1).any(|schema| {
            schema
                .split_once('(')
                .is_some_and(|(_, arguments)| arguments.starts_with("__torch__."))
        })
    })
}

/// What an operator's refused call says: torch's own operator called with
/// another torch's arguments (settled), or another library's, which a
/// mistaken call words the same. That library is its namespace's
/// distribution, unless the namespace is a private module's (vLLM's `_C::`),
/// which names no distribution: then the frames' package that made the call.
fn operator_reading(mismatch: &Mismatch, text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let callable = mismatch.callable;
    let (namespace, operator) = match callable.split_once("::") {
        Some((namespace, operator)) => (Some(namespace), operator),
        None => (None, callable),
    };
    let Some(namespace) = namespace.filter(|namespace| TORCH_NAMESPACES.contains(namespace)) else {
        let owner = namespace
            .filter(|namespace| !namespace.starts_with('_'))
            .map(crate::explain::distribution_of);
        let caller = names::user_of(traceback, namespace.unwrap_or(""));
        // The job's own scripted code, or a bare name no frame places: nothing
        // to say of any package.
        if scripted_method(text) || (owner.is_none() && caller.is_none()) {
            return None;
        }
        let package = owner
            .clone()
            .unwrap_or_else(|| format!("the library that registers the operator {callable}"));
        return Some(listed(
            mismatch,
            &calling(caller.as_deref(), "the job's code"),
            &format!("the schema {package} registers here"),
            &package,
            None,
            format!(
                "which release of {package} the calling code was written for (its requirements file pins it), and whether that release's {callable}() {}",
                mismatch.refused.question()
            ),
        ));
    };
    let torch = context.facts.and_then(extension::torch_here);
    let defined_by = match &torch {
        Some(version) => format!("torch {version} installed"),
        None => "the torch that ran".to_string(),
    };
    let calling = calling(names::user_of(traceback, "torch").as_deref(), "the code");
    let mut node = vec![(
        None,
        format!(
            "which torch release the calling code was written for (its requirements file or README names it): python -c \"import torch; p = torch.ops.{namespace}.{operator}; print([str(getattr(p, o)._schema) for o in p.overloads()])\" prints what the installed torch's {callable} takes"
        ),
    )];
    if let Some(version) = &torch {
        node.insert(0, (None, format!("torch {version} is installed here")));
    }
    Some(Reading {
        cause: extension::CAUSE,
        said: format!(
            "{calling} calls torch's own operator {callable}() {}: torch's internal operators change their arguments between releases, so the call was written for another torch",
            mismatch.refused.described(&defined_by)
        ),
        node,
        fix: "install the torch release the calling code was written for (pip install \"torch==VERSION\" --index-url https://download.pytorch.org/whl/cuXYZ, XYZ: the node's CUDA build), or a release of the calling code made for the installed torch (its changelog names the torch it follows)".to_string(),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The reading of a call a package's signature refuses, listed and never
/// settled: `calling` made it, `defined_by` is whose signature refused it,
/// `package` the one whose release is in question, `pin` its install
/// command's bound where one is known.
fn listed(
    mismatch: &Mismatch,
    calling: &str,
    defined_by: &str,
    package: &str,
    pin: Option<&str>,
    to_decide: String,
) -> Reading {
    Reading {
        cause: names::CAUSE,
        said: format!(
            "{calling} calls {}() {}: the call was written for another release of {package}, or it is mistaken",
            mismatch.callable,
            mismatch.refused.described(defined_by)
        ),
        node: vec![(None, to_decide)],
        fix: format!(
            "install the release of {package} the calling code was written for{}, or a release of the calling code made for the one installed",
            pin.unwrap_or_default()
        ),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    }
}

/// Who made the call, as the reading says it: the installed package whose
/// frame made it, else `otherwise`.
fn calling(caller: Option<&str>, otherwise: &str) -> String {
    match caller {
        Some(package) => format!("{package}, an installed package,"),
        None => otherwise.to_string(),
    }
}

fn is_count(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit())
}

/// The callable's name as Python printed it before `()`: `Trainer.training_step`.
fn callable_before(text: &str, at: usize) -> Option<&str> {
    let name = text[..at]
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ':' | '(' | '`'))
        .next()?;
    (!name.is_empty() && name.split('.').all(super::text::is_identifier)).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        let traceback = &crate::explain::traceback::parse(log)[0];
        let text: Vec<String> = traceback.messages().map(|raised| raised.message.clone()).collect();
        read(&text.join("\n"), traceback, Context::alone())
    }

    #[test]
    fn a_callee_no_table_places_called_by_the_jobs_code_reads_as_nothing() {
        let job = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 9, in <module>\n    model = Net()\n";
        assert!(
            reading(&format!(
                "{job}TypeError: __init__() missing 1 required positional argument: 'cfg'\n"
            ))
            .is_none()
        );
        // An installed package's frame made the call: its release and the callee's disagree, or the call is wrong.
        let package = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/lightning/trainer.py\", line 9, in fit\n    step(batch, idx, opt)\n";
        let listed = reading(&format!(
            "{package}TypeError: training_step() takes 3 positional arguments but 4 were given\n"
        ))
        .unwrap();
        assert!(!listed.settles, "{listed:?}");
        assert!(
            listed
                .said
                .starts_with("lightning, an installed package, calls training_step() with 4 positional arguments"),
            "{}",
            listed.said
        );
        assert!(
            listed
                .said
                .contains("another release of the package that defines training_step()"),
            "{}",
            listed.said
        );
        assert!(!listed.fix.contains("pip install"), "{}", listed.fix);
    }

    /// The call and the node, with trl at `trl` where given.
    fn reading_with_trl(log: &str, trl: Option<&str>) -> Option<Reading> {
        let (traceback, text) = crate::explain::readers::parsed(log);
        crate::explain::readers::read_on_recorded_h100(
            |snapshot| {
                if let Some(version) = trl {
                    crate::explain::readers::add_package(snapshot, "trl", version);
                }
            },
            |context| read(&text, &traceback, context),
        )
    }

    const SFT_TRAINER: &str = "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'\n";

    /// trl's SFTTrainer took max_seq_length up to 0.12 (keyword-history.txt;
    /// 0.13 to 0.15 wrap it in `@deprecate_kwarg`, which may take any keyword,
    /// so what they refuse is not known): the call was written for an older
    /// trl. The name history places SFTTrainer in trl, so the words alone
    /// settle it.
    #[test]
    fn a_keyword_some_releases_of_the_callables_package_took_is_dated_by_them() {
        let alone = reading(SFT_TRAINER).unwrap();
        assert!(alone.settles, "{alone:?}");
        assert!(
            alone.said.contains("which trl's SFTTrainer.__init__() (in trl.trainer.sft_trainer) takes in its releases from 0.4.7 to 0.12.2 (0.13.0 to 0.15.2 not known; 0.16.0 refuses it); source: compat-matrix/tables/keyword-history.txt"),
            "{}",
            alone.said
        );
        assert_eq!(
            alone.fix,
            "remove max_seq_length= from the call to SFTTrainer.__init__() in the code (or pass it where trl now takes it, as its changelog says); or python -m pip install \"trl>=0.4.7,<=0.12.2\""
        );
        // The node's trl refuses it: confirmed.
        let lacking = reading_with_trl(SFT_TRAINER, Some("0.19.1")).unwrap();
        assert!(lacking.stated && lacking.settles, "{lacking:?}");
        assert_eq!(lacking.node[0].0, Some(true), "{:?}", lacking.node);
        // The node's trl takes it: some other SFTTrainer refused it, and the
        // history says nothing of which; the call is listed as before.
        let taking = reading_with_trl(SFT_TRAINER, Some("0.8.6")).unwrap();
        assert!(!taking.settles && !taking.said.contains("its releases"), "{taking:?}");
        // A keyword no release took is not dated.
        let undated =
            reading("TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'no_such_argument'\n")
                .unwrap();
        assert!(
            !undated.settles && !undated.said.contains("its releases"),
            "{undated:?}"
        );
        assert!(name_history::of_keyword("__init__", "max_seq_length").is_empty());
    }

    /// A name more than one package defines (decode_image is torchvision's,
    /// TensorFlow's and tensorflow-datasets'; Logger is joblib's and the
    /// job's own as often) is dated by the one row that lists the keyword,
    /// but settles only where the calling line names that package.
    #[test]
    fn a_callable_its_name_does_not_place_is_dated_only_with_its_package_in_view() {
        let bare = "TypeError: decode_image() got an unexpected keyword argument 'apply_exif_orientation'\n";
        let alone = reading(bare).unwrap();
        assert!(
            alone
                .said
                .contains("torchvision's decode_image() (in torchvision.io.image)"),
            "{}",
            alone.said
        );
        assert!(!alone.settles, "{alone:?}");
        let named = reading(&format!(
            "Traceback (most recent call last):\n  File \"/home/u/proj/load.py\", line 9, in read\n    image = torchvision.io.decode_image(data, apply_exif_orientation=True)\n{bare}"
        ))
        .unwrap();
        assert!(named.settles, "{named:?}");
        assert!(names_package("x = torchvision.io.decode_image(d)", "torchvision"));
        assert!(!names_package("x = base.read(d)", "ase") && !names_package("x = my_ase.read(d)", "ase"));
        let own_class = reading("TypeError: Logger.__init__() got an unexpected keyword argument 'name'\n").unwrap();
        assert!(
            own_class.said.contains("joblib's Logger.__init__()"),
            "{}",
            own_class.said
        );
        assert!(!own_class.settles, "{own_class:?}");
    }

    /// The log ran on this node, which has no trl: the SFTTrainer that
    /// refused the keyword is some other code's, and trl's history is not
    /// its.
    #[test]
    fn a_callable_of_a_package_the_node_that_ran_lacks_is_not_dated() {
        let traceback = &crate::explain::traceback::parse(SFT_TRAINER)[0];
        let dated = crate::explain::readers::read_on_recorded_h100(
            |_| {},
            |context| {
                keyword_dated(
                    "SFTTrainer.__init__",
                    "max_seq_length",
                    traceback,
                    Context {
                        absence_is_a_fact: true,
                        ..context
                    },
                )
            },
        );
        assert_eq!(dated, None);
    }

    /// torch's own callables are the extension reader's, as its names are
    /// (names.rs): a call torch refuses is code made for another torch.
    #[test]
    fn a_keyword_torchs_own_callable_refuses_is_left_to_the_torch_readers() {
        let log =
            "TypeError: FullyShardedDataParallel.__init__() got an unexpected keyword argument 'forward_prefetch'\n";
        assert!(!name_history::of_keyword("FullyShardedDataParallel.__init__", "forward_prefetch").is_empty());
        let traceback = &crate::explain::traceback::parse(log)[0];
        let dated = keyword_dated(
            "FullyShardedDataParallel.__init__",
            "forward_prefetch",
            traceback,
            Context::alone(),
        );
        assert_eq!(dated, None);
    }

    /// A keyword names.toml dates by hand is that row's to read (names.rs):
    /// the history adds no second reading of it.
    #[test]
    fn a_keyword_dated_by_hand_is_left_to_its_row() {
        let traceback = &crate::explain::traceback::parse(
            "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'\n",
        )[0];
        let dated = crate::explain::readers::read_on_recorded_h100(
            |_| {},
            |context| keyword_dated("TrainingArguments.__init__", "evaluation_strategy", traceback, context),
        );
        assert_eq!(dated, None);
    }

    #[test]
    fn an_old_pythons_bare_constructor_is_named_by_the_line_that_called_it() {
        for (line, class) in [
            ("memory=Memory(cachedir=None, verbose=0),", Some("Memory")),
            (
                "trainer = trl.SFTTrainer(model, args=make(x), cachedir = 2048)",
                Some("SFTTrainer"),
            ),
            ("x = Outer(inner=Inner(a=1), cachedir=p)", Some("Outer")),
            ("x = Outer(Inner(cachedir=p))", Some("Inner")),
            ("super().__init__(cachedir=None)", None),
            ("return cls(cachedir=None)", None),
            ("memory = make_memory(cachedir=None)", None),
            ("if cachedir == None: Memory(cachedir)", None),
            ("Memory(my_cachedir=None)", None),
        ] {
            assert_eq!(class_called_with(line, "cachedir"), class, "{line}");
        }
        let log = "Traceback (most recent call last):\n  File \"/usr/local/lib/python3.7/dist-packages/hdbscan/hdbscan_.py\", line 509, in <module>\n    memory=Memory(cachedir=None, verbose=0),\nTypeError: __init__() got an unexpected keyword argument 'cachedir'\n";
        let dated = reading(log).unwrap();
        assert!(
            dated.said.contains("hdbscan calls Memory.__init__() with the keyword argument cachedir, which joblib's Memory.__init__() (in joblib.memory) takes in its releases from 0.7.1 to 1.1.1 (1.2.0 refuses it)"),
            "{}",
            dated.said
        );
        assert!(
            dated
                .fix
                .starts_with("python -m pip install \"joblib>=0.7.1,<1.2.0\", or upgrade hdbscan"),
            "{}",
            dated.fix
        );
        // Memory is a name of more than joblib, and the line does not say whose.
        assert!(!dated.settles, "{dated:?}");
        let named = reading(&log.replace("Memory(cachedir", "joblib.Memory(cachedir")).unwrap();
        assert!(named.settles, "{named:?}");
    }

    #[test]
    fn the_three_wordings_name_the_callable_and_what_it_refused() {
        let keyword =
            mismatch("TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'").unwrap();
        assert_eq!(keyword.callable, "SFTTrainer.__init__");
        assert_eq!(keyword.refused, Refused::Keyword("max_seq_length"));
        let positional =
            mismatch("TypeError: Trainer.training_step() takes 3 positional arguments but 4 were given").unwrap();
        assert_eq!(positional.callable, "Trainer.training_step");
        assert_eq!(positional.refused, Refused::Positional { takes: "3", given: "4" });
        let missing = mismatch("TypeError: __init__() missing 1 required positional argument: 'cfg'").unwrap();
        assert_eq!(missing.callable, "__init__");
        assert_eq!(
            missing.refused,
            Refused::Missing {
                kind: "positional argument",
                names: "'cfg'"
            }
        );
        assert!(mismatch("TypeError: unsupported operand type(s) for +: 'int' and 'str'").is_none());
        assert!(mismatch("ValueError: it takes 3 positional arguments but the schedule was given").is_none());
        assert!(mismatch("TypeError: f() takes 2 positional arguments but  were given").is_none());
    }

    const GRID_SAMPLER: &str = "RuntimeError: aten::grid_sampler_2d_backward() is missing value for argument 'output_mask'. Declaration: aten::grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)\n";

    #[test]
    fn the_dispatchers_three_wordings_name_the_operator_and_what_it_refused() {
        let missing = operator_mismatch(GRID_SAMPLER).unwrap();
        assert_eq!(missing.callable, "aten::grid_sampler_2d_backward");
        assert_eq!(
            missing.refused,
            Refused::Missing {
                kind: "argument",
                names: "'output_mask'"
            }
        );
        let counted = operator_mismatch("RuntimeError: scatter_add() expected at most 5 argument(s) but received 6 argument(s). Declaration: scatter_add(Tensor src, Tensor index, int dim=-1, Tensor? out=None, int? dim_size=None) -> (Tensor)").unwrap();
        assert_eq!(counted.callable, "scatter_add");
        assert_eq!(
            counted.refused,
            Refused::Arguments {
                at_most: "5",
                given: "6"
            }
        );
        let keyword = operator_mismatch("RuntimeError: Unknown keyword argument 'antialias' for operator 'torchvision::roi_align'. Schema: torchvision::roi_align(Tensor input, Tensor rois) -> Tensor").unwrap();
        assert_eq!(keyword.callable, "torchvision::roi_align");
        assert_eq!(keyword.refused, Refused::Keyword("antialias"));
        // Without the schema the words are no operator's: a Python function's own check.
        assert!(
            operator_mismatch("ValueError: pad() expected at most 4 argument(s) but received 5 argument(s)").is_none()
        );
        // A C++ name with more than a namespace is no operator the dispatcher registers.
        assert!(
            operator_mismatch(
                "RuntimeError: a::b::c() is missing value for argument 'x'. Declaration: a::b::c(Tensor x)"
            )
            .is_none()
        );
    }

    #[test]
    fn a_call_torchs_own_operator_refuses_was_written_for_another_torch() {
        let found = reading(GRID_SAMPLER).unwrap();
        assert_eq!(found.cause, extension::CAUSE);
        assert!(found.settles, "{found:?}");
        assert!(
            found
                .said
                .contains("aten::grid_sampler_2d_backward() without its required argument 'output_mask'"),
            "{}",
            found.said
        );
        assert!(
            found.fix.contains("torch release the calling code was written for"),
            "{}",
            found.fix
        );
    }

    #[test]
    fn the_jobs_own_scripted_code_and_a_bare_name_no_frame_places_read_as_nothing() {
        let job = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 9, in <module>\n    out = scripted(x)\n";
        for message in [
            "RuntimeError: forward() is missing value for argument 'mask'. Declaration: forward(__torch__.models.Net self, Tensor x, Tensor mask) -> (Tensor)",
            "RuntimeError: scatter_add() expected at most 5 argument(s) but received 6 argument(s). Declaration: scatter_add(Tensor src, Tensor index, int dim=-1, Tensor? out=None, int? dim_size=None) -> (Tensor)",
        ] {
            assert_eq!(reading(&format!("{job}{message}\n")), None, "{message}");
        }
        // The schema on another line than the words is no operator's refusal.
        assert!(
            operator_mismatch(
                "RuntimeError: f() expected at most 2 argument(s) but received 3 argument(s)\nDeclaration: g(Tensor x)"
            )
            .is_none()
        );
    }

    #[test]
    fn torchs_other_namespaces_are_torchs_and_a_private_namespace_names_the_caller() {
        let quantized = reading("RuntimeError: quantized::linear_dynamic() expected at most 3 argument(s) but received 4 argument(s). Declaration: quantized::linear_dynamic(Tensor X, __torch__.torch.classes.quantized.LinearPackedParamsBase W_prepack, bool reduce_range=False) -> (Tensor Y)\n").unwrap();
        assert_eq!(quantized.cause, extension::CAUSE);
        let package = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/vllm/attention/ops/paged_attn.py\", line 9, in forward\n    ops.paged_attention_v1(out, q, k, v)\n";
        let private = reading(&format!(
            "{package}RuntimeError: _C::paged_attention_v1() is missing value for argument 'blocksparse_vert_stride'. Declaration: _C::paged_attention_v1(Tensor(a!) out, Tensor query) -> ()\n"
        ))
        .unwrap();
        assert_eq!(private.cause, names::CAUSE);
        assert!(
            private
                .said
                .starts_with("vllm, an installed package, calls _C::paged_attention_v1()"),
            "{}",
            private.said
        );
        assert!(
            private
                .said
                .contains("another release of the library that registers the operator _C::paged_attention_v1"),
            "{}",
            private.said
        );
    }

    #[test]
    fn another_librarys_operator_refusing_a_call_is_only_listed() {
        let package = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/torch_geometric/utils/scatter.py\", line 9, in scatter\n    return torch.ops.torch_scatter.scatter_add(src, index, -1, out, size, 0)\n";
        let found = reading(&format!(
            "{package}RuntimeError: torch_scatter::scatter_add() expected at most 5 argument(s) but received 6 argument(s). Declaration: torch_scatter::scatter_add(Tensor src, Tensor index, int dim=-1, Tensor? out=None, int? dim_size=None) -> (Tensor)\n"
        ))
        .unwrap();
        assert_eq!(found.cause, names::CAUSE);
        assert!(!found.settles, "{found:?}");
        assert!(
            found.said.starts_with("torch-geometric, an installed package, calls torch_scatter::scatter_add() with 6 arguments, where the schema torch-scatter registers here takes at most 5"),
            "{}",
            found.said
        );
    }
}
