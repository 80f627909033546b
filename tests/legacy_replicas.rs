//! Legacy (2025-11-25) sessions shared by two replicas through one store,
//! as behind a load balancer without affinity: each request of a session
//! may reach either replica. The replicas are two servers of the same
//! tools in this process, each on a port of its own, sharing a
//! `MemorySessionStore`; `presa-redis` runs the same on Redis, and
//! `scripts/replicas.sh` behind a real proxy.
#![cfg(all(feature = "http-server", feature = "http-client"))]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use common::legacy_http::{Events, Legacy, serve};
use presa::server::http::{
    BearerTokens, ChannelMessages, LegacySessionStore, LegacySessions, MemorySessionStore,
    SessionRecord, SessionStoreError, StreamableHttp,
};
use presa::server::{InMemoryTaskStore, Server};
use serde_json::{Value, json};

/// Two replicas of one server on one store.
struct Replicas {
    a: Replica,
    b: Replica,
    store: MemorySessionStore,
}

struct Replica {
    url: String,
    fixture: common::Fixture,
}

impl Replicas {
    async fn start() -> Replicas {
        Self::start_with(|http| http, LegacySessions::new()).await
    }

    /// Two replicas, each configured by `configure` too, keeping their
    /// sessions as `sessions` says (and in the shared store).
    async fn start_with(
        configure: impl Fn(StreamableHttp) -> StreamableHttp,
        sessions: LegacySessions,
    ) -> Replicas {
        let store = MemorySessionStore::new();
        let tasks = Arc::new(InMemoryTaskStore::default());
        let mut replicas = Vec::new();
        for _ in 0..2 {
            let fixture = common::fixture_with(|b| {
                b.resource(common::surface::ReadmeResource)
                    .task_store(Arc::clone(&tasks))
            });
            let sessions = sessions.clone().shared(store.clone());
            let http =
                configure(StreamableHttp::new(fixture.server.clone())).legacy_sessions(sessions);
            let url = serve(http).await;
            replicas.push(Replica { url, fixture });
        }
        let b = replicas.pop().unwrap();
        let a = replicas.pop().unwrap();
        Replicas { a, b, store }
    }
}

/// `legacy`'s session, through the replica at `url`.
fn through(legacy: &Legacy, url: &str) -> Legacy {
    Legacy {
        url: url.to_owned(),
        session: legacy.session.clone(),
        token: legacy.token,
    }
}

async fn ping(legacy: &Legacy, id: i64) -> Value {
    legacy.call(id, "ping", json!({})).await
}

#[tokio::test]
async fn a_session_opened_on_one_replica_is_served_and_ended_by_the_other() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    assert_eq!(ping(&on_b, 1).await["result"], json!({}));
    let tools = on_b.call(2, "tools/list", json!({})).await;
    assert!(tools["result"]["tools"].as_array().unwrap().len() > 1);
    assert_eq!(ping(&on_a, 3).await["result"], json!({}));

    assert_eq!(on_b.delete().await, 200);
    for (replica, legacy) in [("a", &on_a), ("b", &on_b)] {
        let response = legacy.post(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
        assert_eq!(response.await.status().as_u16(), 404, "on {replica}");
    }
    assert_eq!(on_a.delete().await, 404);
}

#[tokio::test]
async fn an_answer_posted_to_the_other_replica_reaches_the_question() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, common::elicitation(), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let mut call = on_a
        .request(
            1,
            "tools/call",
            json!({"name": "full_name", "arguments": {}}),
        )
        .await;
    for name in ["Ada", "Lovelace"] {
        let question = call.message().await;
        assert_eq!(question["method"], "elicitation/create", "{question}");
        let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                            "result": {"action": "accept", "content": {"name": name}}});
        assert_eq!(on_b.post(answer).await.status().as_u16(), 202);
    }
    let response = call.message().await;
    assert_eq!(
        response["result"]["content"][0]["text"], "Ada Lovelace",
        "{response}"
    );
    let runs = &replicas.a.fixture.runs.0;
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn notifications_from_either_replica_reach_the_standalone_stream() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let stream = on_a.get(None).await;
    assert_eq!(stream.status().as_u16(), 200);
    let mut stream = Events::new(stream, None);
    assert!(stream.next().await.unwrap().message.is_none(), "priming");

    let uri = "file:///project/README.md";
    let subscribed = on_b
        .call(1, "resources/subscribe", json!({"uri": uri}))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    // The subscription was made on b; the update happens on b; the
    // stream is on a.
    replicas.b.fixture.server.resource_updated(uri);
    let notice = stream.message().await;
    assert_eq!(notice["method"], "notifications/resources/updated");
    assert_eq!(notice["params"]["uri"], uri);

    assert!(replicas.b.fixture.server.remove_tool("add"));
    let notice = stream.message().await;
    assert_eq!(notice["method"], "notifications/tools/list_changed");

    let unsubscribed = on_a
        .call(2, "resources/unsubscribe", json!({"uri": uri}))
        .await;
    assert_eq!(unsubscribed["result"], json!({}));
    replicas.b.fixture.server.resource_updated(uri);
    assert!(replicas.a.fixture.server.remove_tool("add"));
    let notice = stream.message().await;
    assert_eq!(
        notice["method"], "notifications/tools/list_changed",
        "the update after unsubscribing is not told: {notice}"
    );
}

