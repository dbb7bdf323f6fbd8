//! Every compat-matrix rule, driven through `envdoctor check --snapshot`: one
//! node it must fire on and one it must stay quiet on, each built from the
//! Snapshot recorded on a real, healthy H100 node by changing only what the rule is about.
//! A rule file without a case here fails `every_rule_has_a_firing_and_a_quiet_case`.

use crate::common;

use std::path::{Path, PathBuf};

use common::envdoctor;
use serde_json::{Value, json};

const RECORDED_H100: &str = "tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json";
const TORCH_TABLE: &str = "compat-matrix/tables/torch-builds.toml";
const CONFIGS: &str = "tests/fixtures/configs";
/// The `LD_LIBRARY_PATH` NGC images (pytorch, tritonserver, NeMo) set in their environment.
const NGC_LD_LIBRARY_PATH: &str = "/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64";

fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// A node to check: a Snapshot (as JSON) and the training configs to pass.
struct Node {
    snapshot: Value,
    deepspeed_config: Option<&'static str>,
    accelerate_config: Option<&'static str>,
}

/// GPUs by the name NVML gives them, with compute capability and memory as
/// NVIDIA lists them (developer.nvidia.com/cuda-gpus and cuda-legacy-gpus).
const T4: Gpu = Gpu {
    name: "Tesla T4",
    compute_capability: "7.5",
    memory_mib: 15360,
};
const V100: Gpu = Gpu {
    name: "Tesla V100-SXM2-32GB",
    compute_capability: "7.0",
    memory_mib: 32768,
};
const P100: Gpu = Gpu {
    name: "Tesla P100-PCIE-16GB",
    compute_capability: "6.0",
    memory_mib: 16384,
};
const M40: Gpu = Gpu {
    name: "Tesla M40 24GB",
    compute_capability: "5.2",
    memory_mib: 22945,
};
const A100: Gpu = Gpu {
    name: "NVIDIA A100-SXM4-80GB",
    compute_capability: "8.0",
    memory_mib: 81920,
};
const H100: Gpu = Gpu {
    name: "NVIDIA H100 80GB HBM3",
    compute_capability: "9.0",
    memory_mib: 81559,
};
const RTX_4090: Gpu = Gpu {
    name: "NVIDIA GeForce RTX 4090",
    compute_capability: "8.9",
    memory_mib: 24564,
};
const B200: Gpu = Gpu {
    name: "NVIDIA B200",
    compute_capability: "10.0",
    memory_mib: 183359,
};

#[derive(Clone, Copy)]
struct Gpu {
    name: &'static str,
    compute_capability: &'static str,
    memory_mib: u64,
}

impl Node {
    /// The node recorded on a real H100 (driver 580.159.04, glibc 2.39, Python
    /// 3.12): torch 2.11.0+cu130 with torchvision 0.26.0 and torchaudio 2.11.0,
    /// transformers 5.17.0, accelerate 1.15.0, PEFT 0.21.0, NumPy 2.5.2.
    fn h100() -> Node {
        let text = std::fs::read_to_string(repo(RECORDED_H100)).unwrap();
        Node {
            snapshot: serde_json::from_str(&text).unwrap(),
            deepspeed_config: None,
            accelerate_config: None,
        }
    }

    fn packages(&mut self) -> &mut Vec<Value> {
        self.snapshot["packages"].as_array_mut().unwrap()
    }

    /// Installs `name` at `version` (replacing an installed copy), with the
    /// fields the probe records for a distribution.
    fn package(mut self, name: &str, version: &str) -> Node {
        let normalized = common::normalize(name);
        let packages = self.packages();
        packages.retain(|package| package["normalized_name"] != normalized.as_str());
        let site = "/opt/venvs/train/lib/python3.12/site-packages";
        packages.push(json!({
            "name": name,
            "normalized_name": normalized,
            "version": version,
            "version_as_written": null,
            "location": site,
            "metadata_path": format!("{site}/{}-{version}.dist-info", name.replace('-', "_")),
            "metadata_format": "dist_info",
            "installer": "pip",
            "requested": true,
            "source": null,
            "editable_project_location": null,
            "editable_hooks": [],
            "requires_python": null,
            "requires_dist": [],
            "wheel_tags": [],
            "shadowed": [],
            "problems": []
        }));
        self
    }

    /// torch `version` with its local label, as download.pytorch.org's wheels
    /// record it: `2.6.0+cu126` is built for CUDA 12.6, `2.11.0+cpu` for none.
    /// The torchvision and torchaudio the node has follow, at the versions the
    /// torch table gives for that release, so the node stays one pip accepts.
    fn torch(mut self, version: &str) -> Node {
        let release = version.split('.').take(2).collect::<Vec<_>>().join(".");
        for (companion, made_for) in companions_of(&release) {
            let installed = self
                .packages()
                .iter()
                .any(|package| package["normalized_name"] == companion);
            if installed {
                self = match made_for {
                    Some(made_for) => self.package(companion, &made_for),
                    None => self.without(companion),
                };
            }
        }
        let public = version.split('+').next().unwrap();
        let cuda = version
            .split_once("+cu")
            .map(|(_, digits)| format!("{}.{}", &digits[..digits.len() - 1], &digits[digits.len() - 1..]));
        self = self.package("torch", version);
        let torch = &mut self.snapshot["frameworks"]["torch"];
        torch["version"] = json!(public);
        let build = &mut torch["build"];
        build["version"] = json!(version);
        build["variant"] = json!(version.split_once('+').map(|(_, local)| local));
        build["cuda"] = json!(cuda);
        self
    }

    fn without(mut self, name: &str) -> Node {
        let normalized = common::normalize(name);
        self.packages()
            .retain(|package| package["normalized_name"] != normalized.as_str());
        self
    }

    /// Sets an environment variable as the probe records it.
    fn env(mut self, name: &str, value: &str) -> Node {
        self.snapshot["env"][name] = json!(value);
        self
    }

    /// The C++ compiler an extension build would use: GCC `version` as `c++` on PATH.
    fn host_gcc(mut self, version: &str) -> Node {
        self.snapshot["cuda"]["host_compiler"] = json!({
            "chosen_by": "c++",
            "path": "/usr/bin/c++",
            "family": "gcc",
            "version": version,
            "problems": []
        });
        self
    }

    /// The interpreter's version, as the probe records it.
    fn python(mut self, version: &str) -> Node {
        let short = version.split('.').take(2).collect::<Vec<_>>().join(".");
        self.snapshot["python"]["version"] = json!(version);
        self.snapshot["python"]["markers"]["python_full_version"] = json!(version);
        self.snapshot["python"]["markers"]["python_version"] = json!(short);
        self
    }

    /// What the forward-compatibility directories hold, as the probe records
    /// it: `/usr/local/cuda/compat/lib` looked in, with a `libcuda.so.VERSION`
    /// there for each version given.
    fn compat_libcuda(mut self, versions: &[&str]) -> Node {
        let directory = "/usr/local/cuda/compat/lib";
        let libcuda: Vec<Value> = versions
            .iter()
            .map(|version| json!({ "path": format!("{directory}/libcuda.so.{version}"), "version": version }))
            .collect();
        self.snapshot["cuda"]["forward_compat"] = json!({ "searched": [directory], "libcuda": libcuda });
        self
    }

    fn glibc(mut self, version: &str) -> Node {
        self.snapshot["system"]["glibc_version"] = json!(version);
        self
    }

    /// The CPU architecture, as `uname -m` names it.
    fn machine(mut self, machine: &str) -> Node {
        self.snapshot["system"]["architecture"] = json!(machine);
        self.snapshot["python"]["markers"]["platform_machine"] = json!(machine);
        self
    }

