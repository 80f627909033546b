//! JSON-RPC 2.0 framing: ids, requests, notifications, responses and errors.
//!
//! Messages are parsed in two steps: [`Message::from_str`] classifies a frame
//! (request, notification or response) while keeping `params` as raw JSON,
//! and each method then parses its own params. That keeps a malformed
//! `params` object a per-request `-32602`, never a whole-frame `-32700`.
//!
//! A frame is classified by these rules, in order:
//!
//! 1. not JSON → [`FrameError::Parse`] (`-32700`);
//! 2. not an object → [`FrameError::Invalid`] (`-32600`);
//! 3. shaped like a response (a `result` or an `error`, and no `method`) →
//!    a [`Response`], or, when malformed, [`FrameError::Response`], which
//!    has no error response: JSON-RPC never answers a response, so the
//!    receiver logs it and drops it;
//! 4. otherwise a request (with an `id`) or a notification (without), or
//!    [`FrameError::Invalid`] naming what is wrong, with the id when it
//!    could be read.
//!
//! The rules look at six members (`jsonrpc`, `id`, `method`, `params`,
//! `result`, `error`), so [`Message::from_str`] reads a frame's text
//! straight into those, skipping the rest, rather than parsing the whole
//! frame into a map that a server would build and take apart again for
//! every request. [`Message::from_value`] applies the same rules to a
//! frame already parsed.

use std::fmt;
use std::str::FromStr;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::strict;

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

/// The `jsonrpc` member of every message: `"2.0"`, the only version MCP
/// speaks, and the only value this type has. It takes no room and no
/// allocation, and a message read with serde that names another version
/// is refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(VersionVisitor)
    }
}

struct VersionVisitor;

impl Visitor<'_> for VersionVisitor {
    type Value = JsonRpcVersion;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{JSONRPC_VERSION}\"")
    }

    fn visit_str<E: serde::de::Error>(self, version: &str) -> Result<JsonRpcVersion, E> {
        if version == JSONRPC_VERSION {
            Ok(JsonRpcVersion)
        } else {
            Err(E::invalid_value(serde::de::Unexpected::Str(version), &self))
        }
    }
}

/// A request id: a string or an integer, never `null` in MCP.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// A request: carries an id and expects exactly one response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response will echo.
    pub id: RequestId,
    /// The method name, such as `tools/call`.
    pub method: String,
    /// The raw params; each method parses its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl Request {
    /// Builds a request with the given id, method and params.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Value) -> Self {
        Request {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.into(),
            params: Some(params),
        }
    }
}

/// A one-way message; the receiver never answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The notification method, such as `notifications/progress`.
    pub method: String,
    /// The raw params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl Notification {
    /// Builds a notification from a method and params that serialize to an object.
    pub fn new(method: impl Into<String>, params: impl Serialize) -> Self {
        Notification {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params: Some(serde_json::to_value(params).unwrap_or(Value::Null)),
        }
    }
}

/// A response: the result or the error of one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request answered; absent (never `null`) when that id
    /// could not be read, as in a parse error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// `result` or `error`, at the top level of the response: exactly one.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The two ways a request can end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A result object; in MCP it always carries `resultType`.
    Result(Value),
    /// A JSON-RPC error.
    Error(ErrorObject),
}

impl Response {
    /// A successful response carrying `result`.
    pub fn result(id: RequestId, result: Value) -> Self {
        Response {
            jsonrpc: JsonRpcVersion,
            id: Some(id),
            outcome: Outcome::Result(result),
        }
    }

    /// An error response; `id` is `None` only when the request id was unreadable.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Response {
            jsonrpc: JsonRpcVersion,
            id,
            outcome: Outcome::Error(error),
        }
    }

    /// Serializes the response as one line of JSON, as
    /// [`Message::to_line`] does, without first making it a message.
    pub fn to_line(&self) -> String {
        line(self)
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The numeric code; see [`codes`](super::codes).
    pub code: i64,
    /// A short, human-readable description.
    pub message: String,
    /// Structured detail, such as the supported versions for `-32022`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// Any JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: it has an `id`, and waits for a response.
    Request(Request),
    /// A notification: no `id`, and no response.
    Notification(Notification),
    /// A response to the request with the same `id`.
    Response(Response),
}

/// Why a frame is not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FrameError {
    /// The frame is not JSON at all (`-32700`).
    Parse(String),
    /// The frame is JSON but not a valid JSON-RPC message (`-32600`); the id
    /// is kept when it could be read so the error can be correlated.
    Invalid {
        /// The request id, when one was present and well-formed.
        id: Option<RequestId>,
        /// What is wrong.
        reason: String,
    },
    /// The frame is shaped like a response but is not a valid one. It
    /// deserves no reply: JSON-RPC never answers a response.
    Response {
        /// The id of the request it answers, when it could be read.
        id: Option<RequestId>,
        /// What is wrong.
        reason: String,
    },
}

