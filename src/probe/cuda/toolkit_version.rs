//! A toolkit's version: from the files the installer leaves at its root, else
//! from its compiler, run under a deadline.

use std::io::ErrorKind;
use std::process::Command;
use std::time::Duration;

use crate::process::{RunError, describe_status, failure_line, run_with_deadline};
use crate::snapshot::cuda::{Toolkit, ToolkitVersionSource};

/// Fills in each toolkit's version. The compilers that have to be asked are
/// asked at once, each under `deadline`, so that several hung ones cost one
/// deadline, not one each.
pub fn fill_versions(mut toolkits: Vec<Toolkit>, deadline: Duration) -> Vec<Toolkit> {
    for toolkit in &mut toolkits {
        read_version_files(toolkit);
    }
    std::thread::scope(|scope| {
        for toolkit in toolkits.iter_mut().filter(|toolkit| toolkit.version.is_none()) {
            scope.spawn(move || ask_nvcc(toolkit, deadline));
        }
    });
    toolkits
}

/// `version.json` (CUDA 11.1 and later), else `version.txt` (CUDA 11.0 and
/// before: mlverse/torch#638 notes 11.1 dropped it).
fn read_version_files(toolkit: &mut Toolkit) {
    let json = toolkit.root.join("version.json");
    match crate::bounded_read::read_to_string(&json, crate::bounded_read::CONFIG_LIMIT) {
        Ok(text) => match parse_version_json(&text) {
            Ok(parsed) => {
                toolkit.nvcc_version = parsed.nvcc;
                if let Some(version) = parsed.cuda {
                    toolkit.version = Some(version);
                    toolkit.version_source = Some(ToolkitVersionSource::VersionJson);
                    toolkit.version_file = Some(json);
                    return;
                }
                toolkit
                    .problems
                    .push(format!("{}: no \"cuda\": {{\"version\": ...}} entry", json.display()));
            }
            Err(error) => toolkit.problems.push(format!("{}: {error}", json.display())),
        },
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => toolkit
            .problems
            .push(format!("{}: cannot read: {error}", json.display())),
    }

    let txt = toolkit.root.join("version.txt");
    match crate::bounded_read::read_to_string(&txt, crate::bounded_read::CONFIG_LIMIT) {
        Ok(text) => match parse_version_txt(&text) {
            Some(version) => {
                toolkit.version = Some(version);
                toolkit.version_source = Some(ToolkitVersionSource::VersionTxt);
                toolkit.version_file = Some(txt);
            }
            None => toolkit.problems.push(format!(
                "{}: expected \"CUDA Version <version>\", found {:?}",
                txt.display(),
                text.lines().next().unwrap_or_default()
            )),
        },
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => toolkit
            .problems
            .push(format!("{}: cannot read: {error}", txt.display())),
    }
}

