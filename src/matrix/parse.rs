//! Reads one rule file into a [`Rule`], collecting every problem in it (not just
//! the first) with its line and column, the way `matrix lint` reports them.

use std::ops::Range;
use std::path::Path;
use std::str::FromStr;

use pep440_rs::VersionSpecifiers;
use toml_edit::{Item, TableLike};

use super::LintError;
use super::rule::*;
use super::template;
use crate::calendar::Date;
use crate::findings::Severity;
use crate::located::position;

const RULE_KEYS: &[&str] = &[
    "id",
    "title",
    "severity",
    "message",
    "why",
    "fix",
    "fix_torch",
    "references",
    "checked",
    "symptoms",
    "withdrawn",
    "when",
];
const WHEN_KEYS: &[&str] = &[
    "packages",
    "python",
    "glibc",
    "driver",
    "driver_cuda",
    "torch_cuda",
    "cuda_toolkit",
    "host_gcc",
    "gpu_count",
    "any_gpu",
    "all_gpus",
    "env",
    "platform",
    "deepspeed_config",
    "accelerate_config",
];

/// Problems found so far in one file, each placed at the span it concerns.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    errors: Vec<LintError>,
}

impl Reader<'_> {
    fn error(&mut self, span: Option<Range<usize>>, message: impl Into<String>) {
        let (line, column) = position(self.text, span.map_or(0, |span| span.start));
        self.errors.push(LintError {
            path: self.path.to_path_buf(),
            line,
            column,
            message: message.into(),
        });
    }

    /// Reports keys the format does not have: a typo must not silently turn a
    /// condition off.
    fn known_keys(&mut self, table: &dyn TableLike, allowed: &[&str], context: &str) {
        for (key, _) in table.iter() {
            if !allowed.contains(&key) {
                let span = table.get_key_value(key).and_then(|(key, _)| key.span());
                self.error(
                    span,
                    format!(
                        "unknown key `{key}` in {context} (expected one of: {})",
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    fn string(&mut self, item: &Item, key: &str) -> Option<String> {
        match item.as_str() {
            // An id or title is shown on one line of every report.
            Some(text) if matches!(key, "id" | "title") && text.chars().any(char::is_control) => {
                self.error(
                    item.span(),
                    format!("`{key}` holds a control character; it must be one line"),
                );
                None
            }
            Some(text) if !text.trim().is_empty() => Some(text.to_string()),
            Some(_) => {
                self.error(item.span(), format!("`{key}` is empty"));
                None
            }
            None => {
                self.error(item.span(), format!("`{key}` must be a string"));
                None
            }
        }
    }

    fn required_string(&mut self, table: &dyn TableLike, key: &str) -> Option<String> {
        match table.get(key) {
            Some(item) => self.string(item, key),
            None => {
                self.error(None, format!("missing required key `{key}`"));
                None
            }
        }
    }

    fn strings(&mut self, item: &Item, key: &str) -> Vec<String> {
        if let Some(text) = item.as_str() {
            return vec![text.to_string()];
        }
        let Some(array) = item.as_array() else {
            self.error(item.span(), format!("`{key}` must be a string or an array of strings"));
            return Vec::new();
        };
        let mut strings = Vec::new();
        for value in array.iter() {
            match value.as_str() {
                Some(text) => strings.push(text.to_string()),
                None => self.error(value.span(), format!("`{key}` must contain only strings")),
            }
        }
        if strings.is_empty() {
            self.error(item.span(), format!("`{key}` is empty"));
        }
        strings
    }

    fn spec(&mut self, item: &Item, key: &str) -> Option<Spec> {
        let text = self.string(item, key)?;
        match VersionSpecifiers::from_str(&text) {
            Ok(specifiers) if !specifiers.is_empty() => Some(Spec { text, specifiers }),
            Ok(_) => {
                self.error(item.span(), format!("`{key}` has no specifier"));
                None
            }
            Err(error) => {
                self.error(item.span(), format!("`{key}` is not a PEP 440 specifier set: {error}"));
                None
            }
        }
    }

    fn table<'t>(&mut self, item: &'t Item, key: &str) -> Option<&'t dyn TableLike> {
        let table = item.as_table_like();
        if table.is_none() {
            self.error(item.span(), format!("`{key}` must be a table"));
        }
        table
    }

    fn boolean(&mut self, item: &Item, key: &str) -> Option<bool> {
        let value = item.as_bool();
        if value.is_none() {
            self.error(item.span(), format!("`{key}` must be true or false"));
        }
        value
    }
}

const SYMPTOM_ENTRY_KEYS: &[&str] = &["id", "title", "why", "fix", "references", "checked", "symptoms", "when"];
const SYMPTOMS_KEYS: &[&str] = &[
    "messages",
    "exceptions",
    "devices",
    "frames",
    "reported",
    "confirmed_by",
    "generalizes",
];

/// Parses `text` (the contents of `path`) into a rule, or every problem in it.
/// `expected_id` is the file's stem, which the id must equal.
pub fn rule(path: &Path, text: &str, expected_id: &str) -> Result<Rule, Vec<LintError>> {
    let mut reader = Reader {
        path,
        text,
        errors: Vec::new(),
    };
    let Some(document) = document(&mut reader) else {
        return Err(reader.errors);
    };
    let root = document.as_table();
    reader.known_keys(root, RULE_KEYS, "a rule");

    let id = checked_id(&mut reader, root, expected_id);
    let title = reader.required_string(root, "title");
    let severity = reader.required_string(root, "severity").and_then(|text| {
        let severity = Severity::parse(&text);
        if severity.is_none() {
            let span = root.get("severity").and_then(Item::span);
            reader.error(span, format!("severity `{text}` must be one of: error, warning, info"));
        }
        severity
    });
    let message = reader.required_string(root, "message");
    let why = reader.required_string(root, "why");
    let fix = reader.required_string(root, "fix");
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
            reader.error(None, "missing required table `[when]`");
            None
        }
    };
    if let (Some(message), Some(when)) = (&message, &when) {
        for problem in template::problems(message, when) {
            let span = root.get("message").and_then(Item::span);
            reader.error(span, problem);
        }
    }

    finish(&mut reader)?;
    let missing = "validated above";
    Ok(Rule {
        id: id.expect(missing),
        title: title.expect(missing),
        severity: severity.expect(missing),
        message: message.expect(missing),
        why: why.expect(missing),
        fix: fix.expect(missing),
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
pub fn symptom_entry(path: &Path, text: &str, expected_id: &str) -> Result<SymptomEntry, Vec<LintError>> {
    let mut reader = Reader {
        path,
        text,
        errors: Vec::new(),
    };
    let Some(document) = document(&mut reader) else {
        return Err(reader.errors);
    };
    let root = document.as_table();
    reader.known_keys(root, SYMPTOM_ENTRY_KEYS, "a symptom entry");
    let id = checked_id(&mut reader, root, expected_id);
    let title = reader.required_string(root, "title");
    let why = reader.required_string(root, "why");
    let fix = reader.required_string(root, "fix");
    let references = references(
        &mut reader,
        root,
        "every symptom entry cites where the cause is documented",
    );
    let checked = checked_date(&mut reader, root);
    let symptoms = match root.get("symptoms") {
        Some(item) if item.is_table_like() => Some(symptoms(&mut reader, item)),
        Some(item) => {
            reader.error(item.span(), "`symptoms` must be a table (`[symptoms]`)");
            None
        }
        None => {
            reader.error(None, "missing required table `[symptoms]`");
            None
        }
    };
    if let Some(symptoms) = &symptoms
        && symptoms.reported.is_empty()
    {
        let span = root.get("symptoms").and_then(Item::span);
        reader.error(
            span,
            "`symptoms.reported` is missing: a symptom entry cites where users reported it",
        );
    }
    let when = root
        .get("when")
        .and_then(|item| reader.table(item, "when").map(|table| when(&mut reader, table)))
        .unwrap_or_default();
    finish(&mut reader)?;
    let missing = "validated above";
    Ok(SymptomEntry {
        id: id.expect(missing),
        title: title.expect(missing),
        why: why.expect(missing),
        fix: fix.expect(missing),
        references,
        checked: checked.expect(missing),
        symptoms: symptoms.expect(missing),
        when,
        path: path.to_path_buf(),
        site: None,
        text: text.to_string(),
    })
}

fn document<'t>(reader: &mut Reader<'t>) -> Option<toml_edit::Document<&'t str>> {
    match toml_edit::Document::parse(reader.text) {
        Ok(document) => Some(document),
        Err(error) => {
            let message = error.message().trim().to_string();
            reader.error(error.span(), format!("not TOML: {message}"));
            None
        }
    }
}

/// Every problem, in file order, so the first one reported is the first one a reader meets.
fn finish(reader: &mut Reader) -> Result<(), Vec<LintError>> {
    if reader.errors.is_empty() {
        return Ok(());
    }
    reader.errors.sort_by_key(|error| (error.line, error.column));
    Err(std::mem::take(&mut reader.errors))
}

fn checked_id(reader: &mut Reader, root: &dyn TableLike, expected_id: &str) -> Option<String> {
    let id = reader.required_string(root, "id");
    if let Some(id) = &id {
        let span = root.get("id").and_then(Item::span);
        if !is_kebab_case(id) {
            reader.error(span.clone(), format!("id `{id}` must be kebab-case (a-z, 0-9, -)"));
        }
        if id != expected_id {
            reader.error(span, format!("id `{id}` must equal the file name `{expected_id}`"));
        }
    }
    id
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
            reader.error(
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
    reader.spec(item, "fix_torch").map(TorchFix::Within)
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
        reader.error(
            None,
            "missing required key `checked`: the date (YYYY-MM-DD) its references were last checked",
        );
        return None;
    };
    let text = reader.string(item, "checked")?;
    let Some(date) = Date::parse(&text) else {
        reader.error(
            item.span(),
            format!("`checked` = `{text}` is not a date such as \"2026-11-26\""),
        );
        return None;
    };
    // A date after today is a typo that `matrix lint` reports
    // ([`super::dated_after`]); reading does not depend on the node's clock,
    // which may be a day behind the day a rule was checked.
    Some(date)
}

fn references(reader: &mut Reader, root: &dyn TableLike, why_required: &str) -> Vec<String> {
    match root.get("references") {
        Some(item) => urls(reader, item, "references", "reference"),
        None => {
            reader.error(None, format!("missing required key `references`: {why_required}"));
            Vec::new()
        }
    }
}

fn urls(reader: &mut Reader, item: &Item, key: &str, noun: &str) -> Vec<String> {
    let urls = reader.strings(item, key);
    for url in &urls {
        if !url.starts_with("https://") {
            reader.error(item.span(), format!("{noun} `{url}` must be an https:// URL"));
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
    reader.known_keys(table, SYMPTOMS_KEYS, "[symptoms]");
    for (key, item) in table.iter() {
        match key {
            "messages" => symptoms.messages = reader.strings(item, "symptoms.messages"),
            "exceptions" => symptoms.exceptions = reader.strings(item, "symptoms.exceptions"),
            "devices" => {
                for text in reader.strings(item, "symptoms.devices") {
                    match DevicePair::parse(&text) {
                        Some(pair) => symptoms.devices.push(pair),
                        None => reader.error(
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
                        reader.error(
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
        reader.error(item.span(), "[symptoms] has no messages, exceptions, devices or frames");
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
                    reader.error(
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
        reader.error(item.span(), "`symptoms.frames` must be an array of tables");
        return Vec::new();
    };
    let mut frames = Vec::new();
    for (table, span) in tables {
        reader.known_keys(table, &["file", "function"], "a symptoms.frames entry");
        let file = match table.get("file") {
            Some(item) => reader.string(item, "file"),
            None => {
                reader.error(span, "a symptoms.frames entry needs `file`");
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
    reader.known_keys(table, WHEN_KEYS, "[when]");
    let mut when = When::default();
    if table.is_empty() {
        reader.error(
            table.get("").and_then(Item::span),
            "[when] is empty: a rule needs at least one condition",
        );
    }
    for (key, item) in table.iter() {
        match key {
            "packages" => when.packages = packages(reader, item),
            "python" => when.python = reader.spec(item, key),
            "glibc" => when.glibc = reader.spec(item, key),
            "driver" => when.driver = reader.spec(item, key),
            "driver_cuda" => when.driver_cuda = reader.spec(item, key),
            "torch_cuda" => when.torch_cuda = reader.spec(item, key),
            "cuda_toolkit" => when.cuda_toolkit = reader.spec(item, key),
            "host_gcc" => when.host_gcc = reader.spec(item, key),
            "gpu_count" => when.gpu_count = reader.spec(item, key),
            "any_gpu" => when.any_gpu = gpu(reader, item, key),
            "all_gpus" => when.all_gpus = gpu(reader, item, key),
            "env" => when.env = env(reader, item),
            "platform" => when.platform = platform(reader, item),
            "deepspeed_config" => when.deepspeed_config = deepspeed(reader, item),
            "accelerate_config" => when.accelerate_config = accelerate(reader, item),
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
            _ => reader.spec(item, &key).map(PackageCondition::Version),
        };
        if let Some(condition) = condition {
            packages.push((name.to_string(), condition));
        }
    }
    if packages.is_empty() && table.is_empty() {
        reader.error(item.span(), "`packages` is empty");
    }
    packages
}

fn gpu(reader: &mut Reader, item: &Item, key: &str) -> Option<GpuCondition> {
    let table = reader.table(item, key)?;
    reader.known_keys(table, &["compute_capability", "name", "memory_mib"], key);
    let mut condition = GpuCondition::default();
    for (field, item) in table.iter() {
        match field {
            "compute_capability" => condition.compute_capability = reader.spec(item, field),
            "name" => condition.name = reader.strings(item, field),
            "memory_mib" => condition.memory_mib = reader.spec(item, field),
            _ => {}
        }
    }
    if table.is_empty() {
        reader.error(item.span(), format!("`{key}` has no condition"));
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
        reader.known_keys(condition, &["set", "equals", "differs", "contains"], &context);
        if condition.len() != 1 {
            reader.error(
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
            None => reader.error(
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
    reader.known_keys(table, &["machine", "os_id"], "platform");
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
    reader.known_keys(table, &keys, "[when.deepspeed_config]");
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
        reader.error(item.span(), "[when.deepspeed_config] has no condition");
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
            _ => reader.error(span, "`zero_stage` must be an integer 0-3 or an array of them"),
        }
    }
    stages
}

fn accelerate(reader: &mut Reader, item: &Item) -> Option<AccelerateCondition> {
    let table = reader.table(item, "accelerate_config")?;
    reader.known_keys(
        table,
        &["distributed_type", "num_processes", "mixed_precision"],
        "[when.accelerate_config]",
    );
    let mut condition = AccelerateCondition::default();
    for (field, item) in table.iter() {
        match field {
            "distributed_type" => condition.distributed_type = reader.strings(item, field),
            "num_processes" => condition.num_processes = reader.spec(item, field),
            "mixed_precision" => condition.mixed_precision = reader.strings(item, field),
            _ => {}
        }
    }
    if table.is_empty() {
        reader.error(item.span(), "[when.accelerate_config] has no condition");
    }
    Some(condition)
}

#[cfg(test)]
mod tests {
    /// Issue 20: a site rule's title reaches every report's one-line heading.
    #[test]
    fn a_title_or_id_over_several_lines_is_refused() {
        let path = std::path::Path::new("rules/x.toml");
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/compat-matrix/rules/deepspeed-zero3-offload-device-mismatch.toml"
        ))
        .unwrap();
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
