//! Reads one rule file into a [`Rule`] (or a symptom entry into a
//! [`SymptomEntry`]) with the knowledge files' reader
//! (`crate::knowledge::reader`), collecting every problem in it (not just the
//! first) with its line and column, the way `matrix lint` reports them.

use std::ops::Range;
use std::path::Path;
use std::str::FromStr;

use pep440_rs::VersionSpecifiers;
use toml_edit::{Item, TableLike};

use super::rule::*;
use super::template;
use crate::calendar::Date;
use crate::findings::Severity;
use crate::knowledge::reader::Reader;
use crate::located::Located;

const RULE_KEYS: &[&str] = &[
    "id",
    "title",
    "severity",
    "message",
    "why",
    "fix",
    "fix_note",
    "fix_torch",
    "references",
    "checked",
    "symptoms",
    "withdrawn",
    "when",
];
const WHEN_KEYS: &[&str] = &[
    "packages",
    "pre_releases_ordered",
    "python",
    "glibc",
    "driver",
    "driver_cuda",
    "torch_cuda",
    "cuda_toolkit",
    "host_gcc",
    "gpu_count",
    "compat_libcuda_newer_than_driver",
    "any_gpu",
    "all_gpus",
    "env",
    "platform",
    "deepspeed_config",
    "accelerate_config",
];

const SYMPTOM_ENTRY_KEYS: &[&str] = &[
    "id",
    "title",
    "why",
    "fix",
    "fix_note",
    "references",
    "checked",
    "symptoms",
    "when",
    "not_on",
    "framework",
];
const SYMPTOMS_KEYS: &[&str] = &[
    "messages",
    "shared_messages",
    "exceptions",
    "devices",
    "frames",
    "reported",
    "confirmed_by",
    "generalizes",
];

/// Parses `text` (the contents of `path`) into a rule, or every problem in it.
/// `expected_id` is the file's stem, which the id must equal.
pub fn rule(path: &Path, text: &str, expected_id: &str) -> Result<Rule, Vec<Located>> {
    let mut reader = Reader::new(path, text);
    let Some(document) = reader.document("not TOML") else {
        return Err(reader.into_problems());
    };
    let root = document.as_table();
    reader.unknown_keys(root, RULE_KEYS, "a rule");

    let id = checked_id(&mut reader, root, expected_id);
    let title = one_line(&mut reader, root, "title");
    let severity = reader.required_string(root, "severity").and_then(|text| {
        let severity = Severity::parse(&text);
        if severity.is_none() {
            let span = root.get("severity").and_then(Item::span);
            reader.problem(span, format!("severity `{text}` must be one of: error, warning, info"));
        }
        severity
    });
    let message = reader.required_string(root, "message");
    let why = reader.required_string(root, "why");
    let (fix, fix_note) = fix_and_note(&mut reader, root);
    let fix_torch = torch_fix(&mut reader, root, fix.as_deref());
    let references = references(&mut reader, root, "every rule cites its upstream source");
    let checked = checked_date(&mut reader, root);
    let symptoms = root
        .get("symptoms")
        .map(|item| symptoms(&mut reader, item))
        .unwrap_or_default();
    let withdrawn = root.get("withdrawn").and_then(|item| reader.string(item, "withdrawn"));
    let when = match root.get("when") {
        Some(item) => reader.table(item, "when").map(|table| when(&mut reader, table)),
        None => {
            reader.problem(None, "missing required table `[when]`");
            None
        }
    };
    if let (Some(message), Some(when)) = (&message, &when) {
        for problem in template::problems(message, when) {
            let span = root.get("message").and_then(Item::span);
            reader.problem(span, problem);
        }
    }

    reader.finish()?;
    let missing = "validated above";
    Ok(Rule {
        id: id.expect(missing),
        title: title.expect(missing),
        severity: severity.expect(missing),
        message: message.expect(missing),
        why: why.expect(missing),
        fix: fix.expect(missing),
        fix_note,
        fix_torch,
        references,
        checked: checked.expect(missing),
        symptoms,
        withdrawn,
        when: when.expect(missing),
        path: path.to_path_buf(),
        site: None,
        text: text.to_string(),
    })
}

