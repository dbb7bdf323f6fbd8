//! One node's report as the fleet reads it: a Snapshot (`probe --format json`)
//! or a check report (`check --format json`, which carries the Snapshot and
//! the node's findings), and the name the node goes by.

use serde::Deserialize;

use crate::check::REPORT_SCHEMA;
use crate::findings::Finding;
use crate::snapshot::{self, Snapshot};

/// Variables that name the node, in the order they are believed: the site's
/// own choice (a Kubernetes pod sets it from `spec.nodeName`), then Slurm's.
pub const NODE_NAME_VARIABLES: [&str; 2] = ["ENVDOCTOR_NODE_NAME", "SLURMD_NODENAME"];

#[derive(Debug)]
pub struct NodeReport {
    pub name: String,
    pub snapshot: Snapshot,
    /// The node's own findings, when it sent a check report; `None` for a bare Snapshot.
    pub findings: Option<Vec<Finding>>,
}

/// Only the schema; every other key is skipped without being kept.
#[derive(Deserialize)]
struct Head {
    schema: String,
}

#[derive(Deserialize)]
struct CheckReport {
    snapshot: Snapshot,
    findings: Vec<Finding>,
}

/// What names a node besides its own report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GivenName {
    /// The launcher started the node's task under this name (srun's header):
    /// it wins over what the report says.
    Known(String),
    /// Used only when the report names no node: a file's stem.
    Fallback(String),
}

/// Reads one report, named by `given` as its doc says. The error is one line, without the
/// place: the caller knows the file and line the document came from.
pub fn parse(bytes: &[u8], given: &GivenName) -> Result<NodeReport, String> {
    let schema = match leading_schema(bytes) {
        Some(schema) => schema.to_string(),
        None => {
            let head: Head = serde_json::from_slice(bytes).map_err(|error| json_problem(&error))?;
            head.schema
        }
    };
    let (mut snapshot, findings) = if schema == REPORT_SCHEMA {
        let report: CheckReport = serde_json::from_slice(bytes).map_err(|error| json_problem(&error))?;
        (report.snapshot, Some(report.findings))
    } else {
        snapshot::check_schema_name(&schema)
            .map_err(|problem| format!("{problem} (nor a check report, \"{REPORT_SCHEMA}\")"))?;
        let snapshot: Snapshot = serde_json::from_slice(bytes).map_err(|error| json_problem(&error))?;
        (snapshot, None)
    };
    snapshot.complete();
    Ok(NodeReport {
        name: match given {
            GivenName::Known(name) => name.clone(),
            GivenName::Fallback(name) => node_name(&snapshot).unwrap_or_else(|| name.clone()),
        },
        snapshot,
        findings,
    })
}

/// The schema when it is the document's first key, as envdoctor writes it:
/// found without reading the rest, which would otherwise be read twice.
fn leading_schema(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(&bytes[..bytes.len().min(128)]).ok()?;
    let rest = text.strip_prefix('{')?.trim_start().strip_prefix("\"schema\"")?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let schema = &rest[..rest.find('"')?];
    (!schema.contains('\\')).then_some(schema)
}

/// The name the scheduler knows the node by, else its host name.
pub fn node_name(snapshot: &Snapshot) -> Option<String> {
    NODE_NAME_VARIABLES
        .iter()
        .filter_map(|name| snapshot.env.get(*name))
        .chain(snapshot.system.hostname.as_ref())
        .map(|name| name.trim())
        .find(|name| !name.is_empty())
        .map(str::to_string)
}

/// This node's name, by the same rule: for `-o 'DIR/{host}.json'`, where
/// every node of a launch writes its own report into one shared directory.
pub fn this_node_name() -> Option<String> {
    let set = |name: String| Some(name.trim().to_string()).filter(|name| !name.is_empty());
    NODE_NAME_VARIABLES
        .iter()
        .find_map(|name| std::env::var(name).ok().and_then(set))
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok().and_then(set))
}

/// The placeholder in an output path that becomes this node's name.
pub const HOST_PLACEHOLDER: &str = "{host}";

