//! A simple-repository project page as the list of files it offers: PEP 691
//! JSON or PEP 503 HTML, chosen by the response's Content-Type as pip chooses
//! (`src/pip/_internal/index/collector.py`).
//!
//! Links are resolved against the page's final URL (after redirects), or its
//! `<base href>`; a `#sha256=...` fragment is the file's hash and is removed
//! from the URL, and so are credentials, since the URL ends up in lock files.
//!
//! Why no HTML crate: pip reads these pages with Python's standard
//! `HTMLParser`, keeping the first `<base href>` and every `<a>`'s attributes
//! (`HTMLLinkParser` in `collector.py`); this reader scans start tags the same
//! way, where an HTML5 tree builder (html5ever) would build a whole document
//! for two tags, and could disagree with pip on a malformed page.

use std::collections::BTreeMap;

use reqwest::Url;
use serde::{Deserialize, Serialize};

use super::urls::{percent_decode, strip_credentials};

/// The `Accept` header pip sends: JSON preferred, HTML accepted.
pub const ACCEPT: &str =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01";

/// Hash names pip recognizes in a link's fragment (`Link._hash_url_fragment_re`).
const HASH_NAMES: [&str; 6] = ["sha1", "sha224", "sha384", "sha256", "sha512", "md5"];

/// One file a project page lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexFile {
    pub filename: String,
    pub url: String,
    /// Algorithm to lower-case hex digest.
    pub hashes: BTreeMap<String, String>,
    pub requires_python: Option<String>,
    /// The reason, empty when none is given; `None` when not yanked.
    pub yanked: Option<String>,
    pub size: Option<u64>,
    pub upload_time: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Html,
}

/// The page format a Content-Type announces; `None` for anything pip would
/// refuse as not an index page.
pub fn format_of(content_type: &str) -> Option<Format> {
    let media_type = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match media_type.as_str() {
        "application/vnd.pypi.simple.v1+json" => Some(Format::Json),
        "application/vnd.pypi.simple.v1+html" | "text/html" => Some(Format::Html),
        _ => None,
    }
}

/// Every file a page lists.
pub fn parse(format: Format, body: &str, page_url: &Url) -> Result<Vec<IndexFile>, String> {
    parse_where(format, body, page_url, &|_| true)
}

/// The files a page lists whose file name `keep` accepts. The others are read
/// one at a time and dropped, so a page of hundreds of thousands of files (a
/// project published nightly) costs about its own size and what is kept, not
/// ten times its size (issue 32, E5).
pub fn parse_where(
    format: Format,
    body: &str,
    page_url: &Url,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<IndexFile>, String> {
    match format {
        Format::Json => parse_json(body, page_url, keep),
        Format::Html => Ok(parse_html(body, page_url, keep)),
    }
}

/// A PEP 691 page: its `meta`, and of its `files` those a filter keeps.
struct JsonPage {
    meta: JsonMeta,
    files: Vec<JsonFile>,
}

/// Reads a [`JsonPage`], keeping the files whose name `0` accepts.
struct PageSeed<'k>(&'k dyn Fn(&str) -> bool);

impl<'de> serde::de::DeserializeSeed<'de> for PageSeed<'_> {
    type Value = JsonPage;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<JsonPage, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for PageSeed<'_> {
    type Value = JsonPage;
    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a PEP 691 project page (an object with `files`)")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<JsonPage, A::Error> {
        let (mut meta, mut files) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "meta" => meta = Some(map.next_value::<JsonMeta>()?),
                "files" => files = Some(map.next_value_seed(FilesSeed(self.0))?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(JsonPage {
            meta: meta.unwrap_or_default(),
            files: files.ok_or_else(|| serde::de::Error::missing_field("files"))?,
        })
    }
}

/// Reads `files`, one at a time, keeping those whose name `0` accepts.
struct FilesSeed<'k>(&'k dyn Fn(&str) -> bool);

impl<'de> serde::de::DeserializeSeed<'de> for FilesSeed<'_> {
    type Value = Vec<JsonFile>;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Vec<JsonFile>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FilesSeed<'_> {
    type Value = Vec<JsonFile>;
    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a list of files")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut files: A) -> Result<Vec<JsonFile>, A::Error> {
        let mut kept = Vec::new();
        while let Some(file) = files.next_element::<JsonFile>()? {
            if (self.0)(&file.filename) {
                kept.push(file);
            }
        }
        Ok(kept)
    }
}