    /// Replaces the node's GPUs, each at its own PCI address, all visible.
    fn gpus(mut self, gpus: &[Gpu]) -> Node {
        let template = self.snapshot["nvidia"]["gpus"][0].clone();
        let device_template = self.snapshot["cuda_devices"]["devices"][0].clone();
        let mut entries = Vec::new();
        let mut devices = Vec::new();
        for (index, gpu) in gpus.iter().enumerate() {
            let uuid = format!("GPU-0000000{index}-test-0000-0000-placeholder");
            let bus = format!("00000000:{:02X}:00.0", 0x18 + index * 0x10);
            let mut entry = template.clone();
            entry["index"] = json!(index);
            entry["name"] = json!(gpu.name);
            entry["uuid"] = json!(uuid);
            entry["pci_bus_id"] = json!(bus);
            entry["compute_capability"] = json!(gpu.compute_capability);
            entry["memory_total_mib"] = json!(gpu.memory_mib);
            entries.push(entry);
            let mut device = device_template.clone();
            device["ordinal"] = json!(index);
            device["nvml_index"] = json!(index);
            device["uuid"] = json!(uuid);
            device["pci_bus_id"] = json!(bus);
            device["name"] = json!(gpu.name);
            devices.push(device);
        }
        self.snapshot["nvidia"]["gpus"] = Value::Array(entries);
        self.snapshot["cuda_devices"]["devices"] = Value::Array(devices);
        self
    }

    /// A CUDA toolkit at /usr/local/cuda-VERSION, its nvcc first on PATH.
    fn toolkit(mut self, version: &str) -> Node {
        let root = format!("/usr/local/cuda-{version}");
        self.snapshot["cuda"]["toolkits"] = json!([{
            "root": root,
            "found_via": ["path", "usr_local"],
            "aliases": ["/usr/local/cuda"],
            "version": version,
            "version_source": "version_json",
            "version_file": format!("{root}/version.json"),
            "nvcc": format!("{root}/bin/nvcc"),
            "nvcc_version": null,
            "problems": []
        }]);
        self
    }

    fn deepspeed_config(mut self, file: &'static str) -> Node {
        self.deepspeed_config = Some(file);
        self
    }

    fn accelerate_config(mut self, file: &'static str) -> Node {
        self.accelerate_config = Some(file);
        self
    }

    /// `envdoctor check --snapshot ... --no-smoke --format json` on this node:
    /// the exit code and the report.
    fn check(&self) -> (i32, Value) {
        let directory = tempfile::tempdir().unwrap();
        let snapshot = directory.path().join("node.json");
        std::fs::write(&snapshot, serde_json::to_vec_pretty(&self.snapshot).unwrap()).unwrap();
        let mut command = envdoctor(directory.path());
        // No accelerate default config from the machine running the tests.
        command
            .env("HF_HOME", directory.path().join("hf-home"))
            .env_remove("ACCELERATE_CONFIG_FILE");
        command
            .args(["check", "--no-smoke", "--format", "json", "--snapshot"])
            .arg(&snapshot);
        if let Some(file) = self.deepspeed_config {
            command
                .arg("--deepspeed-config")
                .arg(repo(&format!("{CONFIGS}/{file}")));
        }
        if let Some(file) = self.accelerate_config {
            command
                .arg("--accelerate-config")
                .arg(repo(&format!("{CONFIGS}/{file}")));
        }
        let output = command.output().unwrap();
        let code = output.status.code().expect("envdoctor exited on its own");
        let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "check printed no JSON report ({error}), exit {code}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (code, report)
    }
}

/// `(companion, version made for torch RELEASE)` from the torch table's release
/// row; `None` for a companion that release has none of.
fn companions_of(release: &str) -> Vec<(&'static str, Option<String>)> {
    let text = std::fs::read_to_string(repo(TORCH_TABLE)).unwrap();
    let table: toml_edit::DocumentMut = text.parse().unwrap();
    let row = table["release"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .find(|row| row["torch"].as_str() == Some(release));
    ["torchvision", "torchaudio"]
        .into_iter()
        .map(|companion| {
            let version = row.and_then(|row| row.get(companion)).and_then(|item| item.as_str());
            (companion, version.map(str::to_string))
        })
        .collect()
}

/// The findings of `report` with this id.
fn findings<'r>(report: &'r Value, id: &str) -> Vec<&'r Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["id"] == id)
        .collect()
}

fn assert_fires(id: &str, severity: &str, node: Node) {
    let (code, report) = node.check();
    let found = findings(&report, id);
    assert_eq!(
        found.len(),
        1,
        "{id} should fire once; findings: {:#}",
        report["findings"]
    );
    let finding = found[0];
    assert_eq!(finding["severity"], severity, "{id}: {finding:#}");
    let detail = finding["detail"].as_str().unwrap();
    // A placeholder left unfilled, or filled from a fact the rule never matched.
    for unfilled in ["{", "}", "not installed", "unknown", "none found"] {
        assert!(!detail.contains(unfilled), "{id}: detail has `{unfilled}`: {detail}");
    }
    assert!(
        finding["fix"].as_str().is_some_and(|fix| !fix.is_empty()),
        "{id}: {finding:#}"
    );
    assert!(
        finding["references"].as_array().is_some_and(|refs| !refs.is_empty()),
        "{id}: {finding:#}"
    );
    let errors = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|finding| finding["severity"] == "error");
    assert_eq!(
        code,
        if errors { 1 } else { 0 },
        "{id}: exit code against the findings: {:#}",
        report["findings"]
    );
}

fn assert_quiet(id: &str, node: Node) {
    let (_, report) = node.check();
    assert!(
        findings(&report, id).is_empty(),
        "{id} should stay quiet; findings: {:#}",
        report["findings"]
    );
}

/// One module per rule, each with a `fires` and a `quiet` test; `RULES` lists
/// the ids covered, for the completeness test below.
macro_rules! rule_cases {
    ($($module:ident: $id:literal, $severity:literal, fires: $fires:expr, quiet: $quiet:expr;)*) => {
        const RULES: &[&str] = &[$($id),*];

        /// Each rule with the node it must fire on.
        fn firing_cases() -> Vec<(&'static str, Node)> {
            vec![$(($id, $fires)),*]
        }
        $(
            mod $module {
                use super::*;

                #[test]
                fn fires() {
                    assert_fires($id, $severity, $fires);
                }

                #[test]
                fn quiet() {
                    assert_quiet($id, $quiet);
                }
            }
        )*
    };
}

