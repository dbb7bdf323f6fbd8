//! Property-based fuzzing of every kind of input envdoctor reads from a
//! stranger: Snapshots, locks, DeepSpeed/accelerate configs, RECORD files,
//! core METADATA, PEP 610 and `requires.txt` metadata, training logs, fleet
//! report streams, package index pages (PEP 691 JSON and PEP 503 HTML) and a
//! site's matrix rule files. Each target takes a real file from the fixtures, damages it at
//! random (bytes flipped, cut, repeated, inserted) or takes arbitrary bytes,
//! and asserts the reader returns, Ok or an error, without panicking; where it
//! errs, the error is one line.
//!
//! Beside the bytes, the kinds of file a stranger can leave where envdoctor
//! reads (issue 32): a site-packages whose metadata files are FIFOs, links to
//! `/dev/zero`, directories or one endless line, and index servers that
//! answer slowly, a byte at a time, or never finish.
//!
//! CI runs each target for `PROPTEST_CASES` cases (proptest's default, 256;
//! `.ci/run` sets fewer for the slow ones through the config below). A longer
//! local run: `PROPTEST_CASES=20000 cargo test --release --test it fuzz_inputs`.

use std::path::Path;

use proptest::prelude::*;

const SNAPSHOT: &[u8] = include_bytes!("../fixtures/snapshots/h100-torch2.11-cu130-recorded.json");
const LOCK: &[u8] = include_bytes!("../fixtures/locks/h100-torch2.11-cu130-recorded.lock");
const DEEPSPEED: &[u8] = include_bytes!("../fixtures/configs/ds-zero3-offload-cpu.json");
const ACCELERATE: &[u8] = include_bytes!("../fixtures/configs/accelerate-multi-gpu-bf16.yaml");
const LOG: &[u8] = include_bytes!("../fixtures/smoke/recorded/train-zero3-offload-deepspeed-0.14.2.log");
const RULE: &[u8] = include_bytes!("../../compat-matrix/rules/deepspeed-zero3-offload-device-mismatch.toml");

/// A core METADATA file as wheels install it (Metadata-Version 2.1 headers,
/// then the description as the body).
const METADATA: &[u8] = b"Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0+cu130\n\
Summary: Tensors and Dynamic neural networks in Python\nRequires-Python: >=3.10\n\
Requires-Dist: filelock\nRequires-Dist: typing-extensions>=4.10.0\n\
Requires-Dist: nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\"\n\
Provides-Extra: optree\nRequires-Dist: optree>=0.13.0; extra == \"optree\"\n\nPyTorch is a package.\n";

/// A PEP 691 page and a PEP 503 page for one project, with the fields an
/// index gives: hashes, requires-python, yanked, sizes.
const JSON_PAGE: &[u8] = br#"{"meta": {"api-version": "1.1"}, "name": "demo-pkg", "versions": ["1.0"],
"files": [{"filename": "demo_pkg-1.0-py3-none-any.whl", "url": "../../files/demo_pkg-1.0-py3-none-any.whl",
"hashes": {"sha256": "0f343b0931126a20f133d67c2b018a3b1d1f2b6c3e8e1c7b0b5f2f0a6c3d4e5f"},
"requires-python": ">=3.8", "yanked": false, "size": 1234, "upload-time": "2026-01-01T00:00:00Z"},
{"filename": "demo_pkg-1.0.tar.gz", "url": "https://files.example/demo_pkg-1.0.tar.gz", "hashes": {},
"yanked": "broken"}]}"#;
const HTML_PAGE: &[u8] = br#"<!DOCTYPE html><html><body><h1>Links for demo-pkg</h1>
<a href="../../files/demo_pkg-1.0-py3-none-any.whl#sha256=0f343b0931126a20f133d67c2b018a3b1d1f2b6c3e8e1c7b0b5f2f0a6c3d4e5f" data-requires-python="&gt;=3.8">demo_pkg-1.0-py3-none-any.whl</a><br/>
<a href="https://files.example/demo_pkg-1.0.tar.gz" data-yanked="broken &amp; gone">demo_pkg-1.0.tar.gz</a>
</body></html>"#;