#[derive(Deserialize, Default)]
struct JsonMeta {
    #[serde(rename = "api-version")]
    api_version: Option<String>,
}

#[derive(Deserialize)]
struct JsonFile {
    filename: String,
    url: String,
    #[serde(default)]
    hashes: BTreeMap<String, String>,
    #[serde(rename = "requires-python")]
    requires_python: Option<String>,
    #[serde(default)]
    yanked: serde_json::Value,
    size: Option<u64>,
    #[serde(rename = "upload-time")]
    upload_time: Option<String>,
}

fn parse_json(body: &str, page_url: &Url, keep: &dyn Fn(&str) -> bool) -> Result<Vec<IndexFile>, String> {
    use serde::de::DeserializeSeed;
    let not_a_page = |error: serde_json::Error| format!("not a PEP 691 page: {error}");
    let mut deserializer = serde_json::Deserializer::from_str(body);
    let page = PageSeed(keep).deserialize(&mut deserializer).map_err(not_a_page)?;
    deserializer.end().map_err(not_a_page)?;
    // PEP 691: a client must refuse a major version it does not know.
    if let Some(version) = &page.meta.api_version
        && version.split('.').next() != Some("1")
    {
        return Err(format!("api-version {version} is not 1.x"));
    }
    page.files
        .into_iter()
        .map(|file| {
            let mut link = resolve_link(page_url, &file.url)
                .ok_or_else(|| format!("file `{}` has an invalid url `{}`", file.filename, file.url))?;
            link.hashes.extend(lowercase(file.hashes));
            let yanked = match file.yanked {
                serde_json::Value::Bool(true) => Some(String::new()),
                serde_json::Value::String(reason) => Some(reason),
                _ => None,
            };
            Ok(IndexFile {
                filename: file.filename,
                url: link.url,
                hashes: link.hashes,
                requires_python: file.requires_python,
                yanked,
                size: file.size,
                upload_time: file.upload_time,
            })
        })
        .collect()
}

/// Every anchor with an `href`. An anchor whose href cannot be resolved is
/// skipped, as pip skips it.
///
/// The tags are scanned twice, first for the `<base>`, and each is dropped
/// once read: only the anchors `keep` accepts are held.
fn parse_html(body: &str, page_url: &Url, keep: &dyn Fn(&str) -> bool) -> Vec<IndexFile> {
    let base = StartTags(body)
        .find(|tag| tag.name == "base")
        .and_then(|tag| tag.attribute("href").and_then(|href| page_url.join(href).ok()))
        .unwrap_or_else(|| page_url.clone());
    StartTags(body)
        .filter(|tag| tag.name == "a")
        .filter_map(|tag| {
            let link = resolve_link(&base, tag.attribute("href")?)?;
            let filename = Some(link.filename)
                .filter(|name| !name.is_empty())
                .unwrap_or_else(|| tag.text.trim().to_string());
            if !keep(&filename) {
                return None;
            }
            Some(IndexFile {
                filename,
                url: link.url,
                hashes: link.hashes,
                requires_python: tag.attribute("data-requires-python").map(str::to_string),
                yanked: tag.attribute("data-yanked").map(str::to_string),
                size: None,
                upload_time: None,
            })
        })
        .collect()
}

struct Link {
    url: String,
    filename: String,
    hashes: BTreeMap<String, String>,
}

fn resolve_link(base: &Url, href: &str) -> Option<Link> {
    let mut url = base.join(href.trim()).ok()?;
    let hashes = url
        .fragment()
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, _)| HASH_NAMES.contains(name))
        .map(|(name, digest)| (name.to_string(), digest.to_ascii_lowercase()))
        .filter(|(name, digest)| well_formed(name, digest))
        .collect();
    url.set_fragment(None);
    let filename = url
        .path_segments()
        .and_then(|mut segments| segments.next_back())
        .map(percent_decode)
        .unwrap_or_default();
    Some(Link {
        url: strip_credentials(url.as_str()),
        filename,
        hashes,
    })
}

fn lowercase(hashes: BTreeMap<String, String>) -> impl Iterator<Item = (String, String)> {
    hashes
        .into_iter()
        .map(|(name, digest)| (name.to_ascii_lowercase(), digest.to_ascii_lowercase()))
        .filter(|(name, digest)| well_formed(name, digest))
}

