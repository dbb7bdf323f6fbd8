//! An enum member the code asks for that the enum does not have. Before
//! Python 3.12, `Enum` classes look a member up in `EnumMeta.__getattr__`
//! (the standard library's enum.py), which raises the bare name:
//! `AttributeError: _3D`. The message names neither the enum nor its package;
//! the call printed above enum's frame does (`face_alignment.LandmarksType._3D`).
//! A package's enum gains, renames and drops members between releases (the
//! face_alignment threads of nextface59 and geneface237: `_2D` became `TWO_D`;
//! MinkowskiEngine's `HYPERCUBE` became `HYPER_CUBE` in pointdsc1). Where an
//! installed package asks another's enum for a member it lacks, their
//! releases disagree, and that is named. Where the job's own code asks, a
//! member no release had (a typo) reads the same, and no table dates enum
//! members: the reading is listed with the command that lists the members,
//! as for any undated name the job's code uses. So it is where the call
//! reaches the enum through an alias (`ME.RegionType`) or a bare class, or
//! through a name the project's own folders also have (`datasets`): the
//! package, and whether the enum is the project's own, are not known.

use super::{Context, Reading, names, text};
use crate::explain::traceback::Traceback;

pub fn read(traceback: &Traceback, context: Context) -> Option<Reading> {
    let section = traceback.raising_section()?;
    let member = section.raised.as_ref()?.message.trim();
    // enum's `__getattr__` raises the dunders it is asked for itself.
    if !text::is_identifier(member) || text::is_dunder(member) {
        return None;
    }
    // IPython 8 names the method with its class: `EnumMeta.__getattr__`.
    let raised_in_enum = section.frames.last().is_some_and(|frame| {
        frame.function.rsplit('.').next() == Some("__getattr__")
            && crate::explain::frame_package(&frame.file) == Some(crate::explain::STDLIB)
            && frame.file.rsplit(['/', '\\']).next() == Some("enum.py")
    });
    if !raised_in_enum {
        return None;
    }
    let enum_path = enum_reached(section.caller_source_line.as_deref()?, member)?;
    let top = enum_path.split('.').next()?;
    // The standard library's own enums (`signal.Signals`) are the
    // interpreter's: another Python, not a package's release.
    if crate::explain::stdlib_modules::is_stdlib_module(top) {
        return None;
    }
    let class = enum_path.rsplit('.').next()?;
    let package = package_named(enum_path, traceback, context);
    let caller = names::user_of(traceback, top);
    let used = format!("{enum_path}.{member}");
    let members = format!("python -c \"import {top}; print(list({enum_path}.__members__))\"");
    if let (Some(package), Some(caller)) = (&package, &caller) {
        return Some(Reading {
            cause: names::CAUSE,
            said: format!(
                "{caller}, an installed package, uses {used}, a member that {package}'s enum {class} does not have in the release installed (enum's own lookup raised): their releases do not agree"
            ),
            node: Vec::new(),
            fix: format!(
                "install the {package} release {caller} was made for (python -m pip show {caller} lists its requirements), or the {caller} release made for the {package} installed"
            ),
            stated: false,
            settles: true,
            rules_out: Vec::new(),
        });
    }
    let user = match &caller {
        Some(caller) => format!("{caller}, an installed package,"),
        None => "the job's code".to_string(),
    };
    let (check, fix) = match &package {
        Some(package) => (
            format!(
                "which members the {package} installed has ({members}): a member of another spelling means the code was written for another {package} release (the project's requirements file pins it); none like it, a mistake in the code"
            ),
            format!(
                "install the {package} release the code was written for: python -m pip install \"{package}==VERSION\"; or change {used} to the member's name in the release installed"
            ),
        ),
        None => (
            format!(
                "which module {top} is in the code that uses it (its import line): a package's enum without the member is a release other than the one the code was written for; the standard library's, a Python other than the one the code was written for; the project's own, a mistake in the code"
            ),
            format!(
                "install the release of the package that defines {class} that the code was written for, or change {used} to the member's name in the release installed ({members} lists them)"
            ),
        ),
    };
    Some(Reading {
        cause: names::CAUSE,
        said: format!("{user} uses {used}, a member the enum {class} does not have here (enum's own lookup raised)"),
        node: vec![(None, check)],
        fix,
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    })
}

