//! The error a link makes for a request it could not complete, and how the
//! client reads it back.
//!
//! A link (Streamable HTTP today) turns whatever goes wrong on its way into
//! an error response to the request, so that no call waits forever. Era
//! detection must still tell two kinds of failure apart, and the session
//! layer a third:
//!
//! - the server answered, with an HTTP status and no JSON-RPC error (a
//!   `400` from a legacy server, say): an answer about the server;
//! - the server could not be reached, or broke off: nothing learnt;
//! - the server no longer knows the session the request named (`404` on a
//!   legacy session): the session must be opened anew.
//!
//! So the error carries `data.transport`, plus `data.status` when a status
//! came back and `data.sessionExpired` for the third case. Its message is
//! what the user reads.

use serde_json::{Map, Value};

use crate::wire::{ErrorObject, codes};

/// What a link reports of a request it could not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct LinkFailure {
    /// The HTTP status that came back, if one did.
    pub status: Option<u16>,
    /// The server no longer knows the session the request named.
    pub session_expired: bool,
}

impl LinkFailure {
    /// The error response's `error` for this failure, with `reason` as the
    /// message after the name of the `transport`. Only links make it, and
    /// a build without HTTP has none.
    #[cfg_attr(not(feature = "http-client"), allow(dead_code))]
    pub fn to_error(self, transport: &str, reason: &str) -> ErrorObject {
        let mut data = Map::new();
        data.insert("transport".into(), transport.into());
        if let Some(status) = self.status {
            data.insert("status".into(), status.into());
        }
        if self.session_expired {
            data.insert("sessionExpired".into(), true.into());
        }
        let message = format!("{} transport: {reason}", transport.to_uppercase());
        ErrorObject::new(codes::INTERNAL_ERROR, message).with_data(Value::Object(data))
    }

    /// The failure `error` reports, when a link made it.
    pub fn read(error: &ErrorObject) -> Option<LinkFailure> {
        let data = error.data.as_ref()?.as_object()?;
        data.get("transport")?.as_str()?;
        Some(LinkFailure {
            status: data
                .get("status")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok()),
            session_expired: data.get("sessionExpired") == Some(&Value::Bool(true)),
        })
    }

    /// Whether the server answered with a client-error status: the answer
    /// a legacy server gives a modern request over HTTP. `401` and `403`
    /// are not: they refuse the credentials, which both eras share, and
    /// say nothing of the era.
    pub fn is_refusal(self) -> bool {
        self.status
            .is_some_and(|s| (400..500).contains(&s) && s != 401 && s != 403)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_reads_back_as_it_was_made() {
        for failure in [
            LinkFailure::default(),
            LinkFailure {
                status: Some(400),
                session_expired: false,
            },
            LinkFailure {
                status: Some(404),
                session_expired: true,
            },
        ] {
            let error = failure.to_error("http", "it broke");
            assert_eq!(error.message, "HTTP transport: it broke");
            assert_eq!(LinkFailure::read(&error), Some(failure));
        }
        assert!(LinkFailure::read(&ErrorObject::new(-32603, "x")).is_none());
        assert!(
            LinkFailure {
                status: Some(405),
                session_expired: false
            }
            .is_refusal()
        );
        assert!(!LinkFailure::default().is_refusal());
        for unauthorized in [401, 403] {
            let failure = LinkFailure {
                status: Some(unauthorized),
                session_expired: false,
            };
            assert!(!failure.is_refusal(), "{unauthorized}");
        }
    }
}
