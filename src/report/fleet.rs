//! `fleet` for people (text), for CI job summaries (markdown) and for CI test
//! reports (JUnit: one test case per node, so a CI page lists the nodes that
//! failed by name). JSON is the serde form of `FleetReport`.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::finding::paint;
use super::junit::single_suite;
use super::markdown::marker;
use super::wrap::write_hanging;
use super::{Style, plural, short_fingerprint};
use crate::escape::controls as shown;
use crate::findings::Severity;
use crate::fleet::FleetReport;
use crate::tool_text::{md_cell, md_code, md_code_cell, md_inline, xml_text};

/// Node lists longer than this are shown as a hostlist only.
const LISTED_NODES: usize = 8;

pub fn text(report: &FleetReport, style: Style) -> String {
    let mut out = String::new();
    let width = style.width();
    let heading = |line: &str| style.heading(line);
    write_hanging(&mut out, width, "", 2, &headline(report), heading);
    if let Some(reference) = reference_line(report) {
        write_hanging(&mut out, width, "", 2, &reference, str::to_string);
    }

    if !report.deviations.is_empty() {
        let _ = writeln!(out, "\n{}", style.heading("Nodes that differ"));
        for deviation in &report.deviations {
            let severity = paint(
                style,
                deviation.severity,
                &format!("{:<8}", deviation.severity.as_str()),
            );
            let nodes = nodes_text(deviation.nodes.len(), &deviation.hostlist);
            write_hanging(&mut out, width, &format!("  {severity} "), 11, &nodes, str::to_string);
            for item in &deviation.differences {
                let severity = paint(style, item.severity, &format!("{:<8}", item.severity.as_str()));
                write_hanging(
                    &mut out,
                    width,
                    &format!("    {severity} "),
                    13,
                    &item.message,
                    str::to_string,
                );
                if let Some(fix) = &item.fix {
                    let _ = writeln!(out, "             {} {}", style.dim("fix:"), shown(fix));
                }
            }
        }
    }
    if !report.contested.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.heading("Split facts (no value on more than half the nodes)")
        );
        for contested in &report.contested {
            let values: Vec<String> = contested
                .values
                .iter()
                .map(|value| format!("{} on {}", value.value, value.nodes))
                .collect();
            let line = format!("{}: {}", contested.subject, values.join(", "));
            write_hanging(&mut out, width, "  ", 4, &line, str::to_string);
        }
    }
    if !report.findings.is_empty() {
        let _ = writeln!(out, "\n{}", style.heading("Check findings"));
        for finding in &report.findings {
            let severity = paint(style, finding.severity, &format!("{:<8}", finding.severity.as_str()));
            let on = format!("{} on {}", finding.id, nodes_text(finding.count, &finding.hostlist));
            write_hanging(&mut out, width, &format!("  {severity} "), 11, &on, str::to_string);
            write_hanging(&mut out, width, &" ".repeat(11), 11, &finding.example, str::to_string);
            if let Some(fix) = &finding.fix {
                let _ = writeln!(out, "           {} {}", style.dim("fix:"), shown(fix));
            }
        }
    }
    for (title, problems) in [
        ("Nodes that did not answer", &report.not_answered),
        ("Reports that could not be read", &report.unreadable),
    ] {
        if problems.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", style.heading(title));
        for problem in problems {
            let line = format!("{}: {}", problem.node, problem.problem);
            write_hanging(
                &mut out,
                width,
                &format!("  {} ", style.error("error   ")),
                11,
                &line,
                str::to_string,
            );
        }
    }
    if !report.duplicates.is_empty() {
        let note = format!(
            "more than one report claims {}; the later ones are named NAME#2, ...",
            report.duplicates.join(", ")
        );
        out.push('\n');
        write_hanging(
            &mut out,
            width,
            &format!("{} ", style.warning("note:")),
            2,
            &note,
            str::to_string,
        );
    }
    out.push('\n');
    write_hanging(&mut out, width, "", 2, &verdict(report), str::to_string);
    out
}

