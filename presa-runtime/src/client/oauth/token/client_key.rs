//! [`ClientKey`]: the private key a confidential client authenticates
//! with by `private_key_jwt` (RFC 7523 section 2.2, OpenID Connect Core
//! section 9), and the assertions it signs.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

use crate::client::oauth::error::{OAuthError, Step};
use crate::util::random_id;

/// How long an assertion is valid: long enough to reach the token
/// endpoint, short enough that a stolen one is soon useless.
const ASSERTION_LIFETIME_S: u64 = 60;

/// A client's private signing key, for `private_key_jwt`. Its `Debug`
/// shows the algorithm only.
#[derive(Clone)]
pub struct ClientKey {
    encoding: EncodingKey,
    algorithm: Algorithm,
    kid: Option<String>,
}

impl ClientKey {
    /// A P-256 key (PKCS#8 PEM), signing ES256.
    pub fn es256_pem(pem: &str) -> Result<Self, OAuthError> {
        Self::from(EncodingKey::from_ec_pem(pem.as_bytes()), Algorithm::ES256)
    }

    /// An RSA key (PKCS#1 or PKCS#8 PEM), signing RS256.
    pub fn rs256_pem(pem: &str) -> Result<Self, OAuthError> {
        Self::from(EncodingKey::from_rsa_pem(pem.as_bytes()), Algorithm::RS256)
    }

    /// This key, named `kid` in the assertions' headers (when the
    /// authorization server holds several of the client's keys).
    pub fn kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = Some(kid.into());
        self
    }

    fn from(
        encoding: jsonwebtoken::errors::Result<EncodingKey>,
        algorithm: Algorithm,
    ) -> Result<Self, OAuthError> {
        let encoding = encoding.map_err(|e| {
            OAuthError::new(
                Step::Token,
                format!("the client's {algorithm:?} key cannot be read: {e}"),
            )
        })?;
        Ok(ClientKey {
            encoding,
            algorithm,
            kid: None,
        })
    }

    /// An assertion that `client_id` is asking `audience` (the
    /// authorization server's issuer): `iss` and `sub` the client, a
    /// one-minute `exp`, a fresh `jti`.
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, OAuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_S,
            "jti": random_id::<16>(),
        });
        let mut header = Header::new(self.algorithm);
        header.kid = self.kid.clone();
        jsonwebtoken::encode(&header, &claims, &self.encoding).map_err(|e| {
            OAuthError::new(
                Step::Token,
                format!("signing the client assertion failed: {e}"),
            )
        })
    }
}

impl fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientKey")
            .field("algorithm", &self.algorithm)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation, decode};

    #[test]
    fn an_assertion_names_the_client_and_the_issuer_and_verifies_with_its_key() {
        let key = ClientKey::es256_pem(include_str!("../../../../tests/keys/p256.pem"))
            .unwrap()
            .kid("client-key-1");
        let assertion = key.assertion("my-client", "https://as.example").unwrap();
        let public =
            DecodingKey::from_ec_pem(include_bytes!("../../../../tests/keys/p256.pub.pem"))
                .unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_audience(&["https://as.example"]);
        validation.set_issuer(&["my-client"]);
        let decoded = decode::<serde_json::Value>(&assertion, &public, &validation).unwrap();
        assert_eq!(decoded.header.kid.as_deref(), Some("client-key-1"));
        let claims = decoded.claims;
        assert_eq!(claims["sub"], "my-client");
        let lifetime = claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap();
        assert_eq!(lifetime, ASSERTION_LIFETIME_S);
        let again = key.assertion("my-client", "https://as.example").unwrap();
        let jti = |token: &str| {
            decode::<serde_json::Value>(token, &public, &validation)
                .unwrap()
                .claims["jti"]
                .clone()
        };
        assert_ne!(jti(&assertion), jti(&again));
    }

    #[test]
    fn a_key_that_is_not_one_says_so_and_debug_shows_no_key() {
        let error = ClientKey::es256_pem("not a key").unwrap_err().to_string();
        assert!(
            error.contains("the client's ES256 key cannot be read"),
            "{error}"
        );
        let key = ClientKey::rs256_pem(include_str!("../../../../tests/keys/rsa1.pem")).unwrap();
        assert_eq!(
            format!("{key:?}"),
            "ClientKey { algorithm: RS256, kid: None, .. }"
        );
    }
}
