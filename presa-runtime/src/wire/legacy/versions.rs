//! The legacy protocol versions presa speaks, and which one a server
//! answers an `initialize` with.

/// The legacy protocol versions presa speaks, newest first.
pub const LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The newest legacy version: what a server answers when the client asks
/// for a version it does not know.
pub const LATEST_LEGACY_VERSION: &str = LEGACY_VERSIONS[0];

/// The version a server answers an `initialize` asking for `requested`:
/// the same one when it is a legacy version presa speaks, otherwise the
/// newest, as the lifecycle's version negotiation asks.
pub fn negotiate_version(requested: &str) -> &'static str {
    LEGACY_VERSIONS
        .into_iter()
        .find(|known| *known == requested)
        .unwrap_or(LATEST_LEGACY_VERSION)
}

/// Whether `version` is a legacy version presa speaks.
pub fn is_legacy_version(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_keeps_a_known_version_and_offers_the_newest_otherwise() {
        assert_eq!(negotiate_version("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_version("2025-03-26"), "2025-03-26");
        assert_eq!(negotiate_version("2024-11-05"), "2025-11-25");
        assert_eq!(negotiate_version("2026-07-28"), "2025-11-25");
        assert!(is_legacy_version("2025-11-25") && !is_legacy_version("2026-07-28"));
    }
}
