//! What a person meets before any command runs: `--help`, shell completions,
//! the manual page, and the usage error for `--json`.

use crate::common::{self, envdoctor};

use std::process::Command;

/// Every command `--help` lists, in its order (clap's own `help` last).
const COMMANDS: [&str; 13] = [
    "check",
    "fix",
    "probe",
    "smoke",
    "lock",
    "verify",
    "diff",
    "export",
    "explain",
    "fleet",
    "matrix",
    "completions",
    "man",
];

/// The commands whose `--format` takes `json`.
const FORMATS_JSON: [&[&str]; 9] = [
    &["check"],
    &["fix"],
    &["probe"],
    &["smoke"],
    &["verify"],
    &["diff"],
    &["explain"],
    &["fleet"],
    &["matrix", "list"],
];

fn stdout_of(arguments: &[&str]) -> String {
    let cache = tempfile::tempdir().unwrap();
    let output = envdoctor(cache.path()).args(arguments).assert().success();
    String::from_utf8(output.get_output().stdout.clone()).unwrap()
}

#[test]
fn help_lists_check_first_and_every_command_in_order() {
    let help = stdout_of(&["--help"]);
    let listed: Vec<&str> = help
        .lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    let mut expected = COMMANDS.to_vec();
    expected.push("help");
    assert_eq!(listed, expected, "{help}");
}

#[test]
fn json_flag_is_a_usage_error_that_names_format_json() {
    let cache = tempfile::tempdir().unwrap();
    for command in FORMATS_JSON {
        let output = envdoctor(cache.path()).args(command).arg("--json").assert().code(2);
        let output = output.get_output();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("error: unexpected argument '--json' found"),
            "{command:?}: {stderr}"
        );
        assert!(
            stderr.contains("\n  tip: use '--format json'\n"),
            "{command:?}: {stderr}"
        );
        let usage = format!("\nUsage: envdoctor {} ", command.join(" "));
        assert!(stderr.contains(&usage), "{command:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{command:?}");
    }
}

/// `lock` has no `--format`, `export`'s has no `json`: the error is clap's own, with no tip.
#[test]
fn json_flag_suggests_nothing_where_there_is_no_json_format() {
    let cache = tempfile::tempdir().unwrap();
    for command in [&["lock"][..], &["export"], &[]] {
        let output = envdoctor(cache.path()).args(command).arg("--json").assert().code(2);
        let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
        assert!(
            stderr.starts_with("error: unexpected argument '--json' found"),
            "{command:?}: {stderr}"
        );
        assert!(!stderr.contains("tip:"), "{command:?}: {stderr}");
    }
}

/// The scripts offer what `--help` shows, not the hidden internal command or `--json`.
#[test]
fn completions_offer_only_what_help_shows() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of(&["completions", shell]);
        for command in COMMANDS {
            assert!(script.contains(command), "{shell}: {command} missing");
        }
        assert!(script.contains("fail-on"), "{shell}: check's flags missing");
        assert!(!script.contains("nvml-query"), "{shell} offers the internal command");
        assert!(
            !script.contains("--json") && !script.contains("-l json"),
            "{shell} offers --json"
        );
    }
}

/// Valid bash, and it completes: a command name, a flag, a `--format` value.
#[test]
fn bash_completion_parses_and_completes() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("envdoctor.bash");
    std::fs::write(&script, stdout_of(&["completions", "bash"])).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    // bash calls the function with the command, the word at the cursor and the word before it.
    let completions = r#"
        source "$1"
        complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
            _envdoctor envdoctor "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "${COMPREPLY[*]}"; }
        complete_words envdoctor ch
        complete_words envdoctor check --fail
        complete_words envdoctor check --format ''
    "#;
    let output = Command::new("bash")
        .args(["-c", completions, "bash"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "check\n--fail-on\ntext json junit markdown\n"
    );
}

#[test]
fn zsh_completion_parses() {
    check_syntax("zsh", &["-n"], "cli_help::zsh_completion_parses");
}

#[test]
fn fish_completion_parses() {
    check_syntax("fish", &["--no-execute"], "cli_help::fish_completion_parses");
}

/// The shell's own parser accepts the script, where that shell is installed.
fn check_syntax(shell: &str, parse_only: &[&str], test: &str) {
    let Ok(program) = which::which(shell) else {
        common::skip(test, shell, &format!("{shell} is not installed"));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join(format!("envdoctor.{shell}"));
    std::fs::write(&script, stdout_of(&["completions", shell])).unwrap();
    let output = Command::new(program).args(parse_only).arg(&script).output().unwrap();
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "{shell}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn man_page_lists_every_command_and_each_has_its_own_page() {
    let page = stdout_of(&["man"]);
    assert!(page.contains("\n.TH envdoctor 1 "), "{page}");
    assert!(page.contains("\n.SH SUBCOMMANDS\n"), "{page}");
    for command in COMMANDS {
        assert!(
            page.contains(&format!("\nenvdoctor\\-{command}(1)\n")),
            "{command}: {page}"
        );
    }
    assert!(
        !page.contains("nvml"),
        "the internal command has no place in the manual"
    );

    let check = stdout_of(&["man", "check"]);
    assert!(check.contains("\n.TH envdoctor-check 1 "), "{check}");
    assert!(check.contains("\\fB\\-\\-format\\fR"), "{check}");
    assert!(!check.contains("\\-\\-json"), "{check}");
    let lint = stdout_of(&["man", "matrix", "lint"]);
    assert!(lint.contains("\n.TH envdoctor-matrix-lint 1 "), "{lint}");
}

#[test]
fn man_page_of_an_unknown_command_names_the_known_ones() {
    let cache = tempfile::tempdir().unwrap();
    let output = envdoctor(cache.path()).args(["man", "chek"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert!(
        stderr.contains("no command `chek`; its commands: check, fix, probe,"),
        "{stderr}"
    );
}

/// Every `envdoctor ...` command the README's recipes show (in its code
/// blocks, shell and YAML alike) is one this envdoctor accepts: its command
/// and flags parse (`--help` after them stops before anything runs).
#[test]
fn the_readme_recipes_are_commands_this_envdoctor_accepts() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let blocks = readme.split("```").skip(1).step_by(2);
    let mut checked = 0;
    for line in blocks.flat_map(str::lines) {
        // `~/.local/bin/envdoctor check ...`, `$ envdoctor lock ...`, `run: envdoctor ...`.
        let Some((_, after)) = line.split_once("envdoctor ") else {
            continue;
        };
        let command: Vec<&str> = after
            .split_whitespace()
            .take_while(|word| !matches!(*word, ">" | ">>" | "|" | "&&" | "#"))
            .map(|word| word.trim_matches('"'))
            .collect();
        let Some(first) = command.first() else { continue };
        if !COMMANDS.contains(first) {
            continue;
        }
        let cache = tempfile::tempdir().unwrap();
        let output = envdoctor(cache.path()).args(&command).arg("--help").output().unwrap();
        assert!(
            output.status.success(),
            "README: `envdoctor {}` is refused: {}",
            command.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} README commands found");
}
