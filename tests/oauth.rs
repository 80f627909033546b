//! The OAuth resource server end to end: tokens signed with the test keys,
//! an authorization server on loopback (`common/oauth.rs`), and every
//! refusal as a client sees it: status, `WWW-Authenticate`, nothing more.
#![cfg(all(feature = "oauth", feature = "http-client"))]

use crate::common;
use crate::issuer;

use jsonwebtoken::{Algorithm, Header};
use presa::Headers;
use presa::client::prelude::*;
use presa::client::{ClientTransport, HttpOptions};
use presa::prelude::*;
use presa::server::http::{KeySettings, OAuth, StreamableHttp};
use serde_json::{Value, json};

use common::raw_http::{post, status_and_body};
use issuer::{AuthServer, TestKey, WhoamiTool, now};

/// Deploys, for callers holding `jobs:deploy`.
#[tool(scopes = ["jobs:deploy"])]
async fn deploy() -> String {
    "deployed".into()
}

/// A release note, for callers holding `jobs:deploy`.
#[prompt(scopes = ["jobs:deploy"])]
async fn release_note(#[param(complete = versions)] version: String) -> String {
    format!("Write the notes of {version}")
}

/// The released versions that start with what was typed.
fn versions(typed: &str, _ctx: &presa::server::CompletionContext) -> Vec<String> {
    ["1.0", "1.1", "2.0"]
        .into_iter()
        .filter(|v| v.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// The request's `X-Tenant` header, and whether the tool saw the token.
#[tool]
async fn tenant(headers: Headers) -> String {
    let tenant = headers
        .0
        .get("x-tenant")
        .map(|v| v.to_str().unwrap().to_owned());
    let saw_token = headers.0.contains_key("authorization");
    format!("{} {saw_token}", tenant.unwrap_or_default())
}

/// An MCP server on loopback that takes `authorization`'s tokens; its URL.
async fn resource_server(
    authorization: &AuthServer,
    configure: impl FnOnce(presa::server::http::OAuthBuilder) -> presa::server::http::OAuthBuilder,
) -> (String, OAuth) {
    resource_server_with(authorization, configure, |b| b).await
}

/// [`resource_server`], its server configured by `server` too.
async fn resource_server_with(
    authorization: &AuthServer,
    configure: impl FnOnce(presa::server::http::OAuthBuilder) -> presa::server::http::OAuthBuilder,
    server: impl FnOnce(presa::server::ServerBuilder) -> presa::server::ServerBuilder,
) -> (String, OAuth) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = configure(OAuth::issuer(authorization.issuer.clone()).resource(url.clone()))
        .build()
        .unwrap();
    let f = common::fixture_with(|b| {
        server(
            b.tool(WhoamiTool)
                .tool(DeployTool)
                .tool(TenantTool)
                .prompt(ReleaseNotePrompt),
        )
    });
    let http = StreamableHttp::new(f.server).oauth(oauth.clone());
    tokio::spawn(http.serve_on(listener));
    (url, oauth)
}

/// The algorithms a resource takes DPoP proofs signed with, as its
/// challenges name them.
const DPOP_ALGS: &str = "ES256 ES384 EdDSA PS256 PS384 PS512 RS256 RS384 RS512";

/// The challenges of a resource that takes bearer and DPoP-bound tokens:
/// `parameters` under each scheme, and the DPoP algorithms.
fn challenges(parameters: &str) -> String {
    format!(r#"Bearer {parameters}, DPoP {parameters}, algs="{DPOP_ALGS}""#)
}

/// A raw `tools/call` of `whoami` with `token`: the status and the
/// challenge.
async fn call_with(url: &str, token: &str) -> (u16, Option<String>) {
    let (status, challenge, _) = call_tool_raw(url, "whoami", Some(token), &[]).await;
    (status, challenge)
}

/// What `whoami` answers to the presa client holding `token`.
async fn whoami_as(url: &str, token: &str) -> String {
    let options = HttpOptions::default().bearer_token(token);
    let client = Client::builder().connect(ClientTransport::http_with(url, options).unwrap());
    let result = client.call_tool("whoami", json!({})).await.unwrap();
    result.text().unwrap().to_owned()
}

/// Asserts `token` is refused with `401` and `error_description`.
async fn assert_refused(url: &str, token: &str, description: &str) {
    let (status, challenge) = call_with(url, token).await;
    assert_eq!(status, 401, "{description}");
    let challenge = challenge.unwrap();
    assert!(
        challenge.starts_with(r#"Bearer error="invalid_token""#),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!(r#"error_description="{description}""#)),
        "{description}: {challenge}"
    );
    assert!(challenge.contains("resource_metadata="), "{challenge}");
}

#[tokio::test]
async fn tokens_of_every_accepted_algorithm_name_their_caller() {
    let keys = [
        TestKey::rsa("rs256", Algorithm::RS256),
        TestKey::rsa("rs384", Algorithm::RS384),
        TestKey::rsa("rs512", Algorithm::RS512),
        TestKey::rsa("ps256", Algorithm::PS256),
        TestKey::p256("es256"),
        TestKey::p384("es384"),
        TestKey::ed25519("eddsa"),
    ];
    let authorization = AuthServer::start(&keys.iter().collect::<Vec<_>>()).await;
    let (url, _) = resource_server(&authorization, |b| b).await;
    for key in &keys {
        let token = key.sign(&authorization.claims(&url, "alice", "jobs:build jobs:read"));
        assert_eq!(
            whoami_as(&url, &token).await,
            "alice jobs:build jobs:read",
            "{:?}",
            key.alg
        );
    }
    // `typ: JWT`, or none, as many servers write it, is an access token too.
    let key = &keys[0];
    for typ in [Some("JWT"), None] {
        let mut header = key.header();
        header.typ = typ.map(Into::into);
        let token = key.sign_with(header, &authorization.claims(&url, "bob", "a"));
        assert_eq!(whoami_as(&url, &token).await, "bob a");
    }
    assert_eq!(authorization.key_fetches(), 1, "one fetch for every token");
}

#[tokio::test]
async fn claims_that_do_not_hold_are_refused_with_a_reason_and_nothing_more() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let (url, _) = resource_server(&authorization, |b| b.audience("api://jobs")).await;
    let valid = authorization.claims(&url, "alice", "jobs:build");
    let with = |changes: Value| {
        let mut claims = valid.clone();
        for (name, value) in changes.as_object().unwrap() {
            if value.is_null() {
                claims.as_object_mut().unwrap().remove(name);
            } else {
                claims[name] = value.clone();
            }
        }
        key.sign(&claims)
    };
    let cases = [
        (json!({"exp": now() - 120}), "the token has expired"),
        (json!({"exp": null}), "the token lacks a required claim"),
        (json!({"nbf": now() + 600}), "the token is not valid yet"),
        (
            json!({"iat": now() + 600}),
            "the token was issued in the future",
        ),
        (
            json!({"aud": "https://elsewhere.example/mcp"}),
            "the token is not for this resource",
        ),
        (json!({"aud": null}), "the token lacks a required claim"),
        (
            json!({"iss": "https://impostor.example"}),
            "the token is from another issuer",
        ),
        (json!({"sub": null}), "the token names no subject"),
    ];
    for (change, description) in cases {
        assert_refused(&url, &with(change), description).await;
    }
    // Within the leeway, and for an audience configured beside the
    // resource, or among others: accepted.
    assert_eq!(
        whoami_as(&url, &with(json!({"exp": now() - 30}))).await,
        "alice jobs:build"
    );
    assert_eq!(
        whoami_as(&url, &with(json!({"aud": "api://jobs"}))).await,
        "alice jobs:build"
    );
    let among = with(json!({"aud": ["https://other.example", url.clone()]}));
    assert_eq!(whoami_as(&url, &among).await, "alice jobs:build");
}

#[tokio::test]
async fn forged_tokens_are_refused() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key, &TestKey::p256("ec")]).await;
    let (url, _) = resource_server(&authorization, |b| b).await;
    let claims = authorization.claims(&url, "alice", "jobs:build");
    let b64 = |value: &Value| {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
    };

    // `alg: none`, with no signature.
    let none = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "typ": "at+jwt"})),
        b64(&claims)
    );
    assert_refused(&url, &none, "the token is malformed").await;

    // HS256 with the published RSA key as the secret: the key-confusion
    // attack.
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some("k1".into());
    let confused = jsonwebtoken::encode(
        &hs,
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(key.public_pem.as_bytes()).unwrap(),
    )
    .unwrap();
    assert_refused(&url, &confused, "the token's algorithm is not accepted").await;

    // Claims changed after signing: the signature no longer covers them.
    let token = key.sign(&claims);
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    let mut elevated = claims.clone();
    elevated["scope"] = json!("jobs:build admin");
    parts[1] = b64(&elevated);
    assert_refused(
        &url,
        &parts.join("."),
        "the token's signature does not verify",
    )
    .await;

    // Signed by a key the server does not publish, under a kid it does.
    let stranger = TestKey::other_rsa("k1");
    assert_refused(
        &url,
        &stranger.sign(&claims),
        "the token's signature does not verify",
    )
    .await;

    // A kid of another key type: an RSA signature under the EC key's id.
    let mut mismatched = key.header();
    mismatched.kid = Some("ec".into());
    assert_refused(
        &url,
        &key.sign_with(mismatched, &claims),
        "the token's signature does not verify",
    )
    .await;

    // A `typ` that is not an access token's (here an ID token's claim to
    // be something else).
    let mut other_typ = key.header();
    other_typ.typ = Some("dpop+jwt".into());
    assert_refused(
        &url,
        &key.sign_with(other_typ, &claims),
        "the token is not an access token",
    )
    .await;

    // Not a JWT, and no introspection configured.
    assert_refused(&url, "opaque-token", "the token is not valid").await;

    // And no token at all: 401 without an error, naming the metadata.
    let (status, challenge, _) = call_tool_raw(&url, "whoami", None, &[]).await;
    assert_eq!(status, 401);
    assert!(!challenge.unwrap().contains("error="));
}

