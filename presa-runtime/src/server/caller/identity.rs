//! [`Caller`]: the identity behind a request, supplied by the transport,
//! and who owns the tasks it creates.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::scopes::Scopes;

/// The identity behind a request, supplied by the transport.
///
/// ```
/// use presa_runtime::server::Caller;
///
/// // What a test gives an in-process connection to act as alice, holding
/// // one scope.
/// let alice = Caller::subject("alice").scopes(["jobs:build"]);
/// assert_eq!(alice.subject.as_deref(), Some("alice"));
/// assert!(alice.scopes.contains("jobs:build"));
/// assert!(!alice.scopes.contains("jobs:delete"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    /// The subject; `None` for an anonymous caller.
    pub subject: Option<String>,
    /// The authorization server that vouched for the subject, if one did.
    pub issuer: Option<Arc<str>>,
    /// The scopes the caller holds.
    pub scopes: Scopes,
    /// Every claim of the token that authenticated the caller; `None`
    /// without one.
    pub claims: Option<Arc<Map<String, Value>>>,
    /// The headers of the HTTP request, without its credentials; `None`
    /// off HTTP.
    #[cfg(feature = "http-server")]
    pub(crate) http_headers: Option<Arc<axum::http::HeaderMap>>,
    /// Who owns an anonymous caller's tasks, when its transport names
    /// one (a session the transport keeps, say). A caller with a subject
    /// owns its tasks by its principal and never takes this.
    pub(crate) task_owner: Option<Arc<str>>,
}

impl Default for Caller {
    fn default() -> Self {
        Caller::anonymous()
    }
}

impl Caller {
    /// An anonymous caller holding every scope: the peer of a transport
    /// that authenticates nobody because it is the process's own user, as
    /// on stdio and in-process. An HTTP authenticator that admits callers
    /// without credentials gives them [`Scopes::none`] instead.
    pub fn anonymous() -> Self {
        Caller {
            subject: None,
            issuer: None,
            scopes: Scopes::every(),
            claims: None,
            #[cfg(feature = "http-server")]
            http_headers: None,
            task_owner: None,
        }
    }

    /// A caller authenticated as `subject`, holding no scope until
    /// [`Caller::scopes`] gives it some.
    pub fn subject(subject: impl Into<String>) -> Self {
        Caller {
            subject: Some(subject.into()),
            scopes: Scopes::none(),
            ..Caller::anonymous()
        }
    }

    /// This caller, holding `scopes` (a list of names, or a [`Scopes`]).
    pub fn scopes(mut self, scopes: impl Into<ScopeList>) -> Self {
        self.scopes = scopes.into().0;
        self
    }

    /// This caller, vouched for by authorization server `issuer`.
    pub fn issuer(mut self, issuer: impl Into<Arc<str>>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// This caller, with the claims of the token that authenticated it.
    pub fn claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = Some(Arc::new(claims));
        self
    }

    /// This caller, come over HTTP with `headers`: the
    /// [`Headers`](crate::server::Headers) extractor's, less
    /// `Authorization`, `Cookie` and `Proxy-Authorization` (a tool gets
    /// the token's claims, never the token: MCP forbids passing it on).
    #[cfg(feature = "http-server")]
    pub fn http_headers(self, headers: axum::http::HeaderMap) -> Self {
        self.with_shared_headers(Arc::new(without_credentials(headers)))
    }

    /// This caller with `headers`, which the endpoint shares and has
    /// already taken the credentials out of.
    #[cfg(feature = "http-server")]
    pub(crate) fn with_shared_headers(mut self, headers: Arc<axum::http::HeaderMap>) -> Self {
        self.http_headers = Some(headers);
        self
    }

    /// The value of HTTP header `name` of the caller's request, when it
    /// came over HTTP with that header.
    pub(crate) fn http_header(&self, name: &str) -> Option<String> {
        #[cfg(feature = "http-server")]
        return self
            .http_headers
            .as_ref()?
            .get(name)?
            .to_str()
            .ok()
            .map(str::to_owned);
        #[cfg(not(feature = "http-server"))]
        {
            let _ = name;
            None
        }
    }

