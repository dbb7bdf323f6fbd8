//! torch's fbgemm.dll failing to load on Windows for want of a DLL it needs:
//! `OSError: [WinError 126] ... Error loading "...\torch\lib\fbgemm.dll" or
//! one of its dependencies.` Error 126 (ERROR_MOD_NOT_FOUND) is a DLL not
//! found; the same sentence with another code is another failure (1455, the
//! commit limit; 182 and 127, a DLL of the wrong build found first; 193, a
//! file of another architecture), which this entry's fix does not mend.

use super::Reading;

pub const CAUSE: &str = "torch-windows-fbgemm-libomp-missing";

const DEPENDENCIES: &str = "or one of its dependencies";

pub fn read(text: &str) -> Option<Reading> {
    let at = text.find(DEPENDENCIES)?;
    let start = text[..at]
        .rfind("Error loading")
        .or_else(|| text[..at].rfind("Erro loading"))?;
    let loading = text[start..at].replace('\\', "/").to_ascii_lowercase();
    if !loading.contains("lib/fbgemm.dll") {
        return None;
    }
    if win_error(text).is_some_and(|code| code != 126) {
        return None;
    }
    Some(Reading::stated_outright(
        CAUSE,
        "torch's own fbgemm.dll did not load: Windows found no DLL it depends on, which for torch 2.4's Windows builds is libomp140.x86_64.dll".to_string(),
        Vec::new(),
        "provide libomp140.x86_64.dll (the Visual Studio Installer's 'MSVC v143 - VS 2022 C++ x64/x86 build tools' put it in C:\\Windows\\System32), or, on torch 2.4.0, move to a release reported to load without it (2.3.1, or 2.4.1 and later)".to_string(),
    ))
}

/// The Windows error code the message gives: `[WinError 126]`.
fn win_error(text: &str) -> Option<u32> {
    let (_, after) = text.split_once("[WinError ")?;
    after.split(']').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cutie-roto5, captcharecognizer2 (no code, the maintainer's own words).
    #[test]
    fn fbgemm_not_loading_for_a_missing_dll_is_read() {
        for text in [
            "[WinError 126] The specified module could not be found. Error loading \"C:\\Cutie\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.",
            "Erro loading “xxx\\Lib\\site-packages\\torch\\lib\\fbgemm.dll” or one of its dependencies.",
        ] {
            assert_eq!(read(text).map(|found| found.cause), Some(CAUSE), "{text}");
        }
    }

    #[test]
    fn other_codes_and_other_dlls_are_not_read() {
        for text in [
            "[WinError 1455] The paging file is too small for this operation to complete. Error loading \"C:\\v\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.",
            "[WinError 182] The operating system cannot run %1. Error loading \"C:\\v\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.",
            "[WinError 126] The specified module could not be found. Error loading \"C:\\v\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
        ] {
            assert!(read(text).is_none(), "{text}");
        }
    }
}
