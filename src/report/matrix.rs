//! `envdoctor matrix list|lint|explain`: the matrix and the built-in checks, for people.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use super::Style;
use super::wrap::write_hanging;
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

/// Where an entry's title, on the line under its id, begins.
const TEXT_COLUMN: usize = 11;

/// The list for people: each entry's id (after its severity, for a rule), its
/// title under it, wrapped to `style`'s width, so that no id pushes a title off
/// the screen. A rule's id and title hold no control character: reading the
/// matrix refuses one (`matrix::parse`).
pub fn list_text(matrix: &Matrix, style: Style) -> String {
    let listed = list_json(matrix);
    let width = style.width();
    let mut out = String::new();
    let usual = usual_check_day(&listed);
    if let Some(day) = &usual {
        let note = format!("Sources checked on {day} unless an entry says otherwise.");
        write_hanging(&mut out, width, "", 0, &note, str::to_string);
        out.push('\n');
    }
    let rules = listed.iter().filter(|item| item.kind == "rule").count();
    let withdrawn = listed
        .iter()
        .filter(|item| item.kind == "rule" && item.withdrawn)
        .count();
    let heading = match withdrawn {
        0 => format!("Rules ({rules})"),
        _ => format!(
            "Rules ({rules}; `check` evaluates {}, not the {withdrawn} withdrawn)",
            rules - withdrawn
        ),
    };
    write_hanging(&mut out, width, "", 2, &heading, str::to_string);
    let entry = |out: &mut String, item: &Listed, label: &str| {
        let _ = match label {
            "" => writeln!(out, "  {}", item.id),
            label => writeln!(out, "  {label:<9}{}", item.id),
        };
        let withdrawn = if item.withdrawn { " (withdrawn)" } else { "" };
        let checked = match &item.checked {
            Some(day) if Some(day) != usual.as_ref() => format!(" (checked {day})"),
            _ => String::new(),
        };
        let title = format!("{}{withdrawn}{checked}", item.title);
        write_hanging(
            out,
            width,
            &" ".repeat(TEXT_COLUMN),
            TEXT_COLUMN,
            &title,
            str::to_string,
        );
    };
    for item in listed.iter().filter(|item| item.kind == "rule") {
        entry(&mut out, item, item.severity.as_deref().unwrap_or(""));
    }
    let symptoms: Vec<&Listed> = listed.iter().filter(|item| item.kind == "symptom").collect();
    out.push('\n');
    let heading = format!("Symptom entries, for `envdoctor explain` ({})", symptoms.len());
    write_hanging(&mut out, width, "", 2, &heading, str::to_string);
    for item in &symptoms {
        entry(&mut out, item, "");
    }
    let checks = listed.iter().filter(|item| item.kind == "check").count();
    let without_smoke = listed
        .iter()
        .filter(|item| item.kind == "check" && item.id != crate::builtin_checks::smoke_test::CHECK.id)
        .count();
    let heading = format!(
        "Built-in checks ({checks}; `check --no-smoke` evaluates {without_smoke}, without {})",
        crate::builtin_checks::smoke_test::CHECK.id
    );
    out.push('\n');
    write_hanging(&mut out, width, "", 2, &heading, str::to_string);
    for item in listed.iter().filter(|item| item.kind == "check") {
        entry(&mut out, item, "");
        if !(item.produces.len() == 1 && item.produces[0] == item.id) {
            let finds = format!("{:TEXT_COLUMN$}finds: ", "");
            let indent = TEXT_COLUMN + "finds: ".len();
            write_hanging(
                &mut out,
                width,
                &finds,
                indent,
                &item.produces.join(", "),
                str::to_string,
            );
        }
    }
    freshness(&mut out, matrix, &listed, width);
    out
}

/// The day most rules and symptom entries were checked on: only the others
/// carry their own day in the list (`--format json` gives every entry's).
fn usual_check_day(listed: &[Listed]) -> Option<String> {
    let mut days: BTreeMap<&str, usize> = BTreeMap::new();
    for item in listed.iter().filter(|item| matches!(item.kind, "rule" | "symptom")) {
        if let Some(day) = &item.checked {
            *days.entry(day).or_default() += 1;
        }
    }
    // The latest of equally common days, so the choice does not depend on order.
    let (day, _) = days
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(b.0)))?;
    Some(day.to_string())
}

/// How current the knowledge is: the newest release of each package the rules
/// name, and the oldest and newest day a rule's sources were checked.
fn freshness(out: &mut String, matrix: &Matrix, listed: &[Listed], width: usize) {
    let releases = &matrix.tables.releases;
    let read = releases
        .checked
        .map_or_else(|| "unknown".to_string(), |date| date.to_string());
    let heading = format!(
        "Newest release of each package the rules name (PyPI, read {read}): a newer one is unknown to the rules"
    );
    out.push('\n');
    write_hanging(out, width, "", 2, &heading, str::to_string);
    let name_width = listed
        .iter()
        .filter(|item| item.kind == "package")
        .map(|item| item.id.len())
        .max()
        .unwrap_or(0);
    for item in listed.iter().filter(|item| item.kind == "package") {
        let newest = item.newest.as_deref().unwrap_or("-");
        let released = item.released.as_deref().unwrap_or("");
        let columns = format!(
            "  {}  {newest:<12}{released:<12}",
            crate::escape::padded(&item.id, name_width)
        );
        if item.title.is_empty() {
            let _ = writeln!(out, "{}", columns.trim_end());
        } else {
            // A note goes on under its column while that leaves room for words, else under the name.
            let column = columns.len();
            let indent = if width.saturating_sub(column) >= 30 {
                column
            } else {
                TEXT_COLUMN
            };
            write_hanging(out, width, &columns, indent, &item.title, str::to_string);
        }
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
        let sentence = format!(
            "Sources last checked between {oldest} and {newest}; today is {today}, so the oldest check is {} \
             days old.",
            oldest.days_until(today)
        );
        out.push('\n');
        write_hanging(out, width, "", 0, &sentence, str::to_string);
    }
}

