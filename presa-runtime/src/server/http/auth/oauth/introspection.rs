//! Opaque access tokens, checked by the authorization server itself
//! (RFC 7662 token introspection).
//!
//! The rules:
//!
//! 1. the token is posted to the introspection endpoint (the server's
//!    metadata names it, or it is configured) with the resource server's
//!    own client credentials, `client_secret_basic` by default;
//! 2. the answer must say `active: true`, name the issuer in `iss` if it
//!    names one, and hold the resource in `aud`; an answer without `aud`
//!    is refused unless [`Introspection::audience_optional`] was set, for
//!    servers that never send one;
//! 3. an `exp` in the past refuses the token, whatever `active` says;
//! 4. an active answer is cached under the token's SHA-256 digest (the
//!    token itself is never kept), for [`Introspection::cache_for`] at
//!    most and never past the token's `exp`; an answer without `exp` is
//!    not cached. The cache holds `MAX_CACHED` (10,000) answers at most,
//!    the oldest leaving first;
//! 5. at most `MAX_IN_FLIGHT` (16) introspections run at once; the others wait
//!    their turn, so that a flood of made-up tokens cannot flood the
//!    authorization server.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::jwt::{Invalid, Verified, scopes};
use crate::oauth::fetch::{Fetch, FetchError};
use crate::util::lock;

/// The most introspection answers kept.
pub(crate) const MAX_CACHED: usize = 10_000;
/// The most introspections under way at once.
pub(crate) const MAX_IN_FLIGHT: usize = 16;

/// How opaque tokens are introspected: the resource server's client
/// credentials at the authorization server.
#[derive(Clone)]
pub struct Introspection {
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    pub(crate) in_body: bool,
    pub(crate) endpoint: Option<String>,
    pub(crate) audience_optional: bool,
    pub(crate) cache_for: Duration,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("client_id", &self.client_id)
            .field("client_secret", &"…")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl Introspection {
    /// Introspection as client `client_id` with `client_secret`, sent by
    /// HTTP Basic authentication (`client_secret_basic`).
    pub fn client_secret_basic(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Introspection {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            in_body: false,
            endpoint: None,
            audience_optional: false,
            cache_for: Duration::from_secs(60),
        }
    }

    /// The same credentials sent in the form body (`client_secret_post`).
    pub fn client_secret_post(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Introspection {
            in_body: true,
            ..Self::client_secret_basic(client_id, client_secret)
        }
    }

    /// The introspection endpoint, when the server's metadata does not
    /// name it.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }

    /// Accepts answers without `aud` (rule 2), for an authorization server
    /// that never sends one: its tokens are then taken to be for this
    /// resource.
    pub fn audience_optional(mut self) -> Self {
        self.audience_optional = true;
        self
    }

    /// How long an active answer is kept at most (default 60 s; never past
    /// the token's `exp`).
    pub fn cache_for(mut self, duration: Duration) -> Self {
        self.cache_for = duration;
        self
    }
}

/// What an introspection needs of the validator around it.
pub(crate) struct Introspector {
    pub settings: Introspection,
    pub fetch: Arc<dyn Fetch>,
    pub issuer: String,
    pub audiences: std::collections::HashSet<String>,
    pub subject_claim: String,
    /// Claims read as scopes beside `scope` and `scp`.
    pub scope_claims: Vec<String>,
    cache: std::sync::Mutex<Cache>,
    turns: Semaphore,
}

#[derive(Default)]
struct Cache {
    answers: HashMap<[u8; 32], (Instant, Verified)>,
    order: VecDeque<[u8; 32]>,
}

/// Why introspection did not accept a token.
pub(crate) enum Refused {
    Invalid(Invalid),
    Unavailable(FetchError),
}

impl Introspector {
    pub fn new(
        settings: Introspection,
        fetch: Arc<dyn Fetch>,
        issuer: String,
        audiences: std::collections::HashSet<String>,
        subject_claim: String,
        scope_claims: Vec<String>,
    ) -> Self {
        Introspector {
            settings,
            fetch,
            issuer,
            audiences,
            subject_claim,
            scope_claims,
            cache: Default::default(),
            turns: Semaphore::new(MAX_IN_FLIGHT),
        }
    }

