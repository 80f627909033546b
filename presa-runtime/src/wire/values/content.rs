//! Content blocks: what a tool result, a prompt message or a sampled
//! message is made of, the contents of a resource, and the [`Resource`]
//! that `resources/list` lists and a resource link points at.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::icon::Icon;

/// One block of tool output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    #[serde(deserialize_with = "crate::wire::jsonrpc::strict::object")]
    Text(TextContent),
    /// A base64-encoded image.
    #[serde(deserialize_with = "crate::wire::jsonrpc::strict::object")]
    Image(MediaContent),
    /// Base64-encoded audio.
    #[serde(deserialize_with = "crate::wire::jsonrpc::strict::object")]
    Audio(MediaContent),
    /// A link to a resource the client may read (boxed: it is much the
    /// largest).
    #[serde(deserialize_with = "crate::wire::jsonrpc::strict::object")]
    ResourceLink(Box<Resource>),
    /// A resource embedded inline.
    #[serde(deserialize_with = "crate::wire::jsonrpc::strict::object")]
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An image block from base64 `data`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image(MediaContent::new(data, mime_type))
    }

    /// An audio block from base64 `data`.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio(MediaContent::new(data, mime_type))
    }

    /// A link to the resource at `uri` called `name`, which the client
    /// may read.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(Box::new(Resource::new(uri, name)))
    }

    /// A resource embedded with its `contents`.
    pub fn embedded(contents: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource: contents,
            annotations: None,
            meta: None,
        })
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

/// A text block: `"type": "text"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text itself, not encoded.
    pub text: String,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Image or audio content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MediaContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// The MIME type, such as `image/png`.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl MediaContent {
    /// Media from base64 data and a MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// A resource: an entry of `resources/list`, and what a
/// [`Content::ResourceLink`] block points at (the link is the same
/// object with `"type": "resource_link"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    /// The URI `resources/read` takes.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size of the raw contents in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
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

impl Resource {
    /// A resource at `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

/// A resource embedded in a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The contents of a resource, text or binary: what `resources/read`
/// returns, and what an embedded resource carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceContents {
    /// The resource URI.
    pub uri: String,
    /// The MIME type of the contents, when the server knows it.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text or the bytes.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub body: ResourceBody,
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// What a resource holds: text, or bytes in base64. Exactly one, so a
/// contents with both or neither cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceBody {
    /// Text contents.
    Text {
        /// The text, as it is (not base64).
        text: String,
    },
    /// Binary contents.
    Blob {
        /// The bytes, base64-encoded.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents of the resource at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::with_body(uri, ResourceBody::Text { text: text.into() })
    }

    /// Binary contents of the resource at `uri`, already base64-encoded.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        ResourceContents::with_body(
            uri,
            ResourceBody::Blob {
                blob: base64.into(),
            },
        )
    }

    /// Binary contents of the resource at `uri`, from raw `bytes`.
    pub fn bytes(uri: impl Into<String>, bytes: &[u8]) -> Self {
        ResourceContents::blob(uri, STANDARD.encode(bytes))
    }

    fn with_body(uri: impl Into<String>, body: ResourceBody) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body,
            meta: None,
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The text, if these are text contents.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text { text } => Some(text),
            ResourceBody::Blob { .. } => None,
        }
    }

    /// The base64 bytes, if these are binary contents.
    pub fn as_blob(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Blob { blob } => Some(blob),
            ResourceBody::Text { .. } => None,
        }
    }
}

/// Hints for how a client should use a block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Annotations {
    /// Who the block is for: `user`, `assistant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<String>>,
    /// Importance from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 modification time.
    #[serde(
        rename = "lastModified",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_modified: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_content_kind_has_the_spec_shape() {
        let blocks = vec![
            Content::text("hi"),
            Content::image("aGk=", "image/png"),
            Content::audio("aGk=", "audio/wav"),
            Content::ResourceLink(Box::new(Resource {
                mime_type: Some("text/plain".into()),
                size: Some(2),
                ..Resource::new("file:///a.txt", "a")
            })),
            Content::Resource(EmbeddedResource {
                resource: ResourceContents::text("file:///b", "body"),
                annotations: Some(Annotations {
                    audience: Some(vec!["user".into()]),
                    priority: Some(0.5),
                    last_modified: None,
                }),
                meta: None,
            }),
        ];
        let wire = json!([
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mimeType": "text/plain", "size": 2},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "body"},
             "annotations": {"audience": ["user"], "priority": 0.5}}
        ]);
        assert_eq!(serde_json::to_value(&blocks).unwrap(), wire);
        let back: Vec<Content> = serde_json::from_value(wire).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn resource_contents_are_text_or_blob() {
        let blob = ResourceContents::bytes("file:///b", b"hi").with_mime_type("image/png");
        assert_eq!(
            serde_json::to_value(&blob).unwrap(),
            json!({"uri": "file:///b", "mimeType": "image/png", "blob": "aGk="})
        );
        assert_eq!((blob.as_text(), blob.as_blob()), (None, Some("aGk=")));
        let text: ResourceContents =
            serde_json::from_value(json!({"uri": "u:", "text": "t", "_meta": {"k": 1}})).unwrap();
        assert_eq!(text.as_text(), Some("t"));
        assert!(text.meta.is_some());
        assert!(serde_json::from_value::<ResourceContents>(json!({"uri": "u:"})).is_err());
    }

    #[test]
    fn unknown_fields_are_tolerated_on_input() {
        let c: Content =
            serde_json::from_value(json!({"type": "text", "text": "x", "future": 1})).unwrap();
        assert_eq!(c.as_text(), Some("x"));
    }
}
