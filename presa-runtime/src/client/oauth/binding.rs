//! Credentials and the one authorization server they belong to.
//!
//! An MCP server names its authorization server in its resource metadata.
//! A hostile or compromised server can name the attacker's. A client that
//! sent its credentials wherever the resource pointed would hand them to
//! the attacker, who replays them at the real authorization server. So,
//! in order:
//!
//! 1. a client that holds a credential is an [`UnboundOAuthClient`] until
//!    [`registered_with`](UnboundOAuthClient::registered_with) names the
//!    issuer its credentials were registered with. Only then is it an
//!    [`OAuthClient`], the only type that
//!    [`HttpOptions::oauth`](crate::client::HttpOptions::oauth) takes. The
//!    credentials are a client secret, a `private_key_jwt` key, a
//!    workload's assertion (`jwt_bearer`) and an enterprise sign-in. A
//!    public client id, or none at all, needs no binding: it proves
//!    nothing an attacker could replay;
//! 2. a bound client signs in at that issuer only. Of the authorization
//!    servers a resource lists, discovery takes the bound one. A resource
//!    that does not list it is refused before anything, even a metadata
//!    request, goes to the servers it does list;
//! 3. issuers are compared exactly, character for character, as RFC 8414
//!    section 3.3 compares them: the issuer a resource lists is the one
//!    whose metadata must name itself exactly.
//!
//! Why a type and not a check at the first sign-in: the binding is part
//! of the credentials, as their value is, and a client built without it
//! does not compile, with a message that says to call `registered_with`.
//! A check would surface only when a server first answers `401`.
//!
//! Assertions whose audience is the issuer (`private_key_jwt`, and the
//! ID-JAG an enterprise's identity provider issues) could not be replayed
//! elsewhere even unbound. They are bound all the same: a client secret
//! may sit beside them, and the identity provider is asked for an ID-JAG
//! for the bound issuer only, never for one a resource chose.

use std::fmt;

use secrecy::SecretString;

use super::client_key::ClientKey;
use super::config::OAuthClient;
use super::error::{OAuthError, Step};

/// An [`OAuthClient`] that holds credentials (a client secret, a
/// `private_key_jwt` key, a workload's assertion, an enterprise
/// sign-in) but does not yet say which authorization server they belong
/// to. [`registered_with`](Self::registered_with) says so, and gives the
/// `OAuthClient`:
///
/// ```
/// use presa_runtime::client::oauth::OAuthClient;
///
/// let oauth = OAuthClient::client_credentials("reporting-job")
///     .client_secret("s3cret")
///     .registered_with("https://auth.example.com");
/// # let _: OAuthClient = oauth;
/// ```
///
/// The client then sends its credentials to that issuer only: a resource
/// whose metadata names another authorization server is refused before
/// anything is sent there. The other settings (`token_store`, `dpop`, …)
/// are [`OAuthClient`]'s, after `registered_with`.
#[derive(Clone)]
#[must_use = "an unbound client signs nobody in: call `.registered_with(issuer)`"]
pub struct UnboundOAuthClient(OAuthClient);

impl UnboundOAuthClient {
    pub(crate) fn new(client: OAuthClient) -> Self {
        UnboundOAuthClient(client)
    }

    /// Uses the client id `client_id`, registered beforehand (for a
    /// workload, whose assertion names it otherwise).
    pub fn client_id(self, client_id: impl Into<String>) -> Self {
        UnboundOAuthClient(self.0.client_id(client_id))
    }

    /// The secret of the pre-registered client id.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        if let Some(registered) = &mut self.0.pre_registered {
            registered.client_secret = Some(SecretString::from(secret.into()));
        }
        self
    }

    /// Authenticates the pre-registered client id by `private_key_jwt`:
    /// an assertion signed with `key`, for the authorization server's
    /// issuer, in place of a secret.
    pub fn private_key_jwt(mut self, key: ClientKey) -> Self {
        if let Some(registered) = &mut self.0.pre_registered {
            registered.key = Some(key);
        }
        self
    }

    /// The authorization server (its issuer, exactly as its metadata
    /// names it) the credentials were registered with: the only one they
    /// are sent to.
    pub fn registered_with(self, issuer: impl Into<String>) -> OAuthClient {
        self.0.registered_with(issuer)
    }
}

