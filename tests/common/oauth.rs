//! An authorization server for the OAuth tests: metadata and a key set
//! served on loopback, keys that sign test tokens, and counts of what was
//! fetched; an authorization server that signs clients in; and the
//! `whoami` tool. Shared by tests/oauth.rs, tests/oauth_client.rs and
//! benches/oauth.rs, each of which uses part of it.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::routing::get;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// Returns the caller as its tool sees it: `alice jobs:build`.
#[presa::tool]
pub async fn whoami(ctx: presa::Context) -> String {
    let caller = &ctx.request().caller;
    format!(
        "{} {}",
        caller.subject.as_deref().unwrap_or("-"),
        caller.scopes
    )
}

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

/// What [`SignInServer`] has been asked, for the tests to count.
#[derive(Debug, Default, Clone)]
pub struct Asked {
    pub authorizations: usize,
    pub code_grants: usize,
    pub refresh_grants: usize,
    pub registrations: usize,
    /// The `scope` of each authorization request.
    pub scopes: Vec<String>,
    /// Access tokens bound to a DPoP key, for token requests that carried
    /// a proof.
    pub dpop_bound: usize,
    /// The client id of each authorization request and token request.
    pub client_ids: Vec<String>,
    /// Token requests of the client credentials grant that it granted.
    pub client_credentials_grants: usize,
}

#[derive(Default)]
struct SignInState {
    asked: Asked,
    /// Each code issued: its PKCE challenge and scope.
    codes: std::collections::HashMap<String, (String, String)>,
    /// Each refresh token issued: its scope.
    refresh_tokens: std::collections::HashMap<String, String>,
    issued: u64,
    /// The scopes the user consents to the first time, whatever is asked.
    first_consent: Option<String>,
    /// Every access token issued, in order.
    access_tokens: Vec<String>,
    /// The clients registered beforehand, and their secrets.
    clients: std::collections::HashMap<String, String>,
    /// Issue bearer tokens whatever proof comes: a server without DPoP.
    no_dpop: bool,
    /// Advertise Client ID Metadata Documents (taking any URL as a client
    /// id, as if it had fetched the document).
    metadata_documents: bool,
}

/// The client id and secret of a token request: HTTP Basic (RFC 6749
/// section 2.3.1), or else the form's fields.
fn client_of(
    headers: &axum::http::HeaderMap,
    form: &std::collections::HashMap<String, String>,
) -> (Option<String>, Option<String>) {
    use base64::Engine;
    let basic = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| {
            base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()
        })
        .and_then(|decoded| String::from_utf8(decoded).ok());
    // The tests' ids and secrets are letters, digits and dashes, which
    // form encoding leaves as they are.
    if let Some((id, secret)) = basic.as_deref().and_then(|pair| pair.split_once(':')) {
        return (Some(id.to_owned()), Some(secret.to_owned()));
    }
    (
        form.get("client_id").cloned(),
        form.get("client_secret").cloned(),
    )
}

/// The SHA-256 thumbprint of the key of `proof`, a DPoP proof of a POST
/// to `endpoint` (RFC 9449 section 4.3, as much as an authorization
/// server for tests needs); `None` for a proof that does not hold.
fn dpop_thumbprint(proof: &str, endpoint: &str) -> Option<String> {
    use jsonwebtoken::jwk::ThumbprintHash;
    let header = jsonwebtoken::decode_header(proof).ok()?;
    if header.typ.as_deref() != Some("dpop+jwt") {
        return None;
    }
    let jwk = header.jwk?;
    let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).ok()?;
    let mut validation = jsonwebtoken::Validation::new(header.alg);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    let claims = jsonwebtoken::decode::<Value>(proof, &key, &validation)
        .ok()?
        .claims;
    (claims["htm"] == "POST" && claims["htu"] == endpoint && claims["jti"].is_string())
        .then(|| jwk.thumbprint(ThumbprintHash::SHA256).ok())?
}

