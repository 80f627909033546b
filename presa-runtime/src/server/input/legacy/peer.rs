//! [`PeerLink`]: a legacy session's third route for input, beside MRTR
//! and the task link. The server sends the client a request of its own
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) and the
//! handler waits for the response: it does not run again.
//!
//! # The outbound request table, by its rules
//!
//! 1. Each request gets an id of its own, `presa-<n>`, counted per
//!    session (`presa-<replica>-<n>` when replicas share the session, so
//!    that the answer finds its way back to the replica that asked), and an entry in the session's table until its response
//!    arrives; the table holds at most `limit` entries
//!    ([`MAX_OUTBOUND`] by default), and a request past that fails the
//!    run with a message that says so, so a client that never answers
//!    cannot grow memory.
//! 2. A response from the client is routed by its id to the waiting
//!    handler; one whose id is not in the table (unknown, or answered
//!    already) is logged and dropped, as any stray response.
//! 3. An answer that does not fit its question (an elicitation whose
//!    content breaks the form, say) is asked again, as a new request, up to
//!    the re-ask limit; one more fails the run, saying why.
//! 4. An error response fails the run with the client's message.
//! 5. Cancellation by drop: a handler that stops waiting (its request was
//!    cancelled, or it gave up in a `select!`) drops the wait, whose guard
//!    removes the entry and tells the client with `notifications/cancelled`
//!    on the session's own queue (the request's stream is gone by then),
//!    but only for a request that went out: on a transport that tracks
//!    delivery ([`PeerLink::track_delivery`]), a request counts as sent
//!    once the transport has taken it to write ([`PeerLink::sent`]), and
//!    one withdrawn before that is not written at all
//!    ([`PeerLink::sending`]), so the client is never told to cancel a
//!    request it never got (a request still on its way when its client
//!    request was cancelled is dropped with that request's stream);
//! 6. when the client is gone (the connection closed, the session ended or
//!    expired) every question fails at once with a message that says so,
//!    and the handlers end instead of waiting out the drain period.
//!
//! A request goes out on the stream of the client request it serves, when
//! there is one (so on HTTP it reaches the POST that is waiting), else on
//! the session's queue.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::{Notify, mpsc, oneshot};

use crate::server::task_engine::{self, TaskLink};
use crate::util::lock;
use crate::wire::legacy::requests::OutgoingRequest;
use crate::wire::notifications::{self, CancelledParams};
use crate::wire::{
    ErrorObject, InputRequest, InputResponse, Message, Notification, Outcome, Request, RequestId,
    Response, codes, strict,
};

/// How many requests to the client one session may have unanswered, by
/// default.
pub const MAX_OUTBOUND: usize = 64;

/// How often an unusable answer is asked again before the run fails.
pub(crate) const MAX_REASKS: u32 = 3;

/// The session's route to its client. Cheap to clone; clones share the
/// table.
#[derive(Clone)]
pub(crate) struct PeerLink {
    inner: Arc<PeerInner>,
}

struct PeerInner {
    table: Mutex<Table>,
    limit: usize,
    /// What each request id starts with: `presa-`, or with the replica's
    /// id when replicas share the session.
    id_prefix: String,
    /// The session's own queue, for what belongs to no client request.
    session: mpsc::Sender<Message>,
    /// Woken when a request enters the table, for a connection that has
    /// stopped reading (see [`PeerLink::asked`]).
    asked: Notify,
}

#[derive(Default)]
struct Table {
    next: u64,
    waiting: HashMap<RequestId, Waiting>,
    /// Whether the transport says when a request is sent (rule 5);
    /// otherwise each counts as sent once it is queued.
    tracked: bool,
    /// The client is gone: nothing more is asked, nothing answered.
    closed: bool,
}

/// A request in the table: where its answer goes, and whether it went out.
struct Waiting {
    answer: oneshot::Sender<Outcome>,
    sent: bool,
}

/// Why a question to the client got no usable answer.
#[derive(Debug)]
pub(crate) struct AskFailed(pub ErrorObject);

/// The replica that asked the request a response with `id` answers, as
/// rule 1 names it: `None` for an id no replica of a shared session made.
#[cfg(feature = "http-server")]
pub(crate) fn asking_replica(id: &RequestId) -> Option<&str> {
    let RequestId::String(id) = id else {
        return None;
    };
    let (replica, n) = id.strip_prefix("presa-")?.rsplit_once('-')?;
    let numbered = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    (numbered && !replica.is_empty()).then_some(replica)
}

