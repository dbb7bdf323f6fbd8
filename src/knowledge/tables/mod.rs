//! The knowledge tables of `compat-matrix/tables/`: which driver runs which
//! CUDA (`drivers`, `cuda-drivers.toml`), which GPU architectures each
//! official torch build carries and which Python each torch release supports
//! (`torch`, `torch-builds.toml`), which compute capability a GPU model has
//! (`gpus`, `gpus.toml`), the newest release of each package the rules
//! name (`releases`, `releases.toml`) and the release that removed or added
//! a name a failure says is missing (`names`, `names.toml`), the modules each well-known distribution installs
//! (`import_names`, `import-names.toml`), and the release that
//! brought each transformers model type (`transformers_models`, `transformers-models.toml`), and
//! the import names an unrelated PyPI project shares (`namesakes`, `namesakes.toml`). Built-in checks compute from these;
//! the facts themselves live in the TOML, each row with its source.
//!
//! There is no global copy: a [`Tables`] value travels with the matrix it was
//! read with (`crate::matrix::Matrix::tables`), the compiled-in one from
//! [`read_builtin`], a matrix directory's own from [`read_matrix_dir`]. Both
//! report every problem in every file with its line and column.

mod drivers;
mod gpus;
mod import_names;
mod names;
mod namesakes;
mod releases;
mod torch;
mod transformers_models;

use std::fmt;
use std::path::{Path, PathBuf};

use pep440_rs::Version;

pub use drivers::{CudaDrivers, DriverBranch, DriverVersion, MvcFloor, ToolkitRelease};
pub use gpus::{Architecture, FirstCuda, GpuModel, GpuTables};
pub use import_names::{Distribution, ImportNames};
pub use names::{Change, NameChange, NameChanges};
pub use namesakes::{Namesake, Namesakes};
pub use releases::{PackageRelease, Releases};
pub use torch::{
    ArchEntry, RowEvidence, TorchBuildRow, TorchRelease, TorchSet, TorchTables, cubin_runs_on, variant_cuda,
};
pub use transformers_models::{ModelType, TransformersModels};

use crate::knowledge::reader::{Reader, Row};
use crate::located::Located;

const DRIVERS_FILE: &str = "cuda-drivers.toml";
const TORCH_FILE: &str = "torch-builds.toml";
const GPUS_FILE: &str = "gpus.toml";
const RELEASES_FILE: &str = "releases.toml";
const NAMES_FILE: &str = "names.toml";
const IMPORT_NAMES_FILE: &str = "import-names.toml";
const TRANSFORMERS_MODELS_FILE: &str = "transformers-models.toml";
const NAMESAKES_FILE: &str = "namesakes.toml";

/// Where the compiled-in tables come from, as `matrix lint` names them.
const BUILTIN_DIR: &str = "compat-matrix/tables";

/// How many table files are compiled in, for `matrix lint`'s count.
pub const BUILTIN_FILE_COUNT: usize = BUILTIN.len();

/// The compiled-in tables' file names, as a sentence: "A, B and C".
fn table_files() -> String {
    let names: Vec<&str> = BUILTIN.iter().map(|(name, _)| *name).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

const BUILTIN: [(&str, &str); 8] = [
    (
        DRIVERS_FILE,
        include_str!("../../../compat-matrix/tables/cuda-drivers.toml"),
    ),
    (
        TORCH_FILE,
        include_str!("../../../compat-matrix/tables/torch-builds.toml"),
    ),
    (GPUS_FILE, include_str!("../../../compat-matrix/tables/gpus.toml")),
    (
        RELEASES_FILE,
        include_str!("../../../compat-matrix/tables/releases.toml"),
    ),
    (NAMES_FILE, include_str!("../../../compat-matrix/tables/names.toml")),
    (
        IMPORT_NAMES_FILE,
        include_str!("../../../compat-matrix/tables/import-names.toml"),
    ),
    (
        TRANSFORMERS_MODELS_FILE,
        include_str!("../../../compat-matrix/tables/transformers-models.toml"),
    ),
    (
        NAMESAKES_FILE,
        include_str!("../../../compat-matrix/tables/namesakes.toml"),
    ),
];

/// Every table of one matrix: the compiled-in one, or a matrix directory's.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    pub drivers: CudaDrivers,
    pub torch: TorchTables,
    pub gpus: GpuTables,
    pub releases: Releases,
    pub names: NameChanges,
    pub import_names: ImportNames,
    pub transformers_models: TransformersModels,
    pub namesakes: Namesakes,
}

