//! Issue 32 item 5: the rest of the second campaign's findings on the output
//! side, each pinned by the input that found it. E3: a 70,000-character
//! package name; E8: terminal controls and U+202E from a site rule, a
//! Snapshot and a log; E10: a node name that is a hostlist range; E12: secrets
//! in query and fragment parameters, in user information without a scheme,
//! in PYTHONPATH, and in variables named `*_CREDS` and `*_SIGNATURE`.

use std::path::Path;

use serde_json::Value;

use super::common::{envdoctor, fixtures, system_python};

fn h100() -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(root.join(fixtures::H100)).unwrap()).unwrap()
}

fn write_json(dir: &Path, name: &str, value: &Value) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
    path
}

/// Text output must carry none of these raw: ESC, OSC's BEL, NUL, U+202E.
fn assert_no_raw_controls(text: &str, what: &str) {
    for bad in ['\u{1b}', '\u{7}', '\u{0}', '\u{202e}', '\u{2066}', '\u{9b}'] {
        assert!(!text.contains(bad), "{what}: raw {bad:?} in {text:?}");
    }
}

/// Found by the fuzz target `long_and_control_strings_in_snapshots`: a
/// `Requires-Dist` whose name ends in `_` before more text (`a_+`) made
/// `check` panic inside pep508_rs (exit 101); it is a requirement that does
/// not parse, like any other.
#[test]
fn a_requirement_whose_name_ends_in_a_separator_is_not_a_panic() {
    let work = tempfile::tempdir().unwrap();
    let mut snapshot = h100();
    snapshot["packages"][0]["requires_dist"] = Value::from(vec!["a_+", "b- >=1"]);
    let input = write_json(work.path(), "requires.json", &snapshot);
    envdoctor(work.path())
        .args(["check", "--no-smoke", "--fail-on", "never", "--snapshot"])
        .arg(&input)
        .assert()
        .code(0);
}

/// E3: `probe` (text) exited 101 at `{cell:<width$}` over 65,535; so would
/// every other padded column. The name is kept, whole.
#[test]
fn e3_a_70000_character_package_name_is_shown_not_a_panic() {
    let work = tempfile::tempdir().unwrap();
    let mut snapshot = h100();
    let long = format!("a{}", "b".repeat(70_000));
    snapshot["packages"][0]["name"] = Value::from(long.clone());
    let input = write_json(work.path(), "long.json", &snapshot);
    for arguments in [
        vec!["probe", "--snapshot"],
        vec!["check", "--no-smoke", "--fail-on", "never", "--snapshot"],
        vec!["fleet"],
    ] {
        let output = envdoctor(work.path()).args(&arguments).arg(&input).output().unwrap();
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{arguments:?}: {:?} {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        if arguments[0] == "probe" {
            assert!(String::from_utf8_lossy(&output.stdout).contains(&long), "{arguments:?}");
        }
    }
}

/// E8: a site rule folder named with ESC, an OSC title sequence ended by BEL
/// and U+202E, and a rule holding ESC and BEL raw: `matrix lint` quotes
/// both, escaped.
#[test]
fn e8_matrix_lint_escapes_what_a_site_rule_holds() {
    let work = tempfile::tempdir().unwrap();
    // The folder's name and the rule's text both reach the lint's lines.
    let rules = work.path().join("site\u{1b}]0;pwned\u{7}\u{202e}");
    std::fs::create_dir_all(rules.join("rules")).unwrap();
    std::fs::write(
        rules.join("rules/bad.toml"),
        "id = \"bad\u{1b}[31m\u{7}x\"\ntitle = \"t\"\n",
    )
    .unwrap();
    let output = envdoctor(work.path())
        .args(["matrix", "lint"])
        .arg(&rules)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("\\x1b"), "the id is quoted, escaped: {stdout}");
    assert_no_raw_controls(&stdout, "matrix lint");
    assert_no_raw_controls(&String::from_utf8_lossy(&output.stderr), "matrix lint stderr");
}

