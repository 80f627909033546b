//! The method and notification names only the legacy era has, and
//! [`LegacyMethod`], a legacy client request parsed once from its name.

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
/// `tasks/get`: one task's state, the Tasks extension's method.
pub const TASKS_GET: &str = crate::wire::extensions::TASKS_GET.name;
/// `tasks/cancel`: stop a task, the Tasks extension's method.
pub const TASKS_CANCEL: &str = crate::wire::extensions::TASKS_CANCEL.name;

/// `notifications/initialized`: the client is ready, after `initialize`.
pub const INITIALIZED: &str = "notifications/initialized";
/// `notifications/tasks/status`: a task changed (2025-11-25).
pub const TASKS_STATUS: &str = "notifications/tasks/status";
/// `notifications/roots/list_changed`: the client's roots changed.
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";

/// A client request of the legacy era, parsed once from its method name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LegacyMethod {
    /// `initialize`: opens the session and agrees on a protocol version.
    Initialize,
    /// `ping`: checks that the peer still answers.
    Ping,
    /// `logging/setLevel`.
    SetLevel,
    /// `resources/subscribe`.
    Subscribe,
    /// `resources/unsubscribe`.
    Unsubscribe,
    /// A method both eras share, such as `tools/call`.
    Shared(crate::wire::protocol::Method),
    /// `tasks/result`: waits for a task to end and gives its result.
    TasksResult,
    /// `tasks/list`: the session's tasks, page by page.
    TasksList,
    /// `tasks/get`: a task's state, read in the session.
    TasksGet,
    /// `tasks/cancel`: stops a task of the session.
    TasksCancel,
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
            TASKS_GET => LegacyMethod::TasksGet,
            TASKS_CANCEL => LegacyMethod::TasksCancel,
            _ => match Method::parse(name)? {
                Method::ServerDiscover | Method::SubscriptionsListen => return None,
                shared => LegacyMethod::Shared(shared),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::protocol::Method;

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
        assert_eq!(
            LegacyMethod::parse("tasks/get"),
            Some(LegacyMethod::TasksGet)
        );
    }
}
