//! Legacy tasks (2025-11-25) on the server's task engine, over stdio and
//! in-process: a `task` param makes a call a task, `tasks/get`,
//! `tasks/result`, `tasks/list` and `tasks/cancel` follow it, input goes
//! to the client as requests tied to the task, and sessions keep their
//! tasks to themselves. Time is paused.

use crate::common;

use std::sync::Arc;

use common::{RawPeer, WIRES, Wire, connect, error_code, fixture, fixture_with};
use presa::prelude::*;
use presa::server::tasks::store::{StoreError, TaskChange, TaskLimits, TaskRecord, TaskWatch};
use serde_json::{Value, json};

async fn session(server: &Server, wire: Wire, capabilities: Value) -> RawPeer {
    let channel = connect(server, Caller::anonymous(), wire);
    RawPeer::legacy(channel, "2025-11-25", capabilities).await.0
}

/// Calls `name` with `arguments` as a task and returns the task's id.
async fn start(peer: &mut RawPeer, id: i64, name: &str, arguments: Value) -> String {
    let params = json!({"name": name, "arguments": arguments, "task": {"ttl": 60000}});
    let created = peer.request(id, "tools/call", params).await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert!(task.get("ttl").is_some() && task.get("ttlMs").is_none());
    task["taskId"].as_str().unwrap().to_owned()
}

async fn task_request(peer: &mut RawPeer, id: i64, method: &str, task: &str) -> Value {
    peer.request(id, method, json!({"taskId": task})).await
}

