//! `compat-matrix/tables/name-history.txt`: which releases of a package have
//! each of its modules and each public name a module defines, read from the
//! files of every release line on PyPI (`compat-matrix/tools/name_history.py`).
//! Where `names.toml` has no hand-checked row for a name a failure says is
//! missing, this says in which releases the name is, so the release a job was
//! written for can be told from the message alone.
//!
//! The file is a few MB of short lines, read lazily: only a failure that names
//! a missing name scans it, and only the block of that name's distribution.

use std::str::FromStr;

use pep440_rs::Version;

use crate::knowledge::tables::Change;

const TABLE: &str = include_str!("../../compat-matrix/tables/name-history.txt");

/// Where the table's facts come from, for a reading's evidence.
pub const SOURCE: &str = "compat-matrix/tables/name-history.txt, read from PyPI's files of each release";

/// The keyword arguments of each public callable, where they changed between
/// releases (`name_history.py --keywords`): the same releases, dated the same way.
const KEYWORD_TABLE: &str = include_str!("../../compat-matrix/tables/keyword-history.txt");

/// Where the keyword table's facts come from.
pub const KEYWORD_SOURCE: &str = "compat-matrix/tables/keyword-history.txt, read from PyPI's files of each release";

/// Whether one release read has the module or name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Present,
    Absent,
    /// Not read, compiled, or building its names at run time.
    Unknown,
}

/// A module's or a name's presence across the releases of its distribution
/// that were read, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Lineage {
    /// The distribution, as PyPI names it.
    pub distribution: String,
    pub releases: Vec<Version>,
    pub marks: Vec<Mark>,
}

/// The presence of `name` in `module` across the releases read, where it
/// changed between them.
pub fn of_name(module: &str, name: &str) -> Option<Lineage> {
    name_in(TABLE, module, name)
}

/// `of_name` in a table of this shape.
pub(super) fn name_in(table: &'static str, module: &str, name: &str) -> Option<Lineage> {
    find(table, module, |line| name_row(line, module, name))
}

/// The runs of `n MODULE RUNS NAME...` where the row is `module`'s and lists `name`.
fn name_row<'t>(line: &'t str, module: &str, name: &str) -> Option<&'t str> {
    names_row_listing(line, Some(module), name).map(|(_, runs)| runs)
}

/// The module and runs of a `n MODULE RUNS NAME...` row that lists `name`,
/// where the row is `module`'s when one is given (checked before its names).
fn names_row_listing<'t>(line: &'t str, module: Option<&str>, name: &str) -> Option<(&'t str, &'t str)> {
    let mut fields = line.split(' ');
    if fields.next() != Some("n") {
        return None;
    }
    let row_module = fields
        .next()
        .filter(|row_module| module.is_none_or(|module| module == *row_module))?;
    let runs = fields.next()?;
    fields.any(|listed| listed == name).then_some((row_module, runs))
}

/// Whether a callable takes a keyword argument, across the releases read: a
/// function or a class's method of `module`.
#[derive(Debug, Clone, PartialEq)]
pub struct KeywordLineage {
    pub module: &'static str,
    pub lineage: Lineage,
}

/// Every row that dates `keyword` for the callable Python names `callable`
/// (`SFTTrainer.__init__`, `vgg19`): one per module that defines a callable
/// of that name and took the keyword in some releases only. Its first part
/// names no package, so the rows may be several distributions'.
pub fn of_keyword(callable: &str, keyword: &str) -> Vec<KeywordLineage> {
    keyword_in(KEYWORD_TABLE, callable, keyword)
}

