//! `envdoctor check`'s dependency consistency against the real `pip check`, and
//! its shadowing check against what Python and pip really do, on real virtual
//! environments whose distributions the real pip installed with `--no-deps`:
//! the everyday way an environment ends up inconsistent.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

const NOT_INSTALLED: &str = "requirement-not-installed";
const VERSION_MISMATCH: &str = "requirement-version-mismatch";

/// A project that `tests/fixtures/requirements/requires_backend.py` builds into
/// a wheel declaring exactly `requires` as its `Requires-Dist`.
fn project(root: &Path, name: &str, version: &str, requires: &[&str]) -> PathBuf {
    let directory = root.join(format!("{name}-{version}"));
    write_file(
        &directory.join("requires_backend.py"),
        include_str!("../fixtures/requirements/requires_backend.py"),
    );
    write_file(
        &directory.join("pyproject.toml"),
        format!(
            "[build-system]\nrequires = []\nbuild-backend = \"requires_backend\"\nbackend-path = [\".\"]\n\n\
             [project]\nname = \"{name}\"\nversion = \"{version}\"\n"
        ),
    );
    let lines: String = requires.iter().map(|line| format!("{line}\n")).collect();
    write_file(&directory.join("requires-dist.txt"), lines);
    directory
}

/// pip for `python`, started in an empty directory (`-m` puts the working
/// directory on sys.path) and without the variables that change sys.path.
fn pip(python: &Path, empty: &Path) -> Command {
    let mut command = Command::new(python);
    command.args(["-m", "pip"]).current_dir(empty);
    for variable in ["PYTHONPATH", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONHOME"] {
        command.env_remove(variable);
    }
    command
}

fn pip_install_no_deps(python: &Path, empty: &Path, projects: &[PathBuf]) {
    run(pip(python, empty)
        .args(["install", "--no-deps", "--no-build-isolation", "--quiet"])
        .args(projects));
}

/// A problem as `pip check` words it: (kind, project, its version, dependency,
/// the dependency's installed version and the requirement it fails, or "" for
/// one that is not installed). pip prints the requirement as `packaging`
/// renders it and envdoctor as the metadata wrote it, so both are compared
/// parsed (`pep508_rs` orders specifiers and normalizes markers).
type Problem = (&'static str, String, String, String, String);

/// Reads pip check's sentence at the start of `text`: a line of `pip check`, or
/// the detail of an envdoctor finding, which starts with the same sentence.
fn parse_problem(text: &str) -> Option<Problem> {
    if let Some(end) = text.find(", which is not installed.") {
        let words: Vec<&str> = text[..end].split(' ').collect();
        if let [project, version, "requires", dependency] = words[..] {
            return Some((
                NOT_INSTALLED,
                project.into(),
                version.into(),
                dependency.into(),
                String::new(),
            ));
        }
    }
    let (head, rest) = text.split_once(" has requirement ")?;
    let (project, version) = head.split_once(' ')?;
    let (requirement, have) = rest.rsplit_once(", but you have ")?;
    let requirement: pep508_rs::Requirement = requirement.parse().ok()?;
    let mut words = have.split_whitespace();
    let dependency = words.next()?;
    let installed = words.next()?.trim_end_matches('.');
    Some((
        VERSION_MISMATCH,
        project.into(),
        version.into(),
        dependency.into(),
        format!("{installed} for {requirement}"),
    ))
}

/// Every problem the real `pip check` reports; any line it prints that is not
/// one of its two problem sentences fails the test, so nothing is dropped.
fn pip_check(python: &Path, empty: &Path) -> BTreeSet<Problem> {
    let output = pip(python, empty)
        .arg("check")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut problems = BTreeSet::new();
    for line in stdout.lines().filter(|line| !line.trim().is_empty()) {
        if line == "No broken requirements found." {
            continue;
        }
        let problem = parse_problem(line).unwrap_or_else(|| panic!("an unexpected pip check line: {line}"));
        problems.insert(problem);
    }
    assert_eq!(
        output.status.success(),
        problems.is_empty(),
        "pip check's exit status follows its findings: {stdout}"
    );
    problems
}

fn check_json(cache: &Path, arguments: &[&str], extra_env: &[(&str, &Path)]) -> (Option<i32>, Value) {
    let mut command = envdoctor(cache);
    command
        .args(["check", "--no-smoke", "--format", "json"])
        .args(arguments);
    for (name, value) in extra_env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code(), report)
}

fn findings<'a>(report: &'a Value, ids: &[&str]) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("a report has findings")
        .iter()
        .filter(|finding| ids.contains(&finding["id"].as_str().unwrap_or_default()))
        .collect()
}

