//! DeepSpeed's build record, `deepspeed/git_version_info_installed.py`.
//!
//! DeepSpeed's `setup.py` (deepspeedai/DeepSpeed, formerly microsoft/DeepSpeed)
//! writes it at install time with one `fd.write(f"name={repr}\n")` per line:
//! `version`, `git_hash`, `git_branch`, `installed_ops` (op name -> `False` or
//! the `op_enabled()` value, `1`, when compiled ahead of time),
//! `accelerator_name` (since about 0.10), `compatible_ops` (0.7 to 0.10 only)
//! and `torch_info` (`version`, `bf16_support`, `cuda_version`, `nccl_version`,
//! `hip_version`, where `"0.0"` means none). `deepspeed/git_version_info.py`
//! falls back to "no op installed" when the file is missing: a source checkout
//! that never ran `setup.py`.

use std::collections::BTreeMap;
use std::path::Path;

use super::python_literal::{self, Fields, Value};
use super::{Installed, read_text, version_tags};
use crate::snapshot::frameworks::{Build, DeepSpeedBuild, DeepSpeedTorchInfo};

const RECORD: &str = "git_version_info_installed.py";

pub fn read(found: &Installed, problems: &mut Vec<String>) -> Build {
    let file = found.package_dir.join(RECORD);
    let Some(text) = read_text(&file, problems) else {
        if !file.exists() {
            problems.push(format!(
                "{}: missing: DeepSpeed's setup.py did not run for this copy (a source checkout on sys.path?), \
                 so it reports no op as pre-built and compiles each one on first use",
                file.display()
            ));
        }
        return Build::Deepspeed(DeepSpeedBuild::default());
    };
    let build = parse(&text, &file, problems);
    if let Some(recorded) = &build.version {
        let metadata = found.distribution.and_then(|package| package.version.as_deref());
        problems.extend(version_tags::recorded_version_problem(recorded, &file, metadata));
    }
    Build::Deepspeed(build)
}

pub fn parse(text: &str, file: &Path, problems: &mut Vec<String>) -> DeepSpeedBuild {
    let values = python_literal::assignments(text);
    let mut fields = Fields {
        values: &values,
        file,
        problems,
    };
    let installed_ops = ops(&mut fields, "installed_ops");
    if installed_ops.is_none() {
        fields
            .problems
            .push(format!("{}: no readable `installed_ops`", file.display()));
    }
    DeepSpeedBuild {
        build_record: true,
        version: fields.string("version"),
        git_hash: fields.string("git_hash"),
        git_branch: fields.string("git_branch"),
        accelerator_name: fields.string("accelerator_name"),
        installed_ops: installed_ops.unwrap_or_default(),
        compatible_ops: ops(&mut fields, "compatible_ops"),
        torch_info: torch_info(&mut fields),
    }
}

fn ops(fields: &mut Fields, name: &str) -> Option<BTreeMap<String, bool>> {
    let file = fields.file.display().to_string();
    let Value::Dict(entries) = fields.value(name)? else {
        fields
            .problems
            .push(format!("{file}: `{name}` is not a dict of op names"));
        return None;
    };
    let mut ops = BTreeMap::new();
    for (key, value) in entries {
        match (key, value) {
            (Value::Str(op), Value::Bool(_) | Value::Int(_)) => {
                ops.insert(op.clone(), value.truthy());
            }
            _ => fields.problems.push(format!(
                "{file}: `{name}` has an entry that is not an op name with True, False or a number: {key:?}: {value:?}"
            )),
        }
    }
    Some(ops)
}

