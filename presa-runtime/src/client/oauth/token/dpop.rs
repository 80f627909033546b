//! DPoP (RFC 9449; the MCP DPoP extension): tokens bound to a key the
//! client holds, so that a stolen token is useless without it.
//!
//! 1. the session makes one P-256 key when it starts and signs every
//!    proof with it (ES256), its public half in the proof's `jwk`. The
//!    key is kept in the token store with the tokens bound to it, and a
//!    session that finds tokens there takes their key back, so that a
//!    process that starts again can use them;
//! 2. each request carries a fresh proof: `jti` new, `htm` its method,
//!    `htu` its URL without query or fragment, `iat` now; a request to
//!    the resource also `ath`, the token's SHA-256, and sends the token
//!    as `Authorization: DPoP …`;
//! 3. a server that answers `use_dpop_nonce` (the token endpoint's `400`,
//!    the resource's `401`) with a `DPoP-Nonce` has the nonce put in the
//!    proofs to it from then on, and the request sent again once with a
//!    new proof; the resource's nonce challenge never signs in again.

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use secrecy::{ExposeSecret, SecretString};
use serde_json::json;

use crate::client::oauth::error::{OAuthError, Step};
use crate::oauth::dpop::{access_token_hash, target_uri};
use crate::util::{lock, random_id, try_random_bytes};

/// The header a server sends its nonce in.
pub(crate) const NONCE_HEADER: &str = "dpop-nonce";

/// One session's DPoP key, and the nonces servers gave it.
pub(crate) struct Dpop {
    key: EncodingKey,
    jwk: Jwk,
    /// The private key as PKCS#8 DER in base64, for the token store.
    pkcs8: SecretString,
    /// The authorization server's nonce, and the resource's.
    nonces: Mutex<Nonces>,
}

#[derive(Default)]
struct Nonces {
    authorization_server: Option<String>,
    resource: Option<String>,
}

/// Whose nonce.
#[derive(Clone, Copy)]
pub(crate) enum Party {
    AuthorizationServer,
    Resource,
}

impl Dpop {
    /// A fresh key (rule 1).
    pub fn new() -> Result<Dpop, OAuthError> {
        let failed = |e: String| OAuthError::new(Step::Token, format!("no DPoP key: {e}"));
        let secret = loop {
            let bytes = try_random_bytes::<32>().map_err(|e| failed(e.to_string()))?;
            // All but a 2^-128 sliver of 32-byte strings are P-256 scalars.
            if let Ok(secret) = p256::SecretKey::from_slice(&bytes) {
                break secret;
            }
        };
        Dpop::of(&secret).map_err(failed)
    }

    /// The key a token store kept ([`Dpop::pkcs8`]); an error for text
    /// that is no P-256 key.
    pub fn from_pkcs8(pkcs8: &SecretString) -> Result<Dpop, String> {
        let der = STANDARD
            .decode(pkcs8.expose_secret())
            .map_err(|e| format!("the kept DPoP key is not base64: {e}"))?;
        let secret = p256::SecretKey::from_pkcs8_der(&der)
            .map_err(|e| format!("the kept DPoP key is no P-256 key: {e}"))?;
        Dpop::of(&secret)
    }

    /// The session of `secret`, with no nonce yet.
    fn of(secret: &p256::SecretKey) -> Result<Dpop, String> {
        let der = secret.to_pkcs8_der().map_err(|e| e.to_string())?;
        let key = EncodingKey::from_ec_der(der.as_bytes());
        let jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).map_err(|e| e.to_string())?;
        Ok(Dpop {
            key,
            jwk,
            pkcs8: SecretString::from(STANDARD.encode(der.as_bytes())),
            nonces: Mutex::default(),
        })
    }

    /// The private key, for the token store to keep with the tokens bound
    /// to it.
    pub fn pkcs8(&self) -> SecretString {
        self.pkcs8.clone()
    }

    /// A proof for `method` on `url` (rule 2), for `access_token` when the
    /// request carries one.
    pub fn proof(
        &self,
        party: Party,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, OAuthError> {
        let htu = target_uri(url);
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut claims = json!({"jti": random_id::<16>(), "htm": method, "htu": htu, "iat": iat});
        if let Some(token) = access_token {
            claims["ath"] = access_token_hash(token).into();
        }
        if let Some(nonce) = self.nonce(party) {
            claims["nonce"] = nonce.into();
        }
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(self.jwk.clone());
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| OAuthError::new(Step::Token, format!("signing a DPoP proof failed: {e}")))
    }

    fn nonce(&self, party: Party) -> Option<String> {
        let nonces = lock(&self.nonces);
        match party {
            Party::AuthorizationServer => nonces.authorization_server.clone(),
            Party::Resource => nonces.resource.clone(),
        }
    }

    /// Takes the nonce `party` sent (rule 3); whether it is a new one, so
    /// that a request is sent again only for a nonce it did not carry.
    pub fn learn_nonce(&self, party: Party, nonce: &str) -> bool {
        let mut nonces = lock(&self.nonces);
        let slot = match party {
            Party::AuthorizationServer => &mut nonces.authorization_server,
            Party::Resource => &mut nonces.resource,
        };
        let new = slot.as_deref() != Some(nonce);
        *slot = Some(nonce.to_owned());
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation, decode, decode_header};

    #[test]
    fn a_proof_is_signed_by_the_key_it_names_and_binds_the_request_and_token() {
        let dpop = Dpop::new().unwrap();
        let proof = dpop
            .proof(
                Party::Resource,
                "POST",
                "https://mcp.example.com/mcp?x=1#f",
                Some("tok"),
            )
            .unwrap();
        let header = decode_header(&proof).unwrap();
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        let jwk = header.jwk.unwrap();
        let key = DecodingKey::from_jwk(&jwk).unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = decode::<serde_json::Value>(&proof, &key, &validation)
            .unwrap()
            .claims;
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["ath"], access_token_hash("tok"));
        assert!(claims.get("nonce").is_none());
        let again = dpop
            .proof(Party::Resource, "POST", "https://mcp.example.com/mcp", None)
            .unwrap();
        let claims_again = decode::<serde_json::Value>(&again, &key, &validation)
            .unwrap()
            .claims;
        assert_ne!(claims["jti"], claims_again["jti"]);
        assert!(claims_again.get("ath").is_none());
    }

    #[test]
    fn each_party_has_its_own_nonce() {
        let dpop = Dpop::new().unwrap();
        assert!(dpop.learn_nonce(Party::Resource, "rs-1"));
        assert!(!dpop.learn_nonce(Party::Resource, "rs-1"));
        assert_eq!(dpop.nonce(Party::Resource).as_deref(), Some("rs-1"));
        assert_eq!(dpop.nonce(Party::AuthorizationServer), None);
    }
}
