//! Multi Round-Trip Requests: what a server asks of the client, and the answers.
//!
//! A server never sends requests to a client in 2026-07-28. It answers the
//! client's request with an [`InputRequiredResult`] whose `inputRequests` map
//! keys to [`InputRequest`]s; the client retries the same request with
//! `inputResponses` under the same keys and the echoed `requestState`.

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::meta::{ClientCapabilities, ElicitationCapability, ResultMeta};
use super::result::ResultType;
use crate::wire::jsonrpc::strict;
use crate::wire::values::{AbsoluteUrl, Content};

/// Method name of an elicitation input request.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// Method name of a sampling input request.
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// Method name of a roots input request.
pub const ROOTS_LIST: &str = "roots/list";

/// Input requests by server-assigned key, in key order.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// Answers by key, in key order.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// The client's answer to one [`InputRequest`].
///
/// An answer must be an object: anything else is no answer at all, and
/// fails the request it came in (`-32602`). The object carries no tag, so
/// its shape decides: `action` makes an elicitation answer, `roots` a roots
/// answer, `model` a sampling answer, each read
/// [strictly](crate::wire::strict). An object that does not read as the answer
/// its shape promises is kept as [`InputResponse::Other`] rather than
/// failing the whole request, so that one malformed answer only gets its
/// question asked again.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum InputResponse {
    /// Answers `elicitation/create`.
    Elicit(ElicitResult),
    /// Answers `sampling/createMessage` (boxed: it is much the largest).
    Sample(Box<CreateMessageResult>),
    /// Answers `roots/list`.
    Roots(ListRootsResult),
    /// An object that is not a recognizable answer.
    Other(Map<String, Value>),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let answer = strict::entries(deserializer)?;
        Ok(InputResponse::read(answer))
    }
}

impl InputResponse {
    /// The answer `answer`'s shape promises, if it reads as one.
    fn read(answer: Map<String, Value>) -> Self {
        let as_answer = |answer: &Map<String, Value>| Value::Object(answer.clone());
        let parsed = if answer.contains_key("action") {
            strict::from_value(as_answer(&answer)).map(InputResponse::Elicit)
        } else if answer.contains_key("roots") {
            strict::from_value(as_answer(&answer)).map(InputResponse::Roots)
        } else if answer.contains_key("model") {
            strict::from_value(as_answer(&answer)).map(|r| InputResponse::Sample(Box::new(r)))
        } else {
            return InputResponse::Other(answer);
        };
        parsed.unwrap_or(InputResponse::Other(answer))
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        InputResponse::Elicit(r)
    }
}

impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        InputResponse::Sample(Box::new(r))
    }
}

impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        InputResponse::Roots(r)
    }
}

