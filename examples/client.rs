//! A client for any MCP server: it connects, lists the tools, calls one,
//! and follows the call to its end when the server runs it as a task.
//!
//! ```text
//! cargo run --example client -- [--token TOKEN] [--call TOOL ARGUMENTS] SERVER
//! ```
//!
//! - `SERVER` is an `http://` or `https://` URL of an MCP endpoint, or a
//!   command to start over stdio with its arguments (after `--` if they
//!   begin with `-`), such as `target/debug/examples/hello`.
//! - `--call TOOL ARGUMENTS` calls `TOOL` with `ARGUMENTS`, a JSON object
//!   such as `'{"name": "Ada"}'`, and prints the result's text. The client
//!   declares the Tasks extension, so the server may answer with a task:
//!   the client then polls it until it ends.
//! - `--token TOKEN` sends `Authorization: Bearer TOKEN` (HTTP only).
//!
//! When the server asks for input (elicitation), the question and the
//! schema of the answer are printed on stderr and the answer is read from
//! stdin, as one line of JSON; an empty line, or the end of stdin,
//! declines. The exit status is 0 when everything succeeded, 1 when the
//! tool answered with an error or the client failed, 2 on a bad command
//! line.
//!
//! ```text
//! cargo run --example client -- --call greet '{"name": "Ada"}' target/debug/examples/hello
//! cargo run --example jobs -- http 127.0.0.1:3000 &
//! echo '{"ok": true}' | cargo run --example client -- --call build '{"target": "all"}' http://127.0.0.1:3000/mcp
//! ```

use std::error::Error;

use presa::client::prelude::*;
use presa::client::{ClientTransport, HttpOptions};
use presa::wire::{ElicitRequestParams, Tool};
use serde_json::{Map, Value};

const USAGE: &str =
    "usage: client [--token TOKEN] [--call TOOL ARGUMENTS] (URL | COMMAND [ARG...])";

/// What the command line asks for.
struct Options {
    token: Option<String>,
    /// The tool to call, and its arguments.
    call: Option<(String, Map<String, Value>)>,
    /// A URL, or a command and its arguments.
    server: Vec<String>,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Options {
            token: None,
            call: None,
            server: Vec::new(),
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--token" => options.token = Some(args.next().ok_or("--token needs a value")?),
                "--call" => {
                    let (Some(tool), Some(arguments)) = (args.next(), args.next()) else {
                        return Err("--call needs a tool and its arguments".into());
                    };
                    let arguments = serde_json::from_str(&arguments)
                        .map_err(|e| format!("the arguments must be a JSON object: {e}"))?;
                    options.call = Some((tool, arguments));
                }
                "--" => break,
                _ => {
                    options.server.push(arg);
                    break;
                }
            }
        }
        options.server.extend(args);
        if options.server.is_empty() {
            return Err("no server given".into());
        }
        Ok(options)
    }
}

/// The transport to `server`: HTTP for a URL, otherwise the command
/// spawned, speaking over its stdin and stdout.
fn transport(server: &[String], token: Option<String>) -> Result<ClientTransport, Box<dyn Error>> {
    let [first, rest @ ..] = server else {
        return Err("no server given".into());
    };
    if first.starts_with("http://") || first.starts_with("https://") {
        if !rest.is_empty() {
            return Err("a URL takes no arguments".into());
        }
        let options = token.map_or_else(HttpOptions::default, |token| {
            HttpOptions::default().bearer_token(token)
        });
        return Ok(ClientTransport::http_with(first, options)?);
    }
    if token.is_some() {
        return Err("--token goes with an HTTP server".into());
    }
    let mut command = tokio::process::Command::new(first);
    command.args(rest);
    Ok(ClientTransport::spawn(command)?)
}

/// Asks the user on stderr, and reads the answer from stdin.
async fn ask(input: PendingInput<ElicitRequestParams>) -> ElicitResult {
    let ElicitRequestParams::Form {
        message,
        requested_schema,
    } = input.params
    else {
        return ElicitResult::decline();
    };
    eprintln!("the server asks: {message}");
    eprintln!("answer with JSON matching {requested_schema} (an empty line declines):");
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    match line {
        Ok(Ok(line)) if !line.trim().is_empty() => match serde_json::from_str(&line) {
            Ok(content) => ElicitResult::accept(content),
            Err(e) => {
                eprintln!("not JSON ({e}): declining");
                ElicitResult::decline()
            }
        },
        _ => ElicitResult::decline(),
    }
}

fn print_tools(tools: &[Tool]) {
    println!("{} tools:", tools.len());
    for tool in tools {
        let description = tool.description.as_deref().unwrap_or("");
        println!("  {}: {description}", tool.name);
    }
}

/// Calls `tool`, follows its task if it becomes one, and prints the
/// result; `Ok(false)` when the tool answered with an error.
async fn call(
    client: &Client,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<bool, ClientError> {
    let result = match client.call_tool(tool, Value::Object(arguments)).await? {
        CallOutcome::Complete(result) => result,
        CallOutcome::Task(task) => {
            eprintln!("task {} is {}", task.id(), task.task().status);
            client
                .await_task(task.id(), AwaitOptions::default())
                .await?
        }
    };
    for content in &result.content {
        match content.as_text() {
            Some(text) => println!("{text}"),
            None => println!("{}", serde_json::to_string(content).unwrap_or_default()),
        }
    }
    Ok(!result.is_error())
}

async fn run(options: Options) -> Result<bool, Box<dyn Error>> {
    let client = Client::builder()
        .info("presa-example-client", env!("CARGO_PKG_VERSION"))
        .tasks(true)
        .on_elicitation(ask)
        .connect(transport(&options.server, options.token)?);
    let discovered = client.discover().await?;
    if let Some(server) = discovered.server_info() {
        println!("connected to {} {}", server.name, server.version);
    }
    print_tools(&client.list_tools().await?);
    let succeeded = match options.call {
        Some((tool, arguments)) => call(&client, &tool, arguments).await?,
        None => true,
    };
    client.close().await?;
    Ok(succeeded)
}

#[tokio::main]
async fn main() {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    match run(options).await {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("client: {e}");
            std::process::exit(1);
        }
    }
}
