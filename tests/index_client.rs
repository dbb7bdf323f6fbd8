//! The package-index client against a real HTTP server on loopback
//! (tests/fixtures/index/serve.py) serving real wheels built by pip.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use envdoctor::export::index::{Artifact, ArtifactKind, Index, Lookup, Options, ResolvedIndexes, Wanted, look_up};
use sha2::{Digest, Sha256};

use common::index_server::Server;

const PURE_WHEEL: &str = "demo_pkg-1.0-py3-none-any.whl";
/// The same wheel under another tag: a second file of the same version, so
/// that picking the installed one means comparing tags.
const LINUX_WHEEL: &str = "demo_pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
const SDIST: &str = "demo_pkg-1.0.tar.gz";
const NEWER_WHEEL: &str = "demo_pkg-2.0-py3-none-any.whl";
const LOCAL_WHEEL: &str = "torchish-2.3.1+cu121-py3-none-any.whl";

/// `ROOT/files` with real wheels, built once per run of this test binary
/// (into the target directory, replacing the last run's). The primary index
/// serves demo-pkg; the second one serves torchish alone.
fn roots() -> (&'static Path, &'static Path) {
    static ROOTS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    let (primary, second) = ROOTS.get_or_init(|| {
        let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("index_client");
        let _ = std::fs::remove_dir_all(&directory);
        let primary = directory.join("primary");
        let second = directory.join("second");
        build_wheel(&directory, "demo-pkg", "1.0", &primary.join("files"));
        build_wheel(&directory, "demo-pkg", "2.0", &primary.join("files"));
        build_wheel(&directory, "torchish", "2.3.1+cu121", &second.join("files"));
        std::fs::copy(
            primary.join("files").join(PURE_WHEEL),
            primary.join("files").join(LINUX_WHEEL),
        )
        .unwrap();
        common::run(
            Command::new("tar")
                .arg("-czf")
                .arg(primary.join("files").join(SDIST))
                .arg("-C")
                .arg(directory.join("demo-pkg-1.0"))
                .arg("."),
        );
        (primary, second)
    });
    (primary, second)
}

fn build_wheel(scratch: &Path, name: &str, version: &str, into: &Path) {
    let project = common::write_project(&scratch.join(format!("{name}-{version}")), name, version);
    common::run(
        Command::new(common::system_python())
            .args(["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir"])
            .arg(into)
            .arg(project),
    );
}

fn indexes(primary: &str, extras: &[&str]) -> ResolvedIndexes {
    let index = |url: &str| Index {
        url: url.to_string(),
        from: "from the test".to_string(),
    };
    ResolvedIndexes {
        primary: index(primary),
        extras: extras.iter().map(|url| index(url)).collect(),
    }
}

fn options(cache: &Path) -> Options {
    Options {
        offline: false,
        cache_dir: Some(cache.to_path_buf()),
        timeout: Duration::from_secs(10),
        progress: false,
    }
}

fn wanted(name: &str, version: &str, tags: &[&str]) -> Wanted {
    Wanted {
        name: name.to_string(),
        version: version.to_string(),
        wheel_tags: tags.iter().map(|tag| tag.to_string()).collect(),
        extra_indexes: Vec::new(),
    }
}

const LINUX_TAGS: [&str; 2] = ["cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-manylinux2014_x86_64"];

