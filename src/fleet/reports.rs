//! One node's report as the fleet reads it: a Snapshot (`probe --format json`)
//! or a check report (`check --format json`, which carries the Snapshot and
//! the node's findings), and the name the node goes by.

use serde::Deserialize;

use crate::check::REPORT_SCHEMA;
use crate::findings::Finding;
use crate::node_name::NODE_NAME_VARIABLES;
use crate::snapshot::{self, Snapshot};

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

/// Why a document is not a report: one line, and where in the document when
/// the JSON reader knows. The caller knows the file and the line the document
/// began on, and so where this is in the file.
#[derive(Debug)]
pub struct NotAReport {
    /// 1-based line and column within the document.
    pub at: Option<(usize, usize)>,
    pub problem: String,
}

impl From<String> for NotAReport {
    fn from(problem: String) -> NotAReport {
        NotAReport { at: None, problem }
    }
}

/// Reads one report, named by `given` as its doc says.
pub fn parse(bytes: &[u8], given: &GivenName) -> Result<NodeReport, NotAReport> {
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
        snapshot::check_schema_name(&schema).map_err(|problem| match problem {
            // The one line fleet prints for the node carries the hint an error line would.
            snapshot::SchemaRefusal::Newer { .. } => format!("{problem}; hint: {}", crate::hint::upgrade()),
            snapshot::SchemaRefusal::NotASnapshot(_) => {
                format!("{problem} (nor a check report, \"{REPORT_SCHEMA}\")")
            }
        })?;
        let snapshot: Snapshot = serde_json::from_slice(bytes).map_err(|error| json_problem(&error))?;
        (snapshot, None)
    };
    snapshot.complete();
    let name = match given {
        GivenName::Known(name) => name.clone(),
        GivenName::Fallback(name) => node_name(&snapshot).unwrap_or_else(|| name.clone()),
    };
    // Issue 32 E10: the name goes into hostlists made for `srun --exclude`,
    // where `gpu-[0004-4990]` is 4,987 other nodes; Slurm has no escape for it.
    crate::tool_text::hostlist_name(&name).map_err(|refused| refused.problem)?;
    Ok(NodeReport {
        name,
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

fn json_problem(error: &serde_json::Error) -> NotAReport {
    let what = match error.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "not JSON",
        _ => "not a Snapshot or check report",
    };
    NotAReport {
        at: Some((error.line(), error.column())),
        problem: format!("{what}: {}", crate::located::without_position(error)),
    }
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
    fn the_schema_is_read_from_the_front_when_it_comes_first() {
        assert_eq!(
            leading_schema(b"{\n  \"schema\": \"envdoctor.report/1\", \"x\": 1}"),
            Some("envdoctor.report/1")
        );
        assert_eq!(leading_schema(b"{\"x\": 1, \"schema\": \"a\"}"), None);
        assert_eq!(leading_schema(b"{\"schema\": 3}"), None);
    }

    #[test]
    fn a_report_of_a_newer_envdoctor_says_to_upgrade() {
        let refused = parse(br#"{"schema": "envdoctor.snapshot/2"}"#, &file()).unwrap_err();
        let line = format!("{refused:?}");
        assert!(line.contains("written by a newer envdoctor"), "{line}");
        assert!(line.contains("hint: upgrade envdoctor"), "{line}");
    }

    #[test]
    fn other_documents_are_refused_in_one_line() {
        let refused = parse(br#"{"schema": "envdoctor.diff/1"}"#, &file()).unwrap_err();
        assert!(refused.problem.contains("envdoctor.diff/1"), "{refused:?}");
        assert!(refused.problem.contains("check report"), "{refused:?}");
        let refused = parse(br#"{"schema": "envdoctor.snapshot/1", "system": 3}"#, &file()).unwrap_err();
        assert_eq!(refused.at.map(|(line, _)| line), Some(1), "{refused:?}");
        assert!(!refused.problem.contains('\n'), "{refused:?}");
    }
}
