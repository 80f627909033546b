//! The names a client user reaches for first:
//! `use presa::client::prelude::*;`.
//!
//! A client connects, calls, answers the server's questions and follows
//! tasks; these are the types of those four steps. Server authors have a
//! prelude of their own (`presa::prelude`); a program that is both, such
//! as a test that drives an in-process server, imports both.

pub use super::api::AwaitOptions;
pub use super::api::{CallOutcome, Client};
pub use super::error::ClientError;
pub use super::input::PendingInput;
pub use crate::wire::{
    CallToolResult, Content, ElicitResult, GetPromptResult, PromptMessage, ReadResourceResult,
    ResourceContents, SubscriptionFilter,
};