/// A DPoP proof by `key` of a POST to `url` with `token`, as `jti`.
fn dpop_proof(key: &TestKey, url: &str, token: &str, jti: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let mut header = Header::new(key.alg);
    header.typ = Some("dpop+jwt".into());
    header.jwk = Some(jsonwebtoken::jwk::Jwk::from_encoding_key(&key.encoding, key.alg).unwrap());
    let ath = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(token.as_bytes()));
    let claims = json!({"jti": jti, "htm": "POST", "htu": url, "iat": now(), "ath": ath});
    key.sign_with(header, &claims)
}

/// The RFC 7638 thumbprint of `key`'s public half: what an authorization
/// server writes in `cnf.jkt`.
fn thumbprint(key: &TestKey) -> String {
    jsonwebtoken::jwk::Jwk::from_encoding_key(&key.encoding, key.alg)
        .unwrap()
        .thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256)
        .unwrap()
}

#[tokio::test]
async fn a_dpop_bound_token_needs_its_proof_and_is_refused_as_bearer() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let (url, oauth) = resource_server(&authorization, |b| b).await;
    let published = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let client_key = TestKey::p256("client");
    let mut claims = authorization.claims(&url, "alice", "jobs:build");
    claims["cnf"] = json!({ "jkt": thumbprint(&client_key) });
    let token = key.sign(&claims);

    // Made-up proofs are refused before the token is read: they cost no
    // key fetch.
    let authorization_header = format!("DPoP {token}");
    for n in 0..20 {
        let proof = dpop_proof(
            &client_key,
            "https://elsewhere.example/mcp",
            &token,
            &n.to_string(),
        );
        let headers = [
            ("authorization", authorization_header.as_str()),
            ("dpop", proof.as_str()),
        ];
        let (status, challenge, _) = call_tool_raw(&url, "whoami", None, &headers).await;
        assert_eq!(status, 401);
        assert!(
            challenge
                .unwrap()
                .contains("the DPoP proof is for another URL")
        );
    }
    assert_eq!(oauth.key_fetches(), 0);

    // Stolen, and sent as a bearer token: refused.
    let (status, challenge) = call_with(&url, &token).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge.unwrap(),
        challenges(&format!(
            r#"error="invalid_token", error_description="the token is DPoP-bound: send it with the DPoP scheme and a proof", resource_metadata="{published}""#
        ))
    );

    // With its proof: the caller; the same proof again: a replay.
    let proof = dpop_proof(&client_key, &url, &token, "p-1");
    let with_proof = [
        ("authorization", authorization_header.as_str()),
        ("dpop", proof.as_str()),
    ];
    let (status, _, body) = call_tool_raw(&url, "whoami", None, &with_proof).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "alice jobs:build");
    let (status, challenge, _) = call_tool_raw(&url, "whoami", None, &with_proof).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge.unwrap(),
        format!(
            r#"DPoP error="invalid_dpop_proof", error_description="the DPoP proof was used before", resource_metadata="{published}", algs="{DPOP_ALGS}""#
        )
    );

    // A proof by another key than the token's: the token is at fault.
    let thief = TestKey::ed25519("thief");
    let proof = dpop_proof(&thief, &url, &token, "p-2");
    let by_thief = [
        ("authorization", authorization_header.as_str()),
        ("dpop", proof.as_str()),
    ];
    let (status, challenge, _) = call_tool_raw(&url, "whoami", None, &by_thief).await;
    assert_eq!(status, 401);
    assert!(challenge.unwrap().contains(
        r#"error="invalid_token", error_description="the token is bound to another key""#
    ));

    // The metadata says DPoP is taken, not required.
    let document = reqwest::get(&published)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(document["dpop_signing_alg_values_supported"][0], "ES256");
    assert!(document.get("dpop_bound_access_tokens_required").is_none());
}