rule_cases! {
    deepspeed_zero3_offload_device_mismatch: "deepspeed-zero3-offload-device-mismatch", "error",
        fires: Node::h100().package("deepspeed", "0.14.2").deepspeed_config("ds-zero3-offload-cpu.json"),
        quiet: Node::h100().package("deepspeed", "0.14.3").deepspeed_config("ds-zero3-offload-cpu.json");
    quantized_lora_cpu_offload_small_gpu: "quantized-lora-cpu-offload-small-gpu", "warning",
        fires: Node::h100().gpus(&[T4]).package("bitsandbytes", "0.45.0"),
        quiet: Node::h100().package("bitsandbytes", "0.45.0");
    device_map_auto_multi_gpu_lora: "device-map-auto-multi-gpu-lora", "info",
        fires: Node::h100().gpus(&[H100, H100]),
        quiet: Node::h100();
    device_map_auto_distributed_launch: "device-map-auto-distributed-launch", "info",
        fires: Node::h100().gpus(&[H100, H100]).accelerate_config("accelerate-multi-gpu-bf16.yaml"),
        quiet: Node::h100().gpus(&[H100, H100]).accelerate_config("accelerate-single-gpu-fp16.yaml");
    quantized_model_multi_device_distributed: "quantized-model-multi-device-distributed", "info",
        fires: Node::h100().gpus(&[H100, H100]).package("bitsandbytes", "0.49.2")
            .accelerate_config("accelerate-multi-gpu-bf16.yaml"),
        quiet: Node::h100().gpus(&[H100, H100]).package("bitsandbytes", "0.49.2")
            .accelerate_config("accelerate-single-gpu-fp16.yaml");
    adapters_dataparallel_device_mismatch: "adapters-dataparallel-device-mismatch", "warning",
        fires: Node::h100().gpus(&[A100, A100]).package("adapters", "0.1.2"),
        quiet: Node::h100().gpus(&[A100, A100]).package("adapters", "0.2.0");
    adapter_transformers_dataparallel_device_mismatch: "adapter-transformers-dataparallel-device-mismatch", "info",
        fires: Node::h100().gpus(&[V100, V100]).package("adapter-transformers", "2.1.2"),
        quiet: Node::h100().gpus(&[V100, V100]).package("adapter-transformers", "2.2.0");
    bf16_pre_ampere_accelerate: "bf16-pre-ampere-accelerate", "warning",
        fires: Node::h100().gpus(&[T4]).accelerate_config("accelerate-multi-gpu-bf16.yaml"),
        quiet: Node::h100().gpus(&[T4]).accelerate_config("accelerate-single-gpu-fp16.yaml");
    bf16_pre_ampere_deepspeed: "bf16-pre-ampere-deepspeed", "warning",
        fires: Node::h100().gpus(&[V100]).package("deepspeed", "0.16.3").deepspeed_config("ds-zero2-bf16.json"),
        quiet: Node::h100().gpus(&[V100]).package("deepspeed", "0.16.3").deepspeed_config("ds-zero2-fp16.json");
    blackwell_torch_without_sm100_sm120: "blackwell-torch-without-sm100-sm120", "error",
        fires: Node::h100().gpus(&[B200]).torch("2.6.0+cu126"),
        quiet: Node::h100().gpus(&[B200]).torch("2.7.1+cu128");
    maxwell_pascal_torch_cuda_12_8: "maxwell-pascal-torch-cuda-12-8", "error",
        fires: Node::h100().gpus(&[P100]).torch("2.8.0+cu128"),
        quiet: Node::h100().gpus(&[P100]).torch("2.8.0+cu126");
    volta_torch_cuda_13: "volta-torch-cuda-13", "error",
        fires: Node::h100().gpus(&[V100]),
        quiet: Node::h100().gpus(&[V100]).torch("2.11.0+cu126");
    volta_torch_2_7_cu128: "volta-torch-2-7-cu128", "error",
        fires: Node::h100().gpus(&[V100]).torch("2.7.1+cu128"),
        quiet: Node::h100().gpus(&[V100]).torch("2.8.0+cu128");
    volta_torch_2_11_cu128: "volta-torch-2-11-cu128", "error",
        fires: Node::h100().gpus(&[V100]).torch("2.11.0+cu128"),
        quiet: Node::h100().gpus(&[V100]).torch("2.10.0+cu128");
    flash_attn_pre_ampere: "flash-attn-pre-ampere", "warning",
        fires: Node::h100().gpus(&[T4]).package("flash_attn", "2.8.3"),
        // flash-attn 1.x runs on Turing.
        quiet: Node::h100().gpus(&[T4]).package("flash_attn", "1.0.9");
    flash_attn_4_pre_hopper: "flash-attn-4-pre-hopper", "warning",
        fires: Node::h100().gpus(&[A100]).package("flash-attn-4", "4.0.0b36"),
        quiet: Node::h100().package("flash-attn-4", "4.0.0b36");
    peft_0_14_needs_transformers_4_43: "peft-0-14-needs-transformers-4-43", "error",
        fires: Node::h100().package("peft", "0.14.0").package("transformers", "4.42.4"),
        quiet: Node::h100().package("peft", "0.14.0").package("transformers", "4.43.0");
    peft_0_18_0_needs_transformers_4_52: "peft-0-18-0-needs-transformers-4-52", "error",
        fires: Node::h100().package("peft", "0.18.0").package("transformers", "4.51.3"),
        quiet: Node::h100().package("peft", "0.18.1").package("transformers", "4.51.3");
    transformers_5_peft_hybridcache_import: "transformers-5-peft-hybridcache-import", "error",
        fires: Node::h100().package("peft", "0.17.1").package("transformers", "5.0.0"),
        quiet: Node::h100().package("peft", "0.18.0").package("transformers", "5.0.0");
    transformers_5_peft_below_0_16: "transformers-5-peft-below-0-16", "warning",
        fires: Node::h100().package("peft", "0.15.2"),
        quiet: Node::h100().package("peft", "0.15.2").package("transformers", "4.57.6");
    transformers_5_6_peft_below_0_18_2: "transformers-5-6-peft-below-0-18-2", "warning",
        fires: Node::h100().package("transformers", "5.6.0").package("peft", "0.18.1"),
        quiet: Node::h100().package("transformers", "5.6.0").package("peft", "0.19.0");
    transformers_5_13_peft_below_0_19_1: "transformers-5-13-peft-below-0-19-1", "warning",
        fires: Node::h100().package("transformers", "5.13.0").package("peft", "0.19.0"),
        quiet: Node::h100().package("transformers", "5.13.0").package("peft", "0.19.1");
    transformers_5_18_peft_below_0_20: "transformers-5-18-peft-below-0-20", "warning",
        fires: Node::h100().package("transformers", "5.18.0").package("peft", "0.19.1"),
        quiet: Node::h100().package("transformers", "5.18.0").package("peft", "0.20.0");
    transformers_5_24_peft_below_0_22: "transformers-5-24-peft-below-0-22", "warning",
        fires: Node::h100().package("transformers", "5.24.0").package("peft", "0.21.2"),
        quiet: Node::h100().package("transformers", "5.23.0").package("peft", "0.21.2");
    transformers_4_48_torch_below_2_0: "transformers-4-48-torch-below-2-0", "warning",
        fires: Node::h100().package("transformers", "4.48.0").torch("1.13.1+cu117"),
        quiet: Node::h100().package("transformers", "4.48.0").torch("2.0.1+cu118");
    transformers_4_52_torch_below_2_1: "transformers-4-52-torch-below-2-1", "error",
        fires: Node::h100().package("transformers", "4.52.1").torch("2.0.1+cu118"),
        quiet: Node::h100().package("transformers", "4.52.1").torch("2.1.2+cu121");
    transformers_5_0_torch_below_2_2: "transformers-5-0-torch-below-2-2", "error",
        fires: Node::h100().package("transformers", "5.0.0").torch("2.1.2+cu121"),
        quiet: Node::h100().package("transformers", "5.0.0").torch("2.2.2+cu121");
    transformers_5_1_torch_below_2_4: "transformers-5-1-torch-below-2-4", "error",
        fires: Node::h100().package("transformers", "5.14.1").torch("2.3.1+cu121"),
        quiet: Node::h100().package("transformers", "5.14.1").torch("2.4.1+cu124");
    transformers_5_15_torch_below_2_5: "transformers-5-15-torch-below-2-5", "error",
        fires: Node::h100().package("transformers", "5.15.0").torch("2.4.1+cu124"),
        quiet: Node::h100().package("transformers", "5.15.0").torch("2.5.1+cu124");
    deepspeed_0_14_0_torch_elastic_log_import: "deepspeed-0-14-0-torch-elastic-log-import", "error",
        fires: Node::h100().package("deepspeed", "0.14.0").package("numpy", "1.26.4").torch("2.4.0+cu124"),
        quiet: Node::h100().package("deepspeed", "0.14.0").package("numpy", "1.26.4").torch("2.3.1+cu121");
    deepspeed_0_14_3_torch_elastic_socket_import: "deepspeed-0-14-3-torch-elastic-socket-import", "error",
        fires: Node::h100().package("deepspeed", "0.14.3").package("numpy", "1.26.4").torch("2.4.0+cu124"),
        quiet: Node::h100().package("deepspeed", "0.14.4").package("numpy", "1.26.4").torch("2.4.0+cu124");
    deepspeed_0_14_3_numpy_2_bufsize: "deepspeed-0-14-3-numpy-2-bufsize", "error",
        fires: Node::h100().package("deepspeed", "0.14.3").package("numpy", "2.0.0").torch("2.3.1+cu121"),
        quiet: Node::h100().package("deepspeed", "0.14.3").package("numpy", "1.26.4").torch("2.3.1+cu121");
    transformers_5_20_torch_below_2_6: "transformers-5-20-torch-below-2-6", "error",
        fires: Node::h100().package("transformers", "5.20.0").torch("2.5.1+cu124"),
        quiet: Node::h100().package("transformers", "5.20.0").torch("2.6.0+cu124");
    bnb_int8_cast_below_turing: "bnb-int8-cast-below-turing", "info",
        fires: Node::h100().gpus(&[V100]).package("bitsandbytes", "0.44.1"),
        quiet: Node::h100().gpus(&[T4]).package("bitsandbytes", "0.44.1");
    bnb_before_0_43_1_cuda_12_4_runtime: "bnb-before-0-43-1-cuda-12-4-runtime", "error",
        fires: Node::h100().package("bitsandbytes", "0.42.0").torch("2.4.1+cu124"),
        quiet: Node::h100().package("bitsandbytes", "0.42.0").torch("2.1.2+cu121");
    torch_2_7_x86_64_glibc_below_2_28: "torch-2-7-x86-64-glibc-below-2-28", "error",
        fires: Node::h100().torch("2.7.0+cu126").glibc("2.27"),
        quiet: Node::h100().torch("2.6.0+cu124").glibc("2.17");
    torch_2_6_cu126_glibc_below_2_28: "torch-2-6-cu126-glibc-below-2-28", "error",
        fires: Node::h100().torch("2.6.0+cu126").glibc("2.17"),
        quiet: Node::h100().torch("2.6.0+cu124").glibc("2.17");
    numpy_1_19_5_aarch64_jetson_illegal_instruction: "numpy-1-19-5-aarch64-jetson-illegal-instruction", "warning",
        fires: Node::h100().machine("aarch64").package("numpy", "1.19.5"),
        quiet: Node::h100().machine("aarch64").package("numpy", "1.19.4");
    torch_2_6_aarch64_glibc_below_2_28: "torch-2-6-aarch64-glibc-below-2-28", "error",
        fires: Node::h100().machine("aarch64").torch("2.6.0+cu126").glibc("2.27"),
        quiet: Node::h100().machine("aarch64").torch("2.6.0+cu126").glibc("2.28");
    torch_below_2_6_cusparse_nvjitlink_ld_library_path: "torch-below-2-6-cusparse-nvjitlink-ld-library-path", "warning",
        fires: Node::h100().torch("2.5.1+cu124").package("nvidia-cusparse-cu12", "12.3.1.170").toolkit("12.1.1")
            .env("LD_LIBRARY_PATH", "/usr/local/cuda-12.1/lib64"),
        quiet: Node::h100().torch("2.5.1+cu124").package("nvidia-cusparse-cu12", "12.3.1.170").toolkit("12.4.1")
            .env("LD_LIBRARY_PATH", "/usr/local/cuda-12.4/lib64");
    // A cuda-compat libcuda of CUDA 13.2's driver (595.45.04) over driver 580.
    cuda_forward_compat_on_geforce: "cuda-forward-compat-on-geforce", "warning",
        fires: Node::h100().gpus(&[RTX_4090, RTX_4090]).env("LD_LIBRARY_PATH", NGC_LD_LIBRARY_PATH)
            .compat_libcuda(&["595.45.04"]),
        // An NGC container on a GeForce card: the compat directory is listed and empty.
        quiet: Node::h100().gpus(&[RTX_4090, RTX_4090]).env("LD_LIBRARY_PATH", NGC_LD_LIBRARY_PATH)
            .compat_libcuda(&[]);
    torch_2_5_0_cudnn_sdpa_hopper: "torch-2-5-0-cudnn-sdpa-hopper", "warning",
        fires: Node::h100().torch("2.5.0+cu124"),
        quiet: Node::h100().torch("2.5.1+cu124");
    torch_compile_gpu_below_volta: "torch-compile-gpu-below-volta", "warning",
        fires: Node::h100().torch("2.4.0+cu121").gpus(&[P100]),
        quiet: Node::h100().torch("2.4.0+cu121").gpus(&[V100]);
    transformers_4_37_accelerate_below_0_21: "transformers-4-37-accelerate-below-0-21", "warning",
        fires: Node::h100().package("transformers", "4.44.2").package("accelerate", "0.20.3"),
        quiet: Node::h100().package("transformers", "4.44.2").package("accelerate", "0.21.0");
    transformers_4_45_accelerate_below_0_26: "transformers-4-45-accelerate-below-0-26", "warning",
        fires: Node::h100().package("transformers", "4.57.6").package("accelerate", "0.25.0"),
        quiet: Node::h100().package("transformers", "4.57.6").package("accelerate", "0.26.0");
    transformers_5_accelerate_below_1_1: "transformers-5-accelerate-below-1-1", "warning",
        fires: Node::h100().package("accelerate", "1.0.1"),
        quiet: Node::h100().package("accelerate", "1.1.0");
    deepspeed_cpu_optimizer_torch_cuda_13_0_nvcc_other_13_minor: "deepspeed-cpu-optimizer-torch-cuda-13-0-nvcc-other-13-minor", "error",
        fires: Node::h100().package("deepspeed", "0.19.7").toolkit("13.1.1").deepspeed_config("ds-zero3-offload-cpu.json"),
        quiet: Node::h100().package("deepspeed", "0.19.7").toolkit("13.0.2").deepspeed_config("ds-zero3-offload-cpu.json");
    deepspeed_cpu_optimizer_torch_cuda_13_2_nvcc_other_13_minor: "deepspeed-cpu-optimizer-torch-cuda-13-2-nvcc-other-13-minor", "error",
        fires: Node::h100().torch("2.14.0+cu132").package("deepspeed", "0.19.7").toolkit("13.0.2")
            .deepspeed_config("ds-zero3-offload-cpu.json"),
        quiet: Node::h100().torch("2.14.0+cu132").package("deepspeed", "0.19.7").toolkit("13.2.1")
            .deepspeed_config("ds-zero3-offload-cpu.json");
    flash_attn_3_pre_ampere: "flash-attn-3-pre-ampere", "warning",
        fires: Node::h100().package("flash_attn_3", "3.0.0").gpus(&[T4]),
        quiet: Node::h100().package("flash_attn_3", "3.0.0").gpus(&[A100]);
    bnb_0_43_1_to_0_44_cuda_12_6: "bnb-0-43-1-to-0-44-cuda-12-6", "error",
        fires: Node::h100().package("bitsandbytes", "0.44.1").torch("2.6.0+cu126"),
        quiet: Node::h100().package("bitsandbytes", "0.45.0").torch("2.6.0+cu126");
    bnb_0_43_1_to_0_45_2_cuda_12_8: "bnb-0-43-1-to-0-45-2-cuda-12-8", "error",
        fires: Node::h100().package("bitsandbytes", "0.45.2").torch("2.7.1+cu128"),
        quiet: Node::h100().package("bitsandbytes", "0.45.3").torch("2.7.1+cu128");
    bnb_0_43_1_to_0_46_0_cuda_12_9: "bnb-0-43-1-to-0-46-0-cuda-12-9", "error",
        fires: Node::h100().package("bitsandbytes", "0.46.0").torch("2.8.0+cu129"),
        quiet: Node::h100().package("bitsandbytes", "0.46.1").torch("2.8.0+cu129");
    bnb_0_43_1_to_0_47_cuda_13_0: "bnb-0-43-1-to-0-47-cuda-13-0", "error",
        fires: Node::h100().package("bitsandbytes", "0.47.0"),
        quiet: Node::h100().package("bitsandbytes", "0.48.0");
    torch_below_2_3_numpy_2: "torch-below-2-3-numpy-2", "error",
        fires: Node::h100().torch("2.2.2+cu121"),
        quiet: Node::h100().torch("2.3.0+cu121");
    pandas_below_2_1_2_numpy_2: "pandas-below-2-1-2-numpy-2", "error",
        fires: Node::h100().package("pandas", "2.1.1"),
        quiet: Node::h100().package("pandas", "2.1.1").package("numpy", "1.26.4");
    scikit_learn_below_1_3_1_numpy_2: "scikit-learn-below-1-3-1-numpy-2", "error",
        fires: Node::h100().package("scikit-learn", "1.3.0"),
        quiet: Node::h100().package("scikit-learn", "1.3.0").package("numpy", "1.26.4");
    matplotlib_below_3_7_3_numpy_2: "matplotlib-below-3-7-3-numpy-2", "error",
        fires: Node::h100().package("matplotlib", "3.7.2"),
        quiet: Node::h100().package("matplotlib", "3.7.2").package("numpy", "1.26.4");
    h5py_below_3_11_numpy_2: "h5py-below-3-11-numpy-2", "error",
        fires: Node::h100().package("h5py", "3.10.0"),
        quiet: Node::h100().package("h5py", "3.11.0");
    opencv_python_below_4_10_0_84_numpy_2: "opencv-python-below-4-10-0-84-numpy-2", "error",
        fires: Node::h100().package("opencv-python", "4.10.0.82"),
        quiet: Node::h100().package("opencv-python", "4.10.0.84");
    opencv_python_headless_below_4_10_0_84_numpy_2: "opencv-python-headless-below-4-10-0-84-numpy-2", "error",
        fires: Node::h100().package("opencv-python-headless", "4.10.0.82"),
        quiet: Node::h100().package("opencv-python-headless", "4.10.0.84");
    deepspeed_0_8_1_torch_2_six_import: "deepspeed-0-8-1-torch-2-six-import", "error",
        fires: Node::h100().package("deepspeed", "0.8.1").torch("2.0.1+cu118"),
        quiet: Node::h100().package("deepspeed", "0.8.2").torch("2.0.1+cu118");
    transformers_below_4_47_torch_2_6_resume_rng_state: "transformers-below-4-47-torch-2-6-resume-rng-state", "warning",
        fires: Node::h100().package("transformers", "4.46.3").torch("2.6.0+cu124"),
        quiet: Node::h100().package("transformers", "4.46.3").torch("2.6.0+cu124")
            .env("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1");
    deepspeed_below_0_16_torch_2_6_load_checkpoint: "deepspeed-below-0-16-torch-2-6-load-checkpoint", "warning",
        fires: Node::h100().package("deepspeed", "0.15.4"),
        quiet: Node::h100().package("deepspeed", "0.16.0");
    cuda_12_0_to_12_3_nvcc_gcc_above_12: "cuda-12-0-to-12-3-nvcc-gcc-above-12", "warning",
        fires: Node::h100().toolkit("12.3.2").host_gcc("13.3.0"),
        quiet: Node::h100().toolkit("12.3.2").host_gcc("12.4.0");
    cuda_12_4_to_12_6_nvcc_gcc_above_13: "cuda-12-4-to-12-6-nvcc-gcc-above-13", "warning",
        fires: Node::h100().toolkit("12.6.3").host_gcc("14.2.0"),
        quiet: Node::h100().toolkit("12.6.3").host_gcc("13.3.0");
    cuda_12_8_to_12_9_nvcc_gcc_above_14: "cuda-12-8-to-12-9-nvcc-gcc-above-14", "warning",
        fires: Node::h100().toolkit("12.8.1").host_gcc("15.1.0"),
        quiet: Node::h100().toolkit("12.8.1").host_gcc("14.2.0");
    cuda_13_0_to_13_2_nvcc_gcc_above_15: "cuda-13-0-to-13-2-nvcc-gcc-above-15", "warning",
        fires: Node::h100().toolkit("13.0.2").host_gcc("16.1.0"),
        quiet: Node::h100().toolkit("13.0.2").host_gcc("15.3.0");
    nvswitch_fabric_manager_unverified: "nvswitch-fabric-manager-unverified", "info",
        fires: Node::h100().gpus(&[H100; 8]),
        quiet: Node::h100().gpus(&[H100; 4]);
    geforce_multi_gpu_p2p_unverified: "geforce-multi-gpu-p2p-unverified", "info",
        fires: Node::h100().gpus(&[RTX_4090, RTX_4090]),
        quiet: Node::h100().gpus(&[RTX_4090, RTX_4090]).env("NCCL_P2P_DISABLE", "1");
    // Without torchaudio, which has no release for torch 2.12 and later: the fix moves torch to 2.12.
    nccl_cu13_2_28_9_to_2_29_2_aarch64_proxy_hang: "nccl-cu13-2-28-9-to-2-29-2-aarch64-proxy-hang", "warning",
        fires: Node::h100().machine("aarch64").without("torchaudio"),
        quiet: Node::h100().machine("aarch64").package("nvidia-nccl-cu13", "2.29.3");
    nccl_cu12_2_28_9_to_2_29_2_aarch64_proxy_hang: "nccl-cu12-2-28-9-to-2-29-2-aarch64-proxy-hang", "warning",
        fires: Node::h100().machine("aarch64").torch("2.10.0+cu126").package("nvidia-nccl-cu12", "2.28.9"),
        quiet: Node::h100().package("nvidia-nccl-cu12", "2.28.9");
    bnb_0_43_1_to_0_49_cuda_13_1_and_later: "bnb-0-43-1-to-0-49-cuda-13-1-and-later", "error",
        fires: Node::h100().torch("2.15.0+cu132").package("bitsandbytes", "0.49.2"),
        quiet: Node::h100().torch("2.15.0+cu132").package("bitsandbytes", "0.50.0");
    deepspeed_below_0_16_4_cpu_optimizer_torch_cuda_12_8_nvcc_other_12_minor:
        "deepspeed-below-0-16-4-cpu-optimizer-torch-cuda-12-8-nvcc-other-12-minor", "error",
        fires: Node::h100().torch("2.8.0+cu128").package("deepspeed", "0.16.3").toolkit("12.6.3")
            .deepspeed_config("ds-zero3-offload-cpu.json"),
        quiet: Node::h100().torch("2.8.0+cu128").package("deepspeed", "0.16.4").toolkit("12.6.3")
            .deepspeed_config("ds-zero3-offload-cpu.json");
    deepspeed_below_0_17_2_cpu_optimizer_torch_cuda_12_9_nvcc_other_12_minor:
        "deepspeed-below-0-17-2-cpu-optimizer-torch-cuda-12-9-nvcc-other-12-minor", "error",
        fires: Node::h100().torch("2.8.0+cu129").package("deepspeed", "0.17.1").toolkit("12.8.1")
            .deepspeed_config("ds-zero3-offload-cpu.json"),
        quiet: Node::h100().torch("2.8.0+cu129").package("deepspeed", "0.17.2").toolkit("12.8.1")
            .deepspeed_config("ds-zero3-offload-cpu.json");
    torch_2_11_gcc_14_cuda_12_8_12_9_source_build: "torch-2-11-gcc-14-cuda-12-8-12-9-source-build", "warning",
        fires: Node::h100().torch("2.11.0+cu128").toolkit("12.8.1").host_gcc("14.2.0"),
        quiet: Node::h100().torch("2.11.0+cu128").toolkit("12.8.1").host_gcc("13.3.0");
    transformers_5_accelerate_absent: "transformers-5-accelerate-absent", "info",
        fires: Node::h100().without("accelerate"),
        quiet: Node::h100();
    transformers_4_37_to_4_57_accelerate_absent: "transformers-4-37-to-4-57-accelerate-absent", "info",
        fires: Node::h100().package("transformers", "4.57.6").without("accelerate"),
        quiet: Node::h100().package("transformers", "4.57.6").package("accelerate", "0.34.2");
    // The recorded H100 has it (torch 2.11.0+cu130, nvidia-cudnn-cu13 9.19.0.56); without
    // torchvision and torchaudio, which have no release for 2.15, the fix moves torch to 2.15.
    torch_2_11_to_2_14_cudnn_below_9_26_sdpa_mask_nan_hopper: "torch-2-11-to-2-14-cudnn-below-9-26-sdpa-mask-nan-hopper", "warning",
        fires: Node::h100().without("torchvision").without("torchaudio"),
        quiet: Node::h100().package("nvidia-cudnn-cu13", "9.26.0.51");
    bnb_maxwell_dropped: "bnb-maxwell-dropped", "warning",
        fires: Node::h100().gpus(&[M40]).package("bitsandbytes", "0.48.2"),
        quiet: Node::h100().gpus(&[M40]).package("bitsandbytes", "0.47.0");
}

