//! [`OAuth`]: the resource server that validates one authorization
//! server's access tokens, its builder, and what its configuration
//! refuses.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use axum::http::request::Parts;
use jsonwebtoken::DecodingKey;
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::dpop::{Binding, DpopSettings, ProofChecker, binding};
use super::failures::Peer;
use super::introspection::{Introspection, Introspector, Refused};
use super::jwt::{Invalid, TokenRules, Verified};
use super::keys::{KeyCache, KeyError, KeySettings, Locate};
use super::{jwt, replay};
use crate::oauth::fetch::{Fetch, FetchError, HttpFetch, allowed_url};
use crate::oauth::resource_metadata::ProtectedResourceMetadata;
use crate::oauth::server_metadata::{ServerMetadata, discover};
use crate::server::caller::Caller;
use crate::server::http::auth::authenticator::{Authenticator, Refusal, Scheme, presented_token};

/// Validates the access tokens of one authorization server (the rules are
/// in the module docs). Cheap to clone: clones share their caches.
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

struct Inner {
    rules: TokenRules,
    resource: String,
    scopes_supported: Vec<String>,
    /// What a `401` names in `scope`, space-separated; `None` for none.
    sign_in_scope: Option<String>,
    keys: Arc<KeyCache>,
    introspector: Option<Introspector>,
    metadata: Arc<Metadata>,
    dpop: ProofChecker,
}

/// How an [`OAuth`] validator is configured; from [`OAuth::issuer`].
#[must_use]
pub struct OAuthBuilder {
    issuer: String,
    resource: Option<String>,
    audiences: Vec<String>,
    jwks_uri: Option<String>,
    leeway: Duration,
    subject_claim: String,
    hmac_secret: Option<Vec<u8>>,
    introspection: Option<Introspection>,
    keys: KeySettings,
    scopes_supported: Vec<String>,
    sign_in_scopes: Vec<String>,
    scope_claims: Vec<String>,
    client_ids: HashSet<String>,
    fetch: Option<Arc<dyn Fetch>>,
    dpop: DpopSettings,
}

/// A configuration [`OAuthBuilder::build`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthConfigError {
    /// No resource was named: tokens could not be held to an audience.
    #[error(
        "OAuth needs the resource's canonical URL (`OAuthBuilder::resource`), the audience its tokens must name"
    )]
    NoResource,
    /// A URL is neither `https` nor `http` to a loopback host.
    #[error("`{url}` ({what}) must be an https URL, or http to a loopback host")]
    InsecureUrl {
        /// What the URL is for.
        what: &'static str,
        /// The URL as you gave it.
        url: String,
    },
    /// The shared HMAC secret is too short to resist guessing.
    #[error("an HMAC secret must be at least 32 bytes; this one is {0}")]
    WeakSecret(usize),
    /// The HTTP client could not be made.
    #[error("the HTTP client for the authorization server could not be made: {0}")]
    Client(String),
}

impl OAuth {
    /// A validator for the tokens of the authorization server whose issuer
    /// identifier is `issuer`, exactly as its metadata and tokens write it
    /// (a trailing slash counts).
    pub fn issuer(issuer: impl Into<String>) -> OAuthBuilder {
        OAuthBuilder {
            issuer: issuer.into(),
            resource: None,
            audiences: Vec::new(),
            jwks_uri: None,
            leeway: Duration::from_secs(60),
            subject_claim: "sub".into(),
            hmac_secret: None,
            introspection: None,
            keys: KeySettings::default(),
            scopes_supported: Vec::new(),
            sign_in_scopes: Vec::new(),
            scope_claims: Vec::new(),
            client_ids: HashSet::new(),
            fetch: None,
            dpop: DpopSettings::default(),
        }
    }

    /// The Protected Resource Metadata of the resource: its URL, this
    /// issuer, the scopes configured, and the DPoP algorithms it accepts.
    pub fn protected_resource(&self) -> ProtectedResourceMetadata {
        let mut metadata = ProtectedResourceMetadata::new(
            self.inner.resource.clone(),
            self.inner.rules.issuer.clone(),
        );
        metadata.dpop_signing_alg_values_supported = Some(ProofChecker::algorithm_names());
        metadata.dpop_bound_access_tokens_required = self.inner.dpop.required;
        if self.inner.scopes_supported.is_empty() {
            metadata
        } else {
            metadata.scopes(self.inner.scopes_supported.clone())
        }
    }