impl PeerLink {
    /// Asks `request` under `key` and waits for the answer, which `parse`
    /// must accept (rule 3). Inside the task `task`, the task shows
    /// `input_required` meanwhile. A request goes out on `notifier`, the
    /// stream of the client request it serves, when there is one. The
    /// error of a failure (rules 1, 3, 4 and 6) is the run's.
    pub(crate) async fn ask_parked<T: Send + 'static>(
        self,
        key: String,
        request: InputRequest,
        parse: impl Fn(InputResponse) -> Option<T> + Send + 'static,
        notifier: Option<mpsc::Sender<Message>>,
        task: Option<TaskLink>,
    ) -> Result<T, ErrorObject> {
        let asking = self.ask(
            &key,
            &request,
            parse,
            notifier,
            task.as_ref().map(TaskLink::id),
        );
        let outcome = match &task {
            Some(link) => {
                link.while_asking(key.clone(), request.clone(), asking)
                    .await
            }
            None => asking.await,
        };
        outcome.map_err(|AskFailed(error)| error)
    }

    /// A link whose table holds at most `limit` requests, with `session`
    /// as the session's own queue.
    /// Its request ids name `replica` when there is one (rule 1).
    pub fn new(limit: usize, session: mpsc::Sender<Message>, replica: Option<&str>) -> Self {
        let id_prefix = match replica {
            Some(replica) => format!("presa-{replica}-"),
            None => "presa-".to_owned(),
        };
        PeerLink {
            inner: Arc::new(PeerInner {
                table: Mutex::default(),
                limit,
                id_prefix,
                session,
                asked: Notify::new(),
            }),
        }
    }

    /// Routes a client's response to the request waiting for it (rule 2);
    /// `false` when none is.
    pub fn resolve(&self, response: Response) -> bool {
        let Some(id) = response.id else {
            return false;
        };
        let waiting = lock(&self.inner.table).waiting.remove(&id);
        match waiting {
            Some(waiting) => waiting.answer.send(response.outcome).is_ok(),
            None => false,
        }
    }

    /// From now on a request counts as sent only once the transport says
    /// so with [`PeerLink::sent`], which it must then call for every
    /// request it writes (rule 5). Call it before anything is asked.
    pub fn track_delivery(&self) {
        lock(&self.inner.table).tracked = true;
    }

    /// Whether request `id`, which the transport is about to write, is
    /// still waited for; a request withdrawn before it went out is not
    /// written (rule 5).
    pub fn sending(&self, id: &RequestId) -> bool {
        lock(&self.inner.table).waiting.contains_key(id)
    }

    /// The transport has taken request `id` to write, after every message
    /// taken before it: from now on, withdrawing it tells the client. One
    /// withdrawn, or answered, while it was being taken is cancelled at
    /// once (rule 5).
    pub fn sent(&self, id: &RequestId) {
        let mut table = lock(&self.inner.table);
        if let Some(waiting) = table.waiting.get_mut(id) {
            waiting.sent = true;
            return;
        }
        let closed = table.closed;
        drop(table);
        if !closed {
            self.cancel(id.clone());
        }
    }

    /// Tells the client request `id` is no longer needed, on the session's
    /// own queue.
    fn cancel(&self, id: RequestId) {
        let params = CancelledParams {
            request_id: id,
            reason: Some("the server no longer needs the answer".into()),
        };
        let cancel = Notification::new(notifications::CANCELLED, params);
        if self.inner.session.try_send(cancel.into()).is_err() {
            tracing::debug!("the session queue is full or closed; the cancellation is not sent");
        }
    }

    /// The client is gone (its connection closed, its session ended):
    /// every question waiting fails at once, and so does every new one,
    /// so no handler waits for an answer that cannot come (rule 6).
    pub fn close(&self) {
        let mut table = lock(&self.inner.table);
        table.closed = true;
        table.waiting.clear();
    }

    /// How many requests wait for their response.
    pub fn outstanding(&self) -> usize {
        lock(&self.inner.table).waiting.len()
    }

    /// Resolves once a request has entered the table since the last call
    /// resolved (or at once, if one did before the first call): a
    /// connection that has stopped reading waits on it, since the answer
    /// can only come by reading on. One waiter at a time.
    pub async fn asked(&self) {
        self.inner.asked.notified().await;
    }

    /// Asks `request` under `key` until the answer parses (rules 3 and 4).
    /// `route` is the stream of the client request being served; `task`
    /// the task it runs as, for the `related-task` metadata.
    pub async fn ask<T>(
        &self,
        key: &str,
        request: &InputRequest,
        parse: impl Fn(InputResponse) -> Option<T>,
        route: Option<mpsc::Sender<Message>>,
        task: Option<&str>,
    ) -> Result<T, AskFailed> {
        for attempt in 1..=MAX_REASKS + 1 {
            let raw = self.ask_once(request, route.as_ref(), task).await?;
            let answer = strict::from_value::<InputResponse>(raw)
                .unwrap_or_else(|_| InputResponse::Other(Default::default()));
            if let Some(value) = parse(answer) {
                return Ok(value);
            }
            tracing::debug!(
                key,
                attempt,
                "the answer does not fit the request; asking again"
            );
        }
        Err(AskFailed(crate::server::request::reply::answers_unusable(
            key,
            MAX_REASKS + 1,
        )))
    }

    /// One request and its response (rules 1, 4 and 5).
    async fn ask_once(
        &self,
        request: &InputRequest,
        route: Option<&mpsc::Sender<Message>>,
        task: Option<&str>,
    ) -> Result<Value, AskFailed> {
        let (id, answered) = self.register(request.method())?;
        let outgoing = OutgoingRequest::new(request, &elicitation_id(&id), task);
        let mut pending = Pending {
            link: self.clone(),
            id: Some(id.clone()),
        };
        let message = Message::Request(Request::new(id, outgoing.method.clone(), outgoing.params));
        let queue = route.unwrap_or(&self.inner.session);
        if queue.send(message).await.is_err() {
            pending.id = None;
            return Err(AskFailed(peer_gone(&outgoing.method)));
        }
        let outcome = answered.await;
        pending.id = None;
        match outcome {
            Ok(Outcome::Result(value)) => Ok(value),
            Ok(Outcome::Error(error)) => Err(AskFailed(peer_refused(&outgoing.method, &error))),
            Err(_) => Err(AskFailed(peer_gone(&outgoing.method))),
        }
    }

    /// A new id and its entry in the table, for a request of `method`; an
    /// error at the limit, or once the client is gone.
    fn register(&self, method: &str) -> Result<(RequestId, oneshot::Receiver<Outcome>), AskFailed> {
        let mut table = lock(&self.inner.table);
        if table.closed {
            return Err(AskFailed(peer_gone(method)));
        }
        if table.waiting.len() >= self.inner.limit {
            let message = format!(
                "The client leaves {} requests of this session unanswered, as many as it may; \
                 answer them first",
                self.inner.limit
            );
            return Err(AskFailed(ErrorObject::new(codes::INTERNAL_ERROR, message)));
        }
        table.next += 1;
        let id = RequestId::String(format!("{}{}", self.inner.id_prefix, table.next));
        let (answer, answered) = oneshot::channel();
        let sent = !table.tracked;
        table.waiting.insert(id.clone(), Waiting { answer, sent });
        self.inner.asked.notify_one();
        Ok((id, answered))
    }
}

