//! DPoP-bound access tokens (RFC 9449): tokens that work only with a proof
//! signed by the client's key.
//!
//! Whoever holds a bearer token can use it. A DPoP-bound token names the
//! thumbprint of a key of the client's in its `cnf.jkt` claim, and every
//! request must carry a fresh proof, signed with that key, in a `DPoP`
//! header. A stolen token is then useless without the key. The rules, in
//! the order they are checked; the first that fails refuses the request:
//!
//! 1. a token with a `cnf` claim is bound. Sent as `Bearer`, it is refused
//!    (`invalid_token`). A `cnf` that names no `jkt` (the `x5t#S256` of an
//!    mTLS-bound token) binds the token in a way presa cannot check, so it
//!    is refused whatever the scheme. With [`DpopSettings::required`], a
//!    token without `cnf` is refused too;
//! 2. `Authorization: DPoP …` needs exactly one `DPoP` header, holding a
//!    compact JWS of at most `MAX_PROOF_BYTES` (8 KiB);
//! 3. the proof's header has `typ` `dpop+jwt`, an asymmetric `alg` presa
//!    verifies ([`ALGORITHMS`]: never `none`, never HMAC), and a `jwk` that
//!    holds a public key of a type that fits the `alg`, and no private
//!    member. An RSA key has at least 2048 bits;
//! 4. the signature verifies under that `jwk`;
//! 5. the claims `jti`, `htm`, `htu`, `iat` and `ath` are present;
//! 6. `htm` is the request's method;
//! 7. `htu` is the resource URL, the one [`OAuthBuilder::resource`](super::OAuthBuilder::resource) names
//!    and the Protected Resource Metadata publishes, compared after RFC
//!    3986 normalization, query and fragment ignored. It is not the URL
//!    the request arrived at: behind a proxy or a load balancer the server
//!    cannot know the URL the client used, and the resource URL is the one
//!    a client must use;
//! 8. `iat` is at most the clock skew ahead of the server's clock, and at
//!    most the proof lifetime behind it ([`DpopSettings::proof_lifetime`],
//!    60 s, and [`DpopSettings::clock_skew`], 10 s);
//! 9. `ath` is the hash of the token sent with it;
//! 10. the token is valid (checked only now, so that a made-up proof costs
//!     no key fetch and no introspection), DPoP-bound, and its `cnf.jkt` is
//!     the thumbprint of the proof's key (`invalid_token`);
//! 11. the proof has not been used before: the replay cache records its
//!     `jti` (with its `htu`) until its lifetime ends. Only a proof that
//!     passed every other rule is recorded, so made-up proofs take no room.
//!
//! Rules 2 to 9 and 11 refuse with `error="invalid_dpop_proof"`. How the
//! replay cache stays bounded, and how replicas share one, is in
//! `replay`.
//!
//! Nonces (RFC 9449 section 8) are not issued: the short lifetime and the
//! replay cache bound replays, and a proof's `nonce` claim is ignored.

use std::sync::Arc;
use std::time::Duration;

use axum::http::request::Parts;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::jwt::Invalid;
use super::keys::verification_key;
use super::replay::{DEFAULT_REPLAY_ENTRIES, DpopProofId, DpopReplayCache, MemoryReplayCache};
use crate::oauth::dpop::{access_token_hash, jwk_thumbprint, target_uri};

/// The algorithms a proof may be signed with, by the names `alg` and the
/// metadata write them: every asymmetric algorithm presa verifies, the
/// one most clients use first.
pub(crate) const ALGORITHMS: [(&str, Algorithm); 9] = [
    ("ES256", Algorithm::ES256),
    ("ES384", Algorithm::ES384),
    ("EdDSA", Algorithm::EdDSA),
    ("PS256", Algorithm::PS256),
    ("PS384", Algorithm::PS384),
    ("PS512", Algorithm::PS512),
    ("RS256", Algorithm::RS256),
    ("RS384", Algorithm::RS384),
    ("RS512", Algorithm::RS512),
];

/// The longest proof read (rule 2): a proof signed with a 4096-bit RSA
/// key is under 2 KiB.
pub(crate) const MAX_PROOF_BYTES: usize = 8 * 1024;

/// The smallest RSA key a proof may be signed with, in bits (RFC 7518
/// section 3.3).
const MIN_RSA_BITS: usize = 2048;

