//! Legacy (2025-11-25) sessions shared by two replicas on one Redis, as
//! behind a load balancer without affinity: each request of a session may
//! reach either replica. Each replica is a server of its own on a port of
//! its own, with a `RedisTaskStore` of its own (its own connections) on
//! one Redis under one prefix, keeping its tasks and, through
//! `session_store`, its legacy sessions there. The client is the legacy
//! client by hand of presa's own tests, which checks every message against
//! the 2025-11-25 schema.
//!
//! Each test starts a `redis-server` of its own (and is reported ignored
//! where the build found none, unless `PRESA_REQUIRE_REDIS=1`). Nothing
//! waits on time: the tests wait on the tools' signals, on the protocol's
//! own events and on what Redis reports, each within a guard that only
//! fails a test that would hang.

#[allow(dead_code)]
#[path = "stores/redis_server.rs"]
mod redis_server;

#[allow(dead_code)]
#[path = "../../tests/common/spec.rs"]
mod spec;

#[path = "../../tests/common/legacy_http.rs"]
mod legacy_http;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use presa::prelude::*;
use presa::server::http::{BearerTokens, LegacySessions, StreamableHttp};
use presa_redis::RedisTaskStore;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use legacy_http::{Events, Legacy};
use redis_server::{RedisServer, replies_with};

/// How long a test may wait for any one event before it fails.
const GUARD: Duration = Duration::from_secs(20);

/// The prefix both replicas keep their tasks and sessions under.
const PREFIX: &str = "legacy:";

/// The signals between a test and the handlers one replica runs.
#[derive(Clone, Default)]
struct Probe {
    /// A handler reached the point the test waits for.
    reached: Arc<Notify>,
    /// The test lets a handler go on.
    release: Arc<Notify>,
    /// How many times a handler ran.
    runs: Arc<AtomicUsize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Name {
    name: String,
}

/// Asks for a first name, then a last name: two rounds.
#[tool]
async fn full_name(ctx: Context, State(probe): State<Probe>) -> Result<String, ToolError> {
    probe.runs.fetch_add(1, Ordering::SeqCst);
    let first = ctx.elicit::<Name>("first", "First name?").await?;
    let last = ctx.elicit::<Name>("last", "Last name?").await?;
    match (first, last) {
        (Elicitation::Accepted(f), Elicitation::Accepted(l)) => {
            Ok(format!("{} {}", f.name, l.name))
        }
        _ => Err(ToolError::new("no name given")),
    }
}

/// Builds a target after confirmation.
#[tool(task = "optional")]
async fn build(ctx: Context, target: String) -> Result<String, ToolError> {
    match ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Tells the probe it started, then waits for its release.
#[tool]
async fn gated(State(probe): State<Probe>) -> &'static str {
    probe.reached.notify_one();
    probe.release.notified().await;
    "released"
}

/// The project's readme.
#[resource(uri = "file:///project/README.md", mime_type = "text/markdown")]
async fn readme() -> &'static str {
    "# Project"
}

/// One replica: its server, its URL, and the task that serves it.
struct Replica {
    server: Server,
    url: String,
    probe: Probe,
    serving: JoinHandle<std::io::Result<()>>,
}

/// Two replicas on one Redis, and the Redis.
struct Replicas {
    redis: RedisServer,
    a: Replica,
    b: Replica,
}

impl Replicas {
    async fn start(redis: RedisServer) -> Replicas {
        Self::start_with(redis, |http| http, LegacySessions::new()).await
    }