    /// Token `token`, introspected at `endpoint` or taken from the cache.
    pub async fn check(&self, token: &str, endpoint: &str) -> Result<Verified, Refused> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(verified) = self.cached(&digest) {
            return Ok(verified);
        }
        let _turn = self.turns.acquire().await.expect("never closed");
        let mut form = vec![("token", token), ("token_type_hint", "access_token")];
        let credentials = (
            self.settings.client_id.as_str(),
            self.settings.client_secret.as_str(),
        );
        let basic = if self.settings.in_body {
            form.push(("client_id", credentials.0));
            form.push(("client_secret", credentials.1));
            None
        } else {
            Some(credentials)
        };
        let answer = self
            .fetch
            .post_form(endpoint, &form, basic)
            .await
            .map_err(Refused::Unavailable)?;
        let answer: Map<String, Value> = serde_json::from_slice(&answer.body).map_err(|e| {
            Refused::Unavailable(FetchError::Invalid {
                url: endpoint.to_owned(),
                what: "an introspection response",
                reason: e.to_string(),
            })
        })?;
        let (verified, expires) = self.judge(answer).map_err(Refused::Invalid)?;
        if let Some(expires) = expires {
            self.keep(digest, expires, verified.clone());
        }
        Ok(verified)
    }

    fn cached(&self, digest: &[u8; 32]) -> Option<Verified> {
        let cache = lock(&self.cache);
        let (until, verified) = cache.answers.get(digest)?;
        (Instant::now() < *until).then(|| verified.clone())
    }

    fn keep(&self, digest: [u8; 32], expires: Duration, verified: Verified) {
        let ttl = expires.min(self.settings.cache_for);
        if ttl.is_zero() {
            return;
        }
        let mut cache = lock(&self.cache);
        let now = Instant::now();
        while cache.answers.len() >= MAX_CACHED {
            let Some(oldest) = cache.order.pop_front() else {
                break;
            };
            cache.answers.remove(&oldest);
        }
        if cache
            .answers
            .insert(digest, (now + ttl, verified))
            .is_none()
        {
            cache.order.push_back(digest);
        }
        // Entries already past their time leave from the front as well.
        while let Some(front) = cache.order.front().copied() {
            match cache.answers.get(&front) {
                Some((until, _)) if *until <= now => {
                    cache.answers.remove(&front);
                    cache.order.pop_front();
                }
                _ => break,
            }
        }
    }

    /// Rules 2 and 3 on an answer: the token, and how long until it
    /// expires (`None` without `exp`).
    fn judge(&self, answer: Map<String, Value>) -> Result<(Verified, Option<Duration>), Invalid> {
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(Invalid::new(
                "the token is not active",
                "introspection: active is not true",
            ));
        }
        if let Some(iss) = answer.get("iss")
            && iss.as_str() != Some(self.issuer.as_str())
        {
            return Err(Invalid::new(
                "the token is from another issuer",
                format!("iss {iss}"),
            ));
        }
        match answer.get("aud") {
            None if self.settings.audience_optional => {}
            None => {
                return Err(Invalid::new(
                    "the token is not for this resource",
                    "introspection names no aud",
                ));
            }
            Some(aud) => {
                let names = match aud {
                    Value::String(one) => vec![one.as_str()],
                    Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                if !names.iter().any(|name| self.audiences.contains(*name)) {
                    return Err(Invalid::new(
                        "the token is not for this resource",
                        format!("aud {aud}"),
                    ));
                }
            }
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let expires = match answer.get("exp").map(Value::as_u64) {
            None => None,
            Some(Some(exp)) if exp > now.as_secs() => Some(Duration::from_secs(exp) - now),
            Some(_) => return Err(Invalid::new("the token has expired", "introspection exp")),
        };
        let subject = answer
            .get(&self.subject_claim)
            .and_then(Value::as_str)
            .ok_or_else(|| Invalid::new("the token names no subject", "introspection"))?
            .to_owned();
        Ok((
            Verified {
                subject,
                scopes: scopes(&answer, &self.scope_claims),
                claims: answer,
            },
            expires,
        ))
    }
}
