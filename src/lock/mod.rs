//! The lockfile: what a working node has, GPU side included (`model`), and
//! how it is written to and read from `envdoctor.lock` (`file`). How another
//! node differs from it is `compare`'s.

pub mod file;
pub mod model;

/// The lock `lock` writes and `verify` and `export` read when none is named.
pub const DEFAULT_FILE: &str = "envdoctor.lock";
