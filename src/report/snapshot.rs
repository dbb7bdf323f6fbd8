//! The Snapshot for people: a compact summary of the node, GPUs and frameworks first.

use std::fmt::Write;

use crate::snapshot::Snapshot;

use super::Style;
use super::layout::{LABEL_WIDTH, continuation, gib, section};
use super::wrap::write_laid_out;
use crate::snapshot::packages::Package;
use crate::snapshot::python::Origin;

pub fn text(snapshot: &Snapshot, style: Style) -> String {
    // Every string in a Snapshot was written by whoever made it: escaped once
    // here, so no line below can show a raw newline or terminal escape.
    match crate::escape::every_string(snapshot) {
        Some(escaped) => summary(&escaped, style),
        None => crate::escape::controls_but_newlines(&summary(snapshot, style.plain())).into_owned(),
    }
}

fn summary(snapshot: &Snapshot, style: Style) -> String {
    let mut out = String::new();
    let system = &snapshot.system;
    let unknown = || "unknown".to_string();

    section(
        &mut out,
        style,
        "host",
        &system.hostname.clone().unwrap_or_else(unknown),
    );
    let os = system.os.clone().unwrap_or_else(unknown);
    let kernel = system.kernel.clone().unwrap_or_else(unknown);
    let glibc = system
        .glibc_version
        .as_deref()
        .map(|v| format!(", glibc {v}"))
        .unwrap_or_default();
    section(
        &mut out,
        style,
        "system",
        &format!("{os}, kernel {kernel}, {}{glibc}", system.architecture),
    );
    let cpus = match (system.cpu_count, system.cpus_usable) {
        (Some(all), Some(usable)) if usable < all => format!("{all} CPUs ({usable} usable)"),
        (Some(all), _) => format!("{all} CPUs"),
        _ => "CPU count unknown".to_string(),
    };
    let memory = match (system.memory_total_mib, system.memory_available_mib) {
        (Some(total), Some(available)) => format!("{} memory ({} available)", gib(total), gib(available)),
        (Some(total), None) => format!("{} memory", gib(total)),
        _ => "memory unknown".to_string(),
    };
    let cpu_model = system.cpu_model.clone().unwrap_or_else(unknown);
    continuation(&mut out, style, &format!("{cpu_model}, {cpus}, {memory}"));

    let python = &snapshot.python;
    section(
        &mut out,
        style,
        "python",
        &format!(
            "{} {} {}",
            python.implementation,
            python.version,
            python.executable.display()
        ),
    );
    let environment = if python.is_virtual_env {
        "virtual environment"
    } else {
        "no virtual environment"
    };
    let origin = match python.origin {
        Origin::Flag => "--python",
        Origin::VirtualEnv => "$VIRTUAL_ENV",
        Origin::CondaPrefix => "$CONDA_PREFIX",
        Origin::Path => "PATH",
        Origin::Unknown => "an unknown rule",
    };
    continuation(
        &mut out,
        style,
        &style.dim(&format!(
            "chosen by {origin} ({}), {environment}, prefix {}",
            python.invoked.display(),
            python.prefix.display()
        )),
    );

    super::gpu::write(&mut out, snapshot, style);
    super::frameworks::write(&mut out, snapshot, style);

    let packages = &snapshot.packages;
    let editable = packages
        .iter()
        .filter(|p| p.editable_project_location.is_some())
        .count();
    let shadowed = packages.iter().filter(|p| !p.shadowed.is_empty()).count();
    let broken = packages.iter().filter(|p| !p.problems.is_empty()).count();
    let mut counts = format!("{} distributions", packages.len());
    for (count, what) in [
        (editable, "editable"),
        (shadowed, "shadowing another copy"),
        (broken, "with problems"),
    ] {
        if count > 0 {
            let _ = write!(counts, ", {count} {what}");
        }
    }
    section(&mut out, style, "packages", &counts);
    write_columns(&mut out, packages, style.width());

    let notes: Vec<String> = packages.iter().flat_map(package_notes).collect();
    let scan_problems = snapshot
        .package_scan_problems
        .iter()
        .map(|problem| format!("{}: {}", problem.path.display(), problem.problem));
    let notes: Vec<String> = notes.into_iter().chain(scan_problems).collect();
    if !notes.is_empty() {
        section(&mut out, style, "notes", "");
        for note in notes {
            write_laid_out(&mut out, style.width(), "  ", 4, &style.warning(&note));
        }
    }
    out
}

fn package_notes(package: &Package) -> Vec<String> {
    let version = package.version.as_deref().unwrap_or("?");
    let mut notes = Vec::new();
    if let Some(location) = &package.editable_project_location {
        notes.push(format!(
            "{} {version} is editable from {}",
            package.name,
            location.display()
        ));
    }
    for copy in &package.shadowed {
        notes.push(format!(
            "{} {version} at {} shadows {} at {}",
            package.name,
            package.location.display(),
            copy.version.as_deref().unwrap_or("?"),
            copy.location.display()
        ));
    }
    for problem in &package.problems {
        notes.push(format!("{}: {problem}", package.name));
    }
    notes
}

/// Packages as `name version` cells in as many columns as fit the output width.
fn write_columns(out: &mut String, packages: &[Package], width: usize) {
    let cells: Vec<String> = packages
        .iter()
        .map(|package| format!("{} {}", package.name, package.version.as_deref().unwrap_or("?")))
        .collect();
    let cell_width = cells.iter().map(|cell| cell.chars().count()).max().unwrap_or(0) + 2;
    let columns = (width.saturating_sub(LABEL_WIDTH) / cell_width).max(1);
    let rows = cells.len().div_ceil(columns);
    for row in 0..rows {
        let line: String = (0..columns)
            .filter_map(|column| cells.get(column * rows + row))
            .map(|cell| crate::escape::padded(cell, cell_width))
            .collect();
        let _ = writeln!(out, "{:LABEL_WIDTH$}{}", "", line.trim_end());
    }
}