/// One damage to a byte string.
#[derive(Debug, Clone)]
enum Edit {
    Flip { at: usize, byte: u8 },
    Cut { at: usize, length: usize },
    Repeat { at: usize, length: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Truncate { at: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    // Bytes that matter to the formats: quotes, brackets, newlines, NUL, UTF-8 lead bytes.
    let special = prop::sample::select(vec![
        b'"', b'{', b'}', b'[', b']', b'\n', b'\\', b'=', b':', b',', 0u8, 0xc3, 0xff, b'#', b'\'',
    ]);
    prop_oneof![
        (any::<usize>(), prop_oneof![any::<u8>(), special]).prop_map(|(at, byte)| Edit::Flip { at, byte }),
        (any::<usize>(), 0usize..64).prop_map(|(at, length)| Edit::Cut { at, length }),
        (any::<usize>(), 0usize..64).prop_map(|(at, length)| Edit::Repeat { at, length }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 0..16)).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        any::<usize>().prop_map(|at| Edit::Truncate { at }),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Edit::Flip { at, byte } => {
                if !bytes.is_empty() {
                    bytes[at % len] = *byte;
                }
            }
            Edit::Cut { at, length } => {
                let start = (at % len).min(bytes.len());
                let end = (start + length).min(bytes.len());
                bytes.drain(start..end);
            }
            Edit::Repeat { at, length } => {
                let start = (at % len).min(bytes.len());
                let end = (start + length).min(bytes.len());
                let copy = bytes[start..end].to_vec();
                bytes.splice(end..end, copy);
            }
            Edit::Insert { at, bytes: inserted } => {
                let at = (at % len).min(bytes.len());
                bytes.splice(at..at, inserted.iter().copied());
            }
            Edit::Truncate { at } => bytes.truncate(at % len),
        }
    }
    bytes
}

/// A real file damaged one to eight times, or, now and then, arbitrary bytes.
fn damaged(seed: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        9 => prop::collection::vec(edit(), 1..8).prop_map(move |edits| apply(seed.to_vec(), &edits)),
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
}

