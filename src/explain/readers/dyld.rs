//! macOS's loader (dyld) in the Linux loader's words, so that every reader of
//! a symbol the loader could not bind reads both: dyld's `dlopen(/x/_torchrl.so,
//! 0x0002): Symbol not found: __ZN8pybind11...` is ld.so's `/x/_torchrl.so:
//! undefined symbol: _ZN8pybind11...`. Mach-O gives every C-level name a
//! leading underscore, so dyld's `__ZN...` is the Itanium name `_ZN...` that
//! ld.so prints. The lines dyld adds (`Referenced from:`, `Expected in:`) stay.

use std::borrow::Cow;

const OPENING: &str = "dlopen(";
const NOT_FOUND: &str = "): Symbol not found: ";

/// `message` with dyld's unbound symbol in ld.so's words; any other message as it is.
pub fn in_linux_words(message: &str) -> Cow<'_, str> {
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
    fn other_messages_stay_as_they_are() {
        for message in [
            "dlopen(/x/_C.so, 2): Library not loaded: @rpath/libc10.dylib",
            "/x/_C.so: undefined symbol: _ZN3c105ErrorC1E",
            "Symbol not found: __ZN3c105ErrorC1E",
        ] {
            assert!(matches!(in_linux_words(message), Cow::Borrowed(_)), "{message}");
        }
    }
}
