//! `envdoctor lock`, `verify` and `diff` on real virtual environments changed
//! with the real pip, and on the GPU Snapshots of `tests/fixtures/snapshots`.
//! Each drift test asserts the exit code and the drift items' ids, subjects
//! and values of the `envdoctor.verify/1` JSON.

use crate::common;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{create_venv, envdoctor, run, site_packages, system_python, write_project};
use serde_json::Value;
use tempfile::TempDir;

/// Hand-made from documented values, not recordings: see their README.
const H100: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json"
);
const H200: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json"
);
const BUILD_WHEEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/locks/build_wheel.py");

/// (project, version, requirements) of the wheels every node can install from
/// its `--find-links` folder: an install by name, as from an index.
const WHEELS: [(&str, &str, &[&str]); 6] = [
    ("alpha", "1.0", &[]),
    ("alpha", "2.0", &[]),
    ("beta", "0.3", &[]),
    ("gamma", "1.1", &["beta"]),
    ("delta", "0.1", &[]),
    ("epsilon", "1.0", &[]),
];

/// A virtual environment without pip (the machine's pip installs into it
/// with `--python`, which is faster than a venv of its own), the wheels of
/// `WHEELS`, and the source trees `edpkg` and `dirpkg`.
struct Node {
    root: TempDir,
    python: PathBuf,
}

impl Node {
    fn new() -> Node {
        let root = tempfile::tempdir().unwrap();
        let python = create_venv(&root.path().join("venv"), false);
        let node = Node { root, python };
        for (name, version, requirements) in WHEELS {
            node.build_wheel(&format!("{name}-{version}"), "wheels", requirements);
        }
        for name in ["edpkg", "dirpkg"] {
            write_project(&node.path(&format!("projects/{name}")), name, "0.1");
        }
        node
    }

    /// Writes the project `NAME-VERSION` (if it is not there yet) and builds
    /// its wheel into the folder `into`, with these `Requires-Dist`.
    fn build_wheel(&self, project: &str, into: &str, requirements: &[&str]) {
        let (name, version) = project.rsplit_once('-').unwrap();
        let directory = write_project(&self.path(&format!("projects/{project}")), name, version);
        run(Command::new(system_python())
            .arg(BUILD_WHEEL)
            .arg(directory)
            .arg(self.path(into))
            .args(requirements));
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    /// The interpreter cache of every envdoctor run, inside the node.
    fn cache(&self) -> PathBuf {
        self.path("cache")
    }

    fn pip(&self, arguments: &[&OsStr]) {
        run(Command::new(system_python())
            .args(["-m", "pip", "--python"])
            .arg(&self.python)
            .args(arguments));
    }

    /// `pip install` of names found among the wheels, or of paths to projects.
    fn install(&self, requirements: &[&str]) {
        self.install_from("wheels", requirements);
    }

    /// `pip install` with the folder `wheels` as the only index.
    fn install_from(&self, wheels: &str, arguments: &[&str]) {
        let wheels = self.path(wheels);
        let mut all: Vec<&OsStr> = ["install", "--no-index", "--no-build-isolation", "--find-links"]
            .map(OsStr::new)
            .to_vec();
        all.push(wheels.as_os_str());
        all.extend(arguments.iter().map(OsStr::new));
        self.pip(&all);
    }

    /// Runs a drift item's `'VENV/bin/python' -m pip ...` fix as it is
    /// written, with the node's wheels as the index: a fix that names
    /// another interpreter's pip is refused.
    fn apply(&self, fix: &str) {
        let words: Vec<&str> = fix.split(' ').map(|word| word.trim_matches('\'')).collect();
        let python = self.python.to_str().unwrap();
        let pip = words
            .strip_prefix(&[python, "-m", "pip"][..])
            .unwrap_or_else(|| panic!("not a pip command of {python}: {fix}"));
        match pip.split_first() {
            Some((&"install", arguments)) => self.install(arguments),
            _ => self.pip(&pip.iter().map(OsStr::new).collect::<Vec<_>>()),
        }
    }

    fn uninstall(&self, names: &[&str]) {
        let mut arguments: Vec<&OsStr> = ["uninstall", "-y"].map(OsStr::new).to_vec();
        arguments.extend(names.iter().map(OsStr::new));
        self.pip(&arguments);
    }

    fn project(&self, name: &str) -> String {
        self.path(&format!("projects/{name}")).display().to_string()
    }

    /// `envdoctor lock --python VENV -o FILE`, which must succeed; the lock's bytes.
    fn lock(&self, file: &Path) -> Vec<u8> {
        envdoctor(&self.cache())
            .args(["lock", "--python"])
            .arg(&self.python)
            .arg("-o")
            .arg(file)
            .assert()
            .success();
        fs::read(file).unwrap()
    }

    /// The venv's lock, written to `envdoctor.lock` in the node's folder.
    fn locked(&self) -> PathBuf {
        let lock = self.path("envdoctor.lock");
        self.lock(&lock);
        lock
    }

    /// `envdoctor probe --python VENV --format json -o FILE`, which must succeed.
    fn probe(&self, file: &Path) {
        envdoctor(&self.cache())
            .args(["probe", "--format", "json", "--python"])
            .arg(&self.python)
            .arg("-o")
            .arg(file)
            .assert()
            .success();
    }

    /// `envdoctor verify --lock LOCK --python VENV --format json ARGUMENTS...`.
    fn verify(&self, lock: &Path, arguments: &[&str]) -> (i32, Value) {
        let mut command = envdoctor(&self.cache());
        command
            .args(["verify", "--format", "json", "--lock"])
            .arg(lock)
            .arg("--python")
            .arg(&self.python)
            .args(arguments);
        json_run(command)
    }
}

/// Runs envdoctor for a JSON document: its exit code and the document, after
/// checking that it did not panic.
fn json_run(mut command: assert_cmd::Command) -> (i32, Value) {
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let code = output.status.code().expect("envdoctor exits, it is not killed");
    let document = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("exit {code}, not JSON ({error}): {stderr}"));
    (code, document)
}

/// `envdoctor verify --lock LOCK --snapshot SNAPSHOT ARGUMENTS...`: exit code and stdout.
fn verify_snapshot(cache: &Path, lock: &Path, snapshot: &str, arguments: &[&str]) -> (i32, Vec<u8>) {
    let output = envdoctor(cache)
        .args(["verify", "--lock"])
        .arg(lock)
        .args(["--snapshot", snapshot])
        .args(arguments)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    (output.status.code().unwrap(), output.stdout)
}

fn diff(cache: &Path, a: &Path, b: &Path) -> (i32, Value) {
    let mut command = envdoctor(cache);
    command.args(["diff", "--format", "json"]).arg(a).arg(b);
    json_run(command)
}

fn items(report: &Value) -> &[Value] {
    report["drift"].as_array().expect("`drift` is an array")
}

/// `(id, subject)` of every drift item, in report order.
fn drift(report: &Value) -> Vec<(String, String)> {
    items(report)
        .iter()
        .map(|item| (text(&item["id"]), text(&item["subject"])))
        .collect()
}

