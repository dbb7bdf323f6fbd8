//! Which copy of a distribution a log ran. This node's facts about a package
//! speak for a log only where the log's frames of that package run from the
//! copy this node has. A job started with `PYTHONPATH` set, a project's own
//! bundled copy of a library (`basicsr/` beside `train.py`), a user site or
//! another virtual environment each run another copy, whose version this node
//! does not show: its version neither confirms a cause nor rules one out, and
//! its absence from this environment is no fact either.
//!
//! Found on a lent H200: a ZeRO-3 failure made with DeepSpeed 0.14.2 from
//! `PYTHONPATH`, explained on the same node after 0.14.2 was replaced by 0.14.0
//! in another directory, ruled the true cause out by 0.14.0's version.

use std::collections::BTreeMap;

use crate::facts::Facts;
use crate::snapshot::packages::Package;

use super::traceback::Traceback;
use super::{INSTALLED_DIRS, STDLIB, after_last, distribution_of, frame_package};

/// For each distribution the traceback runs from another copy than this
/// node's, the fact that shows it, keyed by its normalized name. The files
/// that show a copy are the frames' and the one an import error says it
/// found the module in. A distribution some such file has in this node's copy
/// is not listed: that copy is at least one the log ran.
///
/// A copy in a site-packages is compared only where the log ran in this
/// environment (`same_environment`): a replayed Snapshot of the reporter's
/// node does not know their paths, and a site-packages of theirs is the one
/// it stands for. A copy outside any site-packages (a `PYTHONPATH` directory,
/// a project's own tree) is another copy wherever this node's is elsewhere.
pub fn other_copies(traceback: &Traceback, facts: &Facts, same_environment: bool) -> BTreeMap<String, String> {
    // Each distribution's copies the frames ran, and whether one was in a
    // site-packages this node cannot place.
    let mut roots: BTreeMap<String, (&Package, Vec<String>, bool)> = BTreeMap::new();
    let files = traceback.frames().map(|frame| frame.file.as_str()).chain(
        traceback
            .messages()
            .filter_map(|raised| super::readers::import_found_in(&raised.message)),
    );
    for file in files {
        let file = file.replace('\\', "/");
        let Some((package, root)) = copy_ran(&file, facts) else {
            continue;
        };
        let entry = roots
            .entry(package.normalized_name.clone())
            .or_insert_with(|| (package, Vec::new(), false));
        // A frame in a site-packages this node cannot place (a replayed
        // Snapshot's) may be the copy the node stands for: nothing is decided.
        if !same_environment && super::is_installed_code(&file) {
            entry.2 = true;
        } else if !entry.1.contains(&root) {
            entry.1.push(root);
        }
    }
    roots
        .into_iter()
        .filter(|(_, (_, _, unplaced))| !unplaced)
        .map(|(name, (package, roots, _))| (name, (package, roots)))
        .filter(|(_, (package, roots))| !roots.iter().any(|root| is_this_nodes_copy(package, root)))
        .filter_map(|(name, (package, roots))| Some((name, other_copy_fact(package, roots.first()?))))
        .collect()
}

/// The installed distribution a frame's file belongs to, and the directory
/// its import package sits in (the `sys.path` entry it was imported from):
/// under `site-packages`, the first directory there; elsewhere, the first
/// directory on the path that names a distribution this node has.
fn copy_ran<'f>(file: &str, facts: &Facts<'f>) -> Option<(&'f Package, String)> {
    let import = match frame_package(file) {
        Some(STDLIB) => return None,
        Some(import) => import,
        None => return copy_outside_site_packages(file, facts),
    };
    // A zipped egg's frame names the directory it was compiled in, no
    // directory of any node: which copy ran is not known from it.
    let end = after_last(file, &INSTALLED_DIRS)?;
    let mut root = file[..end - 1].to_string();
    // An egg is its own sys.path entry: what it holds is imported from it.
    if let Some(egg) = file[end..].split('/').next().filter(|first| first.ends_with(".egg")) {
        root = format!("{root}/{egg}");
    }
    facts.package(&distribution_of(import)).map(|package| (package, root))
}

