//! [`TaskChange`]: the one state machine of a task, which every store
//! applies.
//!
//! A store never decides what a change does: it reads the record, hands
//! it to [`TaskChange::apply`] with the room the record has, and writes
//! back what comes out, atomically (a lock in memory, a compare-and-set on
//! the version in Redis). So the rules of a task live here once, and a
//! new store cannot get them subtly wrong. In order:
//!
//! 1. A terminal task (`completed`, `failed`, `cancelled`) accepts no
//!    change.
//! 2. A change that needs more room than the record has is not applied as
//!    it is: answers are refused ([`AnswersTooLarge`]) and the task waits
//!    on; input requests or a result fail the task, saying why.
//! 3. A key is never asked twice: answered keys are not listed again, and
//!    answers to keys not outstanding are ignored.
//! 4. A change that changed something bumps the version and the time of
//!    the last update; one that changed nothing leaves the record as it
//!    was, and a store publishes nothing for it.

use std::time::SystemTime;

use serde_json::{Map, Value};

use super::record::TaskRecord;
use super::stored::{StoredAnswers, StoredRequest, StoredResult};
use crate::server::request::reply::task_record_full;
use crate::wire::{ErrorObject, InputRequests, TaskStatus, json_len};

/// One change to a task. Terminal tasks accept none.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskChange {
    /// The handler asks for input: lists the requests whose keys are
    /// neither answered nor already listed, and moves the task to
    /// `input_required`. A key withdrawn unanswered is listed again: the
    /// handler is waiting for it, and `inputRequests` must show every
    /// request it waits for.
    RequestInput(InputRequests),
    /// `tasks/update`: keeps the answers to outstanding keys and ignores the
    /// rest; once nothing is outstanding the task is `working` again.
    Answer(StoredAnswers),
    /// The handler stopped waiting for these keys (it dropped their
    /// futures): they are no longer outstanding, and answers to them are
    /// ignored until they are asked again. With nothing left outstanding
    /// the task is `working`.
    Withdraw(Vec<String>),
    /// The handler's note on the current status.
    StatusMessage(Option<String>),
    /// The handler returned a result.
    Complete(Map<String, Value>),
    /// The handler failed with a JSON-RPC error.
    Fail(ErrorObject),
    /// `tasks/cancel`.
    Cancel,
}

/// Answers that would take a task's record past the room it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("the answers would take the task past the {room} bytes it may hold")]
pub struct AnswersTooLarge {
    /// The bytes the record may weigh.
    pub room: usize,
}

impl TaskChange {
    /// Applies the change to `record`; returns whether anything changed.
    /// A change bumps `version` and `last_updated_at`.
    ///
    /// `room` is what the record may weigh afterwards (see
    /// [`TaskRecord::weight`]): the record limit, or less when the store is
    /// nearly full. A change that needs more is not applied as it is:
    ///
    /// - answers are refused, with [`AnswersTooLarge`]: the client sent too
    ///   much, and the task goes on waiting;
    /// - input requests and a result fail the task instead, with a message
    ///   that says so: the tool made something the server cannot keep.
    ///
    /// Every store applies changes through this function, so the rules of
    /// the state machine live in one place.
    pub fn apply(self, record: &mut TaskRecord, room: usize) -> Result<bool, AnswersTooLarge> {
        if record.status.is_terminal() {
            return Ok(false);
        }
        let change = self.within(record, room)?;
        let changed = match change {
            TaskChange::RequestInput(requests) => request_input(record, requests),
            TaskChange::Answer(answers) => answer(record, answers),
            TaskChange::Withdraw(keys) => withdraw(record, keys),
            TaskChange::StatusMessage(message) => {
                let changed = record.status_message.as_deref() != message.as_deref();
                record.status_message = message.map(String::into_boxed_str);
                changed
            }
            TaskChange::Complete(result) => {
                finish(record, TaskStatus::Completed);
                record.result = Some(StoredResult::new(&result));
                true
            }
            TaskChange::Fail(error) => {
                finish(record, TaskStatus::Failed);
                record.status_message = Some(format!("The tool failed: {}", error.message).into());
                record.seldom_mut().error = Some(error);
                true
            }
            TaskChange::Cancel => {
                finish(record, TaskStatus::Cancelled);
                record.status_message = Some("Cancelled at the client's request".into());
                true
            }
        };
        if changed {
            record.version += 1;
            record.last_updated_at = SystemTime::now().max(record.last_updated_at);
        }
        Ok(changed)
    }