#[tokio::test]
async fn a_shared_hmac_secret_configured_on_purpose_verifies_hs256() {
    let authorization = AuthServer::start(&[]).await;
    let secret = b"a secret of at least thirty-two bytes, shared".to_vec();
    let (url, _) = resource_server(&authorization, |b| b.hmac_secret(secret.clone())).await;
    let claims = authorization.claims(&url, "carol", "x");
    let token = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(&secret).unwrap(),
    )
    .unwrap();
    assert_eq!(whoami_as(&url, &token).await, "carol x");
    let wrong = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(b"another secret of thirty-two bytes or more")
            .unwrap(),
    )
    .unwrap();
    assert_refused(&url, &wrong, "the token's signature does not verify").await;
}

#[tokio::test]
async fn made_up_kids_are_paced_and_a_rotation_is_picked_up_at_once() {
    let old = TestKey::rsa("old", Algorithm::RS256);
    let authorization = AuthServer::start(&[&old]).await;
    // One fetch, and no other for an hour: every fetch after the first is
    // the one a new `kid` may cause.
    let mut hour = KeySettings::default();
    hour.burst = 1;
    hour.refill = std::time::Duration::from_secs(3600);
    let (url, oauth) = resource_server(&authorization, |b| b.key_settings(hour)).await;
    let claims = authorization.claims(&url, "alice", "a");
    assert_eq!(whoami_as(&url, &old.sign(&claims)).await, "alice a");

    // The signature is never checked without a key to check it with, so
    // one signature serves every forged header.
    let signature = old.sign(&claims).rsplit('.').next().unwrap().to_owned();
    let body = old.sign(&claims).split('.').nth(1).unwrap().to_owned();
    let forged: Vec<_> = (0..200)
        .map(|n| {
            use base64::Engine;
            let header = json!({"alg": "RS256", "typ": "at+jwt", "kid": format!("forged-{n}")});
            let header =
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(header.to_string());
            format!("{header}.{body}.{signature}")
        })
        .collect();
    // Their keys may exist: the server cannot tell until it may fetch
    // again, so it answers 503 and when to try, not 401.
    let flood = forged
        .iter()
        .map(|token| call_tool_raw(&url, "whoami", Some(token), &[]));
    for (status, challenge, _) in futures::future::join_all(flood).await {
        assert_eq!(status, 503);
        assert_eq!(challenge, None);
    }
    assert_eq!(authorization.key_fetches(), 1, "200 made-up kids, no fetch");
    assert_eq!(oauth.key_fetches(), 1);

    // With the default pace, the authorization server rotates and its
    // first token under the new key is accepted without a restart.
    let authorization = AuthServer::start(&[&old]).await;
    let (url, _) = resource_server(&authorization, |b| b).await;
    let claims = authorization.claims(&url, "alice", "a");
    assert_eq!(whoami_as(&url, &old.sign(&claims)).await, "alice a");
    let new = TestKey::p256("new");
    authorization.publish(&[&new]);
    assert_eq!(whoami_as(&url, &new.sign(&claims)).await, "alice a");
    assert_eq!(authorization.key_fetches(), 2);
}

