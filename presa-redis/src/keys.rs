//! Where a store's data lives in Redis: every key and channel name starts
//! with the store's prefix in braces, `{prefix}`.
//!
//! The braces make the prefix a Redis Cluster *hash tag*: Redis Cluster
//! places a key by the part in braces alone, so every key of one store
//! lives in one slot, on one shard, and each script may touch them all.
//! The price is that one store does not spread over shards: a cluster
//! holds several stores (several prefixes) on several shards, but one
//! store's load is one shard's. On a single server the braces are only
//! characters.
//!
//! The scripts receive their keys through `KEYS`: first the store's fixed
//! keys ([`FIXED`], in that order), then the keys of the task the call is
//! about. A purge or an eviction also removes tasks that only the indexes
//! name; a script derives those tasks' keys from the tagged prefix, and
//! since they carry the same tag they are in the same slot, which Redis
//! Cluster allows.
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
//! | `session:{id}` | string | a legacy session's record as JSON; expires when the session is idle |
//! | `session-channel:{name}` | channel | what replicas tell each other about legacy sessions |

/// The keys every script receives first, as `KEYS[1]`, `KEYS[2]`, …
pub(crate) const FIXED: [&str; 10] = [
    "ids",
    "finished",
    "expiry",
    "weights",
    "owners",
    "bytes",
    "finished-bytes",
    "finish-seq",
    "leases",
    "lease-holders",
];

/// The names of one store's keys.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    /// The prefix in braces: the hash tag every name starts with.
    tagged: String,
}

impl Keys {
    /// Names under `prefix`, which must not be empty: `{}` is no hash tag.
    pub(crate) fn new(prefix: &str) -> Option<Self> {
        (!prefix.is_empty()).then(|| Keys {
            tagged: format!("{{{prefix}}}"),
        })
    }

    /// What every name starts with, which every script receives as
    /// `ARGV[1]`.
    pub(crate) fn tagged(&self) -> &str {
        &self.tagged
    }

    /// The full names of the [`FIXED`] keys, in order.
    pub(crate) fn fixed(&self) -> impl Iterator<Item = String> + '_ {
        FIXED.iter().map(|name| format!("{}{name}", self.tagged))
    }

    /// The hash that holds a task's record.
    pub(crate) fn task(&self, id: &str) -> String {
        format!("{}task:{id}", self.tagged)
    }

    /// The sorted set of one owner's tasks.
    pub(crate) fn owned(&self, owner: Option<&str>) -> String {
        format!("{}owned:{}", self.tagged, owner_key(owner))
    }

    /// The set of one owner's running tasks.
    pub(crate) fn running(&self, owner: Option<&str>) -> String {
        format!("{}running:{}", self.tagged, owner_key(owner))
    }

    /// The channel a task's changes are published on.
    pub(crate) fn changes(&self, id: &str) -> String {
        format!("{}changes:{id}", self.tagged)
    }

    /// The string that holds a legacy session's record.
    #[cfg_attr(not(feature = "legacy-sessions"), allow(dead_code))]
    pub(crate) fn session(&self, id: &str) -> String {
        format!("{}session:{id}", self.tagged)
    }

    /// The Redis channel of the session store's channel `name`.
    #[cfg_attr(not(feature = "legacy-sessions"), allow(dead_code))]
    pub(crate) fn session_channel(&self, name: &str) -> String {
        format!("{}session-channel:{name}", self.tagged)
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
    fn names_start_with_the_prefix_as_a_hash_tag() {
        let keys = Keys::new("app:").unwrap();
        assert_eq!(keys.task("t1"), "{app:}task:t1");
        assert_eq!(keys.changes("t1"), "{app:}changes:t1");
        assert_eq!(keys.owned(None), "{app:}owned:-");
        assert_eq!(keys.running(Some("a")), "{app:}running:=a");
        assert_eq!(keys.session("s1"), "{app:}session:s1");
        assert_eq!(keys.session_channel("c"), "{app:}session-channel:c");
        assert!(keys.fixed().all(|name| name.starts_with("{app:}")));
    }

    #[test]
    fn an_empty_prefix_is_no_hash_tag() {
        assert!(Keys::new("").is_none());
    }

    #[test]
    fn every_key_hashes_to_one_slot() {
        let keys = Keys::new("app:").unwrap();
        let slot = |key: &str| redis::cluster_routing::Slot::for_key(key);
        let first = slot(&keys.task("a"));
        let more = [
            keys.task("zz"),
            keys.owned(Some("x")),
            keys.session("s"),
            keys.session_channel("c"),
        ];
        for key in keys.fixed().chain(more) {
            assert_eq!(slot(&key), first, "{key}");
        }
    }
}
