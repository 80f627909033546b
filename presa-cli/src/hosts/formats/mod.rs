//! One module per host's file format: which tables of the file hold
//! servers, in which scope, with which variable syntax and which rule for
//! the transport. The entries themselves are read the same way for every
//! host ([`entry`](super::entry)).
//!
//! Layers, bottom up: aliases, claude_code, claude_desktop, cursor, gemini, vscode.

pub mod aliases;
pub mod claude_code;
pub mod claude_desktop;
pub mod cursor;
pub mod gemini;
pub mod vscode;