    /// The change itself when the record has room for what it adds;
    /// otherwise what the rules above make of it.
    fn within(self, record: &TaskRecord, room: usize) -> Result<TaskChange, AnswersTooLarge> {
        let added = match &self {
            TaskChange::RequestInput(requests) => {
                let new: InputRequests = requests
                    .iter()
                    .filter(|(k, _)| {
                        !record.answers.contains_key(k) && !record.input_requests.contains_key(k)
                    })
                    .map(|(k, r)| (k.clone(), r.clone()))
                    .collect();
                requests_weight(&new) + new.keys().map(String::len).sum::<usize>()
            }
            TaskChange::Answer(answers) => answers
                .iter()
                .filter(|(k, _)| record.input_requests.contains_key(k))
                .map(|(k, a)| k.len() + a.len())
                .sum(),
            TaskChange::Complete(result) => json_len(result),
            _ => return Ok(self),
        };
        if added == 0 || record.weight() + added <= room {
            return Ok(self);
        }
        match self {
            TaskChange::Answer(_) => Err(AnswersTooLarge { room }),
            TaskChange::RequestInput(_) => Ok(TaskChange::Fail(task_record_full(
                "the tool's input requests",
                room,
            ))),
            _ => Ok(TaskChange::Fail(task_record_full(
                "the tool's result",
                room,
            ))),
        }
    }
}

fn request_input(record: &mut TaskRecord, requests: InputRequests) -> bool {
    let mut changed = false;
    for (key, request) in requests {
        record.asked.insert(&key, ());
        if record.answers.contains_key(&key) || record.input_requests.contains_key(&key) {
            continue;
        }
        record
            .input_requests
            .insert(key, StoredRequest::question(&request));
        changed = true;
    }
    if changed {
        record.status = TaskStatus::InputRequired;
    }
    changed
}

fn answer(record: &mut TaskRecord, answers: StoredAnswers) -> bool {
    let mut changed = false;
    for (key, answer) in answers.into_entries() {
        if record.input_requests.remove(&key).is_some() {
            record.answers.insert(key, answer);
            changed = true;
        }
    }
    if changed && record.input_requests.is_empty() {
        record.status = TaskStatus::Working;
    }
    changed
}

fn withdraw(record: &mut TaskRecord, keys: Vec<String>) -> bool {
    let before = record.input_requests.len();
    for key in keys {
        record.input_requests.remove(&key);
    }
    let changed = record.input_requests.len() != before;
    if changed && record.input_requests.is_empty() {
        record.status = TaskStatus::Working;
    }
    changed
}

fn finish(record: &mut TaskRecord, status: TaskStatus) {
    record.status = status;
    record.input_requests.clear();
}

