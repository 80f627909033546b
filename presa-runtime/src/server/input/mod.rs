//! Asking the client for input: what a handler runs with
//! ([`Context`](crate::server::Context)), the questions it can ask (typed
//! forms and their checks), what a run asked and was answered, and the
//! signed `requestState` that carries answers across Multi Round-Trip
//! rounds. A legacy session asks with requests of the server's own
//! instead (`legacy/`).
//!
//! Layers, bottom up: elicit, legacy, request_state, verdict, violation, form_check, form, question, context.

pub(crate) mod context;
pub(crate) mod elicit;
pub(crate) mod form;
#[cfg(not(feature = "json-schema"))]
pub(crate) mod form_check;
pub(crate) mod legacy;
pub(crate) mod question;
pub(crate) mod request_state;
pub(crate) mod verdict;
pub(crate) mod violation;
