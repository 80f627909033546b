//! The engine's legacy extension: what only 2025-11-25's task methods
//! ask of it. `tasks/list` pages the caller's tasks when the store lists
//! them; `tasks/result` waits for a task's end; and a question a legacy
//! client is asked with a request of the server's own shows the task
//! `input_required` while it waits.

use std::future::Future;
use std::sync::Arc;

use futures::StreamExt;

use super::TaskEngine;
use super::engine::store_failed;
use super::link::{TaskLink, Waiting};
use super::store::TaskRecord;
use crate::server::caller::Caller;
use crate::server::core::reply::{method_not_found, task_not_found};
use crate::wire::legacy::TASKS_LIST;
use crate::wire::{ErrorObject, InputRequest};

/// How many tasks one page of legacy `tasks/list` holds.
pub(crate) const LIST_PAGE: usize = 100;

impl TaskEngine {
    /// Whether the store lists tasks ([`TaskStore::lister`]), and so
    /// whether legacy `tasks/list` is offered.
    ///
    /// [`TaskStore::lister`]: super::store::TaskStore::lister
    pub fn lists(&self) -> bool {
        self.store.lister().is_some()
    }

    /// One page of `caller`'s tasks, in order of id, after the id
    /// `cursor`, and the cursor of the next page (legacy `tasks/list`);
    /// `-32601` when the store does not list.
    pub async fn list(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
    ) -> Result<(Vec<Arc<TaskRecord>>, Option<String>), ErrorObject> {
        self.start_sweeper();
        let Some(lister) = self.store.lister() else {
            return Err(method_not_found(TASKS_LIST));
        };
        let owner = caller.task_owner();
        let page = lister
            .list(owner.as_deref(), cursor, LIST_PAGE)
            .await
            .map_err(|e| store_failed("list", e))?;
        let next = (page.len() == LIST_PAGE)
            .then(|| page.last().map(|record| record.id.clone()))
            .flatten();
        Ok((page, next))
    }

    /// The task once it has ended (legacy `tasks/result`), followed as a
    /// listener would; `-32602` if it is unknown, someone else's, or
    /// expires first.
    pub async fn ended(&self, id: &str, caller: &Caller) -> Result<Arc<TaskRecord>, ErrorObject> {
        let mut watches = self.watch_owned(&[id.to_owned()], caller).await?;
        let Some((_, mut watch)) = watches.pop() else {
            return Err(task_not_found("retrieve"));
        };
        while let Some(record) = watch.next().await {
            if record.status.is_terminal() {
                return Ok(record);
            }
        }
        Err(task_not_found("retrieve"))
    }
}

impl TaskLink {
    /// Shows the task `input_required` for `key` while `asking` runs: the
    /// question a legacy client is asked with a request of the server's
    /// own, whose answer never reaches the store. The key is withdrawn
    /// when `asking` ends, or is dropped, and the task is `working` again.
    pub async fn while_asking<T>(
        &self,
        key: String,
        request: InputRequest,
        asking: impl Future<Output = T>,
    ) -> T {
        self.register(key.clone(), request);
        // Cancellation by drop: the guard withdraws the key however the
        // wait ends.
        let _waiting = Waiting {
            link: self.clone(),
            key: Some(key),
        };
        self.flush().await;
        asking.await
    }
}