    /// Who the caller is to the server, issuer and subject together:
    /// `["issuer","subject"]` (JSON, so that no two pairs read alike), or
    /// the bare subject for a caller with no issuer; `None` when
    /// anonymous.
    pub(crate) fn principal(&self) -> Option<String> {
        let subject = self.subject.as_deref()?;
        Some(match &self.issuer {
            Some(issuer) => Value::from(vec![issuer.as_ref(), subject]).to_string(),
            None => subject.to_owned(),
        })
    }

    /// This caller, whose tasks `owner` owns while it is anonymous: a
    /// caller with a subject keeps owning its tasks by its principal.
    pub(crate) fn with_task_owner(&self, owner: Option<Arc<str>>) -> Caller {
        Caller {
            task_owner: owner.filter(|_| self.subject.is_none()),
            ..self.clone()
        }
    }

    /// Who owns the tasks this caller creates, as a task record keeps
    /// it: its principal, or, for an anonymous caller, the owner its
    /// transport named; `None` for an anonymous caller without one. Only
    /// a task's owner may read, answer or cancel it.
    pub(crate) fn task_owner(&self) -> Option<String> {
        match (self.principal(), &self.task_owner) {
            (Some(principal), _) => Some(principal),
            (None, owner) => owner.as_deref().map(str::to_owned),
        }
    }
}

/// What [`Caller::scopes`] takes: a [`Scopes`], or scope names.
pub struct ScopeList(Scopes);

impl From<Scopes> for ScopeList {
    fn from(scopes: Scopes) -> Self {
        ScopeList(scopes)
    }
}

impl<S: Into<String>, const N: usize> From<[S; N]> for ScopeList {
    fn from(scopes: [S; N]) -> Self {
        ScopeList(Scopes::from_iter(scopes))
    }
}

impl<S: Into<String>> From<Vec<S>> for ScopeList {
    fn from(scopes: Vec<S>) -> Self {
        ScopeList(Scopes::from_iter(scopes))
    }
}

/// `headers` without the ones that carry credentials, which no handler
/// sees.
#[cfg(feature = "http-server")]
pub(crate) fn without_credentials(mut headers: axum::http::HeaderMap) -> axum::http::HeaderMap {
    use axum::http::header::{AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION};
    for credential in [AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION] {
        headers.remove(credential);
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_anonymous_callers_take_the_transports_task_owner() {
        let owned = |owner: &str| Caller::anonymous().with_task_owner(Some(Arc::from(owner)));
        assert_eq!(owned("s1").subject, None);
        assert_eq!(owned("s1").task_owner().as_deref(), Some("s1"));
        assert_ne!(owned("s1").task_owner(), owned("s2").task_owner());
        assert_eq!(Caller::anonymous().task_owner(), None);
        let alice = Caller::subject("alice").with_task_owner(Some(Arc::from("s1")));
        assert_eq!(alice.task_owner().as_deref(), Some("alice"));
    }

    #[test]
    fn two_issuers_subjects_are_two_owners() {
        let first = Caller::subject("alice").issuer("https://a.example");
        let second = Caller::subject("alice").issuer("https://b.example");
        let bare = Caller::subject("alice");
        assert_ne!(first.task_owner(), second.task_owner());
        assert_ne!(first.task_owner(), bare.task_owner());
        // A space or a quote in either part cannot make two pairs alike.
        let spaced = Caller::subject("b c").issuer("a");
        let shifted = Caller::subject("c").issuer("a b");
        assert_ne!(spaced.principal(), shifted.principal());
    }

    #[test]
    fn a_transport_without_credentials_trusts_its_peer_with_every_scope() {
        assert!(Caller::anonymous().scopes.is_every());
        assert!(!Caller::subject("alice").scopes.contains("x"));
        let alice = Caller::subject("alice").scopes(vec!["x"]);
        assert!(alice.scopes.contains("x"));
    }
}
