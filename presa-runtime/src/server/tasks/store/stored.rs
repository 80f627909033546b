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

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::Keyed;
use crate::wire::{InputRequest, InputResponse};

/// Answers as a task keeps them, by key.
pub type StoredAnswers = Keyed<StoredAnswer>;

/// Input requests as a task keeps them, by key, until they are answered.
pub type StoredRequests = Keyed<StoredRequest>;

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
    text: Box<RawValue>,
    of: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> StoredJson<T> {
    /// `value` as JSON text.
    pub fn new(value: &T) -> Self {
        let text =
            serde_json::value::to_raw_value(value).expect("a stored value always serializes");
        StoredJson {
            text,
            of: PhantomData,
        }
    }

    /// The value, parsed.
    pub fn parse(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.text.get())
    }
}

impl<T> StoredJson<T> {
    /// A value read back from a store that keeps the text; an error if
    /// `text` is not JSON.
    pub fn from_json(text: String) -> Result<Self, serde_json::Error> {
        let text = RawValue::from_string(text)?;
        Ok(StoredJson {
            text,
            of: PhantomData,
        })
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.text.get()
    }

    /// Its length in bytes: what the value weighs in its record.
    pub fn len(&self) -> usize {
        self.text.get().len()
    }

    /// Whether the text is empty (never, for a stored value).
    pub fn is_empty(&self) -> bool {
        self.text.get().is_empty()
    }
}

impl<T> Clone for StoredJson<T> {
    fn clone(&self) -> Self {
        StoredJson {
            text: self.text.clone(),
            of: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for StoredJson<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StoredJson").field(&self.text.get()).finish()
    }
}

impl<T> PartialEq for StoredJson<T> {
    fn eq(&self, other: &Self) -> bool {
        self.text.get() == other.text.get()
    }
}
