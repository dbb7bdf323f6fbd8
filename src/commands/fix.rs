//! `envdoctor fix`: the plan that fixes what `check --no-smoke` finds (and,
//! with `--lock`, the drift from a lock), as one command (`fix_plan`); with
//! `--apply`, the plan run on the environment, which is put back exactly as
//! it was when the plan fails or makes things worse.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::{Outcome, emit, judged_against, replay_or_probe};
use crate::check::{CheckInput, Smoke};
use crate::cli::{FixArgs, TextOrJson};
use crate::compare::{NodeState, Sides};
use crate::findings::{FailOn, Finding, Severity};
use crate::fix_plan::apply::{self, Applied, EnvironmentLock, Judged};
use crate::fix_plan::backup::{self, Backup};
use crate::fix_plan::{Installer, Plan};
use crate::lock::model::Lock;
use crate::snapshot::Snapshot;

pub(super) fn fix(args: FixArgs) -> anyhow::Result<Outcome> {
    // Every input is read before the probe, so a typo fails in milliseconds.
    let (matrix, configs) = judged_against(&args.job, args.node.snapshot.is_some())?;
    let ignores = super::check::ignores(&args.ignores)?;
    let locked = args.lock.as_deref().map(crate::lock::file::read).transpose()?;
    if args.restore {
        return restore(&args);
    }
    let input = CheckInput {
        matrix: &matrix,
        configs: &configs,
        ignores: &ignores,
        fail_on: FailOn::Error,
        smoke: Smoke::NotRun("--no-smoke".to_string()),
    };
    if args.apply {
        return apply(&args, &input, locked.as_ref());
    }
    let snapshot = replay_or_probe(&args.node, false)?;
    let live = args.node.snapshot.is_none();
    let (plan, _) = judge(&snapshot, &input, locked.as_ref(), live)?;
    emit(args.output.file.as_deref(), render(&plan, args.format)?.as_bytes())?;
    Ok(if plan.has_work() {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// The findings on `snapshot` (with the packages' drift from `locked`) and
/// the plan for them.
fn judge(
    snapshot: &Snapshot,
    input: &CheckInput,
    locked: Option<&Lock>,
    live: bool,
) -> anyhow::Result<(Plan, Vec<Finding>)> {
    let mut findings = crate::check::run(snapshot.clone(), input).findings;
    if let Some(lock) = locked {
        findings.extend(package_drift(lock, snapshot)?);
    }
    let installer = installer_for(snapshot, live);
    let plan = super::fix_trial::prescribe(snapshot, &findings, input, &installer);
    Ok((plan, findings))
}

/// The installer of the judged environment: a replayed Snapshot's
/// environment is not here to ask, so its plan is pip's.
pub(super) fn installer_for(snapshot: &Snapshot, live: bool) -> Installer {
    let python = if snapshot.python.executable.as_os_str().is_empty() {
        snapshot.python.invoked.clone()
    } else {
        snapshot.python.executable.clone()
    };
    if live {
        Installer::for_environment(&python, &snapshot.python.prefix)
    } else {
        Installer::Pip(python)
    }
}

/// Each package that differs from the lock as a finding whose fix is the
/// drift's own command: a package at another version or missing is brought
/// back by an install; one the lock lacks has an uninstall, which the plan
/// lists as not fixed by installing.
fn package_drift(lock: &Lock, snapshot: &Snapshot) -> anyhow::Result<Vec<Finding>> {
    let here = NodeState::of_snapshot(snapshot);
    let mut drift = drift_between(lock.clone(), &here)?;
    drift.retain(|item| item.area == crate::compare::Area::Packages && item.severity >= Severity::Warning);
    for item in &mut drift {
        // The plan installs every locked pin in one command, with their
        // dependencies: verify's fix for one package passes --no-deps.
        let key = crate::packaging::normalize_name(&item.subject);
        if matches!(item.id, "package-version" | "package-missing")
            && let Some(locked) = lock.packages.iter().find(|package| package.normalized_name() == key)
        {
            item.fix = crate::compare::install_command(locked, crate::compare::Dependencies::Resolved);
        }
    }
    here.address(&mut drift);
    Ok(drift
        .into_iter()
        .map(|item| Finding {
            id: format!("lock:{}:{}", item.id, item.subject),
            origin: "lock".to_string(),
            severity: item.severity,
            title: item.message.clone(),
            detail: item.message,
            why: String::new(),
            fix: item.fix,
            fix_note: None,
            references: Vec::new(),
            unsettled: None,
        })
        .collect())
}

fn render(plan: &Plan, format: TextOrJson) -> anyhow::Result<String> {
    Ok(match format {
        TextOrJson::Text => crate::fix_plan::text(plan),
        TextOrJson::Json => serde_json::to_string_pretty(plan)? + "\n",
    })
}

/// `--apply`: lock the environment, judge it, ask, record it, back it up,
/// run the plan, judge it again, and keep the result or put it all back.
fn apply(args: &FixArgs, input: &CheckInput, locked: Option<&Lock>) -> anyhow::Result<Outcome> {
    let first = replay_or_probe(&args.node, false)?;
    apply::changeable(&first.python, args.system)?;
    let prefix = first.python.prefix.clone();
    let _held = EnvironmentLock::take(&prefix)?;
    apply::no_backup_left(&prefix, &first.python.executable)?;
    // Judged again under the lock: what another apply did before it let go counts.
    let snapshot = replay_or_probe(&args.node, true)?;
    let (mut plan, findings) = judge(&snapshot, input, locked, true)?;
    if plan.steps.is_empty() {
        emit(args.output.file.as_deref(), render(&plan, args.format)?.as_bytes())?;
        eprintln!("envdoctor: nothing to apply: the plan installs nothing");
        return Ok(if plan.has_work() {
            Outcome::Findings
        } else {
            Outcome::Clean
        });
    }
    if plan.installer == "uv" && which::which("uv").is_err() {
        return Err(apply::ApplyError::NoInstaller {
            program: "uv".to_string(),
        }
        .into());
    }
    if !confirmed(&plan, &prefix, args.yes)? {
        eprintln!("envdoctor: nothing was changed");
        return Ok(Outcome::Findings);
    }

    let before = Judged::of(&findings);
    let before_lock = backup::state_dir(&prefix).join(format!("before-{}.lock", crate::calendar::utc_stamp()));
    let lock = Lock::from_snapshot(&snapshot);
    crate::atomic_write::write(&before_lock, crate::lock::file::render(&lock).as_bytes())
        .with_context(|| format!("cannot write `{}`", before_lock.display()))?;
    eprintln!(
        "envdoctor: recorded the environment before the change in {} ({} packages)",
        before_lock.display(),
        lock.packages.len()
    );
    let guard = crate::process::SignalGuard::install();
    let mut trees: Vec<PathBuf> = snapshot.python.site_packages.clone();
    trees.push(prefix.join("bin"));
    let started = std::time::Instant::now();
    let backup = match Backup::take(&prefix, &trees, &before_lock) {
        Ok(backup) => {
            eprintln!(
                "envdoctor: backed up {} files by hard link in {:.2} s into {}",
                backup.files,
                started.elapsed().as_secs_f64(),
                backup.root.display()
            );
            backup
        }
        Err(error) => {
            // Nothing was changed yet: only the partial backup goes.
            let _ = std::fs::remove_dir_all(backup::backup_root(&prefix));
            return Err(error).with_context(|| format!("cannot back up {} before changing it", prefix.display()));
        }
    };

    let mut after = None;
    let put_back_because = match apply::run_steps(&plan.steps, &guard) {
        Err(failure) => Some(failure.to_string()),
        Ok(()) => match judge_after(args, input, locked) {
            Err(error) => Some(format!("the check after could not run ({error:#})")),
            Ok(judged) => {
                let new = before.new_in(&judged);
                after = Some(judged);
                (!new.is_empty()).then(|| {
                    format!(
                        "the check after raised what the check before did not: {}",
                        new.join(", ")
                    )
                })
            }
        },
    };
    let mut applied = Applied {
        before_lock: before_lock.clone(),
        before,
        after,
        kept: put_back_because.is_none(),
        put_back_because: put_back_because.clone(),
        drift_after_put_back: None,
    };
    match &put_back_because {
        None => backup.discard().with_context(|| {
            format!(
                "the plan was applied, but its backup in {} could not be removed",
                backup::backup_root(&prefix).display()
            )
        })?,
        Some(_) => {
            backup.restore().with_context(|| {
                format!(
                    "the plan failed and putting {} back failed too: the backup stays in {}; run `envdoctor fix --restore --python {}`",
                    prefix.display(),
                    backup::backup_root(&prefix).display(),
                    snapshot.python.executable.display()
                )
            })?;
            // Interrupted, the probe that would verify it is killed as it
            // starts (the guard kills what it watches once a signal came):
            // envdoctor ends by the signal with the environment put back.
            if let Some(signal) = guard.interrupted() {
                eprintln!("envdoctor: interrupted; {}", put_back_line(&applied));
                crate::process::die_of(signal);
            }
            applied.drift_after_put_back = Some(drift_from(&before_lock, &args.node)?);
        }
    }
    if let Some(signal) = guard.interrupted() {
        eprintln!("envdoctor: interrupted; {}", put_back_line(&applied));
        crate::process::die_of(signal);
    }
    drop(guard);
    let outcome = match (&applied.put_back_because, &applied.after) {
        // As `check` judges by default: what is left fails it only as an error.
        (None, Some(after)) if after.errors == 0 => Outcome::Clean,
        (None, _) => Outcome::Findings,
        (Some(_), _) => {
            let line = put_back_line(&applied);
            plan.apply = Some(applied);
            emit(args.output.file.as_deref(), render(&plan, args.format)?.as_bytes())?;
            anyhow::bail!("the plan was not applied: {line}");
        }
    };
    plan.apply = Some(applied);
    emit(args.output.file.as_deref(), render(&plan, args.format)?.as_bytes())?;
    Ok(outcome)
}

/// The check after the steps ran, judged as the one before was.
fn judge_after(args: &FixArgs, input: &CheckInput, locked: Option<&Lock>) -> anyhow::Result<Judged> {
    let snapshot = replay_or_probe(&args.node, false)?;
    let (_, findings) = judge(&snapshot, input, locked, true)?;
    Ok(Judged::of(&findings))
}

/// What differs between the lock taken before and the environment now.
fn drift_from(before_lock: &Path, node: &crate::cli::NodeArgs) -> anyhow::Result<Vec<String>> {
    let here = NodeState::of_snapshot(&replay_or_probe(node, true)?);
    Ok(drift_between(crate::lock::file::read(before_lock)?, &here)?
        .into_iter()
        .map(|item| item.message)
        .collect())
}

/// The drift of `here` from `lock`, as `verify` sees it.
fn drift_between(lock: Lock, here: &NodeState) -> anyhow::Result<Vec<crate::compare::Drift>> {
    let tables = crate::matrix::builtin_tables()?;
    Ok(crate::compare::nodes(
        &NodeState::of_lock(lock),
        here,
        &Sides::verify(),
        &tables,
    ))
}

fn put_back_line(applied: &Applied) -> String {
    let why = applied.put_back_because.as_deref().unwrap_or("it was not kept");
    match applied.drift_after_put_back.as_deref() {
        Some([]) => format!(
            "{why}; the environment was put back and verifies clean against {}",
            applied.before_lock.display()
        ),
        Some(drift) => format!(
            "{why}; the environment was put back, but differs from {} in {}: {}",
            applied.before_lock.display(),
            crate::report::plural(drift.len(), "item"),
            drift.join("; ")
        ),
        None if applied.kept => format!("{why}; the environment was not put back"),
        None => format!(
            "{why}; the environment was put back (not verified against {})",
            applied.before_lock.display()
        ),
    }
}

/// `--yes`, or a yes typed at the terminal after the plan was shown there.
fn confirmed(plan: &Plan, prefix: &Path, yes: bool) -> anyhow::Result<bool> {
    if yes {
        return Ok(true);
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        anyhow::bail!(
            "--apply asks before it changes {}, and standard input is not a terminal: add --yes to apply without asking",
            prefix.display()
        );
    }
    let mut stderr = std::io::stderr().lock();
    write!(
        stderr,
        "{}\nApply this plan to {}? [y/N] ",
        crate::fix_plan::text(plan),
        crate::escape::one_line(&prefix.display().to_string())
    )?;
    stderr.flush()?;
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
}

/// `--restore`: the backup an interrupted apply left, put back.
fn restore(args: &FixArgs) -> anyhow::Result<Outcome> {
    let snapshot = replay_or_probe(&args.node, false)?;
    let prefix = snapshot.python.prefix.clone();
    let _held = EnvironmentLock::take(&prefix)?;
    let Some(backup) =
        Backup::find(&prefix).with_context(|| format!("cannot read the backup in {}", prefix.display()))?
    else {
        eprintln!(
            "envdoctor: no backup in {}: nothing to put back",
            backup::backup_root(&prefix).display()
        );
        return Ok(Outcome::Clean);
    };
    let before_lock = backup.before_lock.clone();
    backup
        .restore()
        .with_context(|| format!("cannot put {} back", prefix.display()))?;
    let drift = drift_from(&before_lock, &args.node)?;
    let applied = Applied {
        before_lock,
        before: Judged::of(&[]),
        after: None,
        kept: false,
        put_back_because: Some("`--restore` was asked for".to_string()),
        drift_after_put_back: Some(drift),
    };
    eprintln!("envdoctor: {}", put_back_line(&applied));
    Ok(if applied.drift_after_put_back.as_deref() == Some(&[]) {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}
