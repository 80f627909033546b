//! A notes server whose tools return structured output of every kind: a
//! number, a list, an object, an object or nothing, and an enum.
//!
//! `cargo run --example notes` serves it over stdio. To give it to a
//! host, build it first, and give the host the path of the binary, as
//! `docs/hosts.md` explains (a host gives up on a server that takes too
//! long to start, and `cargo run` may compile first):
//!
//! ```text
//! cargo build --release --example notes
//! claude mcp add notes -- "$(realpath target/release/examples/notes)"
//! npx @modelcontextprotocol/inspector --cli target/release/examples/notes --method tools/list
//! ```
//!
//! Hosts of 2026-07-28 read each output as it is. Hosts of 2025-11-25
//! accept only objects, so they read an output that is not an object as
//! `{"result": …}`, with an `outputSchema` to match (see the guide's
//! "Legacy hosts" chapter). The interop tests run this server against the
//! client of the TypeScript SDK.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use presa::prelude::*;
use serde::Serialize;

/// The notes, by id.
#[derive(Clone, Default)]
struct Notebook(Arc<Mutex<BTreeMap<u32, Note>>>);

impl Notebook {
    fn notes(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, Note>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// One note.
#[derive(Clone, Serialize, schemars::JsonSchema)]
struct Note {
    /// Its id, as `add_note` gave it.
    id: u32,
    /// What it says.
    text: String,
    /// Its tags, if it has any.
    tags: Option<Vec<String>>,
}

/// What the notebook holds.
#[derive(Serialize, schemars::JsonSchema)]
struct Summary {
    /// How many notes there are.
    notes: usize,
    /// How many of them are tagged.
    tagged: usize,
}

/// How full the notebook is.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Fullness {
    /// No notes.
    Empty,
    /// Up to ten.
    Some,
    /// More than ten.
    Many,
}

/// Adds a note and returns its id.
#[tool]
async fn add_note(
    State(book): State<Notebook>,
    #[param(description = "What the note says")] text: String,
    #[param(description = "Tags to file it under")] tags: Option<Vec<String>>,
) -> Json<u32> {
    let mut notes = book.notes();
    let id = notes.keys().next_back().map_or(1, |last| last + 1);
    notes.insert(id, Note { id, text, tags });
    Json(id)
}

/// The ids of every note, oldest first.
#[tool(read_only)]
async fn list_ids(State(book): State<Notebook>) -> Json<Vec<u32>> {
    Json(book.notes().keys().copied().collect())
}

/// The note with this id, if there is one.
#[tool(read_only)]
async fn get_note(
    State(book): State<Notebook>,
    #[param(description = "The note's id")] id: u32,
) -> Json<Option<Note>> {
    Json(book.notes().get(&id).cloned())
}

/// How many notes there are, and how many are tagged.
#[tool(read_only)]
async fn summary(State(book): State<Notebook>) -> Json<Summary> {
    let notes = book.notes();
    Json(Summary {
        notes: notes.len(),
        tagged: notes.values().filter(|note| note.tags.is_some()).count(),
    })
}

/// How full the notebook is. Runs as a task for clients that ask.
#[tool(read_only, task = "optional")]
async fn fullness(State(book): State<Notebook>) -> Json<Fullness> {
    Json(match book.notes().len() {
        0 => Fullness::Empty,
        1..=10 => Fullness::Some,
        _ => Fullness::Many,
    })
}

#[tokio::main]
async fn main() {
    Server::builder("notes", "1")
        .state(Notebook::default())
        .tool(AddNoteTool)
        .tool(ListIdsTool)
        .tool(GetNoteTool)
        .tool(SummaryTool)
        .tool(FullnessTool)
        .tasks(TaskSettings::default())
        .build()
        .serve_stdio()
        .await;
}
