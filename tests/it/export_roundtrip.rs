//! `envdoctor export` against a real installer: wheels built by pip, served on
//! loopback by tests/fixtures/index/serve.py, installed by pip into venv A,
//! locked, exported, installed by pip from the exported file into a fresh
//! venv, and that venv checked against the lock with `envdoctor verify`.
//!
//! pip reaches only the loopback index: its configuration files and `PIP_*`
//! index variables are cleared for every command here.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use common::index_server::Server;

const ALPHA_WHEEL: &str = "alpha_one-1.0-py3-none-any.whl";
/// A newer release the lock does not pin: an export that ignored versions
/// would hash it, and pip with a constraints file must not pick it.
const ALPHA_NEWER_WHEEL: &str = "alpha_one-2.0-py3-none-any.whl";
const BETA_WHEEL: &str = "beta_two-2.1.post1-py3-none-any.whl";
/// The pins of the lock, by the names the lock spells them with.
const PINS: [(&str, &str, &str); 2] = [("alpha-one", "1.0", ALPHA_WHEEL), ("beta_two", "2.1.post1", BETA_WHEEL)];

/// Wheels in `root/files`, venv A with alpha-one 1.0 and beta_two 2.1.post1
/// installed from them by pip through the loopback index, and A's lock.
struct Fixture {
    root: PathBuf,
    lock: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export_roundtrip");
        let _ = std::fs::remove_dir_all(&directory);
        let root = directory.join("index");
        // One pip run per project: pip refuses two versions of one name in a run.
        for (name, version) in [("alpha-one", "1.0"), ("alpha-one", "2.0"), ("beta_two", "2.1.post1")] {
            let project = common::write_project(&directory.join(format!("{name}-{version}")), name, version);
            common::run(
                Command::new(common::system_python())
                    .args(["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir"])
                    .arg(root.join("files"))
                    .arg(project),
            );
        }
        let python = common::create_venv(&directory.join("A"), true);
        let server = Server::start(&root, &["--mode", "html"]);
        succeeds(
            pip(&python)
                .args(["install", "--no-deps", "--index-url"])
                .arg(index_url(&server))
                .args(["alpha-one==1.0", "beta-two"]),
        );
        let lock = directory.join("envdoctor.lock");
        let cache = directory.join("cache");
        envdoctor(&cache)
            .args(["lock", "--python"])
            .arg(&python)
            .arg("-o")
            .arg(&lock)
            .assert()
            .success();
        Fixture { root, lock }
    })
}

/// The index URL as a user writes it, with the trailing slash.
fn index_url(server: &Server) -> String {
    format!("{}/", server.index())
}

