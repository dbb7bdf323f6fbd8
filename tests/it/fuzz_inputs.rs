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
//! answer slowly, a byte at a time, or never finish; and, for what envdoctor
//! writes, Snapshots and locks whose string fields hold names up to 70,000
//! characters, terminal escapes and bidirectional controls, run through the
//! binary's text and requirements outputs and read back by pip.
//!
//! CI runs each target for `PROPTEST_CASES` cases (proptest's default, 256;
//! `.ci/run` sets fewer for the slow ones through the config below). A longer
//! local run: `PROPTEST_CASES=20000 cargo test --release --test it fuzz_inputs`.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::common::envdoctor;
use super::parsed_outputs::{assert_pip_reads_only_what_envdoctor_wrote, mutate, patterns};

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

/// Dropped, ends the accept loop of [`serve_slowly`] (the flag, then one
/// connection to wake it): a case leaves no thread waiting and no port open
/// (one each would be 20,000 threads in a long run, past the limit on files).
struct StopServing {
    address: std::net::SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Drop for StopServing {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(self.address);
    }
}

/// Serves `reply` to every connection until what it returns is dropped.
fn serve_slowly(listener: std::net::TcpListener, reply: SlowReply) -> StopServing {
    use std::io::{Read, Write};
    let serving = StopServing {
        address: listener.local_addr().unwrap(),
        stop: Default::default(),
    };
    let stop = serving.stop.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stop.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
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
    serving
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

/// An index that answers slowly, in pieces (each pause shorter than the
/// timeout, all of them longer): the lookup ends within its timeout (plus
/// scheduling slack), Found or Missing.
///
/// Each case spends its timeout on the wall clock with a real server (0.3 s;
/// the assertion allows 1.5 s on a loaded machine): at most 300 of them,
/// whatever `PROPTEST_CASES` asks, about a minute and a half. Not a
/// `proptest!`: it sets `PROPTEST_CASES` over its config's count, and so ran
/// 20,000 cases (an hour and a half) under a cap of 300 that it ignored.
/// Shrinking is bounded too: proptest's default is 4 tries per case with no
/// time limit, each try another case of real seconds (a forced failure shrank
/// for 220 s on an idle machine); 32 tries or a minute say enough.
#[test]
fn slow_index_servers() {
    use envdoctor::export::index::{Index, Options, ResolvedIndexes, Wanted, look_up};
    let config = ProptestConfig {
        cases: cases(16).min(300),
        max_shrink_iters: 32,
        max_shrink_time: 60_000,
        ..ProptestConfig::default()
    };
    run_cases(config, slow_reply(), |reply| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let index = format!("http://127.0.0.1:{}/simple", listener.local_addr().unwrap().port());
        let _serving = serve_slowly(listener, reply);
        let cache = tempfile::tempdir().unwrap();
        let timeout = std::time::Duration::from_millis(300);
        let started = std::time::Instant::now();
        let lookups = look_up(
            &[Wanted {
                name: "demo-pkg".into(),
                version: "1.0".into(),
                wheel_tags: vec![],
                extra_indexes: vec![],
            }],
            &ResolvedIndexes {
                primary: Index {
                    url: index,
                    from: "fuzz".into(),
                },
                extras: vec![],
            },
            &Options {
                offline: false,
                cache_dir: Some(cache.path().to_path_buf()),
                timeout,
                progress: false,
            },
        );
        prop_assert_eq!(lookups.len(), 1);
        prop_assert!(
            started.elapsed() < timeout + std::time::Duration::from_millis(1200),
            "{:?}",
            started.elapsed()
        );
        Ok(())
    });
}

/// Runs `test` on `config.cases` inputs from `strategy`, as `proptest!`
/// would, but with the count in `config` kept (`proptest!` sets
/// `PROPTEST_CASES` over it): for targets whose cases cost real time.
fn run_cases<S: Strategy>(config: ProptestConfig, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    if let Err(error) = proptest::test_runner::TestRunner::new(config).run(&strategy, test) {
        panic!("{error}");
    }
}

