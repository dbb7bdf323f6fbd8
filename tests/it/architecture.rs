//! Architecture ratchet (issue 21): the layering rules of `src/`, checked by
//! reading the source, with a baseline of the violations not yet removed.
//!
//! # Rules
//!
//! 1. No import circle between the crate's top-level modules (those `src/lib.rs`
//!    declares: `check`, `checks`, `probe`, `report`, ...). Module A depends on
//!    module B when a file of A (`src/A.rs` or `src/A/**`) names `crate::B`
//!    (`envdoctor::B` counts the same), in a `use` or in a path expression,
//!    or names `super::B` (`super::super::B`, ...) where that `super` chain
//!    reaches the crate root. `use crate::{check::X, report};` depends on both
//!    `check` and `report`. A circle is reported as a strongly connected
//!    component, with one example `file:line` for each edge inside it.
//! 2. `probe` (which touches the machine) is named only by `src/probe/` itself
//!    and by the commands that probe (`src/commands/`): any other file of `src/`
//!    naming `crate::probe` or `envdoctor::probe` (`src/main.rs` included) is
//!    a violation. Everything else works on the Snapshot and Facts.
//!
//! # How the source is read
//!
//! A small lexer drops comments (`//`, `///`, `//!`, nested `/* */`), string
//! literals (plain, byte, C and raw, across lines) and char literals, keeping
//! line numbers; the rules then look at the remaining tokens. Items under an
//! exact `#[cfg(test)]` attribute (a `mod tests { ... }`, a test-only helper fn)
//! are skipped up to their closing brace or `;`: test code does not shape the
//! library's build, and the rules are about that build. Inline `mod x { ... }`
//! blocks are tracked so that `super` is resolved from where it is written.
//! Not seen: paths made by macros, files pulled in with `#[path]`, other
//! spellings of test-only code (`#[cfg(all(test, ...))]`, `#![cfg(test)]`),
//! and names brought in by a glob (`use super::*`) or a re-export.
//!
//! # The baseline
//!
//! The current code has violations; issue 21 is about removing them. Until
//! then `tests/architecture-baseline.txt` lists the known ones, one per line,
//! sorted: `circle: a b c` (the modules of one circle, sorted) and
//! `probe-import: src/path.rs`. The test fails
//!
//! - when a violation occurs that the baseline does not list (it says what and
//!   where), and
//! - when a baseline line no longer occurs: remove it, so that the baseline
//!   only shrinks. A circle that was broken into a smaller one is reported as
//!   such; replace the old line with the new one.
//!
//! `ENVDOCTOR_BLESS=1 cargo test --test it architecture` rewrites the baseline
//! from the current tree; review its diff like code. The goal is an empty
//! baseline, after which this test holds the layering as it is.
//!
//! The analysis is also run on small trees held in memory (the tests at the
//! end), so that the cycle finder and the lexer are tested apart from `src/`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

/// The baseline, relative to the package root.
const BASELINE: &str = "tests/architecture-baseline.txt";
/// Set to `1` to rewrite the baseline instead of comparing with it.
const BLESS: &str = "ENVDOCTOR_BLESS";
/// The module that touches the machine, and the modules allowed to name it.
const PROBE: &str = "probe";
const MAY_NAME_PROBE: [&str; 2] = ["probe", "commands"];

#[test]
fn architecture_matches_baseline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = read_tree(&root.join("src"));
    let found = violations(&analyze(&files));
    // Shown on failure or with --nocapture: the whole picture, baseline included.
    eprintln!("all violations found, listed in the baseline or not:");
    for (key, detail) in &found {
        eprintln!("{key}\n{detail}");
    }
    let baseline_path = root.join(BASELINE);
    if std::env::var(BLESS).as_deref() == Ok("1") {
        std::fs::write(&baseline_path, render_baseline(&found)).expect("write the baseline");
        eprintln!("wrote {} violation(s) to {BASELINE}", found.len());
        return;
    }
    let text = std::fs::read_to_string(&baseline_path).unwrap_or_else(|error| panic!("read {BASELINE}: {error}"));
    let problems = compare(&found, &parse_baseline(&text));
    assert!(
        problems.is_empty(),
        "{}\n\n{BASELINE} must list exactly the violations that occur (and only ever shrink); \
         after fixing what is new, `{BLESS}=1 cargo test --test it architecture` rewrites it.",
        problems.join("\n\n")
    );
}

// ---------------------------------------------------------------------------
// Reading the tree

/// One source file: its path relative to the package root, with `/`.
struct SourceFile {
    path: String,
    text: String,
}

