//! A call the installed release's signature does not take: `SFTTrainer.__init__()
//! got an unexpected keyword argument 'max_seq_length'`, `training_step() takes
//! 3 positional arguments but 4 were given`, `__init__() missing 1 required
//! positional argument: 'cfg'`. Packages add, rename and drop arguments as
//! they add and drop names, so the call was most often written for another
//! release of the package that defines the callee; but the words are also what
//! a mistaken call in the job's own code prints, and no table dates
//! arguments. The reading names the callee's package where a name table knows
//! it, says what would decide, and never settles.

use super::{Context, Reading, names};
use crate::explain::traceback::Traceback;
use crate::knowledge::name_history;

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
    Positional { takes: &'t str, given: &'t str },
    Missing { kind: &'t str, names: &'t str },
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
        }
    }

    /// What the call passed or left out, for the question that decides.
    fn short(&self) -> String {
        match self {
            Refused::Keyword(keyword) => format!("the keyword argument {keyword}"),
            Refused::Positional { given, .. } => format!("{given} positional arguments"),
            Refused::Missing { names, .. } => format!("a call without {names}"),
        }
    }
}

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let mismatch = mismatch(text)?;
    let owner = owner_of(mismatch.callable);
    // Without a package that owns the callee or a frame that made the call,
    // the words alone say nothing of which code is out of step.
    let caller = names::user_of(traceback, owner.as_ref().map_or("", |owner| owner.top.as_str()));
    if owner.is_none() && traceback.frames().next().is_none() {
        return None;
    }
    let callable = mismatch.callable;
    let installed = owner.as_ref().and_then(|owner| {
        context
            .facts
            .and_then(|facts| facts.package_version(&owner.distribution))
            .map(|version| format!("{} {version}", owner.distribution))
    });
    let defined_by = match (&owner, &installed) {
        (_, Some(installed)) => format!("the {installed} installed"),
        (Some(owner), None) => format!("the {} installed", owner.distribution),
        (None, _) => "the release installed of the package that defines it".to_string(),
    };
    let calling = match &caller {
        Some(package) => format!("{package}, an installed package,"),
        None => "the job's code".to_string(),
    };
    let package = owner
        .as_ref()
        .map_or("that package", |owner| owner.distribution.as_str());
    Some(Reading {
        cause: names::CAUSE,
        said: format!(
            "{calling} calls {callable}() {}: the call was written for another {package} release, or it is mistaken",
            mismatch.refused.described(&defined_by)
        ),
        node: vec![(None, to_decide(&owner, callable, &mismatch.refused))],
        fix: format!(
            "install the {package} release the calling code was written for (python -m pip install \"{package}==VERSION\"), or a release of the calling code made for the {package} installed"
        ),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    })
}

/// What would decide: the release the call was written for and what that
/// release's signature takes, with how to see the installed one's.
fn to_decide(owner: &Option<Owner>, callable: &str, refused: &Refused) -> String {
    let passed = refused.short();
    match owner {
        Some(owner) => format!(
            "which {package} release the calling code was written for (its requirements file pins it) and whether that release's {callable}() takes {passed}: python -c \"import inspect, {module}; print(inspect.signature({module}.{callee}))\" prints what the installed one takes",
            package = owner.distribution,
            module = owner.module,
            callee = callable.trim_end_matches(".__init__"),
        ),
        None => format!(
            "which package defines {callable}() (the frame that calls it names it), which of its releases the calling code was written for, and whether that release takes {passed}"
        ),
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
    let first = callable.split('.').next()?;
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
        if !takes.contains("positional argument") || !given.chars().all(|c| c.is_ascii_digit()) {
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
    if !count.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // `positional argument: 'cfg'`, `positional arguments: 'a' and 'b'`.
    let (kind, names) = arguments.split_once(": ")?;
    Some(Mismatch {
        callable: callable_before(text, at)?,
        refused: Refused::Missing { kind, names },
    })
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
    }
}