/// Parses a symptom entry (`compat-matrix/symptoms/*.toml`), or every problem in it.
pub fn symptom_entry(path: &Path, text: &str, expected_id: &str) -> Result<SymptomEntry, Vec<Located>> {
    let mut reader = Reader::new(path, text);
    let Some(document) = reader.document("not TOML") else {
        return Err(reader.into_problems());
    };
    let root = document.as_table();
    reader.unknown_keys(root, SYMPTOM_ENTRY_KEYS, "a symptom entry");
    let id = checked_id(&mut reader, root, expected_id);
    let title = one_line(&mut reader, root, "title");
    let why = reader.required_string(root, "why");
    let (fix, fix_note) = fix_and_note(&mut reader, root);
    let references = references(
        &mut reader,
        root,
        "every symptom entry cites where the cause is documented",
    );
    let checked = checked_date(&mut reader, root);
    let symptoms = match root.get("symptoms") {
        Some(item) if item.is_table_like() => Some(symptoms(&mut reader, item)),
        Some(item) => {
            reader.problem(item.span(), "`symptoms` must be a table (`[symptoms]`)");
            None
        }
        None => {
            reader.problem(None, "missing required table `[symptoms]`");
            None
        }
    };
    if let Some(symptoms) = &symptoms
        && symptoms.reported.is_empty()
    {
        let span = root.get("symptoms").and_then(Item::span);
        reader.problem(
            span,
            "`symptoms.reported` is missing: a symptom entry cites where users reported it",
        );
    }
    let when = root
        .get("when")
        .and_then(|item| reader.table(item, "when").map(|table| when(&mut reader, table)))
        .unwrap_or_default();
    let not_on = root
        .get("not_on")
        .and_then(|item| reader.table(item, "not_on"))
        .map(|table| not_on(&mut reader, table))
        .unwrap_or_default();
    let framework = root.get("framework").and_then(|item| framework(&mut reader, item));
    reader.finish()?;
    let missing = "validated above";
    Ok(SymptomEntry {
        id: id.expect(missing),
        title: title.expect(missing),
        why: why.expect(missing),
        fix: fix.expect(missing),
        fix_note,
        references,
        checked: checked.expect(missing),
        symptoms: symptoms.expect(missing),
        when,
        not_on,
        framework,
        path: path.to_path_buf(),
        site: None,
        text: text.to_string(),
    })
}

/// `[not_on]`: the systems where the cause cannot happen, each with the
/// reason in words (`macOS = "no torch build for macOS has CUDA ..."`).
fn not_on(reader: &mut Reader, table: &dyn TableLike) -> Vec<(System, String)> {
    let mut systems = Vec::new();
    for (key, item) in table.iter() {
        let Some(system) = System::named(key) else {
            reader.problem(
                item.span(),
                format!("`not_on.{key}` is no system explain tells apart (expected one of: Windows, macOS)"),
            );
            continue;
        };
        if let Some(reason) = reader.string(item, &format!("not_on.{key}")) {
            systems.push((system, reason));
        }
    }
    systems
}

/// `framework`: the framework whose own build the cause is about (`"torch"`).
fn framework(reader: &mut Reader, item: &Item) -> Option<Framework> {
    let name = reader.string(item, "framework")?;
    let framework = Framework::named(&name);
    if framework.is_none() {
        let known: Vec<&str> = Framework::ALL.iter().map(|framework| framework.name()).collect();
        reader.problem(
            item.span(),
            format!(
                "`framework = \"{name}\"` is no framework explain tells apart (expected one of: {})",
                known.join(", ")
            ),
        );
    }
    framework
}

/// A required string every report shows on one line (an id, a title): a
/// control character in it could forge a line of its own.
fn one_line(reader: &mut Reader, root: &dyn TableLike, key: &str) -> Option<String> {
    if let Some(item) = root.get(key)
        && item.as_str().is_some_and(|text| text.chars().any(char::is_control))
    {
        reader.problem(
            item.span(),
            format!("`{key}` holds a control character; it must be one line"),
        );
        return None;
    }
    reader.required_string(root, key)
}

fn checked_id(reader: &mut Reader, root: &dyn TableLike, expected_id: &str) -> Option<String> {
    let id = one_line(reader, root, "id");
    if let Some(id) = &id {
        let span = root.get("id").and_then(Item::span);
        if !is_kebab_case(id) {
            reader.problem(span.clone(), format!("id `{id}` must be kebab-case (a-z, 0-9, -)"));
        }
        if id != expected_id {
            reader.problem(span, format!("id `{id}` must equal the file name `{expected_id}`"));
        }
    }
    id
}

