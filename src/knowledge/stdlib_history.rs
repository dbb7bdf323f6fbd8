//! `compat-matrix/tables/stdlib-history.txt`: which Python versions have each
//! module of the standard library and each name a module defines, read from
//! typeshed's standard-library stubs (`compat-matrix/tools/stdlib_history.py`).
//! A name a failure says is missing from the interpreter's own library dates
//! the Python the code was written for, as `name_history` dates a package's
//! release: the table has the same shape and the same reader, with Python's
//! versions (`2.7`, `3.6` ... `3.15`) where a package has its releases.

use super::name_history::{self, Lineage};

const TABLE: &str = include_str!("../../compat-matrix/tables/stdlib-history.txt");

/// Where the table's facts come from, for a reading's evidence.
pub const SOURCE: &str = "compat-matrix/tables/stdlib-history.txt, read from typeshed's standard-library stubs";

/// The Python versions that have the module `module` (`distutils`,
/// `urllib.parse`), where some version read lacks it.
pub fn of_module(module: &str) -> Option<Lineage> {
    name_history::module_in(TABLE, module)
}

/// The Python versions whose `module` has `name` (`collections`, `Mapping`;
/// `builtins`, `xrange`), where some version read lacks it.
pub fn of_name(module: &str, name: &str) -> Option<Lineage> {
    name_history::name_in(TABLE, module, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn has(lineage: &Lineage, python: &str) -> Option<bool> {
        lineage.has_at(&pep440_rs::Version::from_str(python).unwrap())
    }

    /// What Python's own "What's New" pages say, as the generated table has it.
    #[test]
    fn removals_and_additions_are_dated_by_version() {
        let mapping = of_name("collections", "Mapping").unwrap();
        assert_eq!(has(&mapping, "3.9"), Some(true));
        assert_eq!(has(&mapping, "3.10"), Some(false));
        let clock = of_name("time", "clock").unwrap();
        assert_eq!((has(&clock, "3.7"), has(&clock, "3.8")), (Some(true), Some(false)));
        let distutils = of_module("distutils").unwrap();
        assert_eq!(
            (has(&distutils, "3.11"), has(&distutils, "3.12")),
            (Some(true), Some(false))
        );
        let tomllib = of_module("tomllib").unwrap();
        assert_eq!(
            (has(&tomllib, "3.10"), has(&tomllib, "3.11")),
            (Some(false), Some(true))
        );
        let xrange = of_name("builtins", "xrange").unwrap();
        assert_eq!((has(&xrange, "2.7"), has(&xrange, "3.6")), (Some(true), Some(false)));
        // A name every version has is no row: nothing is judged from it.
        assert!(of_name("os", "path").is_none());
    }
}