/// The drop guard of one outbound request (rule 5): while armed, dropping
/// it forgets the request and tells the client it is cancelled.
struct Pending {
    link: PeerLink,
    id: Option<RequestId>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let removed = lock(&self.link.inner.table).waiting.remove(&id);
        if removed.is_some_and(|waiting| waiting.sent) {
            self.link.cancel(id);
        }
    }
}

/// The `elicitationId` of a URL elicitation sent as request `id`: unique
/// within the server, and unguessable, since it may end up in a URL.
fn elicitation_id(id: &RequestId) -> String {
    let random = crate::util::random_id::<12>();
    match id {
        RequestId::String(id) => format!("{id}-{random}"),
        RequestId::Number(n) => format!("{n}-{random}"),
    }
}

/// The error a run fails with when the client answered `method` with an
/// error (rule 4).
fn peer_refused(method: &str, error: &ErrorObject) -> ErrorObject {
    ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!(
            "The client answered `{method}` with an error: {} (code {})",
            error.message, error.code
        ),
    )
}

/// The error a run fails with when the session ended before the answer.
fn peer_gone(method: &str) -> ErrorObject {
    ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!("The session ended before the client answered `{method}`"),
    )
}

impl TaskLink {
    /// Shows the task `input_required` for `key` while `asking` runs: the
    /// question a legacy client is asked with a request of the server's
    /// own, whose answer never reaches the store. The key is withdrawn
    /// when `asking` ends, or is dropped, and the task is `working` again.
    /// Such a handler never sleeps (see the `dormant` module): its answer
    /// comes over the connection, to this run only.
    async fn while_asking<T>(
        &self,
        key: String,
        request: InputRequest,
        asking: impl Future<Output = T>,
    ) -> T {
        self.keep_awake();
        self.register(key.clone(), request);
        // Cancellation by drop: the guard withdraws the key however the
        // wait ends.
        let _waiting = task_engine::Waiting {
            link: self.clone(),
            key: Some(key),
        };
        self.flush().await;
        asking.await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ElicitAction, ElicitRequestParams};
    use serde_json::json;

    #[test]
    #[cfg(feature = "http-server")]
    fn a_shared_sessions_request_id_names_the_replica_that_asked() {
        let (queue, _) = mpsc::channel(1);
        let link = PeerLink::new(4, queue, Some("a-b_c"));
        let (id, _answer) = link.register("roots/list").ok().unwrap();
        assert_eq!(id, RequestId::String("presa-a-b_c-1".into()));
        assert_eq!(asking_replica(&id), Some("a-b_c"));
        for unshared in ["presa-0", "presa--1", "presa-x-", "presa-x-1a", "other-x-1"] {
            assert_eq!(
                asking_replica(&RequestId::String(unshared.into())),
                None,
                "{unshared}"
            );
        }
        assert_eq!(asking_replica(&RequestId::Number(1)), None);
    }

