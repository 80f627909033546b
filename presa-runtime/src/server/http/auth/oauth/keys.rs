//! The authorization server's signing keys (its JWKS), cached.
//!
//! The rules, in the order a token meets them:
//!
//! 1. keys are fetched on first use, not at start-up, so a server starts
//!    while its authorization server is down;
//! 2. a key set is kept as long as its `Cache-Control: max-age` says,
//!    within [`KeySettings::min_age`] and [`KeySettings::max_age`]
//!    ([`KeySettings::default_age`] without the header); the first token
//!    after that has it fetched again in the background, while the keys
//!    held still verify, so keys follow the server's schedule;
//! 3. a token whose `kid` the set lacks has the set fetched again, so that
//!    a rotated key is accepted at once, without a restart. The token
//!    waits for a fetch that began after it arrived: the issuer published
//!    its key before it signed the token, so that fetch holds the key if
//!    the key exists. Fetches are single-flight: every token waiting for
//!    one shares it;
//! 4. fetches are paced, whatever asks for them: two are at least
//!    [`KeySettings::cooldown`] apart, and a token bucket lets
//!    [`KeySettings::burst`] happen back to back, then one per
//!    [`KeySettings::refill`]. A token that would wait more than a second
//!    for its fetch is not made to wait: it is refused as the server's
//!    failure (`Throttled`, a `503` with `Retry-After`), not the caller's,
//!    since its key may exist. So a flood of tokens with made-up `kid`s
//!    costs the authorization server a few fetches a minute, never one per
//!    token;
//! 5. a key set that cannot be fetched again is kept, stale, for the keys
//!    it holds; a token that needs a key the server does not hold while
//!    the authorization server cannot be reached is the server's failure
//!    (`Unavailable`), not the caller's;
//! 6. only public signature keys are kept: RSA, EC (P-256, P-384) and
//!    Ed25519, not marked for encryption. A symmetric (`oct`) key in a key
//!    set is ignored, so that no published key ever verifies an HMAC.
//!
//! A token that gives up waiting (its client hung up) drops its place:
//! a fetch it began and did not finish counts against the pace, but
//! answers no one, and the next token in line fetches again.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use tokio::time::Instant;

use super::bucket::TokenBucket;
use crate::oauth::fetch::{Fetch, FetchError};
use crate::util::lock;

/// The longest a token waits for the fetch it needs (rule 4).
const MAX_WAIT: Duration = Duration::from_secs(1);

/// How the key cache refreshes and paces its fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeySettings {
    /// The shortest time between two fetches of the key set, whatever
    /// asks for them (rule 4).
    pub cooldown: Duration,
    /// How many fetches may happen back to back (each `cooldown` apart)
    /// before `refill` paces them; 0 counts as 1.
    pub burst: u32,
    /// How often one more fetch is earned back, up to `burst`.
    pub refill: Duration,
    /// The shortest time a key set is kept, whatever its headers say.
    pub min_age: Duration,
    /// The longest time a key set is kept, whatever its headers say.
    pub max_age: Duration,
    /// How long a key set without `Cache-Control: max-age` is kept.
    pub default_age: Duration,
}

impl Default for KeySettings {
    /// Fetches at least 1 s apart, 3 back to back and then 4 a minute
    /// (one per 15 s); key sets kept between 1 minute and 1 day, 1 hour
    /// without a header.
    fn default() -> Self {
        KeySettings {
            cooldown: Duration::from_secs(1),
            burst: 3,
            refill: Duration::from_secs(15),
            min_age: Duration::from_secs(60),
            max_age: Duration::from_secs(24 * 3600),
            default_age: Duration::from_secs(3600),
        }
    }
}

/// One verification key of the set.
pub(crate) struct Key {
    pub kid: Option<String>,
    /// The algorithm the key is for, when the set says.
    pub alg: Option<Algorithm>,
    /// The algorithms the key's type can verify.
    pub algorithms: &'static [Algorithm],
    pub key: DecodingKey,
}

impl Key {
    /// Whether the key may verify a token signed with `alg`: its type
    /// (and curve) and, when it names one, its algorithm agree.
    pub fn verifies(&self, alg: Algorithm) -> bool {
        self.algorithms.contains(&alg) && self.alg.is_none_or(|own| own == alg)
    }
}

/// Why no key was found.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum KeyError {
    /// A fetch begun after the token arrived holds no key that verifies
    /// it.
    #[error("no key of the authorization server verifies this token")]
    Unknown,
    /// The key set could not be fetched.
    #[error("the key set could not be fetched: {error}")]
    Unavailable {
        error: FetchError,
        /// When a fetch may be tried again.
        retry_after: Duration,
    },
    /// The key set may not be fetched again yet (rule 4).
    #[error("the key set was fetched as often as its pace allows")]
    Throttled {
        /// When a fetch may be tried again.
        retry_after: Duration,
    },
}

