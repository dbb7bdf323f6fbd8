//! xFormers' build record, `xformers/cpp_lib.json`.
//!
//! facebookresearch/xformers `setup.py` writes it beside the compiled extension
//! `xformers/_C.so` (`extra_files={"cpp_lib.json": json.dumps(...)}`), from
//! `get_extensions()`: `version` holds `cuda` (an int, `major * 100 + minor`,
//! from `get_cuda_version()`), `hip`, `torch` (`torch.__version__` at build
//! time), `python`, `flash` and `use_torch_flash`; `env` holds build variables
//! (`TORCH_CUDA_ARCH_LIST`, ...), `null` when unset. xformers' own
//! `_cpp_lib.py` reads this file to warn when the installed torch differs.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Installed, list_names, read_text};
use crate::snapshot::frameworks::{Build, XformersBuild};

const RECORD: &str = "cpp_lib.json";

pub fn read(found: &Installed, problems: &mut Vec<String>) -> Build {
    let extension = list_names(found.package_dir, problems)
        .into_iter()
        .find(|name| name.starts_with("_C.") && [".so", ".pyd"].iter().any(|suffix| name.ends_with(suffix)));
    let file = found.package_dir.join(RECORD);
    let mut build = match read_text(&file, problems) {
        Some(text) => parse(&text).unwrap_or_else(|problem| {
            problems.push(format!("{}: {problem}", file.display()));
            XformersBuild::default()
        }),
        None => {
            if !file.exists() {
                problems.push(format!(
                    "{}: missing: built without its C++/CUDA extension, so only xformers' pure-Python paths work",
                    file.display()
                ));
            }
            XformersBuild::default()
        }
    };
    build.extension = extension;
    Build::Xformers(build)
}

pub fn parse(text: &str) -> Result<XformersBuild, String> {
    let document: Value = serde_json::from_str(text).map_err(|error| format!("malformed JSON: {error}"))?;
    let version = document
        .get("version")
        .filter(|version| version.is_object())
        .ok_or("no `version` object")?;
    let text_of = |key: &str| -> Result<Option<String>, String> {
        match version.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!("`version.{key}` is {other}, not a string")),
        }
    };
    let cuda = match version.get("cuda") {
        None | Some(Value::Null) => None,
        Some(Value::Number(number)) => {
            let code = number
                .as_u64()
                .ok_or_else(|| format!("`version.cuda` is {number}, not a CUDA version code"))?;
            Some(format!("{}.{}", code / 100, code % 100))
        }
        Some(other) => return Err(format!("`version.cuda` is {other}, not a CUDA version code")),
    };
    let use_torch_flash = match version.get("use_torch_flash") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(value)) => Some(*value),
        Some(other) => return Err(format!("`version.use_torch_flash` is {other}, not a bool")),
    };
    let build_env = match document.get("env") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(variables)) => variables
            .iter()
            .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_string())))
            .collect(),
        Some(other) => return Err(format!("`env` is {other}, not an object")),
    };
    Ok(XformersBuild {
        build_record: true,
        extension: None,
        cuda,
        hip: text_of("hip")?,
        torch: text_of("torch")?,
        python: text_of("python")?,
        flash: text_of("flash")?,
        use_torch_flash,
        build_env,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/frameworks");

    #[test]
    fn xformers_0_0_27_post2_wheel() {
        // xformers-0.0.27.post2-cp311-cp311-manylinux2014_x86_64.whl, xformers/cpp_lib.json
        let text = std::fs::read_to_string(format!("{FIXTURES}/xformers-0.0.27.post2.cpp_lib.json")).unwrap();
        let build = parse(&text).unwrap();
        assert_eq!(build.cuda.as_deref(), Some("12.1"));
        assert_eq!(build.hip, None);
        assert_eq!(build.torch.as_deref(), Some("2.4.0+cu121"));
        assert_eq!(build.python.as_deref(), Some("3.11.9"));
        assert_eq!(build.flash.as_deref(), Some("2.5.6-pt"));
        assert_eq!(build.use_torch_flash, Some(true));
        assert_eq!(
            build.build_env.get("TORCH_CUDA_ARCH_LIST").map(String::as_str),
            Some("6.0+PTX 7.0 7.5 8.0+PTX")
        );
        assert!(!build.build_env.contains_key("NVCC_FLAGS"), "null means unset");
    }

    #[test]
    fn xformers_0_0_22_wheel_has_no_hip_key() {
        // xformers-0.0.22-cp311-cp311-manylinux2014_x86_64.whl, xformers/cpp_lib.json
        let text = std::fs::read_to_string(format!("{FIXTURES}/xformers-0.0.22.cpp_lib.json")).unwrap();
        let build = parse(&text).unwrap();
        assert_eq!(build.cuda.as_deref(), Some("11.8"));
        assert_eq!(build.torch.as_deref(), Some("2.0.1+cu118"));
        assert_eq!(build.use_torch_flash, None);
    }

    #[test]
    fn malformed_records_are_errors() {
        assert!(parse("{").unwrap_err().starts_with("malformed JSON"));
        assert_eq!(parse("[]").unwrap_err(), "no `version` object");
        assert!(
            parse(r#"{"version": {"cuda": "12.1"}}"#)
                .unwrap_err()
                .contains("not a CUDA version code")
        );
        assert!(
            parse(r#"{"version": {"torch": 2}}"#)
                .unwrap_err()
                .contains("`version.torch`")
        );
    }
}
