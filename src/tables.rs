//! The knowledge tables of `compat-matrix/tables/`, compiled into the binary:
//! which driver runs which CUDA (`cuda-drivers.toml`), which GPU architectures
//! each official torch build carries and which Python each torch release
//! supports (`torch-builds.toml`), and which compute capability a GPU model has
//! (`gpus.toml`). Built-in checks compute from these; the facts themselves live
//! in the TOML, each row with its source.
//!
//! [`tables`] parses the compiled-in files once. [`lint`] validates a directory
//! of them (`envdoctor matrix lint DIR`), reporting every problem in every file
//! with its line and column, as it does for the compiled-in ones in a unit test.
//!
//! The rule for which compiled GPU code runs on which GPU is code, not data,
//! because it is NVIDIA's rule rather than a fact about a release: see
//! [`cubin_runs_on`].

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;

use pep440_rs::Version;

use crate::calendar::Date;
use crate::packaging::normalize_name;
use toml_edit::{Document, Item, Table};

const DRIVERS_FILE: &str = "cuda-drivers.toml";
const TORCH_FILE: &str = "torch-builds.toml";
const GPUS_FILE: &str = "gpus.toml";
const RELEASES_FILE: &str = "releases.toml";

/// Where the compiled-in tables come from, as `matrix lint` names them.
const BUILTIN_DIR: &str = "compat-matrix/tables";

/// How many table files are compiled in, for `matrix lint`'s count.
pub const BUILTIN_FILE_COUNT: usize = BUILTIN.len();

const BUILTIN: [(&str, &str); 4] = [
    (DRIVERS_FILE, include_str!("../compat-matrix/tables/cuda-drivers.toml")),
    (TORCH_FILE, include_str!("../compat-matrix/tables/torch-builds.toml")),
    (GPUS_FILE, include_str!("../compat-matrix/tables/gpus.toml")),
    (RELEASES_FILE, include_str!("../compat-matrix/tables/releases.toml")),
];

/// Platforms a torch build row may name: the wheel's CPU architecture, as
/// `std::env::consts::ARCH` (and so a Snapshot's `system.architecture`) spells it.
const PLATFORMS: [&str; 2] = ["aarch64", "x86_64"];

// ---------------------------------------------------------------------------
// Typed tables

#[derive(Debug, Default)]
pub struct Tables {
    pub drivers: CudaDrivers,
    pub torch: TorchTables,
    pub gpus: GpuTables,
    pub releases: Releases,
}

/// The newest release of each package the rules name, and when PyPI was read.
#[derive(Debug, Default)]
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

/// The compiled-in tables, parsed on first use.
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let (tables, problems) = parse_sources(&builtin_sources());
        // The files are constants of this binary and the unit test
        // `compiled_tables_parse_and_are_consistent` lints them, so this holds
        // for every build that passed its tests; it is not reachable by input.
        assert!(
            problems.is_empty(),
            "compiled-in tables are invalid: {}",
            problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
        );
        tables
    })
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

/// A driver version as NVIDIA writes it (`580.65.06`), with its numeric value
/// for comparison (where `06` is 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverVersion {
    pub text: String,
    pub version: Version,
}

impl fmt::Display for DriverVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[derive(Debug, Default)]
pub struct CudaDrivers {
    pub minor_version_compatibility: Vec<MvcFloor>,
    pub toolkit_releases: Vec<ToolkitRelease>,
    pub driver_branches: Vec<DriverBranch>,
}

/// The oldest Linux driver that runs software built with a CUDA major.
#[derive(Debug, Clone)]
pub struct MvcFloor {
    pub cuda_major: u64,
    pub linux_min_driver: DriverVersion,
    pub source: String,
}

/// The driver a CUDA toolkit release shipped with.
#[derive(Debug, Clone)]
pub struct ToolkitRelease {
    pub cuda: MajorMinor,
    pub linux_driver: DriverVersion,
    pub source: String,
}

#[derive(Debug, Clone)]
pub struct DriverBranch {
    /// `R580`.
    pub branch: String,
    /// `long-term support branch`, `production branch`.
    pub support: String,
    /// The newest CUDA major the branch runs.
    pub cuda_major: u64,
    /// The oldest GPUs the branch drives: R580 is the last for Maxwell,
    /// Pascal and Volta, so later branches start at Turing (7.5).
    pub min_compute_capability: MajorMinor,
    /// `YYYY-MM`, when NVIDIA ends support.
    pub end_of_life: String,
    pub source: String,
}

impl CudaDrivers {
    pub fn floor(&self, cuda_major: u64) -> Option<&MvcFloor> {
        self.minor_version_compatibility
            .iter()
            .find(|row| row.cuda_major == cuda_major)
    }

    pub fn release(&self, cuda: MajorMinor) -> Option<&ToolkitRelease> {
        self.toolkit_releases.iter().find(|row| row.cuda == cuda)
    }

    /// The newest toolkit release whose driver is not newer than `driver`: the
    /// CUDA version a driver reports, for a Snapshot that did not record it.
    pub fn newest_release_for(&self, driver: &Version) -> Option<&ToolkitRelease> {
        self.toolkit_releases
            .iter()
            .filter(|row| row.linux_driver.version <= *driver)
            .max_by_key(|row| row.cuda)
    }

    /// The branch to name in a fix for a CUDA major: of those that run it and
    /// drive the oldest GPU here (`None`: unknown, so the oldest any branch
    /// drives), the one NVIDIA supports longest.
    pub fn branch_for(&self, cuda_major: u64, oldest_gpu: Option<MajorMinor>) -> Option<&DriverBranch> {
        let drives_oldest = self.driver_branches.iter().map(|row| row.min_compute_capability).min();
        let oldest = oldest_gpu.or(drives_oldest)?;
        self.driver_branches
            .iter()
            .filter(|row| row.cuda_major >= cuda_major && row.min_compute_capability <= oldest)
            .max_by(|a, b| a.end_of_life.cmp(&b.end_of_life))
    }
}

