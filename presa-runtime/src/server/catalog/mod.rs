//! What the server offers now: live lists of tools, prompts and resources
//! that the application changes while the server runs, and the feed of
//! those changes that `subscriptions/listen` follows.
//!
//! | file | what it holds |
//! |---|---|
//! | `paged` | a list that can change while it is paged, with cursors that stay valid |
//! | `changes` | the bounded feed of changes |
//! | `registered` | an entry checked once, at registration |
//! | `registry` | the live catalogs, their pages and the capabilities they add up to |

pub(crate) mod changes;
pub(crate) mod paged;
pub(crate) mod registered;
pub(crate) mod registry;
