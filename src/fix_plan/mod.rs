//! `envdoctor fix`: the findings' package fixes merged into one plan (issue
//! 31). Every finding whose fix is nothing but pip installs
//! (`fix_command::pip_installs`) gives requirements; they are merged into one
//! requirement per package, whose specifier is every specifier that spoke,
//! joined with commas (a PEP 440 specifier set is their intersection). Where
//! the intersection is decidably empty (two different `==` pins, a pin
//! outside another range, a lower bound above an upper one) the package is
//! a conflict, not part of the plan. A torch install with `--index-url`
//! stays one unit: its requirements are installed from its index, in a
//! command of their own, before the rest are installed from the default one.
//! A requirement that contradicts an installed package's own unconditional
//! requirement (the plan's `numpy<1.20` where pandas 2.2 requires
//! `numpy>=1.26.0`) is a conflict too: a plan that would break a third
//! package is not a plan.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use pep508_rs::pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{Requirement, VerbatimUrl, VersionOrUrl};
use serde::{Deserialize, Serialize};

pub mod apply;
pub mod backup;
mod installer;

pub use installer::{Action, Installer};

use crate::findings::Finding;
use crate::fix_command::PipInstall;
use crate::snapshot::packages::Package;

pub const FIX_SCHEMA: &str = "envdoctor.fix/1";

/// The plan, as `--format json` writes it (`envdoctor.fix/1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub schema: String,
    /// The interpreter whose environment the command changes.
    pub python: String,
    /// `pip` (the interpreter's own) or `uv` (`uv pip`, for an environment uv made).
    #[serde(default = "pip_name")]
    pub installer: String,
    /// One per package, in the order the findings first named them.
    pub requirements: Vec<PlannedRequirement>,
    /// The index the torch unit's requirements come from, if any.
    pub index_url: Option<String>,
    /// The one command line that installs every requirement; `None` when
    /// there is nothing to install.
    pub command: Option<String>,
    /// The same command as the argument vectors `--apply` runs, one per step.
    #[serde(default)]
    pub steps: Vec<Vec<String>>,
    /// Findings no pip install fixes: prose, other programs, the driver, a GPU.
    pub cannot_fix: Vec<CannotFix>,
    /// Packages whose specifiers no version satisfies together, or whose
    /// pinned version would raise another finding.
    pub conflicts: Vec<Conflict>,
    /// Requirements kept whose oldest allowed release would raise findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsettled: Vec<Unsettled>,
    /// What `--apply` did; absent when the plan was only shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply: Option<apply::Applied>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedRequirement {
    /// As the first finding wrote it.
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extras: Vec<String>,
    /// Every specifier that spoke, comma-joined; empty for "any version".
    pub specifier: String,
    /// The ids of the findings it fixes.
    pub fixes: Vec<String>,
    /// Installed from `index_url` (the torch unit).
    #[serde(default)]
    pub from_index: bool,
}

