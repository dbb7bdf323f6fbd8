//! `envdoctor fleet` driven as a user drives it, on fleets that
//! `tests/fixtures/fleet/make_fleet.py` generates from the H200 Snapshot with
//! known perturbations: exactly the perturbed nodes deviate, with the expected
//! drift ids; standard input gives what a directory gives; check reports bring
//! their own findings; unreadable reports, missing paths and empty
//! directories; a lock as the reference; JUnit, markdown and `-o`; `{host}` in
//! an output path; nodes that claim the same name.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

const MAKE_FLEET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fleet/make_fleet.py");
const BASE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json"
);
/// The torch version the generator gives its `package-version torch` node.
const OTHER_TORCH: &str = "2.10.0+cu130";

/// node -> its perturbations as `--expected` writes them (`"package-version torch"`, ...).
type Expected = BTreeMap<String, Vec<String>>;

/// A generated fleet in a temporary directory: `dir` holds one Snapshot per node.
struct Fleet {
    root: TempDir,
    dir: PathBuf,
    expected: Expected,
}

impl Fleet {
    fn new(nodes: usize) -> Fleet {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("fleet");
        let expected_file = root.path().join("expected.json");
        common::run(
            Command::new(common::system_python())
                .arg(MAKE_FLEET)
                .args(["--nodes", &nodes.to_string(), "--out"])
                .arg(&dir)
                .arg("--expected")
                .arg(&expected_file),
        );
        let expected = serde_json::from_value(read_json(&expected_file)["deviating"].clone()).unwrap();
        Fleet { root, dir, expected }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    fn cache(&self) -> PathBuf {
        self.path("cache")
    }

    fn node_file(&self, node: &str) -> PathBuf {
        self.dir.join(format!("{node}.json"))
    }

    /// The nodes carrying a perturbation whose `--expected` entry starts with `kind`.
    fn nodes_with(&self, kind: &str) -> BTreeSet<String> {
        let with = |entries: &&Vec<String>| entries.iter().any(|entry| entry.starts_with(kind));
        self.expected
            .iter()
            .filter(|(_, entries)| with(entries))
            .map(|(node, _)| node.clone())
            .collect()
    }

    /// Every node name, `gpu-00001` ... in order.
    fn all_nodes(&self) -> Vec<String> {
        let stem = |entry: fs::DirEntry| entry.path().file_stem().unwrap().to_string_lossy().into_owned();
        let mut names: Vec<String> = fs::read_dir(&self.dir)
            .unwrap()
            .map(|entry| stem(entry.unwrap()))
            .collect();
        names.sort();
        names
    }

    /// `envdoctor fleet ARGUMENTS...`, not yet run.
    fn fleet(&self, arguments: &[&str]) -> assert_cmd::Command {
        let mut command = common::envdoctor(&self.cache());
        command.arg("fleet").args(arguments);
        command
    }

    /// Standard output and the exit code of `envdoctor fleet ARGUMENTS...`.
    fn output(&self, arguments: &[&str]) -> (String, i32) {
        let output = self.fleet(arguments).output().unwrap();
        (String::from_utf8(output.stdout).unwrap(), output.status.code().unwrap())
    }

    /// `envdoctor fleet ARGUMENTS... --format json`: the report and the exit code.
    fn json(&self, arguments: &[&str], stdin: Option<Vec<u8>>) -> (Value, i32) {
        let mut command = self.fleet(arguments);
        command.args(["--format", "json"]);
        if let Some(stdin) = stdin {
            command.write_stdin(stdin);
        }
        let output = command.output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        let report: Value = serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{error}: {text}\nstderr: {}", String::from_utf8_lossy(&output.stderr)));
        assert_eq!(report["schema"], "envdoctor.fleet/1");
        (report, output.status.code().unwrap())
    }
}

fn dir_arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_vec(value).unwrap()).unwrap();
}

/// (name, has a failure) of every JUnit test case, in document order.
fn testcases(xml: &str) -> Vec<(String, bool)> {
    let document = roxmltree::Document::parse(xml).unwrap_or_else(|error| panic!("{error}:\n{xml}"));
    let cases = document.descendants().filter(|node| node.has_tag_name("testcase"));
    let failed = |case: &roxmltree::Node| case.children().any(|child| child.has_tag_name("failure"));
    cases
        .map(|case| (case.attribute("name").unwrap().to_string(), failed(&case)))
        .collect()
}

