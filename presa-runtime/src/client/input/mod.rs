//! What the client answers when a server asks for input: the handlers
//! registered on the builder, and a sampling handler's answer.
//!
//! Layers, bottom up: sampling, handlers.

mod handlers;
mod sampling;

pub use handlers::PendingInput;
pub(crate) use handlers::{Answered, Handlers, boxed};
pub(crate) use sampling::legacy_refusal;
pub use sampling::{SamplingAnswer, SamplingDeclined};
