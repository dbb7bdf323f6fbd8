//! The symbol the loader reports undefined (`/path/_C.so: undefined symbol:
//! _ZN3c10...`): one reader of it for every layer that needs it, the line's
//! repair of what Markdown did to it and the readers that judge whose it is.

const UNDEFINED_SYMBOL: &str = "undefined symbol: ";

/// Where the undefined symbol stands in `text`, ASCII case ignored in the
/// loader's words; the symbol ends at a space, a comma or a quote.
pub fn undefined_symbol_at(text: &str) -> Option<std::ops::Range<usize>> {
    let start = crate::ascii_case::find(text, UNDEFINED_SYMBOL)? + UNDEFINED_SYMBOL.len();
    let length = text[start..]
        .find(|c: char| c.is_whitespace() || matches!(c, ',' | '\'' | '"'))
        .unwrap_or(text.len() - start);
    Some(start..start + length)
}

/// The symbol, and the text before the loader's words (which names the
/// library).
pub fn undefined_symbol(text: &str) -> Option<(&str, &str)> {
    let at = undefined_symbol_at(text)?;
    Some((&text[..at.start - UNDEFINED_SYMBOL.len()], &text[at]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_symbol_and_the_library_before_it_are_read() {
        let text = "ImportError: /v/_C.so: Undefined symbol: _ZN3c104x, version Qt_5";
        assert_eq!(undefined_symbol(text), Some(("ImportError: /v/_C.so: ", "_ZN3c104x")));
        assert_eq!(undefined_symbol("undefined symbol: cuInit"), Some(("", "cuInit")));
        assert_eq!(undefined_symbol("no symbol here"), None);
    }
}