    /// Two replicas, each configured by `configure` too, keeping their
    /// sessions as `sessions` says (and in Redis).
    async fn start_with(
        redis: RedisServer,
        configure: impl Fn(StreamableHttp) -> StreamableHttp,
        sessions: LegacySessions,
    ) -> Replicas {
        let mut replicas = Vec::new();
        for name in ["A", "B"] {
            let store = RedisTaskStore::builder(redis.url())
                .prefix(PREFIX)
                .build()
                .expect("a valid URL");
            let probe = Probe::default();
            let server = Server::builder(name, "1")
                .tool(FullNameTool)
                .tool(BuildTool)
                .tool(GatedTool)
                .resource(ReadmeResource)
                .state(probe.clone())
                .tasks(TaskSettings::default())
                .task_store(store.clone())
                .build();
            let sessions = sessions.clone().shared(store.session_store());
            let http = configure(StreamableHttp::new(server.clone())).legacy_sessions(sessions);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let url = format!("http://{}/mcp", listener.local_addr().unwrap());
            let serving = tokio::spawn(http.serve_on(listener));
            replicas.push(Replica {
                server,
                url,
                probe,
                serving,
            });
        }
        let b = replicas.pop().unwrap();
        let a = replicas.pop().unwrap();
        Replicas { redis, a, b }
    }

    /// How many Redis connections subscribe to the replicas' channel
    /// `name`.
    fn subscribers(&self, name: &str, count: usize) -> bool {
        let channel = format!("{{{PREFIX}}}session-channel:{name}");
        let command = format!("PUBSUB NUMSUB {channel}");
        replies_with(self.redis.port(), &command, &format!(":{count}\r\n"))
    }

    /// Waits until `count` Redis connections subscribe to channel `name`.
    async fn until_subscribers(&self, name: &str, count: usize) {
        within(&format!("{count} subscribers of {name}"), async {
            while !self.subscribers(name, count) {
                tokio::task::yield_now().await;
            }
        })
        .await;
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

/// `future`'s output, failing the test if it takes longer than [`GUARD`].
async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

async fn ping(legacy: &Legacy, id: i64) -> Value {
    within("a ping", async {
        legacy.request(id, "ping", json!({})).await.message().await
    })
    .await
}

/// The next message of `events`, within the guard.
async fn message(events: &mut Events) -> Value {
    within("a message", events.message()).await
}

/// The replica an event id of a shared session names: its first part.
fn replica_of(event_id: &str) -> &str {
    event_id.split('.').next().expect("a replica")
}

crate::redis_tests!(
    a_session_opened_on_one_replica_is_served_and_deleted_on_the_other,
    an_elicitation_is_answered_through_the_other_replica,
    a_tasks_question_reaches_the_other_replicas_stream_and_is_answered_there,
    an_update_made_on_one_replica_reaches_a_subscriber_on_the_other,
    a_closed_stream_resumes_through_the_other_replica,
    a_session_belongs_to_its_principal_on_both_replicas,
    a_request_of_a_stopped_replica_fails_at_once_through_the_survivor,
);

async fn a_session_opened_on_one_replica_is_served_and_deleted_on_the_other(redis: RedisServer) {
    let replicas = Replicas::start(redis).await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    assert_eq!(ping(&on_b, 1).await["result"], json!({}));
    let tools = within("tools/list", async {
        on_b.request(2, "tools/list", json!({}))
            .await
            .message()
            .await
    })
    .await;
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 3);
    assert_eq!(ping(&on_a, 3).await["result"], json!({}));

    assert_eq!(on_b.delete().await, 200);
    for (replica, legacy) in [("a", &on_a), ("b", &on_b)] {
        let response = legacy.post(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
        assert_eq!(response.await.status().as_u16(), 404, "on {replica}");
        assert_eq!(
            legacy.get(None).await.status().as_u16(),
            404,
            "on {replica}"
        );
    }
    assert_eq!(on_a.delete().await, 404);
}

async fn an_elicitation_is_answered_through_the_other_replica(redis: RedisServer) {
    let replicas = Replicas::start(redis).await;
    let capabilities = json!({"elicitation": {"form": {}}});
    let on_a = Legacy::open(&replicas.a.url, capabilities, None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let mut call = on_a
        .request(
            1,
            "tools/call",
            json!({"name": "full_name", "arguments": {}}),
        )
        .await;
    for name in ["Ada", "Lovelace"] {
        let question = message(&mut call).await;
        assert_eq!(question["method"], "elicitation/create", "{question}");
        let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                            "result": {"action": "accept", "content": {"name": name}}});
        assert_eq!(on_b.post(answer).await.status().as_u16(), 202);
    }
    let response = message(&mut call).await;
    assert_eq!(
        response["result"]["content"][0]["text"], "Ada Lovelace",
        "{response}"
    );
    assert_eq!(replicas.a.probe.runs.load(Ordering::SeqCst), 1);
    assert_eq!(replicas.b.probe.runs.load(Ordering::SeqCst), 0);
}

async fn a_tasks_question_reaches_the_other_replicas_stream_and_is_answered_there(
    redis: RedisServer,
) {
    let replicas = Replicas::start(redis).await;
    let capabilities = json!({"tasks": {}, "elicitation": {"form": {}}});
    let on_a = Legacy::open(&replicas.a.url, capabilities, None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let stream = on_b.get(None).await;
    assert_eq!(stream.status().as_u16(), 200);
    let mut stream = Events::new(stream, None);
    let priming = within("priming", stream.next()).await.unwrap();
    assert!(priming.message.is_none(), "priming");

    let created = within("the task", async {
        on_a.request(
            1,
            "tools/call",
            json!({"name": "build", "arguments": {"target": "all"}, "task": {}}),
        )
        .await
        .message()
        .await
    })
    .await;
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    // The handler runs on a; its question and the task's status go out
    // on b's stream, and the answer, posted to b, goes back to a.
    let question = loop {
        let message = message(&mut stream).await;
        if message["method"] == "elicitation/create" {
            break message;
        }
        assert_eq!(message["method"], "notifications/tasks/status", "{message}");
    };
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                        "result": {"action": "accept", "content": {"ok": true}}});
    assert_eq!(on_b.post(answer).await.status().as_u16(), 202);
    let result = within("tasks/result", async {
        on_b.request(2, "tasks/result", json!({"taskId": task}))
            .await
            .message()
            .await
    })
    .await;
    assert_eq!(
        result["result"]["content"][0]["text"], "built all",
        "{result}"
    );
    loop {
        let status = message(&mut stream).await;
        assert_eq!(status["method"], "notifications/tasks/status", "{status}");
        if status["params"]["status"] == "completed" {
            break;
        }
    }
    let got = within("tasks/get", async {
        on_b.request(3, "tasks/get", json!({"taskId": task}))
            .await
            .message()
            .await
    })
    .await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
}