/// A fix that changes torch must leave a node pip accepts and the GPUs run:
/// torch with exactly the torchvision and torchaudio the node has, at the
/// versions that pin each other (the torch table's release row, or the
/// installed ones when only the build changes), from one index whose CUDA the
/// node's driver runs and whose kernels run on every visible GPU. Checked on
/// every rule's firing node, which has torchvision and torchaudio installed.
#[test]
fn every_fix_that_changes_torch_installs_a_consistent_set_the_node_runs() {
    use envdoctor::knowledge::tables::MajorMinor;
    let tables = envdoctor::matrix::Matrix::load(&[]).unwrap().tables;
    let mut torch_fixes = 0;
    for (id, node) in firing_cases() {
        let (_, report) = node.check();
        let finding = findings(&report, id)[0].clone();
        let fix = finding["fix"].as_str().unwrap().to_string();
        let rule_text = std::fs::read_to_string(repo(&format!("compat-matrix/rules/{id}.toml"))).unwrap();
        let computed = rule_text.lines().any(|line| line.starts_with("fix_torch"));
        let pins: Vec<(String, String)> = fix
            .split('"')
            .filter_map(|part| part.split_once("=="))
            .map(|(name, version)| (name.to_string(), version.to_string()))
            .collect();
        let pinned = |name: &str| {
            pins.iter()
                .find(|(pinned, _)| pinned == name)
                .map(|(_, version)| version.clone())
        };
        let Some(torch) = pinned("torch") else {
            assert!(!computed, "{id}: fix_torch is set but the fix installs no torch: {fix}");
            assert!(!fix.contains("--force-reinstall"), "{id}: {fix}");
            continue;
        };
        torch_fixes += 1;
        let installed = |name: &str| {
            node.snapshot["packages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|package| package["normalized_name"] == name)
                .map(|package| {
                    package["version"]
                        .as_str()
                        .unwrap()
                        .split('+')
                        .next()
                        .unwrap()
                        .to_string()
                })
        };
        let release = MajorMinor::parse(&torch.split('.').take(2).collect::<Vec<_>>().join(".")).unwrap();
        let row = tables
            .torch
            .release(release)
            .unwrap_or_else(|| panic!("{id}: torch {torch} has no release row"));
        let latest = row.latest.as_ref();
        let same_version = installed("torch").as_deref() == Some(torch.as_str());
        assert!(
            same_version || latest.is_some_and(|set| set.torch == torch),
            "{id}: torch {torch} is neither the installed version nor the release's newest patch: {fix}"
        );
        for companion in ["torchvision", "torchaudio"] {
            let expected = match installed(companion) {
                None => None,
                Some(version) if same_version => Some(version),
                Some(_) => latest.and_then(|set| set.companion(companion)).map(str::to_string),
            };
            assert_eq!(pinned(companion), expected, "{id}: {companion} in {fix}");
        }
        if same_version {
            assert!(
                fix.split_once(" -m pip ")
                    .is_some_and(|(_, rest)| rest.starts_with("uninstall -y torch")),
                "{id}: pip keeps a same-version install: {fix}"
            );
        }
        let variant = fix
            .split("--index-url https://download.pytorch.org/whl/")
            .nth(1)
            .and_then(|rest| rest.split([' ', ':']).next())
            .unwrap_or_else(|| panic!("{id}: no PyTorch index in {fix}"));
        let platform = node.snapshot["system"]["architecture"].as_str().unwrap();
        let build = tables
            .torch
            .build(release, variant, platform)
            .unwrap_or_else(|| panic!("{id}: torch {release} has no {variant} build for {platform}: {fix}"));
        let driver = node.snapshot["nvidia"]["driver_version"].as_str().unwrap();
        let floor = &tables.drivers.floor(build.cuda.major).unwrap().linux_min_driver;
        let driver_version: pep440_rs::Version = driver.parse().unwrap();
        assert!(
            floor.version <= driver_version,
            "{id}: {variant} needs driver {floor}, the node has {driver}"
        );
        for gpu in node.snapshot["nvidia"]["gpus"].as_array().unwrap() {
            let capability = MajorMinor::parse(gpu["compute_capability"].as_str().unwrap()).unwrap();
            assert!(
                build.runnable_entry(capability).is_some(),
                "{id}: {variant} of torch {release} has no code for {} ({capability}): {fix}",
                gpu["name"]
            );
        }
    }
    assert!(torch_fixes >= 11, "only {torch_fixes} rules printed a torch fix");
}

/// Rules withdrawn as wrong: kept so ignores and reports keep meaning, never evaluated.
const WITHDRAWN: &[&str] = &[
    "cuda-13-nvcc-pre-turing-deepspeed-ops",
    "bnb-0-43-1-to-0-45-3-cuda-12-8",
];

#[test]
fn bitsandbytes_0_45_3_ships_cuda_12_8_and_bnb_cuda_version_is_the_workaround() {
    let cu128 = |version: &str| Node::h100().package("bitsandbytes", version).torch("2.7.1+cu128");
    assert_quiet("bnb-0-43-1-to-0-45-3-cuda-12-8", cu128("0.45.3"));
    assert_quiet("bnb-0-43-1-to-0-45-2-cuda-12-8", cu128("0.45.3"));
    assert_quiet(
        "bnb-0-43-1-to-0-45-2-cuda-12-8",
        cu128("0.45.2").env("BNB_CUDA_VERSION", "126"),
    );
}

#[test]
fn deepspeed_skipping_its_cuda_check_silences_the_cuda_13_minor_rules() {
    let node = Node::h100()
        .package("deepspeed", "0.19.7")
        .toolkit("13.1.1")
        .deepspeed_config("ds-zero3-offload-cpu.json")
        .env("DS_SKIP_CUDA_CHECK", "1");
    assert_quiet("deepspeed-cpu-optimizer-torch-cuda-13-0-nvcc-other-13-minor", node);
}

#[test]
fn a_clang_host_compiler_is_not_judged_by_the_gcc_rules() {
    let mut node = Node::h100().toolkit("12.6.3").host_gcc("18.1.3");
    node.snapshot["cuda"]["host_compiler"]["family"] = json!("clang");
    assert_quiet("cuda-12-4-to-12-6-nvcc-gcc-above-13", node);
}

#[test]
fn a_withdrawn_rule_is_quiet_where_it_used_to_fire() {
    // V100, DeepSpeed and a CUDA 13 toolkit: where cuda-13-nvcc-pre-turing-deepspeed-ops fired.
    assert_quiet(
        "cuda-13-nvcc-pre-turing-deepspeed-ops",
        Node::h100()
            .gpus(&[V100])
            .package("deepspeed", "0.16.3")
            .toolkit("13.0.2"),
    );
}

/// numpy 1.19.5's crash is its aarch64 wheels' OpenBLAS: the same release
/// on x86_64 is another wheel.
#[test]
fn numpy_1_19_5_on_x86_64_is_not_the_aarch64_wheels_crash() {
    assert_quiet(
        "numpy-1-19-5-aarch64-jetson-illegal-instruction",
        Node::h100().package("numpy", "1.19.5"),
    );
}

/// A rule file without a case above, or a case for a rule that does not exist,
/// fails here: every rule ships with a test that makes it fire and one that must not.
#[test]
fn every_rule_has_a_firing_and_a_quiet_case() {
    let mut files: Vec<String> = std::fs::read_dir(repo("compat-matrix/rules"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "toml"))
        .map(|path| path.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    files.sort();
    let mut covered: Vec<String> = RULES.iter().chain(WITHDRAWN).map(|id| id.to_string()).collect();
    covered.sort();
    let missing: Vec<_> = files.iter().filter(|id| !covered.contains(id)).collect();
    let unknown: Vec<_> = covered.iter().filter(|id| !files.contains(id)).collect();
    assert!(
        missing.is_empty(),
        "rules without a firing and a quiet case in tests/it/matrix_rules.rs: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "cases for rules that have no file in compat-matrix/rules: {unknown:?}"
    );
    assert!(files.len() >= 30, "the matrix has {} rules", files.len());
}

/// The one rule that speaks on the recorded Hopper nodes: their torch 2.11.0+cu130
/// loads cuDNN 9.19.0.56, whose sm_90 attention backward gives NaN grad_q with
/// an attn_mask (pytorch/pytorch#196678). A true warning, not a false alarm.
const RECORDED_HOPPER_FINDINGS: &[&str] = &["torch-2-11-to-2-14-cudnn-below-9-26-sdpa-mask-nan-hopper"];

/// False alarms are bugs too. The node recorded on a real H100 (driver
/// 580.159.04, torch 2.11.0+cu130 with its torchvision and torchaudio,
/// transformers, accelerate and PEFT, no DeepSpeed) is healthy but for the
/// cuDNN attention warning: nothing else speaks, at any severity, and no error.
#[test]
fn the_recorded_h100_node_has_only_the_cudnn_attention_warning() {
    let (code, report) = Node::h100().check();
    let ids: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| (finding["id"].as_str().unwrap(), finding["severity"].as_str().unwrap()))
        .collect();
    let expected: Vec<_> = RECORDED_HOPPER_FINDINGS.iter().map(|id| (*id, "warning")).collect();
    assert_eq!(ids, expected, "{:#}", report["findings"]);
    assert_eq!(code, 0);
}

/// torch 2.15.0 requires Python 3.11: on 3.10 no fix may ask for it, and the
/// rule whose fix would be torch 2.15 prints its written fix instead.
#[test]
fn a_torch_fix_never_offers_torch_2_15_below_python_3_11() {
    let id = "torch-2-11-to-2-14-cudnn-below-9-26-sdpa-mask-nan-hopper";
    let node = || Node::h100().without("torchvision").without("torchaudio");
    let (_, report) = node().check();
    let fix = findings(&report, id)[0]["fix"].as_str().unwrap().to_string();
    assert!(fix.contains("\"torch==2.15.0\""), "{fix}");
    let (_, report) = node().python("3.10.12").check();
    let fix = findings(&report, id)[0]["fix"].as_str().unwrap().to_string();
    assert!(!fix.contains("2.15.0"), "{fix}");
    assert!(fix.starts_with("Install torch 2.15 or newer"), "{fix}");
}

/// The forward-compatibility libcuda matters only when it is newer than the
/// driver; a Snapshot recorded before envdoctor looked says nothing about it.
#[test]
fn a_compat_libcuda_not_newer_than_the_driver_or_not_looked_for_is_quiet() {
    let id = "cuda-forward-compat-on-geforce";
    let geforce = || {
        Node::h100()
            .gpus(&[RTX_4090, RTX_4090])
            .env("LD_LIBRARY_PATH", NGC_LD_LIBRARY_PATH)
    };
    assert_quiet(id, geforce().compat_libcuda(&["580.65.06"]));
    assert_quiet(id, geforce());
    assert_quiet(
        id,
        Node::h100()
            .env("LD_LIBRARY_PATH", NGC_LD_LIBRARY_PATH)
            .compat_libcuda(&["595.45.04"]),
    );
}

#[test]
fn cuda_13_3_nvcc_still_refuses_gcc_16_and_13_4_accepts_it() {
    let id = "cuda-13-0-to-13-2-nvcc-gcc-above-15";
    assert_fires(id, "warning", Node::h100().toolkit("13.3.0").host_gcc("16.1.0"));
    assert_quiet(id, Node::h100().toolkit("13.4.0").host_gcc("16.1.0"));
}

// Config facts: a rule whose config file was not given speaks one severity
// lower and names the flag that would settle it; a config that says otherwise
// silences it.

#[test]
fn zero3_offload_rule_without_a_deepspeed_config_is_a_warning_naming_the_flag() {
    // A node where DeepSpeed 0.14.1 imports at all: numpy 1, torch before 2.4
    // (and a transformers that takes it).
    let (_, report) = Node::h100()
        .package("deepspeed", "0.14.1")
        .package("numpy", "1.26.4")
        .package("transformers", "4.52.0")
        .torch("2.3.1+cu121")
        .check();
    let found = findings(&report, "deepspeed-zero3-offload-device-mismatch");
    assert_eq!(found.len(), 1, "{:#}", report["findings"]);
    assert_eq!(found[0]["severity"], "warning");
    assert!(
        found[0]["unsettled"].as_str().unwrap().contains("--deepspeed-config"),
        "{:#}",
        found[0]
    );
}

#[test]
fn zero3_without_offload_and_deepspeed_0_14_0_are_quiet() {
    let without_offload = Node::h100()
        .package("deepspeed", "0.14.2")
        .deepspeed_config("ds-zero3-no-offload.json");
    assert_quiet("deepspeed-zero3-offload-device-mismatch", without_offload);
    let before = Node::h100()
        .package("deepspeed", "0.14.0")
        .deepspeed_config("ds-zero3-offload-cpu.json");
    assert_quiet("deepspeed-zero3-offload-device-mismatch", before);
}

#[test]
fn zero3_offload_from_the_accelerate_deepspeed_block_fires() {
    // accelerate's own DeepSpeed block (offload to cpu, stage 3) is read as the
    // DeepSpeed config when no --deepspeed-config is given.
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("accelerate.yaml");
    std::fs::write(
        &config,
        "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  offload_optimizer_device: cpu\n  \
         offload_param_device: cpu\n  zero3_init_flag: true\n  zero_stage: 3\ndistributed_type: DEEPSPEED\n\
         mixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n",
    )
    .unwrap();
    let node = Node::h100().package("deepspeed", "0.14.2");
    let mut snapshot = tempfile::NamedTempFile::new_in(directory.path()).unwrap();
    serde_json::to_writer(&mut snapshot, &node.snapshot).unwrap();
    let output = envdoctor(directory.path())
        .env("HF_HOME", directory.path())
        .args(["check", "--no-smoke", "--format", "json", "--snapshot"])
        .arg(snapshot.path())
        .arg("--accelerate-config")
        .arg(&config)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let found = findings(&report, "deepspeed-zero3-offload-device-mismatch");
    assert_eq!(found.len(), 1, "{:#}", report["findings"]);
    assert_eq!(found[0]["severity"], "error");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn distributed_device_map_rule_without_an_accelerate_config_is_info() {
    let (_, report) = Node::h100().gpus(&[H100, H100]).check();
    let found = findings(&report, "device-map-auto-distributed-launch");
    assert_eq!(found.len(), 1, "{:#}", report["findings"]);
    assert_eq!(found[0]["severity"], "info");
    assert!(
        found[0]["unsettled"].as_str().unwrap().contains("--accelerate-config"),
        "{:#}",
        found[0]
    );
}

#[test]
fn bf16_rule_reads_the_gpu_that_lacks_bf16_in_a_mixed_node() {
    let (_, report) = Node::h100()
        .gpus(&[A100, T4])
        .accelerate_config("accelerate-multi-gpu-bf16.yaml")
        .check();
    let found = findings(&report, "bf16-pre-ampere-accelerate");
    assert_eq!(found.len(), 1, "{:#}", report["findings"]);
    let detail = found[0]["detail"].as_str().unwrap();
    assert!(detail.contains("cuda:1 Tesla T4 (compute capability 7.5)"), "{detail}");
    assert!(
        !detail.contains("A100"),
        "only the GPU that satisfied the condition is named: {detail}"
    );
}

// Boundaries: the versions on either side of each range the references give.

#[test]
fn blackwell_is_fine_on_cuda_13_and_ampere_is_fine_on_cuda_12_6() {
    assert_quiet("blackwell-torch-without-sm100-sm120", Node::h100().gpus(&[B200]));
    let ampere = Node::h100().gpus(&[A100]).torch("2.6.0+cu126");
    assert_quiet("blackwell-torch-without-sm100-sm120", ampere);
}

#[test]
fn a_cpu_build_of_torch_is_not_judged_by_gpu_architecture_rules() {
    let cpu = Node::h100().gpus(&[V100]).torch("2.11.0+cpu");
    assert_quiet("volta-torch-cuda-13", cpu);
}

#[test]
fn turing_is_in_cuda_13_builds() {
    assert_quiet("volta-torch-cuda-13", Node::h100().gpus(&[T4]));
    assert_quiet("maxwell-pascal-torch-cuda-12-8", Node::h100().gpus(&[T4]));
}

#[test]
fn transformers_torch_floor_bands_meet_without_gaps() {
    // The last version of one band and the first of the next, each with the
    // torch just below the later floor: exactly one band speaks.
    let cases = [
        ("4.51.3", "1.13.1+cu117", "transformers-4-48-torch-below-2-0"),
        ("4.57.6", "2.0.1+cu118", "transformers-4-52-torch-below-2-1"),
        ("5.0.0", "2.1.2+cu121", "transformers-5-0-torch-below-2-2"),
        ("5.14.1", "2.3.1+cu121", "transformers-5-1-torch-below-2-4"),
        ("5.19.0", "2.4.1+cu124", "transformers-5-15-torch-below-2-5"),
        ("5.23.0", "2.5.1+cu124", "transformers-5-20-torch-below-2-6"),
    ];
    for (transformers, torch, id) in cases {
        let node = Node::h100().package("transformers", transformers).torch(torch);
        let (_, report) = node.check();
        let bands: Vec<_> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|finding| finding["id"].as_str())
            .filter(|finding| finding.starts_with("transformers-") && finding.contains("-torch-below-"))
            .collect();
        assert_eq!(bands, [id], "transformers {transformers} with torch {torch}");
    }
}

#[test]
fn peft_bands_under_transformers_5_do_not_overlap() {
    let cases = [
        ("5.5.4", "0.18.0", None),
        ("5.5.4", "0.17.1", Some("transformers-5-peft-hybridcache-import")),
        ("5.5.4", "0.13.2", Some("transformers-5-peft-below-0-16")),
        ("5.12.1", "0.18.1", Some("transformers-5-6-peft-below-0-18-2")),
        ("5.17.0", "0.19.0", Some("transformers-5-13-peft-below-0-19-1")),
        ("5.23.0", "0.19.1", Some("transformers-5-18-peft-below-0-20")),
        ("5.23.0", "0.20.0", None),
    ];
    for (transformers, peft, expected) in cases {
        let node = Node::h100().package("transformers", transformers).package("peft", peft);
        let (_, report) = node.check();
        let peft_rules: Vec<_> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|finding| finding["id"].as_str())
            .filter(|id| id.starts_with("transformers-5") && id.contains("-peft-"))
            .collect();
        assert_eq!(
            peft_rules,
            expected.into_iter().collect::<Vec<_>>(),
            "transformers {transformers}, peft {peft}"
        );
    }
}

