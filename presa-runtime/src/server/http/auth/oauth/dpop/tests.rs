//! Every rule of `dpop`, each broken on its own: the proof's rules on the
//! checker, at a fixed clock; the binding's and the replay's on a
//! validator whose tokens are signed with a shared secret, so that no
//! authorization server is needed.

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::http::Request;
use jsonwebtoken::EncodingKey;
use serde_json::json;

use super::*;
use crate::oauth::fetch::{Fetch, FetchError, Fetched};
use crate::server::http::auth::oauth::replay::unix_now;
use crate::server::http::auth::oauth::{Introspection, OAuth};
use crate::server::http::auth::{Authenticator, Refusal};

const RESOURCE: &str = "https://mcp.example.com/mcp";
const TOKEN: &str = "the-access-token";
/// The checker's clock, in seconds since the epoch.
const NOW: u64 = 1_800_000_000;

fn p256() -> EncodingKey {
    EncodingKey::from_ec_pem(include_bytes!("../../../../../../tests/keys/p256.pem")).unwrap()
}

fn rsa(file: &str) -> EncodingKey {
    let pem = match file {
        "rsa1" => &include_bytes!("../../../../../../tests/keys/rsa1.pem")[..],
        _ => &include_bytes!("../../../../../../tests/keys/rsa2.pem")[..],
    };
    EncodingKey::from_rsa_pem(pem).unwrap()
}

/// The public half of `key`, as a proof's `jwk`.
fn public_jwk(key: &EncodingKey, alg: Algorithm) -> Value {
    serde_json::to_value(Jwk::from_encoding_key(key, alg).unwrap()).unwrap()
}

/// A compact JWS of `header` and `claims`, signed with `key` under `alg`;
/// built by hand, so that a test can write any header it likes.
fn sign(header: &Value, claims: &Value, key: &EncodingKey, alg: Algorithm) -> String {
    let encode = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string());
    let message = format!("{}.{}", encode(header), encode(claims));
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), key, alg).unwrap();
    format!("{message}.{signature}")
}

/// A valid proof's header and claims, for a POST to the resource at
/// [`NOW`] with [`TOKEN`], before a test breaks one of them.
fn valid() -> (Value, Value) {
    let header =
        json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": public_jwk(&p256(), Algorithm::ES256)});
    let claims = json!({
        "jti": "proof-1", "htm": "POST", "htu": RESOURCE, "iat": NOW,
        "ath": access_token_hash(TOKEN),
    });
    (header, claims)
}

/// A request with `method` that carries each of `proofs` in a `DPoP`
/// header.
fn request(method: &str, proofs: &[&str]) -> Parts {
    let mut request = Request::builder().method(method).uri("/mcp");
    for proof in proofs {
        request = request.header("dpop", *proof);
    }
    request.body(()).unwrap().into_parts().0
}

fn checker() -> ProofChecker {
    ProofChecker::new(DpopSettings::default(), RESOURCE)
}

/// What the checker says of a POST carrying `proof`: `Ok` or the
/// description the client is told.
fn verdict(proof: &str) -> Result<Proof, &'static str> {
    checker()
        .check(&request("POST", &[proof]), TOKEN, NOW)
        .map_err(|invalid| invalid.description)
}

fn es256(header: &Value, claims: &Value) -> String {
    sign(header, claims, &p256(), Algorithm::ES256)
}

#[test]
fn a_valid_proof_passes_and_gives_its_keys_thumbprint() {
    let (header, claims) = valid();
    let proof = verdict(&es256(&header, &claims)).unwrap();
    let jwk: Jwk = serde_json::from_value(header["jwk"].clone()).unwrap();
    assert_eq!(proof.thumbprint, jwk_thumbprint(&jwk).unwrap());
    assert_eq!(proof.id.issued_at, NOW);
    assert_eq!(proof.id.forget_after, NOW + 60);
    // The same URL written another way, and with a query and a fragment,
    // is the resource; `typ` is compared without case.
    for htu in [
        "HTTPS://MCP.Example.com:443/mcp",
        "https://mcp.example.com/mcp?session=1#top",
        "https://mcp.example.com/./mcp",
    ] {
        let mut claims = claims.clone();
        claims["htu"] = htu.into();
        assert!(verdict(&es256(&header, &claims)).is_ok(), "{htu}");
    }
    let mut upper = header.clone();
    upper["typ"] = "DPoP+JWT".into();
    assert!(verdict(&es256(&upper, &claims)).is_ok());
    // Within the clock skew ahead, and the lifetime behind.
    for iat in [NOW + 10, NOW - 60] {
        let mut claims = claims.clone();
        claims["iat"] = iat.into();
        assert!(verdict(&es256(&header, &claims)).is_ok(), "iat {iat}");
    }
}

