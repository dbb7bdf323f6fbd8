//! `envdoctor check`: evaluate the matrix rules and the built-in checks against
//! one Snapshot, apply the user's ignores, and produce the Report every output
//! format renders (`envdoctor.report/1`).

use serde::{Deserialize, Serialize};

use crate::configs::ConfigError;
use crate::findings::{FailOn, Finding, Severity};
use crate::located::Located;
use crate::snapshot::Snapshot;

pub const REPORT_SCHEMA: &str = "envdoctor.report/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    /// Beyond the public contract's keys (schema, snapshot, findings, smoke,
    /// summary) every key is optional when read.
    #[serde(default)]
    pub envdoctor_version: String,
    pub snapshot: Snapshot,
    /// Ordered error, warning, info; within a severity, by id.
    pub findings: Vec<Finding>,
    /// Findings the user silenced, with the reason they gave.
    #[serde(default)]
    pub ignored: Vec<Ignored>,
    /// Every rule and check that ran, so a CI system can show what passed.
    #[serde(default)]
    pub evaluated: Vec<Evaluated>,
    /// Training config files that were read.
    #[serde(default)]
    pub configs: ConfigsRead,
    /// The GPU smoke test; `null` when it did not run, and then `smoke_not_run` says why.
    pub smoke: Option<crate::smoke::SmokeRun>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smoke_not_run: Option<String>,
    pub summary: CheckSummary,
    /// The plan `envdoctor fix` offers for these findings (`envdoctor.fix/1`),
    /// when there is something to fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_plan: Option<crate::fix_plan::Plan>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ignored {
    pub finding: Finding,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvaluatedKind {
    Rule,
    Check,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Evaluated {
    /// The rule id or check id; findings name it in `origin`.
    pub id: String,
    pub kind: EvaluatedKind,
    pub title: String,
    /// Where a site rule came from (`--matrix DIR`); `None` for built-in ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ConfigsRead {
    pub deepspeed: Option<std::path::PathBuf>,
    pub accelerate: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckSummary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub ignored: usize,
    pub rules_evaluated: usize,
    pub checks_evaluated: usize,
    pub fail_on: FailOn,
    /// `true` when some finding is at or above `fail_on`: exit code 1.
    pub failed: bool,
}

/// One silenced finding id (or check id), with the reason and where it was said.
#[derive(Debug, Clone, PartialEq)]
pub struct Ignore {
    pub id: String,
    pub reason: Option<String>,
    /// `--ignore` or the config file and line, for the unmatched-ignore finding.
    pub source: String,
}

impl Ignore {
    /// `ID` or `ID=REASON`, as given to `--ignore`.
    pub fn from_flag(text: &str) -> Ignore {
        let (id, reason) = match text.split_once('=') {
            Some((id, reason)) => (
                id.trim(),
                Some(reason.trim().to_string()).filter(|reason| !reason.is_empty()),
            ),
            None => (text.trim(), None),
        };
        Ignore {
            id: id.to_string(),
            reason,
            source: format!("--ignore {text}"),
        }
    }
}

pub struct CheckInput<'a> {
    pub matrix: &'a crate::matrix::Matrix,
    pub configs: &'a crate::configs::TrainingConfigs,
    pub ignores: &'a [Ignore],
    pub fail_on: FailOn,
    pub smoke: Smoke,
}

/// The smoke test's part in a check.
#[derive(Debug, Clone)]
pub enum Smoke {
    Ran(crate::smoke::SmokeRun),
    /// Why it did not run: `--no-smoke`, a replay, no GPU, no torch.
    NotRun(String),
}

