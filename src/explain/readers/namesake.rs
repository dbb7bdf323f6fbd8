//! An unrelated PyPI project installed under the import name the code wants:
//! `pip install apex` installs a Pyramid add-on, not NVIDIA's apex; `pip
//! install clip` a project that is not OpenAI's CLIP. The code then misses a
//! name its own project always has (`module 'clip' has no attribute 'load'`,
//! `No module named 'pocket.data'; 'pocket' is not a package`), or the
//! namesake's own files fail on an import the wanted project never makes
//! (PyPI's apex/__init__.py importing pyramid.session).
//! `compat-matrix/tables/namesakes.toml` lists the import names, what each
//! wanted project always has and what only its namesake imports. A name the
//! row does not list, missing from such a module, may as well be a release of
//! the wanted project without it: that reading is listed, never named, unless
//! the node shows the namesake's own distribution installed where its name
//! differs from the wanted one's (`easytorch`, not `easy-torch`).

use super::text::{self, FoundIn};
use super::{Context, Reading, names, not_installed};
use crate::explain::traceback::Traceback;
use crate::knowledge::tables::Namesake;

pub const CAUSE: &str = "pypi-namesake-installed";

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    if text::circular_import(text) {
        // `partially initialized module 'clip'`: a file of the job's named clip.py, importing itself.
        return None;
    }
    let tables = context.tables?;
    if let Some(reading) = own_import_failed(text, traceback, context, tables) {
        return Some(reading);
    }
    let (module, name) = names::missing_name(text)?;
    let top = module.split('.').next()?;
    let row = tables.namesakes.of_import(top)?;
    // Every module has its dunders; one without them is no project's own.
    if text::is_dunder(name) {
        return None;
    }
    // The message's path found the module outside site-packages (a folder
    // of the job's own), or in another package: no install of either project.
    if matches!(
        text::import_found_in(text, module, top),
        Some(FoundIn::Outside | FoundIn::OtherInstall(_))
    ) && text::import_found_at(text, module) != Some("unknown location")
    {
        return None;
    }
    let path = match module.split_once('.') {
        Some((_, below)) => format!("{below}.{name}"),
        None => name.to_string(),
    };
    let dotted = format!("{module}.{name}");
    let user = names::user_of(traceback, top).unwrap_or_else(|| "the code".to_string());
    let single_module = text.contains(&format!("'{top}' is not a package"));
    let mut node = node_facts(row, context);
    let always = row.wanted_has(&path);
    let settles = (always || holds(&node, true)) && !holds(&node, false);
    let module_word = if single_module {
        format!(
            " (Python says '{top}' is not a package: the {top} imported is a single module, not the wanted project's package)"
        )
    } else {
        String::new()
    };
    let said = if always {
        format!(
            "{user} uses {dotted}, which {} always has; the {top} imported lacks it{module_word}: PyPI's {}, an unrelated project, installs the same import name ({})",
            row.wanted, row.namesake, row.source
        )
    } else {
        format!(
            "{user} uses {dotted}, missing from {top}{module_word}: PyPI's {} is an unrelated project that installs the import name {top} of {}, which the code may be written for ({})",
            row.namesake, row.wanted, row.source
        )
    };
    if !settles {
        node.push((
            None,
            format!(
                "which {top} the job imports (python -c \"import {top}; print({top}.__file__)\") and which project installed it (pip show {}: its home page names it)",
                row.namesake
            ),
        ));
    }
    Some(reading(row, said, node, settles))
}

/// The namesake's own files failed on a module only it imports: PyPI's
/// apex/__init__.py on pyramid.session. With frames, one of them must be in
/// the namesake's folder under site-packages; a bare line is read only where
/// a name is missing from that module (the namesake wants an older release
/// of it: pip installs the module itself with it).
fn own_import_failed(
    text: &str,
    traceback: &Traceback,
    context: Context,
    tables: &crate::knowledge::tables::Tables,
) -> Option<Reading> {
    let (module, name) = match text::name_not_importable(text) {
        Some((name, module)) => (module, Some(name)),
        None => (text::module_not_found(text)?, None),
    };
    let top = module.split('.').next()?;
    let row = tables.namesakes.needing(top)?;
    let own_frame = traceback
        .frames()
        .filter(|frame| crate::explain::frame_package(&frame.file) == Some(row.import.as_str()))
        .map(|frame| frame.file.as_str())
        .last();
    // Without the namesake's frames, only the shape of the reports it was
    // collected from (vissl279: the line alone, the namesake's own module
    // found at an `(unknown location)`) ties the line to it: a Pyramid app's
    // own import error reads the same otherwise.
    let bare = traceback.frames().next().is_none()
        && name.is_some_and(|name| !name.is_empty())
        && text.contains("(unknown location)");
    if own_frame.is_none() && !bare {
        return None;
    }
    let what = match name {
        Some(name) => format!("{name} from {module}"),
        None => module.to_string(),
    };
    let place = match own_frame {
        Some(file) => format!("the {} imported ({file}) imports {what}", row.import),
        None => format!("the import of {what} failed"),
    };
    let said = format!(
        "{place}, which only PyPI's {}, an unrelated project of the same import name, imports: {} never imports {top} ({})",
        row.namesake, row.wanted, row.source
    );
    let node = node_facts(row, context);
    let settles = !holds(&node, false);
    Some(reading(row, said, node, settles))
}