/// The fleet as JSON lines, as `make_fleet.py --jsonl -` prints it.
fn fleet_jsonl(nodes: usize) -> Vec<u8> {
    let output = Command::new(common::system_python())
        .arg(MAKE_FLEET)
        .args(["--nodes", &nodes.to_string(), "--jsonl", "-"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// node -> {(id, subject, severity)} of every deviation; `env-*` ids as `env-*`.
fn differences(report: &Value) -> BTreeMap<String, BTreeSet<(String, String, String)>> {
    let mut found: BTreeMap<String, BTreeSet<_>> = BTreeMap::new();
    for deviation in report["deviations"].as_array().unwrap() {
        let items = deviation["differences"].as_array().unwrap();
        let worst = items.iter().map(|item| severity_rank(&item["severity"])).max().unwrap();
        assert_eq!(severity_rank(&deviation["severity"]), worst, "{deviation}");
        for node in deviation["nodes"].as_array().unwrap() {
            let node = node.as_str().unwrap().to_string();
            for item in items {
                let id = item["id"].as_str().unwrap();
                let id = if id.starts_with("env-") { "env-*" } else { id };
                let entry = (id.to_string(), string(&item["subject"]), string(&item["severity"]));
                assert!(
                    found.entry(node.clone()).or_default().insert(entry),
                    "{node} twice: {item}"
                );
            }
        }
    }
    found
}

fn severity_rank(severity: &Value) -> u8 {
    match severity.as_str().unwrap() {
        "info" => 0,
        "warning" => 1,
        "error" => 2,
        other => panic!("severity {other}"),
    }
}

fn string(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
        .to_string()
}

/// The nodes of the finding `id` (empty when there is none).
fn finding_nodes(report: &Value, id: &str) -> BTreeSet<String> {
    let findings = report["findings"].as_array().unwrap();
    let Some(finding) = findings.iter().find(|finding| finding["id"] == id) else {
        return BTreeSet::new();
    };
    let nodes: BTreeSet<String> = finding["nodes"].as_array().unwrap().iter().map(string).collect();
    assert_eq!(finding["count"], nodes.len(), "{finding}");
    nodes
}

/// What a fleet report must say about a node that carries `entry`, or `None`
/// for a perturbation that is no configuration difference.
fn expected_difference(entry: &str) -> Option<(String, String, String)> {
    let (kind, subject) = entry.split_once(' ').unwrap();
    let (id, severity) = match kind {
        "package-version" | "package-missing" | "driver-too-old" => (kind, "error"),
        "package-extra" => (kind, "warning"),
        "env" => ("env-*", "warning"),
        "shm-too-small" => ("node-shared-memory", "warning"),
        "gpu-pcie-link-degraded" => return None,
        other => panic!("make_fleet.py has a perturbation this test does not know: {other}"),
    };
    Some((id.to_string(), subject.to_string(), severity.to_string()))
}

/// Sets torch to `version` in a node's Snapshot, as `make_fleet.py` does.
fn set_torch(file: &Path, version: &str) {
    let mut snapshot = read_json(file);
    for package in snapshot["packages"].as_array_mut().unwrap() {
        if package["normalized_name"] == "torch" {
            package["version"] = version.into();
        }
    }
    let torch = &mut snapshot["frameworks"]["torch"];
    torch["version"] = version.into();
    if torch["build"]["kind"] == "torch" {
        torch["build"]["version"] = version.into();
    }
    write_json(file, &snapshot);
}

#[test]
fn a_generated_fleet_deviates_exactly_where_it_was_perturbed() {
    let fleet = Fleet::new(200);
    assert_eq!(fleet.expected.len(), 7, "{:?}", fleet.expected);
    let (report, code) = fleet.json(&[dir_arg(&fleet.dir)], None);
    assert_eq!(code, 1, "errors present");
    assert_eq!(report["reference"]["kind"], "majority");
    assert_eq!(report["nodes"]["reported"], 200);
    assert_eq!(report["nodes"]["deviating"], 6);
    assert_eq!(report["nodes"]["matching"], 194);
    assert_eq!(report["nodes"]["unreadable"], 0);

    let mut wanted: BTreeMap<String, BTreeSet<_>> = BTreeMap::new();
    for (node, entries) in &fleet.expected {
        for difference in entries.iter().filter_map(|entry| expected_difference(entry)) {
            wanted.entry(node.clone()).or_default().insert(difference);
        }
    }
    assert_eq!(differences(&report), wanted);

    let pcie = fleet.nodes_with("gpu-pcie-link-degraded");
    assert_eq!(pcie.len(), 1);
    assert_eq!(finding_nodes(&report, "gpu-pcie-link-degraded"), pcie);
    assert_eq!(
        finding_nodes(&report, "driver-too-old-for-torch-cuda"),
        fleet.nodes_with("driver-too-old")
    );
    // torch, driver and peft: the nodes with an error.
    assert_eq!(report["summary"]["failing_nodes"], 3);
    assert_eq!(report["summary"]["failed"], true);

    let (never, code) = fleet.json(&[dir_arg(&fleet.dir), "--fail-on", "never"], None);
    assert_eq!(code, 0);
    assert_eq!(never["summary"]["failed"], false);
    assert_eq!(never["deviations"], report["deviations"]);
}

#[test]
fn fail_on_counts_warnings_only_when_asked() {
    let fleet = Fleet::new(12);
    // Left: the warnings (NCCL, shm, the extra packages, the PCIe link) and clean nodes.
    for kind in ["package-version", "package-missing", "driver-too-old"] {
        for node in fleet.nodes_with(kind) {
            fs::remove_file(fleet.node_file(&node)).unwrap();
        }
    }
    let dir = dir_arg(&fleet.dir);
    for (fail_on, wanted) in [("error", 0), ("warning", 1), ("never", 0)] {
        let (report, code) = fleet.json(&[dir, "--fail-on", fail_on], None);
        assert_eq!(code, wanted, "--fail-on {fail_on}");
        assert_eq!(report["summary"]["fail_on"], fail_on);
        assert_eq!(report["nodes"]["reported"], 9);
    }
}

#[test]
fn standard_input_gives_what_the_directory_gives() {
    let fleet = Fleet::new(40);
    let (from_dir, dir_code) = fleet.json(&[dir_arg(&fleet.dir)], None);
    let lines = fleet_jsonl(40);
    assert_eq!(lines.iter().filter(|byte| **byte == b'\n').count(), 40);
    // The same documents pretty-printed back to back, a launcher's line among them.
    let mut pretty = b"srun: job 42 queued and waiting for resources\n".to_vec();
    for line in lines.split(|byte| *byte == b'\n').filter(|line| !line.is_empty()) {
        let value: Value = serde_json::from_slice(line).unwrap();
        pretty.extend(serde_json::to_vec_pretty(&value).unwrap());
        pretty.push(b'\n');
    }
    for (arguments, stdin) in [(&["-"][..], lines.clone()), (&[][..], lines), (&["-"][..], pretty)] {
        let (from_stdin, code) = fleet.json(arguments, Some(stdin));
        assert_eq!(code, dir_code, "{arguments:?}");
        for key in ["nodes", "majority", "deviations", "findings", "configurations"] {
            assert_eq!(from_stdin[key], from_dir[key], "{key} differs ({arguments:?})");
        }
    }
}

#[test]
fn check_reports_bring_their_own_findings() {
    let fleet = Fleet::new(10);
    let reports = fleet.path("reports");
    fs::create_dir(&reports).unwrap();
    let clean = fleet
        .all_nodes()
        .into_iter()
        .find(|node| !fleet.expected.contains_key(node))
        .unwrap();
    let pcie = fleet.nodes_with("gpu-pcie-link-degraded").pop_first().unwrap();
    let driver = fleet.nodes_with("driver-too-old").pop_first().unwrap();
    for node in [&clean, &pcie, &driver] {
        let output = reports.join(format!("{node}.json"));
        let mut check = common::envdoctor(&fleet.cache());
        check.arg("check").arg("--snapshot").arg(fleet.node_file(node));
        check.args(["--format", "json", "--no-smoke", "-o"]).arg(&output);
        let code = check.output().unwrap().status.code();
        assert!(matches!(code, Some(0 | 1)), "check on {node}: {code:?}");
        assert!(output.is_file());
    }
    // The fleet must take each node's findings as its report gives them: one made
    // up on the clean node, the driver node's own error taken out.
    let edit = |node: &str, change: &dyn Fn(&mut Vec<Value>)| {
        let file = reports.join(format!("{node}.json"));
        let mut report = read_json(&file);
        assert_eq!(report["schema"], "envdoctor.report/1");
        change(report["findings"].as_array_mut().unwrap());
        write_json(&file, &report);
    };
    edit(&clean, &|findings| {
        let mut made_up = findings[0].clone();
        made_up["id"] = "made-up-by-the-test".into();
        made_up["severity"] = "warning".into();
        findings.push(made_up);
    });
    edit(&driver, &|findings| {
        let before = findings.len();
        findings.retain(|finding| finding["id"] != "driver-too-old-for-torch-cuda");
        assert_eq!(findings.len(), before - 1);
    });

    let (report, code) = fleet.json(&[dir_arg(&reports)], None);
    assert_eq!(code, 1, "the driver node still differs from the other two");
    assert_eq!(report["nodes"]["reported"], 3);
    assert_eq!(report["nodes"]["judged"], 3);
    assert_eq!(finding_nodes(&report, "made-up-by-the-test"), BTreeSet::from([clean]));
    assert_eq!(finding_nodes(&report, "gpu-pcie-link-degraded"), BTreeSet::from([pcie]));
    assert_eq!(finding_nodes(&report, "driver-too-old-for-torch-cuda"), BTreeSet::new());
    assert_eq!(differences(&report).into_keys().collect::<Vec<_>>(), [driver]);
}

#[test]
fn unreadable_reports_are_named_and_the_rest_aggregated() {
    let fleet = Fleet::new(12);
    for node in fleet.expected.keys() {
        fs::remove_file(fleet.node_file(node)).unwrap();
    }
    let dir = dir_arg(&fleet.dir);
    let (report, code) = fleet.json(&[dir], None);
    assert_eq!((code, &report["nodes"]["reported"]), (0, &Value::from(5)), "{report}");

    let whole = fs::read(fleet.node_file(&fleet.all_nodes()[0])).unwrap();
    fs::write(fleet.dir.join("truncated.json"), &whole[..whole.len() / 2]).unwrap();
    fs::write(fleet.dir.join("a-diff.json"), r#"{"schema":"envdoctor.diff/1"}"#).unwrap();
    fs::write(fleet.dir.join("notes.txt"), "not a report, and not *.json").unwrap();
    let (report, code) = fleet.json(&[dir], None);
    assert_eq!(code, 1);
    assert_eq!(report["nodes"]["reported"], 5);
    assert_eq!(report["nodes"]["matching"], 5);
    assert_eq!(report["nodes"]["unreadable"], 2);
    let mut unreadable = report["unreadable"].as_array().unwrap().clone();
    unreadable.sort_by_key(|entry| string(&entry["node"]));
    let named: Vec<String> = unreadable.iter().map(|entry| string(&entry["node"])).collect();
    assert!(
        named[0].ends_with("a-diff.json") && named[1].ends_with("truncated.json"),
        "{named:?}"
    );
    for (entry, says) in unreadable.iter().zip(["envdoctor.diff/1", "truncated"]) {
        let problem = entry["problem"].as_str().unwrap();
        assert!(problem.contains(says) && !problem.contains('\n'), "{entry}");
    }
}

#[test]
fn a_missing_path_or_no_report_at_all_is_exit_2() {
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("no-such-reports");
    let empty = root.path().join("empty");
    fs::create_dir(&empty).unwrap();
    fs::write(empty.join("README.txt"), "no reports here").unwrap();
    let cases: [(&[&str], Option<&str>, &str); 5] = [
        (&[dir_arg(&missing)], None, "no-such-reports"),
        (&[dir_arg(&empty)], None, "no reports found in `"),
        // Nothing on standard input is no report, as an empty directory is.
        (&["-"], Some(""), "no reports found in standard input"),
        (&[], Some(""), "no reports found in standard input"),
        (&["-"], Some("\n  \n"), "no reports found in standard input"),
    ];
    for (arguments, stdin, says) in cases {
        let mut command = common::envdoctor(&root.path().join("cache"));
        command.arg("fleet").args(arguments);
        if let Some(stdin) = stdin {
            command.write_stdin(stdin);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty());
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says) && !stderr.contains("panicked"), "{stderr}");
    }
}

/// Issue 29: two nodes that differ are one against one. Neither is the
/// majority: the report names both, says what differs, and fails on the error.
#[test]
fn two_nodes_that_differ_are_named_not_called_a_majority() {
    let fleet = Fleet::new(8);
    let pair = fleet.path("pair");
    fs::create_dir(&pair).unwrap();
    let torch = fleet.nodes_with("package-version torch").pop_first().unwrap();
    let clean = fleet
        .all_nodes()
        .into_iter()
        .find(|node| !fleet.expected.contains_key(node))
        .unwrap();
    for node in [&clean, &torch] {
        fs::copy(fleet.node_file(node), pair.join(format!("{node}.json"))).unwrap();
    }
    // Reports are compared with the first one read: the files in name order.
    let (first, second) = if clean < torch {
        (&clean, &torch)
    } else {
        (&torch, &clean)
    };

    let (text, code) = fleet.output(&[dir_arg(&pair)]);
    assert_eq!(code, 1, "torch differs: an error\n{text}");
    let headline = text.lines().next().unwrap();
    assert_eq!(
        headline,
        format!("Fleet of 2 nodes: {first} and {second} differ, and with two nodes neither is the majority")
    );
    assert!(text.contains(&format!("\nCompared with {first}: ")), "{text}");
    for pretending in ["match the majority", "Majority:", "on most nodes"] {
        assert!(!text.contains(pretending), "`{pretending}` in\n{text}");
    }
    let verdict = text.trim_end().rsplit("\n\n").next().unwrap();
    assert!(
        common::width::words(verdict).contains("; checks run on both nodes;"),
        "{text}"
    );

    let (report, _) = fleet.json(&[dir_arg(&pair)], None);
    assert_eq!(report["reference"]["nodes"], first.as_str());
    let deviations = report["deviations"].as_array().unwrap();
    assert_eq!(deviations.len(), 1, "{report}");
    assert_eq!(deviations[0]["nodes"], serde_json::json!([second]));
    let torch_differs = deviations[0]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["subject"] == "torch")
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        string(&torch_differs["message"]).contains(&format!("on {first}")),
        "{torch_differs}"
    );
    // Every fact on which they differ is split one to one.
    let contested: Vec<String> = report["contested"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fact| string(&fact["subject"]))
        .collect();
    assert!(contested.contains(&"torch".to_string()), "{contested:?}");
}