/// The one drift item with this id.
fn item<'a>(report: &'a Value, id: &str) -> &'a Value {
    let matching: Vec<&Value> = items(report).iter().filter(|item| item["id"] == id).collect();
    assert_eq!(matching.len(), 1, "one `{id}` in {report:#}");
    matching[0]
}

/// The drift item with this id and subject.
fn item_about<'a>(report: &'a Value, id: &str, subject: &str) -> &'a Value {
    items(report)
        .iter()
        .find(|item| item["id"] == id && item["subject"] == subject)
        .unwrap_or_else(|| panic!("no `{id}` about {subject} in {report:#}"))
}

/// The only drift item of a report, which must be this one.
fn sole<'a>(report: &'a Value, id: &str, subject: &str) -> &'a Value {
    assert_eq!(drift(report), pairs(&[(id, subject)]), "{report:#}");
    &report["drift"][0]
}

/// A drift item's `expected` and `found` values; `None` is JSON null.
fn assert_values(item: &Value, expected: Option<&str>, found: Option<&str>) {
    assert_eq!(
        (&item["expected"], &item["found"]),
        (&Value::from(expected), &Value::from(found)),
        "{item}"
    );
}

fn text(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{value} is not a string"))
        .to_string()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(id, subject)| (id.to_string(), subject.to_string()))
        .collect()
}

/// The lock of a Snapshot fixture, as text.
fn snapshot_lock(cache: &Path, snapshot: &str, file: &Path) -> String {
    envdoctor(cache)
        .args(["lock", "--snapshot", snapshot, "-o"])
        .arg(file)
        .assert()
        .success();
    fs::read_to_string(file).unwrap()
}

fn packages(lock: &toml_edit::DocumentMut) -> Vec<&toml_edit::Table> {
    lock["packages"]
        .as_array_of_tables()
        .expect("[[packages]]")
        .iter()
        .collect()
}

fn package<'a>(lock: &'a toml_edit::DocumentMut, name: &str) -> &'a toml_edit::Table {
    packages(lock)
        .into_iter()
        .find(|package| package["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("{name} is not in the lock"))
}

/// Every key of a TOML document, at any depth, inline tables included.
fn keys(item: &toml_edit::Item, into: &mut Vec<String>) {
    let mut table_like = |table: &dyn toml_edit::TableLike| {
        for (key, child) in table.iter() {
            into.push(key.to_string());
            keys(child, into);
        }
    };
    match item {
        toml_edit::Item::Table(table) => table_like(table),
        toml_edit::Item::ArrayOfTables(tables) => tables.iter().for_each(|table| table_like(table)),
        toml_edit::Item::Value(toml_edit::Value::InlineTable(table)) => table_like(table),
        _ => {}
    }
}

/// The per-node facts a lock leaves to Snapshots.
fn assert_no_node_facts(lock: &str, host: &str) {
    let document: toml_edit::DocumentMut = lock.parse().unwrap();
    let mut all = Vec::new();
    keys(document.as_item(), &mut all);
    for key in &all {
        for per_node in ["uuid", "pci", "host", "serial", "temperature"] {
            assert!(!key.contains(per_node), "`{key}` is a per-node fact:\n{lock}");
        }
    }
    assert!(!lock.contains("GPU-"), "a GPU UUID is in the lock:\n{lock}");
    assert!(
        !lock.contains(&format!("\"{host}\"")),
        "the host name {host} is in the lock:\n{lock}"
    );
}

#[test]
fn one_environment_locks_to_the_same_bytes_every_time() {
    let node = Node::new();
    node.install(&["alpha==1.0", "gamma", "-e", &node.project("edpkg")]);
    let first = node.lock(&node.path("first.lock"));
    let second = node.lock(&node.path("second.lock"));
    assert_eq!(first, second, "two locks of one environment differ");
    let stdout = envdoctor(&node.cache())
        .args(["lock", "-o", "-", "--python"])
        .arg(&node.python)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(stdout).unwrap(), String::from_utf8(first).unwrap());

    // The same installs in another venv, at another path, make the same lock:
    // nothing of the venv's own path is in it.
    let twin = Node::new();
    twin.install(&["alpha==1.0", "gamma", "-e", &node.project("edpkg")]);
    assert_eq!(
        String::from_utf8(twin.lock(&twin.path("twin.lock"))).unwrap(),
        String::from_utf8(second).unwrap(),
        "the same packages in another venv lock differently"
    );
}

/// pip's REQUESTED marker says how a package was asked for, not what runs:
/// `pip install gamma` and `pip install -r` of its freeze install the same
/// files, so they are one lock, one fingerprint and one fleet configuration.
#[test]
fn the_same_distributions_asked_for_two_ways_are_one_environment() {
    let by_name = Node::new();
    by_name.install(&["gamma"]);
    let freeze = by_name.path("requirements.txt");
    let frozen = run(Command::new(system_python())
        .args(["-m", "pip", "--python"])
        .arg(&by_name.python)
        .args(["freeze", "--all", "--exclude", "pip"]));
    fs::write(&freeze, &frozen).unwrap();
    let from_freeze = Node::new();
    from_freeze.install(&["-r", freeze.to_str().unwrap()]);
    let requested = |node: &Node, name: &str| {
        let site = site_packages(&node.python);
        site.join(format!("{name}-0.3.dist-info/REQUESTED")).exists()
    };
    assert!(
        !requested(&by_name, "beta") && requested(&from_freeze, "beta"),
        "the two venvs must differ in pip's REQUESTED marker for this test to mean anything"
    );

    let (a, b) = (
        by_name.lock(&by_name.path("a.lock")),
        from_freeze.lock(&from_freeze.path("b.lock")),
    );
    assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());

    let reports = by_name.path("reports");
    fs::create_dir(&reports).unwrap();
    by_name.probe(&reports.join("a.json"));
    from_freeze.probe(&reports.join("b.json"));
    let mut fleet = envdoctor(&by_name.cache());
    fleet.args(["fleet", "--format", "json"]).arg(&reports);
    let (code, report) = json_run(fleet);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["configurations"].as_array().map(Vec::len), Some(1), "{report}");
    let (code, report) = diff(&by_name.cache(), &reports.join("a.json"), &reports.join("b.json"));
    assert_eq!((code, items(&report).len()), (0, 0), "{report}");
}

/// The lock's own header says `envdoctor export --format requirements
/// --hashes` in its folder: that exports the lock, not the default
/// interpreter's packages, and says so; `--python` still exports a live node.
#[test]
fn export_in_the_folder_of_a_lock_exports_the_lock() {
    let node = Node::new();
    node.install(&["alpha==1.0", "gamma"]);
    node.locked();
    node.install(&["delta"]);
    let export = |arguments: &[&str]| {
        let output = envdoctor(&node.cache())
            .current_dir(node.root.path())
            .env_remove("VIRTUAL_ENV")
            .env_remove("CONDA_PREFIX")
            .args(["export", "--format", "requirements"])
            .args(arguments)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let pins: Vec<String> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .map(str::to_string)
            .collect();
        (pins, String::from_utf8(output.stderr).unwrap())
    };
    let (from_folder, said) = export(&[]);
    assert_eq!(from_folder, ["alpha==1.0", "beta==0.3", "gamma==1.1"], "{said}");
    assert!(
        said.contains("exporting the lock envdoctor.lock (fingerprint sha256:"),
        "{said}"
    );
    assert_eq!(export(&["--lock", "envdoctor.lock"]).0, from_folder);
    let python = node.python.to_str().unwrap();
    let (live, said) = export(&["--python", python]);
    assert!(live.contains(&"delta==0.1".to_string()), "{live:?}");
    assert!(!said.contains("exporting the lock"), "{said}");
}

