//! `presa ping` and `presa log-level`: the protocol's utilities, whose
//! requests differ by era (the client's `ping` and `set_log_level` say
//! how).

use std::time::Instant;

use presa::wire::LoggingLevel;
use serde_json::json;

use crate::command_line::LogLevel;
use crate::exit::{Exit, Failure};
use crate::output::render;
use crate::output::shown::say;
use crate::session::Session;

/// `presa ping`: the time the answer took, in milliseconds. The first
/// request of a session also settles the era (a probe, or a legacy
/// session's opening), so that is done first and not counted.
pub async fn ping(session: &Session) -> Result<Exit, Failure> {
    session.client.era().await?;
    let sent = Instant::now();
    session.client.ping().await?;
    let took = sent.elapsed().as_secs_f64() * 1000.0;
    match session.json {
        true => render::json(&json!({"milliseconds": took})),
        false => say!("the server answered in {took:.1} ms"),
    }
    Ok(Exit::Success)
}

/// `presa log-level`: from now on, the server's log messages at `level`
/// and above show on stderr (in `presa shell`, for the rest of it).
pub async fn log_level(session: &Session, level: LogLevel) -> Result<Exit, Failure> {
    let level = LoggingLevel::from(level);
    session.client.set_log_level(level).await?;
    session.show_logs();
    let name = render::wire(&level);
    match session.json {
        true => render::json(&json!({"level": name})),
        false => say!(
            "log level {}: the server's messages at it and above show on stderr",
            name.as_str().unwrap_or("?")
        ),
    }
    Ok(Exit::Success)
}
