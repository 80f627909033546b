//! The client's modern side: speaking to a server of 2026-07-28 or later,
//! where every request stands alone, carrying the client's `_meta`, and
//! the server asks for input inside its results.
//!
//! [`ModernClient`] answers the methods whose meaning differs by era the
//! modern way; each such method matches the server's era and calls it, or
//! its legacy counterpart (see `api`). The rules, in order:
//!
//! 1. `server/discover`, `tools/list`, `tools/call`, `tasks/get`,
//!    `tasks/update`, `tasks/cancel` and `subscriptions/listen` go to the
//!    server as they are, and their answers are checked here (the task
//!    requests in `tasks::requests`);
//! 2. a tool call may be a task only when the client declared the Tasks
//!    extension;
//! 3. a task is followed by polling `tasks/get`, or by listening for
//!    `notifications/tasks`, and its input is answered with `tasks/update`
//!    (`tasks::follow`).
//!
//! Layers, bottom up: methods.

mod methods;

pub(crate) use methods::ModernClient;