/// What would point pip, or envdoctor reading pip's settings, at an index
/// other than the loopback one. `PIP_CONFIG_FILE=/dev/null` loads no file.
const USER_INDEX_VARIABLES: [&str; 4] = ["PIP_NO_INDEX", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"];

/// `PYTHON -m pip`, allowed to reach the index a command names.
fn pip(python: &Path) -> Command {
    let mut command = Command::new(python);
    for variable in USER_INDEX_VARIABLES {
        command.env_remove(variable);
    }
    command
        .args(["-m", "pip"])
        .env("PIP_CONFIG_FILE", "/dev/null")
        // Nothing from the user's pip cache, and nothing from these tests in it.
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

fn envdoctor(cache: &Path) -> assert_cmd::Command {
    let mut command = common::envdoctor(cache);
    for variable in USER_INDEX_VARIABLES {
        command.env_remove(variable);
    }
    command.env("PIP_CONFIG_FILE", "/dev/null");
    command
}

fn output(command: &mut Command) -> Output {
    command.output().unwrap_or_else(|error| panic!("{command:?}: {error}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeds(command: &mut Command) -> String {
    let output = output(command);
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

fn sha256_of(path: &Path) -> String {
    Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `envdoctor export --lock L ARGUMENTS... -o OUTPUT`, which must succeed; the file it wrote.
fn export(cache: &Path, arguments: &[&str], output: &Path) -> String {
    envdoctor(cache)
        .arg("export")
        .arg("--lock")
        .arg(&fixture().lock)
        .args(arguments)
        .arg("-o")
        .arg(output)
        .assert()
        .success();
    std::fs::read_to_string(output).unwrap()
}

/// `export --hashes` against `server`: requirements with one hash per pin,
/// the installed wheel's, and the index in the file.
fn export_with_hashes(server: &Server, root: &Path, work: &Path) -> PathBuf {
    let requirements = work.join("requirements.txt");
    let index = index_url(server);
    let written = export(
        &work.join("cache"),
        &["--format", "requirements", "--hashes", "--index-url", &index],
        &requirements,
    );
    let header = format!(
        "# Pinned by envdoctor {} from `{}`",
        env!("CARGO_PKG_VERSION"),
        fixture().lock.display()
    );
    assert!(written.starts_with(&header), "{written}");
    assert!(
        written.contains("\n# Install: python -m pip install --require-hashes --no-deps -r FILE\n"),
        "{written}"
    );
    assert!(written.contains(&format!("\n--index-url {index}\n")), "{written}");
    for (name, version, wheel) in PINS {
        let pin = format!(
            "\n{name}=={version} \\\n    --hash=sha256:{}\n",
            sha256_of(&root.join("files").join(wheel))
        );
        assert!(written.contains(&pin), "no {pin:?} in:\n{written}");
    }
    let expected: BTreeMap<&str, (&str, usize)> =
        PINS.iter().map(|(name, version, _)| (*name, (*version, 1))).collect();
    let found = pins(&written);
    let found: BTreeMap<&str, (&str, usize)> = found
        .iter()
        .map(|(name, (version, hashes))| (name.as_str(), (version.as_str(), hashes.len())))
        .collect();
    assert_eq!(
        found, expected,
        "pip and setuptools are left out, one hash per pin:\n{written}"
    );
    requirements
}

/// name -> (version, hashes) of the `name==version` lines of a requirements file.
fn pins(text: &str) -> BTreeMap<String, (String, Vec<String>)> {
    text.replace("\\\n", " ")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with('-'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let (name, version) = words.next().unwrap().split_once("==").unwrap();
            let hashes = words
                .map(|word| word.strip_prefix("--hash=sha256:").unwrap().to_string())
                .collect();
            (name.to_string(), (version.to_string(), hashes))
        })
        .collect()
}

#[derive(Debug, Deserialize)]
struct Verify {
    drift: Vec<Drift>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Drift {
    id: String,
    subject: String,
    expected: Option<String>,
    found: Option<String>,
}

/// `envdoctor verify --lock L --python PYTHON --format json`: its exit code and drift.
fn verify(cache: &Path, python: &Path) -> (i32, Vec<Drift>) {
    let output = envdoctor(cache)
        .args(["verify", "--format", "json", "--lock"])
        .arg(&fixture().lock)
        .arg("--python")
        .arg(python)
        .output()
        .unwrap();
    let report: Verify = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", text(&output.stdout), text(&output.stderr)));
    (output.status.code().unwrap(), report.drift)
}

/// Export with hashes from an index in `mode`, install the file into a fresh
/// venv with hash checking on, and find no drift from the lock there.
fn round_trip(root: &Path, mode: &str) {
    let work = tempfile::tempdir().unwrap();
    let server = Server::start(root, &["--mode", mode]);
    let requirements = export_with_hashes(&server, root, work.path());
    let python = common::create_venv(&work.path().join("B"), true);
    // The index comes from the file's `--index-url` line.
    succeeds(
        pip(&python)
            .args(["install", "--require-hashes", "--no-deps", "-r"])
            .arg(&requirements),
    );
    let (code, drift) = verify(&work.path().join("cache"), &python);
    assert_eq!((code, drift), (0, Vec::new()), "{mode}");
}

#[test]
fn requirements_with_hashes_reinstall_the_lock_from_an_html_index() {
    round_trip(&fixture().root, "html");
}

#[test]
fn requirements_with_hashes_reinstall_the_lock_from_a_json_index() {
    round_trip(&fixture().root, "json");
}

#[test]
fn only_the_installed_wheel_is_hashed_when_the_release_has_other_wheels() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("index");
    std::fs::create_dir_all(root.join("files")).unwrap();
    for entry in std::fs::read_dir(fixture().root.join("files")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), root.join("files").join(entry.file_name())).unwrap();
    }
    // Same project and version, other tags, other bytes (so another hash);
    // pip prefers it by its tags, so only the hash keeps it out of venv B.
    let mut other = std::fs::read(root.join("files").join(ALPHA_WHEEL)).unwrap();
    other.extend_from_slice(b"another build");
    std::fs::write(
        root.join("files")
            .join("alpha_one-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
        other,
    )
    .unwrap();
    round_trip(&root, "negotiate");
}

#[test]
fn pip_refuses_a_requirements_file_with_a_tampered_hash() {
    let work = tempfile::tempdir().unwrap();
    let server = Server::start(&fixture().root, &["--mode", "html"]);
    let requirements = export_with_hashes(&server, &fixture().root, work.path());
    let good = std::fs::read_to_string(&requirements).unwrap();
    let real = sha256_of(&fixture().root.join("files").join(BETA_WHEEL));
    let forged = format!("{}{}", &real[..63], if real.ends_with('0') { '1' } else { '0' });
    let tampered = work.path().join("tampered.txt");
    std::fs::write(&tampered, good.replace(&real, &forged)).unwrap();

    let install = |file: &Path, target: &Path| {
        output(
            pip(common::system_python())
                .args(["install", "--require-hashes", "--no-deps", "--target"])
                .arg(target)
                .arg("-r")
                .arg(file),
        )
    };
    let refused = install(&tampered, &work.path().join("tampered-target"));
    let stderr = text(&refused.stderr);
    assert!(
        !refused.status.success(),
        "pip installed despite a forged hash:\n{stderr}"
    );
    assert!(
        stderr.contains("DO NOT MATCH THE HASHES") && stderr.contains(&forged) && stderr.contains(&real),
        "{stderr}"
    );
    // The untouched file installs the same way: the forged hash alone was refused.
    let accepted = install(&requirements, &work.path().join("target"));
    assert!(accepted.status.success(), "{}", text(&accepted.stderr));
    assert!(work.path().join("target/beta_two-2.1.post1.dist-info").is_dir());
}

/// A pip wheel that installs pylock.toml files (26.1 and later): the one
/// `.ci/run` downloads, else one left in /tmp/pipwheels.
fn pylock_pip_wheel() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ENVDOCTOR_TEST_PIP_WHEEL").map(PathBuf::from)
        && path.is_file()
    {
        return Some(path);
    }
    let reads_pylock = |name: &str| {
        let version = name.strip_prefix("pip-")?.split('-').next()?;
        let mut parts = version.split('.').map(|part| part.parse::<u32>().ok());
        let (major, minor) = (parts.next()??, parts.next().flatten().unwrap_or(0));
        Some((major, minor) >= (26, 1))
    };
    std::fs::read_dir("/tmp/pipwheels")
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
            name.ends_with(".whl") && reads_pylock(name) == Some(true)
        })
        .max()
}

#[test]
fn pip_installs_the_exported_pylock() {
    let Some(wheel) = pylock_pip_wheel() else {
        common::skip(
            "export_roundtrip::pip_installs_the_exported_pylock",
            "pip-wheel",
            "no pip >= 26.1 wheel (set ENVDOCTOR_TEST_PIP_WHEEL or run .ci/run with network)",
        );
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let root = &fixture().root;
    let server = Server::start(root, &["--mode", "negotiate"]);
    let index = index_url(&server);
    let arguments = ["--format", "pylock", "--index-url", &index];

    let misnamed = work.path().join("lock.toml");
    let refused = envdoctor(&cache)
        .arg("export")
        .arg("--lock")
        .arg(&fixture().lock)
        .args(arguments)
        .arg("-o")
        .arg(&misnamed)
        .assert()
        .code(2);
    assert!(text(&refused.get_output().stderr).contains("pylock.toml"));
    assert!(!misnamed.exists());

    let pylock = work.path().join("pylock.toml");
    let written = export(&cache, &arguments, &pylock);
    let document: toml_edit::DocumentMut = written.parse().unwrap();
    assert_eq!(document["lock-version"].as_str(), Some("1.0"), "{written}");
    assert!(
        document["created-by"]
            .as_str()
            .is_some_and(|by| by.starts_with("envdoctor")),
        "{written}"
    );
    let lock: toml_edit::DocumentMut = std::fs::read_to_string(&fixture().lock).unwrap().parse().unwrap();
    assert_eq!(
        document["tool"]["envdoctor"]["lock-fingerprint"].as_str(),
        lock["fingerprint"].as_str(),
        "{written}"
    );
    let mut packages = BTreeMap::new();
    for package in document["packages"].as_array_of_tables().unwrap() {
        let wheels = package["wheels"].as_array().unwrap();
        assert_eq!(wheels.len(), 1, "{written}");
        let wheel = wheels.get(0).unwrap().as_inline_table().unwrap();
        let name = wheel.get("name").unwrap().as_str().unwrap();
        let path = root.join("files").join(name);
        assert_eq!(
            wheel.get("url").unwrap().as_str().unwrap(),
            format!("http://127.0.0.1:{}/files/{name}", server.port)
        );
        assert_eq!(
            wheel
                .get("hashes")
                .and_then(|hashes| hashes.as_inline_table()?.get("sha256")?.as_str()),
            Some(sha256_of(&path).as_str())
        );
        assert_eq!(
            wheel.get("size").unwrap().as_integer(),
            Some(std::fs::metadata(&path).unwrap().len() as i64)
        );
        packages.insert(
            package["name"].as_str().unwrap().to_string(),
            (package["version"].as_str().unwrap().to_string(), name.to_string()),
        );
    }
    let expected: BTreeMap<String, (String, String)> = PINS
        .iter()
        .map(|(name, version, wheel)| (common::normalize(name), (version.to_string(), wheel.to_string())))
        .collect();
    assert_eq!(packages, expected, "{written}");

    let python = common::create_venv(&work.path().join("C"), true);
    common::run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--no-deps"])
            .arg(&wheel),
    );
    let pip_version = succeeds(pip(&python).arg("--version"));
    let pip_version = pip_version.split_whitespace().nth(1).unwrap().to_string();
    succeeds(pip(&python).args(["install", "--no-deps", "-r"]).arg(&pylock));

    // C has everything the lock has, and the pip that read pylock.toml.
    let locked_pip = lock["packages"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .find(|package| package["name"].as_str() == Some("pip"))
        .and_then(|package| package["version"].as_str())
        .unwrap()
        .to_string();
    let (code, drift) = verify(&cache, &python);
    assert_eq!(
        (code, drift),
        (
            1,
            vec![Drift {
                id: "package-version".to_string(),
                subject: "pip".to_string(),
                expected: Some(locked_pip),
                found: Some(pip_version),
            }]
        )
    );
}

#[test]
fn hashes_the_index_lacks_or_the_offline_cache_lacks_fail_the_export() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let fail = |arguments: &[&str], index: &str| {
        let output = work.path().join("requirements.txt");
        let assert = envdoctor(&cache)
            .arg("export")
            .arg("--lock")
            .arg(&fixture().lock)
            .args(["--format", "requirements", "--hashes", "--index-url", index])
            .args(arguments)
            .arg("-o")
            .arg(&output)
            .assert()
            .code(2);
        assert!(!output.exists(), "a failed export wrote its file");
        text(&assert.get_output().stderr)
    };

    // An index with alpha-one's files and not beta_two's.
    let partial = work.path().join("partial");
    std::fs::create_dir_all(partial.join("files")).unwrap();
    std::fs::copy(
        fixture().root.join("files").join(ALPHA_WHEEL),
        partial.join("files").join(ALPHA_WHEEL),
    )
    .unwrap();
    let server = Server::start(&partial, &["--mode", "html"]);
    let stderr = fail(&[], &index_url(&server));
    assert!(
        stderr.contains("no sha256 for 1 of 2 packages: beta_two==2.1.post1 ("),
        "{stderr}"
    );
    drop(server);

    let server = Server::start(&fixture().root, &["--mode", "html"]);
    let index = index_url(&server);
    let stderr = fail(&["--offline"], &index);
    let pins: Vec<String> = PINS
        .iter()
        .map(|(name, version, _)| format!("{name}=={version}"))
        .collect();
    let expected = format!(
        "no sha256 for {count} of {count} packages: {} (not in the index cache)",
        pins.join(", "),
        count = pins.len()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    let arguments = ["--format", "requirements", "--hashes", "--index-url", &index];
    let online = export(&cache, &arguments, &work.path().join("online.txt"));
    // With the index gone, the cache alone answers.
    drop(server);
    let offline = export(
        &cache,
        &[&arguments[..], &["--offline"]].concat(),
        &work.path().join("offline.txt"),
    );
    assert_eq!(offline, online);
}

/// The `-e` line of `pip freeze` (pip 23.2.1, the venv's own).
fn freeze_editable_line(python: &Path) -> String {
    let frozen = common::run(Command::new(python).args(["-m", "pip", "freeze"]));
    let lines: Vec<&str> = frozen.lines().filter(|line| line.starts_with("-e ")).collect();
    assert_eq!(lines.len(), 1, "{frozen}");
    lines[0].to_string()
}

#[test]
fn editable_installs_are_written_as_pip_freeze_writes_them() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    // Outside the target directory, which may lie in envdoctor's own git work tree.
    let scratch = tempfile::tempdir().unwrap();
    let project = common::write_project(&scratch.path().join("delta"), "Delta.Four-x", "0.3");
    let python = common::create_venv(&work.path().join("D"), true);
    common::run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--no-build-isolation",
                "--no-deps",
                "--no-index",
                "-e",
            ])
            .arg(&project),
    );
    let export_lines = |arguments: &[&str]| {
        let assert = envdoctor(&cache)
            .args(["export", "--python"])
            .arg(&python)
            .args(arguments)
            .assert()
            .success();
        let output = assert.get_output();
        (text(&output.stdout), text(&output.stderr))
    };
    let editable_lines = |written: &str| -> Vec<String> {
        written
            .lines()
            .filter(|line| line.starts_with("-e "))
            .map(str::to_string)
            .collect()
    };

    let (written, _) = export_lines(&["--format", "requirements"]);
    let plain = format!("-e {}", project.display());
    assert_eq!(editable_lines(&written), std::slice::from_ref(&plain), "{written}");
    assert_eq!(freeze_editable_line(&python), plain);

    let git = |arguments: &[&str]| {
        common::run(
            Command::new("git")
                .args([
                    "-c",
                    "user.email=a@b",
                    "-c",
                    "user.name=n",
                    "-c",
                    "commit.gpgsign=false",
                    "-C",
                ])
                .arg(&project)
                .args(arguments),
        )
    };
    git(&["init", "--quiet"]);
    git(&["remote", "add", "origin", "https://example.com/x.git"]);
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "delta"]);
    let commit = git(&["rev-parse", "HEAD"]).trim().to_string();
    let (written, _) = export_lines(&["--format", "requirements"]);
    let from_git = freeze_editable_line(&python);
    assert!(
        from_git.starts_with(&format!("-e git+https://example.com/x.git@{commit}#egg=")),
        "{from_git}"
    );
    assert_eq!(editable_lines(&written), std::slice::from_ref(&from_git), "{written}");

    // Hash-checking mode refuses editables: the line moves into the comment
    // block. An index that would refuse every connection shows that nothing
    // is asked of it (there are no index pins).
    let (written, stderr) = export_lines(&[
        "--format",
        "requirements",
        "--hashes",
        "--index-url",
        "http://127.0.0.1:9/simple/",
    ]);
    assert!(editable_lines(&written).is_empty(), "{written}");
    assert!(written.contains(&format!("\n#   {from_git}\n")), "{written}");
    assert!(
        stderr.contains("left in a comment") && stderr.contains("Delta.Four-x"),
        "{stderr}"
    );
}