/// A path outside any site-packages (the job's own tree, a `PYTHONPATH`
/// directory, a source checkout): the first directory on it that names a
/// distribution this node has, and the directory its deepest directory of
/// that name sits in (a checkout `DeepSpeed/deepspeed/`, `transformers/src/transformers/`).
fn copy_outside_site_packages<'f>(file: &str, facts: &Facts<'f>) -> Option<(&'f Package, String)> {
    let parts: Vec<&str> = file.split('/').collect();
    // The last part is the file itself; a directory must hold it.
    let directories = &parts[..parts.len().saturating_sub(1)];
    let package_of = |part: &&str| {
        let importable = !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        importable.then(|| facts.package(&distribution_of(part))).flatten()
    };
    let package = directories.iter().find_map(package_of)?;
    let deepest = directories
        .iter()
        .rposition(|part| package_of(part).is_some_and(|other| other.normalized_name == package.normalized_name))?;
    // A clone of a library's repository runs its examples and scripts from
    // beside the package, not from it (`diffusers/examples/dreambooth/train.py`).
    if parts
        .get(deepest + 1)
        .is_some_and(|next| REPOSITORY_FOLDERS.contains(&next.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    Some((package, parts[..deepest].join("/")))
}

/// Folders a library's repository holds beside its package: code there is
/// the job's, run from a clone, not the package's.
const REPOSITORY_FOLDERS: [&str; 11] = [
    "examples",
    "example",
    "scripts",
    "tools",
    "tests",
    "test",
    "docs",
    "benchmarks",
    "notebooks",
    "demo",
    "demos",
];

/// Whether `root` is where this node's copy was found (its `sys.path`
/// entry), or the root of a copy within an editable install's project.
fn is_this_nodes_copy(package: &Package, root: &str) -> bool {
    let here = package.location.to_string_lossy().replace('\\', "/");
    let here = here.trim_end_matches('/');
    // A Snapshot that does not say where a package is can show no other copy.
    if here.is_empty() || root.trim_end_matches('/') == here {
        return true;
    }
    package.editable_project_location.as_ref().is_some_and(|project| {
        let project = project.to_string_lossy().replace('\\', "/");
        std::path::Path::new(root).starts_with(project.trim_end_matches('/'))
    })
}

fn other_copy_fact(package: &Package, root: &str) -> String {
    let name = &package.name;
    let version = package.version.as_deref().unwrap_or("of unknown version");
    let here = package.location.display();
    let shadowed = package
        .shadowed
        .iter()
        .find(|copy| copy.location.to_string_lossy().trim_end_matches('/') == root)
        .and_then(|copy| copy.version.as_deref())
        .map(|version| format!(" (this node has {name} {version} there, shadowed by the one it imports)"))
        .unwrap_or_default();
    format!(
        "the traceback runs {name} from {root}{shadowed}, not from this node's {name} {version} in {here}: the log ran another copy, so this node's version says nothing of it (run explain where that copy is imported, or print its version: python -c 'import importlib.metadata as m; print(m.version(\"{name}\"))' with the job's PYTHONPATH)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::traceback::parse;

    const SITE: &str = "/opt/venvs/train/lib/python3.12/site-packages";

    /// The recorded-shape H200 node with DeepSpeed 0.14.0 installed in `location`.
    fn node(location: &str, editable_project: Option<&str>) -> crate::snapshot::Snapshot {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/snapshots/h200-torch2.11-cu130-handmade.json"
        );
        let mut snapshot = crate::snapshot::read(std::path::Path::new(path)).unwrap();
        let mut package = snapshot.packages[0].clone();
        package.name = "deepspeed".into();
        package.normalized_name = "deepspeed".into();
        package.version = Some("0.14.0".into());
        package.location = location.into();
        package.editable_project_location = editable_project.map(Into::into);
        snapshot.packages.push(package);
        snapshot
    }

    /// The ZeRO-3 failure with DeepSpeed's frame in `root`, after a frame of the job's.
    fn zero3_from(root: &str) -> Traceback {
        let log = format!(
            "Traceback (most recent call last):\n  File \"/home/u/job/train.py\", line 9, in <module>\n    engine.step()\n  File \"{root}/deepspeed/runtime/zero/stage3.py\", line 2117, in unscale_and_clip_grads\n    self.fp32_partitioned_groups_flat[sub_group_id].grad.mul_(1. / combined_scale)\nRuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
        );
        parse(&log).pop().unwrap()
    }

    fn other_copies_of(
        snapshot: &crate::snapshot::Snapshot,
        traceback: &Traceback,
        same_environment: bool,
    ) -> Vec<String> {
        let configs = crate::configs::TrainingConfigs::default();
        let facts = Facts::new(snapshot, &configs);
        other_copies(traceback, &facts, same_environment)
            .into_values()
            .collect()
    }

    #[test]
    fn a_copy_run_from_a_directory_on_pythonpath_is_another_than_this_nodes() {
        let found = other_copies_of(
            &node("/tmp/seed-ds0.14.0", None),
            &zero3_from("/tmp/seed-ds0.14.2"),
            false,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("runs deepspeed from /tmp/seed-ds0.14.2")
                && found[0].contains("deepspeed 0.14.0 in /tmp/seed-ds0.14.0"),
            "{found:?}"
        );
    }

    #[test]
    fn the_copy_this_node_imports_is_no_other_copy() {
        for (location, root) in [("/tmp/seed-ds0.14.2", "/tmp/seed-ds0.14.2"), (SITE, SITE)] {
            let found = other_copies_of(&node(location, None), &zero3_from(root), true);
            assert!(found.is_empty(), "{location}: {found:?}");
        }
    }

    #[test]
    fn another_site_packages_is_another_copy_only_where_the_log_ran_in_this_environment() {
        let theirs = "/home/u/miniconda3/envs/ds/lib/python3.10/site-packages";
        // A replayed Snapshot stands for the reporter's environment, whose paths it does not know.
        assert!(other_copies_of(&node(SITE, None), &zero3_from(theirs), false).is_empty());
        assert_eq!(other_copies_of(&node(SITE, None), &zero3_from(theirs), true).len(), 1);
    }

    #[test]
    fn a_source_checkout_installed_editable_is_this_nodes_copy() {
        let snapshot = node(SITE, Some("/home/u/src/DeepSpeed"));
        assert!(other_copies_of(&snapshot, &zero3_from("/home/u/src/DeepSpeed"), true).is_empty());
        assert_eq!(
            other_copies_of(&snapshot, &zero3_from("/home/u/src/fork"), true).len(),
            1
        );
    }

    #[test]
    fn a_source_checkout_on_pythonpath_is_named_by_the_directory_its_package_is_in() {
        let found = other_copies_of(&node(SITE, None), &zero3_from("/home/u/DeepSpeed"), true);
        assert!(found[0].contains("runs deepspeed from /home/u/DeepSpeed,"), "{found:?}");
    }

    #[test]
    fn a_script_run_from_a_clone_of_the_librarys_repository_is_no_copy_of_it() {
        let log = "Traceback (most recent call last):\n  File \"/content/deepspeed/examples/train.py\", line 9, in <module>\n    main()\nKeyError: 'model'\n";
        let traceback = parse(log).pop().unwrap();
        assert!(other_copies_of(&node(SITE, None), &traceback, true).is_empty());
    }

    #[test]
    fn a_copy_also_run_from_a_site_packages_this_node_cannot_place_is_not_decided() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/proj/deepspeed/patch.py\", line 9, in <module>\n    init()\n  File \"/home/u/env/lib/python3.10/site-packages/deepspeed/runtime/engine.py\", line 2, in init\n    x()\nRuntimeError: boom\n";
        let traceback = parse(log).pop().unwrap();
        assert!(other_copies_of(&node(SITE, None), &traceback, false).is_empty());
    }

    /// mimicgen37: the module an import error names was found in a checkout,
    /// not in this node's copy.
    #[test]
    fn the_file_an_import_error_found_the_module_in_shows_the_copy() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/job/train.py\", line 9, in <module>\n    from deepspeed.ops import adam_v9\nImportError: cannot import name 'adam_v9' from 'deepspeed.ops' (/home/u/DeepSpeed/deepspeed/ops/__init__.py)\n";
        let traceback = parse(log).pop().unwrap();
        let found = other_copies_of(&node(SITE, None), &traceback, false);
        assert!(found[0].contains("runs deepspeed from /home/u/DeepSpeed,"), "{found:?}");
    }

    #[test]
    fn the_jobs_own_directories_name_no_copy_of_a_package_it_does_not_hold() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/job/models/train.py\", line 9, in <module>\n    main()\nKeyError: 'model'\n";
        let traceback = parse(log).pop().unwrap();
        assert!(other_copies_of(&node(SITE, None), &traceback, true).is_empty());
    }
}