/// `of_keyword` in a table of this shape.
fn keyword_in(table: &'static str, callable: &str, keyword: &str) -> Vec<KeywordLineage> {
    let mut header = "";
    let mut found = Vec::new();
    for line in table.lines() {
        if let Some(rest) = line.strip_prefix("@ ") {
            header = rest;
            continue;
        }
        let mut fields = line.split(' ');
        if fields.next() != Some("k") {
            continue;
        }
        let (Some(module), Some(row_callable), Some(runs)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if row_callable != callable || !fields.any(|listed| listed == keyword) {
            continue;
        }
        let mut header_fields = header.split(' ');
        let (Some(distribution), Some(_roots)) = (header_fields.next(), header_fields.next()) else {
            continue;
        };
        let Ok(releases) = header_fields.map(Version::from_str).collect::<Result<Vec<_>, _>>() else {
            continue;
        };
        if let Some(lineage) = lineage(distribution, releases, runs) {
            found.push(KeywordLineage { module, lineage });
        }
    }
    found
}

/// The presence of the module `module` across the releases read, where some
/// release lacks it.
pub fn of_module(module: &str) -> Option<Lineage> {
    module_in(TABLE, module)
}

/// `of_module` in a table of this shape.
pub(super) fn module_in(table: &'static str, module: &str) -> Option<Lineage> {
    find(table, module, |line| {
        let mut fields = line.split(' ');
        (fields.next() == Some("m") && fields.next() == Some(module))
            .then(|| fields.next())
            .flatten()
    })
}

/// The one distribution whose modules list `name` as having come or gone,
/// and the shortest of those modules (the public one the others re-export):
/// what a message that names no module (Python before 3.7: `cannot import
/// name 'X'`) most likely imported it from. `None` where no row lists it, or
/// rows of two distributions do. A name in every release read has no row.
pub fn only_module_listing(name: &str) -> Option<&'static str> {
    let mut distribution = "";
    let mut found: Option<(&'static str, &'static str)> = None;
    for line in TABLE.lines() {
        if let Some(header) = line.strip_prefix("@ ") {
            distribution = header.split(' ').next().unwrap_or_default();
            continue;
        }
        let Some((module, _)) = names_row_listing(line, None, name) else {
            continue;
        };
        found = match found {
            Some((_, earlier)) if earlier != distribution => return None,
            Some((shortest, _)) if shortest.len() <= module.len() => found,
            _ => Some((module, distribution)),
        };
    }
    found.map(|(module, _)| module)
}

/// The row `row` picks out of the block whose import roots hold `module`.
fn find<'t>(table: &'t str, module: &str, row: impl Fn(&'t str) -> Option<&'t str>) -> Option<Lineage> {
    let mut lines = table.lines();
    loop {
        let header = lines.by_ref().find(|line| line.starts_with("@ "))?;
        let mut fields = header[2..].split(' ');
        let distribution = fields.next()?;
        let roots = fields.next()?;
        let holds = roots
            .split(',')
            .any(|root| module == root || module.strip_prefix(root).is_some_and(|rest| rest.starts_with('.')));
        if !holds {
            continue;
        }
        let releases: Vec<Version> = fields.map(Version::from_str).collect::<Result<_, _>>().ok()?;
        let runs = lines.take_while(|line| !line.starts_with("@ ")).find_map(&row)?;
        return lineage(distribution, releases, runs);
    }
}

/// The lineage a row's `runs` give in its block, where they walk exactly
/// the block's releases.
fn lineage(distribution: &str, releases: Vec<Version>, runs: &str) -> Option<Lineage> {
    let marks = marks(runs)?;
    (marks.len() == releases.len()).then(|| Lineage {
        distribution: distribution.to_string(),
        releases,
        marks,
    })
}

/// `-12+30.2`: twelve releases lack it, thirty have it, two are not known.
fn marks(runs: &str) -> Option<Vec<Mark>> {
    let mut marks = Vec::new();
    let mut rest = runs;
    while let Some(first) = rest.chars().next() {
        let mark = match first {
            '+' => Mark::Present,
            '-' => Mark::Absent,
            '.' => Mark::Unknown,
            _ => return None,
        };
        rest = &rest[1..];
        let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let count: usize = rest[..end].parse().ok()?;
        marks.extend(std::iter::repeat_n(mark, count));
        rest = &rest[end..];
    }
    Some(marks)
}

impl Lineage {
    /// Whether `version` has it: the mark of that release where it was read,
    /// else of the two releases read around it where they agree. `None` where
    /// nothing read decides (between releases that differ, or past the newest).
    pub fn has_at(&self, version: &Version) -> Option<bool> {
        // A local tag (2.1.2+cu121) names a build of the release, not another release.
        let version = &version.clone().without_local();
        let known = |mark: Mark| match mark {
            Mark::Present => Some(true),
            Mark::Absent => Some(false),
            Mark::Unknown => None,
        };
        // A post-release is its release's code with packaging fixed: where
        // only 2.1.0.post1 was read, it stands for 2.1.0 too.
        let exact = self.releases.iter().position(|release| release == version);
        if let Some(same) = exact.or_else(|| self.releases.iter().position(|release| same_code(release, version))) {
            return known(self.marks[same]);
        }
        let after = self.releases.iter().position(|release| release >= version)?;
        let before = after.checked_sub(1)?;
        let (older, newer) = (known(self.marks[before])?, known(self.marks[after])?);
        (older == newer).then_some(older)
    }

