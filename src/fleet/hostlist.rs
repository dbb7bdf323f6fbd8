//! Node names in Slurm's hostlist form (`gpu-[001-096,128]`), which
//! `scontrol show hostnames` expands and `srun --exclude` / `sbatch --nodelist`
//! take as they are: a fleet report names a thousand nodes in one line.

use std::collections::BTreeMap;

use crate::tool_text::hostlist_name;

/// The names, compressed: names that differ only in a trailing number of the
/// same width share one bracket of ranges. Order: by prefix, then by number.
/// Each name goes through [`hostlist_name`]: one Slurm would read as a range
/// or a list is left out (the fleet refuses such a node's report as it reads
/// it, and says why, so none reaches here).
pub fn compress<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    // (prefix, digit count) -> numbers; names without a trailing number stand alone.
    let mut numbered: BTreeMap<(&str, usize), Vec<u64>> = BTreeMap::new();
    let mut plain: Vec<&str> = Vec::new();
    for name in names.into_iter().filter_map(|name| hostlist_name(name).ok()) {
        match split_number(name) {
            Some((prefix, digits)) => numbered
                .entry((prefix, digits.len()))
                .or_default()
                .push(digits.parse().expect("all ASCII digits, bounded in length")),
            None => plain.push(name),
        }
    }
    let mut parts: Vec<String> = Vec::new();
    for ((prefix, width), mut numbers) in numbered {
        numbers.sort_unstable();
        numbers.dedup();
        let ranges = ranges(&numbers, width);
        parts.push(if numbers.len() == 1 {
            format!("{prefix}{ranges}")
        } else {
            format!("{prefix}[{ranges}]")
        });
    }
    plain.sort_unstable();
    plain.dedup();
    parts.extend(plain.into_iter().map(str::to_string));
    parts.join(",")
}

/// `gpu-017` -> (`gpu-`, `017`). Numbers longer than 18 digits are not node numbers.
fn split_number(name: &str) -> Option<(&str, &str)> {
    let start = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let digits = &name[start..];
    (!digits.is_empty() && digits.len() <= 18).then(|| (&name[..start], digits))
}

fn ranges(numbers: &[u64], width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut index = 0;
    while index < numbers.len() {
        let first = numbers[index];
        let mut last = first;
        while index + 1 < numbers.len() && numbers[index + 1] == last + 1 {
            index += 1;
            last = numbers[index];
        }
        // Zero-padded by hand: a width in a format string panics over 65,535.
        let padded = |number: u64| {
            let digits = number.to_string();
            format!("{}{digits}", "0".repeat(width.saturating_sub(digits.len())))
        };
        out.push(if first == last {
            padded(first)
        } else {
            format!("{}-{}", padded(first), padded(last))
        });
        index += 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_numbers_become_ranges_and_keep_their_zero_padding() {
        let names = ["gpu-003", "gpu-001", "gpu-002", "gpu-007", "gpu-010"];
        assert_eq!(compress(names), "gpu-[001-003,007,010]");
    }

    #[test]
    fn one_node_has_no_brackets_and_plain_names_are_kept() {
        assert_eq!(compress(["n3"]), "n3");
        assert_eq!(compress(["login", "n1", "n2", "a7x"]), "n[1-2],a7x,login");
    }

    #[test]
    fn widths_and_prefixes_are_kept_apart() {
        assert_eq!(compress(["n9", "n10", "n010", "rack2-n1"]), "n9,n10,n010,rack2-n1");
    }

    #[test]
    fn repeated_names_are_named_once() {
        assert_eq!(compress(["n1", "n1", "n2"]), "n[1-2]");
    }
}
