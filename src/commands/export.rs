//! `export`: pinned requirements from a lock or from this node.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Outcome, emit, replay_or_probe};
use crate::cli::{ExportArgs, ExportFormat};
use crate::export::index::{self, Cache, ConfigRoots};
use crate::export::plan::{Hashing, PlanError, plan};
use crate::export::{pylock, requirements};
use crate::hint::Hinted;
use crate::lock::file;
use crate::lock::model::Lock;
use crate::probe;

/// The lock to export: `--lock FILE`, or `envdoctor.lock` in this folder when
/// neither `--python` nor `--snapshot` names a node, as the lock's own header
/// and `verify` assume.
fn which_lock(args: &ExportArgs) -> Option<PathBuf> {
    if args.lock.is_some() {
        return args.lock.clone();
    }
    let names_a_node = args.node.python.python.is_some() || args.node.snapshot.is_some();
    let here = PathBuf::from(crate::lock::DEFAULT_FILE);
    (!names_a_node && here.exists()).then_some(here)
}

pub(super) fn export(args: ExportArgs) -> anyhow::Result<Outcome> {
    if args.format == ExportFormat::Constraints && args.hashes {
        anyhow::bail!("a constraints file carries no hashes: use --format requirements --hashes");
    }
    if let (ExportFormat::Pylock, Some(output)) = (args.format, &args.output.file) {
        pylock::check_file_name(output).map_err(anyhow::Error::msg)?;
    }
    // Which pip's configuration applies: the node's interpreter, or for a
    // lock the one this shell would use, located without being probed.
    let lock_file = which_lock(&args);
    let (lock, origin, python, roots) = match &lock_file {
        Some(path) => {
            let lock = file::read(path)?;
            if args.lock.is_none() {
                eprintln!(
                    "envdoctor: exporting the lock {} (fingerprint {}), found in this folder; \
                     --python PY exports a live environment instead",
                    path.display(),
                    crate::report::short_fingerprint(&lock.fingerprint)
                );
            }
            let python = probe::python::locate(args.node.python.python.as_deref(), |name| std::env::var_os(name))
                .ok()
                .map(|located| located.path);
            let roots = ConfigRoots::for_interpreter(None, None);
            (lock, format!("`{}`", path.display()), python, roots)
        }
        None => {
            let snapshot = replay_or_probe(&args.node, true)?;
            let live = args.node.snapshot.is_none();
            let origin = match &args.node.snapshot {
                Some(path) => format!("the Snapshot `{}`", path.display()),
                None => format!("the environment of {}", snapshot.python.executable.display()),
            };
            if args.node.python.python.is_none() && args.node.snapshot.is_none() {
                eprintln!(
                    "envdoctor: exporting {origin}, the default interpreter (no {} in this folder; \
                     --lock FILE or --python PY names another)",
                    crate::lock::DEFAULT_FILE
                );
            }
            let roots = ConfigRoots::for_interpreter(
                Some(snapshot.python.prefix.clone()),
                Some(snapshot.python.base_prefix.clone()),
            );
            let python: Option<PathBuf> = live.then(|| snapshot.python.invoked.clone());
            (Lock::from_snapshot(&snapshot), origin, python, roots)
        }
    };

    let needs_hashes = args.hashes || args.format == ExportFormat::Pylock;
    let env = |name: &str| std::env::var(name).ok();
    let indexes;
    let options;
    let hashing = if needs_hashes {
        indexes = index::resolve(args.index_url.as_deref(), python.as_deref(), &env, &roots)?;
        options = index::Options {
            offline: args.offline,
            cache_dir: Cache::default_directory(&env),
            timeout: Duration::from_secs_f64(args.index_timeout),
            progress: true,
        };
        Some(Hashing {
            indexes: &indexes,
            options: &options,
        })
    } else {
        None
    };
    // A PlanError's message already holds its cause: as a chain it would be said twice.
    let plan = plan(&lock, args.all, hashing.as_ref()).map_err(|error| match error {
        PlanError::MissingHashes(_) if args.offline => Hinted::new(
            anyhow::anyhow!("{error}"),
            "--offline uses only hashes cached by an earlier export: run it once without --offline",
        )
        .into(),
        PlanError::Unsafe { package, field, .. } => {
            let place = Place::Package {
                index: package,
                field,
                name: &lock.packages[package].name,
            };
            refusal(lock_file.as_deref(), &origin, place, &error.to_string())
        }
        _ => anyhow::anyhow!("{error}"),
    })?;

    // Issue 32 E9: a refusal names the file and the place in it that holds the value.
    let refused = |problem: crate::tool_text::Refused| {
        refusal(
            lock_file.as_deref(),
            &origin,
            Place::Written,
            &format!("refusing to export: {problem}"),
        )
    };
    let text = match args.format {
        ExportFormat::Pylock => pylock::render(&plan).map_err(refused)?,
        ExportFormat::Requirements | ExportFormat::Constraints => {
            let kind = match args.format {
                ExportFormat::Constraints => requirements::Kind::Constraints,
                _ => requirements::Kind::Requirements { hashes: args.hashes },
            };
            let written = requirements::render(&plan, kind, &origin).map_err(refused)?;
            if !written.skipped.is_empty() {
                eprintln!(
                    "envdoctor: left in a comment, as this file cannot carry them: {}",
                    written.skipped.join(", ")
                );
            }
            written.text
        }
    };
    emit(args.output.file.as_deref(), text.as_bytes())?;
    Ok(Outcome::Clean)
}

/// Where in its input a refused value is.
enum Place<'a> {
    /// `packages[index].field` of the lock, the package named `name`.
    Package {
        index: usize,
        field: &'static str,
        name: &'a str,
    },
    /// A value the refusal itself names (the architecture, an index URL).
    Written,
}

/// `envdoctor.lock:41:8: refusing to export: ...` for a lock file, whose
/// line the TOML parser's spans give; for a Snapshot or this node, the origin
/// and the package by its place and name.
fn refusal(lock_file: Option<&Path>, origin: &str, place: Place, problem: &str) -> anyhow::Error {
    let problem = crate::escape::one_line(problem);
    if let (Some(path), Place::Package { index, field, .. }) = (lock_file, &place)
        && let Some(located) = locate_in_lock(path, *index, field, &problem)
    {
        return anyhow::anyhow!("{located}");
    }
    match place {
        Place::Package { index, field, name } => anyhow::anyhow!(
            "{origin}, package {} (`{}`, its {field}): {problem}",
            index + 1,
            crate::escape::one_line(name)
        ),
        Place::Written => anyhow::anyhow!("{origin}: {problem}"),
    }
}

/// `packages[index].field` of the lock at `path`, as `path:line:column: problem`.
fn locate_in_lock(path: &Path, index: usize, field: &str, problem: &str) -> Option<crate::located::Located> {
    let bytes = crate::bounded_read::read(path, crate::bounded_read::DOCUMENT_LIMIT).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let document = toml_edit::Document::parse(text).ok()?;
    let package = document.get("packages")?.as_array_of_tables()?.get(index)?;
    // A package's source is a table of its own: the entry's header then.
    let span = package
        .get(field)
        .and_then(toml_edit::Item::span)
        .or_else(|| package.span())?;
    Some(crate::located::Located::at_offset(path, text, span.start, problem))
}
