//! The protocol versions a client speaks, split by era, and how long the
//! probe that settles the era waits.

use std::time::Duration;

use crate::wire::legacy::is_legacy_version;

/// How long a probe waits for the answer of a server that may stay silent,
/// as some legacy servers do before `initialize`.
pub(crate) const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The protocol versions a client speaks, preferred first, split by era.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Versions {
    /// 2026-07-28 and later (any version presa does not know as legacy).
    pub modern: Vec<String>,
    /// The initialize-based versions.
    pub legacy: Vec<String>,
}

impl Versions {
    /// `versions` split by era, each keeping its order.
    pub fn split(versions: Vec<String>) -> Versions {
        let (legacy, modern) = versions.into_iter().partition(|v| is_legacy_version(v));
        Versions { modern, legacy }
    }

    /// Every version, modern first: what an error names as ours.
    pub fn all(&self) -> Vec<String> {
        self.modern.iter().chain(&self.legacy).cloned().collect()
    }

    /// Our preferred modern version among `theirs`.
    pub fn shared_modern<'a>(&'a self, theirs: &[String]) -> Option<&'a String> {
        self.modern.iter().find(|v| theirs.contains(v))
    }

    /// Whether `theirs` lists one of our legacy versions.
    pub fn shares_legacy(&self, theirs: &[String]) -> bool {
        self.legacy.iter().any(|v| theirs.contains(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::era::Era;

    impl Versions {
        /// The era the versions leave no choice about, if any.
        fn only_era(&self) -> Option<Era> {
            match (self.modern.is_empty(), self.legacy.is_empty()) {
                (false, true) => Some(Era::Modern),
                (true, false) => Some(Era::Legacy),
                _ => None,
            }
        }
    }

    #[test]
    fn versions_split_by_era_keeping_their_order() {
        let versions = Versions::split(
            ["2025-06-18", "2026-07-28", "2099-01-01", "2025-11-25"]
                .map(String::from)
                .into(),
        );
        assert_eq!(versions.modern, ["2026-07-28", "2099-01-01"]);
        assert_eq!(versions.legacy, ["2025-06-18", "2025-11-25"]);
        assert_eq!(versions.only_era(), None);
        assert_eq!(
            Versions::split(vec!["2025-03-26".into()]).only_era(),
            Some(Era::Legacy)
        );
        assert_eq!(
            versions.shared_modern(&["2099-01-01".into()]).unwrap(),
            "2099-01-01"
        );
        assert!(versions.shares_legacy(&["2025-11-25".into()]));
    }
}
