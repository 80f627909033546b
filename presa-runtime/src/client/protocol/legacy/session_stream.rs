//! A session stream's handle: what a `Subscription` over a legacy
//! session keeps.
//!
//! It reads a legacy `notifications/tasks/status` as the modern
//! `notifications/tasks` would have said it (without the outcome, which
//! only `tasks/result` gives), and when dropped stops its routing and
//! unsubscribes from the resources it follows. The routing itself is the
//! connection's (`connection::legacy::streams`).

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use super::send::send_and_forget;
use crate::client::connection::{Connection, SessionStreams};
use crate::wire::legacy::lifecycle::SubscribeParams;
use crate::wire::legacy::tasks::TaskStatusParams;
use crate::wire::legacy::{RESOURCES_UNSUBSCRIBE, TASKS_STATUS};
use crate::wire::{DetailedTask, Notification, RequestId, notifications, strict};

/// What a `Subscription` over the session keeps: where it is routed, and
/// the resources it follows, which it unsubscribes from when dropped.
pub(crate) struct SessionStream {
    pub connection: Arc<Connection>,
    pub streams: Arc<SessionStreams>,
    pub id: RequestId,
    /// What the session routes to this stream.
    pub notifications: mpsc::Receiver<Notification>,
    pub subscribed: Vec<String>,
}

impl SessionStream {
    /// The next notification of the stream, a task's status read as the
    /// modern task state; `None` once the connection closed.
    pub async fn next(&mut self) -> Option<Notification> {
        loop {
            let Some(next) = self.notifications.recv().await else {
                // The connection is gone: nothing to unsubscribe from.
                self.subscribed.clear();
                return None;
            };
            if next.method != TASKS_STATUS {
                return Some(next);
            }
            match modern_task_state(next) {
                Ok(modern) => return Some(modern),
                Err(e) => tracing::warn!(error = %e, "malformed subscription notification"),
            }
        }
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        self.streams.close(&self.id);
        for uri in &self.subscribed {
            let params = SubscribeParams { uri: uri.clone() };
            send_and_forget(&self.connection, RESOURCES_UNSUBSCRIBE, &params);
        }
    }
}

/// A legacy `notifications/tasks/status` as the modern
/// `notifications/tasks` would have said it.
fn modern_task_state(status: Notification) -> Result<Notification, serde_json::Error> {
    let params = status.params.unwrap_or(Value::Null);
    let TaskStatusParams { task, .. } = strict::from_value(params)?;
    let detailed = DetailedTask {
        task: task.into(),
        input_requests: None,
        result: None,
        error: None,
    };
    Ok(Notification::new(notifications::TASKS, detailed))
}
