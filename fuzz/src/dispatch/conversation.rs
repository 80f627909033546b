//! What the harness knows of one connection: what the client wrote, read
//! as the server reads it, the era each request is served in, and what
//! the server said that the placeholders stand for.
//!
//! The era of a message follows from the server's rules (the module docs
//! of `presa_runtime::server::connection`), by these, in order:
//!
//! 1. a request's era is decided when the server reads it. The harness
//!    reads each line it writes as the server will (the line without its
//!    newline and one carriage return, at most [`MESSAGE_LIMIT`] bytes of
//!    UTF-8, parsed as a [`Message`]): the connection is modern until the
//!    first request that [`opens_session`] with params that read as
//!    [`InitializeParams`], and every request read after that one is
//!    served in the session, whatever its `_meta` says;
//! 2. a response is checked in the era of the request it answers, found
//!    by its id (a frame that is no message but has an id may be answered
//!    `-32600` with it). The session's opening `initialize` must be answered with
//!    a result, any other `initialize` before it with an error. A result
//!    must answer a request the client sent; an id the client used in both
//!    eras (or twice in one) lets the response pass if it keeps the rules
//!    of any request that had it;
//! 3. what the server writes of its own accord is modern until the
//!    harness has read the session's `InitializeResult`, which the server
//!    writes before anything of the session's. After it, a notification
//!    that names a modern `subscriptions/listen` of the client's as its
//!    `subscriptionId` belongs to that stream (which may end with a
//!    `notifications/cancelled` after its result), and is modern; any
//!    other keeps the legacy rules, or either era's while a modern request
//!    read before the session may still be running (its id has not been
//!    answered as often as it was sent, counted only for ids no legacy
//!    request used, so that the count never ends too early);
//! 4. a request of the server's is legal only once the session's
//!    `InitializeResult` has been read, never reuses an id, and is queued
//!    for a line of the client's to answer with `@REQUEST@`.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;

use presa::wire::legacy::lifecycle::InitializeParams;
use presa::wire::legacy::opens_session;
use presa::wire::{
    ClientCapabilities, META_SUBSCRIPTION_ID, Message, Method, Outcome, Request, RequestId,
    Response, codes, strict,
};
use serde_json::{Map, Value};

use super::era::{self, Broken, Era};
use super::{MESSAGE_LIMIT, REQUEST_PLACEHOLDER, STATE_PLACEHOLDER, TASK_PLACEHOLDER};

/// One connection's exchange so far; the writer and the reader share it.
#[derive(Default)]
pub(super) struct Conversation(Mutex<State>);

#[derive(Default)]
struct State {
    /// Every request the client sent, by id, in the order sent (rule 1).
    sent: HashMap<RequestId, Vec<Sent>>,
    /// What the client declared in the `initialize` that opens the
    /// session, once it is written.
    session: Option<ClientCapabilities>,
    /// Whether the session's `InitializeResult` has been read (rule 3).
    opened: bool,
    /// How many modern requests of each id may still be running, listen
    /// streams aside (rule 3).
    running_modern: HashMap<RequestId, usize>,
    /// The ids of the modern `subscriptions/listen` requests (rule 3).
    modern_listens: HashSet<RequestId>,
    /// The ids of the server's requests (rule 4).
    asked: HashSet<RequestId>,
    /// The latest task id the server gave.
    task: Option<String>,
    /// The latest `requestState` it issued.
    state: Option<String>,
    /// The server's requests that no `@REQUEST@` has stood for yet.
    questions: VecDeque<String>,
}

/// A request of the client's, as the server reads it.
#[derive(Debug, Clone)]
struct Sent {
    era: Era,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// The `initialize` that opens the session, asking for `version`.
    Opens { version: String },
    /// An `initialize` before the session whose params are not those of
    /// one.
    Unreadable,
    /// A frame that is no message but has an id, which the error that
    /// answers it carries.
    Invalid,
    /// Any other request: its method, and for `tools/call` whether it
    /// has a `task` param.
    Other { method: String, task: bool },
}

impl Sent {
    fn result(&self, result: &Value) -> Broken {
        match (&self.kind, self.era) {
            (Kind::Opens { version }, _) => era::initialize_result(version, result),
            (Kind::Unreadable, _) => Err("a result for an `initialize` that cannot be read".into()),
            (Kind::Invalid, _) => Err("a result for a frame that is no request".into()),
            (Kind::Other { .. }, Era::Modern) => era::modern_result(result),
            (Kind::Other { method, task }, Era::Legacy) => {
                era::legacy_result(method, *task, result)
            }
        }
    }

