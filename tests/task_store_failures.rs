//! A task store that fails (a shared database that is down) fails each
//! request that needs it with `-31002`, "task store unavailable", never
//! with a task it did not keep; over Streamable HTTP that is a `503` with
//! `Retry-After`. Once the store is back, the same requests succeed.
//!
//! The store is the in-memory one behind a switch, so no database is
//! needed: while the switch is off, every call fails with
//! [`StoreError::Backend`]. Watches opened before keep running, as a
//! store's subscriptions would once it reconnects.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use async_trait::async_trait;
use common::{RawPeer, WIRES, connect, error_code};
use presa::prelude::*;
use presa::server::InMemoryTaskStore;
use presa::server::tasks::store::{
    ListTasks, StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Notify;

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// What the backend's failure says; no client may ever read it.
const SECRET_CAUSE: &str = "redis at 10.1.2.3:6379 refused the password hunter2";

/// The in-memory store, failing every call while it is down.
#[derive(Clone, Default)]
struct SwitchedStore {
    inner: Arc<InMemoryTaskStore>,
    down: Arc<AtomicBool>,
    /// How many of the next watches fail, as while a store reconnects.
    failing_watches: Arc<AtomicUsize>,
    /// How many of the next changes fail.
    failing_changes: Arc<AtomicUsize>,
}

impl SwitchedStore {
    fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    fn reachable(&self) -> Result<(), StoreError> {
        match self.down.load(Ordering::SeqCst) {
            true => Err(StoreError::Backend(SECRET_CAUSE.into())),
            false => Ok(()),
        }
    }

    /// Fails the next `count` calls of `of` (a counter of this store's).
    fn fail_next(of: &AtomicUsize) -> Result<(), StoreError> {
        match of.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)) {
            Ok(_) => Err(StoreError::Backend(SECRET_CAUSE.into())),
            Err(_) => Ok(()),
        }
    }

    /// How many tasks the store really keeps, whether or not it is down.
    async fn kept(&self) -> usize {
        self.inner.count().await.unwrap()
    }
}

#[async_trait]
impl TaskStore for SwitchedStore {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        self.reachable()?;
        self.inner.create(record, limits).await
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.reachable()?;
        self.inner.get(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.reachable()?;
        Self::fail_next(&self.failing_changes)?;
        self.inner.apply(id, change, limits).await
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        self.reachable()?;
        Self::fail_next(&self.failing_watches)?;
        self.inner.watch(id).await
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        self.reachable()?;
        self.inner.purge_expired().await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        self.reachable()?;
        self.inner.count().await
    }

    fn lister(&self) -> Option<&dyn ListTasks> {
        Some(self)
    }
}

#[async_trait]
impl ListTasks for SwitchedStore {
    async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Arc<TaskRecord>>, StoreError> {
        self.reachable()?;
        self.inner.list(owner, after, limit).await
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// Builds after a confirmation; a task when the client can have one.
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

/// Only ever a task.
#[tool(task = "required")]
async fn batch() -> &'static str {
    "batched"
}

/// Lets a held task end.
#[derive(Clone, Default)]
struct Gate(Arc<Notify>);

/// Runs until the test opens the gate.
#[tool(task = "optional")]
async fn hold(State(gate): State<Gate>) -> &'static str {
    gate.0.notified().await;
    "held"
}

fn server(store: &SwitchedStore, gate: &Gate) -> Server {
    Server::builder("flaky", "1")
        .tool(BuildTool)
        .tool(BatchTool)
        .tool(HoldTool)
        .state(gate.clone())
        .tasks(TaskSettings::default())
        .task_store(store.clone())
        .build()
}

/// The `_meta` of a client with the Tasks extension and form elicitation.
fn tasks_meta() -> Value {
    common::meta(json!({"extensions": {TASKS: {}}, "elicitation": {"form": {}}}))
}

/// A modern request from a tasks client.
async fn request(peer: &mut RawPeer, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = tasks_meta();
    peer.request(id, method, params).await
}

async fn call(peer: &mut RawPeer, id: i64, tool: &str, arguments: Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    request(peer, id, "tools/call", params).await
}

/// Checks that `response` is the task store's `-31002`, saying to retry
/// and nothing of the cause.
fn assert_unavailable(response: &Value) {
    assert_eq!(error_code(response), -31002, "{response}");
    let error = &response["error"];
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("Task store unavailable"), "{message}");
    assert!(message.contains("retry"), "{message}");
    assert_eq!(error["data"], json!({"retryAfterMs": 1000}), "{response}");
    assert!(!response.to_string().contains("10.1.2.3"), "{response}");
    assert!(!response.to_string().contains("hunter2"), "{response}");
}

