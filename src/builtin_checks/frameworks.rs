//! Whether the installed frameworks can run on this node's GPUs and with each
//! other: the torch build carries code every visible GPU runs; DeepSpeed's
//! pre-built ops match the torch now installed; bitsandbytes ships a native
//! library for torch's CUDA; the CUDA toolkit that JIT builds would use is of
//! torch's CUDA major. Which architectures a torch build carries comes from
//! `compat-matrix/tables/torch-builds.toml`; which code runs on which GPU is
//! NVIDIA's rule, in [`crate::knowledge::tables::cubin_runs_on`].

use std::collections::BTreeSet;
use std::str::FromStr;

use super::{BuiltinCheck, finding, with_note};
use pep440_rs::Version;

use crate::facts::{Facts, LiveRun, VisibleGpu};
use crate::findings::{Finding, Severity};
use crate::knowledge::tables::{self, Capability, FirstCuda, MajorMinor, RowEvidence, Tables};
use crate::shell;
use crate::snapshot::cuda::Toolkit;
use crate::snapshot::frameworks::{Build, DeepSpeedBuild};
use crate::torch_install::{self, Prefer, capability};

const ARCH_MISSING: &str = "gpu-arch-not-in-torch-build";
/// The table said no code, and the smoke test ran kernels on every GPU.
const ARCH_CORRECTED: &str = "smoke-arch-table-corrected";
/// The build is not in the table: which GPUs it has kernels for is not judged.
pub const BUILD_UNKNOWN: &str = "torch-build-not-in-table";
const NOT_CUDA: &str = "torch-not-built-for-cuda";
const DEEPSPEED_MISMATCH: &str = "deepspeed-ops-built-for-other-torch";
const BNB_NO_LIBRARY: &str = "bitsandbytes-no-library-for-torch-cuda";
const BNB_FALLBACK: &str = "bitsandbytes-library-fallback";
/// bitsandbytes 0.50.0 loads another minor of torch's CUDA major (PR #1980) and needs torch 2.4.
const FIX_BNB_FALLBACK: &str = "pip install \"bitsandbytes>=0.50.0\"";
const BNB_OVERRIDE: &str = "bitsandbytes-cuda-version-override";
const NVCC_MAJOR: &str = "nvcc-major-differs-from-torch-cuda";

const TORCH_CUDA_INIT: &str = "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py";
const DEEPSPEED_BUILDER: &str = "https://github.com/deepspeedai/DeepSpeed/blob/master/op_builder/builder.py";
const BNB_CEXTENSION: &str =
    "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/bitsandbytes/cextension.py";

pub(super) const CHECKS: &[BuiltinCheck] = &[
    BuiltinCheck {
        id: "torch-runs-on-gpus",
        title: "The torch build carries code every visible GPU can run",
        produces: &[ARCH_MISSING, ARCH_CORRECTED, NOT_CUDA, BUILD_UNKNOWN],
        explanation: "Looks up which GPU architectures the installed torch build was compiled for \
            (compat-matrix/tables/torch-builds.toml: release x CUDA variant x platform) and checks every \
            GPU CUDA will see against them. A GPU runs a cubin built for its own major and an equal or \
            lower minor (except the Jetson GPUs, which run only their own), or PTX built for an older \
            capability, which the driver compiles. A GPU with neither fails every kernel with \"no kernel \
            image is available for execution on the device\". Rows measured in conda packages or Docker \
            images rather than read from the build configuration make the finding one level milder. \
            A torch without CUDA on a node with NVIDIA GPUs is reported too; a build the table does \
            not list is named, not guessed at.",
        run: torch_runs_on_gpus,
    },
    BuiltinCheck {
        id: "deepspeed-matches-torch",
        title: "DeepSpeed's pre-built ops match the installed torch",
        produces: &[DEEPSPEED_MISMATCH],
        explanation: "DeepSpeed records the torch and CUDA versions it was built against \
            (deepspeed/git_version_info_installed.py). Ops compiled at install time refuse to load under \
            another torch major.minor or CUDA major.minor (\"PyTorch version mismatch! DeepSpeed ops were \
            compiled and installed with a different version than what is being used at runtime\"). Ops \
            left to JIT compilation are built against the torch present, so only pre-built ops count.",
        run: |facts, _| deepspeed_matches_torch(facts),
    },
    BuiltinCheck {
        id: "bitsandbytes-library",
        title: "bitsandbytes ships a native library for torch's CUDA",
        produces: &[BNB_NO_LIBRARY, BNB_FALLBACK, BNB_OVERRIDE],
        explanation: "bitsandbytes loads libbitsandbytes_cuda<XY> for the CUDA version of torch \
            (torch.version.cuda), or the one BNB_CUDA_VERSION names. Current releases take the exact \
            version, else the newest packaged one of the same major below it, else the oldest above it, \
            never another major; older releases need the exact one and otherwise fail to load (or fall \
            back to the CPU library). Without a library of torch's CUDA major, every quantized layer \
            and 8-bit optimizer fails.",
        run: |facts, _| bitsandbytes_library(facts),
    },
    BuiltinCheck {
        id: "nvcc-matches-torch-cuda",
        title: "The CUDA toolkit JIT builds use is of torch's CUDA major",
        produces: &[NVCC_MAJOR],
        explanation: "torch.utils.cpp_extension and DeepSpeed's op builder compile CUDA code with the \
            toolkit at CUDA_HOME (else CUDA_PATH, the nvcc on PATH, /usr/local/cuda). Both refuse a \
            toolkit whose CUDA major differs from torch's (\"The detected CUDA version mismatches the \
            version that was used to compile PyTorch\"), so DeepSpeed ops compiled on first use and \
            source builds of extensions such as flash-attn fail. An error when DeepSpeed is installed \
            with ops left to JIT compilation, a warning otherwise.",
        run: |facts, _| nvcc_matches_torch_cuda(facts),
    },
];

