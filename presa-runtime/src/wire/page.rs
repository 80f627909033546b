//! Pagination: the params every list request shares.
//!
//! A cursor is opaque to the client: it echoes the `nextCursor` of one page
//! to get the next, and reads nothing into it.

use serde::{Deserialize, Serialize};

use super::RequestMeta;

/// Params of the paginated list requests: `tools/list`, `prompts/list`,
/// `resources/list` and `resources/templates/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// Where to continue; from a previous `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata; the server reads and validates it before the
    /// method's own params, so it is optional here.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}
