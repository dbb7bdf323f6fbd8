//! macOS's loader (dyld) in the Linux loader's words, so that every reader of
//! a symbol the loader could not bind reads both: dyld's `dlopen(/x/_torchrl.so,
//! 0x0002): Symbol not found: __ZN8pybind11...` is ld.so's `/x/_torchrl.so:
//! undefined symbol: _ZN8pybind11...`. Mach-O gives every C-level name a
//! leading underscore, so dyld's `__ZN...` is the Itanium name `_ZN...` that
//! ld.so prints. The lines dyld adds (`Referenced from:`, `Expected in:`) stay.

use std::borrow::Cow;

const OPENING: &str = "dlopen(";
const NOT_FOUND: &str = "): Symbol not found: ";
const NOT_LOADED: &str = "Library not loaded: ";

/// `message` with dyld's unbound symbol or missing library in ld.so's words;
/// any other message as it is.
pub fn in_linux_words(message: &str) -> Cow<'_, str> {
    if let Some(read) = library_not_loaded(message) {
        return Cow::Owned(read);
    }
    let Some(start) = message.find(OPENING) else {
        return Cow::Borrowed(message);
    };
    let Some((inside, after)) = message[start + OPENING.len()..].split_once(NOT_FOUND) else {
        return Cow::Borrowed(message);
    };
    // `dlopen(PATH, 0x0002)` (macOS 12 on) or `dlopen(PATH, 2)`: the mode after the last comma.
    let path = inside.rsplit_once(", ").map_or(inside, |(path, _)| path);
    let length = after.find(char::is_whitespace).unwrap_or(after.len());
    let symbol = &after[..length];
    if path.contains('\n') || symbol.is_empty() {
        return Cow::Borrowed(message);
    }
    let symbol = symbol.strip_prefix('_').unwrap_or(symbol);
    Cow::Owned(format!(
        "{}{path}: undefined symbol: {symbol}{}",
        &message[..start],
        &after[length..]
    ))
}

/// dyld's `dlopen(/x/_C.so, 0x0002): Library not loaded: @rpath/libc10.dylib`
/// (or a program's `dyld[4242]: Library not loaded: ...`) as ld.so words a
/// library it could not find: `libc10.dylib: cannot open shared object file:
/// No such file or directory`. What dyld adds after it (`Referenced from:`,
/// `Reason: tried: ...`) stays.
fn library_not_loaded(message: &str) -> Option<String> {
    let at = message.find(NOT_LOADED)?;
    let after = &message[at + NOT_LOADED.len()..];
    // The path runs to the line's end (a folder may hold a blank: `/Applications/Foo Bar.app/...`),
    // or to what dyld says next where a paste joined its lines.
    let line = after.find('\n').map_or(after, |end| &after[..end]);
    let path = [" Referenced from", " Reason:", " (no such file"]
        .iter()
        .filter_map(|next| line.find(next))
        .min()
        .map_or(line, |end| &line[..end])
        .trim_end();
    let length = path.len();
    let library = Some(super::text::file_name(path)).filter(|file| !file.is_empty())?;
    // The `dlopen(PATH, MODE): ` before it, on the same line, says who loaded it; dyld says so again after.
    let start = message[..at]
        .rfind(OPENING)
        .filter(|&opening| !message[opening..at].contains('\n'))
        .unwrap_or(at);
    Some(format!(
        "{}{library}: cannot open shared object file: No such file or directory{}",
        &message[..start],
        &after[length..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dyld_symbol_not_found_reads_as_ld_so_undefined_symbol() {
        // torchrl's issue 1308, macOS 12 and later.
        let now = "dlopen(/e/lib/python3.9/site-packages/torchrl/_torchrl.so, 0x0002): Symbol not found: __ZN8pybind116detail11type_casterIN2at6TensorEvE4castE\n  Referenced from: <26B1> /e/lib/python3.9/site-packages/torchrl/_torchrl.so";
        assert_eq!(
            in_linux_words(now),
            "/e/lib/python3.9/site-packages/torchrl/_torchrl.so: undefined symbol: _ZN8pybind116detail11type_casterIN2at6TensorEvE4castE\n  Referenced from: <26B1> /e/lib/python3.9/site-packages/torchrl/_torchrl.so"
        );
        // Before macOS 12: the mode as a decimal number.
        let before = "dlopen(/x/_C.so, 2): Symbol not found: __ZN3c105ErrorC1E";
        assert_eq!(in_linux_words(before), "/x/_C.so: undefined symbol: _ZN3c105ErrorC1E");
    }

    #[test]
    fn dyld_library_not_loaded_reads_as_ld_so_cannot_open() {
        assert_eq!(
            in_linux_words(
                "OSError: dlopen(/v/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.so, 0x0006): Library not loaded: @rpath/libomp.dylib\n  Referenced from: <4C1B> /v/torchaudio/lib/libtorchaudio.so"
            ),
            "OSError: libomp.dylib: cannot open shared object file: No such file or directory\n  Referenced from: <4C1B> /v/torchaudio/lib/libtorchaudio.so"
        );
        assert_eq!(
            in_linux_words(
                "dyld: Library not loaded: /Applications/Foo Bar.app/Contents/libx.dylib\n  Referenced from: /x"
            ),
            "dyld: libx.dylib: cannot open shared object file: No such file or directory\n  Referenced from: /x"
        );
        assert_eq!(
            in_linux_words("dyld[4242]: Library not loaded: /usr/local/opt/libomp/lib/libomp.dylib"),
            "dyld[4242]: libomp.dylib: cannot open shared object file: No such file or directory"
        );
    }

    #[test]
    fn other_messages_stay_as_they_are() {
        for message in [
            "Library not loaded: ",
            "/x/_C.so: undefined symbol: _ZN3c105ErrorC1E",
            "Symbol not found: __ZN3c105ErrorC1E",
        ] {
            assert!(matches!(in_linux_words(message), Cow::Borrowed(_)), "{message}");
        }
    }
}