/// `major.minor`: a CUDA release, a torch release, a Python version or a
/// compute capability. Ordered numerically (`2.9 < 2.10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MajorMinor {
    pub major: u64,
    pub minor: u64,
}

/// A GPU's compute capability, or the one a piece of GPU code was compiled for.
pub type Capability = MajorMinor;

impl MajorMinor {
    pub const fn new(major: u64, minor: u64) -> MajorMinor {
        MajorMinor { major, minor }
    }

    /// Exactly `N.M`, both decimal integers.
    pub fn parse(text: &str) -> Option<MajorMinor> {
        let (major, minor) = text.split_once('.')?;
        let number = |part: &str| {
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse().ok())
                .flatten()
        };
        Some(MajorMinor::new(number(major)?, number(minor)?))
    }

    /// The first two parts of a version's release (`3.11.7` -> 3.11; `12` -> 12.0).
    pub fn of(version: &Version) -> Option<MajorMinor> {
        let release = version.release();
        Some(MajorMinor::new(*release.first()?, release.get(1).copied().unwrap_or(0)))
    }
}

impl fmt::Display for MajorMinor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The compiled-in tables, and every problem in them: none in a build that
/// passed its tests (`compiled_tables_parse_and_are_consistent` lints them).
pub fn read_builtin() -> (Tables, Vec<Located>) {
    // Parsed once per process: every matrix load and lint asks for them.
    static BUILTIN_READ: std::sync::OnceLock<(Tables, Vec<Located>)> = std::sync::OnceLock::new();
    BUILTIN_READ
        .get_or_init(|| {
            let sources: Vec<(PathBuf, String)> = BUILTIN
                .iter()
                .map(|(name, text)| (Path::new(BUILTIN_DIR).join(name), (*text).to_string()))
                .collect();
            parse_sources(&sources)
        })
        .clone()
}

