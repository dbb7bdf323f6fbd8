//! Getting one project page over HTTP(S), with errors that say what to do.
//!
//! TLS is rustls checked against the system's certificate store (reqwest's
//! platform verifier), so a site CA installed the usual way is trusted;
//! `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are honoured by reqwest.

use std::error::Error as _;
use std::io::Read;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, Response};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::redirect::Policy;

use super::redirect::{self, Chain};
use super::simple::{self, IndexFile};
use super::urls::{project_url, strip_credentials};

/// The most envdoctor reads of one project page: 64 MiB.
///
/// A server that never ends its body (a broken proxy, a hostile index) would
/// otherwise fill memory; issue 20 (D5) saw 3.6 GB in 5 s. Real pages are
/// far smaller: a project with thousands of releases and files, such as one
/// published nightly, comes to a few megabytes, so the limit is many times
/// any real page and still bounds what the client's few worker threads hold
/// at once.
pub const MAX_PAGE_BYTES: u64 = 64 * 1024 * 1024;

/// A page longer than this is a large one, and only one large page is read
/// and parsed at a time: the lookup's threads could otherwise hold eight
/// pages of up to [`MAX_PAGE_BYTES`] at once (issue 32, E5). Real pages stay
/// below it (PyPI's page of torch, thousands of files, is a few MB).
const LARGE_PAGE_BYTES: u64 = 8 * 1024 * 1024;

/// Held while a large page is read and parsed.
static LARGE_PAGE: Mutex<()> = Mutex::new(());

/// Every URL in these messages is without credentials.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchError {
    #[error("the index has no project {project} ({url})")]
    NotFound { project: String, url: String },
    #[error("timed out after {seconds} s ({url})")]
    TimedOut { seconds: f64, url: String },
    #[error("connection refused ({url})")]
    Refused { url: String },
    #[error(
        "TLS failure ({url}): {detail}; a proxy that re-signs TLS (common in companies) needs its CA certificate in the system certificate store"
    )]
    Tls { url: String, detail: String },
    #[error("cannot reach {url}: {detail}")]
    Unreachable { url: String, detail: String },
    #[error("HTTP {status} ({url})")]
    Status { status: String, url: String },
    #[error(
        "{url} answered with Content-Type `{content_type}`, not a simple-repository page (PEP 503 HTML or PEP 691 JSON)"
    )]
    NotAPage { url: String, content_type: String },
    #[error("{url} sent more than {limit}, the most envdoctor reads of one project page")]
    TooLarge { url: String, limit: String },
    #[error("bad redirect from {url}: {detail}")]
    Redirect { url: String, detail: String },
    #[error("malformed project page ({url}): {detail}")]
    Malformed { url: String, detail: String },
    #[error("cannot set up the HTTP client: {detail}")]
    Client { detail: String },
}

/// A fetched page: its final URL (after redirects) and its files.
pub struct Page {
    pub url: String,
    pub files: Vec<IndexFile>,
}

pub struct Fetcher {
    client: Client,
    timeout: Duration,
}

impl Fetcher {
    pub fn new(timeout: Duration) -> Result<Fetcher, FetchError> {
        // Each request is also given what is left of the page's deadline
        // (`get`): that bounds connect, headers and body together.
        let client = Client::builder()
            .user_agent(concat!("envdoctor/", env!("CARGO_PKG_VERSION")))
            .timeout(timeout)
            .connect_timeout(timeout)
            // Followed in `get`, which decides where credentials may go.
            .redirect(Policy::none())
            .build()
            .map_err(|error| FetchError::Client {
                detail: innermost(&error),
            })?;
        Ok(Fetcher { client, timeout })
    }

