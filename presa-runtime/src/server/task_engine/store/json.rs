//! The JSON form of a [`TaskRecord`], for a store that persists records.
//!
//! A record is `Serialize` and `Deserialize`, so a durable store writes
//! one document per task and reads it back without knowing its fields.
//! The rules of the form, in order:
//!
//! 1. **A record read back equals the one written**: times and durations
//!    are kept as nanoseconds since the Unix epoch (a time before it, from
//!    a clock set far back, as the epoch), saturating at about 584 years.
//! 2. **Stored JSON is embedded as it is** (questions, answers, the result
//!    and the call), never re-encoded, so writing a record costs what it
//!    weighs.
//! 3. **The form only grows**: a field added later is optional, so a
//!    record an older presa wrote still reads (`call`, `tool` and
//!    `traceparent` came so).
//!    It is the form `presa-redis` keeps, and text that is no record is
//!    an error, never a default.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::by_input_key::ByInputKey;
use super::record::{Seldom, TaskRecord};
use super::stored::StoredJson;
use crate::wire::{ErrorObject, TaskStatus};

/// One record as stored: its fields, with times as nanoseconds since the
/// Unix epoch and stored JSON as raw text.
#[derive(Serialize, Deserialize)]
struct Form {
    id: String,
    owner: Option<String>,
    status: TaskStatus,
    status_message: Option<String>,
    created_at_ns: u64,
    last_updated_at_ns: u64,
    ttl_ns: Option<u64>,
    poll_interval_ns: Option<u64>,
    input_requests: BTreeMap<String, Box<RawValue>>,
    answers: BTreeMap<String, Box<RawValue>>,
    asked: Vec<String>,
    result: Option<Box<RawValue>>,
    error: Option<ErrorObject>,
    version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    traceparent: Option<String>,
}

impl Serialize for TaskRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        Form::of(self)
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TaskRecord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Form::deserialize(deserializer)?
            .into_record()
            .map_err(D::Error::custom)
    }
}

impl Form {
    fn of(record: &TaskRecord) -> Result<Form, serde_json::Error> {
        Ok(Form {
            id: record.id.to_string(),
            owner: record.owner.clone(),
            status: record.status,
            status_message: record.status_message.as_deref().map(str::to_owned),
            created_at_ns: since_epoch(record.created_at),
            last_updated_at_ns: since_epoch(record.last_updated_at),
            ttl_ns: record.ttl.map(nanos),
            poll_interval_ns: record.poll_interval.map(nanos),
            input_requests: raw_texts(&record.input_requests)?,
            answers: raw_texts(&record.answers)?,
            asked: record.asked.keys().map(str::to_owned).collect(),
            result: record.result.as_ref().map(|r| raw(r.json())).transpose()?,
            error: record.error().cloned(),
            version: record.version,
            call: record.call.as_ref().map(|c| raw(c.json())).transpose()?,
            tool: record.tool.as_deref().map(str::to_owned),
            traceparent: record.trace_parent().map(str::to_owned),
        })
    }

    fn into_record(self) -> Result<TaskRecord, serde_json::Error> {
        Ok(TaskRecord {
            id: self.id.into(),
            owner: self.owner,
            status: self.status,
            status_message: self.status_message.map(String::into_boxed_str),
            created_at: at(self.created_at_ns),
            last_updated_at: at(self.last_updated_at_ns),
            ttl: self.ttl_ns.map(Duration::from_nanos),
            poll_interval: self.poll_interval_ns.map(Duration::from_nanos),
            input_requests: stored_texts(self.input_requests)?,
            answers: stored_texts(self.answers)?,
            asked: self.asked.into_iter().map(|key| (key, ())).collect(),
            result: self.result.map(stored).transpose()?,
            seldom: (self.error.is_some() || self.traceparent.is_some()).then(|| {
                Box::new(Seldom {
                    error: self.error,
                    trace_parent: self.traceparent.map(String::into_boxed_str),
                })
            }),
            version: self.version,
            call: self.call.map(stored).transpose()?,
            tool: self.tool.map(Into::into),
        })
    }
}

/// Texts kept by key, embedded as they are.
fn raw_texts<T>(
    texts: &ByInputKey<StoredJson<T>>,
) -> Result<BTreeMap<String, Box<RawValue>>, serde_json::Error> {
    texts
        .iter()
        .map(|(key, text)| Ok((key.to_owned(), raw(text.json())?)))
        .collect()
}

/// Embedded texts back as the record keeps them.
fn stored_texts<T>(
    texts: BTreeMap<String, Box<RawValue>>,
) -> Result<ByInputKey<StoredJson<T>>, serde_json::Error> {
    texts
        .into_iter()
        .map(|(key, text)| Ok((key, stored(text)?)))
        .collect()
}

fn raw(json: &str) -> Result<Box<RawValue>, serde_json::Error> {
    RawValue::from_string(json.to_owned())
}

fn stored<T>(raw: Box<RawValue>) -> Result<StoredJson<T>, serde_json::Error> {
    StoredJson::from_json(Box::<str>::from(raw).into_string())
}

/// Nanoseconds, saturating at `u64::MAX` (about 584 years).
fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// A time before the epoch (a clock set far back) is stored as the epoch.
fn since_epoch(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, nanos)
}

fn at(nanos: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(nanos)
}
