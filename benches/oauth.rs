//! What validating an access token costs, with the keys cached, with a
//! DPoP proof beside it, and what a flood of tokens with made-up `kid`s
//! costs the authorization server.
//!
//! Run with `cargo bench --bench oauth`. It prints one line per
//! measurement; the figures go in issue notes and docs/oauth.md, not in
//! assertions. `OAUTH_BENCH_ROUNDS` sets the rounds (2,000 by default; CI
//! runs a few, in a debug build, so that the harness cannot go stale).

#[path = "../tests/common/oauth.rs"]
mod issuer;

use std::time::Instant;

use jsonwebtoken::Algorithm;
use presa::server::http::{Authenticator, OAuth};

use issuer::{AuthServer, TestKey};

/// The validations timed per key, unless `OAUTH_BENCH_ROUNDS` says.
const ROUNDS: u32 = 2_000;

#[tokio::main]
async fn main() {
    let rounds: u32 = std::env::var("OAUTH_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(ROUNDS);
    let keys = [
        TestKey::rsa("rs256", Algorithm::RS256),
        TestKey::p256("es256"),
        TestKey::ed25519("eddsa"),
    ];
    let authorization = AuthServer::start(&keys.iter().collect::<Vec<_>>()).await;
    let resource = "http://127.0.0.1:1/mcp";
    let oauth = OAuth::issuer(authorization.issuer.clone())
        .resource(resource)
        .build()
        .unwrap();
    for key in &keys {
        let token = key.sign(&authorization.claims(resource, "alice", "jobs:build"));
        oauth.validate(&token).await.unwrap();
        let started = Instant::now();
        for _ in 0..rounds {
            oauth.validate(&token).await.unwrap();
        }
        let each = started.elapsed() / rounds;
        println!(
            "validate {:?} token, keys cached: {:.1} µs",
            key.alg,
            each.as_secs_f64() * 1e6
        );
    }

    // A DPoP-bound RS256 token, each request with a fresh ES256 proof (made
    // beforehand, each `jti` new): the token's cost and the proof's.
    let client_key = TestKey::p256("client");
    let jwk =
        jsonwebtoken::jwk::Jwk::from_encoding_key(&client_key.encoding, Algorithm::ES256).unwrap();
    let mut claims = authorization.claims(resource, "alice", "jobs:build");
    claims["cnf"] = serde_json::json!({
        "jkt": jwk.thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256).unwrap()
    });
    let token = keys[0].sign(&claims);
    let ath = {
        use base64::Engine;
        use sha2::Digest;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(&token))
    };
    let requests: Vec<_> = (0..=rounds)
        .map(|n| {
            let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
            header.typ = Some("dpop+jwt".into());
            header.jwk = Some(jwk.clone());
            let proof = client_key.sign_with(
                header,
                &serde_json::json!({"jti": format!("bench-{n}"), "htm": "POST",
                    "htu": resource, "iat": issuer::now(), "ath": ath}),
            );
            axum::http::Request::post(resource)
                .header("authorization", format!("DPoP {token}"))
                .header("dpop", proof)
                .body(())
                .unwrap()
                .into_parts()
                .0
        })
        .collect();
    oauth.authenticate(&requests[0]).await.unwrap();
    let started = Instant::now();
    for request in &requests[1..] {
        oauth.authenticate(request).await.unwrap();
    }
    let each = started.elapsed() / rounds;
    println!(
        "validate an RS256 token bound by DPoP, with its ES256 proof: {:.1} µs",
        each.as_secs_f64() * 1e6
    );

    // Made-up kids, one after another: the first that the cache lacks may
    // fetch once the cool-down allows, no other.
    let before = authorization.key_fetches();
    let claims = authorization.claims(resource, "mallory", "");
    let forged: Vec<String> = (0..rounds * 5)
        .map(|n| {
            let mut header = keys[2].header();
            header.kid = Some(format!("forged-{n}"));
            keys[2].sign_with(header, &claims)
        })
        .collect();
    let started = Instant::now();
    for token in &forged {
        assert!(oauth.validate(token).await.is_err());
    }
    let each = started.elapsed() / forged.len() as u32;
    println!(
        "{} tokens with made-up kids: {} key fetch(es), {:.1} µs each to refuse",
        forged.len(),
        authorization.key_fetches() - before,
        each.as_secs_f64() * 1e6
    );
}
