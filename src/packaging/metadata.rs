//! Parsing the files a Python distribution leaves on disk: core metadata
//! (`METADATA`, `PKG-INFO`), `requires.txt`, `direct_url.json` and `WHEEL`.
//!
//! Each parser is forgiving in the way `importlib.metadata` is, and reports what
//! it had to forgive as a problem string instead of failing the scan.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The header fields of core metadata that envdoctor uses.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CoreMetadata {
    pub name: Option<String>,
    pub version: Option<String>,
    pub requires_python: Option<String>,
    pub requires_dist: Vec<String>,
    pub problems: Vec<String>,
}

/// Reads the RFC 822-style header block and stops at the first blank line: the
/// body is the long description, often most of the file, and never needed.
///
/// Only a regular file is read (a FIFO or `/dev/zero` is an error), and a
/// header line over [`LINE_LIMIT`](crate::bounded_read::LINE_LIMIT), or a
/// header over [`METADATA_LIMIT`](crate::bounded_read::METADATA_LIMIT), ends
/// the header with a problem saying so: the fields before it still count.
pub fn read_core_metadata(path: &Path) -> std::io::Result<CoreMetadata> {
    use crate::bounded_read::{LINE_LIMIT, LineError, Lines, METADATA_LIMIT};
    let mut reader = Lines::open(path, LINE_LIMIT, METADATA_LIMIT)?;
    let mut metadata = CoreMetadata::default();
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut raw = Vec::new();
    let mut reported_encoding = false;
    loop {
        match reader.next_line(&mut raw) {
            Ok(true) => {}
            Ok(false) => break,
            Err(LineError::Io(error)) => return Err(error),
            Err(error) => {
                metadata.problems.push(format!("{}: {error}", path.display()));
                break;
            }
        }
        let line_number = reader.number();
        let line = match std::str::from_utf8(&raw) {
            Ok(text) => text.to_string(),
            Err(error) => {
                if !reported_encoding {
                    metadata.problems.push(format!(
                        "{}: line {line_number}: invalid UTF-8 at byte {}",
                        path.display(),
                        error.valid_up_to()
                    ));
                    reported_encoding = true;
                }
                String::from_utf8_lossy(&raw).into_owned()
            }
        };
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = fields.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            fields.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    for (key, value) in fields {
        match key.as_str() {
            "name" if metadata.name.is_none() => metadata.name = Some(value),
            "version" if metadata.version.is_none() => metadata.version = Some(value),
            "requires-python" => metadata.requires_python = Some(value),
            "requires-dist" => metadata.requires_dist.push(value),
            _ => {}
        }
    }
    Ok(metadata)
}

/// Turns setuptools' `requires.txt` (sections `[extra]`, `[:marker]` and
/// `[extra:marker]`) into `Requires-Dist` strings, as `importlib.metadata` does.
pub fn requires_txt_to_requires_dist(text: &str) -> Vec<String> {
    let mut requirements = Vec::new();
    let mut section_marker: Option<String> = None;
    for line in text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
    {
        if let Some(section) = line.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
            let (extra, marker) = section.split_once(':').unwrap_or((section, ""));
            let mut conditions = Vec::new();
            if !marker.trim().is_empty() {
                conditions.push(format!("({})", marker.trim()));
            }
            if !extra.trim().is_empty() {
                conditions.push(format!("extra == \"{}\"", extra.trim()));
            }
            section_marker = (!conditions.is_empty()).then(|| conditions.join(" and "));
            continue;
        }
        requirements.push(match &section_marker {
            Some(marker) => format!("{line}; {marker}"),
            None => line.to_string(),
        });
    }
    requirements
}

#[derive(Deserialize)]
struct DirectUrl {
    url: String,
    subdirectory: Option<String>,
    dir_info: Option<DirInfo>,
    vcs_info: Option<VcsInfo>,
    archive_info: Option<ArchiveInfo>,
}

#[derive(Deserialize)]
struct DirInfo {
    #[serde(default)]
    editable: bool,
}

#[derive(Deserialize)]
struct VcsInfo {
    vcs: String,
    commit_id: String,
    requested_revision: Option<String>,
}

#[derive(Deserialize)]
struct ArchiveInfo {
    hash: Option<String>,
    #[serde(default)]
    hashes: std::collections::BTreeMap<String, String>,
}

/// Where a distribution came from when it was not installed from an index by
/// name, as PEP 610's `direct_url.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Directory {
        url: String,
        editable: bool,
        subdirectory: Option<String>,
    },
    Vcs {
        url: String,
        vcs: String,
        commit_id: String,
        requested_revision: Option<String>,
        subdirectory: Option<String>,
    },
    Archive {
        url: String,
        hash: Option<String>,
        subdirectory: Option<String>,
    },
    /// A value this envdoctor does not know, read from a later envdoctor's Snapshot.
    #[serde(other)]
    Unknown,
}

impl Source {
    pub fn is_editable(&self) -> bool {
        matches!(self, Source::Directory { editable: true, .. })
    }

    pub fn url(&self) -> &str {
        match self {
            Source::Directory { url, .. } | Source::Vcs { url, .. } | Source::Archive { url, .. } => url,
            Source::Unknown => "",
        }
    }
}

