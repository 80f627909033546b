//! Every request of the link with its credentials: the configured bearer
//! token, or the OAuth session's (feature `oauth-client`).
//!
//! With OAuth, a `401` (or a `403` with `insufficient_scope`) that carries
//! a challenge is the session's to answer (see `client::oauth`); the
//! request is then sent again with the new token: once after a `401`, and
//! at most the configured number of step-ups after `403`s, so that a
//! server that keeps refusing ends in its refusal, never in a loop.

use std::fmt;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};

use super::link::Link;

/// Why a request got no answer.
pub(super) enum SendError {
    /// The server could not be reached.
    Unreachable(reqwest::Error),
    /// Signing in failed.
    #[cfg(feature = "oauth-client")]
    SignIn(crate::client::oauth::OAuthError),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Unreachable(error) => write!(f, "could not reach the server: {error}"),
            #[cfg(feature = "oauth-client")]
            SendError::SignIn(error) => write!(f, "could not sign in to the server: {error}"),
        }
    }
}

impl Link {
    /// POSTs `body` to the endpoint with `headers`, through [`Link::send`].
    pub(super) async fn post_frame(
        &self,
        headers: &HeaderMap,
        body: &str,
    ) -> Result<reqwest::Response, SendError> {
        self.send(|| {
            self.http
                .post(&self.endpoint)
                .headers(headers.clone())
                .body(body.to_owned())
        })
        .await
    }

    /// POSTs a message that is not a request, with `headers`; the server's
    /// `202` needs no relaying. Whether the server accepted it.
    pub(super) async fn post_message(&self, headers: &HeaderMap, frame: &str) -> bool {
        match self.post_frame(headers, frame).await {
            Ok(reply) if reply.status().is_success() => true,
            Ok(reply) => {
                tracing::debug!(status = %reply.status(), "the server refused a message");
                false
            }
            Err(error) => {
                tracing::debug!(%error, "could not send a message");
                false
            }
        }
    }

    /// Sends the request `build` makes, with credentials; builds it again
    /// for each retry.
    pub(super) async fn send(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, SendError> {
        #[cfg(feature = "oauth-client")]
        if let Some(oauth) = &self.oauth {
            return self.send_signed_in(oauth, build).await;
        }
        let mut request = build();
        if let Some(value) = self.configured_bearer() {
            request = request.header(AUTHORIZATION, value);
        }
        request.send().await.map_err(SendError::Unreachable)
    }

    /// `Authorization` for the bearer token the options give, if any.
    fn configured_bearer(&self) -> Option<HeaderValue> {
        let token = self.options.bearer_token.as_ref()?;
        HeaderValue::from_str(&format!("Bearer {token}")).ok()
    }

    #[cfg(feature = "oauth-client")]
    async fn send_signed_in(
        &self,
        oauth: &crate::client::oauth::OAuthSession,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, SendError> {
        use crate::client::oauth::Challenge;
        use reqwest::header::{HeaderName, WWW_AUTHENTICATE};
        let mut step_ups_left = oauth.step_ups();
        let mut reauthorized = false;
        let mut nonce_retried = false;
        loop {
            let mut request = build().build().map_err(SendError::Unreachable)?;
            let (credentials, sent) = oauth
                .credentials(request.method().as_str(), request.url().as_str())
                .await
                .map_err(SendError::SignIn)?;
            let headers = request.headers_mut();
            for (name, value) in credentials {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    headers.insert(HeaderName::from_static(name), value);
                }
            }
            if !headers.contains_key(AUTHORIZATION)
                && let Some(value) = self.configured_bearer()
            {
                headers.insert(AUTHORIZATION, value);
            }
            let reply = self
                .http
                .execute(request)
                .await
                .map_err(SendError::Unreachable)?;
            let status = reply.status().as_u16();
            if status != 401 && status != 403 {
                return Ok(reply);
            }
            let challenge = Challenge::find(
                reply
                    .headers()
                    .get_all(WWW_AUTHENTICATE)
                    .iter()
                    .filter_map(|v| v.to_str().ok()),
            );
            let error = challenge.as_ref().and_then(|c| c.error.as_deref());
            if status == 401 && error == Some("use_dpop_nonce") && !nonce_retried {
                let nonce = reply
                    .headers()
                    .get("dpop-nonce")
                    .and_then(|v| v.to_str().ok());
                if nonce.is_some_and(|nonce| oauth.resource_nonce(nonce)) {
                    nonce_retried = true;
                    continue;
                }
            }
            let retry = match status {
                401 if !reauthorized => {
                    reauthorized = true;
                    true
                }
                403 if error == Some("insufficient_scope") && step_ups_left > 0 => {
                    step_ups_left -= 1;
                    true
                }
                _ => false,
            };
            if !retry {
                return Ok(reply);
            }
            oauth
                .answer(status, challenge.as_ref(), sent)
                .await
                .map_err(SendError::SignIn)?;
        }
    }
}
