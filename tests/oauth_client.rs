//! presa's OAuth client against presa's OAuth resource server and an
//! authorization server on loopback (`common/oauth.rs`): signing in,
//! stepping up, refreshing, and one sign-in for many requests.
#![cfg(all(feature = "oauth", feature = "oauth-client"))]

use crate::common;
use crate::issuer;

use jsonwebtoken::Algorithm;
use presa::client::oauth::{
    Authorizer, AuthorizerError, FileTokenStore, MemoryTokenStore, OAuthClient, SignedIn,
    TokenStore, async_trait,
};
use presa::client::prelude::*;
use presa::client::{ClientTransport, HttpOptions};
use presa::prelude::*;
use presa::server::http::{OAuth, StreamableHttp};
use serde_json::json;

use issuer::{SignInServer, TestKey, WhoamiTool};

/// Deploys, for callers holding `jobs:deploy`.
#[tool(scopes = ["jobs:deploy"])]
async fn deploy() -> String {
    "deployed".into()
}

/// The user-agent step of a user who always consents: the authorization
/// server redirects at once, and the redirect is read, not followed.
struct Consenting(reqwest::Client);

impl Consenting {
    fn new() -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Consenting(http)
    }
}

#[async_trait]
impl Authorizer for Consenting {
    fn redirect_uri(&self) -> &str {
        "http://127.0.0.1:9/callback"
    }

    async fn authorize(&self, url: &str) -> Result<String, AuthorizerError> {
        let reply = self.0.get(url).send().await?;
        let location = reply.headers().get("location").ok_or("no redirect")?;
        Ok(location.to_str()?.to_owned())
    }
}

/// A resource server taking `authorization`'s tokens, listing
/// `jobs:read` as its scope; its URL.
async fn resource_server(authorization: &SignInServer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer(authorization.issuer.clone())
        .resource(url.clone())
        .scopes_supported(["jobs:read"])
        .build()
        .unwrap();
    let server = Server::builder("protected", "1.0.0")
        .tool(WhoamiTool)
        .tool(DeployTool)
        .build();
    tokio::spawn(StreamableHttp::new(server).oauth(oauth).serve_on(listener));
    url
}

fn client(url: &str, oauth: OAuthClient) -> Client {
    let transport = ClientTransport::http_with(url, HttpOptions::default().oauth(oauth)).unwrap();
    Client::builder().connect(transport)
}

#[tokio::test]
async fn a_client_signs_in_then_steps_up_when_it_was_granted_less() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    // The user consents to reading only, the first time.
    authorization.consent_first_to("jobs:read");
    let url = resource_server(&authorization).await;
    let client = client(&url, OAuthClient::new(Consenting::new()));

    let whoami = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(whoami.text(), Some("alice jobs:read"));
    let asked = authorization.asked();
    assert_eq!(
        (asked.registrations, asked.authorizations, asked.code_grants),
        (1, 1, 1)
    );
    // The metadata's scopes: those configured, and those the tools declare.
    assert_eq!(asked.scopes, ["jobs:read jobs:deploy"]);

    let deployed = client.call_tool("deploy", json!({})).await.unwrap();
    assert_eq!(deployed.text(), Some("deployed"));
    let asked = authorization.asked();
    // Stepped up once with the challenge's scope and those asked before,
    // keeping the registration.
    assert_eq!((asked.registrations, asked.authorizations), (1, 2));
    assert_eq!(asked.scopes[1], "jobs:read jobs:deploy");
}

#[tokio::test]
async fn requests_that_meet_one_challenge_sign_in_once() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization).await;
    let client = client(&url, OAuthClient::new(Consenting::new()));
    let calls = (0..8).map(|_| client.call_tool("whoami", json!({})));
    for answer in futures::future::join_all(calls).await {
        assert_eq!(answer.unwrap().text(), Some("alice jobs:deploy jobs:read"));
    }
    let asked = authorization.asked();
    assert_eq!(
        (asked.authorizations, asked.code_grants),
        (1, 1),
        "{asked:?}"
    );
}

#[tokio::test]
async fn a_client_with_dpop_uses_its_bound_token_which_is_useless_without_its_key() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization).await;
    let client = client(&url, OAuthClient::new(Consenting::new()).dpop());
    // Every request carries a fresh proof: none is a replay of another.
    for _ in 0..3 {
        let whoami = client.call_tool("whoami", json!({})).await.unwrap();
        assert_eq!(whoami.text(), Some("alice jobs:deploy jobs:read"));
    }
    let asked = authorization.asked();
    assert_eq!(
        (asked.authorizations, asked.code_grants, asked.dpop_bound),
        (1, 1, 1),
        "{asked:?}"
    );
    // The token, stolen: as a bearer token, and under DPoP without a
    // proof of the client's key, it is refused.
    let stolen = authorization.last_access_token().unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "whoami", "arguments": {}, "_meta": common::meta(json!({}))}});
    for (authorization, error) in [
        (format!("Bearer {stolen}"), "invalid_token"),
        (format!("DPoP {stolen}"), "invalid_dpop_proof"),
    ] {
        let headers = [("authorization", authorization.as_str())];
        let refused = common::raw_http::post(&url, call.clone(), &headers).await;
        assert_eq!(refused.status().as_u16(), 401);
        let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.contains(&format!(r#"error="{error}""#)),
            "{challenge}"
        );
    }
}

