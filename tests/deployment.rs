//! The deployment recipes of the guide's Deployment chapter, tested as
//! written: the proxy configurations in `deploy/` run with the real nginx,
//! Caddy and HAProxy in front of presa, TLS ended at the proxy with a
//! certificate this test makes. Through each proxy, over https:
//!
//! 1. a 2026-07-28 call, which presa receives with the public `Host`;
//! 2. an elicitation over MRTR: `input_required`, then the retry with its
//!    `requestState`;
//! 3. a task followed by `subscriptions/listen`, whose `notifications/tasks`
//!    arrive while the task still runs, so while the stream is open: a
//!    proxy that held the events until a buffer filled would time out here;
//! 4. a 2025-11-25 session, and an event on its GET stream;
//! 5. the OAuth challenge: the `resource_metadata` URL of a `401`, and the
//!    `resource` of the document found there, name the public `https`
//!    address, not presa's own.
//!
//! Each proxy's test prints how long a task notification took through the
//! proxy and straight from presa (`cargo test --test deployment --
//! --nocapture`). That is a measurement, not a check: the guide reports it.
//!
//! The test reads each file from `deploy/`, changes only the port, the
//! certificate and presa's address, and fails if one of those is no
//! longer in the file, so the file the guide shows is the file tested.
//! Then the guide is checked to show each file as it is, and the systemd
//! unit and the container recipe to give presa's drain period its time.
//!
//! A proxy that is not installed is reported and its test passes without
//! running, as on a developer's machine; with `PRESA_REQUIRE_PROXIES=1`
//! (CI) a missing proxy fails its test.
#![cfg(all(feature = "http-server", feature = "oauth"))]

#[path = "common/oauth.rs"]
mod oauth;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use jsonwebtoken::Algorithm;
use presa::prelude::*;
use presa::server::http::{AllowedHosts, OAuth, StreamableHttp, TrustedProxies};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType, IsCa, KeyPair,
};
use serde_json::{Value, json};

use oauth::{AuthServer, TestKey};

/// The public host name of the recipes, which the test's client resolves
/// to the proxy on loopback.
const PUBLIC_HOST: &str = "mcp.example.com";

/// presa's address in the recipes, which the test replaces with its own.
const RECIPE_UPSTREAM: &str = "127.0.0.1:3000";

/// How long the test waits for something that should come at once before
/// it fails instead of hanging: generous, for a loaded machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// The address a client claims in `X-Forwarded-For`, which no proxy
/// recipe passes on.
const FORGED_ADDRESS: &str = "203.0.113.7";

/// The modern protocol version.
const VERSION: &str = "2026-07-28";

// ---------------------------------------------------------------------
// The server behind the proxy

/// Says what the request named when it reached presa: its `Host`, and
/// the `X-Forwarded-For` and `X-Forwarded-Proto` the proxy set, each
/// value of a header repeated.
#[tool]
async fn addressed(Headers(headers): Headers) -> String {
    let values = |name: &str| -> Vec<String> {
        headers
            .get_all(name)
            .iter()
            .map(|value| value.to_str().unwrap_or("(not ASCII)").to_owned())
            .collect()
    };
    json!({
        "host": values("host"),
        "forwarded_for": values("x-forwarded-for"),
        "forwarded_proto": values("x-forwarded-proto"),
    })
    .to_string()
}

/// The answer `confirm` asks for.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Asks the user to confirm, over MRTR.
#[tool]
async fn confirm(ctx: Context) -> Result<String, ToolError> {
    match ctx.elicit::<Confirm>("confirm", "Go ahead?").await? {
        Elicitation::Accepted(Confirm { ok: true }) => Ok("confirmed".into()),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Lets [`gated`] finish.
#[derive(Clone, Default)]
struct Gate(Arc<tokio::sync::Notify>);

/// Runs as a task until the test opens its gate.
#[tool(task = "required")]
async fn gated(State(gate): State<Gate>) -> &'static str {
    gate.0.notified().await;
    "released"
}

/// A tool removed during the test, so that the legacy session's GET
/// stream carries `notifications/tools/list_changed`.
#[tool]
async fn spare() -> &'static str {
    "spare"
}

/// presa as the Deployment chapter configures it: on loopback, answering
/// for the public host, its OAuth resource the public URL.
struct Upstream {
    address: SocketAddr,
    server: Server,
    gate: Gate,
    token: String,
    _authorization: AuthServer,
}

