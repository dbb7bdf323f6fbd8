//! `namesakes.toml`: import names an unrelated PyPI project also uses
//! (PyPI's `apex` is a Pyramid add-on, not NVIDIA's; PyPI's `clip` is not
//! OpenAI's), with the project the code wants, the command that installs it,
//! the names that project always has and the modules only the namesake's own
//! files import. explain reads a name missing from such a module against it.

use toml_edit::Table;

use super::source_url;
use crate::knowledge::reader::Reader;

#[derive(Debug, Clone, Default)]
pub struct Namesakes {
    pub rows: Vec<Namesake>,
}

#[derive(Debug, Clone)]
pub struct Namesake {
    /// The top-level module both install (`apex`).
    pub import: String,
    /// The unrelated distribution PyPI serves under that name.
    pub namesake: String,
    /// The project the code wants, in words.
    pub wanted: String,
    /// The distribution name the wanted project installs as.
    pub wanted_distribution: String,
    /// The one command that installs the wanted project.
    pub install: String,
    /// Names and submodules (dotted below `import`) the wanted project always has.
    pub has: Vec<String>,
    /// Top-level modules the namesake's own files import and the wanted project never does.
    pub namesake_needs: Vec<String>,
    pub source: String,
}

impl Namesakes {
    /// The row of a top-level import name.
    pub fn of_import(&self, import: &str) -> Option<&Namesake> {
        self.rows.iter().find(|row| row.import == import)
    }

    /// The row whose namesake's own files import `module` (a top-level name).
    pub fn needing(&self, module: &str) -> Option<&Namesake> {
        self.rows
            .iter()
            .find(|row| row.namesake_needs.iter().any(|needed| needed == module))
    }
}

impl Namesake {
    /// Whether the wanted project has `path`, a name or a dotted submodule below the import name.
    pub fn wanted_has(&self, path: &str) -> bool {
        self.has.iter().any(|known| known == path)
    }

    /// Whether an installed distribution's name tells the namesake from the wanted project.
    pub fn names_differ(&self) -> bool {
        crate::packaging::normalize_name(&self.namesake) != crate::packaging::normalize_name(&self.wanted_distribution)
    }
}

/// A Python identifier of ASCII letters, digits and underscores, not starting with a digit.
fn is_identifier(part: &str) -> bool {
    part.chars().next().is_some_and(|first| !first.is_ascii_digit())
        && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const FIELDS: [&str; 8] = [
    "import",
    "namesake",
    "wanted",
    "wanted_distribution",
    "install",
    "has",
    "namesake_needs",
    "source",
];

pub(super) fn read(root: &Table, reader: &mut Reader) -> Namesakes {
    reader.only_kinds(root, &["namesake"]);
    let mut namesakes = Namesakes::default();
    let mut order = Vec::new();
    for table in reader.rows(root, "namesake") {
        let mut row = reader.row(table, "namesake", &FIELDS);
        let import = row.string("import", "the top-level module both install");
        let namesake = row.string("namesake", "the unrelated distribution on PyPI");
        let wanted = row.string("wanted", "the project the code wants, in words");
        let wanted_distribution = row.string("wanted_distribution", "the distribution the wanted project installs as");
        let install = row.string("install", "the command that installs the wanted project");
        let has = row.strings("has", "names and submodules the wanted project always has", true);
        let namesake_needs = row
            .strings("namesake_needs", "modules only the namesake's own files import", false)
            .unwrap_or_default();
        let source = source_url(&mut row);
        if let Some(import) = import
            && !import.split('.').all(is_identifier)
        {
            row.wrong("import", format!("`{import}` is not a module name"));
        }
        if let Some(install) = install
            && let Err(problem) = crate::fix_command::one_command(install)
        {
            row.wrong("install", format!("not one command: {problem}"));
        }
        if has.as_ref().is_some_and(Vec::is_empty) {
            row.wrong(
                "has",
                "is empty: a row needs a name the wanted project always has".to_string(),
            );
        }
        for (key, list) in [
            ("has", has.as_deref().unwrap_or_default()),
            ("namesake_needs", &namesake_needs),
        ] {
            if let Some(odd) = list.iter().find(|name| !name.split('.').all(is_identifier)) {
                row.wrong(key, format!("`{odd}` is not a name or a dotted submodule"));
            }
        }
        if let Some(import) = import {
            order.push((import.to_string(), row.span()));
        }
        if let (
            Some(import),
            Some(namesake),
            Some(wanted),
            Some(wanted_distribution),
            Some(install),
            Some(has),
            Some(source),
        ) = (import, namesake, wanted, wanted_distribution, install, has, source)
        {
            namesakes.rows.push(Namesake {
                import: import.to_string(),
                namesake: namesake.to_string(),
                wanted: wanted.to_string(),
                wanted_distribution: wanted_distribution.to_string(),
                install: install.to_string(),
                has: has.iter().map(|name| name.to_string()).collect(),
                namesake_needs: namesake_needs.iter().map(|name| name.to_string()).collect(),
                source,
            });
        }
    }
    reader.check_order(&order, "namesake", "import");
    namesakes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> Namesakes {
        crate::knowledge::tables::tests::builtin().namesakes
    }

    #[test]
    fn the_rows_name_what_the_wanted_project_has_and_what_the_namesake_needs() {
        let namesakes = builtin();
        let clip = namesakes.of_import("clip").unwrap();
        assert!(clip.wanted_has("load") && !clip.wanted_has("simple_tokenizer"));
        assert_eq!(namesakes.needing("pyramid").unwrap().import, "apex");
        assert!(namesakes.of_import("easytorch").unwrap().names_differ());
        assert!(!namesakes.of_import("apex").unwrap().names_differ());
        assert!(namesakes.of_import("numpy").is_none());
        assert!(namesakes.rows.iter().all(|row| row.source.starts_with("https://")));
    }

    #[test]
    fn a_malformed_row_is_reported_at_its_place() {
        let text = "\
[[namesake]]
import = \"clip\"
namesake = \"clip\"
wanted = \"OpenAI's CLIP\"
wanted_distribution = \"clip\"
install = \"pip install git+https://github.com/openai/CLIP.git\"
has = [\"load\"]
source = \"https://github.com/openai/CLIP/issues/329\"

[[namesake]]
import = \"apex\"
namesake = \"apex\"
wanted = \"NVIDIA's apex\"
install = \"pip install 'apex\"
has = [\"amp\", 3]
source = \"github.com/NVIDIA/apex\"
colour = \"green\"
";
        let sources = [(std::path::PathBuf::from("tables/namesakes.toml"), text.to_string())];
        let (_, problems) = crate::knowledge::tables::parse_sources(&sources);
        let summary: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            summary,
            [
                "tables/namesakes.toml:10:1: [[namesake]] lacks `wanted_distribution` (the distribution the wanted project installs as)",
                "tables/namesakes.toml:10:1: [[namesake]] rows are sorted by import: \"apex\" comes before \"clip\"",
                "tables/namesakes.toml:14:11: `install`: not one command: a single quote is never closed",
                "tables/namesakes.toml:15:7: `has`: expected an array of strings (names and submodules the wanted project always has)",
                "tables/namesakes.toml:16:10: `source`: `github.com/NVIDIA/apex` is not an http(s) URL",
                "tables/namesakes.toml:17:10: [[namesake]] has no field `colour`; its fields are import, namesake, wanted, wanted_distribution, install, has, namesake_needs, source",
            ],
            "{problems:#?}"
        );
    }
}
