//! A JWT access token, checked: header, key, signature, then claims.
//!
//! The rules, in order; the first that fails refuses the token:
//!
//! 1. the header parses, names an algorithm presa accepts (RS256/384/512,
//!    PS256/384/512, ES256/384, EdDSA; HS256/384/512 only with a shared
//!    secret configured on purpose; `none` never), and a `typ`, if any,
//!    of an access token (`at+jwt` by RFC 9068, or `JWT`);
//! 2. a key verifies it: the key of its `kid` (a key of another type or
//!    algorithm is no key for it, and a bad signature under a known `kid`
//!    fails, with no other key tried), or, without a `kid`, one of the
//!    keys of its algorithm;
//! 3. `iss` is the issuer, exactly;
//! 4. `aud` holds the resource's canonical URI or another audience
//!    configured (RFC 8707, RFC 9068); a token without `aud` passes only
//!    when client ids were configured for it (Amazon Cognito's access
//!    tokens name their client in `client_id` instead) and its
//!    `client_id` is one of them;
//! 5. `exp` is present and not past, `nbf` is not to come, and `iat` is
//!    not in the future, each within the leeway;
//! 6. the subject claim (`sub` unless configured) is a string.
//!
//! Scopes come from `scope` (space-separated, RFC 9068) or `scp` (a string
//! or an array, as Entra ID and Okta write it), and from the claims
//! configured beside them (`roles`, `permissions`).

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Header, Validation};
use serde_json::{Map, Value};

use super::keys::{Key, matching};
use crate::server::caller::Scopes;

/// What a token must be to be accepted.
pub(crate) struct TokenRules {
    pub issuer: String,
    pub audiences: HashSet<String>,
    pub leeway: Duration,
    pub subject_claim: String,
    /// The shared secret HS256/384/512 tokens are verified with, when one
    /// was configured.
    pub hmac: Option<DecodingKey>,
    /// Claims read as scopes beside `scope` and `scp`.
    pub scope_claims: Vec<String>,
    /// The `client_id`s a token without `aud` may name (rule 4).
    pub client_ids: HashSet<String>,
}

/// A token that passed every rule.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verified {
    pub subject: String,
    pub scopes: Scopes,
    pub claims: Map<String, Value>,
}

/// Why a token was refused: what the client is told, and what `tracing`
/// is told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{description}: {cause}")]
pub(crate) struct Invalid {
    pub description: &'static str,
    pub cause: String,
}

impl Invalid {
    pub fn new(description: &'static str, cause: impl Into<String>) -> Self {
        Invalid {
            description,
            cause: cause.into(),
        }
    }
}

/// The token's header, checked by rule 1.
pub(crate) fn header(token: &str, rules: &TokenRules) -> Result<Header, Invalid> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|e| Invalid::new("the token is malformed", e.to_string()))?;
    if header.alg.family() == AlgorithmFamily::Hmac && rules.hmac.is_none() {
        return Err(Invalid::new(
            "the token's algorithm is not accepted",
            format!("{:?} without a shared secret configured", header.alg),
        ));
    }
    if let Some(typ) = &header.typ {
        let typ = typ.to_ascii_lowercase();
        if !matches!(typ.as_str(), "at+jwt" | "application/at+jwt" | "jwt") {
            return Err(Invalid::new(
                "the token is not an access token",
                format!("typ `{typ}`"),
            ));
        }
    }
    Ok(header)
}

/// Rules 2 to 6, with the keys the server holds.
pub(crate) fn verify(
    token: &str,
    header: &Header,
    keys: &[Key],
    rules: &TokenRules,
) -> Result<Verified, Invalid> {
    let validation = validation(header.alg, rules);
    let decoded = if header.alg.family() == AlgorithmFamily::Hmac {
        let secret = rules.hmac.as_ref().expect("checked by `header`");
        jsonwebtoken::decode::<Map<String, Value>>(token, secret, &validation)
    } else {
        let mut candidates = matching(keys, header.kid.as_deref(), header.alg).peekable();
        if candidates.peek().is_none() {
            return Err(Invalid::new(
                "the token's signature does not verify",
                format!("no key for kid {:?} and {:?}", header.kid, header.alg),
            ));
        }
        // Without a `kid`, each key of the algorithm in turn; with one,
        // its one key.
        let mut outcome = None;
        for key in candidates.take(MAX_KEYS_TRIED) {
            let tried = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation);
            let bad_signature =
                matches!(&tried, Err(e) if *e.kind() == ErrorKind::InvalidSignature);
            outcome = Some(tried);
            if !bad_signature {
                break;
            }
        }
        outcome.expect("one candidate at least")
    };
    let claims = decoded.map_err(refusal)?.claims;
    check_client_without_audience(&claims, rules)?;
    check_issued_at(&claims, rules.leeway)?;
    let subject = claims
        .get(&rules.subject_claim)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Invalid::new(
                "the token names no subject",
                format!("no string claim `{}`", rules.subject_claim),
            )
        })?
        .to_owned();
    Ok(Verified {
        subject,
        scopes: scopes(&claims, &rules.scope_claims),
        claims,
    })
}

