//! The documents and endpoints of OAuth, reached over HTTPS (plain HTTP on
//! loopback only), small, quickly, or not at all: what a resource server
//! reads from its authorization server, and what a client reads from
//! both and posts to the authorization server.
//!
//! A fetcher is made for one of two kinds of URL:
//!
//! - [`HttpFetch::new`]: URLs an operator configured, such as a resource
//!   server's issuer. They go wherever they point.
//! - [`HttpFetch::restricted`] (the client): URLs a remote server named.
//!   Each must lead where its `Destinations` allow; see `destinations`
//!   for the rules. The check comes before anything is sent, and the
//!   resolver checks each address a name resolves to, so that the
//!   connection goes to an address that was checked.

use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CACHE_CONTROL};

#[cfg(feature = "oauth-client")]
use super::destinations::{CheckingResolver, Destinations, Lookup, Refusal};

/// The longest document read: key sets and metadata are a few KB.
const MAX_DOCUMENT: usize = 256 * 1024;
/// How long one fetch may take, connection included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// A document as fetched: its body, and how long its server says it may be
/// kept (`Cache-Control`).
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    pub body: Vec<u8>,
    /// Read by the resource server's key cache.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub max_age: Option<Duration>,
}

/// An answer of any status, with its headers and (bounded) body.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

/// Why a document could not be had.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum FetchError {
    /// A remote server named a URL its destinations do not allow: nothing
    /// was sent.
    #[cfg(feature = "oauth-client")]
    #[error("{url} is refused: {refusal}")]
    Refused {
        url: String,
        /// Boxed: it is large, and rare.
        refusal: Box<Refusal>,
    },
    /// The server could not be reached, or did not answer in time.
    #[error("{url} could not be reached: {reason}")]
    Unreachable { url: String, reason: String },
    /// It answered with a status other than 200.
    #[error("{url} answered {status}")]
    Status { url: String, status: u16 },
    /// The answer is not the document asked for.
    #[error("{url} did not answer with {what}: {reason}")]
    Invalid {
        url: String,
        what: &'static str,
        reason: String,
    },
}

impl FetchError {
    /// Whether the document does not exist there (so that discovery tries
    /// the next place), as opposed to a server that failed.
    pub fn is_absent(&self) -> bool {
        matches!(self, FetchError::Status { status, .. } if (400..500).contains(status))
    }
}

/// How documents are fetched; the tests put a fake in reqwest's place.
#[async_trait]
pub(crate) trait Fetch: Send + Sync + 'static {
    /// `GET url`.
    async fn get(&self, url: &str) -> Result<Fetched, FetchError>;
    /// `POST url` with a form body and headers: introspection.
    #[cfg(feature = "oauth")]
    async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic_auth: Option<(&str, &str)>,
    ) -> Result<Fetched, FetchError>;
}

/// Fetching with reqwest.
pub(crate) struct HttpFetch {
    client: reqwest::Client,
    /// Where the URLs may lead: `None` for URLs an operator configured.
    #[cfg(feature = "oauth-client")]
    destinations: Option<Destinations>,
}

impl HttpFetch {
    /// A fetcher for URLs an operator configured: they go wherever they
    /// point.
    pub fn new() -> Result<Self, reqwest::Error> {
        Ok(HttpFetch {
            client: Self::builder().build()?,
            #[cfg(feature = "oauth-client")]
            destinations: None,
        })
    }

    /// A fetcher for URLs a remote server named: each must lead where
    /// `destinations` allow, or it is refused before anything is sent.
    #[cfg(feature = "oauth-client")]
    pub fn restricted(destinations: Destinations) -> Result<Self, reqwest::Error> {
        Self::restricted_with(destinations, Lookup::System, Self::builder())
    }

    /// `restricted`, with the DNS and the client builder given: a test's.
    #[cfg(feature = "oauth-client")]
    pub(super) fn restricted_with(
        destinations: Destinations,
        lookup: Lookup,
        builder: reqwest::ClientBuilder,
    ) -> Result<Self, reqwest::Error> {
        let resolver = CheckingResolver::new(destinations, lookup);
        Ok(HttpFetch {
            client: builder
                .dns_resolver(std::sync::Arc::new(resolver))
                .build()?,
            destinations: Some(destinations),
        })
    }

    /// What every fetcher shares: timeouts, and no redirects.
    pub(super) fn builder() -> reqwest::ClientBuilder {
        reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .connect_timeout(FETCH_TIMEOUT / 2)
            // A document found by following another server's redirect is
            // not the authorization server's: refuse it.
            .redirect(reqwest::redirect::Policy::none())
    }

    /// Refuses `url` when it leads where the destinations do not allow
    /// (the rules that need no lookup; the resolver checks the rest).
    pub fn check(&self, url: &str) -> Result<(), FetchError> {
        #[cfg(feature = "oauth-client")]
        if let Some(destinations) = self.destinations {
            destinations
                .check_url(url)
                .map_err(|refusal| FetchError::Refused {
                    url: url.to_owned(),
                    refusal: Box::new(refusal),
                })?;
        }
        #[cfg(not(feature = "oauth-client"))]
        let _ = url;
        Ok(())
    }

