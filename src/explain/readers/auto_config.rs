//! A model type the installed transformers does not know: `KeyError: 'gemma2'`
//! out of the mapping in `transformers/models/auto/configuration_auto.py` that
//! AutoConfig (and every Auto class and pipeline after it) looks a checkpoint's
//! `model_type` up in, or, from later releases, "has model type `qwen3_vl` but
//! Transformers does not recognize this architecture". transformers-models.toml
//! dates the type: the release that brought it is the fix, and the installed
//! one, where the node has it, is compared with it.

use super::{Context, Reading};
use crate::explain::traceback::Traceback;

pub const CAUSE: &str = "transformers-too-old-for-model";

const AUTO_CONFIG: &str = "transformers/models/auto/configuration_auto.py";

pub fn read(traceback: &Traceback, context: Context) -> Option<Reading> {
    let raised = traceback.raised()?;
    let (model_type, how) = match unrecognized(&raised.message) {
        Some(model_type) => (model_type, "the message names it".to_string()),
        None => (
            raised_by_the_mapping(traceback)?,
            format!("a KeyError out of its mapping in {AUTO_CONFIG}"),
        ),
    };
    let valid = !model_type.is_empty()
        && model_type
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid {
        return None;
    }
    let models = context.tables.map(|tables| &tables.transformers_models);
    let installed = context.facts.and_then(|facts| facts.package_version("transformers"));
    let known = models.and_then(|models| models.of_type(model_type));
    let mut node = Vec::new();
    // A type no release knows is newer than them all, or one the project's
    // own code registers (Bunny's `bunny-qwen`, loaded through its loader):
    // the words do not say which.
    let mut settles = true;
    let (dated, fix) = match (known, models.and_then(|models| models.last.as_ref())) {
        (Some(model), _) => match &model.added {
            Some(added) => {
                if let Some(installed) = &installed {
                    let older = installed < added;
                    node.push((
                        Some(older),
                        match older {
                            true => format!("transformers {installed} is installed here, older than {added}"),
                            false => format!(
                                "transformers {installed} is installed here, which knows '{model_type}': the job ran with another transformers"
                            ),
                        },
                    ));
                }
                (
                    format!("; transformers {added} brought '{model_type}' ({})", model.source),
                    upgrade_to(added, &format!("the first release that knows '{model_type}'")),
                )
            }
            None => (String::new(), upgrade(model_type)),
        },
        (None, Some(last)) => {
            settles = false;
            node.push((
                None,
                format!(
                    "whether the model card asks for transformers from source, or the project's own code registers '{model_type}' (AutoConfig.register) and loads it through its own loader"
                ),
            ));
            (
                format!("; no transformers release up to {last} knows '{model_type}'"),
                format!(
                    "'{model_type}' is in no transformers release up to {last}: upgrade transformers where a release newer than {last} is out (python -m pip install --upgrade transformers), install it from source if the model card says so (python -m pip install git+https://github.com/huggingface/transformers.git), or load the model with trust_remote_code=True where its repository ships its code, or through the project's own loader where its code registers the type; check that config.json's model_type is spelt as the model card gives it"
                ),
            )
        }
        (None, None) => (String::new(), upgrade(model_type)),
    };
    if node.is_empty()
        && let Some(installed) = installed
    {
        node.push((None, format!("transformers {installed} is installed here")));
    }
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "transformers' AutoConfig has no model type '{model_type}' ({how}): the checkpoint's model is newer than the transformers installed, or its config.json names a wrong model_type{dated}"
        ),
        node,
        fix,
        stated: false,
        settles,
        rules_out: Vec::new(),
    })
}

/// The fix that brings transformers to `release` or later: `--upgrade`
/// installs the newest, where a bound the installed release already meets
/// would change nothing.
pub(super) fn upgrade_to(release: &pep440_rs::Version, why: &str) -> String {
    format!(
        "python -m pip install --upgrade \"transformers>={release}\" ({why}), then pip check, since other packages pin transformers too"
    )
}