#[derive(Debug, Default)]
pub struct TorchTables {
    pub releases: Vec<TorchRelease>,
    pub builds: Vec<TorchBuildRow>,
}

#[derive(Debug, Clone)]
pub struct TorchRelease {
    pub torch: MajorMinor,
    pub python_min: MajorMinor,
    pub python_max: MajorMinor,
    pub python_experimental: Vec<MajorMinor>,
    pub source: String,
    /// The newest patch release and the torchvision and torchaudio made for it
    /// (theirs `Requires-Dist: torch==` it); `None` where the table does not say.
    pub latest: Option<TorchSet>,
}

/// torch and the companions that pin it exactly: installed together, they
/// leave pip nothing to break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TorchSet {
    pub torch: String,
    pub torchvision: Option<String>,
    pub torchaudio: Option<String>,
}

impl TorchSet {
    /// The version of `companion` (`torchvision`, `torchaudio`) in this set.
    pub fn companion(&self, companion: &str) -> Option<&str> {
        match companion {
            "torchvision" => self.torchvision.as_deref(),
            "torchaudio" => self.torchaudio.as_deref(),
            _ => None,
        }
    }
}

/// Whether a build row states what the pip wheels carry, or was measured in
/// another package of the same release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowEvidence {
    Confirmed,
    Unconfirmed,
}

#[derive(Debug, Clone)]
pub struct TorchBuildRow {
    pub torch: MajorMinor,
    /// `cu128`.
    pub variant: String,
    /// The CUDA the variant names (`cu128` -> 12.8).
    pub cuda: MajorMinor,
    /// `x86_64` or `aarch64`.
    pub platform: String,
    pub arch: Vec<ArchEntry>,
    pub confidence: RowEvidence,
    pub note: Option<String>,
    pub source: String,
    span: Option<Range<usize>>,
}

/// One entry of a TORCH_CUDA_ARCH_LIST: `8.6`, `9.0a`, `12.0+PTX`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchEntry {
    pub text: String,
    pub capability: Capability,
    /// `9.0a`: a cubin that runs on exactly this capability.
    pub arch_specific: bool,
    /// `+PTX`: PTX beside the cubin, which the driver compiles for newer GPUs.
    pub ptx: bool,
}

impl ArchEntry {
    pub fn parse(text: &str) -> Option<ArchEntry> {
        let (body, ptx) = match text.strip_suffix("+PTX") {
            Some(body) => (body, true),
            None => (text, false),
        };
        let (body, arch_specific) = match body.strip_suffix('a') {
            Some(body) => (body, true),
            None => (body, false),
        };
        Some(ArchEntry {
            text: text.to_string(),
            capability: MajorMinor::parse(body)?,
            arch_specific,
            ptx,
        })
    }

    /// Whether this code runs on a GPU of `device` capability.
    pub fn runs_on(&self, device: Capability) -> bool {
        let cubin = if self.arch_specific {
            device == self.capability
        } else {
            cubin_runs_on(self.capability, device)
        };
        // PTX is compiled by the driver for the GPU it meets, so it runs on
        // any GPU at least as new as its target (CUDA C Programming Guide,
        // "Application Compatibility"; Blackwell compatibility guide §1.2).
        cubin || (self.ptx && device >= self.capability)
    }
}

/// Whether a cubin compiled for `code` runs on a GPU of `device` capability.
///
/// NVIDIA's rule: a cubin runs on GPUs of the same major and an equal or higher
/// minor. PyTorch encodes it with its exceptions in `DEVICE_REQUIREMENT`
/// (pytorch/pytorch `torch/cuda/__init__.py`): the integrated (Jetson) GPUs
/// 5.3, 6.2, 7.2 and 8.7 run only code built for them and their code runs
/// nowhere else, and 10.1 (Jetson Thor, renamed 11.0 in CUDA 13) runs only
/// 10.1 code, which also runs on 11.0.
pub fn cubin_runs_on(code: Capability, device: Capability) -> bool {
    const INTEGRATED: [Capability; 4] = [
        MajorMinor::new(5, 3),
        MajorMinor::new(6, 2),
        MajorMinor::new(7, 2),
        MajorMinor::new(8, 7),
    ];
    const THOR_OLD: Capability = MajorMinor::new(10, 1);
    const THOR_NEW: Capability = MajorMinor::new(11, 0);
    if code == THOR_OLD {
        return device == THOR_OLD || device == THOR_NEW;
    }
    if INTEGRATED.contains(&code) {
        return device == code;
    }
    if INTEGRATED.contains(&device) || device == THOR_OLD {
        return false;
    }
    code.major == device.major && device.minor >= code.minor
}

impl TorchBuildRow {
    /// The entry whose code runs on `device`, if any.
    pub fn runnable_entry(&self, device: Capability) -> Option<&ArchEntry> {
        self.arch.iter().find(|entry| entry.runs_on(device))
    }

    /// The list as TORCH_CUDA_ARCH_LIST writes it: `7.5;8.0;12.0+PTX`.
    pub fn arch_list(&self) -> String {
        self.arch
            .iter()
            .map(|entry| entry.text.as_str())
            .collect::<Vec<_>>()
            .join(";")
    }
}

impl TorchTables {
    pub fn release(&self, torch: MajorMinor) -> Option<&TorchRelease> {
        self.releases.iter().find(|row| row.torch == torch)
    }

    pub fn build(&self, torch: MajorMinor, variant: &str, platform: &str) -> Option<&TorchBuildRow> {
        self.builds
            .iter()
            .find(|row| row.torch == torch && row.variant == variant && row.platform == platform)
    }

    /// The CUDA builds of one release on one platform, oldest CUDA first.
    pub fn builds_of<'t>(&'t self, torch: MajorMinor, platform: &'t str) -> impl Iterator<Item = &'t TorchBuildRow> {
        self.builds
            .iter()
            .filter(move |row| row.torch == torch && row.platform == platform)
    }
}