/// `fix`, which must be one command a person can paste, or an action in
/// words (`fix_command::one_command`), and the optional `fix_note` that
/// carries what a comment or parentheses inside it would have said.
fn fix_and_note(reader: &mut Reader, root: &dyn TableLike) -> (Option<String>, Option<String>) {
    let fix = reader.required_string(root, "fix");
    if let Some(fix) = &fix
        && let Err(problem) = crate::fix_command::one_command(fix)
    {
        let span = root.get("fix").and_then(Item::span);
        reader.problem(span, format!("`fix` is not one command: {problem}"));
    }
    let note = root.get("fix_note").and_then(|item| reader.string(item, "fix_note"));
    (fix, note)
}

/// `fix_torch`: the torch versions a fix may install. A fix written out that
/// installs torch is refused: written once, it cannot know which of
/// torchvision and torchaudio the node has, nor which index its driver and
/// GPUs can use.
fn torch_fix(reader: &mut Reader, root: &dyn TableLike, fix: Option<&str>) -> Option<TorchFix> {
    let Some(item) = root.get("fix_torch") else {
        if let Some(fix) = fix
            && installs_torch(fix)
        {
            let span = root.get("fix").and_then(Item::span);
            reader.problem(
                span,
                "`fix` installs torch: set `fix_torch` to the torch versions it may install (\"*\" or a specifier \
                 set), so the command is made for the node, with its torchvision and torchaudio",
            );
        }
        return None;
    };
    if item.as_str().map(str::trim) == Some("*") {
        return Some(TorchFix::Any);
    }
    spec(reader, item, "fix_torch").map(TorchFix::Within)
}

/// Whether a command names torch itself as something to install (`"torch>=2.6"`,
/// `torch==2.5.1`), not torchvision or a package that merely mentions it.
fn installs_torch(fix: &str) -> bool {
    // The command only: a shell comment after it may name torch freely.
    let command = fix.split(" #").next().unwrap_or(fix);
    command.contains("pip install")
        && command.match_indices("torch").any(|(at, _)| {
            let before = command[..at].chars().next_back();
            let after = command[at + "torch".len()..].chars().next();
            matches!(before, None | Some(' ' | '"' | '\''))
                && matches!(after, Some('=' | '<' | '>' | '~' | '!' | '"' | ' ') | None)
        })
}

/// `checked = "YYYY-MM-DD"`: the day the sources were last read against the
/// file, so `matrix list` can show how old the knowledge is. A day after today
/// is a typo, not a promise.
fn checked_date(reader: &mut Reader, root: &dyn TableLike) -> Option<Date> {
    let Some(item) = root.get("checked") else {
        reader.problem(
            None,
            "missing required key `checked`: the date (YYYY-MM-DD) its references were last checked",
        );
        return None;
    };
    let date = reader.date(item, "checked")?;
    // A date after today is a typo that `matrix lint` reports
    // ([`super::dated_after`]); reading does not depend on the node's clock,
    // which may be a day behind the day a rule was checked.
    Some(date)
}

fn references(reader: &mut Reader, root: &dyn TableLike, why_required: &str) -> Vec<String> {
    match root.get("references") {
        Some(item) => urls(reader, item, "references", "reference"),
        None => {
            reader.problem(None, format!("missing required key `references`: {why_required}"));
            Vec::new()
        }
    }
}

fn urls(reader: &mut Reader, item: &Item, key: &str, noun: &str) -> Vec<String> {
    let urls = reader.strings(item, key);
    for url in &urls {
        if !url.starts_with("https://") {
            reader.problem(item.span(), format!("{noun} `{url}` must be an https:// URL"));
        }
    }
    urls
}

