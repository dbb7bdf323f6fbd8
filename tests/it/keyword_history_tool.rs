//! `compat-matrix/tools/name_history.py --keywords` read by the machine's own
//! Python: two releases of a module, written as source, give the rows that
//! `explain` dates a refused keyword argument with.

use std::process::Command;

use crate::common::system_python;

/// What the tool's row writer makes of `releases`, each one module's source.
fn keyword_rows(releases: &[&str]) -> Vec<String> {
    let releases: Vec<serde_json::Value> = releases
        .iter()
        .map(|source| serde_json::json!({ "pkg.mod": source }))
        .collect();
    rows_of(&releases)
}

/// What the tool's row writer makes of `releases`, each `{module: source}`.
fn rows_of(releases: &[serde_json::Value]) -> Vec<String> {
    let script = r#"
import json, sys
sys.path.insert(0, "compat-matrix/tools")
import name_history, signatures
releases = []
for modules in json.load(sys.stdin):
    read = {module: signatures.read(source, module, False) for module, source in modules.items()}
    signatures.resolve_dataclasses(read)
    releases.append({module: found for module, (found, _) in read.items()})
for module, callable_, marks, keywords in name_history.keyword_rows(releases):
    print(module, callable_, marks, " ".join(keywords))
"#;
    let mut child = Command::new(system_python())
        .args(["-c", script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), releases).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

const OLD: &str = r#"
from dataclasses import dataclass

def load(path, mmap=False):
    pass

def _private(x, old=1):
    pass

class Trainer:
    def __init__(self, model, tokenizer=None, max_seq_length=512):
        pass

    @property
    def size(self, old=1):
        return 1

@dataclass
class Config:
    lr: float = 1e-3
    warmup: int = 0
"#;

const NEW: &str = r#"
from dataclasses import dataclass

def load(path, *, weights_only=True, **kwargs):
    pass

def _private(x, new=1):
    pass

class Trainer:
    def __init__(self, model, /, processing_class=None):
        pass

@dataclass
class Base:
    seed: int = 0

@dataclass
class Config(Base):
    lr: float = 1e-3
"#;

#[test]
fn a_keyword_one_release_takes_and_the_other_refuses_makes_a_row() {
    let rows = keyword_rows(&[OLD, NEW]);
    assert_eq!(
        rows,
        [
            // `model` is positional-only in the new release: no keyword can pass it.
            // `self` is bound, never passed.
            "pkg.mod Config.__init__ -1+1 seed",
            "pkg.mod Config.__init__ +1-1 warmup",
            "pkg.mod Trainer.__init__ +1-1 max_seq_length model tokenizer",
            "pkg.mod Trainer.__init__ -1+1 processing_class",
            "pkg.mod load -1+1 weights_only",
        ],
        "{rows:#?}"
    );
    // `mmap` went into `**kwargs`, which may take it: not dated. Nor are
    // private functions and properties.
    assert!(
        !rows
            .iter()
            .any(|row| row.contains("mmap") || row.contains("_private") || row.contains("size"))
    );
}

#[test]
fn a_dataclass_whose_base_is_not_read_does_not_refuse_what_the_base_may_take() {
    let derived_from_elsewhere = "from dataclasses import dataclass\nfrom other import Base\n@dataclass\nclass Config(Base):\n    lr: float = 1e-3\n";
    let rows = keyword_rows(&[OLD, derived_from_elsewhere]);
    assert!(!rows.iter().any(|row| row.contains("Config")), "{rows:#?}");
}

/// A decorator that may wrap a function in another signature leaves what it
/// refuses unknown: transformers' and trl's `@deprecate_kwarg("tokenizer",
/// new_name="processing_class")` takes the keyword its function no longer
/// names. One that keeps the signature (`torch.no_grad()`) does not.
#[test]
fn a_wrapping_decorator_leaves_a_refusal_unknown() {
    let old = "class Trainer:\n    def __init__(self, model, tokenizer=None):\n        pass\n\n    def step(self, batch, scale=1.0):\n        pass\n";
    let new = "import torch\nclass Trainer:\n    @deprecate_kwarg(\"tokenizer\", new_name=\"processing_class\")\n    def __init__(self, model, processing_class=None):\n        pass\n\n    @torch.no_grad()\n    def step(self, batch):\n        pass\n";
    let rows = keyword_rows(&[old, new]);
    // What the old release refused stays known; what the wrapped one refuses is not.
    assert_eq!(
        rows,
        [
            "pkg.mod Trainer.__init__ -1+1 processing_class",
            "pkg.mod Trainer.step +1-1 scale"
        ],
        "{rows:#?}"
    );
}

/// A dataclass's `__init__` takes its `init` fields only: not a
/// `field(init=False)`, nor any under `@dataclass(init=False)`.
#[test]
fn fields_a_dataclass_init_does_not_take_are_not_keywords() {
    let old = "from dataclasses import dataclass, field\n@dataclass\nclass Config:\n    lr: float = 1e-3\n    steps: int = field(default=0, init=False)\n\n@dataclass(init=False)\nclass Manual:\n    size: int = 0\n";
    let new = "from dataclasses import dataclass\n@dataclass\nclass Config:\n    lr: float = 1e-3\n";
    let rows = keyword_rows(&[old, new]);
    assert!(rows.is_empty(), "{rows:#?}");
}

/// A base dataclass is found where the module imports it from, and only
/// there: a dataclass of the same name elsewhere in the release is not it.
#[test]
fn a_base_dataclass_is_the_one_the_module_imports() {
    let base = "from dataclasses import dataclass\n@dataclass\nclass Base:\n    seed: int = 0\n";
    let other = "from dataclasses import dataclass\n@dataclass\nclass Base:\n    unrelated: int = 0\n";
    let derived = "from dataclasses import dataclass\nfrom pkg.base import Base\n@dataclass\nclass Config(Base):\n    lr: float = 1e-3\n";
    let plain = "from dataclasses import dataclass\n@dataclass\nclass Config:\n    lr: float = 1e-3\n";
    let release = |config: &str| serde_json::json!({ "pkg.base": base, "pkg.other": other, "pkg.mod": config });
    let rows = rows_of(&[release(derived), release(plain)]);
    assert_eq!(rows, ["pkg.mod Config.__init__ +1-1 seed"], "{rows:#?}");
}
