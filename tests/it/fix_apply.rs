//! `envdoctor fix --apply` on real virtual environments with the real pip:
//! a node fixed and checked clean, a failed install and a plan that made
//! things worse both put back so exactly that the environment verifies, file
//! by file, against the lock taken before.

use crate::common;

use common::index_server::Server;
use common::*;
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

const BUILD_WHEEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/locks/build_wheel.py");

/// The PyPI wheels of the pandas/NumPy 2 and requests/urllib3 node, and of
/// the releases its plan installs: the folder `.ci/run` downloads
/// (`ENVDOCTOR_TEST_FIX_WHEELS`), else one downloaded here now.
fn pypi_wheels() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ENVDOCTOR_TEST_FIX_WHEELS").map(PathBuf::from)
        && path.is_dir()
    {
        return Some(path);
    }
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-wheels/fix");
    for set in FIX_WHEEL_SETS {
        let status = Command::new(system_python())
            .args(["-m", "pip", "download", "--quiet", "--timeout", "15", "--retries", "2"])
            .args(["--disable-pip-version-check", "-d"])
            .arg(&folder)
            .args(set.split(' '))
            .status()
            .ok()?;
        if !status.success() {
            return None;
        }
    }
    Some(folder)
}

/// What `.ci/run` downloads too: each set one `pip download`.
const FIX_WHEEL_SETS: [&str; 4] = [
    "pandas==2.1.1 numpy==2.0.2 requests",
    "--no-deps urllib3==1.21",
    "pandas>=2.2.2,<3 urllib3>=1.26,<3",
    "--no-deps uv",
];