/// transformers 5.24 raised PEFT's floor from 0.20 to 0.22: the 5.18 rule
/// stops at 5.23, and on 5.24 only the newer rule speaks.
#[test]
fn peft_0_19_on_transformers_5_24_is_the_5_24_rule_not_the_5_18_one() {
    let (_, report) = Node::h100()
        .package("transformers", "5.24.0")
        .package("peft", "0.19.1")
        .check();
    assert_eq!(
        findings(&report, "transformers-5-24-peft-below-0-22").len(),
        1,
        "{:#}",
        report["findings"]
    );
    assert!(
        findings(&report, "transformers-5-18-peft-below-0-20").is_empty(),
        "{:#}",
        report["findings"]
    );
}

/// The node recorded on a real H200 (driver 580.159.04, torch 2.11.0+cu130, a
/// CUDA 13.0 toolkit and GCC 13.3.0 as CXX, which nvcc 13.0 accepts): only the
/// cuDNN attention warning speaks, as on the H100.
#[test]
fn the_recorded_h200_node_has_only_the_cudnn_attention_warning() {
    let cache = tempfile::tempdir().unwrap();
    let output = envdoctor(cache.path())
        .env("HF_HOME", cache.path().join("hf-home"))
        .env_remove("ACCELERATE_CONFIG_FILE")
        .args(["check", "--no-smoke", "--format", "json", "--snapshot"])
        .arg(repo("tests/fixtures/snapshots/h200-torch2.11-cu130-recorded.json"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let ids: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, RECORDED_HOPPER_FINDINGS, "{:#}", report["findings"]);
    assert_eq!(output.status.code(), Some(0));
}

/// A torchvision left from an older torch pins that torch exactly: a fix that
/// changes only torch's build must not keep it, or pip is asked for a set it
/// cannot install. The newest build of torch 2.14 for CUDA 12.6 has no code
/// for a B200; torchvision 0.26.0 was made for torch 2.11.
#[test]
fn a_build_change_never_keeps_a_companion_of_another_torch() {
    let node = Node::h100()
        .gpus(&[B200])
        .torch("2.14.1+cu126")
        .package("torchvision", "0.26.0");
    let (_, report) = node.check();
    let fixes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|finding| finding["fix"].as_str())
        .filter(|fix| fix.contains("\"torch=="))
        .collect();
    for fix in &fixes {
        assert!(!fix.contains("torchvision==0.26.0"), "{fix}");
    }
    // The same node with the torchvision made for 2.14 keeps it and changes the build.
    let (_, report) = Node::h100().gpus(&[B200]).torch("2.14.1+cu126").check();
    let kept = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|finding| finding["fix"].as_str())
        .any(|fix| fix.contains("\"torch==2.14.1\"") && fix.contains("\"torchvision==0.29.2\""));
    assert!(kept, "{report:#}");
}

/// Words any code prints, whichever cause is behind them: an autograd
/// Function's wrongly shaped gradient, DataParallel's wrapper around any
/// replica's error, any index out of bounds. A cause that lists one of them as
/// its message names itself for every such failure (two confident wrong
/// answers on held batch BQ, and the second review's finds); the words that
/// tell the cause apart (`expected device meta`, `Target N`) must be its own.
#[test]
fn no_cause_lists_words_any_code_prints_as_its_message() {
    const ANY_CODE: [&str; 4] = [
        "returned an invalid gradient at index",
        "Caught RuntimeError in replica",
        "is out of bounds.",
        "is out of bounds",
    ];
    let matrix = envdoctor::matrix::Matrix::load(&[]).unwrap();
    let listed: Vec<(&str, &String)> = matrix
        .rules
        .iter()
        .map(|rule| (rule.id.as_str(), &rule.symptoms))
        .chain(matrix.symptoms.iter().map(|entry| (entry.id.as_str(), &entry.symptoms)))
        .flat_map(|(id, symptoms)| symptoms.every_message().map(move |message| (id, message)))
        .filter(|(_, message)| ANY_CODE.iter().any(|words| message.trim() == *words))
        .collect();
    assert!(listed.is_empty(), "{listed:?}");
}
