//! Where an authorization server keeps its keys and its introspection
//! endpoint: its metadata, found from its issuer URL.
//!
//! The places tried, in order, for issuer `https://as.example/tenant`
//! (RFC 8414 section 3.1, then OpenID Connect Discovery both ways, as the
//! MCP authorization spec has clients do):
//!
//! 1. `https://as.example/.well-known/oauth-authorization-server/tenant`;
//! 2. `https://as.example/.well-known/openid-configuration/tenant`;
//! 3. `https://as.example/tenant/.well-known/openid-configuration`.
//!
//! An issuer without a path has the first two only. A place that answers
//! `4xx` moves on to the next; one that cannot be reached, or answers
//! `5xx`, ends the search (the server is down, not elsewhere). The document
//! found must name the issuer exactly (RFC 8414 section 3.3): one that names
//! another is refused, since whoever serves it is not that issuer.

use serde::Deserialize;

use super::fetch::{Fetch, FetchError, allowed_url};

/// What presa reads of an authorization server's metadata.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    #[serde(default)]
    pub jwks_uri: Option<String>,
    #[serde(default)]
    pub introspection_endpoint: Option<String>,
}

/// The places issuer `issuer`'s metadata may be, in the order tried.
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let after_scheme = trimmed.find("://").map_or(0, |i| i + 3);
    let (origin, path) = match trimmed[after_scheme..].find('/') {
        Some(slash) => trimmed.split_at(after_scheme + slash),
        None => (trimmed, ""),
    };
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{trimmed}/.well-known/openid-configuration"));
    }
    urls
}

/// Issuer `issuer`'s metadata, from the first place that has it.
pub(crate) async fn discover(
    fetch: &dyn Fetch,
    issuer: &str,
) -> Result<ServerMetadata, FetchError> {
    let mut last = None;
    for url in metadata_urls(issuer) {
        match fetch.get(&url).await {
            Ok(fetched) => return parse(&url, &fetched.body, issuer),
            Err(error) if error.is_absent() => last = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last.expect("every issuer has at least two places"))
}

fn parse(url: &str, body: &[u8], issuer: &str) -> Result<ServerMetadata, FetchError> {
    let invalid = |reason: String| FetchError::Invalid {
        url: url.to_owned(),
        what: "authorization server metadata",
        reason,
    };
    let metadata: ServerMetadata =
        serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
    if metadata.issuer != issuer {
        // Tokens carry the issuer the metadata names, so configuring it
        // any other way could never work.
        let hint = if metadata.issuer.trim_end_matches('/') == issuer.trim_end_matches('/') {
            " (they differ by a trailing slash: configure the issuer exactly as its metadata names it)"
        } else {
            ""
        };
        return Err(invalid(format!(
            "it names issuer `{}`, not `{issuer}`{hint}",
            metadata.issuer
        )));
    }
    for endpoint in [&metadata.jwks_uri, &metadata.introspection_endpoint]
        .into_iter()
        .flatten()
    {
        if !allowed_url(endpoint) {
            return Err(invalid(format!(
                "`{endpoint}` is neither https nor loopback http"
            )));
        }
    }
    Ok(metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_inserted_after_the_well_known_prefix_then_appended() {
        assert_eq!(
            metadata_urls("https://as.example/tenant"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant",
                "https://as.example/.well-known/openid-configuration/tenant",
                "https://as.example/tenant/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example/"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn metadata_must_name_its_issuer_exactly() {
        let body = br#"{"issuer": "https://as.example/", "jwks_uri": "https://as.example/jwks"}"#;
        let parsed = parse("u", body, "https://as.example/").unwrap();
        assert_eq!(parsed.jwks_uri.as_deref(), Some("https://as.example/jwks"));
        let Err(FetchError::Invalid { reason, .. }) = parse("u", body, "https://as.example") else {
            panic!("an issuer without the metadata's trailing slash was accepted");
        };
        assert!(
            reason.contains("they differ by a trailing slash"),
            "{reason}"
        );
        let Err(FetchError::Invalid { reason, .. }) = parse("u", body, "https://other.example/")
        else {
            panic!("another issuer's metadata was accepted");
        };
        assert_eq!(
            reason,
            "it names issuer `https://as.example/`, not `https://other.example/`"
        );
        let plain = br#"{"issuer": "https://as.example/", "jwks_uri": "http://as.example/jwks"}"#;
        assert!(parse("u", plain, "https://as.example/").is_err());
    }
}
