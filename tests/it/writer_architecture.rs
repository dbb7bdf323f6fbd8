//! Architecture test of the one writer (issue 32 item 2): every value written
//! into a format another tool parses (requirements, constraints, pylock,
//! JUnit, markdown, hostlists) goes through `src/tool_text.rs`.
//!
//! # Rules, checked by reading `src/` (code before a file's first `#[cfg(test)]`)
//!
//! 1. A function is a *renderer* when its body calls a writer function (the
//!    `pub fn` names of `src/tool_text.rs`, read from the file, or `PipFile`)
//!    or holds a format's signature in a string literal ([`SIGNATURES`]:
//!    `<testcase`, `<failure`, `--hash=`, `--extra-index-url`, `|---`, ...).
//!    A function that holds a signature must call the writer at all.
//! 2. In a renderer, every value written into the output (each argument and
//!    captured name of `write!`/`writeln!`, the argument of `push_str`, and
//!    of a `format!` whose literal holds a signature) is a call of a writer
//!    function, or a literal, or listed in [`TRUSTED`] with the reason it
//!    cannot carry text from input (a count, the output buffer itself). A
//!    `format!` nested in a writer call's arguments is that call's input.
//! 3. No format string anywhere in `src/` takes its width from a variable
//!    (`{x:<width$}`): the formatter panics over 65,535 (E3), and a width
//!    computed from input can be that; `escape::padded` pads instead. A
//!    width named by a constant (`LABEL_WIDTH$`) is fine.
//!
//! The rules run on the tree and on planted violations (the tests at the
//! end), so that they are shown to fail.

use std::collections::BTreeSet;
use std::path::Path;

/// Strings only a writer of these formats holds.
/// (A pip command line, which `fix` prints, is shell text: `shell::quote`'s.)
const SIGNATURES: [&str; 8] = [
    "<testcase",
    "<testsuite",
    "<failure",
    "<system-out",
    "<skipped",
    "<?xml",
    "--hash=",
    "|---",
];

/// (file, expression) written into a parsed format without the writer, and why that is safe.
const TRUSTED: &[(&str, &str)] = &[
    // Counts and severities: numbers and fixed words, no text from input.
    ("src/report/junit.rs", "kind"),
    ("src/report/junit.rs", "finding.severity"),
    ("src/report/junit.rs", "counts"),
    ("src/report/junit.rs", "tests"),
    ("src/report/junit.rs", "failures"),
    ("src/report/drift.rs", "class"),
    ("src/report/drift.rs", "name"),
    ("src/report/drift.rs", "item.severity"),
    ("src/report/fleet.rs", "class"),
    ("src/report/fleet.rs", "worst"),
    ("src/report/fleet.rs", "finding.count"),
    ("src/report/fleet.rs", "title"),
    ("src/report/fleet.rs", "word"),
    ("src/report/markdown.rs", "word"),
    ("src/report/markdown.rs", "step.status.as_str()"),
    ("src/report/markdown.rs", "step.duration_ms as f64 / _"),
    ("src/report/markdown.rs", "run.steps.len()"),
    ("src/report/markdown.rs", "run.duration_ms as f64 / _"),
    ("src/report/markdown.rs", "links.join(\", \")"),
    // marker(): "**error**", "warning" or "info".
    ("src/report/markdown.rs", "marker(finding.severity)"),
    ("src/report/fleet.rs", "marker(item.severity)"),
    ("src/report/fleet.rs", "marker(finding.severity)"),
    // The writer itself, applied to each fix.
    (
        "src/report/fleet.rs",
        "item.fix.as_deref().map(md_code_cell).unwrap_or_default()",
    ),
    // The output built by the function's own checked writes.
    ("src/report/junit.rs", "&cases"),
    // `let name = xml_text(&format!(...))`: bound to the writer's output.
    ("src/report/junit.rs", "name"),
    ("src/report/junit.rs", "cases"),
    ("src/fleet/hostlist.rs", "ranges"),
    ("src/fleet/hostlist.rs", "prefix"),
    ("src/fleet/hostlist.rs", "digits"),
    ("src/fleet/hostlist.rs", "padded(first)"),
    ("src/fleet/hostlist.rs", "padded(last)"),
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    Other,
}

