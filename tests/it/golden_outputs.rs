//! Golden outputs: what envdoctor prints today for the recorded fixtures, byte
//! for byte, so that a refactor can prove it changes no output byte.
//!
//! Every case runs the binary with the repository root as its current
//! directory and paths relative to it, so the outputs hold no path of this
//! checkout. For each case two files sit in `tests/fixtures/golden/`:
//!
//! - `NAME` (for example `check-h100-recorded.markdown`): standard output, exactly;
//! - `NAME.status`: the exit code (`exit: N`) and standard error, exactly.
//!
//! A run compares both and fails on the first case that changed, naming the
//! command, the golden file and the first line that differs.
//!
//! **Blessing.** `ENVDOCTOR_BLESS=1 cargo test --test it golden_outputs` writes
//! the golden files from what the binary prints now instead of comparing, and
//! removes golden files no case produces any more. Bless only when an output
//! change is intended, then read `git diff tests/fixtures/golden` (it also
//! shows every changed case at once, where a plain run stops at the first).
//!
//! **Normalized**, and only this: the temporary directory that holds the
//! interpreter cache and the fleet's copies of the Snapshots becomes `<TMP>`
//! in outputs and in the command shown on failure (it differs on every run).
//! No output holds it today; the replacement is there so that one that starts
//! to print it fails on the text, not on the random name. Nothing else was
//! found to change between runs (blessed, then run repeatedly, in parallel and
//! with `--test-threads=1`, from another directory, under other `TZ`, `LANG`,
//! `NO_COLOR`, `PIP_INDEX_URL`, and with `--release`): replays hold no timings,
//! `lock` writes no time stamp, JUnit times are `0`, and every list is sorted.
//! The command's environment is `common::envdoctor`'s (an isolated cache, no
//! `PYTHONPATH` or virtual environment); stdout is a pipe, so no colour.
//!
//! **The clock.** Outputs do not depend on it: a `checked` date after today
//! is reported by `matrix lint` only (`tests/it/check_cli.rs` runs `check` with a
//! rule checked in 2999).
//!
//! **Left out**, on purpose: `matrix list` as text (it prints today's date and
//! the age of the oldest check, so it changes every day); every live probe
//! (`probe`, `check`, `smoke` without `--snapshot`: they describe the machine
//! the test runs on, and the smoke test needs a GPU); `export` with hashes
//! from a live index (network); `fleet --slurm` (needs Slurm); `verify
//! --files` (needs the installed files, which a Snapshot does not carry).

use crate::common;
use crate::common::fixtures::{DS_ZERO3_OFFLOAD, H100, H100_DS, H200, LOCK, SMOKE_LOG};

use std::collections::BTreeSet;
use std::error::Error;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

type TestResult = Result<(), Box<dyn Error>>;

/// The golden files, relative to the repository root.
const GOLDEN_DIR: &str = "tests/fixtures/golden";

const EXPLAIN_RECORDED: &str = "tests/fixtures/explain-recorded";

/// The recorded Snapshots, by the short label their golden files carry.
const SNAPSHOTS: [(&str, &str); 3] = [
    ("h100-recorded", H100),
    ("h100-deepspeed-0.14.2-recorded", H100_DS),
    ("h200-recorded", H200),
];

/// What stands in the golden files for this run's temporary directory.
const TMP_PLACEHOLDER: &str = "<TMP>";

/// One invocation: the golden file's name, the arguments after `envdoctor`
/// (`{tmp}` stands for this run's temporary directory), and a file, relative
/// to the repository root, to feed on standard input.
struct Case {
    name: String,
    args: Vec<String>,
    stdin: Option<&'static str>,
}

