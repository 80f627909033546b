//! The client: the server's mirror image.
//!
//! A [`Client`] sends requests over any transport, each carrying the
//! `_meta` the stateless protocol requires, and correlates responses by id.
//! Its capabilities come from the handlers registered on the
//! [`ClientBuilder`]: register an elicitation handler and the client
//! declares `elicitation`, and so on.
//!
//! # Both eras
//!
//! Most servers in use still speak the session-based revisions
//! (2025-11-25 and earlier, *legacy*). Before its first request the client
//! finds out which [`Era`] its server speaks, by the spec's probe
//! (`server/discover`, falling back to `initialize`), and keeps the answer
//! for its lifetime; [`ClientBuilder::force_era`] skips the probe. With a
//! legacy server the API stays the same: the client opens the session, its
//! handlers answer the server's own `elicitation/create`,
//! `sampling/createMessage`, `roots/list` and `ping` requests, and
//! [`Client::await_task`] follows 2025-11-25 tasks, and [`Client::listen`]
//! takes what the server sends on its session. `tasks/update`, which only
//! the modern era has, answers [`ClientError::NotInEra`] there.
//!
//! [`Client::call_tool`] drives Multi Round-Trip Requests to the end: each
//! `InputRequiredResult` is answered through the handlers and the call is
//! retried under a new id with the answers and the byte-identical
//! `requestState`. [`Client::call_tool_step`] does one round, for callers
//! that drive MRTR themselves. [`Client::get_prompt`] and
//! [`Client::read_resource`] drive their rounds the same way.
//!
//! # Listening
//!
//! [`Client::listen`] opens a `subscriptions/listen` stream for what a
//! [`SubscriptionFilter`](crate::wire::SubscriptionFilter) asks: list
//! changes of tools, prompts and resources, updates of chosen resources,
//! task states. The [`Subscription`] yields each as a
//! [`SubscriptionEvent`], and says what the server agreed to send.
//!
//! # Answering input
//!
//! A server files each input request under a key (`confirm`, `region`) and
//! may ask several of the same kind at once, so a handler receives the key
//! with the request, as a [`PendingInput`], plus the task id when a task
//! asked. Answers go back under the same keys. A sampling handler may
//! decline ([`SamplingDeclined`]); what the server hears of it depends on
//! the era.
//!
//! # Results the client does not recognize
//!
//! Every result names its kind in `resultType`; an absent one means
//! `complete`. A kind the client does not recognize, or one the method
//! cannot answer with, is a [`ClientError::InvalidResponse`] naming the
//! method and the value, never read as if it were `complete`. Only
//! [`Client::request`], which returns the raw result, leaves that to its
//! caller.
//!
//! # Tasks
//!
//! With [`ClientBuilder::tasks`] the client declares the Tasks extension
//! (`io.modelcontextprotocol/tasks`), and the server may then answer a tool
//! call with a task instead of a result. [`Client::call_tool`] therefore
//! returns a [`CallOutcome`]: either the complete result or a
//! [`TaskHandle`]. [`CallOutcome::into_complete`] suits callers that expect
//! no task.
//!
//! [`Client::await_task`] follows a task to its end: it polls `tasks/get`,
//! answers each of the task's input requests once through the handlers with
//! `tasks/update`, and returns the final result, or
//! [`ClientError::TaskFailed`] / [`ClientError::TaskCancelled`]. With
//! [`AwaitOptions::listen`](AwaitOptions::listen()) it listens for
//! `notifications/tasks` instead and polls only rarely, as a fallback. It
//! takes a bare task id, so a client that persisted the id can resume
//! after a restart.
//!
//! [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`]
//! each do one step, for callers that drive a task themselves;
//! [`Client::listen_tasks`] opens a [`TaskSubscription`] to the status
//! changes of chosen tasks.
//!
#![cfg_attr(
    feature = "skills",
    doc = "# Skills

[`Client::list_skills`] and [`Client::get_skill`] return the entries of
a server that declares the Skills extension, without reading a file.
[`Client::load_skill`] reads a skill's `SKILL.md` and checks it against
the entry; [`LoadedSkill::read`] reads its other files the same way,
when asked. A mismatch is a [`SkillError`] that names the file.
"
)]
//!
//! # Cancellation
//!
//! Dropping a request future before its answer arrives sends
//! `notifications/cancelled` for it, so `tokio::time::timeout` around a
//! call cancels it on the server too. Dropping a [`TaskSubscription`] ends
//! its `subscriptions/listen` request the same way, unless the server
//! already ended it (see [`SubscriptionEnd`]).
//!
//! # Inside the module
//!
//! Each folder is one layer, and knows only the layers below it: `link/`
//! carries the frames to the server, `input/` answers what the server
//! asks, `connection/` sends requests and routes what comes back,
//! `protocol/` settles the era and speaks it, `api/` is [`Client`]
//! itself, `tasks/` follows tasks on top of it, and `skills/` lists and
//! loads skills.
//!
//! The era is one value: once the probe settled it, the connection holds
//! it (`connection::era`), and what depends on it matches it. The reader
//! hands a legacy server's own requests and session notifications to its
//! legacy side (else `connection::ping` answers), and each [`Client`]
//! method whose meaning differs by era has one arm per era (see `api`).
//! Each layer keeps what only the legacy era needs in a `legacy/` folder
//! of its own (`link/http/legacy/` too). Dropping the legacy era is
//! dropping those folders and the `Legacy` variant of each era enum.
//!
//! Layers, bottom up: era, oauth, link, error, input, connection, protocol, api, tasks, skills, builder, prelude.

mod api;
mod builder;
mod connection;
mod era;
mod error;
mod input;
mod link;
#[cfg(feature = "oauth-client")]
pub mod oauth;
pub mod prelude;
mod protocol;
#[cfg(feature = "skills")]
mod skills;
mod tasks;

pub use api::AwaitOptions;
pub use api::{
    CallOutcome, CallStep, Client, Subscription, SubscriptionEnd, SubscriptionEvent, TaskHandle,
    TaskSubscription, ToolCall,
};
pub use builder::ClientBuilder;
pub use era::Era;
pub use error::ClientError;
pub use input::{PendingInput, SamplingAnswer, SamplingDeclined};
pub use link::ClientTransport;
#[cfg(feature = "http-client")]
pub use link::{HeaderRefused, HttpOptions};
#[cfg(feature = "skills")]
pub use skills::{
    LoadedSkill, SKILLS_LIST_MAX_ENTRIES, SKILLS_LIST_MAX_PAGES, SkillError, SkillFile,
};