#[tokio::test]
async fn a_required_tool_fails_while_the_store_is_down_and_is_a_task_once_it_is_back() {
    for wire in WIRES {
        let store = SwitchedStore::default();
        let server = server(&store, &Gate::default());
        let mut peer = RawPeer::over(&server, wire);

        store.set_down(true);
        let refused = call(&mut peer, 1, "batch", json!({})).await;
        assert_unavailable(&refused);
        assert_eq!(store.kept().await, 0, "{wire:?}: no task is kept");

        store.set_down(false);
        let created = call(&mut peer, 2, "batch", json!({})).await;
        assert_eq!(
            created["result"]["resultType"], "task",
            "{wire:?}: {created}"
        );
    }
}

#[tokio::test]
async fn an_optional_tool_runs_synchronously_while_the_store_is_down() {
    for wire in WIRES {
        let store = SwitchedStore::default();
        let server = server(&store, &Gate::default());
        let mut peer = RawPeer::over(&server, wire);

        store.set_down(true);
        let asked = call(&mut peer, 1, "build", json!({"target": "docs"})).await;
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        let answered = json!({
            "name": "build",
            "arguments": {"target": "docs"},
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
            "requestState": asked["result"]["requestState"],
        });
        let built = request(&mut peer, 2, "tools/call", answered).await;
        assert_eq!(
            built["result"]["content"][0]["text"], "built docs",
            "{built}"
        );
        assert_eq!(store.kept().await, 0, "{wire:?}: no task is kept");

        store.set_down(false);
        let created = call(&mut peer, 3, "build", json!({"target": "docs"})).await;
        assert_eq!(
            created["result"]["resultType"], "task",
            "{wire:?}: {created}"
        );
    }
}

#[tokio::test]
async fn task_requests_fail_while_the_store_is_down_and_succeed_once_it_is_back() {
    for wire in WIRES {
        let store = SwitchedStore::default();
        let server = server(&store, &Gate::default());
        let mut peer = RawPeer::over(&server, wire);
        let created = call(&mut peer, 1, "build", json!({"target": "web"})).await;
        let task = created["result"]["taskId"].as_str().unwrap().to_owned();
        let id = json!({"taskId": task});
        let answer = json!({"taskId": task, "inputResponses":
            {"confirm": {"action": "accept", "content": {"ok": true}}}});

        store.set_down(true);
        assert_unavailable(&request(&mut peer, 2, "tasks/get", id.clone()).await);
        assert_unavailable(&request(&mut peer, 3, "tasks/update", answer.clone()).await);
        assert_unavailable(&request(&mut peer, 4, "tasks/cancel", id.clone()).await);
        let listen = json!({"notifications": {"taskIds": [task]}});
        assert_unavailable(&request(&mut peer, 5, "subscriptions/listen", listen).await);

        store.set_down(false);
        let got = request(&mut peer, 6, "tasks/get", id.clone()).await;
        assert_eq!(got["result"]["status"], "input_required", "{wire:?}: {got}");
        let updated = request(&mut peer, 7, "tasks/update", answer).await;
        assert!(updated.get("result").is_some(), "{updated}");
        let listen = json!({"notifications": {"taskIds": [task]}});
        request(&mut peer, 8, "subscriptions/listen", listen).await;
        let ended = loop {
            let message = peer.recv().await;
            if message["params"]["status"] == "completed" {
                break message;
            }
        };
        assert_eq!(
            ended["params"]["result"]["content"][0]["text"], "built web",
            "{ended}"
        );
    }
}