/// Every `.rs` file under `src`, sorted by path so that the examples the
/// report picks (the first site of each edge) do not depend on the file system.
fn read_tree(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    collect_rs(src, "src", &mut files);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

fn collect_rs(dir: &Path, relative: &str, files: &mut Vec<SourceFile>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|error| panic!("read {}: {error}", dir.display()));
    for entry in entries {
        let entry = entry.expect("read a directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let relative = format!("{relative}/{name}");
        if path.is_dir() {
            collect_rs(&path, &relative, files);
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("read {relative}: {error}"));
            files.push(SourceFile { path: relative, text });
        }
    }
}

/// The module a file is: `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`;
/// `src/lib.rs` and `src/main.rs` are crate roots, the empty path.
fn module_path(path: &str) -> Vec<String> {
    let inside = path.strip_prefix("src/").unwrap_or(path).trim_end_matches(".rs");
    let mut parts: Vec<String> = inside.split('/').map(str::to_string).collect();
    let root_file = parts.len() == 1 && matches!(parts[0].as_str(), "lib" | "main");
    if root_file || parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

// ---------------------------------------------------------------------------
// Lexing: just enough of Rust to know what is code.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

struct Token {
    tok: Tok,
    line: usize,
}

/// The tokens of `text` outside comments and literals; numbers come out as
/// identifiers, which is harmless here.
fn lex(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut lexer = Lexer {
        chars,
        at: 0,
        line: 1,
        tokens: Vec::new(),
    };
    lexer.run();
    lexer.tokens
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
    tokens: Vec<Token>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Moves past one character, counting lines.
    fn bump(&mut self) {
        if self.peek(0) == Some('\n') {
            self.line += 1;
        }
        self.at += 1;
    }

    fn push(&mut self, tok: Tok) {
        self.tokens.push(Token { tok, line: self.line });
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match (c, self.peek(1)) {
                ('/', Some('/')) => self.skip_while(|c| c != '\n'),
                ('/', Some('*')) => self.skip_block_comment(),
                ('"', _) => self.skip_string(),
                ('\'', _) => self.skip_char_or_lifetime(),
                (':', Some(':')) => {
                    self.push(Tok::PathSep);
                    self.at += 2;
                }
                _ if c.is_alphanumeric() || c == '_' => self.ident(),
                _ if c.is_whitespace() => self.bump(),
                _ => {
                    self.push(Tok::Punct(c));
                    self.at += 1;
                }
            }
        }
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.peek(0).is_some_and(&keep) {
            self.bump();
        }
    }

    /// `/* ... */`, which nest in Rust.
    fn skip_block_comment(&mut self) {
        let mut depth = 0;
        while let Some(c) = self.peek(0) {
            match (c, self.peek(1)) {
                ('/', Some('*')) => depth += 1,
                ('*', Some('/')) => depth -= 1,
                _ => {
                    self.bump();
                    continue;
                }
            }
            self.at += 2;
            if depth == 0 {
                return;
            }
        }
    }

    /// From the opening `"` past the closing one, honouring `\"` and `\\`.
    fn skip_string(&mut self) {
        self.at += 1;
        while let Some(c) = self.peek(0) {
            self.bump();
            match c {
                '\\' => self.bump(),
                '"' => return,
                _ => {}
            }
        }
    }

    /// `r"..."`, `r#"..."#`: from the first `#` or `"` after the prefix.
    fn skip_raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.at += 1;
        }
        self.at += 1; // the opening quote
        while let Some(c) = self.peek(0) {
            self.bump();
            if c == '"' && (0..hashes).all(|i| self.peek(i) == Some('#')) {
                self.at += hashes;
                return;
            }
        }
    }

    /// `'x'`, `'\n'`, `'\u{7b}'` are skipped; a lifetime (`'a`) leaves its
    /// name to be read as an identifier. A char literal may hold a brace.
    fn skip_char_or_lifetime(&mut self) {
        if self.peek(1) == Some('\\') {
            self.at += 3; // the quote, the backslash, the escaped character
            self.skip_while(|c| c != '\'');
            self.at += 1;
        } else if self.peek(2) == Some('\'') {
            self.at += 3;
        } else {
            self.at += 1;
        }
    }

    /// An identifier, or the prefix of a literal: `b"..."`, `b'x'`, `r#"..."#`.
    fn ident(&mut self) {
        let start = self.at;
        while self.peek(0).is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        let word: String = self.chars[start..self.at].iter().collect();
        let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
        match self.peek(0) {
            Some('"') if matches!(word.as_str(), "b" | "c") => self.skip_string(),
            Some('\'') if word == "b" => self.skip_char_or_lifetime(),
            Some('"') if raw_prefix => self.skip_raw_string(),
            Some('#') if raw_prefix && self.is_raw_string_after_hashes() => self.skip_raw_string(),
            _ => self.push(Tok::Ident(word)),
        }
    }

    /// `r#"` starts a raw string; `r#ident` is a raw identifier.
    fn is_raw_string_after_hashes(&self) -> bool {
        let hashes = (0..).take_while(|&i| self.peek(i) == Some('#')).count();
        self.peek(hashes) == Some('"')
    }
}

