//! Reads one knowledge file (a rule, a symptom entry, a table) with toml_edit,
//! whose items keep their byte spans, and collects every problem in it, not
//! just the first, as a [`Located`] at the span it concerns: what `matrix
//! lint` prints, one `path:line:column: problem` line each, in file order.
//!
//! Two vocabularies share it. Rule and symptom files name a key (`` `title`
//! must be a string ``); table files are arrays of tables and name a row
//! (`` [[gpu]] lacks `name` ``), through [`Row`].

use std::fmt::Debug;
use std::ops::Range;
use std::path::Path;

use toml_edit::{Document, Item, Table, TableLike};

use crate::calendar::Date;
use crate::located::Located;

/// The problems found so far in one file.
pub struct Reader<'t> {
    path: &'t Path,
    text: &'t str,
    problems: Vec<Located>,
}

impl<'t> Reader<'t> {
    /// A reader of `text`, the contents of `path`.
    pub fn new(path: &'t Path, text: &'t str) -> Reader<'t> {
        Reader {
            path,
            text,
            problems: Vec::new(),
        }
    }

    /// A problem at the start of `span`; at the start of the file where no
    /// narrower place is known.
    pub fn problem(&mut self, span: Option<Range<usize>>, problem: impl Into<String>) {
        let offset = floor_char_boundary(self.text, span.map_or(0, |span| span.start));
        self.problems
            .push(Located::at_offset(self.path, self.text, offset, problem));
    }

    /// The file as a TOML document; `None`, with the problem `{heading}: why`
    /// where toml_edit stopped, when it is not one.
    pub fn document(&mut self, heading: &str) -> Option<Document<&'t str>> {
        match Document::parse(self.text) {
            Ok(document) => Some(document),
            Err(error) => {
                self.problem(error.span(), format!("{heading}: {}", error.message().trim()));
                None
            }
        }
    }

    /// Every problem, in file order, so the first one reported is the first
    /// one a reader of the file meets.
    pub fn into_problems(mut self) -> Vec<Located> {
        self.problems.sort_by_key(|problem| (problem.line, problem.column));
        self.problems
    }

    /// `Err` with every problem, where the file has any.
    pub fn finish(self) -> Result<(), Vec<Located>> {
        let problems = self.into_problems();
        match problems.is_empty() {
            true => Ok(()),
            false => Err(problems),
        }
    }

    // -----------------------------------------------------------------------
    // Keys of a rule or symptom entry: problems name the key.

    /// Reports keys the format does not have, at the key: a typo must not
    /// silently turn a condition off.
    pub fn unknown_keys(&mut self, table: &dyn TableLike, allowed: &[&str], context: &str) {
        self.unknown(table, allowed, key_span, |key| {
            format!(
                "unknown key `{key}` in {context} (expected one of: {})",
                allowed.join(", ")
            )
        });
    }

    /// A string that is not blank.
    pub fn string(&mut self, item: &Item, key: &str) -> Option<String> {
        match item.as_str() {
            Some(text) if !text.trim().is_empty() => Some(text.to_string()),
            Some(_) => {
                self.problem(item.span(), format!("`{key}` is empty"));
                None
            }
            None => {
                self.problem(item.span(), format!("`{key}` must be a string"));
                None
            }
        }
    }

    pub fn required_string(&mut self, table: &dyn TableLike, key: &str) -> Option<String> {
        match table.get(key) {
            Some(item) => self.string(item, key),
            None => {
                self.problem(None, format!("missing required key `{key}`"));
                None
            }
        }
    }

    /// A string or a non-empty array of strings, as a list.
    pub fn strings(&mut self, item: &Item, key: &str) -> Vec<String> {
        if let Some(text) = item.as_str() {
            return vec![text.to_string()];
        }
        let Some(array) = item.as_array() else {
            self.problem(item.span(), format!("`{key}` must be a string or an array of strings"));
            return Vec::new();
        };
        let mut strings = Vec::new();
        for value in array.iter() {
            match value.as_str() {
                Some(text) => strings.push(text.to_string()),
                None => self.problem(value.span(), format!("`{key}` must contain only strings")),
            }
        }
        if strings.is_empty() {
            self.problem(item.span(), format!("`{key}` is empty"));
        }
        strings
    }

    /// A sub-table, written `[key]` or inline.
    pub fn table<'i>(&mut self, item: &'i Item, key: &str) -> Option<&'i dyn TableLike> {
        let table = item.as_table_like();
        if table.is_none() {
            self.problem(item.span(), format!("`{key}` must be a table"));
        }
        table
    }

    pub fn boolean(&mut self, item: &Item, key: &str) -> Option<bool> {
        let value = item.as_bool();
        if value.is_none() {
            self.problem(item.span(), format!("`{key}` must be true or false"));
        }
        value
    }

    /// A day written `"YYYY-MM-DD"`.
    pub fn date(&mut self, item: &Item, key: &str) -> Option<Date> {
        let text = self.string(item, key)?;
        let date = Date::parse(&text);
        if date.is_none() {
            self.problem(
                item.span(),
                format!("`{key}` = `{text}` is not a date such as \"2026-11-26\""),
            );
        }
        date
    }

    // -----------------------------------------------------------------------
    // A table file: arrays of tables (`[[kind]]` rows); problems name the row.

    /// Reports top-level keys other than the kinds of row the file holds.
    pub fn only_kinds(&mut self, root: &Table, kinds: &[&str]) {
        let holds = kinds
            .iter()
            .map(|kind| format!("[[{kind}]]"))
            .collect::<Vec<_>>()
            .join(", ");
        self.unknown(root, kinds, value_span, |key| {
            format!("unknown key `{key}`; this file holds {holds}")
        });
    }

    /// The `[[kind]]` rows of a table file.
    pub fn rows<'d>(&mut self, root: &'d Table, kind: &str) -> Vec<&'d Table> {
        if root.get(kind).is_none() {
            self.problem(None, format!("has no [[{kind}]] rows"));
            return Vec::new();
        }
        self.optional_rows(root, kind)
    }

    /// The `[[kind]]` rows of a table file that may have none: a kind added
    /// after site tables were written, which still load without it.
    pub fn optional_rows<'d>(&mut self, root: &'d Table, kind: &str) -> Vec<&'d Table> {
        match root.get(kind) {
            None => Vec::new(),
            Some(item) => match item.as_array_of_tables() {
                Some(rows) => rows.iter().collect(),
                None => {
                    self.problem(
                        value_span(root, kind),
                        format!("`{kind}` must be written as [[{kind}]] rows"),
                    );
                    Vec::new()
                }
            },
        }
    }

    /// One `[[kind]]` row whose fields are `fields`; any other is reported here.
    pub fn row<'d, 'r>(&'r mut self, table: &'d Table, kind: &'static str, fields: &[&str]) -> Row<'d, 'r, 't> {
        self.unknown(table, fields, value_span, |key| {
            format!("[[{kind}]] has no field `{key}`; its fields are {}", fields.join(", "))
        });
        Row {
            reader: self,
            table,
            kind,
        }
    }

    /// Reports every row whose key (`rows`, in file order, each with its row's
    /// span) repeats the one before it or comes before it.
    pub fn check_order<K: Ord + Debug>(&mut self, rows: &[(K, Option<Range<usize>>)], kind: &str, what: &str) {
        for pair in rows.windows(2) {
            let ((previous, _), (key, span)) = (&pair[0], &pair[1]);
            if key == previous {
                self.problem(span.clone(), format!("[[{kind}]] repeats {what} {key:?}"));
            } else if key < previous {
                self.problem(
                    span.clone(),
                    format!("[[{kind}]] rows are sorted by {what}: {key:?} comes before {previous:?}"),
                );
            }
        }
    }

    fn unknown(
        &mut self,
        table: &dyn TableLike,
        allowed: &[&str],
        place: fn(&dyn TableLike, &str) -> Option<Range<usize>>,
        problem: impl Fn(&str) -> String,
    ) {
        for (key, _) in table.iter() {
            if !allowed.contains(&key) {
                self.problem(place(table, key), problem(key));
            }
        }
    }
}

