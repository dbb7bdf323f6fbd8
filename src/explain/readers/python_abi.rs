//! A compiled extension built for another Python than the one importing it,
//! in the interpreter's or the binding library's own words:
//!
//! - `dynamic module does not define module export function (PyInit_minirts)`
//!   (3.5 and newer; `init function (PyInit_x)` in 3.3 and 3.4): a Python 3
//!   module named `x` exports `PyInit_x`, a Python 2 one `initx`, so the file
//!   was built for Python 2, or for another module name;
//! - `dynamic module does not define init function (initx)`: Python 2
//!   importing a module built for Python 3;
//! - `Module use of python27.dll conflicts with this version of Python.`:
//!   Windows' loader found the extension linked to another Python's DLL;
//! - pybind11's `Python version mismatch: module was compiled for Python 3.6,
//!   but the interpreter version is incompatible: 3.7.3.` (2.3 and newer) and
//!   `module was compiled for version 3.5, while the interpreter is running
//!   version 3.6` (2.0 to 2.2);
//! - `undefined symbol: PyString_FromString` and the like: a function of
//!   Python 2's C API (or of one Unicode build of it), which no Python 3 has.
//!
//! Each says outright which Python the file was built for, or that it was
//! built for another; the fix is a build for the interpreter that runs the job.

use super::{Reading, text};
use crate::explain::traceback::Traceback;

pub const CAUSE: &str = "extension-built-for-other-python";

/// Python 2's C API, gone from Python 3 (PyString and PyInt became PyBytes and
/// PyLong; Py_InitModule, PyCObject and the UCS2/UCS4 builds went).
const PYTHON2_SYMBOLS: [&str; 9] = [
    "PyString_",
    "PyInt_",
    "Py_InitModule",
    "_Py_ZeroStruct",
    "_Py_TrueStruct",
    "PyCObject_",
    "PyUnicodeUCS2_",
    "PyUnicodeUCS4_",
    "PyClass_",
];

pub fn read(text: &str, traceback: &Traceback) -> Option<Reading> {
    let (said, built_for) = python3_export_missing(text)
        .or_else(|| python2_init_missing(text))
        .or_else(|| windows_dll_conflict(text))
        .or_else(|| pybind11_mismatch(text))
        .or_else(|| python2_symbol(text))?;
    // An installed distribution is reinstalled; a file the project built in its
    // own tree (elf15's `./rts/game_MC/`) is rebuilt there.
    let reinstall = match super::owner_of_failure(text, traceback) {
        Some(owner) => format!("python -m pip install --no-cache-dir --force-reinstall {owner}, run by that interpreter"),
        None => "the project's build run by that interpreter: python setup.py build_ext, or CMake given -DPython_EXECUTABLE=$(which python)".to_string(),
    };
    Some(Reading::stated_outright(
        CAUSE,
        said,
        Vec::new(),
        format!(
            "rebuild the extension with the Python that runs the job ({reinstall}), or run the job with {built_for}"
        ),
    ))
}

/// `... module export function (PyInit_x)` or, in 3.3 and 3.4, `... init
/// function (PyInit_x)`.
fn python3_export_missing(text: &str) -> Option<(String, String)> {
    let module = ["module export function (PyInit_", "init function (PyInit_"]
        .iter()
        .find_map(|marker| text::after_marker(text, &format!("dynamic module does not define {marker}")))?;
    let module = module.split(')').next()?.trim();
    text::is_identifier(module).then(|| {
        (
            format!("the compiled {module} defines no PyInit_{module}, which every Python 3 extension named {module} exports: it was built for Python 2 (whose extensions export init{module}) or under another module name"),
            "the Python it was built for".to_string(),
        )
    })
}

/// Python 2's `dynamic module does not define init function (initx)`.
fn python2_init_missing(text: &str) -> Option<(String, String)> {
    let module = text::after_marker(text, "dynamic module does not define init function (init")?;
    let module = module.split(')').next()?.trim();
    text::is_identifier(module).then(|| {
        (
            format!("Python 2 found no init{module} in the compiled {module}: it was built for Python 3 (whose extensions export PyInit_{module})"),
            "the Python 3 it was built for".to_string(),
        )
    })
}

/// Windows: `Module use of python27.dll conflicts with this version of Python.`
fn windows_dll_conflict(text: &str) -> Option<(String, String)> {
    let rest = text::after_marker(text, "Module use of ")?;
    let (dll, after) = rest.split_once(' ')?;
    if !after.starts_with("conflicts with this version of Python") {
        return None;
    }
    let digits = dll.to_ascii_lowercase();
    let digits = digits.trim_end_matches(".dll").trim_start_matches("python");
    let python = match digits.split_at_checked(1) {
        Some((major, minor)) if !minor.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            format!("Python {major}.{minor}")
        }
        _ => "the Python whose DLL it names".to_string(),
    };
    Some((
        format!("the extension is linked to {dll}, another Python's library: it was built for {python}"),
        python,
    ))
}

