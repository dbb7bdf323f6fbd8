//! Keeping credentials out of what envdoctor records. Snapshots, locks,
//! reports and exports get pasted into issues and CI logs, so a URL's user
//! information (a password, or a token given as the user name, as in
//! `https://oauth2:ghp_…@github.com` or `https://TOKEN@host`) is written as
//! `***`, wherever in a value it appears, and a variable whose name says it
//! holds a secret is named but never recorded.

/// Name fragments of variables that hold credentials: `HF_TOKEN`,
/// `WANDB_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `NCCL_IB_AUTH_KEY`.
/// `CRED` takes `*_CREDS` and `*_CREDENTIALS`; `SIGNATURE` a signed URL's
/// `X-Amz-Signature`; `PRIVATE` a `*_PRIVATE_KEY_PATH`'s kin.
const SECRET_FRAGMENTS: &[&str] = &[
    "TOKEN",
    "KEY",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CRED",
    "AUTH",
    "SIGNATURE",
    "PRIVATE",
];

/// Whole words (between underscores) that name credentials: `HF_HUB_PAT`,
/// `INDEX_PASS`, `DB_PW`. Whole words only: `PATH` and `PASSTHROUGH` are settings.
/// `SIG` is an Azure SAS token's signature (`sig=`), `DSN` a Sentry DSN's key.
const SECRET_WORDS: &[&str] = &[
    "PAT",
    "PASS",
    "PW",
    "PWD",
    "PASSPHRASE",
    "APIKEY",
    "COOKIE",
    "SESSION",
    "SIG",
    "DSN",
];

/// Whether a variable's or a URL parameter's name says it holds a secret.
/// Words are split at `_` and `-` (`X-Amz-Signature`, `access_token`).
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_FRAGMENTS.iter().any(|fragment| upper.contains(fragment))
        || upper.split(['_', '-']).any(|word| SECRET_WORDS.contains(&word))
}

/// `value` with every credential envdoctor can tell in it written as `***`:
/// the user information of a URL ([`urls`]), also without a scheme
/// (`u:S@proxy:3128`, as `http_proxy` is often set), and the value of every
/// query or fragment parameter whose name looks secret (`?token=S`,
/// `#access_token=S`, `&X-Amz-Signature=S`). What is masked may be more than
/// the secret, never less.
pub fn secrets(value: &str) -> String {
    parameters(&schemeless_userinfo(&urls(value)))
}

/// `value` with the user information of every URL in it written as `***`:
/// `https://***@host/x`. A value may hold several URLs (a `PYTHONPATH`, a
/// space-separated list of index URLs), and a password may hold a `/`, which
/// no URL parser reads as part of it: then everything from `://` to the `@`
/// goes, which may take more than the password but never leaves it.
pub fn urls(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("://") {
        let authority_start = at + 3;
        out.push_str(&rest[..authority_start]);
        let tail = &rest[authority_start..];
        // The URL ends at whitespace, a quote or a comma; its authority at the
        // first `/`, `?` or `#`.
        let url_end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ','))
            .unwrap_or(tail.len());
        let url = &tail[..url_end];
        let authority_end = url.find(['/', '?', '#']).unwrap_or(url.len());
        let userinfo_end = match url[..authority_end].rfind('@') {
            Some(at) => Some(at),
            // `user:pa/ss@host`: a colon before the first `/` and an `@` after it.
            None if url[..authority_end].contains(':') => url[..url.find(['?', '#']).unwrap_or(url.len())].rfind('@'),
            None => None,
        };
        let consumed = match userinfo_end {
            Some(at) => {
                out.push_str("***");
                at
            }
            None => 0,
        };
        rest = &tail[consumed..];
    }
    out.push_str(rest);
    out
}

/// The pieces of a list (`PYTHONPATH`, split at `separator`) that [`secrets`]
/// masks when it reads the list whole: what a reader of one piece alone,
/// which has lost its context, must mask too.
pub fn masked_pieces(value: &str, separator: char) -> Vec<String> {
    let masked = secrets(value);
    let kept: std::collections::BTreeSet<&str> = masked.split(separator).collect();
    value
        .split(separator)
        .filter(|piece| !piece.is_empty() && !kept.contains(piece))
        .map(str::to_string)
        .collect()
}

/// Characters that end a word of a value: where a user name, a host or a
/// parameter's value stops.
fn ends_a_word(character: char) -> bool {
    character.is_whitespace() || matches!(character, '"' | '\'' | ',' | ';' | '=' | '(' | ')' | '<' | '>')
}

