//! The JSON form of a [`TaskRecord`] in Redis.
//!
//! The runtime's record carries no serde derives, so this module owns the
//! stored shape: a private DTO that mirrors the record field by field. If
//! the record's fields change, only this module needs to follow.
//!
//! Times and durations are kept to the nanosecond, so that a record read
//! back equals the one written. Answers and the result are kept as the JSON
//! text the record already holds them as, embedded without re-encoding.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use presa_runtime::server::tasks::{Keyed, StoredJson, StoredResult, TaskRecord};
use presa_runtime::wire::{ErrorObject, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// One record as stored: [`TaskRecord`]'s fields, with times as
/// nanoseconds since the Unix epoch and stored JSON as raw text.
#[derive(Serialize, Deserialize)]
struct StoredRecord {
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
}

/// The record as the JSON text Redis keeps.
pub(crate) fn encode(record: &TaskRecord) -> Result<String, serde_json::Error> {
    let stored = StoredRecord {
        id: record.id.clone(),
        owner: record.owner.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        created_at_ns: since_epoch(record.created_at),
        last_updated_at_ns: since_epoch(record.last_updated_at),
        ttl_ns: record.ttl.map(nanos),
        poll_interval_ns: record.poll_interval.map(nanos),
        input_requests: raw_texts(&record.input_requests)?,
        answers: raw_texts(&record.answers)?,
        asked: record.asked.keys().cloned().collect(),
        result: record.result.as_ref().map(|r| raw(r.json())).transpose()?,
        error: record.error.clone(),
        version: record.version,
        call: record.call.as_ref().map(|c| raw(c.json())).transpose()?,
        tool: record.tool.as_deref().map(str::to_owned),
    };
    serde_json::to_string(&stored)
}

/// The record from the JSON text Redis keeps.
pub(crate) fn decode(text: &str) -> Result<TaskRecord, serde_json::Error> {
    let stored: StoredRecord = serde_json::from_str(text)?;
    Ok(TaskRecord {
        id: stored.id,
        owner: stored.owner,
        status: stored.status,
        status_message: stored.status_message,
        created_at: at(stored.created_at_ns),
        last_updated_at: at(stored.last_updated_at_ns),
        ttl: stored.ttl_ns.map(Duration::from_nanos),
        poll_interval: stored.poll_interval_ns.map(Duration::from_nanos),
        input_requests: stored_texts(stored.input_requests)?,
        answers: stored_texts(stored.answers)?,
        asked: stored.asked.into_iter().map(|key| (key, ())).collect(),
        result: stored
            .result
            .map(|text| StoredResult::from_json(text_of(text)))
            .transpose()?,
        error: stored.error,
        version: stored.version,
        call: stored
            .call
            .map(|text| StoredJson::from_json(text_of(text)))
            .transpose()?,
        tool: stored.tool.map(Into::into),
    })
}

/// Texts kept by key, embedded as they are.
fn raw_texts<T>(
    texts: &Keyed<StoredJson<T>>,
) -> Result<BTreeMap<String, Box<RawValue>>, serde_json::Error> {
    texts
        .iter()
        .map(|(key, text)| Ok((key.clone(), raw(text.json())?)))
        .collect()
}

/// Embedded texts back as the record keeps them.
fn stored_texts<T>(
    texts: BTreeMap<String, Box<RawValue>>,
) -> Result<Keyed<StoredJson<T>>, serde_json::Error> {
    texts
        .into_iter()
        .map(|(key, text)| Ok((key, StoredJson::from_json(text_of(text))?)))
        .collect()
}

fn raw(json: &str) -> Result<Box<RawValue>, serde_json::Error> {
    RawValue::from_string(json.to_owned())
}

fn text_of(raw: Box<RawValue>) -> String {
    Box::<str>::from(raw).into_string()
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

#[cfg(test)]
mod tests {
    use super::*;
    use presa_runtime::server::tasks::{StoredAnswer, TaskChange};
    use presa_runtime::wire::{ElicitResult, InputRequest, InputResponse};
    use serde_json::{Map, Value, json};

    const ROOM: usize = 1 << 20;

    fn full_record() -> TaskRecord {
        let mut record = TaskRecord::new(
            "task-1".into(),
            Some("alice".into()),
            Some(Duration::from_millis(1500)),
            Some(Duration::from_millis(20)),
        );
        record.tool = Some("deploy".into());
        let requests = [
            ("a", InputRequest::ListRoots),
            ("b", InputRequest::ListRoots),
        ]
        .into_iter()
        .map(|(k, r)| (k.to_owned(), r))
        .collect();
        TaskChange::RequestInput(requests)
            .apply(&mut record, ROOM)
            .unwrap();
        let answer = InputResponse::Elicit(ElicitResult::accept(json!({"ok": "yes"})));
        let answers = [("a".to_owned(), StoredAnswer::new(&answer))]
            .into_iter()
            .collect();
        TaskChange::Answer(answers)
            .apply(&mut record, ROOM)
            .unwrap();
        TaskChange::StatusMessage(Some("halfway".into()))
            .apply(&mut record, ROOM)
            .unwrap();
        record
    }

    #[test]
    fn a_running_record_reads_back_equal() {
        let record = full_record();
        assert_eq!(decode(&encode(&record).unwrap()).unwrap(), record);
    }

    #[test]
    fn a_completed_record_keeps_its_result_text() {
        let mut record = full_record();
        let Value::Object(result) = json!({"content": [], "isError": false}) else {
            unreachable!()
        };
        TaskChange::Complete(result.clone())
            .apply(&mut record, ROOM)
            .unwrap();
        let back = decode(&encode(&record).unwrap()).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.result(), Some(result));
    }

    #[test]
    fn a_failed_record_keeps_its_error() {
        let mut record = full_record();
        let error = ErrorObject::new(-32603, "Internal error");
        TaskChange::Fail(error).apply(&mut record, ROOM).unwrap();
        assert_eq!(decode(&encode(&record).unwrap()).unwrap(), record);
    }

    #[test]
    fn an_anonymous_record_without_ttl_reads_back_equal() {
        let mut record = TaskRecord::new("t".into(), None, None, None);
        TaskChange::Complete(Map::new())
            .apply(&mut record, ROOM)
            .unwrap();
        assert_eq!(decode(&encode(&record).unwrap()).unwrap(), record);
    }

    #[test]
    fn text_that_is_no_record_is_an_error() {
        assert!(decode("{\"id\": 1}").is_err());
        assert!(decode("not json").is_err());
    }
}