type Environment = Vec<(&'static str, OsString)>;

/// pip as every run in these tests sees it: no configuration of this
/// machine's, only the folder `wheels` as the index.
fn offline_pip(wheels: &Path) -> Environment {
    vec![
        ("PIP_CONFIG_FILE", "/dev/null".into()),
        ("PIP_DISABLE_PIP_VERSION_CHECK", "1".into()),
        ("PIP_NO_INDEX", "1".into()),
        ("PIP_FIND_LINKS", wheels.into()),
    ]
}

/// pip with its default index on a loopback port where nothing listens.
fn unreachable_index() -> Environment {
    vec![
        ("PIP_CONFIG_FILE", "/dev/null".into()),
        ("PIP_DISABLE_PIP_VERSION_CHECK", "1".into()),
        ("PIP_INDEX_URL", "http://127.0.0.1:9/simple".into()),
        ("PIP_RETRIES", "0".into()),
        ("PIP_TIMEOUT", "2".into()),
    ]
}

fn pip(python: &Path, wheels: &Path, arguments: &[&str]) {
    let mut command = Command::new(python);
    command.args(["-m", "pip"]).args(arguments).envs(offline_pip(wheels));
    run(&mut command);
}

/// `envdoctor fix --python PY --apply --yes --format json` with pip's
/// `environment`: the exit code, the plan with its `apply`, and standard error.
fn apply(cache: &Path, python: &Path, arguments: &[&str], environment: Environment) -> (i32, Value, String) {
    let output = envdoctor(cache)
        .args(["fix", "--apply", "--yes", "--format", "json", "--python"])
        .arg(python)
        .args(arguments)
        .envs(environment)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let code = output.status.code().unwrap_or_else(|| panic!("killed: {stderr}"));
    let plan = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{stderr}", String::from_utf8_lossy(&output.stdout)));
    (code, plan, stderr)
}

/// `envdoctor verify --files --lock LOCK --python PY`: the exit code and the report.
fn verify_files(cache: &Path, python: &Path, lock: &str) -> (i32, Value) {
    let output = envdoctor(cache)
        .args(["verify", "--files", "--format", "json", "--lock", lock, "--python"])
        .arg(python)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap();
    (output.status.code().unwrap(), report)
}

fn ids(judged: &Value) -> Vec<&str> {
    judged["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect()
}

/// The node, built with pip from PyPI's wheels: pandas 2.1.1 under
/// NumPy 2 (a rule) and urllib3 1.21 under requests (pip's own check). One
/// plan covers both; with the index unreachable the apply fails and changes
/// nothing; with it, the node checks clean.
#[test]
fn the_pandas_and_urllib3_node_is_fixed_by_one_plan_and_checks_clean() {
    let Some(wheels) = pypi_wheels() else {
        skip(
            "fix_apply::the_pandas_and_urllib3_node_is_fixed_by_one_plan_and_checks_clean",
            "fix-wheels",
            "cannot download the pandas, NumPy, requests and urllib3 wheels from PyPI",
        );
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    let python = create_venv(&root.path().join("venv"), true);
    pip(
        &python,
        &wheels,
        &["install", "pandas==2.1.1", "numpy==2.0.2", "requests"],
    );
    pip(&python, &wheels, &["install", "--no-deps", "urllib3==1.21"]);

    // The index unreachable: pip fails before it changes anything, and the
    // environment verifies against the lock taken before.
    let (code, plan, stderr) = apply(&cache, &python, &[], unreachable_index());
    assert_eq!(code, 2, "{stderr}");
    let requirements: Vec<&str> = plan["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|requirement| requirement["name"].as_str().unwrap())
        .collect();
    assert_eq!(requirements, ["pandas", "urllib3"], "{plan:#}");
    let applied = &plan["apply"];
    assert_eq!(applied["kept"], false, "{plan:#}");
    assert!(
        applied["put_back_because"].as_str().unwrap().contains("pip install"),
        "{plan:#}"
    );
    assert_eq!(applied["drift_after_put_back"], serde_json::json!([]), "{plan:#}");
    assert!(stderr.contains("verifies clean against"), "{stderr}");
    let before_lock = applied["before_lock"].as_str().unwrap();
    let (code, report) = verify_files(&cache, &python, before_lock);
    assert_eq!(code, 0, "{report:#}");

    // The index there: one plan fixes both, and the node checks clean.
    let (code, plan, stderr) = apply(&cache, &python, &[], offline_pip(&wheels));
    assert_eq!(code, 0, "{stderr}\n{plan:#}");
    let applied = &plan["apply"];
    assert_eq!(applied["kept"], true, "{plan:#}");
    let before = ids(&applied["before"]);
    assert!(before.contains(&"pandas-below-2-1-2-numpy-2"), "{plan:#}");
    assert!(before.contains(&"requirement-version-mismatch"), "{plan:#}");
    assert_eq!(applied["after"]["errors"], 0, "{plan:#}");
    assert!(!backup_left(&python), "the backup is removed once the plan stands");
    envdoctor(&cache)
        .args(["check", "--no-smoke", "--python"])
        .arg(&python)
        .assert()
        .code(0);
    let versions = pip_list(&python, &[]);
    let versions = name_versions(&versions);
    assert!(
        versions
            .iter()
            .any(|(name, version)| name == "pandas" && !version.starts_with("2.1.")),
        "{versions:?}"
    );
}

fn backup_left(python: &Path) -> bool {
    python
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join(".envdoctor-fix/backup")
        .exists()
}

/// A node of wheels built here: `alpha` 1.0 installed, and a site matrix in
/// which alpha below 2 is an error (fixed by `alpha>=2`) and alpha 2.1 is an
/// error of its own. The plan's oldest allowed release, 2.0, raises nothing,
/// so the plan is offered; pip installs the newest, 2.1.
struct SiteNode {
    root: tempfile::TempDir,
    python: PathBuf,
}

impl SiteNode {
    fn new() -> SiteNode {
        let root = tempfile::tempdir().unwrap();
        let node = SiteNode {
            python: create_venv(&root.path().join("venv"), true),
            root,
        };
        for project in ["alpha-1.0", "alpha-2.0", "alpha-2.1", "gamma-1.0"] {
            let (name, version) = project.rsplit_once('-').unwrap();
            let directory = write_project(&node.path(&format!("projects/{project}")), name, version);
            run(Command::new(system_python())
                .arg(BUILD_WHEEL)
                .arg(directory)
                .arg(node.path("files"))
                .args(["--with-script", &format!("{name}-run")]));
        }
        pip(&node.python, &node.path("files"), &["install", "alpha==1.0"]);
        node.rule(
            "site-alpha-2-1-broken",
            "alpha = \"==2.1\"",
            "pip install \"alpha!=2.1\"",
        );
        node
    }

    /// A site rule raising an error when `when` holds, fixed by `fix`.
    fn rule(&self, id: &str, when: &str, fix: &str) {
        write_file(
            &self.path(&format!("site/{id}.toml")),
            format!(
                "id = \"{id}\"\ntitle = \"{id}\"\nseverity = \"error\"\nmessage = \"{id}\"\nwhy = \"A site rule of this test.\"\n\
                 fix = '{fix}'\nreferences = [\"https://example.invalid/{id}\"]\nchecked = \"2026-11-27\"\n\n[when]\npackages = {{ {when} }}\n"
            ),
        );
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    fn site(&self) -> String {
        self.path("site").display().to_string()
    }
}

/// pip succeeds, but the check after raises what the check before did not
/// (alpha 2.1's own error): every file goes back, the console script too.
#[test]
fn a_plan_that_makes_things_worse_is_put_back_file_by_file() {
    let node = SiteNode::new();
    node.rule("site-alpha-too-old", "alpha = \"<2\"", "pip install \"alpha>=2\"");
    let cache = node.path("cache");
    let script = node.python.parent().unwrap().join("alpha-run");
    let script_before = std::fs::read(&script).unwrap();
    let wheels = node.path("files");
    let site = node.site();
    let (code, plan, stderr) = apply(&cache, &node.python, &["--matrix", &site], offline_pip(&wheels));
    assert_eq!(code, 2, "{stderr}\n{plan:#}");
    assert_eq!(
        plan["command"].as_str().unwrap().matches("alpha>=2").count(),
        1,
        "{plan:#}"
    );
    let applied = &plan["apply"];
    assert_eq!(applied["kept"], false, "{plan:#}");
    assert!(
        applied["put_back_because"]
            .as_str()
            .unwrap()
            .contains("site-alpha-2-1-broken"),
        "{plan:#}"
    );
    let after = ids(&applied["after"]);
    assert!(
        after.contains(&"site-alpha-2-1-broken") && !after.contains(&"site-alpha-too-old"),
        "{plan:#}"
    );
    assert_eq!(applied["drift_after_put_back"], serde_json::json!([]), "{plan:#}");
    let (code, report) = verify_files(&cache, &node.python, applied["before_lock"].as_str().unwrap());
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(std::fs::read(&script).unwrap(), script_before);
    assert!(!backup_left(&node.python));
    let versions = name_versions(&pip_list(&node.python, &[]));
    assert!(
        versions.contains(&("alpha".to_string(), "1.0".to_string())),
        "{versions:?}"
    );
}

/// Two steps: alpha 2.0 from a loopback index (after uninstalling alpha),
/// which succeeds, then gamma from the default index, which is unreachable.
/// What the first step changed is put back.
#[test]
fn a_step_that_fails_after_another_changed_the_environment_puts_it_back() {
    let node = SiteNode::new();
    let server = Server::start(&node.path(""), &["--mode", "html"]);
    node.rule(
        "site-alpha-needs-2-0",
        "alpha = \"<2\"",
        &format!(
            "pip uninstall -y alpha && pip install \"alpha==2.0\" --index-url {}",
            server.index()
        ),
    );
    node.rule("site-gamma-wanted", "alpha = \"<2\"", "pip install \"gamma>=1\"");
    let cache = node.path("cache");
    let site = node.site();
    let (code, plan, stderr) = apply(&cache, &node.python, &["--matrix", &site], unreachable_index());
    assert_eq!(code, 2, "{stderr}\n{plan:#}");
    let steps = plan["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{plan:#}");
    assert!(stderr.contains("Successfully installed alpha-2.0"), "{stderr}");
    let applied = &plan["apply"];
    assert!(
        applied["put_back_because"].as_str().unwrap().contains("gamma>=1"),
        "{plan:#}"
    );
    assert_eq!(applied["drift_after_put_back"], serde_json::json!([]), "{plan:#}");
    let (code, report) = verify_files(&cache, &node.python, applied["before_lock"].as_str().unwrap());
    assert_eq!(code, 0, "{report:#}");
    let versions = name_versions(&pip_list(&node.python, &[]));
    assert!(
        versions.contains(&("alpha".to_string(), "1.0".to_string())),
        "{versions:?}"
    );
}

/// Refusals change nothing: a Snapshot is not an environment, a script must
/// say --yes, and an interrupted apply's backup must be put back first.
#[test]
fn apply_refuses_what_it_must_not_change() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    envdoctor(&cache)
        .args([
            "fix",
            "--apply",
            "--snapshot",
            "tests/fixtures/snapshots/h100-torch2.11-cu130-deepspeed-0.14.2-recorded.json",
        ])
        .assert()
        .code(2);
    // The machine's own python3 is no virtual environment: not without --system.
    let system = envdoctor(&cache)
        .args(["fix", "--apply", "--yes", "--python"])
        .arg(system_python())
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&system.get_output().stderr).into_owned();
    assert!(stderr.contains("only with --system"), "{stderr}");
    let node = SiteNode::new();
    node.rule("site-alpha-too-old", "alpha = \"<2\"", "pip install \"alpha>=2\"");
    let site = node.site();
    // Standard input is not a terminal here.
    let asked = envdoctor(&cache)
        .args(["fix", "--apply", "--matrix", &site, "--python"])
        .arg(&node.python)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&asked.get_output().stderr).into_owned();
    assert!(stderr.contains("add --yes"), "{stderr}");
    // A backup left by an apply that was killed.
    let prefix = node.python.parent().unwrap().parent().unwrap().to_path_buf();
    write_file(&prefix.join(".envdoctor-fix/backup/manifest.json"), "{}");
    let refused = envdoctor(&cache)
        .args(["fix", "--apply", "--yes", "--matrix", &site, "--python"])
        .arg(&node.python)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("was interrupted") && stderr.contains("--restore"),
        "{stderr}"
    );
    let versions = name_versions(&pip_list(&node.python, &[]));
    assert!(
        versions.contains(&("alpha".to_string(), "1.0".to_string())),
        "{versions:?}"
    );
}

/// The node of `SiteNode` with a rule whose fix uninstalls alpha and then
/// installs alpha 2.0 and gamma from a loopback index that never answers for
/// gamma: an apply that is stopped mid-way, with alpha gone.
fn stalled_node() -> (SiteNode, Server) {
    let node = SiteNode::new();
    let mark = node.path(STALL_MARK);
    let server = Server::start(
        &node.path(""),
        &[
            "--mode",
            "html",
            "--stall-project",
            "gamma",
            "--stall-seconds",
            "120",
            "--stall-mark",
            mark.to_str().unwrap(),
        ],
    );
    node.rule(
        "site-alpha-needs-2-0",
        "alpha = \"<2\"",
        &format!(
            "pip uninstall -y alpha && pip install \"alpha==2.0\" \"gamma>=1\" --index-url {}",
            server.index()
        ),
    );
    (node, server)
}

/// The file the index writes when the request it stalls arrives.
const STALL_MARK: &str = "stalled";

/// Starts `fix --apply --yes` on `node` and returns it once the install
/// that stalls has asked the index for gamma (alpha is uninstalled by then).
fn apply_until_stalled(node: &SiteNode) -> std::process::Child {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("envdoctor"))
        .env("XDG_CACHE_HOME", node.path("cache"))
        .envs(unreachable_index())
        .args(["fix", "--apply", "--yes", "--format", "json", "--matrix"])
        .arg(node.path("site"))
        .arg("--python")
        .arg(&node.python)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "envdoctor ended first: {seen}"
        );
        seen.push_str(&line);
        if line.contains("running") && line.contains("gamma>=1") {
            break;
        }
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    // Waits for the index to say pip asked for gamma, however long the
    // uninstall before it takes on a loaded machine (a fixed two seconds
    // was once too short); a step that never gets there fails here.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !node.path(STALL_MARK).exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "envdoctor ended before pip asked for gamma: {seen}"
        );
        assert!(
            std::time::Instant::now() < deadline,
            "pip never asked for gamma: {seen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child
}