// ---------------------------------------------------------------------------
// Scanning one file

/// A top-level module (or other root item) a file names, and where.
#[derive(Debug, Clone, PartialEq)]
struct Mention {
    name: String,
    line: usize,
}

/// What one file says about the crate root.
#[derive(Default)]
struct Scan {
    /// Root items named through `crate::`, `envdoctor::` or a `super` chain.
    mentions: Vec<Mention>,
    /// `mod x` declared at the file's top level (for `src/lib.rs`: the
    /// top-level modules).
    modules: Vec<String>,
}

fn ident(tokens: &[Token], at: usize) -> Option<&str> {
    match tokens.get(at).map(|token| &token.tok) {
        Some(Tok::Ident(name)) => Some(name),
        _ => None,
    }
}

fn is(tokens: &[Token], at: usize, tok: &Tok) -> bool {
    tokens.get(at).is_some_and(|token| &token.tok == tok)
}

/// Scans a file that is the module `module` (empty for a crate root).
fn scan(tokens: &[Token], module: &[String]) -> Scan {
    let mut scan = Scan::default();
    // Inline `mod x { ... }` blocks open here, with the brace depth they opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut at = 0;
    while at < tokens.len() {
        if let Some(after) = cfg_test_attribute(tokens, at) {
            at = end_of_item(tokens, after);
            continue;
        }
        match &tokens[at].tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if inline.last().is_some_and(|(_, opened)| *opened == depth) {
                    inline.pop();
                }
            }
            Tok::Ident(word) if word == "mod" => {
                if let Some(name) = ident(tokens, at + 1) {
                    if depth == 0 {
                        scan.modules.push(name.to_string());
                    }
                    if is(tokens, at + 2, &Tok::Punct('{')) {
                        inline.push((name.to_string(), depth));
                    }
                }
            }
            Tok::Ident(_) if at == 0 || !is(tokens, at - 1, &Tok::PathSep) => {
                if let Some(after) = root_prefix(tokens, at, module.len() + inline.len()) {
                    scan.mentions.extend(names_after_root(tokens, after));
                }
            }
            _ => {}
        }
        at += 1;
    }
    scan
}

/// At `#[cfg(test)]`, the index just after it.
fn cfg_test_attribute(tokens: &[Token], at: usize) -> Option<usize> {
    let pattern = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let matches = pattern.iter().enumerate().all(|(i, tok)| is(tokens, at + i, tok));
    matches.then_some(at + pattern.len())
}

/// The index after the item starting at `at`: past its body's closing brace,
/// or past its `;` when it has no body (`mod x;`, `use ...;`). Stops before
/// a `}` it did not open, so that an attribute on a statement or field cannot
/// swallow the block around it.
fn end_of_item(tokens: &[Token], mut at: usize) -> usize {
    // Parentheses and brackets hold `;` that do not end the item (`[u8; 4]`).
    let mut nesting = 0usize;
    let mut braces = 0usize;
    while let Some(token) = tokens.get(at) {
        match token.tok {
            Tok::Punct('(' | '[') => nesting += 1,
            Tok::Punct(')' | ']') => nesting = nesting.saturating_sub(1),
            Tok::Punct('{') => braces += 1,
            Tok::Punct('}') if braces == 0 => return at,
            Tok::Punct('}') => {
                braces -= 1;
                if braces == 0 {
                    return at + 1;
                }
            }
            Tok::Punct(';') if nesting == 0 && braces == 0 => return at + 1,
            _ => {}
        }
        at += 1;
    }
    at
}

/// When the path starting at `at` begins at the crate root (`crate::`,
/// `$crate::`, `envdoctor::`, or as many `super::` as `depth`, the nesting of
/// the code it is written in), the index of the token after that root's `::`.
fn root_prefix(tokens: &[Token], at: usize, depth: usize) -> Option<usize> {
    match ident(tokens, at)? {
        "crate" | "envdoctor" => is(tokens, at + 1, &Tok::PathSep).then_some(at + 2),
        "super" => {
            let mut supers = 0;
            let mut next = at;
            while ident(tokens, next) == Some("super") && is(tokens, next + 1, &Tok::PathSep) {
                supers += 1;
                next += 2;
            }
            (supers > 0 && supers == depth).then_some(next)
        }
        _ => None,
    }
}