fn envdoctor_problems(report: &Value) -> BTreeSet<Problem> {
    findings(report, &[NOT_INSTALLED, VERSION_MISMATCH])
        .into_iter()
        .map(|finding| {
            let detail = finding["detail"].as_str().unwrap();
            let problem = parse_problem(detail).unwrap_or_else(|| panic!("a detail without pip's sentence: {detail}"));
            assert_eq!(finding["id"], problem.0, "{detail}");
            problem
        })
        .collect()
}

fn missing(project: &str, dependency: &str) -> Problem {
    (
        NOT_INSTALLED,
        project.into(),
        "1.0".into(),
        dependency.into(),
        String::new(),
    )
}

fn mismatch(project: &str, requirement: &str, installed: &str) -> Problem {
    let parsed: pep508_rs::Requirement = requirement.parse().unwrap();
    let dependency = parsed.name.to_string();
    let installed = format!("{installed} for {parsed}");
    (VERSION_MISMATCH, project.into(), "1.0".into(), dependency, installed)
}

/// A venv in which pip installed, one by one and with `--no-deps`,
/// distributions whose requirements break in every way `pip check` knows.
fn broken_environment(root: &Path) -> PathBuf {
    let python = create_venv(&root.join("venv"), true);
    let sources = root.join("sources");
    let projects = [
        // What is depended on.
        project(&sources, "dep-old", "1.0", &[]),
        project(&sources, "pre-dep", "2.0rc1", &[]),
        project(&sources, "local-dep", "2.3.1+cu121", &[]),
        project(&sources, "Zope.Thing", "3.0", &[]),
        // A dependency that is not installed at all.
        project(&sources, "needs-missing", "1.0", &["absent-dep>=1"]),
        // Installed, at a version outside the specifier.
        project(
            &sources,
            "needs-newer",
            "1.0",
            &[
                "dep-old>=2",
                "dep-old~=0.9",
                "dep-old~=1.0",
                "Dep_Old>=0.5",
                // Spaces and order as a hand-written setup.py might leave them.
                "dep-old >= 3 , < 4 ; python_version>'3'",
            ],
        ),
        // Markers evaluated for this interpreter: some hold, some exclude.
        project(
            &sources,
            "needs-markers",
            "1.0",
            &[
                "absent-py2; python_version < \"3\"",
                "absent-win; sys_platform == \"win32\"",
                "absent-linux; sys_platform == \"linux\"",
                "absent-cpython; platform_python_implementation == \"CPython\" and implementation_name == \"cpython\"",
                "absent-pypy; implementation_name == \"pypy\"",
                "absent-future; python_full_version >= \"3.99\"",
                "absent-posix; os_name == \"posix\" and platform_system != \"Windows\"",
                "dep-old>=3; os_name == \"nt\"",
            ],
        ),
        // Requirements of extras are never checked; `extra != ...` holds with no extra.
        project(
            &sources,
            "needs-extras",
            "1.0",
            &[
                "absent-extra; extra == \"test\"",
                "dep-old>=5; extra == \"fast\"",
                "absent-not-doc; extra != \"doc\"",
            ],
        ),
        // Pre-releases are allowed, except where PEP 440 excludes them (`<2` and 2.0rc1).
        project(
            &sources,
            "needs-pre",
            "1.0",
            &["pre-dep>=1.5", "pre-dep<2", "pre-dep>=2", "pre-dep>=2.0rc1"],
        ),
        // A local label is ignored by a specifier without one, except by `>`.
        project(
            &sources,
            "needs-local",
            "1.0",
            &[
                "local-dep==2.3.1",
                "local-dep>=2.3",
                "local-dep>2.3.1",
                "local-dep==2.3.1+cu118",
            ],
        ),
        // Names compare normalized.
        project(
            &sources,
            "needs-normalized",
            "1.0",
            &["zope-thing>=3", "ZOPE_THING<3", "Absent.Dotted"],
        ),
        // A direct URL accepts whatever version is installed.
        project(
            &sources,
            "needs-url",
            "1.0",
            &["dep-old @ https://example.invalid/dep_old-1.0-py3-none-any.whl"],
        ),
    ];
    pip_install_no_deps(&python, root, &projects);
    python
}

