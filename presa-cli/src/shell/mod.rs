//! `presa shell SERVER`: commands typed one line at a time, to one server,
//! on one connection kept open until the shell ends.
//!
//! Each line runs the same code as the one-shot command it names
//! (`commands::dispatch`), on the shell's one [`Session`]; `line` reads
//! it, `completion` completes it. The rules, in order:
//!
//! 1. the session declares the Tasks extension, so that `call --task` and
//!    `task` work on it. A server may then answer any call with a task;
//!    it is followed as `call --task` follows one;
//! 2. the server's tools are listed before the first prompt, and again
//!    before the next prompt after it says they changed
//!    (`notifications/tools/list_changed`): completion reads that list.
//!    A 2026-07-28 server sends no notification outside a
//!    `subscriptions/listen` stream, so its tools are listed again after
//!    each command instead;
//! 3. a `call` that leaves out some of the tool's required arguments asks
//!    for each in the terminal, typed by the schema as a server's form
//!    question is; declining makes no call. With no terminal the call
//!    goes as typed, and the server says what is missing;
//! 4. Ctrl-C at the prompt clears the line. SIGINT is caught for the
//!    whole shell, so it never ends it: while a task is followed, Ctrl-C
//!    asks whether to cancel or detach, as in `call`; at any other time it
//!    stops waiting for the command, whose answer is dropped, and the
//!    prompt comes back. A question's prompt reads it as a key, which
//!    declines the question, then stops the command so;
//! 5. a command's failure is told, and the prompt comes back; so is a
//!    question left unanswered, once;
//! 6. `exit`, `quit` and Ctrl-D end the shell with status 0. The lines
//!    typed are kept in `shell_history`, in presa's config folder.
//!
//! Layers, bottom up: completion, line.

mod completion;
mod line;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};
use serde_json::{Map, Value, json};

use presa::client::Era;

use crate::command_line::{Command, Common};
use crate::commands::dispatch;
use crate::exit::{Exit, Failure};
use crate::hosts::presa_config_folder;
use crate::interrupt::Interrupts;
use crate::output::shown::{self, note, say};
use crate::session::Session;
use crate::target::Target;
use crate::tool_arguments::split_pair;
use completion::{KnownTool, ShellHelper};
use line::Line;

/// What the prompt shows.
const PROMPT: &str = "presa> ";

/// The notification that the server's tools changed (rule 2).
const TOOLS_CHANGED: &str = "notifications/tools/list_changed";

/// `presa shell SERVER`.
pub async fn shell(server: &Target, common: &Common) -> Result<Exit, Failure> {
    let stale = Arc::new(AtomicBool::new(true));
    let heard = Arc::clone(&stale);
    let mut session = Session::open_with(server, common, true, move |notification| {
        if notification.method == TOOLS_CHANGED {
            heard.store(true, Ordering::Release);
        }
    })
    .await?;
    let tools = Arc::new(Mutex::new(Vec::new()));
    let config = Config::builder().auto_add_history(true).build();
    let mut editor: Editor<ShellHelper, FileHistory> = Editor::with_config(config)
        .map_err(|e| Failure::usage(format!("cannot read lines from the terminal: {e}")))?;
    // After the editor: on Unix it takes SIGINT for itself when made, and
    // SIGINT must come to presa's handler instead (rule 4). At the prompt
    // the terminal reads Ctrl-C as a key anyway.
    let mut interrupts = Interrupts::catch_for_good(&session.answerer);
    editor.set_helper(Some(ShellHelper {
        tools: Arc::clone(&tools),
    }));
    let history = presa_config_folder().map(|folder| folder.join("shell_history"));
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    let server_text = server.to_string();
    note!(
        "presa shell on {}. `help` lists the commands; Ctrl-D ends the shell.",
        shown::line(&server_text)
    );
    loop {
        if stale.swap(false, Ordering::AcqRel) {
            list_tools(&session, &tools).await;
        }
        let read = tokio::task::block_in_place(|| editor.readline(PROMPT));
        let text = match read {
            Ok(text) => text,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                note!("presa: cannot read the line: {e}");
                break;
            }
        };
        save_history(&mut editor, history.as_deref());
        match line::read(&text, &server_text) {
            Line::Nothing => {}
            Line::Exit => break,
            Line::Say(text) => say!("{text}"),
            Line::Refused(why) => note!("presa: {why}"),
            Line::Run { command, json } => {
                session.json = common.json || json;
                run(&session, command, &mut interrupts).await;
                // Rule 2: a modern server tells no change outside a listen.
                if matches!(session.client.era().await, Ok(Era::Modern)) {
                    stale.store(true, Ordering::Release);
                }
            }
        }
    }
    session.close().await;
    Ok(Exit::Success)
}

