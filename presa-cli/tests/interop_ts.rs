//! Every `presa` command against another implementation: the TypeScript
//! SDK 1.x's legacy (2025-11-25) server that `scripts/interop.sh`
//! installs (`tests/interop/ts_legacy_server.mjs`), over stdio, reached
//! with no flag for its era.
//!
//! - `tools` and `call`: its question comes as a request of its own,
//!   filed under no key, so the `--answer` is taken by the fields it names;
//! - `prompts` and `prompt`, `resources` and `read`, each with the error a
//!   user can hit (an unknown prompt or a missing argument, an unknown
//!   URI);
//! - `discover`: a legacy server has no `server/discover`, so the answer is
//!   what its `initialize` said, in the same shape, with its task-augmented
//!   `tools/call` shown as the Tasks extension;
//! - the tasks: SDK 1.32.2 serves 2025-11-25 tasks (its experimental
//!   `taskStore`), so `call --task` is followed through `tasks/get` and
//!   `tasks/result`, on which the task's question comes (answered with
//!   `--answer`, or not), and `task get`, `cancel` and `watch` find a task by
//!   id, or name the one they cannot find. Each of them starts the server
//!   anew, so the server keeps its tasks in a file of each test's own
//!   (`MCP_TS_TASKS`), as a stdio server must for a task to outlive its
//!   client; a task left `working` is created with presa's own client, which
//!   does not follow it.
//!
//! The tests need `PRESA_INTEROP_NODE` and `PRESA_INTEROP_TS_SDK`, which
//! that script sets; without them they report so and pass, unless `CI`
//! and `PRESA_INTEROP` are set, when they fail.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use presa::client::{Client, ClientTransport};
use serde_json::{Value, json};

fn interop_setup() -> Option<(String, String)> {
    let node = std::env::var("PRESA_INTEROP_NODE").ok();
    let sdk = std::env::var("PRESA_INTEROP_TS_SDK").ok();
    match (node, sdk) {
        (Some(node), Some(sdk)) => Some((node, sdk)),
        _ if std::env::var_os("CI").is_some() && std::env::var_os("PRESA_INTEROP").is_some() => {
            panic!("PRESA_INTEROP is set, but PRESA_INTEROP_NODE or PRESA_INTEROP_TS_SDK is not")
        }
        _ => {
            #[allow(
                clippy::disallowed_macros,
                reason = "a note for whoever runs the tests"
            )]
            {
                eprintln!("note: no TypeScript SDK to talk to; run scripts/interop.sh");
            }
            None
        }
    }
}

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/interop/ts_legacy_server.mjs"
);

/// The legacy server as one test runs it: how to start it, and the file
/// where it keeps that test's tasks.
struct Legacy {
    node: String,
    sdk: String,
    tasks: PathBuf,
    /// `stdio:` and the command that starts it.
    server: String,
}

impl Legacy {
    /// The server for test `test`, with no tasks yet; `None` when there is
    /// no SDK to run it (see `interop_setup`).
    fn for_test(test: &str) -> Option<Self> {
        let (node, sdk) = interop_setup()?;
        let tasks =
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ts-tasks-{test}.json"));
        let _ = std::fs::remove_file(&tasks);
        let server = format!("stdio:{}", shell_words::join([node.as_str(), SCRIPT]));
        Some(Legacy {
            node,
            sdk,
            tasks,
            server,
        })
    }

    /// `presa COMMAND SERVER REST...`, stdin no terminal, to run.
    fn command(&self, command: &str, rest: &[&str]) -> Command {
        let mut presa = Command::new(env!("CARGO_BIN_EXE_presa"));
        presa
            .arg(command)
            .arg(&self.server)
            .args(rest)
            .env("MCP_TS_SDK", &self.sdk)
            .env("MCP_TS_TASKS", &self.tasks)
            .env("PRESA_CONFIG_DIR", env!("CARGO_TARGET_TMPDIR"))
            .stdin(Stdio::null());
        presa
    }

