//! `transformers-models.toml`: every model type transformers' AutoConfig
//! knows, the prefix its classes share, and the release that brought it (and
//! took it away), generated from the wheels on PyPI by
//! `compat-matrix/tools/transformers_model_types.py`. A class or model type a
//! failure says the installed transformers lacks is dated by it.

use std::str::FromStr;

use pep440_rs::Version;
use toml_edit::Table;

use super::source_url;
use crate::knowledge::reader::{Reader, Row};

#[derive(Debug, Clone, Default)]
pub struct TransformersModels {
    /// The newest release read: a type no row has is newer than it, or no transformers model.
    pub last: Option<Version>,
    pub models: Vec<ModelType>,
}

#[derive(Debug, Clone)]
pub struct ModelType {
    /// `qwen2_vl`, as a checkpoint's config.json names it.
    pub model_type: String,
    /// `Qwen2VL`: its config class without `Config`, which its classes start with.
    pub prefix: String,
    pub added: Option<Version>,
    pub removed: Option<Version>,
    pub source: String,
}

impl TransformersModels {
    pub fn of_type(&self, model_type: &str) -> Option<&ModelType> {
        self.models.iter().find(|row| row.model_type == model_type)
    }

    /// The type whose module under `transformers.models` is `module`
    /// (transformers names it after the type, `-` written `_`).
    pub fn of_module(&self, module: &str) -> Option<&ModelType> {
        self.models
            .iter()
            .find(|row| row.model_type.replace('-', "_") == module)
    }

    /// The family a class belongs to: the longest prefix the class starts
    /// with, followed by one of the endings transformers gives a model's
    /// classes (`Qwen2VLForConditionalGeneration` is Qwen2VL's, not Qwen2's;
    /// `Sam3Processor` is not Sam's; `Qwen2Vl` is nobody's). Of types that
    /// share a prefix, the one that came first.
    pub fn of_class(&self, class: &str) -> Option<&ModelType> {
        let continues = |row: &ModelType| {
            class
                .strip_prefix(row.prefix.as_str())
                .is_some_and(|rest| rest.starts_with("For") || CLASS_ENDINGS.contains(&rest))
        };
        let longest = self
            .models
            .iter()
            .filter(|row| continues(row))
            .map(|row| row.prefix.len())
            .max()?;
        self.models
            .iter()
            .filter(|row| continues(row) && row.prefix.len() == longest)
            .min_by(|a, b| a.added.cmp(&b.added))
    }
}

/// What follows a model's prefix in the names of its classes, besides the
/// heads (`ForCausalLM`, `ForConditionalGeneration`, ...).
const CLASS_ENDINGS: [&str; 16] = [
    "Model",
    "PreTrainedModel",
    "LMHeadModel",
    "TextModel",
    "VisionModel",
    "Config",
    "TextConfig",
    "VisionConfig",
    "Processor",
    "ImageProcessor",
    "ImageProcessorFast",
    "VideoProcessor",
    "FeatureExtractor",
    "Tokenizer",
    "TokenizerFast",
    "Encoder",
];

const FIELDS: [&str; 5] = ["type", "prefix", "added", "removed", "source"];

pub(super) fn read(root: &Table, reader: &mut Reader) -> TransformersModels {
    reader.only_kinds(root, &["read", "model"]);
    let mut models = TransformersModels::default();
    for table in reader.rows(root, "read") {
        let mut row = reader.row(table, "read", &["first", "last", "source"]);
        // The oldest release read, where a type it had has no `added`: checked
        // as the file's word, though nothing is dated by it.
        version(&mut row, "first", "the oldest release read");
        models.last = version(&mut row, "last", "the newest release read");
        source_url(&mut row);
    }
    let mut order = Vec::new();
    for table in reader.rows(root, "model") {
        let mut row = reader.row(table, "model", &FIELDS);
        let model_type = row.string("type", "the model type, as config.json names it");
        let prefix = row.string("prefix", "the prefix of its classes");
        let added = optional_version(&mut row, "added", "the first release that has it");
        let removed = optional_version(&mut row, "removed", "the first release without it");
        let source = source_url(&mut row);
        if let Some(model_type) = model_type {
            order.push((model_type.to_string(), row.span()));
        }
        if let (Some(model_type), Some(prefix), Some(source)) = (model_type, prefix, source) {
            models.models.push(ModelType {
                model_type: model_type.to_string(),
                prefix: prefix.to_string(),
                added,
                removed,
                source,
            });
        }
    }
    reader.check_order(&order, "model", "type");
    models
}

fn version(row: &mut Row, key: &str, what: &str) -> Option<Version> {
    let text = row.string(key, what)?;
    parsed(row, key, text)
}

fn optional_version(row: &mut Row, key: &str, what: &str) -> Option<Version> {
    let text = row.optional_string(key, what)?;
    parsed(row, key, text)
}

fn parsed(row: &mut Row, key: &str, text: &str) -> Option<Version> {
    let parsed = Version::from_str(text).ok();
    if parsed.is_none() {
        row.wrong(key, format!("`{text}` is not a version"));
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> TransformersModels {
        crate::knowledge::tables::tests::builtin().transformers_models
    }

    #[test]
    fn a_class_belongs_to_the_longest_prefix_it_goes_on_from() {
        let models = builtin();
        let qwen2_vl = models.of_class("Qwen2VLForConditionalGeneration").unwrap();
        assert_eq!(qwen2_vl.model_type, "qwen2_vl");
        assert_eq!(qwen2_vl.added, Some(Version::from_str("4.45.0").unwrap()));
        assert_eq!(models.of_class("SamModel").unwrap().model_type, "sam");
        // Not a class of any family: a prefix alone, or one that goes on in lowercase.
        assert!(models.of_class("Sam").is_none());
        assert!(models.of_class("Bertology").is_none());
        assert!(models.of_class("Qwen2Vl").is_none());
        // Config classes spelt with underscores (Qwen2_5_VLConfig): the
        // generator once took only letters and digits before `Config`, and
        // every such family was missing (flowgrpo84).
        let qwen2_5_vl = models.of_class("Qwen2_5_VLForConditionalGeneration").unwrap();
        assert_eq!(qwen2_5_vl.model_type, "qwen2_5_vl");
        assert_eq!(qwen2_5_vl.added, Some(Version::from_str("4.49.0").unwrap()));
        assert_eq!(models.of_class("Ernie4_5ForCausalLM").unwrap().model_type, "ernie4_5");
    }

    #[test]
    fn types_and_their_modules_are_found() {
        let models = builtin();
        assert_eq!(models.of_module("qwen2").unwrap().model_type, "qwen2");
        assert!(models.of_type("gemma2").unwrap().added.is_some());
        // bert was in the first release read: no release brought it.
        assert!(models.of_type("bert").unwrap().added.is_none());
    }
}
