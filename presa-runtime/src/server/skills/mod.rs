//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), the
//! server side: a folder of skills, each a folder with a `SKILL.md`,
//! served as resources with a manifest a client checks.
//!
//! [`ServerBuilder::skills`](super::ServerBuilder::skills) serves a
//! [`SkillLibrary`], loaded from a folder on disk, from files embedded in
//! the binary (`presa::embed_skills!`) or from files in memory. Loading
//! checks every rule of the spec that a server can break, so a skill that
//! breaks one is a [`SkillLoadError`] at start, naming its folder, rather
//! than a surprise for the first client. The library is then
//! [an extension](super::extension) like any other:
//!
//! 1. `server/discover` advertises it with `directoryRead: true`
//!    ("Capability Negotiation"), and the `resources` capability, since
//!    every file is a resource;
//! 2. each file is a resource at `skill://<skill-path>/<file-path>`
//!    ("Resource Mapping"), read with `resources/read`; each `SKILL.md` is
//!    listed by `resources/list` with its frontmatter's `name` and
//!    `description` and `mimeType: text/markdown` ("Resource Metadata");
//!    the other files are not listed, and are read by URI;
//! 3. `skills/list` and `skills/get` return entries with the frontmatter
//!    verbatim and every file's size and SHA-256 digest ("Skill Entries",
//!    "Listing Skills", "Getting a Skill");
//! 4. `resources/directory/read` lists a folder's direct children
//!    ("Reading Directories");
//! 5. the errors are the spec's ("Error Handling"): `-32602` for a skill,
//!    a folder or a file the server does not serve.
//!
//! The content is loaded once, into memory, and never changes while the
//! server runs: a listing, an entry and a file always agree, so a
//! client's digest checks pass. Restart the server to serve new content.
//!
//! # Legacy sessions
//!
//! The extension is defined for protocol 2026-07-28. A 2025-11-25 client
//! (a legacy session) sees the skill files as the ordinary resources they
//! are: `resources/list` lists each `SKILL.md`, and `resources/read` reads
//! every file. The `skills/*` and `resources/directory/read` methods are
//! `-32601` for it, and `initialize` does not advertise the extension,
//! since that revision has no extensions in its capabilities.
//!
//! Layers, bottom up: error, disk, library, cursor, file, methods, extension.

mod cursor;
mod disk;
mod error;
mod extension;
mod file;
mod library;
mod methods;

pub use error::SkillLoadError;
pub(crate) use extension::SkillsExtension;
pub use library::{DEFAULT_SKILL_TTL, SkillLibrary};
