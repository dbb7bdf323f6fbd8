//! A CUDA compiler refusing the architecture it is asked to compile for:
//! nvcc's `nvcc fatal : Unsupported gpu architecture 'compute_86'` and `Value
//! 'sm_75' is not defined for option 'gpu-architecture'`, and ptxas's `ptxas
//! fatal : Value 'sm_121a' is not defined for option 'gpu-name'` (Triton runs
//! a ptxas it bundles, from the toolkit it was built with). The capability in
//! the message, against the toolkits the GPU table dates for it, says which
//! way the toolkit is wrong: older than the architecture (sm_86 from CUDA
//! 11.1) or newer than its removal (Kepler's sm_37 went in CUDA 12.0). The
//! toolkit on the node, where the log is the node's, confirms it.

use super::{Context, Reading, text};
use crate::facts::Facts;
use crate::knowledge::tables::{MajorMinor, Tables};

pub const CAUSE: &str = "nvcc-unsupported-gpu-arch";

const REFUSAL: &str = "unsupported gpu architecture '";
/// The option an architecture is refused for, by the tool that has it.
const REFUSED_FOR: [(&str, &str); 2] = [
    ("' is not defined for option 'gpu-architecture'", "nvcc"),
    ("' is not defined for option 'gpu-name'", "ptxas"),
];
/// Triton's words for a ptxas failure, and where Triton keeps the ptxas it
/// runs unless TRITON_PTXAS_PATH names another.
const TRITONS_PTXAS: [&str; 2] = ["internal triton ptx codegen error", "triton/backends/nvidia/bin/ptxas"];

/// XLA's words (TensorFlow's and JAX's compiler) when the ptxas it found
/// does not know the GPU's capability, given as `major.minor`: `Falling back
/// to the CUDA driver for PTX compilation; ptxas does not support CC 9.0`.
/// XLA runs the first ptxas on PATH ("Modify $PATH to customize ptxas
/// location", its next line), or the one its CUDA data directory holds.
const XLAS_PTXAS: &str = "ptxas does not support cc ";

/// The architecture a compiler refused, the compiler, and whether it is the
/// ptxas Triton bundles or the one XLA found.
struct Refused {
    arch: String,
    tool: &'static str,
    triton: bool,
    xla: bool,
}

