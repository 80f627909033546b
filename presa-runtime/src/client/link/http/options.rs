//! What the HTTP link is told and what it leaves behind: [`HttpOptions`],
//! how the client speaks HTTP, and [`OnClose`], what the link ends when
//! the client closes.

use std::sync::Arc;

use crate::util::BoxFuture;

/// What the link ends when the client closes, besides the requests it
/// drops: run by the link once the client's end is gone, and by
/// [`Client::close`](crate::client::Client::close), which waits for it. Whatever
/// the link opened that outlives a request builds it; a link that opened
/// nothing has the default, which ends nothing.
#[derive(Clone, Default)]
pub(crate) struct OnClose(Option<Arc<dyn Fn() -> BoxFuture<()> + Send + Sync>>);

impl OnClose {
    /// A hook that runs `end` each time the link closes.
    pub(crate) fn new(end: impl Fn() -> BoxFuture<()> + Send + Sync + 'static) -> Self {
        OnClose(Some(Arc::new(end)))
    }

    /// Ends what the hook ends, and waits for it.
    pub(crate) async fn run(&self) {
        if let Some(end) = &self.0 {
            end().await;
        }
    }
}

impl std::fmt::Debug for OnClose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnClose").finish_non_exhaustive()
    }
}

/// How the client speaks HTTP: [`ClientTransport::http_with`](crate::client::ClientTransport::http_with).
/// Its `Debug` shows whether a bearer token is set, never the token, and
/// the names of the extra headers, never their values.
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) bearer_token: Option<String>,
    /// Headers sent with every request, besides the transport's own.
    pub(crate) headers: reqwest::header::HeaderMap,
    pub(crate) max_message_size: usize,
    #[cfg(feature = "oauth-client")]
    pub(crate) oauth: Option<crate::client::oauth::OAuthClient>,
}

impl Default for HttpOptions {
    /// No credentials; messages of up to 4 MiB.
    fn default() -> Self {
        HttpOptions {
            bearer_token: None,
            headers: reqwest::header::HeaderMap::new(),
            max_message_size: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            #[cfg(feature = "oauth-client")]
            oauth: None,
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = self.bearer_token.as_ref().map(|_| "[redacted]");
        let mut options = f.debug_struct("HttpOptions");
        options
            .field("bearer_token", &token)
            .field("headers", &HeaderNames(&self.headers))
            .field("max_message_size", &self.max_message_size);
        #[cfg(feature = "oauth-client")]
        options.field("oauth", &self.oauth);
        options.finish()
    }
}

impl HttpOptions {
    /// Sends `Authorization: Bearer {token}` with every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Sends the header `name: value` with every request, besides the
    /// transport's own: an API key, a tenant, a region. Given twice, the
    /// name is sent with both values.
    ///
    /// Refuses a name or value HTTP does not allow, and the headers the
    /// transport sets itself: `Content-Type`, `Accept`, `Mcp-Session-Id`,
    /// `MCP-Protocol-Version`, `Last-Event-ID`, the framing headers
    /// (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`), and
    /// the credentials (`Authorization`, `DPoP`: give a token with
    /// [`bearer_token`](Self::bearer_token) or [`oauth`](Self::oauth)).
    /// The value is marked sensitive, so that it is never logged.
    ///
    /// ```
    /// use presa_runtime::client::HttpOptions;
    ///
    /// let options = HttpOptions::default().header("X-Tenant", "acme")?;
    /// assert!(HttpOptions::default().header("Accept", "*/*").is_err());
    /// # Ok::<(), presa_runtime::client::HeaderRefused>(())
    /// ```
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, HeaderRefused> {
        use reqwest::header::{HeaderName, HeaderValue};
        let refused = |why: &str| HeaderRefused {
            name: name.to_owned(),
            why: why.to_owned(),
        };
        let parsed = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| refused("it is not a valid header name"))?;
        if let Some(owner) = TRANSPORT_HEADERS
            .iter()
            .find(|(owned, _)| parsed.as_str().eq_ignore_ascii_case(owned))
        {
            return Err(refused(owner.1));
        }
        let mut value = HeaderValue::from_str(value.trim())
            .map_err(|_| refused("its value has characters a header cannot carry"))?;
        value.set_sensitive(true);
        self.headers.append(parsed, value);
        Ok(self)
    }

