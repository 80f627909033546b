//! The HTTP client never follows a redirect: an MCP request carries
//! credentials (`Authorization`, a DPoP proof, a legacy session's
//! `Mcp-Session-Id`), and following would carry them to wherever the
//! server points.
//!
//! A legacy server on loopback opens a session, then answers every
//! request of the session with `307` to a second loopback server, on
//! another origin, which records every request it gets. It must get
//! none, and the client's call must fail saying where it was sent.
#![cfg(all(feature = "http-client", feature = "oauth-client"))]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use presa::client::oauth::{
    Authorizer, AuthorizerError, MemoryTokenStore, OAuthClient, SignedIn, TokenStore, async_trait,
};
use presa::client::prelude::*;
use presa::client::{ClientTransport, Era, HttpOptions};
use serde_json::{Value, json};

/// The static bearer token, and the stored OAuth access token.
const BEARER: &str = "static-bearer-31d7";
const ACCESS_TOKEN: &str = "stored-access-token-c09e";
/// The session the first server opens.
const SESSION: &str = "session-5a8f";

/// A loopback server that records every request it gets as text; what
/// it answers is `answer`'s.
struct Recorder {
    url: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    async fn start(answer: fn(&HeaderMap, &[u8], &str) -> Response, to: String) -> Recorder {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let app = {
            let seen = Arc::clone(&seen);
            axum::Router::new().fallback(
                move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                    let mut text = format!("{method} {uri}\n");
                    for (name, value) in &headers {
                        let value = String::from_utf8_lossy(value.as_bytes());
                        text.push_str(&format!("{name}: {value}\n"));
                    }
                    text.push_str(&String::from_utf8_lossy(&body));
                    seen.lock().unwrap().push(text);
                    let reply = answer(&headers, &body, &to);
                    async move { reply }
                },
            )
        };
        tokio::spawn(async move { axum::serve(listener, app).await });
        Recorder { url, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// The second server: it answers nothing useful, and only records.
fn elsewhere(_: &HeaderMap, _: &[u8], _: &str) -> Response {
    StatusCode::NOT_FOUND.into_response()
}

/// The first server: a legacy server that opens session [`SESSION`],
/// then redirects every request of the session to `to`.
fn moved(headers: &HeaderMap, body: &[u8], to: &str) -> Response {
    if headers.contains_key("mcp-session-id") {
        return (
            StatusCode::TEMPORARY_REDIRECT,
            [("location", to.to_owned())],
        )
            .into_response();
    }
    let message: Value = serde_json::from_slice(body).unwrap_or_default();
    if message["method"] != "initialize" {
        let refusal = json!({"jsonrpc": "2.0", "id": null,
            "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}});
        return (StatusCode::BAD_REQUEST, axum::Json(refusal)).into_response();
    }
    let initialized = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
        "serverInfo": {"name": "moved", "version": "1"}}});
    ([("mcp-session-id", SESSION)], axum::Json(initialized)).into_response()
}

/// A user-agent step never taken: the client has a token already.
struct NoSignIn;

#[async_trait]
impl Authorizer for NoSignIn {
    fn redirect_uri(&self) -> &str {
        "http://127.0.0.1:9/callback"
    }

    async fn authorize(&self, _: &str) -> Result<String, AuthorizerError> {
        Err("no sign-in in this test".into())
    }
}

/// HTTP options with credentials of each kind: a static bearer token;
/// and a stored OAuth token sent with a DPoP proof.
async fn credentials(url: &str) -> Vec<(&'static str, HttpOptions)> {
    let signed_in: SignedIn = serde_json::from_value(json!({
        "issuer": "http://127.0.0.1:9", "client_id": "c", "auth_method": "none",
        "access_token": ACCESS_TOKEN, "scopes": [],
    }))
    .unwrap();
    let store = MemoryTokenStore::default();
    store.save(url, &signed_in).await.unwrap();
    let oauth = OAuthClient::new(NoSignIn).token_store(store).dpop();
    vec![
        (
            "a bearer token",
            HttpOptions::default().bearer_token(BEARER),
        ),
        ("a DPoP-bound token", HttpOptions::default().oauth(oauth)),
    ]
}

#[tokio::test]
async fn a_redirect_is_refused_and_carries_no_credentials_elsewhere() {
    let other = Recorder::start(elsewhere, String::new()).await;
    let server = Recorder::start(moved, other.url.clone()).await;
    for (kind, options) in credentials(&server.url).await {
        let transport = ClientTransport::http_with(&server.url, options).unwrap();
        let client = Client::builder().force_era(Era::Legacy).connect(transport);
        let answer = client.call_tool("echo", json!({})).await;
        let _ = client.close().await;
        assert_eq!(other.seen(), Vec::<String>::new(), "{kind}");
        let error = answer.unwrap_err().to_string();
        let expected = format!(
            "the server redirected the request (HTTP 307) to `{}`; presa does not follow \
             redirects, which would carry the request's credentials there: if you trust it, \
             use that URL as the endpoint",
            other.url
        );
        assert!(error.contains(&expected), "{kind}: {error}");
    }
    // The session's requests all met the redirect at the first server.
    let redirected = server.seen();
    assert!(
        redirected
            .iter()
            .any(|r| r.contains(SESSION) && r.contains(BEARER))
    );
    let dpop = |r: &&String| r.contains("dpop: ") && r.contains(ACCESS_TOKEN);
    assert!(redirected.iter().filter(dpop).any(|r| r.contains(SESSION)));
}

/// A server that redirects every request to `/elsewhere/mcp` on itself.
fn always_moved(_: &HeaderMap, _: &[u8], _: &str) -> Response {
    (
        StatusCode::PERMANENT_REDIRECT,
        [("location", "/elsewhere/mcp")],
    )
        .into_response()
}

#[tokio::test]
async fn a_redirect_on_the_same_origin_is_refused_too_and_named_in_full() {
    // Even there: a DPoP proof names the URL it was made for.
    let server = Recorder::start(always_moved, String::new()).await;
    let transport = ClientTransport::http_with(&server.url, HttpOptions::default()).unwrap();
    let client = Client::builder().connect(transport);
    let error = client.list_tools().await.unwrap_err().to_string();
    let moved_to = server.url.replace("/mcp", "/elsewhere/mcp");
    let expected = format!("the server redirected the request (HTTP 308) to `{moved_to}`");
    assert!(error.contains(&expected), "{error}");
    let followed = server
        .seen()
        .into_iter()
        .filter(|r| r.contains("/elsewhere"));
    assert_eq!(followed.count(), 0);
}
