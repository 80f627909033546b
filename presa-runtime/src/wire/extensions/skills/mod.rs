//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a
//! server publishes folders of instructions, each with a `SKILL.md`, as
//! resources, and lists them with digests a client checks.
//!
//! The skill format itself belongs to the Agent Skills specification; this
//! extension only carries it. Every file of a skill is an ordinary
//! resource, read with `resources/read`. What the extension adds is the
//! [`Skill`] entry, a complete manifest of a skill's files with sizes and
//! SHA-256 digests, and the methods that return it.
//!
//! Layers, bottom up: frontmatter, entry, methods.

mod entry;
mod frontmatter;
mod methods;

pub use entry::*;
pub use frontmatter::*;
pub use methods::*;
