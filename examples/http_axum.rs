//! A presa server inside an axum application of your own: the MCP
//! endpoint at `/mcp`, behind bearer tokens, beside the application's own
//! `/health` route.
//!
//! ```text
//! cargo run --example http_axum -- 127.0.0.1:3000
//! ```
//!
//! It prints the endpoint's URL on stderr (port 0 lets the system pick
//! one) and serves until Ctrl-C. Two tokens are accepted:
//!
//! - `alice-token`, for `alice`, who holds the scope `notes:write`;
//! - `bob-token`, for `bob`, who holds none.
//!
//! `whoami` answers any caller with a valid token; `add_note` needs
//! `notes:write`, so `bob` does not see it in `tools/list` and is refused
//! when he calls it. A request to `/mcp` without a valid token gets `401`;
//! `/health` needs none, since the token check guards the endpoint alone.
//!
//! Tokens issued out of band suit a service and its known clients; for
//! tokens of an authorization server, see the `oauth_server` example.

use std::error::Error;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::get;
use presa::prelude::*;
use presa::server::Listing;
use presa::server::http::{BearerTokens, StreamableHttp};

/// The notes kept by this process, shared by every request.
#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<String>>>);

/// Says who is calling: the token's subject, then its scopes.
#[tool(read_only)]
async fn whoami(ctx: Context) -> String {
    let caller = &ctx.request().caller;
    let subject = caller.subject.as_deref().unwrap_or("anonymous");
    format!("{subject} {}", caller.scopes).trim_end().to_owned()
}

/// Adds a note, and answers how many there are.
#[tool(scopes = ["notes:write"])]
async fn add_note(
    State(notes): State<Notes>,
    #[param(description = "The text of the note")] text: String,
) -> String {
    let mut notes = notes.0.lock().unwrap_or_else(|e| e.into_inner());
    notes.push(text);
    format!("{} notes", notes.len())
}

/// Who may call the endpoint, by the token each request carries.
fn tokens() -> BearerTokens {
    BearerTokens::new()
        .caller(
            "alice-token",
            Caller::subject("alice").scopes(["notes:write"]),
        )
        .token("bob-token", "bob")
}

/// The application: its own routes, and the MCP endpoint merged in.
fn app() -> Router {
    let server = Server::builder("notes", env!("CARGO_PKG_VERSION"))
        .tool(WhoamiTool)
        .tool(AddNoteTool)
        .state(Notes::default())
        // Fixed tokens cannot step up to more scopes, so each caller is
        // shown only what it may call.
        .listing(Listing::Permitted)
        .build();
    let mcp = StreamableHttp::new(server)
        .authenticator(tokens())
        .router("/mcp");
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(mcp)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let address = std::env::args()
        .nth(1)
        .ok_or("usage: http_axum ADDRESS (such as 127.0.0.1:3000)")?;
    let listener = tokio::net::TcpListener::bind(&address).await?;
    eprintln!("serving at http://{}/mcp", listener.local_addr()?);
    // `axum::serve` bounds neither header reads nor connections: behind
    // no proxy, serve as `StreamableHttp::router`'s docs show instead.
    axum::serve(listener, app())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
