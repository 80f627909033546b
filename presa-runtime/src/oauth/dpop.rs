//! What both sides of DPoP (RFC 9449) compute the same way, so that a
//! proof the client makes is the proof the server checks:
//!
//! 1. `ath`, which binds a proof to one access token: the token's SHA-256,
//!    base64url without padding (RFC 9449 section 4.2);
//! 2. `htu`, which binds a proof to one URL: the URL without its query
//!    and fragment (RFC 9449 section 4.2);
//! 3. the key's thumbprint, which binds a token to the proof's key: the
//!    JWK's SHA-256 thumbprint (RFC 7638), which an authorization server
//!    writes in the token's `cnf.jkt` (RFC 9449 section 6).
//!
//! The client (`client::oauth`) writes the first two into its proofs; the
//! resource server (`server::http::OAuth`) checks all three.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use sha2::{Digest, Sha256};

/// Rule 1: the `ath` of a proof sent with `access_token`.
pub(crate) fn access_token_hash(access_token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(access_token.as_bytes()))
}

/// Rule 2: the `htu` of a proof for a request to `url`.
pub(crate) fn target_uri(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

/// Rule 3: `jwk`'s SHA-256 thumbprint, base64url without padding; `None`
/// for a key type that has none (RFC 7638 defines it for RSA, EC, OKP and
/// symmetric keys).
// The client writes no thumbprint: its authorization server computes the
// binding from the proof's key.
#[cfg_attr(not(feature = "oauth"), allow(dead_code))]
pub(crate) fn jwk_thumbprint(jwk: &Jwk) -> Option<String> {
    jwk.thumbprint(ThumbprintHash::SHA256).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 7638 section 3.1: the key of RFC 7517 appendix A.1, whose
        // `alg` and `kid` take no part.
        let jwk: Jwk = serde_json::from_value(serde_json::json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        }))
        .unwrap();
        assert_eq!(
            jwk_thumbprint(&jwk).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
    }

    #[test]
    fn the_target_uri_drops_query_and_fragment() {
        assert_eq!(
            target_uri("https://mcp.example.com/mcp?x=1#f"),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            target_uri("https://mcp.example.com/mcp#f?x"),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            target_uri("https://mcp.example.com/mcp"),
            "https://mcp.example.com/mcp"
        );
    }

    #[test]
    fn ath_is_rfc_9449s() {
        // RFC 9449 section 7.1: the example's token and its `ath`.
        assert_eq!(
            access_token_hash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }
}