/// E8: U+202E (and ESC) in a package's name and version, in probe, check,
/// fleet and explain text: written as `\u{202e}`.
#[test]
fn e8_bidirectional_overrides_are_escaped_in_every_text_output() {
    let work = tempfile::tempdir().unwrap();
    let mut snapshot = h100();
    snapshot["packages"][0]["version"] = Value::from("1.0\u{202e}lmth.exe\u{1b}[31m");
    snapshot["system"]["hostname"] = Value::from("n\u{202e}1");
    snapshot["nvidia"]["gpus"][0]["name"] = Value::from("NVIDIA\u{202e} H100\u{2066}");
    let input = write_json(work.path(), "bidi.json", &snapshot);
    let log = work.path().join("train.log");
    std::fs::write(
        &log,
        "Traceback (most recent call last):\n  File \"t\u{202e}.py\", line 1, in <module>\nModuleNotFoundError: No module named 'x\u{202e}y\u{1b}[2J'\n",
    )
    .unwrap();
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["probe".into(), "--snapshot".into(), input.clone().into()],
        vec![
            "check".into(),
            "--no-smoke".into(),
            "--snapshot".into(),
            input.clone().into(),
        ],
        vec!["fleet".into(), input.clone().into()],
        vec![
            "explain".into(),
            log.clone().into(),
            "--snapshot".into(),
            input.clone().into(),
        ],
    ];
    for arguments in runs {
        let output = envdoctor(work.path()).args(&arguments).output().unwrap();
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{arguments:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_no_raw_controls(&stdout, &format!("{arguments:?}"));
        assert_no_raw_controls(
            &String::from_utf8_lossy(&output.stderr),
            &format!("{arguments:?} stderr"),
        );
    }
    let probe = envdoctor(work.path())
        .args(["probe", "--snapshot"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&probe.stdout).contains("\\u{202e}"));
}

/// E10: a node that calls itself `gpu-[0004-4990]` is not written into a
/// hostlist made for `--exclude` (where it is 4,987 other nodes): its report
/// is refused, by name and why, as an unreadable one.
#[test]
fn e10_a_node_name_that_is_a_hostlist_range_is_refused_not_written() {
    let work = tempfile::tempdir().unwrap();
    let mut good = h100();
    good["system"]["hostname"] = Value::from("gpu-0001");
    let mut bad = h100();
    bad["system"]["hostname"] = Value::from("gpu-[0004-4990]");
    bad["packages"][0]["version"] = Value::from("0.0.1");
    let good = write_json(work.path(), "good.json", &good);
    let bad = write_json(work.path(), "bad.json", &bad);
    for format in ["json", "text", "markdown", "junit"] {
        let output = envdoctor(work.path())
            .args(["fleet", "--format", format])
            .arg(&good)
            .arg(&bad)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{format}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout).unwrap();
        if format == "json" {
            let report: Value = serde_json::from_str(&stdout).unwrap();
            let hostlists = [&report["deviations"], &report["configurations"], &report["findings"]]
                .iter()
                .flat_map(|list| list.as_array().cloned().unwrap_or_default())
                .filter_map(|item| item["hostlist"].as_str().map(str::to_string))
                .collect::<Vec<_>>();
            assert!(
                hostlists
                    .iter()
                    .all(|list| !list.contains('[') || list.starts_with("gpu-0")),
                "{hostlists:?}"
            );
            let unreadable = report["unreadable"].to_string();
            assert!(unreadable.contains("Slurm's hostlist syntax"), "{unreadable}");
        } else {
            assert!(stdout.contains("hostlist syntax"), "{format}: {stdout}");
        }
    }
}

/// E12: probed with these in its environment, the Snapshot records none of
/// the secrets: a token in a query, one in a fragment, a password in a proxy
/// without a scheme, the same in PYTHONPATH, and variables named `*_CREDS`
/// and `*_SIGNATURE`, which are withheld by name.
#[test]
fn e12_secrets_in_parameters_schemeless_proxies_and_secret_names_are_not_recorded() {
    let work = tempfile::tempdir().unwrap();
    let output = envdoctor(work.path())
        .args(["probe", "--format", "json", "--python"])
        .arg(system_python())
        .env("NCCL_DEBUG_FILE", "https://h/data?token=SECRET1")
        .env("TORCH_HOME", "https://h/cb#access_token=SECRET2&state=1")
        .env("CUDA_PROXY", "u:SECRET3@proxy:3128")
        .env("PYTHONPATH", "/opt/x:u:SECRET4@proxy:3128:/opt/y?api_key=SECRET5")
        .env("NCCL_CREDS", "SECRET6")
        .env("TORCH_SIGNATURE", "SECRET7")
        .env("CUDA_UPLOAD", "https://b.example/o?X-Amz-Signature=SECRET8&x=1")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        !stdout.contains("SECRET"),
        "{}",
        stdout
            .lines()
            .filter(|line| line.contains("SECRET"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let snapshot: Value = serde_json::from_str(&stdout).unwrap();
    let withheld = snapshot["env_withheld"].to_string();
    assert!(
        withheld.contains("NCCL_CREDS") && withheld.contains("TORCH_SIGNATURE"),
        "{withheld}"
    );
    assert_eq!(snapshot["env"]["NCCL_DEBUG_FILE"], "https://h/data?token=***");
    assert_eq!(snapshot["env"]["CUDA_PROXY"], "***@proxy:3128");
}
