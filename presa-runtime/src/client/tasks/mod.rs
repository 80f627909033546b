//! The client side of the Tasks extension: the one-step task requests,
//! following a task to its end, polling or listening, and how to wait
//! ([`AwaitOptions`]), in either era.
//!
//! Layers, bottom up: await_options, requests, follow, legacy, methods.

mod await_options;
mod follow;
mod legacy;
mod methods;
mod requests;

pub use await_options::AwaitOptions;