impl Upstream {
    async fn start(public_url: &str) -> Upstream {
        let key = TestKey::rsa("deploy", Algorithm::RS256);
        let authorization = AuthServer::start(&[&key]).await;
        let token = key.sign(&authorization.claims(public_url, "alice", ""));
        let oauth = OAuth::issuer(authorization.issuer.clone())
            .resource(public_url)
            .build()
            .unwrap();
        let gate = Gate::default();
        let server = Server::builder("deployed", "1")
            .tool(AddressedTool)
            .tool(ConfirmTool)
            .tool(GatedTool)
            .tool(SpareTool)
            .tasks(presa::server::TaskSettings::default())
            .state(gate.clone())
            .build();
        let http = StreamableHttp::new(server.clone())
            .allowed_hosts(AllowedHosts::loopback().with(PUBLIC_HOST))
            .trusted_proxies(TrustedProxies::loopback())
            .oauth(oauth);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(http.serve_on(listener));
        Upstream {
            address,
            server,
            gate,
            token,
            _authorization: authorization,
        }
    }
}

// ---------------------------------------------------------------------
// The proxies

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Nginx,
    Caddy,
    Haproxy,
}

impl Kind {
    fn program(self) -> &'static str {
        match self {
            Kind::Nginx => "nginx",
            Kind::Caddy => "caddy",
            Kind::Haproxy => "haproxy",
        }
    }

    /// The recipe's file in `deploy/`.
    fn recipe(self) -> &'static str {
        match self {
            Kind::Nginx => "nginx.conf",
            Kind::Caddy => "Caddyfile",
            Kind::Haproxy => "haproxy.cfg",
        }
    }
}

/// The proxy's program: on `PATH`, or in the `sbin` folders where Debian
/// puts nginx and HAProxy and which a user's `PATH` often lacks. `None`
/// (and a note saying why) when the test cannot run here; a panic when
/// `PRESA_REQUIRE_PROXIES=1` asks for every proxy.
fn find(kind: Kind) -> Option<PathBuf> {
    let name = kind.program();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let folders = std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from));
    let found = folders
        .map(|folder| folder.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var_os("PRESA_REQUIRE_PROXIES").is_some_and(|v| v == "1") {
            panic!(
                "PRESA_REQUIRE_PROXIES=1, but {name} is not on PATH: install it \
                 (apt-get install {name})"
            );
        }
        eprintln!(
            "ignored: {name} not on PATH; install it (apt-get install {name}) to run this \
             test, or set PRESA_REQUIRE_PROXIES=1 to make its absence fail"
        );
    }
    found
}

/// The text of `deploy/{name}`.
fn deploy_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with every `from` replaced by `to`; fails when `from` is not
/// there, since then the recipe changed and the test would no longer run
/// it as written.
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the recipe no longer contains {from:?}; update tests/deployment.rs with it"
    );
    text.replace(from, to)
}

