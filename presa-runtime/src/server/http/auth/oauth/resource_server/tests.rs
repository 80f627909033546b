//! The key cache and introspection on a fake authorization server, in
//! tokio's paused time: fetch counts under floods, rotation, schedules and
//! outages. Signatures and claims are tested end to end in the facade's
//! `tests/oauth.rs`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::super::keys::{KeyCache, KeyError, KeySettings, Locate};
use super::super::{failures, introspection};
use super::*;
use crate::oauth::fetch::{Fetch, FetchError, Fetched};

const JWKS: &str = "https://as.example/jwks";

/// A form posted, and the Basic credentials it came with.
type Post = (Vec<(String, String)>, Option<(String, String)>);

/// An authorization server that answers from a table, and counts.
#[derive(Default)]
struct FakeServer {
    documents: Mutex<HashMap<String, Result<Fetched, FetchError>>>,
    /// Introspection answers for particular tokens, before `documents`.
    by_token: Mutex<HashMap<String, Value>>,
    gets: AtomicUsize,
    posts: Mutex<Vec<Post>>,
}

impl FakeServer {
    fn serve(&self, url: &str, body: Value, max_age: Option<u64>) {
        let fetched = Fetched {
            body: body.to_string().into_bytes(),
            max_age: max_age.map(Duration::from_secs),
        };
        self.documents
            .lock()
            .unwrap()
            .insert(url.into(), Ok(fetched));
    }

    fn fail(&self, url: &str) {
        let error = FetchError::Unreachable {
            url: url.into(),
            reason: "connection refused".into(),
        };
        self.documents
            .lock()
            .unwrap()
            .insert(url.into(), Err(error));
    }

    fn gets(&self) -> usize {
        self.gets.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Fetch for FakeServer {
    async fn get(&self, url: &str) -> Result<Fetched, FetchError> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        // A fetch takes time: requests that need keys meanwhile must wait
        // for it rather than fetch again.
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.documents
            .lock()
            .unwrap()
            .get(url)
            .cloned()
            .unwrap_or(Err(FetchError::Status {
                url: url.into(),
                status: 404,
            }))
    }

    async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic_auth: Option<(&str, &str)>,
    ) -> Result<Fetched, FetchError> {
        let form: Vec<(String, String)> = form
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let basic = basic_auth.map(|(u, p)| (u.to_owned(), p.to_owned()));
        let token = form
            .iter()
            .find(|(name, _)| name == "token")
            .map(|(_, token)| token.clone());
        self.posts.lock().unwrap().push((form, basic));
        let answer = token.and_then(|token| self.by_token.lock().unwrap().get(&token).cloned());
        match answer {
            Some(answer) => {
                self.gets.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok(Fetched {
                    body: answer.to_string().into_bytes(),
                    max_age: None,
                })
            }
            None => self.get(url).await,
        }
    }
}

/// A key set of RSA keys with ids `kids` (their numbers are placeholders:
/// the cache parses keys, it does not verify with them).
fn key_set(kids: &[&str]) -> Value {
    let keys: Vec<Value> = kids
        .iter()
        .map(|kid| json!({"kty": "RSA", "kid": kid, "use": "sig", "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw", "e": "AQAB"}))
        .collect();
    json!({ "keys": keys })
}

fn cache(server: &Arc<FakeServer>, settings: KeySettings) -> Arc<KeyCache> {
    let locate: Locate = Box::new(|| Box::pin(async { Ok(JWKS.to_owned()) }));
    Arc::new(KeyCache::new(
        Arc::clone(server) as Arc<dyn Fetch>,
        locate,
        settings,
    ))
}

async fn held(cache: &Arc<KeyCache>, kid: &str) -> Result<(), KeyError> {
    cache.keys_for(Some(kid), Algorithm::RS256).await.map(drop)
}

