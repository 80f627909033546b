//! Of the authorization servers a resource lists, the one a client signs
//! in at.
//!
//! An MCP server names its authorization server in its resource metadata.
//! A hostile or compromised server can name the attacker's. A client that
//! sent its credentials wherever the resource pointed would hand them to
//! the attacker, who replays them at the real authorization server. So a
//! client that holds credentials is bound to one issuer (see
//! [`UnboundOAuthClient`](crate::client::oauth::UnboundOAuthClient)), and discovery
//! chooses by these rules, in order:
//!
//! 1. a bound client signs in at that issuer only. Of the authorization
//!    servers a resource lists, discovery takes the bound one. A resource
//!    that does not list it is refused before anything, even a metadata
//!    request, goes to the servers it does list;
//! 2. issuers are compared exactly, character for character, as RFC 8414
//!    section 3.3 compares them: the issuer a resource lists is the one
//!    whose metadata must name itself exactly;
//! 3. a client that holds no credentials (a public client id, dynamic
//!    registration, a Client ID Metadata Document) takes the first listed,
//!    as RFC 9728 leaves it to the client.

use crate::client::oauth::error::{OAuthError, Step};

/// The authorization server to sign in at, of those `listed` by resource
/// `resource`: the one the client is bound to (rules 1 and 2), else the
/// first (rule 3).
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