    /// Signs in with OAuth when the server asks (a `401`), as `oauth`
    /// says; see [`oauth`](crate::client::oauth). A
    /// [`bearer_token`](Self::bearer_token) given too is sent until then.
    /// `oauth` is an [`OAuthClient`](crate::client::oauth::OAuthClient): one that
    /// holds credentials must name their authorization server first
    /// ([`UnboundOAuthClient::registered_with`](crate::client::oauth::UnboundOAuthClient::registered_with)).
    #[cfg(feature = "oauth-client")]
    pub fn oauth(mut self, oauth: impl crate::client::oauth::BoundOAuthClient) -> Self {
        self.oauth = Some(oauth.into_client());
        self
    }

    /// The largest message accepted from the server, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

/// The headers the transport sets itself, and why
/// [`HttpOptions::header`] refuses each.
const TRANSPORT_HEADERS: [(&str, &str); 11] = [
    ("content-type", "the transport sets it (application/json)"),
    ("accept", "the transport sets it (JSON and event streams)"),
    (
        "mcp-session-id",
        "the transport sets it for a legacy session",
    ),
    (
        "mcp-protocol-version",
        "the transport sets it from the version agreed",
    ),
    ("last-event-id", "the transport sets it to resume a stream"),
    ("host", "HTTP sets it from the URL"),
    ("content-length", "HTTP sets it from the body"),
    ("transfer-encoding", "HTTP sets it from the body"),
    ("connection", "HTTP manages the connection"),
    (
        "authorization",
        "give a token with bearer_token or oauth instead",
    ),
    ("dpop", "the OAuth session makes DPoP proofs itself"),
];

/// A header [`HttpOptions::header`] will not send. Its message names the
/// header, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot send the header `{name}`: {why}")]
pub struct HeaderRefused {
    /// The header's name, as given.
    pub name: String,
    /// Why it is refused.
    pub why: String,
}

/// The names of a header map, for `Debug`, without the values.
struct HeaderNames<'a>(&'a reqwest::header::HeaderMap);

impl std::fmt::Debug for HeaderNames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_that_a_token_is_set_and_never_the_token() {
        let options = HttpOptions::default().bearer_token("static-token-4f2a");
        let shown = format!("{options:?}");
        assert!(!shown.contains("static-token-4f2a"), "{shown}");
        assert!(
            shown.contains(r#"bearer_token: Some("[redacted]")"#),
            "{shown}"
        );
        let shown = format!("{:?}", HttpOptions::default());
        assert!(shown.contains("bearer_token: None"), "{shown}");
    }

    #[test]
    fn extra_headers_are_kept_and_debug_shows_their_names_only() {
        let options = HttpOptions::default()
            .header("X-Tenant", "acme-7f3e")
            .unwrap()
            .header("x-tenant", " beta ")
            .unwrap();
        let values: Vec<_> = options.headers.get_all("x-tenant").iter().collect();
        assert_eq!(values, ["acme-7f3e", "beta"]);
        assert!(values.iter().all(|v| v.is_sensitive()));
        let shown = format!("{options:?}");
        assert!(shown.contains("x-tenant"), "{shown}");
        assert!(!shown.contains("acme-7f3e"), "{shown}");
    }

    #[test]
    fn headers_the_transport_owns_are_refused_by_name() {
        for name in [
            "Content-Type",
            "accept",
            "Mcp-Session-Id",
            "MCP-Protocol-Version",
            "Authorization",
            "Host",
        ] {
            let refused = HttpOptions::default().header(name, "x").unwrap_err();
            assert_eq!(refused.name, name);
            assert!(refused.to_string().contains(name), "{refused}");
        }
        let bad = HttpOptions::default().header("X-Key", "a\nb").unwrap_err();
        assert!(!bad.to_string().contains("a\nb"), "{bad}");
        assert!(HttpOptions::default().header("no space", "x").is_err());
    }

    #[cfg(feature = "oauth-client")]
    #[test]
    fn debug_shows_no_oauth_secret_either() {
        let oauth = crate::client::oauth::OAuthClient::client_credentials("job")
            .client_secret("client-secret-9b1c")
            .registered_with("https://auth.example.com");
        let options = HttpOptions::default()
            .bearer_token("static-token-4f2a")
            .oauth(oauth);
        let shown = format!("{options:#?}");
        assert!(!shown.contains("client-secret-9b1c"), "{shown}");
        assert!(!shown.contains("static-token-4f2a"), "{shown}");
        assert!(shown.contains("https://auth.example.com"), "{shown}");
    }
}
