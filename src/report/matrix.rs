//! `envdoctor matrix list|lint|explain`: the matrix and the built-in checks, for people.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use crate::builtin_checks;
use crate::calendar::Date;
use crate::matrix::{Linted, Matrix};

#[derive(Serialize)]
pub struct Listed {
    pub id: String,
    /// `rule`, `symptom` (a cause `explain` ranks, never a finding) or `check`.
    pub kind: &'static str,
    /// A rule's severity; `null` for a check, whose findings each carry their own.
    pub severity: Option<String>,
    pub title: String,
    pub withdrawn: bool,
    /// Finding ids a check can produce.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub produces: Vec<String>,
    /// The `--matrix DIR` a site rule came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// When a rule's or symptom entry's references were last checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<String>,
    /// A `package`'s newest release on PyPI and its day, as the table records them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released: Option<String>,
}

pub const LIST_SCHEMA: &str = "envdoctor.matrix-list/1";

/// `matrix list --format json`: a document with a schema like every other.
#[derive(Serialize)]
pub struct List {
    pub schema: &'static str,
    pub envdoctor_version: &'static str,
    pub entries: Vec<Listed>,
}

pub fn list_document(matrix: &Matrix) -> List {
    List {
        schema: LIST_SCHEMA,
        envdoctor_version: env!("CARGO_PKG_VERSION"),
        entries: list_json(matrix),
    }
}

fn list_json(matrix: &Matrix) -> Vec<Listed> {
    let rules = matrix.rules.iter().map(|rule| Listed {
        id: rule.id.clone(),
        kind: "rule",
        severity: Some(rule.severity.to_string()),
        title: rule.title.clone(),
        withdrawn: rule.withdrawn.is_some(),
        produces: Vec::new(),
        source: rule.site.as_ref().map(|dir| dir.display().to_string()),
        checked: Some(rule.checked.to_string()),
        newest: None,
        released: None,
    });
    let symptoms = matrix.symptoms.iter().map(|entry| Listed {
        id: entry.id.clone(),
        kind: "symptom",
        severity: None,
        title: entry.title.clone(),
        withdrawn: false,
        produces: Vec::new(),
        source: entry.site.as_ref().map(|dir| dir.display().to_string()),
        checked: Some(entry.checked.to_string()),
        newest: None,
        released: None,
    });
    let checks = builtin_checks::catalogue().map(|check| Listed {
        id: check.id.to_string(),
        kind: "check",
        severity: None,
        title: check.title.to_string(),
        withdrawn: false,
        produces: check.produces.iter().map(|id| id.to_string()).collect(),
        source: None,
        checked: None,
        newest: None,
        released: None,
    });
    let releases = &matrix.tables.releases;
    let packages = releases.packages.iter().map(|row| Listed {
        id: row.name.clone(),
        kind: "package",
        severity: None,
        title: row.note.clone().unwrap_or_default(),
        withdrawn: false,
        produces: Vec::new(),
        source: None,
        checked: releases.checked.map(|date| date.to_string()),
        newest: row.newest.clone(),
        released: row.released.map(|date| date.to_string()),
    });
    rules.chain(symptoms).chain(checks).chain(packages).collect()
}

