//! An enum member the code asks for that the enum does not have. Before
//! Python 3.12, `Enum` classes look a member up in `EnumMeta.__getattr__`
//! (the standard library's enum.py), which raises the bare name:
//! `AttributeError: _3D`. The message names neither the enum nor its package;
//! the call printed above enum's frame does (`face_alignment.LandmarksType._3D`).
//! A package's enum gains, renames and drops members between releases (the
//! face_alignment threads of nextface59 and geneface237: `_2D` became `TWO_D`;
//! MinkowskiEngine's `HYPERCUBE` became `HYPER_CUBE` in pointdsc1), so a
//! member of a package's enum that is missing is a release other than the one
//! the code was written for. Where the call reaches the enum through an alias
//! (`ME.RegionType`) or a bare class name, the package is not known here, and
//! neither is whether the enum is the project's own: the reading is listed,
//! not named.

use super::{Context, Reading, names, text};
use crate::explain::traceback::Traceback;

pub fn read(traceback: &Traceback, context: Context) -> Option<Reading> {
    let section = traceback.raising_section()?;
    let member = section.raised.as_ref()?.message.trim();
    if !text::is_identifier(member) {
        return None;
    }
    let raised_in_enum = section.frames.last().is_some_and(|frame| {
        frame.function == "__getattr__"
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
    let package = package_named(enum_path, context);
    let caller = names::user_of(traceback, top);
    let user = match &caller {
        Some(caller) => format!("{caller}, an installed package,"),
        None => "the job's code".to_string(),
    };
    let used = format!("{enum_path}.{member}");
    let members = format!("python -c \"import {top}; print(list({enum_path}.__members__))\"");
    Some(match package {
        Some(package) => {
            let fix = match &caller {
                Some(caller) => format!(
                    "install the {package} release {caller} was made for (python -m pip show {caller} lists its requirements), or the {caller} release made for the {package} installed"
                ),
                None => format!(
                    "install the {package} release the code was written for (the project's requirements file pins it): python -m pip install \"{package}==VERSION\"; or change {used} to the member's name in the release installed ({members} lists them)"
                ),
            };
            Reading {
                cause: names::CAUSE,
                said: format!(
                    "{user} uses {used}, a member that {package}'s enum {class} does not have in the release installed (enum's own lookup raised): {package}'s releases rename and drop members, so the release installed is not the one the code was written for"
                ),
                node: Vec::new(),
                fix,
                stated: false,
                settles: true,
                rules_out: Vec::new(),
            }
        }
        None => Reading {
            cause: names::CAUSE,
            said: format!(
                "{user} uses {used}, a member the enum {class} does not have here (enum's own lookup raised)"
            ),
            node: vec![(
                None,
                format!(
                    "which module {top} is in the code that uses it (its import line): a package's enum without the member is a release other than the one the code was written for; the project's own enum without it is a mistake in the code"
                ),
            )],
            fix: format!(
                "install the release of the package that defines {class} that the code was written for, or change {used} to the member's name in the release installed ({members} lists them)"
            ),
            stated: false,
            settles: false,
            rules_out: Vec::new(),
        },
    })
}

/// The dotted name before `.member` in a line of code (`LandmarksDetector(
/// face_alignment.LandmarksType._3D, flip_input=False)`): the enum as the
/// code reached it.
fn enum_reached<'l>(line: &'l str, member: &str) -> Option<&'l str> {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let needle = format!(".{member}");
    line.match_indices(&needle).find_map(|(at, _)| {
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
    })
}

/// The distribution whose module the enum is reached through: the path's
/// first part where it is a package's import name (a module, not a class
/// imported by name or an alias), by the import-names table or the node's
/// installed packages.
fn package_named(enum_path: &str, context: Context) -> Option<String> {
    let (top, _) = enum_path.split_once('.')?;
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

    fn enum_log(calling_file: &str, calling_line: &str, member: &str) -> String {
        format!(
            "Traceback (most recent call last):\n  File \"{calling_file}\", line 18, in __init__\n    {calling_line}\n  File \"/home/u/anaconda3/lib/python3.7/enum.py\", line 349, in __getattr__\n    raise AttributeError(name) from None\nAttributeError: {member}\n"
        )
    }

    /// nextface59, as posted: the job's code asks face_alignment's enum for
    /// a member the release installed renamed.
    #[test]
    fn a_packages_enum_without_the_member_is_its_release() {
        let log = enum_log(
            "/home/yc/NextFace/landmarksfan.py",
            "self.landmarksDetector = face_alignment.FaceAlignment(face_alignment.LandmarksType._3D, flip_input=False, device=self.device)",
            "_3D",
        );
        let found = reading(&log).unwrap();
        assert_eq!(found.cause, names::CAUSE);
        assert!(found.settles);
        assert!(
            found
                .said
                .contains("uses face_alignment.LandmarksType._3D, a member that face-alignment's enum LandmarksType"),
            "{}",
            found.said
        );
        assert!(
            found.fix.contains("list(face_alignment.LandmarksType.__members__)"),
            "{}",
            found.fix
        );
    }

    /// pointdsc1: `ME` is MinkowskiEngine's alias in that project, which
    /// the line does not say; the project's own enum would read the same.
    #[test]
    fn an_enum_reached_through_an_alias_is_listed_not_named() {
        let log = enum_log(
            "/Bill/Project/PointDSC/misc/fcgf.py",
            "region_type=ME.RegionType.HYPER_CUBE,",
            "HYPER_CUBE",
        );
        let found = reading(&log).unwrap();
        assert!(!found.settles);
        assert!(found.node[0].1.contains("which module ME is"), "{:?}", found.node);
    }

    #[test]
    fn what_is_not_an_enums_lookup_of_a_member_reads_as_nothing() {
        for log in [
            // Raised elsewhere than enum's __getattr__.
            "Traceback (most recent call last):\n  File \"/home/u/x.py\", line 3, in f\n    face_alignment.LandmarksType._3D\n  File \"/home/u/lib.py\", line 9, in __getattr__\n    raise AttributeError(name)\nAttributeError: _3D\n".to_string(),
            // A message that is not a bare name.
            enum_log("/home/u/x.py", "face_alignment.LandmarksType._3D", "module 'x' has no attribute 'y'"),
            // The line does not use the member.
            enum_log("/home/u/x.py", "run(mode)", "_3D"),
            // The standard library's own enum.
            enum_log("/home/u/x.py", "os.kill(pid, signal.Signals.SIGFOO)", "SIGFOO"),
            // A longer name that only starts with the member's.
            enum_log("/home/u/x.py", "face_alignment.LandmarksType._3DX", "_3D"),
        ] {
            assert!(reading(&log).is_none(), "{log}");
        }
    }

    #[test]
    fn the_enum_is_the_dotted_name_before_the_member() {
        assert_eq!(enum_reached("f(a.b.C._3D, x)", "_3D"), Some("a.b.C"));
        assert_eq!(enum_reached("x = C.RED", "RED"), Some("C"));
        assert_eq!(enum_reached("x = C.REDDER + D.RED", "RED"), Some("D"));
        assert_eq!(enum_reached("x = .RED", "RED"), None);
    }
}
