//! `envdoctor explain` driven as a user drives it: every recorded case under
//! `tests/fixtures/explain` replayed on its own node, the DeepSpeed case on the
//! node where it cannot happen, the text report and `-o`, standard input, logs
//! with nothing to explain (empty, plain, garbage), input that is no log at all
//! (a binary, a directory, a missing path, a missing Snapshot), a 200 MB log
//! with the traceback in the middle, and a multi-rank log.

use crate::common;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

const CASES: &str = "tests/fixtures/explain";
const A40: &str = "deepspeed-zero3-offload-lf3583-a40";
const DS0140: &str = "deepspeed-zero3-offload-lf3583-ds0140-negative";
const DEEPSPEED_RULE: &str = "deepspeed-zero3-offload-device-mismatch";

/// A traceback no known cause fits, printed as the job's last words.
const UNRELATED_TRACEBACK: &str = r#"Traceback (most recent call last):
  File "/home/me/train.py", line 88, in <module>
    main()
  File "/home/me/train.py", line 42, in main
    raise ValueError("learning rate schedule is empty")
ValueError: learning rate schedule is empty
"#;

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(CASES).join(name)
}

/// A fresh batch (`BATCH`) or one of its cases (`BATCH/NAME`) under `tests/fixtures/explain-fresh`.
fn fresh_case_dir(batch_and_name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/explain-fresh")
        .join(batch_and_name)
}

/// `envdoctor explain LOG --snapshot SNAPSHOT ARGUMENTS...`, not yet run.
fn explain(cache: &Path, log: &Path, snapshot: &Path, arguments: &[&str]) -> assert_cmd::Command {
    let mut command = common::envdoctor(cache);
    command
        .arg("explain")
        .arg(log)
        .arg("--snapshot")
        .arg(snapshot)
        .args(arguments);
    command
}

/// A recorded case's log on its own node, as JSON: the explanation and the exit code.
fn explain_case_json(cache: &Path, name: &str) -> (Value, i32) {
    explain_dir_json(cache, &case_dir(name))
}

/// A case folder's log explained on its own snapshot, as JSON.
fn explain_dir_json(cache: &Path, dir: &Path) -> (Value, i32) {
    let assert = explain(
        cache,
        &dir.join("log.txt"),
        &dir.join("snapshot.json"),
        &["--format", "json"],
    )
    .assert();
    parsed(&assert)
}

/// Explains `log`, written to `dir/name`, on the A40 node, as JSON.
fn explain_text_json(cache: &Path, dir: &Path, name: &str, log: &str) -> (Value, i32) {
    let path = dir.join(name);
    std::fs::write(&path, log).unwrap();
    parsed(
        &explain(
            cache,
            &path,
            &case_dir(A40).join("snapshot.json"),
            &["--format", "json"],
        )
        .assert(),
    )
}

/// The explanation a run printed and its exit code; a run that printed no JSON fails the test.
fn parsed(assert: &assert_cmd::assert::Assert) -> (Value, i32) {
    let output = assert.get_output();
    let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "explain --format json printed no JSON ({error}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (value, output.status.code().expect("explain exits, not killed"))
}

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

fn stderr(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stderr.clone()).unwrap()
}

fn first_id(explanation: &Value) -> Option<&str> {
    explanation["candidates"][0]["id"].as_str()
}

/// The first candidate's fix, or "" where it has none.
fn first_fix(explanation: &Value) -> &str {
    explanation["candidates"][0]["fix"].as_str().unwrap_or_default()
}

fn candidate<'e>(explanation: &'e Value, id: &str) -> Option<&'e Value> {
    explanation["candidates"]
        .as_array()
        .expect("candidates is an array")
        .iter()
        .find(|candidate| candidate["id"] == id)
}

/// Asserts the run failed with code 2 and one `envdoctor: error:` line naming `path`.
fn assert_cannot_read(assert: assert_cmd::assert::Assert, path: &Path) -> String {
    let assert = assert.code(2);
    let stderr = stderr(&assert);
    assert_eq!(stderr.lines().count(), 1, "one line on stderr: {stderr}");
    assert!(stderr.starts_with("envdoctor: error: "), "{stderr}");
    assert!(
        stderr.contains(&path.display().to_string()),
        "the path is named: {stderr}"
    );
    assert!(assert.get_output().stdout.is_empty(), "nothing on stdout");
    stderr
}

/// What one recorded case must give, from its `case.toml`.
struct Case {
    expected: String,
    ruled_out: Vec<String>,
}

fn read_case(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("cannot read: {error}"))?;
    let document: toml_edit::DocumentMut = text.parse().map_err(|error| format!("not TOML: {error}"))?;
    let expected = document
        .get("expected")
        .and_then(|item| item.as_str())
        .ok_or("no `expected` string")?
        .to_string();
    let ruled_out = match document.get("ruled_out") {
        None => Vec::new(),
        Some(item) => item
            .as_array()
            .ok_or("`ruled_out` is not an array")?
            .iter()
            .map(|id| id.as_str().map(str::to_string).ok_or("`ruled_out` holds a non-string"))
            .collect::<Result<_, _>>()?,
    };
    Ok(Case { expected, ruled_out })
}

/// How one case came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The expected cause first, explained (or, for `none`, no cause named).
    RightFirst,
    /// Not decided or not explained: no answer, but no wrong one either.
    NoAnswer,
    /// A cause named with confidence that is not the case's.
    ConfidentlyWrong,
}

/// How a case came out, and what is wrong with its explanation besides.
fn judge_case(case: &Case, explanation: &Value, code: i32) -> (Verdict, Vec<String>) {
    let mut problems = Vec::new();
    let outcome = explanation["outcome"].as_str().unwrap_or("<none>");
    let first = first_id(explanation).unwrap_or("<no candidate>");
    let verdict = match (case.expected.as_str(), outcome) {
        ("none", "explained") => Verdict::ConfidentlyWrong,
        ("none", _) => Verdict::RightFirst,
        (expected, "explained") if first == expected => Verdict::RightFirst,
        (_, "explained") => Verdict::ConfidentlyWrong,
        _ => Verdict::NoAnswer,
    };
    match verdict {
        Verdict::RightFirst if case.expected != "none" && code != 0 => {
            problems.push(format!("explained, yet exit {code}"));
        }
        // A log read as holding no error is a miss (exit 0 is what no_error means); any other miss exits 1.
        Verdict::NoAnswer if code != 1 && outcome != "no_error" => problems.push(format!("{outcome}, yet exit {code}")),
        Verdict::ConfidentlyWrong => problems.push(format!(
            "confidently wrong: expected {}, got {outcome} with {first}",
            case.expected
        )),
        _ => {}
    }
    if verdict == Verdict::NoAnswer
        && outcome == "undecided"
        && explanation["to_decide"].as_array().is_none_or(Vec::is_empty)
    {
        problems.push("not decided, and says nothing of what would decide it".to_string());
    }
    // Ruled-out causes are listed last, after every cause still standing.
    let confidences: Vec<&str> = explanation["candidates"]
        .as_array()
        .map(|candidates| candidates.iter().filter_map(|c| c["confidence"].as_str()).collect())
        .unwrap_or_default();
    if let Some(at) = confidences.iter().position(|c| *c == "ruled-out")
        && confidences[at..].iter().any(|c| *c != "ruled-out")
    {
        problems.push(format!(
            "a ruled-out cause is listed before a standing one: {confidences:?}"
        ));
    }
    for id in &case.ruled_out {
        // First is allowed only as the head of a list of ruled-out causes (nothing else fits).
        let Some(found) = candidate(explanation, id) else {
            continue;
        };
        // Where explain says it cannot decide, a cause the thread excluded on
        // facts the log does not hold may still stand as possible; as an
        // answer, or beside another cause named, it must be ruled out.
        let left_open = outcome == "undecided" && found["confidence"] == "possible";
        if found["confidence"] != "ruled-out" && !left_open {
            let place = if first == id { "first, " } else { "" };
            problems.push(format!(
                "{id} must be ruled out, yet it is {place}{}",
                found["confidence"]
            ));
        }
    }
    (verdict, problems)
}

/// One case directory judged: its expected cause, how it came out, and
/// everything wrong with it (a missing file, a bad `case.toml`, a wrong answer).
fn check_case(cache: &Path, dir: &Path) -> (String, Verdict, Vec<String>) {
    let missing: Vec<&str> = ["log.txt", "snapshot.json", "case.toml"]
        .into_iter()
        .filter(|file| !dir.join(file).is_file())
        .collect();
    if !missing.is_empty() {
        return (
            "?".into(),
            Verdict::NoAnswer,
            vec![format!("missing {}", missing.join(", "))],
        );
    }
    let case = match read_case(&dir.join("case.toml")) {
        Ok(case) => case,
        Err(error) => return ("?".into(), Verdict::NoAnswer, vec![format!("case.toml: {error}")]),
    };
    let output = explain(
        cache,
        &dir.join("log.txt"),
        &dir.join("snapshot.json"),
        &["--format", "json"],
    )
    .output()
    .unwrap();
    let Ok(explanation) = serde_json::from_slice::<Value>(&output.stdout) else {
        let problem = format!(
            "no JSON printed (exit {:?}): {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
        return (case.expected, Verdict::NoAnswer, vec![problem]);
    };
    let (verdict, problems) = judge_case(&case, &explanation, output.status.code().unwrap_or(-1));
    (case.expected, verdict, problems)
}

/// The share of cases that must be explained right first.
const RIGHT_FIRST_FLOOR: f64 = 0.85;

/// The corpus: real failure logs from public reports, each replayed on the node
/// its report describes. Below 85% right first, any confidently wrong answer,
/// or any other problem (an exit code, a cause not ruled out) fails. The
/// figures per class are printed (`cargo test --test it explain_cli corpus -- --nocapture`).
#[test]
fn the_corpus_is_explained_right_first_and_never_confidently_wrong() {
    let cache = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(CASES);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 150,
        "the corpus holds {} cases, fewer than 150",
        dirs.len()
    );
    let mut problems = Vec::new();
    let mut classes: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    let mut right = 0;
    // Causes outside envdoctor's knowledge (`other:...`) can only be missed or
    // wrongly named: they count against confident wrong answers, not in the share.
    let mut beyond_knowledge = 0;
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let (expected, verdict, found) = check_case(cache.path(), dir);
        beyond_knowledge += usize::from(expected.starts_with("other:"));
        let class = classes.entry(expected).or_default();
        class.1 += 1;
        if verdict == Verdict::RightFirst {
            class.0 += 1;
            right += 1;
        } else {
            problems.push(format!("{name}: {verdict:?}"));
        }
        problems.extend(found.into_iter().map(|problem| format!("{name}: {problem}")));
    }
    let known = dirs.len() - beyond_knowledge;
    let share = right as f64 / known as f64;
    let mut table = format!(
        "right first: {right} of {known} whose cause envdoctor knows ({:.0}%); {beyond_knowledge} more beyond its knowledge\n",
        share * 100.0
    );
    for (class, (right, total)) in &classes {
        table.push_str(&format!("  {right:>2}/{total:<2} {class}\n"));
    }
    eprintln!("{table}");
    let hard: Vec<&String> = problems
        .iter()
        .filter(|problem| !problem.ends_with(": NoAnswer"))
        .collect();
    assert!(
        share >= RIGHT_FIRST_FLOOR && hard.is_empty(),
        "{table}\n{}",
        problems.join("\n")
    );
}

