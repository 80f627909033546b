//! Where the OAuth client's credentials go: only to the authorization
//! server they were registered with, whatever a resource names.
//!
//! A hostile MCP server on loopback answers `401` with resource metadata
//! that names a second loopback server as its authorization server. That
//! server records every request it gets. A client secret, a workload's
//! assertion and an enterprise user's identity must never show up in what
//! it records. The same clients against an honest resource sign in at the
//! server they are bound to, which records the credentials: so the
//! recorder would have seen them. A client that holds credentials but
//! names no authorization server does not compile
//! (`tests/ui/oauth_unbound_client.rs`).
#![cfg(all(feature = "oauth", feature = "oauth-client"))]

use crate::issuer;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use jsonwebtoken::Algorithm;
use presa::client::oauth::{ClientKey, IdentityProvider, OAuthClient};
use presa::client::prelude::*;
use presa::client::{ClientTransport, HttpOptions};
use presa::prelude::*;
use presa::server::http::{OAuth, StreamableHttp};
use serde_json::json;

use issuer::{TestKey, WhoamiTool};

/// The machine client's secret.
const SECRET: &str = "machine-secret-5d1e";
/// The workload's identity assertion, as its platform issues it.
const ASSERTION: &str = "workload-assertion-8c2f";
/// The enterprise user's ID token from their identity provider.
const ID_TOKEN: &str = "enterprise-id-token-a41b";
/// What the identity provider issues for the ID token: the ID-JAG.
const ID_JAG: &str = "id-jag-for-the-mcp-server-77e0";

/// The grant types of a JWT assertion and of a token exchange.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// An authorization server (or an identity provider) on loopback that
/// records every request it gets, and grants whatever it is asked: a
/// hostile one would, to get the credentials.
struct Recorder {
    issuer: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    async fn start(key: &TestKey) -> Recorder {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let app = {
            let (issuer, seen, key) = (issuer.clone(), Arc::clone(&seen), key.clone());
            axum::Router::new().fallback(
                move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                    seen.lock()
                        .unwrap()
                        .push(record(&method, &uri, &headers, &body));
                    let answer = answer(&issuer, &key, &method, &uri, &body);
                    async move { answer }
                },
            )
        };
        tokio::spawn(async move { axum::serve(listener, app).await });
        Recorder { issuer, seen }
    }

    fn token_endpoint(&self) -> String {
        format!("{}/token", self.issuer)
    }

    /// Every request so far, as `record` wrote it.
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// The requests that hold any of `secrets`.
    fn holding(&self, secrets: &[&str]) -> Vec<String> {
        let seen = self.seen();
        seen.into_iter()
            .filter(|request| secrets.iter().any(|s| request.contains(s)))
            .collect()
    }
}

/// A request as text: its line, its headers (Basic credentials decoded),
/// its body, and the body's form fields decoded.
fn record(method: &Method, uri: &Uri, headers: &HeaderMap, body: &[u8]) -> String {
    let mut text = format!("{method} {uri}\n");
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        text.push_str(&format!("{name}: {value}\n"));
        if let Some(basic) = value.strip_prefix("Basic ")
            && let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(basic)
        {
            text.push_str(&format!(
                "  (decoded: {})\n",
                String::from_utf8_lossy(&decoded)
            ));
        }
    }
    let body = String::from_utf8_lossy(body);
    text.push_str(&format!("\n{body}\n"));
    for (name, value) in form(&body) {
        text.push_str(&format!("  {name} = {value}\n"));
    }
    text
}

