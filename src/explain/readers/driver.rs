//! A CUDA driver API function missing at load time: a compiled library calls
//! `cuGreenCtxStreamCreate` (or any `cu` + capital function: `cuTensorMapEncodeTiled`,
//! `cuCtxCreate_v3`), which only `libcuda`, the driver's own library, exports.
//! The loader did not find it, so the driver is older than the CUDA that library
//! was built with. The runtime's functions (`cudaLaunchKernelExC`) and the math
//! libraries' (`cublasLt...`, `cudnn...`) are other libraries' and are not read here.

use super::text;
use super::{Context, Reading};
use crate::explain::traceback::Traceback;

pub const CAUSE: &str = "driver-too-old-for-torch";

pub fn read(text: &str, traceback: &Traceback, context: Context) -> Option<Reading> {
    let Some(symbol) = driver_symbol(text) else {
        return insufficient(text, context)
            .or_else(|| container_requirement(text, context))
            .or_else(|| minimum_driver_stated(text))
            .or_else(|| warned_before_a_cuda_failure(text, context));
    };
    let owner = super::owner_of_failure(text, traceback).filter(|owner| owner != "nvidia");
    let asker = owner.clone().unwrap_or_else(|| super::UNKNOWN_ASKER.to_string());
    let mut node = Vec::new();
    if let Some(facts) = context.facts {
        match (&facts.driver, &facts.driver_cuda) {
            (Some(driver), Some(cuda)) => node.push((
                None,
                format!(
                    "the driver here is {driver}, whose CUDA is {cuda}: {symbol} needs the CUDA {asker} was built with"
                ),
            )),
            _ => node.push((None, "the driver's version is not known here".to_string())),
        }
    }
    let rebuild = match &owner {
        Some(owner) => format!("install a {owner} build made for the CUDA this driver runs"),
        None => "install builds made for the CUDA this driver runs".to_string(),
    };
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "{asker} calls {symbol}, a CUDA driver API function that the loaded libcuda does not export: the driver is older than the CUDA it was built with"
        ),
        node,
        fix: format!(
            "upgrade the NVIDIA driver to one whose CUDA (nvidia-smi's \"CUDA Version\") is at least the CUDA {asker} was built with, or {rebuild}"
        ),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The CUDA runtime's "driver version is insufficient" (cudaErrorInsufficientDriver,
