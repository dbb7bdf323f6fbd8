//! The knowledge files of `compat-matrix/` as typed values: one span-keeping
//! [`reader`] that every rule, symptom entry and table file goes through, so a
//! bad file gets the same `path:line:column: problem` lines whichever it is,
//! and the [`tables`] it reads (driver floors, torch builds, GPUs, releases).
//! The rules and symptom entries themselves are `crate::matrix`'s, which reads
//! them with the same reader and carries the tables with them.

pub mod name_history;
pub mod reader;
pub mod stdlib_history;
pub mod tables;