/// An authorization server that signs clients in: the metadata naming
/// every endpoint, dynamic registration, an authorization endpoint that
/// redirects at once (as if the user consented), and a token endpoint
/// that checks PKCE and issues JWT access tokens for subject `alice`
/// signed by its key, living `lifetime` seconds, with refresh tokens; a
/// token request with a DPoP proof gets a token bound to the proof's key
/// (`cnf.jkt`, `token_type` `DPoP`).
pub struct SignInServer {
    pub issuer: String,
    state: Arc<Mutex<SignInState>>,
}

impl SignInServer {
    pub async fn start(key: &TestKey, lifetime: u64) -> SignInServer {
        use axum::extract::{Form, Query};
        use axum::http::{StatusCode, header};
        use axum::response::IntoResponse;
        use axum::routing::post;
        use base64::Engine;
        use sha2::Digest;
        use std::collections::HashMap;

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let state: Arc<Mutex<SignInState>> = Arc::default();
        let signing_in = json!({
            "issuer": issuer,
            "jwks_uri": format!("{issuer}/jwks"),
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "registration_endpoint": format!("{issuer}/register"),
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "dpop_signing_alg_values_supported": ["ES256"],
        });
        let jwks = JwkSet {
            keys: vec![key.jwk()],
        };
        let metadata = {
            let state = Arc::clone(&state);
            move || {
                let state = state.lock().unwrap();
                let mut metadata = signing_in.clone();
                if state.metadata_documents {
                    metadata["client_id_metadata_document_supported"] = true.into();
                }
                if state.no_dpop {
                    let fields = metadata.as_object_mut().unwrap();
                    fields.remove("dpop_signing_alg_values_supported");
                }
                std::future::ready(axum::Json(metadata))
            }
        };
        let authorize = {
            let state = Arc::clone(&state);
            let issuer = issuer.clone();
            move |Query(query): Query<HashMap<String, String>>| {
                let mut state = state.lock().unwrap();
                state.asked.authorizations += 1;
                if let Some(client) = query.get("client_id") {
                    state.asked.client_ids.push(client.clone());
                }
                let asked = query.get("scope").cloned().unwrap_or_default();
                state.asked.scopes.push(asked.clone());
                let scope = state.first_consent.take().unwrap_or(asked);
                state.issued += 1;
                let code = format!("code-{}", state.issued);
                let challenge = query.get("code_challenge").cloned().unwrap_or_default();
                state.codes.insert(code.clone(), (challenge, scope));
                let mut to = reqwest::Url::parse(&query["redirect_uri"]).unwrap();
                to.query_pairs_mut()
                    .append_pair("code", &code)
                    .append_pair("state", query.get("state").map_or("", String::as_str))
                    .append_pair("iss", &issuer);
                async move { (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response() }
            }
        };
        let token = {
            let state = Arc::clone(&state);
            let key = key.clone();
            let issuer = issuer.clone();
            let endpoint = format!("{issuer}/token");
            move |headers: axum::http::HeaderMap, Form(form): Form<HashMap<String, String>>| {
                let mut state = state.lock().unwrap();
                let proof = headers
                    .get("dpop")
                    .map(|proof| proof.to_str().unwrap_or(""));
                let jkt = proof.map(|proof| dpop_thumbprint(proof, &endpoint));
                if jkt == Some(None) {
                    let refused = json!({"error": "invalid_dpop_proof"});
                    return std::future::ready((StatusCode::BAD_REQUEST, axum::Json(refused)));
                }
                let jkt = jkt.flatten().filter(|_| !state.no_dpop);
                let (client, secret) = client_of(&headers, &form);
                if let Some(client) = &client {
                    state.asked.client_ids.push(client.clone());
                }
                // A client registered with a secret must give it.
                let registered = client
                    .as_ref()
                    .and_then(|id| state.clients.get(id))
                    .cloned();
                if registered.is_some() && registered != secret {
                    let refused = json!({"error": "invalid_client"});
                    return std::future::ready((StatusCode::UNAUTHORIZED, axum::Json(refused)));
                }
                let mut subject = "alice".to_owned();
                let scope = match form.get("grant_type").map(String::as_str) {
                    Some("authorization_code") => {
                        state.asked.code_grants += 1;
                        let code = form.get("code").map(String::as_str).unwrap_or_default();
                        let verifier = form.get("code_verifier").cloned().unwrap_or_default();
                        match state.codes.remove(code) {
                            Some((challenge, scope))
                                if base64::engine::general_purpose::URL_SAFE_NO_PAD
                                    .encode(sha2::Sha256::digest(verifier.as_bytes()))
                                    == challenge =>
                            {
                                Some(scope)
                            }
                            _ => None,
                        }
                    }
                    Some("refresh_token") => {
                        state.asked.refresh_grants += 1;
                        let refresh = form
                            .get("refresh_token")
                            .map(String::as_str)
                            .unwrap_or_default();
                        state.refresh_tokens.get(refresh).cloned()
                    }
                    Some("client_credentials") if registered.is_some() => {
                        state.asked.client_credentials_grants += 1;
                        subject = client.clone().unwrap_or_default();
                        Some(form.get("scope").cloned().unwrap_or_default())
                    }
                    _ => None,
                };
                let Some(scope) = scope else {
                    let refused = json!({"error": "invalid_grant"});
                    return std::future::ready((StatusCode::BAD_REQUEST, axum::Json(refused)));
                };
                state.issued += 1;
                let resource = form.get("resource").cloned().unwrap_or_default();
                let mut claims = json!({
                    "iss": issuer, "sub": subject, "aud": resource, "scope": scope,
                    "iat": now(), "exp": now() + lifetime, "jti": format!("t-{}", state.issued),
                });
                let token_type = match jkt {
                    Some(jkt) => {
                        state.asked.dpop_bound += 1;
                        claims["cnf"] = json!({ "jkt": jkt });
                        "DPoP"
                    }
                    None => "Bearer",
                };
                let refresh_token = format!("refresh-{}", state.issued);
                state.refresh_tokens.insert(refresh_token.clone(), scope);
                let access_token = key.sign(&claims);
                state.access_tokens.push(access_token.clone());
                let issued = json!({
                    "access_token": access_token, "token_type": token_type,
                    "expires_in": lifetime, "refresh_token": refresh_token,
                });
                std::future::ready((StatusCode::OK, axum::Json(issued)))
            }
        };
        let register = {
            let state = Arc::clone(&state);
            move || {
                state.lock().unwrap().asked.registrations += 1;
                let registered =
                    json!({"client_id": "registered-client", "token_endpoint_auth_method": "none"});
                async move { (StatusCode::CREATED, axum::Json(registered)) }
            }
        };
        let app = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(move || async move { axum::Json(jwks) }))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .route("/register", post(register));
        tokio::spawn(async move { axum::serve(listener, app).await });
        SignInServer { issuer, state }
    }