/// 35) is also what it says when it finds no driver library at all: in a
/// container started without the NVIDIA runtime, on a machine without the
/// driver. Since CUDA 11 a driver of a major's branch (525 or newer for CUDA
/// 12) runs every runtime of that major (minor-version compatibility), so
/// where the node's driver is known, its major says which of the two the job
/// met.
fn insufficient(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    if !(lower.contains("driver version is insufficient for cuda runtime version")
        || lower.contains("cudaerrorinsufficientdriver"))
    {
        return None;
    }
    let facts = context.facts?;
    let driver = facts.driver.as_ref()?;
    // The CUDA the driver reports, else what NVIDIA's table of toolkit
    // drivers says it runs (a report that gives only the driver's version).
    let (cuda, _) = crate::torch_install::driver_cuda(facts, context.tables?)?;
    let (major, minor) = (cuda.major, cuda.minor);
    let (said, fix) = if major >= 12 {
        (
            format!(
                "the CUDA runtime found no driver it can use, and the driver here, {driver} (CUDA {major}.{minor}), runs every CUDA {major} runtime: a job with a CUDA {major} runtime that says this did not see this driver (a container started without the NVIDIA runtime, a job on another node), or its runtime is CUDA {} or newer",
                major + 1
            ),
            format!(
                "run nvidia-smi where the job runs (in its container: docker exec CONTAINER nvidia-smi): if it fails there, start the container with the GPUs (docker run --gpus all, or Compose's device reservation with capabilities [gpu]; the host needs the NVIDIA Container Toolkit); if it shows this driver, the job's runtime is newer than CUDA {major}.{minor}: upgrade the driver to a branch of that CUDA, or install the job's packages built for CUDA {major}"
            ),
        )
    } else {
        (
            format!(
                "the CUDA runtime found no driver it can use, and the driver here, {driver}, runs CUDA {major}.{minor} and older: a newer runtime needs a newer driver, and a job whose runtime this driver runs did not see it (a container started without the NVIDIA runtime)"
            ),
            format!(
                "run nvidia-smi where the job runs (in its container: docker exec CONTAINER nvidia-smi): if it fails there, start the container with the GPUs (docker run --gpus all; the host needs the NVIDIA Container Toolkit); else upgrade the NVIDIA driver to a branch whose CUDA (nvidia-smi's 'CUDA Version') is at least the job's, or install the job's packages built for CUDA {major}.{minor} or older"
            ),
        )
    };
    Some(Reading {
        cause: CAUSE,
        said,
        node: Vec::new(),
        fix,
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

/// The NVIDIA container runtime's check of an image's NVIDIA_REQUIRE_CUDA
/// (`cuda>=12.6`, set by NVIDIA's CUDA base images) against the CUDA the host's
/// driver reports, before the container starts: `nvidia-container-cli:
/// requirement error: unsatisfied condition: cuda>=12.6, please update your
/// driver to a newer version, or use an earlier cuda container`.
fn container_requirement(text: &str, context: Context) -> Option<Reading> {
    let wanted = text::version_after(text, "unsatisfied condition: cuda>=")?;
    let wanted_release = crate::knowledge::tables::MajorMinor::of(&wanted.parse().ok()?)?;
    let host = context
        .facts
        .zip(context.tables)
        .and_then(|(facts, tables)| crate::torch_install::driver_cuda(facts, tables));
    let node = match host {
        Some((cuda, _)) => vec![(
            Some(cuda < wanted_release),
            format!("the driver here runs CUDA {cuda} and older"),
        )],
        None => Vec::new(),
    };
    Some(Reading::stated_outright(
        CAUSE,
        format!(
            "the container's image requires a driver of CUDA {wanted} or newer (its NVIDIA_REQUIRE_CUDA), and the host's driver is older: the container was not started"
        ),
        node,
        format!(
            "upgrade the host's NVIDIA driver to a branch whose CUDA (nvidia-smi's \"CUDA Version\") is {wanted} or newer, or use an image built for the CUDA the driver runs (a tag of an older CUDA)"
        ),
    ))
}

/// A library's own words for the driver it needs and the one it found, as
/// NVIDIA Warp words them at init (warp/context.py): `The minimum required
/// CUDA driver version is 12.0, but the installed CUDA driver version is
/// 11.4.` Both versions are the CUDA each driver runs, so the words decide.
fn minimum_driver_stated(text: &str) -> Option<Reading> {
    let wanted = text::version_after(text, "minimum required CUDA driver version is ")?;
    let installed = text::version_after(text, "installed CUDA driver version is ")?;
    let (wanted_version, installed_version) = (
        wanted.parse::<pep440_rs::Version>().ok()?,
        installed.parse::<pep440_rs::Version>().ok()?,
    );
    if installed_version >= wanted_version {
        return None;
    }
    Some(Reading::stated_outright(
        CAUSE,
        format!(
            "the library needs a driver that runs CUDA {wanted} or newer, and the driver where it ran runs CUDA {installed}"
        ),
        Vec::new(),
        format!(
            "upgrade the NVIDIA driver to a branch whose CUDA (nvidia-smi's \"CUDA Version\") is {wanted} or newer, or install a release of the library built for CUDA {installed}"
        ),
    ))
}

/// Warp's warning printed before a failure of CUDA itself (`Warp CUDA
/// error: Failed to get CUDA device`): the job went on without CUDA, and the
/// old driver is why it then failed. Read only for a failure that names CUDA.
fn warned_before_a_cuda_failure(text: &str, context: Context) -> Option<Reading> {
    if !crate::ascii_case::contains(text, "cuda") {
        return None;
    }
    context
        .earlier
        .iter()
        .rev()
        .find_map(|line| minimum_driver_stated(line))
}

/// The undefined symbol when it is one of the CUDA driver API's: `cu` and a
/// capital letter, as the driver's functions are named.
fn driver_symbol(text: &str) -> Option<&str> {
    let rest = text::undefined_symbol(text)
        .map(|(_, symbol)| symbol)
        .or_else(|| text::after_marker(text, "symbol lookup for "))?;
    let symbol = rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next()?;
    let driver_api =
        symbol.len() > 3 && symbol.starts_with("cu") && symbol[2..].starts_with(|c: char| c.is_ascii_uppercase());
    driver_api.then_some(symbol)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(read, log)
    }

    #[test]
    fn a_driver_api_function_missing_from_a_packages_library_is_an_old_driver() {
        let found = reading("Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/site-packages/sgl_kernel/__init__.py\", line 13, in <module>\n    from sgl_kernel import common_ops\nImportError: /opt/conda/lib/python3.10/site-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: cuGreenCtxStreamCreate\n").unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(
            found.said.starts_with("sgl-kernel calls cuGreenCtxStreamCreate"),
            "{}",
            found.said
        );
        assert!(found.fix.contains("upgrade the NVIDIA driver"), "{}", found.fix);
    }

    /// robotwin168: NVIDIA Warp's warning at init names both drivers' CUDA.
    #[test]
    fn a_minimum_driver_a_library_states_above_the_installed_one_is_an_old_driver() {
        // The log marks its line as one a job goes on past (MESSAGES_GONE_ON).
        let warp =
            "    The minimum required CUDA driver version is 12.0, but the installed CUDA driver version is 11.4.\n";
        let found = reading(warp).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.stated && found.settles, "{found:?}");
        assert!(found.said.contains("CUDA 12.0 or newer"), "{}", found.said);
        assert!(found.said.contains("runs CUDA 11.4"), "{}", found.said);
        // The installed driver meets it: nothing stated is unmet.
        assert!(reading(&warp.replace("is 11.4", "is 12.2")).is_none());
    }

    #[test]
    fn runtime_math_and_torch_symbols_are_not_the_drivers() {
        for symbol in [
            "cudaLaunchKernelExC",
            "cublasLtMatmul",
            "cudnnCreate",
            "_ZN3c104cuda9SetDeviceEi",
            "cu",
            "cuda",
        ] {
            let log = format!("ImportError: /x/site-packages/foo/_C.so: undefined symbol: {symbol}\n");
            assert!(reading(&log).is_none(), "{symbol}");
        }
    }

    /// testinfra6465: an image of CUDA 12.6 on a host whose driver runs less.
    #[test]
    fn the_container_runtimes_cuda_requirement_is_read() {
        let found = container_requirement(
            "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.6, \nplease update your driver to a newer version, or use an earlier cuda container: unknown.",
            Context::alone(),
        )
        .unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.said.contains("CUDA 12.6 or newer"), "{}", found.said);
        assert!(found.fix.contains("12.6 or newer"), "{}", found.fix);
        assert!(container_requirement("unsatisfied condition: brand = tesla", Context::alone()).is_none());
    }
}
