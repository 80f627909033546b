//! OpenTelemetry: trace context carried in `_meta`, spans that follow a
//! task through its life, metrics, and an OTLP exporter set up from the
//! standard environment variables.
//!
//! Everything here needs the feature `otel`. Without it, the calls the
//! server and the client make into this module do nothing, and none of
//! the OpenTelemetry crates is built.
//!
//! # Rules
//!
//! 1. **presa's spans are `tracing` spans.** A request runs in
//!    `mcp.request`, a task's run in `mcp.task`. They reach OpenTelemetry
//!    through `tracing-opentelemetry`'s layer, which `OtlpExport::install`
//!    (feature `otel`) sets up; with a subscriber of your own, add that
//!    layer to it.
//! 2. **A request's span continues its caller's trace.** The server reads
//!    `traceparent`, `tracestate` and `baggage` from the request's
//!    `_meta` (SEP-414, in the W3C Trace Context and Baggage formats) and
//!    makes the request's span a child of that context. In a 2025-11-25
//!    session over HTTP, where a client may send them as HTTP headers
//!    instead, the headers count when `_meta` has none.
//! 3. **presa's client writes them.** Each request it sends carries the
//!    context of the span current when it was sent, so the server's span
//!    joins the caller's trace.
//! 4. **A task's spans link to the request that created it.** The task
//!    keeps that request's `traceparent` in its record, in the store, so
//!    that every later span of the task links to it on any replica: the
//!    task's run, `tasks/update`, `tasks/cancel`, a run that resumes after
//!    it parked, and a takeover by another replica.
//! 5. **Metrics go through the global meter provider** under the meter
//!    name `presa`, as the OpenTelemetry API asks of libraries; install
//!    the provider before the server starts. See [`metrics`] for the
//!    instruments.
//!
//! Layers, bottom up: context, metrics, export.

pub(crate) mod context;
#[cfg(feature = "otel")]
mod export;
pub mod metrics;

#[cfg(feature = "otel")]
pub use export::{ExportError, OtlpExport};
