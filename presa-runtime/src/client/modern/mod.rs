//! The client's modern side: speaking to a server of 2026-07-28 or later,
//! where every request stands alone, carrying the client's `_meta`, and
//! the server asks for input inside its results.
//!
//! [`ModernClient`](client::ModernClient) answers the methods whose
//! meaning differs by era the modern way; `era_client` chooses it, or its
//! legacy counterpart, once per call. The rules, in order:
//!
//! 1. `server/discover`, `tools/list`, `tools/call`, `tasks/get`,
//!    `tasks/update`, `tasks/cancel` and `subscriptions/listen` go to the
//!    server as they are, and their answers are checked here;
//! 2. a tool call may be a task only when the client declared the Tasks
//!    extension;
//! 3. a task is followed by polling `tasks/get`, or by listening for
//!    `notifications/tasks`, and its input is answered with `tasks/update`
//!    (`follow`).
//!
//! Each file knows only the files listed before it here:
//!
//! | file | what it holds |
//! |---|---|
//! | `client` | [`ModernClient`](client::ModernClient): discovery, tool calls, listening |
//! | `tasks` | the one-step task requests: `tasks/get`, `tasks/update`, `tasks/cancel` |
//! | `follow` | following a task to its end, polling or listening |

pub(super) mod client;
mod follow;
mod tasks;