    /// Whether `run` was taken away or added: taken away where a release read
    /// after it lacks it, even past releases not known between them.
    pub fn change(&self, run: &Run) -> Change {
        let lacked_later = self
            .releases
            .iter()
            .zip(&self.marks)
            .any(|(release, mark)| release > run.last && *mark == Mark::Absent);
        if lacked_later { Change::Removed } else { Change::Added }
    }

    /// The newest run of releases read that have it: its first and last,
    /// and the releases read just outside it that are known to lack it.
    pub fn newest_run(&self) -> Option<Run<'_>> {
        let last = self.marks.iter().rposition(|mark| *mark == Mark::Present)?;
        let first = self.marks[..last]
            .iter()
            .rposition(|mark| *mark != Mark::Present)
            .map_or(0, |index| index + 1);
        // The release before the run, where it is known to lack it: the run
        // may begin earlier where that release was not known.
        let lacked_before = first
            .checked_sub(1)
            .filter(|index| self.marks[*index] == Mark::Absent)
            .map(|index| &self.releases[index]);
        let after = self.marks.get(last + 1);
        let lacked_after = after
            .filter(|mark| **mark == Mark::Absent)
            .map(|_| &self.releases[last + 1]);
        let ends_unknown = after == Some(&Mark::Unknown);
        // Past the releases not known, the first read that lacks it.
        let lacked_later = ends_unknown
            .then(|| {
                self.marks[last + 1..]
                    .iter()
                    .position(|mark| *mark != Mark::Unknown)
                    .map(|offset| last + 1 + offset)
            })
            .flatten()
            .filter(|index| self.marks[*index] == Mark::Absent)
            .map(|index| {
                (
                    &self.releases[last + 1],
                    &self.releases[index - 1],
                    &self.releases[index],
                )
            });
        Some(Run {
            first: &self.releases[first],
            last: &self.releases[last],
            lacked_before,
            lacked_after,
            ends_unknown,
            lacked_later,
        })
    }
}

/// Whether the newest releases read all have it and those before its newest
/// run are at most a tenth of the releases read: a name that old, found
/// missing, says little about which release is installed.
pub fn nearly_always_there(lineage: &Lineage) -> bool {
    let Some(run) = lineage.newest_run() else {
        return false;
    };
    let before = lineage.releases.iter().filter(|release| *release < run.first).count();
    run.lacked_after.is_none() && !run.ends_unknown && before * 10 <= lineage.releases.len()
}

/// Whether two final releases differ at most in their post-release number.
fn same_code(read: &Version, version: &Version) -> bool {
    let is_final =
        |version: &Version| !version.any_prerelease() && version.dev().is_none() && version.local().is_empty();
    is_final(read) && is_final(version) && read.release() == version.release() && read.epoch() == version.epoch()
}

/// The newest releases read that have a name, between releases read that lack it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run<'l> {
    pub first: &'l Version,
    pub last: &'l Version,
    /// The release read just before `first`, where it lacks the name.
    pub lacked_before: Option<&'l Version>,
    /// The release read just after `last`, where it lacks the name: it was removed.
    pub lacked_after: Option<&'l Version>,
    /// Whether the release read just after `last` is not known (its names
    /// partly built at run time, or the module not read): the name may have
    /// been removed after `last`, so only releases up to `last` are sure to have it.
    pub ends_unknown: bool,
    /// Where `ends_unknown`: the first and last release not known, and the
    /// release read after them that lacks it, when one does.
    pub lacked_later: Option<(&'l Version, &'l Version, &'l Version)>,
}