/// `cu128` -> 12.8: PyTorch's compact spelling, whose last digit is the minor.
pub fn variant_cuda(variant: &str) -> Option<MajorMinor> {
    let digits = variant.strip_prefix("cu")?;
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some(MajorMinor::new(major.parse().ok()?, minor.parse().ok()?))
}

#[derive(Debug, Default)]
pub struct GpuTables {
    pub models: Vec<GpuModel>,
    pub architectures: Vec<Architecture>,
}

#[derive(Debug, Clone)]
pub struct GpuModel {
    pub name: String,
    pub compute_capability: Capability,
    pub source: String,
    words: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Architecture {
    pub name: String,
    pub compute_capabilities: Vec<Capability>,
    pub source: String,
}

/// A GPU name as words: lower case, split at spaces and dashes.
fn words(name: &str) -> Vec<String> {
    name.split([' ', '-'])
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

impl GpuTables {
    /// The model row whose name occurs in `nvml_name` as a whole run of words;
    /// the longest such name when several do.
    pub fn model(&self, nvml_name: &str) -> Option<&GpuModel> {
        let name = words(nvml_name);
        self.models
            .iter()
            .filter(|model| {
                name.windows(model.words.len())
                    .any(|window| window == model.words.as_slice())
            })
            .max_by_key(|model| model.words.len())
    }

    pub fn architecture(&self, capability: Capability) -> Option<&Architecture> {
        self.architectures
            .iter()
            .find(|row| row.compute_capabilities.contains(&capability))
    }
}

// ---------------------------------------------------------------------------
// Linting and parsing

/// One problem in one table file. `matrix lint` prints it as `path:line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableProblem {
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

impl fmt::Display for TableProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

/// Every problem in `DIR/tables/*.toml`: syntax, missing or mistyped fields,
/// unknown keys, rows out of order or repeated, rows without a source, and
/// rows that disagree across files. A matrix directory without `tables/` has none.
pub fn lint(dir: &Path) -> Vec<TableProblem> {
    let tables_dir = dir.join("tables");
    let entries = match std::fs::read_dir(&tables_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(error) => return vec![at_start(&tables_dir, format!("cannot read the directory: {error}"))],
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
            Err(error) => problems.push(at_start(&path, format!("cannot read: {error}"))),
        }
    }
    problems.extend(parse_sources(&sources).1);
    problems
}

/// Every problem in the compiled-in tables (none, in a build that passed its tests).
pub fn lint_builtin() -> Vec<TableProblem> {
    parse_sources(&builtin_sources()).1
}

fn builtin_sources() -> Vec<(PathBuf, String)> {
    BUILTIN
        .iter()
        .map(|(name, text)| (Path::new(BUILTIN_DIR).join(name), (*text).to_string()))
        .collect()
}

fn at_start(path: &Path, message: String) -> TableProblem {
    TableProblem {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        message,
    }
}

/// Parses every known file among `sources`, then checks them against each
/// other. Problems come in file order, then position order.
fn parse_sources(sources: &[(PathBuf, String)]) -> (Tables, Vec<TableProblem>) {
    let mut tables = Tables::default();
    let mut problems = Vec::new();
    let mut torch_source: Option<(&Path, &str)> = None;
    let mut have_drivers = false;
    for (path, text) in sources {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        let mut found = FileProblems::default();
        match name {
            DRIVERS_FILE => {
                have_drivers = true;
                if let Some(root) = parse_document(text, &mut found) {
                    tables.drivers = read_drivers(root.as_table(), &mut found);
                }
            }
            TORCH_FILE => {
                torch_source = Some((path, text));
                if let Some(root) = parse_document(text, &mut found) {
                    tables.torch = read_torch(root.as_table(), &mut found);
                }
            }
            GPUS_FILE => {
                if let Some(root) = parse_document(text, &mut found) {
                    tables.gpus = read_gpus(root.as_table(), &mut found);
                }
            }
            RELEASES_FILE => {
                if let Some(root) = parse_document(text, &mut found) {
                    tables.releases = read_releases(root.as_table(), &mut found);
                }
            }
            _ => found.at(
                None,
                format!(
                    "not a table envdoctor knows; the tables are {DRIVERS_FILE}, {TORCH_FILE}, {GPUS_FILE} and \
                     {RELEASES_FILE}"
                ),
            ),
        }
        problems.extend(found.located(path, text));
    }
    // A torch build is only useful if its CUDA major has a driver floor.
    if let (Some((path, text)), true) = (torch_source, have_drivers) {
        let mut found = FileProblems::default();
        for row in &tables.torch.builds {
            if tables.drivers.floor(row.cuda.major).is_none() {
                found.at(
                    row.span.clone(),
                    format!(
                        "build {} {} is CUDA {}, which has no [[minor_version_compatibility]] row in {DRIVERS_FILE}",
                        row.torch, row.variant, row.cuda
                    ),
                );
            }
        }
        problems.extend(found.located(path, text));
    }
    (tables, problems)
}

fn parse_document<'t>(text: &'t str, found: &mut FileProblems) -> Option<Document<&'t str>> {
    match Document::parse(text) {
        Ok(document) => Some(document),
        Err(error) => {
            found.at(error.span(), format!("not valid TOML: {}", error.message()));
            None
        }
    }
}

/// Problems of one file, by byte span, before they are given lines.
#[derive(Default)]
struct FileProblems {
    problems: Vec<(Option<Range<usize>>, String)>,
}

impl FileProblems {
    fn at(&mut self, span: Option<Range<usize>>, message: String) {
        self.problems.push((span, message));
    }

