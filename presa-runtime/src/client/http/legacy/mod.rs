//! The legacy side of the HTTP link (2025-11-25 and earlier): the session
//! `initialize` opens, with its session id, its GET stream and its
//! resumable streams.
//!
//! Everything only a legacy server needs lives here. The modern files
//! reach it through few doors: the link's session slot (`link`), the
//! client's messages handed here first (`dispatch`), and the link's
//! `OnClose`, built here, which ends the session with `DELETE`
//! (`dispatch`). Dropping the legacy era is dropping this folder and
//! those.
//!
//! Each file knows only the files listed before it here (and the HTTP
//! files before `link` in the link's own map):
//!
//! | file | what it holds |
//! |---|---|
//! | `session` | the legacy session: what the link keeps of it, and a stream's position |
//! | `stream` | the GET stream, resuming a stream, `DELETE` |
//! | `exchange` | the client's messages within the session: the POSTs, their answers, resumed; the session's end on close |

pub(super) mod exchange;
pub(super) mod session;
mod stream;