#[test]
fn every_algorithm_presa_verifies_signs_a_proof() {
    let (_, claims) = valid();
    for (alg, key) in [
        (Algorithm::ES256, p256()),
        (
            Algorithm::ES384,
            EncodingKey::from_ec_pem(include_bytes!("../../../../../../tests/keys/p384.pem"))
                .unwrap(),
        ),
        (
            Algorithm::EdDSA,
            EncodingKey::from_ed_pem(include_bytes!("../../../../../../tests/keys/ed25519.pem"))
                .unwrap(),
        ),
        (Algorithm::RS256, rsa("rsa1")),
        (Algorithm::PS256, rsa("rsa1")),
        (Algorithm::RS512, rsa("rsa1")),
    ] {
        let name = ALGORITHMS.iter().find(|(_, a)| *a == alg).unwrap().0;
        let header = json!({"typ": "dpop+jwt", "alg": name, "jwk": public_jwk(&key, alg)});
        let proof = verdict(&sign(&header, &claims, &key, alg));
        assert!(proof.is_ok(), "{alg:?}: {proof:?}");
    }
}

#[test]
fn no_proof_or_two_are_refused() {
    let (header, claims) = valid();
    let proof = es256(&header, &claims);
    let check = |proofs: &[&str]| {
        checker()
            .check(&request("POST", proofs), TOKEN, NOW)
            .map_err(|invalid| invalid.description)
            .map(drop)
    };
    assert_eq!(check(&[]), Err("the request carries no DPoP proof"));
    assert_eq!(
        check(&[&proof, &proof]),
        Err("the request carries more than one DPoP proof")
    );
    assert_eq!(check(&[&proof]), Ok(()));
}

#[test]
fn a_proof_for_another_method_is_refused() {
    let (header, claims) = valid();
    let proof = es256(&header, &claims);
    let get = checker().check(&request("GET", &[&proof]), TOKEN, NOW);
    assert_eq!(
        get.unwrap_err().description,
        "the DPoP proof is for another method"
    );
    // Methods are case-sensitive.
    let mut lower = claims.clone();
    lower["htm"] = "post".into();
    assert_eq!(
        verdict(&es256(&header, &lower)).unwrap_err(),
        "the DPoP proof is for another method"
    );
}

#[test]
fn a_proof_for_another_url_is_refused() {
    let (header, claims) = valid();
    for htu in [
        "https://mcp.example.com/other",
        "https://mcp.example.com/mcp/",
        "http://mcp.example.com/mcp",
        "https://evil.example/mcp",
        "https://mcp.example.com:8443/mcp",
        "not a url",
    ] {
        let mut claims = claims.clone();
        claims["htu"] = htu.into();
        assert_eq!(
            verdict(&es256(&header, &claims)).unwrap_err(),
            "the DPoP proof is for another URL",
            "{htu}"
        );
    }
}

#[test]
fn a_stale_or_future_proof_is_refused() {
    let (header, claims) = valid();
    let at = |iat: Value| {
        let mut claims = claims.clone();
        claims["iat"] = iat;
        verdict(&es256(&header, &claims)).map(drop)
    };
    assert_eq!(at(json!(NOW - 61)), Err("the DPoP proof is too old"));
    assert_eq!(
        at(json!(NOW + 11)),
        Err("the DPoP proof was made in the future")
    );
    assert_eq!(
        at(json!(u64::MAX)),
        Err("the DPoP proof was made in the future")
    );
    assert_eq!(
        at(json!("now")),
        Err("the DPoP proof lacks a required claim")
    );
    assert_eq!(at(json!(-5)), Err("the DPoP proof lacks a required claim"));
    // A shorter lifetime, configured, is held to.
    let short = ProofChecker::new(
        DpopSettings::new().proof_lifetime(Duration::from_secs(5)),
        RESOURCE,
    );
    let mut claims = claims.clone();
    claims["iat"] = (NOW - 6).into();
    let proof = es256(&header, &claims);
    assert_eq!(
        short
            .check(&request("POST", &[&proof]), TOKEN, NOW)
            .unwrap_err()
            .description,
        "the DPoP proof is too old"
    );
}