impl fmt::Debug for UnboundOAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UnboundOAuthClient").field(&self.0).finish()
    }
}

/// What [`HttpOptions::oauth`](crate::client::HttpOptions::oauth) takes:
/// an [`OAuthClient`], whose credentials, if it holds any, are bound to
/// their authorization server. Only `OAuthClient` is one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an OAuth client bound to its authorization server",
    label = "call `.registered_with(issuer)` on it first",
    note = "a client secret, a private key, a workload's assertion or an enterprise sign-in goes only to the authorization server that `registered_with` names"
)]
pub trait BoundOAuthClient: sealed::Sealed {
    /// The client.
    fn into_client(self) -> OAuthClient;
}

impl BoundOAuthClient for OAuthClient {
    fn into_client(self) -> OAuthClient {
        self
    }
}

mod sealed {
    /// Keeps [`BoundOAuthClient`](super::BoundOAuthClient) to presa's
    /// types.
    pub trait Sealed {}
    impl Sealed for super::OAuthClient {}
}

/// The authorization server to sign in at, of those `listed` by resource
/// `resource` (rule 2): the one the client is bound to, else the first.
/// `None` when none is listed, bound or not.
pub(crate) fn choose<'a>(
    listed: &'a [String],
    bound: Option<&str>,
    resource: &str,
) -> Result<Option<&'a str>, OAuthError> {
    let Some(bound) = bound.filter(|_| !listed.is_empty()) else {
        return Ok(listed.first().map(String::as_str));
    };
    if let Some(found) = listed.iter().find(|issuer| *issuer == bound) {
        return Ok(Some(found));
    }
    let named = listed
        .iter()
        .map(|issuer| format!("`{issuer}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = if listed
        .iter()
        .any(|issuer| issuer.trim_end_matches('/') == bound.trim_end_matches('/'))
    {
        " (they differ by a trailing slash: give `registered_with` the issuer exactly as its metadata names it)"
    } else {
        ""
    };
    Err(OAuthError::new(
        Step::Discovery,
        format!(
            "`{resource}` names authorization server {named}, but this client is registered with `{bound}` (`registered_with`){hint}; nothing was sent to it"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(issuers: &[&str]) -> Vec<String> {
        issuers.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_bound_client_takes_its_issuer_wherever_the_resource_lists_it() {
        let servers = listed(&["https://other.example", "https://as.example"]);
        let chosen = choose(&servers, Some("https://as.example"), "https://mcp.example");
        assert_eq!(chosen.unwrap(), Some("https://as.example"));
        // Unbound: the first, as RFC 9728 leaves it to the client.
        assert_eq!(
            choose(&servers, None, "https://mcp.example").unwrap(),
            Some("https://other.example")
        );
        assert_eq!(choose(&[], None, "https://mcp.example").unwrap(), None);
    }

    #[test]
    fn a_resource_that_does_not_list_the_bound_issuer_is_refused_and_told_why() {
        let servers = listed(&["https://evil.example"]);
        let error = choose(
            &servers,
            Some("https://as.example"),
            "https://mcp.example/mcp",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "OAuth discovery failed: `https://mcp.example/mcp` names authorization server \
             `https://evil.example`, but this client is registered with `https://as.example` \
             (`registered_with`); nothing was sent to it"
        );
        // Exactly, as RFC 8414 compares issuers; a trailing slash is named.
        let servers = listed(&["https://as.example/"]);
        let error = choose(
            &servers,
            Some("https://as.example"),
            "https://mcp.example/mcp",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("differ by a trailing slash"), "{error}");
        let servers = listed(&["HTTPS://AS.EXAMPLE"]);
        assert!(choose(&servers, Some("https://as.example"), "https://mcp.example").is_err());
        // None listed: discovery says so.
        assert_eq!(
            choose(&[], Some("https://as.example"), "https://mcp.example").unwrap(),
            None
        );
    }
}