#[test]
fn every_problem_pip_check_reports_envdoctor_reports_and_no_other() {
    let root = tempfile::tempdir().unwrap();
    let python = broken_environment(root.path());
    let empty = tempfile::tempdir().unwrap();

    let from_pip = pip_check(&python, empty.path());
    let (code, report) = check_json(&root.path().join("cache"), &["--python", python.to_str().unwrap()], &[]);
    let from_envdoctor = envdoctor_problems(&report);
    assert_eq!(
        from_envdoctor, from_pip,
        "envdoctor (left) and pip check (right) disagree"
    );

    // The scenario means something: each kind of problem is there, and what
    // must not be reported (excluded by a marker, needed only by an extra,
    // satisfied by a pre-release, a local label, a URL) is not.
    for expected in [
        missing("needs-missing", "absent-dep"),
        missing("needs-markers", "absent-linux"),
        missing("needs-markers", "absent-cpython"),
        missing("needs-markers", "absent-posix"),
        missing("needs-extras", "absent-not-doc"),
        missing("needs-normalized", "absent-dotted"),
        mismatch("needs-newer", "dep-old>=2", "1.0"),
        mismatch("needs-newer", "dep-old~=0.9", "1.0"),
        mismatch("needs-newer", "dep-old >= 3 , < 4 ; python_version>'3'", "1.0"),
        mismatch("needs-pre", "pre-dep<2", "2.0rc1"),
        mismatch("needs-pre", "pre-dep>=2", "2.0rc1"),
        mismatch("needs-local", "local-dep>2.3.1", "2.3.1+cu121"),
        mismatch("needs-local", "local-dep==2.3.1+cu118", "2.3.1+cu121"),
        mismatch("needs-normalized", "ZOPE_THING<3", "3.0"),
    ] {
        assert!(
            from_pip.contains(&expected),
            "pip check did not report {expected:?}: {from_pip:?}"
        );
    }
    let dependencies: BTreeSet<&str> = from_pip.iter().map(|problem| problem.3.as_str()).collect();
    for excluded in [
        "absent-py2",
        "absent-win",
        "absent-pypy",
        "absent-future",
        "absent-extra",
    ] {
        assert!(
            !dependencies.contains(excluded),
            "{excluded} was reported: {from_pip:?}"
        );
    }
    let projects: BTreeSet<&str> = from_pip.iter().map(|problem| problem.1.as_str()).collect();
    assert!(!projects.contains("needs-url"), "{from_pip:?}");

    // Errors, each with the command that fixes it; exit code 1.
    assert_eq!(code, Some(1));
    let mismatches: Vec<&Value> = findings(&report, &[VERSION_MISMATCH]);
    let mismatch_fixes: BTreeSet<&str> = mismatches
        .iter()
        .filter_map(|finding| finding["fix"].as_str())
        .collect();
    // Each names the venv's own interpreter, which pip check judged.
    let pip = format!("'{}' -m pip", python.display());
    for fix in [
        "install 'dep-old>=2'",
        "install 'pre-dep<2'",
        "install 'local-dep>2.3.1'",
    ] {
        let fix = format!("{pip} {fix}");
        assert!(
            mismatch_fixes.contains(fix.as_str()),
            "{fix} not among {mismatch_fixes:?}"
        );
    }
    for finding in findings(&report, &[NOT_INSTALLED, VERSION_MISMATCH]) {
        assert_eq!(finding["severity"], "error");
        assert!(
            finding["fix"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{pip} install '")),
            "{finding}"
        );
    }
}

#[test]
fn an_older_snapshot_without_marker_values_still_agrees_with_pip_and_says_it_rebuilt_them() {
    let root = tempfile::tempdir().unwrap();
    let python = broken_environment(root.path());
    let empty = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");

    let mut snapshot = probe_json(&cache, &python, &[], &[]);
    let removed = snapshot["python"].as_object_mut().unwrap().remove("markers");
    assert!(removed.is_some(), "a probe records the marker values");
    let recorded = root.path().join("older-snapshot.json");
    std::fs::write(&recorded, serde_json::to_vec(&snapshot).unwrap()).unwrap();

    let (code, report) = check_json(&cache, &["--snapshot", recorded.to_str().unwrap()], &[]);
    assert_eq!(code, Some(1));
    assert_eq!(envdoctor_problems(&report), pip_check(&python, empty.path()));
    let notes = findings(&report, &["requirement-markers-reconstructed"]);
    assert_eq!(notes.len(), 1, "{report}");
    assert_eq!(notes[0]["severity"], "info");
}

#[test]
fn the_interpreter_reports_the_marker_values_pip_evaluates_with() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), true);
    let snapshot = probe_json(&root.path().join("cache"), &python, &[], &[]);
    // pip evaluates markers with its vendored `packaging`, which imports `platform`.
    let from_packaging: Value = serde_json::from_str(&run(Command::new(&python).args([
        "-c",
        "import json; from pip._vendor.packaging.markers import default_environment; \
         print(json.dumps(default_environment()))",
    ])))
    .unwrap();
    assert_eq!(snapshot["python"]["markers"], from_packaging);
}

