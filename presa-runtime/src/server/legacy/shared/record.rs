//! [`SessionRecord`]: what every replica knows of a legacy session, and
//! [`SessionChange`], the one way a request changes it.
//!
//! A record holds what the client declared in `initialize` and what its
//! session has set since. A replica that has never seen the session builds
//! it from the record alone, so the record holds everything a request of
//! the session needs but the request's own caller.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::wire::{ClientCapabilities, Implementation, LoggingLevel};

/// A legacy session as a shared store keeps it.
///
/// The JSON form is the one stores write; it reads back equal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// The `Mcp-Session-Id`: unguessable, and the key of the record.
    pub id: String,
    /// The subject that opened the session, or `None` for an anonymous
    /// caller. Only a request of the same subject finds the session.
    pub principal: Option<String>,
    /// The negotiated protocol version, such as `2025-11-25`.
    pub protocol_version: String,
    /// What the client declared it can do, as the modern core reads it.
    pub client_capabilities: ClientCapabilities,
    /// The client's name and version.
    pub client_info: Implementation,
    /// The level `logging/setLevel` set; until then the server sends no log
    /// messages.
    pub log_level: Option<LoggingLevel>,
    /// The resource URIs the session subscribed to.
    pub subscriptions: BTreeSet<String>,
    /// Counts the changes: `0` when created, one more for each change. A
    /// store replaces a record only over the version it was read at.
    pub version: u64,
}

/// A change to a session's record, made by one of its requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChange {
    /// `logging/setLevel`.
    SetLogLevel(LoggingLevel),
    /// `resources/subscribe`, allowed while the session follows fewer
    /// URIs than the limit.
    Subscribe {
        /// The resource's URI.
        uri: String,
        /// The most URIs one session follows.
        limit: usize,
    },
    /// `resources/unsubscribe`.
    Unsubscribe(String),
}

/// Why a [`SessionChange`] was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionChangeRefused {
    /// The session follows as many resources as it may.
    #[error("this session follows {limit} resources, the most it may; unsubscribe from one first")]
    TooManySubscriptions {
        /// The most URIs one session may follow.
        limit: usize,
    },
}

impl SessionChange {
    /// Applies the change to `record`, counting its version up when
    /// anything changed. Whether it did; a refusal leaves `record` as it
    /// was.
    pub fn apply(&self, record: &mut SessionRecord) -> Result<bool, SessionChangeRefused> {
        let changed = match self {
            SessionChange::SetLogLevel(level) => {
                let changed = record.log_level != Some(*level);
                record.log_level = Some(*level);
                changed
            }
            SessionChange::Subscribe { uri, limit } => {
                if record.subscriptions.contains(uri) {
                    false
                } else if record.subscriptions.len() >= *limit {
                    return Err(SessionChangeRefused::TooManySubscriptions { limit: *limit });
                } else {
                    record.subscriptions.insert(uri.clone())
                }
            }
            SessionChange::Unsubscribe(uri) => record.subscriptions.remove(uri),
        };
        if changed {
            record.version += 1;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> SessionRecord {
        SessionRecord {
            id: "s".into(),
            principal: None,
            protocol_version: "2025-11-25".into(),
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("client", "1.0"),
            log_level: None,
            subscriptions: BTreeSet::new(),
            version: 0,
        }
    }

    #[test]
    fn a_change_counts_the_version_once() {
        let mut record = record();
        let level = SessionChange::SetLogLevel(LoggingLevel::Debug);
        assert_eq!(level.apply(&mut record), Ok(true));
        assert_eq!(level.apply(&mut record), Ok(false));
        assert_eq!(record.version, 1);
        assert_eq!(record.log_level, Some(LoggingLevel::Debug));
    }

    #[test]
    fn subscriptions_stop_at_the_limit_and_repeats_are_free() {
        let mut record = record();
        let subscribe = |uri: &str| SessionChange::Subscribe {
            uri: uri.into(),
            limit: 2,
        };
        assert_eq!(subscribe("a").apply(&mut record), Ok(true));
        assert_eq!(subscribe("b").apply(&mut record), Ok(true));
        assert_eq!(subscribe("a").apply(&mut record), Ok(false));
        assert_eq!(
            subscribe("c").apply(&mut record),
            Err(SessionChangeRefused::TooManySubscriptions { limit: 2 })
        );
        assert_eq!(record.version, 2);
        let unsubscribe = SessionChange::Unsubscribe("a".into());
        assert_eq!(unsubscribe.apply(&mut record), Ok(true));
        assert_eq!(unsubscribe.apply(&mut record), Ok(false));
        assert_eq!(subscribe("c").apply(&mut record), Ok(true));
    }

    #[test]
    fn the_json_form_reads_back_equal() {
        let mut record = record();
        record.subscriptions.insert("file:///a".into());
        record.log_level = Some(LoggingLevel::Info);
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(
            serde_json::from_str::<SessionRecord>(&json).unwrap(),
            record
        );
    }
}
