//! Which package indexes the user's pip would use, and where each came from.
//!
//! This follows pip's own configuration loading (pypa/pip
//! `src/pip/_internal/configuration.py` and `cli/parser.py`, and the
//! "Configuration" page of pip's documentation):
//!
//! - Files, from lowest to highest precedence: global (`pip/pip.conf` in each
//!   `$XDG_CONFIG_DIRS` entry, default `/etc/xdg`, then `/etc/pip.conf`); user
//!   (`$HOME/.pip/pip.conf`, then `$XDG_CONFIG_HOME/pip/pip.conf`, default
//!   `~/.config`), skipped when `PIP_CONFIG_FILE` names a file that exists; base
//!   (`sys.base_prefix/pip.conf`, read by pip since 23.3, pypa/pip#11487); site
//!   (`sys.prefix/pip.conf`); then the file `PIP_CONFIG_FILE` names. Setting
//!   `PIP_CONFIG_FILE` to `/dev/null` (`os.devnull`) loads no file at all.
//! - Each key's value is the one from the highest-precedence file; then, within
//!   the merged result, `[install]` overrides `[global]` and the `PIP_*`
//!   environment variables override both. Empty values count as unset.
//! - Files are INI as Python's `RawConfigParser` reads them: `key = value` or
//!   `key: value`, indented continuation lines, whole-line `#`/`;` comments, no
//!   interpolation; a file pip cannot open is skipped, as pip skips it.
//! - `extra-index-url` holds whitespace-separated URLs.
//!
//! `--index-url` on envdoctor's command line wins over all of it, as it would on
//! pip's. Without any setting, the index is pip's own default, asked from the
//! interpreter's pip.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::located::Located;
use crate::process;

use super::urls::{index_key, strip_credentials};

/// Where pip's files are looked for. `system` is `/etc` on a real machine;
/// tests point everything at temporary directories.
#[derive(Debug, Clone)]
pub struct ConfigRoots {
    pub system: PathBuf,
    /// `sys.prefix` of the interpreter whose pip is meant.
    pub prefix: Option<PathBuf>,
    /// `sys.base_prefix`; the same as `prefix` outside a virtual environment.
    pub base_prefix: Option<PathBuf>,
}

impl ConfigRoots {
    pub fn for_interpreter(prefix: Option<PathBuf>, base_prefix: Option<PathBuf>) -> ConfigRoots {
        ConfigRoots {
            system: PathBuf::from("/etc"),
            prefix,
            base_prefix,
        }
    }
}

/// One index, with where the setting came from (`from PIP_INDEX_URL`). `url`
/// keeps any credentials, for fetching; show it through [`Index::shown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    pub url: String,
    pub from: String,
}

/// How `from` begins for pip's built-in default, which nobody configured.
const DEFAULT_FROM: &str = "pip's default";

impl Index {
    /// pip's own default rather than an index the user chose: a requirements
    /// file need not name it.
    pub fn is_pip_default(&self) -> bool {
        self.from.starts_with(DEFAULT_FROM)
    }

