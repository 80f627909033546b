//! Discovery for a server of the 2025-03-26 authorization spec, which
//! predates Protected Resource Metadata: the MCP server's origin is the
//! authorization server.
//!
//! 1. the issuer is the endpoint's origin (its path dropped), and the
//!    resource the endpoint itself; a client bound to another issuer
//!    stops here;
//! 2. its metadata is looked for as any issuer's;
//! 3. where there is none, the 2025-03-26 defaults stand in:
//!    `/authorize`, `/token` and `/register` at the origin, with PKCE S256
//!    (which that spec required of every client).
//!
//! Only a server with no resource metadata at any well-known place comes
//! here; delete this file and its call in `discovery` when 2025-03-26
//! servers are gone.

use super::discovered::Discovered;
use crate::client::oauth::error::{OAuthError, Step};
use crate::oauth::fetch::HttpFetch;
use crate::oauth::server_metadata::{ServerMetadata, discover as discover_server};
use crate::oauth::well_known::split_origin;

/// What `endpoint`'s origin says of itself as an authorization server;
/// refused before anything is fetched when the client is bound to
/// another issuer (`binding`).
pub(crate) async fn discover(
    fetch: &HttpFetch,
    endpoint: &str,
    bound: Option<&str>,
) -> Result<Discovered, OAuthError> {
    let (origin, _) = split_origin(endpoint);
    super::binding::choose(&[origin.to_owned()], bound, endpoint)?;
    let server = match discover_server(fetch, origin).await {
        Ok(server) => server,
        Err(error) if error.is_absent() => default_endpoints(origin),
        Err(error) => return Err(OAuthError::new(Step::Discovery, error.to_string())),
    };
    Ok(Discovered {
        resource: endpoint.to_owned(),
        resource_scopes: None,
        server,
    })
}

/// The endpoints the 2025-03-26 spec had clients assume (rule 3).
fn default_endpoints(origin: &str) -> ServerMetadata {
    ServerMetadata {
        issuer: origin.to_owned(),
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: Some(format!("{origin}/token")),
        registration_endpoint: Some(format!("{origin}/register")),
        code_challenge_methods_supported: Some(vec!["S256".into()]),
        ..ServerMetadata::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_sit_at_the_origin() {
        let server = default_endpoints("http://localhost:3000");
        assert_eq!(
            server.token_endpoint.as_deref(),
            Some("http://localhost:3000/token")
        );
        assert_eq!(
            server.authorization_endpoint.as_deref(),
            Some("http://localhost:3000/authorize")
        );
        assert_eq!(
            server.registration_endpoint.as_deref(),
            Some("http://localhost:3000/register")
        );
    }
}
