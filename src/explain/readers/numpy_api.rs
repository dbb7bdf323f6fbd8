//! NumPy's own check of a compiled module against the NumPy it is loaded
//! with: `_import_array` in the header every extension is built with
//! (numpy/_core/code_generators/generate_numpy_api.py) says
//!
//! - `module compiled against API version 0x10 but this version of numpy is
//!   0xf` when the module was built for a newer C API than the NumPy loaded
//!   offers (the check is `>`, never the other way): NumPy is older than the
//!   module needs, and the version tells how much newer it must be;
//! - `module compiled against ABI version 0x1000009 but this version of numpy
//!   is 0x2000000` when the ABIs differ: a module built against NumPy 1.x
//!   loaded by NumPy 2 (`numpy-2-abi-break`), or the other way.
//!
//! Either is often followed by `ImportError: numpy.core.multiarray failed to
//! import`, which NumPy 2's break prints too: the check's own words say which.

use std::str::FromStr;

use pep440_rs::VersionSpecifiers;

use super::{Context, Reading, requirement};
use crate::explain::traceback::Traceback;

const API: &str = "module compiled against api version ";
const ABI: &str = "module compiled against abi version ";
const INSTALLED: &str = " but this version of numpy is ";

/// The cause of a NumPy 1.x module loaded by NumPy 2.
const NUMPY_2_BREAK: &str = "numpy-2-abi-break";

/// The first NumPy release of each C API version
/// (numpy/_core/code_generators/cversions.txt): a module built against
/// version N needs at least that release.
const API_RELEASES: [(u32, &str); 16] = [
    (0x6, "1.6"),
    (0x7, "1.7"),
    (0x9, "1.8"),
    (0xa, "1.10"),
    (0xb, "1.13"),
    (0xc, "1.14"),
    (0xd, "1.16"),
    (0xe, "1.20"),
    (0xf, "1.22"),
    (0x10, "1.23"),
    (0x11, "1.25"),
    (0x12, "2.0"),
    (0x13, "2.1"),
    (0x14, "2.3"),
    (0x15, "2.4"),
    (0x16, "2.5"),
];

/// The C API version of NumPy 2.0, whose ABI broke 1.x modules.
const NUMPY_2_API: u32 = 0x12;

/// NumPy's ABI versions (`NPY_ABI_VERSION`): every 1.x release, and 2.0 on.
const NUMPY_1_ABI: u32 = 0x0100_0009;
const NUMPY_2_ABI: u32 = 0x0200_0000;

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    // The check prints its RuntimeError before the import's own failure.
    let (kind, built, loaded) = std::iter::once(text)
        .chain(context.earlier.iter().rev().map(String::as_str))
        .find_map(check_of)?;
    let owner = super::owner_of_failure(text, traceback);
    let module = match &owner {
        Some(owner) => format!("{owner}'s compiled module"),
        None => "a compiled module".to_string(),
    };
    match kind {
        Check::Api => newer_api(context, &module, owner.as_deref(), built, loaded),
        Check::Abi if built == NUMPY_1_ABI && loaded == NUMPY_2_ABI => Some(Reading::stated_outright(
            NUMPY_2_BREAK,
            format!(
                "NumPy says {module} was built against NumPy 1.x's ABI (0x{built:x}) and NumPy 2's (0x{loaded:x}) loaded it"
            ),
            Vec::new(),
            format!(
                "pip install \"numpy<2\", or a release of {} built against NumPy 2",
                owner.as_deref().unwrap_or("that package")
            ),
        )),
        Check::Abi if built == NUMPY_2_ABI && loaded == NUMPY_1_ABI => {
            let mut reading = needs_numpy(
                context,
                ">=2",
                format!(
                    "NumPy says {module} was built against NumPy 2's ABI (0x{built:x}) and NumPy 1.x's (0x{loaded:x}) loaded it"
                ),
            );
            reading.rules_out.push(NUMPY_2_BREAK);
            Some(reading)
        }
        Check::Abi => None,
    }
}

enum Check {
    Api,
    Abi,
}

/// Which check a line reports, with the version the module was built
/// against and the one of the NumPy that loaded it.
fn check_of(line: &str) -> Option<(Check, u32, u32)> {
    let lower = line.to_ascii_lowercase();
    let (kind, at) = [(Check::Api, API), (Check::Abi, ABI)]
        .into_iter()
        .find_map(|(kind, words)| Some((kind, lower.find(words)? + words.len())))?;
    let (built, rest) = hex_at(&lower[at..])?;
    let (loaded, _) = hex_at(rest.strip_prefix(INSTALLED)?)?;
    Some((kind, built, loaded))
}

/// `0x10` at the start of `text`, and what follows it.
fn hex_at(text: &str) -> Option<(u32, &str)> {
    let digits = text.strip_prefix("0x")?;
    let length = digits.bytes().take_while(u8::is_ascii_hexdigit).count();
    let value = u32::from_str_radix(&digits[..length], 16).ok()?;
    Some((value, &digits[length..]))
}

/// The first release whose C API is `version`, or the nearest before it.
fn release_of(version: u32) -> Option<&'static str> {
    API_RELEASES
        .iter()
        .rev()
        .find(|(api, _)| *api <= version)
        .map(|(_, release)| *release)
}