/// A folder of the test's own, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(kind: Kind, port: u16) -> Folder {
        let path = std::env::temp_dir().join(format!(
            "presa-deploy-{}-{}-{port}",
            kind.program(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn join(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The test's certificate authority, and a certificate for
/// [`PUBLIC_HOST`] that it signed.
struct Certificates {
    ca: String,
    chain: String,
    key: String,
}

impl Certificates {
    fn make() -> Certificates {
        let named = |common_name: &str| {
            let mut name = DistinguishedName::new();
            name.push(DnType::CommonName, common_name);
            name
        };
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name = named("presa deployment test CA");
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec![PUBLIC_HOST.to_owned()]).unwrap();
        params.distinguished_name = named(PUBLIC_HOST);
        let certificate = params.signed_by(&key, &ca).unwrap();
        Certificates {
            ca: ca.pem(),
            chain: certificate.pem(),
            key: key.serialize_pem(),
        }
    }
}

/// A proxy running the recipe, in front of an [`Upstream`]; killed when
/// dropped.
struct Proxy {
    kind: Kind,
    child: Child,
    folder: Folder,
    port: u16,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl Proxy {
    /// Starts `program` with the recipe of `kind` on `port`, passing to
    /// `upstream`.
    fn spawn(
        kind: Kind,
        program: &Path,
        port: u16,
        upstream: SocketAddr,
        certificates: &Certificates,
    ) -> Proxy {
        let folder = Folder::new(kind, port);
        let upstream = upstream.to_string();
        let recipe = deploy_file(kind.recipe());
        let chain = folder.write("chain.pem", &certificates.chain);
        let key = folder.write("key.pem", &certificates.key);
        let mut command = Command::new(program);
        match kind {
            Kind::Nginx => {
                let mut site = replaced(
                    &recipe,
                    "listen 443 ssl;",
                    &format!("listen 127.0.0.1:{port} ssl;"),
                );
                site = replaced(
                    &site,
                    "/etc/letsencrypt/live/mcp.example.com/fullchain.pem",
                    &chain,
                );
                site = replaced(
                    &site,
                    "/etc/letsencrypt/live/mcp.example.com/privkey.pem",
                    &key,
                );
                site = replaced(&site, RECIPE_UPSTREAM, &upstream);
                let site = folder.write("presa.conf", &site);
                // What a packaged nginx.conf gives, in the test's folder:
                // one process, so that killing it leaves no worker behind.
                let temp = |name: &str| format!("{name} {};", folder.join(name));
                let main = format!(
                    "daemon off;\nmaster_process off;\npid {pid};\nerror_log {log} warn;\n\
                     events {{ worker_connections 256; }}\n\
                     http {{\n    access_log off;\n    {body}\n    {proxy}\n    {fastcgi}\n    \
                     {uwsgi}\n    {scgi}\n    include {site};\n}}\n",
                    pid = folder.join("nginx.pid"),
                    log = folder.join("error.log"),
                    body = temp("client_body_temp_path"),
                    proxy = temp("proxy_temp_path"),
                    fastcgi = temp("fastcgi_temp_path"),
                    uwsgi = temp("uwsgi_temp_path"),
                    scgi = temp("scgi_temp_path"),
                );
                let main = folder.write("nginx.conf", &main);
                command
                    .arg("-p")
                    .arg(&folder.0)
                    .arg("-e")
                    .arg(folder.join("error.log"))
                    .arg("-c")
                    .arg(main);
            }
            Kind::Caddy => {
                // The recipe lets Caddy get a certificate from Let's
                // Encrypt; the test gives it its own instead, and keeps
                // Caddy off port 80 and its admin port.
                let site = replaced(
                    &recipe,
                    "mcp.example.com {",
                    &format!("mcp.example.com:{port} {{\n\ttls {chain} {key}"),
                );
                let site = replaced(&site, RECIPE_UPSTREAM, &upstream);
                let global = format!(
                    "{{\n\tadmin off\n\tauto_https disable_redirects\n\t\
                     default_bind 127.0.0.1\n\tstorage file_system {}\n}}\n\n",
                    folder.join("data")
                );
                let caddyfile = folder.write("Caddyfile", &(global + &site));
                command
                    .args(["run", "--adapter", "caddyfile", "--config"])
                    .arg(caddyfile)
                    .env("HOME", &folder.0)
                    .env("XDG_CONFIG_HOME", folder.join("config"))
                    .env("XDG_DATA_HOME", folder.join("data"));
            }
            Kind::Haproxy => {
                let pem = folder.write(
                    "mcp.pem",
                    &format!("{}{}", certificates.chain, certificates.key),
                );
                let config = replaced(
                    &recipe,
                    "bind :443 ssl crt /etc/haproxy/certs/mcp.example.com.pem",
                    &format!("bind 127.0.0.1:{port} ssl crt {pem}"),
                );
                let config = replaced(&config, RECIPE_UPSTREAM, &upstream);
                let config = folder.write("haproxy.cfg", &config);
                command.arg("-db").arg("-f").arg(config);
            }
        }
        let log = std::fs::File::create(folder.join("output.log")).unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", program.display()));
        Proxy {
            kind,
            child,
            folder,
            port,
        }
    }

    /// What the proxy wrote.
    fn output(&self) -> String {
        let mut text = std::fs::read_to_string(self.folder.join("output.log")).unwrap_or_default();
        if let Ok(log) = std::fs::read_to_string(self.folder.join("error.log")) {
            text.push_str(&log);
        }
        text
    }

    /// Waits until the proxy serves the metadata of `upstream` at the
    /// public address; `false` when it exited first because its port was
    /// taken since [`free_port`] found it free. Fails on any other exit.
    async fn ready(&mut self, client: &reqwest::Client, public_url: &str) -> bool {
        let metadata = metadata_url(self.port);
        let started = Instant::now();
        loop {
            if self.child.try_wait().unwrap().is_some() {
                let output = self.output();
                assert!(
                    output.contains("in use"),
                    "{:?} exited at its start:\n{output}",
                    self.kind
                );
                return false;
            }
            let answer = client
                .get(&metadata)
                .timeout(Duration::from_secs(2))
                .send()
                .await;
            if let Ok(answer) = answer
                && answer.status() == 200
                && let Ok(text) = answer.text().await
                && let Ok(document) = serde_json::from_str::<Value>(&text)
                && document["resource"] == public_url
            {
                return true;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "{:?} did not serve {metadata} within {PATIENCE:?}:\n{}",
                self.kind,
                self.output()
            );
            // A process of another program cannot tell this test when it
            // listens: poll, as the Redis tests poll their servers.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The public URL of the MCP endpoint, through the proxy on `port`.
fn public_url(port: u16) -> String {
    format!("https://{PUBLIC_HOST}:{port}/mcp")
}

/// Where the public URL's Protected Resource Metadata lives (RFC 9728).
fn metadata_url(port: u16) -> String {
    format!("https://{PUBLIC_HOST}:{port}/.well-known/oauth-protected-resource/mcp")
}

/// An https client that trusts only the test's CA and finds
/// [`PUBLIC_HOST`] on loopback, and no proxy from the environment.
fn https_client(certificates: &Certificates, port: u16) -> reqwest::Client {
    reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(certificates.ca.as_bytes()).unwrap())
        .resolve(PUBLIC_HOST, SocketAddr::from(([127, 0, 0, 1], port)))
        .no_proxy()
        .build()
        .unwrap()
}

/// presa behind a proxy of `kind` running its recipe; `None` when the
/// proxy is not installed here.
async fn deployed(kind: Kind) -> Option<(Upstream, Proxy, reqwest::Client)> {
    let program = find(kind)?;
    let certificates = Certificates::make();
    // The proxy's port is picked free, then bound by the proxy: another
    // process may take it between the two, so a proxy that exits at its
    // start is started again on another port.
    for _ in 0..3 {
        let port = free_port();
        let upstream = Upstream::start(&public_url(port)).await;
        let client = https_client(&certificates, port);
        let mut proxy = Proxy::spawn(kind, &program, port, upstream.address, &certificates);
        if proxy.ready(&client, &public_url(port)).await {
            return Some((upstream, proxy, client));
        }
    }
    panic!("{kind:?} did not start on any of three ports");
}

// ---------------------------------------------------------------------
// A client that speaks the wire by hand

/// One endpoint, reached by one client with one token.
struct Peer {
    http: reqwest::Client,
    url: String,
    token: String,
}

/// The `_meta` of a modern request from a client with `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "deployment-test", "version": "0"}
    })
}

fn with_tasks() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

fn with_elicitation() -> Value {
    json!({"elicitation": {"form": {}}})
}

impl Peer {
    /// A modern request `id` of `method`, with its standard headers.
    async fn request(&self, id: i64, method: &str, params: Value) -> reqwest::Response {
        let name = params["name"].as_str().or(params["taskId"].as_str());
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", VERSION)
            .header("mcp-method", method)
            // Made up, as a client could: the proxy must not pass them on.
            .header("x-forwarded-for", FORGED_ADDRESS)
            .header("x-forwarded-proto", "http");
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        answered(request.body(body.to_string()), method).await
    }

    /// A `tools/call` of `tool`, answered in full: JSON, or an event
    /// stream read to its response.
    async fn call(&self, id: i64, capabilities: Value, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = meta(capabilities);
        let response = self.request(id, "tools/call", params).await;
        assert_eq!(response.status(), 200, "tools/call through the proxy");
        let is_stream = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream");
        if !is_stream {
            return json_of(response).await;
        }
        let mut events = Events::new(response);
        loop {
            let message = events.next_message().await.expect("a response");
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    /// A 2025-11-25 request or notification in session `session`.
    async fn legacy(&self, session: Option<&str>, body: Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        answered(request.body(body.to_string()), "a 2025-11-25 POST").await
    }
}

/// The answer to `request` (its status and headers), within [`PATIENCE`]:
/// a proxy that holds back the start of an event stream fails here.
async fn answered(request: reqwest::RequestBuilder, what: &str) -> reqwest::Response {
    tokio::time::timeout(PATIENCE, request.send())
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {PATIENCE:?}"))
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The body of `response`, as JSON.
async fn json_of(response: reqwest::Response) -> Value {
    let text = response.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// An event stream, read message by message.
struct Events {
    body: futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buffer: String,
}

impl Events {
    fn new(response: reqwest::Response) -> Events {
        Events {
            body: response
                .bytes_stream()
                .map(|chunk| chunk.map(|b| b.to_vec()))
                .boxed(),
            buffer: String::new(),
        }
    }

    /// The next event's data (empty for a priming event); `None` once the
    /// stream ended. Comments (keep-alives) are skipped.
    async fn next_data(&mut self) -> Option<String> {
        loop {
            // An event ends with a blank line; the proxies keep presa's
            // `\n`, but a stream may use `\r\n`.
            let normalized = self.buffer.replace("\r\n", "\n");
            if let Some(end) = normalized.find("\n\n") {
                let block = normalized[..end].to_owned();
                self.buffer = normalized[end + 2..].to_owned();
                let lines: Vec<&str> = block.lines().filter(|l| !l.starts_with(':')).collect();
                if lines.is_empty() {
                    continue;
                }
                let data: Vec<&str> = lines
                    .iter()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                return Some(data.join("\n"));
            }
            let chunk = self.body.next().await?.expect("the stream reads");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next message, skipping priming events.
    async fn next_message(&mut self) -> Option<Value> {
        loop {
            let data = self.next_data().await?;
            if !data.is_empty() {
                return Some(serde_json::from_str(&data).unwrap());
            }
        }
    }

    /// The next message, within [`PATIENCE`].
    async fn expect_message(&mut self, what: &str) -> Value {
        tokio::time::timeout(PATIENCE, self.next_message())
            .await
            .unwrap_or_else(|_| panic!("{what}: nothing within {PATIENCE:?}"))
            .unwrap_or_else(|| panic!("{what}: the stream ended first"))
    }
}

// ---------------------------------------------------------------------
// The checks

/// Check 1: a modern call arrives with the public host, the client's
/// address and the scheme, whatever forwarded headers the client made up.
async fn modern_call(peer: &Peer) {
    let answer = peer
        .call(1, json!({}), json!({"name": "addressed", "arguments": {}}))
        .await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {answer}"));
    let seen: Value = serde_json::from_str(text).unwrap();
    let host = seen["host"][0].as_str().unwrap();
    assert_eq!(
        host.split(':').next(),
        Some(PUBLIC_HOST),
        "presa saw Host {host:?}: the proxy must pass the client's Host on"
    );
    assert_eq!(
        seen["forwarded_for"],
        json!(["127.0.0.1"]),
        "the proxy must replace the client's X-Forwarded-For with its address"
    );
    assert_eq!(seen["forwarded_proto"], json!(["https"]));
}

/// Check 2, MRTR: `input_required`, then the retry with `requestState`.
async fn elicitation_over_mrtr(peer: &Peer) {
    let call = json!({"name": "confirm", "arguments": {}});
    let first = peer.call(2, with_elicitation(), call.clone()).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["inputRequests"]["confirm"]["params"]["message"],
        "Go ahead?"
    );
    let mut retry = call;
    retry["requestState"] = result["requestState"].clone();
    retry["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let second = peer.call(3, with_elicitation(), retry).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "confirmed",
        "{second}"
    );
}

/// How long a task's notifications took to arrive.
#[derive(Debug, Clone, Copy)]
struct Delays {
    /// From sending `subscriptions/listen` to the task's first
    /// `notifications/tasks` (its current state).
    first: Duration,
    /// From opening the gate to the notification that the task completed.
    completed: Duration,
}

/// Check 3: a task, then `subscriptions/listen`. Its notifications come
/// while the task runs, so while the stream is still open.
async fn task_notifications(peer: &Peer, gate: &Gate) -> Delays {
    let created = peer
        .call(4, with_tasks(), json!({"name": "gated", "arguments": {}}))
        .await;
    let task = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let listen = json!({"_meta": meta(with_tasks()), "notifications": {"taskIds": [&task]}});
    let sent = Instant::now();
    let response = peer.request(5, "subscriptions/listen", listen).await;
    assert_eq!(response.status(), 200);
    let mut events = Events::new(response);
    let acknowledged = events.expect_message("the acknowledgement").await;
    assert_eq!(
        acknowledged["method"], "notifications/subscriptions/acknowledged",
        "{acknowledged}"
    );
    // The task cannot end before the gate opens, so this notification
    // comes through an open stream, or not at all.
    let current = events
        .expect_message("the task's state, while it runs")
        .await;
    let first = sent.elapsed();
    assert_eq!(current["method"], "notifications/tasks", "{current}");
    assert_eq!(current["params"]["status"], "working", "{current}");

    let opened = Instant::now();
    gate.0.notify_one();
    let completed = loop {
        let message = events.expect_message("the task's completion").await;
        assert_eq!(message["method"], "notifications/tasks", "{message}");
        if message["params"]["status"] == "completed" {
            assert_eq!(
                message["params"]["result"]["content"][0]["text"],
                "released"
            );
            break opened.elapsed();
        }
    };
    let end = events.expect_message("the listen's response").await;
    assert_eq!(end["id"], 5, "{end}");
    Delays { first, completed }
}

/// Check 4: a 2025-11-25 session, and an event on its GET stream.
async fn legacy_get_stream(peer: &Peer, server: &Server) {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "deployment-test", "version": "0"}}});
    let opened = peer.legacy(None, initialize).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = peer.legacy(Some(&session), initialized).await;
    assert_eq!(accepted.status(), 202);

    let get = peer
        .http
        .get(&peer.url)
        .bearer_auth(&peer.token)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25");
    let stream = answered(get, "the GET stream").await;
    assert_eq!(stream.status(), 200);
    let mut events = Events::new(stream);
    let priming = tokio::time::timeout(PATIENCE, events.next_data())
        .await
        .expect("the GET stream's priming event, at once");
    assert_eq!(priming.as_deref(), Some(""), "a priming event first");
    assert!(server.remove_tool("spare"));
    let notice = events.expect_message("the list change").await;
    assert_eq!(notice["method"], "notifications/tools/list_changed");
}

/// Check 5: the OAuth challenge names the public address.
async fn oauth_challenge(client: &reqwest::Client, port: u16, upstream: SocketAddr) {
    let unsigned = client
        .post(public_url(port))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", VERSION)
        .header("mcp-method", "tools/list")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#);
    let refused = answered(unsigned, "a request without a token").await;
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    let named = format!("resource_metadata=\"{}\"", metadata_url(port));
    assert!(challenge.contains(&named), "{challenge}");
    assert!(!challenge.contains(&upstream.to_string()), "{challenge}");

    let document = json_of(answered(client.get(metadata_url(port)), "the metadata").await).await;
    assert_eq!(document["resource"], public_url(port), "{document}");
}

/// Runs every check through the proxy of `kind`, then measures a task's
/// notifications through it and straight from presa.
async fn through(kind: Kind) {
    let Some((upstream, proxy, client)) = deployed(kind).await else {
        return;
    };
    let peer = Peer {
        http: client.clone(),
        url: public_url(proxy.port),
        token: upstream.token.clone(),
    };
    modern_call(&peer).await;
    elicitation_over_mrtr(&peer).await;
    let proxied = task_notifications(&peer, &upstream.gate).await;
    legacy_get_stream(&peer, &upstream.server).await;
    oauth_challenge(&client, proxy.port, upstream.address).await;

    let direct = Peer {
        http: reqwest::Client::builder().no_proxy().build().unwrap(),
        url: format!("http://{}/mcp", upstream.address),
        token: upstream.token.clone(),
    };
    let straight = task_notifications(&direct, &upstream.gate).await;
    eprintln!(
        "{kind:?}: listen to first notification {:?} (direct {:?}); gate to completed \
         notification {:?} (direct {:?})",
        proxied.first, straight.first, proxied.completed, straight.completed
    );
}

#[tokio::test]
#[cfg_attr(
    presa_wine,
    ignore = "needs nginx, a Linux program here that a test under Wine cannot start"
)]
async fn presa_behind_nginx() {
    through(Kind::Nginx).await;
}

#[tokio::test]
#[cfg_attr(
    presa_wine,
    ignore = "needs caddy, a Linux program here that a test under Wine cannot start"
)]
async fn presa_behind_caddy() {
    through(Kind::Caddy).await;
}

