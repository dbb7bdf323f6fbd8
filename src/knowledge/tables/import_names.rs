//! `import-names.toml`: the modules each well-known distribution installs at
//! the top level (`cv2` is opencv-python's, `hydra` hydra-core's) and the
//! systems its newest release has builds for, generated from the files on
//! PyPI by `compat-matrix/tools/import_names.py`. explain reads `No module
//! named 'X'` against it: which distribution to install, and whether one
//! exists for the system the log ran on.

use toml_edit::Table;

use super::source_url;
use crate::knowledge::reader::Reader;
use crate::packaging::normalize_name;

/// Every distribution read, in the table's order: where several install one
/// module, the first is the one a fix names.
#[derive(Debug, Clone, Default)]
pub struct ImportNames {
    pub distributions: Vec<Distribution>,
}

#[derive(Debug, Clone)]
pub struct Distribution {
    /// As PyPI spells it (`PyYAML`).
    pub name: String,
    /// The release whose files were read.
    pub version: String,
    pub modules: Vec<String>,
    /// `linux`, `macos`, `windows`, or `any` for a pure-Python wheel.
    pub systems: Vec<String>,
    /// Whether the release can also be built from an sdist.
    pub sdist: bool,
    pub source: String,
}

impl Distribution {
    /// Whether `module` is the distribution's own, not a helper it also
    /// installs: its only module, or the one its name starts with (`cupy` of
    /// cupy-cuda12x, `torch` of torch beside torchgen and functorch).
    pub fn is_main_module(&self, module: &str) -> bool {
        self.modules.len() == 1 || normalize_name(&self.name).starts_with(&normalize_name(module))
    }

    /// Whether the release has a build for `system` (`windows`): a wheel for
    /// it or for any system, or an sdist to build.
    pub fn builds_for(&self, system: &str) -> bool {
        self.sdist || self.systems.iter().any(|known| known == system || known == "any")
    }
}

impl ImportNames {
    /// The distribution whose name is `name`, in any of the spellings PEP 503 normalizes alike.
    pub fn distribution(&self, name: &str) -> Option<&Distribution> {
        let name = normalize_name(name);
        self.distributions
            .iter()
            .find(|distribution| normalize_name(&distribution.name) == name)
    }

    /// The distributions that install `module` at the top level, in the table's order.
    pub fn providers(&self, module: &str) -> Vec<&Distribution> {
        self.distributions
            .iter()
            .filter(|distribution| distribution.modules.iter().any(|known| known == module))
            .collect()
    }
}

const FIELDS: [&str; 7] = ["name", "version", "modules", "systems", "sdist", "read_from", "source"];

pub(super) fn read(root: &Table, reader: &mut Reader) -> ImportNames {
    reader.only_kinds(root, &["checked", "distribution"]);
    let mut names = ImportNames::default();
    let mut seen = Vec::new();
    for table in reader.rows(root, "distribution") {
        let mut row = reader.row(table, "distribution", &FIELDS);
        let name = row.string("name", "the distribution, as PyPI spells it");
        let version = row.string("version", "the release whose files were read");
        let modules = row.strings("modules", "the modules it installs at the top level", true);
        let systems = row.strings("systems", "the systems its wheels are built for", true);
        let sdist = row.boolean("sdist", "whether it has an sdist");
        row.string("read_from", "the file its modules were read from");
        let source = source_url(&mut row);
        if let Some(name) = name {
            let normalized = normalize_name(name);
            if seen.contains(&normalized) {
                row.wrong("name", format!("{name} has a row already"));
            }
            seen.push(normalized);
        }
        if let (Some(name), Some(version), Some(modules), Some(systems), Some(sdist), Some(source)) =
            (name, version, modules, systems, sdist, source)
        {
            names.distributions.push(Distribution {
                name: name.to_string(),
                version: version.to_string(),
                modules: modules.iter().map(|module| module.to_string()).collect(),
                systems: systems.iter().map(|system| system.to_string()).collect(),
                sdist,
                source,
            });
        }
    }
    names
}