    /// Runs `presa COMMAND SERVER REST...`, stdin no terminal.
    fn presa(&self, command: &str, rest: &[&str]) -> Output {
        self.command(command, rest).output().expect("presa runs")
    }

    /// The JSON document on stdout of `presa COMMAND SERVER REST... --json`,
    /// which must succeed.
    fn json(&self, command: &str, rest: &[&str]) -> Value {
        let output = self.presa(command, &[rest, &["--json"]].concat());
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is one JSON document ({e}): {}",
                String::from_utf8_lossy(&output.stdout)
            )
        })
    }

    /// The text on stdout of `presa COMMAND SERVER REST...`, which must
    /// succeed.
    fn text(&self, command: &str, rest: &[&str]) -> String {
        let output = self.presa(command, rest);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The stderr of `presa COMMAND SERVER REST...`, which must exit with
    /// `code`.
    fn fails(&self, code: i32, command: &str, rest: &[&str]) -> String {
        let output = self.presa(command, rest);
        assert_eq!(output.status.code(), Some(code), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    }

    /// A task of `wait` with no `ms`, which stays `working`: created with
    /// presa's client, which leaves it when the server's process ends.
    fn working_task(&self) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let mut command = tokio::process::Command::new(&self.node);
            command
                .arg(SCRIPT)
                .env("MCP_TS_SDK", &self.sdk)
                .env("MCP_TS_TASKS", &self.tasks)
                .stderr(Stdio::null());
            let client = Client::builder()
                .tasks(true)
                .connect(ClientTransport::spawn(command).expect("node starts"));
            let called = client.call_tool("wait", json!({})).await.expect("the call");
            let id = called.task().expect("a task").id().to_owned();
            client.close().await.expect("the client closes");
            id
        })
    }
}

