//! The methods that run what the catalog holds: `tools/call`,
//! `prompts/get`, `resources/read`, `completion/complete` and
//! `subscriptions/listen`, and the Multi Round-Trip pipeline the first
//! three share.
//!
//! Layers, bottom up: mrtr, subscriptions_listen, completion_complete, prompts_get, resources_read, tools_call.

pub(crate) mod completion_complete;
pub(crate) mod mrtr;
pub(crate) mod prompts_get;
pub(crate) mod resources_read;
pub(crate) mod subscriptions_listen;
pub(crate) mod tools_call;