/// `path` with `{host}` replaced by the name `name` gives (asked only when the
/// path holds `{host}`); a name that would leave the directory (`/`, `..`) is
/// refused rather than written somewhere else.
pub fn expand_host(
    path: &std::path::Path,
    name: impl FnOnce() -> Option<String>,
) -> Result<std::path::PathBuf, String> {
    let text = path.to_string_lossy();
    if !text.contains(HOST_PLACEHOLDER) {
        return Ok(path.to_path_buf());
    }
    let name =
        name().ok_or("`{host}` in the output path, but this node's name is unknown (set ENVDOCTOR_NODE_NAME)")?;
    if name.contains('/') || name == ".." || name == "." {
        return Err(format!("`{{host}}` would become `{name}`, which is not a file name"));
    }
    Ok(std::path::PathBuf::from(text.replace(HOST_PLACEHOLDER, &name)))
}

fn json_problem(error: &serde_json::Error) -> String {
    let what = match error.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "not JSON",
        _ => "not a Snapshot or check report",
    };
    format!(
        "{}:{}: {what}: {}",
        error.line(),
        error.column(),
        snapshot::without_position(error)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = include_str!("../../tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json");

    fn file() -> GivenName {
        GivenName::Fallback("file".to_string())
    }

    #[test]
    fn a_snapshot_is_named_by_slurm_before_its_host_name() {
        let report = parse(SNAPSHOT.as_bytes(), &file()).unwrap();
        assert_eq!(report.name, "h200-node-01");
        assert!(report.findings.is_none());
        let mut value: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
        value["env"]["SLURMD_NODENAME"] = "n7".into();
        let report = parse(&serde_json::to_vec(&value).unwrap(), &file()).unwrap();
        assert_eq!(report.name, "n7");
        value["env"]["ENVDOCTOR_NODE_NAME"] = "".into();
        let report = parse(&serde_json::to_vec(&value).unwrap(), &file()).unwrap();
        assert_eq!(report.name, "n7", "an empty variable names nothing");
        let known = GivenName::Known("n8".to_string());
        assert_eq!(parse(SNAPSHOT.as_bytes(), &known).unwrap().name, "n8");
    }

    #[test]
    fn a_check_report_brings_its_findings() {
        let snapshot: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
        let report = serde_json::json!({
            "schema": REPORT_SCHEMA,
            "snapshot": snapshot,
            "findings": [],
            "summary": {},
        });
        let parsed = parse(&serde_json::to_vec(&report).unwrap(), &file()).unwrap();
        assert_eq!(parsed.findings.map(|findings| findings.len()), Some(0));
    }

    #[test]
    fn host_in_an_output_path_becomes_the_node_name() {
        let path = std::path::Path::new("reports/{host}.json");
        assert_eq!(
            expand_host(path, || Some("n3".to_string())).unwrap(),
            std::path::Path::new("reports/n3.json")
        );
        assert_eq!(
            expand_host(std::path::Path::new("a.json"), || None).unwrap(),
            std::path::Path::new("a.json")
        );
        assert!(expand_host(path, || Some("../x".to_string())).is_err());
        assert!(expand_host(path, || None).is_err());
    }

    #[test]
    fn the_schema_is_read_from_the_front_when_it_comes_first() {
        assert_eq!(
            leading_schema(b"{\n  \"schema\": \"envdoctor.report/1\", \"x\": 1}"),
            Some("envdoctor.report/1")
        );
        assert_eq!(leading_schema(b"{\"x\": 1, \"schema\": \"a\"}"), None);
        assert_eq!(leading_schema(b"{\"schema\": 3}"), None);
    }

    #[test]
    fn other_documents_are_refused_in_one_line() {
        let problem = parse(br#"{"schema": "envdoctor.diff/1"}"#, &file()).unwrap_err();
        assert!(problem.contains("envdoctor.diff/1"), "{problem}");
        assert!(problem.contains("check report"), "{problem}");
        let problem = parse(br#"{"schema": "envdoctor.snapshot/1", "system": 3}"#, &file()).unwrap_err();
        assert!(problem.starts_with("1:"), "{problem}");
        assert!(!problem.contains('\n'), "{problem}");
    }
}
