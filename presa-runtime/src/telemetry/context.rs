//! W3C trace context between `_meta` (or HTTP headers) and `tracing`
//! spans: rules 2 to 4 of [`telemetry`](super).
//!
//! The keys are fixed by SEP-414 as W3C Trace Context and Baggage, so
//! presa reads and writes them with those propagators, whatever global
//! propagator the application configured for its other traffic.

use serde_json::{Map, Value};

/// Makes `span` a child of the trace context in `meta`, when it carries
/// one; otherwise of the one `header` reads (a legacy session's HTTP
/// request headers, by name), when there is one. Call it before the span
/// is entered.
pub(crate) fn continue_remote(
    span: &tracing::Span,
    meta: Option<&Map<String, Value>>,
    header: &dyn Fn(&str) -> Option<String>,
) {
    #[cfg(feature = "otel")]
    otel::continue_remote(span, meta, header);
    #[cfg(not(feature = "otel"))]
    let _ = (span, meta, header);
}

/// The `_meta` keys that carry the current span's context (rule 3);
/// `None` when there is no context to carry.
pub(crate) fn current_fields() -> Option<Map<String, Value>> {
    #[cfg(feature = "otel")]
    return otel::current_fields();
    #[cfg(not(feature = "otel"))]
    None
}

/// The `traceparent` of the current span, for a task's record: rule 4.
pub(crate) fn current_traceparent() -> Option<Box<str>> {
    #[cfg(feature = "otel")]
    return otel::current_traceparent();
    #[cfg(not(feature = "otel"))]
    None
}

/// Links `span` to the span that `traceparent` names, when there is one.
pub(crate) fn link_to(span: &tracing::Span, traceparent: Option<&str>) {
    #[cfg(feature = "otel")]
    otel::link_to(span, traceparent);
    #[cfg(not(feature = "otel"))]
    let _ = (span, traceparent);
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
    use opentelemetry::trace::TraceContextExt;
    use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
    use serde_json::{Map, Value};
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// The W3C keys, read from a `_meta` object.
    struct MetaReader<'a>(&'a Map<String, Value>);

    impl Extractor for MetaReader<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key)?.as_str()
        }

        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).collect()
        }
    }

    /// The W3C keys, written into a `_meta` object.
    struct MetaWriter<'a>(&'a mut Map<String, Value>);

    impl Injector for MetaWriter<'_> {
        fn set(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }

    /// The W3C keys, read from HTTP headers ahead of time.
    struct HeaderReader(Map<String, Value>);

    impl HeaderReader {
        fn read(header: &dyn Fn(&str) -> Option<String>) -> Self {
            let keys = ["traceparent", "tracestate", "baggage"];
            HeaderReader(
                keys.into_iter()
                    .filter_map(|key| Some((key.to_owned(), Value::String(header(key)?))))
                    .collect(),
            )
        }
    }

    /// The context `carrier` holds: trace context, then baggage.
    fn extract(carrier: &dyn Extractor) -> opentelemetry::Context {
        let traced = TraceContextPropagator::new().extract(carrier);
        BaggagePropagator::new().extract_with_context(&traced, carrier)
    }

    pub(super) fn continue_remote(
        span: &tracing::Span,
        meta: Option<&Map<String, Value>>,
        header: &dyn Fn(&str) -> Option<String>,
    ) {
        // A disabled span (no subscriber wants it, as while telemetry is
        // off) cannot take a parent: reading the context would be wasted
        // on every request.
        if span.is_disabled() {
            return;
        }
        let valid = |cx: &opentelemetry::Context| cx.span().span_context().is_valid();
        let parent = meta
            .map(|meta| extract(&MetaReader(meta)))
            .filter(valid)
            .or_else(|| Some(extract(&MetaReader(&HeaderReader::read(header).0))).filter(valid));
        if let Some(parent) = parent {
            // Fails only when no OpenTelemetry layer is installed, or the
            // span is disabled: then there is nothing to continue.
            let _ = span.set_parent(parent);
        }
    }

    pub(super) fn current_fields() -> Option<Map<String, Value>> {
        let cx = tracing::Span::current().context();
        if !cx.span().span_context().is_valid() {
            return None;
        }
        let mut fields = Map::new();
        let mut writer = MetaWriter(&mut fields);
        TraceContextPropagator::new().inject_context(&cx, &mut writer);
        BaggagePropagator::new().inject_context(&cx, &mut writer);
        Some(fields)
    }

    pub(super) fn current_traceparent() -> Option<Box<str>> {
        let cx = tracing::Span::current().context();
        if !cx.span().span_context().is_valid() {
            return None;
        }
        let mut written = Map::new();
        TraceContextPropagator::new().inject_context(&cx, &mut MetaWriter(&mut written));
        match written.remove("traceparent") {
            Some(Value::String(traceparent)) => Some(traceparent.into_boxed_str()),
            _ => None,
        }
    }

    pub(super) fn link_to(span: &tracing::Span, traceparent: Option<&str>) {
        let Some(traceparent) = traceparent else {
            return;
        };
        let mut carrier = Map::new();
        carrier.insert("traceparent".to_owned(), Value::from(traceparent));
        let cx = TraceContextPropagator::new().extract(&MetaReader(&carrier));
        let linked = cx.span().span_context().clone();
        if linked.is_valid() {
            span.add_link(linked);
        }
    }
}