#[tokio::test]
async fn an_authorization_server_that_cannot_be_reached_is_a_503_not_a_401() {
    // A port that was free a moment ago, and is closed now.
    let closed = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer(format!("http://{closed}"))
        .resource(url.clone())
        .build()
        .unwrap();
    let f = common::fixture_with(|b| b.tool(WhoamiTool));
    tokio::spawn(
        StreamableHttp::new(f.server)
            .oauth(oauth)
            .serve_on(listener),
    );
    let token = key.sign(
        &json!({"iss": format!("http://{closed}"), "sub": "a", "aud": url, "exp": now() + 60}),
    );
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&token)
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": common::meta(json!({}))}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 503);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry), "{retry}");
    assert!(response.headers().get("www-authenticate").is_none());
    let body = response.text().await.unwrap();
    assert!(
        !body.contains(&closed.to_string()),
        "no internal detail: {body}"
    );
}

/// The guide's deployment: `https://mcp.example.com/mcp` behind a proxy
/// that passes `Host: mcp.example.com`. `.oauth()` allows the resource's
/// host, so the request reaches the authenticator (`401`, the sign-in
/// challenge) instead of the host guard (`403`). Another host is still
/// refused, and the refusal names it and the setting that allows it.
#[tokio::test]
async fn oauth_allows_the_host_of_the_resource_it_publishes() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer("https://auth.example.com")
        .resource("https://mcp.example.com/mcp")
        .build()
        .unwrap();
    let f = common::fixture_with(|b| b.tool(WhoamiTool));
    tokio::spawn(
        StreamableHttp::new(f.server)
            .oauth(oauth)
            .serve_on(listener),
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": common::meta(json!({}))}});
    for host in ["mcp.example.com", "MCP.example.com:443", "localhost"] {
        let response = post(&url, list.clone(), &[("host", host)]).await;
        assert_eq!(response.status().as_u16(), 401, "{host}");
        let challenge = response.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.contains("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"),
            "{challenge}"
        );
    }
    let origin = [
        ("host", "mcp.example.com"),
        ("origin", "https://mcp.example.com"),
    ];
    assert_eq!(
        post(&url, list.clone(), &origin).await.status().as_u16(),
        401
    );

    let other = post(&url, list, &[("host", "api.example.com")]).await;
    let (status, body) = status_and_body(other).await;
    assert_eq!(status, 403);
    assert_eq!(
        body["error"]["message"],
        "Forbidden: this server does not answer for the host \"api.example.com\". If it should, \
         allow it in the server's settings: \
         StreamableHttp::allowed_hosts(AllowedHosts::loopback().with(\"api.example.com\"))"
    );
}

