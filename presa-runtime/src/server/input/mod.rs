//! Asking the client for input: what a handler runs with
//! ([`Context`](crate::server::Context)), the questions it can ask (typed
//! forms and their checks), what a run asked and was answered, and the
//! Multi Round-Trip plumbing that carries answers across rounds in a
//! signed `requestState`.
//!
//! | file | what it holds |
//! |---|---|
//! | `violation` | a schema violation in plain words |
//! | `elicit` | typed elicitation: the [`Elicit`](crate::server::Elicit) trait and its answers |
//! | `form` | a compiled form, and the check of an answer against it |
//! | `verdict` | a run's input book, and the verdict on the run |
//! | `request_state` | the signed `requestState`, bound to the request |
//! | `context` | [`Context`](crate::server::Context): who is calling, and how to ask them |
//! | `mrtr` | the one pipeline `tools/call`, `prompts/get` and `resources/read` share |

pub(crate) mod context;
pub(crate) mod elicit;
pub(crate) mod form;
pub(crate) mod legacy;
pub(crate) mod question;
pub(crate) mod request_state;
pub(crate) mod verdict;
pub(crate) mod violation;
