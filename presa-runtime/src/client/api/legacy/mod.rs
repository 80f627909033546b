//! The API's legacy side: the methods whose meaning differs by era, as a
//! server of 2025-11-25 or earlier takes them, within the session it
//! opened with `initialize`.
//!
//! The legacy era lives in one `legacy/` folder per layer: the
//! connection's (a legacy server's own requests and its session's
//! notifications), the protocol's (the session, opened and kept), this
//! one, and the tasks' (following a 2025-11-25 task). The rules, in order:
//!
//! 1. the session opens once, when the era settles legacy, and is kept,
//!    and opened anew when the server forgets it (`protocol::legacy`);
//! 2. the server's own requests (`elicitation/create`,
//!    `sampling/createMessage`, `roots/list`) are answered through the
//!    same handlers that answer a modern server's input requests
//!    (`connection::legacy`);
//! 3. the methods both eras have keep their modern signatures, each
//!    answered by [`LegacyClient`], their legacy arm, the legacy way:
//!    `discover` from `initialize`, a tool call in one round that asks
//!    for a task itself, and listening to what the session sends; a task
//!    is followed through `tasks/result` (`tasks::legacy`).
//!
//! Layers, bottom up: tools, discover, methods, listen.

mod discover;
mod listen;
mod methods;
mod tools;

pub(crate) use methods::LegacyClient;
