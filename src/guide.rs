//! The guide: presa taught one chapter at a time, from a first tool to
//! replicas on Redis.
//!
//! Each chapter shows the common path with code that compiles: every
//! example is a doctest. Each chapter also says why things work as they
//! do, and links to the module docs, which list the exact rules in order.
//! Read the chapters in this order the first time. Later, jump to the one
//! you need.
//!
//! | chapter | what it covers |
//! |---|---|
//! | [Tools and extractors](tools) | `#[tool]`, schemas, results and errors, shared state, extractors |
//! | [Asking the user](asking_the_user) | `ctx.elicit`, forms built at run time, URLs, sampling, roots; MRTR and its re-run rule |
//! | [Tasks](tasks) | task policies, what a long-running tool meets (TTL, poll interval, cancellation, status messages), limits, the task store |
//! | [Prompts, resources and completion](prompts_and_resources) | `#[prompt]`, `#[resource]`, templates, completers, a catalog that changes while the server runs |
//! | [Transports and HTTP](transports) | in-process, stdio, Streamable HTTP standalone or mounted in axum, shutdown |
//! | [Authorization](authorization) | bearer tokens, an OAuth resource server, scopes, signing in as a client |
//! | [Legacy hosts](legacy_hosts) | serving hosts that speak 2025-11-25 and earlier from the same server |
//! | [The client](client) | connecting, calling, answering input, following tasks, servers of either era |
//! | [MCP Apps](apps) | HTML views beside your tools: `ui://` resources, linking a tool, app-only tools, what a view may reach |
//! | [Skills](skills) | publishing folders of agent instructions: from disk, embedded in the binary, checked at start; reading them from a client |
//! | [Middleware and telemetry](middleware) | tower layers around tools, prompts and resources: timeouts, rate limits, audit logs, refusals; hiding handlers from some callers; OpenTelemetry traces and metrics |
//! | [Replicas on Redis](replicas) | a shared task store, leases and takeover, resumable tools, shared signing keys |
//! | [Limits and bad input](limits) | what a peer can make the server hold, and what the server answers to bad input |
//! | [Deployment](deployment) | behind nginx, Caddy or HAProxy, under systemd, a small release build, containers |
//! | [Coming from rmcp](from_rmcp) | the same server written with rmcp and with presa, and what changes |
//!
//! The repository also describes the wire itself, for clients in any
//! language. `docs/tasks-extension.md` covers the Tasks extension,
//! `docs/oauth.md` covers authorization servers, and `docs/bad-input.md`
//! lists every kind of bad input and the server's answer.

#[doc = include_str!("guide/tools.md")]
pub mod tools {}

#[doc = include_str!("guide/asking_the_user.md")]
pub mod asking_the_user {}

#[doc = include_str!("guide/tasks.md")]
pub mod tasks {}

#[doc = include_str!("guide/prompts_and_resources.md")]
pub mod prompts_and_resources {}

#[doc = include_str!("guide/transports.md")]
pub mod transports {}

#[doc = include_str!("guide/authorization.md")]
pub mod authorization {}

#[doc = include_str!("guide/legacy_hosts.md")]
pub mod legacy_hosts {}

#[doc = include_str!("guide/client.md")]
pub mod client {}

#[doc = include_str!("guide/apps.md")]
pub mod apps {}

#[cfg(feature = "skills")]
#[doc = include_str!("guide/skills.md")]
pub mod skills {}

#[doc = include_str!("guide/middleware.md")]
pub mod middleware {}

#[doc = include_str!("guide/replicas.md")]
pub mod replicas {}

#[doc = include_str!("guide/limits.md")]
pub mod limits {}

#[doc = include_str!("guide/deployment.md")]
pub mod deployment {}

#[doc = include_str!("guide/from_rmcp.md")]
pub mod from_rmcp {}

/// The example of the repository's `docs/oauth.md`, compiled with the
/// guide's doctests so that the page cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../docs/oauth.md")]
pub struct OAuthPage;