/// The JWK members that hold a private key: `d` of EC, OKP and RSA keys,
/// RSA's primes and CRT values, and a symmetric key's `k`.
const PRIVATE_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// How an [`OAuth`](super::OAuth) validator takes DPoP-bound tokens (RFC
/// 9449), given to [`OAuthBuilder::dpop`](super::OAuthBuilder::dpop).
///
/// The default takes bearer and DPoP-bound tokens alike. A token whose
/// `cnf.jkt` binds it to a key of the client's must come as
/// `Authorization: DPoP …`, with one `DPoP` header: a proof signed by that
/// key, for the request's method and the resource URL, made within the
/// proof lifetime, and never used before. Sent as `Bearer`, such a token
/// is refused. The guide's "Authorization" chapter says more.
#[derive(Clone)]
pub struct DpopSettings {
    required: bool,
    proof_lifetime: Duration,
    clock_skew: Duration,
    replay_entries: usize,
    replay_cache: Option<Arc<dyn DpopReplayCache>>,
}

impl Default for DpopSettings {
    /// Bearer tokens still taken; proofs live 60 s, with 10 s of clock
    /// skew; 100,000 proofs remembered in memory.
    fn default() -> Self {
        DpopSettings {
            required: false,
            proof_lifetime: Duration::from_secs(60),
            clock_skew: Duration::from_secs(10),
            replay_entries: DEFAULT_REPLAY_ENTRIES,
            replay_cache: None,
        }
    }
}

impl std::fmt::Debug for DpopSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopSettings")
            .field("required", &self.required)
            .field("proof_lifetime", &self.proof_lifetime)
            .field("clock_skew", &self.clock_skew)
            .field("replay_entries", &self.replay_entries)
            .field("shared_replay_cache", &self.replay_cache.is_some())
            .finish()
    }
}

impl DpopSettings {
    /// The defaults: see [`Default`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes DPoP-bound tokens only: a token without `cnf.jkt` is refused
    /// whatever its scheme, and the Protected Resource Metadata says
    /// `dpop_bound_access_tokens_required`. Every client then needs DPoP,
    /// and an authorization server that binds its tokens.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// How long after its `iat` a proof is taken (default 60 s, at least
    /// 1 s). The replay cache remembers each proof this long.
    pub fn proof_lifetime(mut self, lifetime: Duration) -> Self {
        self.proof_lifetime = lifetime.max(Duration::from_secs(1));
        self
    }

    /// How far ahead of the server's clock a proof's `iat` may be
    /// (default 10 s), for clients whose clocks run fast.
    pub fn clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew;
        self
    }

    /// How many proofs the replay cache in memory holds at most (default
    /// 100,000, about 10 MB; at least 1). Enough for that many requests
    /// per proof lifetime and clock skew, about 1,400 a second with the
    /// defaults. A full cache refuses older proofs rather than let a
    /// replay through.
    pub fn replay_cache_entries(mut self, entries: usize) -> Self {
        self.replay_entries = entries.max(1);
        self
    }

    /// Remembers used proofs in `cache` instead of in memory: one store
    /// that every replica shares, so that a proof used at one replica is
    /// refused at the others.
    pub fn replay_cache(mut self, cache: impl DpopReplayCache) -> Self {
        self.replay_cache = Some(Arc::new(cache));
        self
    }
}

/// A proof that passed rules 2 to 9.
#[derive(Debug)]
pub(crate) struct Proof {
    /// The SHA-256 thumbprint of its key, for rule 10.
    pub thumbprint: String,
    /// What the replay cache records, for rule 11.
    pub id: DpopProofId,
}

/// How a token is bound (rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binding<'a> {
    /// No `cnf`: a bearer token.
    Unbound,
    /// `cnf.jkt`: bound to the key of this thumbprint.
    Key(&'a str),
}

/// The binding of a token whose claims (or introspection answer) are
/// `claims`; a refusal for a `cnf` presa cannot check.
pub(crate) fn binding(claims: &Map<String, Value>) -> Result<Binding<'_>, Invalid> {
    let Some(cnf) = claims.get("cnf") else {
        return Ok(Binding::Unbound);
    };
    let malformed = || Invalid::new("the token's key binding is malformed", format!("cnf {cnf}"));
    let cnf = cnf
        .as_object()
        .filter(|c| !c.is_empty())
        .ok_or_else(malformed)?;
    match cnf.get("jkt") {
        Some(Value::String(jkt)) if !jkt.is_empty() => Ok(Binding::Key(jkt)),
        Some(_) => Err(malformed()),
        None => Err(Invalid::new(
            "the token is bound in a way this server cannot check",
            format!(
                "cnf names {:?}, not jkt",
                cnf.keys().map(String::as_str).collect::<Vec<_>>()
            ),
        )),
    }
}

