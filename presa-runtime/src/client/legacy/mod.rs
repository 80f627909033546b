//! The client's legacy side: speaking to a server of 2025-11-25 or
//! earlier, which opens a session with `initialize` and then asks for
//! input with requests of its own.
//!
//! Everything only the legacy era needs lives here. The modern files
//! reach it through few doors: the `Legacy` variant of the era enums
//! (`era::Era`, `settlement::Settlement` with its arms in `protocol` and
//! `era_client`, and the `Session` state of `subscription`'s streams),
//! `settlement`'s fall back, the versions (`era`, `builder`), and the
//! builder's choice of [`peer`]'s answers for the connection. Dropping
//! the legacy era is dropping this folder and those. The rules, in
//! order:
//!
//! 1. the session opens once, when the era settles legacy (`handshake`),
//!    and is kept, and opened anew when the server forgets it, by
//!    `session`;
//! 2. the server's own requests (`elicitation/create`,
//!    `sampling/createMessage`, `roots/list`) are answered through the
//!    same handlers that answer a modern server's input requests
//!    (`answerer`, behind `peer`, the connection's `ServerMessages`);
//! 3. the methods both eras have keep their modern signatures, each
//!    answered by [`LegacyClient`](client::LegacyClient), the legacy
//!    `EraSide`, the legacy way:
//!    `discover` from `initialize`, a tool call in one round that asks
//!    for a task itself, a task followed through `tasks/result`, and
//!    listening to what the session sends.
//!
//! Each file knows only the files listed before it here (and the client
//! files before it in the client's own map):
//!
//! | file | what it holds |
//! |---|---|
//! | `answerer` | a legacy server's own requests, answered through the handlers |
//! | `send` | a notification of the client's, and a request nobody waits for |
//! | `streams` | the session streams: what the server sends on the session, to each listener that wants it; a stream's state |
//! | `peer` | the connection's legacy side: the answerer and the session streams, as the reader's `ServerMessages` |
//! | `handshake` | opening a legacy session: `initialize` and version negotiation |
//! | `tools` | what a legacy tool call asks and answers, and each tool's task support |
//! | `session` | the session kept, a request sent within it, the session opened anew; the fall back that opens the first |
//! | `discover` | what `initialize` said, in place of `server/discover` |
//! | `client` | [`LegacyClient`](client::LegacyClient): discovery and tool calls |
//! | `tasks` | following a 2025-11-25 task: `tasks/get`, then `tasks/result` |
//! | `listen` | `Client::listen` with a legacy server: its session's notifications |

pub(super) mod client;
mod discover;
mod listen;
mod tasks;
mod tools;
