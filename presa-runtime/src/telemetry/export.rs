//! [`OtlpExport`]: the OTLP exporter of traces and metrics, set up from
//! the standard OpenTelemetry environment variables, and the `tracing`
//! layer that feeds it presa's spans.
//!
//! The exporter reads its variables as the OTLP exporter specification
//! defines them: `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and
//! `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`), `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_EXPORTER_OTLP_TIMEOUT` and their per-signal forms;
//! `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the service;
//! `OTEL_METRIC_EXPORT_INTERVAL` sets how often metrics are sent;
//! `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` and
//! `OTEL_METRICS_EXPORTER=none` turn it, or one signal, off. It sends
//! OTLP over HTTP with protobuf bodies, the protocol every OTLP receiver
//! takes.

use std::env;
use std::fmt;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{MetricExporter, SpanExporter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// Why the exporter could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The OTLP exporter refused its configuration: a malformed endpoint
    /// or header variable, say.
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// A `tracing` subscriber was installed already; add
    /// [`OtlpExport::tracing_layer`] to it instead of calling
    /// [`OtlpExport::install`].
    #[error(
        "a tracing subscriber is installed already; add OtlpExport::tracing_layer to it instead"
    )]
    SubscriberTaken,
    /// Flushing or shutting the exporter down failed.
    #[error("the OTLP exporter could not flush: {0}")]
    Flush(String),
}

/// The OTLP exporter of traces and metrics.
///
/// ```no_run
/// # fn main() -> Result<(), presa_runtime::telemetry::ExportError> {
/// // Exports when OTEL_EXPORTER_OTLP_ENDPOINT (or a per-signal endpoint)
/// // is set; does nothing otherwise.
/// let telemetry = presa_runtime::telemetry::OtlpExport::install("jobs")?;
/// // … serve …
/// if let Some(telemetry) = telemetry {
///     telemetry.shutdown()?; // sends what is buffered
/// }
/// # Ok(())
/// # }
/// ```
///
/// Dropping it flushes too, but cannot report a failure.
pub struct OtlpExport {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

impl OtlpExport {
    /// The exporter the environment asks for, with `service` as the
    /// service's name unless `OTEL_SERVICE_NAME` or
    /// `OTEL_RESOURCE_ATTRIBUTES` names it. `None` when no OTLP endpoint
    /// is set, or the SDK or both signals are turned off. It installs the
    /// global tracer and meter providers, and the W3C trace context
    /// propagator, but no `tracing` subscriber: see
    /// [`install`](Self::install) and [`tracing_layer`](Self::tracing_layer).
    pub fn from_env(service: &str) -> Result<Option<OtlpExport>, ExportError> {
        if flag("OTEL_SDK_DISABLED") {
            return Ok(None);
        }
        let endpoint = |signal: &str| {
            set(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"))
                || set("OTEL_EXPORTER_OTLP_ENDPOINT")
        };
        let traces = endpoint("TRACES") && !off("OTEL_TRACES_EXPORTER");
        let metrics = endpoint("METRICS") && !off("OTEL_METRICS_EXPORTER");
        if !traces && !metrics {
            return Ok(None);
        }
        let resource = resource(service);
        let tracer = traces
            .then(|| -> Result<_, ExportError> {
                let exporter = SpanExporter::builder().with_http().build()?;
                Ok(SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(resource.clone())
                    .build())
            })
            .transpose()?;
        let meter = metrics
            .then(|| -> Result<_, ExportError> {
                let exporter = MetricExporter::builder().with_http().build()?;
                Ok(SdkMeterProvider::builder()
                    .with_periodic_exporter(exporter)
                    .with_resource(resource)
                    .build())
            })
            .transpose()?;
        if let Some(tracer) = &tracer {
            opentelemetry::global::set_tracer_provider(tracer.clone());
        }
        if let Some(meter) = &meter {
            opentelemetry::global::set_meter_provider(meter.clone());
        }
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        Ok(Some(OtlpExport { tracer, meter }))
    }

    /// [`from_env`](Self::from_env), and a global `tracing` subscriber
    /// that sends presa's spans (and yours) to it, and prints events at
    /// the level of `RUST_LOG` (`warn` without it) to stderr. Without an
    /// endpoint it installs only the stderr printer, so the program logs
    /// the same either way.
    pub fn install(service: &str) -> Result<Option<OtlpExport>, ExportError> {
        let export = OtlpExport::from_env(service)?;
        let filter = tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        let printer = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(filter);
        let traced = export.as_ref().and_then(OtlpExport::tracing_layer);
        tracing_subscriber::registry()
            .with(traced)
            .with(printer)
            .try_init()
            .map_err(|_| ExportError::SubscriberTaken)?;
        Ok(export)
    }

    /// The `tracing` layer that turns spans into OpenTelemetry spans for
    /// this exporter, for a subscriber of your own; `None` when traces
    /// are not exported.
    pub fn tracing_layer<S>(&self) -> Option<impl tracing_subscriber::Layer<S> + use<S>>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        let tracer = self.tracer.as_ref()?.tracer("presa");
        Some(tracing_opentelemetry::layer().with_tracer(tracer))
    }

    /// Sends what is buffered, then stops exporting.
    pub fn shutdown(mut self) -> Result<(), ExportError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), ExportError> {
        let traced = self.tracer.take().map(|tracer| tracer.shutdown());
        let measured = self.meter.take().map(|meter| meter.shutdown());
        for outcome in [traced, measured].into_iter().flatten() {
            outcome.map_err(|e| ExportError::Flush(e.to_string()))?;
        }
        Ok(())
    }
}

impl Drop for OtlpExport {
    fn drop(&mut self) {
        if let Err(error) = self.stop() {
            tracing::warn!(%error, "telemetry was not flushed");
        }
    }
}

impl fmt::Debug for OtlpExport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtlpExport")
            .field("traces", &self.tracer.is_some())
            .field("metrics", &self.meter.is_some())
            .finish()
    }
}

/// The service's resource: what the environment says, with `service` as
/// its name unless the environment names one.
fn resource(service: &str) -> Resource {
    let named = set("OTEL_SERVICE_NAME")
        || env::var("OTEL_RESOURCE_ATTRIBUTES")
            .is_ok_and(|attributes| attributes.contains("service.name="));
    let builder = Resource::builder();
    if named {
        builder.build()
    } else {
        builder.with_service_name(service.to_owned()).build()
    }
}

/// Whether variable `name` is set to something.
fn set(name: &str) -> bool {
    env::var_os(name).is_some_and(|value| !value.is_empty())
}

/// Whether variable `name` is `true`.
fn flag(name: &str) -> bool {
    env::var(name).is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// Whether exporter variable `name` turns its signal off.
fn off(name: &str) -> bool {
    env::var(name).is_ok_and(|value| value.trim().eq_ignore_ascii_case("none"))
}
