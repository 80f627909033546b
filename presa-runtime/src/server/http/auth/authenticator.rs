//! [`Authenticator`]: the hook that maps a request's credentials to its
//! caller, its [`Refusal`]s and their `WWW-Authenticate` challenges, and
//! the bearer and DPoP schemes a request presents a token under.

use std::time::Duration;

use async_trait::async_trait;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

use crate::oauth::resource_metadata::ProtectedResourceMetadata;
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
    /// A DPoP proof that does not hold: `401` with a `DPoP` challenge and
    /// `error="invalid_dpop_proof"`.
    InvalidDpopProof {
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

/// How a request presents its access token: the scheme of its
/// `Authorization` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// `Bearer` (RFC 6750): whoever holds the token may use it.
    Bearer,
    /// `DPoP` (RFC 9449): the token is bound to a key, and the request's
    /// `DPoP` header proves that it holds the key.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Dpop,
}

/// The scheme and token of a request's `Authorization: Bearer …` or
/// `Authorization: DPoP …` header (the scheme is compared without case);
/// `Ok(None)` without the header, and a refusal for any other header.
pub(crate) fn presented_token(request: &Parts) -> Result<Option<(Scheme, &str)>, Refusal> {
    let Some(value) = request.headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = Refusal::InvalidToken {
        description: "the Authorization header is not a bearer token",
    };
    let value = value.to_str().map_err(|_| malformed.clone())?;
    let (scheme, token) = value.split_once(' ').ok_or(malformed.clone())?;
    let token = token.trim();
    if token.is_empty() {
        return Err(malformed);
    }
    if scheme.eq_ignore_ascii_case("bearer") {
        Ok(Some((Scheme::Bearer, token)))
    } else if scheme.eq_ignore_ascii_case("dpop") {
        Ok(Some((Scheme::Dpop, token)))
    } else {
        Err(malformed)
    }
}

/// The token of a request's `Authorization: Bearer …` header; `Ok(None)`
/// without the header, and a refusal for a header that is not a bearer
/// token, `DPoP` included.
pub(crate) fn bearer_token(request: &Parts) -> Result<Option<&str>, Refusal> {
    match presented_token(request)? {
        None => Ok(None),
        Some((Scheme::Bearer, token)) => Ok(Some(token)),
        Some((Scheme::Dpop, _)) => Err(Refusal::InvalidToken {
            description: "the Authorization header is not a bearer token",
        }),
    }
}

/// The `WWW-Authenticate` value of a refusal (rules 1 to 6); `None` for
/// one that is not about credentials.
pub(crate) fn challenge(
    refusal: &Refusal,
    metadata: Option<&ProtectedResourceMetadata>,
) -> Option<String> {
    let mut parts = Vec::new();
    let mut proof_at_fault = false;
    let scope = match refusal {
        Refusal::Unauthorized { scope } => scope.as_deref(),
        Refusal::InvalidToken { description } => {
            parts.push(r#"error="invalid_token""#.to_owned());
            parts.push(format!("error_description=\"{description}\""));
            None
        }
        Refusal::InvalidDpopProof { description } => {
            proof_at_fault = true;
            parts.push(r#"error="invalid_dpop_proof""#.to_owned());
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
    let dpop_algs = metadata
        .and_then(|m| m.dpop_signing_alg_values_supported.as_ref())
        .filter(|algs| !algs.is_empty());
    let dpop_only =
        dpop_algs.is_some() && metadata.is_some_and(|m| m.dpop_bound_access_tokens_required);
    let mut challenges = Vec::new();
    if !proof_at_fault && !dpop_only {
        challenges.push(with_parameters("Bearer", &parts));
    }
    if dpop_algs.is_some() || proof_at_fault {
        if let Some(algs) = dpop_algs {
            parts.push(format!("algs=\"{}\"", algs.join(" ")));
        }
        challenges.push(with_parameters("DPoP", &parts));
    }
    Some(challenges.join(", "))
}

/// One challenge: `scheme`, then its parameters.
fn with_parameters(scheme: &str, parameters: &[String]) -> String {
    if parameters.is_empty() {
        scheme.to_owned()
    } else {
        format!("{scheme} {}", parameters.join(", "))
    }
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

    #[test]
    fn a_resource_that_takes_dpop_adds_its_challenge_and_the_algorithms() {
        let mut metadata =
            ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example");
        metadata.dpop_signing_alg_values_supported = Some(vec!["ES256".into(), "PS256".into()]);
        let published = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            challenge(&Refusal::Unauthorized { scope: None }, Some(&metadata)).unwrap(),
            format!(
                r#"Bearer resource_metadata="{published}", DPoP resource_metadata="{published}", algs="ES256 PS256""#
            )
        );
        let invalid = Refusal::InvalidToken {
            description: "the token is DPoP-bound",
        };
        assert_eq!(
            challenge(&invalid, Some(&metadata)).unwrap(),
            format!(
                r#"Bearer error="invalid_token", error_description="the token is DPoP-bound", resource_metadata="{published}", DPoP error="invalid_token", error_description="the token is DPoP-bound", resource_metadata="{published}", algs="ES256 PS256""#
            )
        );
        // The proof at fault: the DPoP challenge alone.
        let proof = Refusal::InvalidDpopProof {
            description: "the DPoP proof is too old",
        };
        assert_eq!(
            challenge(&proof, Some(&metadata)).unwrap(),
            format!(
                r#"DPoP error="invalid_dpop_proof", error_description="the DPoP proof is too old", resource_metadata="{published}", algs="ES256 PS256""#
            )
        );
        assert_eq!(
            challenge(&proof, None).unwrap(),
            r#"DPoP error="invalid_dpop_proof", error_description="the DPoP proof is too old""#
        );
        // DPoP required: no Bearer challenge at all.
        metadata.dpop_bound_access_tokens_required = true;
        let step_up = Refusal::InsufficientScope { scope: "a".into() };
        assert_eq!(
            challenge(&step_up, Some(&metadata)).unwrap(),
            format!(
                r#"DPoP error="insufficient_scope", scope="a", resource_metadata="{published}", algs="ES256 PS256""#
            )
        );
    }

    #[test]
    fn the_scheme_of_a_token_is_read_without_case() {
        let parts = |value: &str| {
            axum::http::Request::builder()
                .header(AUTHORIZATION, value)
                .body(())
                .unwrap()
                .into_parts()
                .0
        };
        let presented = |value: &str| presented_token(&parts(value)).map(|p| p.map(|(s, _)| s));
        assert_eq!(presented("Bearer t"), Ok(Some(Scheme::Bearer)));
        assert_eq!(presented("dpop t"), Ok(Some(Scheme::Dpop)));
        assert_eq!(presented("DPoP t"), Ok(Some(Scheme::Dpop)));
        for refused in ["Basic t", "DPoP ", "DPoP", "Bearer"] {
            assert!(presented(refused).is_err(), "{refused}");
        }
        // Fixed bearer tokens take no DPoP.
        assert!(bearer_token(&parts("DPoP t")).is_err());
        assert_eq!(bearer_token(&parts("bearer t")), Ok(Some("t")));
    }
}