    /// The URL without credentials, for messages and files.
    pub fn shown(&self) -> String {
        strip_credentials(&self.url)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedIndexes {
    pub primary: Index,
    pub extras: Vec<Index>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Malformed(Located),
    #[error("pip configuration `{}` is not valid UTF-8", path.display())]
    NotUtf8 { path: PathBuf },
    #[error("pip configuration `{}` cannot be read: {detail}", path.display())]
    Unreadable { path: PathBuf, detail: String },
}

/// The index pip uses when nothing is configured and its pip cannot be asked.
pub const FALLBACK_INDEX: &str = "https://pypi.org/simple/";

/// How long the interpreter may take to name pip's default index.
const ASK_PIP_DEADLINE: Duration = Duration::from_secs(10);

const PIP_CONFIG_FILE: &str = "PIP_CONFIG_FILE";
const DEV_NULL: &str = "/dev/null";

pub fn resolve(
    explicit: Option<&str>,
    python: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    roots: &ConfigRoots,
) -> Result<ResolvedIndexes, ConfigError> {
    let settings = Settings::load(env, roots)?;
    let primary = match explicit.map(str::trim).filter(|url| !url.is_empty()) {
        Some(url) => Index {
            url: url.to_string(),
            from: "from --index-url".to_string(),
        },
        None => match settings.get("index-url") {
            Some(setting) => Index {
                url: setting.value.trim().to_string(),
                from: setting.from.clone(),
            },
            None => pip_default(python),
        },
    };
    let mut seen = HashSet::from([index_key(&primary.url)]);
    let extras = settings
        .get("extra-index-url")
        .map(|setting| {
            setting
                .value
                .split_whitespace()
                .filter(|url| seen.insert(index_key(url)))
                .map(|url| Index {
                    url: url.to_string(),
                    from: setting.from.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ResolvedIndexes { primary, extras })
}

#[derive(Debug, Clone)]
struct Setting {
    value: String,
    from: String,
}

/// pip's merged configuration: `(section, key)` to the value of the
/// highest-precedence source.
struct Settings(BTreeMap<(String, String), Setting>);

/// Sections in pip's override order for `pip install` (`cli/parser.py`,
/// `_get_ordered_configuration_items`); `:env:` holds the `PIP_*` variables.
const SECTION_ORDER: [&str; 3] = [":env:", "install", "global"];

impl Settings {
    fn load(env: &dyn Fn(&str) -> Option<String>, roots: &ConfigRoots) -> Result<Settings, ConfigError> {
        let mut merged = BTreeMap::new();
        for path in config_files(env, roots) {
            let bytes = match crate::bounded_read::read(&path, crate::bounded_read::CONFIG_LIMIT) {
                Ok(bytes) => bytes,
                // What pip's configparser passes over: no such file, or one it
                // cannot open. A FIFO, a device or a huge file it would hang on
                // or read for ever: refused, naming it.
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
                    ) || error.to_string().contains("a directory") =>
                {
                    continue;
                }
                Err(error) => {
                    return Err(ConfigError::Unreadable {
                        path: path.clone(),
                        detail: error.to_string(),
                    });
                }
            };
            let text = String::from_utf8(bytes).map_err(|_| ConfigError::NotUtf8 { path: path.clone() })?;
            let from = format!("from {}", path.display());
            for (section, key, value) in parse_ini(&text, &path)? {
                merged.insert(
                    (section, key),
                    Setting {
                        value,
                        from: from.clone(),
                    },
                );
            }
        }
        for (variable, key) in [
            ("PIP_INDEX_URL", "index-url"),
            ("PIP_EXTRA_INDEX_URL", "extra-index-url"),
        ] {
            if let Some(value) = env(variable) {
                let from = format!("from {variable}");
                merged.insert((":env:".to_string(), key.to_string()), Setting { value, from });
            }
        }
        Ok(Settings(merged))
    }

    fn get(&self, key: &str) -> Option<&Setting> {
        SECTION_ORDER.iter().find_map(|section| {
            self.0
                .get(&(section.to_string(), key.to_string()))
                .filter(|setting| !setting.value.trim().is_empty())
        })
    }
}

/// The files pip reads, lowest precedence first.
fn config_files(env: &dyn Fn(&str) -> Option<String>, roots: &ConfigRoots) -> Vec<PathBuf> {
    let config_file = env(PIP_CONFIG_FILE).map(PathBuf::from);
    if config_file.as_deref() == Some(Path::new(DEV_NULL)) {
        return Vec::new();
    }
    let home = env("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
    let expand_home = |path: &str| match (path.strip_prefix('~'), &home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(path),
    };

    let mut files = Vec::new();
    let xdg_config_dirs = env("XDG_CONFIG_DIRS").filter(|dirs| !dirs.trim().is_empty());
    match xdg_config_dirs {
        Some(dirs) => files.extend(
            dirs.split(':')
                .filter(|dir| !dir.is_empty())
                .map(|dir| expand_home(dir).join("pip/pip.conf")),
        ),
        None => files.push(roots.system.join("xdg/pip/pip.conf")),
    }
    files.push(roots.system.join("pip.conf"));

    if !config_file.as_deref().is_some_and(Path::exists) {
        if let Some(home) = &home {
            files.push(home.join(".pip/pip.conf"));
        }
        let config_home = env("XDG_CONFIG_HOME")
            .filter(|dir| !dir.trim().is_empty())
            .map(|dir| expand_home(&dir))
            .or_else(|| home.as_ref().map(|home| home.join(".config")));
        if let Some(config_home) = config_home {
            files.push(config_home.join("pip/pip.conf"));
        }
    }
    if let Some(base_prefix) = &roots.base_prefix
        && roots.prefix.as_ref() != Some(base_prefix)
    {
        files.push(base_prefix.join("pip.conf"));
    }
    if let Some(prefix) = &roots.prefix {
        files.push(prefix.join("pip.conf"));
    }
    files.extend(config_file);
    files
}

/// `(section, normalized key, value)` in file order, as `RawConfigParser` with
/// its defaults reads them (strict: a repeated key in a section is an error).
fn parse_ini(text: &str, path: &Path) -> Result<Vec<(String, String, String)>, ConfigError> {
    let malformed = |line: usize, problem: String| ConfigError::Malformed(Located::at_line(path, line, problem));
    let mut entries: Vec<(String, String, String)> = Vec::new();
    let mut section: Option<String> = None;
    let mut seen = HashSet::new();
    // Whether the last entry can take continuation lines.
    let mut continuing = false;
    for (number, line) in text.lines().enumerate().map(|(index, line)| (index + 1, line)) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if indented && continuing {
            if let Some(entry) = entries.last_mut() {
                entry.2.push('\n');
                entry.2.push_str(trimmed);
            }
            continue;
        }
        // Like configparser's section pattern, text after the closing `]` is ignored.
        if let Some(name) = trimmed
            .strip_prefix('[')
            .and_then(|rest| Some(&rest[..rest.rfind(']')?]))
        {
            section = Some(name.to_string());
            continuing = false;
            continue;
        }
        let Some(section) = &section else {
            return Err(malformed(number, "a setting before any [section] header".to_string()));
        };
        let Some(delimiter) = trimmed.find(['=', ':']) else {
            return Err(malformed(
                number,
                format!("`{trimmed}` is neither `key = value` nor a [section]"),
            ));
        };
        let key = normalize_key(&trimmed[..delimiter]);
        if !seen.insert((section.clone(), key.clone())) {
            return Err(malformed(number, format!("`{key}` is set twice in [{section}]")));
        }
        entries.push((section.clone(), key, trimmed[delimiter + 1..].trim().to_string()));
        continuing = true;
    }
    Ok(entries)
}

/// pip's `_normalize_name`: `Index_URL` and `--index-url` are `index-url`.
fn normalize_key(key: &str) -> String {
    let key = key.trim().to_lowercase().replace('_', "-");
    key.strip_prefix("--").map(str::to_string).unwrap_or(key)
}

/// pip's default index as the interpreter's pip knows it; PyPI when it cannot say.
fn pip_default(python: Option<&Path>) -> Index {
    let fallback = |why: String| Index {
        url: FALLBACK_INDEX.to_string(),
        from: format!("{DEFAULT_FROM} ({why})"),
    };
    let Some(python) = python else {
        return fallback("no interpreter to ask".to_string());
    };
    let mut command = Command::new(python);
    command
        .args([
            "-B",
            "-c",
            "from pip._internal.models.index import PyPI; print(PyPI.simple_url)",
        ])
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
    let answer = match process::run_with_deadline(command, ASK_PIP_DEADLINE) {
        Ok(finished) if finished.status.success() => String::from_utf8_lossy(&finished.stdout).trim().to_string(),
        Ok(finished) => {
            let why =
                process::failure_line(&finished.stderr).unwrap_or_else(|| process::describe_status(&finished.status));
            return fallback(format!("{}'s pip did not say: {why}", python.display()));
        }
        Err(error) => return fallback(format!("{}'s pip did not say: {error}", python.display())),
    };
    if answer.starts_with("https://") || answer.starts_with("http://") {
        Index {
            url: answer,
            from: format!("{DEFAULT_FROM}, as {}'s pip reports it", python.display()),
        }
    } else {
        fallback(format!("{}'s pip named no URL", python.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::fs;

    struct Machine {
        root: tempfile::TempDir,
        env: HashMap<String, String>,
    }

    impl Machine {
        fn new() -> Machine {
            let root = tempfile::tempdir().unwrap();
            let home = root.path().join("home");
            fs::create_dir_all(&home).unwrap();
            let env = HashMap::from([("HOME".to_string(), home.display().to_string())]);
            Machine { root, env }
        }

        fn path(&self, relative: &str) -> PathBuf {
            self.root.path().join(relative)
        }

        fn write(&self, relative: &str, text: &str) -> PathBuf {
            let path = self.path(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            path
        }

        fn set(&mut self, name: &str, value: &str) {
            self.env.insert(name.to_string(), value.to_string());
        }

        fn roots(&self) -> ConfigRoots {
            ConfigRoots {
                system: self.path("etc"),
                prefix: Some(self.path("venv")),
                base_prefix: Some(self.path("base")),
            }
        }

        fn resolve(&self, explicit: Option<&str>) -> Result<ResolvedIndexes, ConfigError> {
            let env = |name: &str| self.env.get(name).cloned();
            resolve(explicit, None, &env, &self.roots())
        }

        fn primary(&self) -> (String, String) {
            let primary = self.resolve(None).unwrap().primary;
            let root = format!("{}/", self.root.path().display());
            (primary.url, primary.from.replace(&root, ""))
        }
    }

    fn index_url(url: &str) -> String {
        format!("[global]\nindex-url = {url}\n")
    }

    #[test]
    fn nothing_configured_and_no_interpreter_is_pypi() {
        let resolved = Machine::new().resolve(None).unwrap();
        assert_eq!(resolved.primary.url, FALLBACK_INDEX);
        assert_eq!(resolved.primary.from, "pip's default (no interpreter to ask)");
        assert!(resolved.extras.is_empty());
    }

    #[test]
    fn later_files_override_earlier_ones_in_pips_order() {
        let mut machine = Machine::new();
        let layers = [
            ("etc/xdg/pip/pip.conf", "https://xdg/"),
            ("etc/pip.conf", "https://etc/"),
            ("home/.pip/pip.conf", "https://legacy-user/"),
            ("home/.config/pip/pip.conf", "https://user/"),
            ("base/pip.conf", "https://base/"),
            ("venv/pip.conf", "https://site/"),
        ];
        for (file, url) in layers {
            machine.write(file, &index_url(url));
            assert_eq!(machine.primary(), (url.to_string(), format!("from {file}")));
        }
        let extra = machine.write("extra.conf", &index_url("https://pip-config-file/"));
        machine.set(PIP_CONFIG_FILE, extra.to_str().unwrap());
        assert_eq!(machine.primary().0, "https://pip-config-file/");
        machine.set("PIP_INDEX_URL", "https://env/");
        assert_eq!(
            machine.primary(),
            ("https://env/".to_string(), "from PIP_INDEX_URL".to_string())
        );
        assert_eq!(
            machine.resolve(Some("https://cli/")).unwrap().primary.from,
            "from --index-url"
        );
    }

    #[test]
    fn xdg_directories_move_the_global_and_user_files() {
        let mut machine = Machine::new();
        machine.write("etc/xdg/pip/pip.conf", &index_url("https://default-xdg/"));
        machine.write("a/pip/pip.conf", &index_url("https://a/"));
        machine.write("b/pip/pip.conf", &index_url("https://b/"));
        let dirs = format!("{}:{}", machine.path("a").display(), machine.path("b").display());
        machine.set("XDG_CONFIG_DIRS", &dirs);
        assert_eq!(machine.primary().0, "https://b/");
        machine.write("config/pip/pip.conf", &index_url("https://config-home/"));
        machine.write("home/.config/pip/pip.conf", &index_url("https://not-read/"));
        machine.set("XDG_CONFIG_HOME", machine.path("config").to_str().unwrap());
        assert_eq!(machine.primary().0, "https://config-home/");
    }

    #[test]
    fn an_existing_pip_config_file_hides_the_user_files_and_dev_null_hides_all() {
        let mut machine = Machine::new();
        machine.write("etc/pip.conf", &index_url("https://etc/"));
        machine.write("home/.config/pip/pip.conf", &index_url("https://user/"));
        let empty = machine.write("empty.conf", "");
        machine.set(PIP_CONFIG_FILE, empty.to_str().unwrap());
        assert_eq!(machine.primary().0, "https://etc/");
        machine.set(PIP_CONFIG_FILE, machine.path("missing.conf").to_str().unwrap());
        assert_eq!(machine.primary().0, "https://user/");
        machine.set(PIP_CONFIG_FILE, DEV_NULL);
        assert_eq!(machine.primary().0, FALLBACK_INDEX);
    }

    #[test]
    fn install_section_beats_global_whichever_file_it_is_in() {
        let machine = Machine::new();
        machine.write("etc/pip.conf", "[install]\nindex-url = https://install/\n");
        machine.write("venv/pip.conf", &index_url("https://global/"));
        assert_eq!(
            machine.primary(),
            ("https://install/".to_string(), "from etc/pip.conf".to_string())
        );
    }

    #[test]
    fn an_empty_value_counts_as_unset_even_when_it_overrides() {
        let machine = Machine::new();
        machine.write("etc/pip.conf", &index_url("https://etc/"));
        machine.write("venv/pip.conf", "[global]\nindex-url =\n");
        assert_eq!(machine.primary().0, FALLBACK_INDEX);
    }

    #[test]
    fn extra_indexes_from_multi_line_values_and_the_environment() {
        let mut machine = Machine::new();
        machine.write(
            "etc/pip.conf",
            "# site mirror\n[global]\nIndex_URL: https://mirror/simple\n\
             extra-index-url =\n    https://a/simple\n\n    https://b/simple https://mirror/simple/\n",
        );
        let resolved = machine.resolve(None).unwrap();
        assert_eq!(resolved.primary.url, "https://mirror/simple");
        let extras: Vec<&str> = resolved.extras.iter().map(|index| index.url.as_str()).collect();
        assert_eq!(
            extras,
            ["https://a/simple", "https://b/simple"],
            "the primary is not repeated"
        );
        machine.set("PIP_EXTRA_INDEX_URL", "https://download.pytorch.org/whl/cu121");
        let resolved = machine.resolve(None).unwrap();
        assert_eq!(resolved.extras.len(), 1);
        assert_eq!(resolved.extras[0].from, "from PIP_EXTRA_INDEX_URL");
    }

    #[test]
    fn malformed_files_name_the_file_and_line() {
        let machine = Machine::new();
        let path = machine.write("etc/pip.conf", "[global]\ntimeout = 5\nnot a setting\n");
        let message = machine.resolve(None).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "{}:3: `not a setting` is neither `key = value` nor a [section]",
                path.display()
            )
        );
        machine.write("etc/pip.conf", "index-url = https://x/\n");
        assert!(
            machine
                .resolve(None)
                .unwrap_err()
                .to_string()
                .ends_with(":1: a setting before any [section] header")
        );
        machine.write("etc/pip.conf", "[global]\nindex-url = a\n[global]\nindex_url = b\n");
        assert!(
            machine
                .resolve(None)
                .unwrap_err()
                .to_string()
                .ends_with(":4: `index-url` is set twice in [global]")
        );
    }

    #[test]
    fn an_unreadable_file_is_skipped_as_pip_skips_it() {
        let machine = Machine::new();
        fs::create_dir_all(machine.path("etc/pip.conf")).unwrap();
        assert_eq!(machine.primary().0, FALLBACK_INDEX);
    }

    #[test]
    fn the_interpreters_pip_names_its_default() {
        let index = pip_default(Some(Path::new("python3")));
        assert!(index.url.starts_with("https://"), "{index:?}");
        assert!(
            index.from.starts_with("pip's default, as python3's pip reports it"),
            "{index:?}"
        );
        let missing = pip_default(Some(Path::new("/nonexistent/python")));
        assert_eq!(missing.url, FALLBACK_INDEX);
        assert!(
            missing.from.contains("/nonexistent/python's pip did not say"),
            "{missing:?}"
        );
    }

    #[test]
    fn shown_urls_carry_no_credentials() {
        let index = Index {
            url: "https://user:token@private.example/simple/".to_string(),
            from: String::new(),
        };
        assert_eq!(index.shown(), "https://private.example/simple/");
    }
}
