//! [`ListTasks`]: listing one owner's tasks, an optional capability of a
//! store.
//!
//! Only legacy (2025-11-25) `tasks/list` lists tasks: the modern protocol
//! has no such method, and the engine never lists. So a store need not
//! list at all. One that can implements this trait beside [`TaskStore`]
//! and returns itself from [`TaskStore::lister`]; one that cannot keeps
//! that method's default, and the server then offers legacy clients no
//! `tasks/list` (`-32601`, method not found, if they call it anyway).
//!
//! [`TaskStore`]: super::TaskStore
//! [`TaskStore::lister`]: super::TaskStore::lister

use std::sync::Arc;

use async_trait::async_trait;

use super::error::StoreError;
use super::record::TaskRecord;

/// A store that can page through one owner's tasks.
#[async_trait]
pub trait ListTasks: Send + Sync {
    /// Up to `limit` live (unexpired) tasks of `owner`, in order of id,
    /// starting after the id `after`: one page of legacy `tasks/list`.
    /// `owner` is matched exactly: `None` lists the anonymous tasks.
    async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Arc<TaskRecord>>, StoreError>;
}
