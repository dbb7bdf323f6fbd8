//! The C++ compiler a CUDA extension build would hand to nvcc: `CXX`, else
//! `c++` on `PATH`, as torch's `cpp_extension` chooses it (DeepSpeed's JIT ops
//! and source builds such as flash-attn go through it). nvcc refuses a GCC
//! newer than its `host_config.h` allows, so its version decides whether such a
//! build can start. Asked only where a toolkit with nvcc was found: without
//! one, nothing compiles CUDA and the compiler does not matter.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::{RunError, describe_status, run_with_deadline};
use crate::snapshot::cuda::{CompilerFamily, HostCompiler};

/// The compiler `CXX` names (a bare name is looked up on `PATH`), else `c++`;
/// `None` when neither resolves to a file.
pub fn find(env: &dyn Fn(&str) -> Option<OsString>, deadline: Duration) -> Option<HostCompiler> {
    let path_variable = env("PATH").unwrap_or_default();
    let (chosen_by, name) = match env("CXX").filter(|value| !value.is_empty()) {
        // `CXX="ccache g++"` and the like: the compiler is the last word.
        Some(value) => (
            "CXX",
            value
                .to_string_lossy()
                .split_whitespace()
                .last()
                .unwrap_or_default()
                .to_string(),
        ),
        None => ("c++", "c++".to_string()),
    };
    let path = resolve(&name, &path_variable)?;
    let mut compiler = HostCompiler {
        chosen_by: chosen_by.to_string(),
        path,
        family: None,
        version: None,
        problems: Vec::new(),
    };
    let mut command = Command::new(&compiler.path);
    command.arg("--version").env("LC_ALL", "C");
    match run_with_deadline(command, deadline) {
        Ok(finished) => match parse_version(&String::from_utf8_lossy(&finished.stdout)) {
            Some((family, version)) => {
                compiler.family = Some(family);
                compiler.version = Some(version);
            }
            None => compiler.problems.push(format!(
                "{} --version ({}) names neither GCC nor clang with a version",
                compiler.path.display(),
                describe_status(&finished.status)
            )),
        },
        Err(RunError::TimedOut { seconds, .. }) => compiler.problems.push(format!(
            "{} --version timed out after {seconds} s and was killed",
            compiler.path.display()
        )),
        Err(RunError::Spawn(error)) => compiler
            .problems
            .push(format!("{} cannot be run: {error}", compiler.path.display())),
    }
    Some(compiler)
}

fn resolve(name: &str, path_variable: &std::ffi::OsStr) -> Option<PathBuf> {
    if name.contains('/') {
        let path = Path::new(name);
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(path_variable)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The family and version from the first line of `--version`:
/// `g++ (Ubuntu 13.2.0-23ubuntu4) 13.2.0` or `c++ (GCC) 15.3.0` (GCC puts its
/// version last), `Ubuntu clang version 18.1.3 (1ubuntu1)` (clang after "version").
pub fn parse_version(text: &str) -> Option<(CompilerFamily, String)> {
    let first = text.lines().next()?.trim();
    let is_version = |word: &str| {
        word.split('.').count() >= 2
            && word
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
    };
    if first.contains("clang version") {
        let after = first.split("clang version").nth(1)?;
        let version = after.split_whitespace().next()?;
        let numeric: String = version
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        return is_version(&numeric).then_some((CompilerFamily::Clang, numeric));
    }
    // The program's own name comes first: `g++-12`, `x86_64-linux-gnu-gcc`, `c++`.
    let program = first.split_whitespace().next().unwrap_or_default();
    let gcc_like = first.contains("(GCC)")
        || program.contains("gcc")
        || program.contains("g++")
        || ["c++", "cc"]
            .iter()
            .any(|name| program == *name || program.ends_with(&format!("-{name}")));
    let last = first.split_whitespace().last()?;
    (gcc_like && is_version(last)).then(|| (CompilerFamily::Gcc, last.to_string()))
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn reads_gcc_and_clang_first_lines() {
        let cases = [
            (
                "g++ (Ubuntu 13.2.0-23ubuntu4) 13.2.0\nCopyright (C) 2023",
                Some((CompilerFamily::Gcc, "13.2.0")),
            ),
            ("c++ (GCC) 15.3.0\n", Some((CompilerFamily::Gcc, "15.3.0"))),
            (
                "x86_64-linux-gnu-g++-12 (Debian 12.2.0-14) 12.2.0\n",
                Some((CompilerFamily::Gcc, "12.2.0")),
            ),
            (
                "Ubuntu clang version 18.1.3 (1ubuntu1)\nTarget: x86_64",
                Some((CompilerFamily::Clang, "18.1.3")),
            ),
            ("clang version 17.0.6-rc1\n", Some((CompilerFamily::Clang, "17.0.6"))),
            ("icpx (R) oneAPI DPC++/C++ Compiler 2024.0.0\n", None),
            ("", None),
        ];
        for (text, expected) in cases {
            let parsed = parse_version(text);
            assert_eq!(
                parsed.as_ref().map(|(family, version)| (*family, version.as_str())),
                expected,
                "{text:?}"
            );
        }
    }

    fn script(dir: &Path, name: &str, first_line: &str) {
        let path = dir.join(name);
        fs::write(&path, format!("#!/bin/sh\necho '{first_line}'\n")).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn cxx_wins_over_cplusplus_on_path_and_is_asked_its_version() {
        let bin = tempfile::tempdir().unwrap();
        script(bin.path(), "c++", "c++ (GCC) 14.2.0");
        script(bin.path(), "g++-12", "g++-12 (Debian 12.2.0-14) 12.2.0");
        let path = bin.path().as_os_str().to_os_string();
        let deadline = Duration::from_secs(10);
        let env = |name: &str| (name == "PATH").then(|| path.clone());
        let found = find(&env, deadline).unwrap();
        assert_eq!(
            (found.chosen_by.as_str(), found.version.as_deref()),
            ("c++", Some("14.2.0"))
        );
        let env = |name: &str| match name {
            "PATH" => Some(path.clone()),
            "CXX" => Some(OsString::from("ccache g++-12")),
            _ => None,
        };
        let found = find(&env, deadline).unwrap();
        assert_eq!(found.chosen_by, "CXX");
        assert_eq!(found.version.as_deref(), Some("12.2.0"));
        assert_eq!(found.path, bin.path().join("g++-12"));
        let empty = OsString::new();
        assert_eq!(
            find(&|name: &str| (name == "PATH").then(|| empty.clone()), deadline),
            None
        );
    }

    /// This machine's own compiler, where it has one: the real `c++` answers.
    #[test]
    fn the_real_cplusplus_on_path_reports_a_version() {
        let env = |name: &str| std::env::var_os(name).filter(|_| name == "PATH");
        match find(&env, Duration::from_secs(30)) {
            Some(found) => {
                assert!(found.problems.is_empty(), "{found:?}");
                assert!(found.version.is_some(), "{found:?}");
            }
            None => crate::test_skip::skip(
                "host_compiler::the_real_cplusplus_on_path_reports_a_version",
                "c++",
                "no C++ compiler on PATH",
            ),
        }
    }
}
