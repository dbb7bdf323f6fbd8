//! Library versions from C headers: `#define CUDNN_MAJOR 9` and the like.

/// The `#define` names that make up a library's version, major first. cuDNN:
/// `cudnn_version.h` (cuDNN 8+) or `cudnn.h` (cuDNN 7 and before); NCCL: `nccl.h`,
/// generated from NVIDIA/nccl src/nccl.h.in. Captured examples are in
/// tests/fixtures/cuda (`cudnn_version-9.1.0.h`, `nccl-2.21.5.h`).
fn version_defines(library: &str) -> Option<[&'static str; 3]> {
    match library {
        "cudnn" => Some(["CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"]),
        "nccl" => Some(["NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"]),
        _ => None,
    }
}

/// `major.minor.patch` of `library` from a header's text, when all three are
/// plain numbers there.
pub fn version_in_header(library: &str, text: &str) -> Option<String> {
    let names = version_defines(library)?;
    let parts: Option<Vec<String>> = names.iter().map(|name| define_number(text, name)).collect();
    Some(parts?.join("."))
}

/// The value of `#define NAME <digits>`; `None` when absent or not a number.
fn define_number(text: &str, name: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let rest = line
            .trim_start()
            .strip_prefix('#')?
            .trim_start()
            .strip_prefix("define")?;
        let mut words = rest.split_whitespace();
        (words.next()? == name).then_some(())?;
        let value = words.next()?;
        value
            .bytes()
            .all(|byte| byte.is_ascii_digit())
            .then(|| value.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cudnn_version_from_the_wheels_cudnn_version_h() {
        // nvidia/cudnn/include/cudnn_version.h from PyPI's nvidia_cudnn_cu12-9.1.0.70 wheel.
        let text = include_str!("../../../tests/fixtures/cuda/cudnn_version-9.1.0.h");
        assert_eq!(version_in_header("cudnn", text).as_deref(), Some("9.1.0"));
    }

    #[test]
    fn nccl_version_from_the_wheels_nccl_h() {
        // nvidia/nccl/include/nccl.h from PyPI's nvidia_nccl_cu12-2.21.5 wheel.
        let text = include_str!("../../../tests/fixtures/cuda/nccl-2.21.5.h");
        assert_eq!(version_in_header("nccl", text).as_deref(), Some("2.21.5"));
    }

    #[test]
    fn a_define_that_is_an_expression_or_missing_gives_no_version() {
        assert_eq!(
            define_number("#define CUDNN_VERSION (CUDNN_MAJOR * 10000)", "CUDNN_VERSION"),
            None
        );
        assert_eq!(
            version_in_header("cudnn", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n"),
            None
        );
        assert_eq!(version_in_header("cublas", "#define CUDNN_MAJOR 9"), None);
        // A longer name with the same prefix is not the define.
        assert_eq!(define_number("#define NCCL_MAJOR_X 3\n", "NCCL_MAJOR"), None);
        assert_eq!(
            define_number("  #  define NCCL_MAJOR 2\n", "NCCL_MAJOR").as_deref(),
            Some("2")
        );
    }
}