#[test]
fn a_proof_for_another_token_is_refused() {
    let (header, mut claims) = valid();
    claims["ath"] = access_token_hash("another-token").into();
    assert_eq!(
        verdict(&es256(&header, &claims)).unwrap_err(),
        "the DPoP proof is for another token"
    );
}

#[test]
fn a_proof_without_a_required_claim_is_refused() {
    let (header, claims) = valid();
    for claim in ["jti", "htm", "htu", "iat", "ath"] {
        let mut without = claims.clone();
        without.as_object_mut().unwrap().remove(claim);
        assert_eq!(
            verdict(&es256(&header, &without)).unwrap_err(),
            "the DPoP proof lacks a required claim",
            "{claim}"
        );
    }
}

#[test]
fn alg_none_and_hmac_are_refused() {
    let (header, claims) = valid();
    // `none`: no signature at all.
    let mut none = header.clone();
    none["alg"] = "none".into();
    let encode = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string());
    let unsigned = format!("{}.{}.", encode(&none), encode(&claims));
    assert_eq!(
        verdict(&unsigned).unwrap_err(),
        "the DPoP proof is malformed"
    );
    let unsigned = format!("{}.{}.AAAA", encode(&none), encode(&claims));
    assert_eq!(
        verdict(&unsigned).unwrap_err(),
        "the DPoP proof's algorithm is not accepted"
    );
    // HS256, keyed with the secret its own header gives away.
    let secret = EncodingKey::from_secret(b"a secret anyone can read here...").unwrap();
    let hmac = json!({"typ": "dpop+jwt", "alg": "HS256",
        "jwk": {"kty": "oct", "k": URL_SAFE_NO_PAD.encode(b"a secret anyone can read here...")}});
    assert_eq!(
        verdict(&sign(&hmac, &claims, &secret, Algorithm::HS256)).unwrap_err(),
        "the DPoP proof's algorithm is not accepted"
    );
}

#[test]
fn a_key_with_private_parts_is_refused() {
    let (header, claims) = valid();
    // A private scalar beside the public point: a client that leaks its
    // key.
    let mut leaky = header.clone();
    leaky["jwk"]["d"] = "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE".into();
    assert_eq!(
        verdict(&es256(&leaky, &claims)).unwrap_err(),
        "the DPoP proof's key is not a public key"
    );
    // A symmetric key is all private.
    let mut symmetric = header.clone();
    symmetric["jwk"] = json!({"kty": "oct", "k": "c2VjcmV0"});
    assert_eq!(
        verdict(&es256(&symmetric, &claims)).unwrap_err(),
        "the DPoP proof's key is not a public key"
    );
}

#[test]
fn a_header_that_is_not_a_dpop_proofs_is_refused() {
    let (header, claims) = valid();
    let broken = |change: &dyn Fn(&mut Value)| {
        let mut header = header.clone();
        change(&mut header);
        verdict(&es256(&header, &claims)).map(drop)
    };
    let not_dpop = Err("the DPoP proof is not of type dpop+jwt");
    assert_eq!(broken(&|h| h["typ"] = "JWT".into()), not_dpop);
    assert_eq!(broken(&|h| h["typ"] = "at+jwt".into()), not_dpop);
    assert_eq!(
        broken(&|h| {
            h.as_object_mut().unwrap().remove("typ");
        }),
        not_dpop
    );
    assert_eq!(
        broken(&|h| {
            h.as_object_mut().unwrap().remove("jwk");
        }),
        Err("the DPoP proof names no key")
    );
    // ES384 named, a P-256 key given.
    assert_eq!(
        broken(&|h| h["alg"] = "ES384".into()),
        Err("the DPoP proof's key does not fit its algorithm")
    );
    for malformed in [
        json!({"kty": "EC", "crv": "P-256", "x": 7}),
        json!({"kty": "XYZ"}),
        json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "use": 7}),
    ] {
        assert_eq!(
            broken(&|h| h["jwk"] = malformed.clone()),
            Err("the DPoP proof's key is malformed"),
            "{malformed}"
        );
    }
    // An RSA key of 512 bits.
    let weak = json!({"kty": "RSA", "e": "AQAB", "n": URL_SAFE_NO_PAD.encode([0xC5u8; 64])});
    assert_eq!(
        broken(&|h| {
            h["alg"] = "RS256".into();
            h["jwk"] = weak.clone();
        }),
        Err("the DPoP proof's key is too weak")
    );
}