/// torch's NCCL error ends with "Last error:" and NCCL's warning that names
/// the cause. On a node whose /dev/shm is small the generic NCCL entry is
/// confirmed by the node, yet the log's own reason is the answer: the
/// "Last error" line belongs to the exception's message, where it outranks
/// the generic words (the D-FINE#289 log, on the recorded H100 with 64 MiB).
#[test]
fn the_last_error_line_of_an_nccl_error_names_the_cause_even_where_the_node_fits_another() {
    let cache = tempfile::tempdir().unwrap();
    let dir = case_dir("nccl-duplicate-gpu-dfine289");
    let recorded = std::fs::read_to_string("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json").unwrap();
    let mut snapshot: Value = serde_json::from_str(&recorded).unwrap();
    snapshot["system"]["limits"]["shm_total_mib"] = Value::from(64);
    snapshot["system"]["limits"]["shm_available_mib"] = Value::from(64);
    let small_shm = cache.path().join("small-shm.json");
    std::fs::write(&small_shm, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let (explanation, code) =
        parsed(&explain(cache.path(), &dir.join("log.txt"), &small_shm, &["--format", "json"]).assert());
    assert_eq!(
        (first_id(&explanation), code),
        (Some("nccl-duplicate-gpu"), 0),
        "{explanation:#}"
    );
    assert!(
        explanation["traceback"]["message"]
            .as_str()
            .unwrap()
            .ends_with("Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000"),
        "{explanation:#}"
    );
}

/// Seed 000's shape, assembled from the lines issue 28 quotes of it (the seed's
/// own trace is held back from the project; the frames' line numbers are
/// illustrative): QLoRA on a 16 GB T4, accelerate's offload line printed at
/// load time, then a device mismatch in bitsandbytes' 4-bit matmul under
/// accelerate's hook, worded `mat2 ... wrapper_CUDA_mm`.
const SEED_000_TRACEBACK: &str = r#"Traceback (most recent call last):
  File "/content/train.py", line 61, in <module>
    trainer.train()
  File "/usr/local/lib/python3.10/dist-packages/accelerate/hooks.py", line 166, in new_forward
    output = module._old_forward(*args, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/bitsandbytes/nn/modules.py", line 256, in forward
    out = bnb.matmul_4bit(x, self.weight.t(), bias=bias, quant_state=self.weight.quant_state)
  File "/usr/local/lib/python3.10/dist-packages/bitsandbytes/autograd/_functions.py", line 577, in matmul_4bit
    return MatMul4Bit.apply(A, B, out, bias, quant_state)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat2 in method wrapper_CUDA_mm)
"#;
const OFFLOAD_LINE: &str = "Some parameters are on the meta device because they were offloaded to the cpu.\n";

/// The recorded H100 Snapshot turned into the seed's node: one 16 GB T4, bitsandbytes 0.43.1, peft 0.11.1.
fn t4_node(dir: &Path) -> PathBuf {
    let recorded = std::fs::read_to_string("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json").unwrap();
    let mut snapshot: Value = serde_json::from_str(&recorded).unwrap();
    let gpu = &mut snapshot["nvidia"]["gpus"][0];
    gpu["name"] = Value::from("Tesla T4");
    gpu["memory_total_mib"] = Value::from(15360);
    gpu["compute_capability"] = Value::from("7.5");
    for (name, version) in [("bitsandbytes", "0.43.1"), ("peft", "0.11.1")] {
        set_package(&mut snapshot, name, version);
    }
    let path = dir.join("t4.json");
    std::fs::write(&path, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    path
}

/// `name` at `version` in a Snapshot's packages, replacing the one there or added.
fn set_package(snapshot: &mut Value, name: &str, version: &str) {
    let packages = snapshot["packages"].as_array_mut().unwrap();
    let at = match packages.iter().position(|package| package["normalized_name"] == name) {
        Some(at) => at,
        None => {
            packages.push(packages[0].clone());
            packages.len() - 1
        }
    };
    let package = &mut packages[at];
    package["name"] = Value::from(name);
    package["normalized_name"] = Value::from(name);
    package["version"] = Value::from(version);
    package["version_as_written"] = Value::from(version);
}

/// numpy 1.19.5's aarch64 wheels crash at import on Jetson boards: the
/// crash's words name it where the node has that numpy on aarch64, leave it
/// open where numpy is not known, and never name it on another numpy or
/// another architecture. The words alone say only that the process crashed.
#[test]
fn an_illegal_instruction_is_numpy_1_19_5_on_aarch64_only_where_the_node_has_both() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("crash.log");
    std::fs::write(&log, ">>> import torch\nIllegal instruction (core dumped)\n").unwrap();
    let rule = "numpy-1-19-5-aarch64-jetson-illegal-instruction";
    let recorded = std::fs::read_to_string("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json").unwrap();
    let node = |architecture: &str, numpy: Option<&str>| {
        let mut snapshot: Value = serde_json::from_str(&recorded).unwrap();
        snapshot["system"]["architecture"] = Value::from(architecture);
        match numpy {
            Some(version) => set_package(&mut snapshot, "numpy", version),
            None => snapshot["packages"]
                .as_array_mut()
                .unwrap()
                .retain(|package| package["normalized_name"] != "numpy"),
        }
        let path = dir
            .path()
            .join(format!("{architecture}-{}.json", numpy.unwrap_or("none")));
        std::fs::write(&path, serde_json::to_vec(&snapshot).unwrap()).unwrap();
        path
    };
    let explained = |snapshot: &Path| parsed(&explain(cache.path(), &log, snapshot, &["--format", "json"]).assert()).0;

    let jetson = explained(&node("aarch64", Some("1.19.5")));
    assert_eq!(first_id(&jetson), Some(rule), "{jetson:#}");
    assert_eq!(jetson["outcome"], "explained", "{jetson:#}");
    let unknown = explained(&node("aarch64", None));
    assert_ne!(unknown["outcome"], "explained", "{unknown:#}");
    assert_eq!(
        candidate(&unknown, rule).map(|c| &c["confidence"]),
        Some(&Value::from("possible")),
        "{unknown:#}"
    );
    for (architecture, numpy) in [("aarch64", "1.19.4"), ("x86_64", "1.19.5")] {
        let other = explained(&node(architecture, Some(numpy)));
        assert_eq!(
            candidate(&other, rule).map(|c| &c["confidence"]),
            Some(&Value::from("ruled-out")),
            "{architecture} numpy {numpy}: {other:#}"
        );
        assert_ne!(other["outcome"], "explained", "{architecture} numpy {numpy}: {other:#}");
    }
}

#[test]
fn an_offload_line_before_a_quantized_device_mismatch_names_the_offload_not_the_wording() {
    let cache = tempfile::tempdir().unwrap();
    let node = t4_node(cache.path());
    let with_offload = cache.path().join("seed-000.log");
    std::fs::write(&with_offload, format!("{OFFLOAD_LINE}{SEED_000_TRACEBACK}")).unwrap();
    let (explanation, code) = parsed(&explain(cache.path(), &with_offload, &node, &["--format", "json"]).assert());
    assert_eq!(
        (first_id(&explanation), code),
        (Some("quantized-lora-cpu-offload-small-gpu"), 0),
        "{explanation:#}"
    );
    let best = &explanation["candidates"][0];
    assert!(
        best["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|evidence| evidence["kind"] == "context" && evidence["holds"] == true),
        "the offload line is evidence: {best:#}"
    );
    let wording = candidate(&explanation, "module-created-after-to-device").expect("listed");
    assert_ne!(
        wording["confidence"], "likely",
        "wording alone is not likely here: {wording:#}"
    );

    // The same traceback without the offload line: nothing says the model was offloaded.
    let without = cache.path().join("no-offload.log");
    std::fs::write(&without, SEED_000_TRACEBACK).unwrap();
    let (explanation, _) = parsed(&explain(cache.path(), &without, &node, &["--format", "json"]).assert());
    let rule = candidate(&explanation, "quantized-lora-cpu-offload-small-gpu");
    assert!(
        rule.is_none_or(|rule| rule["confidence"] != "likely" && rule["confidence"] != "near-certain"),
        "{explanation:#}"
    );
}

/// A log pasted from another machine, judged with facts probed here: its
/// frames run from a site-packages this node does not have, so this node's
/// facts settle nothing, and the report says so once.
#[test]
fn a_log_from_another_machine_is_not_judged_by_this_nodes_facts_and_says_so_once() {
    let cache = tempfile::tempdir().unwrap();
    let log = case_dir(A40).join("log.txt");
    let text = stdout(&common::envdoctor(cache.path()).arg("explain").arg(&log).assert());
    assert_eq!(text.matches("node facts:").count(), 1, "{text}");
    let json = common::envdoctor(cache.path())
        .arg("explain")
        .arg(&log)
        .args(["--format", "json"])
        .assert();
    let (explanation, _) = parsed(&json);
    assert!(
        explanation["node_facts"]
            .as_str()
            .is_some_and(|line| line.contains("neither confirm nor rule out")),
        "{explanation:#}"
    );
    // Nothing this node lacks rules the cause out: the frames still point at it.
    assert_ne!(
        candidate(&explanation, DEEPSPEED_RULE).unwrap()["confidence"],
        "ruled-out"
    );
}

#[test]
fn the_deepspeed_regression_is_ruled_out_on_deepspeed_0_14_0() {
    let cache = tempfile::tempdir().unwrap();
    let (positive, code) = explain_case_json(cache.path(), A40);
    assert_eq!(code, 0);
    assert_eq!(first_id(&positive), Some(DEEPSPEED_RULE), "{positive:#}");
    assert_eq!(positive["candidates"][0]["confidence"], "near-certain");
    assert!(
        positive["candidates"][0]["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|evidence| evidence["kind"] == "node"
                && evidence["holds"] == true
                && evidence["text"].as_str().unwrap().contains("0.14.2")),
        "{positive:#}"
    );

    // The same log, on a node with the release before the regression.
    let (negative, code) = explain_case_json(cache.path(), DS0140);
    assert_eq!(code, 1, "{negative:#}");
    assert_ne!(negative["outcome"], "explained", "{negative:#}");
    let rule = candidate(&negative, DEEPSPEED_RULE).expect("the rule is listed, ruled out");
    assert_eq!(rule["confidence"], "ruled-out", "{rule:#}");
    let against: Vec<&Value> = rule["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|evidence| evidence["kind"] == "node" && evidence["holds"] == false)
        .collect();
    assert!(
        against
            .iter()
            .any(|evidence| evidence["text"].as_str().unwrap().contains("0.14.0")),
        "a node fact against it names 0.14.0: {rule:#}"
    );
    // The frame still matches: it is the node, not the traceback, that rules it out.
    assert!(
        rule["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|evidence| evidence["kind"] == "frame" && evidence["holds"] == true),
        "{rule:#}"
    );
}

#[test]
fn the_text_report_names_the_rule_its_confidence_the_fix_and_a_reference_and_o_writes_the_same_bytes() {
    let cache = tempfile::tempdir().unwrap();
    let dir = case_dir(A40);
    let (log, snapshot) = (dir.join("log.txt"), dir.join("snapshot.json"));
    let assert = explain(cache.path(), &log, &snapshot, &[]).assert().code(0);
    let text = stdout(&assert);
    assert!(
        text.contains(&format!("Most likely cause (near-certain): {DEEPSPEED_RULE}")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|line| line.trim() == r#"fix: pip install "deepspeed>=0.14.4""#),
        "{text}"
    );
    assert!(
        text.lines().any(|line| line.trim_start().starts_with("see: https://")),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "no colour codes when piped: {text:?}");

    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("explain.txt");
    let written = explain(cache.path(), &log, &snapshot, &["-o"])
        .arg(&report)
        .assert()
        .code(0);
    assert!(
        written.get_output().stdout.is_empty(),
        "-o leaves stdout empty: {}",
        stdout(&written)
    );
    assert_eq!(std::fs::read_to_string(&report).unwrap(), text);
    // Written atomically: nothing but the report is left beside it.
    let left: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(left, ["explain.txt"]);
}

/// A job that died of a signal of its own (taichinerfs94: `Bus error (core
/// dumped)` after Taichi fell back to the CPU) is a failure, not a log that
/// went well, and what would decide it is the stack at the crash.
#[test]
fn a_log_that_ends_in_a_crash_is_a_failure_that_asks_for_the_stack_at_the_crash() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, code) = explain_text_json(
        cache.path(),
        dir.path(),
        "train.log",
        "Loading 161 train images ...\n./scripts/train.sh: line 11: 2179169 Bus error               (core dumped) python3 train.py --batch_size 4096\n",
    );
    assert_ne!(explanation["outcome"], "no_error", "{explanation:#}");
    assert_eq!(explanation["traceback"]["exception"], "crash", "{explanation:#}");
    assert_ne!(code, 0, "{explanation:#}");
    assert!(
        explanation["to_decide"]
            .as_array()
            .unwrap()
            .iter()
            .any(|line| line.as_str().unwrap().contains("PYTHONFAULTHANDLER=1")),
        "{explanation:#}"
    );
}

/// rocmbuild13 (batch BC): the HIP runtime's `hipErrorNoBinaryForGpu` after
/// TensorFlow's own log lines, in a log with nothing of torch. The words are
/// torch's cause's too, but TensorFlow's build lacked the GPU: the torch cause
/// stays a candidate, not the answer, and what would decide it is which
/// framework ran. The same abort after a torch frame is torch's.
#[test]
fn a_torch_cause_in_a_log_that_shows_only_another_framework_is_not_the_answer() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-06-BC/other-tensorflow-rocm-wheel-lacks-gfx1030-code-objects-rocmbuild13");
    let (explanation, code) = explain_dir_json(cache.path(), &case);
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    assert_eq!(code, 1);
    let torch = candidate(&explanation, "torch-build-lacks-gpu-arch").expect("still a candidate");
    assert_eq!(torch["confidence"], "possible", "{explanation:#}");
    let to_decide = explanation["to_decide"].to_string();
    assert!(to_decide.contains("the log shows TensorFlow"), "{to_decide}");
    assert!(!to_decide.contains("get_arch_list"), "{to_decide}");

    let dir = tempfile::tempdir().unwrap();
    let abort = "/home/ian/ROCm/HIP/rocclr/hip_code_object.cpp:486: \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\nAborted (core dumped)\n";
    let tensorflow_line = "2021-05-27 12:35:24.177308: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libamdhip64.so\n";
    let torch_line =
        "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:107: UserWarning: HIP initialization\n";
    for (log, torch_ran) in [
        (format!("{tensorflow_line}{abort}"), false),
        (format!("{tensorflow_line}{torch_line}{abort}"), true),
        (abort.to_string(), true),
    ] {
        let path = dir.path().join("log.txt");
        std::fs::write(&path, &log).unwrap();
        let (explanation, _) =
            parsed(&explain(cache.path(), &path, &case.join("snapshot.json"), &["--format", "json"]).assert());
        let answer =
            first_id(&explanation) == Some("torch-build-lacks-gpu-arch") && explanation["outcome"] == "explained";
        assert_eq!(answer, torch_ran, "{log}\n{explanation:#}");
    }
}

/// sentencepiece1121 (batch BC): CMake 4.0's refusal of a project written for
/// CMake before 3.5, inside pip's build output, is the answer over pip's
/// `subprocess-exited-with-error` after it. CMake 3.27 to 3.31's warning that
/// such compatibility "will be removed" is no failure of its own.
#[test]
fn cmake_4_refusing_an_old_project_is_named_and_its_earlier_warning_is_not() {
    let cache = tempfile::tempdir().unwrap();
    let (explanation, code) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-06-BC/other-cmake-4-rejects-sentencepiece-0-2-0-source-build-sentencepiece1121"),
    );
    assert_eq!(
        first_id(&explanation),
        Some("cmake-too-new-for-project"),
        "{explanation:#}"
    );
    assert_eq!(explanation["outcome"], "explained");
    assert_eq!(code, 0);
    assert!(first_fix(&explanation).starts_with("CMAKE_POLICY_VERSION_MINIMUM=3.5 pip install"));

    let dir = tempfile::tempdir().unwrap();
    let warned = "CMake Deprecation Warning at CMakeLists.txt:15 (cmake_minimum_required):\n  Compatibility with CMake < 3.5 will be removed from a future version of\n  CMake.\n\nTraceback (most recent call last):\n  File \"setup.py\", line 9, in <module>\n    import numpy\nModuleNotFoundError: No module named 'numpy'\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", warned);
    assert!(
        candidate(&explanation, "cmake-too-new-for-project").is_none(),
        "{explanation:#}"
    );
}

/// Two wordings found on held-out batch AF: torch before 1.0's for a cut
/// checkpoint (facealignment34) and ONNX Runtime's for a provider DLL Windows
/// would not load (stablediffusionwebuirembg12); and their near misses.
#[test]
fn an_older_torchs_cut_checkpoint_and_onnx_runtimes_dll_failure_are_named_by_their_words() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (log, expected) in [
        (
            "Traceback (most recent call last):\n  File \"/home/u/anaconda2/lib/python2.7/site-packages/torch/serialization.py\", line 418, in _load\n    deserialized_objects[key]._set_from_file(f, offset)\nRuntimeError: unexpected EOF. The file might be corrupted.\n",
            Some("checkpoint-not-a-pickle"),
        ),
        (
            "RuntimeError: D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1069 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" when trying to load \"D:\\sd\\venv\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_tensorrt.dll\"\n",
            Some("shared-library-missing"),
        ),
        (
            "  File \"train.py\", line 3\nSyntaxError: unexpected EOF while parsing\n",
            None,
        ),
        (
            "RuntimeError: LoadLibrary failed with error 5 when trying to load \"C:\\x\\y.dll\"\n",
            None,
        ),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", log);
        assert_eq!(first_id(&explanation), expected, "{log}: {explanation:#}");
    }
}

/// A float16 tensor in a CPU kernel is named by the kernel's own name; a
/// CUDA kernel's refusal of a type is no CPU's, and stays unnamed.
#[test]
fn a_half_precision_op_on_the_cpu_is_named_and_a_cuda_kernels_refusal_is_not() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frame = "Traceback (most recent call last):\n  File \"/home/u/mdm/sample.py\", line 40, in <module>\n    out = model(x)\n";
    for (message, expected) in [
        (
            "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
            Some("half-precision-op-on-cpu"),
        ),
        (
            "RuntimeError: \"baddbmm__mkl\" not implemented for 'Half'",
            Some("half-precision-op-on-cpu"),
        ),
        (
            "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'",
            Some("half-precision-op-on-cpu"),
        ),
        ("RuntimeError: \"bitwise_and_cuda\" not implemented for 'Half'", None),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &format!("{frame}{message}\n"));
        assert_eq!(first_id(&explanation), expected, "{message}: {explanation:#}");
    }
}

/// Lightning's words for a Trainer asked for a GPU that neither CUDA nor MPS
/// gives, as Hydra prints the exception it caught: no GPU the job can see,
/// which the node then decides. Another of Lightning's refusals, printed the
/// same way, is not.
#[test]
fn lightnings_no_gpu_backend_printed_as_a_repr_is_a_gpu_the_job_cannot_see() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let hydra = "Error executing job with overrides: ['data_module=mp_20']\nError in call to target 'pytorch_lightning.trainer.trainer.Trainer':\nMisconfigurationException('No supported gpu backend found!')\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "hydra.log", hydra);
    assert_eq!(
        explanation["traceback"]["exception"], "MisconfigurationException",
        "{explanation:#}"
    );
    assert!(
        candidate(&explanation, "no-cuda-gpu-visible").is_some(),
        "{explanation:#}"
    );
    let other = "Error in call to target 'pytorch_lightning.trainer.trainer.Trainer':\nMisconfigurationException('`Trainer(strategy=\"ddp_spawn\")` is not compatible with an interactive environment.')\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "other.log", other);
    assert_eq!(
        explanation["traceback"]["exception"], "MisconfigurationException",
        "{explanation:#}"
    );
    assert!(
        candidate(&explanation, "no-cuda-gpu-visible").is_none(),
        "{explanation:#}"
    );
}