    /// The page of `project` (normalized) on `index`, with the files whose
    /// name `keep` accepts. The whole of it, redirects, connections, headers
    /// and body, within the timeout: a server that sends a byte a second
    /// cannot hold it longer (issue 32, E4).
    pub fn project_page(&self, index: &str, project: &str, keep: &dyn Fn(&str) -> bool) -> Result<Page, FetchError> {
        let deadline = Instant::now() + self.timeout;
        let url = project_url(index, project);
        let shown = strip_credentials(&url);
        let response = self.get(&url, &shown, deadline)?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(FetchError::NotFound {
                project: project.to_string(),
                url: shown,
            });
        }
        if !status.is_success() {
            return Err(FetchError::Status {
                status: status.to_string(),
                url: shown,
            });
        }
        let final_url = response.url().clone();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let Some(format) = simple::format_of(&content_type) else {
            return Err(FetchError::NotAPage {
                url: shown,
                content_type,
            });
        };
        let (body, large) = self.read_page(response, &shown)?;
        let files = simple::parse_where(format, &body, &final_url, keep)
            .map_err(|detail| FetchError::Malformed { url: shown, detail })?;
        drop((body, large));
        Ok(Page {
            url: strip_credentials(final_url.as_str()),
            files,
        })
    }

    /// The response at the end of `url`'s redirects. `shown` is `url`
    /// without credentials.
    fn get(&self, url: &str, shown: &str, deadline: Instant) -> Result<Response, FetchError> {
        let mut chain = Chain::start(url).map_err(|detail| FetchError::Unreachable {
            url: shown.to_string(),
            detail,
        })?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(FetchError::TimedOut {
                    seconds: self.timeout.as_secs_f64(),
                    url: shown.to_string(),
                });
            }
            // reqwest applies a request's own timeout from connecting to the
            // body's last byte; the client's alone bounds each read.
            let mut request = self
                .client
                .get(chain.url().clone())
                .header(ACCEPT, simple::ACCEPT)
                .timeout(left);
            if let Some(credentials) = chain.credentials() {
                request = request.basic_auth(&credentials.username, credentials.password.as_ref());
            }
            let response = request.send().map_err(|error| self.classify(&error, shown))?;
            let Some(location) = redirect::location(response.status(), response.headers()) else {
                return Ok(response);
            };
            // The chain's URL never holds credentials, so it can be shown.
            let from = chain.url().to_string();
            chain
                .follow(location)
                .map_err(|detail| FetchError::Redirect { url: from, detail })?;
        }
    }

    /// The body of a page, read no further than [`MAX_PAGE_BYTES`]. A
    /// `Content-Length` over the limit is refused before reading any of it.
    /// A large page comes with [`LARGE_PAGE`] held: the caller parses it and
    /// then lets go.
    fn read_page(
        &self,
        mut response: Response,
        shown: &str,
    ) -> Result<(String, Option<MutexGuard<'static, ()>>), FetchError> {
        let too_large = || FetchError::TooLarge {
            url: shown.to_string(),
            limit: format!("{} MiB", MAX_PAGE_BYTES / (1024 * 1024)),
        };
        if response.content_length().is_some_and(|length| length > MAX_PAGE_BYTES) {
            return Err(too_large());
        }
        let gate = || LARGE_PAGE.lock().unwrap_or_else(PoisonError::into_inner);
        let mut large = response
            .content_length()
            .is_some_and(|length| length > LARGE_PAGE_BYTES)
            .then(gate);
        let bytes = read_at_most(&mut response, MAX_PAGE_BYTES, LARGE_PAGE_BYTES, || {
            large.get_or_insert_with(gate);
        })
        .map_err(|error| self.classify_read(&error, shown))?
        .ok_or_else(too_large)?;
        // As reqwest's `text()` decodes without its `charset` feature.
        let text =
            String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
        Ok((text, large))
    }

    /// reqwest's body errors come wrapped in `io::Error`.
    fn classify_read(&self, error: &std::io::Error, url: &str) -> FetchError {
        match error.get_ref().and_then(|inner| inner.downcast_ref::<reqwest::Error>()) {
            Some(error) => self.classify(error, url),
            None => FetchError::Unreachable {
                url: url.to_string(),
                detail: strip_credentials(&error.to_string()),
            },
        }
    }

    fn classify(&self, error: &reqwest::Error, url: &str) -> FetchError {
        let url = url.to_string();
        if error.is_timeout() {
            return FetchError::TimedOut {
                seconds: self.timeout.as_secs_f64(),
                url,
            };
        }
        let refused = causes(error).any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        });
        if refused {
            return FetchError::Refused { url };
        }
        // rustls is not a direct dependency, so its errors are known by their text.
        let tls = causes(error).any(|cause| {
            let text = cause.to_string().to_ascii_lowercase();
            ["certificate", "tls", "handshake", "ssl"]
                .iter()
                .any(|word| text.contains(word))
        });
        let detail = innermost(error);
        if tls {
            FetchError::Tls { url, detail }
        } else {
            FetchError::Unreachable { url, detail }
        }
    }
}