/// A string a stranger can put in any field of a Snapshot or a lock (issue 32
/// E1, E3, E8): runs past the 65,535 columns a format width takes, terminal
/// escapes (ESC, an OSC ended by BEL, CSI), NUL, the bidirectional override
/// U+202E, the line breaks pip and Python end a line at, and a pip option;
/// 70,000 characters at most.
fn hostile_text() -> impl Strategy<Value = String> {
    let control = prop::sample::select(vec![
        "\u{1b}",
        "\u{1b}]0;title\u{7}",
        "\u{1b}[2J",
        "\u{7}",
        "\u{0}",
        "\u{202e}",
        "\u{2028}",
        "\u{2029}",
        "\n",
        "\r\n",
        "\u{85}",
        "\u{9b}",
        "\u{7f}",
        "\t",
    ]);
    let run = (
        prop::sample::select(vec!['a', '1', '-', 'é', '\u{202e}', '\n']),
        prop_oneof![0usize..300, 65_000usize..70_001],
    )
        .prop_map(|(character, count)| std::iter::repeat_n(character, count).collect::<String>());
    let piece = prop_oneof![
        4 => "[A-Za-z0-9._+-]{0,12}",
        3 => control.prop_map(str::to_string),
        1 => Just("--extra-index-url http://evil.example/simple".to_string()),
        2 => run,
    ];
    prop::collection::vec(piece, 1..6).prop_map(|pieces| pieces.concat().chars().take(70_000).collect())
}

/// One to three fields of `document` (patterns such as `packages[*].name`,
/// each setting every leaf it matches), each with a hostile text.
fn hostile_fields(document: &serde_json::Value) -> impl Strategy<Value = Vec<(String, String)>> + use<> {
    let mut fields = std::collections::BTreeSet::new();
    patterns(document, "", &mut fields);
    prop::collection::vec(
        (
            prop::sample::select(fields.into_iter().collect::<Vec<_>>()),
            hostile_text(),
        ),
        1..4,
    )
}

/// A document from the fixture `bytes`, its package list cut to 12 (each
/// case runs the binary on it; 12 packages hold every kind of field).
fn with_few_packages(bytes: &[u8]) -> serde_json::Value {
    let mut document: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    document["packages"].as_array_mut().unwrap().truncate(12);
    document
}

/// `output` of `what` is an exit 0, 1 or 2 (a panic is 101), a refusal says
/// why in one line, and neither stream carries a raw control, line separator
/// or bidirectional character (a newline between lines is fine). The exit code.
fn exited_cleanly(output: &std::process::Output, what: &str) -> Result<i32, TestCaseError> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let shown: String = stderr.chars().take(400).collect();
    prop_assert!(
        matches!(output.status.code(), Some(0..=2)),
        "{}: {:?} {}",
        what,
        output.status,
        shown
    );
    for (stream, text) in [
        ("stdout", String::from_utf8_lossy(&output.stdout)),
        ("stderr", stderr.clone()),
    ] {
        assert_no_raw_controls(&text, &format!("{what}, its {stream}"))?;
    }
    if output.status.code() == Some(2) {
        prop_assert_eq!(stderr.trim_end().lines().count(), 1, "{}: {}", what, shown);
    }
    Ok(output.status.code().unwrap_or_default())
}

fn assert_no_raw_controls(text: &str, what: &str) -> Result<(), TestCaseError> {
    if let Some(at) = text.find(|c: char| c != '\n' && envdoctor::escape::needs_escape(c)) {
        let around: String = text[at.saturating_sub(80)..].chars().take(160).collect();
        prop_assert!(false, "{}: a raw control at byte {}: {:?}", what, at, around);
    }
    Ok(())
}

