//! `resources/list`, `resources/templates/list`, `resources/read`, and
//! `notifications/resources/updated`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::subscriptions::SubscriptionMeta;
use crate::wire::protocol::{
    CacheScope, InputResponses, ListResult, RequestMeta, ResultMeta, ResultType, mrtr_params,
};
use crate::wire::values::{Annotations, Icon, Resource, ResourceContents};

/// How the message of a "no such resource" error starts, in both eras:
/// the one `-32602` with a `uri` that a legacy peer reads as `-32002`.
pub const RESOURCE_NOT_FOUND_MESSAGE: &str = "Resource not found";

/// A family of resources whose URIs follow an RFC 6570 template, as
/// listed by `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplate {
    /// The URI template, such as `file:///{path}`.
    #[serde(rename = "uriTemplate")]
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type every matching resource has, if they share one.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for a user interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ResourceTemplate {
    /// A template `uri_template` called `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

/// The answer to `resources/list`.
pub type ListResourcesResult = ListResult<ResourcesPage>;

/// The resources of one `resources/list` page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourcesPage {
    /// The resources, in a stable order.
    pub resources: Vec<Resource>,
}

/// The answer to `resources/templates/list`.
pub type ListResourceTemplatesResult = ListResult<TemplatesPage>;

/// The templates of one `resources/templates/list` page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TemplatesPage {
    /// The templates, in a stable order.
    #[serde(rename = "resourceTemplates")]
    pub resource_templates: Vec<ResourceTemplate>,
}

mrtr_params! {
    /// Params of `resources/read`: which resource.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct ReadResourceParams {
        /// The resource.
        pub uri: String,
    }
}

/// The contents of a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// The contents: one entry, or several (the files of a directory, say).
    pub contents: Vec<ResourceContents>,
    /// How long the client may cache the contents.
    #[serde(
        rename = "ttlMs",
        default,
        deserialize_with = "crate::wire::protocol::result::lenient_ttl"
    )]
    pub ttl_ms: u64,
    /// Who may share the cached contents.
    #[serde(
        rename = "cacheScope",
        default = "crate::wire::protocol::result::public"
    )]
    pub cache_scope: CacheScope,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl ReadResourceResult {
    /// A result made of `contents`, immediately stale and private: the
    /// reader overrides what it knows better.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult {
            result_type: ResultType::Complete,
            contents,
            ttl_ms: 0,
            cache_scope: CacheScope::Private,
            meta: None,
        }
    }

    /// The text of the first contents, if they are text.
    pub fn text(&self) -> Option<&str> {
        self.contents.first().and_then(ResourceContents::as_text)
    }
}

/// `data` of the `-32602` error for a resource that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceNotFoundData {
    /// The URI that names no resource.
    pub uri: String,
}

/// The params of `notifications/resources/updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedParams {
    /// The subscription it belongs to; a server always sends it.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<SubscriptionMeta>,
    /// The resource that changed: the one subscribed to, or a part of it.
    pub uri: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_results_hold_text_and_binary_contents() {
        let mut result = ReadResourceResult::new(vec![
            ResourceContents::text("file:///a.txt", "hello").with_mime_type("text/plain"),
            ResourceContents::blob("file:///b.png", "aGk="),
        ]);
        result.ttl_ms = 60_000;
        let wire = json!({
            "resultType": "complete",
            "contents": [
                {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"},
                {"uri": "file:///b.png", "blob": "aGk="}
            ],
            "ttlMs": 60000,
            "cacheScope": "private"
        });
        assert_eq!(serde_json::to_value(&result).unwrap(), wire);
        let back: ReadResourceResult = serde_json::from_value(wire).unwrap();
        assert_eq!(back, result);
        assert_eq!(back.text(), Some("hello"));
        assert_eq!(back.contents[1].as_blob(), Some("aGk="));
    }

    #[test]
    fn templates_and_resources_have_the_spec_shape() {
        let template = ResourceTemplate::new("file:///{path}", "files");
        assert_eq!(
            serde_json::to_value(&template).unwrap(),
            json!({"uriTemplate": "file:///{path}", "name": "files"})
        );
        let mut resource = Resource::new("file:///a", "a");
        resource.size = Some(3);
        assert_eq!(
            serde_json::to_value(&resource).unwrap(),
            json!({"uri": "file:///a", "name": "a", "size": 3})
        );
    }
}
