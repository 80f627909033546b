//! The engine's legacy extension: what only 2025-11-25's task methods
//! ask of it. `tasks/list` pages the caller's tasks when the store lists
//! them, and its cursors are opaque: one the server never issued is
//! invalid (`-32602`), as 2025-11-25 asks; `tasks/result` waits for a
//! task's end; and a question a legacy client is asked with a request of
//! the server's own shows the task `input_required` while it waits.

use std::future::Future;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::StreamExt;

use super::TaskEngine;
use super::engine::store_failed;
use super::link::{TaskLink, Waiting};
use super::store::TaskRecord;
use crate::server::caller::Caller;
use crate::server::request::reply::{invalid_params, method_not_found, task_not_found};
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

    /// One page of `caller`'s tasks, in order of id, after the task
    /// `cursor` names, and the cursor of the next page (legacy
    /// `tasks/list`); `-32601` when the store does not list, `-32602` for
    /// a cursor the server never issued.
    pub async fn list(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
    ) -> Result<(Vec<Arc<TaskRecord>>, Option<String>), ErrorObject> {
        self.start_sweeper();
        let Some(lister) = self.store.lister() else {
            return Err(method_not_found(TASKS_LIST));
        };
        let after = cursor.map(decode_cursor).transpose()?;
        let owner = caller.task_owner();
        let page = lister
            .list(owner.as_deref(), after.as_deref(), LIST_PAGE)
            .await
            .map_err(|e| store_failed("list", e))?;
        let next = (page.len() == LIST_PAGE)
            .then(|| page.last().map(|record| encode_cursor(&record.id)))
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
    /// Such a handler never sleeps (see the `dormant` module): its answer
    /// comes over the connection, to this run only.
    pub async fn while_asking<T>(
        &self,
        key: String,
        request: InputRequest,
        asking: impl Future<Output = T>,
    ) -> T {
        self.keep_awake();
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

/// What every cursor of `tasks/list` says before the task id it follows.
const CURSOR_PREFIX: &str = "presa-task:";

/// The cursor of the page after task `id`.
fn encode_cursor(id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{id}"))
}

/// The task id `cursor` names; `-32602` for one the server never issued.
fn decode_cursor(cursor: &str) -> Result<String, ErrorObject> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.strip_prefix(CURSOR_PREFIX).map(str::to_owned))
        .ok_or_else(|| invalid_params(format!("Invalid cursor {cursor:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_names_the_task_it_follows_and_others_are_invalid() {
        let cursor = encode_cursor("t1");
        assert_eq!(decode_cursor(&cursor).unwrap(), "t1");
        for forged in ["bogus", "t1", "", &URL_SAFE_NO_PAD.encode("t1")] {
            assert_eq!(decode_cursor(forged).unwrap_err().code, -32602, "{forged}");
        }
    }
}
