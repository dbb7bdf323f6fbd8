//! Placeholders in a rule's `message` (`{package.deepspeed}`, `{gpus}`, ...):
//! checked by lint against the rule's own conditions, filled from the facts.

use super::rule::When;
use crate::facts::Facts;
use crate::facts::VisibleGpu;

const PLAIN: &[&str] = &[
    "python",
    "glibc",
    "host_gcc",
    "driver",
    "driver_cuda",
    "torch_cuda",
    "cuda_toolkit",
    "gpu_count",
    "compat_libcuda",
    "gpus",
    "config",
];

/// The name inside each `{...}` of `message`, or the problem with an unclosed one.
fn placeholders(message: &str) -> impl Iterator<Item = Result<&str, String>> {
    let mut rest = message;
    std::iter::from_fn(move || {
        let open = rest.find('{')?;
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            rest = "";
            return Some(Err("`message` has a `{` without its `}`".to_string()));
        };
        let name = &after[..close];
        rest = &after[close + 1..];
        Some(Ok(name))
    })
}

/// What is wrong with the placeholders of `message`, given the conditions that
/// will have matched when it is rendered.
pub fn problems(message: &str, when: &When) -> Vec<String> {
    let mut problems = Vec::new();
    for placeholder in placeholders(message) {
        let name = match placeholder {
            Ok(name) => name,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let known = PLAIN.contains(&name)
            || name.strip_prefix("package.").is_some_and(|package| !package.is_empty())
            || name.strip_prefix("env.").is_some_and(|variable| !variable.is_empty());
        if !known {
            problems.push(format!(
                "unknown placeholder `{{{name}}}` in `message` (known: {}, package.NAME, env.NAME)",
                PLAIN.join(", ")
            ));
        } else if name == "gpus" && when.any_gpu.is_none() && when.all_gpus.is_none() {
            problems.push("`{gpus}` in `message` needs an `any_gpu` or `all_gpus` condition".to_string());
        } else if name == "config" && when.deepspeed_config.is_none() && when.accelerate_config.is_none() {
            problems
                .push("`{config}` in `message` needs a deepspeed_config or accelerate_config condition".to_string());
        }
    }
    problems
}

/// `message` with every placeholder filled in; `gpus` are the GPUs that
/// satisfied the rule, `config` the file it read (if any).
pub fn render(message: &str, facts: &Facts, gpus: &[&VisibleGpu], config: Option<&std::path::Path>) -> String {
    let mut rendered = String::with_capacity(message.len() + 32);
    let mut rest = message;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|close| open + close) else {
            break;
        };
        rendered.push_str(&rest[..open]);
        rendered.push_str(&value(&rest[open + 1..close], facts, gpus, config));
        rest = &rest[close + 1..];
    }
    rendered.push_str(rest);
    rendered
}

fn value(name: &str, facts: &Facts, gpus: &[&VisibleGpu], config: Option<&std::path::Path>) -> String {
    let unknown = || "unknown".to_string();
    let version = |version: &Option<pep440_rs::Version>| version.as_ref().map_or_else(unknown, ToString::to_string);
    if let Some(package) = name.strip_prefix("package.") {
        return match facts.package(package) {
            Some(package) => package.version.clone().unwrap_or_else(unknown),
            None => "not installed".to_string(),
        };
    }
    if let Some(variable) = name.strip_prefix("env.") {
        return facts.env(variable).map_or_else(|| "unset".to_string(), str::to_string);
    }
    match name {
        "python" => version(&facts.python_version),
        "glibc" => version(&facts.glibc),
        "host_gcc" => version(&facts.host_gcc),
        "driver" => facts
            .snapshot
            .nvidia
            .as_ref()
            .and_then(|n| n.driver_version.clone())
            .unwrap_or_else(unknown),
        "driver_cuda" => version(&facts.driver_cuda),
        "torch_cuda" => version(&facts.torch_cuda),
        "cuda_toolkit" => {
            let versions: Vec<_> = facts
                .snapshot
                .cuda
                .toolkits
                .iter()
                .filter_map(|toolkit| toolkit.version.clone())
                .collect();
            if versions.is_empty() {
                "none found".to_string()
            } else {
                versions.join(", ")
            }
        }
        "gpu_count" => facts.gpus.len().to_string(),
        "compat_libcuda" => version(&facts.compat_libcuda),
        "gpus" => gpus.iter().map(|gpu| gpu.describe()).collect::<Vec<_>>().join(", "),
        // Unsettled: the sentence must not read as an observation.
        "config" => config.map_or_else(
            || "the job's config (not given; assumed)".to_string(),
            |path| format!("`{}`", path.display()),
        ),
        _ => format!("{{{name}}}"),
    }
}