#[tokio::test(start_paused = true)]
async fn a_task_asks_with_a_request_tied_to_it_and_its_result_waits_for_the_end() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let task = start(&mut peer, 1, "build", json!({"target": "docs"})).await;
        let request = peer.recv().await;
        assert_eq!(request["method"], "elicitation/create", "{request}");
        let related = &request["params"]["_meta"]["io.modelcontextprotocol/related-task"];
        assert_eq!(related["taskId"], task.as_str());
        let got = task_request(&mut peer, 2, "tasks/get", &task).await;
        assert_eq!(got["result"]["status"], "input_required", "{wire:?}: {got}");

        peer.send(json!({"jsonrpc": "2.0", "id": request["id"],
                         "result": {"action": "accept", "content": {"ok": true}}}))
            .await;
        let result = task_request(&mut peer, 3, "tasks/result", &task).await;
        assert_eq!(
            result["result"]["content"][0]["text"], "built docs",
            "{result}"
        );
        let meta = &result["result"]["_meta"]["io.modelcontextprotocol/related-task"];
        assert_eq!(meta["taskId"], task.as_str());
        let got = task_request(&mut peer, 4, "tasks/get", &task).await;
        assert_eq!(got["result"]["status"], "completed");
        let refused = task_request(&mut peer, 5, "tasks/cancel", &task).await;
        assert_eq!(error_code(&refused), -32602, "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("terminal status 'completed'"), "{message}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_error_is_a_failed_task_whose_result_is_the_error_result() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let task = start(&mut peer, 1, "build", json!({"target": "web"})).await;
        let request = peer.recv().await;
        peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}}))
            .await;
        let result = task_request(&mut peer, 2, "tasks/result", &task).await;
        assert_eq!(result["result"]["isError"], true, "{result}");
        let got = task_request(&mut peer, 3, "tasks/get", &task).await;
        assert_eq!(got["result"]["status"], "failed", "{wire:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_task_drops_its_handler_and_cancels_its_request() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let task = start(&mut peer, 1, "build", json!({"target": "docs"})).await;
        let request = peer.recv().await;
        let cancelled = task_request(&mut peer, 2, "tasks/cancel", &task).await;
        assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
        let notice = peer.recv().await;
        assert_eq!(
            notice["method"], "notifications/cancelled",
            "{wire:?}: {notice}"
        );
        assert_eq!(notice["params"]["requestId"], request["id"]);
        let result = task_request(&mut peer, 3, "tasks/result", &task).await;
        assert_eq!(error_code(&result), -32602, "{result}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_required_tool_runs_as_a_task_and_tasks_list_pages_the_sessions_tasks() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        let first = start(&mut peer, 1, "long_job", json!({})).await;
        let second = start(&mut peer, 2, "long_job", json!({})).await;
        let result = task_request(&mut peer, 3, "tasks/result", &second).await;
        assert_eq!(result["result"]["content"][0]["text"], "done");
        let listed = peer.request(4, "tasks/list", json!({})).await;
        let mut ids: Vec<&str> = listed["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["taskId"].as_str().unwrap())
            .collect();
        ids.sort_unstable();
        let mut expected = vec![first.as_str(), second.as_str()];
        expected.sort_unstable();
        assert_eq!(ids, expected, "{wire:?}");
        assert!(listed["result"].get("nextCursor").is_none());
    }
}

/// 2025-11-25: an invalid or nonexistent cursor in `tasks/list` is
/// `-32602` (Invalid params), not a page.
#[tokio::test(start_paused = true)]
async fn tasks_list_refuses_a_cursor_the_server_never_issued() {
    for wire in WIRES {
        let server = fixture().server;
        let mut peer = session(&server, wire, json!({})).await;
        let task = start(&mut peer, 1, "long_job", json!({})).await;
        for (id, cursor) in [(2, "bogus"), (3, task.as_str())] {
            let listed = peer
                .request(id, "tasks/list", json!({"cursor": cursor}))
                .await;
            assert_eq!(error_code(&listed), -32602, "{wire:?}: {listed}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn two_anonymous_sessions_cannot_see_each_others_tasks() {
    for wire in WIRES {
        let server = fixture().server;
        let mut alice = session(&server, wire, json!({})).await;
        let mut bob = session(&server, wire, json!({})).await;
        let task = start(&mut alice, 1, "long_job", json!({})).await;
        for (id, method) in [(1, "tasks/get"), (2, "tasks/result"), (3, "tasks/cancel")] {
            let response = task_request(&mut bob, id, method, &task).await;
            assert_eq!(
                error_code(&response),
                -32602,
                "{wire:?} {method}: {response}"
            );
            let message = response["error"]["message"].as_str().unwrap();
            assert!(message.contains("Task not found"), "{message}");
        }
        let listed = bob.request(4, "tasks/list", json!({})).await;
        assert_eq!(listed["result"]["tasks"], json!([]));
        let mine = task_request(&mut alice, 2, "tasks/result", &task).await;
        assert_eq!(mine["result"]["content"][0]["text"], "done");
    }
}

#[tokio::test(start_paused = true)]
async fn a_modern_client_cannot_see_a_legacy_sessions_tasks() {
    let server = fixture().server;
    let mut legacy = session(&server, Wire::InProcess, json!({})).await;
    let task = start(&mut legacy, 1, "long_job", json!({})).await;
    let mut modern = RawPeer::over(&server, Wire::InProcess);
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let params = json!({"taskId": task, "_meta": common::meta(capabilities)});
    let response = modern.request(1, "tasks/get", params).await;
    assert_eq!(error_code(&response), -32602, "{response}");
}

/// A `tasks/result` waiting for its task holds no share of the connection's
/// memory budget: a large one must not keep the connection from reading
/// the `tasks/cancel` that lets it end.
#[tokio::test(start_paused = true)]
async fn a_waiting_tasks_result_does_not_keep_the_connection_from_reading() {
    for wire in WIRES {
        let server = common::fixture_with(|b| b.connection_memory_limit(32 * 1024)).server;
        let mut peer = session(&server, wire, common::elicitation()).await;
        let task = start(&mut peer, 1, "build", json!({"target": "docs"})).await;
        let request = peer.recv().await;
        assert_eq!(request["method"], "elicitation/create", "{request}");
        // Most of the budget: its parsed form is several times its text.
        let padding = json!(vec!["x"; 2_000]);
        let waiting = json!({"taskId": &task, "_meta": {"padding": &padding}});
        peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": waiting}))
            .await;
        let cancel = json!({"taskId": &task, "_meta": {"padding": &padding}});
        peer.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel", "params": cancel}))
            .await;
        let mut seen = Vec::new();
        while !seen.iter().any(|m: &Value| m["id"] == 2) {
            let message = peer
                .recv_within(std::time::Duration::from_secs(60))
                .await
                .unwrap_or_else(|| panic!("{wire:?}: the cancel was never read; saw {seen:?}"));
            seen.push(message);
        }
        let cancelled = seen.iter().find(|m| m["id"] == 3);
        assert_eq!(
            cancelled.map(|m| &m["result"]["status"]),
            Some(&json!("cancelled")),
            "{wire:?}: {seen:?}"
        );
        let result = seen.iter().find(|m| m["id"] == 2).unwrap();
        assert_eq!(error_code(result), -32602, "{wire:?}: {result}");
    }
}

/// The session hears each status its task takes after `working`, as
/// `notifications/tasks/status` with the whole task, up to its end; a
/// tool's `isError` result reads `failed`, as in `tasks/get`.
#[tokio::test(start_paused = true)]
async fn the_session_hears_its_tasks_status_change_up_to_the_end() {
    for (answer, end) in [
        (
            json!({"action": "accept", "content": {"ok": true}}),
            "completed",
        ),
        (json!({"action": "decline"}), "failed"),
    ] {
        for wire in WIRES {
            let server = fixture().server;
            let mut peer = session(&server, wire, common::elicitation()).await;
            let task = start(&mut peer, 1, "build", json!({"target": "docs"})).await;
            let request = peer.recv().await;
            assert_eq!(request["method"], "elicitation/create", "{request}");
            peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": answer}))
                .await;
            let statuses = peer.task_statuses_until_end(&task).await;
            let told: Vec<&str> = statuses
                .iter()
                .map(|s| s["status"].as_str().unwrap())
                .collect();
            assert_eq!(
                told.first(),
                Some(&"input_required"),
                "{wire:?}: {statuses:?}"
            );
            assert_eq!(told.last(), Some(&end), "{wire:?}: {statuses:?}");
            assert!(
                told.windows(2).all(|pair| pair[0] != pair[1]),
                "{wire:?}: each notice is a change: {told:?}"
            );
            for status in &statuses {
                assert!(status.get("ttl").is_some() && status.get("createdAt").is_some());
                assert!(status.get("_meta").is_none(), "no related-task: {status}");
            }
        }
    }
}

/// Another session of the same server hears nothing of a session's tasks.
#[tokio::test(start_paused = true)]
async fn another_session_hears_nothing_of_a_sessions_tasks() {
    for wire in WIRES {
        let server = fixture().server;
        let mut owner = session(&server, wire, json!({})).await;
        let mut other = session(&server, wire, json!({})).await;
        let task = start(&mut owner, 1, "long_job", json!({})).await;
        let statuses = owner.task_statuses_until_end(&task).await;
        assert_eq!(statuses.last().unwrap()["status"], "completed");
        let listed = other.request(2, "tasks/list", json!({})).await;
        assert_eq!(listed["result"]["tasks"], json!([]), "{wire:?}");
        assert_eq!(
            other.recv_within(std::time::Duration::from_secs(5)).await,
            None
        );
    }
}

/// The in-memory store, minus listing: a store that cannot list.
struct Unlisted(presa::server::InMemoryTaskStore);

#[async_trait::async_trait]
impl presa::server::TaskStore for Unlisted {
    async fn create(&self, record: TaskRecord, limits: &TaskLimits) -> Result<(), StoreError> {
        self.0.create(record, limits).await
    }

    async fn get(&self, id: &str) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.0.get(id).await
    }

    async fn apply(
        &self,
        id: &str,
        change: TaskChange,
        limits: &TaskLimits,
    ) -> Result<Option<Arc<TaskRecord>>, StoreError> {
        self.0.apply(id, change, limits).await
    }

    async fn watch(&self, id: &str) -> Result<Option<TaskWatch>, StoreError> {
        self.0.watch(id).await
    }

    async fn purge_expired(&self) -> Result<usize, StoreError> {
        self.0.purge_expired().await
    }

    async fn count(&self) -> Result<usize, StoreError> {
        self.0.count().await
    }
}

#[tokio::test(start_paused = true)]
async fn a_store_that_cannot_list_offers_no_tasks_list() {
    for wire in WIRES {
        let server = fixture_with(|b| b.task_store(Unlisted(Default::default()))).server;
        let channel = connect(&server, Caller::anonymous(), wire);
        let (mut peer, initialized) =
            RawPeer::legacy(channel, "2025-11-25", common::elicitation()).await;
        let tasks = &initialized["result"]["capabilities"]["tasks"];
        assert!(
            tasks["requests"]["tools"]["call"].is_object(),
            "{initialized}"
        );
        assert!(tasks.get("list").is_none(), "{initialized}");
        let listed = peer.request(1, "tasks/list", json!({})).await;
        assert_eq!(error_code(&listed), -32601, "{wire:?}: {listed}");
        // The other task methods are served as ever: an unknown task is
        // no missing method.
        let got = task_request(&mut peer, 2, "tasks/get", "unknown").await;
        assert_eq!(error_code(&got), -32602, "{got}");
    }
}