/// A library's own words for a build of it without CUDA, from its source
/// (the matrix entry cites each); torch's own words stay torch's entry.
#[test]
fn a_librarys_words_for_its_build_without_cuda_name_its_cpu_only_build() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frame =
        "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 40, in <module>\n    fit(x)\n";
    for (message, expected) in [
        (
            "lightgbm.basic.LightGBMError: GPU Tree Learner was not enabled in this build.\nPlease recompile with CMake option -DUSE_GPU=1",
            Some("package-cpu-only-build"),
        ),
        (
            "ValueError: This CTranslate2 package was not compiled with CUDA support",
            Some("package-cpu-only-build"),
        ),
        (
            "RuntimeError: Not compiled with CUDA support",
            Some("package-cpu-only-build"),
        ),
        (
            "cv2.error: OpenCV(4.10.0) /io/opencv/modules/core/include/opencv2/core/private.cuda.hpp:106: error: (-216:No CUDA support) The library is compiled without CUDA support in function 'throw_no_cuda'",
            Some("package-cpu-only-build"),
        ),
        (
            "ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA",
            Some("package-cpu-only-build"),
        ),
        (
            "AssertionError: Torch not compiled with CUDA enabled",
            Some("torch-cpu-only-build"),
        ),
        // faiss-gpu whose GPU part failed to load says the same as faiss-cpu: not
        // named on the name alone (the node's faiss-cpu would settle it).
        (
            "AttributeError: module 'faiss' has no attribute 'StandardGpuResources'",
            None,
        ),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &format!("{frame}{message}\n"));
        match expected {
            Some(id) => assert_eq!(first_id(&explanation), Some(id), "{message}: {explanation:#}"),
            None => assert!(
                explanation["outcome"] != "explained" || first_id(&explanation) != Some("package-cpu-only-build"),
                "{message}: {explanation:#}"
            ),
        }
    }
    // Caffe's glog fatal line, with no Python around it, is the failure.
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "caffe.log",
        "I1128 09:34:40.174400 44277 net.cpp:283] Network initialization done.\nF1128 09:34:40.174459 44277 common.cpp:66] Cannot use GPU in CPU-only Caffe: check mode.\n*** Check failure stack trace: ***\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("package-cpu-only-build"),
        "{explanation:#}"
    );
}

/// An NGC container names a GPU below the architectures its image is built
/// for; its next line, no supported GPU at all, has other causes too.
#[test]
fn an_ngc_container_refusing_an_old_gpu_names_the_gpu_and_its_summary_line_alone_does_not() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let both = "ERROR: Detected NVIDIA Tesla K80 GPU, which is not supported by this container\nERROR: No supported GPU(s) detected to run this container\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", both);
    assert_eq!(
        first_id(&explanation),
        Some("gpu-below-required-arch"),
        "{explanation:#}"
    );
    let summary = "ERROR: No supported GPU(s) detected to run this container\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", summary);
    assert!(
        candidate(&explanation, "gpu-below-required-arch").is_none(),
        "{explanation:#}"
    );
}

/// DeepSpeed prunes the capabilities an op does not support and refuses the
/// op when none of the GPU's is left: the GPU is below what the op needs.
#[test]
fn deepspeed_refusing_an_op_for_want_of_a_capability_names_the_gpu_below_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/deepspeed/ops/op_builder/builder.py\", line 533, in jit_load\n    extra_cuda_cflags=self.nvcc_args(),\nRuntimeError: Unable to load ragged_device_ops op due to no compute capabilities remaining after filtering\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", log);
    assert_eq!(
        first_id(&explanation),
        Some("gpu-below-required-arch"),
        "{explanation:#}"
    );
}

/// A call torch's own operator refuses in the dispatcher's words was written
/// for another torch; another library's operator refusing one is only listed.
#[test]
fn a_call_torchs_operator_schema_refuses_names_code_for_another_torch() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frame = "Traceback (most recent call last):\n  File \"/home/u/gan/torch_utils/ops/grid_sample_gradfix.py\", line 50, in backward\n    grad_input, grad_grid = op(grad_output, input, grid, 0, 0, False)\n";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "log.txt",
        &format!(
            "{frame}RuntimeError: aten::grid_sampler_2d_backward() is missing value for argument 'output_mask'. Declaration: aten::grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)\n"
        ),
    );
    assert_eq!(
        first_id(&explanation),
        Some("extension-built-for-other-torch"),
        "{explanation:#}"
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    let package = "Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/torch_geometric/utils/scatter.py\", line 9, in scatter\n    return torch.ops.torch_scatter.scatter_add(src, index, -1, out, size, 0)\n";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "log.txt",
        &format!(
            "{package}RuntimeError: torch_scatter::scatter_add() expected at most 5 argument(s) but received 6 argument(s). Declaration: torch_scatter::scatter_add(Tensor src, Tensor index, int dim=-1, Tensor? out=None, int? dim_size=None) -> (Tensor)\n"
        ),
    );
    assert_ne!(explanation["outcome"], "explained", "{explanation:#}");
    assert!(
        candidate(&explanation, "package-lacks-used-name").is_some(),
        "{explanation:#}"
    );
    // The job's own scripted method, refused by its own schema: no package's release.
    let job = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 9, in <module>\n    out = scripted(x)\n";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "log.txt",
        &format!(
            "{job}RuntimeError: forward() is missing value for argument 'mask'. Declaration: forward(__torch__.models.Net self, Tensor x, Tensor mask) -> (Tensor)\n"
        ),
    );
    assert!(
        candidate(&explanation, "package-lacks-used-name").is_none(),
        "{explanation:#}"
    );
    assert!(
        candidate(&explanation, "extension-built-for-other-torch").is_none(),
        "{explanation:#}"
    );
}

/// What would decide a missing kernel asks only for what the report left
/// out: a report that named its GPU (a GTX TITAN, compute capability 3.5) is
/// asked for the torch build alone, not for the GPU model it gave.
#[test]
fn a_missing_kernel_asks_only_for_what_the_report_left_out() {
    let cache = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-05-AS/torch-build-lacks-gpu-arch-avatarifypython70"),
    );
    let to_decide = explanation["to_decide"].to_string();
    assert!(
        to_decide.contains(
            "the torch build where the job ran, for the GPU these facts give (NVIDIA GeForce GTX TITAN, compute capability 3.5)"
        ),
        "{explanation:#}"
    );
    assert!(!to_decide.contains("the GPU model and"), "{explanation:#}");
}

/// A GPU whose compute capability the report does not give is one unknown,
/// asked for once, however many causes ask a capability of it (helm1742: three
/// capability rules listed the same nvidia-smi query three times).
#[test]
fn an_unknown_gpu_capability_is_asked_for_once() {
    let cache = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-03-R/torch-build-lacks-gpu-arch-helm1742"),
    );
    let to_decide = explanation["to_decide"].to_string();
    assert_eq!(
        to_decide.matches("--query-gpu=name,compute_cap").count(),
        1,
        "{explanation:#}"
    );
}

/// A call the installed release's signature does not take is dated where
/// keyword-history.txt finds the keyword in some releases of the package
/// whose callable that is (trl's SFTTrainer took max_seq_length up to 0.12),
/// and named with the pin; a keyword no release took is listed, never named,
/// since a mistaken call prints the same words, and what would decide names
/// the package and how to print the installed signature. A TypeError of
/// another kind reads as nothing.
#[test]
fn a_call_the_installed_signature_refuses_is_dated_or_listed_with_what_would_decide() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frame = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 88, in <module>\n    trainer = SFTTrainer(model, max_seq_length=2048)\n";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "dated.log",
        &format!("{frame}TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'\n"),
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    let dated = candidate(&explanation, "package-lacks-used-name").expect("named");
    assert_eq!(dated["confidence"], "likely", "{explanation:#}");
    assert!(dated.to_string().contains("trl>=0.4.7,<=0.12.2"), "{explanation:#}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "keyword.log",
        &format!("{frame}TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_len'\n"),
    );
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    let listed = candidate(&explanation, "package-lacks-used-name").expect("listed");
    assert_eq!(listed["confidence"], "possible", "{explanation:#}");
    let to_decide = explanation["to_decide"].to_string();
    assert!(to_decide.contains("which trl release"), "{explanation:#}");
    assert!(
        to_decide.contains("inspect.signature(trl.SFTTrainer)"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "operand.log",
        &format!("{frame}TypeError: unsupported operand type(s) for +: 'int' and 'str'\n"),
    );
    assert!(
        candidate(&explanation, "package-lacks-used-name").is_none(),
        "{explanation:#}"
    );
}

/// The host refusing memory is named in Python's, NumPy's and torch's CPU
/// allocator's words, with the size asked for; the GPU's out-of-memory words
/// are the GPU's, and a MemoryError raised by a CUDA allocation stays theirs.
#[test]
fn the_host_refusing_memory_is_named_and_the_gpus_memory_is_not_the_hosts() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frame = "Traceback (most recent call last):\n  File \"/home/u/rl/replay.py\", line 32, in feed\n    self.states = np.empty((self.memory_size,) + state.shape, dtype=self.dtype)\n";
    for (message, expected) in [
        ("MemoryError", Some("host-memory-exhausted")),
        (
            "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 315. GiB for an array with shape (10000, 100, 84480) and data type float32",
            Some("host-memory-exhausted"),
        ),
        ("MemoryError: std::bad_alloc", Some("host-memory-exhausted")),
        (
            "RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: can't allocate memory: you tried to allocate 51539607552 bytes. Error code 12 (Cannot allocate memory)",
            Some("host-memory-exhausted"),
        ),
        (
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 13.2 GiB already allocated)",
            Some("cuda-out-of-memory"),
        ),
        (
            "pycuda._driver.MemoryError: cuMemAlloc failed: out of memory",
            Some("cuda-out-of-memory"),
        ),
        // torch's cudaMallocAsync backend, CuPy's pool and cuDNN say it in their own words.
        (
            "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)",
            Some("cuda-out-of-memory"),
        ),
        (
            "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes (allocated so far: 8,589,934,592 bytes).",
            Some("cuda-out-of-memory"),
        ),
        (
            "RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
            Some("cuda-out-of-memory"),
        ),
        ("RuntimeError: the replay buffer is empty", None),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &format!("{frame}{message}\n"));
        assert_eq!(first_id(&explanation), expected, "{message}: {explanation:#}");
    }
}

/// A saved file refused by the release reading it is named from that
/// refusal, in a Python traceback or in a runtime's own log lines with none
/// (TensorRT's logger); a file that is damaged or no such file at all is not.
#[test]
fn a_saved_file_another_release_wrote_is_named_and_a_damaged_one_is_not() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frame = "Traceback (most recent call last):\n  File \"/home/u/deploy/infer.py\", line 12, in <module>\n    session = load(args.model)\n";
    for (log, expected) in [
        (
            "[12/01/2025-10:02:11] [TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::42] Error Code 1: Serialization (Serialization assertion stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does not match. Note: Current Version: 236, Serialized Engine Version: 239)\n[12/01/2025-10:02:11] [TRT] [E] 2: [runtime.cpp::deserializeCudaEngine::66] Error Code 2: Internal Error (Engine deserialization failed.)\n".to_string(),
            Some("saved-file-from-other-library-version"),
        ),
        (
            format!("{frame}onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from model.onnx failed:/onnxruntime_src/onnxruntime/core/graph/model.cc:180 onnxruntime::Model::Model Unsupported model IR version: 11, max supported IR version: 10\n"),
            Some("saved-file-from-other-library-version"),
        ),
        (
            format!("{frame}RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n"),
            None,
        ),
        (
            "[12/01/2025-10:02:11] [TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::32] Error Code 1: Serialization (Serialization assertion magicTagRead == kMAGIC_TAG failed.Magic tag does not match)\n".to_string(),
            None,
        ),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &log);
        assert_eq!(first_id(&explanation), expected, "{log}: {explanation:#}");
    }
}

/// An installed package failing to import its own name is its modules from
/// two releases (a notebook not restarted after pip replaced it), never the
/// job's code using a name the release lacks; the job's own import stays that.
#[test]
fn a_packages_failed_import_of_its_own_name_is_two_releases_and_the_jobs_is_not() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let message = "ImportError: cannot import name 'py3' from 'PIL._util' (/usr/local/lib/python3.9/dist-packages/PIL/_util.py)\n";
    let own = format!("from ._util import isDirectory, isPath, py3\n{message}");
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &own);
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("package-files-from-two-releases"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("restart the interpreter"),
        "{explanation:#}"
    );
    let job = format!(
        "Traceback (most recent call last):\n  File \"/home/u/app/draw.py\", line 4, in <module>\n    from PIL._util import py3\n{message}"
    );
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &job);
    assert!(
        candidate(&explanation, "package-files-from-two-releases").is_none(),
        "{explanation:#}"
    );
}

/// A module no Python found is named with the distribution that installs it
/// (hydra is hydra-core's), the same words inside pip's isolated build are the
/// build's environment, and a folder of the project's own is left undecided.
#[test]
fn a_module_not_installed_names_its_distribution_and_a_builds_is_the_isolation() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 3, in <module>\n    import hydra\nModuleNotFoundError: No module named 'hydra'\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", job);
    assert_eq!(
        first_id(&explanation),
        Some("python-package-not-installed"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).starts_with("python -m pip install hydra-core "),
        "{explanation:#}"
    );
    let build = "Collecting flash-attn\n  Using cached flash_attn-2.5.8.tar.gz (2.5 MB)\n  Installing build dependencies ... done\n  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n\n  × Getting requirements to build wheel did not run successfully.\n  │ exit code: 1\n  ╰─> [20 lines of output]\n      Traceback (most recent call last):\n        File \"<string>\", line 9, in <module>\n      ModuleNotFoundError: No module named 'torch'\n      [end of output]\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", build);
    assert_eq!(
        first_id(&explanation),
        Some("build-isolation-lacks-module"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("--no-build-isolation"),
        "{explanation:#}"
    );
    let own = job.replace("hydra", "tracker");
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &own);
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
}

#[test]
fn a_log_piped_on_standard_input_is_explained_as_the_file_is() {
    let cache = tempfile::tempdir().unwrap();
    let dir = case_dir(A40);
    let (log, snapshot) = (dir.join("log.txt"), dir.join("snapshot.json"));
    let (from_file, _) = parsed(&explain(cache.path(), &log, &snapshot, &["--format", "json"]).assert());
    let (from_stdin, code) = parsed(
        &explain(cache.path(), Path::new("-"), &snapshot, &["--format", "json"])
            .write_stdin(std::fs::read(&log).unwrap())
            .assert(),
    );
    assert_eq!(code, 0);
    assert_eq!(from_stdin["source"], "-");
    assert_eq!(first_id(&from_stdin), Some(DEEPSPEED_RULE));
    assert_eq!(from_stdin["candidates"][0], from_file["candidates"][0]);
    // Nothing but the source differs.
    let mut from_file = from_file;
    from_file["source"] = "-".into();
    assert_eq!(from_stdin, from_file);
}

#[test]
fn an_empty_log_has_nothing_to_explain() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("empty.log");
    std::fs::write(&log, "").unwrap();
    let snapshot = case_dir(A40).join("snapshot.json");
    let (explanation, code) = parsed(&explain(cache.path(), &log, &snapshot, &["--format", "json"]).assert());
    assert_eq!(code, 0, "no error is no failure");
    assert_eq!(explanation["outcome"], "no_error");
    assert_eq!(explanation["lines_read"], 0);
    assert_eq!(explanation["bytes_read"], 0);
    assert!(explanation["traceback"].is_null());
    let text = stdout(&explain(cache.path(), &log, &snapshot, &[]).assert().code(0));
    // The log's path makes the line long enough to wrap anywhere in it.
    assert!(common::width::words(&text).contains("nothing to explain"), "{text}");
}

#[test]
fn a_log_without_errors_has_nothing_to_explain() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    let lines = [
        "2024-05-06 10:00:00 INFO loading checkpoint shards: 100%|██████████| 4/4 [00:12<00:00,  3.1s/it]",
        "[INFO|trainer.py:2048] ***** Running training *****",
        "[INFO|trainer.py:2049]   Num examples = 14,000",
        "  0%|          | 0/875 [00:00<?, ?it/s]",
        "{'loss': 1.2345, 'grad_norm': 0.87, 'learning_rate': 2e-05, 'epoch': 0.11}",
        "step 100 loss 1.234 lr 2e-5 errors=0",
        "WARNING: gradient checkpointing is on; use_cache=True is incompatible and is set to False",
        "Epoch 1/3 done, eval loss 1.01",
        "Saving model checkpoint to output/checkpoint-500",
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let snapshot = case_dir(A40).join("snapshot.json");
    let (explanation, code) = parsed(&explain(cache.path(), &log, &snapshot, &["--format", "json"]).assert());
    assert_eq!(code, 0, "{explanation:#}");
    assert_eq!(explanation["outcome"], "no_error", "{explanation:#}");
    assert_eq!(explanation["tracebacks_found"], 0);
    assert_eq!(explanation["lines_read"], lines.len());
}

