//! What validating an access token costs, with the keys cached and with
//! a DPoP proof beside it; what a flood of tokens with made-up `kid`s
//! costs the authorization server; and how long a real user's opaque
//! token waits for introspection while random opaque tokens flood the
//! server.
//!
//! Run with `cargo bench --bench oauth`. It prints one line per
//! measurement; the figures go in issue notes and docs/oauth.md, not in
//! assertions. `OAUTH_BENCH_ROUNDS` sets the rounds (2,000 by default; CI
//! runs a few, in a debug build, so that the harness cannot go stale).

#[path = "../tests/common/oauth.rs"]
mod issuer;

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Form};
use axum::http::request::Parts;
use axum::routing::post;
use jsonwebtoken::Algorithm;
use presa::server::http::{Authenticator, Introspection, OAuth};
use serde_json::json;

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
    claims["cnf"] = json!({
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
                &json!({"jti": format!("bench-{n}"), "htm": "POST",
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

    // Made-up kids, one after another: the first few fetch, each a
    // cool-down after the last; then the pace refuses the rest without a
    // fetch, which is what a flood costs.
    let before = authorization.key_fetches();
    let claims = authorization.claims(resource, "mallory", "");
    let forged: Vec<String> = (0..rounds * 5)
        .map(|n| {
            let mut header = keys[2].header();
            header.kid = Some(format!("forged-{n}"));
            keys[2].sign_with(header, &claims)
        })
        .collect();
    let (paced, flood) = forged.split_at(5.min(forged.len()));
    for token in paced {
        assert!(oauth.validate(token).await.is_err());
    }
    let started = Instant::now();
    for token in flood {
        assert!(oauth.validate(token).await.is_err());
    }
    let each = started.elapsed() / flood.len().max(1) as u32;
    println!(
        "{} tokens with made-up kids: {} key fetch(es), {:.1} µs each to refuse once the pace is spent",
        forged.len(),
        authorization.key_fetches() - before,
        each.as_secs_f64() * 1e6
    );

    // Random opaque tokens, from one address and from many, with a real
    // user's first request among them.
    introspection_flood(10_000, 1).await;
    introspection_flood(10_000, 100).await;
    introspection_flood(10_000, 10_000).await;
}

/// How long the authorization server takes to answer one introspection.
const INTROSPECTION_DELAY: Duration = Duration::from_millis(5);

/// The real user's opaque token, the one the introspection endpoint
/// calls active.
const REAL_TOKEN: &str = "real-user-opaque-token";

/// An introspection endpoint on loopback that takes
/// [`INTROSPECTION_DELAY`] per answer, calls [`REAL_TOKEN`] active and
/// every other token inactive; its URL and its count of posts.
async fn introspection_endpoint(resource: &str) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    let posts = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&posts);
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let resource = resource.to_owned();
    let answer = move |Form(form): Form<HashMap<String, String>>| {
        counted.fetch_add(1, Ordering::SeqCst);
        let active = form.get("token").map(String::as_str) == Some(REAL_TOKEN);
        let body = if active {
            json!({"active": true, "sub": "alice", "scope": "jobs:build", "iss": issuer,
                   "aud": resource, "exp": issuer::now() + 3600})
        } else {
            json!({"active": false})
        };
        async move {
            tokio::time::sleep(INTROSPECTION_DELAY).await;
            axum::Json(body)
        }
    };
    let app = axum::Router::new().route("/introspect", post(answer));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, posts)
}

/// A request carrying `token`, from `peer` as `serve` records it.
fn request_from(token: &str, peer: SocketAddr) -> Parts {
    let mut request = axum::http::Request::builder()
        .header("authorization", format!("Bearer {token}"))
        .body(())
        .unwrap();
    request.extensions_mut().insert(ConnectInfo(peer));
    request.into_parts().0
}

/// The real user's first request during a flood of `flood` random opaque
/// tokens sent at once from `attackers` addresses; prints its latency and
/// the introspections the flood cost.
async fn introspection_flood(flood: usize, attackers: usize) {
    let resource = "http://127.0.0.1:1/mcp";
    let (endpoint, posts) = introspection_endpoint(resource).await;
    let issuer = endpoint.trim_end_matches("/introspect").to_owned();
    let oauth = OAuth::issuer(issuer)
        .resource(resource)
        .introspection(Introspection::client_secret_basic("rs", "secret").endpoint(endpoint))
        .build()
        .unwrap();
    let started = Instant::now();
    let sent = Arc::new(AtomicUsize::new(0));
    let floods: Vec<_> = (0..flood)
        .map(|n| {
            let oauth = oauth.clone();
            let sent = Arc::clone(&sent);
            // 198.51.100.0 and the addresses after it, one per attacker.
            let address = Ipv4Addr::from(0xc633_6400 + (n % attackers) as u32);
            let peer = SocketAddr::from((address, 40_000));
            tokio::spawn(async move {
                let token = format!("random-{n}-{:x}", n.wrapping_mul(0x9e37_79b9));
                let request = request_from(&token, peer);
                let mut checked = oauth.authenticate(&request);
                // Polled once, the request is queued for its introspection.
                let first = futures::poll!(&mut checked);
                sent.fetch_add(1, Ordering::SeqCst);
                match first {
                    std::task::Poll::Ready(outcome) => outcome.is_err(),
                    std::task::Poll::Pending => checked.await.is_err(),
                }
            })
        })
        .collect();
    // The real user asks once every request of the flood has been sent.
    while sent.load(Ordering::SeqCst) < flood {
        tokio::task::yield_now().await;
    }
    let user = SocketAddr::from(([203, 0, 113, 9], 50_000));
    let asked = Instant::now();
    let caller = oauth
        .authenticate(&request_from(REAL_TOKEN, user))
        .await
        .expect("the real user's token is active");
    let latency = asked.elapsed();
    assert_eq!(caller.subject.as_deref(), Some("alice"));
    let refused = futures::future::join_all(floods)
        .await
        .into_iter()
        .filter(|refused| *refused.as_ref().unwrap())
        .count();
    println!(
        "real user's opaque token during a flood of {flood} random tokens from {attackers} address(es): \
         {:.1} ms; {refused} refused, {} introspections, flood over in {:.2} s",
        latency.as_secs_f64() * 1e3,
        posts.load(Ordering::SeqCst),
        started.elapsed().as_secs_f64()
    );
}
