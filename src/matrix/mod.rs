//! The compatibility matrix: rule files (`compat-matrix/rules/*.toml`, compiled
//! into the binary, plus any `--matrix DIR`), their linter and their evaluation.
//! The format is documented field by field in `compat-matrix/EXAMPLE.toml`.

pub mod confirmable;
mod evaluate;
mod parse;
pub mod rule;
mod template;

use crate::calendar::Date;
use crate::knowledge::reader::Reader;
use crate::knowledge::tables::{self, Tables};
use crate::located::Located;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use evaluate::{Condition, Verdict, assess, evaluate};
pub use rule::{Rule, SymptomEntry};

mod compiled {
    include!(concat!(env!("OUT_DIR"), "/compat_matrix.rs"));
}

/// `compat-matrix/matrix.toml`, compiled in.
const BUILTIN_FORMAT: &str = include_str!("../../compat-matrix/matrix.toml");
/// The matrix formats this envdoctor reads: a minor version only adds optional fields.
const READS_FORMAT: &str = "^1.0";

#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    /// The first problem, and how many more `matrix lint` would show.
    #[error("{first}{}", more_problems(*.more))]
    Invalid { first: Located, more: usize, dir: PathBuf },
    #[error("cannot read matrix directory `{}`", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn more_problems(more: usize) -> String {
    match more {
        0 => String::new(),
        _ => format!(" (and {more} more)"),
    }
}

