//! `envdoctor check` and `envdoctor matrix` driven as a user drives them: the
//! report in each format read back by a parser of that format, exit codes,
//! ignores, site matrices, training configs, and bad input of every kind.

use crate::common;

use std::path::{Path, PathBuf};

use envdoctor::check::Report;
use serde_json::Value;

const H100: &str = "tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json";

/// A site rule that fires on the H100 fixture (torch 2.3.1 on Hopper), so these
/// tests do not depend on which built-in rules happen to fire.
const SITE_RULE: &str = r#"
id = "site-old-torch-on-hopper"
title = "This site requires torch 2.4 or later on Hopper"
severity = "warning"
message = "torch {package.torch} is installed and {gpus} are visible."
why = "The site's kernels need torch 2.4."
fix = 'pip install "torch>=2.4"'
fix_torch = ">=2.4"
references = ["https://example.org/site-policy"]
checked = "2026-11-21"
[when]
packages = { torch = "<2.4" }
any_gpu = { compute_capability = ">=9.0" }
"#;

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let setup = Setup {
            dir: tempfile::tempdir().unwrap(),
        };
        common::write_file(&setup.path("site/rules/site-old-torch-on-hopper.toml"), SITE_RULE);
        setup
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// `envdoctor check --snapshot H100 --matrix site ARGS`, run in the temp dir.
    fn check(&self, arguments: &[&str]) -> assert_cmd::assert::Assert {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(H100);
        let mut command = common::envdoctor(&self.path("cache"));
        command
            .current_dir(self.dir.path())
            .arg("check")
            .arg("--snapshot")
            .arg(fixture);
        command.arg("--matrix").arg(self.path("site")).args(arguments);
        command.assert()
    }
}

/// What the site rule's fix becomes on the hand-made H100 node: one command,
/// run with the node's own interpreter, and what the build is beside it.
const SITE_FIX: &str = "'/opt/venvs/train/bin/python' -m pip install \"torch==2.4.1\" \
                        --index-url https://download.pytorch.org/whl/cu121";
const SITE_NOTE: &str = "a build for CUDA 12.1 that this driver runs, with code for 5.0;6.0;7.0;7.5;8.0;8.6;9.0";

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

fn stderr(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stderr.clone()).unwrap()
}

fn report(assert: &assert_cmd::assert::Assert) -> Report {
    serde_json::from_str(&stdout(assert)).expect("check --format json prints a Report")
}

fn ids(report: &Report) -> Vec<&str> {
    report.findings.iter().map(|finding| finding.id.as_str()).collect()
}

#[test]
fn json_report_has_the_schema_the_findings_and_a_summary() {
    let setup = Setup::new();
    let assert = setup.check(&["--format", "json"]);
    let report = report(&assert);
    assert_eq!(report.schema, "envdoctor.report/1");
    let finding = report
        .findings
        .iter()
        .find(|f| f.id == "site-old-torch-on-hopper")
        .expect("the site rule fires");
    assert_eq!(finding.origin, "site-old-torch-on-hopper");
    assert!(
        finding.detail.starts_with("torch 2.3.1 is installed and cuda:0 "),
        "{}",
        finding.detail
    );
    // The site rule's fix changes torch, so it is made for the node: torch 2.4's
    // newest patch from the index of a CUDA that driver 535 runs.
    assert_eq!(finding.fix.as_deref(), Some(SITE_FIX));
    assert_eq!(finding.fix_note.as_deref(), Some(SITE_NOTE));
    assert!(
        report
            .evaluated
            .iter()
            .any(|e| e.id == "site-old-torch-on-hopper" && e.source.is_some())
    );
    assert_eq!(
        report.summary.warnings,
        report
            .findings
            .iter()
            .filter(|f| f.severity.as_str() == "warning")
            .count()
    );
    // The Snapshot is carried whole, so a report can be judged again later.
    assert_eq!(report.snapshot.nvidia.as_ref().unwrap().gpus.len(), 6);
}

