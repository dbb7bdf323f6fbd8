//! nvcc refusing its host compiler: each CUDA toolkit's `crt/host_config.h`
//! states the compilers it accepts and stops the build with the bound in the
//! message (`#error -- unsupported GNU version! gcc versions later than 11 are
//! not supported!`, `unsupported clang version! clang version must be less
//! than 16`, `unsupported Microsoft Visual Studio version! Only the versions
//! between 2017 and 2022 (inclusive) are supported!`). The bound is the fix:
//! a compiler within it, or a toolkit newer than the one that stated it.

use super::{Context, Reading, text};

pub const CAUSE: &str = "nvcc-host-compiler-unsupported";

/// What the toolkit's check accepts, as its message states it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Accepted {
    /// gcc of this version or older: a major (`11`), or a major and minor
    /// from toolkits before CUDA 9 (`4.9`).
    GccUpTo(String),
    /// clang older than this major.
    ClangBelow(u64),
    /// Visual Studio of these years.
    VisualStudio(u64, u64),
}

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let accepted = accepted(&lower)?;
    let newer_toolkit = "or build with a newer CUDA toolkit, whose nvcc accepts the compiler installed (export CUDA_HOME=/usr/local/cuda-X.Y, its bin first on PATH; where several are installed, the build found an older one first)";
    let (said, fix) = match &accepted {
        Accepted::GccUpTo(major) => (
            format!("nvcc's toolkit accepts gcc {major} and older, and the build's gcc is newer"),
            format!(
                "install gcc-{major} and g++-{major} (or older) and hand them to nvcc: export CC=gcc-{major} CXX=g++-{major} NVCC_PREPEND_FLAGS='-ccbin g++-{major}' (CMake: -DCMAKE_CUDA_HOST_COMPILER=g++-{major}); {newer_toolkit}"
            ),
        ),
        &Accepted::ClangBelow(major) => (
            format!("nvcc's toolkit accepts clang older than {major}, and the build's clang is not"),
            format!(
                "install clang-{} (or older) and hand it to nvcc: export CC=clang-{0} CXX=clang++-{0} NVCC_PREPEND_FLAGS='-ccbin clang++-{0}' (CMake: -DCMAKE_CUDA_HOST_COMPILER=clang++-{0}); {newer_toolkit}",
                major.saturating_sub(1)
            ),
        ),
        &Accepted::VisualStudio(first, last) => (
            format!("nvcc's toolkit accepts Visual Studio {first} to {last}, and the build found another"),
            format!(
                "install the Visual Studio {last} Build Tools (the C++ workload) and build from its x64 Native Tools prompt; {newer_toolkit}"
            ),
        ),
    };
    let mut node = Vec::new();
    let gcc_here = context.facts.and_then(|facts| facts.host_gcc.as_ref());
    if let (Accepted::GccUpTo(bound), Some(gcc)) = (&accepted, gcc_here) {
        // gcc 11.4 is within "later than 11": compared on the bound's own places.
        let bound: Vec<u64> = bound.split('.').filter_map(|part| part.parse().ok()).collect();
        let here: Vec<u64> = gcc.release().iter().copied().take(bound.len()).collect();
        node.push((Some(here > bound), format!("the gcc a build uses here is {gcc}")));
    }
    Some(Reading::stated_outright(CAUSE, said, node, fix))
}

/// The bound a `host_config.h` message states.
fn accepted(lower: &str) -> Option<Accepted> {
    if let Some(rest) = text::after_marker(lower, "gcc versions later than ") {
        let version: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let version = version.trim_end_matches('.');
        return (!version.is_empty()).then(|| Accepted::GccUpTo(version.to_string()));
    }
    if let Some(rest) = text::after_marker(lower, "clang version must be less than ") {
        return Some(Accepted::ClangBelow(leading_number(rest)?));
    }
    let rest = text::after_marker(lower, "unsupported microsoft visual studio version!")?;
    let rest = text::after_marker(rest, "between ")?;
    let first = leading_number(rest)?;
    let last = leading_number(text::after_marker(rest, " and ")?)?;
    Some(Accepted::VisualStudio(first, last))
}

fn leading_number(text: &str) -> Option<u64> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(|text, _, context| read(text, context), log)
    }

    #[test]
    fn each_compilers_bound_is_read_from_the_toolkits_own_words() {
        let gcc = reading("/usr/local/cuda-9.0/include/crt/host_config.h:119:2: error: #error -- unsupported GNU version! gcc versions later than 6 are not supported!\n").unwrap();
        assert_eq!(gcc.cause, CAUSE);
        assert!(gcc.fix.starts_with("install gcc-6 and g++-6"), "{}", gcc.fix);
        let clang = reading("host_config.h:151:2: error: -- unsupported clang version! clang version must be less than 16 and greater than 3.2 . The nvcc flag '-allow-unsupported-compiler' can be used\n").unwrap();
        assert!(clang.fix.starts_with("install clang-15"), "{}", clang.fix);
        let old = reading("/usr/local/cuda-7.5/include/host_config.h:115:2: error: #error -- unsupported GNU version! gcc versions later than 4.9 are not supported!\n").unwrap();
        assert!(old.fix.starts_with("install gcc-4.9 and g++-4.9"), "{}", old.fix);
        let msvc = reading("host_config.h(164): fatal error C1189: #error:  -- unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are supported!\n").unwrap();
        assert!(msvc.said.contains("Visual Studio 2017 to 2022"), "{}", msvc.said);
    }

    #[test]
    fn other_compiler_errors_and_a_bound_without_a_number_are_not_read() {
        assert!(reading("error: #error -- unsupported GNU version!\n").is_none());
        assert!(reading("hashencoder.cu(25): error: no instance of overloaded function \"atomicAdd\" matches the argument list\n").is_none());
        assert!(reading("gcc: error: unrecognized command-line option '-std=c++17'\n").is_none());
    }
}
