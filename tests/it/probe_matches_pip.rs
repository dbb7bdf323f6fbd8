//! pip is the judge: `envdoctor probe` must list exactly the distributions that
//! `pip list` lists for the same interpreter, with the same versions.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

fn editable_locations(packages: &Value) -> BTreeMap<String, String> {
    packages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|package| {
            let location = package.get("editable_project_location")?.as_str()?;
            Some((normalize(package["name"].as_str().unwrap()), location.to_string()))
        })
        .collect()
}

#[test]
fn a_virtual_environment_with_every_kind_of_install() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("cache");
    let python = create_venv(&root.path().join("venv"), true);
    let site = site_packages(&python);
    let pip_install = |arguments: &[&str], project: &Path| {
        run(Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--no-deps"])
            .args(arguments)
            .arg(project));
    };

    // A PEP 660 editable install of a local project.
    pip_install(
        &["-e"],
        &write_project(&root.path().join("editable"), "editable-demo", "0.1.0"),
    );
    // A name that needs PEP 503 normalising to match.
    pip_install(
        &[],
        &write_project(&root.path().join("normalise"), "Normalise.Me_Please", "1.2.3"),
    );
    // The same distribution twice on sys.path: 1.0 in site-packages, 2.0 on PYTHONPATH, which comes first.
    pip_install(&[], &write_project(&root.path().join("twice-1"), "twice", "1.0"));
    let extra = root.path().join("extra");
    pip_install(
        &["--target", extra.to_str().unwrap()],
        &write_project(&root.path().join("twice-2"), "twice", "2.0"),
    );
    // A legacy egg-info directory and a distutils-style egg-info file, as old
    // installers and distribution packages leave them.
    write_file(
        &site.join("legacy_tree-0.3-py3.11.egg-info/PKG-INFO"),
        "Metadata-Version: 1.1\nName: legacy-tree\nVersion: 0.3\n",
    );
    write_file(
        &site.join("Old_File-0.9.egg-info"),
        "Metadata-Version: 1.0\nName: Old_File\nVersion: 0.9\n",
    );
    // A version not in PEP 440's normal form, which pip shows as `1.0.0rc1`.
    write_file(
        &site.join("raw_version-1.0.0rc1.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: raw-version\nVersion: 1.0.0-RC1\n",
    );
    // A name pip hides as "standard library"; envdoctor lists it.
    write_file(
        &site.join("wsgiref-0.1.2-py3.11.egg-info"),
        "Metadata-Version: 1.0\nName: wsgiref\nVersion: 0.1.2\n",
    );
    // A legacy `setup.py develop` (egg-link) install, where the venv has setuptools.
    let has_setuptools = Command::new(&python)
        .args(["-c", "import setuptools"])
        .status()
        .unwrap()
        .success();
    if has_setuptools {
        let project = root.path().join("develop");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join("setup.py"),
            "from setuptools import setup\nsetup(name='legacy-develop', version='0.4', py_modules=[])\n",
        )
        .unwrap();
        run(Command::new(&python)
            .current_dir(&project)
            .args(["setup.py", "-q", "develop", "--no-deps"]));
    }

    let environment = [("PYTHONPATH", extra.as_path())];
    let pip = pip_list(&python, &environment);
    let snapshot = probe_json(&cache, &python, &[], &environment);
    let packages = &snapshot["packages"];

    assert_eq!(
        name_versions(packages),
        name_versions(&pip),
        "envdoctor and pip list disagree"
    );
    assert_eq!(
        editable_locations(packages),
        editable_locations(&pip),
        "editable project locations differ"
    );
    let expected_editables = if has_setuptools { 2 } else { 1 };
    assert_eq!(
        editable_locations(&pip).len(),
        expected_editables,
        "the fixture must hold real editables: {pip}"
    );
    for expected in [
        ("raw-version", "1.0.0rc1"),
        ("twice", "2.0"),
        ("normalise-me-please", "1.2.3"),
        ("legacy-tree", "0.3"),
        ("old-file", "0.9"),
    ] {
        assert!(
            name_versions(&pip).contains(&(expected.0.to_string(), expected.1.to_string())),
            "{expected:?} missing: {pip}"
        );
    }

    let listed = |name: &str| packages.as_array().unwrap().iter().any(|p| p["name"] == name);
    assert!(listed("wsgiref"), "envdoctor lists what pip hides");
    assert!(!pip.as_array().unwrap().iter().any(|p| p["name"] == "wsgiref"));
    let twice = packages
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "twice")
        .unwrap();
    assert_eq!(twice["location"], Value::from(extra.to_str().unwrap()));
    assert_eq!(twice["shadowed"][0]["version"], "1.0");
    assert_eq!(twice["shadowed"][0]["location"], Value::from(site.to_str().unwrap()));
    let normalised = packages
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["normalized_name"] == "normalise-me-please")
        .unwrap();
    assert_eq!(
        normalised["name"], "Normalise.Me_Please",
        "names are displayed as the metadata spells them"
    );
    assert_eq!(normalised["installer"], "pip");
    assert_eq!(normalised["requested"], true);
    assert_eq!(normalised["wheel_tags"][0], "py3-none-any");
    assert_eq!(snapshot["python"]["is_virtual_env"], true);
    assert_eq!(
        snapshot["python"]["sys_path"][0],
        Value::from(extra.to_str().unwrap()),
        "PYTHONPATH comes first"
    );

    // Asked again, from the cache this time: the same answer.
    assert_eq!(probe_json(&cache, &python, &[], &environment)["packages"], *packages);
}

#[test]
fn the_machine_python() {
    let cache = tempfile::tempdir().unwrap();
    let python = system_python();
    let pip = pip_list(python, &[]);
    let snapshot = probe_json(cache.path(), python, &[], &[]);
    assert_eq!(name_versions(&snapshot["packages"]), name_versions(&pip));
    assert!(!name_versions(&pip).is_empty());
}

#[test]
fn unusual_path_names_survive_the_interpreter_answer() {
    let root = tempfile::tempdir().unwrap();
    let odd = root.path().join("café \"quoted\" back\\slash 😀");
    write_dist_info(&odd, "odd_pkg", "1.0");
    let snapshot = probe_json(
        &root.path().join("cache"),
        system_python(),
        &[],
        &[("PYTHONPATH", odd.as_path())],
    );
    assert_eq!(snapshot["python"]["sys_path"][0], Value::from(odd.to_str().unwrap()));
    assert_eq!(snapshot["packages"][0]["location"], Value::from(odd.to_str().unwrap()));
}