/// What the node's packages say: the namesake's distribution installed (and
/// whether its name tells it from the wanted project's), or only the wanted
/// project's, under a name of its own, installed.
fn node_facts(row: &Namesake, context: Context) -> Vec<(Option<bool>, String)> {
    let Some(facts) = context.facts else {
        return Vec::new();
    };
    let namesake = facts.package(&row.namesake);
    let version =
        |package: &crate::snapshot::packages::Package| package.version.clone().unwrap_or_else(|| "?".to_string());
    match namesake {
        Some(package) if row.names_differ() => vec![(
            Some(true),
            format!(
                "{} {} is installed here: PyPI's {}, not {}",
                row.namesake,
                version(package),
                row.namesake,
                row.wanted_distribution
            ),
        )],
        Some(package) => vec![(
            None,
            format!(
                "{} {} is installed here; the wanted project installs as {} too, so the name does not say which one it is",
                row.namesake,
                version(package),
                row.wanted_distribution
            ),
        )],
        None => match facts.package(&row.wanted_distribution).filter(|_| row.names_differ()) {
            Some(wanted) if context.absence_is_a_fact => vec![(
                Some(false),
                format!(
                    "{} {} is installed here, and {} is not",
                    row.wanted_distribution,
                    version(wanted),
                    row.namesake
                ),
            )],
            _ => Vec::new(),
        },
    }
}

/// Whether one of the node's facts confirms (`true`) or contradicts (`false`) the reading.
fn holds(node: &[(Option<bool>, String)], confirms: bool) -> bool {
    node.iter().any(|(holds, _)| *holds == Some(confirms))
}

