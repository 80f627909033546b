//! A scripted server of either era, legacy (2025-11-25) unless it answers
//! the era probe as a modern server: the test reads the client's raw
//! frames and writes the server's, and every frame in either direction is
//! checked against its era's schema (the probe against the modern one).

use std::collections::HashMap;

use presa_runtime::client::{Client, ClientBuilder};
use presa_runtime::transport::{FrameChannel, byte_stream};
use serde_json::{Value, json};
use tokio::time::timeout;

use super::{GUARD, QUIET, spec};

/// The server end of a connection to a client that does not know the
/// server's era yet.
pub struct LegacyPeer {
    channel: FrameChannel,
    /// The methods of the client's requests, by id, to check the answers.
    theirs: HashMap<String, String>,
    /// The methods of this server's own requests, by id, to check the
    /// client's responses.
    ours: HashMap<String, String>,
    /// Whether the server answered the probe as a modern server.
    modern: bool,
}

/// A client that will have to find out its server's era, and the server's
/// end.
pub fn connect_legacy(builder: ClientBuilder) -> (Client, LegacyPeer) {
    let (client_end, server_end) = FrameChannel::pair();
    let peer = LegacyPeer {
        channel: server_end,
        theirs: HashMap::new(),
        ours: HashMap::new(),
        modern: false,
    };
    (builder.connect(client_end), peer)
}

/// [`connect_legacy`] over newline-delimited bytes, as on stdio, rather
/// than frames.
pub fn connect_legacy_over_bytes(builder: ClientBuilder) -> (Client, LegacyPeer) {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(ours);
    let (server_read, server_write) = tokio::io::split(theirs);
    let peer = LegacyPeer {
        channel: byte_stream(server_read, server_write, 1 << 20),
        theirs: HashMap::new(),
        ours: HashMap::new(),
        modern: false,
    };
    let client = builder.connect(byte_stream(client_read, client_write, 1 << 20));
    (client, peer)
}

/// An `InitializeResult` for `version`, with `capabilities`.
pub fn initialize_result(version: &str, capabilities: Value) -> Value {
    json!({"protocolVersion": version, "capabilities": capabilities,
           "serverInfo": {"name": "legacy-server", "version": "1.0.0"},
           "instructions": "be brief"})
}

/// A legacy task's fields.
pub fn legacy_task(id: &str, status: &str) -> Value {
    json!({"taskId": id, "status": status,
           "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:01Z",
           "ttl": 60000, "pollInterval": 250})
}

impl LegacyPeer {
    /// The next frame from the client, checked against the schema of its
    /// era.
    pub async fn recv(&mut self) -> Value {
        let inbound = timeout(GUARD, self.channel.incoming.recv())
            .await
            .expect("the client sent nothing")
            .expect("the client closed the connection");
        let message = super::frame_json_unchecked(inbound);
        self.check(&message);
        message
    }

    /// The next frame, which must be `method`.
    pub async fn expect(&mut self, method: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(message["method"], method, "unexpected message {message}");
        message
    }

    /// The next frame the client sends before everything goes idle.
    pub async fn sent_next(&mut self) -> Option<Value> {
        let inbound = timeout(QUIET, self.channel.incoming.recv()).await.ok()??;
        let message = super::frame_json_unchecked(inbound);
        self.check(&message);
        Some(message)
    }

    fn check(&mut self, message: &Value) {
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            self.theirs.insert(id.to_string(), method.to_owned());
        }
        if self.modern || message["method"] == "server/discover" {
            return spec::check_from_client(message);
        }
        let answering = message
            .get("id")
            .filter(|_| message.get("method").is_none())
            .and_then(|id| self.ours.remove(&id.to_string()));
        spec::check_legacy_from_client(message, answering.as_deref());
    }

    async fn send(&mut self, message: Value) {
        let answering = message
            .get("id")
            .filter(|_| message.get("method").is_none())
            .and_then(|id| self.theirs.get(&id.to_string()).cloned());
        if answering.as_deref() == Some("server/discover") {
            let code = message.pointer("/error/code").and_then(Value::as_i64);
            self.modern = message.pointer("/result/supportedVersions").is_some()
                || code.is_some_and(|c| (-32022..=-32020).contains(&c));
        }
        if self.modern {
            spec::check_from_server(&message, answering.as_deref());
        } else if answering.as_deref() != Some("server/discover") {
            spec::check_legacy_from_server(&message, answering.as_deref());
        }
        self.channel
            .outgoing
            .send(message.to_string())
            .await
            .unwrap();
    }

    /// Waits until the client closed its end of the connection, taking
    /// whatever it still sent.
    pub async fn closed(&mut self) {
        let closing = async { while self.channel.incoming.recv().await.is_some() {} };
        timeout(GUARD, closing)
            .await
            .expect("the client never closed the connection");
    }

    /// Checks both directions as modern from now on: the server turned out
    /// modern other than by its answer to the probe.
    pub fn speak_modern(&mut self) {
        self.modern = true;
    }

    /// Sends `message` as is, unchecked: for frames that break the schema
    /// on purpose.
    pub async fn send_malformed(&mut self, message: Value) {
        self.channel
            .outgoing
            .send(message.to_string())
            .await
            .unwrap();
    }

    pub async fn reply(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }

    pub async fn reply_error(&mut self, request: &Value, error: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": error}))
            .await;
    }

    /// Sends a request of the server's own.
    pub async fn ask(&mut self, id: Value, method: &str, params: Value) {
        self.ours.insert(id.to_string(), method.to_owned());
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Answers the era probe as a legacy server might: method not found.
    pub async fn refuse_probe(&mut self) {
        let probe = self.expect("server/discover").await;
        let error = json!({"code": -32601, "message": "Method not found"});
        self.reply_error(&probe, error).await;
    }

    /// Takes the client's `initialize` and answers it with `version` and
    /// `capabilities`, then takes `notifications/initialized`; the
    /// `initialize` request.
    pub async fn accept_session(&mut self, version: &str, capabilities: Value) -> Value {
        let initialize = self.expect("initialize").await;
        self.reply(&initialize, initialize_result(version, capabilities))
            .await;
        self.expect("notifications/initialized").await;
        initialize
    }

    /// Refuses the probe, then opens a 2025-11-25 session with
    /// `capabilities`; the `initialize` request.
    pub async fn open_session(&mut self, capabilities: Value) -> Value {
        self.refuse_probe().await;
        self.accept_session("2025-11-25", capabilities).await
    }
}
