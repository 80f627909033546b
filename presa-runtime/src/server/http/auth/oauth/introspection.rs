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
//! 4. answers are cached under the token's SHA-256 digest (the token
//!    itself is never kept). An active answer is kept for
//!    [`Introspection::cache_for`], and never past the token's `exp` if it
//!    names one. A refusal is kept for [`REFUSAL_CACHED_FOR`] (30 s), so
//!    that a token sent again and again is asked about once. Active
//!    answers and refusals have a cache each, of [`MAX_CACHED`] (10,000)
//!    answers at most, the oldest leaving first: a flood of refused
//!    tokens never pushes out the active ones. An answer the
//!    authorization server could not give is not cached;
//! 5. requests that need the same token introspected at once share one
//!    introspection;
//! 6. at most [`MAX_IN_FLIGHT`] (16) introspections run at once; the others
//!    wait their turn, so that a flood of made-up tokens cannot flood the
//!    authorization server;
//! 7. failed introspections are limited per network the requests come
//!    from (the rules are in `failures`): a flood of made-up tokens from
//!    one place takes at most a quarter of the turns of rule 6 and gets
//!    `503` once its failures are spent, while tokens from elsewhere are
//!    introspected at once.
//!
//! A request that gives up (its client hung up) leaves the introspection
//! it shares to the others waiting for it; if it was the last, the
//! introspection is dropped with it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tokio::sync::{OnceCell, Semaphore};
use tokio::time::Instant;

use super::failures::{FailureLimits, Peer};
use super::jwt::{Invalid, Verified, scopes};
use crate::oauth::fetch::{Fetch, FetchError};
use crate::util::lock;

/// The most answers of each kind (active, refused) kept.
pub(crate) const MAX_CACHED: usize = 10_000;
/// The most introspections under way at once.
pub(crate) const MAX_IN_FLIGHT: usize = 16;
// One peer's failures hold at most a quarter of the turns (`failures`,
// rule 2), so that three more peers are still served at once.
const _: () = assert!(super::failures::MAX_IN_FLIGHT_PER_PEER * 4 == MAX_IN_FLIGHT);
/// How long a refusal is kept (rule 4).
pub(crate) const REFUSAL_CACHED_FOR: Duration = Duration::from_secs(30);

/// A token's SHA-256 digest: what the caches and the flights know it by.
type TokenDigest = [u8; 32];

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
    /// the token's `exp`). An answer without `exp` is kept this long too:
    /// it is the longest a revoked token may still be accepted.
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
    active: Mutex<Answers<Verified>>,
    refused: Mutex<Answers<Invalid>>,
    /// The introspections under way, by token (rule 5).
    flights: Mutex<HashMap<TokenDigest, Arc<OnceCell<Outcome>>>>,
    turns: Semaphore,
    failures: FailureLimits,
}

/// What an introspection came to, shared by every request that waited for
/// it.
type Outcome = Result<Verified, Refused>;

/// Why introspection did not accept a token.
#[derive(Debug, Clone)]
pub(crate) enum Refused {
    /// The authorization server refused it.
    Invalid(Invalid),
    /// The authorization server could not be asked, or did not answer.
    Unavailable(FetchError),
    /// The request's network spent its failed introspections (rule 7):
    /// ask again after this long.
    Throttled(Duration),
}

/// Answers of one kind, by token digest, each until its time; bounded,
/// the oldest leaving first.
struct Answers<V> {
    by_digest: HashMap<TokenDigest, (Instant, V)>,
    order: VecDeque<TokenDigest>,
}