#[tokio::test]
async fn two_issuers_subjects_of_the_same_name_own_different_tasks() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let first = AuthServer::start(&[&key]).await;
    let second = AuthServer::start(&[&key]).await;
    let f = common::fixture();
    let mut urls = Vec::new();
    for authorization in [&first, &second] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let oauth = OAuth::issuer(authorization.issuer.clone())
            .resource(url.clone())
            .build()
            .unwrap();
        tokio::spawn(
            StreamableHttp::new(f.server.clone())
                .oauth(oauth)
                .serve_on(listener),
        );
        urls.push(url);
    }
    let client = |url: &str, authorization: &AuthServer| {
        let token = key.sign(&authorization.claims(url, "alice", ""));
        let options = HttpOptions::default().bearer_token(token);
        Client::builder()
            .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
            .tasks(true)
            .connect(ClientTransport::http_with(url, options).unwrap())
    };
    let alice_first = client(&urls[0], &first);
    let alice_second = client(&urls[1], &second);
    let created = alice_first
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    let task = created.task().unwrap().id().to_owned();
    assert!(alice_first.get_task(&task).await.is_ok());
    let error = alice_second.get_task(&task).await.unwrap_err();
    assert_eq!(error.code(), Some(-32602), "{error}");
}

/// A raw request of `method` with `params` and `token` (or without
/// `Authorization`) and `extra` headers: the status, the challenge, and
/// the body.
async fn request_raw(
    url: &str,
    method: &str,
    mut params: Value,
    token: Option<&str>,
    extra: &[(&str, &str)],
) -> (u16, Option<String>, Value) {
    params["_meta"] = common::meta(json!({}));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = extra.to_vec();
    headers.extend(bearer.as_deref().map(|b| ("authorization", b)));
    let response = post(url, body, &headers).await;
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = status_and_body(response).await;
    (status, challenge, body)
}