/// How a log was saved does not change what it says: PowerShell's `>`
/// writes UTF-16 with a byte order mark, Notepad UTF-8 with one, Windows
/// tools CRLF line ends, `rich` colour codes. Every eighteenth corpus case,
/// saved each way, gets the answer the plain file gets.
#[test]
fn a_log_saved_as_utf16_with_a_byte_order_mark_crlf_or_colours_is_explained_as_the_plain_log() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(CASES))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("case.toml").is_file())
        .collect();
    cases.sort();
    let utf16 = |text: &str, little: bool| -> Vec<u8> {
        std::iter::once(0xfeff_u16)
            .chain(text.encode_utf16())
            .flat_map(|unit| if little { unit.to_le_bytes() } else { unit.to_be_bytes() })
            .collect()
    };
    let answer = |explanation: &Value| (explanation["outcome"].clone(), first_id(explanation).map(String::from));
    for case in cases.iter().step_by(18) {
        let text = std::fs::read_to_string(case.join("log.txt")).unwrap();
        let (plain, _) = explain_dir_json(cache.path(), case);
        let savings: [(&str, Vec<u8>); 5] = [
            ("utf-16le", utf16(&text, true)),
            ("utf-16be", utf16(&text, false)),
            (
                "utf-8 with a byte order mark",
                [&[0xef, 0xbb, 0xbf][..], text.as_bytes()].concat(),
            ),
            ("crlf", text.replace('\n', "\r\n").into_bytes()),
            (
                "coloured",
                text.lines()
                    .map(|line| format!("\x1b[1;31m{line}\x1b[0m\n"))
                    .collect::<String>()
                    .into_bytes(),
            ),
        ];
        for (how, bytes) in savings {
            let path = dir.path().join("saved.log");
            std::fs::write(&path, bytes).unwrap();
            let (saved, _) =
                parsed(&explain(cache.path(), &path, &case.join("snapshot.json"), &["--format", "json"]).assert());
            assert_eq!(answer(&saved), answer(&plain), "{} saved as {how}", case.display());
        }
    }
}

/// A paste changes quote marks: Markdown takes a backtick for code, forums
/// curl quotes. The message is matched as the loader or Python wrote it;
/// another module's absence is not pkg_resources'.
#[test]
fn a_message_whose_quotes_a_paste_lost_or_curled_is_matched_as_written() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "backtick.log",
        "ImportError: /miniconda3/envs/p/lib/python3.6/site-packages/torch/lib/../../../.././libstdc++.so.6: version GLIBCXX_3.4.29 not found (required by .cache/torch_extensions/nvdiffrast_plugin/nvdiffrast_plugin.so)\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("libstdcxx-older-than-library-needs"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "curly.log",
        "Traceback (most recent call last):\n  File “/home/u/hamer/setup.py”, line 2, in <module>\n    from torch.utils.cpp_extension import BuildExtension\n  File “/home/u/venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py”, line 25, in <module>\n    from pkg_resources import packaging\nModuleNotFoundError: No module named ‘pkg_resources’\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("pkg-resources-unavailable"),
        "{explanation:#}"
    );
    assert_eq!(
        explanation["candidates"][0]["fix"].as_str(),
        Some("pip install \"setuptools<82\""),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "other.log",
        "ModuleNotFoundError: No module named 'pkg_resources_extra'\n",
    );
    assert!(
        candidate(&explanation, "pkg-resources-unavailable").is_none(),
        "{explanation:#}"
    );
}

/// A report that names its GPU without the GPU's compute capability leaves a
/// cause that needs one open instead of ruling it out (metavoicesrc27 of
/// batch J: torch's autocast refusing bf16 on a Colab T4), and pip failing to
/// find a file for a requirement is not a requirement a library stated
/// (lunar226: the fix was never `pip install` of what pip could not find).
#[test]
fn an_unknown_gpu_fact_rules_nothing_out_and_pips_own_refusal_is_no_stated_requirement() {
    let cache = tempfile::tempdir().unwrap();
    let batch = fresh_case_dir("2026-12-02-J");
    let (explanation, _) = explain_dir_json(cache.path(), &batch.join("bf16-on-pre-ampere-gpu-metavoicesrc27"));
    assert_eq!(
        first_id(&explanation),
        Some("bf16-on-pre-ampere-gpu"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_dir_json(cache.path(), &batch.join("python-supported-by-torch-lunar226"));
    assert!(
        candidate(&explanation, "package-requirement-unmet").is_none(),
        "{explanation:#}"
    );
}

/// ONNX Runtime's CUDA provider asking for another CUDA's cuBLAS than torch's
/// is not a torch extension built for another torch: reinstalling it as one
/// would bring its CPU-only package. Its library is missing, and the runtime's
/// own CUDA build, not torch's, says which: the fix gives both ways out.
#[test]
fn a_runtime_with_its_own_cuda_build_asking_for_another_cuda_is_no_torch_extension() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("h100.json");
    std::fs::write(&snapshot, serde_json::to_vec(&h100_snapshot()).unwrap()).unwrap();
    let log = dir.path().join("ort.log");
    std::fs::write(&log, "[E:onnxruntime:Default, provider_bridge_ort.cc:1480 TryGetProviderInfo_CUDA] Failed to load library /opt/venv/lib/python3.11/site-packages/onnxruntime/capi/libonnxruntime_providers_cuda.so with error: libcublas.so.11: cannot open shared object file: No such file or directory\n").unwrap();
    let (explanation, _) = parsed(&explain(cache.path(), &log, &snapshot, &["--format", "json"]).assert());
    assert_eq!(
        first_id(&explanation),
        Some("shared-library-missing"),
        "{explanation:#}"
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    let fix = first_fix(&explanation);
    assert!(
        fix.starts_with("onnxruntime-gpu brings its own CUDA build, and the one installed is for CUDA 11: install the onnxruntime-gpu build made for the CUDA and cuDNN the node has")
            && fix.contains("pip install nvidia-cublas-cu11"),
        "{fix}"
    );
}

/// nvcc's refusal of its host compiler names the bound it checked, and the
/// fix takes it (`gcc versions later than 11` gives gcc-11); another
/// compiler error of the same build is not read as one.
#[test]
fn nvccs_refusal_of_the_host_compiler_is_named_with_the_compiler_its_bound_allows() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "gcc.log",
        "In file included from /usr/local/cuda-11.8/include/cuda_runtime.h:83,\n                 from <command-line>:\n/usr/local/cuda-11.8/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later than 11 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.\n  132 | #error -- unsupported GNU version! gcc versions later than 11 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.\n      |  ^~~~~\nninja: build stopped: subcommand failed.\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("nvcc-host-compiler-unsupported"),
        "{explanation:#}"
    );
    let fix = first_fix(&explanation);
    assert!(fix.contains("CC=gcc-11 CXX=g++-11"), "{fix}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "atomic.log",
        "hashencoder.cu(25): error: no instance of overloaded function \"atomicAdd\" matches the argument list\n            argument types are: (__half *, c10::Half)\nninja: build stopped: subcommand failed.\n",
    );
    assert!(
        candidate(&explanation, "nvcc-host-compiler-unsupported").is_none(),
        "{explanation:#}"
    );
}

/// A loader line is also printed by jobs that go on to finish (ONNX Runtime
/// falls back to the CPU), so beside an error it answers nothing, however
/// sure its own reading; in a log that holds nothing else it is what there is
/// to go on: the library and the runtime that wanted it, never "no error".
#[test]
fn a_loader_line_alone_names_its_library_and_beside_an_error_it_answers_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let loader = "2025-11-08 19:02:18 [E:onnxruntime:Default, provider_bridge_ort.cc:1546] FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "alone.log",
        &format!("{loader}\nInference finished in 12.3 s\n"),
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        explanation["candidates"][0]["id"], "shared-library-missing",
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "beside.log",
        &format!(
            "{loader}\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nValueError: learning rate schedule is empty\n"
        ),
    );
    assert_eq!(explanation["traceback"]["exception"], "ValueError", "{explanation:#}");
    assert_ne!(explanation["outcome"], "explained", "{explanation:#}");
    // An error the job got past, printed before the loader line, does not outrank it.
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "after.log",
        &format!(
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nValueError: learning rate schedule is empty\n{loader}\n"
        ),
    );
    assert_eq!(explanation["traceback"]["exception"], "loader error", "{explanation:#}");
}

/// A program the loader could not start never ran, unlike a library a job
/// goes on without: the error after it (the file that program should have
/// written) is its consequence, so its library is the answer (mmsafet36).
#[test]
fn a_program_the_loader_could_not_start_answers_the_error_after_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let after = "Failed to extract video features.\nTraceback (most recent call last):\n  File \"extract.py\", line 40, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: '/tmp/features/out.csv'\n";
    let program = "/opt/tools/OpenFace/FeatureExtraction: error while loading shared libraries: libopencv_objdetect.so.4.1: cannot open shared object file: No such file or directory";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "program.log", &format!("{program}\n{after}"));
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        explanation["candidates"][0]["id"], "shared-library-missing",
        "{explanation:#}"
    );
    // The same library, failing to load into a process that printed it and went on.
    let dlopen = "Failed to load plugin libfacedetect.so with error: libopencv_objdetect.so.4.1: cannot open shared object file: No such file or directory";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "dlopen.log", &format!("{dlopen}\n{after}"));
    assert_eq!(
        explanation["traceback"]["exception"], "FileNotFoundError",
        "{explanation:#}"
    );
    assert_ne!(explanation["outcome"], "explained", "{explanation:#}");
    // A program that never ran before an error that wants nothing of it (a
    // job that ran nvidia-smi for its log, then failed of its own) answers nothing.
    let smi = "nvidia-smi: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory";
    let frame = "Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "key.log",
        &format!("{smi}\n{frame}KeyError: 'learning_rate'\n"),
    );
    assert_ne!(explanation["outcome"], "explained", "{explanation:#}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "oom.log",
        &format!("{smi}\n{frame}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"),
    );
    assert_eq!(
        explanation["candidates"][0]["id"], "cuda-out-of-memory",
        "{explanation:#}"
    );
}

/// torch's c10d logs a failed bind to `[::]` as a warning and binds
/// `0.0.0.0`: before an error that ended the job the line is no answer and
/// weighs on nothing, and that error is the one explained. In a log with no
/// other error (wekws93: both binds failed, and the job stopped there) it is
/// what there is; the same words in the exception name the cause.
#[test]
fn a_line_logged_as_a_warning_is_never_the_answer_to_a_job_that_went_on() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bind = "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "before-an-error.log",
        &format!(
            "{bind}\nepoch 1 step 10 loss 2.31\nTraceback (most recent call last):\n  File \"/home/u/train.py\", line 50, in forward\n    x = self.fc(x)\nValueError: Expected input batch_size (16) to match target batch_size (32).\n"
        ),
    );
    assert_eq!(explanation["traceback"]["exception"], "ValueError", "{explanation:#}");
    assert_ne!(explanation["outcome"], "explained", "{explanation:#}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "alone.log",
        &format!("{bind}\nepoch 1 step 10 loss 2.31\n"),
    );
    assert_eq!(explanation["traceback"]["exception"], "warning line", "{explanation:#}");
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(first_id(&explanation), Some("port-already-in-use"), "{explanation:#}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "fatal.log",
        &format!(
            "{bind}\nTraceback (most recent call last):\n  File \"/opt/venv/bin/torchrun\", line 8, in <module>\n    sys.exit(main())\ntorch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).\n"
        ),
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(first_id(&explanation), Some("port-already-in-use"), "{explanation:#}");
}

/// A line the job went past (a warning, a library's setup complaint, an
/// error it logged and survived) says nothing of a later error in the job's
/// own code that no cause gives: each such line before `KeyError: 'model'`
/// leaves the answer not decided, never "likely". The same line before an
/// error it leads to still names its cause (YOLOv5's `CUDA unavailable,
/// invalid device` after torch's "driver too old" warning,
/// smartconstruction39, is a GPU not seen).
#[test]
fn an_earlier_line_does_not_answer_a_later_error_no_cause_gives() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let unrelated = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 40, in <module>\n    cfg = config[\"model\"]\nKeyError: 'model'\n";
    for (name, earlier) in [
        (
            "warning.log",
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 10010).",
        ),
        (
            "setup.log",
            "The installed version of bitsandbytes was compiled without GPU support.",
        ),
        (
            "error.log",
            "ERROR: CUDA_HOME does not exist, unable to compile CUDA op(s)",
        ),
        ("stated.log", "FlashAttention only supports Ampere GPUs or newer."),
    ] {
        let (explanation, _) = explain_text_json(
            cache.path(),
            dir.path(),
            name,
            &format!("{earlier}\nepoch 1 step 10 loss 2.31\n{unrelated}"),
        );
        assert_eq!(
            explanation["traceback"]["exception"], "KeyError",
            "{name}: {explanation:#}"
        );
        assert_ne!(explanation["outcome"], "explained", "{name}: {explanation:#}");
    }
    let (explanation, _) = explain_case_json(cache.path(), "driver-too-old-for-torch-smartconstruction39");
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("driver-too-old-for-torch"),
        "{explanation:#}"
    );
    // A kernel's assertion, then the CUDA error it raised in the job's code;
    // a watchdog's timeout, then the Ctrl-C that ended the job.
    for (name, log, cause) in [
        (
            "assert.log",
            "/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 50, in <module>\n    print(loss.item())\nRuntimeError: CUDA error: device-side assert triggered\n",
            "loss-target-out-of-bounds",
        ),
        (
            "interrupted.log",
            "[rank1]:[E1203 10:00:00.000000 1 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\nTraceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 80, in <module>\n    main()\nKeyboardInterrupt\n",
            "nccl-collective-timeout",
        ),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), name, log);
        assert_eq!(explanation["outcome"], "explained", "{name}: {explanation:#}");
        assert_eq!(first_id(&explanation), Some(cause), "{name}: {explanation:#}");
    }
}

/// pip's list of the releases it can install here says which side a pin
/// missed: torch 1.6.0 below every torch 1.x offered to Python 3.9
/// (opennmtpy2018, beside PyPI's 0.1.2 placeholder) is a release made before
/// this interpreter. torch 1.13.1 where only torch 2.x is offered
/// (groqcasters1) may also be a platform 1.13 never built for, and its
/// Python 3.11 has 1.13 wheels on Linux though not on Windows, so it is not
/// decided (the reader's unit tests hold the interpreters that do decide
/// it). A pin of another package is no torch matter, and the torch
/// entry is ruled out; a pin newer than everything offered (an interpreter
/// too old, or a platform dropped) and an empty list (an index never
/// reached) are not decided.
#[test]
fn pips_list_of_releases_names_the_interpreter_only_where_the_pin_is_older_than_its_major() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-03-O/python-supported-by-torch-opennmtpy2018"),
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("python-supported-by-torch"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("pip install \"torch>=1.7.1\""),
        "{explanation:#}"
    );
    let (explanation, _) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-03-P/python-supported-by-torch-groqcasters1"),
    );
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("python-supported-by-torch"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("pip install \"torch>=2.0.0\""),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "tensorflow.log",
        "ERROR: Could not find a version that satisfies the requirement tensorflow==1.15.5 (from versions: 2.12.0, 2.13.0)\nERROR: No matching distribution found for tensorflow==1.15.5\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("pip-finds-no-release-here"),
        "{explanation:#}"
    );
    assert_eq!(
        candidate(&explanation, "python-supported-by-torch").unwrap()["confidence"],
        "ruled-out",
        "{explanation:#}"
    );
    for (name, log) in [
        (
            "newer.log",
            "ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.0.0, 2.2.2)\n",
        ),
        (
            "none.log",
            "ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: none)\n",
        ),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), name, log);
        assert_eq!(explanation["outcome"], "undecided", "{name}: {explanation:#}");
    }
}

