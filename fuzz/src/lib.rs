//! The harnesses behind presa's fuzz targets; each target in
//! `fuzz_targets/` is one call into this crate.
//!
//! - [`dispatch`]: bytes through the newline framing and the server's
//!   connection loop, to a server with tools that elicit and run as tasks,
//!   a prompt and resources.
//! - [`parsing`]: the parsers that take input a peer controls, without a
//!   server: `requestState`, form schemas, URI templates, JSON-RPC frames
//!   and header values.

pub mod dispatch;
pub mod parsing;