fn torch_info(fields: &mut Fields) -> Option<DeepSpeedTorchInfo> {
    let file = fields.file.display().to_string();
    let info = fields.value("torch_info")?;
    if !matches!(info, Value::Dict(_)) {
        fields.problems.push(format!("{file}: `torch_info` is not a dict"));
        return None;
    }
    let mut wrong = Vec::new();
    let mut text = |key: &str| match info.get(key) {
        None | Some(Value::None) => None,
        Some(Value::Str(text)) => Some(text.clone()),
        Some(other) => {
            wrong.push(format!(
                "{file}: `torch_info['{key}']` is {}, not a string",
                other.kind()
            ));
            None
        }
    };
    let parsed = DeepSpeedTorchInfo {
        version: text("version"),
        cuda_version: text("cuda_version"),
        hip_version: text("hip_version"),
        nccl_version: text("nccl_version"),
        bf16_support: None,
    };
    let bf16_support = match info.get("bf16_support") {
        None => None,
        Some(Value::Bool(value)) => Some(*value),
        Some(other) => {
            wrong.push(format!(
                "{file}: `torch_info['bf16_support']` is {}, not a bool",
                other.kind()
            ));
            None
        }
    };
    fields.problems.extend(wrong);
    Some(DeepSpeedTorchInfo { bf16_support, ..parsed })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/frameworks");

    fn parse_fixture(name: &str) -> (DeepSpeedBuild, Vec<String>) {
        let path = Path::new(FIXTURES).join(name);
        let mut problems = Vec::new();
        let build = parse(&std::fs::read_to_string(&path).unwrap(), &path, &mut problems);
        (build, problems)
    }

    #[test]
    fn deepspeed_0_16_3_cuda_build_with_no_op_prebuilt() {
        // deepspeed 0.16.3 installed by pip (JIT ops), git_version_info_installed.py as setup.py wrote it
        let (build, problems) = parse_fixture("deepspeed-0.16.3.git_version_info_installed.py");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(build.version.as_deref(), Some("0.16.3"));
        assert_eq!(build.git_hash.as_deref(), Some("unknown"));
        assert_eq!(build.accelerator_name.as_deref(), Some("cuda"));
        assert_eq!(build.installed_ops.len(), 21);
        assert!(build.installed_ops.values().all(|built| !built));
        assert_eq!(build.compatible_ops, None);
        assert_eq!(
            build.torch_info,
            Some(DeepSpeedTorchInfo {
                version: Some("2.3".into()),
                cuda_version: Some("12.4".into()),
                hip_version: Some("0.0".into()),
                nccl_version: Some("2.20".into()),
                bf16_support: Some(true),
            })
        );
    }

    #[test]
    fn an_op_built_ahead_of_time_is_recorded_as_1() {
        // deepspeed 0.16.1+7384483 (a fork built from source with one op pre-built)
        let (build, problems) = parse_fixture("deepspeed-0.16.1+7384483.git_version_info_installed.py");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(build.installed_ops.get("cpu_vertin"), Some(&true));
        assert_eq!(build.installed_ops.get("cpu_adam"), Some(&false));
        assert_eq!(build.git_branch.as_deref(), Some("main"));
    }

    #[test]
    fn deepspeed_0_9_3_records_compatible_ops_and_no_accelerator() {
        let (build, problems) = parse_fixture("deepspeed-0.9.3.git_version_info_installed.py");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(build.accelerator_name, None);
        let compatible = build.compatible_ops.unwrap();
        assert_eq!((compatible["fused_adam"], compatible["async_io"]), (true, false));
        assert_eq!(build.torch_info.unwrap().cuda_version.as_deref(), Some("11.6"));
    }

    #[test]
    fn malformed_records_are_problems() {
        let mut problems = Vec::new();
        let file = Path::new("/site/deepspeed/git_version_info_installed.py");
        let build = parse(
            "version='0.14.0'\ninstalled_ops={'fused_adam': 'yes', 3: True}\ntorch_info=[1]\n",
            file,
            &mut problems,
        );
        assert_eq!(build.version.as_deref(), Some("0.14.0"));
        assert!(build.installed_ops.is_empty());
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(
            problems
                .iter()
                .all(|problem| problem.starts_with(&file.display().to_string()))
        );
        let mut problems = Vec::new();
        parse("installed_ops={'a': True\n", file, &mut problems);
        assert!(problems[0].contains("`installed_ops` is not readable"), "{problems:?}");
    }

    #[test]
    fn a_missing_record_is_reported() {
        let root = tempfile::tempdir().unwrap();
        let mut problems = Vec::new();
        let found = Installed {
            package_dir: root.path(),
            distribution: None,
        };
        let Build::Deepspeed(build) = read(&found, &mut problems) else {
            panic!("a DeepSpeed build")
        };
        assert!(!build.build_record);
        assert!(
            problems[0].contains("git_version_info_installed.py: missing"),
            "{problems:?}"
        );
    }
}