#[test]
fn a_proof_signed_by_another_key_than_its_jwk_is_refused() {
    let (_, claims) = valid();
    let header = json!({"typ": "dpop+jwt", "alg": "RS256", "jwk": public_jwk(&rsa("rsa1"), Algorithm::RS256)});
    assert_eq!(
        verdict(&sign(&header, &claims, &rsa("rsa2"), Algorithm::RS256)).unwrap_err(),
        "the DPoP proof's signature does not verify"
    );
}

#[test]
fn malformed_and_oversized_proofs_are_refused() {
    let (header, claims) = valid();
    let proof = es256(&header, &claims);
    let malformed = Err("the DPoP proof is malformed");
    for bad in [
        "not-a-jws".to_owned(),
        "a.b".to_owned(),
        format!("{proof}.extra"),
        format!("!!!.{}", proof.split_once('.').unwrap().1),
        // Longer than 8 KiB, by a claim nobody reads.
        es256(&header, &{
            let mut big = claims.clone();
            big["padding"] = "x".repeat(MAX_PROOF_BYTES).into();
            big
        }),
    ] {
        assert_eq!(verdict(&bad).map(drop), malformed, "{bad:.40}");
    }
}

#[test]
fn bindings_are_read_from_cnf() {
    let claims = |value: Value| value.as_object().unwrap().clone();
    assert_eq!(binding(&claims(json!({}))), Ok(Binding::Unbound));
    assert_eq!(
        binding(&claims(json!({"cnf": {"jkt": "abc"}}))),
        Ok(Binding::Key("abc"))
    );
    let certificate = claims(json!({"cnf": {"x5t#S256": "abc"}}));
    assert_eq!(
        binding(&certificate).unwrap_err().description,
        "the token is bound in a way this server cannot check"
    );
    for malformed in [
        json!({"cnf": "abc"}),
        json!({"cnf": {}}),
        json!({"cnf": {"jkt": 7}}),
    ] {
        let malformed = claims(malformed);
        assert_eq!(
            binding(&malformed).unwrap_err().description,
            "the token's key binding is malformed",
            "{malformed:?}"
        );
    }
}

// The whole path, on a validator: the binding (rule 1 and 10) and the
// replay (rule 11), with real time, since the proofs are fresh.

const SECRET: &[u8] = b"a shared secret of 32 bytes or more";
const ISSUER: &str = "https://as.example";

fn validator(settings: DpopSettings) -> OAuth {
    OAuth::issuer(ISSUER)
        .resource(RESOURCE)
        .hmac_secret(SECRET)
        .dpop(settings)
        .build()
        .unwrap()
}

/// An access token for the resource, bound to `jkt` when given.
fn access_token(jkt: Option<&str>) -> String {
    let mut claims = json!({
        "iss": ISSUER, "sub": "alice", "aud": RESOURCE, "scope": "a",
        "exp": unix_now() + 600, "iat": unix_now(),
    });
    if let Some(jkt) = jkt {
        claims["cnf"] = json!({ "jkt": jkt });
    }
    let header = jsonwebtoken::Header::new(Algorithm::HS256);
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(SECRET).unwrap()).unwrap()
}

/// The thumbprint of the P-256 test key.
fn p256_thumbprint() -> String {
    let jwk: Jwk = serde_json::from_value(public_jwk(&p256(), Algorithm::ES256)).unwrap();
    jwk_thumbprint(&jwk).unwrap()
}

/// A fresh proof by the P-256 key, for a POST with `token`, as `jti`.
fn fresh_proof(token: &str, jti: &str) -> String {
    let (header, mut claims) = valid();
    claims["jti"] = jti.into();
    claims["iat"] = unix_now().into();
    claims["ath"] = access_token_hash(token).into();
    es256(&header, &claims)
}

/// A POST with `Authorization: {scheme} {token}` and each of `proofs`.
fn presenting(scheme: &str, token: &str, proofs: &[&str]) -> Parts {
    let mut parts = request("POST", proofs);
    parts.headers.insert(
        "authorization",
        format!("{scheme} {token}").parse().unwrap(),
    );
    parts
}

fn refused(description: &'static str) -> Result<String, Refusal> {
    Err(Refusal::InvalidToken { description })
}

fn refused_proof(description: &'static str) -> Result<String, Refusal> {
    Err(Refusal::InvalidDpopProof { description })
}

async fn subject(oauth: &OAuth, request: &Parts) -> Result<String, Refusal> {
    let caller = oauth.authenticate(request).await?;
    Ok(caller.subject.unwrap())
}

