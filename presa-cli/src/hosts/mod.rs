//! The MCP servers that the hosts on this machine already have in their
//! configs (Claude Code, Claude Desktop, VS Code, Cursor, Gemini CLI),
//! and presa's own aliases, so that a command can name a server instead
//! of spelling out its URL or command.
//!
//! Each host keeps its servers in its own files, in its own shape, with
//! its own way of writing variables; one module per host reads its files
//! ([`formats`]), [`places`] says where they are, and [`expand`] fills in
//! variables as that host would. A server is kept as written until a command uses it
//! ([`reach()`]), so that listing servers shows no secret.
//!
//! Layers, bottom up: expand, server, places, file, entry, formats, reach, catalog.

mod catalog;
mod entry;
mod expand;
mod file;
mod formats;
mod places;
mod reach;
mod server;

pub use catalog::Catalog;
pub use places::{PRESA_CONFIG_DIR, Places, presa_config_folder};
pub use reach::{Reach, reach, why_not};
pub use server::{Configured, Launch};