/// `symptoms = ["message", ...]` (messages only) or a `[symptoms]` table.
fn symptoms(reader: &mut Reader, item: &Item) -> Symptoms {
    let mut symptoms = Symptoms::default();
    if item.as_str().is_some() || item.as_array().is_some() {
        symptoms.messages = reader.strings(item, "symptoms");
        return symptoms;
    }
    let Some(table) = reader.table(item, "symptoms") else {
        return symptoms;
    };
    reader.unknown_keys(table, SYMPTOMS_KEYS, "[symptoms]");
    for (key, item) in table.iter() {
        match key {
            "messages" => symptoms.messages = reader.strings(item, "symptoms.messages"),
            "shared_messages" => symptoms.shared_messages = reader.strings(item, "symptoms.shared_messages"),
            "exceptions" => symptoms.exceptions = reader.strings(item, "symptoms.exceptions"),
            "devices" => {
                for text in reader.strings(item, "symptoms.devices") {
                    match DevicePair::parse(&text) {
                        Some(pair) => symptoms.devices.push(pair),
                        None => reader.problem(
                            item.span(),
                            format!(
                                "device pair `{text}` must be two of cuda, cpu, meta, mps, xpu joined by `+`, like \"cuda+cpu\""
                            ),
                        ),
                    }
                }
            }
            "frames" => symptoms.frames = frames(reader, item),
            "reported" => symptoms.reported = urls(reader, item, "symptoms.reported", "report"),
            "confirmed_by" => {
                symptoms.confirmed_by = reader.strings(item, "symptoms.confirmed_by");
                for id in &symptoms.confirmed_by {
                    if !super::confirmable::KNOWN.contains(&id.as_str()) {
                        let known = super::confirmable::KNOWN.join(", ");
                        reader.problem(
                            item.span(),
                            format!("`{id}` in symptoms.confirmed_by is no finding explain can test on the node; known: {known}"),
                        );
                    }
                }
            }
            "generalizes" => symptoms.generalizes = reader.strings(item, "symptoms.generalizes"),
            _ => {} // reported by known_keys
        }
    }
    if symptoms.is_empty() {
        reader.problem(item.span(), "[symptoms] has no messages, exceptions, devices or frames");
    }
    if !symptoms.shared_messages.is_empty() && symptoms.confirmed_by.is_empty() && symptoms.frames.is_empty() {
        reader.problem(
            item.span(),
            "symptoms.shared_messages name the cause only where a check finds it on the node or a frame of its code path shows it: name the check in symptoms.confirmed_by, or the frames",
        );
    }
    symptoms
}

/// `frames = [{ file = "...", function = "..." }]` or `[[symptoms.frames]]` tables.
fn frames(reader: &mut Reader, item: &Item) -> Vec<FramePattern> {
    let tables: Vec<(&dyn TableLike, Option<Range<usize>>)> = if let Some(array) = item.as_array() {
        array
            .iter()
            .filter_map(|value| match value.as_inline_table() {
                Some(table) => Some((table as &dyn TableLike, value.span())),
                None => {
                    reader.problem(
                        value.span(),
                        "`symptoms.frames` entries must be tables: { file = \"..\", function = \"..\" }",
                    );
                    None
                }
            })
            .collect()
    } else if let Some(array) = item.as_array_of_tables() {
        array
            .iter()
            .map(|table| (table as &dyn TableLike, table.span()))
            .collect()
    } else {
        reader.problem(item.span(), "`symptoms.frames` must be an array of tables");
        return Vec::new();
    };
    let mut frames = Vec::new();
    for (table, span) in tables {
        reader.unknown_keys(table, &["file", "function"], "a symptoms.frames entry");
        let file = match table.get("file") {
            Some(item) => reader.string(item, "file"),
            None => {
                reader.problem(span, "a symptoms.frames entry needs `file`");
                None
            }
        };
        let function = table.get("function").and_then(|item| reader.string(item, "function"));
        if let Some(file) = file {
            frames.push(FramePattern { file, function });
        }
    }
    frames
}

/// A PEP 440 specifier set with at least one specifier.
fn spec(reader: &mut Reader, item: &Item, key: &str) -> Option<Spec> {
    let text = reader.string(item, key)?;
    match VersionSpecifiers::from_str(&text) {
        Ok(specifiers) if !specifiers.is_empty() => Some(Spec { text, specifiers }),
        Ok(_) => {
            reader.problem(item.span(), format!("`{key}` has no specifier"));
            None
        }
        Err(error) => {
            reader.problem(item.span(), format!("`{key}` is not a PEP 440 specifier set: {error}"));
            None
        }
    }
}