/// `user:password@host` without a scheme: what stands before the `@`, back to
/// the start of its word or a `/`, is masked when it holds a `:` (a password)
/// or when a port follows the host (`TOKEN@proxy:3128`). `name@1.0`, an
/// address or a URL already masked (`://***@`) is left as it is.
fn schemeless_userinfo(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('@') {
        let before = &rest[..at];
        let start = before
            .rfind(|c: char| ends_a_word(c) || c == '/' || c == '@')
            .map_or(0, |index| {
                index + before[index..].chars().next().map_or(1, char::len_utf8)
            });
        let userinfo = &before[start..];
        let after = &rest[at + 1..];
        let host_end = after
            .find(|c: char| ends_a_word(c) || matches!(c, '/' | '?' | '#' | '@'))
            .unwrap_or(after.len());
        let host = &after[..host_end];
        let with_port = host.rsplit_once(':').is_some_and(|(name, port)| {
            !name.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
        });
        let masked =
            !userinfo.is_empty() && userinfo != "***" && (userinfo.contains(':') || with_port) && !host.is_empty();
        out.push_str(&rest[..start]);
        out.push_str(if masked { "***" } else { userinfo });
        out.push('@');
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `?name=value`, `&name=value`, `;name=value` and `#name=value` whose name
/// [`looks_secret`]: the value, up to the next parameter or the end of the
/// word, becomes `***`.
fn parameters(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find(['?', '&', '#', ';']) {
        out.push_str(&rest[..=start]);
        let tail = &rest[start + 1..];
        let name_end = tail
            .find(|c: char| c == '=' || ends_a_word(c) || matches!(c, '&' | '#' | '?' | ';'))
            .unwrap_or(tail.len());
        let name = &tail[..name_end];
        if tail[name_end..].starts_with('=') && !name.is_empty() && looks_secret(name) {
            let value_start = name_end + 1;
            let value_end = tail[value_start..]
                .find(|c: char| matches!(c, '&' | '#' | ';') || (ends_a_word(c) && c != '='))
                .map_or(tail.len(), |end| value_start + end);
            out.push_str(name);
            out.push_str("=***");
            rest = &tail[value_end..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_urls_user_information_is_masked_and_nothing_else() {
        let cases = [
            (
                "https://user:hunter2@mirror.example/hf?x=1",
                "https://***@mirror.example/hf?x=1",
            ),
            (
                "https://oauth2:ghp_abc@github.com/org/repo.git",
                "https://***@github.com/org/repo.git",
            ),
            ("https://hf_TOKEN123@hub.example", "https://***@hub.example"),
            ("https://user:pa/ss@host/simple", "https://***@host/simple"),
            (
                "https://a:p1@one.example/simple https://b:p2@two.example/simple",
                "https://***@one.example/simple https://***@two.example/simple",
            ),
            (
                "/opt/lib:https://u:secret@host/x:/usr/lib",
                "/opt/lib:https://***@host/x:/usr/lib",
            ),
            ("https://mirror.example/a@b", "https://mirror.example/a@b"),
            (
                "git+https://github.com/org/repo@v1.0",
                "git+https://github.com/org/repo@v1.0",
            ),
            ("0,1", "0,1"),
            ("", ""),
        ];
        for (value, masked) in cases {
            assert_eq!(urls(value), masked, "{value}");
        }
    }

    /// Issue 32 E12: query and fragment parameters, user information without
    /// a scheme, and all of them inside a PYTHONPATH.
    #[test]
    fn parameters_and_schemeless_user_information_are_masked() {
        let cases = [
            ("https://h/data?token=S", "https://h/data?token=***"),
            (
                "https://h/cb#access_token=S&state=1",
                "https://h/cb#access_token=***&state=1",
            ),
            (
                "https://b.s3.example/o?X-Amz-Credential=C&X-Amz-Signature=S&x=1",
                "https://b.s3.example/o?X-Amz-Credential=***&X-Amz-Signature=***&x=1",
            ),
            (
                "https://a.blob.example/c?sv=2020&sig=S",
                "https://a.blob.example/c?sv=2020&sig=***",
            ),
            ("u:S@proxy:3128", "***@proxy:3128"),
            ("TOKEN@proxy.example:3128", "***@proxy.example:3128"),
            ("http://u:S@proxy:3128", "http://***@proxy:3128"),
            ("/opt/lib:u:S@proxy:3128:/usr/lib", "/opt/***@proxy:3128:/usr/lib"),
            (
                "/opt/lib:https://h/x?api_key=S:/usr/lib",
                "/opt/lib:https://h/x?api_key=***",
            ),
            (
                "file:///dist/x-1.0.tar.gz#sha256=ab",
                "file:///dist/x-1.0.tar.gz#sha256=ab",
            ),
            (
                "git+https://github.com/org/repo@v1.0#egg=x",
                "git+https://github.com/org/repo@v1.0#egg=x",
            ),
            ("torch@2.1 alice@example.org", "torch@2.1 alice@example.org"),
            ("0,1", "0,1"),
        ];
        for (value, masked) in cases {
            assert_eq!(secrets(value), masked, "{value}");
            assert!(
                !secrets(value).contains("=S") && !secrets(value).contains(":S@"),
                "{value}"
            );
        }
    }

    #[test]
    fn secret_names_are_told_by_fragment_or_by_whole_word() {
        for name in [
            "HF_TOKEN",
            "WANDB_API_KEY",
            "HF_HUB_PAT",
            "INDEX_PASS",
            "PGPASSWORD",
            "NCCL_IB_AUTH_KEY",
            "AWS_CREDS",
            "GCS_CREDS",
            "UPLOAD_SIGNATURE",
            "X-Amz-Signature",
            "sig",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in [
            "PATH",
            "CUDA_PATH",
            "PYTHONPATH",
            "NCCL_P2P_DISABLE",
            "HF_HUB_OFFLINE",
            "TORCH_PASSTHROUGH",
        ] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}