/// pip prints what it saw on the way to its failure on lines of their own
/// before it: `WARNING: Retrying (Retry(...` when it could not read an index,
/// whose empty list then says nothing of the index (not decided, and pip's
/// reach of the index is what would decide it); `ERROR: Ignored the
/// following versions that require a different python version`, which names
/// the interpreter as the cause, for a pin and for a package all of whose
/// releases need a newer Python (havln16, its list wrapped by the paste).
/// Neither line is a failure of its own.
#[test]
fn pips_lines_before_its_failure_are_read_with_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "unreached.log",
        "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f0>: Failed to establish a new connection: [Errno -2] Name or service not known')': /simple/numpy/\nERROR: Could not find a version that satisfies the requirement numpy (from versions: none)\nERROR: No matching distribution found for numpy\n",
    );
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    assert!(
        explanation["to_decide"]
            .as_array()
            .unwrap()
            .iter()
            .any(|wanted| wanted.as_str().unwrap().contains("whether pip can read the index")),
        "{explanation:#}"
    );
    assert_eq!(explanation["tracebacks_found"], 1, "{explanation:#}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "skipped.log",
        "ERROR: Ignored the following versions that require a different python version: 1.21.2 Requires-Python >=3.7,<3.11; 1.21.3 Requires-Python >=3.7,<3.11\nERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from versions: 1.3.0, 1.26.4)\n",
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("pip-finds-no-release-here"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("a Python that >=3.7,<3.11 admits"),
        "{explanation:#}"
    );
    assert_eq!(explanation["tracebacks_found"], 1, "{explanation:#}");
    // Seventy retries of other pages before it take no warning's place, and
    // the list printed just before the failure is still read.
    let retries: String = (0..70)
        .map(|n| format!("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f{n:04x}>: Failed to establish a new connection')': /simple/package{n}/\n"))
        .collect();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "many.log",
        &format!(
            "{retries}ERROR: Ignored the following versions that require a different python version: 1.21.2 Requires-Python >=3.7,<3.11\nERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from versions: 1.3.0, 1.26.4)\n"
        ),
    );
    assert!(
        first_fix(&explanation).contains("a Python that >=3.7,<3.11 admits"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-04-AF/pip-finds-no-release-here-havln16"),
    );
    assert_eq!(
        first_id(&explanation),
        Some("pip-finds-no-release-here"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("a Python that >=3.9 admits"),
        "{explanation:#}"
    );
}

/// pip's build steps are notes too, of another kind: ten sdists' `Preparing
/// metadata` lines after the retry of the page that failed do not push the
/// retry out, and the empty list stays unsettled.
#[test]
fn pips_build_steps_keep_its_network_lines() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let steps: String = (0..10)
        .map(|n| format!("Collecting package{n}\n  Preparing metadata (setup.py) ... done\n"))
        .collect();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "steps.log",
        &format!(
            "Collecting numpy==1.19.5\n  WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f0>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/numpy/\n{steps}ERROR: Could not find a version that satisfies the requirement numpy==1.19.5 (from versions: none)\nERROR: No matching distribution found for numpy==1.19.5\n"
        ),
    );
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
}

/// pytest prints frames as `path.py:20: in <module>` and the exception as
/// `E   ImportError: ...` (gensim3525, cut before its closing quote): the
/// frames are read, so the package that uses the name is known, and the
/// answer is the one a plain traceback gets: the release names.toml dates.
#[test]
fn a_traceback_as_pytest_prints_it_is_read_with_its_frames() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-03-P/package-lacks-used-name-gensim3525");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(
        first_id(&explanation),
        Some("package-lacks-used-name"),
        "{explanation:#}"
    );
    assert_eq!(
        explanation["traceback"]["frames"].as_array().unwrap().len(),
        5,
        "{explanation:#}"
    );
    assert!(
        explanation["candidates"][0]["evidence"]
            .to_string()
            .contains("gensim uses scipy.linalg.triu, which scipy 1.13.0 removed"),
        "{explanation:#}"
    );
}

/// The NVIDIA container runtime refuses an image whose NVIDIA_REQUIRE_CUDA
/// the host's driver does not meet (testinfra6465: `unsatisfied condition:
/// cuda>=12.6`): the driver is too old for the image, and the fix names the
/// CUDA it needs.
#[test]
fn the_container_runtimes_cuda_requirement_names_the_driver_too_old() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-03-P/driver-too-old-for-torch-testinfra6465");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("driver-too-old-for-torch"),
        "{explanation:#}"
    );
    assert!(first_fix(&explanation).contains("12.6 or newer"), "{explanation:#}");
}

/// A cause that only an earlier line points to is no surer than a reader of
/// that line finds it (genrec18): `libcudart.so.12: cannot open` before
/// fbgemm_gpu's missing operators is a library to install or fbgemm_gpu built
/// for another CUDA, and with torch's CUDA unknown neither is named.
#[test]
fn an_earlier_line_a_reader_leaves_open_does_not_name_its_cause() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-02-G/extension-built-for-other-torch-genrec18");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    for id in ["shared-library-missing", "extension-built-for-other-torch"] {
        assert_eq!(
            candidate(&explanation, id).unwrap()["confidence"],
            "possible",
            "{id}: {explanation:#}"
        );
    }
    let decide = explanation["to_decide"].to_string();
    assert!(
        decide.contains("torch.version.cuda") && decide.contains("imported fbgemm_gpu"),
        "{decide}"
    );
}

/// The loader refusing a library because the libstdc++ it found lacks the
/// symbol version the library was built against names the old C++ runtime
/// and, for a conda environment's copy, conda's fix; glibc's own version
/// missing is the old C library, and neither is named for the other.
#[test]
fn a_libstdcxx_or_a_glibc_older_than_a_library_needs_is_named_for_what_it_is() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "cxx.log",
        "ImportError: /home/u/anaconda3/envs/kt/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by /home/u/anaconda3/envs/kt/lib/python3.11/site-packages/KTransformersOps.cpython-311-x86_64-linux-gnu.so)\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("libstdcxx-older-than-library-needs"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("conda install -c conda-forge libstdcxx-ng"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "glibc.log",
        "OSError: /lib64/libc.so.6: version `GLIBC_2.34' not found (required by ./app)\n",
    );
    assert!(
        candidate(&explanation, "libstdcxx-older-than-library-needs").is_none(),
        "{explanation:#}"
    );
    assert_eq!(
        first_id(&explanation),
        Some("glibc-older-than-binary-needs"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("glibc is 2.34 or newer"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "cxx-again.log",
        "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /opt/venv/lib/python3.10/site-packages/pkg/_ext.so)\n",
    );
    assert!(
        candidate(&explanation, "glibc-older-than-binary-needs").is_none(),
        "{explanation:#}"
    );
}

/// A CUDA library of another major than torch's, asked for by no package
/// the log names, is not settled as an extension built for another CUDA: a
/// runtime that brings its own CUDA (CTranslate2 under faster-whisper) needs
/// that CUDA's library. With wyomingfasterwhisper30's node (torch
/// 2.2.1+cu118), the loader's words alone name no asker, so the answer is not
/// decided and says what would decide it; the case's own line, in
/// CTranslate2's words (`Library libcublas.so.12 is not found`), names the
/// runtime, and the library is missing whatever torch's CUDA.
#[test]
fn a_library_of_another_cuda_than_torchs_asked_for_by_nobody_named_is_not_decided() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-02-H/shared-library-missing-wyomingfasterwhisper30");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("loader.log");
    std::fs::write(
        &log,
        "OSError: libcublas.so.12: cannot open shared object file: No such file or directory\n",
    )
    .unwrap();
    let (explanation, _) =
        parsed(&explain(cache.path(), &log, &case.join("snapshot.json"), &["--format", "json"]).assert());
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("shared-library-missing"),
        "{explanation:#}"
    );
    let decide = explanation["to_decide"].to_string();
    assert!(decide.contains("which package asks for libcublas.so.12"), "{decide}");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("shared-library-missing"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("pip install nvidia-cublas-cu12"),
        "{explanation:#}"
    );
}

/// A message pasted without its exception class (an issue's title, an
/// assert's words) is read as one message when it is all the log holds; a
/// report of more lines that merely prints a pin (`verify`'s fix line) is no
/// pasted error, and stays "no error".
#[test]
fn a_pasted_message_is_read_and_a_longer_text_without_an_error_is_not() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, code) = explain_text_json(
        cache.path(),
        dir.path(),
        "pasted.log",
        "MMCV==1.7.1 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.1.0.\n",
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(code, 0);
    assert_eq!(
        explanation["candidates"][0]["id"], "package-requirement-unmet",
        "{explanation:#}"
    );
    let (explanation, code) = explain_text_json(
        cache.path(),
        dir.path(),
        "report.txt",
        "This node against `/workspace/job/h100.lock`\nRe-hashed the files of 197 distributions.\n\nInstalled files\n  error    certifi 2026.7.22: certifi/cacert.pem: modified\n           fix: python -m pip install --no-deps --force-reinstall 'certifi==2026.7.22'\n\n2 differences (2 errors, 0 warnings, 0 infos)\n",
    );
    assert_eq!(explanation["outcome"], "no_error", "{explanation:#}");
    assert_eq!(code, 0);
}

/// torch's own warning that Microsoft's C++ runtime is missing, printed on
/// Windows before its DLLs fail to load, names the cause of the WinError that
/// follows; the WinError alone names none.
#[test]
fn torchs_warning_of_a_missing_vc_runtime_names_the_windows_dll_failure_after_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let failure = "Traceback (most recent call last):\n  File \"C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\__init__.py\", line 133, in <module>\n    raise err\nOSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n";
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "warned.log",
        &format!(
            "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n                 It can be downloaded at https://aka.ms/vs/16/release/vc_redist.x64.exe\n{failure}"
        ),
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("windows-vc-runtime-missing"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "alone.log", failure);
    assert!(
        candidate(&explanation, "windows-vc-runtime-missing").is_none(),
        "{explanation:#}"
    );
}

/// An error and a warning explained equally surely: the error's answer is
/// the answer (easyocr716: torch 1.11's cuDNN check, then torchvision's
/// image-extension warning), unless the error lists the warning's cause
/// among its own (torch's `sm_120 is not compatible` pasted after the
/// `no kernel image` it explains).
#[test]
fn an_error_outdoes_a_warning_unless_the_warning_says_why_the_error_happened() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "cudnn.log",
        "cuDNN version incompatibility: PyTorch was compiled against (8, 4, 0) but linked against (8, 3, 3)\n/home/a/.local/lib/python3.10/site-packages/torchvision/io/image.py:13: UserWarning: Failed to load image Python extension: /home/a/.local/lib/python3.10/site-packages/torchvision/image.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs\n  warn(f\"Failed to load image Python extension: {e}\")\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("cudnn-version-mismatch"),
        "{explanation:#}"
    );
    let blackwell = case_dir("blackwell-torch-without-sm100-sm120-pytorch153928");
    let (explanation, _) = explain_dir_json(cache.path(), &blackwell);
    assert_eq!(
        first_id(&explanation),
        Some("blackwell-torch-without-sm100-sm120"),
        "{explanation:#}"
    );
}

/// A log cut before its exception line still shows the raise statement's
/// source (Colab's traceback of transformers29174): its class and literal
/// are read as the message, and the report says where they came from.
#[test]
fn a_log_cut_before_its_exception_line_is_read_from_the_raise_statement_and_says_so() {
    let cache = tempfile::tempdir().unwrap();
    let case = case_dir("package-requirement-unmet-transformers29174");
    let assert = explain(cache.path(), &case.join("log.txt"), &case.join("snapshot.json"), &[]).assert();
    let text = stdout(&assert);
    assert!(
        text.contains("the log stops before the exception line; the raise statement it shows reads:"),
        "{text}"
    );
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(explanation["traceback"]["message_from_source"], true, "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("package-requirement-unmet"),
        "{explanation:#}"
    );
}

#[test]
fn a_megabyte_of_printable_garbage_without_newlines_is_read_to_the_end_and_explains_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("garbage.log");
    // Printable ASCII from a fixed LCG: the same bytes on every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let garbage: Vec<u8> = (0..1 << 20)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            b' ' + ((state >> 33) % 95) as u8
        })
        .collect();
    std::fs::write(&log, &garbage).unwrap();
    let snapshot = case_dir(A40).join("snapshot.json");
    let assert = explain(cache.path(), &log, &snapshot, &["--format", "json"]).assert();
    let (explanation, code) = parsed(&assert);
    let outcome = explanation["outcome"].as_str().unwrap();
    assert!(["no_error", "unexplained"].contains(&outcome), "{outcome}");
    assert_eq!(code, i32::from(outcome != "no_error"), "stderr: {}", stderr(&assert));
    assert_eq!(explanation["bytes_read"], garbage.len());
    assert_eq!(explanation["lines_read"], 1);
}

#[test]
fn a_binary_file_is_refused_as_no_log() {
    let cache = tempfile::tempdir().unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_envdoctor"));
    let snapshot = case_dir(A40).join("snapshot.json");
    let stderr = assert_cannot_read(explain(cache.path(), binary, &snapshot, &[]).assert(), binary);
    assert!(stderr.contains("binary"), "{stderr}");
}

#[test]
fn a_directory_or_a_missing_path_as_the_log_is_named_in_the_error() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = case_dir(A40).join("snapshot.json");
    let stderr = assert_cannot_read(explain(cache.path(), dir.path(), &snapshot, &[]).assert(), dir.path());
    assert!(stderr.contains("directory"), "{stderr}");
    let missing = dir.path().join("no-such.log");
    assert_cannot_read(explain(cache.path(), &missing, &snapshot, &[]).assert(), &missing);
}

#[test]
fn a_missing_snapshot_is_an_error_that_names_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("no-such-snapshot.json");
    let log = case_dir(A40).join("log.txt");
    assert_cannot_read(explain(cache.path(), &log, &snapshot, &[]).assert(), &snapshot);
}

/// Writes `size` bytes or more of training log lines, calling `middle` once
/// halfway; returns the number of lines written (before `middle` when asked).
fn write_training_lines(out: &mut impl Write, size: u64, middle: &mut dyn FnMut(&mut dyn Write, usize)) -> usize {
    // A 1 MiB block of varied lines, written again and again.
    let mut block = String::new();
    let mut block_lines = 0;
    while block.len() < 1 << 20 {
        let step = block_lines + 1;
        block.push_str(&format!(
            "step {step} loss {}.{:03} lr 2e-5\n",
            1 + step % 3,
            (step * 37) % 1000
        ));
        block_lines += 1;
    }
    let blocks = size.div_ceil(block.len() as u64);
    let mut lines = 0;
    for index in 0..blocks {
        if index == blocks / 2 {
            middle(out, lines);
        }
        out.write_all(block.as_bytes()).unwrap();
        lines += block_lines;
    }
    lines
}