#[test]
fn the_smoke_test_says_why_it_did_not_run() {
    let setup = Setup::new();
    let replayed = report(&setup.check(&["--format", "json"]));
    assert!(replayed.smoke.is_none());
    assert!(replayed.smoke_not_run.unwrap().contains("recorded Snapshot"));
    let skipped = report(&setup.check(&["--format", "json", "--no-smoke"]));
    assert_eq!(skipped.smoke_not_run.as_deref(), Some("--no-smoke"));
    let text = stdout(&setup.check(&[]));
    assert!(
        text.contains("smoke test: not run (a recorded Snapshot was replayed"),
        "{text}"
    );
    // This machine, probed live: a run, or the reason (no GPU, no torch) there is none.
    let cache = setup.path("cache");
    let live = common::envdoctor(&cache)
        .args(["check", "--format", "json", "--python"])
        .arg(common::system_python())
        .assert();
    let live = report(&live);
    assert_ne!(
        live.smoke.is_some(),
        live.smoke_not_run.is_some(),
        "{:?}",
        live.smoke_not_run
    );
}

#[test]
fn fail_on_decides_the_exit_code() {
    let setup = Setup::new();
    let errors = report(&setup.check(&["--format", "json"])).summary.errors;
    // The site rule is a warning: failing on warnings fails, never never does.
    setup.check(&["--format", "json", "--fail-on", "warning"]).code(1);
    setup.check(&["--format", "json", "--fail-on", "never"]).code(0);
    setup.check(&["--format", "json"]).code(if errors > 0 { 1 } else { 0 });
}

#[test]
fn junit_is_xml_a_junit_consumer_reads() {
    let setup = Setup::new();
    let assert = setup.check(&["--format", "junit", "--fail-on", "warning"]).code(1);
    let xml = stdout(&assert);
    let document = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let suites = document.root_element();
    assert_eq!(suites.tag_name().name(), "testsuites");
    let suite = suites
        .children()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("one testsuite");
    let cases: Vec<_> = suite.children().filter(|n| n.has_tag_name("testcase")).collect();
    assert_eq!(suite.attribute("tests").unwrap().parse::<usize>().unwrap(), cases.len());
    let failures = cases
        .iter()
        .flat_map(|case| case.children())
        .filter(|n| n.has_tag_name("failure"))
        .count();
    assert_eq!(suite.attribute("failures").unwrap().parse::<usize>().unwrap(), failures);
    let site = cases
        .iter()
        .find(|case| case.attribute("name") == Some("site-old-torch-on-hopper"))
        .unwrap();
    assert_eq!(site.attribute("classname"), Some("envdoctor.rule"));
    let failure = site
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("a warning fails at --fail-on warning");
    assert!(
        failure
            .text()
            .unwrap()
            .contains(&format!("Fix: {SITE_FIX}\nNote: {SITE_NOTE}"))
    );

    // Below the threshold the same finding is output, not a failure.
    let xml = stdout(&setup.check(&["--format", "junit", "--fail-on", "error"]));
    let document = roxmltree::Document::parse(&xml).unwrap();
    let site = document
        .descendants()
        .find(|n| n.attribute("name") == Some("site-old-torch-on-hopper"))
        .unwrap();
    assert!(site.children().all(|n| !n.has_tag_name("failure")));
    assert!(site.children().any(|n| n.has_tag_name("system-out")));
}