/// A small lexer: comments dropped, string literals (plain, byte, raw) kept
/// with their content, char literals and lifetimes told apart.
fn lex(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (chars.get(i + 1) == Some(&'"') || chars.get(i + 1) == Some(&'#')) && {
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"')
        } {
            let mut hashes = 0;
            i += 1;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            let start = i;
            loop {
                if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                    break;
                }
                i += 1;
            }
            tokens.push(Tok::Str(chars[start..i].iter().collect()));
            i += 1 + hashes;
        } else if c == '"' || (c == 'b' && chars.get(i + 1) == Some(&'"')) {
            if c == 'b' {
                i += 1;
            }
            i += 1;
            let mut content = String::new();
            while chars[i] != '"' {
                if chars[i] == '\\' {
                    content.push(chars[i]);
                    i += 1;
                }
                content.push(chars[i]);
                i += 1;
            }
            tokens.push(Tok::Str(content));
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if chars.get(i + 1) == Some(&'\\') {
                i += 2;
                while chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            tokens.push(Tok::Other);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Tok::Ident(chars[start..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                if chars[i] == '.' && !chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
            tokens.push(Tok::Other);
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(Tok::Punct(c));
            i += 1;
        }
    }
    tokens
}

fn render(tokens: &[Tok]) -> String {
    let mut out = String::new();
    for (index, token) in tokens.iter().enumerate() {
        let piece = match token {
            Tok::Ident(name) => name.clone(),
            Tok::Str(text) => format!("\"{text}\""),
            Tok::Punct(c) => c.to_string(),
            Tok::Other => "_".to_string(),
        };
        let word = |token: &Tok| matches!(token, Tok::Ident(_) | Tok::Other);
        if index > 0 && word(token) && word(&tokens[index - 1]) {
            out.push(' ');
        }
        if index > 0 && matches!(token, Tok::Ident(name) if name == "as") {
            out.push(' ');
        }
        if index > 0 && matches!(&tokens[index - 1], Tok::Ident(name) if name == "as") {
            out.push(' ');
        }
        if matches!(token, Tok::Punct('/')) {
            out.push_str(" / ");
            continue;
        }
        out.push_str(&piece);
        if matches!(token, Tok::Punct(',')) {
            out.push(' ');
        }
    }
    out.replace("  ", " ")
}

/// The index of the token closing the bracket opened at `open`.
fn closing(tokens: &[Tok], open: usize) -> usize {
    let mut depth = 0;
    for (index, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return index;
                }
            }
            _ => {}
        }
    }
    tokens.len() - 1
}

/// Arguments between `open` and its closing bracket, split at top-level commas.
fn arguments(tokens: &[Tok], open: usize) -> Vec<&[Tok]> {
    let close = closing(tokens, open);
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = open + 1;
    for index in open + 1..close {
        match tokens[index] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&tokens[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    if start < close {
        out.push(&tokens[start..close]);
    }
    out
}

/// The names a format string's placeholders take: `None` for the next
/// positional argument, `Some(name)` for a named one or a captured variable,
/// with the width variable when the spec names one (`{x:<width$}`).
fn placeholders(literal: &str) -> Vec<(Option<String>, Option<String>)> {
    let mut out = Vec::new();
    let chars: Vec<char> = literal.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '{' && chars.get(i + 1) == Some(&'{') {
            i += 2;
            continue;
        }
        if chars[i] == '{' {
            let end = (i..chars.len()).find(|&j| chars[j] == '}').unwrap_or(chars.len());
            let inside: String = chars[i + 1..end].iter().collect();
            let (name, spec) = inside.split_once(':').unwrap_or((&inside, ""));
            let name = (!name.is_empty() && !name.chars().all(|c| c.is_ascii_digit())).then(|| name.to_string());
            let width = spec.find('$').map(|dollar| {
                spec[..dollar]
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect()
            });
            out.push((name, width));
            i = end + 1;
            continue;
        }
        i += 1;
    }
    out
}

struct Tree {
    /// (path, code before `#[cfg(test)]`).
    files: Vec<(String, String)>,
    writers: BTreeSet<String>,
}

fn read_tree(root: &Path) -> Tree {
    let mut files = Vec::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                files.push((relative, code));
            }
        }
    }
    files.sort();
    let writer = files
        .iter()
        .find(|(path, _)| path == "src/tool_text.rs")
        .expect("src/tool_text.rs");
    let writers = writer_functions(&writer.1);
    Tree { files, writers }
}

