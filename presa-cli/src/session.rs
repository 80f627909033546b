//! One command's connection: the client to the server, the answerer of
//! its questions, and the progress line they share.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use presa::client::{Client, HttpOptions};
use presa::wire::{Notification, notifications};
use serde_json::Value;

use crate::answer::{Answerer, Presets};
use crate::auth::{SignIn, bearer_token, http_options};
use crate::command_line::Common;
use crate::connecting::{Connecting, ServerLog};
use crate::exit::{Exit, Failure};
use crate::output::shown::{line, note};
use crate::output::status_line::StatusLine;
use crate::target::Target;

/// A connected client, and how it answers and shows progress.
pub struct Session {
    /// The client, connected (lazily: the first request reaches the server).
    pub client: Client,
    /// Answers the server's questions.
    pub answerer: Arc<Answerer>,
    /// The progress line of a task being followed.
    pub status: Arc<StatusLine>,
    /// The server, as given on the command line.
    pub target: Target,
    /// Whether the output is one JSON document.
    pub json: bool,
    /// Whether the server's log messages show (after `log-level`).
    logs: Arc<AtomicBool>,
    /// What shows a stdio server's stderr, with `--server-log`.
    server_log: Option<ServerLog>,
}

impl Session {
    /// Connects to `target`, declaring the Tasks extension when `tasks`.
    pub async fn open(target: &Target, common: &Common, tasks: bool) -> Result<Self, Failure> {
        Self::open_with(target, common, tasks, |_| {}).await
    }

    /// [`open`](Self::open), with `heard` told of every notification the
    /// client hands on (`presa shell` hears of tool changes so).
    pub async fn open_with(
        target: &Target,
        common: &Common,
        tasks: bool,
        heard: impl Fn(&Notification) + Send + Sync + 'static,
    ) -> Result<Self, Failure> {
        let presets = Presets::parse(&common.answers).map_err(Failure::usage)?;
        let status = Arc::new(StatusLine::default());
        let terminal = std::io::stdin().is_terminal();
        let answerer = Answerer::new(presets, terminal, Arc::clone(&status));
        let connecting = Connecting::read(common, target)?;
        let token = bearer_token(common, target)?.or_else(|| connecting.bearer());
        let options = match target.url() {
            Some(url) => {
                let options = http_options(url, token, SignIn::of(common)?).await?;
                connecting.add_headers(options)?
            }
            None => HttpOptions::default(),
        };
        let mut builder = Client::builder()
            .info("presa-cli", env!("CARGO_PKG_VERSION"))
            .tasks(tasks);
        if let Some(limit) = common.timeout {
            builder = builder.request_timeout(limit);
        }
        if let Some(level) = common.log_level {
            builder = builder.log_level(level.into());
        }
        if let Some(version) = &common.protocol_version {
            builder = builder.protocol_versions(vec![version.clone()]);
        }
        let logs = Arc::new(AtomicBool::new(common.log_level.is_some()));
        let showing = Arc::clone(&logs);
        let builder = builder.on_notification(move |notification| {
            if notification.method == notifications::MESSAGE && showing.load(Ordering::Acquire) {
                show_log(notification.params.as_ref());
            }
            heard(&notification);
        });
        let (stderr, server_log) = connecting.server_stderr();
        let transport = target.transport(options, &connecting.env, stderr)?;
        let client = answerer.install(builder).connect(transport);
        Ok(Session {
            client,
            answerer,
            status,
            target: target.clone(),
            json: common.json,
            logs,
            server_log,
        })
    }

    /// Shows the server's log messages on stderr from now on.
    pub fn show_logs(&self) {
        self.logs.store(true, Ordering::Release);
    }

    /// `exit`, or [`Exit::Unanswered`] after telling each question that
    /// went unanswered; the next command starts with none.
    pub fn settle(&self, exit: Exit) -> Exit {
        let unanswered = self.answerer.take_unanswered();
        for question in &unanswered {
            note!("presa: {}", question.explain());
        }
        match unanswered.is_empty() {
            true => exit,
            false => Exit::Unanswered,
        }
    }

    /// Closes the connection (a stdio server's process ends).
    pub async fn close(self) {
        if let Err(e) = self.client.close().await {
            note!("presa: closing the connection: {}", line(&e.to_string()));
        }
        if let Some(server_log) = self.server_log {
            server_log.finish().await;
        }
    }
}

/// A log message of the server's on stderr: `[server log] LEVEL LOGGER:
/// DATA`, the data as text when it is a string, else as JSON; all of it
/// escaped.
fn show_log(params: Option<&Value>) {
    let field = |name: &str| params.and_then(|p| p.get(name));
    let level = field("level").and_then(Value::as_str).unwrap_or("?");
    let logger = field("logger").and_then(Value::as_str);
    let data = match field("data") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let from = logger.map(|l| format!(" {}:", line(l))).unwrap_or_default();
    note!("[server log] {}{from} {}", line(level), line(&data));
}