/// The fields of one `[[kind]]` row, each problem placed at its value (the
/// row, for a field it lacks).
pub struct Row<'d, 'r, 't> {
    reader: &'r mut Reader<'t>,
    table: &'d Table,
    kind: &'static str,
}

impl<'d> Row<'d, '_, '_> {
    /// Where the row starts: where its key order and cross-row problems are placed.
    pub fn span(&self) -> Option<Range<usize>> {
        self.table.span()
    }

    pub fn missing(&mut self, key: &str, what: &str) {
        let problem = format!("[[{}]] lacks `{key}` ({what})", self.kind);
        let span = self.span();
        self.reader.problem(span, problem);
    }

    /// A problem with the value of `key`.
    pub fn wrong(&mut self, key: &str, problem: String) {
        let span = value_span(self.table, key).or_else(|| self.span());
        self.reader.problem(span, format!("`{key}`: {problem}"));
    }

    /// A required field read by `convert`; a problem names `expected` where it does not convert.
    fn required<T>(
        &mut self,
        key: &str,
        what: &str,
        expected: &str,
        convert: impl FnOnce(&'d Item) -> Option<T>,
    ) -> Option<T> {
        let Some(item) = self.table.get(key) else {
            self.missing(key, what);
            return None;
        };
        let value = convert(item);
        if value.is_none() {
            self.wrong(key, format!("expected {expected} ({what})"));
        }
        value
    }

    pub fn string(&mut self, key: &str, what: &str) -> Option<&'d str> {
        self.required(key, what, "a string", Item::as_str)
    }