fn writer_functions(code: &str) -> BTreeSet<String> {
    let tokens = lex(code);
    let mut names: BTreeSet<String> = tokens
        .windows(3)
        .filter_map(|window| match window {
            [Tok::Ident(public), Tok::Ident(keyword), Tok::Ident(name)] if public == "pub" && keyword == "fn" => {
                Some(name.clone())
            }
            _ => None,
        })
        .filter(|name| {
            ["pip_", "xml_", "md_", "toml_", "hostlist_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    names.insert("PipFile".to_string());
    names
}

/// Whether `expression` is a call of a writer function (after `&`, `*`).
fn is_writer_call(expression: &[Tok], writers: &BTreeSet<String>) -> bool {
    let mut index = 0;
    while matches!(expression.get(index), Some(Tok::Punct('&' | '*'))) {
        index += 1;
    }
    // A path: a::b::c( — a writer's name among its segments decides
    // (`PipFile::new(`, `crate::tool_text::md_inline(`).
    let mut named = false;
    while let Some(Tok::Ident(name)) = expression.get(index) {
        named |= writers.contains(name);
        index += 1;
        if matches!(expression.get(index), Some(Tok::Punct(':')))
            && matches!(expression.get(index + 1), Some(Tok::Punct(':')))
        {
            index += 2;
        } else {
            break;
        }
    }
    named && matches!(expression.get(index), Some(Tok::Punct('(')))
}

/// Every violation of rules 1 and 2 in one file, as `path: fn: what`.
fn writer_violations(path: &str, code: &str, writers: &BTreeSet<String>) -> Vec<String> {
    if path == "src/tool_text.rs" {
        return Vec::new();
    }
    let tokens = lex(code);
    let mut out = Vec::new();
    let mut index = 0;
    while index < tokens.len() {
        // Each `fn NAME ... { body }`, outermost only.
        if !matches!(&tokens[index], Tok::Ident(keyword) if keyword == "fn") {
            index += 1;
            continue;
        }
        let name = match tokens.get(index + 1) {
            Some(Tok::Ident(name)) => name.clone(),
            _ => {
                index += 1;
                continue;
            }
        };
        let Some(open) = (index..tokens.len()).find(|&at| matches!(tokens[at], Tok::Punct('{' | ';'))) else {
            break;
        };
        if tokens[open] == Tok::Punct(';') {
            index = open + 1;
            continue;
        }
        let close = closing(&tokens, open);
        let body = &tokens[open..=close];
        check_function(path, &name, body, writers, &mut out);
        index = close + 1;
    }
    out
}

fn check_function(path: &str, function: &str, body: &[Tok], writers: &BTreeSet<String>, out: &mut Vec<String>) {
    let signature = |text: &str| SIGNATURES.iter().any(|signature| text.contains(signature));
    let holds_signature = body
        .iter()
        .any(|token| matches!(token, Tok::Str(text) if signature(text)));
    let calls_writer = (0..body.len()).any(|at| is_writer_call(&body[at..], writers));
    if holds_signature && !calls_writer {
        out.push(format!(
            "{path}: fn {function}: writes a parsed format without src/tool_text.rs"
        ));
    }
    if !holds_signature && !calls_writer {
        return;
    }
    let trusted = |expression: &str| TRUSTED.contains(&(path, expression));
    // Token ranges inside a writer call's parentheses: their output is its input.
    let mut inside_writer = vec![false; body.len()];
    for at in 0..body.len() {
        if is_writer_call(&body[at..], writers)
            && let Some(open) = (at..body.len()).find(|&i| body[i] == Tok::Punct('('))
        {
            let close = closing(body, open);
            inside_writer[open..=close].iter_mut().for_each(|flag| *flag = true);
        }
    }
    let mut judge = |expression: &[Tok], placeholder: &str| {
        if expression.is_empty() || matches!(expression, [Tok::Str(_)]) || is_writer_call(expression, writers) {
            return;
        }
        let text = render(expression);
        if !trusted(&text) {
            out.push(format!(
                "{path}: fn {function}: `{text}` is written{placeholder} without src/tool_text.rs"
            ));
        }
    };
    for at in 0..body.len().saturating_sub(2) {
        if inside_writer[at] {
            continue;
        }
        let (Tok::Ident(name), Tok::Punct(next)) = (&body[at], &body[at + 1]) else {
            continue;
        };
        let is_macro = *next == '!' && matches!(name.as_str(), "write" | "writeln" | "format");
        if *next == '.' {
            continue;
        }
        if name == "push_str" && *next == '(' && at > 0 && body[at - 1] == Tok::Punct('.') {
            for argument in arguments(body, at + 1) {
                judge(argument, " by push_str");
            }
            continue;
        }
        if !is_macro || body[at + 2] != Tok::Punct('(') {
            continue;
        }
        let all = arguments(body, at + 2);
        let skip = usize::from(name != "format");
        let Some([Tok::Str(literal)]) = all.get(skip).copied() else {
            continue;
        };
        if name == "format" && !signature(literal) {
            continue;
        }
        let rest: Vec<&[Tok]> = all.iter().skip(skip + 1).copied().collect();
        let (named, positional): (Vec<&[Tok]>, Vec<&[Tok]>) = rest.into_iter().partition(|argument| {
            matches!(argument, [Tok::Ident(_), Tok::Punct('='), ..])
                && !matches!(argument.get(2), Some(Tok::Punct('=')))
        });
        let mut next_positional = 0;
        for (placeholder, _) in placeholders(literal) {
            match placeholder {
                None => {
                    if let Some(argument) = positional.get(next_positional) {
                        judge(argument, "");
                    }
                    next_positional += 1;
                }
                Some(captured) => match named
                    .iter()
                    .find(|argument| argument[0] == Tok::Ident(captured.clone()))
                {
                    Some(argument) => judge(&argument[2..], ""),
                    None => judge(&[Tok::Ident(captured)], " (captured)"),
                },
            }
        }
    }
}

/// Rule 3: `{x:<width$}` with a width that is not a constant.
fn width_violations(path: &str, code: &str) -> Vec<String> {
    lex(code)
        .iter()
        .filter_map(|token| match token {
            Tok::Str(text) => Some(text),
            _ => None,
        })
        .flat_map(|literal| placeholders(literal).into_iter().filter_map(|(_, width)| width))
        .filter(|width| {
            !width.is_empty()
                && !width
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
        })
        .map(|width| format!("{path}: a format width taken from `{width}` (panics over 65,535): use escape::padded"))
        .collect()
}

fn all_violations(tree: &Tree) -> Vec<String> {
    tree.files
        .iter()
        .flat_map(|(path, code)| {
            let mut found = writer_violations(path, code, &tree.writers);
            found.extend(width_violations(path, code));
            found
        })
        .collect()
}

#[test]
fn every_parsed_format_is_written_through_the_one_writer() {
    let tree = read_tree(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        tree.writers.contains("xml_text") && tree.writers.contains("pip_comment"),
        "{:?}",
        tree.writers
    );
    // The renderers are found, not listed: each must be seen as one.
    let renderers: Vec<&str> = tree
        .files
        .iter()
        .filter(|(_, code)| {
            let tokens = lex(code);
            (0..tokens.len()).any(|at| is_writer_call(&tokens[at..], &tree.writers))
        })
        .map(|(path, _)| path.as_str())
        .collect();
    for expected in [
        "src/export/requirements.rs",
        "src/export/pylock.rs",
        "src/report/junit.rs",
        "src/report/markdown.rs",
        "src/report/drift.rs",
        "src/report/fleet.rs",
        "src/fleet/hostlist.rs",
    ] {
        assert!(
            renderers.contains(&expected),
            "{expected} is not seen as a renderer: {renderers:?}"
        );
    }
    let found = all_violations(&tree);
    assert!(
        found.is_empty(),
        "values written around src/tool_text.rs:\n{}",
        found.join("\n")
    );
}

/// The rules fail on planted violations: a JUnit case that writes a finding's
/// title raw, a requirements comment written by hand, a writer-less renderer
/// and a width from input.
#[test]
fn the_writer_rules_fail_on_planted_violations() {
    let tree = read_tree(Path::new(env!("CARGO_MANIFEST_DIR")));
    let mut planted = tree.files.clone();
    let junit = planted
        .iter_mut()
        .find(|(path, _)| path == "src/report/junit.rs")
        .unwrap();
    junit.1.push_str(
        "\nfn planted(out: &mut String, finding: &Finding) {\n    let _ = writeln!(out, \"<failure message=\\\"{}\\\"/>\", finding.title);\n    let _ = xml_text(\"x\");\n}\n",
    );
    let requirements = planted
        .iter_mut()
        .find(|(path, _)| path == "src/export/requirements.rs")
        .unwrap();
    requirements.1.push_str(
        "\nfn planted2(out: &mut String, line: &str) {\n    out.push_str(line);\n    let mut file = PipFile::new();\n    file.pip_blank_line();\n}\n",
    );
    planted.push((
        "src/report/planted.rs".to_string(),
        "fn hand_made(name: &str) -> String { format!(\"<testcase name=\\\"{name}\\\"/>\") }\nfn pad(cell: &str, width: usize) -> String { format!(\"{cell:<width$}\") }\n".to_string(),
    ));
    let found = all_violations(&Tree {
        files: planted,
        writers: tree.writers.clone(),
    });
    let expect = [
        "src/report/junit.rs: fn planted: `finding.title` is written",
        "src/export/requirements.rs: fn planted2: `line` is written by push_str",
        "src/report/planted.rs: fn hand_made: writes a parsed format without src/tool_text.rs",
        "src/report/planted.rs: fn hand_made: `name` is written (captured)",
        "src/report/planted.rs: a format width taken from `width`",
    ];
    for expected in expect {
        assert!(
            found.iter().any(|line| line.starts_with(expected)),
            "not caught: {expected}\nfound:\n{}",
            found.join("\n")
        );
    }
    assert_eq!(found.len(), expect.len(), "{}", found.join("\n"));
}