fn ask_nvcc(toolkit: &mut Toolkit, deadline: Duration) {
    let Some(nvcc) = toolkit.nvcc.clone() else {
        toolkit.problems.push(format!(
            "{}: no version.json, version.txt or bin/nvcc, so its version is unknown",
            toolkit.root.display()
        ));
        return;
    };
    let mut command = Command::new(&nvcc);
    command.arg("--version");
    match run_with_deadline(command, deadline) {
        Ok(finished) => {
            let stdout = String::from_utf8_lossy(&finished.stdout);
            match parse_nvcc_version(&stdout) {
                Some(parsed) => {
                    toolkit.version = Some(parsed.release);
                    toolkit.version_source = Some(ToolkitVersionSource::Nvcc);
                    toolkit.version_file = Some(nvcc);
                    toolkit.nvcc_version = toolkit.nvcc_version.take().or(parsed.nvcc);
                }
                None => toolkit.problems.push(format!(
                    "{} --version ({}) printed no \"Cuda compilation tools, release ...\" line{}",
                    nvcc.display(),
                    describe_status(&finished.status),
                    failure_line(&finished.stderr)
                        .map(|line| format!("; stderr: {line}"))
                        .unwrap_or_default()
                )),
            }
        }
        Err(RunError::TimedOut { seconds, .. }) => toolkit.problems.push(format!(
            "{} --version timed out after {seconds} s and was killed; its version is unknown",
            nvcc.display()
        )),
        Err(error @ RunError::Spawn(_)) => {
            let cause = std::error::Error::source(&error)
                .map(ToString::to_string)
                .unwrap_or_default();
            toolkit.problems.push(format!("{}: {error}: {cause}", nvcc.display()));
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
struct VersionJson {
    /// The toolkit release, `"cuda": {"name": "CUDA SDK", "version": "12.8.2"}`.
    cuda: Option<String>,
    /// The compiler component, `"cuda_nvcc": {"name": "CUDA NVCC", "version": "12.8.93"}`.
    nvcc: Option<String>,
}

/// `version.json` is one object of components, each `{"name", "version"}`,
/// the toolkit as a whole under `"cuda"` (tests/fixtures/cuda/version-12.8.2.json).
fn parse_version_json(text: &str) -> Result<VersionJson, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|error| format!("not valid JSON: {error}"))?;
    let component = |key: &str| {
        value
            .get(key)
            .and_then(|component| component.get("version"))
            .and_then(serde_json::Value::as_str)
            .map(|version| version.trim().to_string())
            .filter(|version| !version.is_empty())
    };
    if !value.is_object() {
        return Err("expected a JSON object of components".to_string());
    }
    Ok(VersionJson {
        cuda: component("cuda"),
        nvcc: component("cuda_nvcc"),
    })
}

/// `version.txt` is one line, `CUDA Version 10.2.89`.
fn parse_version_txt(text: &str) -> Option<String> {
    let version = text.lines().next()?.trim().strip_prefix("CUDA Version ")?.trim();
    is_dotted_number(version).then(|| version.to_string())
}

#[derive(Debug, PartialEq, Eq)]
struct NvccVersion {
    /// `12.4` from `release 12.4,`.
    release: String,
    /// `12.4.131` from `V12.4.131`.
    nvcc: Option<String>,
}

/// The line `Cuda compilation tools, release 12.5, V12.5.82`, the same since
/// CUDA 7 at least (fixtures for 10.1, 11.1 and 12.5 in tests/fixtures/cuda).
fn parse_nvcc_version(output: &str) -> Option<NvccVersion> {
    let line = output
        .lines()
        .find_map(|line| line.trim().strip_prefix("Cuda compilation tools, release "))?;
    let (release, rest) = line.split_once(',').unwrap_or((line, ""));
    let release = release.trim();
    if !is_dotted_number(release) {
        return None;
    }
    let nvcc = rest
        .trim()
        .strip_prefix('V')
        .map(str::trim)
        .filter(|version| is_dotted_number(version))
        .map(str::to_string);
    Some(NvccVersion {
        release: release.to_string(),
        nvcc,
    })
}

fn is_dotted_number(text: &str) -> bool {
    !text.is_empty()
        && text
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
}

/// Exposed for the module's tests of the whole sequence.
#[cfg(test)]
pub(super) fn root_version(root: &std::path::Path, deadline: Duration) -> Toolkit {
    let nvcc = root.join("bin/nvcc");
    let toolkit = Toolkit {
        root: root.to_path_buf(),
        found_via: Vec::new(),
        aliases: Vec::new(),
        version: None,
        version_source: None,
        version_file: None,
        nvcc: nvcc.is_file().then_some(nvcc),
        nvcc_version: None,
        problems: Vec::new(),
    };
    fill_versions(vec![toolkit], deadline).remove(0)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::*;

    #[test]
    fn version_json_of_cuda_12_8() {
        // sdwivan/streamco cuda/version.json at 45232c18, a CUDA 12.8 Update 2 toolkit.
        let text = include_str!("../../../tests/fixtures/cuda/version-12.8.2.json");
        assert_eq!(
            parse_version_json(text),
            Ok(VersionJson {
                cuda: Some("12.8.2".into()),
                nvcc: Some("12.8.93".into()),
            })
        );
    }

    #[test]
    fn version_json_that_is_not_json_or_not_an_object() {
        assert!(
            parse_version_json("{\"cuda\" : {")
                .unwrap_err()
                .starts_with("not valid JSON")
        );
        assert!(parse_version_json("[]").is_err());
        assert_eq!(
            parse_version_json("{\"cuda_nvcc\": {\"version\": \"12.8.93\"}}"),
            Ok(VersionJson {
                cuda: None,
                nvcc: Some("12.8.93".into())
            })
        );
    }

    #[test]
    fn version_txt_of_cuda_10_2_and_11_0() {
        let text = include_str!("../../../tests/fixtures/cuda/version-10.2.89.txt");
        assert_eq!(parse_version_txt(text).as_deref(), Some("10.2.89"));
        // sleepyheead/Numpy-Tensorflow-ScikitLearn_Exercises, a CUDA 11.0 machine.
        let text = include_str!("../../../tests/fixtures/cuda/version-11.0.207.txt");
        assert_eq!(parse_version_txt(text).as_deref(), Some("11.0.207"));
        assert_eq!(parse_version_txt("CUDA Version ten\n"), None);
        assert_eq!(parse_version_txt(""), None);
    }

    #[test]
    fn nvcc_version_of_cuda_12_5() {
        // risc0/risc0#2449.
        let text = include_str!("../../../tests/fixtures/cuda/nvcc-12.5.txt");
        assert_eq!(
            parse_nvcc_version(text),
            Some(NvccVersion {
                release: "12.5".into(),
                nvcc: Some("12.5.82".into())
            })
        );
    }

    #[test]
    fn nvcc_version_of_cuda_11_1_and_10_1() {
        // pytorch/builder#580 and k2-fsa/k2#584; 10.1 has no trailing Build line.
        let text = include_str!("../../../tests/fixtures/cuda/nvcc-11.1.txt");
        assert_eq!(
            parse_nvcc_version(text).map(|v| (v.release, v.nvcc)),
            Some(("11.1".into(), Some("11.1.105".into())))
        );
        let text = include_str!("../../../tests/fixtures/cuda/nvcc-10.1.txt");
        assert_eq!(
            parse_nvcc_version(text).map(|v| (v.release, v.nvcc)),
            Some(("10.1".into(), Some("10.1.243".into())))
        );
        assert_eq!(parse_nvcc_version("nvcc fatal : Unknown option '--version'\n"), None);
    }

    fn write_script(path: &Path, body: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn version_json_wins_over_version_txt_and_nvcc_is_not_run() {
        let root = tempfile::tempdir().unwrap();
        fs::write(
            root.path().join("version.json"),
            include_str!("../../../tests/fixtures/cuda/version-12.8.2.json"),
        )
        .unwrap();
        fs::write(root.path().join("version.txt"), "CUDA Version 10.2.89\n").unwrap();
        // Would be reported if it ran.
        write_script(&root.path().join("bin/nvcc"), "exit 1");
        let toolkit = root_version(root.path(), Duration::from_secs(5));
        assert_eq!(toolkit.version.as_deref(), Some("12.8.2"));
        assert_eq!(toolkit.version_source, Some(ToolkitVersionSource::VersionJson));
        assert_eq!(toolkit.nvcc_version.as_deref(), Some("12.8.93"));
        assert_eq!(toolkit.problems, Vec::<String>::new());
    }

    #[test]
    fn a_broken_version_json_is_a_problem_and_nvcc_answers_instead() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("version.json"), "{").unwrap();
        let output = include_str!("../../../tests/fixtures/cuda/nvcc-11.1.txt");
        write_script(&root.path().join("bin/nvcc"), &format!("cat <<'EOF'\n{output}EOF"));
        let toolkit = root_version(root.path(), Duration::from_secs(5));
        assert_eq!(toolkit.version.as_deref(), Some("11.1"));
        assert_eq!(toolkit.version_source, Some(ToolkitVersionSource::Nvcc));
        assert_eq!(toolkit.nvcc_version.as_deref(), Some("11.1.105"));
        assert_eq!(toolkit.problems.len(), 1, "{:?}", toolkit.problems);
        assert!(
            toolkit.problems[0].contains("version.json: not valid JSON"),
            "{:?}",
            toolkit.problems
        );
    }

    #[test]
    fn a_hung_nvcc_is_killed_at_the_deadline() {
        let root = tempfile::tempdir().unwrap();
        write_script(&root.path().join("bin/nvcc"), "sleep 60");
        let started = std::time::Instant::now();
        let toolkit = root_version(root.path(), Duration::from_millis(300));
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(toolkit.version, None);
        assert!(
            toolkit.problems[0].contains("timed out after 0.3 s"),
            "{:?}",
            toolkit.problems
        );
    }

    #[test]
    fn an_empty_directory_has_no_version_and_says_why() {
        let root = tempfile::tempdir().unwrap();
        let toolkit = root_version(root.path(), Duration::from_secs(5));
        assert_eq!(toolkit.version, None);
        assert_eq!(toolkit.version_source, None);
        assert!(
            toolkit.problems[0].contains("no version.json, version.txt or bin/nvcc"),
            "{:?}",
            toolkit.problems
        );
    }
}
