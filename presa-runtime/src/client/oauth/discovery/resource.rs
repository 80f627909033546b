//! From a `401` to an authorization server: the resource's Protected
//! Resource Metadata (RFC 9728), then its authorization server's metadata.
//!
//! 1. the resource metadata is fetched from the challenge's
//!    `resource_metadata`, else from the endpoint's path-inserted
//!    well-known URL, then the root's; when neither has any, the server
//!    is one of the 2025-03-26 spec, and `discovery_2025_03_26` takes
//!    over rules 2 and 3;
//! 2. its `resource` must be this endpoint, or an origin-and-path prefix
//!    of it (a server's metadata for its whole origin): a document naming
//!    another resource would have the client ask for tokens for it;
//! 3. its first authorization server (or the one the client is bound to,
//!    as `binding` says) has its metadata found as
//!    `crate::oauth::server_metadata` says, naming that issuer exactly;
//! 4. that metadata must name a token endpoint and, for a client that
//!    signs users in, an authorization endpoint and PKCE with S256 (the
//!    MCP spec has clients refuse a server that does not offer it);
//! 5. every URL a server names here (the challenge's `resource_metadata`,
//!    the authorization server, its token and authorization endpoints)
//!    must lead where the fetcher's destinations allow
//!    (`crate::oauth::destinations`), or discovery fails before anything
//!    is sent to it. The authorization endpoint is opened by the
//!    authorizer, not fetched, and is held to the same rule.

use super::challenge::Challenge;
use super::discovered::Discovered;
use crate::client::oauth::error::{OAuthError, Step};
use crate::oauth::fetch::{Fetch, HttpFetch};
use crate::oauth::resource_metadata::ProtectedResourceMetadata;
use crate::oauth::server_metadata::{ServerMetadata, discover};
use crate::oauth::well_known::{resource_metadata_urls, split_origin};

/// Discovers the authorization server of `endpoint`, which answered
/// `challenge`; only issuer `bound`, when the client is bound to one
/// (see `binding`).
pub(crate) async fn discover_for(
    fetch: &HttpFetch,
    endpoint: &str,
    challenge: Option<&Challenge>,
    signs_users_in: bool,
    bound: Option<&str>,
) -> Result<Discovered, OAuthError> {
    let discovered = match resource_metadata(fetch, endpoint, challenge).await? {
        Some(metadata) => from_resource_metadata(fetch, endpoint, metadata, bound).await?,
        None => super::discovery_2025_03_26::discover(fetch, endpoint, bound).await?,
    };
    check_endpoints(fetch, &discovered.server, signs_users_in)?;
    Ok(discovered)
}

/// Rules 2 and 3, from the resource's metadata.
async fn from_resource_metadata(
    fetch: &HttpFetch,
    endpoint: &str,
    metadata: ProtectedResourceMetadata,
    bound: Option<&str>,
) -> Result<Discovered, OAuthError> {
    let failed = |reason: String| OAuthError::new(Step::Discovery, reason);
    if !names_endpoint(&metadata.resource, endpoint) {
        return Err(failed(format!(
            "the resource metadata names resource `{}`, which is not `{endpoint}`",
            metadata.resource
        )));
    }
    let listed = &metadata.authorization_servers;
    let Some(issuer) = super::binding::choose(listed, bound, &metadata.resource)? else {
        return Err(failed(format!(
            "the resource metadata of `{endpoint}` names no authorization server"
        )));
    };
    fetch.check(issuer).map_err(|e| {
        failed(format!(
            "the authorization server the resource metadata names: {e}"
        ))
    })?;
    let server = discover(fetch, issuer)
        .await
        .map_err(|e| failed(e.to_string()))?;
    Ok(Discovered {
        resource: metadata.resource,
        resource_scopes: metadata.scopes_supported,
        server,
    })
}

