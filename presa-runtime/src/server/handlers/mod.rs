//! What the application serves: tools, prompts, resources and
//! completers, the traits the macros implement, what their parameters
//! are made from, and the results they return. The methods that run them
//! are one layer up, in `methods/`, above the catalog that holds them.
//!
//! Layers, bottom up: typed_check, args, completer, extract, tool, prompt, resource, layered.

pub(crate) mod args;
pub(crate) mod completer;
pub(crate) mod extract;
pub(crate) mod layered;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod tool;
#[cfg(not(feature = "json-schema"))]
pub(crate) mod typed_check;
