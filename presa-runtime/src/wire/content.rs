//! Content blocks: what a tool result (or a sampled message) is made of.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One block of tool output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text(TextContent),
    /// A base64-encoded image.
    Image(MediaContent),
    /// Base64-encoded audio.
    Audio(MediaContent),
    /// A link to a resource the client may read.
    ResourceLink(ResourceLink),
    /// A resource embedded inline.
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

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
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
    /// Metadata.
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

/// A link to a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// The resource URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A resource embedded in a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Text or binary resource contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceContents {
    /// The resource URI.
    pub uri: String,
    /// MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 binary contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
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
            Content::ResourceLink(ResourceLink {
                uri: "file:///a.txt".into(),
                name: "a".into(),
                title: None,
                description: None,
                mime_type: Some("text/plain".into()),
                size: Some(2),
                annotations: None,
                meta: None,
            }),
            Content::Resource(EmbeddedResource {
                resource: ResourceContents {
                    uri: "file:///b".into(),
                    mime_type: None,
                    text: Some("body".into()),
                    blob: None,
                    meta: None,
                },
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
    fn unknown_fields_are_tolerated_on_input() {
        let c: Content =
            serde_json::from_value(json!({"type": "text", "text": "x", "future": 1})).unwrap();
        assert_eq!(c.as_text(), Some("x"));
    }
}
