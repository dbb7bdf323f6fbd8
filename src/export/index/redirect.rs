//! Following redirects by hand, so that the index's credentials go to the
//! index's origin and nowhere else.
//!
//! reqwest's own policy drops `Authorization` when one hop changes host, but
//! rebuilds every hop from the first request's headers and only compares each
//! hop with the one before it: after `index → other/a → other/b` the second
//! request to the other host carries the index's credentials again (issue 20,
//! D6). A redirect policy there can only follow or stop, not change headers,
//! so the client follows redirects itself with a [`Chain`].

use reqwest::StatusCode;
use reqwest::Url;
use reqwest::header::LOCATION;

use super::urls::percent_decode;

/// As many hops as reqwest follows by default; a real index needs one or two
/// (a renamed project, a CDN), and a loop ends here too.
pub const MAX_REDIRECTS: usize = 10;

/// A user name and password from the configured index URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: Option<String>,
}

/// The requests of one fetch: where the next one goes, and whether it may
/// carry the index's credentials.
#[derive(Debug)]
pub struct Chain {
    next: Url,
    /// `Some` only while every hop so far stayed on the configured URL's
    /// origin.
    credentials: Option<Credentials>,
    redirects: usize,
}

impl Chain {
    /// The chain that starts at `url`, taking its `user:password@` out of the
    /// URL, since a request must carry them as a header, and only while the
    /// chain stays on this origin.
    pub fn start(url: &str) -> Result<Chain, String> {
        let mut next = Url::parse(url).map_err(|error| format!("not a URL: {error}"))?;
        let credentials = take_credentials(&mut next);
        Ok(Chain {
            next,
            credentials,
            redirects: 0,
        })
    }

    /// Where the next request goes; never with credentials in it.
    pub fn url(&self) -> &Url {
        &self.next
    }

    /// What the next request may send as `Authorization: Basic`.
    pub fn credentials(&self) -> Option<&Credentials> {
        self.credentials.as_ref()
    }

    /// Moves on to `location`, as the current URL's response wrote it.
    ///
    /// Credentials are dropped at the first change of origin (scheme, host or
    /// port) and stay dropped for the rest of the chain: a later redirect back
    /// to the index's origin does not bring them back, since that hop, its
    /// path and its query were chosen by the other host, which must not be
    /// able to spend the user's credentials on a request of its choosing.
    /// Credentials written into a `Location` are never used either: the only
    /// ones sent are those the user configured.
    pub fn follow(&mut self, location: &str) -> Result<(), String> {
        if self.redirects == MAX_REDIRECTS {
            return Err(format!("more than {MAX_REDIRECTS} redirects"));
        }
        let mut target = self
            .next
            .join(location)
            .map_err(|error| format!("`Location: {location}` is not a URL: {error}"))?;
        if !matches!(target.scheme(), "http" | "https") {
            return Err(format!("`Location: {location}` is not an HTTP(S) URL"));
        }
        take_credentials(&mut target);
        if target.origin() != self.next.origin() {
            self.credentials = None;
        }
        self.next = target;
        self.redirects += 1;
        Ok(())
    }
}

/// The `Location` of a response that redirects; `None` for any other
/// response, which is then the answer. A redirect without a usable
/// `Location` is an answer too, and shows as its HTTP status.
pub fn location(status: StatusCode, headers: &reqwest::header::HeaderMap) -> Option<&str> {
    let redirects = matches!(
        status,
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    );
    redirects.then(|| headers.get(LOCATION)?.to_str().ok()).flatten()
}

/// Removes `user:password@` from `url`; what it held, percent-decoded, when
/// there was any.
fn take_credentials(url: &mut Url) -> Option<Credentials> {
    if url.username().is_empty() && url.password().is_none() {
        return None;
    }
    let credentials = Credentials {
        username: percent_decode(url.username()),
        password: url.password().map(percent_decode),
    };
    // Only URLs that cannot have credentials (`data:`) refuse; they had none.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Some(credentials)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> Option<Credentials> {
        Some(Credentials {
            username: "user".to_string(),
            password: Some("p@ss".to_string()),
        })
    }

    #[test]
    fn credentials_leave_the_url_and_are_decoded() {
        let chain = Chain::start("https://user:p%40ss@index.example/simple/demo/").unwrap();
        assert_eq!(chain.url().as_str(), "https://index.example/simple/demo/");
        assert_eq!(chain.credentials().cloned(), user());
        let chain = Chain::start("https://index.example/simple/demo/").unwrap();
        assert_eq!(chain.credentials(), None);
    }

    #[test]
    fn a_redirect_on_the_same_origin_keeps_them() {
        let mut chain = Chain::start("https://user:p%40ss@index.example/simple/Demo/").unwrap();
        chain.follow("/simple/demo/").unwrap();
        chain.follow("https://index.example:443/elsewhere/demo/").unwrap();
        assert_eq!(chain.url().as_str(), "https://index.example/elsewhere/demo/");
        assert_eq!(chain.credentials().cloned(), user());
    }

    #[test]
    fn any_change_of_origin_drops_them_for_the_rest_of_the_chain() {
        for elsewhere in [
            "https://cdn.example/demo/",
            "http://index.example/simple/demo/",
            "https://index.example:8443/simple/demo/",
        ] {
            let mut chain = Chain::start("https://user:p%40ss@index.example/simple/demo/").unwrap();
            chain.follow(elsewhere).unwrap();
            assert_eq!(chain.credentials(), None, "{elsewhere}");
            chain.follow("again/").unwrap();
            assert_eq!(chain.credentials(), None, "a second hop on {elsewhere}");
            chain.follow("https://index.example/simple/demo/").unwrap();
            assert_eq!(chain.credentials(), None, "back on the index from {elsewhere}");
        }
    }

    #[test]
    fn credentials_in_a_location_are_not_used() {
        let mut chain = Chain::start("https://index.example/simple/demo/").unwrap();
        chain.follow("https://someone:else@cdn.example/demo/").unwrap();
        assert_eq!(chain.url().as_str(), "https://cdn.example/demo/");
        assert_eq!(chain.credentials(), None);
    }

    #[test]
    fn bad_locations_and_endless_chains_are_errors() {
        let mut chain = Chain::start("https://index.example/simple/demo/").unwrap();
        assert_eq!(
            chain.follow("file:///etc/passwd").unwrap_err(),
            "`Location: file:///etc/passwd` is not an HTTP(S) URL"
        );
        assert!(
            chain
                .follow("http://[::1")
                .unwrap_err()
                .starts_with("`Location: http://[::1` is not a URL")
        );
        for _ in 0..MAX_REDIRECTS {
            chain.follow("/simple/demo/").unwrap();
        }
        assert_eq!(chain.follow("/simple/demo/").unwrap_err(), "more than 10 redirects");
    }

    #[test]
    fn only_redirect_statuses_with_a_location_are_followed() {
        let mut headers = reqwest::header::HeaderMap::new();
        assert_eq!(location(StatusCode::FOUND, &headers), None);
        headers.insert(LOCATION, "/next/".parse().unwrap());
        for status in [301, 302, 303, 307, 308] {
            let status = StatusCode::from_u16(status).unwrap();
            assert_eq!(location(status, &headers), Some("/next/"), "{status}");
        }
        for status in [200, 300, 304, 404] {
            let status = StatusCode::from_u16(status).unwrap();
            assert_eq!(location(status, &headers), None, "{status}");
        }
    }
}
