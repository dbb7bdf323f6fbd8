//! A C++ runtime older than a compiled library needs: the loader found
//! `libstdc++.so.6`, but not the symbol version the library was linked
//! against (`libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by
//! .../KTransformersOps.so)`). libstdc++ adds a `GLIBCXX_3.4.N` (and
//! `CXXABI_1.3.N`) version with each GCC release, so a library built with a
//! newer GCC needs a libstdc++ at least as new. Which copy was too old says
//! the fix: a conda environment's own (the loader takes it from the
//! environment's lib before the system's), or the system's under a library
//! from a conda environment.

use super::{Reading, text};

pub const CAUSE: &str = "libstdcxx-older-than-library-needs";

/// The symbol versions libstdc++ defines, as the loader quotes them.
const VERSION_PREFIXES: [&str; 2] = ["GLIBCXX_", "CXXABI_"];

pub fn read(text: &str) -> Option<Reading> {
    let found = missing_version(text)?;
    let loaded = found.loaded.unwrap_or("the libstdc++.so.6 the loader found");
    let needs = found.required_by.map_or_else(
        || "a compiled library".to_string(),
        |path| path.rsplit('/').next().unwrap_or(path).to_string(),
    );
    let check = format!("strings {loaded} | grep {} (it must list it)", found.version);
    let conda_fix = "update the environment's C++ runtime: conda install -c conda-forge libstdcxx-ng (libstdcxx on newer conda-forge)";
    let system_fix = "put a newer libstdc++ first for the job (LD_LIBRARY_PATH=$CONDA_PREFIX/lib, the environment whose packages were built with the newer GCC), or update the system's GCC runtime";
    let fix = match found.loaded.map(in_conda) {
        Some(true) => format!("{conda_fix}; then {check}"),
        Some(false) => format!("{system_fix}; then {check}"),
        None => format!(
            "where the libstdc++ named is a conda environment's, {conda_fix}; where it is the system's, {system_fix}; then {check}"
        ),
    };
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{loaded} has no {}, which {needs} needs: that libstdc++ is older than the one {needs} was built with",
            found.version
        ),
        node: Vec::new(),
        fix,
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// What the loader's message names.
struct MissingVersion<'t> {
    /// `GLIBCXX_3.4.30`.
    version: &'t str,
    /// The libstdc++ that lacked it, where the line kept its path.
    loaded: Option<&'t str>,
    /// The library that needs it.
    required_by: Option<&'t str>,
}

/// `PATH: version `GLIBCXX_3.4.30' not found (required by LIB)`, with the
/// backtick older glibc prints, a plain quote, or neither.
fn missing_version(text: &str) -> Option<MissingVersion<'_>> {
    // A paste through Markdown may lose the backtick: `version GLIBCXX_3.4.29' not found`;
    // a reporter's line may keep the quoted version alone (`GLIBCXX_3.4.30' not
    // found for importing _limap`), which " not found" after it still marks.
    let (at, start) = VERSION_PREFIXES.iter().find_map(|prefix| {
        ["version `", "version '", "version ", "`", "'", ""]
            .iter()
            .find_map(|opening| {
                let at = text.find(&format!("{opening}{prefix}"))?;
                Some((at, at + opening.len()))
            })
    })?;
    let rest = &text[start..];
    let version = rest.split(['\'', ' ', '`', '"']).next()?;
    // `GLIBCXX_3.4.30`, not `GLIBCXX_USE_CXX11_ABI` of a compiler flag.
    let (_, number) = version.split_once('_')?;
    if !number
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
    {
        return None;
    }
    let after = &rest[version.len()..];
    if !after.trim_start_matches(['\'', '`', '"']).starts_with(" not found") {
        return None;
    }
    let loaded = text[..at]
        .trim_end()
        .strip_suffix(':')
        .and_then(|before| before.rsplit([' ', '\n', '\'', '"']).next())
        .filter(|path| path.contains("libstdc++"));
    let required_by = text::after_marker(rest, "(required by ")
        .and_then(|after| after.split(')').next())
        .map(str::trim);
    Some(MissingVersion {
        version,
        loaded,
        required_by,
    })
}

/// Whether a library path is inside a conda environment or installation.
fn in_conda(path: &str) -> bool {
    ["conda", "/envs/", "miniforge", "mambaforge"]
        .iter()
        .any(|word| path.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(|text, _, _| read(text), log)
    }

    #[test]
    fn a_conda_environments_libstdcxx_older_than_an_extension_needs() {
        // ktransformers439, as posted.
        let found = reading("ImportError: /home/u/anaconda3/envs/kt/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by /home/u/anaconda3/envs/kt/lib/python3.11/site-packages/KTransformersOps.cpython-311-x86_64-linux-gnu.so)").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.starts_with("/home/u/anaconda3/envs/kt/bin/../lib/libstdc++.so.6 has no GLIBCXX_3.4.32, which KTransformersOps.cpython-311-x86_64-linux-gnu.so needs"),
            "{}",
            found.said
        );
        assert!(
            found.fix.starts_with("update the environment's C++ runtime"),
            "{}",
            found.fix
        );
    }

    #[test]
    fn the_systems_libstdcxx_under_a_conda_library_and_newer_quotes() {
        let found = reading("OSError: /lib/x86_64-linux-gnu/libstdc++.so.6: version 'CXXABI_1.3.15' not found (required by /opt/conda/lib/libicuuc.so.75)").unwrap();
        assert!(
            found.said.contains("has no CXXABI_1.3.15, which libicuuc.so.75 needs"),
            "{}",
            found.said
        );
        assert!(found.fix.starts_with("put a newer libstdc++ first"), "{}", found.fix);
    }

    /// limap2: the reporter kept the loader's quoted version and nothing else.
    #[test]
    fn a_version_quoted_alone_before_not_found_is_read() {
        let found = reading("`GLIBCXX_3.4.30' not found for importing _limap").unwrap();
        assert!(found.said.contains("GLIBCXX_3.4.30"), "{}", found.said);
        assert!(reading("built with -D_GLIBCXX_USE_CXX11_ABI=0, not found in the cache").is_none());
    }

    #[test]
    fn a_version_whose_backtick_markdown_took_is_read() {
        // pirender21, as posted.
        let found = reading("ImportError: /miniconda3/envs/PIRender/lib/python3.6/site-packages/torch/lib/../../../.././libstdc++.so.6: version GLIBCXX_3.4.29 not found (required by .cache/torch_extensions/nvdiffrast_plugin/nvdiffrast_plugin.so)").unwrap();
        assert!(
            found
                .said
                .contains("has no GLIBCXX_3.4.29, which nvdiffrast_plugin.so needs"),
            "{}",
            found.said
        );
    }

    #[test]
    fn glibcs_own_versions_and_other_words_are_not_read() {
        assert!(reading("OSError: /lib64/libc.so.6: version `GLIBC_2.34' not found (required by ./app)").is_none());
        assert!(reading("RuntimeError: version GLIBCXX_3.4.30 is required").is_none());
    }
}
