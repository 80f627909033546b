//! The smallest presa server: two tools, served over stdio.
//!
//! ```text
//! cargo run --example hello
//! ```
//!
//! An MCP host starts it as a command of its own and speaks to it over
//! stdin and stdout; `docs/hosts.md` shows how to add it to Claude Code,
//! Gemini CLI, VS Code or Cursor. Each tool's doc comment is its
//! description, and its parameters are its input schema.

use presa::prelude::*;

/// Greets someone by name.
#[tool(read_only)]
async fn greet(#[param(description = "Who to greet")] name: String) -> String {
    format!("Hello, {name}!")
}

/// Adds two numbers.
#[tool(read_only)]
async fn add(a: f64, b: f64) -> String {
    (a + b).to_string()
}

#[tokio::main]
async fn main() {
    Server::builder("hello", env!("CARGO_PKG_VERSION"))
        .tool(GreetTool)
        .tool(AddTool)
        .build()
        .serve_stdio()
        .await;
}