/// Rules 4 and 5.
fn check_endpoints(
    fetch: &HttpFetch,
    server: &ServerMetadata,
    signs_users_in: bool,
) -> Result<(), OAuthError> {
    let issuer = &server.issuer;
    let failed = |reason: String| Err(OAuthError::new(Step::Discovery, reason));
    let Some(token_endpoint) = &server.token_endpoint else {
        return failed(format!(
            "authorization server `{issuer}` names no token endpoint"
        ));
    };
    if let Err(refused) = fetch.check(token_endpoint) {
        return failed(format!(
            "the token endpoint of authorization server `{issuer}`: {refused}"
        ));
    }
    if !signs_users_in {
        return Ok(());
    }
    let pkce = server
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
    if !pkce {
        return failed(format!(
            "authorization server `{issuer}` does not offer PKCE with S256 (code_challenge_methods_supported)"
        ));
    }
    let Some(authorization_endpoint) = &server.authorization_endpoint else {
        return failed(format!(
            "authorization server `{issuer}` names no authorization endpoint"
        ));
    };
    if let Err(refused) = fetch.check(authorization_endpoint) {
        return failed(format!(
            "the authorization endpoint of authorization server `{issuer}`: {refused}"
        ));
    }
    Ok(())
}

/// The resource metadata, from the first place that has it (rule 1);
/// `None` when no well-known place has any (a server of the 2025-03-26
/// spec, which had none). A place a challenge named must have it.
async fn resource_metadata(
    fetch: &HttpFetch,
    endpoint: &str,
    challenge: Option<&Challenge>,
) -> Result<Option<ProtectedResourceMetadata>, OAuthError> {
    let named = challenge.and_then(|c| c.resource_metadata.clone());
    let places = match &named {
        Some(named) => vec![named.clone()],
        None => resource_metadata_urls(endpoint),
    };
    let mut last = None;
    for url in places {
        match fetch.get(&url).await {
            Ok(fetched) => {
                return serde_json::from_slice(&fetched.body)
                    .map(Some)
                    .map_err(|e| {
                        OAuthError::new(
                            Step::Discovery,
                            format!("{url} did not answer with resource metadata: {e}"),
                        )
                    });
            }
            Err(error) if error.is_absent() => last = Some(error),
            Err(error) => return Err(OAuthError::new(Step::Discovery, error.to_string())),
        }
    }
    match (named, last) {
        (Some(_), Some(error)) => Err(OAuthError::new(
            Step::Discovery,
            format!("no resource metadata for `{endpoint}`: {error}"),
        )),
        _ => Ok(None),
    }
}

