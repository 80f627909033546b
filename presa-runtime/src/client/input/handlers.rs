//! The client's answers to input requests, and the capabilities they imply.
//!
//! A client declares exactly the capabilities it has handlers for, so a
//! server never asks it for input it cannot give.
//!
//! A server files each input request under a key of its own choosing
//! (`confirm`, `region`), and one call or task may ask several at once, of
//! the same kind. The key is what tells them apart, so a handler receives
//! it with the request, as a [`PendingInput`], along with the task that
//! asked when the request came from one. A legacy server asks with a
//! request of its own instead, filed under no key: the handler then sees
//! the request's JSON-RPC id as its key.
//!
//! An accepted form answer gets the schema's `default` for each field the
//! handler left out, as the spec asks of clients that support defaults.
//!
//! A sampling handler may decline (`sampling`). A tool call's round then
//! ends at once: its other answers would go nowhere, since the call is
//! not retried. A task's round answers every other request all the same,
//! for the task to take in.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::{join_all, try_join_all};
use serde_json::{Map, Value};

use super::sampling::SamplingDeclined;
use crate::client::error::ClientError;
use crate::util::BoxFuture;
use crate::wire::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitAction,
    ElicitRequestParams, ElicitResult, ElicitationCapability, InputRequest, InputRequests,
    InputResponse, InputResponses, ListRootsResult, Root,
};

/// One input request as a handler sees it: where the server filed it, and
/// what it asks.
///
/// `P` is the request's params: [`ElicitRequestParams`] for
/// [`on_elicitation`](crate::client::ClientBuilder::on_elicitation),
/// [`CreateMessageParams`] for [`on_sampling`](crate::client::ClientBuilder::on_sampling),
/// and `()` for [`on_roots`](crate::client::ClientBuilder::on_roots), since
/// `roots/list` has none.
///
/// ```
/// use presa_runtime::client::{Client, PendingInput};
/// use presa_runtime::wire::{ElicitRequestParams, ElicitResult};
/// use serde_json::json;
///
/// let builder = Client::builder().on_elicitation(
///     |input: PendingInput<ElicitRequestParams>| async move {
///         match input.key.as_str() {
///             "region" => ElicitResult::accept(json!({"region": "eu-west"})),
///             _ => ElicitResult::accept(json!({"ok": true})),
///         }
///     },
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PendingInput<P> {
    /// The key the server filed the request under in `inputRequests`; the
    /// answer goes back under the same key. A legacy server files nothing
    /// under a key: its request's JSON-RPC id is the key then.
    pub key: String,
    /// The task that asked, when the request came from one
    /// ([`Client::await_task`](crate::client::Client::await_task)); `None` for a
    /// round of a plain tool call.
    pub task_id: Option<String>,
    /// What the server asks.
    pub params: P,
}

type Handler<P, Res> = Arc<dyn Fn(PendingInput<P>) -> BoxFuture<Res> + Send + Sync>;

/// The registered input handlers.
#[derive(Default)]
pub(crate) struct Handlers {
    pub elicitation: Option<Handler<ElicitRequestParams, ElicitResult>>,
    pub url_elicitation: bool,
    pub sampling:
        Option<Handler<CreateMessageParams, Result<CreateMessageResult, SamplingDeclined>>>,
    pub roots: Option<Handler<(), Vec<Root>>>,
}

