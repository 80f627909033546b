//! Random values from the operating system's CSPRNG: keys, ids, nonces.
//!
//! Every random value in the crate comes from here, so there is one place
//! to read what the source is and what happens when it fails.
//!
//! 1. The source is the operating system's (through `getrandom`): no
//!    seeded generator lives in the process.
//! 2. [`try_random_bytes`] reports a failing source, for a caller that
//!    has an error to return. The others panic: with no randomness, a
//!    key or id would be guessable, and nothing safe can go on.
//! 3. Text is base64url without padding: safe in URLs, HTTP headers and
//!    JSON strings, with no escaping.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// `N` random bytes, or the source's error (rule 2).
pub(crate) fn try_random_bytes<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)?;
    Ok(bytes)
}

/// `N` random bytes: a key.
///
/// # Panics
///
/// If the operating system gives no random bytes (rule 2).
pub(crate) fn random_bytes<const N: usize>() -> [u8; N] {
    try_random_bytes().expect("the operating system gives random bytes")
}

/// `N` random bytes as base64url without padding (rule 3): an
/// unguessable id, nonce or verifier of `ceil(4N/3)` characters.
///
/// # Panics
///
/// If the operating system gives no random bytes (rule 2).
pub(crate) fn random_id<const N: usize>() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes::<N>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_base64url_without_padding_of_its_bytes() {
        let id = random_id::<32>();
        assert_eq!(id.len(), 43);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(URL_SAFE_NO_PAD.decode(&id).unwrap().len(), 32);
        assert_eq!(random_id::<16>().len(), 22);
        assert_eq!(random_id::<18>().len(), 24);
    }

    #[test]
    fn two_draws_differ() {
        assert_ne!(random_bytes::<32>(), random_bytes::<32>());
        assert_ne!(random_id::<12>(), random_id::<12>());
    }
}