#[tokio::test]
async fn a_task_made_on_one_replica_is_read_and_finished_on_the_other() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({"tasks": {}}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let created = on_a
        .call(
            1,
            "tools/call",
            json!({"name": "long_job", "arguments": {}, "task": {}}),
        )
        .await;
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    // The task belongs to the session, an anonymous caller's, on every
    // replica.
    let result = on_b.call(2, "tasks/result", json!({"taskId": task})).await;
    assert_eq!(result["result"]["content"][0]["text"], "done", "{result}");
    let got = on_b.call(3, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
    let other = Legacy::open(&replicas.b.url, json!({"tasks": {}}), None).await;
    let hidden = other.call(4, "tasks/get", json!({"taskId": task})).await;
    assert!(
        hidden["error"].is_object(),
        "another session's task: {hidden}"
    );
}

#[tokio::test]
async fn a_tasks_question_and_status_reach_the_stream_on_the_other_replica() {
    let replicas = Replicas::start().await;
    let capabilities = json!({"tasks": {}, "elicitation": {"form": {}}});
    let on_a = Legacy::open(&replicas.a.url, capabilities, None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let stream = on_b.get(None).await;
    let mut stream = Events::new(stream, None);
    assert!(stream.next().await.unwrap().message.is_none(), "priming");
    let created = on_a
        .call(
            1,
            "tools/call",
            json!({"name": "build", "arguments": {"target": "all"}, "task": {}}),
        )
        .await;
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // The handler runs on a; its question and the task's status go out
    // on b's stream, and the answer, posted to b, goes back to a.
    let question = loop {
        let message = stream.message().await;
        if message["method"] == "elicitation/create" {
            break message;
        }
        assert_eq!(message["method"], "notifications/tasks/status", "{message}");
    };
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                        "result": {"action": "accept", "content": {"ok": true}}});
    assert_eq!(on_b.post(answer).await.status().as_u16(), 202);
    let result = on_b.call(2, "tasks/result", json!({"taskId": task})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "built all",
        "{result}"
    );
    loop {
        let status = stream.message().await;
        assert_eq!(status["method"], "notifications/tasks/status", "{status}");
        if status["params"]["status"] == "completed" {
            break;
        }
    }
}