pub fn parse_direct_url(text: &str) -> Result<Source, String> {
    let DirectUrl {
        url,
        subdirectory,
        dir_info,
        vcs_info,
        archive_info,
    } = serde_json::from_str(text).map_err(|error| error.to_string())?;
    // pip records the URL as given, credentials and all
    // (`https://oauth2:ghp_…@github.com/…`); a Snapshot or lock must not.
    let url = crate::redact::secrets(&url);
    match (dir_info, vcs_info, archive_info) {
        (Some(dir), None, None) => Ok(Source::Directory {
            url,
            editable: dir.editable,
            subdirectory,
        }),
        (None, Some(vcs), None) => Ok(Source::Vcs {
            url,
            vcs: vcs.vcs,
            commit_id: vcs.commit_id,
            requested_revision: vcs.requested_revision,
            subdirectory,
        }),
        (None, None, Some(archive)) => Ok(Source::Archive {
            url,
            // PEP 610: `hashes` superseded `hash`; prefer sha256 when both exist.
            hash: archive
                .hashes
                .get("sha256")
                .map(|digest| format!("sha256={digest}"))
                .or(archive.hash),
            subdirectory,
        }),
        _ => Err("needs exactly one of dir_info, vcs_info, archive_info".to_string()),
    }
}

/// The `Tag:` lines of a wheel's `WHEEL` file, such as `cp311-cp311-manylinux_2_17_x86_64`.
pub fn wheel_tags(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("Tag:"))
        .map(|tag| tag.trim().to_string())
        .collect()
}

/// A `file://` URL as a local path, decoding percent escapes (`%20`).
pub fn file_url_to_path(url: &str) -> Option<String> {
    let rest = url.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let mut input = rest.bytes();
    while let Some(byte) = input.next() {
        if byte == b'%' {
            let high = input.next().and_then(|digit| (digit as char).to_digit(16));
            let low = input.next().and_then(|digit| (digit as char).to_digit(16));
            bytes.push(u8::try_from(high? * 16 + low?).ok()?);
        } else {
            bytes.push(byte);
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata_from(bytes: &[u8]) -> CoreMetadata {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("METADATA");
        std::fs::write(&path, bytes).unwrap();
        read_core_metadata(&path).unwrap()
    }

    #[test]
    fn reads_headers_and_stops_at_the_body() {
        let metadata = metadata_from(
            b"Metadata-Version: 2.1\nName: Foo.Bar\nVersion: 1.0.post1\nRequires-Python: >=3.8\n\
Requires-Dist: numpy>=1.0\nRequires-Dist: rich ; extra == \"cli\"\n\nName: not-a-header\n",
        );
        assert_eq!(metadata.name.as_deref(), Some("Foo.Bar"));
        assert_eq!(metadata.version.as_deref(), Some("1.0.post1"));
        assert_eq!(metadata.requires_python.as_deref(), Some(">=3.8"));
        assert_eq!(metadata.requires_dist, ["numpy>=1.0", "rich ; extra == \"cli\""]);
        assert!(metadata.problems.is_empty());
    }

    #[test]
    fn invalid_utf8_is_a_problem_not_a_failure() {
        let metadata = metadata_from(b"Name: broken\nVersion: 1.0\nSummary: caf\xe9\n");
        assert_eq!(metadata.name.as_deref(), Some("broken"));
        assert_eq!(metadata.problems.len(), 1);
        assert!(
            metadata.problems[0].contains("line 3: invalid UTF-8"),
            "{:?}",
            metadata.problems
        );
    }

    #[test]
    fn continuation_lines_join_their_field() {
        let metadata = metadata_from(b"Name: x\nVersion: 2\nRequires-Dist: a;\n  python_version < \"3.9\"\n");
        assert_eq!(metadata.requires_dist, ["a; python_version < \"3.9\""]);
    }

    #[test]
    fn requires_txt_sections_become_markers() {
        let text = "numpy\n\n[cli]\nrich\n\n[:python_version < \"3.8\"]\ntyping-extensions\n\n[gpu:sys_platform == \"linux\"]\npynvml\n";
        assert_eq!(
            requires_txt_to_requires_dist(text),
            [
                "numpy",
                "rich; extra == \"cli\"",
                "typing-extensions; (python_version < \"3.8\")",
                "pynvml; (sys_platform == \"linux\") and extra == \"gpu\"",
            ]
        );
    }

    /// Issue 20 D7: credentials in a PEP 610 URL are not recorded.
    #[test]
    fn credentials_in_a_direct_url_are_masked() {
        let vcs = parse_direct_url(
            r#"{"url": "https://oauth2:ghp_secret@github.com/org/repo.git", "vcs_info": {"vcs": "git", "commit_id": "abc"}}"#,
        )
        .unwrap();
        match vcs {
            Source::Vcs { url, .. } => assert_eq!(url, "https://***@github.com/org/repo.git"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn direct_url_kinds() {
        let editable = parse_direct_url(r#"{"url": "file:///src/my%20proj", "dir_info": {"editable": true}}"#).unwrap();
        assert!(editable.is_editable());
        assert_eq!(file_url_to_path(editable.url()).as_deref(), Some("/src/my proj"));
        let vcs = parse_direct_url(
            r#"{"url": "https://github.com/a/b.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}"#,
        )
        .unwrap();
        assert!(matches!(vcs, Source::Vcs { ref commit_id, .. } if commit_id == "abc123"));
        let archive = parse_direct_url(
            r#"{"url": "file:///w/x.whl", "archive_info": {"hash": "md5=1", "hashes": {"sha256": "ff"}}}"#,
        )
        .unwrap();
        assert!(matches!(archive, Source::Archive { hash: Some(ref hash), .. } if hash == "sha256=ff"));
        assert!(parse_direct_url(r#"{"url": "x"}"#).is_err());
        assert!(parse_direct_url("{").is_err());
    }

    #[test]
    fn wheel_tags_are_listed() {
        assert_eq!(
            wheel_tags("Wheel-Version: 1.0\nTag: py2-none-any\nTag: py3-none-any\n"),
            ["py2-none-any", "py3-none-any"]
        );
    }
}
