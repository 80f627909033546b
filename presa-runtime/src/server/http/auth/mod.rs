//! Who is calling: the authentication hook, its refusals, bearer tokens,
//! OAuth access tokens, and the Protected Resource Metadata that tells a
//! client where to get a token.
//!
//! Over HTTP the caller is not a connection but a request: each one
//! presents its credentials, and an [`Authenticator`] maps them to the
//! [`Caller`] whose principal owns tasks and `requestState` and whose
//! scopes the handlers require. A refusal is answered by these rules
//! (RFC 6750 section 3, and the MCP authorization spec):
//!
//! 1. no credentials: `401` with a `WWW-Authenticate: Bearer` challenge
//!    whose `resource_metadata` names the server's Protected Resource
//!    Metadata (RFC 9728), where an OAuth client learns the authorization
//!    server, and no error code;
//! 2. credentials that do not hold (a bad signature, another audience, an
//!    expired token): `401` with `error="invalid_token"` and a short
//!    `error_description` that names the kind of failure only; the cause
//!    goes to `tracing`, never to the client;
//! 3. a valid token without the scopes a handler declares: `403` with
//!    `error="insufficient_scope"` and every scope the operation needs
//!    (the step-up challenge);
//! 4. the server cannot check the token now (its authorization server is
//!    unreachable for keys it does not hold): `503` with `Retry-After`, a
//!    failure of the server's, not the caller's.
//!
//! [`BearerTokens`] covers fixed tokens issued out of band;
//! `OAuth` (feature `oauth`) validates the access tokens of
//! any standard authorization server.

mod bearer;
#[cfg(feature = "oauth")]
mod oauth;

use std::time::Duration;

use async_trait::async_trait;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

pub use crate::oauth::resource_metadata::ProtectedResourceMetadata;
pub use bearer::BearerTokens;
#[cfg(feature = "oauth")]
pub use oauth::{Introspection, KeySettings, OAuth, OAuthBuilder, OAuthError};

use crate::server::caller::{Caller, Scopes};

/// Maps a request's credentials to the caller behind it.
#[async_trait]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `Authenticator`",
    note = "an authenticator maps a request's `Parts` to a `Caller`: implement `presa::server::http::Authenticator`, or use `BearerTokens` or `OAuth`"
)]
pub trait Authenticator: Send + Sync + 'static {
    /// The caller `request` speaks for, or why it is refused.
    async fn authenticate(&self, request: &Parts) -> Result<Caller, Refusal>;
}

/// Why a request was refused, and what to tell the client (the rules are
/// in the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// No credentials: `401`.
    Unauthorized {
        /// The scopes to ask for, when the server knows them.
        scope: Option<String>,
    },
    /// Credentials that do not hold: `401` with `error="invalid_token"`.
    InvalidToken {
        /// What the client is told: the kind of failure, never its detail.
        description: &'static str,
    },
    /// Valid credentials without the scope this needs: `403`.
    InsufficientScope {
        /// The scopes the request needs, space-separated.
        scope: String,
    },
    /// The credentials cannot be checked now: `503` with `Retry-After`.
    Unavailable {
        /// When to try again.
        retry_after: Duration,
    },
}

/// Every request is anonymous, holding no scope: the default, for a server
/// on loopback. A handler that declares scopes is refused to every caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anonymous;

#[async_trait]
impl Authenticator for Anonymous {
    async fn authenticate(&self, _: &Parts) -> Result<Caller, Refusal> {
        Ok(Caller::anonymous().scopes(Scopes::none()))
    }
}

/// The token of a request's `Authorization: Bearer …` header (the scheme
/// is compared without case); `Ok(None)` without the header, and a refusal
/// for a header that is not a bearer token.
pub(crate) fn bearer_token(request: &Parts) -> Result<Option<&str>, Refusal> {
    let Some(value) = request.headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = Refusal::InvalidToken {
        description: "the Authorization header is not a bearer token",
    };
    let value = value.to_str().map_err(|_| malformed.clone())?;
    let (scheme, token) = value.split_once(' ').ok_or(malformed.clone())?;
    let token = token.trim();
    if scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() {
        Ok(Some(token))
    } else {
        Err(malformed)
    }
}

/// The `WWW-Authenticate` value of a refusal; `None` for one that is not
/// about credentials.
pub(crate) fn challenge(
    refusal: &Refusal,
    metadata: Option<&ProtectedResourceMetadata>,
) -> Option<String> {
    let mut parts = Vec::new();
    let scope = match refusal {
        Refusal::Unauthorized { scope } => scope.as_deref(),
        Refusal::InvalidToken { description } => {
            parts.push(r#"error="invalid_token""#.to_owned());
            parts.push(format!("error_description=\"{description}\""));
            None
        }
        Refusal::InsufficientScope { scope } => {
            parts.push(r#"error="insufficient_scope""#.to_owned());
            Some(scope.as_str())
        }
        Refusal::Unavailable { .. } => return None,
    };
    if let Some(scope) = scope {
        parts.push(format!("scope=\"{scope}\""));
    }
    if let Some(metadata) = metadata {
        parts.push(format!("resource_metadata=\"{}\"", metadata.url()));
    }
    Some(if parts.is_empty() {
        "Bearer".into()
    } else {
        format!("Bearer {}", parts.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_name_the_metadata_the_error_and_the_scope() {
        let metadata =
            ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example");
        let published = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            challenge(&Refusal::Unauthorized { scope: None }, Some(&metadata)).unwrap(),
            format!(r#"Bearer resource_metadata="{published}""#)
        );
        let invalid = Refusal::InvalidToken {
            description: "the token has expired",
        };
        assert_eq!(
            challenge(&invalid, Some(&metadata)).unwrap(),
            format!(
                r#"Bearer error="invalid_token", error_description="the token has expired", resource_metadata="{published}""#
            )
        );
        let step_up = Refusal::InsufficientScope {
            scope: "files:write files:read".into(),
        };
        assert_eq!(
            challenge(&step_up, Some(&metadata)).unwrap(),
            format!(
                r#"Bearer error="insufficient_scope", scope="files:write files:read", resource_metadata="{published}""#
            )
        );
        assert_eq!(
            challenge(&Refusal::Unauthorized { scope: None }, None).unwrap(),
            "Bearer"
        );
        let unavailable = Refusal::Unavailable {
            retry_after: Duration::from_secs(5),
        };
        assert_eq!(challenge(&unavailable, Some(&metadata)), None);
    }
}