/// Evaluates every rule and built-in check against `snapshot`.
pub fn run(snapshot: Snapshot, input: &CheckInput) -> Report {
    let mut facts = crate::facts::Facts::new(&snapshot, input.configs);
    // The smoke test ran before the checks: what it saw is a fact they read.
    if let Smoke::Ran(smoke) = &input.smoke {
        facts.live = Some(crate::smoke::live_run(smoke));
    }
    let mut evaluated = Vec::new();
    let mut raised = Vec::new();
    for rule in input.matrix.rules.iter().filter(|rule| rule.withdrawn.is_none()) {
        evaluated.push(Evaluated {
            id: rule.id.clone(),
            kind: EvaluatedKind::Rule,
            title: rule.title.clone(),
            source: rule.site.as_ref().map(|dir| dir.display().to_string()),
        });
        raised.extend(crate::matrix::evaluate(rule, &facts, &input.matrix.tables));
    }
    for check in crate::builtin_checks::all() {
        evaluated.push(Evaluated {
            id: check.id.to_string(),
            kind: EvaluatedKind::Check,
            title: check.title.to_string(),
            source: None,
        });
        raised.extend(
            (check.run)(&facts, &input.matrix.tables)
                .into_iter()
                .map(|finding| Finding {
                    origin: check.id.to_string(),
                    ..finding
                }),
        );
    }
    if let Smoke::Ran(smoke) = &input.smoke {
        evaluated.push(Evaluated {
            id: crate::builtin_checks::smoke_test::CHECK.id.to_string(),
            kind: EvaluatedKind::Check,
            title: crate::builtin_checks::smoke_test::CHECK.title.to_string(),
            source: None,
        });
        let diagnosis = crate::smoke::Diagnosis {
            matrix: input.matrix,
            facts: Some(&facts),
            // `check` probed the node before it started the smoke test.
            facts_precede_the_run: true,
            fired: &raised,
        };
        let from_smoke = crate::smoke::findings(smoke, &diagnosis);
        raised.extend(from_smoke.into_iter().map(|finding| Finding {
            origin: crate::builtin_checks::smoke_test::CHECK.id.to_string(),
            ..finding
        }));
    }
    let known_ids: Vec<&str> = input
        .matrix
        .rules
        .iter()
        .map(|rule| rule.id.as_str())
        .chain(
            crate::builtin_checks::catalogue()
                .flat_map(|check| std::iter::once(check.id).chain(check.produces.iter().copied())),
        )
        .collect();
    let (mut findings, ignored) = apply_ignores(raised, input.ignores, &known_ids);
    findings.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.id.cmp(&b.id)));
    address_fixes(&mut findings, &snapshot);
    let configs = ConfigsRead {
        deepspeed: input.configs.deepspeed.as_ref().map(|loaded| loaded.path.clone()),
        accelerate: input.configs.accelerate.as_ref().map(|loaded| loaded.path.clone()),
    };
    let count = |severity| {
        findings
            .iter()
            .filter(|finding: &&Finding| finding.severity == severity)
            .count()
    };
    let summary = CheckSummary {
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        infos: count(Severity::Info),
        ignored: ignored.len(),
        rules_evaluated: evaluated.iter().filter(|e| e.kind == EvaluatedKind::Rule).count(),
        checks_evaluated: evaluated.iter().filter(|e| e.kind == EvaluatedKind::Check).count(),
        fail_on: input.fail_on,
        failed: findings.iter().any(|finding| input.fail_on.fails(finding.severity)),
    };
    Report {
        schema: REPORT_SCHEMA.to_string(),
        envdoctor_version: env!("CARGO_PKG_VERSION").to_string(),
        snapshot,
        findings,
        ignored,
        evaluated,
        configs,
        smoke: match &input.smoke {
            Smoke::Ran(smoke) => Some(smoke.clone()),
            Smoke::NotRun(_) => None,
        },
        smoke_not_run: match &input.smoke {
            Smoke::Ran(_) => None,
            Smoke::NotRun(reason) => Some(reason.clone()),
        },
        summary,
        fix_plan: None,
    }
}

/// Makes every pip the fixes run the judged interpreter's
/// (`fix_command::address`): every finding passes here, whichever rule or
/// check raised it.
pub fn address_fixes(findings: &mut [Finding], snapshot: &Snapshot) {
    let python = &snapshot.python.executable;
    if python.as_os_str().is_empty() {
        return;
    }
    for finding in findings {
        crate::fix_command::address_in_place(&mut finding.fix, python);
    }
}

pub const UNMATCHED_IGNORE: &str = "ignore-unmatched";

/// Moves findings the user silenced aside, and reports each ignore that
/// silenced nothing (cargo-deny's rule): a stale ignore hides the next real finding.
fn apply_ignores(raised: Vec<Finding>, ignores: &[Ignore], known_ids: &[&str]) -> (Vec<Finding>, Vec<Ignored>) {
    let mut used = vec![false; ignores.len()];
    let mut findings = Vec::new();
    let mut ignored = Vec::new();
    for finding in raised {
        let matching = ignores
            .iter()
            .position(|ignore| ignore.id == finding.id || ignore.id == finding.origin);
        match matching {
            Some(index) => {
                used[index] = true;
                ignored.push(Ignored {
                    reason: ignores[index].reason.clone(),
                    finding,
                });
            }
            None => findings.push(finding),
        }
    }
    for (ignore, used) in ignores.iter().zip(used) {
        if used {
            continue;
        }
        let known = known_ids.contains(&ignore.id.as_str());
        let (severity, detail) = if known {
            (
                Severity::Info,
                format!(
                    "`{}` ({}) did not fire on this node, so the ignore silenced nothing.",
                    ignore.id, ignore.source
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "`{}` ({}) is not the id of any rule, check or finding: a typo silences nothing.",
                    ignore.id, ignore.source
                ),
            )
        };
        findings.push(Finding {
            id: UNMATCHED_IGNORE.to_string(),
            origin: UNMATCHED_IGNORE.to_string(),
            severity,
            title: "An ignore matched no finding".to_string(),
            detail,
            why: "An ignore that matches nothing is stale or misspelled; left in place it will silence the next real finding of that id without anyone deciding to.".to_string(),
            fix: Some(format!("remove `{}` from the ignores ({})", ignore.id, ignore.source)),
            references: vec!["https://embarkstudios.github.io/cargo-deny/checks/advisories/cfg.html#the-ignore-field-optional".to_string()],
            fix_note: None,
            unsettled: None,
        });
    }
    (findings, ignored)
}