/// The root items a path names right after the root: `crate::a::...` names
/// `a`; `crate::{a::X, b, c::{d, e}}` names `a`, `b` and `c`, each on its line.
fn names_after_root(tokens: &[Token], at: usize) -> Vec<Mention> {
    let mention = |at: usize| {
        let name = ident(tokens, at).filter(|name| *name != "self")?;
        Some(Mention {
            name: name.to_string(),
            line: tokens[at].line,
        })
    };
    if !is(tokens, at, &Tok::Punct('{')) {
        return mention(at).into_iter().collect();
    }
    let mut mentions = Vec::new();
    let mut depth = 0;
    let mut element_starts = true;
    for (i, token) in tokens.iter().enumerate().skip(at + 1) {
        match token.tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') if depth == 0 => break,
            Tok::Punct('}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                element_starts = true;
                continue;
            }
            _ if element_starts => mentions.extend(mention(i)),
            _ => {}
        }
        element_starts = false;
    }
    mentions
}

// ---------------------------------------------------------------------------
// The analysis of a tree

/// Where something was seen: the first place, in path and line order.
#[derive(Debug, Clone)]
struct Site {
    path: String,
    line: usize,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path, self.line)
    }
}

/// Modules that depend on each other in a circle, and the edges between them.
#[derive(Debug)]
struct Circle {
    /// Sorted.
    modules: Vec<String>,
    /// Every dependency inside the circle, with the first place it is written.
    edges: Vec<(String, String, Site)>,
}

#[derive(Debug)]
struct Analysis {
    /// The crate's top-level modules, as `src/lib.rs` declares them.
    top: BTreeSet<String>,
    /// Every dependency between top-level modules, with the first place it is written.
    edges: BTreeMap<(String, String), Site>,
    circles: Vec<Circle>,
    /// Files outside the modules allowed to, naming `probe`: where first.
    probe_imports: Vec<Site>,
}

/// `files` is a tree like `src/`: paths relative to the package root.
fn analyze(files: &[SourceFile]) -> Analysis {
    let scans: Vec<(&SourceFile, Scan)> = files
        .iter()
        .map(|file| (file, scan(&lex(&file.text), &module_path(&file.path))))
        .collect();
    let top: BTreeSet<String> = scans
        .iter()
        .find(|(file, _)| file.path == "src/lib.rs")
        .map(|(_, scan)| scan.modules.iter().cloned().collect())
        .expect("the tree has a src/lib.rs");
    let mut edges: BTreeMap<(String, String), Site> = BTreeMap::new();
    let mut probe_imports = Vec::new();
    for (file, scan) in &scans {
        let from = module_path(&file.path)
            .into_iter()
            .next()
            .filter(|name| top.contains(name));
        if let Some(line) = probe_line(from.as_deref(), &scan.mentions) {
            probe_imports.push(Site {
                path: file.path.clone(),
                line,
            });
        }
        let Some(from) = from else { continue };
        for mention in scan.mentions.iter().filter(|m| top.contains(&m.name) && m.name != from) {
            let site = Site {
                path: file.path.clone(),
                line: mention.line,
            };
            edges.entry((from.clone(), mention.name.clone())).or_insert(site);
        }
    }
    Analysis {
        circles: circles(&top, &edges),
        top,
        edges,
        probe_imports,
    }
}

/// The first line naming `probe`, for a file of a module that may not.
fn probe_line(module: Option<&str>, mentions: &[Mention]) -> Option<usize> {
    if module.is_some_and(|module| MAY_NAME_PROBE.contains(&module)) {
        return None;
    }
    mentions.iter().filter(|m| m.name == PROBE).map(|m| m.line).min()
}

/// The strongly connected components of more than one module.
fn circles(modules: &BTreeSet<String>, edges: &BTreeMap<(String, String), Site>) -> Vec<Circle> {
    let names: Vec<&String> = modules.iter().collect();
    let index = |name: &String| names.binary_search(&name).expect("an edge between declared modules");
    let mut adjacency = vec![Vec::new(); names.len()];
    for (from, to) in edges.keys() {
        adjacency[index(from)].push(index(to));
    }
    let mut found: Vec<Circle> = strongly_connected(&adjacency)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut members: Vec<String> = component.iter().map(|&i| names[i].clone()).collect();
            members.sort();
            let inside = edges
                .iter()
                .filter(|((from, to), _)| members.contains(from) && members.contains(to))
                .map(|((from, to), site)| (from.clone(), to.clone(), site.clone()))
                .collect();
            Circle {
                modules: members,
                edges: inside,
            }
        })
        .collect();
    found.sort_by(|a, b| a.modules.cmp(&b.modules));
    found
}

