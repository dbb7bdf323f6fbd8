//! nvcc refusing its host compiler: each CUDA toolkit's `crt/host_config.h`
//! states the compilers it accepts and stops the build with the bound in the
//! message (`#error -- unsupported GNU version! gcc versions later than 11 are
//! not supported!`, `unsupported clang version! clang version must be less
//! than 16`, `unsupported Microsoft Visual Studio version! Only the versions
//! between 2017 and 2022 (inclusive) are supported!`). The bound is the fix:
//! a compiler within it, or a toolkit newer than the one that stated it.
//! torch's extension build makes the same check before nvcc runs, from its
//! own table of each CUDA's bounds (`torch/utils/cpp_extension.py`): `The
//! current installed version of g++ (10.2.1) is greater than the maximum
//! required version by CUDA 11.3 (10.0.0). Please make sure to use an
//! adequate version of g++ (>=5.0.0, <=10.0.0).`

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
    /// torch's extension build: the compiler it found, outside the bounds
    /// it holds for the CUDA toolkit.
    TorchBounds(TorchBounds),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct TorchBounds {
    compiler: String,
    installed: String,
    cuda: String,
    /// As torch writes them: `>=5.0.0, <=10.0.0`, `>=6.0, <14.0`.
    bounds: String,
    /// Newer than the bounds, not older.
    too_new: bool,
}

impl TorchBounds {
    /// The newest major the upper bound admits: `<=10.0.0` is 10, `<14.0` is 13.
    fn newest_major(&self) -> Option<u64> {
        let upper = self
            .bounds
            .split(',')
            .map(str::trim)
            .find(|bound| bound.starts_with('<'))?;
        let inclusive = upper.starts_with("<=");
        let version = upper.trim_start_matches(['<', '=']);
        let mut parts = version.split('.').map(|part| part.parse::<u64>().ok());
        let major = parts.next()??;
        let rest_zero = parts.all(|part| part == Some(0));
        match (inclusive, rest_zero) {
            (true, _) | (false, false) => Some(major),
            (false, true) => major.checked_sub(1),
        }
    }
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
        Accepted::TorchBounds(found) => {
            let TorchBounds {
                compiler,
                installed,
                cuda,
                bounds,
                too_new,
            } = found;
            let side = if *too_new { "newer" } else { "older" };
            let within = match (found.newest_major(), too_new) {
                (Some(major), true) => format!(
                    "install gcc-{major} and g++-{major} (or another release within {bounds}) and build with them: export CC=gcc-{major} CXX=g++-{major} (torch's check reads CXX, and passes CC to nvcc as -ccbin)"
                ),
                _ => format!(
                    "install a g++ within {bounds} and build with it: export CC=gcc-N CXX=g++-N (torch's check reads CXX, and passes CC to nvcc as -ccbin)"
                ),
            };
            (
                format!(
                    "torch's extension build accepts {bounds} as the host compiler for CUDA {cuda}, and {compiler} {installed} is {side}"
                ),
                format!(
                    "{within}; or build with a CUDA toolkit whose bounds hold {compiler} {installed} (export CUDA_HOME=/usr/local/cuda-X.Y, its bin first on PATH)"
                ),
            )
        }
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

/// The bound a `host_config.h` message, or torch's extension build, states.
fn accepted(lower: &str) -> Option<Accepted> {
    if let Some(found) = torch_bounds(lower) {
        return Some(Accepted::TorchBounds(found));
    }
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

/// torch's `_check_cuda_version`: `the current installed version of g++
/// (10.2.1) is greater than the maximum required version by cuda 11.3
/// (10.0.0). please make sure to use an adequate version of g++ (>=5.0.0,
/// <=10.0.0).`, or `is less than the minimum required version by cuda ...`.
fn torch_bounds(lower: &str) -> Option<TorchBounds> {
    let rest = text::after_marker(lower, "the current installed version of ")?;
    let (compiler, rest) = rest.split_once(" (")?;
    let (installed, rest) = rest.split_once(')')?;
    let (too_new, rest) =
        if let Some(rest) = rest.strip_prefix(" is greater than the maximum required version by cuda ") {
            (true, rest)
        } else {
            (
                false,
                rest.strip_prefix(" is less than the minimum required version by cuda ")?,
            )
        };
    let cuda = text::version_at(rest)?;
    let rest = text::after_marker(rest, "adequate version of ")?;
    let bounds = &rest[rest.find('(')? + 1..];
    let bounds = &bounds[..bounds.find(')')?];
    let compiler = text::file_name(compiler).trim();
    let plain = |value: &str| !value.is_empty() && !value.contains('\n');
    (plain(compiler) && plain(installed) && plain(bounds)).then(|| TorchBounds {
        compiler: compiler.to_string(),
        installed: installed.trim().to_string(),
        cuda: cuda.to_string(),
        bounds: bounds.trim().to_string(),
        too_new,
    })
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

    /// mask3d142: torch's extension build checks the compiler against its
    /// own table of each CUDA's bounds before nvcc runs.
    #[test]
    fn torchs_own_check_of_the_host_compiler_is_read_with_its_bounds() {
        let older_torch = reading("RuntimeError: The current installed version of g++ (10.2.1) is greater than the maximum required version by CUDA 11.3 (10.0.0). Please make sure to use an adequate version of g++ (>=5.0.0, <=10.0.0).\n").unwrap();
        assert_eq!(older_torch.cause, CAUSE);
        assert!(older_torch.stated);
        assert!(
            older_torch.said.contains("for CUDA 11.3, and g++ 10.2.1 is newer"),
            "{}",
            older_torch.said
        );
        assert!(
            older_torch.fix.starts_with("install gcc-10 and g++-10"),
            "{}",
            older_torch.fix
        );
        let conda = reading("RuntimeError: The current installed version of /opt/conda/bin/x86_64-conda-linux-gnu-c++ (14.3.0) is greater than the maximum required version by CUDA 12.8. Please make sure to use an adequate version of /opt/conda/bin/x86_64-conda-linux-gnu-c++ (>=6.0, <14.0).\n").unwrap();
        assert!(
            conda.said.contains("x86_64-conda-linux-gnu-c++ 14.3.0 is newer"),
            "{}",
            conda.said
        );
        assert!(conda.fix.starts_with("install gcc-13 and g++-13"), "{}", conda.fix);
        let too_old = reading("RuntimeError: The current installed version of g++ (4.8.5) is less than the minimum required version by CUDA 11.8 (6.0.0). Please make sure to use an adequate version of g++ (>=6.0.0, <12.0).\n").unwrap();
        assert!(too_old.said.contains("g++ 4.8.5 is older"), "{}", too_old.said);
        assert!(
            too_old.fix.starts_with("install a g++ within >=6.0.0, <12.0"),
            "{}",
            too_old.fix
        );
        // Other words about a compiler's version are not this check.
        assert!(reading("The current installed version of numpy (2.0.0) is not supported\n").is_none());
    }

    #[test]
    fn other_compiler_errors_and_a_bound_without_a_number_are_not_read() {
        assert!(reading("error: #error -- unsupported GNU version!\n").is_none());
        assert!(reading("hashencoder.cu(25): error: no instance of overloaded function \"atomicAdd\" matches the argument list\n").is_none());
        assert!(reading("gcc: error: unrecognized command-line option '-std=c++17'\n").is_none());
    }
}