fn case(name: impl Into<String>, args: &[&str]) -> Case {
    Case {
        name: name.into(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        stdin: None,
    }
}

/// What one invocation printed, the temporary directory already replaced.
struct Captured {
    /// `envdoctor ARGS...` as the failure message shows it.
    command: String,
    stdout: Vec<u8>,
    /// `exit: N`, then standard error: the `.status` golden file.
    status: Vec<u8>,
}

fn repository_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn blessing() -> bool {
    std::env::var_os("ENVDOCTOR_BLESS").is_some_and(|value| value == "1")
}

/// Runs every case of one command family, compares (or blesses) its golden
/// files, and checks that no golden file of the family is left over.
fn run_family(family: &str, cases: &[Case]) -> TestResult {
    // `check` reads `envdoctor.toml` from its current directory: one at the
    // repository root would silence findings and every `check` golden would
    // fail for a reason that is not the code's.
    let stray_config = repository_root().join("envdoctor.toml");
    assert!(
        !stray_config.exists(),
        "{} exists: it changes what `check` reports; move it away to run the golden tests",
        stray_config.display()
    );
    let tmp = tempfile::tempdir()?;
    copy_fleet(&tmp.path().join("fleet"))?;
    let mut used = BTreeSet::new();
    for case in cases {
        assert_golden(&case.name, &run(case, tmp.path())?)?;
        used.insert(case.name.clone());
        used.insert(format!("{}.status", case.name));
    }
    leftover_golden_files(family, &used)
}

/// The fleet directory: copies of the recorded Snapshots under fixed names, so
/// the fleet's order and the names its report prints are the same every run.
fn copy_fleet(dir: &Path) -> TestResult {
    std::fs::create_dir_all(dir)?;
    for (name, snapshot) in [
        ("node-a-h100.json", H100),
        ("node-b-h100-deepspeed.json", H100_DS),
        ("node-c-h200.json", H200),
    ] {
        std::fs::copy(repository_root().join(snapshot), dir.join(name))
            .map_err(|error| format!("copying {snapshot} into the fleet directory: {error}"))?;
    }
    Ok(())
}

/// Runs `envdoctor ARGS...` from the repository root with its cache in `tmp`.
fn run(case: &Case, tmp: &Path) -> Result<Captured, Box<dyn Error>> {
    let tmp_text = tmp.to_str().ok_or("the temporary directory's path is not UTF-8")?;
    let args: Vec<String> = case.args.iter().map(|arg| arg.replace("{tmp}", tmp_text)).collect();
    let mut command = common::envdoctor(&tmp.join("cache"));
    command.current_dir(repository_root()).args(&args);
    if let Some(file) = case.stdin {
        let input = std::fs::read(repository_root().join(file)).map_err(|error| format!("reading {file}: {error}"))?;
        command.write_stdin(input);
    }
    let output = command.output()?;
    let exit = match (output.status.code(), output.status.signal()) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "unknown".to_string(),
    };
    let mut status = format!("exit: {exit}\nstderr ({} bytes):\n", output.stderr.len()).into_bytes();
    status.extend_from_slice(&output.stderr);
    let mut shown = format!("envdoctor {}", case.args.join(" ")).replace("{tmp}", TMP_PLACEHOLDER);
    if let Some(file) = case.stdin {
        shown.push_str(&format!(" < {file}"));
    }
    Ok(Captured {
        command: shown,
        stdout: without_tmp(&output.stdout, tmp),
        status: without_tmp(&status, tmp),
    })
}

/// `bytes` with every spelling of the temporary directory (as given, and with
/// symbolic links resolved, as a program that canonicalizes would print it)
/// replaced by `<TMP>`: the only part of an output that changes between runs.
fn without_tmp(bytes: &[u8], tmp: &Path) -> Vec<u8> {
    let mut spellings = vec![tmp.to_path_buf()];
    if let Ok(resolved) = tmp.canonicalize() {
        spellings.push(resolved);
    }
    // The longer spelling first, so that one that contains the other is not cut in half.
    spellings.sort_by_key(|path| std::cmp::Reverse(path.as_os_str().len()));
    let mut out = bytes.to_vec();
    for spelling in spellings {
        out = replace_all(
            &out,
            spelling.as_os_str().as_encoded_bytes(),
            TMP_PLACEHOLDER.as_bytes(),
        );
    }
    out
}

