//! An MCP server behind OAuth 2.1: it accepts the access tokens of any
//! standard authorization server, and each tool names the scope it needs.
//!
//! ```text
//! cargo run --example oauth_server -- 127.0.0.1:PORT --issuer ISSUER_URL
//! ```
//!
//! - It serves `http://127.0.0.1:PORT/mcp`, whose URL is also the audience
//!   its tokens must name (RFC 8707); port 0 lets the system pick one, and
//!   the URL is printed on stderr.
//! - The issuer's keys are found from its metadata (RFC 8414, then OpenID
//!   discovery), and its Protected Resource Metadata is published at
//!   `/.well-known/oauth-protected-resource/mcp`, naming the issuer.
//! - `build` is the jobs tool (a task when the client can run one, asking
//!   for confirmation first), for callers holding `jobs:build`;
//! - `whoami` answers the caller's subject and scopes, as in `alice
//!   jobs:build`, for any caller with a valid token.
//!
//! A request without a token gets `401` naming the metadata and the scope
//! to sign in with, `jobs:read`: the least a caller needs. One whose token
//! lacks `jobs:build` gets `403` with the step-up challenge when it calls
//! `build`. It runs until SIGTERM or Ctrl-C.

use std::error::Error;

use presa::prelude::*;
use presa::server::http::{OAuth, StreamableHttp};
use serde::Deserialize;

/// The answer `build` asks for.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Whether to go ahead with the build.
    ok: bool,
}

/// Builds a target after the user confirms.
#[tool(task = "optional", scopes = ["jobs:build"])]
async fn build(
    ctx: Context,
    #[param(description = "What to build, such as `docs` or `all`")] target: String,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?;
    match answer {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(format!("built {target}")),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Says who is calling: the token's subject, then its scopes.
#[tool(read_only)]
async fn whoami(ctx: Context) -> String {
    let caller = &ctx.request().caller;
    let subject = caller.subject.as_deref().unwrap_or("anonymous");
    format!("{subject} {}", caller.scopes).trim_end().to_owned()
}

const USAGE: &str = "usage: oauth_server ADDRESS --issuer ISSUER_URL (such as 127.0.0.1:3000 --issuer https://auth.example.com/)";

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (address, issuer) = match args.as_slice() {
        [address, flag, issuer] if flag == "--issuer" => (address, issuer),
        _ => return Err(USAGE.into()),
    };
    let address: std::net::SocketAddr = address
        .parse()
        .map_err(|e| format!("{address} is not an address ({e}); {USAGE}"))?;
    // Bound first, so that port 0 gives the URL, which is the audience.
    let listener = tokio::net::TcpListener::bind(address).await?;
    let resource = format!("http://{}/mcp", listener.local_addr()?);
    let oauth = OAuth::issuer(issuer.clone())
        .resource(resource.clone())
        .sign_in_scopes(["jobs:read"])
        .build()?;
    let server = Server::builder("oauth-jobs", env!("CARGO_PKG_VERSION"))
        .tool(BuildTool)
        .tool(WhoamiTool)
        .tasks(TaskSettings::default())
        .build();
    eprintln!("serving at {resource}, for tokens of {issuer}");
    StreamableHttp::new(server)
        .oauth(oauth)
        .serve_on(listener)
        .await?;
    Ok(())
}
