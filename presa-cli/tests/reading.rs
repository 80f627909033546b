//! `presa prompts`, `prompt`, `resources`, `read`, `discover` and `task`
//! as processes, against a Streamable HTTP server this test serves in its
//! own process: a prompt, a resource, and two tools that run as tasks
//! (one finishes at once, one never does), whose tasks the test creates
//! with presa's client so that `presa task` finds them by id.

mod common;

use std::process::Output;
use std::sync::OnceLock;
use std::time::Duration;

use common::{Served, presa};
use presa::client::prelude::*;
use presa::prelude::*;
use presa::server::TaskSettings;
use serde_json::{Value, json};

/// Greets someone.
#[prompt]
async fn greet(#[param(description = "Who to greet")] name: String) -> String {
    format!("Hello, {name}!")
}

/// The first note.
#[resource(uri = "note://first", mime_type = "text/plain")]
async fn first_note() -> &'static str {
    "the first note's text"
}

/// Finishes at once, as a task.
#[tool(task = "required")]
async fn instant() -> &'static str {
    "done at once"
}

/// Never finishes: a task that stays `working` until cancelled.
#[tool(task = "required")]
async fn forever() -> String {
    std::future::pending().await
}

/// The test's server, served once for the whole test binary.
fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let server = Server::builder("reading", "1")
            .instructions("A prompt, a resource and two task tools, for presa's tests.")
            .prompt(GreetPrompt)
            .resource(FirstNoteResource)
            .tool(InstantTool)
            .tool(ForeverTool)
            .tasks(TaskSettings::default().poll_interval(Duration::from_millis(20)))
            .build();
        Served::new(server)
    })
}

/// A task of `tool`'s, created through presa's client in process: the
/// same server, and the same (anonymous) owner as `presa` over HTTP.
fn new_task(tool: &str) -> String {
    let served = served();
    served.runtime.block_on(async {
        let client = Client::builder()
            .tasks(true)
            .connect(in_process(&served.server, Caller::anonymous()));
        let created = client.call_tool(tool, json!({})).await.expect("the call");
        let id = created.task().expect("a task").id().to_owned();
        client.close().await.expect("the client closes");
        id
    })
}

/// The JSON document on stdout of a run that succeeded.
fn json_of(args: &[&str]) -> Value {
    let output = presa(args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The text on stdout of a run that succeeded.
fn text_of(args: &[&str]) -> String {
    let output = presa(args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn prompts_lists_the_prompt_with_its_arguments() {
    let url = &served().url;
    let prompts = json_of(&["prompts", url, "--json"]);
    let greet = &prompts.as_array().expect("a list")[0];
    assert_eq!(greet["name"], "greet", "{prompts}");
    assert_eq!(greet["arguments"][0]["name"], "name", "{prompts}");
    assert_eq!(greet["arguments"][0]["required"], true, "{prompts}");
    let human = text_of(&["prompts", url]);
    assert!(
        human.contains("greet") && human.contains("Greets someone"),
        "{human}"
    );
}

#[test]
fn prompt_renders_the_messages_with_the_arguments_given() {
    let url = &served().url;
    let prompt = json_of(&["prompt", url, "greet", "name=Ada", "--json"]);
    assert_eq!(
        prompt["messages"][0]["content"]["text"], "Hello, Ada!",
        "{prompt}"
    );
    let human = text_of(&["prompt", url, "greet", "name=Ada"]);
    assert!(human.contains("user: Hello, Ada!"), "{human}");
}

#[test]
fn a_prompt_without_its_required_argument_is_a_protocol_error_that_says_so() {
    let output = presa(&["prompt", &served().url, "greet"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(stderr(&output).contains("name"), "{}", stderr(&output));
}

#[test]
fn resources_lists_and_read_shows_the_text() {
    let url = &served().url;
    let resources = json_of(&["resources", url, "--json"]);
    let note = &resources.as_array().expect("a list")[0];
    assert_eq!(note["uri"], "note://first", "{resources}");
    assert_eq!(note["mimeType"], "text/plain", "{resources}");
    let read = json_of(&["read", url, "note://first", "--json"]);
    assert_eq!(
        read["contents"][0]["text"], "the first note's text",
        "{read}"
    );
    let human = text_of(&["read", url, "note://first"]);
    assert!(human.contains("the first note's text"), "{human}");
}

#[test]
fn reading_an_unknown_resource_is_a_protocol_error() {
    let output = presa(&["read", &served().url, "note://none"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("note://none"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn discover_shows_the_server_and_what_it_offers() {
    let url = &served().url;
    let discovered = json_of(&["discover", url, "--json"]);
    let text = discovered.to_string();
    assert!(text.contains("\"reading\""), "{discovered}");
    assert!(text.contains("2026-07-28"), "{discovered}");
    assert!(
        text.contains("io.modelcontextprotocol/tasks"),
        "{discovered}"
    );
    let human = text_of(&["discover", url]);
    assert!(human.contains("reading"), "{human}");
}

#[test]
fn task_get_shows_a_working_task_and_cancel_cancels_it() {
    let url = &served().url;
    let id = new_task("forever");
    let task = json_of(&["task", url, "get", &id, "--json"]);
    assert_eq!(task["taskId"], id, "{task}");
    assert_eq!(task["status"], "working", "{task}");
    let human = text_of(&["task", url, "get", &id]);
    assert!(human.contains(&format!("task {id}: working")), "{human}");
    let cancelled = json_of(&["task", url, "cancel", &id, "--json"]);
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    let task = json_of(&["task", url, "get", &id, "--json"]);
    assert_eq!(task["status"], "cancelled", "{task}");
}

#[test]
fn task_watch_of_a_finished_task_prints_its_result() {
    let url = &served().url;
    let id = new_task("instant");
    let result = json_of(&["task", url, "watch", &id, "--json"]);
    assert_eq!(result["content"][0]["text"], "done at once", "{result}");
    let human = text_of(&["task", url, "watch", &id]);
    assert!(human.contains("done at once"), "{human}");
}

#[test]
fn an_unknown_task_is_a_protocol_error_that_names_it() {
    let output = presa(&["task", &served().url, "get", "no-such-task"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no-such-task"),
        "{}",
        stderr(&output)
    );
}