    fn located(self, path: &Path, text: &str) -> Vec<TableProblem> {
        let mut located: Vec<TableProblem> = self
            .problems
            .into_iter()
            .map(|(span, message)| {
                let offset = span.map_or(0, |span| span.start).min(text.len());
                let before = &text[..floor_char_boundary(text, offset)];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
                TableProblem {
                    path: path.to_path_buf(),
                    line,
                    column,
                    message,
                }
            })
            .collect();
        located.sort_by_key(|problem| (problem.line, problem.column));
        located
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Reads the fields of one `[[row]]`, noting what is missing, mistyped or unknown.
struct Row<'d, 'f> {
    table: &'d Table,
    kind: &'static str,
    found: &'f mut FileProblems,
}

impl<'d, 'f> Row<'d, 'f> {
    fn new(table: &'d Table, kind: &'static str, allowed: &[&str], found: &'f mut FileProblems) -> Row<'d, 'f> {
        for (key, item) in table.iter() {
            if !allowed.contains(&key) {
                found.at(
                    item_span(table, key, item),
                    format!("[[{kind}]] has no field `{key}`; its fields are {}", allowed.join(", ")),
                );
            }
        }
        Row { table, kind, found }
    }

    fn span(&self) -> Option<Range<usize>> {
        self.table.span()
    }

    fn value_span(&self, key: &str) -> Option<Range<usize>> {
        let item = self.table.get(key)?;
        item_span(self.table, key, item).or_else(|| self.span())
    }

    fn missing(&mut self, key: &str, what: &str) {
        let message = format!("[[{}]] lacks `{key}` ({what})", self.kind);
        self.found.at(self.span(), message);
    }

    fn wrong(&mut self, key: &str, message: String) {
        let span = self.value_span(key);
        self.found.at(span, format!("`{key}`: {message}"));
    }

    fn string(&mut self, key: &str, what: &str) -> Option<&'d str> {
        match self.table.get(key) {
            None => {
                self.missing(key, what);
                None
            }
            Some(item) => match item.as_str() {
                Some(text) => Some(text),
                None => {
                    self.wrong(key, format!("expected a string ({what})"));
                    None
                }
            },
        }
    }

    fn optional_string(&mut self, key: &str, what: &str) -> Option<&'d str> {
        self.table.get(key)?;
        self.string(key, what)
    }

    fn integer(&mut self, key: &str, what: &str) -> Option<u64> {
        match self.table.get(key) {
            None => {
                self.missing(key, what);
                None
            }
            Some(item) => match item.as_integer().and_then(|number| u64::try_from(number).ok()) {
                Some(number) => Some(number),
                None => {
                    self.wrong(key, format!("expected a non-negative integer ({what})"));
                    None
                }
            },
        }
    }

    fn strings(&mut self, key: &str, what: &str, required: bool) -> Option<Vec<&'d str>> {
        let Some(item) = self.table.get(key) else {
            if required {
                self.missing(key, what);
            }
            return None;
        };
        let strings = item
            .as_array()
            .and_then(|array| array.iter().map(|value| value.as_str()).collect::<Option<Vec<_>>>());
        if strings.is_none() {
            self.wrong(key, format!("expected an array of strings ({what})"));
        }
        strings
    }

    fn major_minor(&mut self, key: &str, what: &str) -> Option<MajorMinor> {
        let text = self.string(key, what)?;
        let parsed = MajorMinor::parse(text);
        if parsed.is_none() {
            self.wrong(key, format!("`{text}` is not MAJOR.MINOR ({what})"));
        }
        parsed
    }

    fn driver(&mut self, key: &str) -> Option<DriverVersion> {
        let text = self.string(key, "a driver version such as \"580.65.06\"")?;
        let dotted = !text.is_empty()
            && text
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
        match dotted.then(|| Version::from_str(text).ok()).flatten() {
            Some(version) => Some(DriverVersion {
                text: text.to_string(),
                version,
            }),
            None => {
                self.wrong(
                    key,
                    format!("`{text}` is not a dotted driver version such as \"580.65.06\""),
                );
                None
            }
        }
    }

    fn source(&mut self) -> Option<String> {
        let text = self.string("source", "the URL the row's facts come from")?;
        if text.starts_with("https://") || text.starts_with("http://") {
            Some(text.to_string())
        } else {
            self.wrong("source", format!("`{text}` is not an http(s) URL"));
            None
        }
    }
}

/// The span of a value, else of its key.
fn item_span(table: &Table, key: &str, item: &Item) -> Option<Range<usize>> {
    item.span().or_else(|| table.key(key).and_then(|key| key.span()))
}

/// The `[[kind]]` rows of a document. A document may only hold the kinds its file defines.
fn array_rows<'d>(root: &'d Table, kind: &str, found: &mut FileProblems) -> Vec<&'d Table> {
    match root.get(kind) {
        None => {
            found.at(None, format!("has no [[{kind}]] rows"));
            Vec::new()
        }
        Some(item) => match item.as_array_of_tables() {
            Some(rows) => rows.iter().collect(),
            None => {
                found.at(
                    item_span(root, kind, item),
                    format!("`{kind}` must be written as [[{kind}]] rows"),
                );
                Vec::new()
            }
        },
    }
}