#[test]
fn a_lock_holds_the_packages_as_installed_and_no_per_node_facts() {
    let node = Node::new();
    node.install(&[
        "alpha==1.0",
        "gamma",
        "-e",
        &node.project("edpkg"),
        &node.project("dirpkg"),
    ]);
    let file = node.path("envdoctor.lock");
    let lock = String::from_utf8(node.lock(&file)).unwrap();

    let first_key = lock
        .lines()
        .find(|line| !line.starts_with('#') && !line.trim().is_empty());
    assert_eq!(first_key, Some("format-version = \"1.1\""), "{lock}");
    let document: toml_edit::DocumentMut = lock.parse().unwrap();
    let fingerprint = document["fingerprint"].as_str().unwrap();
    let digest = fingerprint.strip_prefix("sha256:").expect("a sha256: fingerprint");
    assert!(
        digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
        "{fingerprint}"
    );

    let names: Vec<&str> = packages(&document)
        .iter()
        .map(|package| package["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["alpha", "beta", "dirpkg", "edpkg", "gamma"],
        "sorted, and nothing else"
    );
    for (name, version) in [
        ("alpha", "1.0"),
        ("beta", "0.3"),
        ("gamma", "1.1"),
        ("edpkg", "0.1"),
        ("dirpkg", "0.1"),
    ] {
        let package = package(&document, name);
        assert_eq!(package["version"].as_str(), Some(version), "{name}");
        // How it was installed and asked for is the Snapshot's, not the identity's.
        assert!(package.get("installer").is_none(), "{name}");
        assert!(package.get("requested").is_none(), "{name}: REQUESTED");
        let tags: Vec<&str> = package["wheel-tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tag| tag.as_str().unwrap())
            .collect();
        assert_eq!(tags, ["py3-none-any"], "{name}");
        let record = package["record-digest"].as_str().unwrap_or_default();
        assert!(record.starts_with("sha256:") && record.len() == 71, "{name}: {record}");
    }
    // Installed by name from the --find-links folder, as from an index: no direct_url.json.
    for name in ["alpha", "beta", "gamma"] {
        let source = package(&document, name)["source"].as_inline_table().unwrap();
        assert_eq!(
            source.get("kind").and_then(|kind| kind.as_str()),
            Some("index"),
            "{name}"
        );
        assert_eq!(source.len(), 1, "{name}: {source}");
    }
    for (name, editable) in [("edpkg", true), ("dirpkg", false)] {
        let source = package(&document, name)["source"].as_inline_table().unwrap();
        assert_eq!(
            source.get("kind").and_then(|kind| kind.as_str()),
            Some("directory"),
            "{name}"
        );
        assert_eq!(
            source.get("editable").and_then(|flag| flag.as_bool()),
            Some(editable),
            "{name}"
        );
        let url = source.get("url").and_then(|url| url.as_str()).unwrap();
        assert!(
            url.starts_with("file://") && url.ends_with(&format!("/projects/{name}")),
            "{url}"
        );
    }
    let venv = node.path("venv").display().to_string();
    assert!(!lock.contains(&venv), "the venv's path is a per-node fact:\n{lock}");
    let host = fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_no_node_facts(&lock, host.trim());
}

#[test]
fn a_gpu_node_locks_its_gpu_models_and_counts_not_its_gpus() {
    let directory = tempfile::tempdir().unwrap();
    for (snapshot, name, count, driver, host) in [
        (H200, "NVIDIA H200", 1, "580.65.06", "h200-node-01"),
        (H100, "NVIDIA H100 80GB HBM3", 6, "535.183.01", "h100-node-01"),
    ] {
        let lock = snapshot_lock(directory.path(), snapshot, &directory.path().join("gpu.lock"));
        let document: toml_edit::DocumentMut = lock.parse().unwrap();
        let groups = document["gpus"].as_array_of_tables().expect("[[gpus]]");
        assert_eq!(groups.len(), 1, "one group per model:\n{lock}");
        let group = groups.get(0).unwrap();
        assert_eq!(group["name"].as_str(), Some(name));
        assert_eq!(group["count"].as_integer(), Some(count));
        assert_eq!(group["compute-capability"].as_str(), Some("9.0"));
        assert_eq!(document["nvidia"]["driver"].as_str(), Some(driver));
        // A replayed Snapshot's files are another machine's: no RECORD digests.
        assert!(!lock.contains("record-digest"), "{lock}");
        assert!(!lock.contains("/opt/venvs/train"), "{lock}");
        assert!(lock.contains("fingerprint = \"sha256:"), "{lock}");
        assert_no_node_facts(&lock, host);
    }
}

#[test]
fn an_unchanged_venv_verifies_without_drift() {
    let node = Node::new();
    node.install(&["alpha==1.0", "gamma", "-e", &node.project("edpkg")]);
    let lock = node.locked();
    for arguments in [&[][..], &["--files"], &["--fail-on", "warning"]] {
        let (code, report) = node.verify(&lock, arguments);
        assert_eq!(report["schema"], "envdoctor.verify/1");
        assert_eq!(drift(&report), [], "{arguments:?}: {report:#}");
        assert_eq!(code, 0, "{arguments:?}");
        assert_eq!(report["summary"]["failed"], false);
        assert_eq!(report["expected"]["fingerprint"], report["found"]["fingerprint"]);
    }
    // The default lock is ./envdoctor.lock.
    envdoctor(&node.cache())
        .current_dir(node.root.path())
        .arg("verify")
        .arg("--python")
        .arg(&node.python)
        .assert()
        .code(0);
}

#[test]
fn an_added_a_removed_and_a_changed_package_are_drift() {
    let node = Node::new();
    node.install(&["alpha==1.0", "beta"]);
    let lock = node.locked();

    // Added: a warning, which fails only from --fail-on warning.
    node.install(&["delta"]);
    let (code, report) = node.verify(&lock, &[]);
    let extra = sole(&report, "package-extra", "delta");
    assert_eq!(extra["severity"], "warning");
    assert_values(extra, None, Some("0.1"));
    assert_eq!(
        extra["fix"],
        format!("'{}' -m pip uninstall -y 'delta'", node.python.display()),
        "the fix runs the pip of the interpreter verify judged"
    );
    assert_eq!(code, 0, "a warning is below the default --fail-on error");
    assert_eq!(node.verify(&lock, &["--fail-on", "warning"]).0, 1);
    assert_eq!(node.verify(&lock, &["--fail-on", "never"]).0, 0);

    // Removed.
    node.uninstall(&["delta", "beta"]);
    let (code, report) = node.verify(&lock, &[]);
    let missing = sole(&report, "package-missing", "beta");
    assert_eq!(missing["severity"], "error");
    assert_values(missing, Some("0.3"), None);
    let fix = text(&missing["fix"]);
    assert!(fix.contains("pip install") && fix.contains("beta==0.3"), "{fix}");
    assert_eq!(code, 1);
    assert_eq!(node.verify(&lock, &["--fail-on", "never"]).0, 0);

    // Changed: another version of alpha over the locked one.
    node.install(&["beta", "alpha==2.0"]);
    let (code, report) = node.verify(&lock, &[]);
    let changed = sole(&report, "package-version", "alpha");
    assert_eq!(changed["severity"], "error");
    assert_values(changed, Some("1.0"), Some("2.0"));
    let fix = text(&changed["fix"]);
    assert!(fix.contains("pip install") && fix.contains("'alpha==1.0'"), "{fix}");
    assert_eq!(code, 1);
    assert_eq!(report["summary"]["errors"], 1);
    assert_eq!(report["summary"]["failed"], true);
}

/// What the installer rewrites after unpacking is judged for what it is: pip
/// compiles a package again and rewrites the `.pyc` its wheel ships (numpy
/// 2.3.5's `conv_template.cpython-311.pyc` did, and failed `--files` for
/// ever), and a script's `#!` line names the environment's interpreter.
#[test]
fn what_the_installer_rewrites_is_not_drift() {
    let node = Node::new();
    node.build_wheel("zeta-1.0", "wheels", &["--with-pyc", "--with-script", "zeta-run"]);
    node.install(&["zeta"]);
    let lock = node.locked();
    let site = site_packages(&node.python);
    let record = fs::read_to_string(site.join("zeta-1.0.dist-info/RECORD")).unwrap();
    let pyc_row = record
        .lines()
        .find(|line| line.starts_with("zeta/__pycache__/__init__.") && line.contains(".pyc,sha256="))
        .expect("the wheel's .pyc is in RECORD");
    let pyc_path = site.join(pyc_row.split(',').next().unwrap());
    let installed = fs::read(&pyc_path).unwrap();
    assert_ne!(
        pyc_row.rsplit(',').next().unwrap(),
        installed.len().to_string(),
        "pip must have rewritten the wheel's .pyc for this test to mean anything"
    );

    let (code, report) = node.verify(&lock, &["--files"]);
    assert_eq!((code, drift(&report)), (0, vec![]), "{report:#}");

    // The environment moved, and its scripts' first lines with it (as
    // conda-pack's unpack does): a warning that says why and what would
    // decide it. A first line that names another interpreter is an edit.
    let moved = node.path("moved");
    run(Command::new("cp").arg("-a").arg(node.path("venv")).arg(&moved));
    let moved_python = moved.join("bin/python");
    let script = moved.join("bin/zeta-run");
    let written = fs::read_to_string(&script).unwrap();
    let (first, rest) = written.split_once('\n').unwrap();
    assert!(
        first.starts_with("#!") && first.contains("/venv/bin/python"),
        "{written}"
    );
    fs::write(&script, format!("#!{}\n{rest}", moved_python.display())).unwrap();
    let verify_moved = || {
        let mut command = envdoctor(&node.cache());
        command
            .args(["verify", "--files", "--format", "json", "--lock"])
            .arg(&lock)
            .arg("--python")
            .arg(&moved_python);
        json_run(command)
    };
    let (code, report) = verify_moved();
    let item = sole(&report, "file-script-rewritten", "zeta ../../../bin/zeta-run");
    assert_eq!(
        (code, text(&item["severity"])),
        (0, "warning".to_string()),
        "{report:#}"
    );
    assert!(
        text(&item["message"]).contains(&format!("#!{}", moved_python.display())),
        "{item:#}"
    );
    fs::write(&script, format!("#!/usr/bin/python3\n{rest}")).unwrap();
    let (code, report) = verify_moved();
    assert_eq!(code, 1, "{report:#}");
    sole(&report, "file-modified", "zeta ../../../bin/zeta-run");

    // Byte code Python runs without checking it against its source (PEP 552's
    // unchecked hash) is judged as code.
    let mut unchecked = installed.clone();
    unchecked[4] = 1;
    fs::write(&pyc_path, &unchecked).unwrap();
    let (code, report) = node.verify(&lock, &["--files"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(items(&report).len(), 1, "{report:#}");
    assert_eq!(items(&report)[0]["id"], "file-modified");
    // A missing cache is written again on import.
    fs::remove_file(&pyc_path).unwrap();
    let (code, report) = node.verify(&lock, &["--files"]);
    assert_eq!((code, drift(&report)), (0, vec![]), "{report:#}");
}

#[test]
fn files_changed_in_place_are_drift_with_files_only() {
    let node = Node::new();
    node.install(&["alpha==1.0", "beta", "gamma"]);
    let lock = node.locked();
    let site = site_packages(&node.python);

    // Another size, and the same size with other content: both are found.
    let alpha = site.join("alpha/__init__.py");
    let mut grown = fs::read_to_string(&alpha).unwrap();
    grown.push_str("import os  # patched on the node\n");
    fs::write(&alpha, grown).unwrap();
    let gamma = site.join("gamma/__init__.py");
    let original = fs::read_to_string(&gamma).unwrap();
    fs::write(&gamma, original.replace("1.1", "9.9")).unwrap();
    fs::remove_file(site.join("beta/__init__.py")).unwrap();

    let (code, report) = node.verify(&lock, &[]);
    assert_eq!(
        (code, drift(&report)),
        (0, vec![]),
        "without --files nothing is re-hashed: {report:#}"
    );

    let (code, report) = node.verify(&lock, &["--files"]);
    let mut found = drift(&report);
    found.sort();
    assert_eq!(
        found,
        pairs(&[
            ("file-missing", "beta beta/__init__.py"),
            ("file-modified", "alpha alpha/__init__.py"),
            ("file-modified", "gamma gamma/__init__.py"),
        ]),
        "{report:#}"
    );
    assert_eq!(code, 1);
    for item in items(&report) {
        assert_eq!(item["area"], "files");
        assert_eq!(item["severity"], "error");
        let fix = text(&item["fix"]);
        assert!(fix.contains("--force-reinstall"), "{fix}");
    }
    let record = fs::read_to_string(site.join("gamma-1.1.dist-info/RECORD")).unwrap();
    let recorded_hash = record
        .lines()
        .find_map(|line| line.strip_prefix("gamma/__init__.py,"))
        .and_then(|rest| rest.split(',').next())
        .unwrap();
    let same_size = item_about(&report, "file-modified", "gamma gamma/__init__.py");
    assert_eq!(same_size["expected"], recorded_hash, "the RECORD's hash");
    assert!(text(&same_size["found"]).starts_with("sha256="));
    assert_ne!(same_size["found"], recorded_hash);
    assert_eq!(report["files_checked"]["distributions"], 3);
}

#[test]
fn a_lock_from_a_newer_gpu_node_does_not_verify_on_an_older_one() {
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path();
    let lock = directory.path().join("a.lock");
    snapshot_lock(cache, H200, &lock);

    let (code, stdout) = verify_snapshot(cache, &lock, H200, &["--format", "json"]);
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!((code, drift(&report)), (0, vec![]), "its own node: {report:#}");

    let (code, stdout) = verify_snapshot(cache, &lock, H100, &["--format", "json"]);
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(code, 1);
    // The H100 node's driver 535 runs CUDA 12.2; the locked torch was built with CUDA 13.0.
    let driver = item(&report, "driver-too-old");
    assert_eq!(driver["severity"], "error");
    assert_eq!(driver["area"], "nvidia");
    assert_values(driver, Some("580.65.06"), Some("535.183.01"));
    assert!(text(&driver["message"]).contains("CUDA 13.0"), "{driver}");
    assert!(text(&driver["fix"]).contains("580"), "{driver}");
    assert!(items(&report).iter().all(|item| item["id"] != "driver-changed"));
    let model = item(&report, "gpu-model");
    assert!(text(&model["expected"]).contains("1 × NVIDIA H200"), "{model}");
    assert!(text(&model["found"]).contains("6 × NVIDIA H100 80GB HBM3"), "{model}");
    let count = item(&report, "gpu-count");
    assert_values(count, Some("1"), Some("6"));
    let python = item(&report, "python-version");
    assert_values(python, Some("3.12.1"), Some("3.11.7"));
    let torch = item_about(&report, "package-version", "torch");
    assert_values(torch, Some("2.11.0"), Some("2.3.1"));
    let errors = items(&report).iter().filter(|item| item["severity"] == "error").count();
    assert_eq!(report["summary"]["errors"], errors);

    let (code, stdout) = verify_snapshot(cache, &lock, H100, &["--format", "junit"]);
    assert_eq!(code, 1);
    let xml = String::from_utf8(stdout).unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap_or_else(|error| panic!("{error}:\n{xml}"));
    let suite = document
        .descendants()
        .find(|node| node.has_tag_name("testsuite"))
        .unwrap();
    let failures: Vec<roxmltree::Node> = document
        .descendants()
        .filter(|node| node.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), errors, "one <failure> per error at --fail-on error");
    assert_eq!(suite.attribute("failures"), Some(errors.to_string().as_str()));
    let driver_failure = failures
        .iter()
        .find(|failure| {
            failure
                .attribute("message")
                .is_some_and(|message| message.contains("[driver-too-old]"))
        })
        .expect("a failure for the driver");
    assert_eq!(
        driver_failure.parent().unwrap().attribute("classname"),
        Some("envdoctor.verify.nvidia")
    );
    assert!(
        driver_failure.text().unwrap_or_default().contains("Fix: install"),
        "{xml}"
    );
    // Warnings are below --fail-on error: not failures, but still shown.
    assert!(
        failures
            .iter()
            .all(|failure| failure.attribute("type") == Some("error"))
    );
    assert!(xml.contains("There are 6 GPUs here, 1 in the lock"), "{xml}");
}

/// Runs `verify --lock FILE` on a lock that cannot be used: exit 2, nothing
/// on stdout, one line on stderr naming the file. Returns that line.
fn refused(cache: &Path, file: &Path) -> String {
    let mut command = envdoctor(cache);
    command
        .args(["verify", "--format", "json", "--lock"])
        .arg(file)
        .args(["--snapshot", H200]);
    let stderr = exits_2_naming(command, &[&file.display().to_string()]);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("envdoctor: error: "), "{stderr}");
    stderr
}

/// Runs a command that envdoctor must refuse: exit 2, nothing on stdout, no
/// panic, and each of `parts` on stderr, which is returned.
fn exits_2_naming(mut command: assert_cmd::Command, parts: &[&str]) -> String {
    let output = command.output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing on stdout: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for part in parts {
        assert!(stderr.contains(part), "`{part}` missing from: {stderr}");
    }
    stderr
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

#[test]
fn a_cut_short_lock_is_refused() {
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path();
    let lock = snapshot_lock(cache, H200, &directory.path().join("h200.lock"));
    let cut_file = directory.path().join("cut.lock");
    let starts: Vec<usize> = lock.match_indices("[[packages]]\n").map(|(at, _)| at).collect();
    assert!(starts.len() > 40, "a lock with many packages to cut");
    let middle = starts[starts.len() / 2];

    // In the middle of a package's name: not TOML any more.
    let name = middle + lock[middle..].find("name = \"").unwrap() + "name = \"".len();
    let cut = &lock[..name + 2];
    assert!(cut.parse::<toml_edit::DocumentMut>().is_err());
    fs::write(&cut_file, cut).unwrap();
    let error = refused(cache, &cut_file);
    let place = format!("{}:{}:", cut_file.display(), line_of(cut, cut.len()));
    assert!(error.contains(&place) && error.contains("not TOML"), "{place}: {error}");

    // Between two packages: still TOML, with half of the packages. The
    // fingerprint is all that tells.
    let cut = &lock[..middle];
    assert!(cut.parse::<toml_edit::DocumentMut>().is_ok());
    fs::write(&cut_file, cut).unwrap();
    let error = refused(cache, &cut_file);
    assert!(error.contains("does not match its fingerprint"), "{error}");
    assert!(error.contains("envdoctor lock"), "says how to write it again: {error}");

    // Wherever a disk filled up, at a line or not, the lock is refused.
    for twentieth in 1..20 {
        let bytes = lock.len() * twentieth / 20;
        let at_line = lock[..bytes].rfind('\n').unwrap() + 1;
        for cut in [&lock.as_bytes()[..bytes], &lock.as_bytes()[..at_line]] {
            fs::write(&cut_file, cut).unwrap();
            refused(cache, &cut_file);
        }
    }
    // diff reads locks the same way.
    let mut command = envdoctor(cache);
    command.arg("diff").arg(&cut_file).arg(H200);
    exits_2_naming(command, &["cut.lock"]);
}

#[test]
fn a_lock_that_is_not_one_this_envdoctor_can_use_is_refused() {
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path();
    let lock = snapshot_lock(cache, H200, &directory.path().join("h200.lock"));
    let file = directory.path().join("bad.lock");
    let refusal = |contents: &str| {
        fs::write(&file, contents).unwrap();
        refused(cache, &file)
    };

    let error = refusal("[packages\nname = \"torch\"\n");
    assert!(error.contains("bad.lock:1:") && error.contains("not TOML"), "{error}");

    let error = refusal(&lock.replacen("format-version = \"1.1\"", "format-version = \"2.0\"", 1));
    assert!(error.contains("written by a newer envdoctor"), "{error}");
    assert!(error.contains("\"2.0\""), "{error}");

    let without: String = lock
        .lines()
        .filter(|line| !line.starts_with("format-version"))
        .map(|line| format!("{line}\n"))
        .collect();
    let error = refusal(&without);
    assert!(error.contains("format-version"), "{error}");

    // `gpus = "x"` at the top level, in place of the [[gpus]] table.
    let groups = lock.find("[[gpus]]\n").unwrap();
    let after = groups + lock[groups..].find("\n\n").unwrap() + 2;
    let first_table = lock.find("\n[system]").unwrap() + 1;
    let wrong = format!(
        "{}gpus = \"x\"\n\n{}{}",
        &lock[..first_table],
        &lock[first_table..groups],
        &lock[after..]
    );
    let error = refusal(&wrong);
    let place = format!("bad.lock:{}:8:", line_of(&wrong, wrong.find("gpus = \"x\"").unwrap()));
    assert!(error.contains(&place), "{place}: {error}");
    assert!(error.contains("not a valid lock") && error.contains("\"x\""), "{error}");

    let edited = lock.replacen(
        "name = \"torch\"\nversion = \"2.11.0\"",
        "name = \"torch\"\nversion = \"2.10.0\"",
        1,
    );
    assert_ne!(edited, lock);
    let error = refusal(&edited);
    assert!(error.contains("does not match its fingerprint"), "{error}");

    let missing = directory.path().join("no-such.lock");
    let error = refused(cache, &missing);
    // A missing lock says how to make one.
    assert!(
        error.contains("there is no lock") && error.contains("envdoctor lock"),
        "{error}"
    );
    // Without --lock, ./envdoctor.lock is the one that is missing.
    let mut command = envdoctor(cache);
    command
        .current_dir(directory.path())
        .args(["verify", "--snapshot", H200]);
    exits_2_naming(command, &["envdoctor.lock"]);
}

#[test]
fn diff_names_what_differs_between_two_nodes() {
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path();
    let (code, report) = diff(cache, Path::new(H100), Path::new(H200));
    assert_eq!(report["schema"], "envdoctor.diff/1");
    assert_eq!(code, 1);
    let driver = item(&report, "driver-changed");
    assert_values(driver, Some("535.183.01"), Some("580.65.06"));
    let count = item(&report, "gpu-count");
    assert_values(count, Some("6"), Some("1"));
    item(&report, "gpu-model");
    let python = item(&report, "python-version");
    assert_values(python, Some("3.11.7"), Some("3.12.1"));

    let (code, report) = diff(cache, Path::new(H100), Path::new(H100));
    assert_eq!((code, drift(&report)), (0, vec![]));

    let lock = directory.path().join("h200.lock");
    snapshot_lock(cache, H200, &lock);
    for (a, b) in [(lock.as_path(), Path::new(H200)), (Path::new(H200), lock.as_path())] {
        let (code, report) = diff(cache, a, b);
        assert_eq!((code, drift(&report)), (0, vec![]), "{a:?} {b:?}: {report:#}");
        assert_eq!(report["expected"]["fingerprint"], report["found"]["fingerprint"]);
    }

    let mut command = envdoctor(cache);
    command.arg("diff").arg(directory.path().join("absent.json")).arg(H200);
    exits_2_naming(command, &["absent.json"]);
}

/// Issue 21: one comparison. Two Snapshots whose /dev/shm and kernel differ
/// were "No drift" in `diff` and deviations in `fleet`; both now ask
/// `compare`, so they name the same differences. A lock holds no machine
/// facts, so a lock on either side compares none.
#[test]
fn diff_and_fleet_name_the_same_differences_machine_facts_included() {
    const RECORDED_H100: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json"
    );
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path();
    let mut other: Value = serde_json::from_str(&fs::read_to_string(RECORDED_H100).unwrap()).unwrap();
    other["system"]["kernel"] = Value::from("6.8.0-49-generic");
    other["system"]["limits"]["shm_total_mib"] = Value::from(64);
    other["packages"][0]["version"] = Value::from("0.0.1");
    let other_path = directory.path().join("other.json");
    fs::write(&other_path, serde_json::to_vec(&other).unwrap()).unwrap();

    let (code, report) = diff(cache, Path::new(RECORDED_H100), &other_path);
    assert_eq!(code, 1);
    let mut in_diff: Vec<String> = items(&report).iter().map(|item| text(&item["id"])).collect();
    in_diff.sort();
    assert!(
        in_diff.contains(&"node-kernel".to_string()) && in_diff.contains(&"node-shared-memory".to_string()),
        "{in_diff:?}"
    );
    assert_values(item(&report, "node-shared-memory"), Some("128 GiB"), Some("64 MiB"));

    // Two nodes as the RECORDED_H100, one as `other`: the deviation fleet reports for
    // it is what diff reports between them.
    let nodes = directory.path().join("nodes");
    fs::create_dir(&nodes).unwrap();
    fs::copy(RECORDED_H100, nodes.join("a.json")).unwrap();
    fs::copy(RECORDED_H100, nodes.join("b.json")).unwrap();
    fs::copy(&other_path, nodes.join("c.json")).unwrap();
    let mut command = envdoctor(cache);
    command.args(["fleet", "--format", "json"]).arg(&nodes);
    let (_, fleet) = json_run(command);
    let deviations = fleet["deviations"].as_array().unwrap();
    assert_eq!(deviations.len(), 1, "{fleet:#}");
    let mut in_fleet: Vec<String> = deviations[0]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| text(&item["id"]))
        .collect();
    in_fleet.sort();
    assert_eq!(in_fleet, in_diff);

    let lock = directory.path().join("h100.lock");
    snapshot_lock(cache, RECORDED_H100, &lock);
    let (_, report) = diff(cache, &lock, &other_path);
    let ids: Vec<String> = items(&report).iter().map(|item| text(&item["id"])).collect();
    assert!(!ids.iter().any(|id| id.starts_with("node-")), "{ids:?}");
    assert!(!ids.is_empty(), "the package version still differs");
}

#[test]
fn a_live_lock_and_a_snapshot_of_the_same_venv_do_not_differ() {
    let node = Node::new();
    node.install(&["alpha==1.0", "-e", &node.project("edpkg")]);
    let lock = node.locked();
    let snapshot = node.path("node.json");
    node.probe(&snapshot);
    let (code, report) = diff(&node.cache(), &lock, &snapshot);
    assert_eq!((code, drift(&report)), (0, vec![]), "{report:#}");

    // A package installed since is the one difference, for verify and diff alike.
    node.install(&["delta"]);
    let (code, report) = node.verify(&lock, &[]);
    assert_eq!((code, drift(&report)), (0, pairs(&[("package-extra", "delta")])));
    node.probe(&snapshot);
    let (code, report) = diff(&node.cache(), &lock, &snapshot);
    assert_eq!(
        (code, drift(&report)),
        (1, pairs(&[("package-extra", "delta")])),
        "{report:#}"
    );
}

/// The same version from elsewhere: the fix must replace what is installed,
/// which pip does not do for a version it already has.
#[test]
fn the_fix_of_another_source_or_build_of_the_same_version_puts_it_back() {
    let node = Node::new();
    node.install(&["gamma", "epsilon"]);
    let lock = node.locked();

    // gamma 1.1 from its source tree; epsilon 1.0 from a wheel built again
    // (its METADATA, so its RECORD, differs; the requirement never applies).
    node.install(&["--force-reinstall", "--no-deps", &node.project("gamma-1.1")]);
    node.build_wheel("epsilon-1.0", "rebuilt", &["beta; python_version < '3'"]);
    node.install_from("rebuilt", &["--force-reinstall", "epsilon==1.0"]);
    let (code, report) = node.verify(&lock, &["--fail-on", "warning"]);
    assert_eq!(
        drift(&report),
        pairs(&[("package-content", "epsilon"), ("package-source", "gamma")]),
        "{report:#}"
    );
    assert_eq!(code, 1);
    let source = item(&report, "package-source");
    assert_eq!(source["severity"], "warning");
    assert_eq!(source["expected"], "a package index");
    assert!(text(&source["found"]).ends_with("/projects/gamma-1.1"), "{source}");

    for item in items(&report) {
        node.apply(&text(&item["fix"]));
    }
    let (code, report) = node.verify(&lock, &["--fail-on", "warning"]);
    assert_eq!(
        (code, drift(&report)),
        (0, vec![]),
        "the fixes, run, leave drift: {report:#}"
    );
}

/// `-o /dev/stdout` is a symlink to the process's standard output; `-o` through
/// a symlink writes to what it points at, and leaves the link a link.
#[test]
fn an_output_through_a_symlink_is_written_where_it_points() {
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path();
    let expected = snapshot_lock(cache, H200, &directory.path().join("h200.lock"));
    let target = directory.path().join("elsewhere/kept.lock");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    fs::write(&target, "old").unwrap();
    let link = directory.path().join("link.lock");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    envdoctor(cache)
        .args(["lock", "--snapshot", H200, "-o"])
        .arg(&link)
        .assert()
        .success();
    assert!(
        fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "the link was replaced"
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), expected);

    // As /dev/stdout is, but in a folder of the test's own.
    let stdout = directory.path().join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &stdout).unwrap();
    let output = envdoctor(cache)
        .args(["lock", "--snapshot", H200, "-o"])
        .arg(&stdout)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        fs::symlink_metadata(&stdout).unwrap().file_type().is_symlink(),
        "the link was replaced"
    );
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
}