/// The fields of a form body.
fn form(body: &str) -> Vec<(String, String)> {
    let url = reqwest::Url::parse(&format!("http://form.invalid/?{body}")).unwrap();
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// What the recorder answers: its metadata, its keys, and a token for
/// any grant (an ID-JAG for a token exchange).
fn answer(issuer: &str, key: &TestKey, method: &Method, uri: &Uri, body: &[u8]) -> Response {
    match (method.as_str(), uri.path()) {
        ("GET", "/.well-known/oauth-authorization-server") => axum::Json(json!({
            "issuer": issuer,
            "jwks_uri": format!("{issuer}/jwks"),
            "token_endpoint": format!("{issuer}/token"),
            "grant_types_supported": ["client_credentials", JWT_BEARER, TOKEN_EXCHANGE],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"],
        }))
        .into_response(),
        ("GET", "/jwks") => axum::Json(json!({"keys": [key.jwk()]})).into_response(),
        ("POST", "/token") => {
            let fields = form(&String::from_utf8_lossy(body));
            let field = |name: &str| {
                fields
                    .iter()
                    .find(|(k, _)| k == name)
                    .map_or("", |(_, v)| v.as_str())
            };
            if field("grant_type") == TOKEN_EXCHANGE {
                return axum::Json(json!({
                    "access_token": ID_JAG, "issued_token_type": ID_JAG_TYPE,
                    "token_type": "N_A",
                }))
                .into_response();
            }
            let claims = json!({
                "iss": issuer, "sub": "machine", "aud": field("resource"),
                "scope": field("scope"), "iat": issuer::now(),
                "exp": issuer::now() + 600, "jti": format!("t-{}", issuer::now()),
            });
            axum::Json(json!({
                "access_token": key.sign(&claims), "token_type": "Bearer", "expires_in": 600,
            }))
            .into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A presa resource server whose metadata names `authorization_server`;
/// its URL. Named by a hostile server, that is the attacker's.
async fn resource_server(authorization_server: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer(authorization_server)
        .resource(url.clone())
        .build()
        .unwrap();
    let server = Server::builder("resource", "1.0.0")
        .tool(WhoamiTool)
        .build();
    tokio::spawn(StreamableHttp::new(server).oauth(oauth).serve_on(listener));
    url
}

async fn whoami(url: &str, oauth: OAuthClient) -> Result<String, String> {
    let transport = ClientTransport::http_with(url, HttpOptions::default().oauth(oauth)).unwrap();
    let client = Client::builder().connect(transport);
    let answer = client.call_tool("whoami", json!({})).await;
    answer
        .map(|a| a.text().unwrap_or_default().to_owned())
        .map_err(|e| e.to_string())
}

/// Every kind of credential, each bound to `issuer` as the guide shows:
/// a client secret, a private key, a workload's assertion, and an
/// enterprise user's sign-in (through `identity_provider`).
fn clients(identity_provider: &Recorder, issuer: &str) -> Vec<(&'static str, OAuthClient)> {
    let provider = IdentityProvider {
        token_endpoint: identity_provider.token_endpoint(),
        client_id: "mcp-app-at-the-idp".into(),
        id_token: Box::new(|| Ok(ID_TOKEN.into())),
    };
    let key = ClientKey::es256_pem(include_str!("../presa-runtime/tests/keys/p256.pem")).unwrap();
    vec![
        (
            "a client secret",
            OAuthClient::client_credentials("reporting-job")
                .client_secret(SECRET)
                .registered_with(issuer),
        ),
        (
            "a private key",
            OAuthClient::client_credentials("signing-job")
                .private_key_jwt(key)
                .registered_with(issuer),
        ),
        (
            "a workload's assertion",
            OAuthClient::jwt_bearer(|| Ok(ASSERTION.into())).registered_with(issuer),
        ),
        (
            "an enterprise user",
            OAuthClient::enterprise(provider, "mcp-client")
                .client_secret(SECRET)
                .registered_with(issuer),
        ),
    ]
}

/// What a client might hand over: the secret, the workload's assertion,
/// the user's ID token, and the ID-JAG issued for it.
const CREDENTIALS: [&str; 4] = [SECRET, ASSERTION, ID_TOKEN, ID_JAG];

#[tokio::test]
async fn a_hostile_resource_gets_no_credentials_to_its_authorization_server() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let (honest, attacker) = (Recorder::start(&key).await, Recorder::start(&key).await);
    let identity_provider = Recorder::start(&key).await;
    let hostile = resource_server(&attacker.issuer).await;

    let mut outcomes = Vec::new();
    for (kind, oauth) in clients(&identity_provider, &honest.issuer) {
        outcomes.push((kind, whoami(&hostile, oauth).await));
    }
    assert_eq!(attacker.holding(&CREDENTIALS), Vec::<String>::new());
    // Not one request, not even for its metadata; and no ID-JAG asked
    // for the attacker.
    assert_eq!(attacker.seen(), Vec::<String>::new());
    assert_eq!(identity_provider.seen(), Vec::<String>::new());
    assert!(honest.seen().is_empty());
    let expected = format!(
        "names authorization server `{}`, but this client is registered with `{}` \
         (`registered_with`); nothing was sent to it",
        attacker.issuer, honest.issuer
    );
    for (kind, outcome) in outcomes {
        let error = outcome.unwrap_err();
        assert!(error.contains(&expected), "{kind}: {error}");
    }
}

#[tokio::test]
async fn bound_credentials_go_to_their_own_authorization_server() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let (honest, attacker) = (Recorder::start(&key).await, Recorder::start(&key).await);
    let identity_provider = Recorder::start(&key).await;
    let resource = resource_server(&honest.issuer).await;

    for (kind, oauth) in clients(&identity_provider, &honest.issuer) {
        let answer = whoami(&resource, oauth).await;
        assert_eq!(answer.as_deref(), Ok("machine "), "{kind}");
    }
    // The recorder sees credentials where they are due: the secret twice
    // (the machine's, the enterprise client's), the assertion, the ID-JAG.
    assert_eq!(honest.holding(&[SECRET]).len(), 2);
    assert_eq!(honest.holding(&[ASSERTION]).len(), 1);
    assert_eq!(honest.holding(&[ID_JAG]).len(), 1);
    assert!(honest.holding(&[ID_TOKEN]).is_empty());
    // The private key's assertion names the issuer as its audience.
    let audiences: Vec<String> = honest
        .seen()
        .iter()
        .filter_map(|request| client_assertion_audience(request))
        .collect();
    assert_eq!(audiences, std::slice::from_ref(&honest.issuer));
    // The identity provider got the ID token, and was asked for an ID-JAG
    // for the bound issuer.
    let exchanges = identity_provider.holding(&[ID_TOKEN]);
    assert_eq!(exchanges.len(), 1);
    let audience = format!("audience = {}\n", honest.issuer);
    assert!(exchanges[0].contains(&audience), "{}", exchanges[0]);
    assert!(attacker.holding(&CREDENTIALS).is_empty());
}

/// The `aud` of the `client_assertion` a recorded request carries.
fn client_assertion_audience(request: &str) -> Option<String> {
    let assertion = request
        .lines()
        .find_map(|line| line.strip_prefix("  client_assertion = "))?;
    let payload = assertion.split('.').nth(1)?;
    let claims = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&claims).ok()?;
    claims["aud"].as_str().map(str::to_owned)
}