/// All of `body` when it is at most `limit` bytes; `None`, having read one
/// byte more than `limit` and no further, when it is longer. `on_large` is
/// called once `large` bytes are in, before the rest is read.
fn read_at_most(
    mut body: impl Read,
    limit: u64,
    large: u64,
    on_large: impl FnOnce(),
) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    let first = large.min(limit.saturating_add(1));
    (&mut body).take(first).read_to_end(&mut bytes)?;
    if bytes.len() as u64 == first && first <= limit {
        on_large();
        body.take(limit.saturating_add(1) - first).read_to_end(&mut bytes)?;
    }
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

fn causes<'a>(error: &'a reqwest::Error) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(error.source(), |&cause| cause.source())
}

/// The deepest cause says what happened ("invalid peer certificate:
/// UnknownIssuer"); the outer ones only say where.
fn innermost(error: &reqwest::Error) -> String {
    let text = causes(error)
        .last()
        .map_or_else(|| error.to_string(), ToString::to_string);
    strip_credentials(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_read_up_to_the_limit_and_not_past_it() {
        let read_at_most = |body: &mut dyn Read, limit| read_at_most(body, limit, u64::MAX, || {});
        assert_eq!(read_at_most(&mut &b"12345"[..], 5).unwrap(), Some(b"12345".to_vec()));
        assert_eq!(read_at_most(&mut &b""[..], 5).unwrap(), Some(Vec::new()));
        assert_eq!(read_at_most(&mut &b"123456"[..], 5).unwrap(), None);
        // An endless body ends at the limit instead of filling memory.
        assert_eq!(read_at_most(&mut std::io::repeat(b'x'), 1024).unwrap(), None);
        let mut endless = std::io::repeat(b'x').take(u64::MAX);
        assert_eq!(read_at_most(&mut endless, 1024).unwrap(), None);
        assert_eq!(
            endless.limit(),
            u64::MAX - 1025,
            "one byte past the limit was read, no more"
        );
    }

    /// Issue 32, E5: a body that reaches `large` bytes calls `on_large` (which
    /// takes the large-page gate) before it is read on, and only then.
    #[test]
    fn a_large_body_takes_the_gate_before_it_is_read_on() {
        let mut called = false;
        let body = read_at_most(&b"123456789"[..], 100, 4, || called = true).unwrap();
        assert_eq!((body.as_deref(), called), (Some(&b"123456789"[..]), true));
        let mut called = false;
        let body = read_at_most(&b"123"[..], 100, 4, || called = true).unwrap();
        assert_eq!((body.as_deref(), called), (Some(&b"123"[..]), false));
        let mut called = false;
        let mut endless = std::io::repeat(b'x').take(u64::MAX);
        assert_eq!(read_at_most(&mut endless, 10, 4, || called = true).unwrap(), None);
        assert!(called);
        assert_eq!(
            endless.limit(),
            u64::MAX - 11,
            "one byte past the limit was read, no more"
        );
    }
}
