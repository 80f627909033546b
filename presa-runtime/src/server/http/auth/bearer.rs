//! [`BearerTokens`]: a fixed table of tokens.

use std::collections::HashMap;

use async_trait::async_trait;
use axum::http::request::Parts;
use sha2::{Digest, Sha256};

use super::authenticator::{Authenticator, Refusal, bearer_token};
use crate::server::caller::Caller;

/// Fixed bearer tokens, each standing for a subject and the scopes it
/// holds: for tests, and for servers whose tokens are issued out of band.
///
/// Tokens are kept and compared as SHA-256 digests, so neither memory nor
/// the time a lookup takes says anything about a valid token.
#[derive(Debug, Clone, Default)]
pub struct BearerTokens {
    callers: HashMap<[u8; 32], Caller>,
}

impl BearerTokens {
    /// No tokens yet: every request is refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Admits `Authorization: Bearer {token}` as `subject`, holding no
    /// scope.
    pub fn token(self, token: impl AsRef<str>, subject: impl Into<String>) -> Self {
        self.caller(token, Caller::subject(subject))
    }

    /// Admits `Authorization: Bearer {token}` as `caller`: a subject with
    /// the scopes it holds, `Caller::subject("alice").scopes(["jobs:build"])`.
    pub fn caller(mut self, token: impl AsRef<str>, caller: Caller) -> Self {
        self.callers.insert(digest(token.as_ref()), caller);
        self
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[async_trait]
impl Authenticator for BearerTokens {
    async fn authenticate(&self, request: &Parts) -> Result<Caller, Refusal> {
        let token = bearer_token(request)?.ok_or(Refusal::Unauthorized { scope: None })?;
        self.callers
            .get(&digest(token))
            .cloned()
            .ok_or(Refusal::InvalidToken {
                description: "the token is not valid",
            })
    }
}

#[cfg(test)]
mod tests {
    use axum::http::header::AUTHORIZATION;

    use super::*;

    fn parts(authorization: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder();
        if let Some(value) = authorization {
            request = request.header(AUTHORIZATION, value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[tokio::test]
    async fn bearer_tokens_map_to_subjects() {
        let tokens = BearerTokens::new().token("t-alice", "alice");
        let alice = tokens.authenticate(&parts(Some("Bearer t-alice"))).await;
        assert_eq!(alice, Ok(Caller::subject("alice")));
        let lower = tokens.authenticate(&parts(Some("bearer t-alice"))).await;
        assert_eq!(lower, Ok(Caller::subject("alice")));
        let scoped = BearerTokens::new().caller("t-bob", Caller::subject("bob").scopes(["a"]));
        let bob = scoped
            .authenticate(&parts(Some("Bearer t-bob")))
            .await
            .unwrap();
        assert!(bob.scopes.contains("a") && !bob.scopes.contains("b"));
        let absent = tokens.authenticate(&parts(None)).await;
        assert_eq!(absent, Err(Refusal::Unauthorized { scope: None }));
        for refused in [Some("Bearer nope"), Some("Basic t-alice"), Some("Bearer ")] {
            let outcome = tokens.authenticate(&parts(refused)).await;
            assert!(
                matches!(outcome, Err(Refusal::InvalidToken { .. })),
                "{refused:?}: {outcome:?}"
            );
        }
    }
}