/// pybind11's check at import, in its wordings since 2.0.
fn pybind11_mismatch(text: &str) -> Option<(String, String)> {
    let (built, running) = if let Some(rest) = text::after_marker(text, "module was compiled for Python ") {
        let (built, rest) = rest.split_once(", but the interpreter version is incompatible: ")?;
        (built, rest)
    } else {
        let rest = text::after_marker(text, "module was compiled for version ")?;
        rest.split_once(", while the interpreter is running version ")?
    };
    let version = |word: &str| {
        let word = word.trim().trim_end_matches('.');
        let end = word
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(word.len());
        let word = word[..end].trim_end_matches('.');
        (!word.is_empty()).then(|| word.to_string())
    };
    let (built, running) = (version(built)?, version(running)?);
    Some((
        format!("pybind11 says the module was compiled for Python {built} and the interpreter is {running}"),
        format!("Python {built}"),
    ))
}

/// `undefined symbol: PyString_FromString`: Python 2's C API.
fn python2_symbol(text: &str) -> Option<(String, String)> {
    let (_, symbol) = text::undefined_symbol(text)?;
    let symbol = symbol
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()?;
    PYTHON2_SYMBOLS
        .iter()
        .any(|prefix| symbol.starts_with(prefix))
        .then(|| {
            (
                format!("the extension calls {symbol}, a function of Python 2's C API that no Python 3 has: it was built for Python 2"),
                "the Python 2 it was built for".to_string(),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(log: &str) -> Option<Reading> {
        super::super::read_alone(|text, traceback, _| read(text, traceback), log)
    }

    /// elf15, as posted; the messages of 3.3/3.4, of Python 2 and of Windows
    /// as ycmd's tests of them list them (ycmd/tests/server_utils_test.py).
    #[test]
    fn the_interpreters_words_for_another_pythons_extension_are_read() {
        let elf = "Traceback (most recent call last):\n  File \"./rts/game_MC/game.py\", line 8, in <module>\n    import minirts\nImportError: dynamic module does not define module export function (PyInit_minirts)\n";
        let found = reading(elf).unwrap();
        assert_eq!(found.cause, CAUSE);
        assert!(found.stated && found.settles);
        assert!(
            found.said.contains("no PyInit_minirts") && found.said.contains("built for Python 2"),
            "{}",
            found.said
        );
        let found = reading("ImportError: dynamic module does not define init function (PyInit_ycm_core).\n").unwrap();
        assert!(found.said.contains("PyInit_ycm_core"), "{}", found.said);
        let found = reading("ImportError: dynamic module does not define init function (initycm_core)\n").unwrap();
        assert!(found.said.contains("built for Python 3"), "{}", found.said);
        let found =
            reading("ImportError: Module use of python27.dll conflicts with this version of Python.\n").unwrap();
        assert!(
            found.said.contains("python27.dll") && found.said.contains("Python 2.7"),
            "{}",
            found.said
        );
        assert!(found.fix.ends_with("run the job with Python 2.7"), "{}", found.fix);
        let found =
            reading("ImportError: Module use of python311.dll conflicts with this version of Python.\n").unwrap();
        assert!(found.said.contains("Python 3.11"), "{}", found.said);
    }

    #[test]
    fn pybind11s_check_and_python_2s_api_are_read() {
        let found = reading("ImportError: Python version mismatch: module was compiled for Python 3.6, but the interpreter version is incompatible: 3.7.3.\n").unwrap();
        assert!(
            found
                .said
                .contains("compiled for Python 3.6 and the interpreter is 3.7.3"),
            "{}",
            found.said
        );
        let found = reading("ImportError: Python version mismatch: module was compiled for version 3.5, while the interpreter is running version 3.6.\n").unwrap();
        assert!(
            found
                .said
                .contains("compiled for Python 3.5 and the interpreter is 3.6"),
            "{}",
            found.said
        );
        let found = reading(
            "ImportError: /venv/lib/python3.10/site-packages/mypkg/_ext.so: undefined symbol: PyString_FromString\n",
        )
        .unwrap();
        assert!(found.said.contains("PyString_FromString"), "{}", found.said);
        assert!(
            found.fix.contains("--force-reinstall mypkg, run by that interpreter"),
            "{}",
            found.fix
        );
    }

    /// torch's own symbols, a Python 3 API name and other words are not Python 2's.
    #[test]
    fn other_missing_symbols_and_words_are_not_read() {
        for log in [
            "ImportError: /x/_C.so: undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE\n",
            "ImportError: /x/_ext.so: undefined symbol: PyUnicode_AsUTF8String\n",
            "ImportError: dynamic module does not define module export function (PyInit_)\n",
            "the interpreter version is incompatible with this module\n",
        ] {
            assert!(reading(log).is_none(), "{log}");
        }
    }
}