#[tokio::test]
async fn a_bound_token_is_taken_with_its_proof_once_and_never_as_bearer() {
    let oauth = validator(DpopSettings::default());
    let token = access_token(Some(&p256_thumbprint()));
    let proof = fresh_proof(&token, "j-1");
    let request = presenting("DPoP", &token, &[&proof]);
    assert_eq!(subject(&oauth, &request).await, Ok("alice".into()));
    // The same proof again: a replay.
    assert_eq!(
        subject(&oauth, &request).await,
        refused_proof("the DPoP proof was used before")
    );
    // The stolen token, as a bearer token, with or without a proof.
    let stolen = refused("the token is DPoP-bound: send it with the DPoP scheme and a proof");
    let fresh = fresh_proof(&token, "j-2");
    assert_eq!(
        subject(&oauth, &presenting("Bearer", &token, &[])).await,
        stolen
    );
    assert_eq!(
        subject(&oauth, &presenting("Bearer", &token, &[&fresh])).await,
        stolen
    );
    assert_eq!(oauth.validate(&token).await.map(drop), stolen.map(drop));
    // The proof was not spent by the refusals: it is still good once.
    assert_eq!(
        subject(&oauth, &presenting("DPoP", &token, &[&fresh])).await,
        Ok("alice".into())
    );
}

#[tokio::test]
async fn a_token_bound_to_another_key_or_to_none_is_refused_under_dpop() {
    let oauth = validator(DpopSettings::default());
    // The token names another key's thumbprint: the proof's key is not
    // the one it was issued to.
    let elsewhere = access_token(Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"));
    let proof = fresh_proof(&elsewhere, "k-1");
    assert_eq!(
        subject(&oauth, &presenting("DPoP", &elsewhere, &[&proof])).await,
        refused("the token is bound to another key")
    );
    // An unbound token under the DPoP scheme.
    let unbound = access_token(None);
    let proof = fresh_proof(&unbound, "k-2");
    assert_eq!(
        subject(&oauth, &presenting("DPoP", &unbound, &[&proof])).await,
        refused("the token is not DPoP-bound")
    );
    // Without the proof, the proof is at fault, before the token is read.
    let token = access_token(Some(&p256_thumbprint()));
    assert_eq!(
        subject(&oauth, &presenting("DPoP", &token, &[])).await,
        refused_proof("the request carries no DPoP proof")
    );
    // A bad token with a good proof: the token is at fault.
    let claims = jsonwebtoken::dangerous::insecure_decode_claims::<Value>(&token).unwrap();
    let other_secret = EncodingKey::from_secret(b"another secret, never configured").unwrap();
    let forged = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(Algorithm::HS256),
        &claims,
        &other_secret,
    )
    .unwrap();
    let proof = fresh_proof(&forged, "k-3");
    assert_eq!(
        subject(&oauth, &presenting("DPoP", &forged, &[&proof])).await,
        refused("the token's signature does not verify")
    );
    // Unbound bearer tokens are still taken by default.
    assert_eq!(
        subject(&oauth, &presenting("Bearer", &unbound, &[])).await,
        Ok("alice".into())
    );
}

#[tokio::test]
async fn required_dpop_refuses_bearer_tokens_and_says_so_in_the_metadata() {
    let oauth = validator(DpopSettings::new().required());
    let unbound = access_token(None);
    assert_eq!(
        subject(&oauth, &presenting("Bearer", &unbound, &[])).await,
        refused("this resource takes DPoP-bound tokens only")
    );
    let token = access_token(Some(&p256_thumbprint()));
    let proof = fresh_proof(&token, "r-1");
    assert_eq!(
        subject(&oauth, &presenting("DPoP", &token, &[&proof])).await,
        Ok("alice".into())
    );
    let metadata = oauth.protected_resource();
    assert!(metadata.dpop_bound_access_tokens_required);
    let document = serde_json::to_value(&metadata).unwrap();
    assert_eq!(document["dpop_bound_access_tokens_required"], true);
    assert_eq!(document["dpop_signing_alg_values_supported"][0], "ES256");
    // By default DPoP is offered, not required, and the field is left out.
    let default =
        serde_json::to_value(validator(DpopSettings::default()).protected_resource()).unwrap();
    assert!(default.get("dpop_bound_access_tokens_required").is_none());
    assert_eq!(
        default["dpop_signing_alg_values_supported"],
        json!([
            "ES256", "ES384", "EdDSA", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"
        ])
    );
}