fn refused(lower: &str) -> Option<Refused> {
    let triton = TRITONS_PTXAS.iter().any(|marker| lower.contains(marker));
    if let Some(named) = text::after_marker(lower, REFUSAL) {
        return Some(Refused {
            arch: named.split('\'').next()?.to_string(),
            tool: "nvcc",
            triton: false,
            xla: false,
        });
    }
    if let Some(capability) = text::after_marker(lower, XLAS_PTXAS) {
        let word = capability.split_whitespace().next()?;
        let capability = MajorMinor::parse(word.trim_end_matches(|c: char| !c.is_ascii_digit()))?;
        return Some(Refused {
            arch: format!("sm_{}{}", capability.major, capability.minor),
            tool: "the ptxas XLA found",
            triton: false,
            xla: true,
        });
    }
    REFUSED_FOR.iter().find_map(|(option, tool)| {
        let end = lower.find(option)?;
        let start = lower[..end].rfind("value '")? + "value '".len();
        // `ptxas-blackwell fatal : Value ...`: the binary that refused.
        let tool = match lower[..start].rfind(" fatal") {
            Some(fatal) if lower[..fatal].ends_with("ptxas-blackwell") => "ptxas-blackwell",
            _ => *tool,
        };
        Some(Refused {
            arch: lower[start..end].to_string(),
            tool,
            triton: triton && tool.starts_with("ptxas"),
            xla: false,
        })
    })
}

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    if let Some(reading) = unknown_standard(&lower, context) {
        return Some(reading);
    }
    if lower.contains(NVRTC_REFUSAL) {
        return Some(nvrtc_refusal(context));
    }
    let Refused {
        arch,
        tool,
        triton,
        xla,
    } = refused(&lower)?;
    let arch = arch.as_str();
    let capability = capability_of(arch)?;
    let suffix = arch
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim_start_matches(|c: char| c.is_ascii_digit());
    let target = context.tables.and_then(|tables| tables.gpus.nvcc_target(capability));
    // Triton's own ptxas is not the node's toolkit, which says nothing of it;
    // nor is the one XLA found on PATH or in a pip wheel.
    let toolkit = context.facts.filter(|_| !triton && !xla).and_then(toolkit_here);
    // Newer Triton runs a second bundled ptxas, ptxas-blackwell, for sm_100 and
    // later, overridden by its own variable: both are named where it may be.
    let blackwell_variable = if capability.major >= 10 {
        " and TRITON_PTXAS_BLACKWELL_PATH=/usr/local/cuda-X.Y/bin/ptxas (which Triton reads for sm_100 and newer where it bundles ptxas-blackwell)"
    } else {
        ""
    };
    let triton_fix = |toolkits: &str| {
        format!(
            "point Triton at the ptxas of {toolkits}: export TRITON_PTXAS_PATH=/usr/local/cuda-X.Y/bin/ptxas{blackwell_variable} (without it Triton runs the ptxas it bundles, from the toolkit it was built with)"
        )
    };
    let mut node = Vec::new();
    let (said, fix) = match target {
        Some(target) if target.first_cuda.is_some() => {
            // Family targets (`sm_100f`) came with CUDA 12.9 whatever their
            // capability (NVIDIA's CUDA features archive); an
            // architecture-specific one (`sm_90a`) may need a later toolkit
            // than its capability, which the table does not date.
            let family = MajorMinor::new(12, 9);
            let capabilitys_first = target.first_cuda.expect("checked");
            let first = match suffix {
                "f" => capabilitys_first.max(family),
                _ => capabilitys_first,
            };
            let at_least = if suffix == "a" { " at least" } else { "" };
            if let Some((version, found)) = &toolkit {
                node.push((
                    Some(version < &first),
                    format!("the toolkit a build uses here is CUDA {version} ({found})"),
                ));
            }
            let install = format!(
                "install a CUDA toolkit of {first} or newer and build with it (export CUDA_HOME=/usr/local/cuda-X.Y, its bin first on PATH)"
            );
            let gpus_of_it = match (context.facts, context.tables) {
                (Some(facts), Some(tables)) => gpus_of(facts, tables, capability),
                _ => Vec::new(),
            };
            let fix = if triton {
                triton_fix(&format!("a CUDA toolkit of {first} or newer"))
            } else if xla {
                // XLA compiles for the GPU it runs on: nothing to leave out.
                xla_fix(first)
            } else if gpus_of_it.is_empty() {
                format!(
                    "{install}, or leave {capability} out of the build's architectures (TORCH_CUDA_ARCH_LIST) if no GPU that runs it has it"
                )
            } else {
                node.push((
                    Some(true),
                    format!("the build must target it: {} here", gpus_of_it.join(", ")),
                ));
                install
            };
            (
                format!(
                    "{tool} does not know {arch}: compute capability {capability} needs a CUDA toolkit of{at_least} {first} or newer"
                ),
                fix,
            )
        }
        Some(target) => {
            let removed = target.removed_in.expect("a row has one of the two");
            if let Some((version, found)) = &toolkit {
                node.push((
                    Some(version >= &removed),
                    format!("the toolkit a build uses here is CUDA {version} ({found})"),
                ));
            }
            (
                format!(
                    "{tool} does not know {arch}: CUDA {removed} removed compute capability {capability}, and the build still asks for it"
                ),
                if xla {
                    format!(
                        "give XLA the ptxas of a CUDA toolkit older than {removed}: put that toolkit's bin first on PATH (XLA runs the first ptxas it finds), or run the job on a GPU newer than compute capability {capability}"
                    )
                } else {
                    format!(
                        "take {capability} out of the build's architectures (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, or the list the package's setup.py hard-codes) and list the GPUs this node has, or build with a CUDA toolkit older than {removed}"
                    )
                },
            )
        }
        None => (
            format!(
                "{tool} does not know {arch} (compute capability {capability}); when its toolkits came or went is not in the GPU table"
            ),
            if triton {
                triton_fix("the newest CUDA toolkit installed (ptxas --help lists the gpu-name values it knows)")
            } else if xla {
                "give XLA the ptxas of the newest CUDA toolkit installed (ptxas --help lists the gpu-name values it knows): put its bin first on PATH".to_string()
            } else {
                "compare `nvcc --list-gpu-arch` with the build's architectures (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, the package's setup.py): install a toolkit that lists it, or take it out of the build's list".to_string()
            },
        ),
    };
    // A ptxas line read on its own (printed apart from Triton's exception)
    // does not say whose ptxas ran: Triton's bundled one is fixed apart.
    let fix = if tool.starts_with("ptxas") && !triton {
        format!(
            "{fix}; where Triton ran it (its own ptxas, under triton/backends/nvidia/bin, shown in Triton's 'Repro command'), {}",
            triton_fix("a CUDA toolkit that knows it")
        )
    } else {
        fix
    };
    // The node's own toolkit already past the release the message needs says
    // the words were misread, or another toolkit ran: not settled.
    let contradicted = node.iter().any(|(holds, _)| *holds == Some(false));
    Some(Reading {
        settles: !contradicted,
        ..Reading::stated_outright(CAUSE, said, node, fix)
    })
}

