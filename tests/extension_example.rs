//! `examples/extension.rs`, run as the process it is: a vendor extension
//! written with the public extension API, spoken to over stdio line by
//! line, as a client that knows the extension would; and the builder's
//! refusals of extensions that clash.
//!
//! Nothing waits on time: each answer is awaited within [`GUARD`], which
//! only turns a hang into a failure. The process is killed when the test
//! ends, even by a panic.

use crate::jobs_example;
use crate::process_start;

use std::process::Stdio;
use std::time::Duration;

use presa::server::Server;
use presa::server::extension::{Advertised, Extension, ExtensionMethod};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::timeout;

use jobs_example::example_binary;
use process_start::started;

/// How long a test waits for any one answer before it fails.
const GUARD: Duration = Duration::from_secs(60);

/// The example's process, and the two ends of its stdio.
struct Example {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Example {
    async fn start() -> Example {
        let mut command = Command::new(example_binary("extension"));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = started("the extension example", || command.spawn());
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped")).lines();
        Example {
            _child: child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    /// Sends `method` with `params` and a 2026-07-28 `_meta` declaring
    /// `extensions`, and returns the response.
    async fn request(&mut self, method: &str, params: Value, extensions: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
        });
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut line = line.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        loop {
            let line = timeout(GUARD, self.stdout.next_line())
                .await
                .unwrap_or_else(|_| panic!("no answer to {method} within {GUARD:?}"))
                .unwrap()
                .expect("the example answers before it ends");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }
}

#[tokio::test]
async fn discover_advertises_the_extension() {
    let mut example = Example::start().await;
    let answer = example
        .request("server/discover", json!({}), json!({}))
        .await;
    let extensions = &answer["result"]["capabilities"]["extensions"];
    assert_eq!(*extensions, json!({"com.example/stats": {}}), "{answer}");
}

#[tokio::test]
async fn an_extension_adds_to_the_meta_of_core_results_it_is_declared_for() {
    let mut example = Example::start().await;
    let declared = json!({"com.example/stats": {}});
    for method in ["server/discover", "tools/list"] {
        let answer = example.request(method, json!({}), declared.clone()).await;
        let meta = &answer["result"]["_meta"];
        assert_eq!(meta["com.example/stats"]["answeredBy"], method, "{answer}");
        assert_eq!(
            meta["io.modelcontextprotocol/serverInfo"]["name"],
            "extension"
        );
    }
    let call = json!({"name": "weather", "arguments": {"city": "Oslo"}});
    let answer = example.request("tools/call", call.clone(), declared).await;
    assert_eq!(
        answer["result"]["_meta"]["com.example/stats"]["answeredBy"],
        "tools/call"
    );
    let plain = example.request("tools/call", call, json!({})).await;
    assert!(
        plain["result"]["_meta"].get("com.example/stats").is_none(),
        "{plain}"
    );
}

#[tokio::test]
async fn a_method_declared_by_client_needs_the_declaration() {
    let mut example = Example::start().await;
    let refused = example.request("stats/get", json!({}), json!({})).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "`stats/get` needs the client to declare the com.example/stats extension"
    );
    assert_eq!(
        refused["error"]["data"],
        json!({"requiredCapabilities": {"extensions": {"com.example/stats": {}}}})
    );
    let declared = json!({"com.example/stats": {}});
    let answer = example.request("stats/get", json!({}), declared).await;
    assert_eq!(answer["result"]["statsCalls"], 1, "{answer}");

    let meta = &answer["result"]["_meta"];
    assert_eq!(
        meta["com.example/stats"]["answeredBy"], "stats/get",
        "{answer}"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/serverInfo"]["name"],
        "extension"
    );

    let unknown = example.request("stats/reset", json!({}), json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
}

/// An extension serving `method`, for the builder's refusals.
struct Serving(&'static str, &'static str);

impl Extension for Serving {
    fn id(&self) -> &'static str {
        self.0
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        vec![ExtensionMethod::new(self.1, |call| async move {
            Ok(call.complete(json!({})))
        })]
    }
}

#[test]
#[should_panic(expected = "extension `widgets` has no vendor prefix")]
fn the_builder_refuses_an_identifier_without_a_prefix() {
    Server::builder("x", "1")
        .extension(Advertised::new("widgets", json!({})))
        .build();
}

#[test]
#[should_panic(expected = "extension `com.example/x` serves `prompts/get`, a method of the core")]
fn the_builder_refuses_an_extension_serving_a_core_method() {
    Server::builder("x", "1")
        .extension(Serving("com.example/x", "prompts/get"))
        .build();
}

#[test]
#[should_panic(expected = "extensions `com.example/a` and `com.example/b` both serve `w/get`")]
fn the_builder_refuses_one_method_served_twice() {
    Server::builder("x", "1")
        .extension(Serving("com.example/a", "w/get"))
        .extension(Serving("com.example/b", "w/get"))
        .build();
}

#[test]
#[should_panic(
    expected = "extensions `com.example/t` and `io.modelcontextprotocol/tasks` both serve `tasks/get`"
)]
fn the_builder_refuses_an_extension_serving_a_tasks_method() {
    Server::builder("x", "1")
        .extension(Serving("com.example/t", "tasks/get"))
        .tasks(presa::server::TaskSettings::default())
        .build();
}