/// Tarjan's algorithm: each component is a set of nodes that all reach each
/// other. Recursive; the graph is a few dozen modules.
fn strongly_connected(adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'g> {
        adjacency: &'g [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            let adjacency = self.adjacency;
            for &w in &adjacency[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(index) if self.on_stack[w] => self.low[v] = self.low[v].min(index),
                    Some(_) => {}
                }
            }
            if self.index[v] == Some(self.low[v]) {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let n = adjacency.len();
    let mut tarjan = Tarjan {
        adjacency,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        components: Vec::new(),
    };
    for v in 0..n {
        if tarjan.index[v].is_none() {
            tarjan.visit(v);
        }
    }
    tarjan.components
}

// ---------------------------------------------------------------------------
// The README's layers

/// The README section whose first code block draws the layers.
const README_LAYOUT: &str = "## Layout";

/// Rule 3: the layers the README's Layout section draws are the tree's. Each
/// line of its code block that starts with `src/` is one layer, top first,
/// naming its modules as `name/` or `name.rs` (continuation lines, indented,
/// only describe). Every top-level module is on exactly one line, and no
/// module uses one on a line above its own: a newcomer reading the README
/// reads the house as it is.
#[test]
fn the_readme_layers_are_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("read README.md");
    let layers = readme_layers(&readme);
    let analysis = analyze(&read_tree(&root.join("src")));
    let problems = layer_problems(&layers, &analysis);
    assert!(
        problems.is_empty(),
        "README.md's {README_LAYOUT} and src/ disagree:\n{}",
        problems.join("\n")
    );
}

/// The modules of each `src/` line of the Layout block, top layer first.
fn readme_layers(readme: &str) -> Vec<Vec<String>> {
    let section = readme
        .split_once(README_LAYOUT)
        .map(|(_, after)| after)
        .expect("README.md has a Layout section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the Layout section draws the layers in a code block");
    block
        .lines()
        .filter(|line| line.starts_with("src/"))
        .map(|line| {
            line.split_whitespace()
                .map(|word| word.trim_end_matches(','))
                .map(|word| word.strip_prefix("src/").unwrap_or(word))
                .filter_map(|word| word.strip_suffix('/').or_else(|| word.strip_suffix(".rs")))
                .filter(|name| !name.is_empty() && !name.contains('/'))
                .map(str::to_string)
                .collect()
        })
        .collect()
}

fn layer_problems(layers: &[Vec<String>], analysis: &Analysis) -> Vec<String> {
    let mut problems = Vec::new();
    let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (depth, layer) in layers.iter().enumerate() {
        for name in layer {
            // `main.rs` is the binary's root, not a module of the library.
            if name == "main" {
                continue;
            }
            if !analysis.top.contains(name) {
                problems.push(format!("the README names `{name}`, which src/lib.rs does not declare"));
            } else if layer_of.insert(name, depth).is_some() {
                problems.push(format!("the README places `{name}` on two lines"));
            }
        }
    }
    for module in analysis
        .top
        .iter()
        .filter(|module| !layer_of.contains_key(module.as_str()))
    {
        problems.push(format!("`{module}` is on no line of the README's layers"));
    }
    for ((from, to), site) in &analysis.edges {
        if let (Some(&from_depth), Some(&to_depth)) = (layer_of.get(from.as_str()), layer_of.get(to.as_str()))
            && to_depth < from_depth
        {
            problems.push(format!("{from} uses {to}, a line above its own ({site})"));
        }
    }
    problems
}

// ---------------------------------------------------------------------------
// Violations and the baseline

/// Every violation: its baseline line, and what a reader needs to see why.
fn violations(analysis: &Analysis) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for circle in &analysis.circles {
        let detail: Vec<String> = circle
            .edges
            .iter()
            .map(|(from, to, site)| format!("    {from} -> {to}  ({site})"))
            .collect();
        found.insert(format!("circle: {}", circle.modules.join(" ")), detail.join("\n"));
    }
    for site in &analysis.probe_imports {
        found.insert(
            format!("probe-import: {}", site.path),
            format!("    names crate::{PROBE} at {site}"),
        );
    }
    found
}

fn render_baseline(found: &BTreeMap<String, String>) -> String {
    let mut text = String::from(
        "# Known violations of the layering rules in tests/it/architecture.rs (issue 21).\n\
         # This list may only shrink; the goal is an empty one.\n\
         # Rewritten by: ENVDOCTOR_BLESS=1 cargo test --test it architecture\n",
    );
    for key in found.keys() {
        text.push_str(key);
        text.push('\n');
    }
    text
}

