//! torch's refusal of an accelerator its build has no backend for, in words
//! other than CUDA's: `Torch not compiled with XPU enabled` is raised by
//! torch.xpu's lazy initialisation when the build (a CPU or a CUDA wheel)
//! has no XPU backend. The knowledge entry's fix installs a CUDA build, which
//! changes nothing for an Intel GPU: the fix here is the XPU index's.

use super::Reading;
use super::extension::CPU_TORCH;

const XPU_MISSING: &str = "torch not compiled with xpu enabled";

pub fn read(text: &str) -> Option<Reading> {
    crate::ascii_case::contains(text, XPU_MISSING).then(|| Reading {
        cause: CPU_TORCH,
        said: "torch was built without XPU (Intel GPU) support, and the code asked for an XPU device: the installed wheel is a CPU or a CUDA build".to_string(),
        node: Vec::new(),
        fix: "install torch's XPU build (and torchvision/torchaudio from the same index, only those installed): pip install --force-reinstall torch torchvision torchaudio --index-url https://download.pytorch.org/whl/xpu; check with python -c 'import torch; print(torch.xpu.is_available())' (Intel's GPU driver must be installed first)".to_string(),
        stated: true,
        settles: true,
        rules_out: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sdnext4357: an Intel Arc with a CPU build of torch.
    #[test]
    fn a_build_without_xpu_is_read_with_the_xpu_index_as_its_fix() {
        let found = read("Torch not compiled with XPU enabled").unwrap();
        assert_eq!(found.cause, CPU_TORCH);
        assert!(found.fix.contains("download.pytorch.org/whl/xpu"), "{}", found.fix);
        assert!(read("Torch not compiled with CUDA enabled").is_none());
    }
}
