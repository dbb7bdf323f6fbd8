//! Python packaging facts, in one place: distribution names, core METADATA
//! and its companions (`requires.txt`, `direct_url.json`, `WHEEL` tags), and
//! what a wheel's or sdist's file name says. The probe reads installed
//! distributions with them, the lock and export write them, and the index
//! client matches files with them.

pub mod metadata;
pub mod names;
pub mod record;
pub mod wheel_name;

pub use names::normalize_name;