#[tokio::test]
#[cfg_attr(
    presa_wine,
    ignore = "needs haproxy, a Linux program here that a test under Wine cannot start"
)]
async fn presa_behind_haproxy() {
    through(Kind::Haproxy).await;
}

// ---------------------------------------------------------------------
// The guide, the systemd unit and the container recipe

/// The guide's Deployment chapter shows each file of `deploy/` as it is,
/// so that what a reader copies is what this test runs.
#[test]
fn the_guide_shows_each_deploy_file_as_it_is() {
    let guide = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guide/deployment.md"),
    )
    .unwrap();
    for name in [
        "nginx.conf",
        "Caddyfile",
        "haproxy.cfg",
        "presa.service",
        "Dockerfile",
    ] {
        let file = deploy_file(name);
        let block = format!("\n{}```\n", file);
        assert!(
            guide.contains(&block),
            "src/guide/deployment.md does not show deploy/{name} as it is: copy the file \
             into its code block"
        );
    }
}

/// The value of `name=` in a systemd unit.
fn unit_setting<'a>(unit: &'a str, name: &str) -> &'a str {
    let prefix = format!("{name}=");
    unit.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("deploy/presa.service sets no {name}"))
}

/// The longest presa may take to stop after SIGTERM with the default
/// drain period: the drain, then the last answers' write.
fn longest_stop() -> Duration {
    presa::server::CLOSE_DRAIN + presa::server::FINAL_WRITE
}