fn alpha_version(python: &Path) -> Option<String> {
    name_versions(&pip_list(python, &[]))
        .into_iter()
        .find(|(name, _)| name == "alpha")
        .map(|(_, version)| version)
}

/// The latest lock an apply wrote before changing `python`'s environment.
fn latest_before_lock(python: &Path) -> String {
    let folder = python.parent().unwrap().parent().unwrap().join(".envdoctor-fix");
    let mut locks: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "lock"))
        .collect();
    locks.sort();
    locks.pop().expect("a lock taken before").display().to_string()
}

/// SIGTERM (what `timeout` and Slurm send) while pip runs: pip's process
/// group is killed, every file goes back, and envdoctor ends by the signal.
#[test]
fn an_apply_stopped_by_sigterm_puts_the_environment_back() {
    let (node, _server) = stalled_node();
    let child = apply_until_stalled(&node);
    assert_eq!(alpha_version(&node.python), None, "the uninstall ran before the stall");
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(libc::SIGTERM), "{:?}", output.status);
    assert_eq!(alpha_version(&node.python).as_deref(), Some("1.0"));
    assert!(!backup_left(&node.python));
    let (code, report) = verify_files(&node.path("cache"), &node.python, &latest_before_lock(&node.python));
    assert_eq!(code, 0, "{report:#}");
}