#[test]
fn constraints_pin_versions_without_hashes() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let constraints = work.path().join("constraints.txt");
    let written = export(&cache, &["--format", "constraints"], &constraints);
    let lines: Vec<&str> = written
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    assert_eq!(lines, ["alpha-one==1.0", "beta_two==2.1.post1"], "{written}");
    assert!(!written.contains("--hash"), "{written}");

    // pip takes the pinned alpha-one 1.0 over the index's newer 2.0.
    let server = Server::start(&fixture().root, &["--mode", "html"]);
    let downloads = work.path().join("downloads");
    succeeds(
        pip(common::system_python())
            .args(["download", "--no-deps", "--index-url"])
            .arg(index_url(&server))
            .arg("-d")
            .arg(&downloads)
            .arg("-c")
            .arg(&constraints)
            .arg("alpha-one"),
    );
    let downloaded: Vec<String> = std::fs::read_dir(&downloads)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(downloaded, [ALPHA_WHEEL]);
    assert!(fixture().root.join("files").join(ALPHA_NEWER_WHEEL).is_file());

    let refused = envdoctor(&cache)
        .args(["export", "--format", "constraints", "--hashes", "--lock"])
        .arg(&fixture().lock)
        .assert()
        .code(2);
    assert!(text(&refused.get_output().stderr).contains("a constraints file carries no hashes"));
}
