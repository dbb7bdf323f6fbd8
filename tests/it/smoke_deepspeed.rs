//! `envdoctor smoke --deep` through DeepSpeed's ZeRO runs, on a machine without
//! a GPU: the built-in ZeRO-3 and ZeRO-2 offload runs, the job's own DeepSpeed
//! config (HF Trainer style, full of "auto") or accelerate config, a config
//! DeepSpeed refuses, and the known bug of DeepSpeed 0.14.1-0.14.2 (ZeRO-3 with
//! the optimizer offloaded to the CPU fails in `unscale_and_clip_grads` as soon
//! as it clips) reported under its rule's id.
//!
//! Each test installs a fresh virtual environment with the stand-in torch of
//! tests/fixtures/smoke/working_gpu (one emulated H100) and the stand-in
//! DeepSpeed of tests/fixtures/smoke/deepspeed at the release it needs, as pip
//! would install it: the package, the `git_version_info_installed.py` DeepSpeed's
//! setup.py writes, and a `deepspeed-X.Y.Z.dist-info` with METADATA, WHEEL,
//! INSTALLER and RECORD. envdoctor does not know they are stand-ins; the
//! stand-in DeepSpeed writes each config `deepspeed.initialize` is given to the
//! file $STANDIN_DEEPSPEED_RECORD names, so that a test can tell what ran.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::smoke::{copy_tree, fixture, only_finding, step, text};
use common::{create_venv, envdoctor, site_packages, write_file};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const RULE: &str = "deepspeed-zero3-offload-device-mismatch";
/// The clipping the ZeRO steps force, far below any gradient norm (deepspeed_config.FORCED_CLIPPING).
const FORCED_CLIPPING: f64 = 1e-6;

/// A virtual environment with the stand-in torch and DeepSpeed `version`, and a
/// directory for envdoctor's cache and the test's own files.
struct Node {
    directory: tempfile::TempDir,
    python: PathBuf,
}

impl Node {
    fn new(version: &str) -> Node {
        let directory = tempfile::tempdir().unwrap();
        let python = create_venv(&directory.path().join("venv"), false);
        let site = site_packages(&python);
        copy_tree(&fixture("working_gpu/torch"), &site.join("torch"));
        install_deepspeed(&site, version);
        Node { directory, python }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.directory.path().join(name)
    }

    /// The file the stand-in DeepSpeed appends each config `initialize` got to.
    fn record(&self) -> PathBuf {
        self.path("initialized.jsonl")
    }

    /// `envdoctor smoke --python VENV --format json ARGUMENTS...`: the exit code and the report.
    fn smoke(&self, arguments: &[&str]) -> (i32, Value) {
        self.smoke_with(arguments.iter().map(OsStr::new))
    }

    fn smoke_with<'a>(&self, arguments: impl IntoIterator<Item = &'a OsStr>) -> (i32, Value) {
        let output = envdoctor(&self.path("cache"))
            .arg("smoke")
            .arg("--python")
            .arg(&self.python)
            .args(["--format", "json"])
            .args(arguments)
            .env("STANDIN_DEEPSPEED_RECORD", self.record())
            // accelerate's default config would otherwise stand for the job's.
            .env_remove("HF_HOME")
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        let code = output
            .status
            .code()
            .unwrap_or_else(|| panic!("envdoctor ended by {:?}\n{stdout}", output.status));
        let report: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("{error}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
        assert_eq!(report["schema"], "envdoctor.smoke/1", "{report:#}");
        (code, report)
    }

    /// Every config `deepspeed.initialize` was given, in order; none if it never ran.
    fn initialized(&self) -> Vec<Value> {
        match std::fs::read_to_string(self.record()) {
            Ok(text) => text.lines().map(|line| serde_json::from_str(line).unwrap()).collect(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(error) => panic!("{error}"),
        }
    }
}

/// Every file under `directory`, as paths relative to it, sorted.
fn files_under(directory: &Path, prefix: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(directory.join(prefix)).unwrap() {
        let entry = entry.unwrap();
        let relative = prefix.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            files.extend(files_under(directory, &relative));
        } else {
            files.push(relative);
        }
    }
    files.sort();
    files
}