/// SIGKILL leaves no chance to clean up: the backup stays, a new apply is
/// refused, and `fix --restore` puts the environment back from it.
#[test]
fn an_apply_killed_outright_is_put_back_by_restore() {
    let (node, server) = stalled_node();
    let mut child = apply_until_stalled(&node);
    child.kill().unwrap();
    child.wait().unwrap();
    // pip, in its own process group, outlives envdoctor: the index goes, and so does pip.
    drop(server);
    kill_every_process_of(&node.python);
    assert_eq!(alpha_version(&node.python), None);
    assert!(backup_left(&node.python));
    let cache = node.path("cache");
    let site = node.site();
    let refused = envdoctor(&cache)
        .args(["fix", "--apply", "--yes", "--matrix", &site, "--python"])
        .arg(&node.python)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("was interrupted"), "{stderr}");
    let restored = envdoctor(&cache)
        .args(["fix", "--restore", "--python"])
        .arg(&node.python)
        .assert()
        .code(0);
    let stderr = String::from_utf8_lossy(&restored.get_output().stderr).into_owned();
    assert!(stderr.contains("verifies clean against"), "{stderr}");
    assert_eq!(alpha_version(&node.python).as_deref(), Some("1.0"));
    assert!(!backup_left(&node.python));
    let (code, report) = verify_files(&cache, &node.python, &latest_before_lock(&node.python));
    assert_eq!(code, 0, "{report:#}");
}