/// `export --format requirements|constraints` of `input` (`--snapshot` or
/// `--lock`) to files in `folder` named from `stem`: each exits cleanly, and
/// what is written holds no raw control. The files written, for pip to read.
fn export_both(folder: &Path, input_flag: &str, input: &Path, stem: &str) -> Result<Vec<String>, TestCaseError> {
    let mut written = Vec::new();
    for format in ["requirements", "constraints"] {
        let file = folder.join(format!("{stem}-{format}.txt"));
        let output = envdoctor(folder)
            .args(["export", "--format", format, input_flag])
            .arg(input)
            .arg("-o")
            .arg(&file)
            .output()
            .unwrap();
        if exited_cleanly(&output, &format!("export --format {format} {input_flag}"))? == 0 {
            assert_no_raw_controls(&std::fs::read_to_string(&file).unwrap(), &format!("the {format} file"))?;
            written.push(file.display().to_string());
        }
    }
    Ok(written)
}

/// Runs `test` on `document` with one to three of its fields made hostile,
/// in a folder of its own, numbered, as `proptest!` would but in a test of
/// its own so that the exports every case wrote (what `test` returns) are read
/// by pip once, after them. A case here runs the binary two to four times
/// (tens of milliseconds): `PROPTEST_CASES` is capped at 2,000 so that a
/// 20,000-case run of the suite stays within minutes, and shrinking a failure
/// at two minutes.
fn with_hostile_fields(
    document: &serde_json::Value,
    test: impl Fn(serde_json::Value, &Path, usize) -> Result<Vec<String>, TestCaseError>,
) {
    let config = ProptestConfig {
        cases: cases(32).min(2000),
        max_shrink_time: 120_000,
        ..ProptestConfig::default()
    };
    let work = tempfile::tempdir().unwrap();
    let exports = std::cell::RefCell::new(Vec::new());
    let case = std::cell::Cell::new(0);
    run_cases(config, hostile_fields(document), |fields| {
        let mut mutated = document.clone();
        for (field, text) in &fields {
            mutate(&mut mutated, "", field, text);
        }
        case.set(case.get() + 1);
        let written = test(mutated, work.path(), case.get())?;
        exports.borrow_mut().extend(written);
        Ok(())
    });
    assert_pip_reads_only_what_envdoctor_wrote(&exports.into_inner());
}

/// Long names and control characters in the string fields of a Snapshot
/// (issue 32 E3, E8, E1 grown): `probe` and `check` (text) and `export
/// --format requirements|constraints` exit 0, 1 or 2, with no raw control in
/// what they print or write, and pip's own parser reads each export with no
/// option or requirement envdoctor did not write.
#[test]
fn long_and_control_strings_in_snapshots() {
    with_hostile_fields(&with_few_packages(SNAPSHOT), |snapshot, work, case| {
        let input = work.join(format!("s{case}.json"));
        std::fs::write(&input, serde_json::to_vec(&snapshot).unwrap()).unwrap();
        for arguments in [
            &["probe", "--snapshot"][..],
            &["check", "--no-smoke", "--fail-on", "never", "--snapshot"],
        ] {
            let output = envdoctor(work).args(arguments).arg(&input).output().unwrap();
            exited_cleanly(&output, &arguments.join(" "))?;
        }
        let written = export_both(work, "--snapshot", &input, &format!("s{case}"))?;
        std::fs::remove_file(&input).unwrap();
        Ok(written)
    });
}

/// The same of a lock's string fields, through `export --format
/// requirements|constraints --lock` (the lock re-fingerprinted, as a stranger
/// who edits one would).
#[test]
fn long_and_control_strings_in_locks() {
    let lock = envdoctor::lock::file::parse(LOCK, Path::new("envdoctor.lock")).unwrap();
    with_hostile_fields(
        &with_few_packages(&serde_json::to_vec(&lock).unwrap()),
        |lock, work, case| {
            // A field whose value is a name from a list (a source's kind) takes no other.
            let Ok(lock) = serde_json::from_value::<envdoctor::lock::model::Lock>(lock) else {
                return Ok(Vec::new());
            };
            let input = work.join(format!("l{case}.lock"));
            std::fs::write(&input, envdoctor::lock::file::render(&lock.identity())).unwrap();
            let written = export_both(work, "--lock", &input, &format!("l{case}"))?;
            std::fs::remove_file(&input).unwrap();
            Ok(written)
        },
    );
}
