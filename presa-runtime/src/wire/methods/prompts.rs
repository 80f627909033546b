//! `prompts/list` and `prompts/get`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::protocol::{
    InputResponses, ListResult, RequestMeta, ResultMeta, ResultType, Role, mrtr_params,
};
use crate::wire::values::{Content, Icon};

/// A prompt as listed by `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// Unique name within the server.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons for a user interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Free-form data by key, for whoever reads this. Keys under
    /// `io.modelcontextprotocol/` belong to the protocol.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Prompt {
    /// A prompt called `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: None,
            icons: None,
            meta: None,
        }
    }

    /// The argument called `name`, if the prompt takes one.
    pub fn argument(&self, name: &str) -> Option<&PromptArgument> {
        self.arguments.iter().flatten().find(|a| a.name == name)
    }
}

/// One argument of a [`Prompt`]. Arguments are strings on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// The argument's key in `prompts/get`.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// Whether `prompts/get` must carry it; absent means optional.
    pub fn is_required(&self) -> bool {
        self.required == Some(true)
    }
}

/// The answer to `prompts/list`.
pub type ListPromptsResult = ListResult<PromptsPage>;

/// The prompts of one `prompts/list` page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptsPage {
    /// The prompts, in a stable order.
    pub prompts: Vec<Prompt>,
}

/// Arguments of `prompts/get`, by name; their values are strings.
pub type PromptArguments = BTreeMap<String, String>;

mrtr_params! {
    /// Params of `prompts/get`: which prompt, with which arguments.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct GetPromptParams {
        /// The prompt.
        pub name: String,
        /// Its arguments by name; every one the prompt marks required must be here.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub arguments: Option<PromptArguments>,
    }
}

/// The messages a prompt resolved to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// What the resolved prompt is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in conversation order.
    pub messages: Vec<PromptMessage>,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl GetPromptResult {
    /// A result made of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            messages,
            ..Default::default()
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The text of the first message, if it is text.
    pub fn text(&self) -> Option<&str> {
        self.messages.first().and_then(|m| m.content.as_text())
    }
}

/// One message of a prompt: who says it, and one content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// The speaker.
    pub role: Role,
    /// What is said: text, an image, audio, a resource link or an
    /// embedded resource.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the model.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listed_prompt_has_the_spec_shape() {
        let mut prompt = Prompt::new("code_review");
        prompt.arguments = Some(vec![PromptArgument {
            name: "code".into(),
            title: None,
            description: Some("The code".into()),
            required: Some(true),
        }]);
        assert_eq!(
            serde_json::to_value(&prompt).unwrap(),
            json!({"name": "code_review",
                   "arguments": [{"name": "code", "description": "The code", "required": true}]})
        );
        assert!(prompt.argument("code").unwrap().is_required());
        assert!(prompt.argument("other").is_none());
    }

    #[test]
    fn get_prompt_params_take_string_arguments_only() {
        let ok: GetPromptParams =
            serde_json::from_value(json!({"name": "p", "arguments": {"a": "1"}})).unwrap();
        assert_eq!(ok.arguments.unwrap()["a"], "1");
        let bad =
            serde_json::from_value::<GetPromptParams>(json!({"name": "p", "arguments": {"a": 1}}));
        assert!(bad.is_err());
    }

    #[test]
    fn messages_carry_a_role_and_one_block() {
        let result = GetPromptResult::new(vec![
            PromptMessage::user("hi"),
            PromptMessage::assistant(Content::image("aGk=", "image/png")),
        ])
        .with_description("greeting");
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"resultType": "complete", "description": "greeting", "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": {"type": "image", "data": "aGk=", "mimeType": "image/png"}}
            ]})
        );
        assert_eq!(result.text(), Some("hi"));
    }
}
