//! One command's connection: the client to the server, the answerer of
//! its questions, and the progress line they share.

use std::io::IsTerminal;
use std::sync::Arc;

use presa::client::{Client, ClientBuilder, HttpOptions};

use crate::answer::{Answerer, Presets};
use crate::auth::{bearer_token, http_options};
use crate::command_line::Common;
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
}

impl Session {
    /// Connects to `target`, declaring the Tasks extension when `tasks`.
    pub async fn open(target: &Target, common: &Common, tasks: bool) -> Result<Self, Failure> {
        Self::open_with(target, common, tasks, |builder| builder).await
    }

    /// [`open`](Self::open), the client's builder passed through `more`
    /// before it connects (`presa shell` hears of tool changes so).
    pub async fn open_with(
        target: &Target,
        common: &Common,
        tasks: bool,
        more: impl FnOnce(ClientBuilder) -> ClientBuilder,
    ) -> Result<Self, Failure> {
        let presets = Presets::parse(&common.answers).map_err(Failure::usage)?;
        let status = Arc::new(StatusLine::default());
        let terminal = std::io::stdin().is_terminal();
        let answerer = Answerer::new(presets, terminal, Arc::clone(&status));
        let configured = configured_token(target);
        let token = bearer_token(common, target)?.or(configured);
        let options = match target.url() {
            Some(url) => http_options(url, token, common.allow_private_networks).await?,
            None => HttpOptions::default(),
        };
        let builder = Client::builder()
            .info("presa-cli", env!("CARGO_PKG_VERSION"))
            .tasks(tasks);
        let client = more(answerer.install(builder)).connect(target.transport(options)?);
        Ok(Session {
            client,
            answerer,
            status,
            target: target.clone(),
            json: common.json,
        })
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
    }
}

/// The bearer token in a configured server's `Authorization: Bearer`
/// header, sent when neither the command line nor `PRESA_TOKEN` gives
/// one. presa cannot send the entry's other headers yet: it says so,
/// naming each (never its value).
fn configured_token(target: &Target) -> Option<String> {
    let mut token = None;
    for (name, value) in target.headers() {
        let bearer = value
            .strip_prefix("Bearer ")
            .filter(|_| name.eq_ignore_ascii_case("authorization"));
        match bearer {
            Some(bearer) => token = Some(bearer.trim().to_owned()),
            None => note!(
                "presa: {target}: presa cannot send the header {} yet; going on without it",
                line(name)
            ),
        }
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::Reach;

    #[test]
    fn a_configured_bearer_header_is_the_token() {
        let headers = vec![
            ("authorization".to_owned(), "Bearer t0k".to_owned()),
            ("X-Region".to_owned(), "eu".to_owned()),
        ];
        let url = "https://h/mcp".to_owned();
        let target = Target::Configured("work".into(), Reach::Http { url, headers });
        assert_eq!(configured_token(&target).as_deref(), Some("t0k"));
        let plain = Target::Http("https://h/mcp".into());
        assert_eq!(configured_token(&plain), None);
    }
}
