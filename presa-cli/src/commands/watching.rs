//! `presa watch`: the server's notifications, printed as they come.
//!
//! The rules, in order:
//!
//! 1. presa asks for every list's changes, and for updates of each
//!    `--resource`, through the client's `listen`: `subscriptions/listen`
//!    for a 2026-07-28 server, the session's notifications and
//!    `resources/subscribe` for a 2025-11-25 one;
//! 2. once the server agreed, presa says on stderr what it follows. A
//!    server that agreed to nothing is a protocol error (status 3): there
//!    would be nothing to wait for;
//! 3. each notification prints as one line: `tools changed`,
//!    `updated URI`, and so on; with `--json`, as one JSON document a
//!    line, `{"method": ..., "params": ...}` as the server named it, so
//!    that a script reads each line as it comes;
//! 4. it watches until Ctrl-C (status 130), or until the server ends the
//!    stream (status 0), or the connection ends or fails (status 3).

use presa::client::{Subscription, SubscriptionEnd, SubscriptionEvent};
use presa::wire::SubscriptionFilter;
use serde_json::{Value, json};

use crate::exit::{Exit, Failure};
use crate::output::render;
use crate::output::shown::{line, note, say};
use crate::session::Session;

/// `presa watch`.
pub async fn watch(session: &Session, resources: &[String]) -> Result<Exit, Failure> {
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(true),
        resource_subscriptions: (!resources.is_empty()).then(|| resources.to_vec()),
        ..SubscriptionFilter::default()
    };
    let mut stream = session.client.listen(filter).await?;
    let followed = followed(stream.acknowledged());
    if followed.is_empty() {
        return Err(Failure::protocol(
            "the server agreed to send no notification presa asked for: it announces no list \
             changes, and follows none of the resources given",
        ));
    }
    note!("presa: watching {}; Ctrl-C ends", followed.join(", "));
    for uri in resources {
        let granted = stream.acknowledged().resource_subscriptions.as_ref();
        if !granted.is_some_and(|uris| uris.contains(uri)) {
            note!("presa: the server will not follow {}", line(uri));
        }
    }
    tokio::select! {
        ended = print_each(session, &mut stream) => ended,
        _ = tokio::signal::ctrl_c() => Ok(Exit::Cancelled),
    }
}

/// Prints each event until the stream ends; how it ended (rule 4).
async fn print_each(session: &Session, stream: &mut Subscription) -> Result<Exit, Failure> {
    while let Some(event) = stream.next().await {
        let (method, params) = wire(&event);
        match session.json {
            true => render::json_line(&json!({"method": method, "params": params})),
            false => say!("{}", text(&event)),
        }
    }
    match stream.end() {
        Some(SubscriptionEnd::Failed(error)) => Err(Failure::protocol(format!(
            "the watch ended: {}",
            line(&error.to_string())
        ))),
        _ => {
            note!("presa: the server ended the watch");
            Ok(Exit::Success)
        }
    }
}

/// What the server agreed to send, in words (rule 2).
fn followed(granted: &SubscriptionFilter) -> Vec<String> {
    let mut followed = Vec::new();
    for (asked, noun) in [
        (granted.tools_list_changed, "tool"),
        (granted.prompts_list_changed, "prompt"),
        (granted.resources_list_changed, "resource"),
    ] {
        if asked == Some(true) {
            followed.push(format!("{noun} list changes"));
        }
    }
    for uri in granted.resource_subscriptions.iter().flatten() {
        followed.push(format!("updates of {}", line(uri)));
    }
    followed
}

/// An event as the notification that brought it: its method and params.
fn wire(event: &SubscriptionEvent) -> (&'static str, Value) {
    match event {
        SubscriptionEvent::ToolsListChanged => ("notifications/tools/list_changed", json!({})),
        SubscriptionEvent::PromptsListChanged => ("notifications/prompts/list_changed", json!({})),
        SubscriptionEvent::ResourcesListChanged => {
            ("notifications/resources/list_changed", json!({}))
        }
        SubscriptionEvent::ResourceUpdated { uri } => {
            ("notifications/resources/updated", json!({"uri": uri}))
        }
        SubscriptionEvent::Task(task) => ("notifications/tasks", render::wire(task)),
    }
}

/// An event as a line for a person (rule 3).
fn text(event: &SubscriptionEvent) -> String {
    match event {
        SubscriptionEvent::ToolsListChanged => "tools changed".into(),
        SubscriptionEvent::PromptsListChanged => "prompts changed".into(),
        SubscriptionEvent::ResourcesListChanged => "resources changed".into(),
        SubscriptionEvent::ResourceUpdated { uri } => format!("updated {}", line(uri)),
        SubscriptionEvent::Task(task) => {
            let task = render::wire(task);
            let field = |name: &str| {
                task.get(name)
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned()
            };
            format!(
                "task {}: {}",
                line(&field("taskId")),
                line(&field("status"))
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_followed_is_said_in_words() {
        let granted = SubscriptionFilter {
            tools_list_changed: Some(true),
            resources_list_changed: Some(false),
            resource_subscriptions: Some(vec!["jobs://builds/latest".into()]),
            ..SubscriptionFilter::default()
        };
        assert_eq!(
            followed(&granted),
            ["tool list changes", "updates of jobs://builds/latest"]
        );
        assert!(followed(&SubscriptionFilter::default()).is_empty());
    }

    #[test]
    fn an_update_prints_as_its_notification() {
        let event = SubscriptionEvent::ResourceUpdated {
            uri: "note://a\u{1b}[2J".into(),
        };
        assert_eq!(text(&event), r"updated note://a\x1b[2J");
        let (method, params) = wire(&event);
        assert_eq!(method, "notifications/resources/updated");
        assert_eq!(params["uri"], "note://a\u{1b}[2J");
    }
}
