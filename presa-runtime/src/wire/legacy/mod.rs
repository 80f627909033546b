//! Wire types of the legacy, session-based revisions (2025-11-25,
//! 2025-06-18 and 2025-03-26), for a dual-era peer.
//!
//! A legacy connection opens with `initialize`, which fixes the protocol
//! version, the client's capabilities and identity for the whole session;
//! a modern request carries them in its own `_meta`. Most message shapes
//! are the same in both eras, so this module holds only what differs, by
//! these rules:
//!
//! 1. the handshake and what only a session has (`initialize`, `ping`,
//!    `logging/setLevel`, `resources/subscribe`) live in [`lifecycle`];
//! 2. tasks, which 2025-11-25 defines in the core protocol with other
//!    field names (`ttl`, `pollInterval`, a nested `task` in
//!    `CreateTaskResult`), live in [`tasks`];
//! 3. what a server sends the client as a request of its own
//!    (`elicitation/create`, `sampling/createMessage`, `roots/list`) is
//!    built and read in [`requests`];
//! 4. a modern result becomes a legacy one in [`render`]: no modern-only
//!    field (`resultType`, `ttlMs`, `cacheScope`, modern `_meta` keys)
//!    reaches a legacy peer, and legacy error codes replace modern ones.
//!
//! Like the rest of [`wire`](super), nothing here knows of transports,
//! servers or clients: both sides use these types.

pub mod lifecycle;
pub mod render;
pub mod requests;
pub mod tasks;

#[cfg(test)]
mod schema_check;

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

/// Whether `request` opens a legacy session: an `initialize` without the
/// modern per-request `_meta`. One that carries it is a modern request
/// (which has no `initialize`), served statelessly as the 2026-07-28
/// versioning rules ask.
pub fn opens_session(request: &crate::wire::jsonrpc::Request) -> bool {
    let modern = request
        .params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(crate::wire::protocol::META_PROTOCOL_VERSION))
        .is_some();
    request.method == INITIALIZE && !modern
}

/// Whether `version` is a legacy version presa speaks.
pub fn is_legacy_version(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version)
}

/// `initialize`: the request that opens a legacy session. 2026-07-28
/// removed it; a stateless server answers it with a message naming the
/// versions it speaks, for the legacy client to show its user.
pub const INITIALIZE: &str = "initialize";
/// `ping`: either side checks the other is there.
pub const PING: &str = "ping";
/// `logging/setLevel`: the session's minimum log level.
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `resources/subscribe`: follow one resource for the session.
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe`: stop following it.
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `tasks/result`: wait for a task's outcome (2025-11-25).
pub const TASKS_RESULT: &str = "tasks/result";
/// `tasks/list`: the caller's tasks (2025-11-25).
pub const TASKS_LIST: &str = "tasks/list";
/// `tasks/get`: one task's state.
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/cancel`: stop a task.
pub const TASKS_CANCEL: &str = "tasks/cancel";

/// The HTTP header naming a legacy session (Streamable HTTP, 2025-03-26
/// to 2025-11-25).
pub const SESSION_ID_HEADER: &str = "Mcp-Session-Id";

/// `notifications/initialized`: the client is ready, after `initialize`.
pub const INITIALIZED: &str = "notifications/initialized";
/// `notifications/tasks/status`: a task changed (2025-11-25).
pub const TASKS_STATUS: &str = "notifications/tasks/status";
/// `notifications/roots/list_changed`: the client's roots changed.
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";

/// A client request of the legacy era, parsed once from its method name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LegacyMethod {
    /// `initialize`.
    Initialize,
    /// `ping`.
    Ping,
    /// `logging/setLevel`.
    SetLevel,
    /// `resources/subscribe`.
    Subscribe,
    /// `resources/unsubscribe`.
    Unsubscribe,
    /// A method both eras share, such as `tools/call`.
    Shared(crate::wire::protocol::Method),
    /// `tasks/result`.
    TasksResult,
    /// `tasks/list`.
    TasksList,
}

impl LegacyMethod {
    /// The legacy method named `name`. `server/discover`,
    /// `subscriptions/listen` and `tasks/update`, which only the modern era
    /// has, are not legacy methods.
    pub fn parse(name: &str) -> Option<LegacyMethod> {
        use crate::wire::protocol::Method;
        Some(match name {
            INITIALIZE => LegacyMethod::Initialize,
            PING => LegacyMethod::Ping,
            LOGGING_SET_LEVEL => LegacyMethod::SetLevel,
            RESOURCES_SUBSCRIBE => LegacyMethod::Subscribe,
            RESOURCES_UNSUBSCRIBE => LegacyMethod::Unsubscribe,
            TASKS_RESULT => LegacyMethod::TasksResult,
            TASKS_LIST => LegacyMethod::TasksList,
            _ => match Method::parse(name)? {
                Method::ServerDiscover | Method::SubscriptionsListen | Method::TasksUpdate => {
                    return None;
                }
                shared => LegacyMethod::Shared(shared),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Method;

    #[test]
    fn negotiation_keeps_a_known_version_and_offers_the_newest_otherwise() {
        assert_eq!(negotiate_version("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_version("2025-03-26"), "2025-03-26");
        assert_eq!(negotiate_version("2024-11-05"), "2025-11-25");
        assert_eq!(negotiate_version("2026-07-28"), "2025-11-25");
        assert!(is_legacy_version("2025-11-25") && !is_legacy_version("2026-07-28"));
    }

    #[test]
    fn only_an_initialize_without_modern_meta_opens_a_session() {
        use crate::wire::Request;
        use serde_json::json;
        let legacy = Request::new(1, "initialize", json!({"protocolVersion": "2025-11-25"}));
        assert!(opens_session(&legacy));
        let modern = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        assert!(!opens_session(&Request::new(1, "initialize", modern)));
        assert!(!opens_session(&Request::new(1, "ping", json!({}))));
    }

    #[test]
    fn modern_only_methods_are_not_legacy_methods() {
        assert_eq!(LegacyMethod::parse("ping"), Some(LegacyMethod::Ping));
        assert_eq!(
            LegacyMethod::parse("tools/call"),
            Some(LegacyMethod::Shared(Method::ToolsCall))
        );
        for modern in ["server/discover", "subscriptions/listen", "tasks/update"] {
            assert_eq!(LegacyMethod::parse(modern), None, "{modern}");
        }
        assert_eq!(
            LegacyMethod::parse("tasks/result"),
            Some(LegacyMethod::TasksResult)
        );
    }
}