fn sha256_of(path: &Path) -> String {
    Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn found(lookup: &Lookup) -> (&str, Option<&Artifact>, &[Artifact]) {
    match lookup {
        Lookup::Found {
            index,
            installed_wheel,
            files,
        } => (index, installed_wheel.as_ref(), files),
        Lookup::Missing { reason } => panic!("missing: {reason}"),
    }
}

fn missing(lookup: &Lookup) -> &str {
    match lookup {
        Lookup::Missing { reason } => reason,
        Lookup::Found { .. } => panic!("found: {lookup:?}"),
    }
}

fn names(files: &[Artifact]) -> Vec<&str> {
    files.iter().map(|file| file.filename.as_str()).collect()
}

/// Every file of demo-pkg 1.0, with the hash pip would check, the right URL,
/// and the wheel that was installed picked by its tags.
fn assert_demo_release(server: &Server, mode: &str) {
    let (root, _) = roots();
    let cache = tempfile::tempdir().unwrap();
    let lookups = look_up(
        &[
            wanted("Demo_Pkg", "1.0.0", &["py3-none-any"]),
            wanted("demo-pkg", "1.0", &LINUX_TAGS),
            wanted("demo.pkg", "2.0", &["py3-none-any"]),
        ],
        &indexes(&server.index(), &[]),
        &options(cache.path()),
    );
    let (index, installed, files) = found(&lookups[0]);
    assert_eq!(index, server.index());
    assert_eq!(
        installed.map(|wheel| wheel.filename.as_str()),
        Some(PURE_WHEEL),
        "{mode}"
    );
    let mut listed = names(files);
    listed.sort();
    assert_eq!(listed, [LINUX_WHEEL, PURE_WHEEL, SDIST], "{mode}");
    for file in files {
        let path = root.join("files").join(&file.filename);
        assert_eq!(
            file.sha256.as_deref(),
            Some(sha256_of(&path).as_str()),
            "{mode}: {}",
            file.filename
        );
        assert_eq!(
            file.url,
            format!("http://127.0.0.1:{}/files/{}", server.port, file.filename)
        );
        let kind = if file.filename.ends_with(".whl") {
            ArtifactKind::Wheel
        } else {
            ArtifactKind::Sdist
        };
        assert_eq!(file.kind, kind);
        if mode == "html" {
            assert_eq!(
                (file.size, file.upload_time.as_deref()),
                (None, None),
                "HTML pages carry neither"
            );
        } else {
            assert_eq!(file.size, Some(std::fs::metadata(&path).unwrap().len()), "{mode}");
            assert!(
                file.upload_time.as_deref().is_some_and(|time| time.ends_with('Z')),
                "{mode}"
            );
        }
    }
    assert_eq!(
        found(&lookups[1]).1.map(|wheel| wheel.filename.as_str()),
        Some(LINUX_WHEEL)
    );
    assert_eq!(names(found(&lookups[2]).2), [NEWER_WHEEL]);
}

#[test]
fn html_pages_with_relative_links() {
    let server = Server::start(roots().0, &["--mode", "html"]);
    assert_demo_release(&server, "html");
}

#[test]
fn json_pages() {
    let server = Server::start(roots().0, &["--mode", "json"]);
    assert_demo_release(&server, "json");
}

#[test]
fn a_negotiating_index_answers_the_accept_header_with_json() {
    let server = Server::start(roots().0, &["--mode", "negotiate"]);
    // Sizes only come with JSON: the client asked for it first.
    assert_demo_release(&server, "negotiate");
}

#[test]
fn a_project_the_index_lacks_is_missing_and_the_next_index_is_tried() {
    let (primary_root, second_root) = roots();
    let primary = Server::start(primary_root, &[]);
    let second = Server::start(second_root, &["--mode", "json"]);
    let cache = tempfile::tempdir().unwrap();
    let mut torch = wanted("torchish", "2.3.1+cu121", &["py3-none-any"]);
    torch.extra_indexes = vec![format!("{}/", second.index())];
    let lookups = look_up(
        &[wanted("nope", "1.0", &[]), torch, wanted("torchish", "2.3.1", &[])],
        &indexes(&primary.index(), &[]),
        &options(cache.path()),
    );
    assert_eq!(
        missing(&lookups[0]),
        format!(
            "the index has no project nope (http://127.0.0.1:{}/simple/nope/)",
            primary.port
        )
    );
    let (index, installed, _) = found(&lookups[1]);
    assert_eq!(
        index,
        format!("{}/", second.index()),
        "found on the package's own index"
    );
    assert_eq!(installed.unwrap().filename, LOCAL_WHEEL, "the `+` came back from `%2B`");
    assert!(
        missing(&lookups[2]).starts_with("the index has no project torchish"),
        "without its own index, and the local label matters: {}",
        missing(&lookups[2])
    );
}

#[test]
fn a_file_without_a_hash_says_so() {
    let server = Server::start(roots().0, &["--no-hash", PURE_WHEEL]);
    let cache = tempfile::tempdir().unwrap();
    let lookups = look_up(
        &[wanted("demo-pkg", "1.0", &["py3-none-any"])],
        &indexes(&server.index(), &[]),
        &options(cache.path()),
    );
    let (_, installed, files) = found(&lookups[0]);
    let installed = installed.unwrap();
    assert_eq!(installed.sha256, None);
    assert_eq!(
        installed.require_sha256().unwrap_err().to_string(),
        format!("{} gives no sha256 for {PURE_WHEEL}", server.index())
    );
    assert!(
        files
            .iter()
            .filter(|file| file.filename != PURE_WHEEL)
            .all(|file| file.sha256.is_some())
    );
}

#[test]
fn a_stalled_index_times_out() {
    let server = Server::start(roots().0, &["--stall-project", "demo-pkg", "--stall-seconds", "60"]);
    let cache = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let lookups = look_up(
        &[wanted("demo-pkg", "1.0", &[])],
        &indexes(&server.index(), &[]),
        &Options {
            timeout: Duration::from_secs(1),
            ..options(cache.path())
        },
    );
    assert_eq!(
        missing(&lookups[0]),
        format!(
            "timed out after 1 s (http://127.0.0.1:{}/simple/demo-pkg/)",
            server.port
        )
    );
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}

#[test]
fn an_untrusted_certificate_is_a_tls_failure_with_the_proxy_hint() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/index");
    let server = Server::start(
        roots().0,
        &[
            "--tls",
            &format!("{fixtures}/untrusted.pem"),
            &format!("{fixtures}/untrusted.key"),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let index = format!("https://127.0.0.1:{}/simple", server.port);
    let lookups = look_up(
        &[wanted("demo-pkg", "1.0", &[])],
        &indexes(&index, &[]),
        &options(cache.path()),
    );
    let reason = missing(&lookups[0]);
    assert!(
        reason.starts_with(&format!("TLS failure ({index}/demo-pkg/): ")),
        "{reason}"
    );
    assert!(
        reason.ends_with("needs its CA certificate in the system certificate store"),
        "{reason}"
    );
}

#[test]
fn offline_uses_what_an_online_run_cached() {
    let cache = tempfile::tempdir().unwrap();
    let server = Server::start(roots().0, &["--mode", "json"]);
    let index = server.index();
    let demo = [wanted("demo-pkg", "1.0", &LINUX_TAGS)];
    let offline = Options {
        offline: true,
        ..options(cache.path())
    };
    assert_eq!(
        missing(&look_up(&demo, &indexes(&index, &[]), &offline)[0]),
        "demo-pkg 1.0 is not in the index cache (run once without --offline)"
    );
    let online = look_up(&demo, &indexes(&index, &[]), &options(cache.path()));
    drop(server);
    assert_eq!(look_up(&demo, &indexes(&index, &[]), &offline), online);
    // Online with the index gone: the cached page has the installed wheel,
    // so no request is made.
    assert_eq!(look_up(&demo, &indexes(&index, &[]), &options(cache.path())), online);
    assert_eq!(found(&online[0]).1.unwrap().filename, LINUX_WHEEL);
}