    fn form() -> InputRequest {
        InputRequest::Elicit(ElicitRequestParams::Form {
            message: "Go?".into(),
            requested_schema: json!({"type": "object", "properties": {}}),
        })
    }

    fn action(answer: InputResponse) -> Option<ElicitAction> {
        match answer {
            InputResponse::Elicit(e) => Some(e.action),
            _ => None,
        }
    }

    /// The next request the link sent, answered with `outcome`.
    async fn answer(link: &PeerLink, sent: &mut mpsc::Receiver<Message>, outcome: Outcome) {
        let Some(Message::Request(request)) = sent.recv().await else {
            panic!("expected a request");
        };
        assert_eq!(request.method, "elicitation/create");
        let response = Response {
            jsonrpc: crate::wire::JsonRpcVersion,
            id: Some(request.id),
            outcome,
        };
        assert!(link.resolve(response));
    }

    #[tokio::test]
    async fn an_unusable_answer_is_asked_again_then_fails() {
        let (session, mut sent) = mpsc::channel(8);
        let link = PeerLink::new(4, session, None);
        let asking = {
            let link = link.clone();
            tokio::spawn(async move { link.ask("k", &form(), action, None, None).await })
        };
        answer(&link, &mut sent, Outcome::Result(json!({"nope": 1}))).await;
        answer(
            &link,
            &mut sent,
            Outcome::Result(json!({"action": "decline"})),
        )
        .await;
        assert_eq!(asking.await.unwrap().unwrap(), ElicitAction::Decline);
        let asking = {
            let link = link.clone();
            tokio::spawn(async move { link.ask("k", &form(), action, None, None).await })
        };
        for _ in 0..=MAX_REASKS {
            answer(&link, &mut sent, Outcome::Result(json!({}))).await;
        }
        let AskFailed(error) = asking.await.unwrap().unwrap_err();
        assert!(error.message.contains("did not fit"), "{}", error.message);
        assert_eq!(link.outstanding(), 0);
    }

    #[tokio::test]
    async fn an_error_answer_fails_with_the_clients_message() {
        let (session, mut sent) = mpsc::channel(8);
        let link = PeerLink::new(4, session, None);
        let asking = {
            let link = link.clone();
            tokio::spawn(async move { link.ask("k", &form(), action, None, None).await })
        };
        let refusal = ErrorObject::new(-32601, "no elicitation here");
        answer(&link, &mut sent, Outcome::Error(refusal)).await;
        let AskFailed(error) = asking.await.unwrap().unwrap_err();
        assert!(error.message.contains("no elicitation here"));
    }

    #[tokio::test]
    async fn a_closed_link_fails_waiting_and_new_questions() {
        let (session, mut sent) = mpsc::channel(8);
        let link = PeerLink::new(4, session, None);
        let asking = {
            let link = link.clone();
            tokio::spawn(async move { link.ask("k", &form(), action, None, None).await })
        };
        assert!(matches!(sent.recv().await, Some(Message::Request(_))));
        link.close();
        let AskFailed(error) = asking.await.unwrap().unwrap_err();
        assert!(error.message.contains("session ended"), "{}", error.message);
        let AskFailed(error) = link
            .ask("j", &form(), action, None, None)
            .await
            .unwrap_err();
        assert!(error.message.contains("session ended"));
    }

    #[tokio::test]
    async fn a_dropped_wait_cancels_the_request_and_frees_its_entry() {
        let (session, mut sent) = mpsc::channel(8);
        let link = PeerLink::new(1, session, None);
        let (route, mut routed) = mpsc::channel(8);
        let asking = {
            let link = link.clone();
            tokio::spawn(async move { link.ask("k", &form(), action, Some(route), None).await })
        };
        let Some(Message::Request(request)) = routed.recv().await else {
            panic!("the request goes out on the route");
        };
        assert_eq!(link.outstanding(), 1);
        let refused = link.clone().ask("j", &form(), action, None, None).await;
        assert!(refused.unwrap_err().0.message.contains("unanswered"));
        asking.abort();
        let Some(Message::Notification(cancel)) = sent.recv().await else {
            panic!("expected notifications/cancelled");
        };
        assert_eq!(cancel.method, "notifications/cancelled");
        assert_eq!(cancel.params.unwrap()["requestId"], json!(request.id));
        assert_eq!(link.outstanding(), 0);
        let late = Response::result(request.id, json!({"action": "accept"}));
        assert!(!link.resolve(late), "a late answer is dropped");
    }
}