    pub fn optional_string(&mut self, key: &str, what: &str) -> Option<&'d str> {
        self.table.get(key)?;
        self.string(key, what)
    }

    pub fn integer(&mut self, key: &str, what: &str) -> Option<u64> {
        self.required(key, what, "a non-negative integer", |item| {
            item.as_integer().and_then(|number| u64::try_from(number).ok())
        })
    }

    pub fn boolean(&mut self, key: &str, what: &str) -> Option<bool> {
        self.required(key, what, "true or false", Item::as_bool)
    }

    /// An array of strings; `None` where it is absent (a problem if `required`) or mistyped.
    pub fn strings(&mut self, key: &str, what: &str, required: bool) -> Option<Vec<&'d str>> {
        let Some(item) = self.table.get(key) else {
            if required {
                self.missing(key, what);
            }
            return None;
        };
        let strings = item
            .as_array()
            .and_then(|array| array.iter().map(|value| value.as_str()).collect::<Option<Vec<_>>>());
        if strings.is_none() {
            self.wrong(key, format!("expected an array of strings ({what})"));
        }
        strings
    }
}

/// The span of a key's name.
fn key_span(table: &dyn TableLike, key: &str) -> Option<Range<usize>> {
    table.get_key_value(key).and_then(|(key, _)| key.span())
}

/// The span of a key's value, else of its name.
pub fn value_span(table: &dyn TableLike, key: &str) -> Option<Range<usize>> {
    table.get(key).and_then(Item::span).or_else(|| key_span(table, key))
}

/// `offset`, moved back to the start of the character it falls in: a span from
/// a hostile file must place its problem, never panic.
fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::Reader;
    use std::path::Path;

    /// A small format of one table `[part]` with a string `name`, a boolean
    /// `fits` and a day `made`, read with the key vocabulary.
    fn read_part(text: &str) -> Vec<String> {
        let path = Path::new("parts/p.toml");
        let mut reader = Reader::new(path, text);
        if let Some(document) = reader.document("not TOML") {
            let root = document.as_table();
            reader.unknown_keys(root, &["part"], "a part file");
            if let Some(part) = root.get("part").and_then(|item| reader.table(item, "part")) {
                reader.unknown_keys(part, &["name", "fits", "made"], "[part]");
                reader.required_string(part, "name");
                if let Some(item) = part.get("fits") {
                    reader.boolean(item, "fits");
                }
                if let Some(item) = part.get("made") {
                    reader.date(item, "made");
                }
            }
        }
        reader.into_problems().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_missing_field_is_reported_at_the_start_of_the_file() {
        assert_eq!(
            read_part("[part]\nfits = true\n"),
            ["parts/p.toml:1:1: missing required key `name`"]
        );
    }

    #[test]
    fn a_mistyped_field_is_reported_at_its_value() {
        assert_eq!(
            read_part("[part]\nname = \"bolt\"\nfits = \"yes\"\n"),
            ["parts/p.toml:3:8: `fits` must be true or false"]
        );
    }

    #[test]
    fn an_unknown_key_is_reported_at_the_key() {
        assert_eq!(
            read_part("[part]\nname = \"bolt\"\n  colour = 1\n"),
            ["parts/p.toml:3:3: unknown key `colour` in [part] (expected one of: name, fits, made)"]
        );
    }

    #[test]
    fn every_problem_of_a_file_is_reported_in_file_order() {
        let text = "[part]\nmade = \"2026-02-30\"\nfits = 1\nextra = 2\n";
        assert_eq!(
            read_part(text),
            [
                "parts/p.toml:1:1: missing required key `name`",
                "parts/p.toml:2:8: `made` = `2026-02-30` is not a date such as \"2026-11-26\"",
                "parts/p.toml:3:8: `fits` must be true or false",
                "parts/p.toml:4:1: unknown key `extra` in [part] (expected one of: name, fits, made)",
            ]
        );
    }

    #[test]
    fn a_file_that_is_not_toml_is_one_problem_where_parsing_stopped() {
        let problems = read_part("[part]\nname = \"bolt\"\nfits = \n");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("parts/p.toml:3:8: not TOML: "), "{problems:?}");
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // `fits` is the 31st character of its line and its 33rd byte.
        assert_eq!(
            read_part("part = { name = \"ünï\", fits = 2 }\n"),
            ["parts/p.toml:1:31: `fits` must be true or false"]
        );
    }

    #[test]
    fn rows_name_their_kind_and_fields() {
        let text = "[[gpu]]\nname = \"H100\"\nsize = 80\n\n[[gpu]]\nname = 7\n\n[[gpu]]\nname = \"A100\"\n";
        let path = Path::new("tables/gpus.toml");
        let mut reader = Reader::new(path, text);
        let document = reader.document("not valid TOML").unwrap();
        let root = document.as_table();
        reader.only_kinds(root, &["gpu"]);
        let mut order = Vec::new();
        for table in reader.rows(root, "gpu") {
            let mut row = reader.row(table, "gpu", &["name"]);
            if let Some(name) = row.string("name", "the model") {
                order.push((name.to_string(), row.span()));
            }
        }
        reader.check_order(&order, "gpu", "name");
        let problems: Vec<String> = reader.into_problems().iter().map(ToString::to_string).collect();
        assert_eq!(
            problems,
            [
                "tables/gpus.toml:3:8: [[gpu]] has no field `size`; its fields are name",
                "tables/gpus.toml:6:8: `name`: expected a string (the model)",
                "tables/gpus.toml:8:1: [[gpu]] rows are sorted by name: \"A100\" comes before \"H100\"",
            ]
        );
    }
}