/// Lists the server's tools for completion (rule 2).
async fn list_tools(session: &Session, tools: &Mutex<Vec<KnownTool>>) {
    match session.client.list_tools().await {
        Ok(listed) => {
            let known = listed
                .iter()
                .map(|tool| KnownTool::new(&tool.name, &tool.input_schema))
                .collect();
            *tools
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = known;
        }
        Err(e) => note!(
            "presa: cannot list the tools to complete their names: {}",
            shown::line(&e.to_string())
        ),
    }
}

/// Keeps the lines typed so far; a history that cannot be written is
/// no reason to stop.
fn save_history(editor: &mut Editor<ShellHelper, FileHistory>, path: Option<&std::path::Path>) {
    let Some(path) = path else {
        return;
    };
    if let Some(folder) = path.parent() {
        let _ = std::fs::create_dir_all(folder);
    }
    let _ = editor.save_history(path);
}

/// Runs one command, telling how it failed (rules 3 to 5).
async fn run(session: &Session, command: Command, interrupts: &mut Interrupts) {
    // A Ctrl-C the last command already answered (a task's choice) is
    // not this command's.
    interrupts.forget_caught();
    let running = async {
        let command = with_required_arguments(session, command).await?;
        Some(dispatch(session, command).await)
    };
    tokio::pin!(running);
    let ran = loop {
        tokio::select! {
            biased;
            ran = &mut running => break ran,
            () = interrupts.next() => {
                if !session.answerer.choices().is_following() {
                    note!("presa: interrupted; the command's answer, if any, is dropped");
                    break None;
                }
            }
        }
    };
    if let Some(Err(failure)) = ran {
        note!("presa: {}", shown::line(&failure.message));
    }
}

/// `command`, or a call with the required arguments it left out asked
/// for; `None` when the person declined to give them (rule 3).
async fn with_required_arguments(session: &Session, command: Command) -> Option<Command> {
    let Command::Call {
        server,
        tool,
        pairs,
        json_args,
        task,
    } = command
    else {
        return Some(command);
    };
    let mut given = match json_args.as_deref().map(serde_json::from_str::<Value>) {
        None => Map::new(),
        Some(Ok(Value::Object(given))) => given,
        // Not an object: the call says so.
        Some(_) => Map::new(),
    };
    let keys: Vec<&str> = pairs
        .iter()
        .filter_map(|pair| split_pair(pair).ok().map(|(key, _)| key))
        .collect();
    let missing = match session.answerer.has_terminal() {
        true => missing(session, &tool, &given, &keys).await,
        false => None,
    };
    let json_args = match missing {
        None => json_args,
        Some(form) => {
            let names = form["required"].as_array().cloned().unwrap_or_default();
            let names: Vec<String> = names
                .iter()
                .filter_map(Value::as_str)
                .map(|n| shown::line(n).to_string())
                .collect();
            let message = format!("{} needs {}:", shown::line(&tool), names.join(", "));
            let Some(values) = session.answerer.fill_in(message, form).await else {
                note!("presa: declined; no call made");
                return None;
            };
            given.extend(values);
            Some(Value::Object(given).to_string())
        }
    };
    Some(Command::Call {
        server,
        tool,
        pairs,
        json_args,
        task,
    })
}

/// The form that asks for `tool`'s required arguments that neither
/// `given` nor `keys` has, or `None` when none is missing (or the tool
/// is not listed).
async fn missing(
    session: &Session,
    tool: &str,
    given: &Map<String, Value>,
    keys: &[&str],
) -> Option<Value> {
    let tools = session.client.list_tools().await.ok()?;
    let schema = tools.into_iter().find(|t| t.name == tool)?.input_schema;
    required_form(&schema, given, keys)
}

/// The form of `schema`'s required properties that neither `given` nor
/// `keys` has, or `None` when there are none.
fn required_form(schema: &Value, given: &Map<String, Value>, keys: &[&str]) -> Option<Value> {
    let required = schema.get("required").and_then(Value::as_array)?;
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut asked = Map::new();
    let mut names = Vec::new();
    for name in required.iter().filter_map(Value::as_str) {
        if given.contains_key(name) || keys.contains(&name) {
            continue;
        }
        let property = properties.and_then(|p| p.get(name)).cloned();
        asked.insert(name.to_owned(), property.unwrap_or_else(|| json!({})));
        names.push(name);
    }
    if names.is_empty() {
        return None;
    }
    Some(json!({"type": "object", "properties": asked, "required": names}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_asks_only_for_required_arguments_not_given() {
        let schema = json!({
            "properties": {
                "target": {"type": "string"},
                "seconds": {"type": "integer"},
                "to": {"type": "string"}
            },
            "required": ["target", "to"]
        });
        let form = required_form(&schema, &Map::new(), &["to"]).unwrap();
        assert_eq!(form["required"], json!(["target"]));
        assert_eq!(form["properties"], json!({"target": {"type": "string"}}));
        let given = json!({"target": "all"}).as_object().cloned().unwrap();
        assert_eq!(required_form(&schema, &given, &["to"]), None);
        assert_eq!(required_form(&json!({}), &Map::new(), &[]), None);
    }
}