impl PlannedRequirement {
    /// The requirement as pip reads it: `name[extras]specifier`.
    pub fn requirement(&self) -> String {
        let extras = if self.extras.is_empty() {
            String::new()
        } else {
            format!("[{}]", self.extras.join(","))
        };
        format!("{}{extras}{}", self.name, self.specifier)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CannotFix {
    pub id: String,
    pub fix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    /// The package, or `--index-url` when the torch units name different indexes.
    pub name: String,
    pub specifiers: Vec<String>,
    pub ids: Vec<String>,
    /// The installed packages whose own requirement takes part in it:
    /// `pandas 2.2.3 requires numpy>=1.26.0`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_by: Vec<String>,
    /// The findings the pinned version would raise on this node, when the
    /// pin itself is the conflict: a fix that trips another rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub would_raise: Vec<String>,
}

/// A requirement whose oldest allowed release would raise findings here.
/// It stays in the plan, since pip installs the newest release that fits,
/// which only the index knows; `--apply` judges what was installed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unsettled {
    pub name: String,
    /// The oldest release the specifiers allow.
    pub version: String,
    pub would_raise: Vec<String>,
}

/// The matrix, asked before the plan is offered: which findings, not raised
/// now, would be raised with the package `name` at `version`.
pub trait Trial {
    fn raises(&self, name: &str, version: &str) -> Vec<String>;
}

/// No trial: a plan judged by the findings alone.
pub struct Untried;

impl Trial for Untried {
    fn raises(&self, _name: &str, _version: &str) -> Vec<String> {
        Vec::new()
    }
}

impl Plan {
    /// Whether there is anything to do or to know: exit code 1.
    pub fn has_work(&self) -> bool {
        !self.requirements.is_empty() || !self.cannot_fix.is_empty() || !self.conflicts.is_empty()
    }
}

fn pip_name() -> String {
    "pip".to_string()
}

/// What one package collects from the findings.
#[derive(Default)]
struct Gathered {
    name: String,
    extras: Vec<String>,
    /// Each specifier with the finding that said it.
    specifiers: Vec<(String, String)>,
    fixes: Vec<String>,
    from_index: bool,
}

/// The plan for `findings`, run by `installer` for its interpreter, whose
/// installed packages are `installed`.
pub fn plan(findings: &[Finding], installer: &Installer, installed: &[Package], trial: &dyn Trial) -> Plan {
    let mut order: Vec<String> = Vec::new();
    let mut packages: BTreeMap<String, Gathered> = BTreeMap::new();
    let mut cannot_fix = Vec::new();
    let mut indexes: Vec<(String, String)> = Vec::new();
    let mut extra_indexes: Vec<String> = Vec::new();
    let mut uninstall: Vec<String> = Vec::new();
    let mut upgrade = false;
    for finding in findings {
        let parsed = finding
            .fix
            .as_deref()
            .and_then(crate::fix_command::pip_installs)
            .and_then(read_installs);
        let Some(units) = parsed else {
            cannot_fix.push(CannotFix {
                id: finding.id.clone(),
                fix: finding.fix.clone(),
            });
            continue;
        };
        for (install, requirements) in units {
            upgrade |= install.upgrade;
            if let Some(url) = &install.index_url {
                indexes.push((url.clone(), finding.id.clone()));
            }
            for url in &install.extra_index_urls {
                push_new(&mut extra_indexes, url);
            }
            for name in &install.uninstall_first {
                push_new(&mut uninstall, name);
            }
            for requirement in requirements {
                let key = crate::packaging::normalize_name(requirement.name.as_ref());
                if !packages.contains_key(&key) {
                    order.push(key.clone());
                }
                let gathered = packages.entry(key).or_insert_with(|| Gathered {
                    name: requirement.name.to_string(),
                    ..Gathered::default()
                });
                gathered.from_index |= install.index_url.is_some();
                for extra in &requirement.extras {
                    push_new(&mut gathered.extras, extra.as_ref());
                }
                if let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &requirement.version_or_url {
                    for specifier in specifiers.iter() {
                        let pair = (specifier.to_string(), finding.id.clone());
                        if !gathered.specifiers.contains(&pair) {
                            gathered.specifiers.push(pair);
                        }
                    }
                }
                push_new(&mut gathered.fixes, &finding.id);
            }
        }
    }

    let mut conflicts = Vec::new();
    let mut index_url = None;
    let mut distinct: Vec<String> = Vec::new();
    for (url, _) in &indexes {
        push_new(&mut distinct, url);
    }
    match distinct.as_slice() {
        [] => {}
        [one] => index_url = Some(one.clone()),
        _ => {
            // Two builds from two indexes: which is meant is not ours to pick.
            let mut ids = Vec::new();
            for (_, id) in &indexes {
                push_new(&mut ids, id);
            }
            conflicts.push(Conflict {
                name: "--index-url".to_string(),
                specifiers: distinct,
                ids,
                required_by: Vec::new(),
                would_raise: Vec::new(),
            });
        }
    }

    let planned: BTreeSet<String> = order.iter().cloned().collect();
    let mut requirements = Vec::new();
    let mut unsettled = Vec::new();
    for key in order {
        let gathered = packages.remove(&key).expect("every key in order is gathered");
        if gathered.from_index && index_url.is_none() {
            continue;
        }
        let mut texts: Vec<String> = Vec::new();
        for (text, _) in &gathered.specifiers {
            push_new(&mut texts, text);
        }
        let own = satisfiable(&texts);
        let mut required_by = Vec::new();
        let mut specifiers = texts.clone();
        if own {
            for (who, theirs) in requirers(installed, &key, &planned) {
                let together: Vec<String> = texts.iter().chain(&theirs).cloned().collect();
                if !satisfiable(&together) {
                    required_by.push(who);
                    for text in &theirs {
                        push_new(&mut specifiers, text);
                    }
                }
            }
        }
        if !own || !required_by.is_empty() {
            let mut ids = Vec::new();
            for (_, id) in &gathered.specifiers {
                push_new(&mut ids, id);
            }
            conflicts.push(Conflict {
                name: gathered.name,
                specifiers,
                ids,
                required_by,
                would_raise: Vec::new(),
            });
            continue;
        }
        let requirement = PlannedRequirement {
            name: gathered.name,
            extras: gathered.extras,
            specifier: tightest(&texts).join(","),
            fixes: gathered.fixes,
            from_index: gathered.from_index,
        };
        // The torch unit's version carries its index's build tag, which only
        // the index knows: it is judged after it is installed, not before.
        let tried = (!requirement.from_index)
            .then(|| candidate(&texts))
            .flatten()
            .map(|(version, pinned)| (trial.raises(&requirement.name, &version), version, pinned));
        match tried {
            Some((raised, _, true)) if !raised.is_empty() => {
                let mut ids = Vec::new();
                for (_, id) in &gathered.specifiers {
                    push_new(&mut ids, id);
                }
                conflicts.push(Conflict {
                    name: requirement.name,
                    specifiers: texts,
                    ids,
                    required_by: Vec::new(),
                    would_raise: raised,
                });
                continue;
            }
            Some((raised, version, false)) if !raised.is_empty() => unsettled.push(Unsettled {
                name: requirement.name.clone(),
                version,
                would_raise: raised,
            }),
            _ => {}
        }
        requirements.push(requirement);
    }
    // Only what is installed again is uninstalled first.
    uninstall.retain(|name| {
        let key = crate::packaging::normalize_name(name);
        requirements
            .iter()
            .any(|requirement| crate::packaging::normalize_name(&requirement.name) == key)
    });
    let steps = steps(
        installer,
        &requirements,
        index_url.as_deref(),
        &extra_indexes,
        &uninstall,
        upgrade,
    );
    Plan {
        schema: FIX_SCHEMA.to_string(),
        python: installer.python().display().to_string(),
        installer: installer.name().to_string(),
        requirements,
        index_url,
        command: command_line(&steps),
        steps: steps
            .into_iter()
            .map(|words| words.into_iter().map(|word| word.text).collect())
            .collect(),
        cannot_fix,
        conflicts,
        unsettled,
        apply: None,
    }
}

/// The specifiers without the bounds another one makes redundant: of
/// `>=0.14.4` and `>=0.16.0` only the second says anything, and of `<2` and
/// `<1.26` only the second. What cannot be read is kept as it is.
fn tightest(texts: &[String]) -> Vec<String> {
    let parsed: Vec<Option<VersionSpecifier>> =
        texts.iter().map(|text| VersionSpecifier::from_str(text).ok()).collect();
    let redundant = |mine: &VersionSpecifier| {
        parsed
            .iter()
            .flatten()
            .any(|other| match (mine.operator(), other.operator()) {
                (Operator::GreaterThanEqual, Operator::GreaterThanEqual | Operator::GreaterThan) => {
                    other.version() > mine.version()
                }
                (Operator::LessThan, Operator::LessThan | Operator::LessThanEqual) => other.version() < mine.version(),
                _ => false,
            })
    };
    texts
        .iter()
        .zip(&parsed)
        .filter(|(_, specifier)| !specifier.as_ref().is_some_and(redundant))
        .map(|(text, _)| text.clone())
        .collect()
}

/// The version a requirement's specifiers name: the `==` pin (`true`), or
/// else the highest lower bound (`>=`, `~=`), the oldest release they allow
/// (`false`). `None` when they name none (`<2`, `>1.0`, a wildcard pin).
fn candidate(texts: &[String]) -> Option<(String, bool)> {
    let specifiers: Vec<VersionSpecifier> = texts
        .iter()
        .filter_map(|text| VersionSpecifier::from_str(text).ok())
        .collect();
    if let Some(pin) = specifiers
        .iter()
        .find(|specifier| matches!(specifier.operator(), Operator::Equal | Operator::ExactEqual))
    {
        return Some((pin.version().to_string(), true));
    }
    specifiers
        .iter()
        .filter(|specifier| matches!(specifier.operator(), Operator::GreaterThanEqual | Operator::TildeEqual))
        .map(VersionSpecifier::version)
        .max()
        .map(|version| (version.to_string(), false))
}

/// Each install's requirements, parsed; `None` when one is not a plain
/// named requirement (a URL, a marker, a file): such a fix stays as it is.
fn read_installs(installs: Vec<PipInstall>) -> Option<Vec<(PipInstall, Vec<Requirement<VerbatimUrl>>)>> {
    installs
        .into_iter()
        .map(|install| {
            let requirements = install
                .requirements
                .iter()
                .map(|word| {
                    let requirement = crate::packaging::names::parse_requirement(word).ok()?;
                    let plain = requirement.marker.is_true()
                        && !matches!(requirement.version_or_url, Some(VersionOrUrl::Url(_)));
                    plain.then_some(requirement)
                })
                .collect::<Option<Vec<_>>>()?;
            Some((install, requirements))
        })
        .collect()
}

/// The installed packages the plan does not install whose unconditional
/// requirements name the package `key` with a version: who said it (`pandas
/// 2.2.3 requires numpy>=1.26.0`), and the specifiers. A requirement under a
/// marker is left out: whether it applies here is pip's to say.
fn requirers(installed: &[Package], key: &str, planned: &BTreeSet<String>) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    for package in installed {
        let own = crate::packaging::normalize_name(&package.name);
        if own == key || planned.contains(&own) {
            continue;
        }
        for line in &package.requires_dist {
            let Ok(requirement) = crate::packaging::names::parse_requirement(line) else {
                continue;
            };
            if !requirement.marker.is_true() || crate::packaging::normalize_name(requirement.name.as_ref()) != key {
                continue;
            }
            if let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &requirement.version_or_url {
                let version = package.version.as_deref().unwrap_or("(no version)");
                found.push((
                    format!("{} {version} requires {line}", package.name),
                    specifiers.iter().map(ToString::to_string).collect(),
                ));
            }
        }
    }
    found
}