impl FrameError {
    /// The error response this frame deserves; `None` for a malformed
    /// response, which is dropped, never answered.
    pub fn to_response(&self) -> Option<Response> {
        match self {
            FrameError::Parse(reason) => Some(Response::error(
                None,
                ErrorObject::new(super::codes::PARSE_ERROR, format!("Parse error: {reason}")),
            )),
            FrameError::Invalid { id, reason } => Some(Response::error(
                id.clone(),
                ErrorObject::new(
                    super::codes::INVALID_REQUEST,
                    format!("Invalid request: {reason}"),
                ),
            )),
            FrameError::Response { .. } => None,
        }
    }
}

impl FromStr for Message {
    type Err = FrameError;

    /// Reads a frame straight into the members that say what it is
    /// (`Members`): no map of the whole frame is built, and what no rule
    /// reads is skipped, checked only for being JSON.
    fn from_str(frame: &str) -> Result<Self, FrameError> {
        match serde_json::from_str(frame).map_err(|e| FrameError::Parse(e.to_string()))? {
            Frame::Object(members) => members.classify(),
            Frame::NotAnObject => Err(not_an_object()),
        }
    }
}

impl Message {
    /// Classifies a parsed JSON value as a request, notification or
    /// response. A value shaped like a response (a `result` or an `error`,
    /// and no `method`) is read as one first, and, when malformed, is a
    /// [`FrameError::Response`], which is never answered.
    pub fn from_value(value: Value) -> Result<Self, FrameError> {
        let Value::Object(obj) = value else {
            return Err(not_an_object());
        };
        Members::take(obj).classify()
    }

    /// Serializes the message as one line of JSON (no embedded newlines).
    pub fn to_line(&self) -> String {
        match self {
            Message::Request(r) => line(r),
            Message::Notification(n) => line(n),
            Message::Response(r) => r.to_line(),
        }
    }
}

/// One JSON-RPC message as one line of JSON: `serde_json` escapes every
/// newline inside strings.
fn line(message: &impl Serialize) -> String {
    serde_json::to_string(message).expect("JSON-RPC messages always serialize")
}

/// A frame as [`Message::from_str`] reads it: an object's members, or
/// the fact that it is no object (rule 2).
enum Frame {
    Object(Members),
    NotAnObject,
}

/// The members of a frame the rules in the [module docs](self) look at,
/// each as it was sent (`null` included), but `jsonrpc`, of which only
/// whether it is `"2.0"` matters; when a member appears twice, the last
/// one counts, as in a parsed `Value`.
#[derive(Default)]
struct Members {
    speaks_json_rpc_2: bool,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// The name of a member of a frame.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FrameVisitor)
    }
}

struct FrameVisitor;

