//! A name the code uses that the installed package does not have:
//! `module 'numpy' has no attribute 'float'`, `cannot import name
//! 'cached_download' from 'huggingface_hub'`, `No module named 'x.y'`. Where
//! `compat-matrix/tables/names.toml` dates the name (the release that removed
//! it, or added it), the reading says so, compares the package installed, and
//! pins the package back (or forward) to where the name is. A name the table
//! does not date says nothing: a typo in the job's own code reads the same.

use super::{Context, Reading, text};
use crate::explain::traceback::Traceback;
use crate::knowledge::tables::{Change, NameChange};

/// The knowledge entry these readings support.
pub const CAUSE: &str = "package-lacks-used-name";

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let (module, name, dotted) = match unexpected_keyword(text) {
        Some((class, keyword)) => (class, keyword, format!("{class}({keyword}=...)")),
        None => {
            let (module, name) = missing_name(text)?;
            (module, name, format!("{module}.{name}"))
        }
    };
    let row = context.tables?.names.of(module, name)?;
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
        .map(|facts| installed_against(facts.package_version(&row.package), row, &dotted));
    let confirmed = node.as_ref().is_some_and(|(holds, _)| *holds == Some(true));
    let other_side = match (row.change, caller.as_deref()) {
        (Change::Removed, Some(caller)) => format!(", or upgrade {caller} to a release that no longer uses {dotted}"),
        (Change::Added, Some(caller)) => format!(
            ", or install the {caller} release made for the {} installed",
            row.package
        ),
        (_, None) => String::new(),
    };
    let pin = format!("python -m pip install \"{}{bound}\"{other_side}", row.package);
    // A renamed keyword is the code's to follow: pinning the package back
    // would hold back every other user of it.
    let fix = match &row.renamed_to {
        Some(new) => format!(
            "pass {new}= in place of {name}= to {module} (in {}); or {pin}",
            caller.as_deref().unwrap_or("the code")
        ),
        None => pin,
    };
    Some(Reading {
        cause: CAUSE,
        said,
        node: node.into_iter().collect(),
        fix,
        stated: confirmed,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The module and the name a message says is missing from it.
fn missing_name(text: &str) -> Option<(&str, &str)> {
    if let Some((name, module)) = text::name_not_importable(text) {
        return Some((module, name));
    }
    if let Some(found) = missing_attribute(text) {
        return Some(found);
    }
    text::module_not_found(text)?.rsplit_once('.')
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
fn missing_attribute(text: &str) -> Option<(&str, &str)> {
    let rest = text::after_marker(text, "module '")?;
    let (module, after) = rest.split_once('\'')?;
    let attribute = after.trim_start().strip_prefix("has no attribute '")?;
    Some((module, attribute.split_once('\'')?.0))
}

/// The package whose frame used the name: the innermost frame in a package
/// other than the one that lacks it.
fn caller(traceback: &Traceback, package: &str) -> Option<String> {
    traceback
        .frames()
        .filter_map(|frame| crate::explain::frame_package(&frame.file))
        .filter(|found| !matches!(*found, crate::explain::STDLIB | "importlib"))
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
        let context = Context {
            facts: None,
            absence_is_a_fact: false,
            tables: Some(&tables),
        };
        read(&text, &traceback, context)
    }

    const CYTHON_BBOX: &str = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/cython_bbox/__init__.py\", line 3, in <module>\n    DTYPE = np.float\nAttributeError: module 'numpy' has no attribute 'float'.\n";

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

    /// A typo, a name no release dated, another module's attribute: nothing.
    #[test]
    fn a_name_the_table_does_not_date_says_nothing() {
        for log in [
            "AttributeError: module 'numpy' has no attribute 'arrray'\n",
            "AttributeError: 'numpy.ndarray' object has no attribute 'float'\n",
            "AttributeError: module 'numpy.random' has no attribute 'float'\n",
            "ModuleNotFoundError: No module named 'numpy.linalg.lapack_lite2'\n",
            "ImportError: cannot import name 'float' from partially initialized module 'numpy'\n",
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
}
