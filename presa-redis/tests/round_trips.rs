//! How many round trips to Redis a task's life takes, through presa's own
//! server and client: each one saved is latency saved on every task call.
//!
//! The count is [`presa_redis::round_trips`], which the feature
//! `round-trips` keeps (this crate's dev-dependency on itself turns it on
//! for its tests). The counter is process-wide, so everything is counted
//! in one test, in this test binary of its own; polls of `tasks/get` are
//! counted apart, as one round trip each.
//!
//! The test starts a `redis-server` of its own (and is reported ignored
//! where the build found none, unless `PRESA_REQUIRE_REDIS=1`). Nothing
//! waits on time.

#[allow(dead_code)]
#[path = "stores/redis_server.rs"]
mod redis_server;

use std::time::Duration;

use presa::client::prelude::*;
use presa::prelude::*;
use presa::wire::{ElicitResult, InputResponse, TaskStatus};
use presa_redis::RedisTaskStore;
use serde::Deserialize;
use serde_json::json;

use redis_server::{RedisServer, replies_with};

/// How long a test may wait for any one event before it fails.
const GUARD: Duration = Duration::from_secs(20);

#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// Asks once, then answers.
#[tool(task = "optional")]
async fn ask(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Go ahead?").await?;
    Ok(answer.accepted().is_some_and(|c| c.ok).to_string())
}

/// Returns at once.
#[tool(task = "optional")]
async fn work() -> &'static str {
    "done"
}

/// A client, declaring tasks, of a server whose tasks are on `redis`.
fn client(redis: &RedisServer) -> Client {
    let store = RedisTaskStore::builder(redis.url())
        .prefix("trips:")
        .build()
        .expect("a valid URL");
    let server = Server::builder("trips", "1")
        .tool(AskTool)
        .tool(WorkTool)
        .tasks(TaskSettings::default())
        .task_store(store)
        .build();
    Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { ElicitResult::decline() })
        .connect(in_process(&server, Caller::anonymous()))
}

/// Polls `tasks/get` of `id` until it shows `status`; how many polls.
async fn poll_until(client: &Client, id: &str, status: TaskStatus) -> u64 {
    let mut polls = 0;
    loop {
        polls += 1;
        let got = client.get_task(id).await.expect("tasks/get");
        if got.task.status == status {
            return polls;
        }
        assert!(!got.task.status.is_terminal(), "ended as {got:?}");
    }
}

/// The round trips of `ask`'s whole life, polls taken out: to its
/// question, and from the answer to its result.
async fn ask_life(client: &Client) -> (u64, u64) {
    let start = presa_redis::round_trips();
    let created = client.call_tool("ask", json!({})).await.expect("call");
    let id = created.task().expect("a task").id().to_owned();
    let polls = poll_until(client, &id, TaskStatus::InputRequired).await;
    let parked = presa_redis::round_trips();
    let answer = InputResponse::Elicit(ElicitResult::accept(json!({"ok": true})));
    client
        .update_task(&id, [("confirm".to_owned(), answer)].into())
        .await
        .expect("tasks/update");
    let end_polls = poll_until(client, &id, TaskStatus::Completed).await;
    let ended = presa_redis::round_trips();
    (parked - start - polls, ended - parked - end_polls)
}

/// The round trips of `work`'s whole life, polls taken out.
async fn work_life(client: &Client) -> u64 {
    let start = presa_redis::round_trips();
    let created = client.call_tool("work", json!({})).await.expect("call");
    let id = created.task().expect("a task").id().to_owned();
    let polls = poll_until(client, &id, TaskStatus::Completed).await;
    presa_redis::round_trips() - start - polls
}

/// Waits until `redis` has no channel subscribed: the last watch's
/// unsubscription, which runs in the background, is done.
async fn until_unsubscribed(redis: &RedisServer) {
    let port = redis.port();
    let check = async {
        while !tokio::task::spawn_blocking(move || replies_with(port, "PUBSUB CHANNELS", "*0\r\n"))
            .await
            .expect("the check ran")
        {
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(GUARD, check)
        .await
        .expect("the watch unsubscribed");
}

crate::redis_tests!(a_task_life_takes_the_fewest_round_trips);

async fn a_task_life_takes_the_fewest_round_trips(redis: RedisServer) {
    let client = client(&redis);
    // The first lives connect, load the scripts and start the sweeper.
    ask_life(&client).await;
    work_life(&client).await;
    until_unsubscribed(&redis).await;

    // `work` ends at its first step: create and complete, with no watch.
    assert_eq!(work_life(&client).await, 2, "create, complete");

    // `ask`: create, the question and the runner's watch (subscribe,
    // read), which the runner's own task sets up beside the question, so
    // the subscription and the read may come after the question is seen;
    // then the answer (its owner checked on the store's copy), the
    // result, and the unsubscription, which may come after the last poll.
    let (to_park, to_end) = ask_life(&client).await;
    assert!((2..=4).contains(&to_park), "to the question: {to_park}");
    assert!(
        (6..=7).contains(&(to_park + to_end)),
        "create, question, subscribe, read, answer, result, unsubscribe: \
         {to_park} + {to_end}"
    );
    until_unsubscribed(&redis).await;
}