    fn error(&self, error: &presa::wire::ErrorObject) -> Broken {
        match (&self.kind, self.era) {
            (Kind::Opens { .. }, _) => {
                Err("an error for the `initialize` that opens the session".into())
            }
            (Kind::Invalid, _) if error.code == codes::INVALID_REQUEST => Ok(()),
            (Kind::Invalid, _) => Err(format!("{} for a frame that is no request", error.code)),
            (Kind::Unreadable, _) | (Kind::Other { .. }, Era::Legacy) => era::legacy_error(error),
            (Kind::Other { .. }, Era::Modern) => era::modern_error(error),
        }
    }

    fn describe(&self) -> String {
        match &self.kind {
            Kind::Opens { version } => {
                format!("the `initialize` at {version} that opens the session")
            }
            Kind::Unreadable => "an unreadable `initialize`".into(),
            Kind::Invalid => "a frame that is no request".into(),
            Kind::Other { method, .. } => format!("{:?} `{method}`", self.era),
        }
    }
}

impl Conversation {
    /// Notes a line the client is about to write (rule 1).
    pub fn client_line(&self, line: &[u8]) {
        let frame = line.strip_suffix(b"\n").unwrap_or(line);
        let frame = frame.strip_suffix(b"\r").unwrap_or(frame);
        if frame.len() > MESSAGE_LIMIT {
            return;
        }
        let Ok(frame) = std::str::from_utf8(frame) else {
            return;
        };
        match frame.parse::<Message>() {
            Ok(Message::Request(request)) => self.lock().sent_request(request),
            Ok(_) => {}
            Err(error) => {
                let Some(id) = error.to_response().and_then(|response| response.id) else {
                    return;
                };
                let sent = Sent {
                    era: Era::Modern,
                    kind: Kind::Invalid,
                };
                self.lock().sent.entry(id).or_default().push(sent);
            }
        }
    }

    /// Checks a message the server wrote, `text` without its newline, and
    /// learns what placeholders stand for; panics on a finding.
    pub fn server_line(&self, text: &str) {
        let message: Message = text
            .parse()
            .unwrap_or_else(|e| panic!("the server wrote an invalid message {text}: {e:?}"));
        let mut state = self.lock();
        let verdict = match message {
            Message::Request(request) => state.server_request(request),
            Message::Notification(notification) => state.notification(&notification),
            Message::Response(response) => state.response(response),
        };
        drop(state);
        if let Err(why) = verdict {
            panic!("the server wrote {text}\n{why}");
        }
    }

