//! The wire types of protocol extensions, one file per extension.
//!
//! An extension adds methods, notifications and fields on top of the core
//! protocol, under an identifier a peer declares. It may use every core
//! folder below it, and no core folder uses it, so an extension can be
//! added or dropped without touching the core.
//!
//! Layers, bottom up: tasks, skills, apps.

mod apps;
#[cfg(feature = "skills")]
mod skills;
mod tasks;

pub use apps::*;
#[cfg(feature = "skills")]
pub use skills::*;
pub use tasks::*;
