//! Every request of the link with its credentials: the configured bearer
//! token, or the OAuth session's (feature `oauth-client`).
//!
//! With OAuth, a `401` (or a `403` with `insufficient_scope`) that carries
//! a challenge is the session's to answer (see `client::oauth`); the
//! request is then sent again with the new token: once after a `401`, and
//! at most the configured number of step-ups after `403`s, so that a
//! server that keeps refusing ends in its refusal, never in a loop.
//!
//! A redirect is never followed: it ends the request with an error that
//! says where the server pointed, and to use that URL as the endpoint if
//! you trust it. Every request carries credentials: `Authorization`, with
//! DPoP its proof, and in a legacy session `Mcp-Session-Id`. Following
//! would carry them to wherever the server points. reqwest's own policy
//! drops `Authorization` on a change of host or port, but not on a
//! change from https to http, and it forwards `DPoP` and `Mcp-Session-Id`
//! anywhere. Dropping every credential on a change of origin would not
//! make the redirect work either: a DPoP proof names the URL it was made
//! for, an OAuth token the resource it was issued for (the endpoint
//! configured), and a session the server that opened it. An endpoint is
//! configured once, so a redirect is a configuration to fix, not a path
//! to take on every request.

use std::fmt;

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue, LOCATION};

use super::link::Link;

/// Why a request got no answer.
pub(super) enum SendError {
    /// The server could not be reached.
    Unreachable(reqwest::Error),
    /// The server redirected the request, to the URL shown, if it said
    /// where; never followed (see the module).
    Redirected { status: u16, to: Option<String> },
    /// Signing in failed.
    #[cfg(feature = "oauth-client")]
    SignIn(crate::client::oauth::OAuthError),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Unreachable(error) => write!(f, "could not reach the server: {error}"),
            SendError::Redirected { status, to } => {
                match to {
                    Some(to) => write!(
                        f,
                        "the server redirected the request (HTTP {status}) to `{to}`"
                    )?,
                    None => write!(
                        f,
                        "the server redirected the request (HTTP {status}) without saying where"
                    )?,
                }
                f.write_str("; presa does not follow redirects, which would carry the request's credentials there")?;
                if to.is_some() {
                    f.write_str(": if you trust it, use that URL as the endpoint")?;
                }
                Ok(())
            }
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
        // The extra headers never name one the transport sets (see
        // `HttpOptions::header`), so adding them overrides nothing.
        let build = || build().headers(self.options.headers.clone());
        #[cfg(feature = "oauth-client")]
        if let Some(oauth) = &self.oauth {
            return self.send_signed_in(oauth, build).await;
        }
        let mut request = build();
        if let Some(value) = self.configured_bearer() {
            request = request.header(AUTHORIZATION, value);
        }
        let reply = request.send().await.map_err(SendError::Unreachable)?;
        refuse_redirect(reply)
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
            let reply = refuse_redirect(reply)?;
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

/// The longest part of a redirect's location an error shows.
const SHOWN_LOCATION: usize = 300;

/// `reply`, unless it is a redirect (module docs): then where it pointed.
fn refuse_redirect(reply: reqwest::Response) -> Result<reqwest::Response, SendError> {
    let status = reply.status();
    let redirect = [
        StatusCode::MULTIPLE_CHOICES,
        StatusCode::MOVED_PERMANENTLY,
        StatusCode::FOUND,
        StatusCode::SEE_OTHER,
        StatusCode::TEMPORARY_REDIRECT,
        StatusCode::PERMANENT_REDIRECT,
    ];
    if !redirect.contains(&status) {
        return Ok(reply);
    }
    let to = reply
        .headers()
        .get(LOCATION)
        .map(|location| shown_location(reply.url(), location));
    Err(SendError::Redirected {
        status: status.as_u16(),
        to,
    })
}

/// `location`, resolved against `from` (it may be relative), as an error
/// shows it: at most [`SHOWN_LOCATION`] characters.
fn shown_location(from: &reqwest::Url, location: &HeaderValue) -> String {
    let Ok(location) = location.to_str() else {
        return "a location that is not plain ASCII".into();
    };
    let resolved = from
        .join(location)
        .map_or_else(|_| location.to_owned(), String::from);
    match resolved.char_indices().nth(SHOWN_LOCATION) {
        Some((cut, _)) => format!("{}…", &resolved[..cut]),
        None => resolved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(location: &[u8]) -> String {
        let from = reqwest::Url::parse("https://mcp.example.com/v1/mcp").unwrap();
        shown_location(&from, &HeaderValue::from_bytes(location).unwrap())
    }

    #[test]
    fn a_redirect_shows_where_it_points_resolved_and_bounded() {
        assert_eq!(shown(b"https://new.example/mcp"), "https://new.example/mcp");
        // Relative: resolved against the request's URL.
        assert_eq!(shown(b"/v2/mcp"), "https://mcp.example.com/v2/mcp");
        assert_eq!(shown(b"mcp/"), "https://mcp.example.com/v1/mcp/");
        let long = format!("https://new.example/{}", "a".repeat(1000));
        let shown_long = shown(long.as_bytes());
        assert_eq!(shown_long.chars().count(), SHOWN_LOCATION + 1);
        assert!(shown_long.ends_with('…'));
        assert_eq!(
            shown(b"https://new.example/\xe9"),
            "a location that is not plain ASCII"
        );
    }

    #[test]
    fn the_error_says_what_happened_and_what_to_do() {
        let to = Some("https://new.example/mcp".to_owned());
        let error = SendError::Redirected { status: 308, to }.to_string();
        assert_eq!(
            error,
            "the server redirected the request (HTTP 308) to `https://new.example/mcp`; presa \
             does not follow redirects, which would carry the request's credentials there: if \
             you trust it, use that URL as the endpoint"
        );
        let error = SendError::Redirected {
            status: 302,
            to: None,
        }
        .to_string();
        assert_eq!(
            error,
            "the server redirected the request (HTTP 302) without saying where; presa does not \
             follow redirects, which would carry the request's credentials there"
        );
    }
}