/// NVRTC's words when a runtime compile (torch's fusers and jiterator, CuPy's
/// RawKernel, tiny-cuda-nn) asks for an architecture it does not know. The
/// architecture is not named: it is the GPU's own, which the node's GPU list
/// gives where the log is the node's or the report says.
const NVRTC_REFUSAL: &str = "nvrtc: error: invalid value for --gpu-architecture";

/// What decides an NVRTC refusal the node cannot.
const NVRTC_DECIDERS: &str = "the compute capability of the GPU the job ran on (nvidia-smi --query-gpu=name,compute_cap --format=csv) and torch's CUDA (python -c 'import torch; print(torch.version.cuda)'), whose NVRTC torch loads";

/// An NVRTC refusal judged by the GPU it compiled for: the GPU table says
/// which CUDA first (or last) compiled for its capability, and torch's CUDA,
/// whose NVRTC torch loads, confirms it or contradicts it. Several
/// capabilities on the node, or none known, leave it open.
fn nvrtc_refusal(context: Context) -> Reading {
    let capabilities: std::collections::BTreeSet<MajorMinor> = match (context.facts, context.tables) {
        (Some(facts), Some(tables)) => facts
            .gpus
            .iter()
            .filter_map(|gpu| crate::torch_install::capability(tables, gpu))
            .collect(),
        _ => Default::default(),
    };
    let torch_cuda = context
        .facts
        .and_then(|facts| facts.torch_cuda.as_ref())
        .and_then(MajorMinor::of);
    let open = |said: String| {
        Reading {
        cause: CAUSE,
        said,
        node: vec![(None, NVRTC_DECIDERS.to_string())],
        fix: "use an NVRTC whose CUDA knows the GPU: a torch built with a newer CUDA (pip install torch --index-url https://download.pytorch.org/whl/cuXYZ), or, for CuPy and other runtime compilers, the toolkit or nvidia-cuda-nvrtc wheel of that CUDA".to_string(),
        stated: false,
        settles: false,
        rules_out: Vec::new(),
    }
    };
    let mut only = capabilities.iter();
    let (Some(&capability), None) = (only.next(), only.next()) else {
        return open(
            "NVRTC refused the architecture it was asked to compile for: the GPU's, which the log does not name"
                .to_string(),
        );
    };
    let Some(target) = context.tables.and_then(|tables| tables.gpus.nvcc_target(capability)) else {
        return open(format!(
            "NVRTC refused the GPU's architecture, compute capability {capability}; when its toolkits came or went is not in the GPU table"
        ));
    };
    let mut node = Vec::new();
    let (said, fix, older_is_wrong, bound) = match (target.first_cuda, target.removed_in) {
        (Some(first), _) => (
            format!(
                "NVRTC refused the GPU's architecture: compute capability {capability} needs an NVRTC of CUDA {first} or newer"
            ),
            format!(
                "use an NVRTC of CUDA {first} or newer: a torch built with it (pip install torch --index-url https://download.pytorch.org/whl/cuXYZ, XYZ {first} or later), or, for CuPy and other runtime compilers, the toolkit or nvidia-cuda-nvrtc wheel of that CUDA"
            ),
            true,
            first,
        ),
        (None, Some(removed)) => (
            format!("NVRTC refused the GPU's architecture: CUDA {removed} removed compute capability {capability}"),
            format!("use an NVRTC of a CUDA older than {removed}: a torch built with one, or the toolkit of that CUDA"),
            false,
            removed,
        ),
        (None, None) => {
            return open(format!(
                "NVRTC refused the GPU's architecture, compute capability {capability}"
            ));
        }
    };
    if let Some(cuda) = torch_cuda {
        node.push((
            Some(if older_is_wrong { cuda < bound } else { cuda >= bound }),
            format!("torch here is built with CUDA {cuda}, and loads its NVRTC"),
        ));
    }
    let contradicted = node.iter().any(|(holds, _)| *holds == Some(false));
    Reading {
        cause: CAUSE,
        said,
        stated: node.iter().any(|(holds, _)| *holds == Some(true)),
        node,
        fix,
        settles: !contradicted,
        rules_out: Vec::new(),
    }
}

