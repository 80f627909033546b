//! The protocol over a connection: which era the server speaks, settled
//! once by a probe (and the legacy fall back, opening a session) and then
//! held by the connection, the versions the client speaks, and reading
//! what a result says it is.
//!
//! Layers, bottom up: result, versions, probe, legacy, settlement, speaking.

mod legacy;
mod probe;
mod result;
mod settlement;
mod speaking;
mod versions;

pub(crate) use legacy::SessionStream;
pub(crate) use result::{ResultKind, expect_complete, parse_complete, parse_result, result_kind};
pub(crate) use settlement::Detection;
pub(crate) use speaking::{Protocol, ProtocolSettings};
pub(crate) use versions::Versions;