/// `cuda:0 NVIDIA GeForce RTX 5090 (compute capability 12.0, Blackwell)`.
fn describe(tables: &Tables, gpu: &VisibleGpu, capability: Capability) -> String {
    let name = gpu.gpu.name.as_deref().unwrap_or("unnamed GPU");
    let architecture = tables
        .gpus
        .architecture(capability)
        .map(|row| format!(", {}", row.name))
        .unwrap_or_default();
    let source = if gpu.compute_capability.is_some() {
        ""
    } else {
        " by its name"
    };
    format!(
        "cuda:{} {name} (compute capability {capability}{source}{architecture})",
        gpu.ordinal
    )
}

/// The fix that installs a build running on `needed`, and what that build
/// is; or, in words, that none is known.
fn install_for_gpus(facts: &Facts, tables: &Tables, needed: &BTreeSet<Capability>) -> (String, Option<String>) {
    match torch_install::choose(facts, tables, needed, &|_| true, Prefer::Newest) {
        Some(install) => (install.command.clone(), Some(install.note())),
        None => (
            format!(
                "no official PyTorch build in envdoctor's table runs on compute capability {} with this driver and \
             the installed torchvision/torchaudio: use another GPU, or build PyTorch from source with \
             TORCH_CUDA_ARCH_LIST set to it and a CUDA toolkit that still targets it",
                needed.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            ),
            None,
        ),
    }
}

