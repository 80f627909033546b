//! What every request is made of and answered with, whatever its method:
//! the errors a handler fails with, the error objects and responses the
//! server sends, the application state, the response stream, and steps 1
//! to 3 of validation.
//!
//! Layers, bottom up: error, state, stream, reply, validate.

pub(crate) mod error;
pub(crate) mod reply;
pub(crate) mod state;
pub(crate) mod stream;
pub(crate) mod validate;