/// The tables of a matrix directory (`DIR/tables/*.toml`), and every problem
/// in them: syntax, missing or mistyped fields, unknown keys, rows out of
/// order or repeated, rows without a source, and rows that disagree across
/// files. `None` where the directory has no `tables/`.
pub fn read_matrix_dir(dir: &Path) -> Option<(Tables, Vec<Located>)> {
    let tables_dir = dir.join("tables");
    let entries = match std::fs::read_dir(&tables_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            let problem = Located::at(&tables_dir, 1, 1, format!("cannot read the directory: {error}"));
            return Some((Tables::default(), vec![problem]));
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    paths.sort();
    let mut problems = Vec::new();
    let mut sources = Vec::new();
    for path in paths {
        match crate::bounded_read::read_to_string(&path, crate::bounded_read::DOCUMENT_LIMIT) {
            Ok(text) => sources.push((path, text)),
            Err(error) => problems.push(Located::at(&path, 1, 1, format!("cannot read: {error}"))),
        }
    }
    let (tables, found) = parse_sources(&sources);
    problems.extend(found);
    Some((tables, problems))
}

/// Parses every known file among `sources`, then checks them against each
/// other. Problems come in file order, then position order.
fn parse_sources(sources: &[(PathBuf, String)]) -> (Tables, Vec<Located>) {
    let mut tables = Tables::default();
    let mut problems = Vec::new();
    let mut torch_source: Option<(&Path, &str)> = None;
    let mut have_drivers = false;
    for (path, text) in sources {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        let mut reader = Reader::new(path, text);
        if !BUILTIN.iter().any(|(file, _)| *file == name) {
            reader.problem(
                None,
                format!("not a table envdoctor knows; the tables are {}", table_files()),
            );
        } else if let Some(document) = reader.document("not valid TOML") {
            let root = document.as_table();
            match name {
                DRIVERS_FILE => tables.drivers = drivers::read(root, &mut reader),
                TORCH_FILE => tables.torch = torch::read(root, &mut reader),
                GPUS_FILE => tables.gpus = gpus::read(root, &mut reader),
                NAMES_FILE => tables.names = names::read(root, &mut reader),
                IMPORT_NAMES_FILE => tables.import_names = import_names::read(root, &mut reader),
                TRANSFORMERS_MODELS_FILE => tables.transformers_models = transformers_models::read(root, &mut reader),
                NAMESAKES_FILE => tables.namesakes = namesakes::read(root, &mut reader),
                _ => tables.releases = releases::read(root, &mut reader),
            }
        }
        match name {
            DRIVERS_FILE => have_drivers = true,
            TORCH_FILE => torch_source = Some((path, text)),
            _ => {}
        }
        problems.extend(reader.into_problems());
    }
    // A torch build is only useful if its CUDA major has a driver floor.
    if let (Some((path, text)), true) = (torch_source, have_drivers) {
        let mut reader = Reader::new(path, text);
        for row in &tables.torch.builds {
            if tables.drivers.floor(row.cuda.major).is_none() {
                reader.problem(
                    row.span.clone(),
                    format!(
                        "build {} {} is CUDA {}, which has no [[minor_version_compatibility]] row in {DRIVERS_FILE}",
                        row.torch, row.variant, row.cuda
                    ),
                );
            }
        }
        problems.extend(reader.into_problems());
    }
    (tables, problems)
}

/// A `MAJOR.MINOR` field of a row.
fn major_minor(row: &mut Row, key: &str, what: &str) -> Option<MajorMinor> {
    let text = row.string(key, what)?;
    let parsed = MajorMinor::parse(text);
    if parsed.is_none() {
        row.wrong(key, format!("`{text}` is not MAJOR.MINOR ({what})"));
    }
    parsed
}

/// The row's `source`: the http(s) URL its facts come from. A row without
/// one is not kept.
fn source_url(row: &mut Row) -> Option<String> {
    let text = row.string("source", "the URL the row's facts come from")?;
    if text.starts_with("https://") || text.starts_with("http://") {
        Some(text.to_string())
    } else {
        row.wrong("source", format!("`{text}` is not an http(s) URL"));
        None
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The compiled-in tables, which must have no problem.
    pub fn builtin() -> Tables {
        let (tables, problems) = read_builtin();
        assert!(problems.is_empty(), "{problems:#?}");
        tables
    }

    fn lint_texts(files: &[(&str, &str)]) -> Vec<Located> {
        let sources: Vec<(PathBuf, String)> = files
            .iter()
            .map(|(name, text)| (PathBuf::from(name), (*text).to_string()))
            .collect();
        parse_sources(&sources).1
    }

    #[test]
    fn compiled_tables_parse_and_are_consistent() {
        let tables = builtin();
        assert_eq!(tables.drivers.minor_version_compatibility.len(), 3);
        assert!(tables.drivers.toolkit_releases.len() >= 20);
        assert!(tables.torch.releases.len() >= 15);
        assert!(tables.torch.builds.len() >= 40);
        assert!(tables.gpus.models.len() >= 50);
        // Every row carries its source (the parser drops rows without one, so
        // the counts above would not hold otherwise; this says it outright).
        assert!(tables.torch.builds.iter().all(|row| row.source.starts_with("https://")));
    }

    #[test]
    fn the_repository_directory_lints_clean_through_the_directory_entry() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("compat-matrix");
        let (tables, problems) = read_matrix_dir(&dir).expect("compat-matrix has tables/");
        assert_eq!(problems, Vec::new());
        assert_eq!(tables.torch.builds.len(), builtin().torch.builds.len());
    }

    #[test]
    fn lint_reports_every_problem_with_its_line_and_column() {
        let text = "\
[[gpu]]
name = \"H100\"
compute_capability = \"9.0\"
source = \"https://developer.nvidia.com/cuda-gpus\"

[[gpu]]
name = \"A100\"
compute_capability = \"eight\"
colour = \"green\"

[[architecture]]
name = \"Hopper\"
compute_capabilities = [\"9.0\"]
source = \"https://example.org\"
";
        let problems = lint_texts(&[("tables/gpus.toml", text)]);
        let summary: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            summary,
            [
                "tables/gpus.toml:6:1: [[gpu]] lacks `source` (the URL the row's facts come from)",
                "tables/gpus.toml:8:22: `compute_capability`: `eight` is not MAJOR.MINOR (such as \"9.0\")",
                "tables/gpus.toml:9:10: [[gpu]] has no field `colour`; its fields are name, compute_capability, source",
            ],
            "{problems:#?}"
        );
    }

    #[test]
    fn lint_finds_order_repeats_syntax_and_cross_file_gaps() {
        let drivers = "\
[[minor_version_compatibility]]
cuda_major = 12
linux_min_driver = \"525.60.13\"
source = \"https://docs.nvidia.com/\"

[[toolkit_release]]
cuda = \"12.8\"
linux_driver = \"570.26\"
source = \"https://docs.nvidia.com/\"

[[toolkit_release]]
cuda = \"12.4\"
linux_driver = \"550.54.14\"
source = \"https://docs.nvidia.com/\"

[[driver_branch]]
branch = \"R580\"
support = \"long-term support branch\"
cuda_major = 13
end_of_life = \"August 2028\"
source = \"https://docs.nvidia.com/\"
";
        let torch = "\
[[release]]
torch = \"2.9\"
python_min = \"3.10\"
python_max = \"3.14\"
source = \"https://github.com/pytorch/pytorch\"

[[build]]
torch = \"2.9\"
variant = \"cu130\"
platform = \"x86_64\"
arch = [\"8.0\", \"7.5\"]
confidence = \"unconfirmed\"
source = \"https://github.com/pytorch/pytorch\"
";
        let problems = lint_texts(&[
            ("t/cuda-drivers.toml", drivers),
            ("t/torch-builds.toml", torch),
            ("t/gpus.toml", "[[gpu]\nname = 1"),
            ("t/extra.toml", ""),
        ]);
        let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let has = |needle: &str| messages.iter().any(|message| message.contains(needle));
        assert!(
            has("t/cuda-drivers.toml:11:1: [[toolkit_release]] rows are sorted by cuda"),
            "{messages:#?}"
        );
        assert!(has("`end_of_life`: `August 2028` is not YYYY-MM"), "{messages:#?}");
        assert!(
            has("t/torch-builds.toml:11:8: `arch`: entries are sorted and unique"),
            "{messages:#?}"
        );
        assert!(has("[[build]] lacks `note`"), "{messages:#?}");
        assert!(has("t/gpus.toml:1:"), "{messages:#?}");
        assert!(has("not valid TOML"), "{messages:#?}");
        assert!(
            has(
                "t/extra.toml:1:1: not a table envdoctor knows; the tables are cuda-drivers.toml, torch-builds.toml, gpus.toml, releases.toml, names.toml, import-names.toml, transformers-models.toml and namesakes.toml"
            ),
            "{messages:#?}"
        );
        // The arch list was out of order, so the row was not kept and no
        // cross-file problem can be stated for it; a valid CUDA 14 row would be.
        let torch_14 = torch
            .replace("cu130", "cu140")
            .replace("[\"8.0\", \"7.5\"]", "[\"8.0\"]")
            .replace("unconfirmed", "confirmed");
        let problems = lint_texts(&[("t/cuda-drivers.toml", drivers), ("t/torch-builds.toml", &torch_14)]);
        assert!(
            problems.iter().any(|problem| problem
                .problem
                .contains("CUDA 14.0, which has no [[minor_version_compatibility]] row")),
            "{problems:#?}"
        );
    }

    #[test]
    fn a_matrix_directory_without_tables_has_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_matrix_dir(dir.path()).is_none());
        std::fs::create_dir(dir.path().join("tables")).unwrap();
        std::fs::write(dir.path().join("tables/gpus.toml"), "[[gpu]]\n").unwrap();
        let (_, problems) = read_matrix_dir(dir.path()).unwrap();
        assert!(
            problems
                .iter()
                .all(|problem| problem.path.ends_with("tables/gpus.toml"))
        );
        assert!(
            problems.iter().any(|problem| problem.problem.contains("lacks `name`")),
            "{problems:#?}"
        );
        assert!(
            problems
                .iter()
                .any(|problem| problem.problem.contains("no [[architecture]] rows"))
        );
    }
}
