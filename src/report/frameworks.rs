//! The frameworks part of the text summary: one line per framework with the
//! build facts that decide whether it runs on this node's GPUs.

use crate::snapshot::Snapshot;

use super::Style;
use super::layout::{block, section};
use crate::snapshot::frameworks::{Build, Framework};

pub fn write(out: &mut String, snapshot: &Snapshot, style: Style) {
    if snapshot.frameworks.is_empty() {
        section(
            out,
            style,
            "frameworks",
            &style.dim("none of the known frameworks is installed"),
        );
        return;
    }
    let lines = snapshot.frameworks.values().flat_map(|framework| {
        let problems = framework
            .problems
            .iter()
            .map(move |problem| style.warning(&format!("  {problem}")));
        std::iter::once(framework_line(framework)).chain(problems)
    });
    block(out, style, "frameworks", lines);
}

fn framework_line(framework: &Framework) -> String {
    let version = framework.version.as_deref().unwrap_or("?");
    let build = framework.build.as_ref().map(build_facts).unwrap_or_default();
    if build.is_empty() {
        format!("{} {version}", framework.name)
    } else {
        format!("{} {version}  {}", framework.name, build.join(", "))
    }
}

fn build_facts(build: &Build) -> Vec<String> {
    let mut facts = Vec::new();
    let mut fact = |label: &str, value: Option<&str>| {
        if let Some(value) = value {
            facts.push(format!("{label} {value}"));
        }
    };
    match build {
        Build::Torch(torch) => {
            fact("build", torch.version.as_deref());
            fact("CUDA", torch.cuda.as_deref());
            fact("HIP", torch.hip.as_deref());
            fact("XPU", torch.xpu.as_deref());
        }
        Build::Deepspeed(deepspeed) => {
            let torch = deepspeed.torch_info.as_ref();
            fact("built for torch", torch.and_then(|info| info.version.as_deref()));
            fact("CUDA", torch.and_then(|info| info.cuda_version.as_deref()));
            let built: Vec<&str> = deepspeed
                .installed_ops
                .iter()
                .filter(|(_, installed)| **installed)
                .map(|(name, _)| name.as_str())
                .collect();
            let ops = if built.is_empty() {
                "no ops prebuilt (JIT)".to_string()
            } else {
                built.join(" ")
            };
            facts.push(format!("ops: {ops}"));
            if !deepspeed.build_record {
                facts.push("no recorded build info".to_string());
            }
        }
        Build::Bitsandbytes(bitsandbytes) => {
            let libraries: Vec<String> = bitsandbytes
                .native_libraries
                .iter()
                .map(|library| match &library.version {
                    Some(version) => format!("{} {version}", library.backend),
                    None => library.backend.clone(),
                })
                .collect();
            facts.push(format!("native libraries: {}", or_none(&libraries)));
        }
        Build::Xformers(xformers) => {
            fact("built for torch", xformers.torch.as_deref());
            fact("CUDA", xformers.cuda.as_deref());
            if xformers.extension.is_none() {
                facts.push("no compiled extension".to_string());
            }
        }
        Build::FlashAttn(flash_attn) => {
            let tags = flash_attn.wheel_tags.as_ref();
            fact("wheel for CUDA", tags.and_then(|tags| tags.cuda.as_deref()));
            fact("torch", tags.and_then(|tags| tags.torch.as_deref()));
            if flash_attn.extension.is_none() {
                facts.push("no compiled extension".to_string());
            }
        }
        Build::Unknown => facts.push("build facts of a kind this envdoctor does not know".to_string()),
        Build::Triton(triton) => {
            let backends = triton.backends.clone().unwrap_or_default();
            facts.push(format!("backends: {}", or_none(&backends)));
        }
    }
    facts
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(" ")
    }
}
