//! The client: the server's mirror image.
//!
//! A [`Client`] sends requests over any transport, each carrying the
//! `_meta` the stateless protocol requires, and correlates responses by id.
//! Its capabilities come from the handlers registered on the
//! [`ClientBuilder`]: register an elicitation handler and the client
//! declares `elicitation`, and so on.
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
//! asked. Answers go back under the same keys.
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
//! [`AwaitOptions::listen`] it listens for `notifications/tasks` instead and
//! polls only rarely, as a fallback. It takes a bare task id, so a client
//! that persisted the id can resume after a restart.
//!
//! [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`]
//! each do one step, for callers that drive a task themselves;
//! [`Client::listen_tasks`] opens a [`TaskSubscription`] to the status
//! changes of chosen tasks.
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
//! Each file knows only the files listed before it here, so the client has
//! no import cycles:
//!
//! | file | what it holds |
//! |---|---|
//! | `http` | Streamable HTTP (feature `http-client`): the link from frames to POSTs |
//! | `error`, `transport` | [`ClientError`]; [`ClientTransport`] |
//! | `result` | reading `resultType`: the one check every method goes through |
//! | `handlers` | the input handlers, [`PendingInput`], and the capabilities they imply |
//! | `call` | [`ToolCall`], [`CallStep`], [`CallOutcome`], [`TaskHandle`]: a call and what it came to |
//! | `routing` | the reader task: responses to their waiters, notifications to their streams |
//! | `connection` | ids, `_meta`, sending a request and waiting for it, cancel on drop, version retry |
//! | `subscription` | [`Subscription`], [`TaskSubscription`] and [`SubscriptionEnd`] |
//! | `api` | [`Client`]: discovery, tools, MRTR, paging |
//! | `builder` | [`ClientBuilder`], and [`Client::builder`] |
//! | `tasks` | [`AwaitOptions`] and the Tasks methods of [`Client`] |
//! | `surface` | prompts, resources, completion and [`Client::listen`] |

mod api;
mod builder;
mod call;
mod connection;
mod error;
mod handlers;
#[cfg(feature = "http-client")]
mod http;
mod result;
mod routing;
mod subscription;
mod surface;
mod tasks;
mod transport;

pub use api::Client;
pub use builder::ClientBuilder;
pub use call::{CallOutcome, CallStep, TaskHandle, ToolCall};
pub use error::ClientError;
pub use handlers::PendingInput;
#[cfg(feature = "http-client")]
pub use http::HttpOptions;
pub use subscription::{Subscription, SubscriptionEnd, SubscriptionEvent, TaskSubscription};
pub use tasks::AwaitOptions;
pub use transport::ClientTransport;