fn requests_weight(requests: &InputRequests) -> usize {
    requests.iter().map(|(k, r)| k.len() + json_len(r)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::task_engine::store::{StoredAnswer, StoredRequest};
    use crate::wire::{ElicitResult, InputRequest, InputResponse};
    use serde_json::json;

    const ROOM: usize = 1 << 20;

    fn record() -> TaskRecord {
        TaskRecord::new("t".into(), None, None, None)
    }

    #[test]
    fn a_completed_result_is_kept_as_text_and_read_back_whole() {
        let mut completed = record();
        let result = json!({"content": [{"type": "text", "text": "done"}], "isError": false});
        let Value::Object(result) = result else {
            unreachable!()
        };
        TaskChange::Complete(result.clone())
            .apply(&mut completed, ROOM)
            .unwrap();
        let stored = completed.result.as_ref().unwrap();
        assert_eq!(stored.len(), serde_json::to_string(&result).unwrap().len());
        assert_eq!(completed.result(), Some(result.clone()));
        assert_eq!(completed.to_detailed().result, Some(result));
    }

    #[test]
    fn a_stored_result_that_no_longer_parses_reads_as_none() {
        let mut damaged = record();
        damaged.status = TaskStatus::Completed;
        damaged.result = Some(StoredResult::from_json("[1, 2]".into()).unwrap());
        assert_eq!(damaged.result(), None);
        assert_eq!(damaged.to_detailed().result, Some(Map::new()));
        assert!(StoredResult::from_json("{not json".into()).is_err());
    }

    #[test]
    fn a_request_kept_as_text_reads_back_whole_and_weighs_its_text() {
        let mut task = record();
        let form = InputRequest::Elicit(crate::wire::ElicitRequestParams::Form {
            message: "Go ahead?".into(),
            requested_schema: json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
            }),
        });
        let asked = InputRequests::from([("confirm".to_owned(), form)]);
        let before = task.weight();
        TaskChange::RequestInput(asked.clone())
            .apply(&mut task, ROOM)
            .unwrap();
        assert_eq!(task.requests(), asked);
        assert_eq!(task.to_detailed().input_requests, Some(asked.clone()));
        assert_eq!(
            task.weight() - before,
            2 * "confirm".len() + json_len(&asked["confirm"])
        );
    }

    #[test]
    fn a_stored_request_that_no_longer_parses_is_left_out() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a", "b"]))
            .apply(&mut task, ROOM)
            .unwrap();
        let damaged = StoredRequest::from_json("[1, 2]".into()).unwrap();
        task.input_requests.insert("a", damaged);
        assert_eq!(task.requests().keys().collect::<Vec<_>>(), ["b"]);
    }

    fn requests(keys: &[&str]) -> InputRequests {
        keys.iter()
            .map(|k| (k.to_string(), InputRequest::ListRoots))
            .collect()
    }

    fn answers(keys: &[&str]) -> StoredAnswers {
        keys.iter()
            .map(|k| {
                let answer = InputResponse::Elicit(ElicitResult::accept(json!({})));
                (k.to_string(), StoredAnswer::new(&answer))
            })
            .collect()
    }

    #[test]
    fn partial_answers_keep_the_task_waiting() {
        let mut task = record();
        assert!(
            TaskChange::RequestInput(requests(&["a", "b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(
            TaskChange::Answer(answers(&["a", "zzz"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        assert!(!task.answers.contains_key("zzz"));
        assert!(
            TaskChange::Answer(answers(&["b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert_eq!(task.version, 3);
    }

    #[test]
    fn answered_and_unknown_keys_change_nothing() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        TaskChange::Answer(answers(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        let before = task.clone();
        assert!(
            !TaskChange::Answer(answers(&["a", "b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task, before);
    }

    #[test]
    fn a_key_is_never_asked_twice() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        TaskChange::Answer(answers(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(
            !TaskChange::RequestInput(requests(&["a"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
    }

    #[test]
    fn withdrawn_keys_stop_being_outstanding_but_stay_asked() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a", "b"]))
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(
            TaskChange::Withdraw(vec!["b".into(), "zzz".into()])
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(
            TaskChange::Withdraw(vec!["a".into()])
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.asked.contains_key("a") && task.asked.contains_key("b"));
        assert!(
            !TaskChange::Answer(answers(&["b"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
    }

    #[test]
    fn a_withdrawn_key_asked_again_is_listed_again() {
        // A handler that gave up on `a` (a timeout) and then asks for it
        // again waits for it: the task must list it, or it parks forever.
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        TaskChange::Withdraw(vec!["a".into()])
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(
            TaskChange::RequestInput(requests(&["a"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert!(task.input_requests.contains_key("a"));
        assert!(
            TaskChange::Answer(answers(&["a"]))
                .apply(&mut task, ROOM)
                .unwrap()
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.answers.contains_key("a"));
    }

    #[test]
    fn terminal_tasks_accept_no_change() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        assert!(TaskChange::Cancel.apply(&mut task, ROOM).unwrap());
        assert!(task.input_requests.is_empty());
        for change in [
            TaskChange::Cancel,
            TaskChange::Complete(Map::new()),
            TaskChange::Answer(answers(&["a"])),
            TaskChange::StatusMessage(Some("x".into())),
        ] {
            assert!(!change.apply(&mut task, ROOM).unwrap());
        }
        assert_eq!(task.status, TaskStatus::Cancelled);
    }

    #[test]
    fn the_detailed_task_carries_only_its_status_payload() {
        let mut task = record();
        TaskChange::RequestInput(requests(&["a"]))
            .apply(&mut task, ROOM)
            .unwrap();
        let detailed = task.to_detailed();
        assert!(detailed.input_requests.is_some() && detailed.result.is_none());
        TaskChange::Complete(Map::new())
            .apply(&mut task, ROOM)
            .unwrap();
        let detailed = task.to_detailed();
        assert!(detailed.input_requests.is_none() && detailed.result.is_some());
        assert!(detailed.task.created_at.ends_with('Z'));
    }
}
