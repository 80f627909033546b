//! [`Caller`]: who is on the other end of a connection.

use std::sync::Arc;

/// The authenticated identity behind a connection, supplied by the
/// transport. Tasks and `requestState` are bound to it.
///
/// In a legacy session, an anonymous caller's tasks are bound to the
/// session instead, so that two anonymous sessions cannot see each other's
/// tasks; the handlers still see no subject.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The subject; `None` for an anonymous caller.
    pub subject: Option<String>,
    /// The legacy session an anonymous caller speaks in.
    session: Option<Arc<str>>,
}

impl Caller {
    /// An anonymous caller.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A caller authenticated as `subject`.
    pub fn subject(subject: impl Into<String>) -> Self {
        Caller {
            subject: Some(subject.into()),
            session: None,
        }
    }

    /// This caller in legacy session `id`: an anonymous one's tasks belong
    /// to the session from now on.
    pub(crate) fn in_session(&self, id: &str) -> Caller {
        Caller {
            subject: self.subject.clone(),
            session: self.subject.is_none().then(|| Arc::from(id)),
        }
    }

    /// Who owns the tasks this caller creates: its subject, or, for an
    /// anonymous caller in a legacy session, the session (a random id no
    /// subject can take by chance).
    pub(crate) fn task_owner(&self) -> Option<String> {
        match (&self.subject, &self.session) {
            (Some(subject), _) => Some(subject.clone()),
            (None, Some(session)) => Some(format!("legacy session {session}")),
            (None, None) => None,
        }
    }
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
}
