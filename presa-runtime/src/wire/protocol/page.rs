//! Pagination: the params every list request shares, and the fields
//! around every list result's items.
//!
//! A cursor is opaque to the client: it echoes the `nextCursor` of one page
//! to get the next, and reads nothing into it. A page says how long it may
//! be cached and by whom, as every list result of 2026-07-28 does.

use serde::{Deserialize, Serialize};

use super::meta::{RequestMeta, ResultMeta};
use super::result::{CacheScope, ResultType};

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

/// One page of a paginated list: the answer to `tools/list`,
/// `prompts/list`, `resources/list` and `resources/templates/list`.
///
/// `L` holds the page's items under the list's own key (`tools`,
/// `prompts`, …); the fields around them are those every list result
/// shares, in the order they go on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "L: serde::de::DeserializeOwned"))]
pub struct ListResult<L> {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// This page's items, in a stable order.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub items: L,
    /// The cursor of the next page; absent on the last page.
    #[serde(
        rename = "nextCursor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor: Option<String>,
    /// How long the client may cache this page.
    #[serde(
        rename = "ttlMs",
        default,
        deserialize_with = "super::result::lenient_ttl"
    )]
    pub ttl_ms: u64,
    /// Who may share the cached page.
    #[serde(rename = "cacheScope", default = "super::result::public")]
    pub cache_scope: CacheScope,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::{ListToolsResult, ToolsPage, strict};

    #[test]
    fn a_page_puts_its_items_after_the_result_type_and_before_the_paging() {
        let page = ListToolsResult {
            result_type: ResultType::Complete,
            items: ToolsPage::default(),
            next_cursor: Some("c".into()),
            ttl_ms: 5,
            cache_scope: CacheScope::Private,
            meta: None,
        };
        assert_eq!(
            serde_json::to_string(&page).unwrap(),
            r#"{"resultType":"complete","tools":[],"nextCursor":"c","ttlMs":5,"cacheScope":"private"}"#
        );
    }

    #[test]
    fn a_page_is_read_strictly_and_its_caching_leniently() {
        let page: ListToolsResult = strict::from_value(json!({"tools": [], "ttlMs": -3})).unwrap();
        assert_eq!((page.ttl_ms, page.cache_scope), (0, CacheScope::Public));
        let error = strict::from_value::<ListToolsResult>(json!({"tools": [[]]})).unwrap_err();
        assert!(error.to_string().contains("expected an object"), "{error}");
        assert!(strict::from_value::<ListToolsResult>(json!({"ttlMs": 1})).is_err());
    }
}