#[tokio::test(start_paused = true)]
async fn a_rotation_right_after_a_fetch_is_accepted_and_made_up_kids_cost_few_fetches() {
    let server = Arc::new(FakeServer::default());
    server.serve(JWKS, key_set(&["old"]), None);
    let cache = cache(&server, KeySettings::default());
    held(&cache, "old").await.unwrap();
    assert_eq!(server.gets(), 1);

    // The issuer adds a key right after that fetch, and signs with it.
    tokio::time::advance(Duration::from_millis(100)).await;
    server.serve(JWKS, key_set(&["old", "new"]), None);
    let signed = Instant::now();
    held(&cache, "new").await.unwrap();
    let accepted_after = signed.elapsed();
    assert!(
        accepted_after <= Duration::from_secs(1),
        "accepted after {accepted_after:?}"
    );
    assert_eq!(server.gets(), 2);

    // 40 made-up kids, one a second: a few fetches, then the pace refuses
    // them as the server's failure, not the token's.
    let before = server.gets();
    let mut throttled = 0;
    for n in 0..40 {
        match held(&cache, &format!("made-up-{n}")).await {
            Err(KeyError::Unknown) => {}
            Err(KeyError::Throttled { retry_after }) => {
                assert!(retry_after > Duration::ZERO && retry_after <= Duration::from_secs(15));
                throttled += 1;
            }
            other => panic!("{other:?}"),
        }
        tokio::time::advance(Duration::from_secs(1)).await;
    }
    let made_up = server.gets() - before;
    assert!(made_up <= 5, "{made_up} fetches for 40 made-up kids");
    assert_eq!(throttled, 40 - made_up);
    // The keys held still verify throughout.
    held(&cache, "old").await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn tokens_waiting_for_the_same_kid_share_one_fetch() {
    let server = Arc::new(FakeServer::default());
    server.serve(JWKS, key_set(&["old"]), None);
    let cache = cache(&server, KeySettings::default());
    held(&cache, "old").await.unwrap();
    server.serve(JWKS, key_set(&["new"]), None);
    let burst = (0..50).map(|_| {
        let cache = Arc::clone(&cache);
        tokio::spawn(async move { held(&cache, "new").await })
    });
    for outcome in futures::future::join_all(burst).await {
        outcome.unwrap().unwrap();
    }
    assert_eq!(server.gets(), 2, "one fetch for 50 tokens");

    // And 1,000 made-up kids at once share one too.
    let flood = (0..1000).map(|n| {
        let cache = Arc::clone(&cache);
        tokio::spawn(async move { held(&cache, &format!("forged-{n}")).await })
    });
    for outcome in futures::future::join_all(flood).await {
        assert!(matches!(outcome.unwrap(), Err(KeyError::Unknown)));
    }
    assert_eq!(server.gets(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_flood_of_made_up_kids_costs_a_few_fetches_a_minute() {
    let server = Arc::new(FakeServer::default());
    server.serve(JWKS, key_set(&["a"]), None);
    let settings = KeySettings::default();
    let cache = cache(&server, settings);
    held(&cache, "a").await.unwrap();
    let started = Instant::now();
    // Ten an instant for ten minutes and more, each batch 100 ms after
    // the last is answered.
    for batch in 0..6000 {
        let flood = (0..10).map(|n| {
            let cache = Arc::clone(&cache);
            tokio::spawn(async move { held(&cache, &format!("forged-{batch}-{n}")).await })
        });
        for outcome in futures::future::join_all(flood).await {
            assert!(outcome.unwrap().is_err());
        }
        tokio::time::advance(Duration::from_millis(100)).await;
    }
    // The burst, then one per refill, and the first.
    let minutes = started.elapsed().as_secs_f64() / 60.0;
    assert!(minutes >= 10.0);
    let allowed =
        1 + u64::from(settings.burst) + started.elapsed().as_secs() / settings.refill.as_secs();
    assert!(
        server.gets() as u64 <= allowed,
        "{} fetches, {allowed} allowed",
        server.gets()
    );
    held(&cache, "a").await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_fetch_lets_the_next_token_fetch() {
    let server = Arc::new(FakeServer::default());
    server.serve(JWKS, key_set(&["a"]), None);
    let cache = cache(&server, KeySettings::default());
    // The first token gives up while its fetch is on its way.
    let first = {
        let cache = Arc::clone(&cache);
        tokio::spawn(async move { held(&cache, "a").await })
    };
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(server.gets(), 1, "the fetch is on its way");
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    // The next is not told the key is missing: it fetches, a cool-down
    // after the fetch that never answered.
    held(&cache, "a").await.unwrap();
    assert_eq!(server.gets(), 2);
}

#[tokio::test(start_paused = true)]
async fn keys_are_kept_as_long_as_their_headers_say_within_bounds() {
    let server = Arc::new(FakeServer::default());
    server.serve(JWKS, key_set(&["a"]), Some(600));
    let cache = cache(&server, KeySettings::default());
    held(&cache, "a").await.unwrap();
    tokio::time::advance(Duration::from_secs(599)).await;
    held(&cache, "a").await.unwrap();
    assert_eq!(server.gets(), 1, "fresh for its max-age");

    // Stale: the key is used at once, and refreshed behind it.
    tokio::time::advance(Duration::from_secs(2)).await;
    held(&cache, "a").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.gets(), 2, "refreshed once stale");

    // `max-age=0` cannot make every token fetch: the floor is a minute.
    server.serve(JWKS, key_set(&["a"]), Some(0));
    tokio::time::advance(Duration::from_secs(601)).await;
    held(&cache, "a").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let after = server.gets();
    tokio::time::advance(Duration::from_secs(30)).await;
    for _ in 0..10 {
        held(&cache, "a").await.unwrap();
    }
    assert_eq!(server.gets(), after);
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_server_is_the_servers_failure_but_held_keys_still_verify() {
    let server = Arc::new(FakeServer::default());
    server.fail(JWKS);
    let cache = cache(&server, KeySettings::default());
    let first = held(&cache, "a").await;
    let Err(KeyError::Unavailable { retry_after, .. }) = first else {
        panic!("{first:?}");
    };
    // The rest of the cool-down, counted from when the fetch began, and a
    // second at least.
    assert_eq!(retry_after, Duration::from_secs(1));
    // Asked again and again for a minute: the server's failure each time,
    // and the fetches paced (the burst of 3, then one per 15 s).
    for _ in 0..60 {
        assert!(matches!(
            held(&cache, "a").await,
            Err(KeyError::Unavailable { .. })
        ));
        tokio::time::advance(Duration::from_secs(1)).await;
    }
    assert!(server.gets() <= 3 + 4, "{} fetches", server.gets());

    // Back up: the keys arrive; then down again past their age: the
    // stale keys still verify, and a key not held is unavailable.
    tokio::time::advance(Duration::from_secs(31)).await;
    server.serve(JWKS, key_set(&["a"]), Some(60));
    held(&cache, "a").await.unwrap();
    server.fail(JWKS);
    tokio::time::advance(Duration::from_secs(61)).await;
    held(&cache, "a").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    held(&cache, "a").await.unwrap();
    tokio::time::advance(Duration::from_secs(31)).await;
    assert!(matches!(
        held(&cache, "b").await,
        Err(KeyError::Unavailable { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn only_public_signature_keys_of_the_tokens_algorithm_are_kept() {
    let server = Arc::new(FakeServer::default());
    let mut set = key_set(&["rsa", "enc", "rs384"]);
    set["keys"][1]["use"] = json!("enc");
    set["keys"][2]["alg"] = json!("RS384");
    set["keys"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kty": "oct", "kid": "secret", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA"}));
    server.serve(JWKS, set, None);
    let cache = cache(&server, KeySettings::default());
    held(&cache, "rsa").await.unwrap();
    assert!(held(&cache, "enc").await.is_err(), "an encryption key");
    assert!(
        held(&cache, "rs384").await.is_err(),
        "a key for another algorithm"
    );
    assert!(
        cache
            .keys_for(Some("rs384"), Algorithm::RS384)
            .await
            .is_ok()
    );
    assert!(
        cache.keys_for(Some("rsa"), Algorithm::ES256).await.is_err(),
        "another key type"
    );
    assert!(
        cache
            .keys_for(Some("secret"), Algorithm::HS256)
            .await
            .is_err(),
        "a symmetric key"
    );
}

fn introspecting(server: &Arc<FakeServer>, settings: Introspection) -> OAuth {
    OAuth::issuer("https://as.example/")
        .resource("https://mcp.example/mcp")
        .introspection(settings.endpoint("https://as.example/introspect"))
        .fetch(Arc::clone(server) as Arc<dyn Fetch>)
        .build()
        .unwrap()
}

fn in_an_hour() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600
}

#[tokio::test(start_paused = true)]
async fn opaque_tokens_are_introspected_with_the_servers_credentials_and_cached_by_digest() {
    let server = Arc::new(FakeServer::default());
    let answer = json!({
        "active": true, "sub": "alice", "scope": "jobs:build", "iss": "https://as.example/",
        "aud": "https://mcp.example/mcp", "exp": in_an_hour(),
    });
    server.serve("https://as.example/introspect", answer, None);
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s3cret"));
    let alice = oauth.validate("opaque-token-1").await.unwrap();
    assert_eq!(alice.subject.as_deref(), Some("alice"));
    assert_eq!(alice.issuer.as_deref(), Some("https://as.example/"));
    assert!(alice.scopes.contains("jobs:build"));
    let posts = server.posts.lock().unwrap().clone();
    let (form, basic) = &posts[0];
    assert!(form.contains(&("token".into(), "opaque-token-1".into())));
    assert_eq!(basic, &Some(("rs".into(), "s3cret".into())));

    // Cached: no second post, until the cache time is over.
    oauth.validate("opaque-token-1").await.unwrap();
    assert_eq!(server.gets(), 1);
    tokio::time::advance(Duration::from_secs(61)).await;
    oauth.validate("opaque-token-1").await.unwrap();
    assert_eq!(server.gets(), 2);
}

#[tokio::test(start_paused = true)]
async fn introspection_answers_that_do_not_hold_are_refused() {
    let base = json!({
        "active": true, "sub": "alice", "iss": "https://as.example/",
        "aud": ["https://mcp.example/mcp"], "exp": in_an_hour(),
    });
    let cases = [
        ("active", json!(false), "the token is not active"),
        (
            "iss",
            json!("https://evil.example/"),
            "the token is from another issuer",
        ),
        (
            "aud",
            json!("https://other.example/mcp"),
            "the token is not for this resource",
        ),
        ("exp", json!(1), "the token has expired"),
        ("sub", json!(7), "the token names no subject"),
    ];
    for (claim, value, description) in cases {
        let server = Arc::new(FakeServer::default());
        let mut answer = base.clone();
        answer[claim] = value;
        server.serve("https://as.example/introspect", answer, None);
        let oauth = introspecting(&server, Introspection::client_secret_post("rs", "s"));
        let refused = oauth.validate("opaque").await;
        assert_eq!(
            refused,
            Err(Refusal::InvalidToken { description }),
            "{claim}"
        );
    }

    // No `aud`: refused, unless the server never sends one.
    let server = Arc::new(FakeServer::default());
    let mut answer = base.clone();
    answer.as_object_mut().unwrap().remove("aud");
    server.serve("https://as.example/introspect", answer, None);
    let strict = introspecting(&server, Introspection::client_secret_post("rs", "s"));
    assert!(strict.validate("opaque").await.is_err());
    let lenient = introspecting(
        &server,
        Introspection::client_secret_post("rs", "s").audience_optional(),
    );
    assert!(lenient.validate("opaque").await.is_ok());
    let posts = server.posts.lock().unwrap().clone();
    assert!(
        posts[0].0.contains(&("client_secret".into(), "s".into())),
        "client_secret_post"
    );
    assert_eq!(posts[0].1, None);

    // An endpoint that cannot be reached: 503, not 401.
    let down = Arc::new(FakeServer::default());
    down.fail("https://as.example/introspect");
    let oauth = introspecting(&down, Introspection::client_secret_basic("rs", "s"));
    assert!(matches!(
        oauth.validate("opaque").await,
        Err(Refusal::Unavailable { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn discovery_falls_back_to_openid_configuration_and_holds_the_issuer_to_its_word() {
    let server = Arc::new(FakeServer::default());
    server.serve(
        "https://as.example/.well-known/openid-configuration/tenant",
        json!({"issuer": "https://as.example/tenant", "jwks_uri": JWKS}),
        None,
    );
    let found = crate::oauth::server_metadata::discover(&*server, "https://as.example/tenant")
        .await
        .unwrap();
    assert_eq!(found.jwks_uri.as_deref(), Some(JWKS));
    assert_eq!(server.gets(), 2, "RFC 8414's place first, then OpenID's");

    let impostor = Arc::new(FakeServer::default());
    impostor.serve(
        "https://as.example/.well-known/oauth-authorization-server",
        json!({"issuer": "https://evil.example", "jwks_uri": JWKS}),
        None,
    );
    let refused = crate::oauth::server_metadata::discover(&*impostor, "https://as.example").await;
    assert!(
        matches!(refused, Err(FetchError::Invalid { .. })),
        "{refused:?}"
    );
}

#[test]
fn a_configuration_that_cannot_be_secure_is_refused_at_build() {
    let refused = |builder: OAuthBuilder| builder.build().unwrap_err();
    assert_eq!(
        refused(OAuth::issuer("https://as.example")),
        OAuthConfigError::NoResource
    );
    let plain = OAuth::issuer("http://as.example").resource("https://mcp.example/mcp");
    assert!(matches!(
        refused(plain),
        OAuthConfigError::InsecureUrl { .. }
    ));
    let short = OAuth::issuer("https://as.example")
        .resource("https://mcp.example/mcp")
        .hmac_secret(b"short".to_vec());
    assert_eq!(refused(short), OAuthConfigError::WeakSecret(5));
    assert!(
        OAuth::issuer("http://127.0.0.1:9000")
            .resource("http://127.0.0.1:3000/mcp")
            .build()
            .is_ok()
    );
}

#[test]
fn only_three_base64url_parts_look_like_a_jwt() {
    assert!(looks_like_jwt("eyJh.eyJi.c2ln"));
    assert!(
        looks_like_jwt("eyJh.eyJi."),
        "an unsigned token is still a JWT, refused as one"
    );
    assert!(!looks_like_jwt("opaque-token"));
    assert!(!looks_like_jwt("a.b"));
    assert!(!looks_like_jwt("a.b.c.d"));
    assert!(!looks_like_jwt("a+b.c.d"));
}

/// A request carrying `token`, from `peer` as `serve` records it.
fn request_from(token: &str, peer: Option<&str>) -> axum::http::request::Parts {
    let mut request = axum::http::Request::builder()
        .header("authorization", format!("Bearer {token}"))
        .body(())
        .unwrap();
    if let Some(peer) = peer {
        let peer: std::net::SocketAddr = peer.parse().unwrap();
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
    }
    request.into_parts().0
}

/// An authorization server that calls every token inactive but `real`,
/// Alice's.
fn inactive_but(real: &str) -> Arc<FakeServer> {
    let server = Arc::new(FakeServer::default());
    server.serve(
        "https://as.example/introspect",
        json!({"active": false}),
        None,
    );
    let alice = json!({
        "active": true, "sub": "alice", "iss": "https://as.example/",
        "aud": "https://mcp.example/mcp", "exp": in_an_hour(),
    });
    server.by_token.lock().unwrap().insert(real.into(), alice);
    server
}

#[tokio::test(start_paused = true)]
async fn a_refused_token_is_asked_about_once_for_a_while() {
    let server = inactive_but("real");
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    for _ in 0..100 {
        assert_eq!(
            oauth.validate("revoked").await,
            Err(Refusal::InvalidToken {
                description: "the token is not active"
            })
        );
    }
    assert_eq!(server.gets(), 1);
    tokio::time::advance(introspection::REFUSAL_CACHED_FOR).await;
    assert!(oauth.validate("revoked").await.is_err());
    assert_eq!(server.gets(), 2, "asked again once its time is over");

    // Requests that need the same token at once share one introspection.
    let at_once = (0..50).map(|_| {
        let oauth = oauth.clone();
        tokio::spawn(async move { oauth.validate("real").await })
    });
    for caller in futures::future::join_all(at_once).await {
        assert_eq!(caller.unwrap().unwrap().subject.as_deref(), Some("alice"));
    }
    assert_eq!(server.gets(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_flood_of_made_up_tokens_from_one_network_leaves_others_served_at_once() {
    let server = inactive_but("real");
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    let sent = Arc::new(AtomicUsize::new(0));
    let flood: Vec<_> = (0..10_000)
        .map(|n| {
            let oauth = oauth.clone();
            let sent = Arc::clone(&sent);
            tokio::spawn(async move {
                let request = request_from(&format!("made-up-{n}"), Some("198.51.100.7:40000"));
                let mut checked = oauth.authenticate(&request);
                // Polled once, the request has had its turn or waits for
                // it.
                let first = futures::poll!(&mut checked);
                sent.fetch_add(1, Ordering::SeqCst);
                match first {
                    std::task::Poll::Ready(outcome) => outcome,
                    std::task::Poll::Pending => checked.await,
                }
            })
        })
        .collect();
    // The real user asks once every request of the flood has been sent.
    while sent.load(Ordering::SeqCst) < 10_000 {
        tokio::task::yield_now().await;
    }

    let asked = Instant::now();
    let alice = oauth
        .authenticate(&request_from("real", Some("[2001:db8::9]:50000")))
        .await
        .unwrap();
    assert_eq!(alice.subject.as_deref(), Some("alice"));
    let waited = asked.elapsed();
    assert_eq!(
        waited,
        Duration::from_millis(50),
        "one introspection's time, and no queue"
    );

    let mut invalid = 0;
    let mut unavailable = 0;
    for refused in futures::future::join_all(flood).await {
        match refused.unwrap() {
            Err(Refusal::InvalidToken { .. }) => invalid += 1,
            Err(Refusal::Unavailable { retry_after }) => {
                assert!(retry_after >= Duration::from_secs(1));
                unavailable += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    // As many as one network may have under way were introspected; the
    // rest were refused with 503 and never reached the authorization
    // server.
    assert_eq!(invalid, failures::MAX_IN_FLIGHT_PER_PEER);
    assert_eq!(unavailable, 10_000 - invalid);
    assert_eq!(server.gets(), invalid + 1);
}

/// A request carrying `token` from `peer`, whose `X-Forwarded-For` is
/// `forwarded`, with its client found as the endpoint finds it behind a
/// proxy on loopback.
fn request_via(token: &str, peer: &str, forwarded: &str) -> axum::http::request::Parts {
    let mut parts = request_from(token, Some(peer));
    let forwarded = axum::http::HeaderValue::from_str(forwarded).unwrap();
    parts.headers.insert("x-forwarded-for", forwarded);
    let proxies = crate::server::http::TrustedProxies::loopback();
    crate::server::http::ClientAddress::record(&proxies, &mut parts);
    parts
}

/// Behind a trusted proxy, failed introspections count against the client
/// the proxy names: one client's flood does not spend the limit of every
/// user behind the same proxy. From a peer that is not trusted, the
/// header is ignored: a flooder cannot spread its failures over made-up
/// addresses.
#[tokio::test(start_paused = true)]
async fn failed_introspections_count_against_the_client_a_trusted_proxy_names() {
    let server = inactive_but("real");
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    let behind_nginx = |token: &str, client: &str| request_via(token, "127.0.0.1:40000", client);
    for n in 0..failures::FAILURE_BURST {
        let made_up = behind_nginx(&format!("made-up-{n}"), "198.51.100.7");
        let refused = oauth.authenticate(&made_up).await;
        assert!(matches!(refused, Err(Refusal::InvalidToken { .. })));
    }
    let more = oauth
        .authenticate(&behind_nginx("made-up-more", "198.51.100.7"))
        .await;
    assert!(matches!(more, Err(Refusal::Unavailable { .. })), "{more:?}");
    let alice = oauth.authenticate(&behind_nginx("real", "192.0.2.9")).await;
    assert_eq!(alice.unwrap().subject.as_deref(), Some("alice"));

    // The same flood straight from its own address, with a new made-up
    // X-Forwarded-For on every request.
    let server = inactive_but("real");
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    let spoofed = |n: u32| {
        let forwarded = format!("203.0.113.{}", n % 250);
        request_via(&format!("made-up-{n}"), "198.51.100.7:40000", &forwarded)
    };
    for n in 0..failures::FAILURE_BURST {
        let refused = oauth.authenticate(&spoofed(n)).await;
        assert!(matches!(refused, Err(Refusal::InvalidToken { .. })));
    }
    let more = oauth.authenticate(&spoofed(failures::FAILURE_BURST)).await;
    assert!(matches!(more, Err(Refusal::Unavailable { .. })), "{more:?}");
    assert_eq!(server.gets(), failures::FAILURE_BURST as usize);
}

#[tokio::test(start_paused = true)]
async fn requests_without_an_address_share_one_limit() {
    let server = inactive_but("real");
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    for n in 0..failures::FAILURE_BURST {
        let refused = oauth
            .authenticate(&request_from(&format!("made-up-{n}"), None))
            .await;
        assert!(matches!(refused, Err(Refusal::InvalidToken { .. })));
    }
    // The shared limit is spent: a good token without an address waits
    // with the others, and one with an address does not.
    assert!(matches!(
        oauth.authenticate(&request_from("real", None)).await,
        Err(Refusal::Unavailable { .. })
    ));
    assert!(matches!(
        oauth.validate("real").await,
        Err(Refusal::Unavailable { .. })
    ));
    assert!(
        oauth
            .authenticate(&request_from("real", Some("192.0.2.1:1")))
            .await
            .is_ok()
    );
    // And a second later, one more failure is allowed.
    tokio::time::advance(failures::FAILURE_REFILL).await;
    assert!(oauth.validate("real").await.is_ok(), "cached by now");
    assert!(matches!(
        oauth.validate("made-up-again").await,
        Err(Refusal::InvalidToken { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn an_answer_without_exp_is_kept_for_the_cache_time() {
    let server = Arc::new(FakeServer::default());
    let answer = json!({
        "active": true, "sub": "alice", "iss": "https://as.example/",
        "aud": "https://mcp.example/mcp",
    });
    server.serve("https://as.example/introspect", answer, None);
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    oauth.validate("no-exp").await.unwrap();
    oauth.validate("no-exp").await.unwrap();
    assert_eq!(server.gets(), 1);
    tokio::time::advance(Duration::from_secs(61)).await;
    oauth.validate("no-exp").await.unwrap();
    assert_eq!(server.gets(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_introspection_given_up_by_every_request_leaves_nothing_behind() {
    let server = inactive_but("real");
    let oauth = introspecting(&server, Introspection::client_secret_basic("rs", "s"));
    let waiting: Vec<_> = (0..3)
        .map(|_| {
            let oauth = oauth.clone();
            tokio::spawn(async move { oauth.validate("real").await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(10)).await;
    let introspector = oauth.inner.introspector.as_ref().unwrap();
    assert_eq!(introspector.flights(), 1, "one flight for the three");
    // Each that gives up leaves it to the next, which introspects in its
    // place; the last leaves nothing.
    for request in waiting {
        request.abort();
        assert!(request.await.unwrap_err().is_cancelled());
    }
    assert_eq!(introspector.flights(), 0);
    let before = server.gets();
    oauth.validate("real").await.unwrap();
    assert_eq!(
        server.gets(),
        before + 1,
        "the next request introspects afresh"
    );
}
