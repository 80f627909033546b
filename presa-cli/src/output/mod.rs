//! What `presa` writes to the terminal: the server's text made safe to
//! show ([`shown`]), the progress line on stderr while a task runs
//! ([`status_line`]), and what a command prints on stdout ([`render`]).
//!
//! Whatever comes from the server passes through [`shown`] before it
//! reaches the terminal, so a server cannot make the terminal act on its
//! text.
//!
//! Layers, bottom up: shown, status_line, render.

pub mod render;
pub mod shown;
pub mod status_line;