pub fn markdown(report: &FleetReport) -> String {
    let mut out = String::new();
    let word = if report.summary.failed { "FAIL" } else { "PASS" };
    let _ = writeln!(out, "## envdoctor fleet: {word}\n");
    let _ = writeln!(out, "{}\n", md_inline(&headline(report)));
    if let Some(reference) = reference_line(report) {
        let _ = writeln!(out, "{}\n", md_inline(&reference));
    }
    if !report.deviations.is_empty() {
        out.push_str("| severity | nodes | what differs | fix |\n|---|---|---|---|\n");
        for deviation in &report.deviations {
            for item in &deviation.differences {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    marker(item.severity),
                    md_code_cell(&deviation.hostlist),
                    md_cell(&item.message),
                    item.fix.as_deref().map(md_code_cell).unwrap_or_default()
                );
            }
        }
        out.push('\n');
    }
    if !report.findings.is_empty() {
        out.push_str("| severity | finding | nodes |\n|---|---|---|\n");
        for finding in &report.findings {
            let _ = writeln!(
                out,
                "| {} | {} {} | {} {} |",
                marker(finding.severity),
                md_code_cell(&finding.id),
                md_cell(&finding.title),
                finding.count,
                md_code_cell(&finding.hostlist)
            );
        }
        out.push('\n');
    }
    for (title, problems) in [
        ("Did not answer", &report.not_answered),
        ("Unreadable reports", &report.unreadable),
    ] {
        if problems.is_empty() {
            continue;
        }
        let _ = writeln!(out, "**{title}:**\n");
        for problem in problems {
            let _ = writeln!(out, "- {}: {}", md_code(&problem.node), md_inline(&problem.problem));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", md_inline(&verdict(report)));
    out
}

/// One test case per node, and one per node or file that sent nothing usable.
pub fn junit(report: &FleetReport) -> String {
    // node -> (severity, message) of everything said about it
    let mut said: BTreeMap<&str, Vec<(Severity, String)>> = BTreeMap::new();
    for deviation in &report.deviations {
        for node in &deviation.nodes {
            for item in &deviation.differences {
                let fix = item
                    .fix
                    .as_deref()
                    .map(|fix| format!("\nFix: {fix}"))
                    .unwrap_or_default();
                said.entry(node)
                    .or_default()
                    .push((item.severity, format!("[{}] {}{fix}", item.id, item.message)));
            }
        }
    }
    for finding in &report.findings {
        for node in &finding.nodes {
            said.entry(node)
                .or_default()
                .push((finding.severity, format!("[{}] {}", finding.id, finding.title)));
        }
    }
    let fail_on = report.summary.fail_on;
    let (mut tests, mut failures) = (0, 0);
    let mut cases = String::new();
    let mut case = |class: &str, name: &str, items: &[(Severity, String)]| {
        tests += 1;
        let _ = writeln!(
            cases,
            "    <testcase classname=\"envdoctor.fleet.{class}\" name=\"{}\" time=\"0\">",
            xml_text(name)
        );
        let (failing, passing): (Vec<_>, Vec<_>) = items.iter().partition(|(severity, _)| fail_on.fails(*severity));
        if !failing.is_empty() {
            failures += 1;
            let body: Vec<&str> = failing.iter().map(|(_, text)| text.as_str()).collect();
            let worst = failing
                .iter()
                .map(|(severity, _)| *severity)
                .max()
                .unwrap_or(Severity::Error);
            let _ = writeln!(
                cases,
                "      <failure message=\"{}\" type=\"{worst}\">{}</failure>",
                xml_text(&format!("{} problem(s) on {name}", failing.len())),
                xml_text(&body.join("\n"))
            );
        }
        if !passing.is_empty() {
            let body: Vec<String> = passing
                .iter()
                .map(|(severity, text)| format!("{severity}: {text}"))
                .collect();
            let _ = writeln!(cases, "      <system-out>{}</system-out>", xml_text(&body.join("\n")));
        }
        let _ = writeln!(cases, "    </testcase>");
    };
    let mut names: Vec<&str> = report.node_names.iter().map(String::as_str).collect();
    names.sort_unstable();
    for name in names {
        case("node", name, said.get(name).map_or(&[][..], Vec::as_slice));
    }
    for problem in &report.not_answered {
        case("node", &problem.node, &[(Severity::Error, problem.problem.clone())]);
    }
    for problem in &report.unreadable {
        case("report", &problem.node, &[(Severity::Error, problem.problem.clone())]);
    }
    single_suite("envdoctor fleet", tests, failures, &cases)
}

/// `Fleet of 10000 nodes: 9993 match the majority, 7 differ, 1 did not answer`.
/// Where some fact has no majority, the nodes compared with are named instead.
fn headline(report: &FleetReport) -> String {
    let nodes = &report.nodes;
    let mut missing = Vec::new();
    if nodes.not_answered > 0 {
        missing.push(format!("{} did not answer", nodes.not_answered));
    }
    if nodes.unreadable > 0 {
        missing.push(format!("{} unreadable", plural(nodes.unreadable, "report")));
    }
    if nodes.reported == 0 {
        return format!("Fleet: no node's report was read; {}", missing.join(", "));
    }
    let compared = match (report.reference.kind, standing_in(report)) {
        ("lock", _) => format!("{} match the lock, {} differ", nodes.matching, nodes.deviating),
        (_, None) => format!("{} match the majority, {} differ", nodes.matching, nodes.deviating),
        (_, Some(reference)) => match report.deviations.as_slice() {
            [other] if nodes.reported == 2 => format!(
                "{reference} and {} differ, and with two nodes neither is the majority",
                shown(&other.hostlist)
            ),
            _ => format!(
                "no majority on {}, so the nodes are compared with {reference}: {} match, {} differ",
                plural(report.contested.len(), "fact"),
                nodes.matching,
                nodes.deviating
            ),
        },
    };
    let parts: Vec<String> = std::iter::once(compared).chain(missing).collect();
    format!(
        "Fleet of {}: {}",
        plural(nodes.reported + nodes.not_answered, "node"),
        parts.join(", ")
    )
}

/// Where no value of some fact is on more than half the nodes, what stands in
/// for the majority: the nodes whose configuration the others are compared
/// with, or the most common values where no node holds them all.
fn standing_in(report: &FleetReport) -> Option<String> {
    if report.reference.kind == "lock" || report.contested.is_empty() {
        return None;
    }
    Some(match &report.reference.nodes {
        Some(hostlist) => shown(hostlist).into_owned(),
        None => "the most common value of each fact".to_string(),
    })
}

/// What the nodes were compared with, by its headline facts; nothing when no
/// report was read, as there is nothing to compare with.
fn reference_line(report: &FleetReport) -> Option<String> {
    let fingerprint = short_fingerprint(report.reference.fingerprint.as_deref()?);
    if let Some(lock) = &report.reference.lock {
        return Some(format!("Reference: the lock {} ({fingerprint})", shown(lock)));
    }
    let facts: Vec<String> = report
        .majority
        .iter()
        .map(|fact| format!("{} {}", shown(&fact.subject), shown(&fact.value)))
        .collect();
    let label = match standing_in(report) {
        Some(reference) => format!("Compared with {reference}"),
        None => "Majority".to_string(),
    };
    Some(format!("{label}: {} ({fingerprint})", facts.join(" · ")))
}

fn verdict(report: &FleetReport) -> String {
    let summary = &report.summary;
    let word = if summary.failed { "FAIL" } else { "PASS" };
    if report.nodes.reported == 0 {
        return format!(
            "{word}: no node's report was read; failing on {}",
            summary.fail_on.as_str()
        );
    }
    let mut parts = vec![format!(
        "{} with errors, {} with warnings, {} with notes",
        plural(summary.nodes_with_errors, "node"),
        summary.nodes_with_warnings,
        summary.nodes_with_info
    )];
    let configurations = report.configurations.len();
    parts.push(format!(
        "{configurations} distinct {}",
        if configurations == 1 {
            "configuration"
        } else {
            "configurations"
        }
    ));
    parts.push(checked(report.nodes.judged, report.nodes.reported));
    parts.push(format!("failing on {}", summary.fail_on.as_str()));
    format!("{word}: {}", parts.join("; "))
}

/// `checks run on all 12 nodes`: how many nodes' findings are known, whether
/// they came in the node's own check report or from its Snapshot checked here.
fn checked(judged: usize, reported: usize) -> String {
    match (judged, reported) {
        (1, 1) => "checks run on the node".to_string(),
        (2, 2) => "checks run on both nodes".to_string(),
        (judged, reported) if judged == reported => format!("checks run on all {reported} nodes"),
        (judged, reported) => format!("checks run on {judged} of {reported} nodes"),
    }
}

fn nodes_text(count: usize, hostlist: &str) -> String {
    let hostlist = shown(hostlist);
    if count <= LISTED_NODES {
        hostlist.into_owned()
    } else {
        format!("{} ({hostlist})", plural(count, "node"))
    }
}