/// Reads `[[ignore]]` tables (`id`, and the `reason` a file must give) from a config file.
pub fn read_ignore_file(path: &std::path::Path) -> Result<Vec<Ignore>, ConfigError> {
    let text = crate::configs::read_text(path)?;
    let malformed =
        |offset: usize, problem: String| ConfigError::from(Located::at_offset(path, &text, offset, problem));
    let document = toml_edit::Document::parse(text.as_str()).map_err(|error| {
        malformed(
            error.span().map_or(0, |span| span.start),
            error.message().trim().to_string(),
        )
    })?;
    let mut ignores = Vec::new();
    for (key, item) in document.as_table().iter() {
        let start = |item: &toml_edit::Item| item.span().map_or(0, |span| span.start);
        if key != "ignore" {
            return Err(malformed(
                start(item),
                format!("unknown key `{key}` (expected `[[ignore]]`)"),
            ));
        }
        let Some(tables) = item.as_array_of_tables() else {
            return Err(malformed(
                start(item),
                "`ignore` must be an array of tables: `[[ignore]]`".to_string(),
            ));
        };
        for table in tables.iter() {
            let offset = table.span().map_or(0, |span| span.start);
            let field = |name: &str| table.get(name).and_then(toml_edit::Item::as_str).map(str::to_string);
            let Some(id) = field("id") else {
                return Err(malformed(offset, "an `[[ignore]]` needs `id = \"...\"`".to_string()));
            };
            let Some(reason) = field("reason").filter(|reason| !reason.trim().is_empty()) else {
                return Err(malformed(offset, format!("the ignore of `{id}` needs a `reason`")));
            };
            let (line, _) = crate::located::position(&text, offset);
            ignores.push(Ignore {
                id,
                reason: Some(reason),
                source: format!("{}:{line}", path.display()),
            });
        }
    }
    Ok(ignores)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: &str = "tests/fixtures/snapshots/h100x6-handmade-from-documented-values.json";

    /// A run whose one step failed the way a build without this GPU's code fails.
    fn failed_smoke() -> crate::smoke::SmokeRun {
        serde_json::from_value(serde_json::json!({
            "python": "/opt/venvs/train/bin/python", "timeout_s": 120.0, "deep": false, "duration_ms": 900,
            "ending": "completed", "ending_detail": "exit status 0",
            "steps": [{"name": "gpu0.kernels", "title": "cuda:0 runs this build's kernels", "status": "fail",
                       "duration_ms": 12, "detail": "torch.AcceleratorError: CUDA error: no kernel image is \
                       available for execution on the device", "gpu": 0, "figures": {}}]
        }))
        .unwrap()
    }

    fn check(smoke: Smoke, ignores: &[Ignore]) -> Report {
        let snapshot = crate::snapshot::read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(H100)).unwrap();
        judge(snapshot, smoke, ignores)
    }

    /// `run` with the compiled-in matrix and no training configs.
    fn judge(snapshot: Snapshot, smoke: Smoke, ignores: &[Ignore]) -> Report {
        let matrix = crate::matrix::Matrix::load(&[]).unwrap();
        let configs = crate::configs::TrainingConfigs::default();
        let input = CheckInput {
            matrix: &matrix,
            configs: &configs,
            ignores,
            fail_on: FailOn::Error,
            smoke,
        };
        run(snapshot, &input)
    }

    /// Every fix a report prints is one command (or an action in words), and
    /// every pip it runs is the judged interpreter's, whichever rule or check
    /// wrote it: all the recorded and hand-made Snapshots, each also with its
    /// GPUs taken for older ones and an older driver, so that more fire.
    #[test]
    fn every_fix_is_one_command_and_runs_the_judged_interpreters_pip() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshots");
        let mut fixes = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            let recorded = crate::snapshot::read(&path).unwrap();
            let mut variants = vec![recorded.clone()];
            for (capability, driver) in [("6.1", "470.256.02"), ("7.0", "535.54.03"), ("12.0", "550.54.15")] {
                let mut older = recorded.clone();
                if let Some(nvidia) = older.nvidia.as_mut() {
                    nvidia.driver_version = Some(driver.to_string());
                    for gpu in &mut nvidia.gpus {
                        gpu.compute_capability = Some(capability.to_string());
                    }
                }
                variants.push(older);
            }
            for snapshot in variants {
                let python = snapshot.python.executable.clone();
                for smoke in [Smoke::NotRun("--no-smoke".to_string()), Smoke::Ran(failed_smoke())] {
                    for finding in judge(snapshot.clone(), smoke, &[]).findings {
                        let Some(fix) = finding.fix else { continue };
                        assert_eq!(crate::fix_command::one_command(&fix), Ok(()), "{}: {fix}", finding.id);
                        assert_eq!(
                            crate::fix_command::address(&fix, &python),
                            fix,
                            "{}: a pip that is not {}'s",
                            finding.id,
                            python.display()
                        );
                        fixes.insert((finding.id, fix));
                    }
                }
            }
        }
        let with_pip = fixes.iter().filter(|(_, fix)| fix.contains(" -m pip ")).count();
        assert!(fixes.len() >= 10 && with_pip >= 3, "too few fixes to judge: {fixes:#?}");
    }

    /// Issue 21: the architecture check reads the live answer. On the recorded
    /// H100 with its GPU taken for a V100 (no sm_70 in torch 2.11 cu130), the
    /// table says no code; the recorded run's kernels ran, so the check itself
    /// says the table is wrong, and nothing removes a finding afterwards.
    #[test]
    fn the_architecture_check_defers_to_kernels_that_ran() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/snapshots/h100-torch2.11-cu130-recorded.json");
        let mut snapshot = crate::snapshot::read(&path).unwrap();
        snapshot.nvidia.as_mut().unwrap().gpus[0].compute_capability = Some("7.0".to_string());
        let run: crate::smoke::SmokeRun = serde_json::from_str(include_str!(
            "../tests/fixtures/smoke/recorded/smoke-run-h100-torch2.11-cu130.json"
        ))
        .unwrap();
        let judged = |smoke| run_ids(&judge(snapshot.clone(), smoke, &[]));
        let table_only = judged(Smoke::NotRun("--no-smoke".to_string()));
        assert!(table_only.contains(&(
            "gpu-arch-not-in-torch-build".to_string(),
            "torch-runs-on-gpus".to_string()
        )));
        let live = judged(Smoke::Ran(run));
        assert!(
            live.contains(&(
                "smoke-arch-table-corrected".to_string(),
                "torch-runs-on-gpus".to_string()
            )),
            "{live:?}"
        );
        assert!(
            !live.iter().any(|(id, _)| id == "gpu-arch-not-in-torch-build"),
            "{live:?}"
        );
    }

    fn run_ids(report: &Report) -> Vec<(String, String)> {
        report
            .findings
            .iter()
            .map(|finding| (finding.id.clone(), finding.origin.clone()))
            .collect()
    }

    #[test]
    fn a_failed_smoke_step_is_a_finding_of_the_smoke_check() {
        let report = check(Smoke::Ran(failed_smoke()), &[]);
        let finding = report
            .findings
            .iter()
            .find(|finding| finding.id == "smoke-step-failed")
            .expect("the failed step is a finding");
        assert_eq!(finding.origin, "smoke-test");
        assert!(finding.fix.as_deref().unwrap().contains("download.pytorch.org"));
        assert!(report.summary.failed);
        assert!(report.evaluated.iter().any(|evaluated| evaluated.id == "smoke-test"));
        assert_eq!(report.smoke, Some(failed_smoke()));
        assert_eq!(report.smoke_not_run, None);
    }

    #[test]
    fn the_smoke_check_can_be_ignored_like_any_other() {
        let ignore = Ignore::from_flag("smoke-test=known bad GPU, ticket 12");
        let report = check(Smoke::Ran(failed_smoke()), &[ignore]);
        assert!(report.findings.iter().all(|finding| finding.origin != "smoke-test"));
        assert_eq!(report.ignored.len(), 1);
        assert_eq!(report.ignored[0].finding.id, "smoke-step-failed");
    }

    #[test]
    fn without_a_run_the_report_says_why() {
        let report = check(Smoke::NotRun("--no-smoke".to_string()), &[]);
        assert_eq!(report.smoke, None);
        assert_eq!(report.smoke_not_run.as_deref(), Some("--no-smoke"));
        assert!(report.evaluated.iter().all(|evaluated| evaluated.id != "smoke-test"));
    }
}
