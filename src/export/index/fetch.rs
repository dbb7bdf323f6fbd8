//! Getting one project page over HTTP(S), with errors that say what to do.
//!
//! TLS is rustls checked against the system's certificate store (reqwest's
//! platform verifier), so a site CA installed the usual way is trusted;
//! `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are honoured by reqwest.

use std::error::Error as _;
use std::time::Duration;

use reqwest::blocking::Client;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::simple::{self, IndexFile};
use super::urls::{project_url, strip_credentials};

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
        let client = Client::builder()
            .user_agent(concat!("envdoctor/", env!("CARGO_PKG_VERSION")))
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .map_err(|error| FetchError::Client {
                detail: innermost(&error),
            })?;
        Ok(Fetcher { client, timeout })
    }

    /// The page of `project` (normalized) on `index`.
    pub fn project_page(&self, index: &str, project: &str) -> Result<Page, FetchError> {
        let url = project_url(index, project);
        let shown = strip_credentials(&url);
        let response = self
            .client
            .get(&url)
            .header(ACCEPT, simple::ACCEPT)
            .send()
            .map_err(|error| self.classify(&error, &shown))?;
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
        let body = response.text().map_err(|error| self.classify(&error, &shown))?;
        let files =
            simple::parse(format, &body, &final_url).map_err(|detail| FetchError::Malformed { url: shown, detail })?;
        Ok(Page {
            url: strip_credentials(final_url.as_str()),
            files,
        })
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