/// `nvcc fatal : Value 'c++17' is not defined for option 'std'`: nvcc learnt
/// C++17 in CUDA 11.0 (CMake's NVIDIA-CUDA.cmake, "NVCC 11 supports
/// cuda_std_17"), so the toolkit the build found is CUDA 10 or older: of
/// another major than a torch built with CUDA 11 or later, which the node's
/// torch, when known, decides. Only C++17 is dated here: the release that
/// added C++20 is not checked.
fn unknown_standard(lower: &str, context: Context) -> Option<Reading> {
    let standard = text::after_marker(lower, "value '")?
        .split_once("' is not defined for option 'std'")?
        .0;
    if standard != "c++17" {
        return None;
    }
    let first = MajorMinor::new(11, 0);
    let mut node = Vec::new();
    if let Some((version, found)) = context.facts.and_then(toolkit_here) {
        node.push((
            Some(version < first),
            format!("the toolkit a build uses here is CUDA {version} ({found})"),
        ));
    }
    let torch_cuda = context
        .facts
        .and_then(|facts| facts.torch_cuda.as_ref())
        .map(|version| version.release()[0]);
    match torch_cuda {
        Some(major) => node.push((
            Some(major >= 11),
            format!("torch here is built with CUDA {major}, and its extensions build with an nvcc of that major"),
        )),
        None => node.push((
            None,
            "torch's CUDA where the log ran (python -c 'import torch; print(torch.version.cuda)'): from 11 on, the build's nvcc is of another major".to_string(),
        )),
    }
    Some(Reading {
        cause: super::requirement::TOOLKIT,
        said: format!("nvcc does not accept -std={standard}: it is older than CUDA {first}, the first nvcc that does"),
        node,
        fix: "build with a toolkit of torch's CUDA major: export CUDA_HOME=/usr/local/cuda-X.Y PATH=/usr/local/cuda-X.Y/bin:$PATH, X.Y from python -c 'import torch; print(torch.version.cuda)'; nvcc --version must then say release 11.0 or later".to_string(),
        stated: true,
        settles: torch_cuda.is_some_and(|major| major >= 11),
        rules_out: Vec::new(),
    })
}

/// What gives XLA a ptxas that knows the GPU: it runs the first one on PATH,
/// and JAX's CUDA wheels bring their own.
fn xla_fix(first: MajorMinor) -> String {
    format!(
        "give XLA the ptxas of a CUDA toolkit of {first} or newer: put that toolkit's bin first on PATH (export PATH=/usr/local/cuda-X.Y/bin:$PATH; XLA runs the first ptxas it finds), or for JAX install the CUDA wheels that bring their own (pip install -U \"jax[cuda12]\")"
    )
}

/// `compute_86`, `sm_90a`, `compute_100f`: the compute capability an nvcc
/// target names (8.6, 9.0, 10.0), the suffix letters dropped.
fn capability_of(arch: &str) -> Option<MajorMinor> {
    let digits = arch
        .strip_prefix("compute_")
        .or_else(|| arch.strip_prefix("sm_"))?
        .trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() < 2 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some(MajorMinor::new(major.parse().ok()?, minor.parse().ok()?))
}

/// The GPUs of `capability` on this node, described.
fn gpus_of(facts: &Facts, tables: &Tables, capability: MajorMinor) -> Vec<String> {
    facts
        .gpus
        .iter()
        .filter(|gpu| crate::torch_install::capability(tables, gpu) == Some(capability))
        .map(|gpu| gpu.describe())
        .collect()
}