    /// How many times the key set was fetched since the validator was
    /// built.
    pub fn key_fetches(&self) -> u64 {
        self.inner.keys.fetches()
    }

    /// The caller `token` speaks for, or why it is refused: what
    /// [`Authenticator::authenticate`] does with a bearer token. A token
    /// bound to a key (`cnf`) is refused here: it needs its proof, which
    /// only the request carries. The token's failed introspections count
    /// against every caller whose address is not known, as one
    /// (`authenticate` counts them against the request's network).
    pub async fn validate(&self, token: &str) -> Result<Caller, Refusal> {
        self.validate_bearer(token, Peer::Unknown).await
    }

    /// [`OAuth::validate`], for a token sent from `peer`.
    async fn validate_bearer(&self, token: &str, peer: Peer) -> Result<Caller, Refusal> {
        let verified = self.verify(token, peer).await?;
        match binding(&verified.claims).map_err(invalid)? {
            Binding::Key(_) => Err(invalid(Invalid::new(
                "the token is DPoP-bound: send it with the DPoP scheme and a proof",
                "cnf.jkt, sent as a bearer token",
            ))),
            Binding::Unbound if self.inner.dpop.required => Err(invalid(Invalid::new(
                "this resource takes DPoP-bound tokens only",
                "no cnf.jkt, and DPoP is required",
            ))),
            Binding::Unbound => Ok(self.caller(verified)),
        }
    }

    /// The caller of a request that sends `token` under the `DPoP` scheme,
    /// or why it is refused (the rules are in `dpop`).
    async fn validate_bound(
        &self,
        request: &Parts,
        token: &str,
        peer: Peer,
    ) -> Result<Caller, Refusal> {
        let proof = self
            .inner
            .dpop
            .check(request, token, replay::unix_now())
            .map_err(invalid_proof)?;
        let verified = self.verify(token, peer).await?;
        match binding(&verified.claims).map_err(invalid)? {
            Binding::Key(jkt) if jkt == proof.thumbprint => {}
            Binding::Key(_) => {
                return Err(invalid(Invalid::new(
                    "the token is bound to another key",
                    "cnf.jkt is not the thumbprint of the proof's key",
                )));
            }
            Binding::Unbound => {
                return Err(invalid(Invalid::new(
                    "the token is not DPoP-bound",
                    "no cnf.jkt, sent under the DPoP scheme",
                )));
            }
        }
        match self.inner.dpop.first_use(&proof).await {
            Ok(true) => Ok(self.caller(verified)),
            Ok(false) => Err(invalid_proof(Invalid::new(
                "the DPoP proof was used before",
                "its jti is in the replay cache",
            ))),
            Err(error) => {
                tracing::warn!(%error, "refused a DPoP proof: the replay cache cannot be reached");
                Err(Refusal::Unavailable {
                    retry_after: Duration::from_secs(5),
                })
            }
        }
    }

    /// The caller a token that passed every rule speaks for.
    fn caller(&self, verified: Verified) -> Caller {
        Caller::subject(verified.subject)
            .issuer(self.inner.rules.issuer.as_str())
            .scopes(verified.scopes)
            .claims(verified.claims)
    }

    /// The token checked by its issuer's rules, whatever binds it; its
    /// failed introspections count against `peer`.
    async fn verify(&self, token: &str, peer: Peer) -> Result<Verified, Refusal> {
        let verified = if looks_like_jwt(token) {
            self.validate_jwt(token).await?
        } else if let Some(introspector) = &self.inner.introspector {
            self.introspect(introspector, token, peer).await?
        } else {
            return Err(invalid(Invalid::new(
                "the token is not valid",
                "not a JWT, and no introspection is configured",
            )));
        };
        Ok(verified)
    }