#[test]
fn markdown_has_a_verdict_a_table_and_each_finding_with_its_fix() {
    use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
    let setup = Setup::new();
    let markdown = stdout(&setup.check(&["--format", "markdown", "--fail-on", "warning"]));
    let mut headings = Vec::new();
    let mut in_heading = false;
    let mut table_rows = 0;
    let mut code_blocks = Vec::new();
    let mut in_code = false;
    for event in Parser::new_ext(&markdown, pulldown_cmark::Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                headings.push(String::new());
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::TableRow) => table_rows += 1,
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                in_code = true;
                code_blocks.push(String::new());
            }
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(text) | Event::Code(text) if in_heading => headings.last_mut().unwrap().push_str(&text),
            Event::Text(text) if in_code => code_blocks.last_mut().unwrap().push_str(&text),
            _ => {}
        }
    }
    assert_eq!(headings[0], "envdoctor check: FAIL");
    assert!(
        headings.iter().any(|h| h.contains("site-old-torch-on-hopper")),
        "{headings:?}"
    );
    assert!(table_rows >= 1, "a row per finding");
    assert!(
        code_blocks.iter().any(|code| code.trim() == SITE_FIX),
        "{code_blocks:?}"
    );
}

#[test]
fn text_groups_by_severity_and_ends_with_the_verdict() {
    let setup = Setup::new();
    let text = stdout(&setup.check(&[]));
    assert!(text.contains("Warnings ("), "{text}");
    assert!(text.contains("[site-old-torch-on-hopper]"));
    assert!(text.contains(&format!("fix       {SITE_FIX}\n")), "{text}");
    assert!(text.contains(&format!("note      {}", &SITE_NOTE[..40])), "{text}");
    assert!(text.contains("see       https://example.org/site-policy"));
    // The verdict is the last paragraph, however many lines the width makes of it.
    let last = text.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("PASS: ") || last.starts_with("FAIL: "), "{last}");
}

#[test]
fn an_ignored_finding_is_set_aside_with_its_reason() {
    let setup = Setup::new();
    let report = report(&setup.check(&[
        "--format",
        "json",
        "--ignore",
        "site-old-torch-on-hopper=upgrading in Q3",
    ]));
    assert!(!ids(&report).contains(&"site-old-torch-on-hopper"));
    assert_eq!(report.ignored.len(), 1);
    assert_eq!(report.ignored[0].reason.as_deref(), Some("upgrading in Q3"));
    assert_eq!(report.summary.ignored, 1);
}

#[test]
fn an_ignore_that_matches_nothing_is_reported() {
    let setup = Setup::new();
    let report = report(&setup.check(&["--format", "json", "--ignore", "site-old-torch-on-hoper"]));
    let unmatched = report
        .findings
        .iter()
        .find(|f| f.id == "ignore-unmatched")
        .expect("reported");
    assert_eq!(unmatched.severity.as_str(), "warning", "an unknown id is likely a typo");
    assert!(unmatched.detail.contains("site-old-torch-on-hoper"));
}

#[test]
fn ignores_are_read_from_envdoctor_toml_and_need_a_reason() {
    let setup = Setup::new();
    common::write_file(
        &setup.path("envdoctor.toml"),
        "[[ignore]]\nid = \"site-old-torch-on-hopper\"\nreason = \"ticket OPS-1\"\n",
    );
    let report = report(&setup.check(&["--format", "json"]));
    assert_eq!(report.ignored[0].reason.as_deref(), Some("ticket OPS-1"));

    common::write_file(
        &setup.path("envdoctor.toml"),
        "[[ignore]]\nid = \"site-old-torch-on-hopper\"\n",
    );
    let assert = setup.check(&["--format", "json"]).code(2);
    let error = stderr(&assert);
    assert!(
        error.contains("envdoctor.toml:1:1") && error.contains("needs a `reason`"),
        "{error}"
    );
}

