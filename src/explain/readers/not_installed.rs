//! A module Python could not find at all: `No module named 'hydra'`. Where a
//! well-known distribution installs it (`import-names.toml`, read from the
//! wheels on PyPI), the distribution is not installed in the Python that ran,
//! and the fix names it, which is not always the module's name (hydra-core,
//! opencv-python). Where the import ran inside pip's isolated build of another
//! package (a setup.py importing torch), the distribution may well be
//! installed: the build's environment is not the one pip installs into.
//!
//! A dotted name (`No module named 'x.y'`) is a package that lacks a module,
//! the names reader's; a package's compiled module is the unbuilt reader's.

use super::build::{Build, build_of};
use super::{Context, Reading, text};
use crate::explain::traceback::Traceback;
use crate::knowledge::tables::Distribution;
use crate::matrix::rule::System;

pub const CAUSE: &str = "python-package-not-installed";
pub const BUILD_ISOLATION: &str = "build-isolation-lacks-module";

/// What setup.py files import to configure a build (torch's cpp_extension,
/// numpy's include directory, Cython's cythonize, pybind11's helpers): a bare
/// line missing one of them is as often a build's as a job's.
const BUILD_TIME_IMPORTS: [&str; 8] = [
    "torch",
    "numpy",
    "Cython",
    "pybind11",
    "setuptools",
    "packaging",
    "wheel",
    "skbuild",
];

/// Modules of a known distribution that research checkouts also carry as
/// folders of their own (`datasets/coco.py`, a modified basicsr set up with
/// `python basicsr/setup.py develop`): missing, they may be either.
const ALSO_PROJECT_FOLDERS: [&str; 2] = ["datasets", "basicsr"];

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let module = text::module_not_found(text)?;
    if module.contains('.')
        || module == "pkg_resources"
        // `python -m pip` without pip: no pip install can bring it (python -m ensurepip does).
        || module == "pip"
        || crate::explain::stdlib_modules::is_stdlib_module(module)
        || super::unbuilt::is_compiled_module(module)
    {
        return None;
    }
    let providers = context
        .tables
        .map(|tables| tables.import_names.providers(module))
        .unwrap_or_default();
    let distribution = providers
        .first()
        .map_or_else(|| module.to_string(), |first| first.name.clone());
    if let Some(build) = build_of(traceback, context.earlier) {
        return Some(read_in_build(module, &distribution, build));
    }
    let Some(first) = providers.first() else {
        return Some(
            match installed_importer(traceback).filter(|package| *package != module) {
                Some(importer) => unknown_dependency(module, &crate::explain::distribution_of(importer)),
                None => unknown_module(module),
            },
        );
    };
    let others: Vec<&str> = providers[1..].iter().map(|other| other.name.as_str()).collect();
    let install = match others.as_slice() {
        [] => format!("python -m pip install {distribution}"),
        others => format!(
            "python -m pip install {distribution} (or one of {}, which install {module} too)",
            others.join(", ")
        ),
    };
    let mut node = Vec::new();
    let mut settles =
        first.is_main_module(module) && !super::NAMESPACES.contains(&module) && !ALSO_PROJECT_FOLDERS.contains(&module);
    if !first.is_main_module(module) {
        node.push((
            None,
            format!("{module} is one of the modules {distribution} installs beside its own"),
        ));
    }
    let system = log_system(traceback);
    if let Some(system) = system.filter(|system| !providers.iter().any(|known| known.builds_for(system))) {
        return Some(no_build_for(module, first, system));
    }
    if first.systems.is_empty() {
        node.push((
            None,
            format!(
                "{distribution} has no wheel on PyPI: pip builds it from source, which needs what its build imports installed first (torch for a CUDA extension, then --no-build-isolation); its README gives the route"
            ),
        ));
    }
    // Any installed package in the chain, at any depth, unsettles it: unlike
    // `installed_importer`, which must show a dependency for an unknown
    // module, this only needs a reason for doubt (ragatouille184 imports
    // faiss inside a function, and faiss-cpu was there, broken by faiss-gpu).
    let importer = super::innermost_package(traceback)
        .or_else(|| wrapped_by(text, module))
        .filter(|package| *package != module);
    let has_frames = traceback.frames().next().is_some();
    if traceback.frames().any(|frame| frame.file.contains("python2")) {
        // Python 2 names the last part of a dotted import it did not find
        // (`No module named keras` for tensorflow.keras): the package it
        // names may be installed and lack the part.
        settles = false;
        node.push((
            None,
            format!("whether the import was of {module} itself or of a module under a package (Python 2 names only the part it did not find)"),
        ));
    }
    if let Some(importer) = importer {
        let importer = crate::explain::distribution_of(importer);
        settles = false;
        node.push((
            None,
            format!(
                "whether {importer} requires {distribution} (python -m pip show {importer}): if it does, its install is incomplete (python -m pip check names what it lacks); if not, {importer} leaves it to the user as an optional dependency"
            ),
        ));
    } else if !has_frames && BUILD_TIME_IMPORTS.contains(&module) {
        settles = false;
        node.push((
            None,
            format!(
                "where the import ran: inside pip's build of a package (its output says 'Getting requirements to build wheel'), an isolated build that does not see an installed {distribution}; else the job's own Python lacks it"
            ),
        ));
    }
    // Any provider installed here: another interpreter ran, or a second
    // provider's uninstall took the shared folder with it (opencv-python and
    // opencv-python-headless both own cv2/).
    let installed = context.facts.and_then(|facts| {
        providers
            .iter()
            .find_map(|known| Some((known.name.as_str(), facts.package_version(&known.name)?)))
    });
    if let Some((name, version)) = installed {
        settles = false;
        node.push((
            Some(false),
            format!(
                "{name} {version}, which installs {module}, is installed in this node's Python: the job ran another interpreter or environment (which python; python -m pip --version shows where pip installs), or another distribution's uninstall removed the folder they share (python -m pip install --force-reinstall --no-deps {name})"
            ),
        ));
    }
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "no module named {module}: {distribution}, the distribution that installs it, is not installed in the Python that ran"
        ),
        node,
        fix: format!(
            "{install} in the environment the job runs in (the project's requirements file, where it lists {distribution}, gives the version its code was written for)"
        ),
        stated: true,
        settles,
        rules_out: Vec::new(),
    })
}