impl<V: Clone> Answers<V> {
    fn new() -> Self {
        Answers {
            by_digest: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    fn get(&self, digest: &TokenDigest, now: Instant) -> Option<V> {
        let (until, value) = self.by_digest.get(digest)?;
        (now < *until).then(|| value.clone())
    }

    fn keep(&mut self, digest: TokenDigest, until: Instant, value: V, now: Instant) {
        while self.by_digest.len() >= MAX_CACHED {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.by_digest.remove(&oldest);
        }
        if self.by_digest.insert(digest, (until, value)).is_none() {
            self.order.push_back(digest);
        }
        // Entries already past their time leave from the front as well.
        while let Some(front) = self.order.front().copied() {
            match self.by_digest.get(&front) {
                Some((until, _)) if *until <= now => {
                    self.by_digest.remove(&front);
                    self.order.pop_front();
                }
                _ => break,
            }
        }
    }
}

/// One request's share of an introspection under way (rule 5). Dropping
/// the last share removes the flight, whether it ended or was given up,
/// so that the table holds no more flights than requests waiting.
struct Flight<'a> {
    flights: &'a Mutex<HashMap<TokenDigest, Arc<OnceCell<Outcome>>>>,
    digest: TokenDigest,
    cell: Arc<OnceCell<Outcome>>,
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        let mut flights = lock(self.flights);
        // The table's share and this one: no one else waits for it.
        let last = Arc::strong_count(&self.cell) == 2;
        if last
            && flights
                .get(&self.digest)
                .is_some_and(|cell| Arc::ptr_eq(cell, &self.cell))
        {
            flights.remove(&self.digest);
        }
    }
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
            active: Mutex::new(Answers::new()),
            refused: Mutex::new(Answers::new()),
            flights: Mutex::default(),
            turns: Semaphore::new(MAX_IN_FLIGHT),
            failures: FailureLimits::new(),
        }
    }

    /// Token `token`, sent from `peer`: taken from the caches, or
    /// introspected at `endpoint` (rules 4 to 7).
    pub async fn check(&self, token: &str, endpoint: &str, peer: Peer) -> Outcome {
        let digest: TokenDigest = Sha256::digest(token.as_bytes()).into();
        let now = Instant::now();
        if let Some(verified) = lock(&self.active).get(&digest, now) {
            return Ok(verified);
        }
        if let Some(reason) = lock(&self.refused).get(&digest, now) {
            return Err(Refused::Invalid(reason));
        }
        let flight = self.join(digest);
        let outcome = flight
            .cell
            .get_or_try_init(|| self.introspect(token, endpoint, peer, digest))
            .await;
        match outcome {
            Ok(outcome) => outcome.clone(),
            Err(retry_after) => Err(Refused::Throttled(retry_after)),
        }
    }

    /// How many introspections are under way, or waited for.
    #[cfg(test)]
    pub fn flights(&self) -> usize {
        lock(&self.flights).len()
    }

    /// A share of the flight for `digest`, begun by this request or
    /// another.
    fn join(&self, digest: TokenDigest) -> Flight<'_> {
        let cell = Arc::clone(lock(&self.flights).entry(digest).or_default());
        Flight {
            flights: &self.flights,
            digest,
            cell,
        }
    }

    /// One introspection, once `peer` may have it (rule 7) and a turn is
    /// free (rule 6); its answer judged and cached. `Err` is how long
    /// `peer` must wait: not an answer, so a request of another peer
    /// waiting for the same token tries in its place.
    async fn introspect(
        &self,
        token: &str,
        endpoint: &str,
        peer: Peer,
        digest: TokenDigest,
    ) -> Result<Outcome, Duration> {
        let charged = self.failures.begin(peer)?;
        let _turn = self.turns.acquire().await.expect("never closed");
        let outcome = self.ask(token, endpoint).await;
        let now = Instant::now();
        Ok(match outcome {
            Ok((verified, expires)) => {
                charged.refund();
                let ttl = expires.map_or(self.settings.cache_for, |expires| {
                    expires.min(self.settings.cache_for)
                });
                if !ttl.is_zero() {
                    lock(&self.active).keep(digest, now + ttl, verified.clone(), now);
                }
                Ok(verified)
            }
            Err(Refused::Invalid(reason)) => {
                let until = now + REFUSAL_CACHED_FOR;
                lock(&self.refused).keep(digest, until, reason.clone(), now);
                Err(Refused::Invalid(reason))
            }
            Err(other) => {
                charged.refund();
                Err(other)
            }
        })
    }

    /// The authorization server's answer about `token`, judged: the token,
    /// and how long until it expires.
    async fn ask(
        &self,
        token: &str,
        endpoint: &str,
    ) -> Result<(Verified, Option<Duration>), Refused> {
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
        self.judge(answer).map_err(Refused::Invalid)
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
