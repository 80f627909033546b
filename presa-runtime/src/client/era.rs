//! [`Era`]: which era of MCP a server speaks.
//!
//! MCP 2026-07-28 and later (*modern*) is stateless: every request carries
//! the client's version, capabilities and identity in `_meta`. 2025-11-25
//! and earlier (*legacy*) open a session with `initialize` and then speak
//! within it. A client that speaks both finds out once which one its
//! server speaks (see `protocol::probe` for how), before its first
//! request, and keeps the answer for its lifetime: the era is a property
//! of the server, not of a request.

/// The era of MCP a client speaks with its server; see
/// [`Client::era`](super::Client::era).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2026-07-28 and later: stateless, every request carries its `_meta`.
    Modern,
    /// 2025-11-25, 2025-06-18 and 2025-03-26: a session opened by
    /// `initialize`.
    Legacy,
}

impl std::fmt::Display for Era {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        })
    }
}