#[test]
fn files_cannot_be_checked_from_a_snapshot() {
    let directory = tempfile::tempdir().unwrap();
    let mut command = envdoctor(directory.path());
    command.args(["verify", "--files", "--snapshot", H200]);
    exits_2_naming(command, &["--files", "--snapshot"]);
}

/// A RECORD hash field of `data`: `sha256=` and urlsafe base64 without padding.
fn record_hash(data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let digest = Sha256::digest(data);
    let mut encoded = String::from("sha256=");
    for chunk in digest.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (index, &byte)| {
            group | u32::from(byte) << (16 - 8 * index)
        });
        for index in 0..=chunk.len() {
            encoded.push(char::from(ALPHABET[(group >> (18 - 6 * index)) as usize & 63]));
        }
    }
    encoded
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `name` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo {path:?}");
}

/// Issue 20, D2: a RECORD is written by whoever can write the environment.
/// Its rows that lead out of the environment, by name or through a symbolic
/// link, are errors that name the RECORD and the row and are never opened;
/// a FIFO inside is reported without blocking; the installation scheme's
/// other directories (the venv's bin, share) are still checked.
#[test]
fn record_entries_outside_the_environment_are_errors_and_never_read() {
    let node = Node::new();
    node.install(&["alpha==1.0", "beta"]);
    let site = site_packages(&node.python);
    let venv = node.path("venv");
    let record = site.join("alpha-1.0.dist-info/RECORD");

    // Outside the venv: a file whose hash and size RECORD will give exactly,
    // so only a refusal to look can make it drift, and a FIFO no one writes.
    let secret = b"outside the environment\n";
    let outside = node.path("outside.txt");
    fs::write(&outside, secret).unwrap();
    // Long ago, so that a read would show in its access time (relatime).
    let long_ago = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 20);
    fs::File::options()
        .write(true)
        .open(&outside)
        .unwrap()
        .set_times(fs::FileTimes::new().set_accessed(long_ago))
        .unwrap();
    let accessed = || fs::metadata(&outside).unwrap().accessed().unwrap();
    assert_eq!(accessed(), long_ago);
    mkfifo(&node.path("fifo"));
    // Inside the venv: a link out of it, a FIFO, and files pip may write to
    // the scheme's data and scripts directories, one of them changed.
    std::os::unix::fs::symlink(&outside, site.join("alpha/link.txt")).unwrap();
    mkfifo(&site.join("alpha/pipe"));
    fs::create_dir_all(venv.join("share/alpha")).unwrap();
    fs::write(venv.join("share/alpha/data.txt"), "data\n").unwrap();
    fs::write(venv.join("bin/alpha-tool"), "#!/bin/sh\nexit 1\n").unwrap();

    let (hash, size) = (record_hash(secret), secret.len());
    let any = record_hash(b"x");
    let rows = [
        format!("/etc/shadow,{any},1"),
        format!("../../../../../../../../../../../../etc/passwd,{any},1"),
        format!("/dev/zero,{any},"),
        format!("../../../../fifo,{any},"),
        format!("../../../../outside.txt,{hash},{size}"),
        format!("alpha/link.txt,{hash},{size}"),
        // Rows without a hash are never opened, but name a file pip would remove.
        "/etc/hosts,,".to_string(),
        // A row that would add a line to the report, were it not escaped.
        format!("\"/tmp/x\nenvdoctor: all files match\",{any},1"),
        format!("alpha/pipe,{any},"),
        // The venv's own etc, bin and share are the scheme's: checked, not refused.
        format!("../../../etc/passwd,{any},1"),
        format!("../../../share/alpha/data.txt,{},5", record_hash(b"data\n")),
        format!("../../../bin/alpha-tool,{},17", record_hash(b"#!/bin/sh\nexit 0\n")),
    ];
    let original = fs::read_to_string(&record).unwrap();
    let first_line = original.lines().count() + 1;
    fs::write(&record, format!("{original}{}\n", rows.join("\n"))).unwrap();
    let lock = node.locked();

    let (code, report) = node.verify(&lock, &["--files"]);
    assert_eq!(code, 1, "{report:#}");
    let outside_entries = [
        "/etc/shadow",
        "../../../../../../../../../../../../etc/passwd",
        "/dev/zero",
        "../../../../fifo",
        "../../../../outside.txt",
        "alpha/link.txt",
        "/etc/hosts",
        "/tmp/x\nenvdoctor: all files match",
    ];
    let mut expected: Vec<(String, String)> = outside_entries
        .iter()
        .map(|entry| ("file-outside-environment".to_string(), format!("alpha {entry}")))
        .collect();
    expected.extend(pairs(&[
        ("file-not-regular", "alpha alpha/pipe"),
        ("file-missing", "alpha ../../../etc/passwd"),
        ("file-modified", "alpha ../../../bin/alpha-tool"),
    ]));
    assert_eq!(drift(&report), expected, "{report:#}");

    let real_outside = fs::canonicalize(&outside).unwrap();
    for (index, entry) in outside_entries.iter().enumerate() {
        let item = item_about(&report, "file-outside-environment", &format!("alpha {entry}"));
        assert_eq!(item["severity"], "error");
        assert_eq!(item["area"], "files");
        // pip uninstall would remove what the RECORD lists: no reinstall offered.
        assert_eq!(item["fix"], Value::Null, "{item}");
        let message = text(&item["message"]);
        let place = format!("{}:{}: RECORD entry {entry:?} ", record.display(), first_line + index);
        assert!(message.contains(&place), "`{place}` missing from: {message}");
        assert!(!message.contains('\n'), "{message:?}");
        assert!(text(&item["expected"]).contains(&venv.display().to_string()), "{item}");
    }
    let through_link = item_about(&report, "file-outside-environment", "alpha alpha/link.txt");
    assert_eq!(through_link["found"], real_outside.display().to_string());
    assert!(
        text(&through_link["message"]).contains("symbolic link"),
        "{through_link}"
    );
    let by_name = item_about(&report, "file-outside-environment", "alpha ../../../../outside.txt");
    assert_eq!(by_name["found"], real_outside.display().to_string());
    assert_eq!(accessed(), long_ago, "the file outside the environment was read");
    let pipe = item(&report, "file-not-regular");
    assert_values(pipe, Some("a regular file"), Some("a FIFO"));
}