#[tokio::test]
async fn legacy_task_requests_fail_while_the_store_is_down_and_succeed_once_it_is_back() {
    for wire in WIRES {
        let store = SwitchedStore::default();
        let gate = Gate::default();
        let server = server(&store, &gate);
        let channel = connect(&server, Caller::anonymous(), wire);
        let (mut peer, _) = RawPeer::legacy(channel, "2025-11-25", json!({})).await;
        let params = json!({"name": "hold", "arguments": {}, "task": {"ttl": 60000}});
        let created = peer.request(1, "tools/call", params).await;
        let task = created["result"]["task"]["taskId"].as_str().unwrap();
        let id = json!({"taskId": task});

        store.set_down(true);
        for (n, method) in ["tasks/get", "tasks/cancel", "tasks/result"]
            .iter()
            .enumerate()
        {
            let refused = peer.request(2 + n as i64, method, id.clone()).await;
            assert_unavailable(&refused);
        }
        assert_unavailable(&peer.request(5, "tasks/list", json!({})).await);
        let refused = peer
            .request(
                6,
                "tools/call",
                json!({"name": "batch", "arguments": {}, "task": {}}),
            )
            .await;
        assert_unavailable(&refused);

        store.set_down(false);
        let listed = peer.request(7, "tasks/list", json!({})).await;
        assert_eq!(listed["result"]["tasks"][0]["taskId"], task, "{listed}");
        gate.0.notify_one();
        let result = peer.request(8, "tasks/result", id).await;
        assert_eq!(result["result"]["content"][0]["text"], "held", "{result}");
    }
}

#[cfg(feature = "http-server")]
mod http {
    use super::*;
    use presa::server::http::StreamableHttp;

    /// A POST of `body` with the headers the transport asks for.
    async fn post(url: &str, body: Value) -> reqwest::Response {
        let method = body["method"].as_str().unwrap().to_owned();
        let mut post = reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", common::VERSION)
            .header("mcp-method", method);
        if let Some(name) = body["params"]["name"]
            .as_str()
            .or(body["params"]["taskId"].as_str())
        {
            post = post.header("mcp-name", name);
        }
        post.body(body.to_string()).send().await.unwrap()
    }

    fn rpc(id: i64, method: &str, mut params: Value) -> Value {
        params["_meta"] = tasks_meta();
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    /// Checks that `response` is a `503` asking to retry after a second,
    /// with the `-31002` error as its body.
    async fn assert_503(response: reqwest::Response) {
        assert_eq!(response.status().as_u16(), 503);
        assert_eq!(response.headers()["retry-after"], "1");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_unavailable(&body);
    }

    #[tokio::test]
    async fn over_http_a_store_failure_is_a_503_with_retry_after() {
        let store = SwitchedStore::default();
        let server = server(&store, &Gate::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(StreamableHttp::new(server).serve_on(listener));
        let batch = json!({"name": "batch", "arguments": {}});
        let created = post(&url, rpc(1, "tools/call", batch.clone())).await;
        let created: Value = serde_json::from_str(&created.text().await.unwrap()).unwrap();
        let task = created["result"]["taskId"].as_str().unwrap();

        store.set_down(true);
        assert_503(post(&url, rpc(2, "tools/call", batch.clone())).await).await;
        assert_503(post(&url, rpc(3, "tasks/get", json!({"taskId": task}))).await).await;

        store.set_down(false);
        let got = post(&url, rpc(4, "tasks/get", json!({"taskId": task}))).await;
        assert_eq!(got.status().as_u16(), 200);
        assert!(got.headers().get("retry-after").is_none());
    }
}

/// A runner that cannot follow its task, or record its end, tries again
/// until the store answers: the task is neither failed for it nor left
/// running. The handler waits, so that the runner follows its task (one
/// that ends at its first step needs no watch), and is let go once the
/// runner has tried to.
#[tokio::test(start_paused = true)]
async fn a_runner_waits_for_the_store_and_the_task_completes() {
    let store = SwitchedStore::default();
    let gate = Gate::default();
    let server = server(&store, &gate);
    let mut peer = RawPeer::over(&server, common::Wire::InProcess);
    store.failing_watches.store(3, Ordering::SeqCst);
    store.failing_changes.store(2, Ordering::SeqCst);

    let created = call(&mut peer, 1, "hold", json!({})).await;
    let task = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {created}"))
        .to_owned();

    for id in 2..100 {
        let got = request(&mut peer, id, "tasks/get", json!({"taskId": &task})).await;
        match got["result"]["status"].as_str() {
            Some("completed") => {
                assert_eq!(got["result"]["result"]["content"][0]["text"], "held");
                assert_eq!(store.failing_watches.load(Ordering::SeqCst), 0);
                assert_eq!(store.failing_changes.load(Ordering::SeqCst), 0);
                return;
            }
            Some("working") => {
                // Every failing watch was tried: the handler may end.
                if store.failing_watches.load(Ordering::SeqCst) == 0 {
                    gate.0.notify_one();
                }
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
            _ => panic!("the task did not wait for the store: {got}"),
        }
    }
    panic!("the task never completed");
}
