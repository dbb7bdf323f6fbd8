//! PTX newer than the compiler asked to assemble it, in ptxas's words:
//! `ptxas application ptx input, line 9; fatal : Unsupported .version 8.1;
//! current version is '8.0'`. Each CUDA release writes PTX of its own ISA
//! version, and a PTX compiler takes PTX up to its own. "application ptx
//! input" is PTX handed over in memory, to the driver's JIT (Numba's and
//! CuPy's `cuLinkAddData`, `cuModuleLoadData`): there the refusal says the
//! driver is older than the toolkit that wrote the PTX, and the two ISA
//! versions say which CUDA each is. A ptxas run on a file names the file
//! instead, and its age against the PTX's is another story (a toolkit's or
//! Triton's own ptxas), so it is not read here.

use std::str::FromStr;

use pep440_rs::Version;

use super::{Context, Reading};

pub const CAUSE: &str = "ptx-jit-compilation-failed";

/// The CUDA release that introduced each PTX ISA version. CUDA 12.6 wrote
/// ISA 8.5 like 12.5, so the ISA is not always the CUDA version less 4.0.
/// Sources: the PTX ISA's release history
/// (docs.nvidia.com/cuda/parallel-thread-execution/#release-notes-ptx-release-history)
/// as NVIDIA's cuda-python copies it (cuda_bindings/utils/_ptx_utils.py), and
/// openxla/xla#16431 for 12.6.
const ISA_CUDA: [(&str, &str); 25] = [
    ("6.0", "9.0"),
    ("6.1", "9.1"),
    ("6.2", "9.2"),
    ("6.3", "10.0"),
    ("6.4", "10.1"),
    ("6.5", "10.2"),
    ("7.0", "11.0"),
    ("7.1", "11.1"),
    ("7.2", "11.2"),
    ("7.3", "11.3"),
    ("7.4", "11.4"),
    ("7.5", "11.5"),
    ("7.6", "11.6"),
    ("7.7", "11.7"),
    ("7.8", "11.8"),
    ("8.0", "12.0"),
    ("8.1", "12.1"),
    ("8.2", "12.2"),
    ("8.3", "12.3"),
    ("8.4", "12.4"),
    ("8.5", "12.5"),
    ("8.6", "12.7"),
    ("8.7", "12.8"),
    ("8.8", "12.9"),
    ("9.0", "13.0"),
];

const REFUSAL: &str = "Unsupported .version ";
const ACCEPTS: &str = "; current version is '";
/// ptxas's name for PTX it was handed in memory rather than in a file.
const IN_MEMORY: &str = "ptxas application ptx input";

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let at = text.find(REFUSAL)?;
    if !text[..at].contains(IN_MEMORY) {
        return None;
    }
    let rest = &text[at + REFUSAL.len()..];
    let (written, rest) = rest.split_once(ACCEPTS)?;
    let accepted = rest.split('\'').next()?;
    let (written_cuda, accepted_cuda) = (cuda_of(written)?, cuda_of(accepted)?);
    let node = context
        .facts
        .and_then(|facts| facts.driver_cuda.as_ref())
        .zip(Version::from_str(written_cuda).ok())
        .map(|(driver, needed)| match *driver < needed {
            true => (Some(true), format!("this node's driver supports CUDA {driver}, older than {needed}")),
            false => (Some(false), format!("this node's driver supports CUDA {driver}, which takes PTX of CUDA {needed}: the log's driver was another")),
        });
    Some(Reading::stated_outright(
        CAUSE,
        format!(
            "the driver's PTX compiler refused PTX ISA {written} (written by CUDA {written_cuda}'s compiler); it takes up to ISA {accepted} (CUDA {accepted_cuda}): the driver is older than the toolkit that wrote the PTX"
        ),
        node.into_iter().collect(),
        format!(
            "upgrade the NVIDIA driver to one that supports CUDA {written_cuda} (nvidia-smi's \"CUDA Version\" at least {written_cuda}), or write the PTX with a toolkit no newer than CUDA {accepted_cuda} (for Numba or CuPy, the CUDA toolkit or cuda-nvcc/cudatoolkit package they compile with)"
        ),
    ))
}

fn cuda_of(isa: &str) -> Option<&'static str> {
    ISA_CUDA
        .iter()
        .find(|(version, _)| *version == isa.trim())
        .map(|(_, cuda)| *cuda)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(|text, _, context| read(text, context), log)
    }

    /// numba8961 and tmol108, as posted: Numba's linker hands the driver PTX
    /// of a newer CUDA than the driver's.
    #[test]
    fn the_drivers_refusal_of_newer_ptx_names_both_cudas() {
        let found = reading("numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR\nptxas application ptx input, line 9; fatal   : Unsupported .version 8.1; current version is '8.0'\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.stated && found.settles);
        assert!(
            found.said.contains("PTX ISA 8.1 (written by CUDA 12.1's compiler)") && found.said.contains("(CUDA 12.0)"),
            "{}",
            found.said
        );
        assert!(
            found
                .fix
                .starts_with("upgrade the NVIDIA driver to one that supports CUDA 12.1"),
            "{}",
            found.fix
        );
        let found = reading("LinkerError: [218] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR\nptxas application ptx input, line 9; fatal   : Unsupported .version 6.2; current version is '6.1'\n").unwrap();
        assert!(
            found.said.contains("CUDA 9.2") && found.said.contains("CUDA 9.1"),
            "{}",
            found.said
        );
    }

    /// A ptxas run on a file (a toolkit's, Triton's) is not the driver, and an
    /// ISA the table does not know is not guessed at.
    #[test]
    fn a_ptxas_run_on_a_file_or_an_unknown_isa_is_not_read() {
        assert!(
            reading(
                "ptxas /tmp/tinycuda_1.ptx, line 9; fatal   : Unsupported .version 8.5; current version is '7.5'\n"
            )
            .is_none()
        );
        assert!(
            reading(
                "ptxas application ptx input, line 9; fatal   : Unsupported .version 10.4; current version is '9.1'\n"
            )
            .is_none()
        );
    }
}