fn torch_runs_on_gpus(facts: &Facts, tables: &Tables) -> Vec<Finding> {
    let Some(build) = facts.torch else {
        return Vec::new();
    };
    if facts.gpus.is_empty() {
        // No GPU to run on: `no-gpu-visible` says why.
        return Vec::new();
    }
    let torch = torch_install::torch_version(facts);
    let platform = torch_install::platform(facts);
    let known: Vec<(&VisibleGpu, Capability)> = facts
        .gpus
        .iter()
        .filter_map(|gpu| Some((gpu, capability(tables, gpu)?)))
        .collect();
    let torch_text = build
        .version
        .clone()
        .or_else(|| torch.as_ref().map(|torch| torch.public.clone()))
        .unwrap_or_else(|| "(unknown version)".to_string());

    let Some(torch_cuda) = facts.torch_cuda.as_ref().and_then(MajorMinor::of) else {
        let kind = if build.hip.is_some() || build.rocm.is_some() {
            "a ROCm build, for AMD GPUs"
        } else if build.xpu.is_some() {
            "an XPU build, for Intel GPUs"
        } else {
            "a CPU-only build"
        };
        let needed: BTreeSet<Capability> = known.iter().map(|(_, cc)| *cc).collect();
        let gpus: Vec<String> = facts.gpus.iter().map(VisibleGpu::describe).collect();
        let (fix, note) = install_for_gpus(facts, tables, &needed);
        return vec![with_note(
            finding(
                NOT_CUDA,
                Severity::Error,
                "torch is not built for CUDA, but NVIDIA GPUs are visible".to_string(),
                format!(
                    "torch {torch_text} is {kind} (no torch.version.cuda); CUDA sees {}.",
                    gpus.join(", ")
                ),
                "A torch without CUDA cannot use NVIDIA GPUs: torch.cuda.is_available() returns False and \
             training runs on the CPU or fails at the first .cuda() (\"Torch not compiled with CUDA enabled\"). \
             pip installs a CPU-only wheel from PyPI on some platforms and from the CPU index."
                    .to_string(),
                Some(fix),
                vec![
                    "https://pytorch.org/get-started/locally/".to_string(),
                    "https://pytorch.org/get-started/previous-versions/".to_string(),
                ],
            ),
            note,
        )];
    };

    let variant = build
        .variant
        .clone()
        .filter(|variant| variant.starts_with("cu"))
        .unwrap_or_else(|| format!("cu{}{}", torch_cuda.major, torch_cuda.minor));
    let row = torch
        .as_ref()
        .and_then(|torch| tables.torch.build(torch.release, &variant, platform));
    let Some(row) = row else {
        if let Some(predated) = predated_by_its_cuda(facts, tables, &torch_text, torch_cuda, &known) {
            return vec![predated];
        }
        let platform = if platform.is_empty() {
            "on an architecture the Snapshot does not record"
        } else {
            platform
        };
        return vec![finding(
            BUILD_UNKNOWN,
            Severity::Info,
            format!("envdoctor does not know which GPU architectures torch {torch_text} carries"),
            format!(
                "torch {torch_text} ({variant}, {platform}) has no row in envdoctor's table of official builds \
                 (compat-matrix/tables/torch-builds.toml: torch 2.0 and later, as published), so whether it \
                 runs on {} is not judged here.",
                facts
                    .gpus
                    .iter()
                    .map(VisibleGpu::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "The GPU architectures a torch build carries are not written in any file its wheel installs \
             beside the compiled libraries; envdoctor reads them from its table, which lists official \
             builds only. Nightlies, source builds and releases newer than the table are not in it."
                .to_string(),
            Some(
                "python -c \"import torch; print(torch.cuda.get_arch_list())\" lists them; the smoke test \
                 (envdoctor check without --no-smoke) runs a kernel on each GPU"
                    .to_string(),
            ),
            vec![TORCH_CUDA_INIT.to_string()],
        )];
    };

    let failing: Vec<(&VisibleGpu, Capability)> = known
        .iter()
        .copied()
        .filter(|(_, cc)| row.runnable_entry(*cc).is_none())
        .collect();
    if failing.is_empty() {
        return Vec::new();
    }
    let needed: BTreeSet<Capability> = known.iter().map(|(_, cc)| *cc).collect();
    let is_final = torch.as_ref().is_some_and(|torch| torch.is_final);
    let mut severity = Severity::Error;
    let mut caveats = Vec::new();
    if row.confidence == RowEvidence::Unconfirmed {
        severity = severity.lowered();
        caveats.push(format!(
            "envdoctor's list for this build is unconfirmed for pip wheels ({})",
            row.note
                .as_deref()
                .unwrap_or("measured in another package of the release")
        ));
    }
    if !is_final {
        severity = severity.lowered();
        caveats.push("this is a pre-release or nightly, whose list may differ from the release's".to_string());
    }
    let caveats = if caveats.is_empty() {
        String::new()
    } else {
        format!(" Note: {}.", caveats.join("; "))
    };
    let gpus: Vec<String> = failing.iter().map(|(gpu, cc)| describe(tables, gpu, *cc)).collect();
    let mut references = vec![row.source.clone(), TORCH_CUDA_INIT.to_string()];
    if failing.iter().any(|(_, cc)| cc.major < 7) && row.cuda >= MajorMinor::new(12, 8) {
        references.push("https://github.com/pytorch/pytorch/issues/157517".to_string());
    }
    if failing.iter().any(|(_, cc)| cc.major >= 10) {
        references.push("https://docs.nvidia.com/cuda/blackwell-compatibility-guide/index.html".to_string());
    }
    let (fix, note) = install_for_gpus(facts, tables, &needed);
    let from_table = with_note(
        finding(
            ARCH_MISSING,
            severity,
            format!("torch {torch_text} has no code for {}", gpus.join(", ")),
            format!(
                "torch {torch_text} ({variant}, {platform}) carries GPU code for {} (TORCH_CUDA_ARCH_LIST); \
             {} can run none of it.{caveats}",
                row.arch_list(),
                gpus.join(", ")
            ),
            "A GPU runs a cubin compiled for its own major and an equal or lower minor (the Jetson GPUs \
         only their own), or PTX for an older capability, which the driver compiles for it. With neither \
         in the build, every CUDA kernel fails with \"no kernel image is available for execution on the \
         device\", after torch warns that the GPU \"is not compatible with the current PyTorch installation\"."
                .to_string(),
            Some(fix),
            references,
        ),
        note,
    );
    match &facts.live {
        Some(live) if live.kernels_ran_everywhere => vec![corrected_by_the_live_run(from_table, live)],
        _ => vec![from_table],
    }
}

/// A build the table does not list, made with a CUDA older than the first
/// that compiles for a GPU's compute capability major (torch 1.8.1+cu101 on an
/// RTX 3090: CUDA 10.1 predates every 8.x): it has no native code for that
/// GPU, which runs it only through PTX the driver compiles, if it carries any.
/// A warning, not an error, for that PTX; none where kernels ran on every GPU.
fn predated_by_its_cuda(
    facts: &Facts,
    tables: &Tables,
    torch_text: &str,
    torch_cuda: MajorMinor,
    known: &[(&VisibleGpu, Capability)],
) -> Option<Finding> {
    if facts.live.as_ref().is_some_and(|live| live.kernels_ran_everywhere) {
        return None;
    }
    let predated: Vec<(&VisibleGpu, Capability, &FirstCuda)> = known
        .iter()
        .filter_map(|(gpu, cc)| {
            let first = tables.gpus.first_cuda(*cc)?;
            (torch_cuda < first.cuda).then_some((*gpu, *cc, first))
        })
        .collect();
    let (_, capability, first) = *predated.first()?;
    let gpus: Vec<String> = predated.iter().map(|(gpu, cc, _)| describe(tables, gpu, *cc)).collect();
    let needed: BTreeSet<Capability> = known.iter().map(|(_, cc)| *cc).collect();
    let (fix, note) = install_for_gpus(facts, tables, &needed);
    Some(with_note(
        finding(
            ARCH_MISSING,
            Severity::Warning,
            format!(
                "torch {torch_text} is built with CUDA {torch_cuda}, older than any that compiles for {}",
                gpus.join(", ")
            ),
            format!(
                "torch {torch_text} is built with CUDA {torch_cuda}; the first CUDA that compiles code for compute \
                 capability {}.x is {}, so the build has no native code for {}, which can run it only through PTX \
                 the driver compiles, if the build carries any.",
                capability.major,
                first.cuda,
                gpus.join(", ")
            ),
            "A GPU runs a cubin compiled for its own major and an equal or lower minor, or PTX for an older \
             capability, which the driver compiles for it. A CUDA toolkit compiles only for the capabilities \
             that existed when it was released. Without PTX that the driver can compile, every CUDA kernel fails \
             with \"no kernel image is available for execution on the device\", after torch warns that the GPU \
             \"is not compatible with the current PyTorch installation\"."
                .to_string(),
            Some(fix),
            vec![first.source.clone(), TORCH_CUDA_INIT.to_string()],
        ),
        note,
    ))
}

/// Kernels ran on every GPU the table says this build cannot run on: the live
/// answer outranks the table, and the table is what is wrong.
fn corrected_by_the_live_run(table: Finding, live: &LiveRun) -> Finding {
    // A list not known is said so, not printed as if "unknown" were one.
    let architectures = live
        .arch_list
        .as_deref()
        .map_or("an architecture list not known".to_string(), |list| {
            format!("architectures {list}")
        });
    finding(
        ARCH_CORRECTED,
        Severity::Info,
        "The smoke test ran kernels on every GPU that the architecture table says this torch build cannot run on"
            .to_string(),
        format!(
            "The table said: {} The live build reports {architectures}, and a kernel ran on each GPU.",
            table.detail
        ),
        "The live answer outranks envdoctor's table (compat-matrix/tables/torch-builds.toml): this build runs \
         here, through PTX or code the table does not list."
            .to_string(),
        Some(
            "report the build and the architectures above at envdoctor's issue tracker so the table is corrected"
                .to_string(),
        ),
        table.references,
    )
}

fn deepspeed_matches_torch(facts: &Facts) -> Vec<Finding> {
    let Some(framework) = facts.snapshot.frameworks.get("deepspeed") else {
        return Vec::new();
    };
    let Some(Build::Deepspeed(build)) = &framework.build else {
        return Vec::new();
    };
    let (Some(torch), Some(torch_cuda)) = (
        torch_install::torch_version(facts),
        facts.torch_cuda.as_ref().and_then(MajorMinor::of),
    ) else {
        return Vec::new();
    };
    let prebuilt: Vec<&str> = build
        .installed_ops
        .iter()
        .filter(|(_, built)| **built)
        .map(|(name, _)| name.as_str())
        .collect();
    if prebuilt.is_empty() {
        // Every op is JIT-compiled against the torch that is present.
        return Vec::new();
    }
    let Some(info) = &build.torch_info else {
        return Vec::new();
    };
    let built_torch = info.version.as_deref().and_then(MajorMinor::parse);
    // DeepSpeed writes "0.0" for "no CUDA"; a CPU build of DeepSpeed is not this check's business.
    let built_cuda = info
        .cuda_version
        .as_deref()
        .and_then(MajorMinor::parse)
        .filter(|cuda| *cuda != MajorMinor::new(0, 0));
    let mut mismatches = Vec::new();
    if let Some(built) = built_torch
        && built != torch.release
    {
        mismatches.push(format!("torch {built} (installed: {})", torch.release));
    }
    if let Some(built) = built_cuda
        && built != torch_cuda
    {
        mismatches.push(format!("CUDA {built} (torch's now: {torch_cuda})"));
    }
    if mismatches.is_empty() {
        return Vec::new();
    }
    let version = framework
        .version
        .clone()
        .or_else(|| build.version.clone())
        .unwrap_or_else(|| "(unknown version)".to_string());
    vec![finding(
        DEEPSPEED_MISMATCH,
        Severity::Error,
        format!("DeepSpeed {version}'s pre-built ops were compiled for another torch"),
        format!(
            "DeepSpeed {version} compiled {} at install time against {}.",
            prebuilt.join(", "),
            mismatches.join(" and ")
        ),
        "DeepSpeed checks a pre-built op against the running torch when it loads it and raises \
         \"PyTorch version mismatch!\" or \"CUDA version mismatch! DeepSpeed ops were compiled and installed \
         with a different version than what is being used at runtime\"; the op's binary is linked against \
         the other torch's libraries in any case."
            .to_string(),
        Some(rebuild_deepspeed(build, &prebuilt, framework.version.as_deref())),
        vec![
            DEEPSPEED_BUILDER.to_string(),
            "https://www.deepspeed.ai/tutorials/advanced-install/".to_string(),
        ],
    )]
}

/// Reinstall DeepSpeed from source against the installed torch, pre-building
/// the same ops (`DS_BUILD_<OP>=1`, DeepSpeed's install-time switches).
fn rebuild_deepspeed(build: &DeepSpeedBuild, prebuilt: &[&str], version: Option<&str>) -> String {
    let switches: Vec<String> = prebuilt
        .iter()
        .map(|op| format!("DS_BUILD_{}=1", op.to_ascii_uppercase()))
        .collect();
    let version = version.or(build.version.as_deref());
    let requirement = match version {
        Some(version) => shell::quote(&format!("deepspeed=={version}")),
        None => "deepspeed".to_string(),
    };
    format!(
        "{} pip install --no-cache-dir --force-reinstall --no-deps --no-build-isolation {requirement}",
        switches.join(" ")
    )
}

fn bitsandbytes_library(facts: &Facts) -> Vec<Finding> {
    let Some(framework) = facts.snapshot.frameworks.get("bitsandbytes") else {
        return Vec::new();
    };
    let Some(Build::Bitsandbytes(build)) = &framework.build else {
        return Vec::new();
    };
    let Some(torch_cuda) = facts.torch_cuda.as_ref().and_then(MajorMinor::of) else {
        // A CPU or ROCm torch: bitsandbytes takes another backend.
        return Vec::new();
    };
    let version = framework.version.as_deref().unwrap_or("(unknown version)");
    let mut shipped: Vec<MajorMinor> = build
        .native_libraries
        .iter()
        .filter(|library| library.backend == "cuda")
        .filter_map(|library| MajorMinor::parse(library.version.as_deref()?))
        .collect();
    shipped.sort();
    shipped.dedup();
    let shipped_text = if shipped.is_empty() {
        "no CUDA library at all".to_string()
    } else {
        format!(
            "libraries for CUDA {}",
            shipped.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        )
    };
    let references = vec![
        BNB_CEXTENSION.to_string(),
        "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1980".to_string(),
        "https://huggingface.co/docs/bitsandbytes/main/en/installation".to_string(),
    ];
    let no_library = |detail: String, fix: String| {
        finding(
            BNB_NO_LIBRARY,
            Severity::Error,
            format!("bitsandbytes {version} has no native library for CUDA {torch_cuda}"),
            detail,
            "bitsandbytes' quantized layers and 8-bit optimizers are native code loaded by CUDA version; \
             without a library of torch's CUDA major the import fails or falls back to the CPU library \
             (\"The installed version of bitsandbytes was compiled without GPU support\"), and every \
             4-bit/8-bit operation on the GPU fails."
                .to_string(),
            Some(fix),
            references.clone(),
        )
    };

    if let Some(value) = facts.env("BNB_CUDA_VERSION").filter(|value| !value.is_empty()) {
        let forced = tables::variant_cuda(&format!("cu{value}"));
        return match forced {
            Some(forced) if shipped.contains(&forced) && forced != torch_cuda => vec![finding(
                BNB_OVERRIDE,
                Severity::Warning,
                format!("BNB_CUDA_VERSION={value} makes bitsandbytes load CUDA {forced}, not torch's {torch_cuda}"),
                format!(
                    "BNB_CUDA_VERSION={value} is set, so bitsandbytes {version} loads libbitsandbytes_cuda{value} \
                     while torch runs CUDA {torch_cuda}."
                ),
                "The variable bypasses bitsandbytes' choice of library; a library built for another CUDA than \
                 the runtime torch loads works only if that CUDA's runtime libraries are found too, and fails \
                 with missing-symbol or CUDA errors otherwise."
                    .to_string(),
                Some("unset BNB_CUDA_VERSION (unless it was set deliberately, with that CUDA runtime on LD_LIBRARY_PATH)".to_string()),
                references,
            )],
            Some(forced) if shipped.contains(&forced) => Vec::new(),
            _ => vec![no_library(
                format!(
                    "BNB_CUDA_VERSION={value} makes bitsandbytes {version} load libbitsandbytes_cuda{value}, which it \
                     does not ship; it has {shipped_text}. torch runs CUDA {torch_cuda}."
                ),
                "unset BNB_CUDA_VERSION".to_string(),
            )],
        };
    }
    if shipped.contains(&torch_cuda) {
        return Vec::new();
    }
    let same_major: Vec<MajorMinor> = shipped
        .iter()
        .copied()
        .filter(|cuda| cuda.major == torch_cuda.major)
        .collect();
    let fallback = same_major
        .iter()
        .rev()
        .find(|cuda| **cuda < torch_cuda)
        .or_else(|| same_major.iter().find(|cuda| **cuda > torch_cuda));
    // The same-major fallback is bitsandbytes PR #1980, first released in 0.50.0;
    // before it, only the exact library loads.
    let has_fallback = framework
        .version
        .as_deref()
        .and_then(|text| Version::from_str(text).ok())
        .or_else(|| facts.package_version("bitsandbytes"))
        .map(|installed| installed >= Version::new([0, 50, 0]));
    match (fallback, has_fallback) {
        (Some(fallback), Some(false)) => vec![no_library(
            format!(
                "torch runs CUDA {torch_cuda}; bitsandbytes {version} ships {shipped_text}, not {torch_cuda}, and \
                 loads only the library of torch's exact CUDA: the fallback to another minor of the same major \
                 (here {fallback}) came in 0.50.0."
            ),
            FIX_BNB_FALLBACK.to_string(),
        )],
        (Some(fallback), _) => vec![finding(
            BNB_FALLBACK,
            Severity::Warning,
            format!(
                "bitsandbytes {version} has no library for CUDA {torch_cuda}, only for CUDA {fallback} of that major"
            ),
            format!("torch runs CUDA {torch_cuda}; bitsandbytes {version} ships {shipped_text}, not {torch_cuda}."),
            match has_fallback {
                Some(_) => format!(
                    "bitsandbytes 0.50.0 and newer load the CUDA {fallback} library when torch's exact one is \
                     missing (PR #1980) and warn; it runs where CUDA's minor-version compatibility carries it, \
                     and a library built for a newer minor than torch's may need a newer driver."
                ),
                None => format!(
                    "Its version is unknown: from 0.50.0 bitsandbytes loads the CUDA {fallback} library and warns \
                     (PR #1980); earlier releases look for the exact library only and fail to load."
                ),
            },
            Some(FIX_BNB_FALLBACK.to_string()),
            references,
        )],
        (None, _) => vec![no_library(
            format!(
                "torch runs CUDA {torch_cuda}; bitsandbytes {version} ships {shipped_text}, none of CUDA {}.",
                torch_cuda.major
            ),
            "pip install -U bitsandbytes".to_string(),
        )],
    }
}

/// A toolkit's CUDA release, from its version or, failing that, its nvcc's.
pub fn cuda_of_toolkit(toolkit: &Toolkit) -> Option<MajorMinor> {
    let text = toolkit.version.as_deref().or(toolkit.nvcc_version.as_deref())?;
    MajorMinor::of(&crate::facts::dotted(text)?)
}

fn nvcc_matches_torch_cuda(facts: &Facts) -> Vec<Finding> {
    let Some(torch_cuda) = facts.torch_cuda.as_ref().and_then(MajorMinor::of) else {
        return Vec::new();
    };
    let toolkits = &facts.snapshot.cuda.toolkits;
    let Some((toolkit, chosen_by)) = facts.active_toolkit() else {
        return Vec::new();
    };
    let Some(toolkit_cuda) = cuda_of_toolkit(toolkit) else {
        return Vec::new();
    };
    if toolkit_cuda.major == torch_cuda.major {
        return Vec::new();
    }
    let jit_deepspeed = facts
        .snapshot
        .frameworks
        .get("deepspeed")
        .and_then(|framework| match &framework.build {
            Some(Build::Deepspeed(build)) => {
                let jit: Vec<&str> = build
                    .installed_ops
                    .iter()
                    .filter(|(_, built)| !**built)
                    .map(|(name, _)| name.as_str())
                    .collect();
                (!build.build_record || !jit.is_empty()).then_some(jit.len())
            }
            _ => None,
        });
    let severity = if jit_deepspeed.is_some() {
        Severity::Error
    } else {
        Severity::Warning
    };
    let consequence = match jit_deepspeed {
        Some(_) => "DeepSpeed is installed with ops it compiles on first use (FusedAdam, CPU Adam for offload, ...), \
                    so a DeepSpeed run fails when it builds them."
            .to_string(),
        None => "Nothing installed here compiles on first use, but any source build of a CUDA extension \
                 (flash-attn, DeepSpeed ops, bitsandbytes from source) fails."
            .to_string(),
    };
    let nvcc = toolkit
        .nvcc
        .as_ref()
        .map(|path| format!(", nvcc {}", path.display()))
        .unwrap_or_default();
    let matching = toolkits
        .iter()
        .filter(|other| cuda_of_toolkit(other).is_some_and(|cuda| cuda.major == torch_cuda.major))
        .max_by_key(|other| cuda_of_toolkit(other));
    let (fix, fix_note) = match matching {
        Some(other) => (
            format!(
                "export CUDA_HOME={root} PATH={root}/bin:$PATH",
                root = shell::quote(&other.root.display().to_string())
            ),
            Some(format!(
                "the CUDA {} toolkit already on this node",
                cuda_of_toolkit(other).map(|cuda| cuda.to_string()).unwrap_or_default()
            )),
        ),
        None => (
            format!(
                "install a CUDA {torch_cuda} toolkit (https://developer.nvidia.com/cuda-toolkit-archive) and \
                 export CUDA_HOME=/usr/local/cuda-{torch_cuda} PATH=/usr/local/cuda-{torch_cuda}/bin:$PATH"
            ),
            None,
        ),
    };
    let finding = finding(
        NVCC_MAJOR,
        severity,
        format!("The CUDA toolkit is CUDA {toolkit_cuda}, torch is built with CUDA {torch_cuda}"),
        format!(
            "torch was built with CUDA {torch_cuda}; the toolkit CUDA extensions would be built with is {} \
             (CUDA {toolkit_cuda}{nvcc}), chosen by {chosen_by}. {consequence}",
            toolkit.root.display()
        ),
        "torch.utils.cpp_extension raises \"The detected CUDA version (X) mismatches the version that was used \
         to compile PyTorch (Y)\" when the majors differ, and DeepSpeed's op builder raises \"Installed CUDA version X \
         does not match the version torch was compiled with Y, unable to compile cuda/cpp extensions without a \
         matching cuda version\" (DS_SKIP_CUDA_CHECK=1 bypasses it at the risk of a broken binary)."
            .to_string(),
        Some(fix),
        vec![
            "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py".to_string(),
            DEEPSPEED_BUILDER.to_string(),
        ],
    );
    vec![Finding { fix_note, ..finding }]
}

#[cfg(test)]
mod tests {
    use crate::snapshot::cuda::ToolkitFoundVia;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::builtin_checks::test_support::{healthy, ids, run};
    use crate::probe::frameworks;
    use crate::snapshot::Snapshot;

    const FRAMEWORK_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/frameworks");

    fn torch_build(snapshot: &mut Snapshot) -> &mut crate::snapshot::frameworks::TorchBuild {
        match snapshot.frameworks.get_mut("torch").and_then(|f| f.build.as_mut()) {
            Some(Build::Torch(build)) => build,
            _ => panic!("the fixture has a torch build"),
        }
    }

    fn set_torch(snapshot: &mut Snapshot, version: &str, cuda: Option<&str>) {
        let build = torch_build(snapshot);
        build.version = Some(version.to_string());
        build.variant = version.split_once('+').map(|(_, variant)| variant.to_string());
        build.cuda = cuda.map(str::to_string);
    }

    fn set_gpus(snapshot: &mut Snapshot, name: &str, capability: Option<&str>) {
        for gpu in &mut snapshot.nvidia.as_mut().unwrap().gpus {
            gpu.name = Some(name.to_string());
            gpu.compute_capability = capability.map(str::to_string);
        }
    }

    /// Installs frameworks into `snapshot` the way the probe reads them: from a
    /// package directory holding the real files of the named fixtures.
    fn install_frameworks(
        snapshot: &mut Snapshot,
        deepspeed: Option<&str>,
        bitsandbytes: Option<&str>,
    ) -> tempfile::TempDir {
        let site = tempfile::tempdir().unwrap();
        if let Some(fixture) = deepspeed {
            let package = site.path().join("deepspeed");
            std::fs::create_dir(&package).unwrap();
            std::fs::write(package.join("__init__.py"), "").unwrap();
            std::fs::copy(
                Path::new(FRAMEWORK_FIXTURES).join(fixture),
                package.join("git_version_info_installed.py"),
            )
            .unwrap();
        }
        if let Some(fixture) = bitsandbytes {
            let package = site.path().join("bitsandbytes");
            std::fs::create_dir(&package).unwrap();
            std::fs::write(package.join("__init__.py"), "").unwrap();
            let names = std::fs::read_to_string(Path::new(FRAMEWORK_FIXTURES).join(fixture)).unwrap();
            for name in names.lines() {
                std::fs::write(package.join(name), "").unwrap();
            }
        }
        let found = frameworks::probe(&[PathBuf::from(site.path())], &[]);
        for (name, mut framework) in found {
            // The release, from the fixture's wheel name (`bitsandbytes-0.41.1-...`), as
            // the probe reads it from the installed distribution.
            if name == "bitsandbytes" {
                framework.version = bitsandbytes
                    .and_then(|fixture| fixture.split('-').nth(1))
                    .map(str::to_string);
            }
            snapshot.frameworks.insert(name, framework);
        }
        site
    }

    #[test]
    fn a_blackwell_gpu_on_a_cu124_build_has_no_code() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.6.0+cu124", Some("12.4"));
        set_gpus(&mut snapshot, "NVIDIA GeForce RTX 5090", Some("12.0"));
        snapshot.nvidia.as_mut().unwrap().driver_version = Some("575.51.03".to_string());
        snapshot.nvidia.as_mut().unwrap().cuda_driver_version = Some("12.9".to_string());
        let findings = run(&snapshot, torch_runs_on_gpus);
        // The 2.6 list was measured in PyTorch's images, so the finding is one level milder.
        assert_eq!(ids(&findings), [(ARCH_MISSING, Severity::Warning)]);
        let finding = &findings[0];
        assert!(
            finding.detail.contains("5.0;6.0;7.0;7.5;8.0;8.6;9.0"),
            "{}",
            finding.detail
        );
        assert!(
            finding
                .detail
                .contains("cuda:0 NVIDIA GeForce RTX 5090 (compute capability 12.0, Blackwell)")
        );
        assert!(finding.detail.contains("unconfirmed for pip wheels"));
        let fix = finding.fix.as_deref().unwrap();
        // No 2.6 build runs on 12.0. Of newer releases, 2.12 and later offer 12.0 only in CUDA 13 builds,
        // which driver 575 cannot run; 2.11's cu128 build it runs fully.
        assert!(
            fix.starts_with("pip install \"torch==2.11.0\" --index-url https://download.pytorch.org/whl/cu128"),
            "{fix}"
        );
        assert!(
            finding
                .references
                .iter()
                .any(|r| r.contains("blackwell-compatibility-guide"))
        );
    }

    #[test]
    fn pascal_on_a_confirmed_cu128_build_is_an_error_and_cu126_is_the_fix() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.8.0+cu128", Some("12.8"));
        // No capability from NVML: the GPU table names it.
        set_gpus(&mut snapshot, "Tesla P100-PCIE-16GB", None);
        snapshot.nvidia.as_mut().unwrap().driver_version = Some("570.124.06".to_string());
        snapshot.nvidia.as_mut().unwrap().cuda_driver_version = Some("12.8".to_string());
        let findings = run(&snapshot, torch_runs_on_gpus);
        assert_eq!(ids(&findings), [(ARCH_MISSING, Severity::Error)]);
        assert!(
            findings[0]
                .detail
                .contains("compute capability 6.0 by its name, Pascal"),
            "{}",
            findings[0].detail
        );
        let fix = findings[0].fix.as_deref().unwrap();
        assert!(
            fix.starts_with("pip install \"torch==2.8.0\" --index-url https://download.pytorch.org/whl/cu126"),
            "{fix}"
        );
        assert!(findings[0].references.iter().any(|r| r.ends_with("/issues/157517")));
    }

    #[test]
    fn newer_minors_of_a_major_run_the_older_cubin_and_ptx_covers_newer_majors() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.8.0+cu128", Some("12.8"));
        set_gpus(&mut snapshot, "NVIDIA L40S", Some("8.9"));
        assert_eq!(run(&snapshot, torch_runs_on_gpus), []);
        set_torch(&mut snapshot, "2.14.0+cu130", Some("13.0"));
        set_gpus(&mut snapshot, "NVIDIA GB10", Some("12.1"));
        assert_eq!(run(&snapshot, torch_runs_on_gpus), []);
    }

    /// A build the table does not list, made with a CUDA before the GPU's
    /// major existed, has no native code for it; one made with a CUDA that
    /// knows the major is not judged; kernels that ran there settle it.
    #[test]
    fn a_build_whose_cuda_predates_the_gpus_major_has_no_native_code_for_it() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "1.8.1+cu101", Some("10.1"));
        set_gpus(&mut snapshot, "NVIDIA GeForce RTX 3090", Some("8.6"));
        let findings = run(&snapshot, torch_runs_on_gpus);
        assert_eq!(ids(&findings), [(ARCH_MISSING, Severity::Warning)]);
        assert!(
            findings[0].detail.contains("compute capability 8.x is 11.0"),
            "{}",
            findings[0].detail
        );
        set_torch(&mut snapshot, "1.8.1+cu111", Some("11.1"));
        assert_eq!(
            ids(&run(&snapshot, torch_runs_on_gpus)),
            [(BUILD_UNKNOWN, Severity::Info)]
        );
        // A T4 (7.x): the table states no first CUDA for major 7, so nothing is guessed.
        set_torch(&mut snapshot, "1.0.0+cu80", Some("8.0"));
        set_gpus(&mut snapshot, "Tesla T4", Some("7.5"));
        assert_eq!(
            ids(&run(&snapshot, torch_runs_on_gpus)),
            [(BUILD_UNKNOWN, Severity::Info)]
        );
    }

    #[test]
    fn an_unknown_build_is_named_not_judged_and_a_cpu_torch_is_an_error() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.99.0+cu199", Some("19.9"));
        assert_eq!(
            ids(&run(&snapshot, torch_runs_on_gpus)),
            [(BUILD_UNKNOWN, Severity::Info)]
        );
        set_torch(&mut snapshot, "2.3.1+cpu", None);
        let findings = run(&snapshot, torch_runs_on_gpus);
        assert_eq!(ids(&findings), [(NOT_CUDA, Severity::Error)]);
        assert!(findings[0].detail.contains("a CPU-only build"));
        // Driver 535 (CUDA 12.2) runs the cu121 build fully.
        assert!(
            findings[0]
                .fix
                .as_deref()
                .unwrap()
                .contains("\"torch==2.3.1\" --index-url https://download.pytorch.org/whl/cu121")
        );
        snapshot.nvidia.as_mut().unwrap().gpus.clear();
        snapshot.cuda_devices = None;
        assert_eq!(
            run(&snapshot, torch_runs_on_gpus),
            [],
            "no GPU is the device check's finding"
        );
    }

    #[test]
    fn deepspeed_ops_prebuilt_for_torch_2_2_fail_under_torch_2_3() {
        let mut snapshot = healthy();
        // Real build record: cpu_vertin pre-built against torch 2.2, CUDA 12.1; the fixture torch is 2.3.1+cu121.
        let _site = install_frameworks(
            &mut snapshot,
            Some("deepspeed-0.16.1+7384483.git_version_info_installed.py"),
            None,
        );
        let findings = run(&snapshot, deepspeed_matches_torch);
        assert_eq!(ids(&findings), [(DEEPSPEED_MISMATCH, Severity::Error)]);
        assert!(
            findings[0]
                .detail
                .contains("compiled cpu_vertin at install time against torch 2.2 (installed: 2.3)"),
            "{}",
            findings[0].detail
        );
        assert_eq!(
            findings[0].fix.as_deref(),
            Some(
                "DS_BUILD_CPU_VERTIN=1 pip install --no-cache-dir --force-reinstall --no-deps --no-build-isolation 'deepspeed==0.16.1+7384483'"
            )
        );
        // The same record under torch 2.2 with CUDA 12.1 matches.
        set_torch(&mut snapshot, "2.2.2+cu121", Some("12.1"));
        assert_eq!(run(&snapshot, deepspeed_matches_torch), []);
    }

    #[test]
    fn deepspeed_with_every_op_left_to_jit_is_quiet() {
        let mut snapshot = healthy();
        // Real build record of 0.16.3: no op pre-built, recorded against torch 2.3.
        let _site = install_frameworks(
            &mut snapshot,
            Some("deepspeed-0.16.3.git_version_info_installed.py"),
            None,
        );
        set_torch(&mut snapshot, "2.8.0+cu128", Some("12.8"));
        assert_eq!(run(&snapshot, deepspeed_matches_torch), []);
    }

    #[test]
    fn bitsandbytes_0_41_has_no_library_for_cuda_12_4() {
        let mut snapshot = healthy();
        let _site = install_frameworks(
            &mut snapshot,
            None,
            Some("bitsandbytes-0.41.1-py3-none-any.native-libraries.txt"),
        );
        // Its libraries stop at 12.2: the fixture's cu121 torch is served exactly.
        assert_eq!(run(&snapshot, bitsandbytes_library), []);
        set_torch(&mut snapshot, "2.5.1+cu124", Some("12.4"));
        let findings = run(&snapshot, bitsandbytes_library);
        // 12.2 is of the same major, but 0.41 loads only the exact library: an error.
        assert_eq!(ids(&findings), [(BNB_NO_LIBRARY, Severity::Error)]);
        assert!(findings[0].detail.contains("came in 0.50.0"), "{}", findings[0].detail);
        set_torch(&mut snapshot, "2.9.1+cu130", Some("13.0"));
        let findings = run(&snapshot, bitsandbytes_library);
        assert_eq!(ids(&findings), [(BNB_NO_LIBRARY, Severity::Error)]);
        assert!(findings[0].detail.contains("none of CUDA 13"));
    }

    #[test]
    fn bitsandbytes_0_50_serves_cuda_13_and_an_override_is_honoured() {
        let mut snapshot = healthy();
        let _site = install_frameworks(
            &mut snapshot,
            None,
            Some("bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.native-libraries.txt"),
        );
        set_torch(&mut snapshot, "2.9.1+cu130", Some("13.0"));
        assert_eq!(run(&snapshot, bitsandbytes_library), []);
        snapshot.env.insert("BNB_CUDA_VERSION".to_string(), "128".to_string());
        assert_eq!(
            ids(&run(&snapshot, bitsandbytes_library)),
            [(BNB_OVERRIDE, Severity::Warning)]
        );
        snapshot.env.insert("BNB_CUDA_VERSION".to_string(), "125".to_string());
        let findings = run(&snapshot, bitsandbytes_library);
        assert_eq!(ids(&findings), [(BNB_NO_LIBRARY, Severity::Error)]);
        assert_eq!(findings[0].fix.as_deref(), Some("unset BNB_CUDA_VERSION"));
        snapshot.env.insert("BNB_CUDA_VERSION".to_string(), "130".to_string());
        assert_eq!(run(&snapshot, bitsandbytes_library), []);
    }

    fn toolkit(root: &str, version: &str, via: ToolkitFoundVia) -> Toolkit {
        Toolkit {
            root: PathBuf::from(root),
            found_via: vec![via],
            aliases: Vec::new(),
            version: Some(version.to_string()),
            version_source: None,
            version_file: None,
            nvcc: Some(PathBuf::from(root).join("bin/nvcc")),
            nvcc_version: None,
            problems: Vec::new(),
        }
    }

    #[test]
    fn an_nvcc_of_another_major_breaks_deepspeed_jit_builds() {
        let mut snapshot = healthy();
        snapshot.cuda.toolkits = vec![
            toolkit("/usr/local/cuda-11.8", "11.8.89", ToolkitFoundVia::Path),
            toolkit("/usr/local/cuda-12.4", "12.4.131", ToolkitFoundVia::UsrLocal),
        ];
        let findings = run(&snapshot, nvcc_matches_torch_cuda);
        assert_eq!(ids(&findings), [(NVCC_MAJOR, Severity::Warning)]);
        assert!(findings[0].detail.contains(
            "/usr/local/cuda-11.8 (CUDA 11.8, nvcc /usr/local/cuda-11.8/bin/nvcc), chosen by the nvcc on PATH"
        ));
        assert_eq!(
            findings[0].fix.as_deref(),
            Some("export CUDA_HOME='/usr/local/cuda-12.4' PATH='/usr/local/cuda-12.4'/bin:$PATH")
        );
        assert_eq!(
            findings[0].fix_note.as_deref(),
            Some("the CUDA 12.4 toolkit already on this node")
        );
        let _site = install_frameworks(
            &mut snapshot,
            Some("deepspeed-0.16.3.git_version_info_installed.py"),
            None,
        );
        assert_eq!(
            ids(&run(&snapshot, nvcc_matches_torch_cuda)),
            [(NVCC_MAJOR, Severity::Error)]
        );
    }

    #[test]
    fn cuda_home_wins_and_a_matching_major_is_quiet() {
        let mut snapshot = healthy();
        snapshot.cuda.toolkits = vec![
            toolkit("/usr/local/cuda-11.8", "11.8.89", ToolkitFoundVia::Path),
            toolkit("/opt/cuda-12.4", "12.4.131", ToolkitFoundVia::CudaHome),
        ];
        assert_eq!(run(&snapshot, nvcc_matches_torch_cuda), []);
        snapshot.cuda.toolkits.truncate(1);
        snapshot.cuda.toolkits[0].found_via = vec![ToolkitFoundVia::Wheel];
        assert_eq!(
            run(&snapshot, nvcc_matches_torch_cuda),
            [],
            "a toolkit no build would pick is not judged"
        );
    }
}
