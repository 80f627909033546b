//! The `jobs` demo server: one `build` tool that asks for
//! confirmation before it builds, and runs as a task for clients that
//! declare the Tasks extension.
//!
//! - `cargo run --example jobs` runs an in-process demo with three clients,
//!   each accepting the confirmation with `{ok: true}`:
//!   1. a tasks client gets a task for `all` and awaits it by polling
//!      (`built all`);
//!   2. a plain client gets `docs` synchronously, the confirmation going
//!      over MRTR (`built docs`);
//!   3. a tasks client awaits `web` by listening for task notifications
//!      (`built web`).
//! - `cargo run --example jobs -- stdio` serves the same server over stdio
//!   (`stdio SECONDS` sets the drain period: how long, after end of input
//!   or SIGTERM, answers still running may take to be written).
//! - `cargo run --example jobs -- http 127.0.0.1:PORT` serves it over
//!   Streamable HTTP at `http://127.0.0.1:PORT/mcp` (port 0 lets the
//!   system pick one; the address is printed on stderr), until SIGTERM or
//!   Ctrl-C.
//! - `build` takes an optional `seconds`: how long it works once confirmed,
//!   showing `building TARGET` as the task's status message meanwhile, so
//!   that a replica can be stopped in the middle of a build
//!   (`presa-redis/tests/replicas_process.rs` does).
//! - The resource `jobs://builds/latest` reads the result of the last
//!   build this process finished (`built TARGET`, or `no build yet`). A
//!   client that subscribes to it gets `notifications/resources/updated`
//!   each time a build finishes: `build` records its result in the
//!   server's state, and a task of the server's own tells the server the
//!   resource changed ([`Server::resource_updated`]). Each process keeps
//!   its own last build, so replicas may answer a read differently.
//! - The resource template `jobs://builds/{target}` reads the last build's
//!   result if it built TARGET, and completes TARGET from the targets
//!   [`TARGETS`] names (`completion/complete`). A confirmed build logs
//!   `building TARGET`, and a read of the template `reading the build of
//!   TARGET`, at `info`, for a client that asked for logs (a task has no
//!   log channel, so a build run as a task logs nothing).
//! - The MCP Apps view `ui://jobs/dashboard` (`examples/jobs/dashboard.html`,
//!   embedded with `include_str!`) lists the builds and starts one from a
//!   button. `build` links to it, so an Apps host renders it beside a
//!   build's result; a host without Apps gets the same text as before.
//!   The view lists the builds with `list_jobs`, a tool only views call
//!   (`visibility = "app"`): hosts that render no views do not see it.
//!   The list holds the builds this process confirmed, the last
//!   [`MAX_JOBS`], each shown only to the subject that started it.
//! - `--store redis://HOST:PORT`, after `stdio` or `http ADDRESS`, keeps
//!   the tasks in that Redis instead of the process's memory (any URL the
//!   Redis store takes: `rediss://` for TLS, `#insecure` at its end for a
//!   test certificate, `redis://USER:PASSWORD@HOST:PORT` for an ACL user,
//!   a Redis Cluster node's URL for a cluster,
//!   `redis+sentinel://HOST:PORT,…/MASTER` for a master Sentinel watches), so that
//!   several servers on one Redis share them: a task started through one
//!   is read, answered and cancelled through any other. Each server then
//!   holds a lease on the tasks it runs (30 seconds, or `--lease SECONDS`),
//!   so that when one dies, another fails its running tasks once their
//!   lease lapses instead of leaving them running. With `http`, the legacy
//!   (2025-11-25) sessions go in that Redis too
//!   (`LegacySessions::new().shared(store.session_store())`), so that a
//!   host's requests of one session may reach any of the servers.

use presa::client::prelude::*;
use presa::client::{AwaitOptions, ClientBuilder};
use presa::prelude::*;
use presa::server::TaskSettings;
use presa::server::apps::UiResource;
use presa::wire::ElicitResult;
use presa_redis::{RedisSessionStore, RedisTaskStore};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::VecDeque;
use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;

