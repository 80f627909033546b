//! The 2026-07-28 envelope every method shares: the per-request `_meta`,
//! `resultType`, the method names, paging, `server/discover`, the `data`
//! of errors, notifications, and the input a server asks for (MRTR).
//!
//! MCP 2026-07-28 is stateless: each request carries in its own `_meta`
//! what a session used to fix once. This folder holds that envelope, so
//! that a method's params and results in [`methods`](super::methods) only
//! add their own fields to it. It knows no single method's shape.
//!
//! Layers, bottom up: method, meta, result, error_data, page, discover, notifications, input.

mod discover;
mod error_data;
mod input;
mod meta;
mod method;
pub mod notifications;
mod page;
pub(crate) mod result;

pub use discover::*;
pub use error_data::*;
pub use input::*;
pub use meta::*;
pub use method::*;
pub use page::*;
pub use result::*;
