//! A system library older than a compiled file needs, read from the
//! loader's own words: `LIB: version `NODE' not found (required by FILE)`.
//! A library built against a newer glibc or libstdc++ records the newest
//! symbol version it uses, and the loader refuses it where the copy it found
//! lacks that version. The version node names whose copy was too old:
//!
//! - `GLIBCXX_3.4.N`, `CXXABI_1.3.N`: libstdc++, which each GCC release
//!   extends. Which copy was too old says the fix: a conda environment's own
//!   (the loader takes it from the environment's lib before the system's),
//!   or the system's under a library from a conda environment.
//! - `GLIBC_2.N`: the C library itself (libc.so.6, libm.so.6, libpthread),
//!   part of the operating system: the file was built on a newer system than
//!   this one, and the fix is a build of it for this glibc or a newer system.

use std::str::FromStr;

use pep440_rs::Version;

use super::{Context, Reading, text};

pub const LIBSTDCXX: &str = "libstdcxx-older-than-library-needs";
pub const GLIBC: &str = "glibc-older-than-binary-needs";

/// The symbol versions the loader names, with the library that defines them.
const VERSION_PREFIXES: [(&str, Provider); 3] = [
    ("GLIBCXX_", Provider::Libstdcxx),
    ("CXXABI_", Provider::Libstdcxx),
    ("GLIBC_", Provider::Glibc),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    Libstdcxx,
    Glibc,
}

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let found = missing_version(text)?;
    match found.provider {
        Provider::Libstdcxx => Some(libstdcxx(&found)),
        Provider::Glibc => Some(glibc(&found, context)),
    }
}

fn libstdcxx(found: &MissingVersion) -> Reading {
    let loaded = found.loaded.unwrap_or("the libstdc++.so.6 the loader found");
    let needs = found.needs();
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
    Reading::stated_outright(
        LIBSTDCXX,
        format!(
            "{loaded} has no {}, which {needs} needs: that libstdc++ is older than the one {needs} was built with",
            found.version
        ),
        Vec::new(),
        fix,
    )
}

/// glibc cannot be swapped under a running system: the file must come built
/// for this glibc, or the job must run on a system that has the newer one.
fn glibc(found: &MissingVersion, context: Context) -> Reading {
    let loaded = found.loaded.unwrap_or("the C library the loader found");
    let needs = found.needs();
    let wanted = found.version.trim_start_matches("GLIBC_");
    let node = context
        .facts
        .and_then(|facts| facts.glibc.as_ref())
        .zip(Version::from_str(wanted).ok())
        .map(|(here, wanted)| match *here < wanted {
            true => (Some(true), format!("this node's glibc is {here}, older than {wanted}")),
            // The log ran here, yet the loader's libc lacked it: another libc
            // was loaded (a container's, a sysroot's), and this node's says nothing.
            false => (None, format!("this node's glibc is {here}, which has {}: the C library that refused {needs} was another one (a container's or an old sysroot's)", found.version)),
        });
    let build = match &found.owner {
        Some(owner) => format!(
            "a build of {owner} made for an older glibc (a release whose wheel is tagged manylinux2014, which needs only glibc 2.17, or one built from source here)"
        ),
        None => format!("a build of {needs} made on a system with this glibc (or from source here)"),
    };
    Reading::stated_outright(
        GLIBC,
        format!(
            "{loaded} has no {}, which {needs} needs: the system's glibc is older than the one {needs} was built for",
            found.version
        ),
        node.into_iter().collect(),
        format!(
            "glibc is the operating system's and is not upgraded on its own: run the job on a system or container image whose glibc is {wanted} or newer (ldd --version | head -n 1 prints it), or install {build}"
        ),
    )
}

/// What the loader's message names.
struct MissingVersion<'t> {
    provider: Provider,
    /// `GLIBCXX_3.4.30`.
    version: &'t str,
    /// The libstdc++ that lacked it, where the line kept its path.
    loaded: Option<&'t str>,
    /// The library that needs it.
    required_by: Option<&'t str>,
    /// The distribution that file belongs to, where its path says.
    owner: Option<String>,
}

impl MissingVersion<'_> {
    /// The file that needs the version, by its name.
    fn needs(&self) -> String {
        self.required_by.map_or_else(
            || "a compiled library".to_string(),
            |path| text::file_name(path).to_string(),
        )
    }
}