#[test]
fn a_deepspeed_config_settles_a_config_rule() {
    let setup = Setup::new();
    common::write_file(
        &setup.path("site/rules/site-zero3-offload.toml"),
        r#"
id = "site-zero3-offload"
title = "ZeRO-3 with CPU offload is not allowed here"
severity = "error"
message = "torch {package.torch} with {config}."
why = "Site policy."
fix = "use ZeRO-2"
references = ["https://example.org/policy"]
checked = "2026-11-21"
[when]
packages = { torch = "*" }
[when.deepspeed_config]
zero_stage = [3]
offload_optimizer_device = ["cpu"]
"#,
    );
    let unsettled = report(&setup.check(&["--format", "json"]));
    let finding = unsettled
        .findings
        .iter()
        .find(|f| f.id == "site-zero3-offload")
        .unwrap();
    assert_eq!(finding.severity.as_str(), "warning", "lowered: no config was given");
    assert!(finding.unsettled.as_deref().unwrap().contains("--deepspeed-config"));

    common::write_file(
        &setup.path("ds_z3.json"),
        r#"{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": "auto"}}"#,
    );
    let config = setup.path("ds_z3.json");
    let settled = report(&setup.check(&["--format", "json", "--deepspeed-config", config.to_str().unwrap()]));
    let finding = settled.findings.iter().find(|f| f.id == "site-zero3-offload").unwrap();
    assert_eq!(
        (finding.severity.as_str(), finding.unsettled.as_deref()),
        ("error", None)
    );
    assert!(finding.detail.contains("ds_z3.json"), "{}", finding.detail);
    assert_eq!(settled.configs.deepspeed.as_deref(), Some(config.as_path()));

    common::write_file(&setup.path("ds_z2.json"), r#"{"zero_optimization": {"stage": 2}}"#);
    let stage2 = setup.path("ds_z2.json");
    let quiet = report(&setup.check(&["--format", "json", "--deepspeed-config", stage2.to_str().unwrap()]));
    assert!(!ids(&quiet).contains(&"site-zero3-offload"));
}

#[test]
fn the_accelerate_default_config_is_read_when_probing_this_node() {
    let setup = Setup::new();
    // `envdoctor()` points XDG_CACHE_HOME at the test's cache, where accelerate looks too.
    common::write_file(
        &setup.path("cache/huggingface/accelerate/default_config.yaml"),
        "distributed_type: MULTI_GPU\nnum_processes: 4\nmixed_precision: bf16\n",
    );
    let python = common::system_python();
    let assert = common::envdoctor(&setup.path("cache"))
        .current_dir(setup.dir.path())
        .env_remove("HF_HOME")
        .args(["check", "--no-smoke", "--format", "json", "--python"])
        .arg(python)
        .assert();
    let live = report(&assert);
    let read = live.configs.accelerate.expect("the default file was read");
    assert!(read.ends_with("huggingface/accelerate/default_config.yaml"), "{read:?}");

    // A recorded Snapshot is another node: this node's default file says nothing about it.
    let replay = report(&setup.check(&["--format", "json"]));
    assert!(replay.configs.accelerate.is_none());
}

/// Bad input: exit 2, one line on stderr naming the file and place, nothing on stdout.
fn one_line_error(assert: assert_cmd::assert::Assert) -> String {
    let assert = assert.code(2);
    assert!(stdout(&assert).is_empty(), "nothing on stdout");
    let error = stderr(&assert);
    assert_eq!(error.lines().count(), 1, "one line: {error}");
    assert!(!error.contains("panicked"), "{error}");
    error
}

#[test]
fn bad_configs_and_matrices_are_one_line_errors() {
    let setup = Setup::new();
    common::write_file(&setup.path("bad.json"), "{\"zero_optimization\": {\"stage\": 3,}\n");
    let bad = setup.path("bad.json");
    let error = one_line_error(setup.check(&["--deepspeed-config", bad.to_str().unwrap()]));
    assert!(error.contains("bad.json:1:") && error.contains("not JSON"), "{error}");

    let missing = setup.path("missing.json");
    let error = one_line_error(setup.check(&["--deepspeed-config", missing.to_str().unwrap()]));
    assert!(error.contains("missing.json"), "{error}");

    common::write_file(
        &setup.path("accelerate.yaml"),
        "distributed_type: MULTI_GPU\n  num_processes: 2\n",
    );
    let yaml = setup.path("accelerate.yaml");
    let error = one_line_error(setup.check(&["--accelerate-config", yaml.to_str().unwrap()]));
    assert!(error.contains("accelerate.yaml:2:"), "{error}");

    let broken = SITE_RULE
        .replace("site-old-torch-on-hopper", "broken")
        .replace("\"warning\"", "\"fatal\"");
    common::write_file(
        &setup.path("site/rules/broken.toml"),
        broken.replace("[when]", "bogus = 1\n[when]"),
    );
    let error = one_line_error(setup.check(&[]));
    assert!(error.contains("broken.toml:4:12: severity `fatal`"), "{error}");
    assert!(error.contains("(and 1 more); hint: `envdoctor matrix lint "), "{error}");
}

#[test]
fn a_matrix_of_a_newer_format_is_refused() {
    let setup = Setup::new();
    common::write_file(&setup.path("site/matrix.toml"), "format = \"2.0.0\"\n");
    let error = one_line_error(setup.check(&[]));
    assert!(
        error.contains("matrix.toml:1:10") && error.contains("upgrade envdoctor"),
        "{error}"
    );
}

#[test]
fn matrix_lint_reports_every_problem_in_every_file_with_its_place() {
    let setup = Setup::new();
    common::write_file(
        &setup.path("lint/rules/two-problems.toml"),
        "id = \"two-problems\"\ntitle = \"t\"\nseverity = \"error\"\nmessage = \"{nope}\"\nwhy = \"w\"\nfix = \"f\"\n\
         references = [\"http://insecure\"]\n[when]\npython = \">=3.x\"\n",
    );
    common::write_file(&setup.path("lint/rules/wrong-name.toml"), SITE_RULE);
    let text = lint_reports(
        &setup,
        &[
            "two-problems.toml:1:1: missing required key `checked`",
            "two-problems.toml:4:11: unknown placeholder `{nope}`",
            "two-problems.toml:7:14: reference `http://insecure` must be an https:// URL",
            "two-problems.toml:9:10: `python` is not a PEP 440 specifier set",
            "wrong-name.toml:2:6: id `site-old-torch-on-hopper` must equal the file name `wrong-name`",
        ],
    );
    assert!(
        text.lines().last().unwrap().ends_with("5 problems in 2 files"),
        "{text}"
    );
}

#[test]
fn matrix_lint_refuses_a_symptom_confirmed_by_an_unknown_finding_or_generalizing_no_rule() {
    let setup = Setup::new();
    common::write_file(
        &setup.path("lint/symptoms/oom.toml"),
        "id = \"oom\"\ntitle = \"t\"\nwhy = \"w\"\nfix = \"f\"\nreferences = [\"https://example.org\"]\n\
         checked = \"2026-11-21\"\n[symptoms]\nmessages = [\"CUDA out of memory\"]\nconfirmed_by = [\"gpu-too-small\"]\n\
         reported = [\"https://example.org/1\"]\n",
    );
    common::write_file(
        &setup.path("lint/symptoms/bnb.toml"),
        "id = \"bnb\"\ntitle = \"t\"\nwhy = \"w\"\nfix = \"f\"\nreferences = [\"https://example.org\"]\n\
         checked = \"2026-11-21\"\n[symptoms]\nmessages = [\"CUDA Setup failed\"]\ngeneralizes = [\"no-such-rule\"]\n\
         reported = [\"https://example.org/1\"]\n",
    );
    lint_reports(
        &setup,
        &[
            "oom.toml:9:16: `gpu-too-small` in symptoms.confirmed_by is no finding explain can test on the node",
            "bnb.toml:1:1: symptoms.generalizes names `no-such-rule`, which is no rule of this matrix",
        ],
    );
}

/// `matrix lint` of the setup's `lint` directory: it fails, and says each of `expected`.
fn lint_reports(setup: &Setup, expected: &[&str]) -> String {
    let assert = common::envdoctor(&setup.path("cache"))
        .arg("matrix")
        .arg("lint")
        .arg(setup.path("lint"))
        .assert();
    let text = stdout(&assert.code(1));
    for expected in expected {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    text
}

#[test]
fn the_repository_matrix_lints_clean_and_every_rule_explains_itself() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cache = tempfile::tempdir().unwrap();
    let lint = common::envdoctor(cache.path())
        .args(["matrix", "lint"])
        .arg(root.join("compat-matrix"))
        .assert();
    assert!(stdout(&lint.success()).contains("no problems"));

    let list = common::envdoctor(cache.path())
        .args(["matrix", "list", "--format", "json"])
        .assert()
        .success();
    let document: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert_eq!(document["schema"], "envdoctor.matrix-list/1");
    let listed = document["entries"].as_array().unwrap();
    // How current the knowledge is: each rule's and symptom entry's check date,
    // and the newest release of every package the rules name.
    for item in listed
        .iter()
        .filter(|item| item["kind"] == "rule" || item["kind"] == "symptom")
    {
        let checked = item["checked"].as_str().unwrap_or_default();
        assert!(envdoctor::calendar::Date::parse(checked).is_some(), "{item}");
    }
    let torch = listed
        .iter()
        .find(|item| item["kind"] == "package" && item["id"] == "torch")
        .expect("torch's newest release is listed");
    assert!(
        torch["newest"].as_str().is_some() && torch["released"].as_str().is_some(),
        "{torch}"
    );
    let text = stdout(
        &common::envdoctor(cache.path())
            .args(["matrix", "list"])
            .assert()
            .success(),
    );
    assert!(
        text.contains("Newest release of each package the rules name (PyPI, read "),
        "{text}"
    );
    assert!(text.contains("Sources last checked between "), "{text}");
    // Issue 20: the counts `check` gives are the ones `matrix list` gives.
    let checks = listed.iter().filter(|item| item["kind"] == "check").count();
    let heading = format!(
        "Built-in checks ({checks}; `check --no-smoke` evaluates {}, without smoke-test)",
        checks - 1
    );
    assert!(text.contains(&heading), "{text}");
    let rules = listed.iter().filter(|item| item["kind"] == "rule").count();
    let in_force = listed
        .iter()
        .filter(|item| item["kind"] == "rule" && item["withdrawn"] == false)
        .count();
    assert!(
        text.contains(&format!(
            "Rules ({rules}; `check` evaluates {in_force}, not the {} withdrawn)",
            rules - in_force
        )),
        "{text}"
    );
    let check = stdout(
        &common::envdoctor(cache.path())
            .args(["check", "--no-smoke", "--snapshot"])
            .arg(root.join("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json"))
            .assert()
            .success(),
    );
    let counts = format!(
        "{in_force} rules and {} of {checks} checks (not run: smoke-test) evaluated",
        checks - 1
    );
    assert!(check.contains(&counts), "{check}");
    for item in listed.iter().filter(|item| item["kind"] != "package") {
        let id = item["id"].as_str().unwrap();
        let explain = common::envdoctor(cache.path())
            .args(["matrix", "explain", id])
            .assert()
            .success();
        assert!(stdout(&explain).starts_with(id), "{id}");
    }
    one_line_error(
        common::envdoctor(cache.path())
            .args(["matrix", "explain", "no-such-rule"])
            .assert(),
    );
}

#[test]
fn matrix_lint_reads_the_tables_and_a_site_matrix_cannot_bring_its_own() {
    let setup = Setup::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let gpus = std::fs::read_to_string(root.join("compat-matrix/tables/gpus.toml")).unwrap();
    common::write_file(
        &setup.path("copy/tables/gpus.toml"),
        gpus.replacen("compute_capability = \"", "compute_capability = \"x", 1),
    );
    let assert = common::envdoctor(&setup.path("cache"))
        .arg("matrix")
        .arg("lint")
        .arg(setup.path("copy"))
        .assert();
    let text = stdout(&assert.code(1));
    assert!(text.contains("copy/tables/gpus.toml:"), "{text}");

    common::write_file(&setup.path("site/tables/gpus.toml"), gpus);
    let error = one_line_error(setup.check(&[]));
    assert!(
        error.contains("site/tables:1:1: a site matrix adds rules only"),
        "{error}"
    );
}

/// Issue 20 D10: a path (or any input) quoted in an error cannot forge a
/// second `envdoctor: error:` line or send terminal escapes.
#[test]
fn input_quoted_in_an_error_stays_one_escaped_line() {
    let cache = tempfile::tempdir().unwrap();
    let forged = "nope\nenvdoctor: error: forged\x1b[31m";
    let assert = common::envdoctor(cache.path())
        .args(["check", "--no-smoke", "--snapshot", forged])
        .assert();
    let error = one_line_error(assert);
    assert!(!error.contains('\x1b'), "{error:?}");
    assert!(error.contains("nope\\nenvdoctor: error: forged\\x1b[31m"), "{error}");
}

/// Keeps, in each object, only the keys named; `"*"` keeps a key's value whole.
fn keep(value: &mut Value, shape: &Value) {
    match (value, shape) {
        (Value::Object(map), Value::Object(kept)) => {
            map.retain(|key, _| kept.contains_key(key));
            for (key, item) in map.iter_mut() {
                keep(item, &kept[key]);
            }
        }
        (Value::Array(items), Value::Array(shapes)) => {
            for item in items {
                keep(item, &shapes[0]);
            }
        }
        _ => {}
    }
}

/// The recorded H100's Snapshot with only the keys DESIGN.md's public
/// contract lists; everything else a reader must take as optional.
fn contract_snapshot() -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json")).unwrap();
    let mut snapshot: Value = serde_json::from_str(&text).unwrap();
    let whole = Value::from("*");
    let shape = serde_json::json!({
        "schema": whole, "envdoctor_version": whole, "system": {},
        "python": {"executable": whole, "version": whole, "prefix": whole, "site_packages": whole},
        "packages": [{"name": whole, "version": whole, "location": whole, "installer": whole, "source": whole}],
        "nvidia": {"driver_version": whole, "cuda_driver_version": whole, "gpus": [{
            "index": whole, "name": whole, "uuid": whole, "pci_bus_id": whole,
            "compute_capability": whole, "memory_total_mib": whole}]},
        "nvidia_error": whole, "cuda": {"toolkits": whole}, "frameworks": whole, "env": whole,
    });
    keep(&mut snapshot, &shape);
    snapshot
}