impl crate::hint::HasHint for MatrixError {
    fn hint(&self) -> Option<String> {
        match self {
            MatrixError::Invalid { dir, .. } => Some(format!(
                "`envdoctor matrix lint {}` lists every problem",
                crate::shell::quote(&dir.display().to_string())
            )),
            MatrixError::Unreadable { .. } => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Matrix {
    pub rules: Vec<Rule>,
    /// Causes that are not version facts, for `envdoctor explain`.
    pub symptoms: Vec<SymptomEntry>,
    /// What the rules' fixes and the built-in checks compute with: the
    /// compiled-in tables (a site matrix adds rules only).
    pub tables: Tables,
}

impl Matrix {
    /// The compiled-in rules, then each site directory's, in order.
    pub fn load(site_dirs: &[PathBuf]) -> Result<Matrix, MatrixError> {
        let Linted {
            mut rules,
            mut symptoms,
            errors,
            ..
        } = compiled_files();
        if let Some(first) = errors.first() {
            // Compiled-in rules are linted in CI; this only fires on a broken build.
            return Err(MatrixError::Invalid {
                first: first.clone(),
                more: errors.len() - 1,
                dir: "compat-matrix".into(),
            });
        }
        let tables = builtin_tables()?;
        for dir in site_dirs {
            if dir.join("tables").is_dir() {
                // Silently ignoring a site's tables would be worse than refusing them.
                let message =
                    "a site matrix adds rules only; the tables are compiled in (change compat-matrix/tables/ instead)";
                let first = Located::at(&dir.join("tables"), 1, 1, message);
                return Err(MatrixError::Invalid {
                    first,
                    more: 0,
                    dir: dir.clone(),
                });
            }
            let linted = lint_dir(dir)?;
            let mut errors = linted.errors;
            let defined = |id: &str, rules: &[Rule], symptoms: &[SymptomEntry]| {
                rules.iter().any(|rule| rule.id == id) || symptoms.iter().any(|entry| entry.id == id)
            };
            let already_defined = |id: &str, path: &Path| {
                Located::at(path, 1, 1, format!("id `{id}` is already defined by an earlier matrix"))
            };
            for mut rule in linted.rules {
                if defined(&rule.id, &rules, &symptoms) {
                    errors.push(already_defined(&rule.id, &rule.path));
                    continue;
                }
                rule.site = Some(dir.clone());
                rules.push(rule);
            }
            for mut entry in linted.symptoms {
                if defined(&entry.id, &rules, &symptoms) {
                    errors.push(already_defined(&entry.id, &entry.path));
                    continue;
                }
                entry.site = Some(dir.clone());
                symptoms.push(entry);
            }
            if let Some(first) = errors.first() {
                return Err(MatrixError::Invalid {
                    first: first.clone(),
                    more: errors.len() - 1,
                    dir: dir.clone(),
                });
            }
        }
        Ok(Matrix {
            rules,
            symptoms,
            tables,
        })
    }

    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.id == id)
    }

    pub fn symptom(&self, id: &str) -> Option<&SymptomEntry> {
        self.symptoms.iter().find(|entry| entry.id == id)
    }
}

/// `checked` dates after `today`: typos (`2062` for `2026`), which `matrix
/// lint` reports. Only lint asks: a node whose clock runs a day behind the day
/// a rule was checked must still read the matrix.
pub fn dated_after(linted: &Linted, today: Date) -> Vec<Located> {
    let rules = linted.rules.iter().map(|rule| (&rule.path, &rule.text, rule.checked));
    let symptoms = linted
        .symptoms
        .iter()
        .map(|entry| (&entry.path, &entry.text, entry.checked));
    rules
        .chain(symptoms)
        .filter(|(_, _, checked)| *checked > today)
        .map(|(path, text, checked)| {
            let line = text
                .lines()
                .position(|line| line.trim_start().starts_with("checked"))
                .map_or(1, |index| index + 1);
            Located::at(
                path,
                line,
                1,
                format!("`checked` = `{checked}` is after today ({today})"),
            )
        })
        .collect()
}

/// The tables compiled into this binary, for a command that reads no rules
/// (`diff`, `verify`). A problem in them is a broken build: reported, not a panic.
pub fn builtin_tables() -> Result<Tables, MatrixError> {
    let (tables, problems) = tables::read_builtin();
    match problems.first() {
        // Compiled-in tables are linted in CI; this only fires on a broken build.
        Some(first) => Err(MatrixError::Invalid {
            first: first.clone(),
            more: problems.len() - 1,
            dir: "compat-matrix".into(),
        }),
        None => Ok(tables),
    }
}

/// Lints the matrix compiled into this binary, as `matrix lint` without DIR does.
pub fn lint_builtin() -> Linted {
    let mut linted = compiled_files();
    let (tables, problems) = tables::read_builtin();
    linted.files += tables::BUILTIN_FILE_COUNT;
    linted.errors.extend(problems);
    linted.tables = tables;
    linted
}

/// `matrix.toml`, the rule files and the symptom files compiled into this binary, parsed.
fn compiled_files() -> Linted {
    let mut linted = Linted::default();
    linted.files += 1;
    linted
        .errors
        .extend(format_problems(Path::new("compat-matrix/matrix.toml"), BUILTIN_FORMAT));
    for (path, text) in compiled::RULE_FILES {
        linted.files += 1;
        match parse_file(Path::new(path), text) {
            Ok(rule) => linted.rules.push(rule),
            Err(problems) => linted.errors.extend(problems),
        }
    }
    for (path, text) in compiled::SYMPTOM_FILES {
        linted.files += 1;
        match parse_symptom_file(Path::new(path), text) {
            Ok(entry) => linted.symptoms.push(entry),
            Err(problems) => linted.errors.extend(problems),
        }
    }
    linted.errors.extend(shared_ids(&linted));
    linted.errors.extend(unknown_generalized(&linted));
    linted
}

/// What `matrix lint DIR` found: the rules and symptom entries that parsed, and every problem.
#[derive(Debug, Default)]
pub struct Linted {
    pub files: usize,
    pub rules: Vec<Rule>,
    pub symptoms: Vec<SymptomEntry>,
    /// The directory's own tables; the compiled-in ones where it has no `tables/`.
    pub tables: Tables,
    pub errors: Vec<Located>,
}

/// A symptom entry may not take a rule's id: `explain` and `matrix explain` name causes by id.
fn shared_ids(linted: &Linted) -> Vec<Located> {
    linted
        .symptoms
        .iter()
        .filter(|entry| linted.rules.iter().any(|rule| rule.id == entry.id))
        .map(|entry| Located::at(&entry.path, 1, 1, format!("id `{}` is also a rule's id", entry.id)))
        .collect()
}

/// A symptom entry generalizes rules of this matrix, by their ids.
fn unknown_generalized(linted: &Linted) -> Vec<Located> {
    linted
        .symptoms
        .iter()
        .flat_map(|entry| entry.symptoms.generalizes.iter().map(move |id| (entry, id)))
        .filter(|(_, id)| !linted.rules.iter().any(|rule| &rule.id == *id))
        .map(|(entry, id)| {
            Located::at(
                &entry.path,
                1,
                1,
                format!("symptoms.generalizes names `{id}`, which is no rule of this matrix"),
            )
        })
        .collect()
}

/// Reads a matrix directory: `matrix.toml` (optional for a site's own matrix),
/// rule files in `rules/` (or, for a small site matrix, directly in DIR), and
/// `EXAMPLE.toml`, which must itself be a valid rule with id `example-rule`.
pub fn lint_dir(dir: &Path) -> Result<Linted, MatrixError> {
    let unreadable = |path: &Path, source| MatrixError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    if !dir.is_dir() {
        let source = std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory");
        return Err(unreadable(dir, source));
    }
    let mut linted = Linted::default();
    let read = |path: &Path, linted: &mut Linted| -> Option<String> {
        linted.files += 1;
        match crate::bounded_read::read(path, crate::bounded_read::DOCUMENT_LIMIT).map(String::from_utf8) {
            Ok(Ok(text)) => Some(text),
            Ok(Err(_)) => {
                linted.errors.push(Located::at(path, 1, 1, "not UTF-8"));
                None
            }
            Err(error) => {
                linted
                    .errors
                    .push(Located::at(path, 1, 1, format!("cannot read: {error}")));
                None
            }
        }
    };
    let format_file = dir.join("matrix.toml");
    if format_file.exists()
        && let Some(text) = read(&format_file, &mut linted)
    {
        linted.errors.extend(format_problems(&format_file, &text));
    }
    let example = dir.join("EXAMPLE.toml");
    if example.exists()
        && let Some(text) = read(&example, &mut linted)
        && let Err(problems) = parse::rule(&example, &text, "example-rule")
    {
        linted.errors.extend(problems);
    }
    let tables_dir = dir.join("tables");
    linted.tables = if tables_dir.is_dir() {
        linted.files += toml_files(&tables_dir)
            .map_err(|source| unreadable(&tables_dir, source))?
            .len();
        let (tables, problems) = tables::read_matrix_dir(dir).unwrap_or_default();
        linted.errors.extend(problems);
        tables
    } else {
        // Read as a site matrix is: with the compiled-in tables.
        tables::read_builtin().0
    };
    let rules_dir = if dir.join("rules").is_dir() {
        dir.join("rules")
    } else {
        dir.to_path_buf()
    };
    let mut files = toml_files(&rules_dir).map_err(|source| unreadable(&rules_dir, source))?;
    files.retain(|path| {
        !matches!(
            path.file_name().and_then(|n| n.to_str()),
            Some("matrix.toml" | "EXAMPLE.toml")
        )
    });
    let mut first_file_of: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in files {
        let Some(text) = read(&path, &mut linted) else { continue };
        match parse_file(&path, &text) {
            Ok(rule) => {
                if let Some(earlier) = first_file_of.insert(rule.id.clone(), path.clone()) {
                    let message = format!("rule id `{}` is also used by `{}`", rule.id, earlier.display());
                    linted.errors.push(Located::at(&path, 1, 1, message));
                }
                linted.rules.push(rule);
            }
            Err(problems) => linted.errors.extend(problems),
        }
    }
    let symptoms_dir = dir.join("symptoms");
    if symptoms_dir.is_dir() {
        for path in toml_files(&symptoms_dir).map_err(|source| unreadable(&symptoms_dir, source))? {
            let Some(text) = read(&path, &mut linted) else { continue };
            match parse_symptom_file(&path, &text) {
                Ok(entry) => {
                    if let Some(earlier) = first_file_of.insert(entry.id.clone(), path.clone()) {
                        let message = format!("id `{}` is also used by `{}`", entry.id, earlier.display());
                        linted.errors.push(Located::at(&path, 1, 1, message));
                    }
                    linted.symptoms.push(entry);
                }
                Err(problems) => linted.errors.extend(problems),
            }
        }
    }
    linted.errors.extend(unknown_generalized(&linted));
    Ok(linted)
}

/// The `.toml` files of a directory, sorted.
fn toml_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

fn parse_file(path: &Path, text: &str) -> Result<Rule, Vec<Located>> {
    let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default();
    parse::rule(path, text, stem)
}

fn parse_symptom_file(path: &Path, text: &str) -> Result<SymptomEntry, Vec<Located>> {
    let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default();
    parse::symptom_entry(path, text, stem)
}

/// Problems with `matrix.toml`: it must name a format this envdoctor reads.
fn format_problems(path: &Path, text: &str) -> Vec<Located> {
    let mut reader = Reader::new(path, text);
    let Some(document) = reader.document("not TOML") else {
        return reader.into_problems();
    };
    let Some(item) = document.as_table().get("format") else {
        reader.problem(None, "missing `format = \"MAJOR.MINOR.PATCH\"`");
        return reader.into_problems();
    };
    let Some(version) = item.as_str().and_then(|text| semver::Version::parse(text).ok()) else {
        reader.problem(item.span(), "`format` must be a semver version string, like \"1.0.0\"");
        return reader.into_problems();
    };
    let reads = semver::VersionReq::parse(READS_FORMAT).expect("a valid requirement");
    if !reads.matches(&version) {
        reader.problem(
            item.span(),
            format!("matrix format {version} is not one this envdoctor reads ({READS_FORMAT}); upgrade envdoctor"),
        );
    }
    reader.into_problems()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `matrix list` shows the newest release of every package a rule names:
    /// a rule about a package the releases table lacks fails here.
    #[test]
    fn every_package_a_rule_names_has_a_newest_release_row() {
        let matrix = Matrix::load(&[]).unwrap();
        let releases = &matrix.tables.releases;
        let missing: Vec<String> = matrix
            .rules
            .iter()
            .flat_map(|rule| rule.when.packages.iter().map(|(name, _)| name.clone()))
            .filter(|name| releases.package(name).is_none())
            .collect();
        assert!(missing.is_empty(), "no row in tables/releases.toml for {missing:?}");
    }

    #[test]
    fn a_directory_is_read_with_its_own_tables_or_else_the_compiled_in_ones() {
        let dir = tempfile::tempdir().unwrap();
        let linted = lint_dir(dir.path()).unwrap();
        assert!(linted.errors.is_empty(), "{:?}", linted.errors);
        let builtin = builtin_tables().unwrap();
        assert_eq!(linted.tables.gpus.models.len(), builtin.gpus.models.len());
        std::fs::create_dir(dir.path().join("tables")).unwrap();
        let gpus = "[[gpu]]\nname = \"H100\"\ncompute_capability = \"9.0\"\nsource = \"https://developer.nvidia.com/cuda-gpus\"\n\n\
                    [[architecture]]\nname = \"Hopper\"\ncompute_capabilities = [\"9.0\"]\nsource = \"https://example.org\"\n";
        std::fs::write(dir.path().join("tables/gpus.toml"), gpus).unwrap();
        let linted = lint_dir(dir.path()).unwrap();
        assert!(linted.errors.is_empty(), "{:?}", linted.errors);
        assert_eq!(linted.files, 1);
        assert_eq!(linted.tables.gpus.models.len(), 1);
        assert!(
            linted.tables.torch.builds.is_empty(),
            "no torch-builds.toml: none of its rows"
        );
    }

    #[test]
    fn the_compiled_in_matrix_loads() {
        Matrix::load(&[]).expect("compiled-in rules are valid");
    }

    #[test]
    fn a_newer_major_format_is_refused_and_a_minor_is_read() {
        assert!(format_problems(Path::new("m.toml"), "format = \"1.3.0\"").is_empty());
        let problems = format_problems(Path::new("m.toml"), "format = \"2.0.0\"");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].problem.contains("upgrade envdoctor"), "{problems:?}");
        assert_eq!((problems[0].line, problems[0].column), (1, Some(10)));
    }
}