/// A raw `tools/call` of `tool`, as [`request_raw`].
async fn call_tool_raw(
    url: &str,
    tool: &str,
    token: Option<&str>,
    extra: &[(&str, &str)],
) -> (u16, Option<String>, Value) {
    let params = json!({"name": tool, "arguments": {}});
    request_raw(url, "tools/call", params, token, extra).await
}

#[tokio::test]
async fn a_token_without_the_tools_scope_gets_the_step_up_challenge() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let (url, _) = resource_server(&authorization, |b| b.scopes_supported(["jobs:read"])).await;
    let reader = key.sign(&authorization.claims(&url, "rita", "jobs:read"));
    let (status, challenge, _) = call_tool_raw(&url, "deploy", Some(&reader), &[]).await;
    assert_eq!(status, 403);
    let published = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        challenge.unwrap(),
        challenges(&format!(
            r#"error="insufficient_scope", scope="jobs:deploy", resource_metadata="{published}""#
        ))
    );
    // Stepped up: the same subject, a token with the scope.
    let deployer = key.sign(&authorization.claims(&url, "rita", "jobs:read jobs:deploy"));
    let (status, _, body) = call_tool_raw(&url, "deploy", Some(&deployer), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "deployed");
    // Completing a scoped prompt's arguments steps up the same way.
    let complete = json!({"ref": {"type": "ref/prompt", "name": "release_note"},
                          "argument": {"name": "version", "value": "1."}});
    let (status, challenge, _) = request_raw(
        &url,
        "completion/complete",
        complete.clone(),
        Some(&reader),
        &[],
    )
    .await;
    assert_eq!(status, 403);
    assert!(challenge.unwrap().contains(r#"scope="jobs:deploy""#));
    let (status, _, body) =
        request_raw(&url, "completion/complete", complete, Some(&deployer), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["completion"]["values"],
        json!(["1.0", "1.1"]),
        "{body}"
    );

    // The metadata names the configured scopes and every declared one.
    let document = reqwest::get(&published)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(
        document["scopes_supported"],
        json!(["jobs:read", "jobs:deploy"])
    );
    assert_eq!(
        document["authorization_servers"],
        json!([authorization.issuer])
    );
    assert_eq!(document["resource"], url);
}

#[tokio::test]
async fn a_tool_hidden_from_the_caller_gets_no_step_up_challenge() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    // Each caller sees only what it holds the scopes of.
    let (url, _) = resource_server_with(
        &authorization,
        |b| b,
        |b| b.visibility(|caller, item| item.scopes().iter().all(|s| caller.scopes.contains(s))),
    )
    .await;
    let reader = key.sign(&authorization.claims(&url, "rita", "jobs:read"));
    let (status, challenge, body) = call_tool_raw(&url, "deploy", Some(&reader), &[]).await;
    assert_eq!(challenge, None, "a challenge would tell the tool is there");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    // Answered as a tool that does not exist is.
    let (unknown_status, _, unknown) = call_tool_raw(&url, "nothing", Some(&reader), &[]).await;
    assert_eq!(status, unknown_status);
    assert_eq!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .replace("deploy", "nothing"),
        unknown["error"]["message"]
    );
    let deployer = key.sign(&authorization.claims(&url, "rita", "jobs:read jobs:deploy"));
    let (status, _, body) = call_tool_raw(&url, "deploy", Some(&deployer), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "deployed");
}

