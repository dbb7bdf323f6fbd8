//! PEP 751 `pylock.toml` (<https://packaging.python.org/en/latest/specifications/pylock-toml/>):
//! the pins as an installer-neutral lock that pip (26.1 and later) and uv
//! install, and the GPU side under `[tool.envdoctor]`, which installers ignore
//! and `envdoctor verify` enforces.

use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value, value};

use super::index::Artifact;
use super::plan::{Pin, Plan};
use crate::lock::model::{Package, Source};
use crate::tool_text::{Refused, toml_marker_value, toml_requires_python};

/// pip only reads `-r FILE` as a lock when the name is `pylock.toml` or
/// `pylock.NAME.toml`, NAME without dots (the spec's file-name rule).
pub fn check_file_name(path: &Path) -> Result<(), String> {
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    let valid = name == "pylock.toml"
        || name
            .strip_prefix("pylock.")
            .and_then(|rest| rest.strip_suffix(".toml"))
            .is_some_and(|middle| !middle.is_empty() && !middle.contains('.'));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{}`: a PEP 751 lock must be named pylock.toml or pylock.NAME.toml (NAME without dots), \
             or installers will not read it as one",
            path.display()
        ))
    }
}

/// The document. toml_edit writes every string as a TOML string, escaped;
/// the marker and the specifier built inside two of them go through
/// [`crate::tool_text`], which refuses a value that would change their meaning.
pub fn render(plan: &Plan) -> Result<String, Refused> {
    let lock = plan.lock;
    let mut document = DocumentMut::new();
    document["lock-version"] = value("1.0");
    let mut environments = Array::new();
    environments.push(format!(
        "sys_platform == 'linux' and platform_machine == '{}'",
        toml_marker_value(&lock.system.architecture).map_err(|problem| refused_field("the architecture", problem))?
    ));
    document["environments"] = value(environments);
    document["requires-python"] = value(
        toml_requires_python(&lock.python.version).map_err(|problem| refused_field("the Python version", problem))?,
    );
    document["created-by"] = value("envdoctor");

    let mut packages = ArrayOfTables::new();
    for pin in &plan.pins {
        packages.push(index_package(pin, plan));
    }
    for package in &plan.direct {
        if let Some(table) = direct_package(package) {
            packages.push(table);
        }
    }
    document["packages"] = Item::ArrayOfTables(packages);
    document["tool"] = Item::Table(tool_table(plan));
    Ok(document.to_string())
}

fn refused_field(field: &str, problem: Refused) -> Refused {
    Refused {
        problem: format!("{field}: {problem}"),
    }
}

fn index_package(pin: &Pin, plan: &Plan) -> Table {
    let mut table = Table::new();
    table["name"] = value(pin.package.normalized_name());
    table["version"] = value(pin.version);
    if let Some(index) = pin
        .artifacts
        .first()
        .map(|file| file.index.clone())
        .or(plan.index_url.clone())
    {
        table["index"] = value(index);
    }
    let wheels: Vec<&Artifact> = pin.wheels().collect();
    if !wheels.is_empty() {
        let mut array = Array::new();
        for wheel in wheels {
            array.push(file_entry(wheel));
        }
        array.set_trailing_comma(true);
        for entry in array.iter_mut() {
            entry.decor_mut().set_prefix("\n    ");
        }
        array.set_trailing("\n");
        table["wheels"] = value(array);
    }
    if let Some(sdist) = pin.sdist() {
        table["sdist"] = value(file_entry(sdist));
    }
    table
}

fn file_entry(file: &Artifact) -> InlineTable {
    let mut entry = InlineTable::new();
    entry.insert("name", file.filename.clone().into());
    entry.insert("url", file.url.clone().into());
    if let Some(upload_time) = file
        .upload_time
        .as_deref()
        .and_then(|text| text.parse::<toml_edit::Datetime>().ok())
    {
        entry.insert("upload-time", upload_time.into());
    }
    if let Some(size) = file.size.and_then(|size| i64::try_from(size).ok()) {
        entry.insert("size", size.into());
    }
    let mut hashes = InlineTable::new();
    if let Some(sha256) = &file.sha256 {
        hashes.insert("sha256", sha256.clone().into());
    }
    entry.insert("hashes", Value::InlineTable(hashes));
    entry
}

/// Source trees carry no `version` (the spec: it cannot be guaranteed).
fn direct_package(package: &Package) -> Option<Table> {
    let mut table = Table::new();
    table["name"] = value(package.normalized_name());
    match &package.source {
        Source::Vcs {
            url,
            vcs,
            commit_id,
            requested_revision,
            subdirectory,
        } => {
            let mut vcs_table = InlineTable::new();
            vcs_table.insert("type", vcs.clone().into());
            vcs_table.insert("url", url.clone().into());
            if let Some(revision) = requested_revision {
                vcs_table.insert("requested-revision", revision.clone().into());
            }
            vcs_table.insert("commit-id", commit_id.clone().into());
            if let Some(subdirectory) = subdirectory {
                vcs_table.insert("subdirectory", subdirectory.clone().into());
            }
            table["vcs"] = value(vcs_table);
        }
        Source::Directory {
            url,
            editable,
            subdirectory,
        } => {
            let path = crate::packaging::metadata::file_url_to_path(url)?;
            let mut directory = InlineTable::new();
            directory.insert("path", path.into());
            directory.insert("editable", (*editable).into());
            if let Some(subdirectory) = subdirectory {
                directory.insert("subdirectory", subdirectory.clone().into());
            }
            table["directory"] = value(directory);
        }
        Source::Archive {
            url,
            hash,
            subdirectory,
        } => {
            table["version"] = value(package.version.clone()?);
            let (algorithm, digest) = hash.as_deref()?.split_once('=')?;
            let mut archive = InlineTable::new();
            archive.insert("url", url.clone().into());
            let mut hashes = InlineTable::new();
            hashes.insert(algorithm, digest.into());
            archive.insert("hashes", Value::InlineTable(hashes));
            if let Some(subdirectory) = subdirectory {
                archive.insert("subdirectory", subdirectory.clone().into());
            }
            table["archive"] = value(archive);
        }
        Source::Index | Source::Unknown => return None,
    }
    Some(table)
}

/// The GPU side, which the spec's `[tool]` table carries and installers ignore.
fn tool_table(plan: &Plan) -> Table {
    let lock = plan.lock;
    let mut envdoctor = Table::new();
    envdoctor["lock-fingerprint"] = value(lock.fingerprint.clone());
    if let Some(nvidia) = &lock.nvidia {
        if let Some(driver) = &nvidia.driver {
            envdoctor["driver"] = value(driver.clone());
        }
        if let Some(cuda) = &nvidia.cuda_driver {
            envdoctor["cuda-driver"] = value(cuda.clone());
        }
    }
    let mut gpus = Array::new();
    for group in &lock.gpus {
        let mut entry = InlineTable::new();
        entry.insert("name", group.name.clone().into());
        if let Some(cc) = &group.compute_capability {
            entry.insert("compute-capability", cc.clone().into());
        }
        if let Some(memory) = group.memory_total_mib.and_then(|memory| i64::try_from(memory).ok()) {
            entry.insert("memory-total-mib", memory.into());
        }
        entry.insert("count", i64::from(group.count).into());
        gpus.push(entry);
    }
    envdoctor["gpus"] = value(gpus);
    let toolkits: Array = lock
        .cuda
        .toolkits
        .iter()
        .filter_map(|toolkit| toolkit.version.clone())
        .collect();
    envdoctor["cuda-toolkits"] = value(toolkits);
    if let Some(cuda) = lock.frameworks.get("torch").and_then(|torch| torch.get("cuda")) {
        envdoctor["torch-cuda"] = value(cuda.to_string());
    }
    envdoctor["python"] = value(lock.python.version.clone());
    if let Some(glibc) = &lock.system.glibc {
        envdoctor["glibc"] = value(glibc.clone());
    }
    let mut tool = Table::new();
    tool.set_implicit(true);
    tool["envdoctor"] = Item::Table(envdoctor);
    tool
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::plan::plan;
    use crate::lock::model::sample_lock;

    #[test]
    fn only_the_names_pep_751_allows_are_accepted() {
        for good in ["pylock.toml", "out/pylock.cu130.toml"] {
            assert!(check_file_name(Path::new(good)).is_ok(), "{good}");
        }
        for bad in ["lock.toml", "pylock.a.b.toml", "pylock..toml", "pylock.toml.bak"] {
            assert!(check_file_name(Path::new(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_gpu_side_rides_in_the_tool_table_and_source_trees_have_no_version() {
        let mut lock = sample_lock();
        let mut editable = lock.packages[0].clone();
        editable.name = "mytrainer".to_string();
        editable.version = Some("0.1".to_string());
        editable.source = Source::Directory {
            url: "file:///src/my%20trainer".to_string(),
            editable: true,
            subdirectory: None,
        };
        lock.packages.push(editable);
        let plan = plan(&lock, false, None).unwrap();
        let text = render(&plan).unwrap();
        let document: DocumentMut = text.parse().unwrap();
        assert_eq!(document["lock-version"].as_str(), Some("1.0"));
        assert_eq!(document["tool"]["envdoctor"]["torch-cuda"].as_str(), Some("13.0"));
        let packages = document["packages"].as_array_of_tables().unwrap();
        let trainer = packages
            .iter()
            .find(|package| package["name"].as_str() == Some("mytrainer"))
            .unwrap();
        assert!(trainer.get("version").is_none(), "{text}");
        assert_eq!(trainer["directory"]["path"].as_str(), Some("/src/my trainer"));
        assert_eq!(trainer["directory"]["editable"].as_bool(), Some(true));
    }
}
