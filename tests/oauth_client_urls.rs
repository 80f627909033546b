//! Which URLs presa's OAuth client fetches when a hostile MCP server names
//! them: a server on loopback whose challenge or metadata points at the
//! cloud metadata service or at a private network. The client refuses
//! them before sending anything, and says why and what would allow it.
//!
//! That nothing reaches those addresses is proved in the runtime's unit
//! tests (`oauth::fetch`, `client::oauth::discovery`), where a trap takes
//! the place of the network; these tests send nothing off this machine
//! once the check holds.
#![cfg(feature = "oauth-client")]

use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::{get, post};
use presa::client::oauth::{Authorizer, AuthorizerError, OAuthClient, async_trait};
use presa::client::prelude::*;
use presa::client::{ClientTransport, HttpOptions};
use serde_json::json;

/// A user-agent step that must never be reached.
struct Unreached;

#[async_trait]
impl Authorizer for Unreached {
    fn redirect_uri(&self) -> &str {
        "http://127.0.0.1:9/callback"
    }

    async fn authorize(&self, _: &str) -> Result<String, AuthorizerError> {
        Err("the client got as far as signing in".into())
    }
}

/// A hostile MCP server on loopback. Every request to `/mcp` gets a `401`
/// whose challenge names `resource_metadata` (its own metadata when
/// `None`); its metadata names `authorization_server`. Returns its
/// endpoint, and the paths it was asked for.
async fn hostile(
    resource_metadata: Option<&str>,
    authorization_server: &str,
) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let endpoint = format!("{origin}/mcp");
    let named = resource_metadata.map_or_else(
        || format!("{origin}/.well-known/oauth-protected-resource/mcp"),
        str::to_owned,
    );
    let metadata = json!({
        "resource": endpoint,
        "authorization_servers": [authorization_server],
    });
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (on_mcp, on_metadata) = (asked.clone(), asked.clone());
    let app = axum::Router::new()
        .route(
            "/mcp",
            post(move || {
                on_mcp.lock().unwrap().push("/mcp".to_owned());
                let mut headers = HeaderMap::new();
                let challenge = format!(r#"Bearer resource_metadata="{named}""#);
                headers.insert(header::WWW_AUTHENTICATE, challenge.parse().unwrap());
                async move { (StatusCode::UNAUTHORIZED, headers) }
            }),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(move || {
                on_metadata.lock().unwrap().push("metadata".to_owned());
                let metadata = metadata.clone();
                async move { axum::Json(metadata) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (endpoint, asked)
}

/// What calling a tool at `endpoint` fails with, for a client configured
/// as `oauth`.
async fn sign_in_error(endpoint: &str, oauth: OAuthClient) -> String {
    let options = HttpOptions::default().oauth(oauth);
    let transport = ClientTransport::http_with(endpoint, options).unwrap();
    let client = Client::builder().connect(transport);
    let answer = client.call_tool("whoami", json!({})).await;
    answer.unwrap_err().to_string()
}

#[tokio::test]
async fn a_challenge_naming_the_metadata_service_is_refused() {
    let metadata_service = "https://169.254.169.254/latest/meta-data/iam";
    let (endpoint, _) = hostile(Some(metadata_service), "https://as.example.com").await;
    // Even an intranet client on loopback keeps the metadata service out.
    let oauth = OAuthClient::new(Unreached).allow_private_networks();
    let error = sign_in_error(&endpoint, oauth).await;
    let expected = "OAuth discovery failed: https://169.254.169.254/latest/meta-data/iam \
                    is refused: 169.254.169.254 is a link-local address (where cloud metadata \
                    services answer) (169.254.0.0/16): no setting allows it";
    assert!(error.contains(expected), "{error}");
}

#[tokio::test]
async fn metadata_naming_an_authorization_server_on_a_private_network_is_refused() {
    for (authorization_server, address) in [
        ("https://10.0.0.1", "10.0.0.1"),
        ("https://[::ffff:192.168.1.1]", "::ffff:192.168.1.1"),
    ] {
        let (endpoint, asked) = hostile(None, authorization_server).await;
        let error = sign_in_error(&endpoint, OAuthClient::new(Unreached)).await;
        let expected = format!(
            "OAuth discovery failed: the authorization server the resource metadata names: \
             {authorization_server} is refused: {address} is a private-network address"
        );
        assert!(error.contains(&expected), "{error}");
        assert!(
            error.contains("call `OAuthClient::allow_private_networks()`"),
            "{error}"
        );
        // Its own metadata, on loopback like the server, was read.
        assert_eq!(*asked.lock().unwrap(), ["/mcp", "metadata"]);
    }
}

#[tokio::test]
async fn metadata_naming_a_plain_http_authorization_server_is_refused() {
    let (endpoint, _) = hostile(None, "http://as.example.com").await;
    let error = sign_in_error(&endpoint, OAuthClient::new(Unreached)).await;
    assert!(
        error.contains("http://as.example.com is refused: its scheme is `http`"),
        "{error}"
    );
}
