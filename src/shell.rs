//! Quoting for the commands envdoctor prints for people to paste. Names,
//! versions, paths and URLs in them come from files other people wrote (a
//! package's metadata, a Snapshot, a lock), so each is one shell word that no
//! shell expands: single quotes, with a single quote written as `'\''`.

/// `text` as one POSIX shell word, taken literally.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quote;

    /// The real shell reads each quoted word back as the text it came from.
    #[test]
    fn the_shell_reads_back_exactly_what_was_quoted() {
        let hostile = [
            "torch==2.11.0+cu130",
            "x';touch /tmp/PWNED;'",
            "$(touch /tmp/PWNED)`id`",
            "a\nb\tc",
            "\"double\" and 'single'",
            "",
            "\\'",
        ];
        for text in hostile {
            let output = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {}", quote(text)))
                .output()
                .unwrap();
            assert!(output.status.success(), "{text:?}");
            assert_eq!(String::from_utf8(output.stdout).unwrap(), text, "{text:?}");
        }
    }
}