fn one_line(error: impl std::fmt::Display) {
    let text = envdoctor::escape::one_line(&error.to_string());
    assert!(!text.contains('\n'));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), ..ProptestConfig::default() })]

    #[test]
    fn snapshots(bytes in damaged(SNAPSHOT)) {
        if let Err(error) = envdoctor::snapshot::parse(&bytes, Path::new("node.json")) {
            one_line(error);
        }
    }

    #[test]
    fn locks(bytes in damaged(LOCK)) {
        if let Err(error) = envdoctor::lock::file::parse(&bytes, Path::new("envdoctor.lock")) {
            one_line(error);
        }
    }

    #[test]
    fn logs(bytes in damaged(LOG)) {
        let snapshot = envdoctor::snapshot::parse(SNAPSHOT, Path::new("node.json")).unwrap();
        let configs = envdoctor::configs::TrainingConfigs::default();
        let facts = envdoctor::facts::Facts::new(&snapshot, &configs);
        let matrix = envdoctor::matrix::Matrix::load(&[]).unwrap();
        let _ = envdoctor::explain::explain(bytes.as_slice(), "log", &matrix, &facts, envdoctor::explain::FactsFrom::TheLogsNode);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn deepspeed_and_accelerate_configs(json in damaged(DEEPSPEED), yaml in damaged(ACCELERATE)) {
        let directory = tempfile::tempdir().unwrap();
        let (json_path, yaml_path) = (directory.path().join("ds.json"), directory.path().join("acc.yaml"));
        std::fs::write(&json_path, &json).unwrap();
        std::fs::write(&yaml_path, &yaml).unwrap();
        if let Err(error) = envdoctor::configs::read_deepspeed(&json_path) {
            one_line(error);
        }
        if let Err(error) = envdoctor::configs::read_accelerate(&yaml_path) {
            one_line(error);
        }
    }

    #[test]
    fn records(text in "(\\PC{0,40}(,\\PC{0,20}){0,3}\n){0,8}") {
        let _ = envdoctor::packaging::record::parse_record(&text, Path::new("RECORD"));
    }

    #[test]
    fn package_metadata(text in "\\PC{0,200}") {
        let _ = envdoctor::packaging::metadata::parse_direct_url(&text);
        let _ = envdoctor::packaging::metadata::requires_txt_to_requires_dist(&text);
        let _ = envdoctor::packaging::metadata::wheel_tags(&text);
        let _ = envdoctor::packaging::metadata::file_url_to_path(&text);
    }

    #[test]
    fn core_metadata(bytes in damaged(METADATA)) {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("METADATA");
        std::fs::write(&path, &bytes).unwrap();
        if let Err(error) = envdoctor::packaging::metadata::read_core_metadata(&path) {
            one_line(error);
        }
    }

    #[test]
    fn index_pages(json in damaged(JSON_PAGE), html in damaged(HTML_PAGE)) {
        use envdoctor::export::index::simple::{Format, parse};
        let page = reqwest::Url::parse("https://index.example/simple/demo-pkg/").unwrap();
        for (format, bytes) in [(Format::Json, json), (Format::Html, html)] {
            if let Err(error) = parse(format, &String::from_utf8_lossy(&bytes), &page) {
                one_line(error);
            }
        }
    }

    #[test]
    fn site_matrix_rules(bytes in damaged(RULE)) {
        let directory = tempfile::tempdir().unwrap();
        let rules = directory.path().join("rules");
        std::fs::create_dir(&rules).unwrap();
        std::fs::write(rules.join("deepspeed-zero3-offload-device-mismatch.toml"), &bytes).unwrap();
        match envdoctor::matrix::lint_dir(directory.path()) {
            Ok(linted) => linted.errors.iter().for_each(one_line),
            Err(error) => one_line(error),
        }
    }

    #[test]
    fn fleet_report_streams(bytes in damaged(SNAPSHOT)) {
        let mut seen = 0;
        let _ = envdoctor::fleet::input::read_stream(bytes.as_slice(), "stdin", "node", &mut |_| seen += 1);
    }
}

/// `PROPTEST_CASES` when set (a longer local run), else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// What one metadata file of a fuzzed site-packages is.
#[derive(Debug, Clone)]
enum SpecialFile {
    Damaged(Vec<u8>),
    Fifo,
    DevZero,
    Directory,
    /// One line of this many bytes, no newline.
    LongLine(usize),
    /// A link to a path that does not exist.
    Dangling,
}

fn special_file() -> impl Strategy<Value = SpecialFile> {
    prop_oneof![
        3 => damaged(METADATA).prop_map(SpecialFile::Damaged),
        1 => Just(SpecialFile::Fifo),
        1 => Just(SpecialFile::DevZero),
        1 => Just(SpecialFile::Directory),
        1 => (0usize..(3 << 20)).prop_map(SpecialFile::LongLine),
        1 => Just(SpecialFile::Dangling),
    ]
}

fn plant(path: &Path, kind: &SpecialFile) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match kind {
        SpecialFile::Damaged(bytes) => std::fs::write(path, bytes).unwrap(),
        SpecialFile::Fifo => {
            let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        }
        SpecialFile::DevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        SpecialFile::Directory => std::fs::create_dir(path).unwrap(),
        SpecialFile::LongLine(length) => {
            let mut bytes = b"Metadata-Version: 2.1\nName: long\nVersion: 1.0\nSummary: ".to_vec();
            bytes.resize(bytes.len() + length, b'x');
            std::fs::write(path, bytes).unwrap();
        }
        SpecialFile::Dangling => std::os::unix::fs::symlink("/nonexistent/envdoctor-fuzz", path).unwrap(),
    }
}