/// The dotted name before `.member` in a line of code (`LandmarksDetector(
/// face_alignment.LandmarksType._3D, flip_input=False)`): the enum as the
/// code reached it. `None` where the line asks two enums for the member
/// (`datasets.Split.TRAIN if hf else MySplit.TRAIN`): which one raised is
/// not known.
fn enum_reached<'l>(line: &'l str, member: &str) -> Option<&'l str> {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let needle = format!(".{member}");
    let mut paths = line.match_indices(&needle).filter_map(|(at, _)| {
        let after = line[at + needle.len()..].chars().next();
        if after.is_some_and(is_name_char) {
            return None;
        }
        let start = line[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_name_char(c) || c == '.')
            .last()
            .map_or(at, |(start, _)| start);
        let path = &line[start..at];
        (!path.is_empty() && path.split('.').all(text::is_identifier)).then_some(path)
    });
    let first = paths.next()?;
    paths.all(|other| other == first).then_some(first)
}

/// The distribution whose module the enum is reached through: the path's
/// first part where it is a package's import name (a module, not a class
/// imported by name or an alias), by the import-names table or the node's
/// installed packages, and no folder or file of the job's code has that
/// name (a project's own `datasets/` is imported before the package).
fn package_named(enum_path: &str, traceback: &Traceback, context: Context) -> Option<String> {
    let (top, _) = enum_path.split_once('.')?;
    let project_has_it = traceback
        .frames()
        .filter(|frame| !crate::explain::is_installed_code(&frame.file))
        .any(|frame| {
            let mut parts = frame.file.rsplit(['/', '\\']);
            let file = parts.next().unwrap_or_default();
            file.strip_suffix(".py") == Some(top) || parts.any(|folder| folder == top)
        });
    if project_has_it {
        return None;
    }
    if let Some(found) = context.tables.and_then(|tables| {
        tables
            .import_names
            .providers(top)
            .first()
            .map(|found| found.name.clone())
    }) {
        return Some(found);
    }
    let distribution = crate::explain::distribution_of(top);
    context.facts?.package_version(&distribution).map(|_| distribution)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::readers::parsed;

    fn reading(log: &str) -> Option<Reading> {
        let tables = crate::knowledge::tables::read_builtin().0;
        let (traceback, _) = parsed(log);
        read(&traceback, Context::with_tables(&tables))
    }

    const ENUM_FRAME: &str = "  File \"/home/u/anaconda3/lib/python3.7/enum.py\", line 349, in __getattr__\n    raise AttributeError(name) from None\n";

    fn enum_log(calling_file: &str, calling_line: &str, member: &str) -> String {
        format!(
            "Traceback (most recent call last):\n  File \"{calling_file}\", line 18, in __init__\n    {calling_line}\n{ENUM_FRAME}AttributeError: {member}\n"
        )
    }

    /// tods95, as posted: an installed package asks another's enum for a
    /// member its release lacks.
    #[test]
    fn an_installed_packages_use_of_a_packages_enum_is_their_releases_disagreeing() {
        let log = enum_log(
            "/home/user/.local/lib/python3.7/site-packages/tods/detection_algorithm/PyodCBLOF.py",
            "\"primitive_family\": d3m.metadata.base.PrimitiveFamily.ANOMALY_DETECTION,",
            "ANOMALY_DETECTION",
        );
        let (traceback, _) = parsed(&log);
        let found = crate::explain::readers::read_on_recorded_h100(
            |snapshot| crate::explain::readers::add_package(snapshot, "d3m", "2020.5.18"),
            |context| read(&traceback, context),
        )
        .unwrap();
        assert_eq!(found.cause, names::CAUSE);
        assert!(found.settles);
        assert!(
            found.said.starts_with(
                "tods, an installed package, uses d3m.metadata.base.PrimitiveFamily.ANOMALY_DETECTION, a member that d3m's enum PrimitiveFamily"
            ),
            "{}",
            found.said
        );
    }

    /// nextface59, as posted: the job's code asks face_alignment's enum for
    /// a member the release installed renamed; a typo reads the same, so
    /// the members installed decide.
    #[test]
    fn the_jobs_use_of_a_packages_enum_is_listed_with_its_members() {
        for member in ["_3D", "_3d"] {
            let log = enum_log(
                "/home/yc/NextFace/landmarksfan.py",
                &format!(
                    "self.fa = face_alignment.FaceAlignment(face_alignment.LandmarksType.{member}, flip_input=False)"
                ),
                member,
            );
            let found = reading(&log).unwrap();
            assert_eq!(found.cause, names::CAUSE);
            assert!(!found.settles);
            assert!(
                found.node[0].1.contains(
                    "(python -c \"import face_alignment; print(list(face_alignment.LandmarksType.__members__))\")"
                ),
                "{:?}",
                found.node
            );
            assert!(found.fix.contains("face-alignment==VERSION"), "{}", found.fix);
        }
    }

    /// pointdsc1: `ME` is MinkowskiEngine's alias in that project, which
    /// the line does not say; the project's own enum would read the same,
    /// and so does a package's name that a folder of the project also has.
    #[test]
    fn an_enum_whose_package_is_not_known_is_listed_not_named() {
        let alias = enum_log(
            "/Bill/Project/PointDSC/misc/fcgf.py",
            "region_type=ME.RegionType.HYPER_CUBE,",
            "HYPER_CUBE",
        );
        let local = enum_log(
            "/home/u/detr/datasets/coco.py",
            "ds = Loader(datasets.Split.VALIDATE)",
            "VALIDATE",
        );
        for (log, top) in [(alias, "ME"), (local, "datasets")] {
            let found = reading(&log).unwrap();
            assert!(!found.settles);
            assert!(
                found.node[0].1.contains(&format!("which module {top} is")),
                "{:?}",
                found.node
            );
        }
    }

    /// IPython prints lines around the one that ran; the arrowed one asked.
    #[test]
    fn ipythons_arrowed_line_is_the_call_that_asked() {
        let log = "---------------------------------------------------------------------------\nAttributeError                            Traceback (most recent call last)\n<ipython-input-3-5e2> in <module>\n      2 import datasets\n----> 3 mode = MyMode.TRAIN\n      4 split = datasets.Split.TRAIN\n\n~/anaconda3/lib/python3.8/enum.py in __getattr__(cls, name)\n    382             return cls._member_map_[name]\n    383         except KeyError:\n--> 384             raise AttributeError(name) from None\n\nAttributeError: TRAIN\n";
        let found = reading(log).unwrap();
        assert!(!found.settles);
        assert!(found.said.contains("uses MyMode.TRAIN"), "{}", found.said);
    }

    #[test]
    fn what_is_not_an_enums_lookup_of_a_member_reads_as_nothing() {
        for log in [
            // Raised elsewhere than the standard library's enum.py.
            "Traceback (most recent call last):\n  File \"/home/u/x.py\", line 3, in f\n    face_alignment.LandmarksType._3D\n  File \"/home/u/lib.py\", line 9, in __getattr__\n    raise AttributeError(name)\nAttributeError: _3D\n".to_string(),
            "Traceback (most recent call last):\n  File \"/home/u/x.py\", line 3, in f\n    face_alignment.LandmarksType._3D\n  File \"/home/u/proj/enum.py\", line 9, in __getattr__\n    raise AttributeError(name)\nAttributeError: _3D\n".to_string(),
            // A message that is not a bare name, or a dunder enum raises itself.
            enum_log("/home/u/x.py", "face_alignment.LandmarksType._3D", "module 'x' has no attribute 'y'"),
            enum_log(
                "/home/u/x.py",
                "torchvision.transforms.InterpolationMode.__dataclass_fields__",
                "__dataclass_fields__",
            ),
            // The line does not use the member.
            enum_log("/home/u/x.py", "run(mode)", "_3D"),
            // The standard library's own enum.
            enum_log("/home/u/x.py", "os.kill(pid, signal.Signals.SIGFOO)", "SIGFOO"),
            // A longer name that only starts with the member's.
            enum_log("/home/u/x.py", "face_alignment.LandmarksType._3DX", "_3D"),
            // Two enums asked for it on the line.
            enum_log("/home/u/x.py", "build(datasets.Split.TRAIN if hf else MySplit.TRAIN)", "TRAIN"),
        ] {
            assert!(reading(&log).is_none(), "{log}");
        }
    }

    #[test]
    fn the_enum_is_the_dotted_name_before_the_member() {
        assert_eq!(enum_reached("f(a.b.C._3D, x)", "_3D"), Some("a.b.C"));
        assert_eq!(enum_reached("x = C.RED", "RED"), Some("C"));
        assert_eq!(enum_reached("x = C.REDDER + D.RED", "RED"), Some("D"));
        assert_eq!(enum_reached("x = C.RED if a else C.RED", "RED"), Some("C"));
        assert_eq!(enum_reached("x = C.RED if a else D.RED", "RED"), None);
        assert_eq!(enum_reached("x = .RED", "RED"), None);
    }
}