/// Boxes a user's handler function.
pub(crate) fn boxed<P, Res, F, Fut>(f: F) -> Handler<P, Res>
where
    F: Fn(PendingInput<P>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Res> + Send + 'static,
{
    Arc::new(move |input| f(input).boxed())
}

/// What a task's round of answers came to: the answers given, and the
/// first sampling request declined, if one was.
#[derive(Default)]
pub(crate) struct Answered {
    /// The answers, each under its request's key.
    pub responses: InputResponses,
    /// A [`ClientError::SamplingDeclined`], for the request left out.
    pub declined: Option<ClientError>,
}

impl Handlers {
    /// The capabilities these handlers let the client declare.
    pub fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            elicitation: self.elicitation.as_ref().map(|_| ElicitationCapability {
                form: Some(Map::new()),
                url: self.url_elicitation.then(Map::new),
            }),
            sampling: self.sampling.as_ref().map(|_| Map::new()),
            roots: self.roots.as_ref().map(|_| Map::new()),
            ..Default::default()
        }
    }

    /// Answers every request, concurrently, each under its own key; for
    /// task `task_id` when a task asked. Fails before asking anything if one
    /// of them has no handler, so that no answer the user gave is thrown
    /// away, and at the first sampling request declined (see the module
    /// docs), dropping the answers still being given.
    pub async fn answer(
        &self,
        requests: InputRequests,
        task_id: Option<&str>,
    ) -> Result<InputResponses, ClientError> {
        self.check(&requests)?;
        let answers = requests
            .into_iter()
            .map(|(key, request)| self.answer_keyed(key, request, task_id));
        Ok(try_join_all(answers).await?.into_iter().collect())
    }

    /// Answers every request of task `task_id`, concurrently, each under
    /// its own key: a declined sampling request is left out and told, the
    /// others answered all the same. Fails, before asking anything, only
    /// when one of them has no handler.
    pub async fn answer_task(
        &self,
        requests: InputRequests,
        task_id: &str,
    ) -> Result<Answered, ClientError> {
        self.check(&requests)?;
        let answers = requests
            .into_iter()
            .map(|(key, request)| self.answer_keyed(key, request, Some(task_id)));
        let mut answered = Answered::default();
        for answer in join_all(answers).await {
            match answer {
                Ok((key, response)) => {
                    answered.responses.insert(key, response);
                }
                Err(declined @ ClientError::SamplingDeclined { .. }) => {
                    answered.declined.get_or_insert(declined);
                }
                Err(other) => return Err(other),
            }
        }
        Ok(answered)
    }

    /// Fails if one of `requests` has no handler.
    fn check(&self, requests: &InputRequests) -> Result<(), ClientError> {
        match requests.values().find(|r| !self.handles(r)) {
            Some(request) => Err(no_handler(request)),
            None => Ok(()),
        }
    }

    /// Answers `request`, filed under `key`, with its key.
    async fn answer_keyed(
        &self,
        key: String,
        request: InputRequest,
        task_id: Option<&str>,
    ) -> Result<(String, InputResponse), ClientError> {
        let input = PendingInput {
            key: key.clone(),
            task_id: task_id.map(str::to_owned),
            params: request,
        };
        Ok((key, self.answer_one(input).await?))
    }

    fn handles(&self, request: &InputRequest) -> bool {
        match request {
            InputRequest::Elicit(_) => self.elicitation.is_some(),
            InputRequest::Sample(_) => self.sampling.is_some(),
            InputRequest::ListRoots => self.roots.is_some(),
            InputRequest::Other { .. } => false,
        }
    }

    /// Answers one request through its handler, whichever era asked: a
    /// modern `inputRequests` entry under its key, or a legacy server's own
    /// request.
    pub async fn answer_one(
        &self,
        input: PendingInput<InputRequest>,
    ) -> Result<InputResponse, ClientError> {
        let PendingInput {
            key,
            task_id,
            params: request,
        } = input;
        let missing = no_handler(&request);
        let response = match request {
            InputRequest::Elicit(params) => {
                let handler = self.elicitation.as_ref().ok_or(missing)?;
                let form = match &params {
                    ElicitRequestParams::Form {
                        requested_schema, ..
                    } => Some(requested_schema.clone()),
                    ElicitRequestParams::Url { .. } => None,
                };
                let answer = handler(PendingInput {
                    key,
                    task_id,
                    params,
                })
                .await;
                match form {
                    Some(schema) => with_defaults(answer, &schema).into(),
                    None => answer.into(),
                }
            }
            InputRequest::Sample(params) => {
                let handler = self.sampling.as_ref().ok_or(missing)?;
                let input = PendingInput {
                    key: key.clone(),
                    task_id: task_id.clone(),
                    params: *params,
                };
                let declined = |declined: SamplingDeclined| ClientError::SamplingDeclined {
                    key,
                    task_id,
                    reason: declined.into_reason(),
                };
                handler(input).await.map_err(declined)?.into()
            }
            InputRequest::ListRoots => {
                let handler = self.roots.as_ref().ok_or(missing)?;
                let input = PendingInput {
                    key,
                    task_id,
                    params: (),
                };
                let roots = handler(input).await;
                ListRootsResult { roots }.into()
            }
            InputRequest::Other { .. } => return Err(missing),
        };
        Ok(response)
    }
}

/// An accepted form answer with the schema's `default` for every field
/// the user left out, as the spec asks of clients that support defaults
/// (SEP-1034): the server then sees each field it offered a default for.
fn with_defaults(mut answer: ElicitResult, requested_schema: &Value) -> ElicitResult {
    if answer.action != ElicitAction::Accept {
        return answer;
    }
    let Some(properties) = requested_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return answer;
    };
    let content = answer.content.get_or_insert_with(Map::new);
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
    answer
}

fn no_handler(request: &InputRequest) -> ClientError {
    ClientError::NoHandler {
        method: request.method().to_owned(),
    }
}