#[tokio::test]
async fn a_request_without_a_token_is_told_the_sign_in_scopes_when_they_are_configured() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let published = |url: &str| url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let (url, _) = resource_server(&authorization, |b| {
        b.sign_in_scopes(["jobs:read", "profile"])
    })
    .await;
    let (status, challenge, _) = call_tool_raw(&url, "whoami", None, &[]).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge.unwrap(),
        challenges(&format!(
            r#"scope="jobs:read profile", resource_metadata="{}""#,
            published(&url)
        ))
    );
    // A refused token is told why, not the scopes.
    let (status, challenge) = call_with(&url, "opaque-token").await;
    assert_eq!(status, 401);
    assert!(!challenge.unwrap().contains("scope="));
    // Unconfigured, the 401 names only the metadata.
    let (url, _) = resource_server(&authorization, |b| b).await;
    let (_, challenge, _) = call_tool_raw(&url, "whoami", None, &[]).await;
    assert_eq!(
        challenge.unwrap(),
        challenges(&format!(r#"resource_metadata="{}""#, published(&url)))
    );
}

#[tokio::test]
async fn a_legacy_session_steps_up_with_a_new_token() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let (url, _) = resource_server(&authorization, |b| b).await;
    let reader = key.sign(&authorization.claims(&url, "rita", "jobs:read"));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "legacy", "version": "1"}}});
    let opened = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&reader)
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status().as_u16(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let call = |token: String| {
        let url = url.clone();
        let session = session.clone();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "deploy", "arguments": {}}});
            let response = reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25")
                .bearer_auth(token)
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.text().await.unwrap())
        }
    };
    let (status, _) = call(reader).await;
    assert_eq!(status, 403);
    let deployer = key.sign(&authorization.claims(&url, "rita", "jobs:read jobs:deploy"));
    let (status, body) = call(deployer).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("deployed"), "{body}");
}

#[tokio::test]
async fn tools_read_the_http_requests_headers_but_never_its_token() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let (url, _) = resource_server(&authorization, |b| b).await;
    let token = key.sign(&authorization.claims(&url, "tess", ""));
    let (status, _, body) =
        call_tool_raw(&url, "tenant", Some(&token), &[("x-tenant", "acme")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "acme false");

    // Off HTTP, the extractor fails before the tool runs, saying why.
    let f = common::fixture_with(|b| b.tool(TenantTool));
    let mut peer = common::RawPeer::new(common::connect(
        &f.server,
        Caller::anonymous(),
        common::Wire::InProcess,
    ));
    let answer = peer
        .call(1, json!({}), json!({"name": "tenant", "arguments": {}}))
        .await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text.contains("did not come over HTTP"), "{text}");
}

