//! [`StoredJson`]: a value a task keeps as the JSON text it came as.
//!
//! A task's record holds questions (form schemas), answers, a result and
//! a resumable call, any of which may be large and is read far less often
//! than it is kept. Parsed into `serde_json` maps, each costs many times
//! its text (every object is a map with room for eleven entries); as text
//! it costs exactly its length, which is also what a record
//! [weighs](super::TaskRecord::weight) and what a durable store writes out
//! anyway. So a record keeps them as text, and parses them only when the
//! handler or a client reads them.
//!
//! A store that persists records writes [`StoredJson::json`] and reads it
//! back with [`StoredJson::from_json`]; it never needs the parsed value.
//!
//! The text is shared (an `Arc`), so a record changed while someone reads
//! the previous version copies no text. A question is also shared with
//! the last identical one its thread stored ([`StoredRequest::question`]):
//! the tasks of one tool mostly ask the same thing, and a thousand of them
//! parked at it hold one copy, as does the handler that waits for its
//! answer.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::by_input_key::ByInputKey;
use crate::util::{LastSeen, shared_with_last};
use crate::wire::{InputRequest, InputResponse};

/// Answers as a task keeps them, by key.
pub type StoredAnswers = ByInputKey<StoredAnswer>;

/// Input requests as a task keeps them, by key, until they are answered.
pub type StoredRequests = ByInputKey<StoredRequest>;

/// One input request, kept as JSON text: a parked task keeps its question
/// until the user answers, which may be never.
pub type StoredRequest = StoredJson<InputRequest>;

/// One answer, kept as the JSON text it arrived as, and parsed only when
/// the handler reads it.
pub type StoredAnswer = StoredJson<InputResponse>;

/// A completed task's result, kept as JSON text: a finished task is read
/// far less often than it is kept.
pub type StoredResult = StoredJson<Map<String, Value>>;

/// A `T` kept as its JSON text, parsed back on demand.
pub struct StoredJson<T> {
    /// Always JSON: made by serializing, or checked when read back.
    text: Arc<str>,
    of: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> StoredJson<T> {
    /// `value` as JSON text.
    pub fn new(value: &T) -> Self {
        StoredJson::with_text(serialized(value).into())
    }

    /// The value, parsed.
    pub fn parse(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.text)
    }
}

impl StoredRequest {
    /// `request` as JSON text, shared with the last question this thread
    /// stored when it is the same.
    pub fn question(request: &InputRequest) -> Self {
        thread_local! {
            static LAST: LastSeen<str> = const { RefCell::new(None) };
        }
        let text = serialized(request);
        StoredJson::with_text(
            LAST.with(|last| shared_with_last(last, text.as_str(), |text| Arc::from(text))),
        )
    }
}

impl<T> StoredJson<T> {
    fn with_text(text: Arc<str>) -> Self {
        StoredJson {
            text,
            of: PhantomData,
        }
    }

    /// A value read back from a store that keeps the text; an error if
    /// `text` is not JSON.
    pub fn from_json(text: String) -> Result<Self, serde_json::Error> {
        serde_json::from_str::<&RawValue>(&text)?;
        Ok(StoredJson::with_text(text.into()))
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        &self.text
    }

    /// Its length in bytes: what the value weighs in its record.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether the text is empty (never, for a stored value).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// `value`'s JSON text.
fn serialized<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("a stored value always serializes")
}

impl<T> Clone for StoredJson<T> {
    fn clone(&self) -> Self {
        StoredJson::with_text(Arc::clone(&self.text))
    }
}

impl<T> std::fmt::Debug for StoredJson<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StoredJson").field(&&*self.text).finish()
    }
}

impl<T> PartialEq for StoredJson<T> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ElicitRequestParams, InputRequest};
    use serde_json::json;

    fn confirm(message: &str) -> InputRequest {
        InputRequest::Elicit(ElicitRequestParams::Form {
            message: message.into(),
            requested_schema: json!({"type": "object", "properties": {}}),
        })
    }

    #[test]
    fn the_same_question_twice_is_kept_once_and_another_apart() {
        let first = StoredRequest::question(&confirm("Build?"));
        let again = StoredRequest::question(&confirm("Build?"));
        let other = StoredRequest::question(&confirm("Deploy?"));

        assert!(Arc::ptr_eq(&first.text, &again.text));
        assert!(!Arc::ptr_eq(&first.text, &other.text));
        assert_eq!(other.parse().unwrap(), confirm("Deploy?"));
    }

    #[test]
    fn text_read_back_must_be_json() {
        assert!(StoredResult::from_json("{\"content\":[]}".into()).is_ok());
        let error = StoredResult::from_json("{\"content\":".into()).unwrap_err();
        assert!(error.is_eof(), "{error}");
    }
}