/// Issue 29: no report read means no configuration, so no majority and no
/// fingerprint (`sha256:e3b0...` is the hash of nothing); reports that were
/// read are compared as ever, and the ones that were not are named.
#[test]
fn unreadable_files_never_make_a_majority_of_nothing() {
    let fleet = Fleet::new(12);
    let nodes = fleet.all_nodes();
    let broken = fleet.path("broken");
    fs::create_dir(&broken).unwrap();
    let whole = fs::read(fleet.node_file(&nodes[0])).unwrap();
    fs::write(broken.join("truncated.json"), &whole[..whole.len() / 2]).unwrap();
    // A report that cannot even be opened: a link to a file that is gone.
    std::os::unix::fs::symlink(fleet.path("gone.json"), broken.join("gone.json")).unwrap();
    fs::write(broken.join("empty.json"), "").unwrap();

    let (text, code) = fleet.output(&[dir_arg(&broken)]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        text.lines().next().unwrap(),
        "Fleet: no node's report was read; 3 reports unreadable"
    );
    assert!(!text.contains("Majority") && !text.contains("sha256:"), "{text}");
    for file in ["empty.json", "gone.json", "truncated.json"] {
        assert!(text.contains(file), "{file} in\n{text}");
    }
    assert!(
        text.trim_end()
            .ends_with("FAIL: no node's report was read; failing on error"),
        "{text}"
    );
    let (report, _) = fleet.json(&[dir_arg(&broken)], None);
    assert_eq!(report["reference"]["fingerprint"], Value::Null, "{report}");
    assert_eq!(report["majority"], serde_json::json!([]));
    let problems: Vec<String> = report["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| format!("{}: {}", string(&entry["node"]), string(&entry["problem"])))
        .collect();
    assert_eq!(problems.len(), 3, "{problems:?}");
    for (problem, says) in problems
        .iter()
        .zip(["empty.json: empty", "gone.json: cannot read it", "truncated"])
    {
        assert!(problem.contains(says), "{problem}");
    }

    // Beside readable reports, the unreadable ones are named and the rest compared.
    let clean = nodes.iter().filter(|node| !fleet.expected.contains_key(*node));
    for node in clean.take(2) {
        fs::copy(fleet.node_file(node), broken.join(format!("{node}.json"))).unwrap();
    }
    let (text, code) = fleet.output(&[dir_arg(&broken)]);
    assert_eq!(code, 1, "{text}");
    let majority = "Fleet of 2 nodes: 2 match the majority, 0 differ, 3 reports unreadable\nMajority: ";
    assert!(text.starts_with(majority), "{text}");
    let (report, _) = fleet.json(&[dir_arg(&broken)], None);
    let fingerprint = string(&report["reference"]["fingerprint"]);
    assert_eq!(report["configurations"][0]["fingerprint"], fingerprint.as_str());
}

#[test]
fn a_lock_is_the_reference_even_against_the_majority() {
    let fleet = Fleet::new(20);
    let lock = fleet.path("base.lock");
    common::envdoctor(&fleet.cache())
        .args(["lock", "--snapshot", BASE, "-o"])
        .arg(&lock)
        .assert()
        .success();
    // 12 of 20 nodes (and the generator's own torch node) move to another torch.
    let torch_node = fleet.nodes_with("package-version");
    let others = fleet.all_nodes().into_iter().filter(|node| !torch_node.contains(node));
    let moved: BTreeSet<String> = others.take(12).collect();
    for node in &moved {
        set_torch(&fleet.node_file(node), OTHER_TORCH);
    }
    let other_torch: BTreeSet<String> = moved.union(&torch_node).cloned().collect();
    assert_eq!(other_torch.len(), 13);
    let torch_nodes = |report: &Value| -> BTreeSet<String> {
        let wanted = ("package-version".to_string(), "torch".to_string(), "error".to_string());
        let differences = differences(report).into_iter();
        differences
            .filter(|(_, items)| items.contains(&wanted))
            .map(|(node, _)| node)
            .collect()
    };
    let dir = dir_arg(&fleet.dir);

    let (majority, code) = fleet.json(&[dir], None);
    assert_eq!((code, &majority["reference"]["kind"]), (1, &Value::from("majority")));
    let kept: BTreeSet<String> = fleet
        .all_nodes()
        .into_iter()
        .filter(|node| !other_torch.contains(node))
        .collect();
    assert_eq!(
        torch_nodes(&majority),
        kept,
        "against the majority, the 7 nodes left on 2.11.0 differ"
    );

    let (locked, code) = fleet.json(&["--lock", lock.to_str().unwrap(), dir], None);
    assert_eq!(code, 1);
    assert_eq!(locked["reference"]["kind"], "lock");
    assert!(locked["reference"]["lock"].as_str().unwrap().ends_with("base.lock"));
    assert_eq!(
        torch_nodes(&locked),
        other_torch,
        "against the lock, every node on {OTHER_TORCH} differs"
    );
    let deviating: BTreeSet<String> = differences(&locked).into_keys().collect();
    let clean: Vec<&String> = kept.iter().filter(|node| !fleet.expected.contains_key(*node)).collect();
    assert!(!clean.is_empty());
    assert!(clean.iter().all(|node| !deviating.contains(*node)), "{deviating:?}");

    let bad_lock = fleet.path("missing.lock");
    fleet
        .fleet(&["--lock", bad_lock.to_str().unwrap(), dir])
        .assert()
        .code(2);
}

#[test]
fn junit_markdown_and_an_output_file() {
    let fleet = Fleet::new(10);
    let dir = dir_arg(&fleet.dir);
    let failing: BTreeSet<String> = ["package-version", "package-missing", "driver-too-old"]
        .iter()
        .flat_map(|kind| fleet.nodes_with(kind))
        .collect();

    let (xml, code) = fleet.output(&[dir, "--format", "junit"]);
    assert_eq!(code, 1);
    let cases = testcases(&xml);
    let names: Vec<&String> = cases.iter().map(|(name, _)| name).collect();
    assert_eq!(names, fleet.all_nodes().iter().collect::<Vec<_>>());
    let failed: BTreeSet<String> = cases
        .into_iter()
        .filter(|(_, failed)| *failed)
        .map(|(name, _)| name)
        .collect();
    assert_eq!(failed, failing);
    let suite = format!("tests=\"10\" failures=\"{}\"", failing.len());
    assert!(xml.contains(&suite), "{xml}");

    let (markdown, _) = fleet.output(&[dir, "--format", "markdown"]);
    let table = "| severity | nodes | what differs | fix |\n|---|---|---|---|\n";
    assert!(markdown.contains(table), "{markdown}");
    for node in fleet.expected.keys() {
        assert!(markdown.contains(&format!("`{node}`")), "{node} missing:\n{markdown}");
    }

    let out_dir = fleet.path("out");
    fs::create_dir(&out_dir).unwrap();
    let file = out_dir.join("fleet.json");
    let (stdout, code) = fleet.output(&[dir, "--format", "json", "-o", file.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(read_json(&file)["nodes"]["reported"], 10);
    let left: Vec<_> = fs::read_dir(&out_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(left, ["fleet.json"], "nothing but the report is left behind");
}

#[test]
fn host_in_an_output_path_names_the_file() {
    let root = tempfile::tempdir().unwrap();
    let reports = root.path().join("reports");
    fs::create_dir(&reports).unwrap();
    let target = format!("{}/{{host}}.json", reports.display());
    let probe = |variables: &[(&str, &str)]| {
        let mut command = common::envdoctor(&root.path().join("cache"));
        command.env_remove("ENVDOCTOR_NODE_NAME").env_remove("SLURMD_NODENAME");
        command.envs(variables.iter().copied());
        command.args(["probe", "--snapshot", BASE, "--format", "json", "-o", &target]);
        command.output().unwrap()
    };
    assert!(
        probe(&[("ENVDOCTOR_NODE_NAME", "n42"), ("SLURMD_NODENAME", "s1")])
            .status
            .success()
    );
    assert!(probe(&[("SLURMD_NODENAME", "n7")]).status.success());
    let refused = probe(&[("ENVDOCTOR_NODE_NAME", "../escape")]);
    assert_eq!(refused.status.code(), Some(2));
    let name = |entry: fs::DirEntry| entry.file_name().into_string().unwrap();
    let mut files: Vec<String> = fs::read_dir(&reports)
        .unwrap()
        .map(|entry| name(entry.unwrap()))
        .collect();
    files.sort();
    assert_eq!(files, ["n42.json", "n7.json"]);
    assert_eq!(read_json(&reports.join("n42.json"))["schema"], "envdoctor.snapshot/1");
    assert!(!root.path().join("escape.json").exists());
}

#[test]
fn reports_claiming_one_name_are_listed_as_duplicates() {
    let fleet = Fleet::new(8);
    let first = fleet.all_nodes()[0].clone();
    fs::copy(fleet.node_file(&first), fleet.dir.join("zz-copy.json")).unwrap();
    // A node named by ENVDOCTOR_NODE_NAME, before SLURMD_NODENAME and its host name.
    let renamed = fleet.node_file(&fleet.all_nodes()[1]);
    let mut snapshot = read_json(&renamed);
    snapshot["env"]["ENVDOCTOR_NODE_NAME"] = "custom-7".into();
    write_json(&renamed, &snapshot);

    let (report, _) = fleet.json(&[dir_arg(&fleet.dir)], None);
    assert_eq!(report["duplicates"], serde_json::json!([first]));
    assert_eq!(report["nodes"]["reported"], 9);
    let (xml, _) = fleet.output(&[dir_arg(&fleet.dir), "--format", "junit"]);
    let names: BTreeSet<String> = testcases(&xml).into_iter().map(|(name, _)| name).collect();
    assert!(names.contains(&format!("{first}#2")), "{names:?}");
    assert!(names.contains("custom-7"), "{names:?}");
    assert_eq!(names.len(), 9);
}

/// Issue 20: an envdoctor flag after `--slurm` would go to srun; it is named in
/// a one-line error instead (srun's own `-o` and `--deadline` stay srun's).
#[test]
fn an_envdoctor_flag_after_slurm_is_named() {
    let cache = tempfile::tempdir().unwrap();
    let output = common::envdoctor(cache.path())
        .args(["fleet", "--slurm", "-N", "3", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8(output.stderr).unwrap();
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains("`--format` comes after --slurm"), "{error}");
}
