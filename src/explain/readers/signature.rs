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

    /// What the signature must do for the call to stand, for the question that decides.
    fn question(&self) -> String {
        match self {
            Refused::Keyword(keyword) => format!("takes the keyword argument {keyword}"),
            Refused::Positional { given, .. } => format!("takes {given} positional arguments"),
            Refused::Missing { names, .. } => format!("requires {names}"),
        }
    }
}

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let mismatch = mismatch(text)?;
    let callable = mismatch.callable;
    let owner = owner_of(callable).and_then(|owner| owner.judged(context));
    let caller = names::user_of(traceback, owner.as_ref().map_or("", |owner| owner.name.top.as_str()));
    // The job's own code calling a callee no table places: its own function
    // as likely as a package's, and the words say nothing of which.
    if owner.is_none() && caller.is_none() {
        return None;
    }
    let calling = match &caller {
        Some(package) => format!("{package}, an installed package,"),
        None => "the job's code".to_string(),
    };
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
    let pin = match &owner {
        Some(owner) => format!(" (python -m pip install \"{}==VERSION\")", owner.name.distribution),
        None => String::new(),
    };
    Some(Reading {
        cause: names::CAUSE,
        said: format!(
            "{calling} calls {callable}() {}: the call was written for another release of {package}, or it is mistaken",
            mismatch.refused.described(&defined_by)
        ),
        node: vec![(
            None,
            to_decide(owner.as_ref().map(|owner| &owner.name), callable, &mismatch.refused),
        )],
        fix: format!(
            "install the release of {package} the calling code was written for{pin}, or a release of the calling code made for the one installed"
        ),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    })
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
}
