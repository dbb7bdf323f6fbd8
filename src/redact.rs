//! Keeping credentials out of what envdoctor records. Snapshots, locks,
//! reports and exports get pasted into issues and CI logs, so a URL's user
//! information (a password, or a token given as the user name, as in
//! `https://oauth2:ghp_…@github.com` or `https://TOKEN@host`) is written as
//! `***`, wherever in a value it appears, and a variable whose name says it
//! holds a secret is named but never recorded.

/// Name fragments of variables that hold credentials: `HF_TOKEN`,
/// `WANDB_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `NCCL_IB_AUTH_KEY`.
const SECRET_FRAGMENTS: &[&str] = &["TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"];

/// Whole words (between underscores) that name credentials: `HF_HUB_PAT`,
/// `INDEX_PASS`, `DB_PW`. Whole words only: `PATH` and `PASSTHROUGH` are settings.
const SECRET_WORDS: &[&str] = &["PAT", "PASS", "PW", "PWD", "PASSPHRASE", "APIKEY", "COOKIE", "SESSION"];

pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_FRAGMENTS.iter().any(|fragment| upper.contains(fragment))
        || upper.split('_').any(|word| SECRET_WORDS.contains(&word))
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

    #[test]
    fn secret_names_are_told_by_fragment_or_by_whole_word() {
        for name in [
            "HF_TOKEN",
            "WANDB_API_KEY",
            "HF_HUB_PAT",
            "INDEX_PASS",
            "PGPASSWORD",
            "NCCL_IB_AUTH_KEY",
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
