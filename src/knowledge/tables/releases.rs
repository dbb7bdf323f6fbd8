//! `releases.toml`: the newest release of each package the rules name, as
//! PyPI listed it on the day it was read, so `matrix list` can say how current
//! the rules are.

use std::str::FromStr;

use pep440_rs::Version;
use toml_edit::Table;

use super::source_url;
use crate::calendar::Date;
use crate::knowledge::reader::{Reader, value_span};
use crate::packaging::normalize_name;

/// The newest release of each package the rules name, and when PyPI was read.
#[derive(Debug, Clone, Default)]
pub struct Releases {
    pub checked: Option<Date>,
    pub packages: Vec<PackageRelease>,
}

#[derive(Debug, Clone)]
pub struct PackageRelease {
    pub name: String,
    /// `None` where the package has no usable release on PyPI (see `note`).
    pub newest: Option<String>,
    pub released: Option<Date>,
    pub note: Option<String>,
    pub source: String,
}

impl Releases {
    /// The row of a distribution, by any spelling of its name.
    pub fn package(&self, name: &str) -> Option<&PackageRelease> {
        let wanted = normalize_name(name);
        self.packages.iter().find(|row| normalize_name(&row.name) == wanted)
    }
}

pub(super) fn read(root: &Table, reader: &mut Reader) -> Releases {
    reader.only_kinds(root, &["checked", "package"]);
    let mut releases = Releases::default();
    match root.get("checked") {
        Some(item) => match item.as_str().and_then(Date::parse) {
            Some(date) => releases.checked = Some(date),
            None => reader.problem(
                value_span(root, "checked"),
                "`checked` is not a date such as \"2026-11-26\"".to_string(),
            ),
        },
        None => reader.problem(None, "lacks `checked`, the day PyPI was read".to_string()),
    }
    let mut order = Vec::new();
    for table in reader.rows(root, "package") {
        let mut row = reader.row(table, "package", &["name", "newest", "released", "note", "source"]);
        let name = row.string("name", "the distribution, as the rules write it");
        let newest = row.optional_string("newest", "a version such as \"2.15.0\"");
        if let Some(text) = newest
            && Version::from_str(text).is_err()
        {
            row.wrong("newest", format!("`{text}` is not a version"));
        }
        let released = row.optional_string("released", "a date such as \"2026-10-28\"");
        let released_date = released.and_then(Date::parse);
        if let (Some(text), None) = (released, released_date) {
            row.wrong("released", format!("`{text}` is not a date such as \"2026-10-28\""));
        }
        let note = row.optional_string("note", "why no release is given");
        if newest.is_none() && note.is_none() {
            row.missing("newest", "the newest release, or a `note` saying why there is none");
        }
        let source = source_url(&mut row);
        if let Some(name) = name {
            order.push((normalize_name(name), row.span()));
        }
        if let (Some(name), Some(source)) = (name, source) {
            releases.packages.push(PackageRelease {
                name: name.to_string(),
                newest: newest.map(str::to_string),
                released: released_date,
                note: note.map(str::to_string),
                source,
            });
        }
    }
    reader.check_order(&order, "package", "name");
    releases
}