fn reading(row: &Namesake, said: String, node: Vec<(Option<bool>, String)>, settles: bool) -> Reading {
    Reading {
        cause: CAUSE,
        said,
        node,
        fix: format!("pip uninstall -y {} && {}", row.namesake, row.install),
        // The words point at the namesake; they do not name it.
        stated: false,
        settles,
        rules_out: if settles {
            vec![names::CAUSE, not_installed::CAUSE]
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        let tables = crate::matrix::builtin_tables().unwrap();
        let (traceback, text) = super::super::parsed(log);
        let context = Context::with_tables(&tables);
        read(&text, &traceback, context)
    }

    /// The real messages of the relabelled cases, each named with its fix.
    #[test]
    fn each_threads_message_names_the_namesake_and_the_wanted_projects_install() {
        for (log, fix) in [
            // vissl279: PyPI's apex/__init__.py importing pyramid.session.
            (
                "File \"/home/u/.local/lib/python3.7/site-packages/apex/__init__.py\", line 13, in <module>\n    from pyramid.session import UnencryptedCookieSessionFactoryConfig\nImportError: cannot import name 'UnencryptedCookieSessionFactoryConfig' from 'pyramid.session' (unknown location)\n",
                "pip uninstall -y apex && git clone https://github.com/NVIDIA/apex && cd apex && ",
            ),
            // zeroshotrlhr1: the same line, alone.
            (
                "ImportError: cannot import name 'UnencryptedCookieSessionFactoryConfig' from 'pyramid.session' (unknown location)\n",
                "pip uninstall -y apex && ",
            ),
            // clip329
            (
                "Traceback (most recent call last):\n  File \"D:\\Projekte\\CLIP\\myclip.py\", line 7, in <module>\n    model, preprocess = clip.load(\"ViT-B/32\", device=device)\nAttributeError: module 'clip' has no attribute 'load'\n",
                "pip uninstall -y clip && pip install git+https://github.com/openai/CLIP.git",
            ),
            // upt46
            (
                "ModuleNotFoundError: No module named 'pocket.data'; 'pocket' is not a package\n",
                "pip uninstall -y pocket && git clone https://github.com/fredzzhang/pocket.git && pip install -e pocket",
            ),
            // trackmllibrary17
            (
                "ModuleNotFoundError: No module named 'trackml.dataset'\n",
                "pip uninstall -y trackml && pip install git+https://github.com/LAL/trackml-library",
            ),
            // whisperlivekit3
            (
                "AttributeError: module 'ffmpeg' has no attribute 'input'\n",
                "pip uninstall -y ffmpeg && pip install --force-reinstall ffmpeg-python",
            ),
        ] {
            let found = reading(log).unwrap_or_else(|| panic!("{log}"));
            assert_eq!(found.cause, CAUSE);
            assert!(found.settles, "{log}: {found:?}");
            assert_eq!(found.rules_out, [names::CAUSE, not_installed::CAUSE]);
            assert!(found.fix.starts_with(fix), "{}", found.fix);
            assert!(crate::fix_command::one_command(&found.fix).is_ok(), "{}", found.fix);
        }
        let pocket =
            reading("ModuleNotFoundError: No module named 'pocket.data'; 'pocket' is not a package\n").unwrap();
        assert!(pocket.said.contains("single module"), "{}", pocket.said);
    }

    /// What `log` reads as on the recorded H100 with `installed` at `version` added.
    fn reading_with(log: &str, installed: &str, version: &str) -> Option<Reading> {
        let (traceback, text) = super::super::parsed(log);
        super::super::read_on_recorded_h100(
            |snapshot| super::super::add_package(snapshot, installed, version),
            |context| read(&text, &traceback, context),
        )
    }

    /// step7: easytorch.utils.registry came to easy-torch in 1.2.10, so the
    /// words alone list the namesake; the node's easytorch 3.4.7, a
    /// distribution of another name than easy-torch, names it.
    #[test]
    fn a_name_the_wanted_project_gained_later_is_listed_until_the_node_shows_the_namesake() {
        let log = "Traceback (most recent call last):\n  File \"/home/u/STEP/basicts/data/__init__.py\", line 3, in <module>\n    from easytorch.utils.registry import scan_modules\nModuleNotFoundError: No module named 'easytorch.utils.registry'\n";
        let alone = reading(log).unwrap();
        assert!(!alone.settles && alone.rules_out.is_empty(), "{alone:?}");
        let namesake = reading_with(log, "easytorch", "3.4.7").unwrap();
        assert!(namesake.settles, "{namesake:?}");
        assert_eq!(
            namesake.node,
            [(
                Some(true),
                "easytorch 3.4.7 is installed here: PyPI's easytorch, not easy-torch".to_string()
            )]
        );
        assert!(
            namesake
                .fix
                .starts_with("pip uninstall -y easytorch && pip install --force-reinstall easy-torch")
        );
        // The wanted project installed under its own name, and no namesake: not this cause.
        let wanted = reading_with(log, "easy-torch", "1.2.5").unwrap();
        assert!(!wanted.settles, "{wanted:?}");
        // One name for both projects: the version is said, and settles nothing.
        let clip = reading_with(
            "AttributeError: module 'clip' has no attribute 'load'\n",
            "clip",
            "0.2.0",
        )
        .unwrap();
        assert_eq!(
            clip.node[0],
            (
                None,
                "clip 0.2.0 is installed here; the wanted project installs as clip too, so the name does not say which one it is".to_string()
            )
        );
        assert!(clip.settles, "{clip:?}");
    }

    #[test]
    fn a_name_the_wanted_project_does_not_list_is_listed_not_named() {
        for log in [
            "ImportError: cannot import name 'amp' from 'apex' (/v/lib/python3.10/site-packages/apex/__init__.py)\n",
            "ModuleNotFoundError: No module named 'clip.simple_tokenizer'\n",
        ] {
            let found = reading(log).unwrap_or_else(|| panic!("{log}"));
            assert!(!found.settles && found.rules_out.is_empty(), "{log}: {found:?}");
        }
    }

    #[test]
    fn other_modules_local_folders_and_circular_imports_are_not_read() {
        for log in [
            // Not in the table.
            "AttributeError: module 'open_clip' has no attribute 'load'\n",
            "ModuleNotFoundError: No module named 'trackml_tools.dataset'\n",
            // The job's own folder named clip.
            "ImportError: cannot import name 'load' from 'clip' (/home/u/proj/clip/__init__.py)\n",
            // A script named clip.py importing itself.
            "AttributeError: partially initialized module 'clip' has no attribute 'load' (most likely due to a circular import)\n",
            // pyramid failing in a web application's own frames, not in PyPI's apex.
            "Traceback (most recent call last):\n  File \"/srv/app/views.py\", line 3, in <module>\n    from pyramid.session import UnencryptedCookieSessionFactoryConfig\nImportError: cannot import name 'UnencryptedCookieSessionFactoryConfig' from 'pyramid.session' (/v/lib/python3.10/site-packages/pyramid/session.py)\n",
            // pyramid itself missing, on a line alone: pip installs it with PyPI's apex.
            "ModuleNotFoundError: No module named 'pyramid'\n",
            // A Pyramid app's own import, on a line alone, found where pyramid is installed.
            "ImportError: cannot import name 'TemplateNotFound' from 'pyramid.exceptions' (/v/lib/python3.10/site-packages/pyramid/exceptions.py)\n",
            "ImportError: cannot import name 'TemplateNotFound' from 'pyramid.exceptions'\n",
        ] {
            assert_eq!(reading(log), None, "{log}");
        }
    }

    #[test]
    fn the_entries_it_names_and_rules_out_are_the_matrixs() {
        let matrix = crate::matrix::Matrix::load(&[]).unwrap();
        for id in [CAUSE, names::CAUSE, not_installed::CAUSE] {
            assert!(matrix.symptom(id).is_some() || matrix.rule(id).is_some(), "{id}");
        }
    }
}