/// The package a wrapper's message says it was importing when the module
/// was missing: faceswap's `There was an error importing Tensorflow. ...
/// Original import error: No module named 'absl'`.
fn wrapped_by<'t>(text: &'t str, module: &str) -> Option<&'t str> {
    let before = &text[..text.find("No module named")?];
    let rest = text::after_marker(before, "importing ")?;
    let name = rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next()?;
    // pytest's `ImportError while importing test module '...'` names a file, no package.
    let a_file = rest[name.len()..].trim_start().starts_with("module");
    (!name.is_empty() && !a_file && !name.eq_ignore_ascii_case(module)).then_some(name)
}

/// The system the log ran on, as the import-names table names it: Windows or
/// macOS where a frame or message shows it, Linux where the frames are paths
/// of a Unix (`/...`) and none of those; unknown without frames.
fn log_system(traceback: &Traceback) -> Option<&'static str> {
    match crate::explain::rank::other_system_sign(traceback) {
        Some((System::Windows, _)) => Some("windows"),
        Some((System::MacOs, _)) => Some("macos"),
        None => traceback
            .frames()
            .any(|frame| frame.file.starts_with('/'))
            .then_some("linux"),
    }
}

/// The installed package whose own code ran the import: the last frame
/// outside the lookup machinery (importlib's frames run every import)
/// is in site-packages, at a module's top level. An import the job's own
/// file ran may be of a folder of the project; one an installed package's
/// module runs as it loads is of what it depends on. An import made inside
/// a function may be of a name the user gave it (torch.load's find_class
/// unpickling YOLOv5's `models`, hydra's instantiate), so it is not counted.
fn installed_importer(traceback: &Traceback) -> Option<&str> {
    let frame = traceback
        .frames()
        .filter(|frame| !crate::explain::frame_package(&frame.file).is_some_and(crate::explain::is_lookup_machinery))
        .last()?;
    if frame.function != "<module>" || !crate::explain::is_installed_code(&frame.file) {
        return None;
    }
    crate::explain::frame_package(&frame.file)
}

