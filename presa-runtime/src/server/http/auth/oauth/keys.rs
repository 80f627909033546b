//! The authorization server's signing keys (its JWKS), cached.
//!
//! The rules, in the order a token meets them:
//!
//! 1. keys are fetched on first use, not at start-up, so a server starts
//!    while its authorization server is down;
//! 2. a key set is kept as long as its `Cache-Control: max-age` says,
//!    within [`KeySettings::min_age`] and [`KeySettings::max_age`]
//!    ([`KeySettings::default_age`] without the header); the first token
//!    after that has it fetched again, so keys follow the server's
//!    schedule;
//! 3. a token whose `kid` the set lacks has it fetched again (a rotated
//!    key, picked up without a restart), but at most once per
//!    [`KeySettings::cooldown`] since the last fetch: a flood of tokens
//!    with made-up `kid`s costs one fetch per cool-down, never one per
//!    token. Fetches are single-flight: requests that need one while it
//!    runs wait for its outcome;
//! 4. a key set that cannot be fetched again is kept, stale, for the keys
//!    it holds; a token that needs a key the server does not hold while
//!    the authorization server cannot be reached is the server's failure
//!    (`Unavailable`), not the caller's;
//! 5. only public signature keys are kept: RSA, EC (P-256, P-384) and
//!    Ed25519, not marked for encryption. A symmetric (`oct`) key in a key
//!    set is ignored, so that no published key ever verifies an HMAC.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use tokio::time::Instant;

use crate::oauth::fetch::{Fetch, FetchError};
use crate::util::lock;

/// How the key cache refreshes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeySettings {
    /// The shortest time between two fetches of the key set, whatever
    /// asks for them (rule 3).
    pub cooldown: Duration,
    /// The shortest time a key set is kept, whatever its headers say.
    pub min_age: Duration,
    /// The longest time a key set is kept, whatever its headers say.
    pub max_age: Duration,
    /// How long a key set without `Cache-Control: max-age` is kept.
    pub default_age: Duration,
}

impl Default for KeySettings {
    /// A 30 s cool-down; key sets kept between 1 minute and 1 day, 1 hour
    /// without a header.
    fn default() -> Self {
        KeySettings {
            cooldown: Duration::from_secs(30),
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
    /// No key of the set verifies such a token.
    #[error("no key of the authorization server verifies this token")]
    Unknown,
    /// The key set could not be fetched.
    #[error("the key set could not be fetched: {error}")]
    Unavailable {
        error: FetchError,
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
    /// Held across a fetch: what makes fetches single-flight.
    fetching: tokio::sync::Mutex<()>,
    /// Fetches made, for the figures and the tests.
    fetches: AtomicU64,
}

#[derive(Default)]
struct KeyState {
    keys: Arc<Vec<Key>>,
    /// Whether a fetch ever succeeded.
    fetched: bool,
    fresh_until: Option<Instant>,
    /// When the last fetch was started, and what became of it.
    attempted: Option<Instant>,
    failure: Option<FetchError>,
    /// A background refresh of stale keys is on its way.
    refreshing: bool,
}

/// What one look at the state decided.
enum Lookup {
    Found(Arc<Vec<Key>>),
    Missing(KeyError),
    /// Fetch, then look again; the instant is the attempt's, to tell
    /// whether another request fetched meanwhile.
    Fetch(Option<Instant>),
}

impl KeyCache {
    pub fn new(fetch: Arc<dyn Fetch>, locate: Locate, settings: KeySettings) -> Self {
        KeyCache {
            fetch,
            locate,
            settings,
            state: Default::default(),
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
        let seen = match self.look(kid, alg, true) {
            Lookup::Found(keys) => return Ok(keys),
            Lookup::Missing(error) => return Err(error),
            Lookup::Fetch(seen) => seen,
        };
        let _flight = self.fetching.lock().await;
        if lock(&self.state).attempted == seen {
            self.refresh().await;
        }
        // Fetched, by this request or by the one it waited for.
        match self.look(kid, alg, false) {
            Lookup::Found(keys) => Ok(keys),
            Lookup::Missing(error) => Err(error),
            Lookup::Fetch(_) => Err(KeyError::Unknown),
        }
    }

    /// Rules 2 to 4 on the state as it is: a key held is used at once
    /// (refreshed in the background when stale); one missing is fetched
    /// when the cool-down allows and `may_fetch`.
    fn look(self: &Arc<Self>, kid: Option<&str>, alg: Algorithm, may_fetch: bool) -> Lookup {
        let mut state = lock(&self.state);
        let now = Instant::now();
        let cooled = state
            .attempted
            .is_none_or(|at| now >= at + self.settings.cooldown);
        let stale = state.fresh_until.is_none_or(|until| now >= until);
        if matching(&state.keys, kid, alg).next().is_some() {
            if stale && cooled && may_fetch && !state.refreshing {
                state.refreshing = true;
                let cache = Arc::clone(self);
                tokio::spawn(async move {
                    let _flight = cache.fetching.lock().await;
                    cache.refresh().await;
                });
            }
            return Lookup::Found(Arc::clone(&state.keys));
        }
        if cooled && may_fetch {
            return Lookup::Fetch(state.attempted);
        }
        Lookup::Missing(self.missing(&state, now))
    }

    /// Why a key is missing: the set lacks it, or there is no set to ask.
    fn missing(&self, state: &KeyState, now: Instant) -> KeyError {
        match &state.failure {
            Some(error) => KeyError::Unavailable {
                error: error.clone(),
                retry_after: state
                    .attempted
                    .map_or(Duration::ZERO, |at| {
                        (at + self.settings.cooldown).saturating_duration_since(now)
                    })
                    .max(Duration::from_secs(1)),
            },
            None => KeyError::Unknown,
        }
    }

    /// Fetches the set and keeps what it brings (rule 4 on failure: the
    /// keys held stay). Called with `fetching` held, so that a changed
    /// `attempted` means a fetch has ended.
    async fn refresh(&self) {
        lock(&self.state).attempted = Some(Instant::now());
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let outcome = self.fetch_keys().await;
        let mut state = lock(&self.state);
        state.refreshing = false;
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
/// verifies with (rule 5).
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
