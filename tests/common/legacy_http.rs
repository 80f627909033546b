//! A legacy (2025-11-25) client of the Streamable HTTP transport, by
//! hand: sessions, event streams read event by event, `GET` and
//! `DELETE`. Every message read is checked against the 2025-11-25 schema
//! and for modern-only fields. Shared by tests/legacy_http.rs and
//! tests/legacy_replicas.rs.
#![allow(dead_code)]

use futures::StreamExt;
use presa::server::http::StreamableHttp;
use serde_json::{Value, json};

/// Serves `http` on a free loopback port; returns the endpoint's URL.
pub async fn serve(http: StreamableHttp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(http.serve_on(listener));
    format!("http://{address}/mcp")
}

/// A legacy client's session, by hand.
pub struct Legacy {
    pub url: String,
    pub session: String,
    pub token: Option<&'static str>,
}

impl Legacy {
    /// Opens a session declaring `capabilities`.
    pub async fn open(url: &str, capabilities: Value, token: Option<&'static str>) -> Legacy {
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                            "clientInfo": {"name": "legacy-http", "version": "0"}});
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params});
        let response = send(url, reqwest::Method::POST, Some(body), &[], token).await;
        assert_eq!(response.status().as_u16(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let result: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        super::spec::check_legacy_from_server(&result, Some("initialize"));
        let legacy = Legacy {
            url: url.to_owned(),
            session,
            token,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(legacy.post(initialized).await.status().as_u16(), 202);
        legacy
    }

    pub async fn post(&self, body: Value) -> reqwest::Response {
        let headers = [
            ("mcp-session-id", self.session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        send(
            &self.url,
            reqwest::Method::POST,
            Some(body),
            &headers,
            self.token,
        )
        .await
    }

    /// Sends request `id` of `method` and reads its event stream.
    pub async fn request(&self, id: i64, method: &str, params: Value) -> Events {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(body).await;
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events::new(response, Some(method.to_owned()))
    }

    /// Sends request `id` of `method` and returns its first message: the
    /// response of a request that asks the client nothing.
    pub async fn call(&self, id: i64, method: &str, params: Value) -> Value {
        self.request(id, method, params).await.message().await
    }

    pub async fn get(&self, last_event_id: Option<&str>) -> reqwest::Response {
        let mut headers = vec![("mcp-session-id", self.session.as_str())];
        headers.extend(last_event_id.map(|id| ("last-event-id", id)));
        send(&self.url, reqwest::Method::GET, None, &headers, self.token).await
    }

    pub async fn delete(&self) -> u16 {
        let headers = [("mcp-session-id", self.session.as_str())];
        let response = send(
            &self.url,
            reqwest::Method::DELETE,
            None,
            &headers,
            self.token,
        )
        .await;
        response.status().as_u16()
    }
}

pub async fn send(
    url: &str,
    method: reqwest::Method,
    body: Option<Value>,
    headers: &[(&str, &str)],
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    request.send().await.unwrap()
}

/// One event stream, read event by event.
pub struct Events {
    body: futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buffer: String,
    /// The method of the request the stream answers.
    method: Option<String>,
}

/// One event: its id, and its message (`None` for a priming event).
pub struct Event {
    pub id: Option<String>,
    pub message: Option<Value>,
}

impl Events {
    pub fn new(response: reqwest::Response, method: Option<String>) -> Self {
        Events {
            body: response
                .bytes_stream()
                .map(|r| r.map(|b| b.to_vec()))
                .boxed(),
            buffer: String::new(),
            method,
        }
    }

    /// The next event; `None` once the server closed the connection.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(str::to_owned)
                };
                let data = field("data: ").or_else(|| field("data:"))?;
                let message: Option<Value> =
                    (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap());
                if let Some(message) = &message {
                    let answers = message.get("method").is_none();
                    let method = answers.then_some(self.method.as_deref()).flatten();
                    super::spec::check_legacy_from_server(message, method);
                }
                return Some(Event {
                    id: field("id: "),
                    message,
                });
            }
            let chunk = self.body.next().await?.ok()?;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next message, skipping priming events.
    pub async fn message(&mut self) -> Value {
        loop {
            let event = self.next().await.expect("the stream goes on");
            if let Some(message) = event.message {
                return message;
            }
        }
    }
}