/// The unit stops presa with SIGTERM and waits longer than its drain
/// before SIGKILL; it sets what the guide's server reads; and systemd
/// accepts it, where `systemd-analyze` is installed.
#[test]
fn the_systemd_unit_gives_the_drain_its_time() {
    let unit = deploy_file("presa.service");
    assert_eq!(unit_setting(&unit, "KillSignal"), "SIGTERM");
    let timeout: u64 = unit_setting(&unit, "TimeoutStopSec").parse().unwrap();
    assert!(
        Duration::from_secs(timeout) > longest_stop(),
        "TimeoutStopSec={timeout} leaves presa less than its drain of {:?}",
        longest_stop()
    );
    for variable in ["MCP_LISTEN=127.0.0.1:", "MCP_HOST=", "MCP_ISSUER="] {
        assert!(
            unit.contains(&format!("Environment={variable}")),
            "the unit sets no {variable}"
        );
    }
    assert!(unit_setting(&unit, "ExecStart").starts_with("/usr/local/bin/mcp-server"));

    let Some(analyze) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|folder| folder.join("systemd-analyze"))
        .find(|path| path.is_file())
    else {
        eprintln!("not checked by systemd: systemd-analyze is not on PATH");
        return;
    };
    // systemd checks that the program exists: this test's own stands in.
    let folder = std::env::temp_dir().join(format!("presa-deploy-unit-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let folder = Folder(folder);
    let program = std::env::current_exe().unwrap().display().to_string();
    let unit = replaced(
        &unit,
        "ExecStart=/usr/local/bin/mcp-server",
        &format!("ExecStart={program}"),
    );
    let path = folder.write("mcp-server.service", &unit);
    let verified = Command::new(analyze)
        .args(["verify", "--man=no", &path])
        .output()
        .unwrap();
    assert!(
        verified.status.success() && verified.stderr.is_empty(),
        "systemd-analyze verify: {}",
        String::from_utf8_lossy(&verified.stderr)
    );
}

/// The container recipe listens on every interface, stops with SIGTERM,
/// and asks for a stop timeout longer than presa's drain.
#[test]
fn the_container_recipe_listens_everywhere_and_waits_for_the_drain() {
    let dockerfile = deploy_file("Dockerfile");
    for line in [
        "ENV MCP_LISTEN=0.0.0.0:3000",
        "ENV MCP_HOST=",
        "ENV MCP_ISSUER=",
        "STOPSIGNAL SIGTERM",
        "EXPOSE 3000",
    ] {
        assert!(dockerfile.contains(line), "the Dockerfile lacks {line:?}");
    }
    for setting in ["--stop-timeout ", "terminationGracePeriodSeconds: "] {
        let seconds: u64 = dockerfile
            .split(setting)
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|digits| digits.parse().ok())
            .unwrap_or_else(|| panic!("the Dockerfile names no {setting:?}"));
        assert!(
            Duration::from_secs(seconds) > longest_stop(),
            "{setting}{seconds} leaves presa less than its drain of {:?}",
            longest_stop()
        );
    }
}