/// Urlsafe base64 without padding, as a RECORD writes a digest (PEP 376, PEP 427).
fn urlsafe_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut text = String::new();
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |word, (at, &byte)| word | (u32::from(byte) << (16 - 8 * at)));
        for at in 0..=chunk.len() {
            text.push(ALPHABET[(word >> (18 - 6 * at) & 63) as usize] as char);
        }
    }
    text
}

/// The stand-in DeepSpeed at `version` in `site`, as `pip install deepspeed==VERSION`
/// with `DS_BUILD_CPU_ADAM=1` leaves it: cpu_adam prebuilt for CUDA, the rest
/// to be JIT-built.
fn install_deepspeed(site: &Path, version: &str) {
    copy_tree(&fixture("deepspeed/deepspeed"), &site.join("deepspeed"));
    // As DeepSpeed's setup.py writes it (one `name=repr` per line).
    write_file(
        &site.join("deepspeed/git_version_info_installed.py"),
        format!(
            "version='{version}'\ngit_hash='unknown'\ngit_branch='unknown'\n\
             installed_ops={{'async_io': False, 'cpu_adam': 1, 'fused_adam': False}}\n\
             accelerator_name='cuda'\n\
             torch_info={{'version': '2.5', 'bf16_support': True, 'cuda_version': '12.4', \
             'nccl_version': '2.21', 'hip_version': '0.0'}}\n"
        ),
    );
    let dist_info = PathBuf::from(format!("deepspeed-{version}.dist-info"));
    write_file(
        &site.join(&dist_info).join("METADATA"),
        format!("Metadata-Version: 2.1\nName: deepspeed\nVersion: {version}\nSummary: DeepSpeed library\n"),
    );
    write_file(
        &site.join(&dist_info).join("WHEEL"),
        "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    );
    write_file(&site.join(&dist_info).join("INSTALLER"), "pip\n");
    let mut record = String::new();
    for relative in files_under(site, Path::new("deepspeed"))
        .into_iter()
        .chain(files_under(site, &dist_info))
    {
        let bytes = std::fs::read(site.join(&relative)).unwrap();
        record.push_str(&format!(
            "{},sha256={},{}\n",
            relative.display(),
            urlsafe_base64(&Sha256::digest(&bytes)),
            bytes.len()
        ));
    }
    record.push_str(&format!("{}/RECORD,,\n", dist_info.display()));
    write_file(&site.join(&dist_info).join("RECORD"), record);
}

/// The names of the DeepSpeed steps, in order.
fn deepspeed_steps(report: &Value) -> Vec<&str> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["name"].as_str().unwrap())
        .filter(|name| name.starts_with("deepspeed."))
        .collect()
}

fn status<'a>(report: &'a Value, name: &str) -> &'a str {
    text(&step(report, name)["status"])
}

/// Where in `value` a string "auto" is left, as dotted paths.
fn autos(value: &Value, at: &str) -> Vec<String> {
    match value {
        Value::String(text) if text.eq_ignore_ascii_case("auto") => vec![at.to_string()],
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, item)| autos(item, &format!("{at}.{key}")))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .flat_map(|(index, item)| autos(item, &format!("{at}[{index}]")))
            .collect(),
        _ => Vec::new(),
    }
}