/// Where the keys are: where to fetch them from is itself found lazily,
/// by discovery.
pub(crate) type Locate =
    Box<dyn Fn() -> futures::future::BoxFuture<'static, Result<String, FetchError>> + Send + Sync>;

/// The cache (rules in the module docs).
pub(crate) struct KeyCache {
    fetch: Arc<dyn Fetch>,
    locate: Locate,
    settings: KeySettings,
    /// Held for microseconds at a time, never across a fetch.
    state: std::sync::Mutex<KeyState>,
    /// Held across a fetch, and the wait before it: what makes fetches
    /// single-flight. Dropping the guard (a cancelled request) lets the
    /// next in line take over.
    fetching: tokio::sync::Mutex<()>,
    /// Fetches made, for the figures and the tests.
    fetches: AtomicU64,
}

struct KeyState {
    keys: Arc<Vec<Key>>,
    /// Whether a fetch ever succeeded.
    fetched: bool,
    fresh_until: Option<Instant>,
    /// When the last fetch began, ended or not: the next begins
    /// `cooldown` later at the soonest.
    began: Option<Instant>,
    /// When the last fetch that ended began, and how it failed, if it did.
    answered: Option<Instant>,
    failure: Option<FetchError>,
    /// What paces fetches (rule 4).
    budget: TokenBucket,
    /// A background refresh of stale keys is on its way.
    refreshing: bool,
}

/// What one look at the state decided.
enum Lookup {
    Found(Arc<Vec<Key>>),
    Missing(KeyError),
    /// No fetch begun since the token arrived has answered: fetch.
    Fetch,
}

impl KeyCache {
    pub fn new(fetch: Arc<dyn Fetch>, locate: Locate, settings: KeySettings) -> Self {
        KeyCache {
            fetch,
            locate,
            settings,
            state: std::sync::Mutex::new(KeyState {
                keys: Arc::default(),
                fetched: false,
                fresh_until: None,
                began: None,
                answered: None,
                failure: None,
                budget: TokenBucket::full(settings.burst, settings.refill),
                refreshing: false,
            }),
            fetching: Default::default(),
            fetches: AtomicU64::new(0),
        }
    }