/// Whether `said` names every one of `wanted`.
fn named(said: &str, wanted: &[&str]) -> bool {
    wanted.iter().all(|w| said.contains(w))
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn presa_lists_and_calls_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("tools") else {
        return;
    };
    let tools = legacy.json("tools", &[]);
    assert_eq!(tools[0]["name"], "greet", "{tools}");
    assert_eq!(tools[1]["name"], "wait", "{tools}");

    let result = legacy.json("call", &["greet", "name=Ada", "--answer", "greet.ok=true"]);
    assert_eq!(result["content"][0]["text"], "Hello, Ada!", "{result}");

    let said = legacy.fails(4, "call", &["greet", "name=Ada"]);
    assert!(named(&said, &["Greet Ada?", ".ok=true"]), "{said}");
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn prompts_and_prompt_of_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("prompts") else {
        return;
    };
    let prompts = legacy.json("prompts", &[]);
    assert_eq!(prompts[0]["name"], "welcome", "{prompts}");
    assert_eq!(prompts[0]["arguments"][0]["name"], "name", "{prompts}");
    assert_eq!(prompts[0]["arguments"][0]["required"], true, "{prompts}");

    let prompt = legacy.json("prompt", &["welcome", "name=Ada"]);
    let message = &prompt["messages"][0];
    assert_eq!(message["role"], "user", "{prompt}");
    assert_eq!(message["content"]["text"], "Welcome, Ada!", "{prompt}");
    let human = legacy.text("prompt", &["welcome", "name=Ada"]);
    assert!(human.contains("user: Welcome, Ada!"), "{human}");

    let said = legacy.fails(3, "prompt", &["farewell"]);
    assert!(
        named(&said, &["Unknown prompt: farewell", "-32602"]),
        "{said}"
    );
    let said = legacy.fails(3, "prompt", &["welcome"]);
    assert!(named(&said, &["Missing required argument: name"]), "{said}");
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn resources_and_read_of_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("resources") else {
        return;
    };
    let resources = legacy.json("resources", &[]);
    assert_eq!(resources[0]["uri"], "note://motd", "{resources}");
    assert_eq!(resources[0]["mimeType"], "text/plain", "{resources}");

    let read = legacy.json("read", &["note://motd"]);
    let contents = &read["contents"][0];
    assert_eq!(contents["uri"], "note://motd", "{read}");
    assert_eq!(contents["text"], "Be kind to one another.", "{read}");
    let human = legacy.text("read", &["note://motd"]);
    assert!(human.contains("Be kind to one another."), "{human}");

    let said = legacy.fails(3, "read", &["note://none"]);
    assert!(named(&said, &["note://none", "-32002"]), "{said}");
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn discover_of_a_typescript_sdk_legacy_server_tells_what_initialize_said() {
    let Some(legacy) = Legacy::for_test("discover") else {
        return;
    };
    let discovered = legacy.json("discover", &[]);
    assert_eq!(discovered["supportedVersions"], json!(["2025-11-25"]));
    let server = &discovered["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(*server, json!({"name": "ts-legacy", "version": "1.0.0"}));
    let offered = &discovered["capabilities"];
    for capability in ["tools", "prompts", "resources"] {
        assert!(offered.get(capability).is_some(), "{discovered}");
    }
    let extensions = &offered["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_some(),
        "{discovered}"
    );
    assert!(
        discovered["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("TypeScript SDK")),
        "{discovered}"
    );
    let human = legacy.text("discover", &[]);
    assert!(
        named(
            &human,
            &["ts-legacy 1.0.0", "speaks 2025-11-25 (Legacy era)"]
        ),
        "{human}"
    );
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn call_as_a_task_then_get_and_watch_it_on_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("finished-task") else {
        return;
    };
    // The task asks first, through tasks/result.
    let call = ["wait", "ms=100", "confirm=true", "--task"];
    let said = legacy.fails(4, "call", &call);
    assert!(named(&said, &["Wait 100 ms?", ".ok=true"]), "{said}");
    let result = legacy.json("call", &[&call[..], &["--answer", "wait.ok=true"]].concat());
    assert_eq!(result["content"][0]["text"], "waited 100 ms", "{result}");
    // tasks/result names the task its result is of.
    let id = result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("not a task's result: {result}"))
        .to_owned();

    let task = legacy.json("task", &["get", &id]);
    assert_eq!(task["taskId"], id, "{task}");
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["content"][0]["text"], "waited 100 ms");

    let watched = legacy.json("task", &["watch", &id]);
    assert_eq!(watched["content"][0]["text"], "waited 100 ms", "{watched}");
    let human = legacy.text("task", &["watch", &id]);
    assert!(human.contains("waited 100 ms"), "{human}");

    let said = legacy.fails(3, "task", &["cancel", &id]);
    assert!(named(&said, &[&id, "terminal status: completed"]), "{said}");
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn task_get_and_cancel_of_a_working_task_on_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("working-task") else {
        return;
    };
    let id = legacy.working_task();
    let task = legacy.json("task", &["get", &id]);
    assert_eq!(task["taskId"], id, "{task}");
    assert_eq!(task["status"], "working", "{task}");
    assert_eq!(task["pollIntervalMs"], 50, "{task}");
    let human = legacy.text("task", &["get", &id]);
    assert!(human.contains(&format!("task {id}: working")), "{human}");

    let cancelled = legacy.json("task", &["cancel", &id]);
    assert_eq!(cancelled["taskId"], id, "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    let task = legacy.json("task", &["get", &id]);
    assert_eq!(task["status"], "cancelled", "{task}");

    // A task cancelled by someone else ends a watch as a failed task
    // does (130 is for the person's own Ctrl-C), its id told once.
    let said = legacy.fails(3, "task", &["watch", &id]);
    assert!(named(&said, &[&id, "was cancelled"]), "{said}");
    assert_eq!(said.matches(id.as_str()).count(), 1, "{said}");
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn an_unknown_task_of_a_typescript_sdk_legacy_server_is_named() {
    let Some(legacy) = Legacy::for_test("unknown-task") else {
        return;
    };
    for action in ["get", "cancel", "watch"] {
        let said = legacy.fails(3, "task", &[action, "no-such-task"]);
        assert!(
            named(&said, &["task no-such-task", "not found"]),
            "{action}: {said}"
        );
    }
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn templates_and_complete_of_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("templates") else {
        return;
    };
    let templates = legacy.json("templates", &[]);
    assert_eq!(
        templates,
        json!([{"uriTemplate": "note://{topic}", "name": "note", "mimeType": "text/plain"}])
    );
    let said = legacy.text("complete", &["template:note://{topic}", "topic=mo"]);
    assert_eq!(said, "motd\nmoon\n");
    let completion = legacy.json("complete", &["prompt:welcome", "name=A"]);
    assert_eq!(completion["values"], json!(["Ada", "Alan"]), "{completion}");
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn ping_and_log_level_of_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("ping") else {
        return;
    };
    let pinged = legacy.json("ping", &[]);
    assert!(pinged["milliseconds"].as_f64().is_some(), "{pinged}");
    assert_eq!(
        legacy.json("log-level", &["info"]),
        json!({"level": "info"})
    );
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn environment_and_server_log_of_a_typescript_sdk_legacy_server() {
    let Some(legacy) = Legacy::for_test("env") else {
        return;
    };
    let rest = [
        "env",
        "name=GREETING",
        "-e",
        "GREETING=hello there",
        "--json",
    ];
    let output = legacy.presa("call", &rest);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["content"][0]["text"], "hello there", "{result}");
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !said.contains("ts-legacy"),
        "dropped without --server-log: {said}"
    );
    let output = legacy.presa("tools", &["--server-log"]);
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        said.contains("[server] ts-legacy: serving on stdio"),
        "{said}"
    );
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn watch_of_a_typescript_sdk_legacy_server_prints_an_update_as_a_json_line() {
    let Some(legacy) = Legacy::for_test("watch") else {
        return;
    };
    let mut watch = legacy.command("watch", &["--resource", "note://motd", "--json"]);
    watch.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = watch.spawn().expect("presa starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let said = stderr.next().expect("a line").unwrap();
    assert_eq!(said, "presa: watching updates of note://motd; Ctrl-C ends");
    // The server sends an update as soon as the subscription is made.
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let printed = stdout.next().expect("a line").unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let update: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        update,
        json!({"method": "notifications/resources/updated", "params": {"uri": "note://motd"}})
    );
}

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn watch_ends_with_3_when_a_typescript_sdk_legacy_server_exits() {
    let Some(legacy) = Legacy::for_test("watch-exit") else {
        return;
    };
    let mut watch = legacy.command("watch", &["--resource", "note://motd"]);
    let output = watch
        .env("MCP_TS_EXIT_AFTER_UPDATE", "1")
        .output()
        .expect("presa runs");
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(3), "{said}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "updated note://motd\n"
    );
    assert!(
        said.contains("the watch ended: the connection to the server is closed"),
        "{said}"
    );
}

/// `presa shell` on the legacy server, its lines from stdin: a call that
/// asks a question answered by the shell's `--answer`, a listing, and a
/// call left without its required argument, which the server refuses
/// while the shell goes on.
#[test]
#[cfg_attr(
    presa_wine,
    ignore = "needs Node, a Linux program here that a test under Wine cannot start"
)]
fn a_shell_on_a_typescript_sdk_legacy_server_runs_its_lines_in_turn() {
    use std::io::Write;

    let Some(legacy) = Legacy::for_test("shell") else {
        return;
    };
    let mut child = legacy
        .command("shell", &["--answer", "greet.ok=true"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("presa runs");
    let lines = "call greet name=Ada\nprompts --json\ncall greet\ncall greet name=Bo\nexit\n";
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(lines.as_bytes())
        .expect("the lines are written");
    drop(stdin);
    let output = child.wait_with_output().expect("presa ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("Hello, Ada!"), "{stdout}");
    assert!(stdout.contains(r#""name": "welcome""#), "{stdout}");
    assert!(
        stdout.contains("Hello, Bo!"),
        "after a refused call: {stdout}"
    );
}