/// The answer `build` asks for.
#[derive(Debug, Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Whether to go ahead with the build.
    ok: bool,
}

/// Builds a target after the user confirms.
#[tool(task = "optional", ui = "ui://jobs/dashboard")]
async fn build(
    ctx: Context,
    State(builds): State<Builds>,
    State(board): State<Board>,
    #[param(description = "What to build, such as `docs` or `all`")] target: String,
    #[param(description = "How many seconds the build takes once confirmed; 0 by default")]
    seconds: Option<u64>,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirm>("confirm", format!("Build {target}?"))
        .await?;
    let Elicitation::Accepted(Confirm { ok: true }) = answer else {
        return Err(ToolError::new("not confirmed"));
    };
    let job = board.start(&ctx, &target);
    ctx.log(
        presa::wire::LoggingLevel::Info,
        format!("building {target}"),
    )
    .await;
    if let Some(seconds) = seconds.filter(|&s| s > 0) {
        ctx.set_status_message(format!("building {target}")).await;
        tokio::time::sleep(Duration::from_secs(seconds)).await;
    }
    let built = format!("built {target}");
    builds.finished(&built);
    job.built();
    Ok(built)
}

/// The builds the dashboard shows: the caller's, newest first.
#[tool(ui = "ui://jobs/dashboard", visibility = "app", read_only)]
async fn list_jobs(ctx: Context, State(board): State<Board>) -> Json<JobList> {
    Json(board.list(&ctx))
}

/// The URI of the dashboard view.
const DASHBOARD: &str = "ui://jobs/dashboard";

/// The dashboard: one self-contained HTML file, so its CSP stays empty
/// and the host lets it reach nothing but itself.
fn dashboard() -> UiResource {
    UiResource::html(
        DASHBOARD,
        "Jobs dashboard",
        include_str!("jobs/dashboard.html"),
    )
    .description("The builds of this server, and a button that starts one")
    .prefers_border(true)
}

/// How many builds the board keeps; the oldest go first.
const MAX_JOBS: usize = 100;

/// The builds this process confirmed, for the dashboard: at most
/// [`MAX_JOBS`], so it never grows without bound.
#[derive(Clone, Default)]
struct Board(Arc<Mutex<Jobs>>);

#[derive(Default)]
struct Jobs {
    /// The number of the next build that runs outside a task.
    next: u64,
    jobs: VecDeque<Job>,
}

/// One build, as `list_jobs` returns it.
#[derive(Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Job {
    /// The task's id, or `call-N` for a build that ran within its request.
    id: String,
    /// The task's id, when the build runs as a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    /// What is built.
    target: String,
    /// Where the build is.
    status: JobStatus,
    /// Who started it; only they see it.
    #[serde(skip)]
    owner: Option<String>,
}

/// Where a build is.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum JobStatus {
    Building,
    Built,
    /// Its handler was dropped before it finished: the task was
    /// cancelled, or the request went away.
    Cancelled,
}

/// What `list_jobs` returns.
#[derive(Serialize, schemars::JsonSchema)]
struct JobList {
    /// The caller's builds, newest first.
    jobs: Vec<Job>,
}

impl Board {
    fn lock(&self) -> std::sync::MutexGuard<'_, Jobs> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a build of `target` that starts now, for the caller of
    /// `ctx`. The build is `cancelled` if the guard is dropped before
    /// [`JobGuard::built`].
    fn start(&self, ctx: &Context, target: &str) -> JobGuard {
        let mut jobs = self.lock();
        let task_id = ctx.task_id().map(str::to_owned);
        let id = task_id.clone().unwrap_or_else(|| {
            jobs.next += 1;
            format!("call-{}", jobs.next)
        });
        if jobs.jobs.len() == MAX_JOBS {
            jobs.jobs.pop_front();
        }
        jobs.jobs.push_back(Job {
            id: id.clone(),
            task_id,
            target: target.to_owned(),
            status: JobStatus::Building,
            owner: ctx.request().caller.subject.clone(),
        });
        JobGuard {
            board: self.clone(),
            id,
            done: false,
        }
    }

