//! What the server offers now: live lists of tools, prompts and resources
//! that the application changes while the server runs, and the feed of
//! those changes that `subscriptions/listen` follows.
//!
//! Layers, bottom up: changes, paged, registered, registry.

pub(crate) mod changes;
pub(crate) mod paged;
pub(crate) mod registered;
pub(crate) mod registry;