/// The toolkit a build on this node would use, and how it was found.
fn toolkit_here(facts: &Facts) -> Option<(MajorMinor, &'static str)> {
    let (toolkit, found) = facts.active_toolkit()?;
    Some((crate::builtin_checks::cuda_of_toolkit(toolkit)?, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading of an NVRTC refusal on the recorded H100 (compute
    /// capability 9.0, torch built with CUDA 13.0), with torch's CUDA and the
    /// GPUs changed as given.
    fn nvrtc_on(torch_cuda: &str, capabilities: &[&str]) -> Reading {
        let edit = |snapshot: &mut serde_json::Value| {
            snapshot["frameworks"]["torch"]["build"]["cuda"] = serde_json::json!(torch_cuda);
            // Every GPU is the job's: no recorded CUDA device order picks among them.
            snapshot["cuda_devices"] = serde_json::Value::Null;
            let gpu = snapshot["nvidia"]["gpus"][0].clone();
            snapshot["nvidia"]["gpus"] = capabilities
                .iter()
                .enumerate()
                .map(|(index, capability)| {
                    let mut gpu = gpu.clone();
                    gpu["compute_capability"] = serde_json::json!(capability);
                    gpu["index"] = serde_json::json!(index);
                    gpu["uuid"] = serde_json::json!(format!("GPU-{index}"));
                    gpu["pci_bus_id"] = serde_json::json!(format!("00000000:00:0{index}.0"));
                    gpu
                })
                .collect();
        };
        super::super::read_on_recorded_h100(edit, |context| {
            read("nvrtc: error: invalid value for --gpu-architecture (-arch)", context).unwrap()
        })
    }

    /// hyperreel2: NVRTC names no architecture; the GPU's is the one it was
    /// asked for, and torch's CUDA, whose NVRTC it loads, decides.
    #[test]
    fn an_nvrtc_refusal_is_judged_by_the_gpu_and_torchs_cuda() {
        let older = nvrtc_on("11.7", &["9.0"]);
        assert_eq!(older.cause, CAUSE);
        assert!(older.settles && older.stated, "{older:?}");
        assert!(older.said.contains("CUDA 11.8 or newer"), "{}", older.said);
        // torch's CUDA already knows the GPU: something else asked for a wrong architecture.
        let newer = nvrtc_on("13.0", &["9.0"]);
        assert!(!newer.settles && !newer.stated, "{newer:?}");
        // Two capabilities: which GPU the compile was for is not known.
        let mixed = nvrtc_on("11.7", &["9.0", "8.0"]);
        assert!(!mixed.settles, "{mixed:?}");
        // Without a node, nothing names the GPU.
        let alone = read(
            "nvrtc: error: invalid value for --gpu-architecture (-arch)",
            Context::alone(),
        )
        .unwrap();
        assert!(!alone.settles, "{alone:?}");
    }

    fn reading(message: &str) -> Option<Reading> {
        let tables = crate::matrix::builtin_tables().unwrap();
        let context = Context::with_tables(&tables);
        read(message, context)
    }

    #[test]
    fn an_nvcc_that_does_not_know_cpp17_is_older_than_cuda_11() {
        let found = reading("nvcc fatal   : Value 'c++17' is not defined for option 'std'").unwrap();
        assert_eq!(found.cause, super::super::requirement::TOOLKIT);
        assert!(found.said.contains("older than CUDA 11.0"), "{found:#?}");
        // torch's CUDA unknown: listed, not named.
        assert!(!found.settles);
        assert!(reading("nvcc fatal   : Value 'c++20' is not defined for option 'std'").is_none());
    }

    #[test]
    fn a_target_is_read_as_its_compute_capability() {
        assert_eq!(capability_of("compute_86"), Some(MajorMinor::new(8, 6)));
        assert_eq!(capability_of("sm_90a"), Some(MajorMinor::new(9, 0)));
        assert_eq!(capability_of("compute_120f"), Some(MajorMinor::new(12, 0)));
        assert_eq!(capability_of("compute_"), None);
        assert_eq!(capability_of("lto_86"), None);
    }

    #[test]
    fn an_architecture_newer_than_the_toolkit_asks_for_a_newer_toolkit() {
        let found = reading("nvcc fatal   : Unsupported gpu architecture 'compute_86'").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.contains("needs a CUDA toolkit of 11.1 or newer"),
            "{}",
            found.said
        );
        assert!(found.fix.starts_with("install a CUDA toolkit of 11.1"), "{}", found.fix);
    }

    #[test]
    fn an_architecture_the_toolkit_dropped_is_taken_out_of_the_build() {
        let found = reading("nvcc fatal : Unsupported gpu architecture 'compute_37'").unwrap();
        assert!(
            found.said.contains("CUDA 12.0 removed compute capability 3.7"),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("take 3.7 out of the build's architectures"),
            "{}",
            found.fix
        );
    }

    /// nvcc's other wording, and ptxas's: one refusal, read the same way.
    /// triton8539: Triton's bundled ptxas (CUDA 12.8) on a GB10 (sm_121),
    /// which CUDA 12.9 added; its fix is the ptxas Triton is pointed at.
    #[test]
    fn every_compilers_wording_of_a_refused_architecture_is_read() {
        let nvcc = reading("nvcc fatal   : Value 'sm_86' is not defined for option 'gpu-architecture'").unwrap();
        assert_eq!(nvcc.cause, CAUSE);
        assert!(nvcc.said.starts_with("nvcc does not know sm_86"), "{}", nvcc.said);
        let log = "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n\nRepro command: /e/lib/python3.10/site-packages/triton/backends/nvidia/bin/ptxas -lineinfo -v --gpu-name=sm_121a /tmp/t.ptx -o /tmp/t.ptx.o";
        let triton = reading(log).unwrap();
        assert_eq!(triton.cause, CAUSE);
        assert!(
            triton
                .said
                .contains("ptxas does not know sm_121a: compute capability 12.1 needs a CUDA toolkit of at least 12.9"),
            "{}",
            triton.said
        );
        assert!(triton.fix.contains("TRITON_PTXAS_PATH"), "{}", triton.fix);
        // A ptxas of the node's own toolkit is fixed with a newer toolkit.
        let own = reading("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'").unwrap();
        assert!(own.fix.starts_with("install a CUDA toolkit of 12.9"), "{}", own.fix);
        // Read apart from Triton's exception, it may still be Triton's ptxas.
        assert!(own.fix.contains("where Triton ran it"), "{}", own.fix);
        assert!(!nvcc.fix.contains("Triton"), "{}", nvcc.fix);
        assert!(reading("ptxas fatal   : Value 'lto_121' is not defined for option 'gpu-name'").is_none());
        // Triton's second ptxas, for sm_100 and newer, has its own variable.
        let blackwell = reading(&log.replace("ptxas fatal", "ptxas-blackwell fatal")).unwrap();
        assert!(
            blackwell.said.starts_with("ptxas-blackwell does not know"),
            "{}",
            blackwell.said
        );
        assert!(
            blackwell.fix.contains("TRITON_PTXAS_BLACKWELL_PATH"),
            "{}",
            blackwell.fix
        );
        // An architecture-specific target may need more than its capability's first toolkit.
        let specific = reading("nvcc fatal   : Unsupported gpu architecture 'compute_90a'").unwrap();
        assert!(
            specific.said.contains("needs a CUDA toolkit of at least 11.8"),
            "{}",
            specific.said
        );
        // A family target came with CUDA 12.9.
        let family = reading("nvcc fatal   : Unsupported gpu architecture 'compute_100f'").unwrap();
        assert!(
            family.said.contains("needs a CUDA toolkit of 12.9 or newer"),
            "{}",
            family.said
        );
    }

    /// proteinfold290: XLA (JAX on CUDA 11) on an H100 warns that its ptxas
    /// does not know compute capability 9.0, then fails to find the kernel.
    #[test]
    fn xlas_wording_names_the_gpus_capability_and_the_ptxas_it_runs() {
        let found = reading("W external/xla/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 9.0").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found
                .said
                .contains("does not know sm_90: compute capability 9.0 needs a CUDA toolkit of 11.8 or newer"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("first on PATH"), "{}", found.fix);
        // Nothing here is built for a list of architectures, nor is Triton involved.
        assert!(!found.fix.contains("TORCH_CUDA_ARCH_LIST"), "{}", found.fix);
        assert!(!found.fix.contains("Triton"), "{}", found.fix);
        // A capability that is not `major.minor` is not read.
        assert!(reading("ptxas does not support CC nine").is_none());
        assert!(reading("ptxas does not support CC 9.").is_none());
    }

    #[test]
    fn an_architecture_the_table_does_not_date_is_not_guessed() {
        let found = reading("nvcc fatal : Unsupported gpu architecture 'compute_75'").unwrap();
        assert!(found.said.contains("not in the GPU table"), "{}", found.said);
    }
}