/// `PATH: version `GLIBCXX_3.4.30' not found (required by LIB)`, with the
/// backtick glibc prints (elf/dl-version.c, every release), the plain quote a paste leaves, or neither.
fn missing_version(text: &str) -> Option<MissingVersion<'_>> {
    // A paste through Markdown may lose the backtick: `version GLIBCXX_3.4.29' not found`;
    // a reporter's line may keep the quoted version alone (`GLIBCXX_3.4.30' not
    // found for importing _limap`), which " not found" after it still marks.
    let (at, start, provider) = VERSION_PREFIXES.iter().find_map(|&(prefix, provider)| {
        ["version `", "version '", "version ", "`", "'", ""]
            .iter()
            .find_map(|opening| {
                let at = text.find(&format!("{opening}{prefix}"))?;
                Some((at, at + opening.len(), provider))
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
        .filter(|path| match provider {
            Provider::Libstdcxx => path.contains("libstdc++"),
            Provider::Glibc => GLIBC_LIBRARIES.iter().any(|library| path.contains(library)),
        });
    let required_by = text::after_marker(rest, "(required by ")
        .and_then(|after| after.split(')').next())
        .map(str::trim);
    let owner = required_by.and_then(owner_of);
    Some(MissingVersion {
        provider,
        version,
        loaded,
        required_by,
        owner,
    })
}

/// The libraries glibc ships whose versions the loader checks.
const GLIBC_LIBRARIES: [&str; 6] = [
    "libc.so",
    "libm.so",
    "libpthread.so",
    "libdl.so",
    "librt.so",
    "ld-linux",
];

/// The distribution a file under site-packages belongs to, its path's `..`
/// resolved first (`torch/lib/../../nvidia/cublas/lib/libcublas.so.11` is
/// under nvidia/, not torch's).
fn owner_of(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            "." => {}
            part => parts.push(part),
        }
    }
    let resolved = parts.join("/");
    super::package_of_library_path(&resolved)
        // nvidia/: a namespace that many CUDA wheels share, not one distribution.
        .filter(|package| *package != "nvidia")
        .map(str::to_string)
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
        super::super::read_alone(|text, _, context| read(text, context), log)
    }

    #[test]
    fn a_conda_environments_libstdcxx_older_than_an_extension_needs() {
        // ktransformers439, as posted.
        let found = reading("ImportError: /home/u/anaconda3/envs/kt/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by /home/u/anaconda3/envs/kt/lib/python3.11/site-packages/KTransformersOps.cpython-311-x86_64-linux-gnu.so)").unwrap();
        assert_eq!(found.cause, LIBSTDCXX);
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
    fn glibcs_own_versions_are_glibcs_and_other_words_are_not_read() {
        let found = reading("OSError: /lib64/libc.so.6: version `GLIBC_2.34' not found (required by ./app)").unwrap();
        assert_eq!(found.cause, GLIBC);
        assert!(reading("RuntimeError: version GLIBCXX_3.4.30 is required").is_none());
        assert!(reading("RuntimeError: version GLIBC_2.34 is required").is_none());
        assert!(reading("checking for GLIBC_PRIVATE... not found").is_none());
    }

    /// sigprofilerextractor169, medical-sam2-25: the C library older than a
    /// file built elsewhere; the file's distribution where its path says.
    #[test]
    fn a_glibc_older_than_a_file_needs_names_the_file_and_its_distribution() {
        let found = reading("OSError: /lib64/libc.so.6: version `GLIBC_2.14' not found (required by ~/.local/lib/python3.7/site-packages/torch/lib/../../nvidia/cublas/lib/libcublas.so.11)").unwrap();
        assert_eq!(found.cause, GLIBC);
        assert!(found.stated && found.settles);
        assert!(
            found
                .said
                .starts_with("/lib64/libc.so.6 has no GLIBC_2.14, which libcublas.so.11 needs"),
            "{}",
            found.said
        );
        assert!(
            found.fix.contains("glibc is 2.14 or newer") && found.fix.contains("a build of libcublas.so.11"),
            "{}",
            found.fix
        );
        let found = reading("ImportError: /lib/x86_64-linux-gnu/libm.so.6: version `GLIBC_2.27' not found (required by /envs/h/lib/python3.7/site-packages/habitat_sim-0.2.2-py3.7-linux-x86_64.egg/habitat_sim/_ext/libRLRAudioPropagation.so)").unwrap();
        assert!(
            found.fix.contains("a build of habitat_sim made for an older glibc"),
            "{}",
            found.fix
        );
    }
}