/// Kills every process whose command line runs `python`, and waits until none is left.
fn kill_every_process_of(python: &Path) {
    let needle = python.as_os_str().as_encoded_bytes().to_vec();
    for _ in 0..100 {
        let mut found = false;
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let Ok(command_line) = std::fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            if command_line.windows(needle.len()).any(|window| window == needle) {
                found = true;
                // SAFETY: a signal to a process of this test's venv.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        if !found {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the venv's processes outlived SIGKILL");
}

/// `--lock`: a package moved off its locked version is part of the plan,
/// pinned back, and the apply leaves a node that verifies against the lock.
#[test]
fn the_drift_from_a_lock_is_part_of_the_plan_and_applied() {
    let node = SiteNode::new();
    let cache = node.path("cache");
    let lock = node.path("envdoctor.lock");
    envdoctor(&cache)
        .args(["lock", "--python"])
        .arg(&node.python)
        .arg("-o")
        .arg(&lock)
        .assert()
        .success();
    let wheels = node.path("files");
    pip(&node.python, &wheels, &["install", "alpha==2.0"]);
    let lock = lock.display().to_string();
    let output = envdoctor(&cache)
        .args(["fix", "--format", "json", "--lock", &lock, "--python"])
        .arg(&node.python)
        .output()
        .unwrap();
    let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
    let alpha = &plan["requirements"][0];
    assert_eq!(alpha["name"], "alpha", "{plan:#}");
    assert_eq!(alpha["specifier"], "==1.0", "{plan:#}");
    assert_eq!(
        alpha["fixes"],
        serde_json::json!(["lock:package-version:alpha"]),
        "{plan:#}"
    );

    let (code, plan, stderr) = apply(&cache, &node.python, &["--lock", &lock], offline_pip(&wheels));
    assert_ne!(code, 2, "{stderr}\n{plan:#}");
    assert_eq!(plan["apply"]["kept"], true, "{plan:#}");
    let (code, report) = verify_files(&cache, &node.python, &lock);
    assert_eq!(code, 0, "{report:#}");
}

/// An environment uv made (no pip in it) is fixed with `uv pip`, found on
/// PATH: uv's own wheel from PyPI, installed here.
#[test]
fn an_environment_uv_made_is_fixed_with_uv_pip() {
    let test = "fix_apply::an_environment_uv_made_is_fixed_with_uv_pip";
    let Some(wheels) = pypi_wheels() else {
        skip(
            test,
            "fix-wheels",
            "cannot download the pandas, NumPy and uv wheels from PyPI",
        );
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let tools = create_venv(&root.path().join("tools"), true);
    pip(&tools, &wheels, &["install", "uv"]);
    let uv = tools.parent().unwrap().join("uv");
    let path = format!(
        "{}:{}",
        tools.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let uv_offline: Environment = vec![
        ("UV_NO_INDEX", "1".into()),
        ("UV_FIND_LINKS", wheels.clone().into()),
        ("UV_NO_CACHE", "1".into()),
        ("PATH", path.into()),
    ];
    let prefix = root.path().join("env");
    run(Command::new(&uv)
        .args(["venv", "--quiet", "--python"])
        .arg(system_python())
        .arg(&prefix));
    let python = prefix.join("bin/python");
    run(Command::new(&uv)
        .args(["pip", "install", "--quiet", "--python"])
        .arg(&python)
        .args(["pandas==2.1.1", "numpy==2.0.2"])
        .envs(uv_offline.clone()));
    let cache = root.path().join("cache");
    let (code, plan, stderr) = apply(&cache, &python, &[], uv_offline);
    assert_eq!(code, 0, "{stderr}\n{plan:#}");
    assert_eq!(plan["installer"], "uv", "{plan:#}");
    let step = plan["steps"][0].as_array().unwrap();
    assert_eq!(
        step[..3],
        [Value::from("uv"), "pip".into(), "install".into()],
        "{plan:#}"
    );
    assert_eq!(plan["apply"]["kept"], true, "{plan:#}");
    assert_eq!(plan["apply"]["after"]["errors"], 0, "{plan:#}");
}
