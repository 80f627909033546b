//! Reading one task's record, for [`get`](presa_runtime::server::tasks::store::TaskStore::get)
//! and for watchers that read afresh.

use std::time::Duration;

use presa_runtime::server::tasks::store::{StoreError, TaskRecord};

use crate::connection::Link;
use crate::error::Failures;
use crate::keys::Keys;
use crate::record;

/// When a task's key expires, as Redis counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expiry {
    /// The task has no TTL.
    Never,
    /// In this long.
    In(Duration),
    /// The key is gone already.
    Gone,
}

/// An expiry from what `PTTL` answers.
fn expiry_of(millis: i64) -> Expiry {
    match millis {
        -1 => Expiry::Never,
        ms if ms < 0 => Expiry::Gone,
        ms => Expiry::In(Duration::from_millis(ms.unsigned_abs())),
    }
}

/// Reads records from Redis.
#[derive(Clone)]
pub(crate) struct Records {
    pub(crate) connection: Link,
    pub(crate) keys: Keys,
    pub(crate) failures: Failures,
}

impl Records {
    /// The task's record; `None` once it is gone or expired.
    pub(crate) async fn get(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
        let json: Option<String> = redis::cmd("HGET")
            .arg(self.keys.task(id))
            .arg("json")
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|e| self.failures.redis("reading a task", e))?;
        json.map(|json| self.decode(id, &json)).transpose()
    }

    /// The task's record and when its key expires, read in one round
    /// trip (a pipeline): `None` once it is gone or expired.
    pub(crate) async fn get_with_expiry(
        &self,
        id: &str,
    ) -> Result<Option<(TaskRecord, Expiry)>, StoreError> {
        let key = self.keys.task(id);
        let (json, millis): (Option<String>, i64) = redis::pipe()
            .cmd("HGET")
            .arg(&key)
            .arg("json")
            .cmd("PTTL")
            .arg(&key)
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|e| self.failures.redis("reading a task", e))?;
        let Some(json) = json else {
            return Ok(None);
        };
        Ok(Some((self.decode(id, &json)?, expiry_of(millis))))
    }

    /// When the task's key expires.
    pub(crate) async fn expiry(&self, id: &str) -> Result<Expiry, StoreError> {
        let millis: i64 = redis::cmd("PTTL")
            .arg(self.keys.task(id))
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|e| self.failures.redis("reading a task's expiry", e))?;
        Ok(expiry_of(millis))
    }

    /// A record from its stored JSON.
    pub(crate) fn decode(&self, id: &str, json: &str) -> Result<TaskRecord, StoreError> {
        record::decode(json).map_err(|e| self.failures.corrupt(id, e))
    }
}
