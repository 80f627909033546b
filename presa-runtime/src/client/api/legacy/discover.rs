//! What `initialize` said, in place of `server/discover`: a legacy server
//! has no `server/discover`, so
//! [`Client::discover`](crate::client::Client::discover) answers from the
//! session's `InitializeResult` (its one version, its capabilities, its
//! instructions and identity), with a task-augmented `tools/call` shown as
//! the Tasks extension, and not cacheable.

use serde_json::json;

use super::tools::offers_tool_tasks;
use crate::wire::legacy::lifecycle::InitializeResult;
use crate::wire::{
    CacheScope, DiscoverResult, ResultMeta, ResultType, ServerCapabilities, TASKS_EXTENSION,
};

/// What `server/discover` would have said, from what `initialize` said.
pub(crate) fn discover_result(server: &InitializeResult) -> DiscoverResult {
    let offered = &server.capabilities;
    let extensions =
        offers_tool_tasks(server).then(|| [(TASKS_EXTENSION.to_owned(), json!({}))].into());
    DiscoverResult {
        result_type: ResultType::Complete,
        supported_versions: vec![server.protocol_version.clone()],
        capabilities: ServerCapabilities {
            extensions,
            ..offered.core.clone()
        },
        instructions: server.instructions.clone(),
        ttl_ms: 0,
        cache_scope: CacheScope::Private,
        meta: Some(ResultMeta {
            server_info: Some(server.server_info.clone()),
            ..Default::default()
        }),
    }
}