#[tokio::test]
async fn a_question_asked_while_no_stream_is_open_reaches_the_stream_opened_later() {
    let replicas = Replicas::start().await;
    let capabilities = json!({"tasks": {}, "elicitation": {"form": {}}});
    let on_a = Legacy::open(&replicas.a.url, capabilities, None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let created = on_a
        .call(
            1,
            "tools/call",
            json!({"name": "build", "arguments": {"target": "docs"}, "task": {}}),
        )
        .await;
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // No replica holds the standalone stream yet: a keeps the question
    // until b opens it.
    loop {
        let got = on_a.call(2, "tasks/get", json!({"taskId": task})).await;
        if got["result"]["status"] == "input_required" {
            break;
        }
    }
    let mut stream = Events::new(on_b.get(None).await, None);
    let question = loop {
        let message = stream.message().await;
        if message["method"] == "elicitation/create" {
            break message;
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                        "result": {"action": "accept", "content": {"ok": true}}});
    assert_eq!(on_b.post(answer).await.status().as_u16(), 202);
    let result = on_a.call(3, "tasks/result", json!({"taskId": task})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "built docs",
        "{result}"
    );
}

#[tokio::test]
async fn the_standalone_stream_ends_when_its_session_ends_elsewhere() {
    // The holder checks the store every half of the idle time.
    let idle = LegacySessions::new().idle_timeout(Duration::from_secs(2));
    let replicas = Replicas::start_with(|http| http, idle).await;
    for end in ["delete on the other replica", "gone from the store"] {
        let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
        let on_b = through(&on_a, &replicas.b.url);
        let mut stream = Events::new(on_a.get(None).await, None);
        assert!(stream.next().await.unwrap().message.is_none(), "priming");
        match end {
            "delete on the other replica" => assert_eq!(on_b.delete().await, 200),
            _ => assert!(replicas.store.remove(&on_a.session).await.unwrap()),
        }
        let ended = tokio::time::timeout(Duration::from_secs(20), stream.next()).await;
        assert!(matches!(ended, Ok(None)), "{end}: the stream ends");
    }
}

#[tokio::test]
async fn a_session_belongs_to_its_caller_on_every_replica() {
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let authenticated = |http: StreamableHttp| http.authenticator(tokens.clone());
    let replicas = Replicas::start_with(authenticated, LegacySessions::new()).await;
    let alice = Legacy::open(&replicas.a.url, json!({}), Some("t-alice")).await;
    let bob_on_b = Legacy {
        url: replicas.b.url.clone(),
        session: alice.session.clone(),
        token: Some("t-bob"),
    };
    let stolen = bob_on_b.post(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert_eq!(stolen.await.status().as_u16(), 404);
    assert_eq!(bob_on_b.delete().await, 404);
    assert_eq!(
        ping(&through(&alice, &replicas.b.url), 2).await["result"],
        json!({})
    );
}

#[tokio::test]
async fn a_cancel_posted_to_the_other_replica_drops_the_request() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let probe = replicas.a.fixture.probe.clone();
    let dropped = probe.dropped.notified();
    let _call = on_a
        .request(
            1,
            "tools/call",
            json!({"name": "wait_forever", "arguments": {}}),
        )
        .await;
    probe.started.notified().await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1, "reason": "no longer needed"}});
    assert_eq!(on_b.post(cancel).await.status().as_u16(), 202);
    tokio::time::timeout(Duration::from_secs(20), dropped)
        .await
        .expect("the handler on a is dropped");
}

#[tokio::test]
async fn a_session_gone_from_the_store_is_gone_from_every_replica() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    assert_eq!(ping(&on_a, 1).await["result"], json!({}));
    // As when the store expires it.
    assert!(replicas.store.remove(&on_a.session).await.unwrap());
    let response = on_a.post(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(response.await.status().as_u16(), 404);
}

#[tokio::test]
async fn a_closed_stream_resumes_through_the_other_replica() {
    let closing = LegacySessions::new().close_streams_after(Duration::ZERO);
    let replicas = Replicas::start_with(|http| http, closing).await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let mut call = on_a
        .request(1, "tools/call", json!({"name": "gated", "arguments": {}}))
        .await;
    let priming = call.next().await.unwrap();
    assert!(call.next().await.is_none(), "closed for the client to poll");
    let resumed = on_b.get(priming.id.as_deref()).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let mut resumed = Events::new(resumed, Some("tools/call".into()));
    let relayed_priming = resumed.next().await.unwrap();
    assert_eq!(relayed_priming.id, priming.id, "the holder's event ids");
    replicas.a.fixture.probe.release.notify_one();
    let event = loop {
        let event = resumed.next().await.expect("the response");
        if event.message.is_some() {
            break event;
        }
    };
    let response = event.message.unwrap();
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["content"][0]["text"], "released");
    assert!(
        resumed.next().await.is_none(),
        "the relayed stream ends too"
    );
    // The holder's id for that response resumes on the holder itself.
    let again = on_a.get(event.id.as_deref()).await;
    assert_eq!(again.status().as_u16(), 200);
}

#[tokio::test]
async fn a_request_of_a_replica_that_is_gone_fails_at_once_on_resumption() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    // The id of an event of request 7 on a replica that no longer runs:
    // nobody hears on its channel.
    let request = base64_url(br#""call-7""#);
    let gone = format!("gone-replica.3.{request}-2");
    let resumed = on_a.get(Some(&gone)).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let mut resumed = Events::new(resumed, Some("tools/call".into()));
    let response = resumed.message().await;
    assert_eq!(response["id"], "call-7", "{response}");
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("send the request again"), "{message}");
    assert!(resumed.next().await.is_none());
    // A stream the holder no longer keeps is 400, as on one replica.
    let on_b = through(&on_a, &replicas.b.url);
    let mut call = on_a.request(2, "ping", json!({})).await;
    let priming = call.next().await.unwrap();
    assert_eq!(call.message().await["result"], json!({}));
    let unknown = priming.id.unwrap().replacen(".1.", ".99.", 1);
    assert_eq!(on_b.get(Some(&unknown)).await.status().as_u16(), 400);
}

