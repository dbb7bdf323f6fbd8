//! `requirements.txt` and constraints files, as pip reads them.
//!
//! Index packages are `name==version` pins (with `--hash=sha256:` lines when
//! asked), local versions such as `2.3.1+cu121` with the index that serves
//! them. Packages installed from a directory, a VCS or an archive are written
//! as `pip freeze` writes them; where pip cannot check them (hash-checking mode
//! refuses editable, directory and VCS requirements, and constraints take only
//! names and versions) they are listed in a comment instead, and `skipped`
//! names them so the command can say so.

use std::path::Path;

use super::index;
use super::plan::{Plan, gpu_side};
use crate::lock::model::{Package, Source};
use crate::packaging::metadata::file_url_to_path;
use crate::tool_text::{PipFile, PipIndexOption, Refused};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Requirements { hashes: bool },
    Constraints,
}

pub struct Written {
    pub text: String,
    /// Packages left in a comment because this kind of file cannot carry them.
    pub skipped: Vec<String>,
}

/// The file, every value in it written through [`PipFile`]: the header's
/// facts (a GPU's name, a glibc, a path) come from a Snapshot or a lock, which
/// are strangers' files, and each stays inside its comment.
pub fn render(plan: &Plan, kind: Kind, origin: &str) -> Result<Written, Refused> {
    let mut out = PipFile::new();
    out.pip_comment_line(&format!(
        "Pinned by envdoctor {} from {origin} (fingerprint {}).",
        env!("CARGO_PKG_VERSION"),
        plan.lock.fingerprint
    ));
    out.pip_comment_line("The GPU side these pins were taken on:");
    for line in gpu_side(plan.lock) {
        out.pip_comment_line(&format!("  {line}"));
    }
    let install = match kind {
        Kind::Requirements { hashes: true } => "python -m pip install --require-hashes --no-deps -r FILE",
        Kind::Requirements { hashes: false } => "python -m pip install --no-deps -r FILE",
        Kind::Constraints => "python -m pip install -c FILE <your requirements>",
    };
    out.pip_comment_line(&format!("Install: {install}"));
    let indexes = indexes(plan);
    match kind {
        Kind::Requirements { .. } => {
            for (option, url) in &indexes {
                out.pip_index_line(*option, url)?;
            }
        }
        // A constraints file constrains versions; where to find them is the command line's.
        Kind::Constraints if !indexes.is_empty() => {
            out.pip_comment_line(&format!(
                "Local versions below are found with: {}",
                indexes
                    .iter()
                    .map(|(option, url)| format!("{} {url}", option.flag()))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        Kind::Constraints => {}
    }
    out.pip_blank_line();

    for pin in &plan.pins {
        let mut hashes: Vec<&str> = Vec::new();
        if kind == (Kind::Requirements { hashes: true }) {
            hashes = pin.artifacts.iter().filter_map(|file| file.sha256.as_deref()).collect();
            hashes.sort_unstable();
            hashes.dedup();
        }
        let hashes: Vec<(&str, &str)> = hashes.into_iter().map(|hash| ("sha256", hash)).collect();
        out.pip_requirement_line(&format!("{}=={}", pin.package.name, pin.version), &hashes)?;
    }

    let mut skipped = Vec::new();
    let mut commented = Vec::new();
    for package in &plan.direct {
        let line = freeze_line(package);
        let checkable = match kind {
            Kind::Requirements { hashes: false } => true,
            Kind::Requirements { hashes: true } => archive_hash(package).is_some(),
            Kind::Constraints => false,
        };
        match (checkable, line) {
            (true, Some(line)) => {
                let (line, hashes) = hashed_archive(package, line, kind);
                out.pip_requirement_line(&line, &hashes)?;
            }
            (_, line) => {
                commented
                    .push(line.unwrap_or_else(|| format!("{} (from a source envdoctor cannot name)", package.name)));
                skipped.push(package.name.clone());
            }
        }
    }
    if !commented.is_empty() {
        let why = match kind {
            Kind::Constraints => "A constraints file takes only names and versions; these were installed from",
            _ => {
                "pip cannot check a hash of these (editable, directory and VCS installs); install them after \
                  this file, without --require-hashes. They came from"
            }
        };
        out.pip_blank_line();
        out.pip_comment_line(&format!("{why} a directory, a VCS or an archive:"));
        for line in commented {
            out.pip_comment_line(&format!("  {line}"));
        }
    }
    Ok(Written {
        text: out.finish(),
        skipped,
    })
}

fn indexes<'a>(plan: &'a Plan) -> Vec<(PipIndexOption, &'a str)> {
    plan.index_url
        .iter()
        .map(|url| (PipIndexOption::IndexUrl, url.as_str()))
        .chain(
            plan.extra_index_urls
                .iter()
                .map(|url| (PipIndexOption::ExtraIndexUrl, url.as_str())),
        )
        .collect()
}

/// An archive with a recorded hash keeps it checkable: `name @ url --hash=...`.
fn hashed_archive(package: &Package, line: String, kind: Kind) -> (String, Vec<(&str, &str)>) {
    match (archive_hash(package), kind) {
        (Some((algorithm, digest)), Kind::Requirements { hashes: true }) => {
            let bare = line.split_once('#').map_or(line.as_str(), |(bare, _)| bare).to_string();
            (bare, vec![(algorithm, digest)])
        }
        _ => (line, Vec::new()),
    }
}

/// An archive's recorded `algorithm=digest`, where it is one pip can check: a
/// lock is a stranger's file, and its hash lands in a `--hash=` line.
fn archive_hash(package: &Package) -> Option<(&str, &str)> {
    let Source::Archive { hash: Some(hash), .. } = &package.source else {
        return None;
    };
    let (algorithm, digest) = hash.split_once('=').unwrap_or(("sha256", hash));
    index::digest_is_well_formed(algorithm, digest).then_some((algorithm, digest))
}

/// The line `pip freeze` writes for a package installed from a direct URL.
/// An editable project inside a git work tree is written as pip writes it
/// (`-e git+REMOTE@COMMIT#egg=NAME`); any other editable as its path.
pub fn freeze_line(package: &Package) -> Option<String> {
    Some(match &package.source {
        Source::Directory {
            url, editable: true, ..
        } => {
            let path = file_url_to_path(url);
            match path
                .as_deref()
                .and_then(|path| git_editable(Path::new(path), &package.name))
            {
                Some(line) => line,
                None => format!("-e {}", path.unwrap_or_else(|| url.clone())),
            }
        }
        _ => return package.direct_reference(),
    })
}

/// pip freeze's form for an editable project under git: the remote `origin`
/// and the checked-out commit, with `subdirectory` when the project is not at
/// the repository's root. `None` outside a git work tree or without a remote.
fn git_editable(project: &Path, name: &str) -> Option<String> {
    let git = |arguments: &[&str]| {
        let output = std::process::Command::new("git")
            .arg("-C")
            .arg(project)
            .args(arguments)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
        (output.status.success() && !text.is_empty()).then_some(text)
    };
    if !project.is_dir() {
        return None;
    }
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let remote = git(&["config", "--get", "remote.origin.url"])?;
    let commit = git(&["rev-parse", "HEAD"])?;
    let top = std::fs::canonicalize(top).ok()?;
    let project = std::fs::canonicalize(project).ok()?;
    let subdirectory = project
        .strip_prefix(&top)
        .ok()
        .filter(|relative| !relative.as_os_str().is_empty())
        .map(|relative| format!("&subdirectory={}", relative.display()))
        .unwrap_or_default();
    let remote = if remote.contains("://") {
        remote
    } else if remote.starts_with('/') {
        format!("file://{remote}")
    } else {
        // scp-like `git@host:path`, which pip writes as ssh://.
        match remote.split_once(':') {
            Some((host, path)) => format!("ssh://{host}/{path}"),
            None => remote,
        }
    };
    let egg = name.replace('-', "_");
    Some(format!("-e git+{remote}@{commit}#egg={egg}{subdirectory}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::plan::plan;
    use crate::lock::model::sample_lock;

    fn with_source(name: &str, source: Source) -> Package {
        let mut package = sample_lock().packages[0].clone();
        package.name = name.to_string();
        package.version = Some("1.0".to_string());
        package.source = source;
        package
    }

    #[test]
    fn a_local_version_brings_the_index_that_serves_it() {
        let lock = sample_lock();
        let written = render(
            &plan(&lock, false, None).unwrap(),
            Kind::Requirements { hashes: false },
            "x",
        )
        .unwrap();
        assert!(
            written
                .text
                .contains("\n--extra-index-url https://download.pytorch.org/whl/cu130\n")
        );
        assert!(written.text.contains("\ntorch==2.11.0+cu130\n"), "{}", written.text);
        assert!(
            written
                .text
                .contains("#   8 x NVIDIA H200, compute capability 9.0, 143771 MiB\n")
        );
        let constraints = render(&plan(&lock, false, None).unwrap(), Kind::Constraints, "x").unwrap();
        assert!(
            !constraints.text.contains("\n--extra-index-url"),
            "{}",
            constraints.text
        );
    }

    #[test]
    fn direct_installs_are_written_as_pip_freeze_writes_them() {
        let vcs = with_source(
            "tool",
            Source::Vcs {
                url: "https://example.com/tool.git".to_string(),
                vcs: "git".to_string(),
                commit_id: "0123abcd".to_string(),
                requested_revision: Some("main".to_string()),
                subdirectory: Some("python".to_string()),
            },
        );
        assert_eq!(
            freeze_line(&vcs).as_deref(),
            Some("tool @ git+https://example.com/tool.git@0123abcd#subdirectory=python")
        );
        let archive = with_source(
            "local",
            Source::Archive {
                url: "file:///dist/local-1.0.tar.gz".to_string(),
                hash: Some(format!("sha256={}", "ab".repeat(32))),
                subdirectory: None,
            },
        );
        assert_eq!(
            freeze_line(&archive).as_deref(),
            Some(format!("local @ file:///dist/local-1.0.tar.gz#sha256={}", "ab".repeat(32)).as_str())
        );
        let editable = with_source(
            "mine",
            Source::Directory {
                url: "file:///nonexistent/mine".to_string(),
                editable: true,
                subdirectory: None,
            },
        );
        assert_eq!(freeze_line(&editable).as_deref(), Some("-e /nonexistent/mine"));

        let mut lock = sample_lock();
        lock.packages.extend([vcs, archive, editable]);
        let plan = plan(&lock, false, None).unwrap();
        let hashed = render(&plan, Kind::Requirements { hashes: true }, "x").unwrap();
        assert_eq!(hashed.skipped, ["tool", "mine"]);
        assert!(hashed.text.contains(&format!(
            "local @ file:///dist/local-1.0.tar.gz \\\n    --hash=sha256:{}",
            "ab".repeat(32)
        )));
        assert!(hashed.text.contains("#   tool @ git+"), "{}", hashed.text);
    }

    #[test]
    fn installer_tooling_is_left_out_unless_all() {
        let mut lock = sample_lock();
        lock.packages.push(with_source("pip", Source::Index));
        assert_eq!(plan(&lock, false, None).unwrap().pins.len(), 1);
        assert_eq!(plan(&lock, true, None).unwrap().pins.len(), 2);
    }
}