#[test]
fn a_200_mb_log_is_read_whole_and_its_strongest_traceback_wins_over_a_later_one() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    let fixture = std::fs::read_to_string(case_dir(A40).join("log.txt")).unwrap();
    assert!(fixture.ends_with('\n'));
    let fixture_lines = fixture.lines().count();

    let started = Instant::now();
    let mut writer = BufWriter::with_capacity(1 << 22, File::create(&log).unwrap());
    let mut lines_before_middle = None;
    let training_lines = write_training_lines(&mut writer, 200 << 20, &mut |out, lines| {
        out.write_all(fixture.as_bytes()).unwrap();
        lines_before_middle = Some(lines);
    });
    writer.write_all(UNRELATED_TRACEBACK.as_bytes()).unwrap();
    writer.into_inner().unwrap().sync_all().unwrap();
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size >= 200 << 20);
    let lines_before_middle = lines_before_middle.unwrap();
    let total_lines = training_lines + fixture_lines + UNRELATED_TRACEBACK.lines().count();
    eprintln!("wrote {size} bytes in {:.1?}", started.elapsed());

    let started = Instant::now();
    let snapshot = case_dir(A40).join("snapshot.json");
    let mut command = explain(cache.path(), &log, &snapshot, &["--format", "json"]);
    // Unoptimized, 200 MiB takes about a minute on two busy cores (59 s alone
    // on CI's machine on 2026-12-02): the hang guard here is wider than the
    // usual 60 s; bench/explain.sh measures the speed.
    command.timeout(std::time::Duration::from_secs(300));
    let (explanation, code) = parsed(&command.assert());
    eprintln!("explained {size} bytes in {:.1?}", started.elapsed());
    assert_eq!(code, 0, "{explanation:#}");
    assert_eq!(explanation["outcome"], "explained");
    assert_eq!(explanation["bytes_read"], size);
    assert_eq!(explanation["lines_read"], total_lines);
    assert_eq!(explanation["tracebacks_found"], 2, "{explanation:#}");
    assert_eq!(first_id(&explanation), Some(DEEPSPEED_RULE));
    assert_eq!(explanation["candidates"][0]["confidence"], "near-certain");
    // The fixture's first frame is its second line.
    assert_eq!(explanation["traceback"]["line"], lines_before_middle + 2);

    let others = explanation["other_tracebacks"].as_array().unwrap();
    assert_eq!(others.len(), 1, "{others:#?}");
    assert_eq!(others[0]["exception"], "ValueError");
    assert_eq!(others[0]["message"], "learning rate schedule is empty");
    assert_eq!(others[0]["line"], total_lines - UNRELATED_TRACEBACK.lines().count() + 1);
    assert!(others[0]["best"].is_null(), "{:#}", others[0]);
}

/// Each line of `log` twice, behind `[rank0]: ` and then `[rank1]: `.
fn two_ranks(log: &str) -> String {
    log.lines()
        .flat_map(|line| [format!("[rank0]: {line}\n"), format!("[rank1]: {line}\n")])
        .collect()
}

fn assert_two_ranks_give_the_single_rank_answer(log: &str) {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = case_dir(A40).join("snapshot.json");
    let single = dir.path().join("single.log");
    std::fs::write(&single, log).unwrap();
    let (one, _) = parsed(&explain(cache.path(), &single, &snapshot, &["--format", "json"]).assert());
    let multi = dir.path().join("ranks.log");
    std::fs::write(&multi, two_ranks(log)).unwrap();
    let (both, code) = parsed(&explain(cache.path(), &multi, &snapshot, &["--format", "json"]).assert());
    assert_eq!(code, 0, "{both:#}");
    assert_eq!(both["traceback"]["occurrences"], 2, "{:#}", both["traceback"]);
    assert_eq!(both["tracebacks_found"], 1);
    assert_eq!(
        both["traceback"]["frames"], one["traceback"]["frames"],
        "the frames are the single rank's, each once"
    );
    assert_eq!(first_id(&both), Some(DEEPSPEED_RULE));
    assert_eq!(both["candidates"], one["candidates"]);
}

#[test]
fn two_ranks_printing_the_cut_off_deepspeed_traceback_line_by_line_count_twice_with_the_same_answer() {
    let log = std::fs::read_to_string(case_dir(A40).join("log.txt")).unwrap();
    assert_two_ranks_give_the_single_rank_answer(&log);
}

#[test]
fn two_ranks_printing_the_deepspeed_traceback_with_its_header_count_twice_with_the_same_answer() {
    // The fixture starts at the reporter's `....`; here it has the header Python prints.
    let log = std::fs::read_to_string(case_dir(A40).join("log.txt")).unwrap();
    let log = log.replacen("....\n", "Traceback (most recent call last):\n", 1);
    assert!(log.starts_with("Traceback"));
    assert_two_ranks_give_the_single_rank_answer(&log);
}

/// The H100 recordings (`tests/fixtures/explain-recorded/`, copied from
/// `../shared/recordings/h100-torch2.11-cu130/`) on the node they were made on:
/// `SNAPSHOT_H100` has DeepSpeed 0.14.2, torch 2.11 and NumPy 2.
const RECORDED: &str = "tests/fixtures/explain-recorded";
const SNAPSHOT_H100: &str = "tests/fixtures/snapshots/h100-torch2.11-cu130-deepspeed-0.14.2-recorded.json";

fn recorded(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDED).join(name)
}

/// The recorded H100 Snapshot, to change.
fn h100_snapshot() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT_H100);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The recorded H100 Snapshot with DeepSpeed at another version, written into `dir`.
fn h100_with_deepspeed(dir: &Path, version: &str) -> PathBuf {
    let mut snapshot = h100_snapshot();
    for package in snapshot["packages"].as_array_mut().unwrap() {
        if package["name"] == "deepspeed" {
            package["version"] = version.into();
        }
    }
    snapshot["frameworks"]["deepspeed"]["version"] = version.into();
    let written = dir.join(format!("h100-deepspeed-{version}.json"));
    std::fs::write(&written, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    written
}

#[test]
fn a_training_log_that_finished_is_no_error_whatever_it_warned() {
    let cache = tempfile::tempdir().unwrap();
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT_H100);
    for log in [
        "train-zero3-offload-deepspeed-0.14.0.log",
        "train-zero3-offload-deepspeed-0.14.2-clip1.0-norm-below-clip.log",
    ] {
        let (explanation, code) =
            parsed(&explain(cache.path(), &recorded(log), &snapshot, &["--format", "json"]).assert());
        assert_eq!(explanation["outcome"], "no_error", "{log}: {explanation:#}");
        assert_eq!(explanation["tracebacks_found"], 0, "{log}: warnings are not errors");
        assert_eq!(code, 0, "{log}");
    }
}

#[test]
fn the_recorded_h100_failures_are_named_on_the_node_they_happened_on() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let h100 = Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT_H100);
    let with_0_14_0 = h100_with_deepspeed(dir.path(), "0.14.0");
    for (log, snapshot, expected) in [
        ("train-zero3-offload-deepspeed-0.14.2.log", &h100, DEEPSPEED_RULE),
        (
            "deepspeed-0.14.2-numpy-2-BUFSIZE.log",
            &h100,
            "deepspeed-0-14-3-numpy-2-bufsize",
        ),
        (
            "deepspeed-0.14.0-torch-2.11-elastic-log.log",
            &with_0_14_0,
            "deepspeed-0-14-0-torch-elastic-log-import",
        ),
    ] {
        let (explanation, code) =
            parsed(&explain(cache.path(), &recorded(log), snapshot, &["--format", "json"]).assert());
        assert_eq!(explanation["outcome"], "explained", "{log}: {explanation:#}");
        assert_eq!(first_id(&explanation), Some(expected), "{log}");
        assert_eq!(code, 0, "{log}");
    }
    // The same log judged with the node's DeepSpeed 0.14.2 in /tmp/ds142: the log ran the copy in
    // /tmp/ds140, so the node's version neither rules the 0.14.0 cause out nor confirms it.
    let (explanation, _) = parsed(
        &explain(
            cache.path(),
            &recorded("deepspeed-0.14.0-torch-2.11-elastic-log.log"),
            &h100,
            &["--format", "json"],
        )
        .assert(),
    );
    let rule = candidate(&explanation, "deepspeed-0-14-0-torch-elastic-log-import").unwrap();
    assert_ne!(rule["confidence"], "ruled-out", "{explanation:#}");
    assert!(
        rule["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|evidence| evidence["holds"].is_null()
                && evidence["text"]
                    .as_str()
                    .unwrap()
                    .contains("runs deepspeed from /tmp/ds140")),
        "{rule:#}"
    );
}

/// The ZeRO-3 failure a lent H200 made with DeepSpeed 0.14.2 on `PYTHONPATH`
/// (`tests/fixtures/device-h200-2026-12-04-105061c/`), explained with the
/// recorded H100's Snapshot, whose DeepSpeed is at `version` in `location`.
fn explain_device_zero3_log(cache: &Path, dir: &Path, version: &str, location: &str) -> Value {
    let mut snapshot = h100_snapshot();
    for package in snapshot["packages"].as_array_mut().unwrap() {
        if package["name"] == "deepspeed" {
            package["version"] = version.into();
            package["location"] = location.into();
        }
    }
    let written = dir.join(format!("h100-deepspeed-{version}.json"));
    std::fs::write(&written, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/device-h200-2026-12-04-105061c/explain/train-0.14.2.log");
    parsed(&explain(cache, &log, &written, &["--format", "json"]).assert()).0
}

/// A node's version of a package speaks for a log only where the log ran that
/// copy: the same node, its DeepSpeed since replaced by 0.14.0 in another
/// directory, neither confirms nor rules out what 0.14.2 did.
#[test]
fn a_package_the_log_ran_from_another_copy_is_not_judged_by_this_nodes_version() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let made_it = explain_device_zero3_log(cache.path(), dir.path(), "0.14.2", "/tmp/seed-ds0.14.2");
    assert_eq!(first_id(&made_it), Some(DEEPSPEED_RULE), "{made_it:#}");
    assert_eq!(made_it["candidates"][0]["confidence"], "near-certain", "{made_it:#}");

    let repaired = explain_device_zero3_log(cache.path(), dir.path(), "0.14.0", "/tmp/seed-ds0.14.0");
    assert_eq!(first_id(&repaired), Some(DEEPSPEED_RULE), "{repaired:#}");
    let rule = &repaired["candidates"][0];
    assert_eq!(rule["confidence"], "likely", "{rule:#}");
    let evidence = rule["evidence"].as_array().unwrap();
    assert!(
        evidence.iter().any(|evidence| evidence["holds"].is_null()
            && evidence["text"]
                .as_str()
                .unwrap()
                .contains("runs deepspeed from /tmp/seed-ds0.14.2, not from this node's deepspeed 0.14.0")),
        "{rule:#}"
    );
    assert!(
        !evidence.iter().any(|evidence| evidence["holds"] == false),
        "nothing rules it out: {rule:#}"
    );
}

/// A label out of range with accelerate's dispatch hooks in the frames, on a
/// node with two GPUs and PEFT: the model was split by device_map="auto" (the
/// seed the issue names), so that rule is a candidate beside the label one.
#[test]
fn target_out_of_bounds_through_dispatch_hooks_on_two_gpus_names_the_device_map_rule() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    std::fs::write(
        &log,
        r#"Traceback (most recent call last):
  File "/home/me/finetune.py", line 120, in <module>
    trainer.train()
  File "/opt/venvs/train/lib/python3.11/site-packages/transformers/trainer.py", line 3318, in compute_loss
    outputs = model(**inputs)
  File "/opt/venvs/train/lib/python3.11/site-packages/accelerate/hooks.py", line 170, in new_forward
    output = module._old_forward(*args, **kwargs)
  File "/opt/venvs/train/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", line 1200, in forward
    loss = loss_fct(shift_logits, shift_labels)
  File "/opt/venvs/train/lib/python3.11/site-packages/torch/nn/functional.py", line 3104, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
IndexError: Target 32000 is out of bounds.
"#,
    )
    .unwrap();
    // The recorded H100 node (PEFT installed) with its GPU twice.
    let mut snapshot = h100_snapshot();
    let gpus = snapshot["nvidia"]["gpus"].as_array_mut().unwrap();
    let mut second = gpus[0].clone();
    second["index"] = 1.into();
    second["uuid"] = "GPU-00000000-0000-0000-0000-000000000001".into();
    second["pci_bus_id"] = "00000000:1B:00.0".into();
    gpus.push(second);
    snapshot["cuda_devices"] = Value::Null;
    let two_gpus = dir.path().join("h100x2.json");
    std::fs::write(&two_gpus, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let (explanation, _) = parsed(&explain(cache.path(), &log, &two_gpus, &["--format", "json"]).assert());
    let rule = candidate(&explanation, "device-map-auto-multi-gpu-lora").expect("the device_map rule is a candidate");
    assert_ne!(rule["confidence"], "ruled-out", "{explanation:#}");
    assert!(candidate(&explanation, "loss-target-out-of-bounds").is_some());
}

/// A bare device mismatch names no frame and no package: the text says it is
/// not decided, lists the job's own code first, and says what would decide it.
#[test]
fn an_undecided_answer_says_what_would_decide_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    std::fs::write(
        &log,
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n",
    )
    .unwrap();
    // A node the report says nothing of: no DeepSpeed, no bitsandbytes.
    let snapshot = case_dir("loss-target-out-of-bounds-happytransformer248").join("snapshot.json");
    let (explanation, code) = parsed(&explain(cache.path(), &log, &snapshot, &["--format", "json"]).assert());
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    assert_eq!(code, 1);
    assert_eq!(explanation["candidates"][0]["kind"], "symptom", "{explanation:#}");
    let text = stdout(&explain(cache.path(), &log, &snapshot, &[]).assert().code(1));
    for expected in ["Not decided", "What would decide it", "the whole traceback"] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

/// Issue 20 D11: a log's own bytes (a BEL, an OSC title sequence, a cursor
/// move) never reach the terminal from the text explanation.
#[test]
fn control_characters_from_a_log_are_escaped_in_the_text_explanation() {
    let cache = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let log = "Traceback (most recent call last):\n  File \"x\x1b[2J.py\", line 1, in <module>\n\
               RuntimeError: boom \x1b]0;pwned\x07 \x0b end\n";
    let output = explain(cache.path(), Path::new("-"), &root.join(SNAPSHOT_H100), &[])
        .write_stdin(log)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "control characters reached the output: {text:?}"
    );
    assert!(text.contains("boom"), "{text}");
}

/// A paste in an error's own words that no cause fits (batch K's
/// horovod2224, mpi4py's build, JAX's CUDA check) is an error explain cannot
/// explain, never "no error found"; a few lines that say nothing failed are
/// no error.
#[test]
fn a_short_paste_of_an_unknown_error_is_unexplained_and_a_calm_one_no_error() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for log in [
        "mpi_lib.cpython-36m-x86_64-linux-gnu.so: undefined symbol: cudaLaunch\n",
        "Failed to build mpi4py\nERROR: Could not build wheels for mpi4py\n",
        "CUDA backend failed to initialize: Found CUDA version 12010, but JAX was built against version 12020, which is newer.\n",
        // Python's own messages without their class (adelaidepth12).
        "I'm having this problem with an import from Torchsparse:\nmodule 'torchsparse_backend' has no attribute 'hash_forward\n",
        "running the model after installing it:\nname 'selective_scan_cuda_core' is not defined\n",
        // A library's refusal in its own words, no error class (tgi398).
        "when I start the server it prints\nGPU with compute capability 6 1 is not supported\n",
    ] {
        let (explanation, code) = explain_text_json(cache.path(), dir.path(), "paste.txt", log);
        assert_eq!(explanation["outcome"], "unexplained", "{log}: {explanation:#}");
        assert_eq!(code, 1, "{log}");
    }
    let (explanation, code) = explain_text_json(
        cache.path(),
        dir.path(),
        "calm.txt",
        "Epoch 3/10\nloss 0.412, accuracy 0.871\n",
    );
    assert_eq!(explanation["outcome"], "no_error", "{explanation:#}");
    assert_eq!(code, 0);
}

/// triton8539: Triton's bundled ptxas refuses the GB10's sm_121a. Whichever
/// line is answered, the fix reaches the ptxas Triton runs, which no toolkit
/// install changes.
#[test]
fn a_ptxas_refusal_in_a_triton_log_names_tritons_own_ptxas_in_the_fix() {
    let cache = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_dir_json(
        cache.path(),
        &fresh_case_dir("2026-12-03-Q/other-triton-bundled-ptxas-lacks-sm121-triton8539"),
    );
    assert_eq!(
        first_id(&explanation),
        Some("nvcc-unsupported-gpu-arch"),
        "{explanation:#}"
    );
    let fix = first_fix(&explanation);
    assert!(fix.contains("TRITON_PTXAS_PATH"), "{fix}");
    assert!(fix.contains("TRITON_PTXAS_BLACKWELL_PATH"), "{fix}");
}