async fn an_update_made_on_one_replica_reaches_a_subscriber_on_the_other(redis: RedisServer) {
    let replicas = Replicas::start(redis).await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let stream = on_a.get(None).await;
    assert_eq!(stream.status().as_u16(), 200);
    let mut stream = Events::new(stream, None);
    let priming = within("priming", stream.next()).await.unwrap();
    assert!(priming.message.is_none(), "priming");

    let uri = "file:///project/README.md";
    let subscribed = within("resources/subscribe", async {
        on_a.request(1, "resources/subscribe", json!({"uri": uri}))
            .await
            .message()
            .await
    })
    .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    // Made on a, produced on b, heard on a's stream.
    replicas.b.server.resource_updated(uri);
    let notice = message(&mut stream).await;
    assert_eq!(notice["method"], "notifications/resources/updated");
    assert_eq!(notice["params"]["uri"], uri);

    let unsubscribed = within("resources/unsubscribe", async {
        through(&on_a, &replicas.b.url)
            .request(2, "resources/unsubscribe", json!({"uri": uri}))
            .await
            .message()
            .await
    })
    .await;
    assert_eq!(unsubscribed["result"], json!({}));
    // Every replica's updates travel on one channel, in order: the update
    // after unsubscribing would come before the list change.
    replicas.b.server.resource_updated(uri);
    assert!(replicas.b.server.remove_tool("build"));
    let notice = message(&mut stream).await;
    assert_eq!(
        notice["method"], "notifications/tools/list_changed",
        "the update after unsubscribing is not told: {notice}"
    );
}

