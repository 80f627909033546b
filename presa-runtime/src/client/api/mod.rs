//! The client's API: [`Client`] and what its methods take and return
//! (a tool call and what it came to, a listen stream), the methods whose
//! meaning is the same in either era, and those whose meaning differs,
//! each with a side per era in `modern/` and `legacy/`.
//!
//! Most methods mean the same in either era, and the protocol gives each
//! request the shape its era wants. The others (discovery, tool listing
//! and calls, tasks, listening) are done differently by a legacy server.
//! The rules, in order:
//!
//! 1. such a method matches the server's era
//!    ([`Client::server_era`]), and each arm calls that era's side, which
//!    takes and returns the same types;
//! 2. a method the legacy era lacks (`tasks/update`) is
//!    [`ClientError::NotInEra`](crate::client::ClientError::NotInEra)
//!    there;
//! 3. the era is settled before the match (by the first request of the
//!    client, or by this one), and the match holds for the call;
//! 4. `ModernClient` speaks to a modern server, `LegacyClient` within a
//!    legacy server's session.
//!
//! Layers, bottom up: await_options, call, client, subscription, modern, legacy, surface, tools, utilities.

mod await_options;
mod call;
mod client;
mod legacy;
mod modern;
mod subscription;
mod surface;
mod tools;
mod utilities;

pub use await_options::AwaitOptions;
pub(crate) use call::poll_interval;
pub use call::{CallOutcome, CallStep, TaskHandle, ToolCall};
pub use client::Client;
pub(crate) use legacy::LegacyClient;
pub(crate) use modern::ModernClient;
pub use subscription::{Subscription, SubscriptionEnd, SubscriptionEvent, TaskSubscription};
