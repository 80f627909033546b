//! What every task of the HTTP link shares (see `dispatch` for what the
//! link does with each message): the HTTP client, the endpoint, the
//! tools' header parameters, and the headers of every POST and of a modern
//! one. The legacy session is not here: `legacy::session` keeps it.
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Map, Value};
use tokio::task::AbortHandle;

use super::options::HttpOptions;
use super::tools::{Known, ToolHeaders};
use crate::transport::FrameSender;
use crate::util::lock;
use crate::wire::headers::{self, encode_value};
use crate::wire::{
    META_PROTOCOL_VERSION, Message, Method, Request, RequestId, Response, TASKS_METHODS,
};

/// What every request task shares.
pub(super) struct Link {
    pub(super) http: reqwest::Client,
    pub(super) endpoint: String,
    pub(super) options: HttpOptions,
    pub(super) tools: ToolHeaders,
    to_client: FrameSender,
    /// Numbers the link's own `tools/list` requests.
    pub(super) refreshes: AtomicU64,
    /// The task of each request still waiting for its answer.
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    /// Signing in, when the options ask for OAuth.
    #[cfg(feature = "oauth-client")]
    pub(super) oauth: Option<crate::client::oauth::OAuthSession>,
}

impl Link {
    /// A link to `endpoint` that hands what comes back `to_client`.
    pub(super) fn new(
        http: reqwest::Client,
        endpoint: String,
        options: HttpOptions,
        to_client: FrameSender,
    ) -> std::io::Result<Link> {
        #[cfg(feature = "oauth-client")]
        let oauth = match options.oauth.clone() {
            Some(config) => Some(
                crate::client::oauth::OAuthSession::new(config, endpoint.clone())
                    .map_err(std::io::Error::other)?,
            ),
            None => None,
        };
        Ok(Link {
            http,
            endpoint,
            options,
            tools: ToolHeaders::default(),
            to_client,
            refreshes: AtomicU64::new(0),
            running: Mutex::default(),
            #[cfg(feature = "oauth-client")]
            oauth,
        })
    }

    /// Records the task that waits for request `id`'s answer.
    pub(super) fn track(&self, id: RequestId, task: AbortHandle) {
        let mut running = lock(&self.running);
        running.retain(|_, task| !task.is_finished());
        running.insert(id, task);
    }

    /// Drops the task that waits for request `id`'s answer; whether one
    /// did.
    pub(super) fn stop(&self, id: &RequestId) -> bool {
        let task = lock(&self.running).remove(id);
        task.map(|task| task.abort()).is_some()
    }

    /// Drops every task still waiting for an answer.
    pub(super) fn stop_all(&self) {
        for (_, task) in lock(&self.running).drain() {
            task.abort();
        }
    }

    /// Hands the client a response that came on another request's stream
    /// (or the GET stream), and drops the task that waited for it on its
    /// own, which would otherwise wait on.
    pub(super) async fn answer_elsewhere(&self, response: Response) {
        if let Some(id) = &response.id {
            self.stop(id);
        }
        self.deliver(Message::Response(response)).await;
    }

    /// Teaches the link the tools a modern `tools/list` answer lists.
    pub(super) fn learn_tools(&self, result: &mut Value) {
        self.tools.learn(result);
    }

    /// The headers of every POST: what the body is, and what may come
    /// back (credentials are `send`'s).
    pub(super) fn base_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers
    }

    /// The base headers plus those a modern `request`'s body mirrors.
    pub(super) fn modern_headers(&self, request: &Request, method: Option<Method>) -> HeaderMap {
        let mut headers = self.base_headers();
        let params = request.params.as_ref();
        let version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str);
        let mut put = |name: &str, value: &str| insert(&mut headers, name, value);
        if let Some(version) = version {
            put(headers::PROTOCOL_VERSION, version);
        }
        put(headers::METHOD, &request.method);
        let name = method
            .and_then(Method::name_param)
            .or_else(|| {
                let spec = TASKS_METHODS.iter().find(|m| m.name == request.method)?;
                spec.name_param
            })
            .and_then(|field| params?.get(field)?.as_str());
        if let Some(name) = name {
            put(headers::NAME, name);
        }
        if method == Some(Method::ToolsCall)
            && let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str)
            && let Some(Known::Usable(params_with_headers)) = self.tools.get(tool)
        {
            let empty = Map::new();
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for param in params_with_headers {
                if let Some(Ok(value)) = param.value_in(arguments) {
                    put(&param.header_name(), &value);
                }
            }
        }
        headers
    }

    /// Hands a message to the client.
    pub(super) async fn deliver(&self, message: Message) {
        // A closed channel means the client is gone; nobody is waiting.
        let _ = self.to_client.send(message.to_line()).await;
    }
}

/// Sets header `name` to `value`, encoded as the header rules say.
fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    let name = reqwest::header::HeaderName::from_bytes(name.as_bytes());
    let value = HeaderValue::from_str(&encode_value(value));
    if let (Ok(name), Ok(value)) = (name, value) {
        headers.insert(name, value);
    }
}

/// Whether a reply is an event stream.
pub(super) fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}