/// One thing the server needs from the client.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawInputRequest")]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`: ask the user.
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`: ask the client's model. Boxed, being
    /// several times the size of the others: a task's map of requests
    /// reserves room for eleven at a time.
    Sample(Box<CreateMessageParams>),
    /// `roots/list`: ask for the client's roots.
    ListRoots,
    /// A method this implementation does not know.
    Other {
        /// The method name the server sent, such as a newer revision's.
        method: String,
        /// Its params as sent, unread; `None` when there were none.
        params: Option<Value>,
    },
}

impl InputRequest {
    /// The wire method name.
    pub fn method(&self) -> &str {
        match self {
            InputRequest::Elicit(_) => ELICITATION_CREATE,
            InputRequest::Sample(_) => SAMPLING_CREATE_MESSAGE,
            InputRequest::ListRoots => ROOTS_LIST,
            InputRequest::Other { method, .. } => method,
        }
    }
}

impl InputRequest {
    /// The client capability this request needs: a server must not ask a
    /// client for input it did not declare. `None` for a method this
    /// implementation does not know.
    pub fn required_capability(&self) -> Option<InputCapability> {
        match self {
            InputRequest::Elicit(ElicitRequestParams::Form { .. }) => {
                Some(InputCapability::FormElicitation)
            }
            InputRequest::Elicit(ElicitRequestParams::Url { .. }) => {
                Some(InputCapability::UrlElicitation)
            }
            InputRequest::Sample(_) => Some(InputCapability::Sampling),
            InputRequest::ListRoots => Some(InputCapability::Roots),
            InputRequest::Other { .. } => None,
        }
    }
}

/// A client capability that input requests need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputCapability {
    /// `elicitation` with form mode (an empty `elicitation: {}` counts).
    FormElicitation,
    /// `elicitation.url`: the client opens a URL the server names.
    UrlElicitation,
    /// `sampling`: the client asks its model for a message.
    Sampling,
    /// `roots`: the client lists the directories and files it shares.
    Roots,
}

impl InputCapability {
    /// Whether `declared` includes this capability.
    pub fn is_declared_in(self, declared: &ClientCapabilities) -> bool {
        match self {
            InputCapability::FormElicitation => declared.supports_form_elicitation(),
            InputCapability::UrlElicitation => declared.supports_url_elicitation(),
            InputCapability::Sampling => declared.sampling.is_some(),
            InputCapability::Roots => declared.roots.is_some(),
        }
    }

    /// The smallest declaration that includes this capability: what a
    /// `-32021` error names as `requiredCapabilities`.
    pub fn declaration(self) -> ClientCapabilities {
        let mut declared = ClientCapabilities::default();
        match self {
            InputCapability::FormElicitation => {
                declared.elicitation = Some(ElicitationCapability::default());
            }
            InputCapability::UrlElicitation => {
                declared.elicitation = Some(ElicitationCapability {
                    form: None,
                    url: Some(Map::new()),
                });
            }
            InputCapability::Sampling => declared.sampling = Some(Map::new()),
            InputCapability::Roots => declared.roots = Some(Map::new()),
        }
        declared
    }
}

#[derive(Deserialize)]
struct RawInputRequest {
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}

impl TryFrom<RawInputRequest> for InputRequest {
    type Error = serde_json::Error;

    fn try_from(raw: RawInputRequest) -> Result<Self, Self::Error> {
        let params = || {
            raw.params
                .clone()
                .unwrap_or_else(|| Value::Object(Map::new()))
        };
        Ok(match raw.method.as_str() {
            ELICITATION_CREATE => InputRequest::Elicit(strict::from_value(params())?),
            SAMPLING_CREATE_MESSAGE => InputRequest::Sample(strict::from_value(params())?),
            ROOTS_LIST => InputRequest::ListRoots,
            _ => InputRequest::Other {
                method: raw.method,
                params: raw.params,
            },
        })
    }
}

/// Written by reference, `method` then `params`: a question is
/// serialized on every round that asks it, for its digest and its
/// `inputRequests`, so no copy of its schema is made to write it.
impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("method", self.method())?;
        match self {
            InputRequest::Elicit(params) => map.serialize_entry("params", params)?,
            InputRequest::Sample(params) => map.serialize_entry("params", params)?,
            InputRequest::ListRoots => map.serialize_entry("params", &Map::new())?,
            InputRequest::Other {
                params: Some(params),
                ..
            } => map.serialize_entry("params", params)?,
            InputRequest::Other { params: None, .. } => {}
        }
        map.end()
    }
}

/// Params of `elicitation/create`, by mode.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "Map<String, Value>")]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// In-band form; the answer's `content` matches `requestedSchema`.
    Form {
        /// Why the input is needed.
        message: String,
        /// A flat object schema of primitive properties.
        requested_schema: Value,
    },
    /// Out-of-band interaction at a URL.
    Url {
        /// Why the user should go there.
        message: String,
        /// Where to send the user; valid by construction, as the spec
        /// requires.
        url: AbsoluteUrl,
    },
}

impl TryFrom<Map<String, Value>> for ElicitRequestParams {
    type Error = String;

    fn try_from(mut m: Map<String, Value>) -> Result<Self, String> {
        let message = match m.remove("message") {
            Some(Value::String(s)) => s,
            _ => return Err("elicitation needs a string `message`".into()),
        };
        match m.get("mode").and_then(Value::as_str).unwrap_or("form") {
            "form" => Ok(ElicitRequestParams::Form {
                message,
                requested_schema: m
                    .remove("requestedSchema")
                    .ok_or("form elicitation needs `requestedSchema`")?,
            }),
            "url" => Ok(ElicitRequestParams::Url {
                message,
                url: match m.remove("url") {
                    Some(Value::String(s)) => AbsoluteUrl::parse(&s).map_err(|e| e.to_string())?,
                    _ => return Err("URL elicitation needs a string `url`".into()),
                },
            }),
            other => Err(format!("unknown elicitation mode `{other}`")),
        }
    }
}

/// Written by reference, `mode` first, like [`InputRequest`]'s.
impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        match self {
            ElicitRequestParams::Form {
                message,
                requested_schema,
            } => {
                map.serialize_entry("mode", "form")?;
                map.serialize_entry("message", message)?;
                map.serialize_entry("requestedSchema", requested_schema)?;
            }
            ElicitRequestParams::Url { message, url } => {
                map.serialize_entry("mode", "url")?;
                map.serialize_entry("message", message)?;
                map.serialize_entry("url", url.as_str())?;
            }
        }
        map.end()
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted; `content` holds the data (form mode).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The client's answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted data, on accept in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// An accept carrying `content`.
    pub fn accept(content: Value) -> Self {
        ElicitResult {
            action: ElicitAction::Accept,
            content: match content {
                Value::Object(m) => Some(m),
                _ => None,
            },
        }
    }

    /// The user said no: `action: "decline"`, no content.
    pub fn decline() -> Self {
        ElicitResult {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// The user dismissed the question without answering:
    /// `action: "cancel"`, no content.
    pub fn cancel() -> Self {
        ElicitResult {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}

/// The speaker of a message, in sampling and in prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human side of the conversation.
    User,
    /// The model.
    Assistant,
}

/// One message, or several blocks, of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SamplingContent {
    /// A single block.
    One(Content),
    /// Several blocks.
    Many(Vec<Content>),
    /// Blocks this implementation does not model (tool use and tool results).
    Raw(Value),
}

/// A message in a sampling request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Whose message.
    pub role: Role,
    /// What it says.
    pub content: SamplingContent,
}

impl SamplingMessage {
    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::User,
            content: SamplingContent::One(Content::text(text)),
        }
    }
}

/// Params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Upper bound on the reply's tokens.
    #[serde(rename = "maxTokens")]
    pub max_tokens: u32,
    /// The system prompt the server asks for; the client may change or drop it.
    #[serde(
        rename = "systemPrompt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Strings at which the model stops generating.
    #[serde(
        rename = "stopSequences",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_sequences: Option<Vec<String>>,
    /// Model preferences, passed through untouched.
    #[serde(
        rename = "modelPreferences",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub model_preferences: Option<Value>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl CreateMessageParams {
    /// A request for a reply to `messages` of at most `max_tokens`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u32) -> Self {
        CreateMessageParams {
            messages,
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: None,
            model_preferences: None,
            metadata: None,
        }
    }
}

/// The client's answer to `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageResult {
    /// Normally `assistant`.
    pub role: Role,
    /// The reply.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped.
    #[serde(
        rename = "stopReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The first text block of the reply.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            SamplingContent::One(c) => c.as_text(),
            SamplingContent::Many(cs) => cs.iter().find_map(Content::as_text),
            SamplingContent::Raw(_) => None,
        }
    }
}