/// `bytes` in base64url without padding, as event ids carry request ids.
fn base64_url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut text = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            text.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    text
}

/// A store that cannot be reached.
struct Unreachable;

#[async_trait]
impl LegacySessionStore for Unreachable {
    async fn create(&self, _: &SessionRecord, _: Duration) -> Result<(), SessionStoreError> {
        Err(down())
    }
    async fn touch(
        &self,
        _: &str,
        _: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError> {
        Err(down())
    }
    async fn replace(
        &self,
        _: &SessionRecord,
        _: u64,
        _: Duration,
    ) -> Result<bool, SessionStoreError> {
        Err(down())
    }
    async fn remove(&self, _: &str) -> Result<bool, SessionStoreError> {
        Err(down())
    }
    async fn publish(&self, _: &str, _: Vec<u8>) -> Result<usize, SessionStoreError> {
        Err(down())
    }
    async fn listen(&self, _: &str) -> Result<ChannelMessages, SessionStoreError> {
        Err(down())
    }
}

fn down() -> SessionStoreError {
    SessionStoreError::new("no store answers at store.invalid:6379")
}

#[tokio::test]
async fn an_unreachable_store_is_503_with_retry_after() {
    let server: Server = common::fixture().server;
    let http =
        StreamableHttp::new(server).legacy_sessions(LegacySessions::new().shared(Unreachable));
    let url = serve(http).await;
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "c", "version": "0"}}});
    let response =
        common::legacy_http::send(&url, reqwest::Method::POST, Some(body), &[], None).await;
    assert_eq!(response.status().as_u16(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    let error: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("session store is unavailable"),
        "{error}"
    );
}

#[tokio::test]
async fn a_stopped_replica_drops_its_requests_and_its_listeners() {
    let store = MemorySessionStore::new();
    let fixture = common::fixture();
    let sessions = LegacySessions::new().shared(store.clone());
    let http = StreamableHttp::new(fixture.server.clone()).legacy_sessions(sessions);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let serving = tokio::spawn(http.serve_on(listener));
    let legacy = Legacy::open(&url, json!({}), None).await;
    let probe = fixture.probe.clone();
    let dropped = probe.dropped.notified();
    let _call = legacy
        .request(
            1,
            "tools/call",
            json!({"name": "wait_forever", "arguments": {}}),
        )
        .await;
    probe.started.notified().await;

    // The replica stops as a process that dies does: its endpoint, and
    // every session it held, are dropped.
    serving.abort();
    assert!(serving.await.unwrap_err().is_cancelled());
    tokio::time::timeout(Duration::from_secs(20), dropped)
        .await
        .expect("the request is dropped with its replica");
    // A message that is no note wakes no listener, so only a listener
    // that ended stops counting.
    let channel = format!("session:{}", legacy.session);
    let unheard = async {
        while store.publish(&channel, b"no note".to_vec()).await.unwrap() > 0 {
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), unheard)
        .await
        .expect("the session's listener ends with its replica");
}

#[tokio::test]
async fn a_change_on_a_replica_that_served_no_request_reaches_the_others() {
    let replicas = Replicas::start().await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let stream = on_a.get(None).await;
    let mut stream = Events::new(stream, None);
    assert!(stream.next().await.unwrap().message.is_none(), "priming");
    let uri = "file:///project/README.md";
    let subscribed = on_a
        .call(1, "resources/subscribe", json!({"uri": uri}))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    // b has served no legacy request: its changes go out all the same.
    replicas.b.fixture.server.resource_updated(uri);
    let notice = tokio::time::timeout(Duration::from_secs(20), stream.message())
        .await
        .expect("b's update reaches the stream on a");
    assert_eq!(notice["method"], "notifications/resources/updated");
    assert_eq!(notice["params"]["uri"], uri);
}

/// A store that holds each listen to a session's channel, while armed,
/// until another party (a second request, or the test) has met it
/// `rounds` times: two requests building one session on a replica at
/// once, or a session that ends while a replica builds it.
#[derive(Clone)]
struct Gated {
    store: MemorySessionStore,
    armed: Arc<std::sync::atomic::AtomicBool>,
    both: Arc<tokio::sync::Barrier>,
    /// How many times a listen meets the other party.
    rounds: usize,
}