pub fn lint_text(linted: &Linted, dir: Option<&Path>) -> String {
    let mut out = String::new();
    // A site's rule file is text from whoever wrote it, quoted in its errors:
    // no ESC, OSC, BEL or NUL in it reaches the terminal (issue 32 E8).
    for error in &linted.errors {
        let _ = writeln!(out, "{}", crate::escape::controls(&error.to_string()));
    }
    let what = dir.map_or_else(
        || "the compiled-in matrix".to_string(),
        |dir| format!("`{}`", crate::escape::controls(&dir.display().to_string())),
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

/// Everything about one rule or symptom entry (what it says, then the rest of
/// its file as written) or check; `None` for an unknown id. A site's rule files
/// are text from whoever wrote them: no control character in them reaches the terminal.
pub fn explain(matrix: &Matrix, id: &str, style: Style) -> Option<String> {
    explained(matrix, id, style.width()).map(|text| crate::escape::controls_but_newlines(&text).into_owned())
}

fn explained(matrix: &Matrix, id: &str, width: usize) -> Option<String> {
    let mut out = String::new();
    let (heading, withdrawn, said) = match (matrix.rule(id), matrix.symptom(id)) {
        (Some(rule), _) => {
            let heading = format!("{} ({}): {}", rule.id, rule.severity, rule.title);
            let said = Said {
                kind: "Rule",
                why: &rule.why,
                fix: &rule.fix,
                references: &rule.references,
                checked: rule.checked,
                path: &rule.path,
                text: &rule.text,
            };
            (heading, rule.withdrawn.as_deref(), said)
        }
        (None, Some(entry)) => {
            let heading = format!("{} (symptom entry): {}", entry.id, entry.title);
            let said = Said {
                kind: "Symptom",
                why: &entry.why,
                fix: &entry.fix,
                references: &entry.references,
                checked: entry.checked,
                path: &entry.path,
                text: &entry.text,
            };
            (heading, None, said)
        }
        (None, None) => return explained_check(id, width),
    };
    write_hanging(&mut out, width, "", 2, &heading, str::to_string);
    if let Some(reason) = withdrawn {
        write_hanging(&mut out, width, "WITHDRAWN: ", 11, reason, str::to_string);
    }
    said.write(&mut out, width);
    Some(out)
}

fn explained_check(id: &str, width: usize) -> Option<String> {
    let check = builtin_checks::catalogue().find(|check| check.id == id || check.produces.contains(&id))?;
    let mut out = String::new();
    let heading = format!("{} (built-in check): {}", check.id, check.title);
    write_hanging(&mut out, width, "", 2, &heading, str::to_string);
    out.push('\n');
    write_hanging(&mut out, width, "", 0, check.explanation, str::to_string);
    out.push('\n');
    write_hanging(
        &mut out,
        width,
        "Finds: ",
        7,
        &check.produces.join(", "),
        str::to_string,
    );
    Some(out)
}

/// What a rule or symptom entry says, each once, then the rest of its file.
struct Said<'a> {
    /// `Rule` or `Symptom`.
    kind: &'a str,
    why: &'a str,
    fix: &'a str,
    references: &'a [String],
    checked: Date,
    path: &'a Path,
    /// The file as written.
    text: &'a str,
}

/// The fields [`Said`] shows, left out of the file shown after it.
const SAID_FIELDS: [&str; 8] = [
    "id",
    "title",
    "severity",
    "withdrawn",
    "why",
    "fix",
    "references",
    "checked",
];

impl Said<'_> {
    fn write(&self, out: &mut String, width: usize) {
        for (label, text) in [("Why: ", self.why), ("Fix: ", self.fix)] {
            out.push('\n');
            write_hanging(out, width, label, label.len(), text, str::to_string);
        }
        let _ = writeln!(out, "\nReferences (checked {}):", self.checked);
        for reference in self.references {
            write_hanging(out, width, "  ", 4, reference, str::to_string);
        }
        rest_of_file(out, width, self.kind, self.path, self.text);
    }
}

/// The file less the fields [`Said`] showed: when it applies and how its
/// failure looks, as written, comments and all. A line too long for the width
/// goes on under itself, a comment as a comment.
fn rest_of_file(out: &mut String, width: usize, kind: &str, path: &Path, text: &str) {
    let rest = match text.parse::<toml_edit::DocumentMut>() {
        Ok(mut document) => {
            for field in SAID_FIELDS {
                document.remove(field);
            }
            document.to_string()
        }
        // Read once already, so it parses; should it not, all of it is shown.
        Err(_) => text.to_string(),
    };
    let heading = format!("{kind} file {}, less the fields above:", path.display());
    out.push('\n');
    write_hanging(out, width, "", 2, &heading, str::to_string);
    out.push('\n');
    for line in rest.trim_matches('\n').lines() {
        let indent = line.len() - line.trim_start().len();
        let code = line.trim_start();
        match code.strip_prefix('#') {
            Some(comment) => {
                let marker = format!("{}# ", crate::escape::spaces(indent));
                let room = width.saturating_sub(marker.len());
                for part in super::wrap::wrap(comment, room) {
                    let _ = writeln!(out, "{}", format!("{marker}{part}").trim_end());
                }
            }
            None => write_hanging(out, width, &line[..indent], indent + 4, code, str::to_string),
        }
    }
}