#[tokio::test]
async fn a_client_with_dpop_keeps_its_key_with_its_tokens_for_the_next_process() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization).await;
    let folder = std::env::temp_dir().join(format!("presa-dpop-kept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("tokens.json");
    // Each client is a process of its own: a new store on the same file.
    for run in 0..2 {
        let oauth = OAuthClient::new(Consenting::new())
            .dpop()
            .token_store(FileTokenStore::new(&file));
        let whoami = client(&url, oauth).call_tool("whoami", json!({})).await;
        let whoami = whoami.unwrap_or_else(|e| panic!("run {run}: {e}"));
        assert_eq!(
            whoami.text(),
            Some("alice jobs:deploy jobs:read"),
            "run {run}"
        );
    }
    // The second used the first's token: with a key of its own, the
    // resource would have refused it, and the client refreshed.
    let asked = authorization.asked();
    assert_eq!(
        (asked.code_grants, asked.refresh_grants, asked.dpop_bound),
        (1, 0, 1),
        "{asked:?}"
    );
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.contains("dpop_key"), "the key is kept with the tokens");
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test]
async fn a_client_with_dpop_refuses_the_bearer_tokens_of_a_server_without_it() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    authorization.without_dpop();
    let url = resource_server(&authorization).await;
    let client = client(&url, OAuthClient::new(Consenting::new()).dpop());
    let error = client.call_tool("whoami", json!({})).await.unwrap_err();
    let said = error.to_string();
    assert!(
        said.contains("issued a `Bearer` token") && said.contains("sign in without DPoP"),
        "{said}"
    );
    assert_eq!(authorization.asked().dpop_bound, 0);
}

/// A store holding, for `url`, a registration at `authorization`, the
/// access token `access_token`, and a refresh token it accepts; due for
/// refresh when `due`.
async fn signed_in_store(
    authorization: &SignInServer,
    url: &str,
    access_token: &str,
    due: bool,
) -> MemoryTokenStore {
    let refresh_token = authorization.refresh_token_for("jobs:read");
    let refresh_at = if due {
        issuer::now() - 1
    } else {
        issuer::now() + 3600
    };
    let signed_in: SignedIn = serde_json::from_value(json!({
        "issuer": authorization.issuer, "client_id": "registered-client",
        "auth_method": "none", "access_token": access_token,
        "refresh_token": refresh_token, "expires_at": refresh_at + 30,
        "refresh_at": refresh_at, "scopes": ["jobs:read"],
    }))
    .unwrap();
    let store = MemoryTokenStore::default();
    store.save(url, &signed_in).await.unwrap();
    store
}

/// `requests` concurrent calls by a client whose stored token is
/// `access_token`, due for refresh when `due`: one refresh answers them
/// all, and nobody signs in.
async fn one_refresh_for(requests: usize, access_token: &str, due: bool) {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization).await;
    let store = signed_in_store(&authorization, &url, access_token, due).await;
    let client = client(&url, OAuthClient::new(Consenting::new()).token_store(store));
    let calls = (0..requests).map(|_| client.call_tool("whoami", json!({})));
    for answer in futures::future::join_all(calls).await {
        assert_eq!(answer.unwrap().text(), Some("alice jobs:read"));
    }
    let asked = authorization.asked();
    let refreshes_and_sign_ins = (asked.refresh_grants, asked.authorizations);
    assert_eq!(refreshes_and_sign_ins, (1, 0), "{asked:?}");
}

#[tokio::test]
async fn a_token_due_for_refresh_is_refreshed_once_before_it_is_sent() {
    one_refresh_for(4, "stale-token", true).await;
}

#[tokio::test]
async fn a_refused_token_is_refreshed_once_for_every_request_that_met_the_refusal() {
    // Not due, but the server refuses it: the 401 refreshes.
    one_refresh_for(8, "revoked-token", false).await;
}

#[tokio::test]
async fn a_client_registered_with_another_issuer_is_refused_at_discovery() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization).await;
    // Pre-registered for another authorization server: never sent here.
    let oauth = OAuthClient::new(Consenting::new())
        .client_id("elsewhere-client")
        .client_secret("elsewhere-secret")
        .registered_with("https://other-issuer.example");
    let error = client(&url, oauth)
        .call_tool("whoami", json!({}))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("OAuth discovery failed"), "{error}");
    assert!(error.contains("https://other-issuer.example"), "{error}");
    assert!(!error.contains("elsewhere-secret"), "{error}");
    assert_eq!(authorization.asked().authorizations, 0);
}
