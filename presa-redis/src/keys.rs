//! Where a store's data lives in Redis: every key and channel name starts
//! with the store's prefix.
//!
//! The Lua scripts build the same names from the prefix (see
//! [`scripts`](crate::scripts)), so the two lists must agree:
//!
//! | name | type | holds |
//! | --- | --- | --- |
//! | `task:{id}` | hash | `json` (the record) and `version`; expires with the task |
//! | `changes:{id}` | channel | each new record as JSON; an empty message when the task is removed |
//! | `ids` | sorted set | every task kept |
//! | `owned:{owner}` | sorted set | the tasks of one owner, in order of id |
//! | `running:{owner}` | set | the running tasks of one owner |
//! | `finished` | sorted set | finished tasks, scored in the order they finished |
//! | `expiry` | sorted set | tasks with a TTL, scored by when they expire (ms, Redis's clock) |
//! | `weights`, `owners` | hashes | each task's weight and owner, kept until it is purged |
//! | `bytes`, `finished-bytes` | integers | what all records, and the finished ones, weigh |
//! | `finish-seq` | integer | the counter that orders finished tasks |
//! | `leases` | sorted set | running tasks with a lease, scored by when it lapses (ms since the epoch, the servers' clocks) |
//! | `lease-holders` | hash | the server holding each lease |

/// The names of one store's keys.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    prefix: String,
}

impl Keys {
    /// Names under `prefix`.
    pub(crate) fn new(prefix: String) -> Self {
        Keys { prefix }
    }

    /// The prefix itself, which every script receives first.
    pub(crate) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The hash that holds a task's record.
    pub(crate) fn task(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    /// The channel a task's changes are published on.
    pub(crate) fn changes(&self, id: &str) -> String {
        format!("{}changes:{id}", self.prefix)
    }
}

/// An owner as it appears in key names: anonymous tasks share `-`, and a
/// subject is marked with `=` so that no subject can pass for anonymous.
pub(crate) fn owner_key(owner: Option<&str>) -> String {
    match owner {
        None => "-".to_owned(),
        Some(subject) => format!("={subject}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_subject_shares_the_anonymous_quota() {
        assert_ne!(owner_key(None), owner_key(Some("-")));
        assert_ne!(owner_key(None), owner_key(Some("")));
        assert_eq!(owner_key(Some("alice")), "=alice");
    }

    #[test]
    fn names_start_with_the_prefix() {
        let keys = Keys::new("app:".into());
        assert_eq!(keys.task("t1"), "app:task:t1");
        assert_eq!(keys.changes("t1"), "app:changes:t1");
    }
}
