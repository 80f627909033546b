//! The params and results of the core methods, one file per method
//! family: tools, prompts, resources, completion and subscriptions.
//!
//! Each family builds on the shared envelope in
//! [`protocol`](super::protocol) and the values in
//! [`values`](super::values). A family may use another one only where the
//! specification nests it (a resource update names a subscription).
//!
//! Layers, bottom up: subscriptions, completion, tools, prompts, resources.

mod completion;
mod prompts;
mod resources;
mod subscriptions;
mod tools;

pub use completion::*;
pub use prompts::*;
pub use resources::*;
pub use subscriptions::*;
pub use tools::*;
