//! Which official torch build to install on this node, and the command that
//! installs it: a build whose CUDA the driver runs and whose kernels run on
//! every visible GPU, with whichever of torchvision and torchaudio are
//! installed, at the versions made for that torch (they pin it exactly, so
//! reinstalling torch alone leaves pip with a broken set). Built-in checks and
//! rules whose fix changes torch both ask here, so every such fix is one of
//! these commands.

use std::collections::BTreeSet;
use std::str::FromStr;

use pep440_rs::Version;

use crate::facts::{Facts, VisibleGpu};
use crate::knowledge::tables::{Capability, MajorMinor, Tables, TorchBuildRow};

/// The installed torch, as the table rows name it.
pub struct TorchVersion {
    /// `2.3` of `2.3.1+cu121`.
    pub release: MajorMinor,
    /// `2.3.1`: what `pip install "torch==..."` takes.
    pub public: String,
    /// A final release, not a nightly or release candidate, whose build lists may differ.
    pub is_final: bool,
}

pub fn torch_version(facts: &Facts) -> Option<TorchVersion> {
    let text = facts.torch.and_then(|build| build.version.as_deref()).or_else(|| {
        facts
            .packages
            .get("torch")
            .and_then(|package| package.version.as_deref())
    })?;
    let version = Version::from_str(text).ok()?;
    Some(TorchVersion {
        release: MajorMinor::of(&version)?,
        is_final: !version.any_prerelease() && !version.is_dev(),
        public: version.without_local().to_string(),
    })
}

/// The CPU architecture torch wheels are built for, as the tables name it.
pub fn platform<'a>(facts: &Facts<'a>) -> &'a str {
    &facts.snapshot.system.architecture
}

/// The newest CUDA the driver runs: as NVML reported it, else as NVIDIA's
/// table of toolkit drivers implies.
pub fn driver_cuda(facts: &Facts, tables: &Tables) -> Option<(MajorMinor, bool)> {
    if let Some(reported) = facts.driver_cuda.as_ref().and_then(MajorMinor::of) {
        return Some((reported, true));
    }
    let driver = facts.driver.as_ref()?;
    tables
        .drivers
        .newest_release_for(&driver.version)
        .map(|release| (release.cuda, false))
}

/// A CUDA build of torch on this platform, and whether this node's driver
/// runs it fully (`true`) or only under minor-version compatibility.
pub type Candidate<'t> = (&'t TorchBuildRow, bool);

/// The CUDA builds of `release` whose driver floor this node's driver meets,
/// oldest CUDA first. Without any driver facts, every build, as run fully.
pub fn builds_the_driver_runs<'t>(facts: &Facts, tables: &'t Tables, release: MajorMinor) -> Vec<Candidate<'t>> {
    let driver_cuda = driver_cuda(facts, tables).map(|(cuda, _)| cuda);
    let platform = platform(facts);
    let mut builds: Vec<Candidate> = tables
        .torch
        .builds
        .iter()
        .filter(|row| row.torch == release && row.platform == platform)
        .filter(|row| match (&facts.driver, tables.drivers.floor(row.cuda.major)) {
            (Some(driver), Some(floor)) => driver.version >= floor.linux_min_driver.version,
            (Some(_), None) => false,
            (None, _) => driver_cuda.is_none_or(|cuda| row.cuda.major <= cuda.major),
        })
        .map(|row| (row, driver_cuda.is_none_or(|cuda| row.cuda <= cuda)))
        .collect();
    builds.sort_by_key(|(row, _)| row.cuda);
    builds
}

/// The build to suggest among candidates: the newest the driver runs fully,
/// else the oldest it runs under minor-version compatibility.
pub fn best<'t>(candidates: impl IntoIterator<Item = Candidate<'t>>) -> Option<Candidate<'t>> {
    let candidates: Vec<Candidate> = candidates.into_iter().collect();
    candidates
        .iter()
        .rfind(|(_, fully)| *fully)
        .or_else(|| candidates.first())
        .copied()
}

/// How a suggested build runs, for the text of a fix.
pub fn how_it_runs(candidate: Candidate) -> String {
    let (row, fully) = candidate;
    if fully {
        format!("a build for CUDA {} that this driver runs", row.cuda)
    } else {
        format!(
            "a build for CUDA {}, which this driver runs under minor-version compatibility",
            row.cuda
        )
    }
}

/// A GPU's compute capability: as NVML reported it, else by its name from the GPU table.
pub fn capability(tables: &Tables, gpu: &VisibleGpu) -> Option<Capability> {
    gpu.compute_capability.as_ref().and_then(MajorMinor::of).or_else(|| {
        tables
            .gpus
            .model(gpu.gpu.name.as_deref()?)
            .map(|model| model.compute_capability)
    })
}

/// The companions of torch that pin it exactly, in the order a command names them.
const COMPANIONS: [&str; 2] = ["torchvision", "torchaudio"];

/// Which release to take when the installed one will not do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    /// The smallest step up or down: a rule's floor or ceiling.
    Lowest,
    /// The newest the table knows: for a GPU no installed release runs on.
    Newest,
}

/// A torch build to install and the command that installs it.
pub struct Install<'t> {
    pub candidate: Candidate<'t>,
    pub command: String,
}

impl Install<'_> {
    /// What the build is and runs on: the note of the fix that is `command`.
    pub fn note(&self) -> String {
        format!(
            "{}, with code for {}",
            how_it_runs(self.candidate),
            self.candidate.0.arch_list()
        )
    }
}