/// The reproduced bug, reported under the rule's id with its fix and the step it broke.
fn assert_reproduced(report: &Value, step_name: &str) {
    let finding = only_finding(report, RULE);
    assert_eq!(finding["severity"], "error", "{finding:#}");
    let fix = text(&finding["fix"]);
    assert!(
        fix.ends_with(r#"/bin/python' -m pip install "deepspeed>=0.14.4""#),
        "{finding:#}"
    );
    let detail = text(&finding["detail"]);
    assert!(
        detail.starts_with(&format!("The smoke test reproduced it: step `{step_name}`")),
        "{detail}"
    );
    assert!(detail.contains(&format!("{RULE} (near-certain)")), "{detail}");
    // The traceback ends where the real one does (the recorded H100 run of 0.14.2).
    let error = &step(report, step_name)["error"];
    assert_eq!(error["type"], "RuntimeError", "{error:#}");
    assert_eq!(
        error["message"],
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    );
    let traceback = text(&error["traceback"]);
    let frame = traceback
        .lines()
        .position(|line| {
            line.contains("deepspeed/runtime/zero/stage3.py") && line.ends_with("in unscale_and_clip_grads")
        })
        .unwrap_or_else(|| panic!("no unscale_and_clip_grads frame: {traceback}"));
    assert!(
        traceback
            .lines()
            .take(frame)
            .any(|line| line.contains("deepspeed/runtime/zero/stage3.py") && line.ends_with("in step")),
        "unscale_and_clip_grads is called from stage3.py `step`: {traceback}"
    );
}

#[test]
fn deepspeed_0_14_2_fails_the_zero3_offload_run_and_the_finding_is_the_rule_s() {
    let node = Node::new("0.14.2");
    let (code, report) = node.smoke(&["--deep"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["ending"], "completed", "{report:#}");
    assert_eq!(
        deepspeed_steps(&report),
        ["deepspeed.ops", "deepspeed.zero3", "deepspeed.zero2"],
        "{report:#}"
    );
    let ops = step(&report, "deepspeed.ops");
    assert_eq!(ops["status"], "pass", "{report:#}");
    assert_eq!(ops["figures"]["version"], "0.14.2", "{report:#}");
    assert_eq!(ops["figures"]["installed"], json!(["cpu_adam"]), "{report:#}");
    assert_eq!(status(&report, "deepspeed.zero3"), "fail", "{report:#}");
    assert_eq!(status(&report, "deepspeed.zero2"), "pass", "{report:#}");
    assert_reproduced(&report, "deepspeed.zero3");

    // What ran: ZeRO-3 with both offloads and bf16 (the emulated H100 has it),
    // clipping forced; ZeRO-2 with fp16 loss scaling. Without the forced
    // clipping 0.14.2 would train (see the_stand_in_0_14_2_breaks_only_when_it_clips).
    let initialized = node.initialized();
    assert_eq!(initialized.len(), 2, "{initialized:#?}");
    let zero3 = &initialized[0];
    assert_eq!(zero3["gradient_clipping"], FORCED_CLIPPING, "{zero3:#}");
    assert_eq!(zero3["zero_optimization"]["stage"], 3, "{zero3:#}");
    assert_eq!(
        zero3["zero_optimization"]["offload_optimizer"]["device"], "cpu",
        "{zero3:#}"
    );
    assert_eq!(
        zero3["zero_optimization"]["offload_param"]["device"], "cpu",
        "{zero3:#}"
    );
    assert_eq!(zero3["bf16"]["enabled"], true, "{zero3:#}");
    let zero2 = &initialized[1];
    assert_eq!(zero2["zero_optimization"]["stage"], 2, "{zero2:#}");
    assert_eq!(
        zero2["zero_optimization"]["offload_optimizer"]["device"], "cpu",
        "{zero2:#}"
    );
    assert_eq!(zero2["fp16"]["enabled"], true, "{zero2:#}");
    assert_eq!(zero2["gradient_clipping"], FORCED_CLIPPING, "{zero2:#}");
    // The step's figures say what it ran, which the rule's config condition is judged by.
    let figures = &step(&report, "deepspeed.zero3")["figures"];
    assert_eq!(figures["zero_stage"], 3, "{figures:#}");
    assert_eq!(figures["offload_optimizer_device"], "cpu", "{figures:#}");
    assert_eq!(figures["config"], "built-in", "{figures:#}");
}

#[test]
fn deepspeed_0_14_0_and_0_14_3_train_both_zero_runs_clipping_at_every_step() {
    for version in ["0.14.0", "0.14.3"] {
        let node = Node::new(version);
        let (code, report) = node.smoke(&["--deep"]);
        assert_eq!(code, 0, "{version}: {report:#}");
        assert_eq!(report["findings"], json!([]), "{version}: {report:#}");
        assert_eq!(
            deepspeed_steps(&report),
            ["deepspeed.ops", "deepspeed.zero3", "deepspeed.zero2"],
            "{version}: {report:#}"
        );
        for name in ["deepspeed.ops", "deepspeed.zero3", "deepspeed.zero2"] {
            assert_eq!(status(&report, name), "pass", "{version} {name}: {report:#}");
        }
        for name in ["deepspeed.zero3", "deepspeed.zero2"] {
            let figures = &step(&report, name)["figures"];
            assert_eq!(figures["version"], version, "{name}: {figures:#}");
            // Three steps update the weights; the fp16 run's first ones overflow
            // while DeepSpeed's loss scale comes down from 2**32, as on an H200.
            let skipped = figures["skipped_steps"].as_u64().unwrap();
            assert_eq!(skipped > 0, name == "deepspeed.zero2", "{version} {name}: {figures:#}");
            assert_eq!(
                figures["optimizer_steps"].as_u64().unwrap(),
                skipped + 3,
                "{version} {name}: {figures:#}"
            );
            let detail = step(&report, name)["detail"].as_str().unwrap();
            let said = format!(
                "{} optimizer steps ({skipped} skipped by the fp16 loss scaler",
                skipped + 3
            );
            assert_eq!(detail.contains(&said), skipped > 0, "{detail}");
            assert_eq!(
                figures["optimizer"], "DeepSpeedCPUAdam",
                "{version} {name}: {figures:#}"
            );
            assert_eq!(
                figures["master_weights_device"],
                json!(["cpu"]),
                "{version} {name}: {figures:#}"
            );
            // Every step clipped: the norm is above the forced clipping.
            let norm = figures["gradient_norm"].as_f64().unwrap();
            assert!(norm > FORCED_CLIPPING, "{version} {name}: {figures:#}");
            assert!(figures["loss"].as_f64().unwrap().is_finite(), "{figures:#}");
        }
        let zero3 = &step(&report, "deepspeed.zero3")["figures"];
        assert_eq!(zero3["partitioned_parameters"], 4, "{zero3:#}");
        assert_eq!(zero3["precision"], "bf16", "{zero3:#}");
        assert_eq!(
            step(&report, "deepspeed.zero2")["figures"]["precision"],
            "fp16 with loss scaling"
        );
        let initialized = node.initialized();
        assert_eq!(initialized.len(), 2, "{version}: {initialized:#?}");
        assert_eq!(initialized[0]["gradient_clipping"], FORCED_CLIPPING);
    }
}

/// An HF Trainer ZeRO-3 offload config as the transformers documentation gives
/// it, shared with tests/smoke_script/test_deepspeed_config.py.
fn trainer_zero3() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/configs/ds-trainer-zero3-offload-all-auto.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_job_s_trainer_config_runs_with_its_autos_filled_and_reproduces_the_bug_on_0_14_2() {
    for version in ["0.14.2", "0.14.3"] {
        let node = Node::new(version);
        let config = node.path("ds_zero3_offload.json");
        write_file(&config, serde_json::to_string_pretty(&trainer_zero3()).unwrap());
        let (code, report) = node.smoke_with([
            OsStr::new("--deep"),
            OsStr::new("--deepspeed-config"),
            config.as_os_str(),
        ]);
        // The job's config replaces the built-in runs.
        assert_eq!(
            deepspeed_steps(&report),
            ["deepspeed.ops", "deepspeed.job_config"],
            "{version}: {report:#}"
        );

        let initialized = node.initialized();
        assert_eq!(initialized.len(), 1, "{version}: {initialized:#?}");
        let ran = &initialized[0];
        assert_eq!(autos(ran, ""), Vec::<String>::new(), "{ran:#}");
        let zero = &ran["zero_optimization"];
        assert_eq!(zero["stage"], 3, "{ran:#}");
        assert_eq!(
            zero["offload_optimizer"],
            json!({"device": "cpu", "pin_memory": true}),
            "{ran:#}"
        );
        assert_eq!(
            zero["offload_param"],
            json!({"device": "cpu", "pin_memory": true}),
            "{ran:#}"
        );
        assert_eq!(zero["overlap_comm"], true, "{ran:#}");
        assert_eq!(ran["gradient_clipping"], FORCED_CLIPPING, "{ran:#}");
        assert_eq!(ran["train_micro_batch_size_per_gpu"], 4, "{ran:#}");
        assert_eq!(ran["scheduler"]["type"], "WarmupDecayLR", "{ran:#}");

        let job = step(&report, "deepspeed.job_config");
        let figures = &job["figures"];
        assert_eq!(figures["config"], config.display().to_string(), "{figures:#}");
        let changes: Vec<&str> = figures["changes"]
            .as_array()
            .unwrap_or_else(|| panic!("no changes: {figures:#}"))
            .iter()
            .map(text)
            .collect();
        for expected in [
            "gradient_clipping auto (max_grad_norm, 1.0 by default) -> 1e-06 so that every step clips",
            "optimizer.params.lr auto -> 5e-05",
            "bf16.enabled auto -> false",
            "batch made tiny: train_micro_batch_size_per_gpu 4, train_batch_size 4 on one GPU",
        ] {
            assert!(
                changes.iter().any(|change| change.starts_with(expected)),
                "{expected:?} not in {changes:#?}"
            );
        }

        if version == "0.14.2" {
            assert_eq!(code, 1, "{report:#}");
            assert_eq!(job["status"], "fail", "{report:#}");
            assert_reproduced(&report, "deepspeed.job_config");
            let finding = &report["findings"][0];
            assert!(
                text(&finding["detail"]).contains("the config smoke step deepspeed.job_config ran"),
                "{finding:#}"
            );
        } else {
            assert_eq!(code, 0, "{report:#}");
            assert_eq!(job["status"], "pass", "{report:#}");
            assert_eq!(report["findings"], json!([]), "{report:#}");
            assert!(
                text(&job["detail"]).contains("changed from the job's config"),
                "{job:#}"
            );
        }
    }
}

#[test]
fn an_accelerate_deepspeed_config_runs_as_accelerate_would_build_it() {
    let node = Node::new("0.14.3");
    let accelerate = node.path("accelerate_zero3.yaml");
    write_file(
        &accelerate,
        "compute_environment: LOCAL_MACHINE\n\
         distributed_type: DEEPSPEED\n\
         deepspeed_config:\n  \
           gradient_accumulation_steps: 1\n  \
           gradient_clipping: 1.0\n  \
           offload_optimizer_device: cpu\n  \
           offload_param_device: cpu\n  \
           zero3_init_flag: true\n  \
           zero_stage: 3\n\
         machine_rank: 0\n\
         mixed_precision: bf16\n\
         num_machines: 1\n\
         num_processes: 1\n",
    );
    let (code, report) = node.smoke_with([
        OsStr::new("--deep"),
        OsStr::new("--accelerate-config"),
        accelerate.as_os_str(),
    ]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        deepspeed_steps(&report),
        ["deepspeed.ops", "deepspeed.job_config"],
        "{report:#}"
    );
    let job = step(&report, "deepspeed.job_config");
    assert_eq!(job["status"], "pass", "{report:#}");
    let source = text(&job["figures"]["config"]);
    assert!(source.contains(&accelerate.display().to_string()), "{source}");
    assert_eq!(job["figures"]["precision"], "bf16", "{job:#}");

    let initialized = node.initialized();
    assert_eq!(initialized.len(), 1, "{initialized:#?}");
    let ran = &initialized[0];
    let zero = &ran["zero_optimization"];
    assert_eq!(zero["stage"], 3, "{ran:#}");
    assert_eq!(zero["offload_optimizer"]["device"], "cpu", "{ran:#}");
    assert_eq!(zero["offload_param"]["device"], "cpu", "{ran:#}");
    assert_eq!(ran["bf16"]["enabled"], true, "{ran:#}");
    assert_eq!(ran.get("fp16"), None, "{ran:#}");
    // accelerate's gradient_clipping 1.0 is forced down like any other.
    assert_eq!(ran["gradient_clipping"], FORCED_CLIPPING, "{ran:#}");
    assert_eq!(autos(ran, ""), Vec::<String>::new(), "{ran:#}");
}

#[test]
fn a_config_deepspeed_refuses_is_reported_in_deepspeed_s_words_before_any_training() {
    let node = Node::new("0.14.2");
    let config = node.path("ds_stage4.json");
    write_file(
        &config,
        json!({
            "train_micro_batch_size_per_gpu": 8,
            "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
            "zero_optimization": {"stage": 4, "offload_optimizer": {"device": "cpu"}}
        })
        .to_string(),
    );
    let (code, report) = node.smoke_with([
        OsStr::new("--deep"),
        OsStr::new("--deepspeed-config"),
        config.as_os_str(),
    ]);
    assert_eq!(code, 1, "{report:#}");
    let job = step(&report, "deepspeed.job_config");
    assert_eq!(job["status"], "fail", "{report:#}");
    assert_eq!(job["figures"]["refused"], true, "{job:#}");
    let finding = only_finding(&report, "smoke-deepspeed-config-refused");
    let detail = text(&finding["detail"]);
    assert!(
        detail.contains("DeepSpeed 0.14.2 refused the config ZeRO-4"),
        "{detail}"
    );
    assert!(
        detail.contains("ValidationError: 1 validation error for DeepSpeedZeroConfig"),
        "{detail}"
    );
    // DeepSpeed's parser refused it; initialize was never reached.
    assert_eq!(node.initialized(), Vec::<Value>::new());
}

#[test]
fn without_deep_only_the_op_report_runs() {
    // 0.14.2: the ZeRO-3 run would fail, had it run.
    let node = Node::new("0.14.2");
    let (code, report) = node.smoke(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(deepspeed_steps(&report), ["deepspeed.ops"], "{report:#}");
    let ops = step(&report, "deepspeed.ops");
    assert_eq!(ops["status"], "pass", "{report:#}");
    let detail = text(&ops["detail"]);
    assert!(
        detail.starts_with("DeepSpeed 0.14.2 (cuda): 20 ops, 17 compatible, 1 prebuilt"),
        "{detail}"
    );
    assert_eq!(report["findings"], json!([]), "{report:#}");
    assert_eq!(node.initialized(), Vec::<Value>::new());
}

/// Runs the smoke test's ZeRO worker alone on `config` in `node`, as the step
/// does (`python -m envdoctor_smoke worker deepspeed_zero cuda:0 FILE`): its answer.
fn zero_worker(node: &Node, name: &str, config: &Value) -> Value {
    let file = node.path(&format!("{name}.json"));
    write_file(&file, config.to_string());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/smoke/script");
    let output = std::process::Command::new(&node.python)
        .args(["-m", "envdoctor_smoke", "worker", "deepspeed_zero", "cuda:0"])
        .arg(&file)
        .current_dir(node.directory.path())
        .env("PYTHONPATH", script)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("STANDIN_DEEPSPEED_RECORD", node.record())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{name}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim().lines().last().unwrap_or_default())
        .unwrap_or_else(|error| panic!("{name}: {error}: {stdout}"))
}

/// The stand-in's 0.14.2 breaks only where the real one does (the recordings in
/// shared/recordings/h100-torch2.11-cu130/deepspeed-0.14): ZeRO-3 with the
/// optimizer on the CPU, at a step that clips. Without the clipping the smoke
/// test forces, the tests above could not fail on it.
#[test]
fn the_stand_in_0_14_2_breaks_only_when_it_clips_a_zero3_cpu_offload_run() {
    let node = Node::new("0.14.2");
    // The recorded job's config (ds_config_zero3_offload.json).
    let recorded = json!({
        "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1, "gradient_clipping": 1e-6,
        "optimizer": {"type": "AdamW", "params": {"lr": 0.001}},
        "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true},
                              "offload_param": {"device": "cpu", "pin_memory": true}},
        "bf16": {"enabled": true}
    });
    let with = |change: &dyn Fn(&mut Value)| {
        let mut config = recorded.clone();
        change(&mut config);
        config
    };
    let broken = zero_worker(&node, "recorded", &recorded);
    assert_eq!(
        broken["error"]["message"],
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        "{broken:#}"
    );
    let trains = [
        ("no-clipping", with(&|config| config["gradient_clipping"] = json!(0))),
        // The recorded norm-below-clip run: a tiny model's norm stays below 1.0.
        ("clipping-1.0", with(&|config| config["gradient_clipping"] = json!(1.0))),
        (
            "no-offload",
            with(&|config| {
                config["zero_optimization"]["offload_optimizer"] = json!({"device": "none"});
                config["zero_optimization"]["offload_param"] = json!({"device": "none"});
            }),
        ),
        ("zero2", with(&|config| config["zero_optimization"]["stage"] = json!(2))),
    ];
    for (name, config) in trains {
        let answer = zero_worker(&node, name, &config);
        assert_eq!(answer.get("error"), None, "{name}: {answer:#}");
        assert_eq!(answer["changed"], true, "{name}: {answer:#}");
        assert_eq!(answer["misplaced"], json!([]), "{name}: {answer:#}");
        assert_eq!(answer["skipped_steps"], 0, "{name}: {answer:#}");
        let norm = answer["gradient_norm"].as_f64().unwrap();
        assert!(norm > FORCED_CLIPPING && norm < 1.0, "{name}: {answer:#}");
    }
}

/// A real fp16 job skips its first steps while DeepSpeed's dynamic loss scale
/// comes down, and the built-in ZeRO-2 run's first three all overflowed on an
/// H200 (tests/fixtures/device-h200-2026-11-27): the worker steps on until three
/// steps update the weights. A scale that cannot come down (static) is still a
/// run whose every step overflowed, which the step fails.
#[test]
fn fp16_steps_skipped_while_the_loss_scale_comes_down_are_waited_out_not_judged() {
    let node = Node::new("0.14.0");
    let zero2 = |fp16: Value| {
        json!({
            "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1, "gradient_clipping": 1e-6,
            "optimizer": {"type": "AdamW", "params": {"lr": 0.001}},
            "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": true}},
            "fp16": fp16
        })
    };
    // 2**24 overflows fp16 at once; the scale is halved from the second overflow on.
    let settling = zero_worker(
        &node,
        "settling",
        &zero2(json!({"enabled": true, "initial_scale_power": 24})),
    );
    assert_eq!(settling.get("error"), None, "{settling:#}");
    let skipped = settling["skipped_steps"].as_u64().unwrap();
    assert!(skipped > 0, "{settling:#}");
    assert_eq!(
        settling["optimizer_steps"].as_u64().unwrap(),
        skipped + 3,
        "{settling:#}"
    );
    assert_eq!(settling["changed"], true, "{settling:#}");

    let stuck = zero_worker(
        &node,
        "static",
        &zero2(json!({"enabled": true, "loss_scale": 1099511627776.0_f64})),
    );
    assert_eq!(stuck["optimizer_steps"], 3, "{stuck:#}");
    assert_eq!(stuck["skipped_steps"], 3, "{stuck:#}");
    assert_eq!(stuck["changed"], false, "{stuck:#}");
}