/// A module built for a newer C API than the NumPy loaded: the NumPy to
/// install, kept below 2 when the module was built against NumPy 1.x.
fn newer_api(context: Context, module: &str, owner: Option<&str>, built: u32, loaded: u32) -> Option<Reading> {
    if built <= loaded {
        return None;
    }
    // A release table that ends before `built` cannot name the release.
    let needed = API_RELEASES
        .iter()
        .find(|(api, _)| *api == built)
        .map(|(_, release)| *release);
    let had = release_of(loaded)
        .map(|release| format!(" (NumPy {release})"))
        .unwrap_or_default();
    let said = match needed {
        Some(release) => format!(
            "NumPy says {module} was built against its C API version 0x{built:x} (NumPy {release} or later) and the NumPy loaded offers 0x{loaded:x}{had}"
        ),
        None => format!(
            "NumPy says {module} was built against its C API version 0x{built:x}, newer than the 0x{loaded:x}{had} of the NumPy loaded"
        ),
    };
    let specifier = match needed {
        Some(release) if built < NUMPY_2_API => format!(">={release},<2"),
        Some(release) => format!(">={release}"),
        None => ">=2".to_string(),
    };
    let mut reading = needs_numpy(context, &specifier, said);
    if let Some(owner) = owner {
        reading
            .fix
            .push_str(&format!(", or a build of {owner} made against the NumPy installed"));
    }
    // NumPy 2's break needs NumPy 2 loaded; this NumPy is 1.x.
    if loaded < NUMPY_2_API {
        reading.rules_out.push(NUMPY_2_BREAK);
    }
    Some(reading)
}

/// The reading that NumPy must meet `specifier`, judged against the node's NumPy.
fn needs_numpy(context: Context, specifier: &str, said: String) -> Reading {
    let node = context.facts.and_then(|facts| {
        let specifiers = VersionSpecifiers::from_str(specifier).ok()?;
        Some(requirement::installed_against(
            facts,
            "numpy",
            &specifiers,
            specifier,
            context.absence_is_a_fact,
        ))
    });
    Reading::stated_outright(
        requirement::PACKAGE,
        said,
        node.into_iter().collect(),
        format!("pip install \"numpy{specifier}\""),
    )
}

#[cfg(test)]
mod tests {
    use super::super::{Context, parsed, read_on_recorded_h100};
    use super::*;

    fn reading(log: &str, earlier: &[String]) -> Option<Reading> {
        let (traceback, text) = parsed(log);
        read(
            &text,
            &traceback,
            Context {
                earlier,
                ..Context::alone()
            },
        )
    }

    const FAISS_IMPORT: &str = "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n  File \"/e/lib/python3.10/site-packages/faiss/loader.py\", line 65, in <module>\n    from .swigfaiss import *\nImportError: numpy.core.multiarray failed to import\n";

    /// conceptgraphs8: faiss built against NumPy 1.23's C API, NumPy 1.22 loaded.
    #[test]
    fn a_module_built_for_a_newer_c_api_needs_that_numpy_and_rules_out_numpy_2() {
        let earlier = ["module compiled against API version 0x10 but this version of numpy is 0xf".to_string()];
        let reading = reading(FAISS_IMPORT, &earlier).unwrap();
        assert_eq!(reading.cause, requirement::PACKAGE);
        assert!(reading.said.contains("faiss's compiled module"), "{}", reading.said);
        assert!(
            reading.said.contains("NumPy 1.23 or later") && reading.said.contains("(NumPy 1.22)"),
            "{}",
            reading.said
        );
        assert!(
            reading.fix.starts_with("pip install \"numpy>=1.23,<2\""),
            "{}",
            reading.fix
        );
        assert_eq!(reading.rules_out, [NUMPY_2_BREAK]);
    }

    /// NumPy's longer wording (with its troubleshooting link) and a version
    /// past the table: the bound is NumPy 2, the release not named.
    #[test]
    fn a_c_api_past_the_table_asks_for_numpy_2_without_naming_a_release() {
        let log = "RuntimeError: module compiled against API version 0x30 but this version of numpy is 0x12 . Check the section C-API incompatibility";
        let reading = reading(log, &[]).unwrap();
        assert!(
            reading.said.contains("newer than the 0x12 (NumPy 2.0)"),
            "{}",
            reading.said
        );
        assert_eq!(reading.fix, "pip install \"numpy>=2\"");
        assert!(reading.rules_out.is_empty());
    }

    #[test]
    fn a_numpy_1_module_under_numpy_2_is_numpy_2s_break() {
        let log = "RuntimeError: module compiled against ABI version 0x1000009 but this version of numpy is 0x2000000";
        let reading = reading(log, &[]).unwrap();
        assert_eq!(reading.cause, NUMPY_2_BREAK);
        assert!(reading.fix.starts_with("pip install \"numpy<2\""), "{}", reading.fix);
    }

    /// The node's NumPy weighs on the reading where the node speaks for the
    /// log: one outside the bound confirms it, one inside contradicts it.
    #[test]
    fn the_nodes_numpy_confirms_or_contradicts() {
        let log = "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf";
        let (traceback, text) = parsed(log);
        let node_with = |version: &'static str| {
            read_on_recorded_h100(
                |snapshot| {
                    for package in snapshot["packages"].as_array_mut().into_iter().flatten() {
                        if package["name"] == "numpy" {
                            package["version"] = serde_json::json!(version);
                        }
                    }
                },
                |context| read(&text, &traceback, context),
            )
            .unwrap()
            .node
        };
        let outside = node_with("1.22.3");
        assert_eq!(outside.len(), 1, "{outside:?}");
        assert_eq!(outside[0].0, Some(true), "{outside:?}");
        let inside = node_with("1.26.4");
        assert_eq!(inside[0].0, Some(false), "{inside:?}");
    }

    #[test]
    fn other_words_and_an_older_module_are_no_reading() {
        for log in [
            "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xf",
            "RuntimeError: module compiled against API version 0x10 but numpy is gone",
            "ImportError: numpy.core.multiarray failed to import",
            "RuntimeError: module compiled against ABI version 0x3 but this version of numpy is 0x4",
        ] {
            assert_eq!(reading(log, &[]), None, "{log}");
        }
    }
}
