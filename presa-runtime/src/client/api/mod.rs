//! The client's API: [`Client`] and what its methods take and return
//! (a tool call and what it came to, a listen stream), the methods whose
//! meaning is the same in either era, and the era seam that answers the
//! others (`dispatch`, with a side per era in `modern/` and `legacy/`).
//!
//! Layers, bottom up: await_options, call, client, subscription, era_side, modern, legacy, surface, tools, dispatch.

mod await_options;
mod call;
mod client;
mod dispatch;
mod era_side;
mod legacy;
mod modern;
mod subscription;
mod surface;
mod tools;

pub use await_options::AwaitOptions;
pub(crate) use call::poll_interval;
pub use call::{CallOutcome, CallStep, TaskHandle, ToolCall};
pub use client::Client;
pub(crate) use legacy::LegacyClient;
pub(crate) use modern::ModernClient;
pub use subscription::{Subscription, SubscriptionEnd, SubscriptionEvent, TaskSubscription};