    /// A `POST` to `url`, once `url` passes the destinations: its answer
    /// is read with [`answer`](Self::answer).
    #[cfg(feature = "oauth-client")]
    pub fn post(&self, url: &str) -> Result<reqwest::RequestBuilder, FetchError> {
        self.check(url)?;
        Ok(self.client.post(url))
    }

    async fn read(url: &str, sent: reqwest::RequestBuilder) -> Result<Fetched, FetchError> {
        let answer = Self::answer(url, sent).await?;
        if answer.status != 200 {
            return Err(FetchError::Status {
                url: url.to_owned(),
                status: answer.status,
            });
        }
        let max_age = answer
            .headers
            .get(CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .and_then(max_age);
        Ok(Fetched {
            body: answer.body,
            max_age,
        })
    }

    /// What `url` answers to `sent`, whatever its status: a token
    /// endpoint's errors are `400`s with a body to read.
    pub async fn answer(url: &str, sent: reqwest::RequestBuilder) -> Result<Answer, FetchError> {
        let unreachable = |e: reqwest::Error| unreachable(url, &e);
        let response = sent
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(unreachable)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(unreachable)?;
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(FetchError::Invalid {
                    url: url.to_owned(),
                    what: "a document",
                    reason: format!("it is larger than {MAX_DOCUMENT} bytes"),
                });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

/// Why `url` could not be reached: the resolver's refusal when it
/// refused every address of the name (nothing was sent), else reqwest's
/// error.
fn unreachable(url: &str, error: &reqwest::Error) -> FetchError {
    #[cfg(feature = "oauth-client")]
    {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(error) = cause {
            if let Some(refusal) = error.downcast_ref::<Refusal>() {
                return FetchError::Refused {
                    url: url.to_owned(),
                    refusal: Box::new(refusal.clone()),
                };
            }
            cause = error.source();
        }
    }
    FetchError::Unreachable {
        url: url.to_owned(),
        reason: error.to_string(),
    }
}

#[async_trait]
impl Fetch for HttpFetch {
    async fn get(&self, url: &str) -> Result<Fetched, FetchError> {
        self.check(url)?;
        Self::read(url, self.client.get(url)).await
    }

    #[cfg(feature = "oauth")]
    async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic_auth: Option<(&str, &str)>,
    ) -> Result<Fetched, FetchError> {
        let mut request = self.client.post(url).form(form);
        if let Some((user, password)) = basic_auth {
            // RFC 6749 section 2.3.1: each part form-encoded first.
            request = request.basic_auth(encode(user), Some(encode(password)));
        }
        Self::read(url, request).await
    }
}

/// How long `Cache-Control` lets a response be kept: `max-age`, or zero
/// for `no-cache` and `no-store`.
pub(crate) fn max_age(cache_control: &str) -> Option<Duration> {
    let mut age = None;
    for directive in cache_control.split(',').map(str::trim) {
        let (name, value) = directive.split_once('=').unwrap_or((directive, ""));
        match name.to_ascii_lowercase().as_str() {
            "no-cache" | "no-store" => return Some(Duration::ZERO),
            "max-age" => {
                age = value
                    .trim_matches('"')
                    .parse()
                    .ok()
                    .map(Duration::from_secs)
            }
            _ => {}
        }
    }
    age
}

/// `application/x-www-form-urlencoded` encoding of one name or value.
pub(crate) fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Whether `url` may be fetched from: `https`, or `http` to a loopback
/// host (a development authorization server).
pub(crate) fn allowed_url(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    match parsed.scheme() {
        "https" => parsed.host().is_some(),
        "http" => match parsed.host() {
            Some(url::Host::Domain(host)) => host == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_control_gives_the_age_or_none() {
        assert_eq!(
            max_age("public, max-age=600"),
            Some(Duration::from_secs(600))
        );
        assert_eq!(max_age("max-age=600, no-cache"), Some(Duration::ZERO));
        assert_eq!(max_age("no-store"), Some(Duration::ZERO));
        assert_eq!(max_age("public"), None);
        assert_eq!(max_age("max-age=soon"), None);
    }

    #[test]
    fn client_credentials_are_form_encoded_before_basic_auth() {
        assert_eq!(encode("a b+c/d:e"), "a+b%2Bc%2Fd%3Ae");
    }

    #[cfg(feature = "oauth-client")]
    mod refused {
        use super::*;
        use crate::oauth::destinations::Destinations;
        use crate::oauth::trap::Trap;

        /// The destinations of a client of a public MCP server.
        fn public(private_networks: bool) -> Destinations {
            Destinations::of_endpoint("https://mcp.example.com/mcp", private_networks)
        }

        /// The refusal `fetched` is, as its message.
        fn refusal<T: std::fmt::Debug>(fetched: Result<T, FetchError>) -> String {
            match fetched {
                Err(error @ FetchError::Refused { .. }) => error.to_string(),
                other => panic!("not refused: {other:?}"),
            }
        }

        #[tokio::test]
        async fn an_address_a_server_may_not_name_is_never_connected_to() {
            let trap = Trap::start().await;
            let fetch = trap.fetcher(public(false), &[]);
            let metadata_service = "https://169.254.169.254/latest/meta-data/iam";
            assert_eq!(
                refusal(fetch.get(metadata_service).await),
                "https://169.254.169.254/latest/meta-data/iam is refused: \
                 169.254.169.254 is a link-local address (where cloud metadata services \
                 answer) (169.254.0.0/16): no setting allows it"
            );
            let mapped = refusal(fetch.get("https://[::ffff:10.0.0.1]/token").await);
            assert!(mapped.contains("allow_private_networks()"), "{mapped}");
            let nat64 = refusal(fetch.post("https://[64:ff9b::a9fe:a9fe]/token"));
            assert!(nat64.contains("by way of NAT64"), "{nat64}");
            let plain = refusal(fetch.post("http://as.example.com/token"));
            assert!(plain.contains("must be https"), "{plain}");
            assert_eq!(trap.seen(), Vec::<String>::new());

            // The trap does see what gets through: the check is what kept
            // the others away.
            let public_address = fetch.get("https://93.184.216.34/x").await.unwrap_err();
            assert!(matches!(public_address, FetchError::Unreachable { .. }));
            assert_eq!(trap.seen(), ["CONNECT 93.184.216.34:443 HTTP/1.1"]);
        }

        #[tokio::test]
        async fn allowing_private_networks_lets_a_private_address_through() {
            let trap = Trap::start().await;
            let fetch = trap.fetcher(public(true), &[]);
            let reached = fetch.get("https://10.0.0.1/token").await.unwrap_err();
            assert!(
                matches!(reached, FetchError::Unreachable { .. }),
                "{reached}"
            );
            let metadata_service = fetch.get("https://169.254.169.254/").await;
            assert!(refusal(metadata_service).contains("no setting allows it"));
            assert_eq!(trap.seen(), ["CONNECT 10.0.0.1:443 HTTP/1.1"]);
        }

        #[tokio::test]
        async fn a_name_is_connected_to_at_an_address_that_was_checked() {
            let trap = Trap::start().await;
            let port = trap.address.port();
            let names = [("rebound.example.com", "127.0.0.1")];
            let url = format!("https://rebound.example.com:{port}/.well-known/x");
            // A public server's name that resolves to this machine.
            let fetch = Trap::direct_fetcher(public(true), &names);
            assert_eq!(
                refusal(fetch.get(&url).await),
                format!(
                    "{url} is refused: `rebound.example.com` resolves to 127.0.0.1, \
                     a loopback address (this machine) (127.0.0.0/8): a server may name \
                     loopback only when the MCP server itself is on loopback (local development)"
                )
            );
            assert_eq!(trap.seen(), Vec::<String>::new());
            // For a server on loopback, the same name reaches the trap.
            let local = Destinations::of_endpoint("http://127.0.0.1:3000/mcp", false);
            let fetch = Trap::direct_fetcher(local, &names);
            let reached = fetch.get(&url).await.unwrap_err();
            assert!(
                matches!(reached, FetchError::Unreachable { .. }),
                "{reached}"
            );
            assert_eq!(trap.seen(), ["TLS"]);
        }

        #[tokio::test]
        async fn a_name_given_to_a_proxy_is_the_proxys_to_resolve() {
            let trap = Trap::start().await;
            let fetch = trap.fetcher(public(false), &[("intranet.example.com", "10.1.2.3")]);
            // The proxy, not the client, resolves the name (rule 5).
            let proxied = fetch
                .get("https://intranet.example.com/x")
                .await
                .unwrap_err();
            assert!(
                matches!(proxied, FetchError::Unreachable { .. }),
                "{proxied}"
            );
            // What needs no lookup is refused before the proxy hears of it.
            let literal = fetch.get("https://10.1.2.3/x").await;
            assert!(refusal(literal).contains("private-network"));
            let localhost = fetch.get("https://localhost/x").await;
            assert!(refusal(localhost).contains("loopback"));
            assert_eq!(trap.seen(), ["CONNECT intranet.example.com:443 HTTP/1.1"]);
        }

        #[tokio::test]
        async fn an_operators_urls_go_wherever_they_point() {
            let fetch = HttpFetch::new().unwrap();
            assert!(fetch.check("https://10.0.0.1/jwks").is_ok());
            assert!(fetch.check("http://127.0.0.1:8080/jwks").is_ok());
        }
    }

    #[test]
    fn plain_http_is_for_loopback_only() {
        assert!(allowed_url("https://auth.example.com/"));
        assert!(allowed_url("http://127.0.0.1:8080/"));
        assert!(allowed_url("http://localhost:8080/"));
        assert!(allowed_url("http://[::1]:8080/"));
        assert!(!allowed_url("http://auth.example.com/"));
        assert!(!allowed_url("ftp://auth.example.com/"));
        assert!(!allowed_url("not a url"));
    }
}
