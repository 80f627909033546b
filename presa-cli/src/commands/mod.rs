//! The commands: each opens a [`Session`](crate::session::Session) to
//! its server, asks, prints, and says how `presa` should exit. A question
//! that went unanswered for want of a person overrides that status,
//! whatever the command came to, so that a script learns it needs an
//! `--answer`.
//!
//! Layers, bottom up: call, listing, reading, completing, utilities, watching, task, saving, skills, servers, completions, run.

mod call;
mod completing;
mod completions;
mod listing;
mod reading;
mod run;
mod saving;
mod servers;
mod skills;
mod task;
mod utilities;
mod watching;

pub use run::{dispatch, run};