    async fn validate_jwt(&self, token: &str) -> Result<Verified, Refusal> {
        let rules = &self.inner.rules;
        let header = jwt::header(token, rules).map_err(invalid)?;
        if header.alg.family() == jsonwebtoken::AlgorithmFamily::Hmac {
            return jwt::verify(token, &header, &[], rules).map_err(invalid);
        }
        let keys = match self
            .inner
            .keys
            .keys_for(header.kid.as_deref(), header.alg)
            .await
        {
            Ok(keys) => keys,
            Err(KeyError::Unknown) => {
                return Err(invalid(Invalid::new(
                    "the token's signature does not verify",
                    format!("no key of kid {:?} for {:?}", header.kid, header.alg),
                )));
            }
            Err(KeyError::Unavailable { error, retry_after }) => {
                tracing::warn!(%error, "refused a token: the authorization server's keys cannot be fetched");
                return Err(Refusal::Unavailable { retry_after });
            }
            Err(KeyError::Throttled { retry_after }) => {
                tracing::info!(kid = ?header.kid, "refused a token for now: its key is not held, and the key set was fetched as often as allowed");
                return Err(Refusal::Unavailable { retry_after });
            }
        };
        jwt::verify(token, &header, &keys, rules).map_err(invalid)
    }

    async fn introspect(
        &self,
        introspector: &Introspector,
        token: &str,
        peer: Peer,
    ) -> Result<Verified, Refusal> {
        let endpoint = match &introspector.settings.endpoint {
            Some(endpoint) => endpoint.clone(),
            None => self
                .inner
                .metadata
                .get()
                .await
                .map_err(unavailable)?
                .introspection_endpoint
                .ok_or_else(|| {
                    unavailable(FetchError::Invalid {
                        url: self.inner.rules.issuer.clone(),
                        what: "authorization server metadata",
                        reason: "it names no introspection_endpoint".into(),
                    })
                })?,
        };
        introspector
            .check(token, &endpoint, peer)
            .await
            .map_err(|refused| match refused {
                Refused::Invalid(reason) => invalid(reason),
                Refused::Unavailable(error) => unavailable(error),
                Refused::Throttled(retry_after) => Refusal::Unavailable { retry_after },
            })
    }
}

/// A refusal for `reason`, whose cause goes to `tracing` only.
fn invalid(reason: Invalid) -> Refusal {
    tracing::info!(
        cause = reason.cause,
        "refused an access token: {}",
        reason.description
    );
    Refusal::InvalidToken {
        description: reason.description,
    }
}

/// A refusal of a DPoP proof for `reason`, whose cause goes to `tracing`
/// only.
fn invalid_proof(reason: Invalid) -> Refusal {
    tracing::info!(
        cause = reason.cause,
        "refused a DPoP proof: {}",
        reason.description
    );
    Refusal::InvalidDpopProof {
        description: reason.description,
    }
}

/// The authorization server could not be asked: the server's failure.
fn unavailable(error: FetchError) -> Refusal {
    tracing::warn!(%error, "could not check an access token with the authorization server");
    Refusal::Unavailable {
        retry_after: Duration::from_secs(5),
    }
}