/// Issue 20, D2: a RECORD that is a FIFO is not waited on; the distribution
/// is reported as one whose files cannot be checked.
#[test]
fn a_record_that_is_not_a_regular_file_is_not_read() {
    let node = Node::new();
    node.install(&["alpha==1.0", "beta"]);
    let lock = node.locked();
    let record = site_packages(&node.python).join("beta-0.3.dist-info/RECORD");
    fs::remove_file(&record).unwrap();
    mkfifo(&record);

    let (code, report) = node.verify(&lock, &["--files"]);
    let unreadable = sole(&report, "record-unreadable", "beta");
    let message = text(&unreadable["message"]);
    assert!(
        message.contains(&record.display().to_string()) && message.contains("a FIFO"),
        "{message}"
    );
    assert_eq!(code, 0, "a warning: {report:#}");
    assert_eq!(report["files_checked"]["distributions"], 2);
}

/// Issue 20: a lock written where no NVIDIA driver answers has no GPU side;
/// `lock` says so instead of writing it silently.
#[test]
fn a_lock_without_a_gpu_side_says_so() {
    let work = tempfile::tempdir().unwrap();
    let mut snapshot: Value = serde_json::from_str(
        &fs::read_to_string("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json").unwrap(),
    )
    .unwrap();
    let recorded = work.path().join("gpu.json");
    fs::write(&recorded, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    snapshot["nvidia"] = Value::Null;
    snapshot["nvidia_error"] =
        serde_json::json!({"kind": "no_driver", "message": "no NVML library and no nvidia kernel module"});
    let cpu_only = work.path().join("cpu.json");
    fs::write(&cpu_only, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let lock = |snapshot: &Path| {
        let output = envdoctor(work.path())
            .args(["lock", "--snapshot"])
            .arg(snapshot)
            .args(["-o", "-"])
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stderr).unwrap()
    };
    let note = lock(&cpu_only);
    assert!(
        note.contains(
            "the lock records no GPU side: no NVIDIA driver answered (no NVML library and no nvidia kernel module)"
        ),
        "{note}"
    );
    assert_eq!(lock(&recorded), "", "a lock with a GPU side needs no note");
}

/// Issue 21: a lock is a projection of its Snapshot. A RECORD digest the
/// probe recorded is pinned whether the Snapshot is live or replayed, and a
/// plain `probe` records none (reading every RECORD is the lock's cost).
#[test]
fn a_lock_pins_the_record_digests_its_snapshot_holds() {
    let work = tempfile::tempdir().unwrap();
    let mut snapshot: Value = serde_json::from_str(
        &fs::read_to_string("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json").unwrap(),
    )
    .unwrap();
    assert!(
        snapshot["packages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|package| package.get("record_digest").is_none()),
        "probe records no digest unless asked"
    );
    let digest = format!("sha256:{}", "ab".repeat(32));
    let first = &mut snapshot["packages"][0];
    let name = first["name"].as_str().unwrap().to_string();
    first["record_digest"] = Value::from(digest.clone());
    let path = work.path().join("node.json");
    fs::write(&path, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let lock = snapshot_lock(work.path(), path.to_str().unwrap(), &work.path().join("node.lock"));
    let lock: toml_edit::DocumentMut = lock.parse().unwrap();
    assert_eq!(
        package(&lock, &name)["record-digest"].as_str(),
        Some(digest.as_str()),
        "{lock}"
    );
}

/// Issue 32, E11: an egg-info that is a file (distutils' `install_egg_info`,
/// as every Debian `python3-*` package ships it) is PKG-INFO itself and holds
/// no RECORD, like an egg-info directory: `verify --files` has nothing to
/// check and nothing to warn about. It said "cannot be checked: ... Not a
/// directory" for each one.
#[test]
fn an_egg_info_file_is_not_a_warning_under_files() {
    let node = Node::new();
    node.install(&["alpha==1.0"]);
    let site = site_packages(&node.python);
    fs::write(
        site.join("debian_style-1.0.egg-info"),
        "Metadata-Version: 1.1\nName: debian-style\nVersion: 1.0\nSummary: as distutils writes it\n",
    )
    .unwrap();
    let lock = node.locked();
    let (code, report) = node.verify(&lock, &["--files"]);
    assert_eq!((code, drift(&report)), (0, vec![]), "{report:#}");
}

/// Issue 32, E7: a lock over the lock limit is refused before it is parsed
/// (parsing a 100 MB one cost 8.9 GB), in one line naming the file, exit 2;
/// by export, verify and diff alike.
#[test]
fn a_lock_over_the_limit_is_refused_naming_it() {
    let cache = tempfile::tempdir().unwrap();
    let lock = cache.path().join("huge.lock");
    // A real lock, then a comment: still a valid lock with its fingerprint,
    // only larger than any real one.
    let mut text = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/locks/h100-torch2.11-cu130-recorded.lock"
    ))
    .unwrap();
    text.push_str(&"# padding\n".repeat(900 * 1024));
    fs::write(&lock, text).unwrap();
    let lock_arg = lock.to_str().unwrap();
    for arguments in [
        &["export", "--format", "requirements", "--lock", lock_arg][..],
        &["verify", "--snapshot", H100, "--lock", lock_arg],
        &["diff", lock_arg, lock_arg],
    ] {
        let output = envdoctor(cache.path()).args(arguments).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
        assert!(
            stderr.contains(lock_arg) && stderr.contains("larger than 8 MiB, the most envdoctor reads of a lock"),
            "{arguments:?}: {stderr}"
        );
    }
}