async fn a_closed_stream_resumes_through_the_other_replica(redis: RedisServer) {
    let closing = LegacySessions::new().close_streams_after(Duration::ZERO);
    let replicas = Replicas::start_with(redis, |http| http, closing).await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    let mut call = on_a
        .request(1, "tools/call", json!({"name": "gated", "arguments": {}}))
        .await;
    let priming = within("priming", call.next()).await.unwrap();
    assert!(
        within("the close", call.next()).await.is_none(),
        "closed for the client to poll"
    );
    let resumed = on_b.get(priming.id.as_deref()).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let mut resumed = Events::new(resumed, Some("tools/call".into()));
    let relayed_priming = within("the relayed priming", resumed.next()).await.unwrap();
    assert_eq!(relayed_priming.id, priming.id, "the holder's event ids");
    within("the handler on a", replicas.a.probe.reached.notified()).await;
    replicas.a.probe.release.notify_one();
    let event = loop {
        let event = within("the response", resumed.next())
            .await
            .expect("the response");
        if event.message.is_some() {
            break event;
        }
    };
    let response = event.message.unwrap();
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["content"][0]["text"], "released");
    assert!(
        within("the end", resumed.next()).await.is_none(),
        "the relayed stream ends too"
    );
    // The holder's id for that response resumes on the holder itself.
    let again = on_a.get(event.id.as_deref()).await;
    assert_eq!(again.status().as_u16(), 200);
}

async fn a_session_belongs_to_its_principal_on_both_replicas(redis: RedisServer) {
    let tokens = BearerTokens::new()
        .token("t-alice", "alice")
        .token("t-bob", "bob");
    let authenticated = |http: StreamableHttp| http.authenticator(tokens.clone());
    let replicas = Replicas::start_with(redis, authenticated, LegacySessions::new()).await;
    let alice = Legacy::open(&replicas.a.url, json!({}), Some("t-alice")).await;
    for url in [&replicas.a.url, &replicas.b.url] {
        let bob = Legacy {
            url: url.clone(),
            session: alice.session.clone(),
            token: Some("t-bob"),
        };
        let stolen = bob.post(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        assert_eq!(stolen.await.status().as_u16(), 404, "at {url}");
        assert_eq!(bob.get(None).await.status().as_u16(), 404, "at {url}");
        assert_eq!(bob.delete().await, 404, "at {url}");
    }
    for (id, url) in [(2, &replicas.a.url), (3, &replicas.b.url)] {
        let reply = ping(&through(&alice, url), id).await;
        assert_eq!(reply["result"], json!({}), "at {url}");
    }
}

async fn a_request_of_a_stopped_replica_fails_at_once_through_the_survivor(redis: RedisServer) {
    let replicas = Replicas::start(redis).await;
    let on_a = Legacy::open(&replicas.a.url, json!({}), None).await;
    let on_b = through(&on_a, &replicas.b.url);
    assert_eq!(ping(&on_b, 1).await["result"], json!({}));
    let mut call = on_a
        .request(2, "tools/call", json!({"name": "gated", "arguments": {}}))
        .await;
    let priming = within("priming", call.next()).await.unwrap();
    let last = priming.id.expect("an event id");
    within("the handler on a", replicas.a.probe.reached.notified()).await;
    let a = replica_of(&last).to_owned();
    let a_channel = format!("replica:{a}");
    let session_channel = format!("session:{}", on_a.session);
    replicas.until_subscribers(&a_channel, 1).await;
    replicas.until_subscribers(&session_channel, 2).await;

    // A stops as a process that dies does: its server, its sessions and
    // their listeners are dropped, and its subscriptions end with them.
    let mut replicas = replicas;
    replicas.a.serving.abort();
    let stopped = (&mut replicas.a.serving).await;
    assert!(stopped.unwrap_err().is_cancelled());
    replicas.until_subscribers(&a_channel, 0).await;
    replicas.until_subscribers(&session_channel, 1).await;
    assert!(
        within("the end of a's stream", call.next()).await.is_none(),
        "a's connection is gone"
    );

    let resumed = on_b.get(Some(&last)).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let mut resumed = Events::new(resumed, Some("tools/call".into()));
    let response = message(&mut resumed).await;
    assert_eq!(response["id"], 2, "{response}");
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let text = response["error"]["message"].as_str().unwrap();
    assert!(text.contains("send the request again"), "{text}");
    assert!(within("the end", resumed.next()).await.is_none());
    // The session lives on through the survivor.
    assert_eq!(ping(&on_b, 3).await["result"], json!({}));
}