impl Run<'_> {
    /// The requirement that installs a release with the name: from the run's
    /// first release on, and before the release that removed it (up to the
    /// run's last where what follows is not known).
    pub fn specifier(&self) -> String {
        match (self.lacked_after, self.ends_unknown) {
            (Some(removed), _) => format!(">={},<{}", self.first, self.removed_by(removed)),
            (None, true) => format!(">={},<={}", self.first, self.last),
            (None, false) => format!(">={}", self.first),
        }
    }

    /// Whether `version` lies in the run's span (the last release read on,
    /// where nothing read after the run lacks it).
    pub fn spans(&self, version: &Version) -> bool {
        let version = &version.clone().without_local();
        version >= self.first
            && match (self.lacked_after, self.ends_unknown) {
                (Some(removed), _) => *version < self.removed_by(removed),
                (None, true) => version <= self.last,
                (None, false) => true,
            }
    }

    /// The release that removed it: a post-release read stands for its
    /// release (2.1.0.post1 for 2.1.0), unless that release is in the run.
    fn removed_by(&self, removed: &Version) -> Version {
        let release = removed.only_release();
        if release > *self.last { release } else { removed.clone() }
    }

    /// "from 0.5.11 on (0.5.0 lacks it)", "from 1.2 to 1.8 (1.9 lacks it)",
    /// "from 1.0 to 1.8 (later releases not known)", "from 1.0 to 1.8 (1.9
    /// to 1.11 not known; 1.12 lacks it)".
    pub fn described(&self) -> String {
        self.described_as("lacks it", "lack it")
    }

    /// `described`, with what a release outside the run does in the words of
    /// its kind of row: a name it "lacks", a keyword it "refuses".
    pub fn described_as(&self, one_lacks: &str, two_lack: &str) -> String {
        let span = match (self.lacked_after, self.ends_unknown) {
            (None, false) => format!("from {} on", self.first),
            _ => format!("from {} to {}", self.first, self.last),
        };
        let lacking: Vec<String> = [self.lacked_before, self.lacked_after]
            .into_iter()
            .flatten()
            .map(ToString::to_string)
            .collect();
        let mut asides = match lacking.as_slice() {
            [] => Vec::new(),
            [one] => vec![format!("{one} {one_lacks}")],
            [older, newer] => vec![format!("{older} and {newer} {two_lack}")],
            _ => unreachable!("two releases at most"),
        };
        match (self.ends_unknown, self.lacked_later) {
            (true, Some((first, last, lacking))) if first == last => {
                asides.push(format!("{first} not known; {lacking} {one_lacks}"))
            }
            (true, Some((first, last, lacking))) => {
                asides.push(format!("{first} to {last} not known; {lacking} {one_lacks}"))
            }
            (true, None) => asides.push("later releases not known".to_string()),
            (false, _) => {}
        }
        match asides.is_empty() {
            true => span,
            false => format!("{span} ({})", asides.join("; ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
# comment
@ kornia kornia 0.5.0 0.5.11 0.6.0 0.6.12
m kornia.feature.loftr -2+2
n kornia.geometry -1+3 ImageRegistrator
n kornia +2-2 spatial_gradient total_variation
@ protobuf google.protobuf 3.0.0 4.21.0
n google.protobuf.internal -1+1 builder
";

    fn version(text: &str) -> Version {
        Version::from_str(text).unwrap()
    }

    fn name(module: &str, name: &str) -> Option<Lineage> {
        find(SAMPLE, module, |line| name_row(line, module, name))
    }

    #[test]
    fn a_row_is_found_in_the_block_of_the_distribution_whose_root_holds_the_module() {
        let lineage = name("kornia.geometry", "ImageRegistrator").unwrap();
        assert_eq!(lineage.distribution, "kornia");
        assert_eq!(
            lineage.marks,
            [Mark::Absent, Mark::Present, Mark::Present, Mark::Present]
        );
        assert_eq!(
            name("google.protobuf.internal", "builder").unwrap().distribution,
            "protobuf"
        );
        // A root is a whole dotted prefix: korniax is not kornia's.
        assert_eq!(name("korniax.geometry", "ImageRegistrator"), None);
        assert_eq!(name("kornia.geometry", "Unknown"), None);
    }

    const KEYWORDS: &str = "\
@ trl trl 0.1.0 0.4.7 0.13.0
k trl.trainer.sft_trainer SFTTrainer.__init__ .1+1-1 max_seq_length packing
@ transformers transformers 4.0.0 4.1.1
k transformers.trainer Trainer.__init__ +1-1 tokenizer
@ other other 1.0.0 2.0.0
k other.trainer Trainer.__init__ -1+1 tokenizer
";

    #[test]
    fn a_keyword_row_is_found_by_its_callable_in_every_distribution_that_dates_it() {
        let found = keyword_in(KEYWORDS, "SFTTrainer.__init__", "packing");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].module, "trl.trainer.sft_trainer");
        assert_eq!(found[0].lineage.distribution, "trl");
        assert_eq!(found[0].lineage.marks, [Mark::Unknown, Mark::Present, Mark::Absent]);
        let two = keyword_in(KEYWORDS, "Trainer.__init__", "tokenizer");
        assert_eq!(
            two.iter()
                .map(|row| row.lineage.distribution.as_str())
                .collect::<Vec<_>>(),
            ["transformers", "other"]
        );
        // The callable is matched whole: Trainer is not SFTTrainer.
        assert!(keyword_in(KEYWORDS, "Trainer.__init__", "packing").is_empty());
        assert!(keyword_in(KEYWORDS, "SFTTrainer.__init__", "tokenizer").is_empty());
    }

    #[test]
    fn a_version_between_two_releases_read_is_decided_only_where_they_agree() {
        let lineage = name("kornia.geometry", "ImageRegistrator").unwrap();
        assert_eq!(lineage.has_at(&version("0.5.0")), Some(false));
        assert_eq!(lineage.has_at(&version("0.6.3")), Some(true));
        // 0.5.10 lies between 0.5.0 (without) and 0.5.11 (with).
        assert_eq!(lineage.has_at(&version("0.5.10")), None);
        // Past the newest release read, nothing was read.
        assert_eq!(lineage.has_at(&version("0.7.0")), None);
    }

    #[test]
    fn the_newest_run_gives_the_releases_to_install() {
        let added = name("kornia.geometry", "ImageRegistrator").unwrap();
        let run = added.newest_run().unwrap();
        assert_eq!(run.specifier(), ">=0.5.11");
        assert_eq!(run.described(), "from 0.5.11 on (0.5.0 lacks it)");
        let removed = name("kornia", "total_variation").unwrap();
        let run = removed.newest_run().unwrap();
        assert_eq!(run.specifier(), ">=0.5.0,<0.6.0");
        assert_eq!(run.described(), "from 0.5.0 to 0.5.11 (0.6.0 lacks it)");
    }

    #[test]
    fn a_name_only_the_oldest_releases_lack_is_nearly_always_there() {
        let table = "@ triton triton 0.4.2 1.0.0 1.1.1 2.0.0 2.1.0 2.2.0 2.3.0 2.3.1 3.0.0 3.1.0\nn triton -1+9 jit\nn triton -5+5 language_new\n";
        let triton = |name: &str| find(table, "triton", |line| name_row(line, "triton", name)).unwrap();
        assert!(nearly_always_there(&triton("jit")));
        assert!(!nearly_always_there(&triton("language_new")));
        let added = name("kornia.geometry", "ImageRegistrator").unwrap();
        assert!(
            !nearly_always_there(&added),
            "three of four releases is not nine tenths"
        );
        let removed = name("kornia", "total_variation").unwrap();
        assert!(!nearly_always_there(&removed));
    }

    #[test]
    fn a_local_tag_names_a_build_of_the_release_read() {
        let table = "@ torch torch 2.0.0 2.1.2 2.3.0\nn torch +2-1 gone\nn torch .1+1.1 open\n";
        let gone = find(table, "torch", |line| name_row(line, "torch", "gone")).unwrap();
        assert_eq!(gone.has_at(&version("2.1.2+cu121")), Some(true));
        assert_eq!(gone.has_at(&version("2.3.0+cpu")), Some(false));
        let open = find(table, "torch", |line| name_row(line, "torch", "open")).unwrap();
        let run = open.newest_run().unwrap();
        assert!(run.spans(&version("2.1.2+cu121")), "{run:?}");
        assert_eq!(run.described(), "from 2.1.2 to 2.1.2 (later releases not known)");
    }

    #[test]
    fn a_post_release_read_stands_for_its_release() {
        let table = "@ torch-geometric torch_geometric 2.0.4 2.1.0.post1 2.2.0\nm torch_geometric.nn.acts +1-2\n";
        let lineage = find(table, "torch_geometric.nn.acts", |line| {
            line.strip_prefix("m torch_geometric.nn.acts ")
        })
        .unwrap();
        assert_eq!(lineage.has_at(&version("2.1.0")), Some(false));
        let run = lineage.newest_run().unwrap();
        assert_eq!(run.specifier(), ">=2.0.4,<2.1.0");
        assert!(!run.spans(&version("2.1.0")));
    }

    #[test]
    fn a_run_followed_by_releases_not_known_installs_only_up_to_its_last() {
        let table = "@ torch torch 1.0.0 1.13.1 2.0.0 2.5.0\nn torch .1+2.1 cpp_name\nn torch .2+2 compile\n";
        let open = find(table, "torch", |line| name_row(line, "torch", "cpp_name")).unwrap();
        let run = open.newest_run().unwrap();
        assert_eq!(run.specifier(), ">=1.13.1,<=2.0.0");
        assert_eq!(run.described(), "from 1.13.1 to 2.0.0 (later releases not known)");
        assert!(run.spans(&version("1.13.1")) && !run.spans(&version("2.5.0")));
        // Releases not known, then one that lacks it: the wording says both,
        // and only the run is sure to have it.
        let trl = "@ trl trl 0.4.7 0.12.2 0.13.0 0.15.2 0.16.0\nk trl.t SFTTrainer.__init__ +2.2-1 max_seq_length\nn trl.t +1.1-3 one_unknown\n";
        let gap = find(trl, "trl.t", |line| {
            line.strip_prefix("k trl.t SFTTrainer.__init__ ")?.split(' ').next()
        })
        .unwrap();
        let run = gap.newest_run().unwrap();
        assert_eq!(
            run.described_as("refuses it", "refuse it"),
            "from 0.4.7 to 0.12.2 (0.13.0 to 0.15.2 not known; 0.16.0 refuses it)"
        );
        assert_eq!(run.specifier(), ">=0.4.7,<=0.12.2");
        let one = find(trl, "trl.t", |line| name_row(line, "trl.t", "one_unknown")).unwrap();
        assert_eq!(
            one.newest_run().unwrap().described(),
            "from 0.4.7 to 0.4.7 (0.12.2 not known; 0.13.0 lacks it)"
        );
        let added = find(table, "torch", |line| name_row(line, "torch", "compile")).unwrap();
        let run = added.newest_run().unwrap();
        assert_eq!(run.specifier(), ">=2.0.0");
        assert_eq!(run.described(), "from 2.0.0 on");
        assert!(!run.spans(&version("1.13.1")) && run.spans(&version("2.9.0")));
        // Before the run nothing was known to lack it: whether 1.13.1 has it is not known.
        assert_eq!(added.has_at(&version("1.13.1")), None);
    }

    /// Each row of a table, after its kind: its fields and the marks of its
    /// runs, which must walk exactly the releases of its block (every
    /// block's releases parse). How many rows there were.
    fn walk(table: &str, runs_at: usize, mut row: impl FnMut(&str, &[&str], &[Mark])) -> usize {
        let mut releases = 0;
        let mut rows = 0;
        for line in table.lines().filter(|line| !line.starts_with('#')) {
            let mut fields = line.split(' ');
            let kind = fields.next().unwrap_or_default();
            let fields: Vec<&str> = fields.collect();
            if kind == "@" {
                assert!(fields[2..].iter().all(|text| Version::from_str(text).is_ok()), "{line}");
                releases = fields.len() - 2;
                continue;
            }
            let runs = fields.get(runs_at).unwrap_or_else(|| panic!("{line}"));
            let marks = marks(runs).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(marks.len(), releases, "{line}");
            row(kind, &fields, &marks);
            rows += 1;
        }
        rows
    }

    /// A regenerated table that a reader would misread fails here.
    #[test]
    fn every_row_of_the_compiled_in_table_walks_its_releases() {
        let rows = walk(TABLE, 1, |kind, fields, marks| {
            assert!(matches!(kind, "m" | "n"), "not a row: {kind} {fields:?}");
            assert!(
                marks.iter().any(|mark| *mark != Mark::Present),
                "a row every release has: {fields:?}"
            );
            assert!(kind == "m" || fields.len() > 2, "a row without names: {fields:?}");
        });
        assert!(rows > 10_000, "{rows}");
    }

    #[test]
    fn every_keyword_row_walks_its_releases_and_both_takes_and_refuses() {
        let rows = walk(KEYWORD_TABLE, 2, |kind, fields, marks| {
            assert_eq!(kind, "k", "not a row: {fields:?}");
            assert!(
                marks.contains(&Mark::Present) && marks.contains(&Mark::Absent),
                "a row that does not date its keywords: {fields:?}"
            );
            assert!(fields.len() > 3, "a row without keywords: {fields:?}");
        });
        assert!(rows > 500, "{rows}");
    }

    #[test]
    fn the_compiled_in_table_reads() {
        let lineage = of_module("dgl.batched_graph").expect("dgl.batched_graph is in the table");
        assert_eq!(lineage.distribution, "dgl");
        let run = lineage.newest_run().unwrap();
        assert!(run.lacked_after.is_some(), "{run:?}");
    }
}
