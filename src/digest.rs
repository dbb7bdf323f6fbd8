//! Lower-case hexadecimal of digest bytes, as lockfiles, index pages and
//! cache file names write them.

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