/// A module no known distribution installs, imported by an installed
/// package: no folder of the project can be what it wanted, so what is
/// missing is a dependency of that package. The words do not say whether
/// it is not installed or installed at a release without the module
/// (earth2studio192: ngcsdk 3.55 dropped `ngcbpc`), or installed wrongly
/// (pywinauto356: pywin32's `win32process`), so it is listed, with what
/// decides. Which distribution installs the module is not known here, and
/// the PyPI project of its name may be another's (warp is warp-lang's).
fn unknown_dependency(module: &str, importer: &str) -> Reading {
    Reading {
        cause: CAUSE,
        said: format!(
            "no module named {module}, which the installed {importer} imports from its own code: a dependency of {importer} is missing from the Python that ran, or installed at a release without {module}"
        ),
        node: vec![
            (
                None,
                format!(
                    "which distribution installs {module}: {importer}'s requirements or extras name it (python -m pip show {importer}; python -m pip check names a declared one that is missing), else {importer}'s install instructions do"
                ),
            ),
            (
                None,
                format!(
                    "whether that distribution is installed at a release that no longer has {module}, or not yet: then the release {importer} pins (its requirements give the range) is the fix, not a first install"
                ),
            ),
        ],
        fix: format!(
            "install the distribution that provides {module}, as {importer}'s requirements, extras or install instructions name it, in the environment the job runs in; a PyPI project named {module}, where there is one, may be another's"
        ),
        stated: true,
        settles: false,
        rules_out: Vec::new(),
    }
}

/// A module no distribution in the table installs: the project's own folder
/// run from elsewhere, a submodule not fetched, a package not installed; the
/// words alone do not say which.
fn unknown_module(module: &str) -> Reading {
    Reading {
        cause: CAUSE,
        said: format!(
            "no module named {module}, which no distribution envdoctor knows installs: a package not installed, or a folder of the project Python did not find"
        ),
        node: vec![(
            None,
            format!(
                "whether {module} is the project's own (a folder {module}/ in its checkout: then run from the project's root or put it on PYTHONPATH; a git submodule: git submodule update --init) or a package (the project's requirements file names it)"
            ),
        )],
        fix: format!(
            "install the package that provides {module} as the project's requirements name it (python -m pip install -r requirements.txt), or run from the project's root where {module} is its own folder"
        ),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    }
}

/// A distribution whose newest release has no build for the system the log
/// ran on: pip falls back to an older release that has one, or fails.
fn no_build_for(module: &str, distribution: &Distribution, system: &str) -> Reading {
    let systems = match distribution.systems.as_slice() {
        [] => "no wheel and no sdist".to_string(),
        systems => format!("wheels for {} only", systems.join(", ")),
    };
    Reading {
        cause: CAUSE,
        said: format!(
            "no module named {module}, and {} {}, the newest release on PyPI, has {systems}: none for {system}, where pip falls back to an older release or finds none",
            distribution.name, distribution.version,
        ),
        node: Vec::new(),
        fix: format!(
            "install {} from where its project publishes {system} builds (its install instructions), or run the job where it has one; else use the code path that does not import {module}",
            distribution.name
        ),
        stated: true,
        settles: false,
        rules_out: Vec::new(),
    }
}

