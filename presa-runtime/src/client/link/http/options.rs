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
/// Its `Debug` shows whether a bearer token is set, never the token.
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) bearer_token: Option<String>,
    pub(crate) max_message_size: usize,
    #[cfg(feature = "oauth-client")]
    pub(crate) oauth: Option<crate::client::oauth::OAuthClient>,
}

impl Default for HttpOptions {
    /// No credentials; messages of up to 4 MiB.
    fn default() -> Self {
        HttpOptions {
            bearer_token: None,
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