fn replace_all(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    if needle.is_empty() {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while !rest.is_empty() {
        if rest.starts_with(needle) {
            out.extend_from_slice(with);
            rest = &rest[needle.len()..];
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

fn golden_path(name: &str) -> PathBuf {
    repository_root().join(GOLDEN_DIR).join(name)
}

/// Compares one case's output with its golden files, `NAME` (standard output)
/// and `NAME.status` (exit code and standard error), or writes them when
/// blessing. A difference fails the test with the command, the file and the
/// first line that differs.
fn assert_golden(name: &str, output: &Captured) -> TestResult {
    // A changed stdout usually has its reason in stderr (an `envdoctor: error:`
    // line, exit 2), so that part of the status comes along in the message.
    let status_now = String::from_utf8_lossy(&output.status);
    let status_now: Vec<&str> = status_now.lines().take(4).collect();
    let context = format!("Exit code and stderr now:\n  {}", status_now.join("\n  "));
    compare_or_bless(name, &output.command, &output.stdout, &context)?;
    compare_or_bless(&format!("{name}.status"), &output.command, &output.status, "")
}

/// Compares `actual` with the golden file `name`, or writes it when blessing.
fn compare_or_bless(name: &str, command: &str, actual: &[u8], context: &str) -> TestResult {
    let path = golden_path(name);
    let expected = std::fs::read(&path).ok();
    if blessing() {
        if expected.as_deref() != Some(actual) {
            std::fs::create_dir_all(repository_root().join(GOLDEN_DIR))?;
            std::fs::write(&path, actual).map_err(|error| format!("writing {}: {error}", path.display()))?;
            eprintln!("blessed {GOLDEN_DIR}/{name}");
        }
        return Ok(());
    }
    let Some(expected) = expected else {
        panic!(
            "`{command}`: no golden file {GOLDEN_DIR}/{name}; create it with \
             `ENVDOCTOR_BLESS=1 cargo test --test it golden_outputs`"
        );
    };
    if let Some(difference) = first_difference(&expected, actual) {
        panic!(
            "`{command}` no longer prints what {GOLDEN_DIR}/{name} holds.\n{difference}\n{context}\n\
             If the change is intended, rerun with ENVDOCTOR_BLESS=1 and review `git diff {GOLDEN_DIR}`."
        );
    }
    Ok(())
}

/// The first line (1-based) where the two outputs differ, both sides quoted so
/// that whitespace and control characters show; `None` when they are equal.
fn first_difference(expected: &[u8], actual: &[u8]) -> Option<String> {
    if expected == actual {
        return None;
    }
    // Each line keeps its '\n', so a missing final newline shows as a
    // difference in the last line, and equal lines throughout mean equal bytes.
    let mut golden = expected.split_inclusive(|byte| *byte == b'\n');
    let mut now = actual.split_inclusive(|byte| *byte == b'\n');
    let show = |line: Option<&[u8]>| match line {
        Some(line) => format!("{:?}", String::from_utf8_lossy(line)),
        None => "<end of output>".to_string(),
    };
    for number in 1.. {
        let (left, right) = (golden.next(), now.next());
        if left.is_none() && right.is_none() {
            break;
        }
        if left != right {
            return Some(format!(
                "first difference at line {number}:\n  golden: {}\n  now:    {}",
                show(left),
                show(right)
            ));
        }
    }
    Some("the outputs differ, though no line does".to_string())
}

/// Golden files of `family` (named `FAMILY-...`) that no case wrote: a case
/// removed or renamed. Blessing deletes them; a plain run fails, since a file
/// nothing compares would look like coverage it is not.
fn leftover_golden_files(family: &str, used: &BTreeSet<String>) -> TestResult {
    let prefix = format!("{family}-");
    let dir = repository_root().join(GOLDEN_DIR);
    let mut leftover = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|error| format!("listing {}: {error}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && !used.contains(&name) {
            leftover.push(name);
        }
    }
    if blessing() {
        for name in &leftover {
            std::fs::remove_file(golden_path(name))?;
            eprintln!("removed {GOLDEN_DIR}/{name}: no case writes it");
        }
        return Ok(());
    }
    assert!(
        leftover.is_empty(),
        "golden files no `{family}` case compares: {leftover:?}; rerun with ENVDOCTOR_BLESS=1 to remove them"
    );
    Ok(())
}

#[test]
fn probe() -> TestResult {
    let mut cases = Vec::new();
    for (label, snapshot) in SNAPSHOTS {
        cases.push(case(format!("probe-{label}.text"), &["probe", "--snapshot", snapshot]));
    }
    // The JSON of a replay is the recorded Snapshot again (byte for byte today),
    // about 300 KB each: one is enough here, since the check JSON below embeds
    // every recorded Snapshot through the same serializer.
    cases.push(case(
        "probe-h100-deepspeed-0.14.2-recorded.json",
        &["probe", "--snapshot", H100_DS, "--format", "json"],
    ));
    run_family("probe", &cases)
}

#[test]
fn check() -> TestResult {
    let mut cases = Vec::new();
    for (label, snapshot) in SNAPSHOTS {
        for format in ["text", "json", "junit", "markdown"] {
            cases.push(case(
                format!("check-{label}.{format}"),
                &["check", "--no-smoke", "--snapshot", snapshot, "--format", format],
            ));
        }
    }
    // The job's DeepSpeed config settles the ZeRO-3 offload rule: an error now,
    // where without the config it is an unsettled warning.
    for format in ["text", "json"] {
        cases.push(case(
            format!("check-h100-deepspeed-0.14.2-recorded-ds-zero3-offload-cpu.{format}"),
            &[
                "check",
                "--no-smoke",
                "--snapshot",
                H100_DS,
                "--deepspeed-config",
                DS_ZERO3_OFFLOAD,
                "--format",
                format,
            ],
        ));
    }
    // With its three errors ignored (one with a reason, two without), only
    // warnings are left: `--fail-on warning` alone makes this exit 1, and the
    // ignored findings show in each format.
    for format in ["text", "junit", "markdown"] {
        cases.push(case(
            format!("check-h100-deepspeed-0.14.2-recorded-fail-on-warning.{format}"),
            &[
                "check",
                "--no-smoke",
                "--snapshot",
                H100_DS,
                "--ignore",
                "deepspeed-0-14-3-numpy-2-bufsize=numpy is pinned below 2 by the job's launcher",
                "--ignore",
                "deepspeed-0-14-3-torch-elastic-socket-import",
                "--ignore",
                "requirement-not-installed",
                "--fail-on",
                "warning",
                "--format",
                format,
            ],
        ));
    }
    run_family("check", &cases)
}

#[test]
fn lock() -> TestResult {
    let cases: Vec<Case> = SNAPSHOTS
        .iter()
        .map(|(label, snapshot)| {
            case(
                format!("lock-{label}.lock"),
                &["lock", "--snapshot", snapshot, "-o", "-"],
            )
        })
        .collect();
    run_family("lock", &cases)
}

#[test]
fn verify() -> TestResult {
    let mut cases = Vec::new();
    // Against the Snapshot it was made from (no drift), the DeepSpeed one (extra
    // packages, PYTHONPATH) and the H200 one (another GPU model).
    for (label, snapshot) in [
        ("h100-recorded", H100),
        ("h100-deepspeed-0.14.2-recorded", H100_DS),
        ("h200-recorded", H200),
    ] {
        for format in ["text", "json", "junit"] {
            cases.push(case(
                format!("verify-h100-lock-vs-{label}.{format}"),
                &["verify", "--lock", LOCK, "--snapshot", snapshot, "--format", format],
            ));
        }
    }
    // The drift is all warnings: exit 0 by default, 1 with --fail-on warning.
    cases.push(case(
        "verify-h100-lock-vs-h100-deepspeed-0.14.2-recorded-fail-on-warning.text",
        &["verify", "--lock", LOCK, "--snapshot", H100_DS, "--fail-on", "warning"],
    ));
    run_family("verify", &cases)
}

#[test]
fn diff() -> TestResult {
    let mut cases = Vec::new();
    for format in ["text", "json"] {
        cases.push(case(
            format!("diff-h100-recorded-vs-h200-recorded.{format}"),
            &["diff", H100, H200, "--format", format],
        ));
        cases.push(case(
            format!("diff-h100-lock-vs-h100-deepspeed-0.14.2-recorded.{format}"),
            &["diff", LOCK, H100_DS, "--format", format],
        ));
    }
    // A lock and the Snapshot it was made from: no difference, exit 0.
    cases.push(case("diff-h100-lock-vs-h100-recorded.text", &["diff", LOCK, H100]));
    run_family("diff", &cases)
}

#[test]
fn export() -> TestResult {
    let cases = vec![
        case(
            "export-h100-lock.requirements",
            &["export", "--lock", LOCK, "--format", "requirements"],
        ),
        case(
            "export-h100-lock.constraints",
            &["export", "--lock", LOCK, "--format", "constraints"],
        ),
        case(
            "export-h100-lock-all.requirements",
            &["export", "--lock", LOCK, "--format", "requirements", "--all"],
        ),
        // From a Snapshot instead of a lock: the packages installed on PYTHONPATH come along.
        case(
            "export-h100-deepspeed-0.14.2-recorded.requirements",
            &["export", "--snapshot", H100_DS, "--format", "requirements"],
        ),
        // pylock always needs hashes, and offline with the test's empty cache
        // there are none: the golden output is the error (exit 2). The index
        // is named so that a pip configuration on the machine cannot change it.
        case(
            "export-h100-lock-offline.pylock",
            &[
                "export",
                "--lock",
                LOCK,
                "--format",
                "pylock",
                "--offline",
                "--index-url",
                "https://pypi.org/simple/",
            ],
        ),
    ];
    run_family("export", &cases)
}

#[test]
fn explain() -> TestResult {
    let mut logs = vec![(
        "smoke-recorded-train-zero3-offload-deepspeed-0.14.2",
        SMOKE_LOG.to_string(),
    )];
    // `explain-recorded/train-zero3-offload-deepspeed-0.14.2.log` is left out:
    // the same bytes as SMOKE_LOG, so it would only repeat that case.
    for name in [
        "deepspeed-0.14.0-torch-2.11-elastic-log",
        "deepspeed-0.14.2-numpy-2-BUFSIZE",
        "train-zero3-offload-deepspeed-0.14.0",
        "train-zero3-offload-deepspeed-0.14.2-clip1.0-norm-below-clip",
    ] {
        logs.push((name, format!("{EXPLAIN_RECORDED}/{name}.log")));
    }
    let mut cases = Vec::new();
    // Every log on the node it was recorded on (the 0.14.0 log too: that node
    // has DeepSpeed 0.14.2, so the 0.14.0 cause is ruled out there).
    for (label, log) in &logs {
        for format in ["text", "json"] {
            cases.push(case(
                format!("explain-{label}.{format}"),
                &["explain", log, "--snapshot", H100_DS, "--format", format],
            ));
        }
    }
    // The job's config settles the rule's open question: the evidence changes.
    cases.push(case(
        "explain-smoke-recorded-train-zero3-offload-deepspeed-0.14.2-ds-zero3-offload-cpu.text",
        &[
            "explain",
            SMOKE_LOG,
            "--snapshot",
            H100_DS,
            "--deepspeed-config",
            DS_ZERO3_OFFLOAD,
        ],
    ));
    // Everything the default text leaves out: why, every reference and candidate.
    cases.push(case(
        "explain-smoke-recorded-train-zero3-offload-deepspeed-0.14.2-verbose.text",
        &["explain", SMOKE_LOG, "--snapshot", H100_DS, "--verbose"],
    ));
    // The log on standard input: it is named "standard input" instead of a path.
    cases.push(Case {
        stdin: Some(SMOKE_LOG),
        ..case("explain-stdin.text", &["explain", "-", "--snapshot", H100_DS])
    });
    run_family("explain", &cases)
}

#[test]
fn fleet() -> TestResult {
    let mut cases = Vec::new();
    for format in ["text", "json", "junit", "markdown"] {
        cases.push(case(
            format!("fleet-recorded.{format}"),
            &["fleet", "{tmp}/fleet", "--format", format],
        ));
    }
    // The lock as the reference instead of the majority.
    cases.push(case(
        "fleet-recorded-vs-h100-lock.text",
        &["fleet", "{tmp}/fleet", "--lock", LOCK],
    ));
    run_family("fleet", &cases)
}

#[test]
fn matrix() -> TestResult {
    let cases = vec![
        case(
            "matrix-explain-deepspeed-zero3-offload-device-mismatch.text",
            &["matrix", "explain", "deepspeed-zero3-offload-device-mismatch"],
        ),
        // A built-in check, by its own id and by the id of a finding it raises.
        case(
            "matrix-explain-dependency-consistency.text",
            &["matrix", "explain", "dependency-consistency"],
        ),
        case(
            "matrix-explain-requirement-not-installed.text",
            &["matrix", "explain", "requirement-not-installed"],
        ),
        // The JSON list holds no date of today (the text does; see the header).
        case("matrix-list.json", &["matrix", "list", "--format", "json"]),
        case("matrix-lint.text", &["matrix", "lint"]),
    ];
    run_family("matrix", &cases)
}