fn upgrade(model_type: &str) -> String {
    format!(
        "upgrade transformers to the release the model card names for '{model_type}' (python -m pip install --upgrade transformers; for a model newer than every release, python -m pip install git+https://github.com/huggingface/transformers.git), then run pip check, since other packages pin transformers too"
    )
}

/// `The checkpoint you are trying to load has model type `qwen3_vl` but
/// Transformers does not recognize this architecture`.
fn unrecognized(message: &str) -> Option<&str> {
    let rest = super::text::after_marker(message, "has model type `")?;
    let (model_type, after) = rest.split_once('`')?;
    after
        .contains("does not recognize this architecture")
        .then_some(model_type)
}

/// The key of a KeyError the mapping itself raised: the innermost frame is
/// AutoConfig's, not a KeyError from code it called (a config.json missing a key).
fn raised_by_the_mapping(traceback: &Traceback) -> Option<&str> {
    let raised = traceback.raised()?;
    if raised.exception.rsplit('.').next() != Some("KeyError") {
        return None;
    }
    let innermost = traceback.frames().last()?;
    if !innermost.file.replace('\\', "/").ends_with(AUTO_CONFIG) {
        return None;
    }
    Some(raised.message.trim().trim_matches(|c| c == '\'' || c == '"'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::readers::parsed;

    fn reading(log: &str) -> Option<Reading> {
        let (traceback, _) = parsed(log);
        read(&traceback, Context::alone())
    }

    const PIPELINE: &str = "Traceback (most recent call last):\n  File \"/u/gemma2b_it.py\", line 4, in <module>\n    pipe = pipeline(\n  File \"/u/envs/p/lib/python3.11/site-packages/transformers/pipelines/__init__.py\", line 675, in pipeline\n    config = AutoConfig.from_pretrained(model, _from_pipeline=task, **hub_kwargs, **model_kwargs)\n  File \"/u/envs/p/lib/python3.11/site-packages/transformers/models/auto/configuration_auto.py\", line 873, in from_pretrained\n    config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]\n  File \"/u/envs/p/lib/python3.11/site-packages/transformers/models/auto/configuration_auto.py\", line 579, in __getitem__\n    raise KeyError(key)\n";

    #[test]
    fn a_key_error_out_of_auto_configs_mapping_is_a_model_type_it_does_not_know() {
        let found = reading(&format!("{PIPELINE}KeyError: 'gemma2'\n")).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.said.contains("no model type 'gemma2'"), "{}", found.said);
    }

    #[test]
    fn the_type_is_dated_and_the_release_that_brought_it_is_the_fix() {
        let log = "ValueError: The checkpoint you are trying to load has model type `qwen3_vl` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.\n";
        let (traceback, _) = parsed(log);
        let found =
            crate::explain::readers::read_on_recorded_h100(|_| {}, |context| read(&traceback, context)).unwrap();
        assert!(
            found.said.contains("transformers 4.57.0 brought 'qwen3_vl'"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("\"transformers>=4.57.0\""), "{}", found.fix);
        let unknown = log.replace("qwen3_vl", "frobnicator");
        let (traceback, _) = parsed(&unknown);
        let found =
            crate::explain::readers::read_on_recorded_h100(|_| {}, |context| read(&traceback, context)).unwrap();
        assert!(
            found.fix.contains("is in no transformers release up to"),
            "{}",
            found.fix
        );
        // Newer than every release, or registered by the project's own code
        // (bunny107's `bunny-qwen`): not decided.
        assert!(!found.settles, "{found:?}");
        assert!(
            found.node.iter().any(|(_, fact)| fact.contains("AutoConfig.register")),
            "{:?}",
            found.node
        );
        assert!(found.fix.contains("the project's own loader"), "{}", found.fix);
    }

    #[test]
    fn a_key_error_elsewhere_is_not_read() {
        // Raised by the job's own code after AutoConfig returned.
        let elsewhere =
            format!("{PIPELINE}  File \"/u/train.py\", line 9, in main\n    lr = cfg['lr']\nKeyError: 'lr'\n");
        assert!(reading(&elsewhere).is_none());
        assert!(reading(&format!("{PIPELINE}ValueError: 'gemma2'\n")).is_none());
    }
}