/// NVML's "Unknown Error" in a container: the devices systemd took away from a
/// running one (NVIDIA's notice, nvidia-container-toolkit #48), or devices a
/// container was never granted, which read the same. Listed first with what
/// decides it, never named; the driver's two halves disagreeing is named.
#[test]
fn nvmls_unknown_error_in_a_container_is_listed_not_named() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "nvml.txt",
        "(container) $ nvidia-smi -L\nFailed to initialize NVML: Unknown Error\n",
    );
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("container-lost-gpu-devices"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "mismatch.txt",
        "Failed to initialize NVML: Driver/library version mismatch\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("nvml-driver-library-mismatch"),
        "{explanation:#}"
    );
}

/// Causes a failure names in its own words, one per platform or setup:
/// each entry is named first on a line as a real report posted it, and not
/// on the nearest line that means something else.
#[test]
fn a_setup_cause_is_named_by_its_own_words_and_not_by_its_neighbours() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // (entry, a line as posted (the fixture it comes from), the nearest line of another cause)
    let cases = [
        (
            "docker-gpu-runtime-missing",
            // voicecraft31
            "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n",
            // The toolkit is there (its own CLI speaks); the driver's library is not.
            "docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.\n",
        ),
        (
            "docker-gpu-runtime-missing",
            // localmultimodalaichat31
            "Error response from daemon: unknown or invalid runtime name: nvidia\n",
            "Error response from daemon: unknown or invalid runtime name: runsc\n",
        ),
        (
            "torch-distributed-without-nccl",
            // llama699
            "Traceback (most recent call last):\n  File \"C:\\llama\\example_text_completion.py\", line 55, in <module>\n    fire.Fire(main)\n  File \"U:\\Miniconda3\\envs\\llama2env\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py\", line 1013, in _new_process_group_helper\n    raise RuntimeError(\"Distributed package doesn't have NCCL \" \"built in\")\nRuntimeError: Distributed package doesn't have NCCL built in\n",
            "RuntimeError: Distributed package doesn't have MPI built in. MPI is only included if you build PyTorch from source on a host that has MPI installed.\n",
        ),
        (
            "torch-tcpstore-without-libuv",
            // fluxgym504
            "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was built without libuv support, run with USE_LIBUV=0 to disable it.\n",
            "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/2 clients joined.\n",
        ),
        (
            "torch-windows-fbgemm-libomp-missing",
            // cutie-roto5
            "Traceback (most recent call last):\n  File \"C:\\Cutie-Roto\\python-3.11.7-embed-amd64\\Lib\\site-packages\\torch\\__init__.py\", line 148, in <module>\n    raise err\nOSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Cutie-Roto\\python-3.11.7-embed-amd64\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
            // Another of torch's DLLs: the Visual C++ runtime is the first suspect there, not fbgemm's OpenMP.
            "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n",
        ),
        (
            "windows-paging-file-too-small",
            // The same DLL refused for the commit limit, in Chinese Windows' words.
            "OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
            "OSError: [WinError 126] 找不到指定的模块。 Error loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
        ),
        (
            "windows-paging-file-too-small",
            // enunutrainingkit8
            "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading \"C:\\Users\\Nathan\\Desktop\\enunu\\python-3.8.10-embed-amd64\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll\" or one of its dependencies.\n",
            // The DLL itself missing, not the commit limit.
            "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll\" or one of its dependencies.\n",
        ),
        (
            "torch-launch-local-rank-hyphen",
            // pytorchimagemodels1728
            "usage: train.py [-h] [--local_rank LOCAL_RANK] [--data-dir DIR]\ntrain.py: error: unrecognized arguments: --local-rank=0\n",
            // An option of the script's own that starts like the launcher's.
            "usage: train.py [-h] [--local_rank LOCAL_RANK]\ntrain.py: error: unrecognized arguments: --local-rank-offset=2\n",
        ),
        (
            "protobuf-generated-code-too-old",
            // promptmodel220: protobuf 4.21.0's own wording, its "not" doubled
            "TypeError: Descriptors cannot not be created directly.\nIf this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.\n",
            "TypeError: Couldn't build proto file into descriptor pool: duplicate file name sentencepiece_model.proto\n",
        ),
        (
            "library-static-tls-exhausted",
            // donkeycar908
            "ImportError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block\n",
            "OSError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot open shared object file: No such file or directory\n",
        ),
        (
            "cpu-lacks-build-instructions",
            // skunkworksbedallocation35
            "RuntimeError: This version of jaxlib was built using AVX instructions, which your CPU and/or operating system do not support. You may be able work around this issue by building jaxlib from source.\n",
            // TensorFlow's note that the CPU has more than the build uses: no failure.
            "I tensorflow/core/platform/cpu_feature_guard.cc:142] The TensorFlow library wasn't compiled to use AVX2 instructions, but these are available on your machine and could speed up CPU computations.\nValueError: Shapes (None, 10) and (None, 1) are incompatible\n",
        ),
        (
            "no-display-on-node",
            // lambda5
            "GLFWError: (65544) b'X11: Failed to open display :1'\nGLFWError: (65537) b'The GLFW library is not initialized'\n",
            "GLFWError: (65543) b'GLX: Failed to create context: GLXBadFBConfig'\n",
        ),
        (
            "no-display-on-node",
            // interhand26m32: matplotlib's words where it finds no display
            "  File \"/anaconda3/envs/interhand/lib/python3.6/site-packages/matplotlib/pyplot.py\", line 287, in switch_backend\n    newbackend, required_framework, current_framework))\nImportError: Cannot load backend 'TkAgg' which requires the 'tk' interactive framework, as 'headless' is currently running\n",
            // A display is there; another toolkit's loop runs: the code mixed two toolkits.
            "ImportError: Cannot load backend 'TkAgg' which requires the 'tk' interactive framework, as 'qt' is currently running\n",
        ),
        (
            "qt-platform-plugin-not-loaded",
            // yarppg16
            "qt.qpa.plugin: Could not load the Qt platform plugin \"xcb\" in \"/home/kenn/.pyenv/versions/3.11-dev/lib/python3.11/site-packages/cv2/qt/plugins\" even though it was found.\nThis application failed to start because no Qt platform plugin could be initialized. Reinstalling the application may fix this problem.\n",
            // Windows' platform plugin: neither cv2's bundled Qt nor libxcb.
            "qt.qpa.plugin: Could not load the Qt platform plugin \"windows\" in \"\" even though it was found.\nThis application failed to start because no Qt platform plugin could be initialized.\n",
        ),
        (
            "no-display-on-node",
            // Qt on a headless node says both; the display is the cause.
            "qt.qpa.xcb: could not connect to display \nqt.qpa.plugin: Could not load the Qt platform plugin \"xcb\" in \"/usr/lib/x86_64-linux-gnu/qt5/plugins\" even though it was found.\nThis application failed to start because no Qt platform plugin could be initialized.\n",
            "qt.qpa.plugin: Could not load the Qt platform plugin \"xcb\" in \"/v/lib/python3.11/site-packages/cv2/qt/plugins\" even though it was found.\n",
        ),
        (
            "program-not-on-path",
            // whisperjav102's pydub warning, printed before its failure
            "C:\\WhisperJAV\\lib\\site-packages\\pydub\\utils.py:170: RuntimeWarning: Couldn't find ffmpeg or avconv - defaulting to ffmpeg, but may not work\nRuntimeError: No ffmpeg exe could be found. Install ffmpeg on your system, or set the IMAGEIO_FFMPEG_EXE environment variable.\n",
            // ffmpeg ran and failed on its input: the program is there.
            "RuntimeError: Failed to load audio: ffmpeg version 4.4.2 Copyright (c) 2000-2021 the FFmpeg developers\n/tmp/a.wav: Invalid data found when processing input\n",
        ),
        (
            "port-already-in-use",
            // wekws93
            "[W socket.cpp:401] [c10d] The server socket has failed to bind to [::]:29400 (errno: 98 - Address already in use).\n[W socket.cpp:401] [c10d] The server socket has failed to bind to 0.0.0.0:29400 (errno: 98 - Address already in use).\n[E socket.cpp:435] [c10d] The server socket has failed to listen on any local network address.\n",
            // Nobody listens where the client calls: another cause (the first rank is not up, or the address is wrong).
            "[W socket.cpp:601] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 111 - Connection refused).\n",
        ),
        (
            "package-cpu-only-build",
            // gpwcantonese1
            "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n",
            // onnxruntime-gpu is there; the CUDA libraries its provider loads are not.
            "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory\n[W:onnxruntime:Default, onnxruntime_pybind_state.cc:541 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements to ensure all dependencies are met.\n",
        ),
        (
            "package-cpu-only-build",
            // graphmae9
            "dgl._ffi.base.DGLError: [21:48:49] /opt/dgl/src/runtime/c_runtime_api.cc:88: Check failed: allow_missing: Device API gpu is not enabled. Please install the cuda version of dgl.\n",
            // A CUDA build of DGL handed a graph on the CPU and features on the GPU: the job's own code.
            "dgl._ffi.base.DGLError: Cannot assign node feature \"feat\" on device cuda:0 to a graph on device cpu. Call DGLGraph.to() to copy the graph to the same device first.\n",
        ),
        (
            "package-cpu-only-build",
            // pipa12
            "Traceback (most recent call last):\n  File \"/home/u/PiPa/mmseg/models/decode_heads/uper_head.py\", line 12, in forward\n    return nms(boxes, scores, 0.5)\nRuntimeError: nms is not compiled with GPU support\n",
            "RuntimeError: nms is not implemented for the CPU\n",
        ),
        (
            "torch-load-weights-only-default",
            // comfyui9385's wording, as torch 2.6's serialization.py prints it
            "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray._reconstruct was not an allowed global by default.\n",
            // Before torch 2.6 the caller chose weights_only=True: no default changed under it.
            "_pickle.UnpicklingError: Weights only load failed. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source. Please file an issue with the following so that we can make `weights_only=True` compatible with your use case: WeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default.\n",
        ),
        (
            "checkpoint-not-a-pickle",
            // codeformer106: torch's reader of a legacy checkpoint cut short
            "Traceback (most recent call last):\n  File \"D:\\env\\lib\\site-packages\\torch\\serialization.py\", line 1020, in _legacy_load\n    typed_storage._storage._set_from_file(\nRuntimeError: unexpected EOF, expected 7538569 more bytes. The file might be corrupted.\n",
            // A reader of a file of the job's own format that ran out: no checkpoint.
            "RuntimeError: unexpected EOF while reading the dataset index\n",
        ),
        (
            "transformers-too-old-for-model",
            // comfyuiqwenvl3
            "ERROR: The checkpoint you are trying to load has model type `qwen3_vl` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.\n",
            // A checkpoint without a model type is the checkpoint's fault, whatever the release.
            "ValueError: Unrecognized model in ./checkpoints/run3. Should have a `model_type` key in its config.json, or contain one of the following strings in its name: albert, bart, bert\n",
        ),
        (
            "pypi-namesake-installed",
            // clip329
            "Traceback (most recent call last):\n  File \"D:\\Arbeitszimmer\\Projekte\\Tensorflow\\CLIP\\myclip.py\", line 7, in <module>\n    model, preprocess = clip.load(\"ViT-B/32\", device=device)\nAttributeError: module 'clip' has no attribute 'load'\n",
            // The job's own script named clip.py, importing itself: no package installed at all.
            "Traceback (most recent call last):\n  File \"/home/u/proj/clip.py\", line 1, in <module>\n    import clip\n  File \"/home/u/proj/clip.py\", line 7, in <module>\n    model, preprocess = clip.load(\"ViT-B/32\")\nAttributeError: partially initialized module 'clip' has no attribute 'load' (most likely due to a circular import)\n",
        ),
    ];
    for (number, (id, fires, quiet)) in cases.into_iter().enumerate() {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), &format!("fires-{number}.log"), fires);
        assert_eq!(first_id(&explanation), Some(id), "{id} on {fires}: {explanation:#}");
        assert_eq!(explanation["outcome"], "explained", "{id} on {fires}: {explanation:#}");
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), &format!("quiet-{number}.log"), quiet);
        assert!(
            candidate(&explanation, id).is_none(),
            "{id} on {quiet}: {explanation:#}"
        );
    }
}

/// A file that is no pickle is named from CPython's unpickler, which stops
/// only at a byte that is no opcode; torch's weights_only unpickler stops the
/// same way inside a legacy checkpoint that loads without it (ComfyUI #9385),
/// so there the weights_only default still leads and the file is listed.
#[test]
fn a_file_that_is_no_pickle_is_named_from_cpythons_words_and_listed_from_torchs() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let frames = "Traceback (most recent call last):\n  File \"/home/u/app/run.py\", line 12, in load\n    ckpt = torch.load(path, weights_only=False)\n  File \"/home/u/.venv/lib/python3.11/site-packages/torch/serialization.py\", line 1495, in load\n    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)\n";
    let (html, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "html.log",
        &format!("{frames}_pickle.UnpicklingError: invalid load key, '<'.\n"),
    );
    assert_eq!(html["outcome"], "explained", "{html:#}");
    assert_eq!(html["candidates"][0]["id"], "checkpoint-not-a-pickle", "{html:#}");
    assert!(first_fix(&html).contains("/resolve/"), "{html:#}");

    let refusal = "_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.\n Please file an issue with the following so that we can make `weights_only=True` compatible with your use case: WeightsUnpickler error: Unsupported operand 118\n";
    let (legacy, _) = explain_text_json(cache.path(), dir.path(), "legacy.log", &format!("{frames}{refusal}"));
    let ids: Vec<&str> = legacy["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|candidate| candidate["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[0], "torch-load-weights-only-default", "{legacy:#}");
    let listed = legacy["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|candidate| candidate["id"] == "checkpoint-not-a-pickle")
        .unwrap_or_else(|| panic!("{legacy:#}"));
    assert_eq!(listed["confidence"], "possible", "{legacy:#}");
}

/// panpipes204: JAX logs each backend it could not start at INFO (`Unable to
/// initialize backend 'tpu': ... libtpu.so: cannot open shared object file`)
/// and goes on; its WARNING that a CUDA-enabled jaxlib is not installed where
/// an NVIDIA device node exists is the cause. Without that warning, the INFO
/// lines alone name nothing.
#[test]
fn jaxs_cpu_fallback_is_named_and_the_backends_it_tried_at_info_are_not() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-04-Y/package-cpu-only-build-panpipes204");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(
        first_id(&explanation),
        Some("package-cpu-only-build"),
        "{explanation:#}"
    );
    assert!(first_fix(&explanation).contains("jax[cuda12]"), "{explanation:#}");

    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read_to_string(case.join("log.txt")).unwrap();
    let probes: String = log
        .lines()
        .filter(|line| line.starts_with("INFO"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(probes.contains("libtpu.so: cannot open shared object file"), "{probes}");
    let (probed, _) = explain_text_json(cache.path(), dir.path(), "probes.log", &probes);
    assert_ne!(probed["outcome"], "explained", "{probed:#}");
    assert!(candidate(&probed, "shared-library-missing").is_none(), "{probed:#}");
}

/// nvdiffrast's fatal `eglInitialize() failed` (nvdiffrast58) and MuJoCo's
/// `Cannot initialize a EGL device display` are headless EGL that cannot
/// start on the node; a build that lacks EGL's header (`EGL/egl.h: No such
/// file or directory`) is another failure and names nothing of it.
#[test]
fn headless_egl_that_cannot_start_is_named_and_a_missing_header_is_not() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-04-Y/other-nvidia-driver-without-opengl-egl-nvdiffrast58");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(
        first_id(&explanation),
        Some("egl-headless-context-unavailable"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("RasterizeCudaContext"),
        "{explanation:#}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (mujoco, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "mujoco.log",
        "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.11/site-packages/mujoco/egl/__init__.py\", line 126, in __init__\n    raise ImportError(\nImportError: Cannot initialize a EGL device display. This likely means that your EGL driver does not support the PLATFORM_DEVICE extension, which is required for creating a headless rendering context.\n",
    );
    assert_eq!(
        first_id(&mujoco),
        Some("egl-headless-context-unavailable"),
        "{mujoco:#}"
    );

    let (header, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "header.log",
        "glutil.h fatal error: EGL/egl.h: No such file or directory.\n",
    );
    assert!(
        candidate(&header, "egl-headless-context-unavailable").is_none(),
        "{header:#}"
    );
}