/// A root the client exposes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The client's answer to `roots/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The directories and files the client shares, as `file://` URIs.
    pub roots: Vec<Root>,
}

/// "Answer these, then retry": the MRTR result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRequiredResult {
    /// Always `input_required`.
    #[serde(rename = "resultType")]
    pub result_type: ResultType,
    /// What the client must answer before retrying.
    #[serde(
        rename = "inputRequests",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_requests: Option<InputRequests>,
    /// Opaque server state the client echoes verbatim.
    #[serde(
        rename = "requestState",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub request_state: Option<String>,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// Writes the params struct of a method a server may answer with
/// [`InputRequiredResult`]: the fields you list, then the two MRTR retry
/// fields and `_meta`.
///
/// `tools/call`, `prompts/get` and `resources/read` can each be retried
/// with answers, so each carries `inputResponses` and `requestState`. The
/// macro writes those fields, their docs and their serde names once. It
/// does not use `#[serde(flatten)]`: a flattened struct makes serde buffer
/// every field of the params, and the retry is read on the MRTR path.
///
/// The fields name `InputResponses` and `RequestMeta`: import both where
/// you call it.
macro_rules! mrtr_params {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $(
                $(#[$field_attr:meta])*
                pub $field:ident: $ty:ty,
            )*
        }
    ) => {
        $(#[$attr])*
        pub struct $name {
            $(
                $(#[$field_attr])*
                pub $field: $ty,
            )*
            /// The answers to the `inputRequests` of the previous round,
            /// under the same keys. Absent on a first call.
            #[serde(
                rename = "inputResponses",
                default,
                skip_serializing_if = "Option::is_none"
            )]
            pub input_responses: Option<InputResponses>,
            /// The `requestState` of the previous round, echoed byte for
            /// byte. Absent on a first call, and when the server sent none.
            #[serde(
                rename = "requestState",
                default,
                skip_serializing_if = "Option::is_none"
            )]
            pub request_state: Option<String>,
            /// Request metadata. The server reads and checks it before
            /// the method's own params, so it is optional here.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<RequestMeta>,
        }
    };
}
pub(crate) use mrtr_params;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_requests_round_trip() {
        let wire = json!({
            "a": {"method": "elicitation/create", "params": {"mode": "form", "message": "m",
                   "requestedSchema": {"type": "object", "properties": {}}}},
            "b": {"method": "roots/list", "params": {}},
            "c": {"method": "sampling/createMessage", "params": {"maxTokens": 5,
                   "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}},
            "d": {"method": "elicitation/create", "params": {"mode": "url", "message": "go",
                   "url": "https://example.com"}}
        });
        let parsed: InputRequests = serde_json::from_value(wire.clone()).unwrap();
        assert!(matches!(
            parsed["a"],
            InputRequest::Elicit(ElicitRequestParams::Form { .. })
        ));
        assert!(matches!(
            parsed["d"],
            InputRequest::Elicit(ElicitRequestParams::Url { .. })
        ));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), wire);
    }

    #[test]
    fn input_responses_classify_by_shape_and_keep_odd_objects() {
        let wire = json!({
            "e": {"action": "decline"},
            "s": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
            "r": {"roots": [{"uri": "file:///a"}]},
            "odd": {"action": "maybe"},
            "nested": {"roots": [["file:///a", "A"]]},
            "tagless": {"whatever": true}
        });
        let parsed: InputResponses = strict::from_value(wire.clone()).unwrap();
        assert_eq!(parsed["e"], InputResponse::Elicit(ElicitResult::decline()));
        assert!(matches!(parsed["s"], InputResponse::Sample(ref r) if r.text() == Some("Paris")));
        assert!(matches!(parsed["r"], InputResponse::Roots(ref r) if r.roots.len() == 1));
        // Objects that are no answer are kept, to be asked again; a root
        // given by position is not read as one.
        for key in ["odd", "nested", "tagless"] {
            assert!(matches!(parsed[key], InputResponse::Other(_)), "{key}");
        }
        assert_eq!(serde_json::to_value(&parsed).unwrap(), wire);
    }

    #[test]
    fn an_answer_that_is_not_an_object_is_refused() {
        for (answer, found) in [
            (json!(["accept", {"ok": true}]), "an array"),
            (json!(12345), "a number"),
            (json!("accept"), "a string"),
        ] {
            let error = strict::from_value::<InputResponses>(json!({"k": answer})).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("`.k`: expected an object, found {found}")
            );
        }
        // Whichever deserializer reads it.
        assert!(serde_json::from_value::<InputResponse>(json!(["accept", {}])).is_err());
    }

    #[test]
    fn sampled_content_given_by_position_is_not_read_as_text() {
        let answer = json!({"role": "assistant", "content": ["text", "Paris"], "model": "m"});
        let InputResponse::Sample(reply) = strict::from_value(answer).unwrap() else {
            panic!("a sampling answer");
        };
        assert_eq!(reply.text(), None);
        assert!(matches!(reply.content, SamplingContent::Raw(_)));
    }

    #[test]
    fn url_elicitation_needs_a_valid_url_and_has_no_elicitation_id() {
        let bad = json!({"mode": "url", "message": "go", "url": "not a url"});
        let error = serde_json::from_value::<ElicitRequestParams>(bad).unwrap_err();
        assert!(
            error.to_string().contains("not a valid absolute URL"),
            "{error}"
        );
        let good = ElicitRequestParams::Url {
            message: "go".into(),
            url: AbsoluteUrl::parse("https://example.com/a").unwrap(),
        };
        assert_eq!(
            serde_json::to_value(&good).unwrap(),
            json!({"mode": "url", "message": "go", "url": "https://example.com/a"})
        );
    }

    #[test]
    fn each_request_names_the_capability_it_needs() {
        let form = InputRequest::Elicit(ElicitRequestParams::Form {
            message: "m".into(),
            requested_schema: json!({"type": "object"}),
        });
        let url = InputRequest::Elicit(ElicitRequestParams::Url {
            message: "m".into(),
            url: AbsoluteUrl::parse("https://example.com").unwrap(),
        });
        let cases = [
            (form, InputCapability::FormElicitation),
            (url, InputCapability::UrlElicitation),
            (InputRequest::ListRoots, InputCapability::Roots),
            (
                InputRequest::Sample(Box::new(CreateMessageParams::new(vec![], 1))),
                InputCapability::Sampling,
            ),
        ];
        for (request, capability) in cases {
            assert_eq!(request.required_capability(), Some(capability));
            assert!(!capability.is_declared_in(&ClientCapabilities::default()));
            assert!(capability.is_declared_in(&capability.declaration()));
        }
        // An empty `elicitation: {}` is form mode only.
        let empty = InputCapability::FormElicitation.declaration();
        assert!(!InputCapability::UrlElicitation.is_declared_in(&empty));
        assert!(
            !InputCapability::FormElicitation
                .is_declared_in(&InputCapability::UrlElicitation.declaration())
        );
    }

    #[test]
    fn form_mode_is_the_default() {
        let p: ElicitRequestParams =
            serde_json::from_value(json!({"message": "m", "requestedSchema": {}})).unwrap();
        assert!(matches!(p, ElicitRequestParams::Form { .. }));
        let err =
            serde_json::from_value::<ElicitRequestParams>(json!({"message": "m", "mode": "x"}));
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("unknown elicitation mode")
        );
    }
}