fn parse_baseline(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// What differs between the violations found and the baseline, one message each.
fn compare(found: &BTreeMap<String, String>, baseline: &BTreeSet<String>) -> Vec<String> {
    let stale: Vec<&String> = baseline.iter().filter(|key| !found.contains_key(*key)).collect();
    let mut problems = Vec::new();
    for (key, detail) in found.iter().filter(|(key, _)| !baseline.contains(*key)) {
        let remains_of = stale.iter().find(|old| circle_within(key, old));
        let what = match remains_of {
            Some(old) => format!("what is left of the baseline's `{old}` (write this line instead)"),
            None => "new violation, not in the baseline".to_string(),
        };
        problems.push(format!("{what}: {key}\n{detail}"));
    }
    for key in stale {
        let grown_into = found
            .keys()
            .find(|new| !baseline.contains(*new) && circle_within(key, new));
        problems.push(match grown_into {
            Some(new) => {
                format!("grown into the new `{new}` above: {key}\n    keep this line; break the new dependency")
            }
            None => format!("no longer occurs: {key}\n    remove it from {BASELINE}"),
        });
    }
    problems
}

/// Whether `key` is a circle whose modules all belong to the circle `outer`:
/// a known circle that was partly broken, not a new one.
fn circle_within(key: &str, outer: &str) -> bool {
    let modules = |key: &str| -> Option<BTreeSet<String>> {
        Some(key.strip_prefix("circle: ")?.split(' ').map(str::to_string).collect())
    };
    matches!((modules(key), modules(outer)), (Some(inner), Some(outer)) if inner.is_subset(&outer))
}

// ---------------------------------------------------------------------------
// Reads (issue 32, item 1): every byte from outside through one bounded reader

/// The one module that opens and reads files for the rest of `src/`: regular
/// files only, a limit per kind, `O_NONBLOCK` (a FIFO cannot hang a probe,
/// `/dev/zero` cannot fill memory).
const BOUNDED_READER: &str = "src/bounded_read.rs";

/// Files that read otherwise, each for a reason; every entry must still hold
/// such a read (a stale one fails the test, so that the list only shrinks).
const READS_ALLOWED: [(&str, &str); 6] = [
    // The kernel's own files, /proc and /sys: written by no one else, small by
    // construction, and not regular files in the sense the reader checks for
    // (their size reads as 0 or 4096).
    ("src/node_name.rs", "/proc/sys/kernel/hostname"),
    ("src/fleet/slurm.rs", "/proc/sys/kernel/hostname"),
    (
        "src/probe/system.rs",
        "/proc/cpuinfo, /proc/meminfo, /proc/sys/kernel/*",
    ),
    (
        "src/probe/nvidia/kernel_module.rs",
        "/proc/driver/nvidia/version, /sys/module/nvidia/version",
    ),
    // A log is a stream by design (a pipe, a FIFO, `<(python train.py)`), and
    // is read line by line with each line bounded (`explain::log::MAX_LINE`).
    ("src/commands/explain.rs", "the log to explain"),
    // A response body, not a file: bounded by MAX_PAGE_BYTES and the request's
    // deadline (`--index-timeout`).
    ("src/export/index/fetch.rs", "a project page's body"),
];

/// Issue 32, item 1 (E2): outside `src/bounded_read.rs` and [`READS_ALLOWED`],
/// no `File::open`, `fs::read*` (but `fs::read_dir`, `fs::read_link`),
/// `read_to_end`, `read_to_string` or `OpenOptions` `.read(true)` in the code
/// that is built (test code is not: `#[cfg(test)]` items are skipped).
#[test]
fn every_outside_read_is_bounded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let problems = read_problems(&read_tree(&root.join("src")));
    assert!(
        problems.is_empty(),
        "{}\n\nread files through {BOUNDED_READER} (`read`, `Lines`, `read_start`, `open_regular`); \
         a read that must not, with the reason why, goes in READS_ALLOWED",
        problems.join("\n")
    );
}