/// A Windows program that could not start for a missing DLL exits with
/// STATUS_DLL_NOT_FOUND (anythingllm1795: Ollama's runner, `exit status
/// 0xc0000135`); an access violation's status (0xc0000005) is no such thing.
#[test]
fn windows_dll_not_found_as_an_exit_status_is_a_missing_library() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (missing, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "missing.log",
        "Ollama call failed with status code 500: llama runner process has terminated: exit status 0xc0000135\n",
    );
    assert_eq!(first_id(&missing), Some("shared-library-missing"), "{missing:#}");
    let (violation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "violation.log",
        "Ollama call failed with status code 500: llama runner process has terminated: exit status 0xc0000005\n",
    );
    assert!(
        candidate(&violation, "shared-library-missing").is_none(),
        "{violation:#}"
    );
}

/// llama.cpp's loader refusing a model file of another generation than its
/// build (a GGUF file in a pre-GGUF build, an architecture it does not know,
/// Z's gemma-2-27b-it-gguf1) is the file and the runtime disagreeing;
/// transformers' own "does not recognize this architecture" is not.
#[test]
fn a_model_file_llama_cpp_cannot_read_is_the_file_and_the_build_disagreeing() {
    let cache = tempfile::tempdir().unwrap();
    let case = fresh_case_dir("2026-12-04-Z/other-llama-cpp-older-than-model-architecture-gemma-2-27b-it-gguf1");
    let (explanation, _) = explain_dir_json(cache.path(), &case);
    assert_eq!(
        first_id(&explanation),
        Some("llama-cpp-model-file-format-mismatch"),
        "{explanation:#}"
    );
    let dir = tempfile::tempdir().unwrap();
    let (gguf, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "gguf.log",
        "error loading model: unknown (magic, version) combination: 46554747, 00000002; is this really a GGML file?\nllama_load_model_from_file: failed to load model\n",
    );
    assert_eq!(
        first_id(&gguf),
        Some("llama-cpp-model-file-format-mismatch"),
        "{gguf:#}"
    );
    let (transformers, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "transformers.log",
        "ValueError: The checkpoint you are trying to load has model type `gemma2` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.\n",
    );
    assert!(
        candidate(&transformers, "llama-cpp-model-file-format-mismatch").is_none(),
        "{transformers:#}"
    );
}

/// pointpainting34: NumPy's release notes, the generic entry's first
/// example, are no reading of a name spconv lacks: the short view, which
/// lists the entry (undecided: no table dates the name), leaves them to
/// --verbose.
#[test]
fn the_short_view_shows_no_link_about_another_package_than_the_one_read() {
    let cache = tempfile::tempdir().unwrap();
    let dir = fresh_case_dir("2026-12-04-AA/package-lacks-used-name-pointpainting34");
    let (log, snapshot) = (dir.join("log.txt"), dir.join("snapshot.json"));
    let short = stdout(&explain(cache.path(), &log, &snapshot, &[]).assert().code(1));
    assert!(short.contains("package-lacks-used-name"), "{short}");
    assert!(!short.contains("numpy.org"), "{short}");
    let verbose = stdout(&explain(cache.path(), &log, &snapshot, &["--verbose"]).assert().code(1));
    assert!(verbose.contains("numpy.org"), "{verbose}");
}

/// conformer2, danetdensepose2smpl8: Python 3.6 printed `cannot import name
/// 'N'` without the module; the `from M import N` line above it names the
/// module, in a long log too, where lines without a marker word go unread.
#[test]
fn an_old_pythons_import_error_is_read_with_the_module_its_statement_names() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = format!(
        "{}from smplx.body_models import ModelOutput\nImportError: cannot import name 'ModelOutput'\n",
        "epoch 1 step 10 loss 0.5\n".repeat(20_000)
    );
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "py36.log", &log);
    let lacks = candidate(&explanation, "package-lacks-used-name").unwrap_or_else(|| panic!("{explanation:#}"));
    assert!(lacks.to_string().contains("smplx.body_models.ModelOutput"), "{lacks:#}");
    // Without the statement, the name is all there is: nothing to name.
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "alone.log",
        "ImportError: cannot import name 'ModelOutput'\n",
    );
    assert!(
        candidate(&explanation, "package-lacks-used-name").is_none(),
        "{explanation:#}"
    );
}

/// opennmttf638: TensorFlow logs the TensorRT libraries it can do without as
/// warnings (`W .../dso_loader.cc:55]`); with nothing failing after them the
/// line is listed, not the answer. The same words as an error are one.
#[test]
fn a_loader_line_logged_as_a_warning_is_alone_no_answer() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let words = "Could not load dynamic library 'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open shared object file: No such file or directory";
    let warned = format!(
        "2020-03-27 12:29:53.941589: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] {words}\n"
    );
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "warned.log", &warned);
    assert_eq!(explanation["outcome"], "undecided", "{explanation:#}");
    let listed = candidate(&explanation, "shared-library-missing").unwrap_or_else(|| panic!("{explanation:#}"));
    assert_eq!(listed["confidence"], "possible", "{listed:#}");
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "error.log",
        "OSError: libnvinfer.so.6: cannot open shared object file: No such file or directory\n",
    );
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
}

/// mae172: a `torch._six` import in the job's own file is not DeepSpeed's,
/// whose rule has the same message: the rule's code is never reached, so the
/// general entry is the answer. Through DeepSpeed's file, the rule is.
#[test]
fn a_rule_whose_code_the_traceback_never_reaches_does_not_outrank_the_reading() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // torch 2.11 with DeepSpeed 0.8.1: the rule holds on this node.
    let node = h100_with_deepspeed(dir.path(), "0.8.1");
    let first = |name: &str, file: &str| {
        let log = dir.path().join(name);
        std::fs::write(&log, format!("Traceback (most recent call last):\n  File \"{file}\", line 21, in <module>\n    from torch._six import inf\nModuleNotFoundError: No module named 'torch._six'\n")).unwrap();
        let (explanation, _) = parsed(&explain(cache.path(), &log, &node, &["--format", "json"]).assert());
        assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
        first_id(&explanation).map(str::to_string)
    };
    assert_eq!(
        first("job.log", "/home/me/mae/util/misc.py").as_deref(),
        Some("extension-built-for-other-torch")
    );
    assert_eq!(
        first(
            "deepspeed.log",
            "/v/lib/python3.10/site-packages/deepspeed/runtime/utils.py"
        )
        .as_deref(),
        Some("deepspeed-0-8-1-torch-2-six-import")
    );
}

/// A failed build is a failure: a compiler's error lines and setuptools'
/// `error: command ... failed` were read as nothing to explain
/// (pointtransformer73, droidslam32). One that names torch's C++ API in the
/// extension's own source is source written for another torch.
#[test]
fn a_compilers_error_is_a_failure_and_torchs_api_in_it_names_the_torch_it_was_written_for() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let thc = "running build_ext\nbuilding 'pointops_cuda' extension\nsrc/knnquery/knnquery_cuda.cpp:2:10: fatal error: THC/THC.h: No such file or directory\n    2 | #include <THC/THC.h>\ncompilation terminated.\nerror: command 'x86_64-linux-gnu-gcc' failed with exit status 1\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "thc.log", thc);
    assert_eq!(explanation["outcome"], "explained", "{explanation:#}");
    assert_eq!(
        first_id(&explanation),
        Some("extension-built-for-other-torch"),
        "{explanation:#}"
    );
    let other = "running build_ext\nsrc/solver.cpp:40:12: fatal error: Eigen/Dense: No such file or directory\ncompilation terminated.\nerror: command '/usr/bin/gcc' failed with exit status 1\n";
    let (explanation, _) = explain_text_json(cache.path(), dir.path(), "eigen.log", other);
    assert_eq!(explanation["outcome"], "unexplained", "{explanation:#}");
}

/// Readings added after batch AG was scored, each through the whole binary on
/// the real log that showed it lacking: a paste that starts at IPython's first
/// frame (daskcuda55), xformers' refusal printed without a class and refused
/// by every operator for bf16 (easyanimate11), ptxas' own error lines
/// (chameleon39), pip's empty list of releases (havln16), and torch's CUDA
/// check wrapped inside its words (gagavatar21).
#[test]
fn fresh_logs_of_kinds_first_read_after_batch_ag_name_their_cause() {
    let cache = tempfile::tempdir().unwrap();
    for (case, cause) in [
        (
            "2026-12-04-AG/package-lacks-used-name-daskcuda55",
            "package-lacks-used-name",
        ),
        (
            "2026-12-04-AG/bf16-on-pre-ampere-gpu-easyanimate11",
            "bf16-on-pre-ampere-gpu",
        ),
        (
            "2026-12-02-H/bf16-on-pre-ampere-gpu-chameleon39",
            "bf16-on-pre-ampere-gpu",
        ),
        (
            "2026-12-04-AF/pip-finds-no-release-here-havln16",
            "pip-finds-no-release-here",
        ),
        // Taichi's words for the driver's library it could not load.
        (
            "2026-12-04-AE/shared-library-missing-taichinerfs94",
            "shared-library-missing",
        ),
        // torch's check cut by a terminal's wrap inside its own words.
        (
            "2026-12-02-H/cuda-toolkit-mismatch-gagavatar21",
            "cuda-toolkit-mismatch",
        ),
    ] {
        let (explanation, _) = explain_dir_json(cache.path(), &fresh_case_dir(case));
        assert_eq!(explanation["outcome"], "explained", "{case}: {explanation:#}");
        assert_eq!(explanation["candidates"][0]["id"], cause, "{case}: {explanation:#}");
    }
}

/// imagebackgroundremovetool129: pip's report of the requirements its install
/// left unmet is read in a log of any length, not only in a short paste; a
/// failure of the job's own after it still decides.
#[test]
fn pips_report_of_unmet_requirements_is_read_and_a_later_failure_of_its_own_decides() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.\n\
        rembg 2.0.29 requires fastapi==0.87.0, but you have fastapi 0.78.0 which is incompatible.\n\
        rembg 2.0.29 requires numpy==1.23.5, but you have numpy 1.22.4 which is incompatible.\n\
        rembg 2.0.29 requires pillow==9.3.0, but you have pillow 9.0.1 which is incompatible.\n\
        rembg 2.0.29 requires uvicorn==0.20.0, but you have uvicorn 0.17.6 which is incompatible.\n\n";
    let (alone, _) = explain_text_json(cache.path(), dir.path(), "pip.log", report);
    assert_eq!(first_id(&alone), Some("package-requirement-unmet"), "{alone:#}");
    assert_eq!(alone["outcome"], "explained", "{alone:#}");
    let then_failed = format!(
        "{report}Traceback (most recent call last):\n  File \"/home/u/app/run.py\", line 3, in <module>\n    size = config[\"size\"]\nKeyError: 'size'\n"
    );
    let (after, _) = explain_text_json(cache.path(), dir.path(), "then.log", &then_failed);
    assert_eq!(after["traceback"]["exception"], "KeyError", "{after:#}");
    assert_ne!(after["outcome"], "explained", "{after:#}");
}

/// An extension built for another Python is named from the interpreter's or
/// pybind11's words; an extension missing one of torch's symbols is not one.
#[test]
fn an_extension_built_for_another_python_is_named_and_a_torch_symbol_is_not_one() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "elf.log",
        "Traceback (most recent call last):\n  File \"run.py\", line 140, in <module>\n    game = load_module(os.environ[\"game\"]).Loader()\n  File \"./rts/game_MC/game.py\", line 8, in <module>\n    import minirts\nImportError: dynamic module does not define module export function (PyInit_minirts)\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("extension-built-for-other-python"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "pybind.log",
        "ImportError: Python version mismatch: module was compiled for Python 3.6, but the interpreter version is incompatible: 3.7.3.\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("extension-built-for-other-python"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "torch-symbol.log",
        "ImportError: /home/u/venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
    );
    assert!(
        candidate(&explanation, "extension-built-for-other-python").is_none(),
        "{explanation:#}"
    );
}

/// The driver's JIT refusing PTX of a newer CUDA names both CUDAs; a ptxas
/// run on a file (Triton's, a toolkit's) is not the driver's JIT.
#[test]
fn ptx_newer_than_the_drivers_jit_names_both_cudas_and_a_ptxas_on_a_file_does_not() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "numba.log",
        "numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR\nptxas application ptx input, line 9; fatal   : Unsupported .version 8.1; current version is '8.0'\n",
    );
    assert_eq!(
        first_id(&explanation),
        Some("ptx-jit-compilation-failed"),
        "{explanation:#}"
    );
    assert!(
        first_fix(&explanation).contains("supports CUDA 12.1"),
        "{explanation:#}"
    );
    let (explanation, _) = explain_text_json(
        cache.path(),
        dir.path(),
        "ptxas.log",
        "RuntimeError: Internal Triton PTX codegen error\nptxas /tmp/tmpab12/kernel.ptx, line 5; fatal   : Unsupported .version 8.7; current version is '8.4'\n",
    );
    assert!(
        candidate(&explanation, "ptx-jit-compilation-failed").is_none(),
        "{explanation:#}"
    );
}

/// Lines a job goes on past (a shell's missing command, NVIDIA Warp's old
/// driver) are read where nothing else failed, and never outrank a failure:
/// a Python traceback before or after them, a kill after them (the review of
/// 06188f44 found each of these answered by the shell's line).
#[test]
fn a_missing_command_or_an_old_driver_the_job_went_on_past_does_not_outrank_its_failure() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let oom = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = torch.zeros(10**12, device=\"cuda\")\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.73 TiB. GPU 0 has a total capacity of 79.19 GiB of which 78.69 GiB is free.\n";
    let warp = "    The minimum required CUDA driver version is 12.0, but the installed CUDA driver version is 11.4.\n";
    for (log, expected) in [
        (
            format!("{oom}./job.sh: line 14: git: command not found\n"),
            "cuda-out-of-memory",
        ),
        (format!("bash: git: command not found\n{oom}"), "cuda-out-of-memory"),
        (
            "bash: git: command not found\nepoch 1 loss 0.3\nKilled\n".to_string(),
            "host-out-of-memory-killed",
        ),
        (format!("{warp}step 10\nKilled\n"), "host-out-of-memory-killed"),
        // What failed because of them: a build's compiler step, a Warp
        // failure of CUDA (the third review's finds).
        (
            "  building 'pycocotools._mask' extension\n  gcc -pthread -fPIC -I/usr/include/python3.10 -c pycocotools/_mask.c -o build/_mask.o\n  /bin/sh: 1: gcc: command not found\n  error: command '/usr/bin/gcc' failed with exit code 127\n  ERROR: Failed building wheel for pycocotools\nERROR: Could not build wheels for pycocotools, which is required to install pyproject.toml-based projects\n".to_string(),
            "program-not-on-path",
        ),
        (
            format!("Warp UserWarning: \n    Insufficient CUDA driver version.\n{warp}Traceback (most recent call last):\n  File \"/v/lib/python3.10/site-packages/warp/context.py\", line 5190, in get_device\n    raise RuntimeError(\"Warp CUDA error: Failed to get CUDA device\")\nRuntimeError: Warp CUDA error: Failed to get CUDA device\n"),
            "driver-too-old-for-torch",
        ),
        // Alone, they are what failed.
        (
            "'cut' is not recognized as an internal or external command,\noperable program or batch file.\n"
                .to_string(),
            "program-not-on-path",
        ),
        (
            format!("Warp UserWarning: \n    Insufficient CUDA driver version.\n{warp}"),
            "driver-too-old-for-torch",
        ),
    ] {
        let (explanation, _) = explain_text_json(cache.path(), dir.path(), "log.txt", &log);
        assert_eq!(first_id(&explanation), Some(expected), "{log}\n{explanation:#}");
    }
}