    /// The builds of the caller of `ctx`, newest first.
    fn list(&self, ctx: &Context) -> JobList {
        let owner = &ctx.request().caller.subject;
        let jobs = self.lock();
        let jobs = jobs.jobs.iter().rev().filter(|job| &job.owner == owner);
        JobList {
            jobs: jobs.cloned().collect(),
        }
    }

    fn set(&self, id: &str, status: JobStatus) {
        if let Some(job) = self.lock().jobs.iter_mut().find(|job| job.id == id) {
            job.status = status;
        }
    }
}

/// A build in progress on the board. Dropping it before [`built`](Self::built)
/// marks the build `cancelled`: that is how a cancelled task, whose handler
/// the server drops, shows on the dashboard.
struct JobGuard {
    board: Board,
    id: String,
    done: bool,
}

impl JobGuard {
    /// Marks the build `built`.
    fn built(mut self) {
        self.done = true;
        self.board.set(&self.id, JobStatus::Built);
    }
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        if !self.done {
            self.board.set(&self.id, JobStatus::Cancelled);
        }
    }
}

/// The URI of the last build's result.
const LATEST_BUILD: &str = "jobs://builds/latest";

/// The result of the last build this server finished.
#[resource(uri = "jobs://builds/latest", mime_type = "text/plain")]
async fn latest_build(State(builds): State<Builds>) -> String {
    builds
        .0
        .borrow()
        .clone()
        .unwrap_or_else(|| "no build yet".into())
}

/// The targets `jobs://builds/{target}` completes.
const TARGETS: [&str; 3] = ["all", "docs", "web"];

/// The last build's result, if it built `target`.
#[resource(uri = "jobs://builds/{target}", mime_type = "text/plain")]
async fn build_of(
    ctx: Context,
    State(builds): State<Builds>,
    #[param(complete = targets)] target: String,
) -> String {
    let reading = format!("reading the build of {target}");
    ctx.log(presa::wire::LoggingLevel::Info, reading).await;
    let built = format!("built {target}");
    match builds.0.borrow().as_deref() == Some(built.as_str()) {
        true => built,
        false => format!("no build of {target} yet"),
    }
}