/// A build the import failed in: the package built, where pip names it, and
/// whether the build was isolated.
fn read_in_build(module: &str, distribution: &str, build: Build) -> Reading {
    let (package, target) = match build.package {
        Some(package) => (package.clone(), package),
        None => (
            "the package being built".to_string(),
            "PACKAGE (the package pip was building)".to_string(),
        ),
    };
    let said = match build.isolated {
        true => format!(
            "no module named {module} inside the build of {package}: pip installed its build dependencies into an environment of their own (an isolated build), which holds what the package declares for its build, and {module} is not among them"
        ),
        false => format!(
            "no module named {module} inside the build of {package}: where pip ran it isolated (its output then says 'Installing build dependencies'), the build's environment holds only what the package declares for its build; a build run directly (python setup.py) sees the interpreter's own packages, and then {module} is not installed there"
        ),
    };
    Reading {
        cause: BUILD_ISOLATION,
        said,
        node: vec![(
            None,
            format!(
                "whether {distribution} is installed in the environment pip installs into (python -m pip show {distribution}): an isolated build does not see it there"
            ),
        )],
        fix: format!(
            "python -m pip install {distribution}, then build without isolation so the build sees it: python -m pip install --no-build-isolation {target}"
        ),
        stated: true,
        // Without pip's line for an isolated build, the build may have been
        // told not to isolate, run directly, or the paste left the line out.
        settles: build.isolated,
        rules_out: vec![CAUSE],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        reading_after(&[], log)
    }

    /// What `log` reads as with `earlier` printed before it.
    fn reading_after(earlier: &[String], log: &str) -> Option<Reading> {
        let tables = crate::matrix::builtin_tables().unwrap();
        let (traceback, text) = super::super::parsed(log);
        let context = Context {
            earlier,
            ..Context::with_tables(&tables)
        };
        read(&text, &traceback, context)
    }

    fn job_imports(module: &str) -> String {
        format!(
            "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 3, in <module>\n    import {module}\nModuleNotFoundError: No module named '{module}'\n"
        )
    }

    #[test]
    fn a_module_of_a_known_distribution_names_the_distribution_to_install() {
        let hydra = reading(&job_imports("hydra")).unwrap();
        assert_eq!(hydra.cause, CAUSE);
        assert!(hydra.settles && hydra.stated, "{hydra:?}");
        assert!(
            hydra.fix.starts_with("python -m pip install hydra-core "),
            "{}",
            hydra.fix
        );
        let cv2 = reading(&job_imports("cv2")).unwrap();
        assert!(
            cv2.fix
                .contains("install opencv-python (or one of opencv-python-headless"),
            "{}",
            cv2.fix
        );
    }

    #[test]
    fn a_module_no_known_distribution_installs_is_listed_with_what_would_decide() {
        let own = reading(&job_imports("tracker")).unwrap();
        assert!(!own.settles, "{own:?}");
        assert!(own.node[0].1.contains("git submodule update --init"), "{:?}", own.node);
    }

    /// moduluslaunch126: an installed package's own import of a module no
    /// known distribution installs asks its requirements, never whether the
    /// module is a folder of the project; the job's own import still does.
    #[test]
    fn an_unknown_module_an_installed_package_imports_is_its_dependency() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/darcy/train.py\", line 12, in <module>\n    from modulus.datapipes.benchmarks.darcy import Darcy2D\n  File \"/home/u/.local/lib/python3.10/site-packages/modulus/datapipes/benchmarks/darcy.py\", line 18, in <module>\n    import warp as wp\n  File \"<frozen importlib._bootstrap>\", line 1027, in _find_and_load\nModuleNotFoundError: No module named 'warp'\n";
        let found = reading(log).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.stated && !found.settles, "{found:?}");
        assert!(found.said.contains("the installed modulus imports"), "{}", found.said);
        assert!(
            found.node.iter().all(|(_, text)| !text.contains("submodule")),
            "{:?}",
            found.node
        );
        let from_the_job = log.replace(
            "/home/u/.local/lib/python3.10/site-packages/modulus",
            "/home/u/darcy/modulus",
        );
        let own = reading(&from_the_job).unwrap();
        assert!(own.node[0].1.contains("git submodule update --init"), "{:?}", own.node);
        // torch.load unpickling a class of the user's project imports it by the name the file holds.
        let unpickled = "Traceback (most recent call last):\n  File \"/home/u/yolo/detect.py\", line 9, in <module>\n    ckpt = torch.load(weights)\n  File \"/v/lib/python3.10/site-packages/torch/serialization.py\", line 1384, in find_class\n    return super().find_class(mod_name, name)\nModuleNotFoundError: No module named 'models'\n";
        let found = reading(unpickled).unwrap();
        assert!(
            found.node[0].1.contains("git submodule update --init"),
            "{:?}",
            found.node
        );
    }

    #[test]
    fn dotted_stdlib_and_compiled_modules_are_other_readers() {
        for module in [
            "transformers.models.qwen2",
            "tkinter",
            "mmcv_ext",
            "pkg_resources",
            "colossal_C",
        ] {
            assert_eq!(reading(&job_imports(module)), None, "{module}");
        }
    }

    #[test]
    fn an_import_in_an_installed_package_leaves_its_requirement_open() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 1, in <module>\n    import transformers\n  File \"/v/lib/python3.10/site-packages/transformers/tokenization_marian.py\", line 4, in <module>\n    import sentencepiece\nModuleNotFoundError: No module named 'sentencepiece'\n";
        let found = reading(log).unwrap();
        assert!(
            !found.settles && found.node[0].1.contains("python -m pip show transformers"),
            "{found:?}"
        );
    }

    #[test]
    fn a_wrappers_words_name_the_package_that_imported_it() {
        let log = "ERROR    There was an error importing Tensorflow. This is most likely because you do not have TensorFlow installed. Original import error: No module named 'absl'\n";
        let found = reading(log).unwrap();
        assert!(
            !found.settles && found.node[0].1.contains("python -m pip show tensorflow"),
            "{found:?}"
        );
    }

    #[test]
    fn a_bare_line_missing_a_build_time_import_may_be_a_builds() {
        assert!(
            !reading("ModuleNotFoundError: No module named 'torch'\n")
                .unwrap()
                .settles
        );
        assert!(
            reading("ModuleNotFoundError: No module named 'omegaconf'\n")
                .unwrap()
                .settles
        );
    }

    #[test]
    fn an_isolated_build_is_named_and_a_build_of_unknown_isolation_is_listed() {
        let pip = [
            "  Installing build dependencies ... done",
            "  Getting requirements to build wheel ... error",
        ]
        .map(str::to_string);
        let log = "Traceback (most recent call last):\n  File \"<string>\", line 9, in <module>\nModuleNotFoundError: No module named 'torch'\n";
        let isolated = reading_after(&pip, log).unwrap();
        assert_eq!(isolated.cause, BUILD_ISOLATION);
        assert!(
            isolated.settles && isolated.said.contains("an isolated build"),
            "{isolated:?}"
        );
        assert!(
            isolated
                .fix
                .ends_with("--no-build-isolation PACKAGE (the package pip was building)"),
            "{}",
            isolated.fix
        );
        let unknown = reading_after(&pip[1..], log).unwrap();
        assert_eq!(unknown.cause, BUILD_ISOLATION);
        assert!(!unknown.settles, "{unknown:?}");
        let named = ["  Building wheel for flash-attn (setup.py) ... error".to_string()];
        let flash = reading_after(&named, log).unwrap();
        assert!(flash.fix.ends_with("--no-build-isolation flash-attn"), "{}", flash.fix);
        // A job's own import of torch, with no build in sight, is no build's.
        let job = reading(&job_imports("torch")).unwrap();
        assert_eq!(job.cause, CAUSE);
    }

    #[test]
    fn an_earlier_install_that_finished_and_a_setup_file_of_the_job_are_no_build() {
        let pip = [
            "  Installing build dependencies ... done",
            "  Building wheel for myproj (pyproject.toml) ... done",
        ]
        .map(str::to_string);
        let found = reading_after(&pip, &job_imports("hydra")).unwrap();
        assert_eq!(found.cause, CAUSE, "{found:?}");
        assert!(found.settles, "{found:?}");
        let env_setup = job_imports("hydra").replace("train.py", "env_setup.py");
        assert_eq!(reading(&env_setup).unwrap().cause, CAUSE);
        let setup = job_imports("torch").replace("train.py", "setup.py");
        let direct = reading(&setup).unwrap();
        assert!(direct.cause == BUILD_ISOLATION && !direct.settles, "{direct:?}");
    }

    #[test]
    fn python_2s_unquoted_names_are_read_only_undotted_and_never_settle() {
        let log = "Traceback (most recent call last):\n  File \"/usr/lib/python2.7/dist-packages/x/train.py\", line 3, in <module>\n    import keras\nImportError: No module named keras\n";
        let found = reading(log).unwrap();
        assert!(!found.settles, "{found:?}");
        assert_eq!(reading("ImportError: No module named google.protobuf.internal\n"), None);
        assert_eq!(reading("/usr/bin/python3: No module named pip\n"), None);
    }

    #[test]
    fn a_distribution_without_a_build_for_the_logs_system_is_said_so() {
        let log = "Traceback (most recent call last):\n  File \"C:\\ComfyUI\\main.py\", line 3, in <module>\n    import triton\nModuleNotFoundError: No module named 'triton'\n";
        let found = reading(log).unwrap();
        assert!(!found.settles && found.said.contains("none for windows"), "{found:?}");
        let linux = reading(&job_imports("triton")).unwrap();
        assert!(linux.settles, "{linux:?}");
    }
}