/// Whether `digest` can be what `name` produces: lower-case hex of the
/// algorithm's length. An index page is a stranger's text and its hashes end
/// up in `--hash=` lines of a requirements file: an empty, non-hex or
/// overlong value (or one holding a newline) is dropped, as if none were given.
pub(super) fn well_formed(name: &str, digest: &str) -> bool {
    let hex_length = match name {
        "md5" => Some(32),
        "sha1" => Some(40),
        "sha224" => Some(56),
        "sha256" | "blake2b_256" | "sha3_256" => Some(64),
        "sha384" => Some(96),
        "sha512" => Some(128),
        _ => None,
    };
    !digest.is_empty()
        && digest.len() <= 128
        && hex_length.is_none_or(|length| digest.len() == length)
        && digest
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// An HTML start tag: its lower-case name, attributes with entities decoded,
/// and for `<a>` the text up to `</a>`.
struct StartTag {
    name: String,
    attributes: Vec<(String, Option<String>)>,
    text: String,
}

impl StartTag {
    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_deref().unwrap_or_default())
    }
}

/// The `<a>` and `<base>` tags of a page (the rest of it), one at a time. A
/// forgiving scanner, not a full HTML parser: simple-repository pages are
/// flat lists of anchors, and comments are the only other construct that
/// could hide a `<`.
struct StartTags<'a>(&'a str);

impl Iterator for StartTags<'_> {
    type Item = StartTag;

    fn next(&mut self) -> Option<StartTag> {
        let mut rest = self.0;
        while let Some(open) = rest.find('<') {
            rest = &rest[open + 1..];
            if let Some(comment) = rest.strip_prefix("!--") {
                rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
                continue;
            }
            let name_end = rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len());
            let name = rest[..name_end].to_ascii_lowercase();
            if name != "a" && name != "base" {
                continue;
            }
            let (attributes, after) = read_attributes(&rest[name_end..]);
            rest = after;
            let mut text = String::new();
            if name == "a" {
                let end = crate::ascii_case::find(rest, "</a").unwrap_or(rest.len());
                text = decode_entities(&rest[..end]);
                rest = &rest[end..];
            }
            self.0 = rest;
            return Some(StartTag { name, attributes, text });
        }
        self.0 = "";
        None
    }
}

/// Attributes up to the closing `>`, and what follows it.
fn read_attributes(mut rest: &str) -> (Vec<(String, Option<String>)>, &str) {
    let mut attributes = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            return (attributes, rest);
        }
        if let Some(after) = rest.strip_prefix('>') {
            return (attributes, after);
        }
        let name_end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '=' | '>' | '/'))
            .unwrap_or(rest.len())
            .max(1);
        let name = rest[..name_end].to_ascii_lowercase();
        rest = rest[name_end..].trim_start();
        let Some(value_start) = rest.strip_prefix('=') else {
            attributes.push((name, None));
            continue;
        };
        let value_start = value_start.trim_start();
        let (raw, after) = match value_start.chars().next() {
            Some(quote @ ('"' | '\'')) => {
                let inner = &value_start[1..];
                let end = inner.find(quote).unwrap_or(inner.len());
                (&inner[..end], inner.get(end + 1..).unwrap_or(""))
            }
            _ => {
                let end = value_start
                    .find(|c: char| c.is_whitespace() || c == '>')
                    .unwrap_or(value_start.len());
                (&value_start[..end], &value_start[end..])
            }
        };
        attributes.push((name, Some(decode_entities(raw))));
        rest = after;
    }
}