/// Explain's readers judge who used a name by the frames outside the lookup
/// machinery (the interpreter's import system, lazy_loader's `__getattr__`),
/// and each once kept its own list of it, which a fix to one left the others
/// without: `crate::explain::is_lookup_machinery` is the one list, and no
/// other file of `src/explain` spells a member of it.
#[test]
fn the_lookup_machinery_is_listed_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own_list = ["src/explain/mod.rs", "src/explain/stdlib_modules.rs"];
    let spelled: Vec<String> = read_tree(&root.join("src"))
        .iter()
        .filter(|file| file.path.starts_with("src/explain/") && !own_list.contains(&file.path.as_str()))
        .flat_map(|file| {
            file.text
                .lines()
                .enumerate()
                .filter(|(_, line)| {
                    ["\"importlib\"", "\"lazy_loader\""]
                        .iter()
                        .any(|name| line.contains(name))
                })
                .map(|(number, _)| format!("{}:{}", file.path, number + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        spelled.is_empty(),
        "call crate::explain::is_lookup_machinery instead: {}",
        spelled.join(", ")
    );
}

/// Every unbounded read outside the reader and the allowed files, as
/// `path:line: what`, then every allowed file that no longer reads.
fn read_problems(files: &[SourceFile]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut allowed_used = BTreeSet::new();
    for file in files.iter().filter(|file| file.path != BOUNDED_READER) {
        let reads = unbounded_reads(&file.text);
        match READS_ALLOWED.iter().find(|(path, _)| *path == file.path) {
            Some((path, _)) if !reads.is_empty() => {
                allowed_used.insert(*path);
            }
            Some(_) => {}
            None => problems.extend(reads.iter().map(|(line, what)| format!("{}:{line}: {what}", file.path))),
        }
    }
    let present: BTreeSet<&str> = files.iter().map(|file| file.path.as_str()).collect();
    for (path, why) in READS_ALLOWED {
        if present.contains(path) && !allowed_used.contains(path) {
            problems.push(format!(
                "{path}: allowed to read ({why}) but reads nothing any more: remove it from READS_ALLOWED"
            ));
        }
    }
    problems
}

/// `(line, what)` for each read in `text` that does not go through the
/// bounded reader, outside `#[cfg(test)]` items.
fn unbounded_reads(text: &str) -> Vec<(usize, String)> {
    let tokens = lex(text);
    let mut found = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        if let Some(after) = cfg_test_attribute(&tokens, at) {
            at = end_of_item(&tokens, after);
            continue;
        }
        if let Some(what) = unbounded_read_at(&tokens, at) {
            found.push((tokens[at].line, what));
        }
        at += 1;
    }
    found
}

fn unbounded_read_at(tokens: &[Token], at: usize) -> Option<String> {
    let name = ident(tokens, at)?;
    let owner = (at >= 2 && is(tokens, at - 1, &Tok::PathSep))
        .then(|| ident(tokens, at - 2))
        .flatten();
    let method = at >= 1 && is(tokens, at - 1, &Tok::Punct('.'));
    let read = match (owner, name) {
        (Some("File"), "open") => true,
        (Some("fs"), "read" | "read_to_string") => true,
        (Some("bounded_read"), _) => false,
        (_, "read_to_end" | "read_to_string") => true,
        // `OpenOptions::new().read(true)`: a reader of its own.
        (None, "read") => method && is(tokens, at + 1, &Tok::Punct('(')) && ident(tokens, at + 2) == Some("true"),
        _ => false,
    };
    read.then(|| match owner {
        Some(owner) => format!("{owner}::{name}"),
        None => format!(".{name}"),
    })
}

// ---------------------------------------------------------------------------
// The analysis on trees held in memory

fn tree(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(path, text)| SourceFile {
            path: path.to_string(),
            text: text.to_string(),
        })
        .collect()
}

#[test]
fn cycle_finder_reports_exactly_the_circle() {
    let files = tree(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("src/a.rs", "use crate::b::Thing;\n"),
        ("src/b/mod.rs", "mod inner;\npub fn f() {\n    super::a::g()\n}\n"),
        ("src/b/inner.rs", "pub struct Thing;\n"),
        ("src/c.rs", "use crate::{a, b::Thing};\n"),
    ]);
    let analysis = analyze(&files);
    let circles: Vec<&Vec<String>> = analysis.circles.iter().map(|circle| &circle.modules).collect();
    assert_eq!(circles, [&vec!["a".to_string(), "b".to_string()]]);
    let edges: Vec<String> = analysis.circles[0]
        .edges
        .iter()
        .map(|(from, to, site)| format!("{from}->{to} {site}"))
        .collect();
    assert_eq!(edges, ["a->b src/a.rs:1", "b->a src/b/mod.rs:3"]);
}

