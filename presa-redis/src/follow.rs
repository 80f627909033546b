//! The stream a watcher follows a task with: the rules are in
//! [`watch`](crate::watch).

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use presa_runtime::server::tasks::store::{TaskRecord, TaskWatch};
use tokio::time::Instant;

use crate::mailbox::{Event, Mailbox};
use crate::records::{Expiry, Records};
use crate::watch::Registration;

/// How long to wait before checking again an expiry Redis could not be
/// asked about.
const EXPIRY_RECHECK: Duration = Duration::from_secs(1);

/// A watcher's state between two versions.
struct Following {
    id: String,
    _registration: Registration,
    events: Mailbox,
    records: Records,
    /// The current record, not yielded yet.
    first: Option<Arc<TaskRecord>>,
    last_version: u64,
    /// When to check whether the task expired.
    check_at: Option<Instant>,
}

/// What to do after an event.
enum Step {
    Yield(Arc<TaskRecord>),
    Wait,
    End,
}

/// The current record, then each newer version, until the task is gone.
pub(crate) fn follow(
    current: TaskRecord,
    expiry: Expiry,
    registration: Registration,
    events: Mailbox,
    records: Records,
) -> TaskWatch {
    let following = Following {
        id: current.id().to_owned(),
        _registration: registration,
        events,
        records,
        last_version: current.version(),
        first: Some(Arc::new(current)),
        check_at: None,
    }
    .expiring(expiry);
    futures::stream::unfold(following, Following::next).boxed()
}

impl Following {
    async fn next(mut self) -> Option<(Arc<TaskRecord>, Self)> {
        if let Some(first) = self.first.take() {
            return Some((first, self));
        }
        loop {
            let step = tokio::select! {
                event = self.events.recv() => self.on_event(event).await,
                () = at(self.check_at) => self.on_expiry().await,
            };
            match step {
                Step::Yield(record) => {
                    self.last_version = record.version();
                    return Some((record, self));
                }
                Step::Wait => continue,
                Step::End => return None,
            }
        }
    }

    async fn on_event(&mut self, event: Option<Event>) -> Step {
        match event {
            Some(Event::Changed(record)) => self.newer(record),
            Some(Event::Reread) => self.reread().await,
            Some(Event::Removed) | None => Step::End,
        }
    }

    fn newer(&self, record: Arc<TaskRecord>) -> Step {
        if record.version() > self.last_version {
            Step::Yield(record)
        } else {
            Step::Wait
        }
    }

    /// Reads the record after messages may have been lost, trying until
    /// Redis answers.
    async fn reread(&mut self) -> Step {
        let mut pause = Duration::from_millis(20);
        loop {
            match self.records.get(&self.id).await {
                Ok(Some(record)) => return self.newer(Arc::new(record)),
                Ok(None) => return Step::End,
                Err(error) => tracing::debug!(%error, task = self.id, "reading a watched task"),
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    async fn on_expiry(&mut self) -> Step {
        match self.records.expiry(&self.id).await {
            Ok(Expiry::Gone) => return Step::End,
            Ok(expiry) => self.check_at = check_time(expiry),
            Err(_) => self.check_at = Some(Instant::now() + EXPIRY_RECHECK),
        }
        Step::Wait
    }

    fn expiring(mut self, expiry: Expiry) -> Self {
        self.check_at = check_time(expiry);
        self
    }
}

fn check_time(expiry: Expiry) -> Option<Instant> {
    match expiry {
        Expiry::Never => None,
        Expiry::In(after) => Some(Instant::now() + after),
        Expiry::Gone => Some(Instant::now()),
    }
}

async fn at(time: Option<Instant>) {
    match time {
        Some(time) => tokio::time::sleep_until(time).await,
        None => std::future::pending().await,
    }
}
