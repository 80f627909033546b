//! Telemetry switched on as a user sets it up, with exporters that discard
//! what they get: the `presa_otel` contender of the stdio and HTTP
//! sections.
//!
//! What it measures is what presa's telemetry costs a call inside the
//! server: its spans, the trace context it reads from `_meta`, and its
//! metrics. What an exporter costs (encoding, the network) depends on the
//! exporter and the collector, not on presa, so it is left out.
//!
//! Rules, in order:
//!
//! 1. **Spans** reach OpenTelemetry as presa's own setup sends them
//!    (`presa::telemetry::OtlpExport`): a global `tracing` subscriber with
//!    `tracing-opentelemetry`'s layer, over a tracer provider with a batch
//!    span processor. Its exporter drops each batch.
//! 2. **Metrics** go through a meter provider installed as the global one
//!    before the server starts, with a periodic reader at its default
//!    interval. Its exporter drops what it reads.
//! 3. **The W3C trace context propagator** is installed, as presa's setup
//!    does, so the server reads `traceparent` from `_meta` as it would in
//!    production.
//! 4. **The providers live as long as the [`DiscardedTelemetry`] guard.**
//!    Dropping it shuts them down.

use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{SdkMeterProvider, Temporality};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// An exporter of spans and metrics that drops everything it gets.
#[derive(Debug, Clone, Copy, Default)]
pub struct Discard;

impl SpanExporter for Discard {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        drop(batch);
        Ok(())
    }
}

impl PushMetricExporter for Discard {
    async fn export(&self, _metrics: &ResourceMetrics) -> OTelSdkResult {
        Ok(())
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}

/// The tracer and meter providers that [`switch_on`] installed. Dropping
/// it shuts both down, which flushes them into [`Discard`].
#[derive(Debug)]
pub struct DiscardedTelemetry {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

impl Drop for DiscardedTelemetry {
    fn drop(&mut self) {
        // Shutting down can only fail if it already happened, or an
        // exporter fails; `Discard` never does. Nothing to report.
        let _ = self.tracer.shutdown();
        let _ = self.meter.shutdown();
    }
}

/// Switches telemetry on for this process (rules 1 to 3), exported
/// nowhere. Call it once, before the server starts.
///
/// # Panics
///
/// If a global `tracing` subscriber is installed already.
pub fn switch_on() -> DiscardedTelemetry {
    let tracer = SdkTracerProvider::builder()
        .with_batch_exporter(Discard)
        .build();
    let meter = SdkMeterProvider::builder()
        .with_periodic_exporter(Discard)
        .build();
    opentelemetry::global::set_tracer_provider(tracer.clone());
    opentelemetry::global::set_meter_provider(meter.clone());
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let layer = tracing_opentelemetry::layer().with_tracer(tracer.tracer("presa"));
    tracing_subscriber::registry()
        .with(layer)
        .try_init()
        .expect("no tracing subscriber installed yet");
    DiscardedTelemetry { tracer, meter }
}
