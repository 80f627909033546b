//! The client side of the Skills extension (SEP-2640,
//! `io.modelcontextprotocol/skills`): listing and getting skill entries,
//! and loading a skill with every file checked against its entry.
//!
//! A skill's entry is a complete manifest of its files, with sizes and
//! SHA-256 digests. The client lists entries without reading a file, loads
//! a skill only when asked, and refuses any content that does not match
//! the entry it holds.
//!
//! Layers, bottom up: error, verify, methods, loaded.

mod error;
mod loaded;
mod methods;
mod verify;

pub use error::SkillError;
pub use loaded::{LoadedSkill, SkillFile};
pub use methods::{SKILLS_LIST_MAX_ENTRIES, SKILLS_LIST_MAX_PAGES};