fn top_level_keys(root: &Table, allowed: &[&str], found: &mut FileProblems) {
    for (key, item) in root.iter() {
        if !allowed.contains(&key) {
            found.at(
                item_span(root, key, item),
                format!(
                    "unknown key `{key}`; this file holds {}",
                    allowed
                        .iter()
                        .map(|kind| format!("[[{kind}]]"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
}

/// Notes every row whose key repeats or is out of order.
fn check_order<K: Ord + fmt::Debug>(
    rows: &[(K, Option<Range<usize>>)],
    kind: &str,
    what: &str,
    found: &mut FileProblems,
) {
    for pair in rows.windows(2) {
        let ((previous, _), (key, span)) = (&pair[0], &pair[1]);
        if key == previous {
            found.at(span.clone(), format!("[[{kind}]] repeats {what} {key:?}"));
        } else if key < previous {
            found.at(
                span.clone(),
                format!("[[{kind}]] rows are sorted by {what}: {key:?} comes before {previous:?}"),
            );
        }
    }
}

fn read_drivers(root: &Table, found: &mut FileProblems) -> CudaDrivers {
    top_level_keys(
        root,
        &["minor_version_compatibility", "toolkit_release", "driver_branch"],
        found,
    );
    let mut drivers = CudaDrivers::default();

    let mut order = Vec::new();
    for table in array_rows(root, "minor_version_compatibility", found) {
        let mut row = Row::new(
            table,
            "minor_version_compatibility",
            &["cuda_major", "linux_min_driver", "source"],
            found,
        );
        let cuda_major = row.integer("cuda_major", "the CUDA major, such as 12");
        let driver = row.driver("linux_min_driver");
        let source = row.source();
        if let Some(cuda_major) = cuda_major {
            order.push((cuda_major, row.span()));
        }
        if let (Some(cuda_major), Some(linux_min_driver), Some(source)) = (cuda_major, driver, source) {
            drivers.minor_version_compatibility.push(MvcFloor {
                cuda_major,
                linux_min_driver,
                source,
            });
        }
    }
    check_order(&order, "minor_version_compatibility", "cuda_major", found);

    let mut order = Vec::new();
    for table in array_rows(root, "toolkit_release", found) {
        let mut row = Row::new(table, "toolkit_release", &["cuda", "linux_driver", "source"], found);
        let cuda = row.major_minor("cuda", "the CUDA release, such as \"12.8\"");
        let driver = row.driver("linux_driver");
        let source = row.source();
        if let Some(cuda) = cuda {
            order.push((cuda, row.span()));
        }
        if let (Some(cuda), Some(linux_driver), Some(source)) = (cuda, driver, source) {
            drivers.toolkit_releases.push(ToolkitRelease {
                cuda,
                linux_driver,
                source,
            });
        }
    }
    check_order(&order, "toolkit_release", "cuda", found);
    // A newer toolkit never shipped with an older driver; a row that says so is a typo.
    for pair in drivers.toolkit_releases.windows(2) {
        if pair[1].linux_driver.version < pair[0].linux_driver.version {
            let span = order
                .iter()
                .find(|(cuda, _)| *cuda == pair[1].cuda)
                .and_then(|(_, span)| span.clone());
            found.at(
                span,
                format!(
                    "CUDA {} has driver {}, older than CUDA {}'s {}",
                    pair[1].cuda, pair[1].linux_driver, pair[0].cuda, pair[0].linux_driver
                ),
            );
        }
    }

    let mut order = Vec::new();
    for table in array_rows(root, "driver_branch", found) {
        let mut row = Row::new(
            table,
            "driver_branch",
            &[
                "branch",
                "support",
                "cuda_major",
                "min_compute_capability",
                "end_of_life",
                "source",
            ],
            found,
        );
        let branch = row.string("branch", "the branch name, such as \"R580\"");
        let min_compute_capability = row.major_minor(
            "min_compute_capability",
            "the oldest GPUs the branch drives, such as \"7.5\"",
        );
        let support = row.string("support", "the kind of branch, such as \"long-term support branch\"");
        let cuda_major = row.integer("cuda_major", "the newest CUDA major the branch runs");
        let end_of_life = row.string("end_of_life", "\"YYYY-MM\"");
        if let Some(end) = end_of_life {
            let valid = end.len() == 7
                && end.as_bytes()[4] == b'-'
                && end.bytes().enumerate().all(|(i, b)| i == 4 || b.is_ascii_digit());
            if !valid {
                row.wrong("end_of_life", format!("`{end}` is not YYYY-MM"));
            }
        }
        let source = row.source();
        if let Some(branch) = branch {
            order.push((branch.to_string(), row.span()));
        }
        if let (
            Some(branch),
            Some(support),
            Some(cuda_major),
            Some(min_compute_capability),
            Some(end_of_life),
            Some(source),
        ) = (branch, support, cuda_major, min_compute_capability, end_of_life, source)
        {
            drivers.driver_branches.push(DriverBranch {
                branch: branch.to_string(),
                support: support.to_string(),
                cuda_major,
                min_compute_capability,
                end_of_life: end_of_life.to_string(),
                source,
            });
        }
    }
    check_order(&order, "driver_branch", "branch", found);
    drivers
}

/// `latest`, `torchvision`, `torchaudio` of a release row: all PEP 440
/// versions, `latest` of the row's own release, and no companion without it.
fn torch_set(row: &mut Row, release: MajorMinor) -> Option<TorchSet> {
    let what = "a version such as \"2.5.1\"";
    let version = |row: &mut Row, key: &str| {
        let text = row.optional_string(key, what)?;
        if Version::from_str(text).is_err() {
            row.wrong(key, format!("`{text}` is not a version ({what})"));
            return None;
        }
        Some(text.to_string())
    };
    let latest = version(row, "latest");
    let torchvision = version(row, "torchvision");
    let torchaudio = version(row, "torchaudio");
    let Some(latest) = latest else {
        if torchvision.is_some() || torchaudio.is_some() {
            row.missing("latest", "the torch patch release the companions were made for");
        }
        return None;
    };
    if Version::from_str(&latest)
        .ok()
        .and_then(|version| MajorMinor::of(&version))
        != Some(release)
    {
        row.wrong("latest", format!("`{latest}` is not a release of torch {release}"));
        return None;
    }
    Some(TorchSet {
        torch: latest,
        torchvision,
        torchaudio,
    })
}

fn read_torch(root: &Table, found: &mut FileProblems) -> TorchTables {
    top_level_keys(root, &["release", "build"], found);
    let mut torch = TorchTables::default();

    let mut order = Vec::new();
    for table in array_rows(root, "release", found) {
        let mut row = Row::new(
            table,
            "release",
            &[
                "torch",
                "python_min",
                "python_max",
                "python_experimental",
                "source",
                "latest",
                "torchvision",
                "torchaudio",
            ],
            found,
        );
        let release = row.major_minor("torch", "the torch release, such as \"2.8\"");
        let python_min = row.major_minor("python_min", "the oldest Python, such as \"3.9\"");
        let python_max = row.major_minor("python_max", "the newest Python, such as \"3.13\"");
        let mut experimental = Vec::new();
        for text in row
            .strings("python_experimental", "Python versions such as \"3.13\"", false)
            .unwrap_or_default()
        {
            match MajorMinor::parse(text) {
                Some(version) => experimental.push(version),
                None => row.wrong("python_experimental", format!("`{text}` is not MAJOR.MINOR")),
            }
        }
        if let (Some(min), Some(max)) = (python_min, python_max)
            && min > max
        {
            row.wrong("python_min", format!("{min} is newer than python_max {max}"));
        }
        let source = row.source();
        let latest = release.and_then(|release| torch_set(&mut row, release));
        if let Some(release) = release {
            order.push((release, row.span()));
        }
        if let (Some(release), Some(python_min), Some(python_max), Some(source)) =
            (release, python_min, python_max, source)
        {
            torch.releases.push(TorchRelease {
                torch: release,
                python_min,
                python_max,
                python_experimental: experimental,
                source,
                latest,
            });
        }
    }
    check_order(&order, "release", "torch", found);

    let mut order = Vec::new();
    for table in array_rows(root, "build", found) {
        let mut row = Row::new(
            table,
            "build",
            &["torch", "variant", "platform", "arch", "confidence", "note", "source"],
            found,
        );
        let release = row.major_minor("torch", "the torch release, such as \"2.8\"");
        let variant = row.string("variant", "the CUDA variant, such as \"cu128\"");
        let cuda = variant.and_then(|variant| {
            let cuda = variant_cuda(variant);
            if cuda.is_none() {
                row.wrong(
                    "variant",
                    format!("`{variant}` is not a CUDA variant such as \"cu128\""),
                );
            }
            cuda
        });
        let platform = row.string("platform", "\"x86_64\" or \"aarch64\"");
        if let Some(platform) = platform
            && !PLATFORMS.contains(&platform)
        {
            row.wrong(
                "platform",
                format!("`{platform}` is not one of {}", PLATFORMS.join(", ")),
            );
        }
        let mut arch = Vec::new();
        let entries = row.strings(
            "arch",
            "TORCH_CUDA_ARCH_LIST entries such as \"8.6\", \"9.0a\", \"12.0+PTX\"",
            true,
        );
        for text in entries.clone().unwrap_or_default() {
            match ArchEntry::parse(text) {
                Some(entry) => arch.push(entry),
                None => row.wrong(
                    "arch",
                    format!("`{text}` is not an entry such as \"8.6\", \"9.0a\" or \"12.0+PTX\""),
                ),
            }
        }
        if entries.is_some_and(|entries| entries.is_empty()) {
            row.wrong("arch", "is empty".to_string());
        }
        for pair in arch.windows(2) {
            let key = |entry: &ArchEntry| (entry.capability, entry.arch_specific);
            if key(&pair[1]) <= key(&pair[0]) {
                row.wrong(
                    "arch",
                    format!(
                        "entries are sorted and unique: `{}` comes after `{}`",
                        pair[1].text, pair[0].text
                    ),
                );
            }
        }
        let confidence = match row.string("confidence", "\"confirmed\" or \"unconfirmed\"") {
            Some("confirmed") => Some(RowEvidence::Confirmed),
            Some("unconfirmed") => Some(RowEvidence::Unconfirmed),
            Some(other) => {
                row.wrong(
                    "confidence",
                    format!("`{other}` is neither \"confirmed\" nor \"unconfirmed\""),
                );
                None
            }
            None => None,
        };
        let note = row.optional_string("note", "what the reader should know about the row");
        if confidence == Some(RowEvidence::Unconfirmed) && note.is_none() {
            row.missing("note", "an unconfirmed row says where its list was measured");
        }
        let source = row.source();
        let span = row.span();
        if let (Some(release), Some(variant), Some(platform)) = (release, variant, platform) {
            order.push(((release, variant.to_string(), platform.to_string()), span.clone()));
        }
        if let (Some(release), Some(variant), Some(cuda), Some(platform), Some(confidence), Some(source)) =
            (release, variant, cuda, platform, confidence, source)
            && !arch.is_empty()
        {
            torch.builds.push(TorchBuildRow {
                torch: release,
                variant: variant.to_string(),
                cuda,
                platform: platform.to_string(),
                arch,
                confidence,
                note: note.map(str::to_string),
                source,
                span,
            });
        }
    }
    check_order(&order, "build", "(torch, variant, platform)", found);
    for row in &torch.builds {
        if torch.release(row.torch).is_none() {
            found.at(
                row.span.clone(),
                format!(
                    "build {} {} has no [[release]] row for torch {}",
                    row.torch, row.variant, row.torch
                ),
            );
        }
    }
    torch
}

fn read_releases(root: &Table, found: &mut FileProblems) -> Releases {
    top_level_keys(root, &["checked", "package"], found);
    let mut releases = Releases::default();
    match root.get("checked") {
        Some(item) => match item.as_str().and_then(Date::parse) {
            Some(date) => releases.checked = Some(date),
            None => found.at(
                item_span(root, "checked", item),
                "`checked` is not a date such as \"2026-11-26\"".to_string(),
            ),
        },
        None => found.at(None, "lacks `checked`, the day PyPI was read".to_string()),
    }
    let mut order = Vec::new();
    for table in array_rows(root, "package", found) {
        let mut row = Row::new(
            table,
            "package",
            &["name", "newest", "released", "note", "source"],
            found,
        );
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
        let source = row.source();
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
    check_order(&order, "package", "name", found);
    releases
}

fn read_gpus(root: &Table, found: &mut FileProblems) -> GpuTables {
    top_level_keys(root, &["gpu", "architecture"], found);
    let mut gpus = GpuTables::default();

    let mut order = Vec::new();
    let mut names = BTreeSet::new();
    for table in array_rows(root, "gpu", found) {
        let mut row = Row::new(table, "gpu", &["name", "compute_capability", "source"], found);
        let name = row.string("name", "the model as NVIDIA names it, such as \"H100\"");
        let capability = row.major_minor("compute_capability", "such as \"9.0\"");
        let source = row.source();
        if let Some(name) = name {
            let key = words(name);
            if key.is_empty() {
                row.wrong("name", "is empty".to_string());
            } else if !names.insert(key) {
                row.wrong("name", format!("`{name}` is listed twice"));
            }
        }
        if let (Some(name), Some(capability)) = (name, capability) {
            order.push(((capability, name.to_ascii_lowercase()), row.span()));
        }
        if let (Some(name), Some(compute_capability), Some(source)) = (name, capability, source)
            && !name.trim().is_empty()
        {
            gpus.models.push(GpuModel {
                name: name.to_string(),
                compute_capability,
                source,
                words: words(name),
            });
        }
    }
    check_order(&order, "gpu", "(compute_capability, name)", found);

    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for table in array_rows(root, "architecture", found) {
        let mut row = Row::new(
            table,
            "architecture",
            &["name", "compute_capabilities", "source"],
            found,
        );
        let name = row.string("name", "such as \"Hopper\"");
        let mut capabilities = Vec::new();
        for text in row
            .strings("compute_capabilities", "such as [\"9.0\"]", true)
            .unwrap_or_default()
        {
            match MajorMinor::parse(text) {
                Some(capability) if !seen.insert(capability) => row.wrong(
                    "compute_capabilities",
                    format!("{capability} belongs to another architecture too"),
                ),
                Some(capability) => capabilities.push(capability),
                None => row.wrong("compute_capabilities", format!("`{text}` is not MAJOR.MINOR")),
            }
        }
        if capabilities.windows(2).any(|pair| pair[1] <= pair[0]) {
            row.wrong("compute_capabilities", "are sorted and unique".to_string());
        }
        let source = row.source();
        if let Some(first) = capabilities.first() {
            order.push((*first, row.span()));
        }
        if let (Some(name), Some(source)) = (name, source)
            && !capabilities.is_empty()
        {
            gpus.architectures.push(Architecture {
                name: name.to_string(),
                compute_capabilities: capabilities,
                source,
            });
        }
    }
    check_order(&order, "architecture", "first compute capability", found);
    gpus
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lint_texts(files: &[(&str, &str)]) -> Vec<TableProblem> {
        let sources: Vec<(PathBuf, String)> = files
            .iter()
            .map(|(name, text)| (PathBuf::from(name), (*text).to_string()))
            .collect();
        parse_sources(&sources).1
    }

    #[test]
    fn compiled_tables_parse_and_are_consistent() {
        let problems = lint_builtin();
        assert!(problems.is_empty(), "{problems:#?}");
        let tables = tables();
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
        assert_eq!(lint(&dir), Vec::new());
    }

    #[test]
    fn floors_are_nvidias_table_2() {
        let drivers = &tables().drivers;
        let floor = |major| drivers.floor(major).map(|row| row.linux_min_driver.text.as_str());
        assert_eq!(floor(11), Some("450.80.02"));
        assert_eq!(floor(12), Some("525.60.13"));
        assert_eq!(floor(13), Some("580.65.06"));
        assert_eq!(floor(10), None);
    }

    #[test]
    fn a_driver_reports_the_newest_release_it_shipped_with() {
        let drivers = &tables().drivers;
        let version = |text| Version::from_str(text).unwrap();
        let cuda = |driver| {
            drivers
                .newest_release_for(&version(driver))
                .map(|row| row.cuda.to_string())
        };
        assert_eq!(cuda("535.183.01").as_deref(), Some("12.2"));
        assert_eq!(cuda("570.26").as_deref(), Some("12.8"));
        assert_eq!(cuda("580.65.06").as_deref(), Some("13.0"));
        assert_eq!(cuda("400.1"), None);
        let branch = |cuda, gpu: Option<&str>| {
            drivers
                .branch_for(cuda, gpu.and_then(MajorMinor::parse))
                .map(|row| row.branch.as_str())
        };
        // R620 is supported longest, but R580 is the last branch for Volta and older.
        assert_eq!(branch(12, Some("9.0")), Some("R620"));
        assert_eq!(branch(13, Some("7.5")), Some("R620"));
        assert_eq!(branch(12, Some("7.0")), Some("R580"));
        assert_eq!(branch(13, None), Some("R580"));
        assert_eq!(branch(14, Some("9.0")), None);
    }

    #[test]
    fn cubins_follow_pytorchs_device_requirement() {
        let cc = MajorMinor::new;
        assert!(cubin_runs_on(cc(8, 0), cc(8, 6)));
        assert!(cubin_runs_on(cc(8, 0), cc(8, 9)));
        assert!(
            !cubin_runs_on(cc(8, 6), cc(8, 0)),
            "a cubin never runs on an older minor"
        );
        assert!(!cubin_runs_on(cc(9, 0), cc(10, 0)), "nor on another major");
        assert!(!cubin_runs_on(cc(8, 0), cc(8, 7)), "Jetson Orin runs only sm_87 code");
        assert!(cubin_runs_on(cc(8, 7), cc(8, 7)));
        assert!(!cubin_runs_on(cc(8, 7), cc(8, 9)));
        assert!(!cubin_runs_on(cc(7, 0), cc(7, 2)));
        assert!(!cubin_runs_on(cc(10, 0), cc(10, 1)));
        assert!(cubin_runs_on(cc(10, 0), cc(10, 3)));
        assert!(cubin_runs_on(cc(10, 1), cc(11, 0)), "10.1 was renamed 11.0");
        assert!(cubin_runs_on(cc(12, 0), cc(12, 1)));
    }

    #[test]
    fn ptx_runs_on_newer_gpus_and_arch_specific_code_on_one() {
        let ptx = ArchEntry::parse("12.0+PTX").unwrap();
        assert!(ptx.runs_on(MajorMinor::new(12, 0)));
        assert!(
            ptx.runs_on(MajorMinor::new(13, 0)),
            "PTX is JIT-compiled for newer majors"
        );
        assert!(!ptx.runs_on(MajorMinor::new(10, 0)));
        let specific = ArchEntry::parse("9.0a").unwrap();
        assert!(specific.arch_specific && !specific.ptx);
        assert!(specific.runs_on(MajorMinor::new(9, 0)));
        assert!(!specific.runs_on(MajorMinor::new(9, 1)));
        assert_eq!(ArchEntry::parse("sm_90"), None);
        assert_eq!(variant_cuda("cu128"), Some(MajorMinor::new(12, 8)));
        assert_eq!(variant_cuda("cu130"), Some(MajorMinor::new(13, 0)));
        assert_eq!(variant_cuda("cpu"), None);
        assert_eq!(variant_cuda("rocm6.0"), None);
    }

    #[test]
    fn torch_builds_answer_known_questions() {
        let torch = &tables().torch;
        let build = |release: (u64, u64), variant| {
            torch
                .build(MajorMinor::new(release.0, release.1), variant, "x86_64")
                .unwrap_or_else(|| panic!("{release:?} {variant}"))
        };
        let cc = MajorMinor::new;
        // A Blackwell RTX 50xx (12.0) cannot run a cu124 build: the field report in
        // compat-facts §2c (pytorch/pytorch:2.5.1-cuda12.4 on an RTX 5060, sm_120).
        assert!(build((2, 5), "cu124").runnable_entry(cc(12, 0)).is_none());
        assert!(build((2, 7), "cu128").runnable_entry(cc(12, 0)).is_some());
        // Pascal (6.1) is gone from cu128 builds and kept in cu126.
        assert!(build((2, 8), "cu128").runnable_entry(cc(6, 1)).is_none());
        assert!(build((2, 8), "cu126").runnable_entry(cc(6, 1)).is_some());
        // Volta came back in 2.8 cu128 and left again in 2.11.
        assert!(build((2, 8), "cu128").runnable_entry(cc(7, 0)).is_some());
        assert!(build((2, 11), "cu128").runnable_entry(cc(7, 0)).is_none());
        // GB10 (12.1) runs the 12.0 cubin; a future 13.x runs 12.0's PTX.
        assert!(build((2, 14), "cu130").runnable_entry(cc(12, 1)).is_some());
        assert_eq!(build((2, 14), "cu130").arch_list(), "7.5;8.0;8.6;9.0;10.0;12.0+PTX");
        assert_eq!(build((2, 3), "cu121").confidence, RowEvidence::Unconfirmed);
        let python = torch.release(MajorMinor::new(2, 9)).unwrap();
        assert_eq!((python.python_min, python.python_max), (cc(3, 10), cc(3, 14)));
    }

    #[test]
    fn gpu_names_match_whole_words_and_prefer_the_longest() {
        let gpus = &tables().gpus;
        let capability = |name| gpus.model(name).map(|model| model.compute_capability.to_string());
        assert_eq!(capability("NVIDIA H100 80GB HBM3").as_deref(), Some("9.0"));
        assert_eq!(capability("NVIDIA A100-SXM4-80GB").as_deref(), Some("8.0"));
        assert_eq!(capability("NVIDIA A10").as_deref(), Some("8.6"));
        assert_eq!(
            capability("NVIDIA A10G"),
            None,
            "A10G is not listed and must not read as A10"
        );
        assert_eq!(capability("Tesla T4").as_deref(), Some("7.5"));
        assert_eq!(capability("Tesla V100-SXM2-32GB").as_deref(), Some("7.0"));
        assert_eq!(capability("NVIDIA GH200 480GB").as_deref(), Some("9.0"));
        assert_eq!(capability("NVIDIA RTX 6000 Ada Generation").as_deref(), Some("8.9"));
        assert_eq!(capability("NVIDIA GeForce RTX 5090").as_deref(), Some("12.0"));
        assert_eq!(capability("NVIDIA L40S").as_deref(), Some("8.9"));
        let arch = |major, minor| {
            gpus.architecture(MajorMinor::new(major, minor))
                .map(|row| row.name.as_str())
        };
        assert_eq!(arch(9, 0), Some("Hopper"));
        assert_eq!(arch(12, 0), Some("Blackwell"));
        assert_eq!(arch(8, 9), Some("Ada Lovelace"));
        assert_eq!(arch(4, 0), None);
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
        assert!(has("t/extra.toml:1:1: not a table envdoctor knows"), "{messages:#?}");
        // The arch list was out of order, so the row was not kept and no
        // cross-file problem can be stated for it; a valid CUDA 14 row would be.
        let torch_14 = torch
            .replace("cu130", "cu140")
            .replace("[\"8.0\", \"7.5\"]", "[\"8.0\"]")
            .replace("unconfirmed", "confirmed");
        let problems = lint_texts(&[("t/cuda-drivers.toml", drivers), ("t/torch-builds.toml", &torch_14)]);
        assert!(
            problems.iter().any(|problem| problem
                .message
                .contains("CUDA 14.0, which has no [[minor_version_compatibility]] row")),
            "{problems:#?}"
        );
    }

    #[test]
    fn a_matrix_directory_without_tables_has_no_table_problems() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lint(dir.path()), Vec::new());
        std::fs::create_dir(dir.path().join("tables")).unwrap();
        std::fs::write(dir.path().join("tables/gpus.toml"), "[[gpu]]\n").unwrap();
        let problems = lint(dir.path());
        assert!(
            problems
                .iter()
                .all(|problem| problem.path.ends_with("tables/gpus.toml"))
        );
        assert!(
            problems.iter().any(|problem| problem.message.contains("lacks `name`")),
            "{problems:#?}"
        );
        assert!(
            problems
                .iter()
                .any(|problem| problem.message.contains("no [[architecture]] rows"))
        );
    }
}