/// The checker of proofs, one per validator.
pub(crate) struct ProofChecker {
    pub required: bool,
    proof_lifetime: u64,
    clock_skew: u64,
    /// The resource URL, normalized, without query and fragment; `None`
    /// when it does not parse, and then no proof names it.
    resource: Option<url::Url>,
    replay: Arc<dyn DpopReplayCache>,
}

impl ProofChecker {
    pub fn new(settings: DpopSettings, resource: &str) -> Self {
        let parsed = normalized(resource);
        if parsed.is_none() {
            tracing::warn!(
                resource,
                "the resource is not an absolute URL: every DPoP proof will be refused"
            );
        }
        let proof_lifetime = settings.proof_lifetime.as_secs().max(1);
        let replay = settings
            .replay_cache
            .unwrap_or_else(|| Arc::new(MemoryReplayCache::new(settings.replay_entries)));
        ProofChecker {
            required: settings.required,
            proof_lifetime,
            clock_skew: settings.clock_skew.as_secs(),
            resource: parsed,
            replay,
        }
    }

    /// The names of [`ALGORITHMS`], for the metadata and the challenges.
    pub fn algorithm_names() -> Vec<String> {
        ALGORITHMS
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect()
    }

    /// Rules 2 to 9 for `request`, which carries `token` under the `DPoP`
    /// scheme, at `now` (seconds since the Unix epoch).
    pub fn check(&self, request: &Parts, token: &str, now: u64) -> Result<Proof, Invalid> {
        // Rule 2.
        let mut values = request.headers.get_all("dpop").iter();
        let proof = match (values.next(), values.next()) {
            (None, _) => {
                return Err(Invalid::new(
                    "the request carries no DPoP proof",
                    "no DPoP header",
                ));
            }
            (Some(_), Some(_)) => {
                return Err(Invalid::new(
                    "the request carries more than one DPoP proof",
                    "two DPoP headers or more",
                ));
            }
            (Some(one), None) => one,
        };
        let malformed = |cause: &str| Invalid::new("the DPoP proof is malformed", cause);
        let proof = proof
            .to_str()
            .map_err(|_| malformed("the DPoP header is not ASCII"))?;
        if proof.len() > MAX_PROOF_BYTES {
            return Err(malformed("longer than 8 KiB"));
        }
        let segments: Vec<&str> = proof.split('.').collect();
        if segments.len() != 3 || segments.iter().any(|s| s.is_empty()) {
            return Err(malformed("not a compact JWS of three parts"));
        }
        // Rule 3.
        let header: Map<String, Value> = URL_SAFE_NO_PAD
            .decode(segments[0])
            .ok()
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or_else(|| malformed("the header is not base64url JSON"))?;
        let (alg, jwk) = proof_key(&header)?;
        let key = verification_key(&jwk)
            .filter(|key| key.verifies(alg))
            .ok_or_else(|| {
                Invalid::new(
                    "the DPoP proof's key does not fit its algorithm",
                    format!("{alg:?} with this jwk"),
                )
            })?;
        // Rule 4.
        let mut validation = Validation::new(alg);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        let claims = jsonwebtoken::decode::<Map<String, Value>>(proof, &key.key, &validation)
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidSignature => Invalid::new(
                    "the DPoP proof's signature does not verify",
                    "under its own jwk",
                ),
                _ => malformed(&e.to_string()),
            })?
            .claims;
        // Rule 5.
        let text = |name: &str| {
            claims
                .get(name)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .ok_or_else(|| {
                    Invalid::new(
                        "the DPoP proof lacks a required claim",
                        format!("no string claim `{name}`"),
                    )
                })
        };
        let (jti, htm, htu, ath) = (text("jti")?, text("htm")?, text("htu")?, text("ath")?);
        let iat = claims
            .get("iat")
            .and_then(Value::as_f64)
            .filter(|iat| iat.is_finite() && *iat >= 0.0)
            .ok_or_else(|| {
                Invalid::new(
                    "the DPoP proof lacks a required claim",
                    "iat is not a number of seconds",
                )
            })? as u64;
        // Rule 6: methods are case-sensitive (RFC 9110 section 9.1).
        if htm != request.method.as_str() {
            return Err(Invalid::new(
                "the DPoP proof is for another method",
                format!("htm {htm}, request {}", request.method),
            ));
        }
        // Rule 7.
        let target = normalized(htu);
        if target.is_none() || target != self.resource {
            return Err(Invalid::new(
                "the DPoP proof is for another URL",
                format!("htu {htu}"),
            ));
        }
        // Rule 8.
        if iat > now.saturating_add(self.clock_skew) {
            return Err(Invalid::new(
                "the DPoP proof was made in the future",
                format!("iat {iat}, now {now}"),
            ));
        }
        let forget_after = iat.saturating_add(self.proof_lifetime);
        if now > forget_after {
            return Err(Invalid::new(
                "the DPoP proof is too old",
                format!("iat {iat}, now {now}"),
            ));
        }
        // Rule 9.
        if ath != access_token_hash(token) {
            return Err(Invalid::new(
                "the DPoP proof is for another token",
                "ath is not the token's hash",
            ));
        }
        let thumbprint =
            jwk_thumbprint(&jwk).ok_or_else(|| malformed("the jwk has no thumbprint"))?;
        let mut digest = Sha256::new();
        digest.update(target.as_ref().map_or("", url::Url::as_str));
        digest.update(b" ");
        digest.update(jti.as_bytes());
        Ok(Proof {
            thumbprint,
            id: DpopProofId {
                digest: digest.finalize().into(),
                issued_at: iat,
                forget_after,
            },
        })
    }

    /// Rule 11: whether `proof` is used for the first time.
    pub async fn first_use(
        &self,
        proof: &Proof,
    ) -> Result<bool, Box<dyn std::error::Error + Send + Sync>> {
        self.replay.first_use(&proof.id).await
    }
}

