//! The one-time values of an authorization request: the PKCE verifier
//! and its S256 challenge (RFC 7636), and `state`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::util::random_id;

/// A PKCE pair: the verifier, kept for the token request, and its
/// challenge, sent with the authorization request.
pub(crate) struct Pkce {
    pub verifier: SecretString,
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair: 32 random bytes (43 characters, RFC 7636 section
    /// 4.1's minimum and its recommendation), challenged by S256.
    pub fn new() -> Pkce {
        let verifier = random_id::<32>();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Pkce {
            verifier: SecretString::from(verifier),
            challenge,
        }
    }

    /// The verifier, for the token request.
    pub fn verifier(&self) -> &str {
        self.verifier.expose_secret()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_the_verifiers_s256() {
        let pkce = Pkce::new();
        assert_eq!(pkce.verifier().len(), 43);
        let expected = URL_SAFE_NO_PAD.encode(Sha256::digest(pkce.verifier().as_bytes()));
        assert_eq!(pkce.challenge, expected);
        assert_ne!(Pkce::new().verifier(), pkce.verifier());
    }

    #[test]
    fn rfc_7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        assert_eq!(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    }
}