    /// Registers the client `id` with `secret` beforehand: its token
    /// requests must then give the secret, and it may use the client
    /// credentials grant.
    pub fn register_client(&self, id: &str, secret: &str) {
        let mut state = self.state.lock().unwrap();
        state.clients.insert(id.to_owned(), secret.to_owned());
    }

    /// From now on, issues bearer tokens whatever DPoP proof comes, and
    /// leaves DPoP out of its metadata: a server without DPoP.
    pub fn without_dpop(&self) {
        self.state.lock().unwrap().no_dpop = true;
    }

    /// From now on, advertises Client ID Metadata Documents, and takes
    /// any client id.
    pub fn with_metadata_documents(&self) {
        self.state.lock().unwrap().metadata_documents = true;
    }

    /// The first authorization grants only `scope`, whatever it asks.
    pub fn consent_first_to(&self, scope: &str) {
        self.state.lock().unwrap().first_consent = Some(scope.to_owned());
    }

    /// A refresh token it accepts, for `scope`, as if issued earlier.
    pub fn refresh_token_for(&self, scope: &str) -> String {
        let mut state = self.state.lock().unwrap();
        state.issued += 1;
        let token = format!("refresh-{}", state.issued);
        state.refresh_tokens.insert(token.clone(), scope.to_owned());
        token
    }

    /// What it has been asked so far.
    pub fn asked(&self) -> Asked {
        self.state.lock().unwrap().asked.clone()
    }

    /// The access token it issued last, if any.
    pub fn last_access_token(&self) -> Option<String> {
        self.state.lock().unwrap().access_tokens.last().cloned()
    }
}