/// The character references index pages use: the named ones HTML escaping
/// produces and numeric ones. Anything else is kept as written.
fn decode_entities(text: &str) -> String {
    let mut decoded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        decoded.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let reference = rest[1..].find(';').map(|end| &rest[1..end + 1]);
        let character = reference.and_then(|reference| match reference {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => {
                let number = reference.strip_prefix('#')?;
                let code = match number.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => number.parse().ok()?,
                };
                char::from_u32(code)
            }
        });
        match (character, reference) {
            (Some(character), Some(reference)) => {
                decoded.push(character);
                rest = &rest[reference.len() + 2..];
            }
            _ => {
                decoded.push('&');
                rest = &rest[1..];
            }
        }
    }
    decoded.push_str(rest);
    decoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Url {
        Url::parse("https://index.example/simple/demo-pkg/").unwrap()
    }

    const HASH: &str = "4e3b7bd7e6a0e1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a";

    #[test]
    fn content_types_choose_the_parser() {
        assert_eq!(format_of("application/vnd.pypi.simple.v1+json"), Some(Format::Json));
        assert_eq!(format_of("application/vnd.pypi.simple.v1+html"), Some(Format::Html));
        assert_eq!(format_of("Text/HTML; charset=utf-8"), Some(Format::Html));
        assert_eq!(format_of("application/json"), None);
        assert_eq!(format_of(""), None);
    }

    #[test]
    fn relative_absolute_and_full_links_resolve_against_the_page() {
        let html = format!(
            "<!DOCTYPE html><html><body><h1>Links for demo-pkg</h1>\n\
             <a href=\"../../files/demo_pkg-1.0-py3-none-any.whl#sha256={}\">demo_pkg-1.0-py3-none-any.whl</a><br/>\n\
             <A HREF='/files/demo_pkg-1.0.tar.gz#md5=ABCDEF0123456789ABCDEF0123456789&amp;sha256={HASH}'>demo_pkg-1.0.tar.gz</A>\n\
             <a href=https://mirror.example/x/demo_pkg-2.0-py3-none-any.whl>demo_pkg-2.0-py3-none-any.whl</a>\n\
             </body></html>",
            HASH.to_uppercase()
        );
        let files = parse_html(&html, &page(), &|_| true);
        let urls: Vec<&str> = files.iter().map(|file| file.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://index.example/files/demo_pkg-1.0-py3-none-any.whl",
                "https://index.example/files/demo_pkg-1.0.tar.gz",
                "https://mirror.example/x/demo_pkg-2.0-py3-none-any.whl",
            ]
        );
        assert_eq!(files[0].filename, "demo_pkg-1.0-py3-none-any.whl");
        assert_eq!(files[0].hashes["sha256"], HASH, "the hash is lower-cased");
        assert_eq!(files[1].hashes["sha256"], HASH);
        assert_eq!(files[1].hashes["md5"], "abcdef0123456789abcdef0123456789");
        assert!(files[2].hashes.is_empty());
    }

    #[test]
    fn entities_attributes_and_percent_escapes_are_decoded() {
        let html = "<a href=\"../../files/torch-2.3.1%2Bcu121-cp311-none-any.whl?a=1&amp;b=2#sha256=00\" \
                    data-requires-python=\"&gt;=3.8\" data-yanked>torch</a>\
                    <a href=\"x-1.0.tar.gz\" data-yanked=\"broken &#39;x&#x27;\">x-1.0.tar.gz</a>\
                    <!-- <a href=\"hidden-1.0.tar.gz\">hidden</a> --><a>no href</a>";
        let files = parse_html(html, &page(), &|_| true);
        assert_eq!(files.len(), 2, "{files:?}");
        assert_eq!(files[0].filename, "torch-2.3.1+cu121-cp311-none-any.whl");
        assert_eq!(
            files[0].url,
            "https://index.example/files/torch-2.3.1%2Bcu121-cp311-none-any.whl?a=1&b=2"
        );
        assert_eq!(files[0].requires_python.as_deref(), Some(">=3.8"));
        assert_eq!(files[0].yanked.as_deref(), Some(""));
        assert_eq!(files[1].url, "https://index.example/simple/demo-pkg/x-1.0.tar.gz");
        assert_eq!(files[1].yanked.as_deref(), Some("broken 'x'"));
        assert_eq!(files[1].requires_python, None);
    }

    #[test]
    fn a_base_tag_moves_relative_links_and_credentials_are_dropped() {
        let url = Url::parse("https://user:token@index.example/simple/demo/").unwrap();
        let html = "<html><head><base href=\"/packages/\"></head><a href=\"demo-1.0.tar.gz\">demo-1.0.tar.gz</a>";
        let files = parse_html(html, &url, &|_| true);
        assert_eq!(files[0].url, "https://index.example/packages/demo-1.0.tar.gz");
    }

    #[test]
    fn unknown_entities_and_stray_ampersands_stay() {
        assert_eq!(decode_entities("a&b &nbsp; &#xZZ; &#65;&amp;"), "a&b &nbsp; &#xZZ; A&");
    }

    /// D4: what an index gives as a hash reaches `--hash=` lines only if it is one.
    #[test]
    fn hashes_that_are_not_hex_of_the_right_length_are_dropped() {
        let url = Url::parse("https://index.example/simple/demo-pkg/").unwrap();
        for bad in [
            "",
            "xyz",
            &"a".repeat(100),
            &format!("{}\n--extra-index-url http://evil.example/", "a".repeat(64)),
        ] {
            let body = format!(
                r#"{{"meta": {{"api-version": "1.1"}}, "files": [{{"filename": "demo_pkg-1.0.tar.gz",
                "url": "/f/demo_pkg-1.0.tar.gz", "hashes": {{"sha256": {}}}}}]}}"#,
                serde_json::to_string(bad).unwrap()
            );
            let files = parse_json(&body, &url, &|_| true).unwrap();
            assert!(files[0].hashes.is_empty(), "{bad:?} kept: {:?}", files[0].hashes);
            let html = format!(
                "<a href=\"/f/demo_pkg-1.0.tar.gz#sha256={}\">x</a>",
                bad.replace('\n', "%0A")
            );
            assert!(
                parse_html(&html, &url, &|_| true)[0].hashes.is_empty(),
                "{bad:?} kept in HTML"
            );
        }
        let good = "A".repeat(64);
        let html = format!("<a href=\"/f/demo_pkg-1.0.tar.gz#sha256={good}\">x</a>");
        assert_eq!(parse_html(&html, &url, &|_| true)[0].hashes["sha256"], "a".repeat(64));
    }

    #[test]
    fn json_pages_keep_hashes_sizes_times_and_yanks() {
        let json = format!(
            r#"{{"meta": {{"api-version": "1.1"}}, "name": "demo-pkg", "versions": ["1.0"], "files": [
                {{"filename": "demo_pkg-1.0-py3-none-any.whl", "url": "../../files/demo_pkg-1.0-py3-none-any.whl",
                  "hashes": {{"SHA256": "{HASH}", "blake2b_256": "{HASH}"}}, "requires-python": ">=3.8",
                  "size": 1234, "upload-time": "2024-01-02T03:04:05.678901Z", "yanked": false,
                  "core-metadata": {{"sha256": "00"}}}},
                {{"filename": "demo_pkg-1.0.tar.gz", "url": "https://files.example/demo_pkg-1.0.tar.gz#sha256={HASH}",
                  "hashes": {{}}, "yanked": "bad build"}},
                {{"filename": "demo_pkg-0.9.tar.gz", "url": "/f/demo_pkg-0.9.tar.gz", "hashes": {{}}, "yanked": true}}
            ]}}"#
        );
        let files = parse_json(&json, &page(), &|_| true).unwrap();
        assert_eq!(
            files[0].url,
            "https://index.example/files/demo_pkg-1.0-py3-none-any.whl"
        );
        assert_eq!(files[0].hashes["sha256"], HASH);
        assert_eq!(files[0].hashes["blake2b_256"], HASH);
        assert_eq!(files[0].size, Some(1234));
        assert_eq!(files[0].upload_time.as_deref(), Some("2024-01-02T03:04:05.678901Z"));
        assert_eq!(files[0].yanked, None);
        assert_eq!(files[1].hashes["sha256"], HASH, "a fragment hash counts in JSON too");
        assert_eq!(files[1].url, "https://files.example/demo_pkg-1.0.tar.gz");
        assert_eq!(files[1].yanked.as_deref(), Some("bad build"));
        assert_eq!(files[2].yanked.as_deref(), Some(""));
    }

    #[test]
    fn bad_json_pages_are_errors() {
        assert!(
            parse_json("<html>", &page(), &|_| true)
                .unwrap_err()
                .starts_with("not a PEP 691 page")
        );
        let future = r#"{"meta": {"api-version": "2.0"}, "files": []}"#;
        assert_eq!(
            parse_json(future, &page(), &|_| true).unwrap_err(),
            "api-version 2.0 is not 1.x"
        );
        let bad_url = r#"{"files": [{"filename": "x.whl", "url": "http://[::1"}]}"#;
        assert!(
            parse_json(bad_url, &page(), &|_| true)
                .unwrap_err()
                .contains("invalid url")
        );
    }
}