impl<'de> Visitor<'de> for FrameVisitor {
    type Value = Frame;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Frame, A::Error> {
        let mut members = Members::default();
        while let Some(member) = map.next_key()? {
            let slot = match member {
                Member::Jsonrpc => {
                    members.speaks_json_rpc_2 = is_json_rpc_2(&map.next_value()?);
                    continue;
                }
                Member::Id => &mut members.id,
                Member::Method => &mut members.method,
                Member::Params => &mut members.params,
                Member::Result => &mut members.result,
                Member::Error => &mut members.error,
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(Frame::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Frame, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Frame::NotAnObject)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Frame, E> {
        Ok(Frame::NotAnObject)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Frame, E> {
        Ok(Frame::NotAnObject)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Frame, E> {
        Ok(Frame::NotAnObject)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Frame, E> {
        Ok(Frame::NotAnObject)
    }

    fn visit_str<E>(self, _: &str) -> Result<Frame, E> {
        Ok(Frame::NotAnObject)
    }

    fn visit_unit<E>(self) -> Result<Frame, E> {
        Ok(Frame::NotAnObject)
    }
}

impl Members {
    /// The members of an object already parsed.
    fn take(mut obj: Map<String, Value>) -> Self {
        Members {
            speaks_json_rpc_2: obj.get("jsonrpc").is_some_and(is_json_rpc_2),
            id: obj.remove("id"),
            method: obj.remove("method"),
            params: obj.remove("params"),
            result: obj.remove("result"),
            error: obj.remove("error"),
        }
    }

    /// Rules 3 and 4.
    fn classify(self) -> Result<Message, FrameError> {
        if self.is_response() {
            return self.into_response().map(Message::Response);
        }
        self.into_call()
    }

    /// Whether the frame is shaped like a response: a `result` or an
    /// `error`, and no `method`. Such a frame is never answered, well
    /// formed or not.
    fn is_response(&self) -> bool {
        self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }

    /// A request or a notification, from a frame that is no response.
    fn into_call(self) -> Result<Message, FrameError> {
        let id = match self.id {
            None => None,
            Some(Value::Null) => Some(None),
            Some(raw) => Some(Some(
                serde_json::from_value::<RequestId>(raw)
                    .map_err(|_| invalid(None, "`id` must be a string or an integer"))?,
            )),
        };
        // Cloned only for an error: a good request moves its id on.
        let readable_id = || id.clone().flatten();
        if !self.speaks_json_rpc_2 {
            return Err(invalid(readable_id(), "`jsonrpc` must be \"2.0\""));
        }
        // `params: null` is read as no params, so it meets the same `_meta` check.
        let params = self.params.filter(|p| !p.is_null());
        if params.as_ref().is_some_and(|p| !p.is_object()) {
            return Err(invalid(readable_id(), "`params` must be an object"));
        }
        match self.method {
            Some(Value::String(method)) => match id {
                None => Ok(Message::Notification(Notification {
                    jsonrpc: JsonRpcVersion,
                    method,
                    params,
                })),
                Some(None) => Err(invalid(None, "a request id must not be null")),
                Some(Some(id)) => Ok(Message::Request(Request {
                    jsonrpc: JsonRpcVersion,
                    id,
                    method,
                    params,
                })),
            },
            Some(_) => Err(invalid(readable_id(), "`method` must be a string")),
            None => Err(invalid(
                readable_id(),
                "a message needs `method`, or exactly one of `result` and `error`",
            )),
        }
    }

    /// A response, from a frame shaped like one.
    fn into_response(self) -> Result<Response, FrameError> {
        let id = match self.id {
            None | Some(Value::Null) => None,
            Some(raw) => Some(
                serde_json::from_value::<RequestId>(raw)
                    .map_err(|_| malformed(None, "`id` must be a string or an integer"))?,
            ),
        };
        if !self.speaks_json_rpc_2 {
            return Err(malformed(id, "`jsonrpc` must be \"2.0\""));
        }
        let outcome = match (self.result, self.error) {
            (Some(result), None) => Outcome::Result(result),
            (None, Some(error)) => match strict::from_value(error) {
                Ok(error) => Outcome::Error(error),
                Err(_) => {
                    return Err(malformed(
                        id,
                        "`error` must be an object with a code and a message",
                    ));
                }
            },
            _ => {
                return Err(malformed(
                    id,
                    "a response has exactly one of `result` and `error`",
                ));
            }
        };
        Ok(Response {
            jsonrpc: JsonRpcVersion,
            id,
            outcome,
        })
    }
}

/// Whether a frame's `jsonrpc` member says `"2.0"`.
fn is_json_rpc_2(version: &Value) -> bool {
    version.as_str() == Some(JSONRPC_VERSION)
}

fn not_an_object() -> FrameError {
    invalid(None, "a message must be a JSON object")
}

fn malformed(id: Option<RequestId>, reason: &str) -> FrameError {
    FrameError::Response {
        id,
        reason: reason.to_owned(),
    }
}

fn invalid(id: Option<RequestId>, reason: &str) -> FrameError {
    FrameError::Invalid {
        id,
        reason: reason.to_owned(),
    }
}

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Message::Request(r)
    }
}

impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Message::Notification(n)
    }
}

impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Message::Response(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_each_kind() {
        let req: Message = r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{}}"#
            .parse()
            .unwrap();
        assert!(matches!(
            req,
            Message::Request(Request {
                id: RequestId::Number(1),
                ..
            })
        ));
        let note: Message = r#"{"jsonrpc":"2.0","method":"n"}"#.parse().unwrap();
        assert!(matches!(note, Message::Notification(_)));
        let resp: Message = r#"{"jsonrpc":"2.0","id":"x","result":{"resultType":"complete"}}"#
            .parse()
            .unwrap();
        assert!(matches!(
            resp,
            Message::Response(Response {
                outcome: Outcome::Result(_),
                ..
            })
        ));
    }

    #[test]
    fn rejects_malformed_frames_with_the_right_error() {
        assert!(matches!("{".parse::<Message>(), Err(FrameError::Parse(_))));
        let err = r#"{"jsonrpc":"1.0","id":7,"method":"a"}"#.parse::<Message>().unwrap_err();
        assert_eq!(
            err,
            invalid(Some(RequestId::Number(7)), "`jsonrpc` must be \"2.0\"")
        );
        let err = r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#.parse::<Message>().unwrap_err();
        assert!(matches!(err, FrameError::Invalid { id: None, .. }));
        let err = r#"[1]"#.parse::<Message>().unwrap_err();
        assert_eq!(err.to_response().unwrap().id, None);
        let err = r#"{"jsonrpc":"2.0","id":2,"method":"a","params":[1]}"#
            .parse::<Message>()
            .unwrap_err();
        assert_eq!(err.to_response().unwrap().id, Some(RequestId::Number(2)));
    }

    #[test]
    fn anything_shaped_like_a_response_is_one_and_never_answered() {
        for frame in [
            r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":[-32603,"Internal error"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":{"not":"an id"},"result":{}}"#,
            r#"{"id":1,"result":{},"params":[1]}"#,
        ] {
            let error = frame.parse::<Message>().unwrap_err();
            assert!(
                matches!(error, FrameError::Response { .. }),
                "{frame}: {error:?}"
            );
            assert_eq!(error.to_response(), None, "{frame}");
        }
        let error = r#"{"jsonrpc":"2.0","id":"x","error":"boom"}"#.parse::<Message>().unwrap_err();
        assert_eq!(
            error,
            FrameError::Response {
                id: Some(RequestId::from("x")),
                reason: "`error` must be an object with a code and a message".into()
            }
        );
        // Without `result` or `error`, or with a `method`, it is no response.
        for frame in [
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7,"result":{}}"#,
        ] {
            let error = frame.parse::<Message>().unwrap_err();
            assert!(
                matches!(error, FrameError::Invalid { .. }),
                "{frame}: {error:?}"
            );
        }
    }

    #[test]
    fn a_frame_read_as_text_is_classified_as_its_parsed_value_is() {
        for frame in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":[1,{"y":null}]}}"#,
            r#"{"jsonrpc":"2.0","method":"n","params":null}"#,
            r#"{"jsonrpc":"2.0","id":"x","result":{"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#,
            r#"{"jsonrpc":2,"id":1,"method":"a"}"#,
            r#"{}"#,
            // A member named twice counts once, the last time.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"b","method":"a"}"#,
            // Escaped names are the names they spell.
            r#"{"jsonrpc":"2.0","\u0069d":3,"m\u0065thod":"a"}"#,
            // Members no rule reads are read past, whatever they hold.
            r#"{"extra":{"deep":[1,2,{"x":"y"}]},"jsonrpc":"2.0","id":4,"method":"a"}"#,
        ] {
            let value: Value = serde_json::from_str(frame).unwrap();
            assert_eq!(
                frame.parse::<Message>(),
                Message::from_value(value),
                "{frame}"
            );
        }
    }

    #[test]
    fn json_that_is_no_object_is_invalid_and_text_that_is_no_json_does_not_parse() {
        for frame in ["[1,{\"a\":[]}]", "[]", "7", "-1.5", "\"x\"", "true", "null"] {
            assert_eq!(
                frame.parse::<Message>(),
                Err(invalid(None, "a message must be a JSON object")),
                "{frame}"
            );
        }
        for frame in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","extra":[1,}"#,
            r#"[1,2"#,
            "",
        ] {
            assert!(
                matches!(frame.parse::<Message>(), Err(FrameError::Parse(_))),
                "{frame}"
            );
        }
    }

    #[test]
    fn the_version_is_written_as_2_0_and_read_only_as_2_0() {
        assert_eq!(serde_json::to_value(JsonRpcVersion).unwrap(), json!("2.0"));
        assert_eq!(
            serde_json::from_value::<JsonRpcVersion>(json!("2.0")).unwrap(),
            JsonRpcVersion
        );
        for other in [json!("1.0"), json!(2), json!(null)] {
            let error = serde_json::from_value::<JsonRpcVersion>(other).unwrap_err();
            assert!(error.to_string().contains("expected \"2.0\""), "{error}");
        }
        let request = r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#;
        assert!(serde_json::from_str::<Request>(request).is_err());
    }

    #[test]
    fn error_response_serializes_null_id() {
        let response = FrameError::Parse("x".into()).to_response().unwrap();
        let line = Message::Response(response).to_line();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], json!(-32700));
    }

    #[test]
    fn an_unknown_id_is_omitted_not_null() {
        // The schema allows `id` to be absent, but never `null`.
        let response = FrameError::Parse("x".into()).to_response().unwrap();
        let line = Message::Response(response).to_line();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert!(!v.as_object().unwrap().contains_key("id"), "{line}");
        let back: Message = line.parse().unwrap();
        assert!(matches!(back, Message::Response(Response { id: None, .. })));
    }
}