#[test]
fn scanner_sees_code_only() {
    let text = r####"
//! crate::b in a doc comment
/* crate::b /* nested */ crate::b */
use crate::{
    a::X,
    self,
};
fn f() {
    let brace = '{';
    let lifetime: &'static str = "crate::b \" crate::b";
    let raw = r##"crate::b "# crate::b"##;
    let bytes = b"crate::b";
    let x = super::super::c::y();
    let not_root = super::sibling::z();
}
mod inline {
    fn g() { super::super::super::a::h() }
}
#[cfg(test)]
mod tests {
    use crate::b;
    fn t() { let _ = '}'; }
}
#[cfg(test)]
pub(crate) fn helper() -> [u8; 2] { crate::b::f() }
pub(crate) fn after() { crate::probe::g() }
"####;
    let scan = scan(&lex(text), &["d".to_string(), "e".to_string()]);
    let mentions: Vec<(&str, usize)> = scan.mentions.iter().map(|m| (m.name.as_str(), m.line)).collect();
    assert_eq!(mentions, [("a", 5), ("c", 13), ("a", 17), ("probe", 26)]);
    assert_eq!(scan.modules, ["inline"]);
}

#[test]
fn ratchet_reports_new_stale_shrunk_and_grown() {
    let found: BTreeMap<String, String> = [("circle: a b", ""), ("probe-import: src/x.rs", "")]
        .map(|(k, d)| (k.to_string(), d.to_string()))
        .into();
    let baseline = parse_baseline("# comment\ncircle: a b c\nprobe-import: src/y.rs\n");
    let problems = compare(&found, &baseline);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].starts_with("what is left of the baseline's `circle: a b c`"));
    assert!(problems[1].starts_with("new violation, not in the baseline: probe-import: src/x.rs"));
    assert!(problems[2].starts_with("no longer occurs: circle: a b c"));
    let grown = parse_baseline("circle: a b\nprobe-import: src/x.rs\n");
    let bigger: BTreeMap<String, String> = [("circle: a b c".to_string(), String::new())].into();
    let problems = compare(&bigger, &grown);
    assert!(
        problems[0].starts_with("new violation, not in the baseline: circle: a b c"),
        "{problems:#?}"
    );
    assert!(problems[1].starts_with("grown into the new `circle: a b c` above: circle: a b"));
    assert!(problems[2].starts_with("no longer occurs: probe-import: src/x.rs"));
    assert!(compare(&found, &found.keys().cloned().collect()).is_empty());
}

#[test]
fn layers_find_an_upward_use_an_unplaced_module_and_a_stranger() {
    let files = tree(&[
        ("src/lib.rs", "pub mod top;\npub mod low;\npub mod loose;\n"),
        ("src/top.rs", "use crate::low::X;\n"),
        ("src/low.rs", "fn f() { crate::top::g(); }\n"),
        ("src/loose.rs", ""),
    ]);
    let analysis = analyze(&files);
    let readme = "## Layout\n\n```\nsrc/top.rs   the top\n             more words/\nsrc/low/ ghost.rs  below\n```\n";
    let layers = readme_layers(readme);
    assert_eq!(
        layers,
        [vec!["top".to_string()], vec!["low".to_string(), "ghost".to_string()]]
    );
    let problems = layer_problems(&layers, &analysis);
    assert_eq!(
        problems,
        [
            "the README names `ghost`, which src/lib.rs does not declare",
            "`loose` is on no line of the README's layers",
            "low uses top, a line above its own (src/low.rs:1)",
        ]
    );
}

#[test]
fn the_read_rule_sees_every_spelling_and_only_code_that_is_built() {
    let files = tree(&[
        (
            "src/bounded_read.rs",
            "fn read() { std::fs::File::open(p); file.read_to_end(&mut v); }",
        ),
        (
            "src/probe/a.rs",
            "use std::fs::File;\nfn f() {\n    let f = File::open(p)?;\n    std::fs::read_to_string(p);\n    \
             fs::read(p);\n    x.read_to_end(&mut v);\n    OpenOptions::new().read(true).open(p);\n}",
        ),
        (
            "src/probe/b.rs",
            "// File::open(p) in a comment\nfn f() { let s = \"fs::read(p)\"; fs::read_dir(p); fs::read_link(p); \
             crate::bounded_read::read_to_string(p, L); }\n#[cfg(test)]\nmod tests { fn t() { fs::read(p); } }",
        ),
        ("src/node_name.rs", "fn f() {}"),
    ]);
    assert_eq!(
        read_problems(&files),
        [
            "src/probe/a.rs:3: File::open",
            "src/probe/a.rs:4: fs::read_to_string",
            "src/probe/a.rs:5: fs::read",
            "src/probe/a.rs:6: .read_to_end",
            "src/probe/a.rs:7: .read",
            "src/node_name.rs: allowed to read (/proc/sys/kernel/hostname) but reads nothing any more: remove it from READS_ALLOWED",
        ]
    );
}
