//! What every request is made of and answered with, whatever its method:
//! the errors a handler fails with, the error objects and responses the
//! server sends, the application state, the response stream, and steps 1
//! to 3 of validation.
//!
//! | file | what it holds |
//! |---|---|
//! | `error` | tool errors and the failures a run can end in |
//! | `reply` | every error object the server emits, and responses |
//! | `state` | application state shared with handlers |
//! | `stream` | [`ResponseStream`](crate::server::ResponseStream): notifications, then one response |
//! | `validate` | steps 1 to 3 of the [server docs](crate::server), once per request |

pub(crate) mod error;
pub(crate) mod reply;
pub(crate) mod state;
pub(crate) mod stream;
pub(crate) mod validate;