/// Whether `resource` names `endpoint` (rule 2): the same origin (scheme
/// and host compared without case), and a path that is the endpoint's or
/// a whole-segment prefix of it.
fn names_endpoint(resource: &str, endpoint: &str) -> bool {
    let (resource_origin, resource_path) = split_origin(resource);
    let (endpoint_origin, endpoint_path) = split_origin(endpoint);
    resource_origin.eq_ignore_ascii_case(endpoint_origin)
        && (resource_path.is_empty()
            || endpoint_path == resource_path
            || endpoint_path
                .strip_prefix(resource_path)
                .is_some_and(|rest| rest.starts_with('/')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::destinations::Destinations;
    use crate::oauth::trap::Trap;

    #[tokio::test]
    async fn a_challenge_naming_the_metadata_service_is_refused_before_any_connection() {
        let trap = Trap::start().await;
        // Loopback and private networks allowed: the metadata service
        // stays out of reach all the same.
        let endpoint = "http://127.0.0.1:3000/mcp";
        let fetch = trap.fetcher(Destinations::of_endpoint(endpoint, true), &[]);
        let named = r#"Bearer resource_metadata="https://169.254.169.254/latest/meta-data/iam""#;
        let challenge = Challenge::find([named]).unwrap();
        let error = discover_for(&fetch, endpoint, Some(&challenge), true, None)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "OAuth discovery failed: https://169.254.169.254/latest/meta-data/iam is refused: \
             169.254.169.254 is a link-local address (where cloud metadata services answer) \
             (169.254.0.0/16): no setting allows it"
        );
        assert_eq!(trap.seen(), Vec::<String>::new());
    }

    #[tokio::test]
    async fn an_authorization_server_a_server_may_not_name_is_refused_before_any_connection() {
        let trap = Trap::start().await;
        let endpoint = "https://mcp.example.com/mcp";
        let fetch = trap.fetcher(Destinations::of_endpoint(endpoint, false), &[]);
        for (issuer, why) in [
            ("https://10.0.0.1", "10.0.0.1 is a private-network address"),
            (
                "https://[::ffff:10.0.0.1]",
                "::ffff:10.0.0.1 is a private-network address",
            ),
            ("http://127.0.0.1:8080", "127.0.0.1 is a loopback address"),
            ("https://localhost", "`localhost` is this machine"),
            ("http://as.example.com", "its scheme is `http`"),
        ] {
            let metadata = ProtectedResourceMetadata::new(endpoint, issuer);
            let error = from_resource_metadata(&fetch, endpoint, metadata, None)
                .await
                .unwrap_err()
                .to_string();
            let expected = format!(
                "OAuth discovery failed: the authorization server the resource metadata \
                 names: {issuer} is refused: {why}"
            );
            assert!(error.starts_with(&expected), "{error}");
        }
        assert_eq!(trap.seen(), Vec::<String>::new());

        // With private networks allowed, the private one is asked.
        let fetch = trap.fetcher(Destinations::of_endpoint(endpoint, true), &[]);
        let metadata = ProtectedResourceMetadata::new(endpoint, "https://10.0.0.1");
        let error = from_resource_metadata(&fetch, endpoint, metadata, None).await;
        assert!(error.is_err(), "the trap refuses every connection");
        assert_eq!(trap.seen(), ["CONNECT 10.0.0.1:443 HTTP/1.1"]);
    }

    #[test]
    fn endpoints_a_server_may_not_name_fail_discovery() {
        let destinations = Destinations::of_endpoint("https://mcp.example.com/mcp", false);
        let fetch = HttpFetch::restricted(destinations).unwrap();
        let server = |token: &str, authorize: &str| ServerMetadata {
            issuer: "https://as.example.com".into(),
            token_endpoint: Some(token.into()),
            authorization_endpoint: Some(authorize.into()),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            ..ServerMetadata::default()
        };
        let public = server(
            "https://as.example.com/token",
            "https://as.example.com/authorize",
        );
        assert!(check_endpoints(&fetch, &public, true).is_ok());
        let private_token = server("https://192.168.0.10/token", "https://as.example.com/a");
        assert_eq!(
            check_endpoints(&fetch, &private_token, false)
                .unwrap_err()
                .to_string(),
            "OAuth discovery failed: the token endpoint of authorization server \
             `https://as.example.com`: https://192.168.0.10/token is refused: 192.168.0.10 is \
             a private-network address (192.168.0.0/16): call \
             `OAuthClient::allow_private_networks()` to let servers name private networks \
             (an intranet deployment)"
        );
        let plain_authorize = server("https://as.example.com/token", "http://as.example.com/a");
        let error = check_endpoints(&fetch, &plain_authorize, true).unwrap_err();
        assert!(
            error.to_string().contains("the authorization endpoint of"),
            "{error}"
        );
        // A machine client opens no authorization endpoint.
        assert!(check_endpoints(&fetch, &plain_authorize, false).is_ok());
    }

    #[test]
    fn a_resource_names_its_endpoint_or_a_prefix_of_it_on_the_same_origin() {
        let endpoint = "http://localhost:3000/mcp";
        assert!(names_endpoint("http://localhost:3000/mcp", endpoint));
        assert!(names_endpoint("http://localhost:3000", endpoint));
        assert!(names_endpoint("HTTP://LOCALHOST:3000/mcp/", endpoint));
        assert!(!names_endpoint("https://evil.example.com/mcp", endpoint));
        assert!(!names_endpoint("http://localhost:3000/mc", endpoint));
        assert!(!names_endpoint("http://localhost:3000/mcp/other", endpoint));
        assert!(!names_endpoint("http://localhost:3001/mcp", endpoint));
    }
}