/// The list for people. A rule's id and title hold no control character:
/// reading the matrix refuses one (`matrix::parse`).
pub fn list_text(matrix: &Matrix) -> String {
    let listed = list_json(matrix);
    let width = listed.iter().map(|item| item.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    let rules = listed.iter().filter(|item| item.kind == "rule").count();
    let withdrawn = listed
        .iter()
        .filter(|item| item.kind == "rule" && item.withdrawn)
        .count();
    let _ = match withdrawn {
        0 => writeln!(out, "Rules ({rules})"),
        _ => writeln!(
            out,
            "Rules ({rules}; `check` evaluates {}, not the {withdrawn} withdrawn)",
            rules - withdrawn
        ),
    };
    let checked = |item: &Listed| item.checked.clone().unwrap_or_default();
    for item in listed.iter().filter(|item| item.kind == "rule") {
        let severity = item.severity.as_deref().unwrap_or("");
        let withdrawn = if item.withdrawn { " (withdrawn)" } else { "" };
        let _ = writeln!(
            out,
            "  {severity:<8}{:<width$}  {}  {}{withdrawn}",
            item.id,
            checked(item),
            item.title
        );
    }
    let symptoms: Vec<&Listed> = listed.iter().filter(|item| item.kind == "symptom").collect();
    let _ = writeln!(out, "\nSymptom entries, for `envdoctor explain` ({})", symptoms.len());
    for item in &symptoms {
        let _ = writeln!(out, "  {:<8}{:<width$}  {}  {}", "", item.id, checked(item), item.title);
    }
    let checks = listed.iter().filter(|item| item.kind == "check").count();
    let without_smoke = listed
        .iter()
        .filter(|item| item.kind == "check" && item.id != crate::builtin_checks::smoke_test::CHECK.id)
        .count();
    let _ = writeln!(
        out,
        "\nBuilt-in checks ({checks}; `check --no-smoke` evaluates {without_smoke}, without {})",
        crate::builtin_checks::smoke_test::CHECK.id
    );
    for item in listed.iter().filter(|item| item.kind == "check") {
        let _ = writeln!(out, "  {:<width$}  {}", item.id, item.title);
        if !(item.produces.len() == 1 && item.produces[0] == item.id) {
            let _ = writeln!(out, "  {:<width$}  finds: {}", "", item.produces.join(", "));
        }
    }
    freshness(&mut out, matrix, &listed);
    out
}

/// How current the knowledge is: the newest release of each package the rules
/// name, and the oldest and newest day a rule's sources were checked.
fn freshness(out: &mut String, matrix: &Matrix, listed: &[Listed]) {
    let releases = &matrix.tables.releases;
    let read = releases
        .checked
        .map_or_else(|| "unknown".to_string(), |date| date.to_string());
    let _ = writeln!(
        out,
        "\nNewest release of each package the rules name (PyPI, read {read}): a newer one is unknown to the rules"
    );
    let width = listed
        .iter()
        .filter(|item| item.kind == "package")
        .map(|item| item.id.len())
        .max()
        .unwrap_or(0);
    for item in listed.iter().filter(|item| item.kind == "package") {
        let newest = item.newest.as_deref().unwrap_or("-");
        let released = item.released.as_deref().unwrap_or("");
        let line = format!("  {:<width$}  {newest:<12}{released:<12}{}", item.id, item.title);
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let dates: Vec<Date> = matrix
        .rules
        .iter()
        .filter(|rule| rule.withdrawn.is_none())
        .map(|rule| rule.checked)
        .chain(matrix.symptoms.iter().map(|entry| entry.checked))
        .collect();
    if let (Some(oldest), Some(newest)) = (dates.iter().min(), dates.iter().max()) {
        let today = Date::today();
        let _ = writeln!(
            out,
            "\nSources last checked between {oldest} and {newest}; today is {today}, so the oldest check is {} \
             days old.",
            oldest.days_until(today)
        );
    }
}

pub fn lint_text(linted: &Linted, dir: Option<&Path>) -> String {
    let mut out = String::new();
    for error in &linted.errors {
        let _ = writeln!(out, "{error}");
    }
    let what = dir.map_or_else(
        || "the compiled-in matrix".to_string(),
        |dir| format!("`{}`", dir.display()),
    );
    let plural = |count: usize, word: &str| format!("{count} {word}{}", if count == 1 { "" } else { "s" });
    let files = plural(linted.files, "file");
    let _ = match linted.errors.len() {
        0 => writeln!(
            out,
            "{what}: {files}, {}, {}, no problems",
            plural(linted.rules.len(), "rule"),
            plural(linted.symptoms.len(), "symptom entry").replace("entrys", "entries")
        ),
        n => writeln!(out, "{what}: {} in {files}", plural(n, "problem")),
    };
    out
}

/// Everything about one rule (its file, verbatim) or check; `None` for an
/// unknown id. A site's rule files are text from whoever wrote them: no
/// control character in them reaches the terminal.
pub fn explain(matrix: &Matrix, id: &str) -> Option<String> {
    explained(matrix, id).map(|text| crate::escape::controls_but_newlines(&text).into_owned())
}

fn explained(matrix: &Matrix, id: &str) -> Option<String> {
    let mut out = String::new();
    if let Some(rule) = matrix.rule(id) {
        let _ = writeln!(out, "{} ({}): {}", rule.id, rule.severity, rule.title);
        if let Some(reason) = &rule.withdrawn {
            let _ = writeln!(out, "WITHDRAWN: {reason}");
        }
        whole_file(
            &mut out,
            [&rule.why, &rule.fix],
            &rule.references,
            "Rule",
            &rule.path,
            &rule.text,
        );
        return Some(out);
    }
    if let Some(entry) = matrix.symptom(id) {
        let _ = writeln!(out, "{} (symptom entry): {}", entry.id, entry.title);
        let texts = [&entry.why, &entry.fix];
        whole_file(&mut out, texts, &entry.references, "Symptom", &entry.path, &entry.text);
        return Some(out);
    }
    let check = builtin_checks::catalogue().find(|check| check.id == id || check.produces.contains(&id))?;
    let _ = writeln!(out, "{} (built-in check): {}", check.id, check.title);
    let _ = writeln!(out, "\n{}\n\nFinds: {}", check.explanation, check.produces.join(", "));
    Some(out)
}

/// Why, fix, references, then the file as written.
fn whole_file(out: &mut String, [why, fix]: [&String; 2], references: &[String], kind: &str, path: &Path, text: &str) {
    let _ = writeln!(out, "\nWhy: {why}\n\nFix: {fix}\n\nReferences:");
    for reference in references {
        let _ = writeln!(out, "  {reference}");
    }
    let _ = writeln!(out, "\n{kind} file {}:\n", path.display());
    out.push_str(text);
}