fn is_kebab_case(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn when(reader: &mut Reader, table: &dyn TableLike) -> When {
    reader.unknown_keys(table, WHEN_KEYS, "[when]");
    let mut when = When::default();
    if table.is_empty() {
        reader.problem(
            table.get("").and_then(Item::span),
            "[when] is empty: a rule needs at least one condition",
        );
    }
    for (key, item) in table.iter() {
        match key {
            "packages" => when.packages = packages(reader, item),
            "python" => when.python = spec(reader, item, key),
            "glibc" => when.glibc = spec(reader, item, key),
            "driver" => when.driver = spec(reader, item, key),
            "driver_cuda" => when.driver_cuda = spec(reader, item, key),
            "torch_cuda" => when.torch_cuda = spec(reader, item, key),
            "cuda_toolkit" => when.cuda_toolkit = spec(reader, item, key),
            "host_gcc" => when.host_gcc = spec(reader, item, key),
            "gpu_count" => when.gpu_count = spec(reader, item, key),
            "compat_libcuda_newer_than_driver" => when.compat_libcuda_newer_than_driver = reader.boolean(item, key),
            "any_gpu" => when.any_gpu = gpu(reader, item, key),
            "all_gpus" => when.all_gpus = gpu(reader, item, key),
            "env" => when.env = env(reader, item),
            "platform" => when.platform = platform(reader, item),
            "deepspeed_config" => when.deepspeed_config = deepspeed(reader, item),
            "accelerate_config" => when.accelerate_config = accelerate(reader, item),
            "pre_releases_ordered" => when.pre_releases_ordered = reader.boolean(item, key).unwrap_or(false),
            _ => {} // reported by known_keys
        }
    }
    when
}

fn packages(reader: &mut Reader, item: &Item) -> Vec<(String, PackageCondition)> {
    let Some(table) = reader.table(item, "packages") else {
        return Vec::new();
    };
    let mut packages = Vec::new();
    for (name, item) in table.iter() {
        let key = format!("packages.{name}");
        let condition = match item.as_str().map(str::trim) {
            Some("*") => Some(PackageCondition::Installed),
            Some("absent") => Some(PackageCondition::Absent),
            _ => spec(reader, item, &key).map(PackageCondition::Version),
        };
        if let Some(condition) = condition {
            packages.push((name.to_string(), condition));
        }
    }
    if packages.is_empty() && table.is_empty() {
        reader.problem(item.span(), "`packages` is empty");
    }
    packages
}

fn gpu(reader: &mut Reader, item: &Item, key: &str) -> Option<GpuCondition> {
    let table = reader.table(item, key)?;
    reader.unknown_keys(table, &["compute_capability", "name", "memory_mib"], key);
    let mut condition = GpuCondition::default();
    for (field, item) in table.iter() {
        match field {
            "compute_capability" => condition.compute_capability = spec(reader, item, field),
            "name" => condition.name = reader.strings(item, field),
            "memory_mib" => condition.memory_mib = spec(reader, item, field),
            _ => {}
        }
    }
    if table.is_empty() {
        reader.problem(item.span(), format!("`{key}` has no condition"));
    }
    Some(condition)
}

fn env(reader: &mut Reader, item: &Item) -> Vec<(String, EnvCondition)> {
    let Some(table) = reader.table(item, "env") else {
        return Vec::new();
    };
    let mut conditions = Vec::new();
    for (name, item) in table.iter() {
        let context = format!("env.{name}");
        let Some(condition) = reader.table(item, &context) else {
            continue;
        };
        reader.unknown_keys(condition, &["set", "equals", "differs", "contains"], &context);
        if condition.len() != 1 {
            reader.problem(
                item.span(),
                format!("`{context}` must have exactly one of: set, equals, differs, contains"),
            );
            continue;
        }
        let parsed = if let Some(item) = condition.get("set") {
            reader.boolean(item, "set").map(EnvCondition::Set)
        } else if let Some(item) = condition.get("equals") {
            item.as_str().map(|value| EnvCondition::Equals(value.to_string()))
        } else if let Some(item) = condition.get("differs") {
            item.as_str().map(|value| EnvCondition::Differs(value.to_string()))
        } else if let Some(item) = condition.get("contains") {
            item.as_str()
                .filter(|value| !value.is_empty())
                .map(|value| EnvCondition::Contains(value.to_string()))
        } else {
            None
        };
        match parsed {
            Some(parsed) => conditions.push((name.to_string(), parsed)),
            None => reader.problem(
                item.span(),
                format!(
                    "`{context}` must be {{ set = bool }}, {{ equals = \"..\" }}, {{ differs = \"..\" }} or {{ contains = \"..\" }} (not empty)"
                ),
            ),
        }
    }
    conditions
}

fn platform(reader: &mut Reader, item: &Item) -> Option<PlatformCondition> {
    let table = reader.table(item, "platform")?;
    reader.unknown_keys(table, &["machine", "os_id"], "platform");
    let mut condition = PlatformCondition::default();
    for (field, item) in table.iter() {
        match field {
            "machine" => condition.machine = reader.strings(item, field),
            "os_id" => condition.os_id = reader.strings(item, field),
            _ => {}
        }
    }
    Some(condition)
}

fn deepspeed(reader: &mut Reader, item: &Item) -> Option<DeepSpeedCondition> {
    let table = reader.table(item, "deepspeed_config")?;
    let keys = [
        "zero_stage",
        "offload_optimizer_device",
        "offload_param_device",
        "bf16",
        "fp16",
    ];
    reader.unknown_keys(table, &keys, "[when.deepspeed_config]");
    let mut condition = DeepSpeedCondition::default();
    for (field, item) in table.iter() {
        match field {
            "zero_stage" => condition.zero_stage = stages(reader, item),
            "offload_optimizer_device" => condition.offload_optimizer_device = reader.strings(item, field),
            "offload_param_device" => condition.offload_param_device = reader.strings(item, field),
            "bf16" => condition.bf16 = reader.boolean(item, field),
            "fp16" => condition.fp16 = reader.boolean(item, field),
            _ => {}
        }
    }
    if table.is_empty() {
        reader.problem(item.span(), "[when.deepspeed_config] has no condition");
    }
    Some(condition)
}

fn stages(reader: &mut Reader, item: &Item) -> Vec<u64> {
    let values: Vec<_> = match item.as_array() {
        Some(array) => array.iter().map(|value| (value.as_integer(), value.span())).collect(),
        None => vec![(item.as_integer(), item.span())],
    };
    let mut stages = Vec::new();
    for (value, span) in values {
        match value {
            Some(stage @ 0..=3) => stages.push(stage as u64),
            _ => reader.problem(span, "`zero_stage` must be an integer 0-3 or an array of them"),
        }
    }
    stages
}

fn accelerate(reader: &mut Reader, item: &Item) -> Option<AccelerateCondition> {
    let table = reader.table(item, "accelerate_config")?;
    reader.unknown_keys(
        table,
        &["distributed_type", "num_processes", "mixed_precision"],
        "[when.accelerate_config]",
    );
    let mut condition = AccelerateCondition::default();
    for (field, item) in table.iter() {
        match field {
            "distributed_type" => condition.distributed_type = reader.strings(item, field),
            "num_processes" => condition.num_processes = spec(reader, item, field),
            "mixed_precision" => condition.mixed_precision = reader.strings(item, field),
            _ => {}
        }
    }
    if table.is_empty() {
        reader.problem(item.span(), "[when.accelerate_config] has no condition");
    }
    Some(condition)
}

#[cfg(test)]
mod tests {
    /// A file of the shipped matrix, by its path under compat-matrix/.
    fn shipped(relative: &str) -> String {
        let path = format!("{}/compat-matrix/{relative}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
    }

    /// Issue 20: a site rule's title reaches every report's one-line heading.
    #[test]
    fn a_title_or_id_over_several_lines_is_refused() {
        let path = std::path::Path::new("rules/x.toml");
        let text = shipped("rules/deepspeed-zero3-offload-device-mismatch.toml");
        let id = "deepspeed-zero3-offload-device-mismatch";
        assert!(super::rule(path, &text, id).is_ok());
        let forged = text.replacen("title = \"", "title = \"x\\nFORGED \\u001b[31m", 1);
        let errors = super::rule(path, &forged, id).unwrap_err();
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            shown
                .iter()
                .any(|error| error.contains("`title` holds a control character")),
            "{shown:?}"
        );
    }

    /// A message a class of failure shares names its cause only through a
    /// check of the node or a frame of the cause's code path, so an entry
    /// that lists one names the check or the frames.
    #[test]
    fn shared_messages_without_a_check_that_confirms_them_are_refused() {
        let path = std::path::Path::new("symptoms/torch-build-lacks-gpu-arch.toml");
        let text = shipped("symptoms/torch-build-lacks-gpu-arch.toml");
        let id = "torch-build-lacks-gpu-arch";
        let entry = super::symptom_entry(path, &text, id).unwrap();
        assert!(
            entry
                .symptoms
                .shared_messages
                .contains(&"CUDNN_STATUS_EXECUTION_FAILED".to_string())
        );
        let unchecked = text.replace("confirmed_by = [\"gpu-arch-not-in-torch-build\"]\n", "");
        assert_ne!(unchecked, text);
        let errors = super::symptom_entry(path, &unchecked, id).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|error| error.to_string().contains("name the check in symptoms.confirmed_by")),
            "{errors:?}"
        );
        // A device mismatch's argument is named by a frame of its cause's code path.
        let path = std::path::Path::new("symptoms/inputs-not-on-model-device.toml");
        let text = shipped("symptoms/inputs-not-on-model-device.toml");
        let id = "inputs-not-on-model-device";
        let entry = super::symptom_entry(path, &text, id).unwrap();
        assert!(!entry.symptoms.shared_messages.is_empty() && entry.symptoms.confirmed_by.is_empty());
        let frameless = text[..text.find("frames = [").unwrap()].to_string() + "reported = []\n";
        let errors = super::symptom_entry(path, &frameless, id).unwrap_err();
        assert!(
            errors.iter().any(|error| error.to_string().contains("or the frames")),
            "{errors:?}"
        );
    }

    /// `[not_on]` names only systems a log can show, each with its reason.
    #[test]
    fn a_system_a_cause_cannot_happen_on_is_one_explain_tells_apart() {
        let path = std::path::Path::new("symptoms/torch-cpu-only-build.toml");
        let text = shipped("symptoms/torch-cpu-only-build.toml");
        let id = "torch-cpu-only-build";
        let entry = super::symptom_entry(path, &text, id).unwrap();
        assert_eq!(entry.not_on.len(), 1);
        assert_eq!(entry.not_on[0].0, super::System::MacOs);
        let reason_line = text.lines().find(|line| line.starts_with("macOS = ")).unwrap();
        for (forged, problem) in [
            (text.replace("\nmacOS = ", "\nLinux = "), "`not_on.Linux` is no system"),
            (text.replace(reason_line, "macOS = \"  \""), "`not_on.macOS` is empty"),
        ] {
            let errors = super::symptom_entry(path, &forged, id).unwrap_err();
            let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
            assert!(shown.iter().any(|error| error.contains(problem)), "{shown:?}");
        }
    }

    /// `framework` names one of the frameworks a log's lines can show.
    #[test]
    fn the_framework_a_cause_is_about_is_one_explain_tells_apart() {
        let path = std::path::Path::new("symptoms/torch-build-lacks-gpu-arch.toml");
        let text = shipped("symptoms/torch-build-lacks-gpu-arch.toml");
        let id = "torch-build-lacks-gpu-arch";
        let entry = super::symptom_entry(path, &text, id).unwrap();
        assert_eq!(entry.framework, Some(super::Framework::Torch));
        let forged = text.replace("framework = \"torch\"", "framework = \"keras\"");
        assert_ne!(forged, text);
        let errors = super::symptom_entry(path, &forged, id).unwrap_err();
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            shown
                .iter()
                .any(|error| error.contains("`framework = \"keras\"` is no framework")),
            "{shown:?}"
        );
        let shipped_without = shipped("symptoms/torch-cpu-only-build.toml");
        let entry = super::symptom_entry(path, &shipped_without, "torch-cpu-only-build").unwrap();
        assert_eq!(entry.framework, None);
    }

    #[test]
    fn a_fix_installs_torch_only_where_its_command_names_torch() {
        for fix in [
            "pip install \"torch>=2.6\"",
            "pip install torch --index-url https://download.pytorch.org/whl/cu126",
            "pip install 'torch==2.5.1' torchvision",
        ] {
            assert!(super::installs_torch(fix), "{fix}");
        }
        for fix in [
            "pip install \"torchvision==0.21.0\"",
            "pip install \"bitsandbytes>=0.50.0\"   # needs torch 2.4",
            "export TORCH_COMPILE_DISABLE=1",
            "pip install \"accelerate>=1.1.0\" # keeps torch",
        ] {
            assert!(!super::installs_torch(fix), "{fix}");
        }
    }
}