fn push_new(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|present| present == item) {
        list.push(item.to_string());
    }
}

/// Whether some version may satisfy every specifier, as far as can be
/// decided without the index: `false` for an `==` pin that another
/// specifier rejects (when every pin is rejected), and for a lower bound at
/// or above an upper bound. Unparsable specifiers are left to pip.
fn satisfiable(texts: &[String]) -> bool {
    let Some(specifiers) = texts
        .iter()
        .map(|text| VersionSpecifier::from_str(text).ok())
        .collect::<Option<Vec<_>>>()
    else {
        return true;
    };
    let contains_all = |version: &Version| specifiers.iter().all(|specifier| specifier.contains(version));
    let pins: Vec<&Version> = specifiers
        .iter()
        .filter(|specifier| matches!(specifier.operator(), Operator::Equal | Operator::ExactEqual))
        .map(VersionSpecifier::version)
        .collect();
    if !pins.is_empty() && !pins.iter().any(|pin| contains_all(pin)) {
        return false;
    }
    for lower in &specifiers {
        let strict_lower = match lower.operator() {
            Operator::GreaterThanEqual | Operator::TildeEqual => false,
            Operator::GreaterThan => true,
            _ => continue,
        };
        for upper in &specifiers {
            let strict_upper = match upper.operator() {
                Operator::LessThanEqual => false,
                Operator::LessThan => true,
                _ => continue,
            };
            let (low, high) = (lower.version(), upper.version());
            if high < low || (high == low && (strict_lower || strict_upper)) {
                return false;
            }
        }
    }
    true
}

