//! [`Client`]: what every method of the client goes through, in either
//! era: the protocol, the handlers that answer input, raw requests, and
//! paging.
//!
//! The methods that mean the same in both eras are written once, on top of
//! these; the ones a legacy server answers differently match the server's
//! era (see [`server_era`](Client::server_era)).

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::client::connection::ServerEra;
use crate::client::era::Era;
use crate::client::error::ClientError;
use crate::client::input::{Answered, Handlers};
use crate::client::protocol::{Protocol, parse_complete};
use crate::wire::{InputRequests, InputResponses, Method, MethodSpec};

/// An MCP client. Cheap to clone; clones share the connection. Built with
/// [`Client::builder`].
#[derive(Clone)]
pub struct Client {
    protocol: Arc<Protocol>,
    handlers: Arc<Handlers>,
    /// How many input rounds one call may take.
    max_rounds: usize,
}

impl Client {
    pub(crate) fn new(protocol: Protocol, handlers: Arc<Handlers>, max_rounds: usize) -> Self {
        Client {
            protocol: Arc::new(protocol),
            handlers,
            max_rounds,
        }
    }

    /// How the client speaks to the server, for the requests other files
    /// add to the client.
    pub(crate) fn protocol(&self) -> &Arc<Protocol> {
        &self.protocol
    }

    /// The era of MCP the server speaks. The first request of a client
    /// settles it (by probing, unless
    /// [`ClientBuilder::force_era`](crate::client::ClientBuilder::force_era) says),
    /// and the answer holds for the client's lifetime; calling this first
    /// only settles it sooner. Every method works in either era unless
    /// its documentation says otherwise.
    pub async fn era(&self) -> Result<Era, ClientError> {
        Ok(self.server_era().await?.era())
    }

    /// The server's era, settling it first if need be, for a method whose
    /// meaning differs by era to match (see the rules in `api`).
    pub(crate) async fn server_era(&self) -> Result<ServerEra, ClientError> {
        self.protocol.settled().await
    }

    /// How many input rounds one request may take.
    pub(crate) fn max_rounds(&self) -> usize {
        self.max_rounds
    }

    /// Answers the input requests of a tool call's round through the
    /// registered handlers, each under its key. For the input requests of
    /// a task, use [`answer_task_input_requests`](Self::answer_task_input_requests).
    pub async fn answer_input_requests(
        &self,
        requests: InputRequests,
    ) -> Result<InputResponses, ClientError> {
        self.handlers.answer(requests, None).await
    }

    /// Answers the input requests of task `task_id` through the registered
    /// handlers, each under its key, telling each handler the task; send
    /// the answers with [`update_task`](Self::update_task). A sampling
    /// request the handler declines fails it with
    /// [`ClientError::SamplingDeclined`]; [`await_task`](Self::await_task)
    /// still sends the other answers then.
    pub async fn answer_task_input_requests(
        &self,
        task_id: impl AsRef<str>,
        requests: InputRequests,
    ) -> Result<InputResponses, ClientError> {
        self.handlers.answer(requests, Some(task_id.as_ref())).await
    }

    /// Answers the input requests of task `task_id` as
    /// [`answer_task_input_requests`](Self::answer_task_input_requests)
    /// does, but a declined sampling request is left out and told beside
    /// the other answers.
    pub(crate) async fn answer_task_inputs(
        &self,
        task_id: &str,
        requests: InputRequests,
    ) -> Result<Answered, ClientError> {
        self.handlers.answer_task(requests, task_id).await
    }

    /// Sends a request with the required `_meta` and returns its `result`
    /// as the server sent it, `resultType` and all: interpreting it is the
    /// caller's business. On `-32022` it retries once with a version both
    /// sides support. To a legacy server it goes without the modern
    /// `_meta`, within the session.
    pub async fn request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Value, ClientError> {
        self.protocol.request(method, params).await
    }

    /// Sends `method`, which only ever completes, and parses its result;
    /// any other `resultType` is an invalid response.
    pub(crate) async fn request_complete<P, T>(
        &self,
        method: impl Into<MethodSpec>,
        params: &P,
    ) -> Result<T, ClientError>
    where
        P: Serialize + ?Sized,
        T: serde::de::DeserializeOwned,
    {
        let method = method.into().name;
        parse_complete(method, self.request(method, params).await?)
    }

    /// Closes the connection. A spawned stdio server gets its stdin closed,
    /// then SIGTERM, then SIGKILL, as each grace period lapses (on Windows:
    /// stdin closed, then the process terminated).
    pub async fn close(self) -> std::io::Result<()> {
        self.protocol.close().await
    }
}

/// Every entry of a paginated list, following `nextCursor`; a server that
/// hands out a cursor twice is an error, not an endless loop.
pub(crate) async fn every_page<T, F, Fut>(
    method: Method,
    mut page: F,
) -> Result<Vec<T>, ClientError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ClientError>>,
{
    let mut entries = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor = None;
    loop {
        let (more, next) = page(cursor).await?;
        entries.extend(more);
        match next {
            Some(next) if !seen.insert(next.clone()) => {
                return Err(ClientError::InvalidResponse(format!(
                    "{method} returned the cursor {next:?} twice"
                )));
            }
            Some(next) => cursor = Some(next),
            None => return Ok(entries),
        }
    }
}