/// The compute capabilities of every visible GPU that has a known one.
pub fn visible_capabilities(facts: &Facts, tables: &Tables) -> BTreeSet<Capability> {
    facts.gpus.iter().filter_map(|gpu| capability(tables, gpu)).collect()
}

/// A torch build whose kernels run on every capability in `needed`, whose CUDA
/// the driver runs, of a version `allowed` accepts, installable with the
/// companions this node has: the installed release if it qualifies, else the
/// lowest or newest release that does.
pub fn choose<'t>(
    facts: &Facts,
    tables: &'t Tables,
    needed: &BTreeSet<Capability>,
    allowed: &dyn Fn(&Version) -> bool,
    prefer: Prefer,
) -> Option<Install<'t>> {
    let runs_all = |(row, _): &Candidate| needed.iter().all(|cc| row.runnable_entry(*cc).is_some());
    let installable = |release: MajorMinor| -> Option<Install<'t>> {
        runs_on_this_python(facts, tables, release).then_some(())?;
        let pins = pins(facts, tables, release, allowed)?;
        let candidate = best(
            builds_the_driver_runs(facts, tables, release)
                .into_iter()
                .filter(runs_all),
        )?;
        Some(Install {
            candidate,
            command: command(facts, &pins, &candidate.0.variant),
        })
    };
    let installed = torch_version(facts).map(|torch| torch.release);
    if let Some(install) = installed.and_then(installable) {
        return Some(install);
    }
    let mut releases: Vec<MajorMinor> = tables
        .torch
        .releases
        .iter()
        .map(|release| release.torch)
        .filter(|release| Some(*release) != installed)
        .collect();
    if prefer == Prefer::Newest {
        releases.reverse();
    }
    releases.into_iter().find_map(installable)
}

/// Whether pip would install `release` for this node's interpreter: no Python
/// below the release's oldest (torch 2.15.0 declares `Requires-Python >=3.11`,
/// so pip on 3.10 refuses it or keeps an older torch). An interpreter of
/// unknown version, or a release the table has no row for, is not refused here.
fn runs_on_this_python(facts: &Facts, tables: &Tables, release: MajorMinor) -> bool {
    let python = facts.python_version.as_ref().and_then(MajorMinor::of);
    match (python, tables.torch.release(release)) {
        (Some(python), Some(row)) => python >= row.python_min,
        _ => true,
    }
}

/// `(name, version)` for torch and each installed companion, for `release`:
/// the installed versions when `release` is the installed one (only the build
/// changes), else the table's newest patch and the companions made for it.
/// `None` when the table cannot name a consistent set or `allowed` refuses it.
fn pins(
    facts: &Facts,
    tables: &Tables,
    release: MajorMinor,
    allowed: &dyn Fn(&Version) -> bool,
) -> Option<Vec<(&'static str, String)>> {
    let installed: Vec<&'static str> = COMPANIONS
        .into_iter()
        .filter(|companion| facts.package(companion).is_some())
        .collect();
    let mut pins = Vec::new();
    let row = tables.torch.release(release);
    // Only the build changes: keep every installed version, when each installed
    // companion is of this release. One left from an older torch pins that torch
    // exactly, so keeping it would ask pip for a set it cannot install.
    if let Some(torch) = torch_version(facts)
        && torch.release == release
        && Version::from_str(&torch.public).is_ok_and(|version| allowed(&version))
    {
        pins.push(("torch", torch.public));
        for companion in installed {
            let version = facts.package_version(companion)?;
            if let Some(set) = row.and_then(|row| row.latest.as_ref()) {
                let made_for_release = set
                    .companion(companion)
                    .and_then(|known| MajorMinor::of(&Version::from_str(known).ok()?))
                    == MajorMinor::of(&version);
                made_for_release.then_some(())?;
            }
            pins.push((companion, version.without_local().to_string()));
        }
        return Some(pins);
    }
    let row = row?;
    match &row.latest {
        Some(set) => {
            allowed(&Version::from_str(&set.torch).ok()?).then_some(())?;
            pins.push(("torch", set.torch.clone()));
            for companion in installed {
                pins.push((companion, set.companion(companion)?.to_string()));
            }
        }
        // Without the table's set, only torch alone, at any patch of the release.
        None if installed.is_empty() => {
            allowed(&Version::new([release.major, release.minor])).then_some(())?;
            pins.push(("torch", format!("{release}.*")));
        }
        None => return None,
    }
    Some(pins)
}

/// `pip install "torch==2.9.1" "torchvision==0.24.1" --index-url .../cu126`,
/// after uninstalling them when the versions stay and only the build changes:
/// pip keeps an installed version that satisfies a pin, whatever its CUDA.
fn command(facts: &Facts, pins: &[(&str, String)], variant: &str) -> String {
    let keeps_versions = pins.iter().all(|(name, version)| {
        facts
            .package_version(name)
            .is_some_and(|installed| installed.without_local().to_string() == *version)
    });
    let names: Vec<&str> = pins.iter().map(|(name, _)| *name).collect();
    let mut command = String::new();
    if keeps_versions {
        command.push_str(&format!("pip uninstall -y {} && ", names.join(" ")));
    }
    command.push_str("pip install");
    for (name, version) in pins {
        command.push_str(&format!(" \"{name}=={version}\""));
    }
    command.push_str(&format!(" --index-url https://download.pytorch.org/whl/{variant}"));
    command
}