/// A replay cache that cannot be reached.
struct Unreachable;

#[async_trait::async_trait]
impl DpopReplayCache for Unreachable {
    async fn first_use(
        &self,
        _: &DpopProofId,
    ) -> Result<bool, Box<dyn std::error::Error + Send + Sync>> {
        Err("connection refused".into())
    }
}

/// A replay cache shared by replicas, here a set behind a lock.
#[derive(Clone, Default)]
struct Shared(Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

#[async_trait::async_trait]
impl DpopReplayCache for Shared {
    async fn first_use(
        &self,
        proof: &DpopProofId,
    ) -> Result<bool, Box<dyn std::error::Error + Send + Sync>> {
        Ok(self.0.lock().unwrap().insert(proof.key()))
    }
}

#[tokio::test]
async fn replicas_that_share_a_replay_cache_take_a_proof_once_between_them() {
    let shared = Shared::default();
    let first = validator(DpopSettings::new().replay_cache(shared.clone()));
    let second = validator(DpopSettings::new().replay_cache(shared.clone()));
    let token = access_token(Some(&p256_thumbprint()));
    let request = presenting("DPoP", &token, &[&fresh_proof(&token, "s-1")]);
    assert_eq!(subject(&first, &request).await, Ok("alice".into()));
    assert_eq!(
        subject(&second, &request).await,
        refused_proof("the DPoP proof was used before")
    );
    // Without the shared cache, each replica would take it once.
    let alone = validator(DpopSettings::default());
    assert_eq!(subject(&alone, &request).await, Ok("alice".into()));
    // A store that fails refuses with 503: a proof it cannot check is not
    // taken.
    let down = validator(DpopSettings::new().replay_cache(Unreachable));
    let request = presenting("DPoP", &token, &[&fresh_proof(&token, "s-2")]);
    assert!(matches!(
        subject(&down, &request).await,
        Err(Refusal::Unavailable { .. })
    ));
}

/// An authorization server whose introspection finds every token active,
/// for `bob`, bound to the P-256 test key; it counts what it is asked.
#[derive(Default)]
struct Introspecting {
    posts: AtomicUsize,
}

#[async_trait::async_trait]
impl Fetch for Introspecting {
    async fn get(&self, url: &str) -> Result<Fetched, FetchError> {
        Err(FetchError::Status {
            url: url.into(),
            status: 404,
        })
    }

    async fn post_form(
        &self,
        _: &str,
        _: &[(&str, &str)],
        _: Option<(&str, &str)>,
    ) -> Result<Fetched, FetchError> {
        self.posts.fetch_add(1, Ordering::SeqCst);
        let answer = json!({
            "active": true, "iss": ISSUER, "aud": RESOURCE, "sub": "bob", "scope": "a",
            "exp": unix_now() + 600, "token_type": "DPoP",
            "cnf": { "jkt": p256_thumbprint() },
        });
        Ok(Fetched {
            body: answer.to_string().into_bytes(),
            max_age: None,
        })
    }
}

#[tokio::test]
async fn an_introspected_token_is_bound_by_the_answers_cnf() {
    let server = Arc::new(Introspecting::default());
    let introspection = Introspection::client_secret_basic("rs", "rs-secret")
        .endpoint("https://as.example/introspect");
    let oauth = OAuth::issuer(ISSUER)
        .resource(RESOURCE)
        .introspection(introspection)
        .fetch(Arc::clone(&server) as Arc<dyn Fetch>)
        .build()
        .unwrap();
    let token = "an-opaque-token";
    // Made-up proofs are refused before the token is introspected.
    let (header, mut claims) = valid();
    claims["htm"] = "DELETE".into();
    let made_up = es256(&header, &claims);
    assert_eq!(
        subject(&oauth, &presenting("DPoP", token, &[&made_up])).await,
        refused_proof("the DPoP proof is for another method")
    );
    assert_eq!(server.posts.load(Ordering::SeqCst), 0);
    // The answer's cnf binds the token: with its proof, the caller.
    let proof = fresh_proof(token, "i-1");
    assert_eq!(
        subject(&oauth, &presenting("DPoP", token, &[&proof])).await,
        Ok("bob".into())
    );
    // As a bearer token, refused, though introspection finds it active.
    assert_eq!(
        subject(&oauth, &presenting("Bearer", token, &[])).await,
        refused("the token is DPoP-bound: send it with the DPoP scheme and a proof")
    );
}