/// Rule 3 on a proof's header: its algorithm and its public key.
fn proof_key(header: &Map<String, Value>) -> Result<(Algorithm, Jwk), Invalid> {
    let typ = header.get("typ").and_then(Value::as_str).unwrap_or("");
    let typ = typ.to_ascii_lowercase();
    if typ != "dpop+jwt" && typ != "application/dpop+jwt" {
        return Err(Invalid::new(
            "the DPoP proof is not of type dpop+jwt",
            format!("typ {:?}", header.get("typ")),
        ));
    }
    let named = header.get("alg").and_then(Value::as_str).unwrap_or("");
    let alg = ALGORITHMS
        .iter()
        .find(|(name, _)| *name == named)
        .map(|(_, alg)| *alg)
        .ok_or_else(|| {
            Invalid::new(
                "the DPoP proof's algorithm is not accepted",
                format!("alg {:?}", header.get("alg")),
            )
        })?;
    let jwk = header
        .get("jwk")
        .and_then(Value::as_object)
        .ok_or_else(|| Invalid::new("the DPoP proof names no key", "no jwk object"))?;
    if let Some(member) = PRIVATE_MEMBERS.iter().find(|m| jwk.contains_key(**m)) {
        return Err(Invalid::new(
            "the DPoP proof's key is not a public key",
            format!("jwk member `{member}`"),
        ));
    }
    let jwk = serde_json::from_value::<Jwk>(Value::Object(jwk.clone()))
        .ok()
        .filter(|jwk| !matches!(jwk.algorithm, AlgorithmParameters::Other(_)))
        .ok_or_else(|| {
            Invalid::new(
                "the DPoP proof's key is malformed",
                "not a JWK of a known key type",
            )
        })?;
    if let AlgorithmParameters::RSA(rsa) = &jwk.algorithm {
        let bits = URL_SAFE_NO_PAD
            .decode(&rsa.n)
            .map(|n| {
                let significant = n.iter().skip_while(|b| **b == 0).count();
                significant * 8
            })
            .unwrap_or(0);
        if bits < MIN_RSA_BITS {
            return Err(Invalid::new(
                "the DPoP proof's key is too weak",
                format!("an RSA key of {bits} bits"),
            ));
        }
    }
    Ok((alg, jwk))
}

/// `url` normalized (RFC 3986 sections 6.2.2 and 6.2.3: the case of the
/// scheme and host, the default port, an empty path, dot segments),
/// without its query and fragment; `None` when it does not parse.
fn normalized(url: &str) -> Option<url::Url> {
    url::Url::parse(target_uri(url))
        .ok()
        .filter(|url| url.has_host())
}

#[cfg(test)]
mod tests;