/// How a fuzzed index server answers: its body in chunks with a pause
/// before each, with or without a `Content-Length`.
#[derive(Debug, Clone)]
struct SlowReply {
    pause_before_headers_ms: u64,
    chunks: Vec<(u64, Vec<u8>)>,
    announce_length: bool,
}

fn slow_reply() -> impl Strategy<Value = SlowReply> {
    (
        0u64..150,
        prop::collection::vec((0u64..400, damaged(HTML_PAGE)), 0..12),
        any::<bool>(),
    )
        .prop_map(|(pause_before_headers_ms, chunks, announce_length)| SlowReply {
            pause_before_headers_ms,
            chunks,
            announce_length,
        })
}

/// Serves `reply` to every connection until the listener is dropped.
fn serve_slowly(listener: std::net::TcpListener, reply: SlowReply) {
    use std::io::{Read, Write};
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let reply = reply.clone();
            std::thread::spawn(move || {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                std::thread::sleep(std::time::Duration::from_millis(reply.pause_before_headers_ms));
                let length: usize = reply.chunks.iter().map(|(_, bytes)| bytes.len()).sum();
                let announced = if reply.announce_length {
                    format!("Content-Length: {length}\r\n")
                } else {
                    String::new()
                };
                let head =
                    format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{announced}Connection: close\r\n\r\n");
                if stream.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for (pause, bytes) in &reply.chunks {
                    std::thread::sleep(std::time::Duration::from_millis(*pause));
                    if stream.write_all(bytes).is_err() {
                        return;
                    }
                }
            });
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), ..ProptestConfig::default() })]

    /// A site-packages of special files: every scan returns (no FIFO waited
    /// on, no endless read), and every problem is one line.
    #[test]
    fn site_packages_with_special_files(kinds in prop::collection::vec(special_file(), 1..5), egg_file in special_file()) {
        let directory = tempfile::tempdir().unwrap();
        let site = directory.path().join("site");
        for (at, kind) in kinds.iter().enumerate() {
            plant(&site.join(format!("pkg{at}-1.0.dist-info/METADATA")), kind);
        }
        plant(&site.join("egg_file-1.0.egg-info"), &egg_file);
        let inventory = envdoctor::probe::packages::scan(&[site]);
        for package in &inventory.packages {
            package.problems.iter().for_each(one_line);
        }
        for problem in &inventory.problems {
            one_line(&problem.problem);
        }
    }
}

proptest! {
    // Each case spends up to its timeout on the wall clock (a second or so):
    // at most 300 of them, whatever PROPTEST_CASES asks.
    #![proptest_config(ProptestConfig { cases: cases(16).min(300), ..ProptestConfig::default() })]

    /// An index that answers slowly, in pieces (each pause shorter than the
    /// timeout, all of them longer): the lookup ends within its timeout (plus
    /// scheduling slack), Found or Missing.
    #[test]
    fn slow_index_servers(reply in slow_reply()) {
        use envdoctor::export::index::{Index, Options, ResolvedIndexes, Wanted, look_up};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let index = format!("http://127.0.0.1:{}/simple", listener.local_addr().unwrap().port());
        serve_slowly(listener, reply);
        let cache = tempfile::tempdir().unwrap();
        let timeout = std::time::Duration::from_millis(300);
        let started = std::time::Instant::now();
        let lookups = look_up(
            &[Wanted { name: "demo-pkg".into(), version: "1.0".into(), wheel_tags: vec![], extra_indexes: vec![] }],
            &ResolvedIndexes { primary: Index { url: index, from: "fuzz".into() }, extras: vec![] },
            &Options { offline: false, cache_dir: Some(cache.path().to_path_buf()), timeout, progress: false },
        );
        prop_assert_eq!(lookups.len(), 1);
        prop_assert!(started.elapsed() < timeout + std::time::Duration::from_millis(1200), "{:?}", started.elapsed());
    }
}
