//! What a legacy server asks of its client as requests of its own:
//! `elicitation/create`, `sampling/createMessage` and `roots/list`.
//!
//! A modern server puts these in an `InputRequiredResult`; a legacy one
//! sends each as a JSON-RPC request and waits for the response. The
//! params are the same [`InputRequest`]s, with two legacy additions:
//!
//! - a URL-mode elicitation carries an `elicitationId`, unique within the
//!   server;
//! - a request made for a task carries the task's id under
//!   [`RELATED_TASK`](super::tasks::RELATED_TASK) in `_meta`.
//!
//! [`OutgoingRequest`] builds such a request, for a server; [`IncomingRequest`]
//! reads one, for a client.

use serde_json::{Map, Value, json};

use super::tasks::RelatedTask;
use crate::wire::protocol::{ElicitRequestParams, InputRequest};

/// A server-to-client request, ready to be given an id and sent.
#[derive(Debug, Clone, PartialEq)]
pub struct OutgoingRequest {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// Its params, in the legacy shape.
    pub params: Value,
}

impl OutgoingRequest {
    /// `request` as a legacy request. `elicitation_id` names a URL-mode
    /// elicitation (ignored for the others); `task` is the task the
    /// request is made for.
    pub fn new(request: &InputRequest, elicitation_id: &str, task: Option<&str>) -> Self {
        let mut params = match serde_json::to_value(request).expect("a request serializes") {
            Value::Object(mut raw) => raw.remove("params").unwrap_or_else(|| json!({})),
            _ => json!({}),
        };
        if matches!(
            request,
            InputRequest::Elicit(ElicitRequestParams::Url { .. })
        ) {
            params["elicitationId"] = elicitation_id.into();
        }
        if let Some(task) = task {
            params["_meta"] = Value::Object(RelatedTask::meta(task));
        }
        OutgoingRequest {
            method: request.method().to_owned(),
            params,
        }
    }
}

/// A server-to-client request as a legacy client reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRequest {
    /// What is asked, in the same type a modern `inputRequests` entry has.
    pub request: InputRequest,
    /// The task it is asked for, from `_meta`.
    pub related_task: Option<String>,
    /// The id of a URL-mode elicitation.
    pub elicitation_id: Option<String>,
}

impl IncomingRequest {
    /// Reads the request `method` with `params`. A method presa does not
    /// know reads as [`InputRequest::Other`]; params that do not fit their
    /// method are an error naming what is wrong.
    pub fn parse(method: &str, params: Option<Value>) -> Result<Self, serde_json::Error> {
        let meta = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let elicitation_id = params
            .as_ref()
            .and_then(|p| p.get("elicitationId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut raw = Map::new();
        raw.insert("method".into(), method.into());
        if let Some(params) = params {
            raw.insert("params".into(), params);
        }
        let request: InputRequest = serde_json::from_value(Value::Object(raw))?;
        Ok(IncomingRequest {
            request,
            related_task: RelatedTask::in_meta(&meta),
            elicitation_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::legacy::schema_check::assert_valid;
    use crate::wire::{AbsoluteUrl, CreateMessageParams, SamplingMessage};

    fn as_request(outgoing: &OutgoingRequest) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": outgoing.method, "params": outgoing.params})
    }

    #[test]
    fn each_request_matches_its_legacy_definition() {
        let form = InputRequest::Elicit(ElicitRequestParams::Form {
            message: "Name?".into(),
            requested_schema: json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        });
        let outgoing = OutgoingRequest::new(&form, "e1", Some("t1"));
        assert_valid("ElicitRequest", &as_request(&outgoing));
        assert!(outgoing.params.get("elicitationId").is_none());
        let url = InputRequest::Elicit(ElicitRequestParams::Url {
            message: "Sign in".into(),
            url: AbsoluteUrl::parse("https://example.com/login").unwrap(),
        });
        let outgoing = OutgoingRequest::new(&url, "e2", None);
        assert_valid("ElicitRequest", &as_request(&outgoing));
        assert_eq!(outgoing.params["elicitationId"], "e2");
        let sample = InputRequest::Sample(Box::new(CreateMessageParams::new(
            vec![SamplingMessage::user("hi")],
            16,
        )));
        assert_valid(
            "CreateMessageRequest",
            &as_request(&OutgoingRequest::new(&sample, "", None)),
        );
        let roots = OutgoingRequest::new(&InputRequest::ListRoots, "", None);
        assert_eq!(roots.method, "roots/list");
        assert_valid("ListRootsRequest", &as_request(&roots));
    }

    #[test]
    fn a_client_reads_back_what_a_server_sent() {
        let url = InputRequest::Elicit(ElicitRequestParams::Url {
            message: "Sign in".into(),
            url: AbsoluteUrl::parse("https://example.com/login").unwrap(),
        });
        let outgoing = OutgoingRequest::new(&url, "e2", Some("t1"));
        let incoming = IncomingRequest::parse(&outgoing.method, Some(outgoing.params)).unwrap();
        assert_eq!(incoming.request, url);
        assert_eq!(incoming.related_task.as_deref(), Some("t1"));
        assert_eq!(incoming.elicitation_id.as_deref(), Some("e2"));
        let roots = IncomingRequest::parse("roots/list", None).unwrap();
        assert_eq!(roots.request, InputRequest::ListRoots);
        assert!(IncomingRequest::parse("elicitation/create", Some(json!({"x": 1}))).is_err());
    }
}
