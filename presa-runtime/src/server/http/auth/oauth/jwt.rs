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
//!    `client_id` is one of them. An `aud` of `null` is no audience, and
//!    refused;
//! 5. `exp` is present and not past, `nbf` is not to come, and `iat` is
//!    not in the future, each within the leeway;
//! 6. the subject claim (`sub` unless configured) is a string;
//! 7. the token is an access token, not another token the issuer signs
//!    with the same keys, whatever its `aud` says (the markers are on
//!    `check_access_token`): an OpenID Connect ID token, a Keycloak
//!    refresh or logout token, a security event token.
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
    check_audience(&claims, rules)?;
    check_access_token(&claims)?;
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

/// Rule 4 where jsonwebtoken does not hold `aud` to the audiences: an
/// `aud` of `null` (which it reads as absent) is refused, and a token
/// without `aud` must name a `client_id` configured.
fn check_audience(claims: &Map<String, Value>, rules: &TokenRules) -> Result<(), Invalid> {
    match claims.get("aud") {
        Some(Value::Null) => {
            return Err(Invalid::new(
                "the token lacks a required claim",
                "aud is null",
            ));
        }
        Some(_) => return Ok(()),
        None => {}
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

/// The values of a Keycloak token's `typ` claim for tokens that are not
/// access tokens (its access tokens say `Bearer`, or `DPoP`).
const KEYCLOAK_OTHER_TYPES: [&str; 5] = ["ID", "Refresh", "Offline", "Logout", "Serialized-ID"];

/// The claims OpenID Connect puts in ID tokens only: hashes of the access
/// token, the code and the state issued beside them.
const ID_TOKEN_HASHES: [&str; 3] = ["at_hash", "c_hash", "s_hash"];

/// Rule 7: a token the issuer signed for another use is refused, even when
/// its `aud` names this resource (an ID token's `aud` is the client it was
/// issued to, and that client may be an audience configured here). A token
/// is taken for one of those when, in this order:
///
/// 1. its `token_use` is not `access` (Amazon Cognito writes `id` in its ID
///    tokens);
/// 2. its `typ` claim is one Keycloak gives tokens other than access tokens
///    (`ID`, `Refresh`, `Offline`, `Logout`, `Serialized-ID`);
/// 3. it carries `at_hash`, `c_hash` or `s_hash`, which only ID tokens
///    carry;
/// 4. it carries `nonce`, which OpenID Connect passes to ID tokens, unless
///    its `typ` claim is Keycloak's `Bearer` or `DPoP` (Keycloak's "nonce
///    backwards compatible" mapper copies the nonce into access tokens);
/// 5. it has Entra ID's `tid` and a `ver` of `1.0` or `2.0`, but neither
///    `appid` (v1.0) nor `azp` (v2.0): Entra ID names the client in every
///    access token and in no ID token;
/// 6. it carries `events`: a security event token (RFC 8417), such as an
///    OpenID Connect logout token.
///
/// The header's `typ` (rule 1) already refuses what is typed as something
/// else. Claims of another type than these rules expect count as present.
fn check_access_token(claims: &Map<String, Value>) -> Result<(), Invalid> {
    let refuse = |cause: String| Err(Invalid::new("the token is not an access token", cause));
    if let Some(token_use) = claims.get("token_use")
        && token_use.as_str() != Some("access")
    {
        return refuse(format!("token_use {token_use}"));
    }
    let typ = claims.get("typ").and_then(Value::as_str);
    let is =
        |names: &[&str]| typ.is_some_and(|typ| names.iter().any(|n| typ.eq_ignore_ascii_case(n)));
    if is(&KEYCLOAK_OTHER_TYPES) {
        return refuse(format!("typ claim {typ:?}"));
    }
    if let Some(hash) = ID_TOKEN_HASHES
        .iter()
        .find(|hash| claims.contains_key(**hash))
    {
        return refuse(format!("an ID token's {hash}"));
    }
    if claims.contains_key("nonce") && !is(&["Bearer", "DPoP"]) {
        return refuse("an ID token's nonce".into());
    }
    let entra = claims.contains_key("tid")
        && matches!(
            claims.get("ver").and_then(Value::as_str),
            Some("1.0" | "2.0")
        );
    if entra && !claims.contains_key("appid") && !claims.contains_key("azp") {
        return refuse("Entra ID's tid and ver, but neither appid nor azp".into());
    }
    if claims.contains_key("events") {
        return refuse("a security event token's events".into());
    }
    Ok(())
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
    fn an_audience_of_null_is_no_audience() {
        let rules = |client_ids: &[&str]| TokenRules {
            issuer: "https://as.example".into(),
            audiences: HashSet::from(["https://mcp.example/mcp".to_owned()]),
            leeway: Duration::from_secs(60),
            subject_claim: "sub".into(),
            hmac: None,
            scope_claims: Vec::new(),
            client_ids: client_ids.iter().map(|c| c.to_string()).collect(),
        };
        let cognito = rules(&["app-client"]);
        let refused = check_audience(
            &claims(json!({"aud": null, "client_id": "app-client"})),
            &cognito,
        );
        assert_eq!(
            refused.unwrap_err().description,
            "the token lacks a required claim"
        );
        assert!(check_audience(&claims(json!({"aud": null})), &rules(&[])).is_err());
        // Without `aud`, the client must be one configured.
        assert!(check_audience(&claims(json!({"client_id": "app-client"})), &cognito).is_ok());
        assert!(check_audience(&claims(json!({"client_id": "other"})), &cognito).is_err());
        assert!(check_audience(&claims(json!({})), &cognito).is_err());
        // A present `aud` is jsonwebtoken's to hold to the audiences.
        assert!(check_audience(&claims(json!({"aud": "x"})), &cognito).is_ok());
    }

    /// Access tokens as each provider of docs/oauth.md writes them (the
    /// registered claims and those rule 7 reads), and the ID tokens that
    /// the same provider signs with the same keys.
    fn provider_tokens() -> Vec<(&'static str, Value, Value)> {
        vec![
            (
                "Auth0",
                json!({"iss": "https://t.auth0.com/", "sub": "auth0|1", "aud": ["https://mcp.example/mcp", "https://t.auth0.com/userinfo"],
                       "azp": "client", "scope": "openid jobs:read", "iat": 1, "exp": 2}),
                json!({"iss": "https://t.auth0.com/", "sub": "auth0|1", "aud": "client", "name": "A", "sid": "s",
                       "nonce": "n", "iat": 1, "exp": 2}),
            ),
            (
                "Auth0 (RFC 9068 profile)",
                json!({"iss": "https://t.auth0.com/", "sub": "auth0|1", "aud": "https://mcp.example/mcp", "client_id": "client",
                       "jti": "j", "scope": "jobs:read", "iat": 1, "exp": 2}),
                json!({"iss": "https://t.auth0.com/", "sub": "auth0|1", "aud": "client", "at_hash": "h", "iat": 1, "exp": 2}),
            ),
            (
                "Okta",
                json!({"ver": 1, "jti": "AT.x", "iss": "https://o.okta.com/oauth2/default", "aud": "api://default", "sub": "a@b",
                       "cid": "client", "uid": "u", "scp": ["jobs:read"], "auth_time": 1, "iat": 1, "exp": 2}),
                json!({"ver": 1, "jti": "ID.x", "iss": "https://o.okta.com/oauth2/default", "aud": "client", "sub": "u",
                       "amr": ["pwd"], "idp": "i", "auth_time": 1, "at_hash": "h", "iat": 1, "exp": 2}),
            ),
            (
                "Entra ID v2.0",
                json!({"aud": "6e74172b-be56-4843-9ff4-e66a39bb12e3", "iss": "https://login.microsoftonline.com/t/v2.0",
                       "azp": "client", "azpacr": "0", "scp": "jobs.read", "oid": "o", "sub": "s", "tid": "t", "uti": "u",
                       "ver": "2.0", "aio": "a", "rh": "r", "iat": 1, "nbf": 1, "exp": 2}),
                json!({"aud": "6e74172b-be56-4843-9ff4-e66a39bb12e3", "iss": "https://login.microsoftonline.com/t/v2.0",
                       "oid": "o", "sub": "s", "tid": "t", "uti": "u", "ver": "2.0", "roles": ["Jobs.Admin"], "aio": "a",
                       "rh": "r", "preferred_username": "a@b", "iat": 1, "nbf": 1, "exp": 2}),
            ),
            (
                "Entra ID v1.0, app-only",
                json!({"aud": "api://jobs", "iss": "https://sts.windows.net/t/", "appid": "client", "appidacr": "1",
                       "roles": ["Jobs.Build"], "oid": "o", "sub": "s", "tid": "t", "ver": "1.0", "iat": 1, "exp": 2}),
                json!({"aud": "api://jobs", "iss": "https://sts.windows.net/t/", "amr": ["pwd"], "oid": "o", "sub": "s",
                       "tid": "t", "unique_name": "a@b", "ver": "1.0", "iat": 1, "exp": 2}),
            ),
            (
                "Keycloak, its nonce copied into access tokens",
                json!({"iss": "https://kc/realms/r", "aud": "jobs", "sub": "s", "typ": "Bearer", "azp": "client",
                       "nonce": "n", "session_state": "x", "scope": "openid jobs:read", "sid": "x", "iat": 1, "exp": 2}),
                json!({"iss": "https://kc/realms/r", "aud": "jobs", "sub": "s", "typ": "ID", "azp": "jobs",
                       "session_state": "x", "sid": "x", "iat": 1, "exp": 2}),
            ),
            (
                "Amazon Cognito",
                json!({"iss": "https://cognito-idp.eu-west-1.amazonaws.com/p", "sub": "s", "client_id": "client",
                       "token_use": "access", "scope": "jobs/read", "origin_jti": "o", "event_id": "e", "username": "u",
                       "auth_time": 1, "jti": "j", "iat": 1, "exp": 2}),
                json!({"iss": "https://cognito-idp.eu-west-1.amazonaws.com/p", "sub": "s", "aud": "client",
                       "token_use": "id", "cognito:username": "u", "email": "a@b", "auth_time": 1, "iat": 1, "exp": 2}),
            ),
            (
                "oidc-provider",
                json!({"iss": "https://as.example", "sub": "s", "aud": "https://mcp.example/mcp", "client_id": "client",
                       "scope": "jobs:read", "jti": "j", "iat": 1, "exp": 2}),
                json!({"iss": "https://as.example", "sub": "s", "aud": "client", "at_hash": "h", "sid": "x",
                       "auth_time": 1, "iat": 1, "exp": 2}),
            ),
        ]
    }

    #[test]
    fn each_providers_access_tokens_pass_and_its_id_tokens_do_not() {
        for (provider, access, id) in provider_tokens() {
            assert_eq!(check_access_token(&claims(access)), Ok(()), "{provider}");
            let refused = check_access_token(&claims(id)).expect_err(provider);
            assert_eq!(refused.description, "the token is not an access token");
        }
    }

    #[test]
    fn each_marker_of_another_token_refuses_it() {
        let base = json!({"iss": "https://as.example", "sub": "s", "aud": "a", "iat": 1, "exp": 2});
        let with = |extra: Value| {
            let mut token = claims(base.clone());
            token.extend(claims(extra));
            check_access_token(&token)
        };
        assert!(with(json!({})).is_ok());
        let refused = [
            json!({"token_use": "id"}),
            json!({"token_use": 7}),
            json!({"typ": "ID"}),
            json!({"typ": "refresh"}),
            json!({"typ": "Offline"}),
            json!({"typ": "Logout"}),
            json!({"typ": "Serialized-ID"}),
            json!({"at_hash": "h"}),
            json!({"c_hash": "h"}),
            json!({"s_hash": "h"}),
            json!({"nonce": "n"}),
            json!({"nonce": "n", "typ": "Refresh"}),
            json!({"at_hash": "h", "typ": "Bearer"}),
            json!({"tid": "t", "ver": "2.0"}),
            json!({"tid": "t", "ver": "1.0", "scp": "a"}),
            json!({"events": {"http://schemas.openid.net/event/backchannel-logout": {}}}),
        ];
        for extra in refused {
            assert!(with(extra.clone()).is_err(), "{extra}");
        }
        let accepted = [
            json!({"token_use": "access"}),
            json!({"typ": "Bearer", "nonce": "n"}),
            json!({"typ": "dpop", "nonce": "n"}),
            json!({"tid": "t", "ver": "2.0", "azp": "c"}),
            json!({"tid": "t", "ver": "1.0", "appid": "c"}),
            json!({"ver": "2.0"}),
            json!({"tid": "t", "ver": 1}),
            json!({"auth_time": 1, "acr": "1", "amr": ["pwd"], "azp": "c", "sid": "s"}),
        ];
        for extra in accepted {
            assert_eq!(with(extra.clone()), Ok(()), "{extra}");
        }
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