/// One word of a step: the installer's own words are written as they are,
/// every value (a path, a requirement, an index) is quoted for the shell.
#[derive(Debug, Clone, PartialEq)]
struct Word {
    text: String,
    quoted: bool,
}

fn literal(text: &str) -> Word {
    Word {
        text: text.to_string(),
        quoted: false,
    }
}

fn value(text: &str) -> Word {
    Word {
        text: text.to_string(),
        quoted: true,
    }
}

/// The steps of the plan, each one installer run: the uninstalls a torch
/// unit needs first, the torch unit from its index, then the rest from the
/// default index. `--apply` runs them as they are; the command line is the
/// same steps written for a shell, so the two cannot differ.
fn steps(
    installer: &Installer,
    requirements: &[PlannedRequirement],
    index_url: Option<&str>,
    extra_indexes: &[String],
    uninstall: &[String],
    upgrade: bool,
) -> Vec<Vec<Word>> {
    let install = |from_index: bool| {
        let chosen: Vec<&PlannedRequirement> = requirements
            .iter()
            .filter(|requirement| requirement.from_index == from_index)
            .collect();
        if chosen.is_empty() {
            return None;
        }
        let mut words = installer.words(Action::Install);
        if upgrade {
            words.push(literal("--upgrade"));
        }
        words.extend(chosen.iter().map(|requirement| value(&requirement.requirement())));
        if from_index && let Some(url) = index_url {
            words.extend([literal("--index-url"), value(url)]);
        }
        for url in extra_indexes {
            words.extend([literal("--extra-index-url"), value(url)]);
        }
        Some(words)
    };
    let mut steps = Vec::new();
    if !uninstall.is_empty() {
        let mut words = installer.words(Action::Uninstall);
        words.extend(uninstall.iter().map(|name| value(name)));
        steps.push(words);
    }
    steps.extend(install(true));
    steps.extend(install(false));
    // Uninstalling alone fixes nothing: a plan is what it installs.
    if steps.len() == usize::from(!uninstall.is_empty()) {
        return Vec::new();
    }
    steps
}

