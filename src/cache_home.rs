//! Where envdoctor keeps what it can find again: `$XDG_CACHE_HOME/envdoctor`,
//! else `$HOME/.cache/envdoctor` (the XDG base directory default). `None`
//! when neither is set, and then nothing is cached.

use std::ffi::OsString;
use std::path::PathBuf;

pub fn envdoctor_cache_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let base = match env("XDG_CACHE_HOME").filter(|value| !value.is_empty()) {
        Some(cache_home) => PathBuf::from(cache_home),
        None => PathBuf::from(env("HOME").filter(|value| !value.is_empty())?).join(".cache"),
    };
    Some(base.join("envdoctor"))
}
