//! Reading what a server answered: its `resultType`, then its payload.
//!
//! Every 2026-07-28 result names its kind in `resultType`. The client must
//! treat a kind it does not recognize as invalid, and an absent one as
//! `complete` (servers of earlier revisions send none). Every method the
//! client interprets reads the kind here, so that rule holds in one place:
//! a server that invents a kind gets the same [`ClientError::InvalidResponse`]
//! whichever method it answered.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::error::ClientError;
use crate::wire::{ResultType, strict};

/// A `resultType` this client recognizes. Unlike [`ResultType`], which
/// keeps any string it reads, it has no room for an unknown kind: reading
/// one is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultKind {
    /// The final result.
    Complete,
    /// An `InputRequiredResult`: answer its input requests and retry.
    InputRequired,
    /// The Tasks extension's `CreateTaskResult`.
    Task,
}

impl ResultKind {
    fn as_str(self) -> &'static str {
        match self {
            ResultKind::Complete => "complete",
            ResultKind::InputRequired => "input_required",
            ResultKind::Task => "task",
        }
    }
}

/// The kind of `result`, the answer to `method`: `complete` when absent,
/// [`ClientError::InvalidResponse`] when it is not a kind this client knows.
pub(crate) fn result_kind(method: &str, result: &Value) -> Result<ResultKind, ClientError> {
    let Some(value) = result.get("resultType") else {
        return Ok(ResultKind::Complete);
    };
    let invalid = |what: String| ClientError::InvalidResponse(format!("{method}: {what}"));
    match ResultType::deserialize(value) {
        Ok(ResultType::Complete) => Ok(ResultKind::Complete),
        Ok(ResultType::InputRequired) => Ok(ResultKind::InputRequired),
        Ok(ResultType::Task) => Ok(ResultKind::Task),
        Ok(ResultType::Other(unknown)) => Err(invalid(format!(
            "the server answered with resultType `{unknown}`, which this client does not recognize"
        ))),
        Err(_) => Err(invalid(format!(
            "the server answered with resultType {value}, which is not a string"
        ))),
    }
}

/// Checks that `result`, the answer to `method`, is a `complete` result:
/// the only kind a method without input rounds or tasks may answer with.
pub(crate) fn expect_complete(method: &str, result: &Value) -> Result<(), ClientError> {
    match result_kind(method, result)? {
        ResultKind::Complete => Ok(()),
        other => Err(ClientError::InvalidResponse(format!(
            "{method}: the server answered with resultType `{}`, where only `complete` is valid",
            other.as_str()
        ))),
    }
}

/// [`expect_complete`], then the payload as a `T`.
pub(crate) fn parse_complete<T: DeserializeOwned>(
    method: &str,
    result: Value,
) -> Result<T, ClientError> {
    expect_complete(method, &result)?;
    parse_result(result)
}

/// The payload of a result whose kind the caller already checked, read
/// [strictly](crate::wire::strict) as everything from the peer is.
pub(crate) fn parse_result<T: DeserializeOwned>(result: Value) -> Result<T, ClientError> {
    strict::from_value(result).map_err(|e| ClientError::InvalidResponse(e.to_string()))
}
