//! Who is calling: the authentication hook, bearer tokens, and the
//! Protected Resource Metadata that tells a client where to get a token.
//!
//! Over HTTP the caller is not a connection but a request: each one
//! presents its credentials, and an [`Authenticator`] maps them to the
//! [`Caller`] whose subject owns tasks and `requestState`. A request the
//! authenticator refuses gets `401 Unauthorized` (or `403 Forbidden` for
//! insufficient scope) with a `WWW-Authenticate: Bearer` challenge whose
//! `resource_metadata` points at the server's Protected Resource Metadata
//! (RFC 9728), from which an OAuth client learns the authorization server.
//! Validating OAuth tokens (signatures, audience, expiry) is the
//! authenticator's job; [`BearerTokens`] covers the simple case of fixed
//! tokens.

use std::collections::HashMap;

use async_trait::async_trait;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::server::caller::Caller;

/// Maps a request's credentials to the caller behind it.
#[async_trait]
pub trait Authenticator: Send + Sync + 'static {
    /// The caller `request` speaks for, or why it is refused.
    async fn authenticate(&self, request: &Parts) -> Result<Caller, Refusal>;
}

/// Why a request was refused, and what to tell the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No credentials, or invalid ones: `401`.
    Unauthorized {
        /// The scopes to ask for, when the server knows them.
        scope: Option<String>,
    },
    /// Valid credentials without the scope this needs: `403`.
    InsufficientScope {
        /// The scopes the request needs.
        scope: String,
    },
}

/// Every request is anonymous: the default, for a server on loopback.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anonymous;

#[async_trait]
impl Authenticator for Anonymous {
    async fn authenticate(&self, _: &Parts) -> Result<Caller, Refusal> {
        Ok(Caller::anonymous())
    }
}

/// Fixed bearer tokens, each standing for a subject: for tests, and for
/// servers whose tokens are issued out of band.
///
/// Tokens are kept and compared as SHA-256 digests, so neither memory nor
/// the time a lookup takes says anything about a valid token.
#[derive(Debug, Clone, Default)]
pub struct BearerTokens {
    subjects: HashMap<[u8; 32], String>,
}

impl BearerTokens {
    /// No tokens yet: every request is refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Admits `Authorization: Bearer {token}` as `subject`.
    pub fn token(mut self, token: impl AsRef<str>, subject: impl Into<String>) -> Self {
        self.subjects.insert(digest(token.as_ref()), subject.into());
        self
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[async_trait]
impl Authenticator for BearerTokens {
    async fn authenticate(&self, request: &Parts) -> Result<Caller, Refusal> {
        let token = request
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(bearer_token);
        token
            .and_then(|token| self.subjects.get(&digest(token)))
            .map(|subject| Caller::subject(subject.clone()))
            .ok_or(Refusal::Unauthorized { scope: None })
    }
}

/// The token of an `Authorization: Bearer …` value (the scheme is
/// compared without case).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// OAuth 2.0 Protected Resource Metadata (RFC 9728), published at
/// `/.well-known/oauth-protected-resource` and named by every challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtectedResourceMetadata {
    /// The resource's identifier: the MCP endpoint's canonical URL.
    pub resource: String,
    /// The authorization servers that issue tokens for it.
    pub authorization_servers: Vec<String>,
    /// The scopes it understands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How tokens may be presented; MCP allows the header only.
    pub bearer_methods_supported: Vec<String>,
}

impl ProtectedResourceMetadata {
    /// Metadata for the endpoint at `resource`, whose tokens come from
    /// `authorization_server`.
    pub fn new(resource: impl Into<String>, authorization_server: impl Into<String>) -> Self {
        ProtectedResourceMetadata {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: None,
            bearer_methods_supported: vec!["header".into()],
        }
    }

    /// The scopes the resource understands.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Where this document is published, by RFC 9728's rule: the
    /// well-known path inserted before the resource's path.
    pub fn url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// The well-known path this document is served at on this server.
    pub(crate) fn well_known_path(&self) -> String {
        let (_, path) = split_origin(&self.resource);
        format!("/.well-known/oauth-protected-resource{path}")
    }
}

/// `("https://host:port", "/path")` of an absolute URL; the path is empty
/// for the root.
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(slash) => {
            let (origin, path) = url.split_at(after_scheme + slash);
            (origin, path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

/// The `WWW-Authenticate` value of a refusal.
pub(crate) fn challenge(refusal: &Refusal, metadata: Option<&ProtectedResourceMetadata>) -> String {
    let mut parts = Vec::new();
    if let Refusal::InsufficientScope { .. } = refusal {
        parts.push(r#"error="insufficient_scope""#.to_owned());
    }
    if let Some(metadata) = metadata {
        parts.push(format!("resource_metadata=\"{}\"", metadata.url()));
    }
    let scope = match refusal {
        Refusal::Unauthorized { scope } => scope.as_deref(),
        Refusal::InsufficientScope { scope } => Some(scope.as_str()),
    };
    if let Some(scope) = scope {
        parts.push(format!("scope=\"{scope}\""));
    }
    if parts.is_empty() {
        "Bearer".into()
    } else {
        format!("Bearer {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(authorization: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder();
        if let Some(value) = authorization {
            request = request.header(AUTHORIZATION, value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[tokio::test]
    async fn bearer_tokens_map_to_subjects() {
        let tokens = BearerTokens::new().token("t-alice", "alice");
        let alice = tokens.authenticate(&parts(Some("Bearer t-alice"))).await;
        assert_eq!(alice, Ok(Caller::subject("alice")));
        let lower = tokens.authenticate(&parts(Some("bearer t-alice"))).await;
        assert_eq!(lower, Ok(Caller::subject("alice")));
        for refused in [
            None,
            Some("Bearer nope"),
            Some("Basic t-alice"),
            Some("Bearer "),
        ] {
            let outcome = tokens.authenticate(&parts(refused)).await;
            assert_eq!(
                outcome,
                Err(Refusal::Unauthorized { scope: None }),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn metadata_lives_at_the_well_known_path_of_its_resource() {
        let metadata = ProtectedResourceMetadata::new(
            "https://mcp.example.com/mcp",
            "https://auth.example.com",
        );
        assert_eq!(
            metadata.url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata.well_known_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        let root =
            ProtectedResourceMetadata::new("http://127.0.0.1:3000", "https://auth.example.com");
        assert_eq!(
            root.well_known_path(),
            "/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn challenges_name_the_metadata_and_the_scope() {
        let metadata =
            ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example");
        assert_eq!(
            challenge(&Refusal::Unauthorized { scope: None }, Some(&metadata)),
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#
        );
        assert_eq!(
            challenge(
                &Refusal::InsufficientScope {
                    scope: "files:write".into()
                },
                None
            ),
            r#"Bearer error="insufficient_scope", scope="files:write""#
        );
    }
}