/// Whether `token` has a JWT's shape: three base64url parts.
fn looks_like_jwt(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() == 3
        && parts[..2].iter().all(|part| !part.is_empty())
        && parts.iter().all(|part| {
            part.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

#[async_trait]
impl Authenticator for OAuth {
    async fn authenticate(&self, request: &Parts) -> Result<Caller, Refusal> {
        let unauthorized = || Refusal::Unauthorized {
            scope: self.inner.sign_in_scope.clone(),
        };
        let peer = Peer::from(crate::server::http::admission::client_network(request));
        let validated = match presented_token(request)?.ok_or_else(unauthorized)? {
            (Scheme::Bearer, token) => self.validate_bearer(token, peer).await,
            (Scheme::Dpop, token) => self.validate_bound(request, token, peer).await,
        };
        crate::telemetry::metrics::token_validated(match &validated {
            Ok(_) => "valid",
            Err(Refusal::InvalidToken { .. }) => "invalid_token",
            Err(Refusal::InvalidDpopProof { .. }) => "invalid_dpop_proof",
            Err(Refusal::Unavailable { .. }) => "unavailable",
            Err(_) => "refused",
        });
        validated
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("issuer", &self.inner.rules.issuer)
            .field("resource", &self.inner.resource)
            .finish_non_exhaustive()
    }
}

impl OAuthBuilder {
    /// The resource's canonical URL (RFC 8707): the MCP endpoint's URL,
    /// such as `https://mcp.example.com/mcp`. Tokens must name it in
    /// `aud`. Required.
    pub fn resource(mut self, url: impl Into<String>) -> Self {
        self.resource = Some(url.into());
        self
    }

    /// Another audience tokens may name instead of the resource, for an
    /// authorization server that writes its own (an API identifier such
    /// as Auth0's, an application id URI such as Entra ID's).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Where the keys are, when discovery should not be used to find
    /// them.
    pub fn jwks_uri(mut self, url: impl Into<String>) -> Self {
        self.jwks_uri = Some(url.into());
        self
    }

    /// The clock skew allowed on `exp`, `nbf` and `iat` (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The claim that names the subject (default `sub`).
    pub fn subject_claim(mut self, claim: impl Into<String>) -> Self {
        self.subject_claim = claim.into();
        self
    }

    /// Reads claim `claim` as scopes too, beside `scope` and `scp`: a
    /// string of space-separated scopes or an array of them. Entra ID puts
    /// an application's own permissions in `roles`; Auth0 RBAC writes
    /// `permissions`.
    pub fn scope_claim(mut self, claim: impl Into<String>) -> Self {
        self.scope_claims.push(claim.into());
        self
    }

    /// Accepts tokens that name no `aud` when their `client_id` is one of
    /// `clients`: Amazon Cognito's access tokens name their app client so,
    /// and no audience. A token that names an `aud` is still held to the
    /// audiences.
    pub fn client_ids(mut self, clients: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.client_ids.extend(clients.into_iter().map(Into::into));
        self
    }

    /// Accepts HS256/384/512 tokens signed with `secret`, shared with the
    /// authorization server on purpose. Without it, HMAC tokens are
    /// refused: a published key must never verify one.
    pub fn hmac_secret(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.hmac_secret = Some(secret.into());
        self
    }

    /// Introspects tokens that are not JWTs (RFC 7662).
    pub fn introspection(mut self, introspection: Introspection) -> Self {
        self.introspection = Some(introspection);
        self
    }

    /// How the key cache refreshes and paces its fetches.
    pub fn key_settings(mut self, settings: KeySettings) -> Self {
        self.keys = settings;
        self
    }

    /// How DPoP-bound tokens are taken (RFC 9449): whether they are
    /// required, how long a proof lives, how used proofs are remembered.
    /// DPoP is accepted by default, beside bearer tokens.
    pub fn dpop(mut self, settings: DpopSettings) -> Self {
        self.dpop = settings;
        self
    }

    /// Scopes published in the Protected Resource Metadata's
    /// `scopes_supported`, beside those the server's handlers declare.
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The scopes a request without a token is told to ask for (the
    /// `scope` of its `401`, RFC 6750 section 3), which MCP clients request
    /// when they sign in, before `scopes_supported`. Name the least most
    /// callers need: a tool that needs more answers `403
    /// insufficient_scope` naming its scopes, and the client steps up.
    /// None by default, and the `401` names no scope.
    pub fn sign_in_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.sign_in_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    #[cfg(test)]
    pub(super) fn fetch(mut self, fetch: Arc<dyn Fetch>) -> Self {
        self.fetch = Some(fetch);
        self
    }

    /// The validator, or why this configuration is refused. Nothing is
    /// fetched yet: keys and metadata are fetched when a token needs them.
    pub fn build(self) -> Result<OAuth, OAuthConfigError> {
        let resource = self.resource.ok_or(OAuthConfigError::NoResource)?;
        let urls = [
            ("the issuer", Some(&self.issuer)),
            ("the jwks_uri", self.jwks_uri.as_ref()),
            (
                "the introspection endpoint",
                self.introspection
                    .as_ref()
                    .and_then(|i| i.endpoint.as_ref()),
            ),
        ];
        for (what, url) in urls {
            if let Some(url) = url.filter(|url| !allowed_url(url)) {
                return Err(OAuthConfigError::InsecureUrl {
                    what,
                    url: url.clone(),
                });
            }
        }
        let hmac = match self.hmac_secret {
            Some(secret) if secret.len() < 32 => {
                return Err(OAuthConfigError::WeakSecret(secret.len()));
            }
            Some(secret) => Some(
                DecodingKey::from_secret(&secret)
                    .map_err(|e| OAuthConfigError::Client(e.to_string()))?,
            ),
            None => None,
        };
        let fetch: Arc<dyn Fetch> = match self.fetch {
            Some(fetch) => fetch,
            None => {
                Arc::new(HttpFetch::new().map_err(|e| OAuthConfigError::Client(e.to_string()))?)
            }
        };
        let metadata = Arc::new(Metadata::new(
            Arc::clone(&fetch),
            self.issuer.clone(),
            DISCOVERY_RETRY,
        ));
        let locate: Locate = match self.jwks_uri {
            Some(uri) => Box::new(move || {
                let uri = uri.clone();
                Box::pin(async move { Ok(uri) })
            }),
            None => {
                let metadata = Arc::clone(&metadata);
                Box::new(move || {
                    let metadata = Arc::clone(&metadata);
                    Box::pin(async move {
                        let found = metadata.get().await?;
                        found.jwks_uri.ok_or_else(|| FetchError::Invalid {
                            url: metadata.issuer.clone(),
                            what: "authorization server metadata",
                            reason: "it names no jwks_uri".into(),
                        })
                    })
                })
            }
        };
        let mut audiences: HashSet<String> = self.audiences.into_iter().collect();
        audiences.insert(resource.clone());
        let rules = TokenRules {
            issuer: self.issuer.clone(),
            audiences: audiences.clone(),
            leeway: self.leeway,
            subject_claim: self.subject_claim.clone(),
            hmac,
            scope_claims: self.scope_claims.clone(),
            client_ids: self.client_ids,
        };
        let introspector = self.introspection.map(|settings| {
            Introspector::new(
                settings,
                Arc::clone(&fetch),
                self.issuer.clone(),
                audiences,
                self.subject_claim,
                self.scope_claims,
            )
        });
        let dpop = ProofChecker::new(self.dpop, &resource);
        Ok(OAuth {
            inner: Arc::new(Inner {
                rules,
                resource,
                scopes_supported: self.scopes_supported,
                sign_in_scope: (!self.sign_in_scopes.is_empty())
                    .then(|| self.sign_in_scopes.join(" ")),
                keys: Arc::new(KeyCache::new(fetch, locate, self.keys)),
                introspector,
                metadata,
                dpop,
            }),
        })
    }
}

/// How long a failed discovery is remembered before it is tried again.
const DISCOVERY_RETRY: Duration = Duration::from_secs(30);

/// The issuer's metadata, discovered on first need and kept; a failed
/// discovery is tried again once per [`DISCOVERY_RETRY`], not per
/// request.
struct Metadata {
    fetch: Arc<dyn Fetch>,
    issuer: String,
    cooldown: Duration,
    found: Mutex<Option<Result<ServerMetadata, (Instant, FetchError)>>>,
}

impl Metadata {
    fn new(fetch: Arc<dyn Fetch>, issuer: String, cooldown: Duration) -> Self {
        Metadata {
            fetch,
            issuer,
            cooldown,
            found: Mutex::new(None),
        }
    }

    async fn get(&self) -> Result<ServerMetadata, FetchError> {
        let mut found = self.found.lock().await;
        match &*found {
            Some(Ok(metadata)) => return Ok(metadata.clone()),
            Some(Err((at, error))) if at.elapsed() < self.cooldown => return Err(error.clone()),
            _ => {}
        }
        let outcome = discover(&*self.fetch, &self.issuer).await;
        *found = Some(match &outcome {
            Ok(metadata) => Ok(metadata.clone()),
            Err(error) => Err((Instant::now(), error.clone())),
        });
        outcome
    }
}

#[cfg(test)]
mod tests;
