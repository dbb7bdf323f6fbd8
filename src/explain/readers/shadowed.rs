//! One NVIDIA CUDA library asking another for a symbol of its own release,
//! in either of the loader's words: `libcublas.so.12: undefined symbol:
//! cublasLtGetStatusString, version libcublasLt.so.12`, and glibc's `symbol
//! cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined in file
//! libcublasLt.so.11 with link time reference`. The libraries of one CUDA
//! release are built together and ask each other for symbols that release
//! has; one that lacks it is another release's copy, found first: a system
//! toolkit's or another environment's directory on LD_LIBRARY_PATH shadowing
//! the wheel's (pytorch#111469, with cuBLAS; the entry's nvJitLink case is
//! the same pair for cuSPARSE).

use super::Reading;
use super::library::nvidia_library;
use super::text::file_name;

pub const CAUSE: &str = "cuda-libraries-shadowed";

pub fn read(text: &str) -> Option<Reading> {
    let (user, symbol, provider) = undefined_versioned(text).into_iter().find(
        |(user, _, provider)| matches!((nvidia_library(user), nvidia_library(provider)), (Some(a), Some(b)) if a != b),
    )?;
    Some(Reading::stated_outright(
        CAUSE,
        format!(
            "{user} asks {provider} for {symbol}, which a {provider} of its own CUDA release has: the {provider} the loader found is another release's copy"
        ),
        vec![(
            None,
            format!(
                "which {provider} is loaded (LD_DEBUG=libs python -c 'import torch' 2>&1 | grep {provider}, or ldd on {user}): a directory on LD_LIBRARY_PATH ahead of the package's own, or an nvidia-* wheel of another release"
            ),
        )],
        format!(
            "make {user} and {provider} come from one CUDA release: take the other release's directory (a system toolkit's /usr/local/cuda*/lib64, another environment's lib) off LD_LIBRARY_PATH for the job, so the copy installed with {user} is found; where two nvidia-* wheels disagree, install the releases torch requires (python -m pip show torch lists them); in a conda environment, install the one cudatoolkit (or cuda-libraries) release that torch's CUDA needs, which carries both"
        ),
    ))
}

/// Every library that lacks a symbol, the symbol and the library whose
/// version of it was asked for, in either form the loader prints.
fn undefined_versioned(text: &str) -> Vec<(&str, &str, &str)> {
    const UNDEFINED: &str = ": undefined symbol: ";
    const NOT_DEFINED: &str = " not defined in file ";
    let mut found = Vec::new();
    for (at, _) in text.match_indices(UNDEFINED) {
        let line_end = text[at..].find('\n').map_or(text.len(), |end| at + end);
        let Some(user) = text[..at].rsplit([' ', '\n', '\'', '"']).next() else {
            continue;
        };
        let rest = &text[at + UNDEFINED.len()..line_end];
        if let Some((symbol, rest)) = rest.split_once(", version ")
            && let Some(provider) = rest.split(|c: char| c.is_whitespace() || c == '\'' || c == '"').next()
        {
            found.push((file_name(user), symbol, provider));
        }
    }
    // glibc's dl-lookup.c: `%s: symbol %s version %s not defined in file %s
    // with link time reference`; older glibc puts a comma after the symbol.
    for (at, _) in text.match_indices(NOT_DEFINED) {
        let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
        let (before, after) = (&text[line_start..at], &text[at + NOT_DEFINED.len()..]);
        let Some((head, provider)) = before.rsplit_once(" version ") else {
            continue;
        };
        let Some((head, symbol)) = head.rsplit_once("symbol ") else {
            continue;
        };
        let Some(user) = head.trim_end_matches([':', ' ']).rsplit([' ', '\'', '"']).next() else {
            continue;
        };
        if after.split_whitespace().next() == Some(provider) {
            found.push((file_name(user), symbol.trim().trim_end_matches(','), provider));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cuda_library_asking_another_for_its_releases_symbol_is_a_shadowing_copy() {
        for text in [
            // pytorch#111469 (torch 2.1 with CUDA 12.0's cuBLASLt on LD_LIBRARY_PATH).
            "OSError: /v/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.12: undefined symbol: cublasLtGetStatusString, version libcublasLt.so.12",
            "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
            // ColossalAI#4059: glibc's other words for it.
            "OSError: /e/site-packages/nvidia/cublas/lib/libcublas.so.11: symbol cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference",
            // An unrelated undefined symbol printed first does not hide the pair.
            "ImportError: /x/_ext.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\nOSError: /v/libcublas.so.12: undefined symbol: cublasLtGetStatusString, version libcublasLt.so.12",
        ] {
            let found = read(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(found.cause, CAUSE);
            assert!(found.settles);
        }
        let said = read("libcublas.so.12: undefined symbol: cublasLtGetStatusString, version libcublasLt.so.12")
            .unwrap()
            .said;
        assert!(
            said.starts_with("libcublas.so.12 asks libcublasLt.so.12 for cublasLtGetStatusString"),
            "{said}"
        );
    }

    #[test]
    fn an_extensions_missing_symbol_or_an_unversioned_one_is_not_read() {
        for text in [
            // An extension built for another torch: no CUDA library asks.
            "ImportError: /x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
            // A CUDA library asking for glibc's version: no CUDA release's pair.
            "libcudnn.so.8: undefined symbol: memcpy, version GLIBC_2.14",
            // Unversioned: which release asked is not said.
            "libcublas.so.12: undefined symbol: cublasLtGetStatusString",
        ] {
            assert!(read(text).is_none(), "{text}");
        }
    }
}
