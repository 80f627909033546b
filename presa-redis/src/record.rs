//! The JSON form of a [`TaskRecord`] in Redis: the record's own
//! (`TaskRecord` is `Serialize` and `Deserialize`), one document per task,
//! which reads back equal to what was written.

use presa_runtime::server::tasks::store::TaskRecord;

/// The record as the JSON text Redis keeps.
pub(crate) fn encode(record: &TaskRecord) -> Result<String, serde_json::Error> {
    serde_json::to_string(record)
}

/// The record from the JSON text Redis keeps.
pub(crate) fn decode(text: &str) -> Result<TaskRecord, serde_json::Error> {
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use presa_runtime::server::tasks::store::{StoredAnswer, TaskChange};
    use presa_runtime::wire::{ElicitResult, ErrorObject, InputRequest, InputResponse};
    use serde_json::{Map, Value, json};

    const ROOM: usize = 1 << 20;

    fn full_record() -> TaskRecord {
        let mut record = TaskRecord::new(
            "task-1".into(),
            Some("alice".into()),
            Some(Duration::from_millis(1500)),
            Some(Duration::from_millis(20)),
        )
        .with_tool("deploy");
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
    fn a_traced_record_that_failed_keeps_its_error_and_its_traceparent() {
        let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let mut record = full_record().with_trace_parent(Some(traceparent.into()));
        let error = ErrorObject::new(-32603, "Internal error");
        TaskChange::Fail(error.clone())
            .apply(&mut record, ROOM)
            .unwrap();
        let back = decode(&encode(&record).unwrap()).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.trace_parent(), Some(traceparent));
        assert_eq!(back.error(), Some(&error));
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