/// The targets that start with what is typed.
fn targets(typed: &str, _: &CompletionContext) -> Vec<String> {
    TARGETS
        .into_iter()
        .filter(|target| target.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// The result of the last build, in the server's state. It is a watch
/// channel: it holds the latest result only, so it never grows, and
/// [`announcing`]'s task wakes once for any number of builds that finish
/// before it runs.
#[derive(Clone, Default)]
struct Builds(Arc<watch::Sender<Option<String>>>);

impl Builds {
    /// Records `result` as the last build's.
    fn finished(&self, result: &str) {
        self.0.send_replace(Some(result.to_owned()));
    }
}

/// Builds the server from `builder`, with the `jobs://builds/latest`
/// resource and the dashboard with its `list_jobs` tool, and starts the task that tells the server each time a build
/// finishes, so that subscribed clients get
/// `notifications/resources/updated`. The task lives as long as the
/// runtime: the server's state holds the channel it waits on. Call it
/// within the runtime.
fn announcing(builder: presa::server::ServerBuilder) -> Server {
    let builds = Builds::default();
    let mut finished = builds.0.subscribe();
    let server = builder
        .resource(LatestBuildResource)
        .resource(BuildOfResource)
        .ui(dashboard())
        .tool(ListJobsTool)
        .state(builds)
        .state(Board::default())
        .build();
    let announcer = server.clone();
    tokio::spawn(async move {
        while finished.changed().await.is_ok() {
            announcer.resource_updated(LATEST_BUILD);
        }
    });
    server
}

/// The jobs server, with its task settings: a one-hour TTL, a 20 ms
/// poll interval and at most 1 000 tasks kept, in this process's memory.
fn server() -> Server {
    announcing(builder())
}

/// How long a server's lease on a task it runs lasts, when tasks are in
/// Redis and `--lease` does not say.
const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The jobs server's builder, its tasks kept in the Redis at `store` when
/// one is given, under leases of `lease` seconds; and then the legacy
/// sessions in the same Redis, for HTTP. Call it within the runtime: the
/// Redis store connects on first use, from there.
fn builder_with(
    store: Option<&str>,
    lease: Option<&str>,
) -> Result<(presa::server::ServerBuilder, Option<RedisSessionStore>), Box<dyn Error>> {
    let Some(url) = store else {
        if lease.is_some() {
            return Err("--lease goes with --store: one server alone needs no lease".into());
        }
        return Ok((builder(), None));
    };
    let lease = lease
        .map(lease_length)
        .transpose()?
        .unwrap_or(DEFAULT_LEASE);
    // The URL may hold a password: what is printed is the store's address.
    let store = RedisTaskStore::builder(url)
        .build()
        .map_err(|e| format!("--store: {e}"))?;
    if url.ends_with("#insecure") {
        eprintln!(
            "warning: --store {}: TLS certificates are not verified (#insecure)",
            store.server()
        );
    }
    eprintln!(
        "keeping tasks in the Redis at {}, under leases of {lease:?}",
        store.server()
    );
    let sessions = store.session_store();
    let builder = Server::builder("jobs", "1")
        .instructions(INSTRUCTIONS)
        .tool(BuildTool)
        .tasks(settings().lease(lease))
        .task_store(store);
    Ok((builder, Some(sessions)))
}

/// `--lease SECONDS`: a positive number of seconds, such as `2` or `0.5`.
fn lease_length(seconds: &str) -> Result<Duration, String> {
    let invalid = || format!("--lease {seconds}: the lease is a positive number of seconds");
    let seconds: f64 = seconds.parse().map_err(|_| invalid())?;
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(invalid());
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| invalid())
}

const INSTRUCTIONS: &str = "Builds targets on request; every build asks for confirmation.";

/// The demo's task settings, spelled out (they are also the defaults).
fn settings() -> TaskSettings {
    TaskSettings::default()
        .ttl(Some(Duration::from_millis(3_600_000)))
        .poll_interval(Duration::from_millis(20))
        .max_tasks(1000)
}

fn builder() -> presa::server::ServerBuilder {
    Server::builder("jobs", "1")
        .instructions(INSTRUCTIONS)
        .tool(BuildTool)
        .tasks(settings())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let Ok(Options { mode, store, lease }) = Options::parse(std::env::args().skip(1)) else {
        eprintln!(
            "usage: jobs (the demo) | jobs stdio [SECONDS] [--store redis://HOST:PORT [--lease SECONDS]] | \
             jobs http ADDRESS [--store redis://HOST:PORT [--lease SECONDS]]"
        );
        std::process::exit(2);
    };
    let (store, lease) = (store.as_deref(), lease.as_deref());
    // Built with the `otel` feature, the server exports its traces and
    // metrics when OTEL_EXPORTER_OTLP_ENDPOINT (or a per-signal endpoint)
    // is set, and sends what is buffered before it exits.
    #[cfg(feature = "otel")]
    let telemetry = presa::telemetry::OtlpExport::install("jobs")?;
    match mode.first().map(String::as_str) {
        Some("stdio") => serve_stdio(mode.get(1).cloned(), store, lease).await?,
        Some("http") => serve_http(mode.get(1).cloned(), store, lease).await?,
        None if store.is_none() && lease.is_none() => demo().await?,
        None => {
            return Err(
                "--store and --lease go with `stdio` or `http ADDRESS`, not the demo".into(),
            );
        }
        Some(other) => {
            eprintln!(
                "unknown mode `{other}`; run with no argument for the demo, `stdio`, or `http ADDRESS`"
            );
            std::process::exit(2);
        }
    }
    #[cfg(feature = "otel")]
    if let Some(telemetry) = telemetry {
        telemetry.shutdown()?;
    }
    Ok(())
}

/// The command line: the mode and its arguments, and where tasks are kept.
struct Options {
    mode: Vec<String>,
    /// The Redis URL of `--store`; `None` keeps tasks in memory.
    store: Option<String>,
    /// The seconds of `--lease`.
    lease: Option<String>,
}

impl Options {
    /// Reads `--store URL` and `--lease SECONDS` wherever they are; the
    /// rest is the mode. Fails on an option without its value.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, ()> {
        let mut options = Options {
            mode: Vec::new(),
            store: None,
            lease: None,
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--store" => options.store = Some(args.next().ok_or(())?),
                "--lease" => options.lease = Some(args.next().ok_or(())?),
                _ => options.mode.push(arg),
            }
        }
        Ok(options)
    }
}

