//! `names.toml`: names a package removed from one of its modules, or added
//! to one, and the release that did it, so that a failure's "has no
//! attribute" or "cannot import name" can be dated against the version installed.

use std::str::FromStr;

use pep440_rs::Version;
use toml_edit::Table;

use super::source_url;
use crate::knowledge::reader::Reader;
use crate::packaging::normalize_name;

/// Every dated name, removed and added.
#[derive(Debug, Clone, Default)]
pub struct NameChanges {
    pub changes: Vec<NameChange>,
}

/// Whether a row's names left the package or arrived in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Present before `version`, gone from it on.
    Removed,
    /// Present from `version` on, absent before.
    Added,
}

#[derive(Debug, Clone)]
pub struct NameChange {
    pub change: Change,
    /// The distribution, normalized (`huggingface-hub`).
    pub package: String,
    /// The dotted modules a message names the names in.
    pub modules: Vec<String>,
    pub names: Vec<String>,
    pub version: Version,
    pub source: String,
    /// For a keyword argument: the name the package took in its place.
    pub renamed_to: Option<String>,
}

impl NameChanges {
    /// The row for `name` looked up in `module`, if one dates it.
    pub fn of(&self, module: &str, name: &str) -> Option<&NameChange> {
        self.changes
            .iter()
            .find(|row| row.modules.iter().any(|known| known == module) && row.names.iter().any(|known| known == name))
    }
}

const FIELDS: [&str; 6] = ["package", "modules", "names", "version", "source", "renamed_to"];

pub(super) fn read(root: &Table, reader: &mut Reader) -> NameChanges {
    reader.only_kinds(root, &["removed", "added"]);
    let mut changes = NameChanges::default();
    for (kind, change) in [("removed", Change::Removed), ("added", Change::Added)] {
        let mut order = Vec::new();
        for table in reader.optional_rows(root, kind) {
            let mut row = reader.row(table, kind, &FIELDS);
            let package = row.string("package", "the distribution, as pip names it");
            let modules = row.strings("modules", "the dotted modules a message names", true);
            let names = row.strings("names", "the names removed or added", true);
            let version = row
                .string("version", "the release that made the change")
                .and_then(|text| {
                    let parsed = Version::from_str(text).ok();
                    if parsed.is_none() {
                        row.wrong("version", format!("`{text}` is not a version"));
                    }
                    parsed
                });
            let source = source_url(&mut row);
            let renamed_to = row
                .optional_string("renamed_to", "the name the package took in its place")
                .map(str::to_string);
            if let (Some(package), Some(version)) = (package, &version) {
                order.push(((normalize_name(package), version.clone()), row.span()));
            }
            if let (Some(package), Some(modules), Some(names), Some(version), Some(source)) =
                (package, modules, names, version, source)
            {
                changes.changes.push(NameChange {
                    change,
                    package: normalize_name(package),
                    modules: modules.iter().map(|module| module.to_string()).collect(),
                    names: names.iter().map(|name| name.to_string()).collect(),
                    version,
                    source,
                    renamed_to,
                });
            }
        }
        // Sorted by package, then version; two rows of one release may
        // cite different sources, so a repeat is no problem here.
        for pair in order.windows(2) {
            if pair[1].0 < pair[0].0 {
                reader.problem(
                    pair[1].1.clone(),
                    format!(
                        "[[{kind}]] rows are sorted by package, then version: {:?} comes before {:?}",
                        pair[1].0, pair[0].0
                    ),
                );
            }
        }
    }
    if changes.changes.is_empty() {
        reader.problem(None, "has no [[removed]] or [[added]] rows");
    }
    changes
}
