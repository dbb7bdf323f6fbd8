//! Text output fits the width (issue 29, item 8): `COLUMNS`, else the
//! terminal's, else 100, between 40 and 100; every text renderer wraps to it.
//! What may stand out is `common::width`'s to say. `matrix explain` says a
//! rule's why and fix once, wrapped, then the rest of its file.

use crate::common;
use crate::common::fixtures::{DS_ZERO3_OFFLOAD, H100, H100_DS, H200, LOCK, SMOKE_LOG};
use crate::common::width::{assert_fits, words};

use std::path::Path;

use serde_json::Value;

const WIDTHS: [usize; 2] = [80, 60];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What `envdoctor ARGUMENTS` prints with `COLUMNS` set to `columns` (none
/// for `None`), run from the repository root; exit 0 or 1 (findings).
fn text(columns: Option<&str>, arguments: &[&str]) -> String {
    let cache = tempfile::tempdir().unwrap();
    let mut command = common::envdoctor(cache.path());
    command.current_dir(root()).args(arguments);
    if let Some(columns) = columns {
        command.env("COLUMNS", columns);
    }
    let output = command.output().unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{arguments:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn at(width: usize, arguments: &[&str]) -> String {
    text(Some(&width.to_string()), arguments)
}

#[test]
fn check_on_every_recorded_snapshot_fits() {
    for width in WIDTHS {
        for snapshot in [H100, H100_DS, H200] {
            let output = at(width, &["check", "--snapshot", snapshot]);
            assert_fits(&output, width, &format!("check --snapshot {snapshot}"));
        }
        let judged = ["check", "--snapshot", H100_DS, "--deepspeed-config", DS_ZERO3_OFFLOAD];
        assert_fits(&at(width, &judged), width, "check with a DeepSpeed config");
    }
}

#[test]
fn every_other_text_report_fits() {
    let fleet = tempfile::tempdir().unwrap();
    for (name, snapshot) in [("a", H100), ("b", H100_DS), ("c", H200)] {
        std::fs::copy(root().join(snapshot), fleet.path().join(format!("{name}.json"))).unwrap();
    }
    let fleet = fleet.path().to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["probe", "--snapshot", H100_DS],
        &["verify", "--lock", LOCK, "--snapshot", H100_DS],
        &["diff", H100, H200],
        &["explain", SMOKE_LOG, "--snapshot", H100_DS, "--verbose"],
        &["fleet", fleet],
        &["fleet", fleet, "--lock", LOCK],
        &["matrix", "list"],
    ];
    for width in WIDTHS {
        for arguments in commands {
            assert_fits(&at(width, arguments), width, &arguments.join(" "));
        }
    }
}

#[test]
fn every_matrix_explain_fits() {
    let listed: Value = serde_json::from_str(&text(None, &["matrix", "list", "--format", "json"])).unwrap();
    let ids: Vec<&str> = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["kind"] != "package")
        .map(|entry| entry["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() > 100, "{ids:?}");
    for width in WIDTHS {
        for id in &ids {
            assert_fits(
                &at(width, &["matrix", "explain", id]),
                width,
                &format!("matrix explain {id}"),
            );
        }
    }
}

#[test]
fn matrix_explain_says_why_and_fix_once() {
    let mut files: Vec<_> = ["compat-matrix/rules", "compat-matrix/symptoms"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .collect();
    files.sort();
    assert!(files.len() > 100);
    for file in files {
        let document: toml_edit::DocumentMut = std::fs::read_to_string(&file).unwrap().parse().unwrap();
        let field = |name: &str| words(document[name].as_str().unwrap());
        let id = document["id"].as_str().unwrap();
        let shown = words(&at(80, &["matrix", "explain", id]));
        for (label, said) in [("Why:", field("why")), ("Fix:", field("fix"))] {
            let once = format!("{label} {said}");
            assert_eq!(shown.matches(&once).count(), 1, "{id}: `{once}` in\n{shown}");
            assert_eq!(shown.matches(&said).count(), 1, "{id}: its {label} twice in\n{shown}");
        }
    }
}

#[test]
fn columns_is_read_and_kept_within_bounds() {
    let arguments = ["check", "--snapshot", H100_DS];
    let default = text(None, &arguments);
    assert!(default.lines().any(|line| line.chars().count() > 80), "{default}");
    assert_fits(&default, 100, "check without COLUMNS");
    // Not a number, or wider than prose is read: the width of a pipe.
    for columns in ["wide", "0", "500"] {
        assert_eq!(text(Some(columns), &arguments), default, "COLUMNS={columns}");
    }
    // Narrower than the labels leave room for: the narrowest width.
    assert_eq!(text(Some("12"), &arguments), at(40, &arguments));
    assert_fits(&at(40, &arguments), 40, "check at the narrowest width");
}
