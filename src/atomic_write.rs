//! Writing a file so that a reader sees the old content or the new, never half.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and
/// renames it over `path`. Renames within one directory are atomic on POSIX.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary = tempfile::NamedTempFile::new_in(directory)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}
