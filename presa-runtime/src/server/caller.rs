//! [`Caller`]: who is on the other end of a connection.

/// The authenticated identity behind a connection, supplied by the
/// transport. Tasks and `requestState` are bound to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The subject; `None` for an anonymous caller.
    pub subject: Option<String>,
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
        }
    }
}
