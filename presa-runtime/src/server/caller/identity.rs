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
    /// The legacy session an anonymous caller speaks in.
    session: Option<Arc<str>>,
}

/// Who owns a task: only its owner may read, answer or cancel it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TaskOwner {
    /// A caller's principal (see `Caller::principal`).
    Principal(String),
    /// An anonymous caller's legacy session, by its id: a random one, which
    /// no subject takes by chance.
    LegacySession(Arc<str>),
}

impl TaskOwner {
    /// The owner as a task record keeps it.
    pub(crate) fn stored(&self) -> String {
        match self {
            TaskOwner::Principal(principal) => principal.clone(),
            TaskOwner::LegacySession(id) => format!("legacy session {id}"),
        }
    }
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
            session: None,
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

    /// This caller in legacy session `id`: an anonymous one's tasks belong
    /// to the session from now on.
    pub(crate) fn in_session(&self, id: &str) -> Caller {
        Caller {
            session: self.subject.is_none().then(|| Arc::from(id)),
            ..self.clone()
        }
    }

    /// This request's caller (its scopes, claims and headers, fresh) in
    /// the legacy session `session` speaks for, whose principal it shares:
    /// it owns the tasks the session's caller owns.
    pub(crate) fn in_session_of(&self, session: &Caller) -> Caller {
        Caller {
            session: session.session.clone(),
            ..self.clone()
        }
    }

    /// Who owns the tasks this caller creates: its principal, or, for an
    /// anonymous caller in a legacy session, the session.
    pub(crate) fn owner(&self) -> Option<TaskOwner> {
        match (self.principal(), &self.session) {
            (Some(principal), _) => Some(TaskOwner::Principal(principal)),
            (None, Some(session)) => Some(TaskOwner::LegacySession(Arc::clone(session))),
            (None, None) => None,
        }
    }

    /// [`Caller::owner`] as a task record keeps it.
    pub(crate) fn task_owner(&self) -> Option<String> {
        self.owner().as_ref().map(TaskOwner::stored)
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
    fn only_anonymous_callers_take_their_session_as_task_owner() {
        assert_eq!(Caller::anonymous().in_session("s1").subject, None);
        assert_ne!(
            Caller::anonymous().in_session("s1").task_owner(),
            Caller::anonymous().in_session("s2").task_owner()
        );
        assert_eq!(Caller::anonymous().task_owner(), None);
        let alice = Caller::subject("alice").in_session("s1");
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