#[tokio::test]
async fn provider_shapes_entra_roles_and_cognito_client_ids_are_configurable() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    // Entra ID's app-only tokens carry their permissions in `roles`.
    let (url, _) = resource_server(&authorization, |b| b.scope_claim("roles")).await;
    let mut app_only = authorization.claims(&url, "daemon", "");
    app_only.as_object_mut().unwrap().remove("scope");
    app_only["roles"] = json!(["jobs:deploy"]);
    let (status, _, body) = call_tool_raw(&url, "deploy", Some(&key.sign(&app_only)), &[]).await;
    assert_eq!(status, 200, "{body}");

    // Cognito's access tokens have no `aud`, only `client_id`.
    let (url, _) = resource_server(&authorization, |b| b.client_ids(["app-client-1"])).await;
    let mut cognito = authorization.claims(&url, "carla", "jobs:read");
    cognito.as_object_mut().unwrap().remove("aud");
    cognito["client_id"] = json!("app-client-1");
    assert_eq!(
        whoami_as(&url, &key.sign(&cognito)).await,
        "carla jobs:read"
    );
    cognito["client_id"] = json!("another-client");
    assert_refused(
        &url,
        &key.sign(&cognito),
        "the token is not for this resource",
    )
    .await;
    // An `aud` that is there is still held to the audiences.
    cognito["client_id"] = json!("app-client-1");
    cognito["aud"] = json!("https://elsewhere.example/mcp");
    assert_refused(
        &url,
        &key.sign(&cognito),
        "the token is not for this resource",
    )
    .await;
}

#[tokio::test]
async fn id_tokens_are_refused_though_their_audience_is_one_configured() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    // The API's client id is an audience here, as Entra ID and Keycloak
    // set-ups have it: the ID tokens issued to that client name it in
    // `aud`.
    let (url, _) = resource_server(&authorization, |b| b.audience("jobs-client")).await;
    let valid = authorization.claims("jobs-client", "alice", "jobs:build");
    let with = |changes: Value| {
        let mut claims = valid.clone();
        for (name, value) in changes.as_object().unwrap() {
            claims[name] = value.clone();
        }
        let mut header = key.header();
        header.typ = Some("JWT".into());
        key.sign_with(header, &claims)
    };
    assert_eq!(whoami_as(&url, &with(json!({}))).await, "alice jobs:build");
    let id_tokens = [
        json!({"nonce": "n-0S6_WzA2Mj", "at_hash": "77QmUPtjPfzWtF2AnpK9RQ"}),
        json!({"typ": "ID", "azp": "jobs-client"}),
        json!({"token_use": "id"}),
        json!({"tid": "t", "ver": "2.0", "oid": "o"}),
    ];
    for claims in id_tokens {
        assert_refused(&url, &with(claims), "the token is not an access token").await;
    }
    // Keycloak's access tokens say `Bearer`, even with a nonce copied in.
    let keycloak = with(json!({"typ": "Bearer", "nonce": "n", "azp": "jobs-client"}));
    assert_eq!(whoami_as(&url, &keycloak).await, "alice jobs:build");
}

#[tokio::test]
async fn an_audience_of_null_is_refused_even_where_client_ids_stand_in_for_it() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let (url, _) = resource_server(&authorization, |b| b.client_ids(["app-client-1"])).await;
    let mut claims = authorization.claims(&url, "carla", "jobs:read");
    claims["client_id"] = json!("app-client-1");
    claims["aud"] = Value::Null;
    assert_refused(&url, &key.sign(&claims), "the token lacks a required claim").await;
    // Without `aud` at all, the client id stands in for it.
    claims.as_object_mut().unwrap().remove("aud");
    assert_eq!(whoami_as(&url, &key.sign(&claims)).await, "carla jobs:read");
}
