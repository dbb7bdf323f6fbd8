//! The few URL operations the index client needs beyond `reqwest::Url`.

/// `https://user:token@host/simple/` as `https://host/simple/`: for every
/// message, cache file and lock entry, since an index URL often carries a
/// token. Works on any text, parseable as a URL or not.
pub fn strip_credentials(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let authority_start = scheme_end + 3;
    let authority_end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |offset| authority_start + offset);
    match url[authority_start..authority_end].rfind('@') {
        Some(at) => format!("{}{}", &url[..authority_start], &url[authority_start + at + 1..]),
        None => url.to_string(),
    }
}

/// `%2B` as `+`; invalid escapes are kept as written, and bytes that are not
/// UTF-8 are replaced, since the result is a file name to compare and show.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escaped = (bytes[at] == b'%')
            .then(|| text.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                at += 3;
            }
            None => {
                decoded.push(bytes[at]);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// PEP 503: the project page is the index URL, the normalized name, and a
/// trailing slash.
pub fn project_url(index: &str, normalized_name: &str) -> String {
    format!("{}/{normalized_name}/", index.trim_end_matches('/'))
}

/// Two spellings of one index (with and without the trailing slash, with and
/// without credentials) are the same index.
pub fn index_key(index: &str) -> String {
    strip_credentials(index.trim()).trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_removed_and_nothing_else() {
        assert_eq!(
            strip_credentials("https://user:s3cret@pypi.example.com:8443/simple/"),
            "https://pypi.example.com:8443/simple/"
        );
        assert_eq!(strip_credentials("https://token@host/simple"), "https://host/simple");
        // An `@` after the authority is part of the path, not a credential.
        assert_eq!(strip_credentials("https://host/a@b/simple"), "https://host/a@b/simple");
        assert_eq!(strip_credentials("https://host?x=a@b"), "https://host?x=a@b");
        assert_eq!(strip_credentials("not a url"), "not a url");
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(
            percent_decode("torch-2.3.1%2Bcu121-cp311-cp311-linux_x86_64.whl"),
            "torch-2.3.1+cu121-cp311-cp311-linux_x86_64.whl"
        );
        assert_eq!(percent_decode("100%25%zz%"), "100%%zz%");
    }

    #[test]
    fn project_pages_have_one_slash_between_and_one_after() {
        assert_eq!(
            project_url("https://pypi.org/simple", "torch"),
            "https://pypi.org/simple/torch/"
        );
        assert_eq!(
            project_url("https://pypi.org/simple/", "torch"),
            "https://pypi.org/simple/torch/"
        );
        assert_eq!(index_key("https://u:p@pypi.org/simple/ "), "https://pypi.org/simple");
    }
}
