//! An authorization server for the OAuth tests: metadata and a key set
//! served on loopback, keys that sign test tokens, and counts of what was
//! fetched. Shared by tests/oauth.rs and benches/oauth.rs, each of which uses
//! part of it.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::routing::get;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// A test key: its private half signs, its public half is published.
#[derive(Clone)]
pub struct TestKey {
    pub kid: &'static str,
    pub alg: Algorithm,
    pub encoding: EncodingKey,
    /// The public key's PEM, for the key-confusion attack.
    pub public_pem: &'static str,
}

/// The test key `$kid` for `$alg`, from the pair `$file.pem` (private,
/// read by `EncodingKey::$read`) and `$file.pub.pem` in the runtime's
/// test keys.
macro_rules! key_pair {
    ($kid:expr, $alg:expr, $read:ident, $file:literal) => {
        TestKey {
            kid: $kid,
            alg: $alg,
            encoding: EncodingKey::$read(include_bytes!(concat!(
                "../../presa-runtime/tests/keys/",
                $file,
                ".pem"
            )))
            .unwrap(),
            public_pem: include_str!(concat!(
                "../../presa-runtime/tests/keys/",
                $file,
                ".pub.pem"
            )),
        }
    };
}

impl TestKey {
    pub fn rsa(kid: &'static str, alg: Algorithm) -> Self {
        key_pair!(kid, alg, from_rsa_pem, "rsa1")
    }

    /// Another RSA key, never published.
    pub fn other_rsa(kid: &'static str) -> Self {
        key_pair!(kid, Algorithm::RS256, from_rsa_pem, "rsa2")
    }

    pub fn p256(kid: &'static str) -> Self {
        key_pair!(kid, Algorithm::ES256, from_ec_pem, "p256")
    }

    pub fn p384(kid: &'static str) -> Self {
        key_pair!(kid, Algorithm::ES384, from_ec_pem, "p384")
    }

    pub fn ed25519(kid: &'static str) -> Self {
        key_pair!(kid, Algorithm::EdDSA, from_ed_pem, "ed25519")
    }

    /// The public key as a JWK, under the key's id, naming its algorithm.
    pub fn jwk(&self) -> Jwk {
        let mut jwk = Jwk::from_encoding_key(&self.encoding, self.alg).unwrap();
        jwk.common.key_id = Some(self.kid.to_owned());
        jwk
    }

    /// `claims` signed with this key, its `kid` in the header.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_with(self.header(), claims)
    }

    pub fn header(&self) -> Header {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.to_owned());
        header.typ = Some("at+jwt".into());
        header
    }

    pub fn sign_with(&self, header: Header, claims: &Value) -> String {
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An authorization server on loopback: RFC 8414 metadata naming its key
/// set, and the key set, which a test may change.
pub struct AuthServer {
    pub issuer: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    fetches: Arc<AtomicUsize>,
}

impl AuthServer {
    pub async fn start(keys: &[&TestKey]) -> AuthServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let published: Arc<Mutex<Vec<Jwk>>> =
            Arc::new(Mutex::new(keys.iter().map(|k| k.jwk()).collect()));
        let fetches = Arc::new(AtomicUsize::new(0));
        let metadata = json!({
            "issuer": issuer,
            "jwks_uri": format!("{issuer}/jwks"),
            "token_endpoint": format!("{issuer}/token"),
        });
        let jwks = {
            let published = Arc::clone(&published);
            let fetches = Arc::clone(&fetches);
            move || {
                fetches.fetch_add(1, Ordering::SeqCst);
                let set = JwkSet {
                    keys: published.lock().unwrap().clone(),
                };
                async move { axum::Json(set) }
            }
        };
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(move || async move { axum::Json(metadata) }),
            )
            .route("/jwks", get(jwks));
        tokio::spawn(async move { axum::serve(listener, app).await });
        AuthServer {
            issuer,
            keys: published,
            fetches,
        }
    }

    /// Publishes `keys` instead of the keys published so far.
    pub fn publish(&self, keys: &[&TestKey]) {
        *self.keys.lock().unwrap() = keys.iter().map(|k| k.jwk()).collect();
    }

    /// How many times the key set was fetched.
    pub fn key_fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    /// The claims of a valid token for `resource`, as `subject`, with
    /// `scope`.
    pub fn claims(&self, resource: &str, subject: &str, scope: &str) -> Value {
        json!({
            "iss": self.issuer,
            "sub": subject,
            "aud": resource,
            "scope": scope,
            "iat": now(),
            "exp": now() + 600,
            "client_id": "test-client",
            "jti": format!("{subject}-{}", now()),
        })
    }
}
