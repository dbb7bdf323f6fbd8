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
    let symbol = driver_symbol(text)?;
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

/// The undefined symbol when it is one of the CUDA driver API's: `cu` and a
/// capital letter, as the driver's functions are named.
fn driver_symbol(text: &str) -> Option<&str> {
    let rest =
        text::after_marker(text, "undefined symbol: ").or_else(|| text::after_marker(text, "symbol lookup for "))?;
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
}
