//! What a distribution's file name says: project, version and, for a wheel,
//! the tags it is built for.
//!
//! Wheel names follow the binary distribution format specification:
//! `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`, where each tag
//! part may be a `.`-separated set (`manylinux_2_17_x86_64.manylinux2014_x86_64`)
//! standing for every combination. Source distributions are `{name}-{version}`
//! plus an archive extension; legacy ones keep `-` in the name, so the name is
//! told apart from the version by the project being looked up, as pip does.

use std::collections::BTreeSet;
use std::str::FromStr;

use super::normalize_name;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WheelName {
    /// PEP 503 normalized.
    pub name: String,
    pub version: String,
    pub build: Option<String>,
    /// Expanded: one `python-abi-platform` per combination.
    pub tags: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdistName {
    /// PEP 503 normalized.
    pub name: String,
    pub version: String,
}

/// The archive formats pip accepts for source distributions (its
/// `SUPPORTED_EXTENSIONS`, less `.whl`); longest first so `.tar.gz` wins over `.tar`.
const SDIST_EXTENSIONS: [&str; 9] = [
    ".tar.lzma",
    ".tar.bz2",
    ".tar.gz",
    ".tar.xz",
    ".tar.lz",
    ".tar",
    ".tgz",
    ".tbz",
    ".zip",
];

pub fn parse_wheel(filename: &str) -> Option<WheelName> {
    let stem = filename.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    let (name, version, build, tag_parts) = match parts.as_slice() {
        [name, version, python, abi, platform] => (name, version, None, [python, abi, platform]),
        [name, version, build, python, abi, platform] if build.starts_with(|c: char| c.is_ascii_digit()) => {
            (name, version, Some(build.to_string()), [python, abi, platform])
        }
        _ => return None,
    };
    if name.is_empty() || version.is_empty() {
        return None;
    }
    let tags = expand_tag_parts(tag_parts[0], tag_parts[1], tag_parts[2])?;
    Some(WheelName {
        name: normalize_name(name),
        version: version.to_string(),
        build,
        tags,
    })
}

/// `project` is the name being looked up: the sdist's name is the prefix that
/// normalizes to it. Without it, the name ends at the last `-`.
pub fn parse_sdist(filename: &str, project: Option<&str>) -> Option<SdistName> {
    let stem = SDIST_EXTENSIONS
        .iter()
        .find_map(|extension| filename.strip_suffix(extension))?;
    let split_at = match project {
        Some(project) => {
            let wanted = normalize_name(project);
            stem.match_indices('-')
                .map(|(at, _)| at)
                .find(|&at| normalize_name(&stem[..at]) == wanted)?
        }
        None => stem.rfind('-')?,
    };
    let (name, version) = (&stem[..split_at], &stem[split_at + 1..]);
    if name.is_empty() || version.is_empty() {
        return None;
    }
    Some(SdistName {
        name: normalize_name(name),
        version: version.to_string(),
    })
}

/// Every `python-abi-platform` tag that `Tag:` lines (already expanded) or
/// compressed tag sets stand for.
pub fn expand_tags(tags: &[String]) -> BTreeSet<String> {
    tags.iter()
        .filter_map(|tag| {
            let mut parts = tag.trim().splitn(3, '-');
            expand_tag_parts(parts.next()?, parts.next()?, parts.next()?)
        })
        .flatten()
        .collect()
}

fn expand_tag_parts(python: &str, abi: &str, platform: &str) -> Option<BTreeSet<String>> {
    let split = |part: &str| -> Option<Vec<String>> {
        let pieces: Vec<String> = part.split('.').map(str::to_string).collect();
        pieces.iter().all(|piece| !piece.is_empty()).then_some(pieces)
    };
    let (pythons, abis, platforms) = (split(python)?, split(abi)?, split(platform)?);
    let mut tags = BTreeSet::new();
    for python in &pythons {
        for abi in &abis {
            for platform in &platforms {
                tags.insert(format!("{python}-{abi}-{platform}"));
            }
        }
    }
    Some(tags)
}

/// PEP 440 equality (`1.0` is `1.0.0`; a local label such as `+cu121` counts),
/// and plain string equality for versions that are not PEP 440.
pub fn same_version(left: &str, right: &str) -> bool {
    match (pep440_rs::Version::from_str(left), pep440_rs::Version::from_str(right)) {
        (Ok(left), Ok(right)) => left == right,
        _ => left.trim() == right.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(tags: &[&str]) -> BTreeSet<String> {
        tags.iter().map(|tag| tag.to_string()).collect()
    }

    #[test]
    fn a_pure_python_wheel() {
        let wheel = parse_wheel("Demo_Pkg-1.0-py3-none-any.whl").unwrap();
        assert_eq!(wheel.name, "demo-pkg");
        assert_eq!(wheel.version, "1.0");
        assert_eq!(wheel.build, None);
        assert_eq!(wheel.tags, set(&["py3-none-any"]));
    }

    #[test]
    fn compressed_tag_sets_expand_to_every_combination() {
        let wheel =
            parse_wheel("torch-2.3.1+cu121-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl").unwrap();
        assert_eq!(wheel.version, "2.3.1+cu121");
        assert_eq!(
            wheel.tags,
            set(&["cp311-cp311-manylinux2014_x86_64", "cp311-cp311-manylinux_2_17_x86_64"])
        );
        let two_pythons = parse_wheel("six-1.16.0-py2.py3-none-any.whl").unwrap();
        assert_eq!(two_pythons.tags, set(&["py2-none-any", "py3-none-any"]));
    }

    #[test]
    fn a_build_tag_must_start_with_a_digit() {
        let wheel = parse_wheel("pkg-1.0-2b-py3-none-any.whl").unwrap();
        assert_eq!(wheel.build.as_deref(), Some("2b"));
        assert_eq!(parse_wheel("pkg-1.0-b2-py3-none-any.whl"), None);
    }

    #[test]
    fn malformed_wheel_names_are_refused() {
        for name in [
            "pkg-1.0-py3-none.whl",
            "pkg-1.0-py3-none-any.zip",
            "pkg-1.0-py3..x-none-any.whl",
            "-1.0-py3-none-any.whl",
            "a-b-c-d-e-f-g.whl",
        ] {
            assert_eq!(parse_wheel(name), None, "{name}");
        }
    }

    #[test]
    fn sdist_names_with_and_without_the_project() {
        let modern = parse_sdist("demo_pkg-1.0.tar.gz", None).unwrap();
        assert_eq!((modern.name.as_str(), modern.version.as_str()), ("demo-pkg", "1.0"));
        let legacy = parse_sdist("Foo-Bar-2.0.zip", Some("foo.bar")).unwrap();
        assert_eq!((legacy.name.as_str(), legacy.version.as_str()), ("foo-bar", "2.0"));
        // A version with a dash (`1.0-1` is 1.0.post1) only parses knowing the name.
        let dashed = parse_sdist("pkg-1.0-1.tar.bz2", Some("pkg")).unwrap();
        assert_eq!(dashed.version, "1.0-1");
        assert_eq!(parse_sdist("other-1.0.tar.gz", Some("pkg")), None);
        assert_eq!(parse_sdist("pkg-1.0.whl", None), None);
        assert_eq!(parse_sdist("pkg.tar.gz", None), None);
    }

    #[test]
    fn versions_compare_by_pep_440() {
        assert!(same_version("1.0", "1.0.0"));
        assert!(same_version("1.0.0-RC1", "1.0.0rc1"));
        assert!(!same_version("2.3.1+cu121", "2.3.1"));
        assert!(!same_version("2.3.1+cu121", "2.3.1+cu118"));
        assert!(same_version("not.a-version!", "not.a-version!"));
        assert!(!same_version("not.a-version!", "1.0"));
    }

    #[test]
    fn installed_tag_lines_expand_too() {
        let lines = vec![
            "cp311-cp311-manylinux_2_17_x86_64".to_string(),
            "py2.py3-none-any".to_string(),
        ];
        assert_eq!(
            expand_tags(&lines),
            set(&["cp311-cp311-manylinux_2_17_x86_64", "py2-none-any", "py3-none-any"])
        );
    }
}
