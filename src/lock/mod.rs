//! The lockfile: what a working node has, GPU side included (`model`), on disk
//! as `envdoctor.lock` (`file`), and how another node differs from it (`drift`).

pub mod drift;
pub mod file;
pub mod model;
pub mod record;
pub mod report;
