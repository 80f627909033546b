//! An authorization server's metadata (RFC 8414, or OpenID Connect
//! Discovery): where it is found, what presa reads of it, and the checks
//! every document passes before either side uses it.
//!
//! The places are tried in the order of `well_known::server_metadata_urls`.
//! A place that answers `4xx` moves on to the next; one that cannot be
//! reached, or answers `5xx`, ends the search (the server is down, not
//! elsewhere). The document found must then hold:
//!
//! 1. it parses as JSON with an `issuer`;
//! 2. the `issuer` is the one asked for, character for character (RFC
//!    8414 section 3.3): tokens carry that issuer, and a document naming
//!    another was not served by the issuer asked about;
//! 3. every endpoint it names is `https`, or plain `http` to loopback.

use serde::Deserialize;

use super::fetch::{Fetch, FetchError, allowed_url};
use super::well_known::server_metadata_urls;

/// Issuer `issuer`'s metadata, from the first place that has it.
pub(crate) async fn discover(
    fetch: &dyn Fetch,
    issuer: &str,
) -> Result<ServerMetadata, FetchError> {
    let mut last = None;
    for url in server_metadata_urls(issuer) {
        match fetch.get(&url).await {
            Ok(fetched) => return ServerMetadata::parse(&url, &fetched.body, issuer),
            Err(error) if error.is_absent() => last = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last.expect("every issuer has at least two places"))
}

/// What presa reads of an authorization server's metadata; every field
/// but `issuer` may be absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    #[serde(default)]
    pub jwks_uri: Option<String>,
    #[serde(default)]
    pub introspection_endpoint: Option<String>,
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    #[serde(default)]
    pub token_endpoint: Option<String>,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// The document fetched from `url` for issuer `issuer`, once it passes
    /// the checks.
    pub fn parse(url: &str, body: &[u8], issuer: &str) -> Result<ServerMetadata, FetchError> {
        let invalid = |reason: String| FetchError::Invalid {
            url: url.to_owned(),
            what: "authorization server metadata",
            reason,
        };
        let metadata: ServerMetadata =
            serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
        if metadata.issuer != issuer {
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
        for endpoint in [
            &metadata.jwks_uri,
            &metadata.introspection_endpoint,
            &metadata.authorization_endpoint,
            &metadata.token_endpoint,
            &metadata.registration_endpoint,
        ]
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_must_name_its_issuer_exactly() {
        let body = br#"{"issuer": "https://as.example/", "jwks_uri": "https://as.example/jwks"}"#;
        let parsed = ServerMetadata::parse("u", body, "https://as.example/").unwrap();
        assert_eq!(parsed.jwks_uri.as_deref(), Some("https://as.example/jwks"));
        let Err(FetchError::Invalid { reason, .. }) =
            ServerMetadata::parse("u", body, "https://as.example")
        else {
            panic!("an issuer without the metadata's trailing slash was accepted");
        };
        assert!(
            reason.contains("they differ by a trailing slash"),
            "{reason}"
        );
        let Err(FetchError::Invalid { reason, .. }) =
            ServerMetadata::parse("u", body, "https://other.example/")
        else {
            panic!("another issuer's metadata was accepted");
        };
        assert_eq!(
            reason,
            "it names issuer `https://as.example/`, not `https://other.example/`"
        );
    }

    #[test]
    fn every_endpoint_must_be_https_or_loopback() {
        for field in ["jwks_uri", "token_endpoint", "authorization_endpoint"] {
            let body =
                format!(r#"{{"issuer": "https://as.example/", "{field}": "http://as.example/x"}}"#);
            let refused = ServerMetadata::parse("u", body.as_bytes(), "https://as.example/");
            assert!(refused.is_err(), "{field}: {refused:?}");
        }
    }
}
