//! The in-process transport: a client and a server in one process, no
//! sockets.
//!
//! Messages still cross as serialized frames through the same connection
//! loop the other transports use, so behaviour is identical, down to the
//! parse errors.

use super::FrameChannel;
use crate::server::{Caller, Server, serve};

/// Starts serving `server` on a new in-process connection on behalf of
/// `caller`, and returns the client's end.
///
/// Must be called inside a tokio runtime.
pub fn in_process(server: &Server, caller: Caller) -> FrameChannel {
    let (client_end, server_end) = FrameChannel::pair();
    tokio::spawn(serve(server.clone(), server_end, caller));
    client_end
}