    /// How many times the key set was fetched.
    pub fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    /// The key set, once it holds a key that may verify a token signed
    /// with `alg` under `kid` (see [`matching`]).
    pub async fn keys_for(
        self: &Arc<Self>,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Vec<Key>>, KeyError> {
        let arrived = Instant::now();
        loop {
            match self.look(kid, alg, arrived) {
                Lookup::Found(keys) => return Ok(keys),
                Lookup::Missing(error) => return Err(error),
                Lookup::Fetch => {}
            }
            let _flight = self.fetching.lock().await;
            // While this token waited for its turn, another may have
            // fetched for it.
            match self.look(kid, alg, arrived) {
                Lookup::Found(keys) => return Ok(keys),
                Lookup::Missing(error) => return Err(error),
                Lookup::Fetch => {}
            }
            let start = self.next_fetch()?;
            tokio::time::sleep_until(start).await;
            self.refresh().await;
        }
    }

    /// Rules 2, 3 and 5 on the state as it is: a key held is used at once
    /// (refreshed in the background when stale); a missing one is missing
    /// for good once a fetch begun after `arrived` has answered.
    fn look(self: &Arc<Self>, kid: Option<&str>, alg: Algorithm, arrived: Instant) -> Lookup {
        let mut state = lock(&self.state);
        if matching(&state.keys, kid, alg).next().is_some() {
            let now = Instant::now();
            let stale = state.fresh_until.is_none_or(|until| now >= until);
            let paced = state
                .began
                .is_none_or(|at| now >= at + self.settings.cooldown)
                && state.budget.ready_at(now) <= now;
            if stale && paced && !state.refreshing {
                state.refreshing = true;
                let cache = Arc::clone(self);
                tokio::spawn(async move { cache.refresh_in_background().await });
            }
            return Lookup::Found(Arc::clone(&state.keys));
        }
        if state.answered.is_some_and(|at| at >= arrived) {
            return Lookup::Missing(self.missing(&mut state));
        }
        Lookup::Fetch
    }

    /// When the next fetch may begin, with its token of the budget taken;
    /// or the refusal of a token that would wait longer than [`MAX_WAIT`]
    /// (rule 4). Called with `fetching` held, so that no one else takes
    /// from the budget meanwhile.
    fn next_fetch(&self) -> Result<Instant, KeyError> {
        let mut state = lock(&self.state);
        let now = Instant::now();
        let spaced = state
            .began
            .map_or(now, |at| (at + self.settings.cooldown).max(now));
        let start = state.budget.ready_at(spaced).max(spaced);
        let wait = start - now;
        if wait > MAX_WAIT {
            tracing::debug!(
                ?wait,
                "a token needs keys the server does not hold, and the key set was fetched as often as allowed"
            );
            return Err(match &state.failure {
                Some(error) => KeyError::Unavailable {
                    error: error.clone(),
                    retry_after: wait,
                },
                None => KeyError::Throttled { retry_after: wait },
            });
        }
        state
            .budget
            .take(start)
            .expect("ready at `start`, and no one else takes meanwhile");
        Ok(start)
    }

    /// Why a key is missing after a fetch that answered: the set lacks it,
    /// or there is no set to ask.
    fn missing(&self, state: &mut KeyState) -> KeyError {
        let Some(error) = &state.failure else {
            return KeyError::Unknown;
        };
        let now = Instant::now();
        let spaced = state
            .began
            .map_or(now, |at| (at + self.settings.cooldown).max(now));
        let retry = state.budget.ready_at(spaced).max(spaced) - now;
        KeyError::Unavailable {
            error: error.clone(),
            retry_after: retry.max(Duration::from_secs(1)),
        }
    }

    /// Refreshes stale keys while the keys held keep verifying; skipped
    /// when the pace allows no fetch now.
    async fn refresh_in_background(&self) {
        let _flight = self.fetching.lock().await;
        let start = {
            let mut state = lock(&self.state);
            let now = Instant::now();
            let spaced = state
                .began
                .map_or(now, |at| (at + self.settings.cooldown).max(now));
            if state.budget.ready_at(spaced) > spaced {
                state.refreshing = false;
                return;
            }
            state
                .budget
                .take(spaced)
                .expect("ready at `spaced`, and no one else takes meanwhile");
            spaced
        };
        tokio::time::sleep_until(start).await;
        self.refresh().await;
    }

    /// Fetches the set and keeps what it brings (rule 5 on failure: the
    /// keys held stay). Called with `fetching` held and a token of the
    /// budget taken.
    async fn refresh(&self) {
        let began = Instant::now();
        lock(&self.state).began = Some(began);
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let outcome = self.fetch_keys().await;
        let mut state = lock(&self.state);
        state.refreshing = false;
        state.answered = Some(began);
        match outcome {
            Ok((keys, max_age)) => {
                let age = max_age
                    .unwrap_or(self.settings.default_age)
                    .clamp(self.settings.min_age, self.settings.max_age);
                tracing::debug!(
                    keys = keys.len(),
                    ?age,
                    "fetched the authorization server's keys"
                );
                state.keys = Arc::new(keys);
                state.fetched = true;
                state.fresh_until = Some(Instant::now() + age);
                state.failure = None;
            }
            Err(error) => {
                tracing::warn!(%error, stale = state.fetched, "could not fetch the authorization server's keys");
                state.failure = Some(error);
            }
        }
    }

    async fn fetch_keys(&self) -> Result<(Vec<Key>, Option<Duration>), FetchError> {
        let url = (self.locate)().await?;
        let fetched = self.fetch.get(&url).await?;
        let set: JwkSet =
            serde_json::from_slice(&fetched.body).map_err(|e| FetchError::Invalid {
                url: url.clone(),
                what: "a JSON Web Key Set",
                reason: e.to_string(),
            })?;
        let keys = set.keys.iter().filter_map(verification_key).collect();
        Ok((keys, fetched.max_age))
    }
}

/// The keys of `keys` that may verify a token signed with `alg` under
/// `kid`: with a `kid`, the key of that id only.
pub(crate) fn matching<'k>(
    keys: &'k [Key],
    kid: Option<&'k str>,
    alg: Algorithm,
) -> impl Iterator<Item = &'k Key> {
    keys.iter()
        .filter(move |key| kid.is_none_or(|kid| key.kid.as_deref() == Some(kid)))
        .filter(move |key| key.verifies(alg))
}

/// `jwk` as a verification key, if it is a public signature key presa
/// verifies with (rule 6).
pub(crate) fn verification_key(jwk: &Jwk) -> Option<Key> {
    if jwk.common.public_key_use == Some(PublicKeyUse::Encryption) {
        return None;
    }
    let algorithms: &'static [Algorithm] = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => &[
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => &[Algorithm::ES256],
            EllipticCurve::P384 => &[Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            &[Algorithm::EdDSA]
        }
        _ => return None,
    };
    let alg = match jwk.common.key_algorithm {
        Some(named) => Some(Algorithm::try_from(named).ok()?),
        None => None,
    };
    if alg.is_some_and(|alg| !algorithms.contains(&alg)) {
        return None;
    }
    let key = DecodingKey::from_jwk(jwk)
        .inspect_err(|e| tracing::debug!(kid = jwk.common.key_id, error = %e, "skipped a key that does not parse"))
        .ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        algorithms,
        key,
    })
}
