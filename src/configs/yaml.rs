//! The subset of YAML that `accelerate config` writes (PyYAML `safe_dump` of a
//! flat dict with nested dicts): `key: scalar` and `key:` followed by a more
//! indented block. Lists are kept as strings, since no fact envdoctor reads is
//! a list. Anything else is refused with its line, rather than guessed at.
//! A YAML crate would read more, but every maintained one is larger than the
//! whole of this file, for a format we read six keys of.

use serde_json::{Map, Value};

/// A problem at a 1-based line.
#[derive(Debug, PartialEq)]
pub struct YamlError {
    pub line: usize,
    pub problem: String,
}

pub fn parse(text: &str) -> Result<Value, YamlError> {
    let lines: Vec<(usize, usize, &str)> = text
        .lines()
        .enumerate()
        .filter_map(|(index, raw)| {
            let content = strip_comment(raw).trim_end();
            if content.trim().is_empty() || content.trim() == "---" {
                return None;
            }
            let indent = content.len() - content.trim_start().len();
            Some((index + 1, indent, content.trim_start()))
        })
        .collect();
    let mut position = 0;
    let map = block(&lines, &mut position, 0)?;
    if let Some((line, _, _)) = lines.get(position) {
        return Err(YamlError {
            line: *line,
            problem: "indentation does not match any enclosing key".into(),
        });
    }
    Ok(Value::Object(map))
}

fn block(lines: &[(usize, usize, &str)], position: &mut usize, indent: usize) -> Result<Map<String, Value>, YamlError> {
    let mut map = Map::new();
    while let Some(&(line, this_indent, content)) = lines.get(*position) {
        if this_indent < indent {
            break;
        }
        if this_indent > indent {
            return Err(YamlError {
                line,
                problem: "unexpected indentation".into(),
            });
        }
        if content.starts_with("- ") || content == "-" {
            // A list item at mapping level belongs to the key above; skip it.
            *position += 1;
            continue;
        }
        let Some((key, value)) = content
            .split_once(':')
            .filter(|(_, rest)| rest.is_empty() || rest.starts_with(' '))
        else {
            return Err(YamlError {
                line,
                problem: format!("expected `key: value`, found `{content}`"),
            });
        };
        let key = unquote(key.trim()).to_string();
        let value = value.trim();
        *position += 1;
        let parsed = if value.is_empty() {
            match lines.get(*position) {
                Some(&(_, next_indent, next)) if next_indent > indent && !next.starts_with('-') => {
                    Value::Object(block(lines, position, next_indent)?)
                }
                Some(&(_, next_indent, next)) if next_indent >= indent && next.starts_with('-') => {
                    let mut items = Vec::new();
                    while let Some(&(_, item_indent, item)) = lines.get(*position) {
                        if item_indent < indent || !item.starts_with('-') {
                            break;
                        }
                        items.push(Value::String(unquote(item.trim_start_matches('-').trim()).to_string()));
                        *position += 1;
                    }
                    Value::Array(items)
                }
                _ => Value::Null,
            }
        } else if value == "{}" {
            Value::Object(Map::new())
        } else if let Some(items) = value.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
            // A flow list of scalars (`tpu_env: []`, `gpu_ids: [0, 1]`).
            let items = items.split(',').map(str::trim).filter(|item| !item.is_empty());
            Value::Array(items.map(scalar).collect())
        } else if value.starts_with('{') || value.starts_with('[') || value.starts_with('|') || value.starts_with('>') {
            return Err(YamlError {
                line,
                problem: format!("`{key}`: flow and block scalars are not read"),
            });
        } else {
            scalar(value)
        };
        map.insert(key, parsed);
    }
    Ok(map)
}

fn scalar(value: &str) -> Value {
    match value {
        "null" | "~" => Value::Null,
        "true" | "True" => Value::Bool(true),
        "false" | "False" => Value::Bool(false),
        _ => match value.parse::<i64>() {
            Ok(number) => Value::from(number),
            Err(_) => Value::String(unquote(value).to_string()),
        },
    }
}

fn unquote(text: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|rest| rest.strip_suffix(quote)) {
            return inner;
        }
    }
    text
}

/// Drops a `#` comment, unless the `#` is inside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (index, character) in line.char_indices() {
        match (character, quote) {
            ('"' | '\'', None) => quote = Some(character),
            (c, Some(open)) if c == open => quote = None,
            ('#', None) if index == 0 || line[..index].ends_with(' ') => return &line[..index],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As `accelerate config` writes it (accelerate 1.x, DeepSpeed chosen).
    const ACCELERATE_DEEPSPEED: &str = "\
compute_environment: LOCAL_MACHINE
debug: false
deepspeed_config:
  offload_optimizer_device: cpu
  offload_param_device: cpu
  zero3_init_flag: true
  zero_stage: 3
distributed_type: DEEPSPEED
downcast_bf16: 'no'
machine_rank: 0
mixed_precision: bf16
num_machines: 1
num_processes: 8
rdzv_backend: static
same_network: true
tpu_env: []
use_cpu: false
";

    #[test]
    fn reads_what_accelerate_config_writes() {
        let value = parse(ACCELERATE_DEEPSPEED).unwrap();
        assert_eq!(value["distributed_type"], "DEEPSPEED");
        assert_eq!(value["num_processes"], 8);
        assert_eq!(value["downcast_bf16"], "no");
        assert_eq!(value["deepspeed_config"]["zero_stage"], 3);
        assert_eq!(value["deepspeed_config"]["offload_optimizer_device"], "cpu");
        assert_eq!(value["use_cpu"], false);
    }

    #[test]
    fn lists_comments_and_quotes() {
        let value = parse("gpu_ids: all # every GPU\nitems:\n- a\n- 'b'\nname: \"x # y\"\n").unwrap();
        assert_eq!(value["gpu_ids"], "all");
        assert_eq!(value["items"], serde_json::json!(["a", "b"]));
        assert_eq!(value["name"], "x # y");
    }

    #[test]
    fn refuses_what_it_does_not_read_with_the_line() {
        assert_eq!(parse("a: 1\n  b: 2\n").unwrap_err().line, 2);
        assert_eq!(parse("a: 1\nnot a mapping\n").unwrap_err().line, 2);
        assert_eq!(parse("a: {b: 1}\n").unwrap_err().line, 1);
    }
}
