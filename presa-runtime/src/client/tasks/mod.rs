//! The client side of the Tasks extension: the one-step task requests,
//! following a task to its end, polling or listening, and how to wait
//! ([`AwaitOptions`](crate::client::AwaitOptions)), in either era.
//!
//! Layers, bottom up: requests, follow, legacy, methods.

mod follow;
mod legacy;
mod methods;
mod requests;
