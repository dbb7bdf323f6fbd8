//! flash-attn: whether its compiled extension is there, and the build tags of
//! the prebuilt wheel it came from.
//!
//! Dao-AILab/flash-attention `setup.py` builds `CUDAExtension(name="flash_attn_2_cuda")`,
//! a top-level module installed beside the `flash_attn` package, which
//! `flash_attn_interface.py` imports. Its `get_wheel_url()` names the prebuilt
//! wheels `flash_attn-{version}+cu{cuda}torch{major.minor}cxx11abi{TRUE|FALSE}-...whl`
//! (`cu122`, `cu123`, or the major only, `cu12`, in later releases; `rocm{hip}`
//! for ROCm): the tags appear in the installed version when that wheel was
//! installed directly, and in the URL `direct_url.json` records.

use super::version_tags::{compact_cuda, local_label, split_digits};
use super::{Installed, list_names};
use crate::snapshot::frameworks::{Build, FlashAttnBuild, FlashAttnTags};
use crate::snapshot::packages::Source;

const EXTENSION: &str = "flash_attn_2_cuda";

pub fn read(found: &Installed, problems: &mut Vec<String>) -> Build {
    let beside = found.package_dir.parent().unwrap_or(found.package_dir);
    let extension = list_names(beside, problems).into_iter().find(|name| {
        name.strip_prefix(EXTENSION)
            .is_some_and(|rest| rest.starts_with('.') && (rest.ends_with(".so") || rest.ends_with(".pyd")))
    });
    if extension.is_none() {
        problems.push(format!(
            "{}: no compiled {EXTENSION} extension beside the package: `import flash_attn` cannot load its kernels",
            beside.display()
        ));
    }
    let wheel_tags = found.distribution.and_then(|package| {
        let from_version = [package.version_as_written.as_deref(), package.version.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|version| parse_label(local_label(version)?, "version"));
        from_version.or_else(|| match &package.source {
            Some(Source::Archive { url, .. }) => wheel_label(url).and_then(|label| parse_label(&label, "direct_url")),
            _ => None,
        })
    });
    Build::FlashAttn(FlashAttnBuild { extension, wheel_tags })
}

/// The local label in a wheel URL's file name (`%2B` is `+` escaped).
pub fn wheel_label(url: &str) -> Option<String> {
    let file = url.rsplit('/').next()?.split(['#', '?']).next()?;
    let file = file.replace("%2B", "+").replace("%2b", "+");
    let stem = file.strip_suffix(".whl")?;
    let version = stem.split('-').nth(1)?;
    local_label(version).map(str::to_string)
}

/// `cu123torch2.4cxx11abiFALSE`, in any case; `None` when it names none of these tags.
pub fn parse_label(label: &str, source: &str) -> Option<FlashAttnTags> {
    let lower = label.to_ascii_lowercase();
    let mut rest = lower.as_str();
    let mut tags = FlashAttnTags {
        source: source.to_string(),
        label: label.to_string(),
        ..FlashAttnTags::default()
    };
    if let Some(after) = rest.strip_prefix("cu") {
        let (digits, after) = split_digits(after);
        tags.cuda = match digits.len() {
            2 => Some(digits.to_string()),
            _ => compact_cuda(digits),
        };
        rest = after;
    } else if let Some(after) = rest.strip_prefix("rocm") {
        let (digits, after) = split_digits(after);
        tags.rocm = (digits.len() >= 2).then(|| format!("{}.{}", &digits[..1], &digits[1..]));
        rest = after;
    }
    if let Some(after) = rest.strip_prefix("torch") {
        let end = after
            .find(|character: char| !(character.is_ascii_digit() || character == '.'))
            .unwrap_or(after.len());
        tags.torch = Some(after[..end].trim_end_matches('.').to_string()).filter(|torch| !torch.is_empty());
        rest = &after[end..];
    }
    if let Some(after) = rest.strip_prefix("cxx11abi") {
        tags.cxx11_abi = match after {
            _ if after.starts_with("true") => Some(true),
            _ if after.starts_with("false") => Some(false),
            _ => None,
        };
    }
    let named_any = tags.cuda.is_some() || tags.rocm.is_some() || tags.torch.is_some() || tags.cxx11_abi.is_some();
    named_any.then_some(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_release_wheels() {
        // flash_attn-2.6.3+cu123torch2.4cxx11abiFALSE-cp311-cp311-linux_x86_64.whl, from setup.py's get_wheel_url()
        let tags = parse_label("cu123torch2.4cxx11abiFALSE", "version").unwrap();
        assert_eq!(
            (tags.cuda.as_deref(), tags.torch.as_deref(), tags.cxx11_abi),
            (Some("12.3"), Some("2.4"), Some(false))
        );
        // pip's normal form lowercases the label
        let tags = parse_label("cu12torch2.6cxx11abitrue", "version").unwrap();
        assert_eq!(
            (tags.cuda.as_deref(), tags.torch.as_deref(), tags.cxx11_abi),
            (Some("12"), Some("2.6"), Some(true))
        );
        let tags = parse_label("rocm62torch2.5cxx11abiTRUE", "version").unwrap();
        assert_eq!((tags.rocm.as_deref(), tags.cuda), (Some("6.2"), None));
        assert_eq!(parse_label("nv", "version"), None);
    }

    #[test]
    fn labels_in_wheel_urls() {
        let url = "https://github.com/Dao-AILab/flash-attention/releases/download/v2.6.3/\
                   flash_attn-2.6.3%2Bcu123torch2.4cxx11abiFALSE-cp311-cp311-linux_x86_64.whl";
        assert_eq!(wheel_label(url).as_deref(), Some("cu123torch2.4cxx11abiFALSE"));
        assert_eq!(wheel_label("https://example.org/flash_attn-2.6.3.tar.gz"), None);
        assert_eq!(
            wheel_label("https://example.org/flash_attn-2.6.3-cp311-cp311-linux_x86_64.whl"),
            None
        );
    }
}