/// Issue 20: a Snapshot and a check report holding only the public contract's
/// keys are read by every command that reads them; every other key is optional.
#[test]
fn documents_with_only_the_contract_keys_are_read_by_every_command() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path();
    let snapshot = dir.join("minimal.json");
    std::fs::write(&snapshot, serde_json::to_vec(&contract_snapshot()).unwrap()).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        let output = common::envdoctor(dir).args(args).output().unwrap();
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    };
    let os = |text: &'static str| std::ffi::OsStr::new(text);
    let check = [
        os("check"),
        os("--no-smoke"),
        os("--format"),
        os("json"),
        os("--snapshot"),
    ];
    let report: Value = serde_json::from_slice(&run(&[&check[..], &[snapshot.as_os_str()]].concat())).unwrap();
    let lock = dir.join("minimal.lock");
    run(&[
        os("lock"),
        os("--snapshot"),
        snapshot.as_os_str(),
        os("-o"),
        lock.as_os_str(),
    ]);
    run(&[
        os("verify"),
        os("--lock"),
        lock.as_os_str(),
        os("--snapshot"),
        snapshot.as_os_str(),
    ]);
    run(&[os("diff"), snapshot.as_os_str(), lock.as_os_str()]);
    run(&[
        os("export"),
        os("--lock"),
        lock.as_os_str(),
        os("--format"),
        os("requirements"),
    ]);
    let log = dir.join("train.log");
    std::fs::write(&log, "RuntimeError: CUDA error: out of memory\n").unwrap();
    run(&[os("explain"), log.as_os_str(), os("--snapshot"), snapshot.as_os_str()]);

    let mut minimal_report = report;
    let whole = Value::from("*");
    let finding = serde_json::json!({"id": whole, "severity": whole, "title": whole, "detail": whole,
        "fix": whole, "references": whole});
    let shape = serde_json::json!({"schema": whole, "snapshot": whole, "findings": [finding], "summary": whole,
        "smoke": {"steps": [{"name": whole, "status": whole, "duration_ms": whole, "detail": whole}]}});
    keep(&mut minimal_report, &shape);
    minimal_report["findings"] = serde_json::json!([{"id": "site-finding", "severity": "warning",
        "title": "t", "detail": "d", "fix": null, "references": []}]);
    let reports = dir.join("reports");
    std::fs::create_dir(&reports).unwrap();
    std::fs::write(reports.join("a.json"), serde_json::to_vec(&minimal_report).unwrap()).unwrap();
    std::fs::copy(&snapshot, reports.join("b.json")).unwrap();
    let fleet = String::from_utf8(run(&[os("fleet"), reports.as_os_str()])).unwrap();
    assert!(fleet.contains("site-finding"), "{fleet}");
}