/// The steps as one shell command line, joined with `&&`.
fn command_line(steps: &[Vec<Word>]) -> Option<String> {
    let lines: Vec<String> = steps
        .iter()
        .map(|words| {
            words
                .iter()
                .map(|word| {
                    if word.quoted {
                        crate::shell::quote(&word.text)
                    } else {
                        word.text.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join(" && "))
}

/// The plan for people: the command, what each requirement fixes, what
/// cannot be fixed this way, and the conflicts.
pub fn text(plan: &Plan) -> String {
    use std::fmt::Write;
    let safe = |text: &str| crate::escape::controls(text).into_owned();
    let mut out = String::new();
    if !plan.has_work() {
        let _ = writeln!(out, "Nothing to fix for {}.", safe(&plan.python));
        return out;
    }
    match &plan.command {
        Some(command) => {
            let fixed: usize = {
                let mut ids: Vec<String> = Vec::new();
                for requirement in &plan.requirements {
                    for id in &requirement.fixes {
                        push_new(&mut ids, id);
                    }
                }
                ids.len()
            };
            let _ = writeln!(
                out,
                "One command fixes {} with {}:\n\n  {}\n",
                plural(fixed, "finding"),
                plural(plan.requirements.len(), "requirement"),
                safe(command)
            );
            let _ = writeln!(out, "What each requirement fixes:");
            let width = plan
                .requirements
                .iter()
                .map(|requirement| requirement.requirement().chars().count())
                .max()
                .unwrap_or(0);
            for requirement in &plan.requirements {
                let _ = writeln!(
                    out,
                    "  {}  {}",
                    crate::escape::padded(&safe(&requirement.requirement()), width),
                    safe(&requirement.fixes.join(", "))
                );
            }
        }
        None => {
            let _ = writeln!(
                out,
                "No command to run for {}: installing packages fixes none of the findings.",
                safe(&plan.python)
            );
        }
    }
    if !plan.conflicts.is_empty() {
        let _ = writeln!(
            out,
            "\nConflicts, left out of the command: no one version satisfies them together, or the one version\nthey allow would raise another finding here:"
        );
        for conflict in &plan.conflicts {
            let _ = writeln!(
                out,
                "  {}: {} (from {})",
                safe(&conflict.name),
                safe(&conflict.specifiers.join(" and ")),
                safe(&conflict.ids.join(", "))
            );
            for who in &conflict.required_by {
                let _ = writeln!(out, "    {}", safe(who));
            }
            if !conflict.would_raise.is_empty() {
                let _ = writeln!(out, "    would raise here: {}", safe(&conflict.would_raise.join(", ")));
            }
        }
    }
    if !plan.unsettled.is_empty() {
        let _ = writeln!(
            out,
            "\nNot decided before installing: pip installs the newest release that fits, which only the index knows,"
        );
        let _ = writeln!(out, "but the oldest one the plan allows would raise findings here:");
        for item in &plan.unsettled {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                safe(&item.name),
                safe(&item.version),
                safe(&item.would_raise.join(", "))
            );
        }
    }
    if !plan.cannot_fix.is_empty() {
        let _ = writeln!(out, "\nNot fixed by installing packages:");
        for item in &plan.cannot_fix {
            let fix = item.fix.as_deref().unwrap_or("(no fix known)");
            let _ = writeln!(out, "  {}: {}", safe(&item.id), safe(fix));
        }
    }
    if let Some(applied) = &plan.apply {
        out.push('\n');
        for line in applied.summary().lines() {
            let _ = writeln!(out, "{}", safe(line));
        }
    }
    out
}

/// `2 findings`, `1 requirement`. `report::plural` says the same, but
/// `report` renders plans, so the plan cannot call into it.
pub(crate) fn plural(count: usize, word: &str) -> String {
    format!("{count} {word}{}", if count == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::Severity;
    use std::path::PathBuf;

    const PYTHON: &str = "/opt/venv/bin/python";

    fn finding(id: &str, fix: Option<&str>) -> Finding {
        Finding {
            id: id.to_string(),
            origin: id.to_string(),
            severity: Severity::Error,
            title: String::new(),
            detail: String::new(),
            why: String::new(),
            fix: fix.map(str::to_string),
            fix_note: None,
            references: Vec::new(),
            unsettled: None,
        }
    }

    fn pip() -> Installer {
        Installer::Pip(PathBuf::from(PYTHON))
    }

    fn planned(findings: &[Finding]) -> Plan {
        plan(findings, &pip(), &[], &Untried)
    }

    #[test]
    fn every_specifier_that_spoke_is_one_requirement() {
        let plan = planned(&[
            finding(
                "ds-a",
                Some("'/opt/venv/bin/python' -m pip install \"deepspeed>=0.14.4\""),
            ),
            finding("ds-b", Some("pip install 'DeepSpeed>=0.16.0' 'numpy<2'")),
            finding("ds-c", Some("pip install deepspeed>=0.14.4")),
        ]);
        assert!(plan.conflicts.is_empty(), "{plan:?}");
        assert_eq!(plan.requirements.len(), 2);
        assert_eq!(plan.requirements[0].requirement(), "deepspeed>=0.16.0");
        assert_eq!(plan.requirements[0].fixes, ["ds-a", "ds-b", "ds-c"]);
        assert_eq!(plan.requirements[1].requirement(), "numpy<2");
        assert_eq!(
            plan.command.as_deref(),
            Some("'/opt/venv/bin/python' -m pip install 'deepspeed>=0.16.0' 'numpy<2'")
        );
        assert_eq!(plan.index_url, None);
    }

    #[test]
    fn an_empty_intersection_is_a_conflict_not_a_plan() {
        for (a, b) in [
            ("x==1.0", "x==2.0"),
            ("x==1.0", "x>=1.5"),
            ("x>=0.16.0", "x>=0.14.4,<0.15"),
            ("x>2", "x<=2"),
            ("x>=2", "x<2"),
        ] {
            let plan = planned(&[
                finding("one", Some(&format!("pip install '{a}'"))),
                finding("two", Some(&format!("pip install '{b}' 'y>=1'"))),
            ]);
            assert_eq!(plan.conflicts.len(), 1, "{a} {b}: {plan:?}");
            assert_eq!(plan.conflicts[0].name, "x");
            assert_eq!(plan.conflicts[0].ids, ["one", "two"]);
            // The rest of the plan stands.
            assert_eq!(plan.requirements.len(), 1, "{a} {b}");
            assert_eq!(plan.requirements[0].name, "y");
        }
        for (a, b) in [("x==1.5", "x>=1.0,<2"), ("x>=2", "x<=2"), ("x~=1.4", "x!=1.4.2")] {
            let plan = planned(&[
                finding("one", Some(&format!("pip install '{a}'"))),
                finding("two", Some(&format!("pip install '{b}'"))),
            ]);
            assert!(plan.conflicts.is_empty(), "{a} {b}: {plan:?}");
        }
    }

    #[test]
    fn a_torch_install_is_one_unit_from_its_index() {
        let torch = "'/opt/venv/bin/python' -m pip uninstall -y torch torchvision && '/opt/venv/bin/python' -m pip install \"torch==2.9.1\" \"torchvision==0.24.1\" --index-url https://download.pytorch.org/whl/cu126";
        let plan = planned(&[
            finding("torch-cuda-mismatch", Some(torch)),
            finding("torch-too-old", Some("pip install 'torch>=2.3'")),
            finding("numpy-2", Some("pip install 'numpy<2'")),
            finding("driver-too-old", Some("Install NVIDIA driver 560 or newer")),
            finding("no-fix", None),
        ]);
        assert!(plan.conflicts.is_empty(), "{plan:?}");
        assert_eq!(
            plan.index_url.as_deref(),
            Some("https://download.pytorch.org/whl/cu126")
        );
        let requirements: Vec<String> = plan.requirements.iter().map(PlannedRequirement::requirement).collect();
        assert_eq!(requirements, ["torch==2.9.1,>=2.3", "torchvision==0.24.1", "numpy<2"]);
        assert_eq!(plan.requirements[0].fixes, ["torch-cuda-mismatch", "torch-too-old"]);
        assert_eq!(
            plan.command.as_deref(),
            Some(
                "'/opt/venv/bin/python' -m pip uninstall -y 'torch' 'torchvision' \
                 && '/opt/venv/bin/python' -m pip install 'torch==2.9.1,>=2.3' 'torchvision==0.24.1' \
                 --index-url 'https://download.pytorch.org/whl/cu126' \
                 && '/opt/venv/bin/python' -m pip install 'numpy<2'"
            )
        );
        let cannot: Vec<&str> = plan.cannot_fix.iter().map(|item| item.id.as_str()).collect();
        assert_eq!(cannot, ["driver-too-old", "no-fix"]);
        assert!(plan.has_work());
        // A torch pin the other rule rejects is a conflict.
        let plan = planned(&[
            finding("torch-cuda-mismatch", Some(torch)),
            finding("torch-too-new", Some("pip install 'torch<2.9'")),
        ]);
        assert_eq!(plan.conflicts[0].name, "torch");
        assert_eq!(
            plan.command.as_deref(),
            Some(
                "'/opt/venv/bin/python' -m pip uninstall -y 'torchvision' && '/opt/venv/bin/python' -m pip install \
                 'torchvision==0.24.1' --index-url 'https://download.pytorch.org/whl/cu126'"
            )
        );
    }

    #[test]
    fn a_plan_that_breaks_an_installed_package_is_a_conflict() {
        let pandas = Package {
            name: "pandas".to_string(),
            version: Some("2.2.3".to_string()),
            requires_dist: vec![
                "numpy>=1.26.0".to_string(),
                "numpy<1.20; python_version < \"3.0\"".to_string(),
                "pytz>=2020.1".to_string(),
            ],
            ..Package::default()
        };
        let findings = [
            finding("numpy-old", Some("pip install 'numpy<1.20'")),
            finding("pytz-old", Some("pip install 'pytz>=2024.1'")),
        ];
        let broken = plan(&findings, &pip(), std::slice::from_ref(&pandas), &Untried);
        assert_eq!(
            broken.conflicts,
            [Conflict {
                name: "numpy".to_string(),
                specifiers: vec!["<1.20".to_string(), ">=1.26.0".to_string()],
                ids: vec!["numpy-old".to_string()],
                required_by: vec!["pandas 2.2.3 requires numpy>=1.26.0".to_string()],
                would_raise: Vec::new(),
            }]
        );
        assert_eq!(broken.requirements.len(), 1);
        assert_eq!(broken.requirements[0].requirement(), "pytz>=2024.1");
        // A package the plan installs again is not held to what it requires now.
        let findings = [
            finding("numpy-old", Some("pip install 'numpy<1.20'")),
            finding("pandas-old", Some("pip install 'pandas<2'")),
        ];
        let again = plan(&findings, &pip(), &[pandas], &Untried);
        assert!(again.conflicts.is_empty(), "{again:?}");
    }

    #[test]
    fn nothing_to_fix_is_an_empty_plan() {
        let plan = planned(&[]);
        assert!(!plan.has_work());
        assert_eq!(plan.command, None);
    }
}
