//! A sampling handler's answer: the model's message, or the client's
//! refusal.
//!
//! The spec wants a person able to deny any sampling request. What the
//! server hears of a refusal depends on how it asked, in order:
//!
//! 1. a legacy (2025-11-25) server asks with a request of its own, and
//!    gets a JSON-RPC error for it: code `-1`, "User rejected sampling
//!    request", as that revision's spec has it, the reason (when one is
//!    given) in the error's `data`. The server then answers its call as
//!    it sees fit; presa's fails it with `-32603`, naming the refusal;
//! 2. a 2026-07-28 server asks within a tool call's result (MRTR), and no
//!    input response says no: `InputResponse` is a result. The spec's
//!    word is that the client does not retry the call, since the server
//!    is not waiting for a response; so the call ends on the client with
//!    [`ClientError::SamplingDeclined`](crate::client::ClientError::SamplingDeclined),
//!    and the server is not told;
//! 3. a task asks in its `inputRequests`, answered with `tasks/update`,
//!    whose `inputResponses` carry results only too. The declined request
//!    is left out (a server takes a partial set and keeps asking for the
//!    rest), the round's other answers still go, and waiting ends with
//!    the same error, naming the task: the task still waits for that
//!    answer, so cancel it, or answer it after all.

use crate::wire::{CreateMessageResult, ErrorObject, codes};
use serde_json::json;

/// A sampling request the client refuses: the person at it said no, or
/// its policy does. See the module docs for what the server hears.
///
/// ```
/// use presa_runtime::client::{Client, SamplingDeclined};
/// use presa_runtime::wire::CreateMessageResult;
///
/// let builder = Client::builder().on_sampling(|_| async {
///     Err::<CreateMessageResult, _>(SamplingDeclined::because("no model here"))
/// });
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SamplingDeclined {
    reason: Option<String>,
}

impl SamplingDeclined {
    /// A refusal, no reason given.
    pub fn new() -> Self {
        SamplingDeclined::default()
    }

    /// A refusal, and why: the caller's error says it, and so does the
    /// error a legacy server gets.
    pub fn because(reason: impl Into<String>) -> Self {
        SamplingDeclined {
            reason: Some(reason.into()),
        }
    }

    /// Why, if a reason was given.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Takes the reason out.
    pub(crate) fn into_reason(self) -> Option<String> {
        self.reason
    }
}

/// The error a legacy server gets for a declined request (rule 1).
pub(crate) fn legacy_refusal(reason: Option<&str>) -> ErrorObject {
    let refusal = ErrorObject::new(
        codes::USER_REJECTED_SAMPLING,
        "User rejected sampling request",
    );
    match reason {
        Some(reason) => refusal.with_data(json!({ "reason": reason })),
        None => refusal,
    }
}

/// What a sampling handler
/// ([`ClientBuilder::on_sampling`](crate::client::ClientBuilder::on_sampling))
/// answers with: a [`CreateMessageResult`], the model's message, or a
/// `Result<CreateMessageResult, SamplingDeclined>` for a handler that may
/// refuse.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an answer to a sampling request",
    label = "the sampling handler's future yields this",
    note = "answer with a `CreateMessageResult`, or with a `Result<CreateMessageResult, SamplingDeclined>` to be able to decline"
)]
pub trait SamplingAnswer: Send + 'static {
    /// The message, or the refusal.
    fn into_answer(self) -> Result<CreateMessageResult, SamplingDeclined>;
}

impl SamplingAnswer for CreateMessageResult {
    fn into_answer(self) -> Result<CreateMessageResult, SamplingDeclined> {
        Ok(self)
    }
}

impl SamplingAnswer for Result<CreateMessageResult, SamplingDeclined> {
    fn into_answer(self) -> Result<CreateMessageResult, SamplingDeclined> {
        self
    }
}