/// `shadowy` installed by pip into the venv at 2.0 and into `directory` at 1.0.
fn two_copies(root: &Path) -> (PathBuf, PathBuf) {
    let python = create_venv(&root.join("venv"), true);
    let older = root.join("older");
    let sources = root.join("sources");
    pip_install_no_deps(&python, root, &[project(&sources, "shadowy", "2.0", &[])]);
    run(pip(&python, root)
        .args(["install", "--no-deps", "--no-build-isolation", "--quiet", "--target"])
        .arg(&older)
        .arg(project(&sources, "shadowy", "1.0", &[])));
    (python, older)
}

fn imported_version(python: &Path, extra_env: &[(&str, &Path)]) -> String {
    let mut command = Command::new(python);
    command
        .args(["-c", "import shadowy; print(shadowy.VERSION)"])
        .env_remove("PYTHONPATH");
    for (name, value) in extra_env {
        command.env(name, value);
    }
    run(&mut command).trim().to_string()
}

#[test]
fn a_copy_on_pythonpath_hiding_the_installed_one_is_named_with_both_places() {
    let root = tempfile::tempdir().unwrap();
    let (python, older) = two_copies(root.path());
    let site = site_packages(&python);
    let cache = root.path().join("cache");
    let with_pythonpath = [("PYTHONPATH", older.as_path())];

    // What the finding claims: Python imports the first copy, and pip, run with
    // the same path, reports that one too, while pip run without it reports the other.
    assert_eq!(imported_version(&python, &with_pythonpath), "1.0");
    let listed = |extra_env: &[(&str, &Path)]| {
        name_versions(&pip_list(&python, extra_env))
            .into_iter()
            .find(|(name, _)| name == "shadowy")
            .map(|(_, version)| version)
    };
    assert_eq!(listed(&with_pythonpath).as_deref(), Some("1.0"));
    assert_eq!(listed(&[]).as_deref(), Some("2.0"));

    let (_, report) = check_json(&cache, &["--python", python.to_str().unwrap()], &with_pythonpath);
    let shadowed = findings(&report, &["distribution-shadowed"]);
    assert_eq!(shadowed.len(), 1, "{report}");
    let finding = shadowed[0];
    assert_eq!(finding["severity"], "warning");
    let detail = finding["detail"].as_str().unwrap();
    for needed in [
        format!("shadowy 1.0 from {}", older.display()),
        "a PYTHONPATH entry".to_string(),
        format!("shadowy 2.0 in {}", site.display()),
    ] {
        assert!(detail.contains(&needed), "`{needed}` not in: {detail}");
    }
    assert_eq!(finding["fix"], "unset PYTHONPATH");

    // Following the fix: the installed copy is imported, and nothing is shadowed.
    assert_eq!(imported_version(&python, &[]), "2.0");
    let (_, report) = check_json(&cache, &["--python", python.to_str().unwrap()], &[]);
    let any_shadowing = findings(
        &report,
        &[
            "distribution-shadowed",
            "distribution-shadowed-benign",
            "distribution-metadata-duplicated",
        ],
    );
    assert!(any_shadowing.is_empty(), "{report}");
}

#[test]
fn a_pth_file_putting_a_copy_first_is_found_by_the_fix_command() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let site = site_packages(&python);
    let (first, second) = (root.path().join("first"), root.path().join("second"));
    write_dist_info(&first, "shadowy", "1.0");
    write_dist_info(&second, "shadowy", "2.0");
    // `site` reads .pth files in sorted order and appends what they name.
    write_file(&site.join("a_first.pth"), format!("{}\n", first.display()));
    write_file(&site.join("b_second.pth"), format!("{}\n", second.display()));

    let (code, report) = check_json(&root.path().join("cache"), &["--python", python.to_str().unwrap()], &[]);
    assert_eq!(
        code,
        Some(0),
        "a warning does not fail the default --fail-on error: {report}"
    );
    let shadowed = findings(&report, &["distribution-shadowed"]);
    assert_eq!(shadowed.len(), 1, "{report}");
    let detail = shadowed[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("shadowy 1.0 from {}", first.display()))
            && detail.contains(&format!("shadowy 2.0 in {}", second.display())),
        "{detail}"
    );
    // The fix is a command that names the .pth file to edit.
    let fix = shadowed[0]["fix"].as_str().unwrap();
    let found = Command::new("sh").args(["-c", fix]).output().unwrap();
    let found = String::from_utf8(found.stdout).unwrap();
    assert_eq!(found.trim(), site.join("a_first.pth").to_str().unwrap(), "{fix}");
}
