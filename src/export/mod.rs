//! `envdoctor export`: a lock's (or this node's) packages as requirements,
//! constraints or a PEP 751 `pylock.toml`, with hashes from the package index
//! the user's pip is configured with.

pub mod index;
pub mod plan;
pub mod pylock;
pub mod requirements;