/// Rule 4 for a token without `aud`: its `client_id` must be one
/// configured. (jsonwebtoken holds a present `aud` to the audiences.)
fn check_client_without_audience(
    claims: &Map<String, Value>,
    rules: &TokenRules,
) -> Result<(), Invalid> {
    if claims.contains_key("aud") {
        return Ok(());
    }
    match claims.get("client_id").and_then(Value::as_str) {
        Some(client) if rules.client_ids.contains(client) => Ok(()),
        Some(client) => Err(Invalid::new(
            "the token is not for this resource",
            format!("no aud, and client_id `{client}` is not one configured"),
        )),
        None => Err(Invalid::new(
            "the token lacks a required claim",
            "neither aud nor client_id",
        )),
    }
}

/// The most keys a token without a `kid` is tried against.
const MAX_KEYS_TRIED: usize = 4;

fn validation(alg: Algorithm, rules: &TokenRules) -> Validation {
    let mut validation = Validation::new(alg);
    validation.set_issuer(&[&rules.issuer]);
    validation.aud = Some(rules.audiences.clone());
    // Without client ids configured, `aud` is required here; with them, a
    // token without it is held to rule 4 after decoding.
    if rules.client_ids.is_empty() {
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    } else {
        validation.set_required_spec_claims(&["exp", "iss"]);
    }
    validation.validate_exp = true;
    validation.validate_nbf = true;
    validation.leeway = rules.leeway.as_secs();
    validation
}

/// jsonwebtoken's refusal, as the client is told it.
fn refusal(error: jsonwebtoken::errors::Error) -> Invalid {
    let description = match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet",
        ErrorKind::InvalidAudience => "the token is not for this resource",
        ErrorKind::InvalidIssuer => "the token is from another issuer",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => {
            "the token's algorithm is not accepted"
        }
        ErrorKind::MissingRequiredClaim(_) | ErrorKind::InvalidClaimFormat(_) => {
            "the token lacks a required claim"
        }
        _ => "the token is malformed",
    };
    Invalid::new(description, error.to_string())
}

/// Rule 5's `iat`: a token issued in the future is refused.
fn check_issued_at(claims: &Map<String, Value>, leeway: Duration) -> Result<(), Invalid> {
    let Some(iat) = claims.get("iat") else {
        return Ok(());
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    match iat.as_u64() {
        Some(iat) if iat <= now + leeway.as_secs() => Ok(()),
        Some(iat) => Err(Invalid::new(
            "the token was issued in the future",
            format!("iat {iat}, now {now}"),
        )),
        None => Err(Invalid::new(
            "the token lacks a required claim",
            "iat is not a number of seconds",
        )),
    }
}

/// The scopes a token grants: `scope`, space-separated, or else `scp`,
/// and every claim of `extra`; each a string of space-separated scopes or
/// an array of them.
pub(crate) fn scopes(claims: &Map<String, Value>, extra: &[String]) -> Scopes {
    let standard = if claims.get("scope").is_some_and(Value::is_string) {
        "scope"
    } else {
        "scp"
    };
    let names = std::iter::once(standard).chain(extra.iter().map(String::as_str));
    Scopes::from_iter(names.flat_map(|name| words(claims.get(name))))
}

/// The scopes of one claim's value.
fn words(value: Option<&Value>) -> Vec<String> {
    let split = |text: &str| {
        text.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    match value {
        Some(Value::String(text)) => split(text),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .flat_map(split)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let of = |value| scopes(&claims(value), &[]).to_string();
        assert_eq!(of(json!({"scope": "b a"})), "a b");
        assert_eq!(of(json!({"scp": "b a"})), "a b");
        assert_eq!(of(json!({"scp": ["b", "a"]})), "a b");
        assert_eq!(of(json!({"scope": "a", "scp": ["b"]})), "a");
        assert_eq!(of(json!({"scope": 7})), "");
        assert_eq!(of(json!({})), "");
        let roles = ["roles".to_owned()];
        let with_roles = scopes(
            &claims(json!({"scp": "a", "roles": ["Jobs.Build"]})),
            &roles,
        );
        assert_eq!(with_roles.to_string(), "Jobs.Build a");
    }

    #[test]
    fn a_token_issued_in_the_future_is_refused_past_the_leeway() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let leeway = Duration::from_secs(60);
        assert!(check_issued_at(&claims(json!({"iat": now + 30})), leeway).is_ok());
        assert!(check_issued_at(&claims(json!({"iat": now + 3600})), leeway).is_err());
        assert!(check_issued_at(&claims(json!({"iat": "yesterday"})), leeway).is_err());
        assert!(check_issued_at(&claims(json!({})), leeway).is_ok());
    }
}