/// Serves the jobs server over stdio, with a drain period of `seconds`.
async fn serve_stdio(
    seconds: Option<String>,
    store: Option<&str>,
    lease: Option<&str>,
) -> Result<(), Box<dyn Error>> {
    let (mut builder, _) = builder_with(store, lease)?;
    if let Some(seconds) = seconds {
        let seconds: u64 = seconds
            .parse()
            .map_err(|e| format!("the drain period must be whole seconds: {e}"))?;
        builder = builder.drain_period(Duration::from_secs(seconds));
    }
    announcing(builder).serve_stdio().await;
    Ok(())
}

/// Serves the jobs server over Streamable HTTP at `http://{address}/mcp`.
#[cfg(feature = "http-server")]
async fn serve_http(
    address: Option<String>,
    store: Option<&str>,
    lease: Option<&str>,
) -> Result<(), Box<dyn Error>> {
    let address = address.ok_or("usage: jobs http ADDRESS (such as 127.0.0.1:3000)")?;
    let address: std::net::SocketAddr = address.parse()?;
    let (builder, sessions) = builder_with(store, lease)?;
    let server = announcing(builder);
    // Bound here, so that port 0 prints the port the system picked.
    let listener = tokio::net::TcpListener::bind(address).await?;
    let address = listener.local_addr()?;
    eprintln!("serving the jobs server at http://{address}/mcp");
    let mut endpoint = presa::server::http::StreamableHttp::new(server);
    if let Some(sessions) = sessions {
        let shared = presa::server::http::LegacySessions::new().shared(sessions);
        endpoint = endpoint.legacy_sessions(shared);
    }
    endpoint.serve_on(listener).await?;
    Ok(())
}

#[cfg(not(feature = "http-server"))]
async fn serve_http(
    _: Option<String>,
    _: Option<&str>,
    _: Option<&str>,
) -> Result<(), Box<dyn Error>> {
    Err("this build has no HTTP server; build with the `http-server` feature".into())
}

/// A client whose elicitation handler confirms every build.
fn confirming() -> ClientBuilder {
    Client::builder()
        .info("jobs-demo", "1")
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) })
}

async fn demo() -> Result<(), Box<dyn Error>> {
    let server = server();

    let tasks = confirming()
        .tasks(true)
        .connect(in_process(&server, Caller::anonymous()));
    let created = tasks.call_tool("build", json!({"target": "all"})).await?;
    let task = created.task().ok_or("expected a task")?;
    let result = tasks.await_task(task, AwaitOptions::default()).await?;
    println!("{}", result.text().unwrap_or("(no text)"));
    tasks.close().await?;

    let plain = confirming().connect(in_process(&server, Caller::anonymous()));
    let result = plain.call_tool("build", json!({"target": "docs"})).await?;
    println!("{}", result.text().unwrap_or("(no text)"));
    plain.close().await?;

    let watcher = confirming()
        .tasks(true)
        .connect(in_process(&server, Caller::anonymous()));
    let created = watcher.call_tool("build", json!({"target": "web"})).await?;
    let task = created.task().ok_or("expected a task")?;
    let result = watcher
        .await_task(task, AwaitOptions::default().listen(true))
        .await?;
    println!("{}", result.text().unwrap_or("(no text)"));
    watcher.close().await?;
    Ok(())
}