#[async_trait]
impl LegacySessionStore for Gated {
    async fn create(
        &self,
        record: &SessionRecord,
        idle: Duration,
    ) -> Result<(), SessionStoreError> {
        self.store.create(record, idle).await
    }
    async fn touch(
        &self,
        id: &str,
        idle: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError> {
        self.store.touch(id, idle).await
    }
    async fn replace(
        &self,
        record: &SessionRecord,
        read: u64,
        idle: Duration,
    ) -> Result<bool, SessionStoreError> {
        self.store.replace(record, read, idle).await
    }
    async fn remove(&self, id: &str) -> Result<bool, SessionStoreError> {
        self.store.remove(id).await
    }
    async fn publish(&self, channel: &str, message: Vec<u8>) -> Result<usize, SessionStoreError> {
        self.store.publish(channel, message).await
    }
    async fn listen(&self, channel: &str) -> Result<ChannelMessages, SessionStoreError> {
        if channel.starts_with("session:") && self.armed.load(std::sync::atomic::Ordering::SeqCst) {
            for _ in 0..self.rounds {
                self.both.wait().await;
            }
        }
        self.store.listen(channel).await
    }
}

#[tokio::test]
async fn two_first_requests_at_once_on_a_replica_share_one_session() {
    let store = MemorySessionStore::new();
    let gated = Gated {
        store: store.clone(),
        armed: Arc::default(),
        both: Arc::new(tokio::sync::Barrier::new(2)),
        rounds: 1,
    };
    let a = common::fixture();
    let b = common::fixture();
    let on = |fixture: &common::Fixture, sessions: LegacySessions| {
        serve(StreamableHttp::new(fixture.server.clone()).legacy_sessions(sessions))
    };
    let url_a = on(&a, LegacySessions::new().shared(store.clone())).await;
    let url_b = on(&b, LegacySessions::new().shared(gated.clone())).await;
    let on_a = Legacy::open(&url_a, common::elicitation(), None).await;
    let on_b = through(&on_a, &url_b);
    gated.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    let call = |id| {
        on_b.request(
            id,
            "tools/call",
            json!({"name": "full_name", "arguments": {}}),
        )
    };
    // Both requests build the session on b before either keeps it.
    let (mut one, mut two) = tokio::join!(call(1), call(2));
    gated
        .armed
        .store(false, std::sync::atomic::Ordering::SeqCst);
    for (call, name) in [(&mut one, "Ada"), (&mut two, "Grace")] {
        let answered = async {
            for part in [name, "Hopper"] {
                let question = call.message().await;
                assert_eq!(question["method"], "elicitation/create", "{question}");
                let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                                    "result": {"action": "accept", "content": {"name": part}}});
                assert_eq!(on_b.post(answer).await.status().as_u16(), 202);
            }
            call.message().await
        };
        let response = tokio::time::timeout(Duration::from_secs(20), answered)
            .await
            .expect("each request's answers reach it");
        let text = &response["result"]["content"][0]["text"];
        assert_eq!(*text, format!("{name} Hopper"), "{response}");
    }
}

#[tokio::test]
async fn a_session_deleted_while_a_replica_builds_it_is_not_kept_there() {
    let store = MemorySessionStore::new();
    let gated = Gated {
        store: store.clone(),
        armed: Arc::default(),
        both: Arc::new(tokio::sync::Barrier::new(2)),
        rounds: 2,
    };
    let on = |sessions: LegacySessions| {
        serve(StreamableHttp::new(common::fixture().server).legacy_sessions(sessions))
    };
    let url_a = on(LegacySessions::new().shared(store.clone())).await;
    let url_b = on(LegacySessions::new().shared(gated.clone())).await;
    let on_a = Legacy::open(&url_a, json!({}), None).await;
    let on_b = through(&on_a, &url_b);
    gated.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let building = tokio::spawn(async move { on_b.post(ping).await.status().as_u16() });
    // b found the session in the store and is about to listen to it; it
    // ends meanwhile, before b hears anything of it.
    gated.both.wait().await;
    assert_eq!(on_a.delete().await, 200);
    gated.both.wait().await;
    assert_eq!(building.await.unwrap(), 404, "the session ended");
    let channel = format!("session:{}", on_a.session);
    let unheard = async {
        while store.publish(&channel, b"no note".to_vec()).await.unwrap() > 0 {
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), unheard)
        .await
        .expect("no replica keeps listening to an ended session");
}