    /// Fills in the placeholders of `line`; one with nothing to stand for
    /// yet stays as it is.
    pub fn fill(&self, line: &mut Vec<u8>) {
        let mut state = self.lock();
        let question = find(line, REQUEST_PLACEHOLDER)
            .is_some()
            .then(|| state.questions.pop_front())
            .flatten();
        let values = [
            (TASK_PLACEHOLDER, state.task.clone()),
            (STATE_PLACEHOLDER, state.state.clone()),
            (REQUEST_PLACEHOLDER, question),
        ];
        drop(state);
        for (placeholder, value) in values {
            let Some(value) = value else { continue };
            while let Some(at) = find(line, placeholder) {
                line.splice(at..at + placeholder.len(), value.bytes());
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl State {
    fn sent_request(&mut self, request: Request) {
        let era = match self.session {
            Some(_) => Era::Legacy,
            None => Era::Modern,
        };
        let kind = if era == Era::Modern && opens_session(&request) {
            let params = request.params.unwrap_or_else(|| Value::Object(Map::new()));
            match strict::from_value::<InitializeParams>(params) {
                Ok(params) => {
                    self.session = Some(params.capabilities.to_modern());
                    Kind::Opens {
                        version: params.protocol_version,
                    }
                }
                Err(_) => Kind::Unreadable,
            }
        } else {
            let task = request.method == "tools/call"
                && request
                    .params
                    .as_ref()
                    .is_some_and(|p| p.get("task").is_some());
            let listen = Method::parse(&request.method) == Some(Method::SubscriptionsListen);
            if era == Era::Modern && listen {
                self.modern_listens.insert(request.id.clone());
            } else if era == Era::Modern {
                *self.running_modern.entry(request.id.clone()).or_default() += 1;
            }
            Kind::Other {
                method: request.method,
                task,
            }
        };
        self.sent
            .entry(request.id)
            .or_default()
            .push(Sent { era, kind });
    }

    fn response(&mut self, response: Response) -> Broken {
        let Some(id) = response.id else {
            return match response.outcome {
                Outcome::Error(_) => Ok(()),
                Outcome::Result(_) => Err("a result without an id".into()),
            };
        };
        let legacy_too = self.requests(&id).any(|sent| sent.era == Era::Legacy);
        if !legacy_too && let Some(running) = self.running_modern.get_mut(&id) {
            *running -= 1;
            if *running == 0 {
                self.running_modern.remove(&id);
            }
        }
        let candidates: Vec<Sent> = self.requests(&id).cloned().collect();
        match response.outcome {
            Outcome::Error(error) => {
                if candidates.is_empty() {
                    return Ok(());
                }
                any(&candidates, |sent| sent.error(&error)).map(drop)
            }
            Outcome::Result(result) => {
                if candidates.is_empty() {
                    return Err(format!(
                        "a result for {id}, which no request of the client's had"
                    ));
                }
                let answered = any(&candidates, |sent| sent.result(&result))?;
                if matches!(answered.kind, Kind::Opens { .. }) {
                    self.opened = true;
                }
                self.learn(&result);
                Ok(())
            }
        }
    }

    fn requests(&self, id: &RequestId) -> impl Iterator<Item = &Sent> {
        self.sent.get(id).into_iter().flatten()
    }

    /// The task id and `requestState` of a result, in either era's place.
    fn learn(&mut self, result: &Value) {
        let task = result
            .get("taskId")
            .or_else(|| result.pointer("/task/taskId"))
            .and_then(Value::as_str);
        if let Some(task) = task {
            self.task = Some(task.to_owned());
        }
        if let Some(state) = result.get("requestState").and_then(Value::as_str) {
            self.state = Some(state.to_owned());
        }
    }

    fn notification(&self, notification: &presa::wire::Notification) -> Broken {
        let modern = era::modern_notification(notification);
        let subscription = notification
            .params
            .as_ref()
            .and_then(|p| p.get("_meta")?.get(META_SUBSCRIPTION_ID))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let listening = subscription.is_some_and(|id| self.modern_listens.contains(&id));
        if !self.opened || listening {
            return modern;
        }
        let legacy = era::legacy_notification(notification, |id| self.asked.contains(id));
        match (legacy, self.running_modern.is_empty()) {
            (Ok(()), _) => Ok(()),
            (Err(legacy), true) => Err(format!("in the session: {legacy}")),
            (Err(legacy), false) => modern.map_err(|modern| {
                format!("in the session: {legacy}; from a modern request still running: {modern}")
            }),
        }
    }

    fn server_request(&mut self, request: Request) -> Broken {
        let Some(capabilities) = self.session.as_ref().filter(|_| self.opened) else {
            return Err("a request of the server's outside a legacy session".into());
        };
        era::legacy_request(&request, capabilities)?;
        if !self.asked.insert(request.id.clone()) {
            return Err(format!("the server asks again with id {}", request.id));
        }
        let id = match request.id {
            RequestId::String(id) => id,
            RequestId::Number(n) => n.to_string(),
        };
        self.questions.push_back(id);
        Ok(())
    }
}

/// The first of `candidates` that `check` passes; otherwise why each
/// fails.
fn any(candidates: &[Sent], check: impl Fn(&Sent) -> Broken) -> Result<&Sent, String> {
    let mut reasons = Vec::new();
    for sent in candidates {
        match check(sent) {
            Ok(()) => return Ok(sent),
            Err(why) => reasons.push(format!("as the answer to {}: {why}", sent.describe())),
        }
    }
    Err(reasons.join("\n"))
}

/// Whether `line` holds a placeholder, to be filled in once the server is
/// idle.
pub(super) fn holds_placeholder(line: &[u8]) -> bool {
    [TASK_PLACEHOLDER, STATE_PLACEHOLDER, REQUEST_PLACEHOLDER]
        .into_iter()
        .any(|p| find(line, p).is_some())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