fn make_fifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Issue 20 D9: a FIFO or a device where a file is expected is refused at
/// once with one line, never waited on or read without end.
#[test]
fn a_fifo_or_a_device_given_as_a_file_is_refused_without_hanging() {
    let setup = Setup::new();
    let fifo = setup.path("node.json");
    make_fifo(&fifo);
    let cache = setup.path("cache");
    let timeout = std::time::Duration::from_secs(60);
    for (flag, path) in [
        ("--snapshot", fifo.as_path()),
        ("--snapshot", Path::new("/dev/zero")),
        ("--deepspeed-config", fifo.as_path()),
    ] {
        let mut command = common::envdoctor(&cache);
        command
            .args(["check", "--no-smoke"])
            .arg(flag)
            .arg(path)
            .timeout(timeout);
        if flag != "--snapshot" {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            command
                .arg("--snapshot")
                .arg(root.join("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json"));
        }
        let error = one_line_error(command.assert());
        assert!(
            error.contains("not a regular file"),
            "{flag} {}: {error}",
            path.display()
        );
    }
    let rules = setup.path("matrix/rules");
    std::fs::create_dir_all(&rules).unwrap();
    make_fifo(&rules.join("stuck.toml"));
    let output = common::envdoctor(&cache)
        .args(["matrix", "lint"])
        .arg(setup.path("matrix"))
        .timeout(timeout)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("not a regular file (a FIFO)"), "{text}");
}

/// The golden-outputs helper found that a node whose clock ran a day behind
/// the newest `checked` date could not run `check` at all (exit 2). A date
/// after today is a typo `matrix lint` reports; reading ignores the clock.
#[test]
fn a_rule_checked_after_today_is_linted_but_still_read() {
    let setup = Setup::new();
    let future = SITE_RULE.replace("checked = \"2026-11-21\"", "checked = \"2999-01-01\"");
    common::write_file(&setup.path("site/rules/site-old-torch-on-hopper.toml"), &future);
    let check = setup.check(&["--no-smoke", "--format", "json"]).success();
    let report: Report = serde_json::from_slice(&check.get_output().stdout).unwrap();
    assert!(
        report
            .findings
            .iter()
            .any(|finding| finding.id == "site-old-torch-on-hopper")
    );
    let lint = common::envdoctor(&setup.path("cache"))
        .args(["matrix", "lint"])
        .arg(setup.path("site"))
        .assert()
        .code(1);
    let text = stdout(&lint);
    assert!(
        text.contains("rules/site-old-torch-on-hopper.toml:10:1: `checked` = `2999-01-01` is after today"),
        "{text}"
    );
}
