//! The metrics presa records, through the global meter provider under the
//! meter name `presa` (rule 5 of [`telemetry`](super)). Without the
//! feature `otel`, nothing is recorded.
//!
//! Names and attributes follow the OpenTelemetry semantic conventions for
//! MCP where they define one; the others are presa's own, under `presa.`:
//!
//! | instrument | kind, unit | attributes |
//! |---|---|---|
//! | `mcp.server.operation.duration` | histogram, `s` | `mcp.method.name`, `gen_ai.tool.name` (a tool call), `mcp.protocol.version`, `error.type` (a failed request: its JSON-RPC code; a tool error: `tool_error`) |
//! | `presa.server.requests` | counter | `mcp.method.name`, `presa.outcome`: `ok`, `tool_error`, `input_required`, `task` or `error` |
//! | `presa.tasks.status_changes` | counter | `presa.task.status`: the status a task moved to, `working` when it was created |
//! | `presa.tasks.parked` | up-down counter | none: the tasks whose run waits for input on this server |
//! | `presa.task_store.operation.duration` | histogram, `s` | `presa.store.operation` (`create`, `get`, `update`, …), `presa.outcome`: `ok` or `error` |
//! | `presa.server.refusals` | counter | `presa.limit`: the limit that refused a request: `tasks`, `task_quota` and `task_store_space` (a task not created), `memory` (the HTTP endpoint's memory budget), `subject_requests`, `subject_streams` and `subject_bodies` (one HTTP caller's slots) |
//! | `presa.oauth.token_validations` | counter | `presa.outcome`: `valid`, `invalid_token`, `invalid_dpop_proof`, `unavailable` (the authorization server could not be asked), or `refused` |

/// How a request ended, for `presa.server.requests`.
#[cfg(feature = "otel")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RequestOutcome {
    /// A result.
    Ok,
    /// A tool's result with `isError: true`.
    ToolError,
    /// An `InputRequiredResult`: the call asked for input.
    InputRequired,
    /// A `CreateTaskResult`: the call became a task.
    Task,
    /// A JSON-RPC error, with its code.
    Error(i64),
}

#[cfg(feature = "otel")]
impl RequestOutcome {
    fn name(self) -> &'static str {
        match self {
            RequestOutcome::Ok => "ok",
            RequestOutcome::ToolError => "tool_error",
            RequestOutcome::InputRequired => "input_required",
            RequestOutcome::Task => "task",
            RequestOutcome::Error(_) => "error",
        }
    }
}

/// One request that ended: method, tool, protocol version, outcome and
/// how long the server took. Its strings are handed over rather than
/// borrowed, so that recording does not copy them again.
#[cfg(feature = "otel")]
pub(crate) struct EndedRequest {
    pub method: Label,
    pub tool: Option<String>,
    pub protocol_version: Option<Label>,
    pub outcome: RequestOutcome,
    pub took: std::time::Duration,
}

/// An attribute's value, shared by the instruments that record it: a
/// static string costs nothing to share, any other is counted.
#[cfg(feature = "otel")]
#[derive(Debug)]
pub(crate) struct Label(opentelemetry::StringValue);

/// A label for `value`: borrowed when the string is static, so that
/// sharing it allocates nothing, and counted otherwise.
#[cfg(feature = "otel")]
pub(crate) fn label(value: impl Into<std::borrow::Cow<'static, str>>) -> Label {
    Label(match value.into() {
        std::borrow::Cow::Borrowed(value) => value.into(),
        std::borrow::Cow::Owned(value) => std::sync::Arc::<str>::from(value).into(),
    })
}

/// The protocol version `version` as a [`Label`]: a static one for the
/// versions presa speaks, which every request it answers names.
#[cfg(feature = "otel")]
pub(crate) fn version_label(version: &str) -> Label {
    let spoken = std::iter::once(crate::wire::PROTOCOL_VERSION)
        .chain(crate::wire::legacy::LEGACY_VERSIONS)
        .find(|spoken| *spoken == version);
    match spoken {
        Some(spoken) => label(spoken),
        None => label(version.to_owned()),
    }
}

#[cfg(feature = "otel")]
impl RequestOutcome {
    /// How `response` ended its request.
    pub(crate) fn of(response: &crate::wire::Response) -> Self {
        use crate::wire::Outcome;
        match &response.outcome {
            Outcome::Error(error) => RequestOutcome::Error(error.code),
            Outcome::Result(result) => match result.get("resultType").and_then(|t| t.as_str()) {
                Some("input_required") => RequestOutcome::InputRequired,
                Some("task") => RequestOutcome::Task,
                _ if result.get("task").is_some_and(|t| t.is_object()) => RequestOutcome::Task,
                _ if result.get("isError") == Some(&serde_json::Value::Bool(true)) => {
                    RequestOutcome::ToolError
                }
                _ => RequestOutcome::Ok,
            },
        }
    }
}

/// Records a request that ended.
#[cfg(feature = "otel")]
pub(crate) fn request_ended(ended: EndedRequest) {
    otel::request_ended(ended);
}

/// Records that a task moved to `status` (`working` when created).
#[cfg(feature = "otel")]
pub(crate) fn task_status(status: crate::wire::TaskStatus) {
    let status = status.as_str();
    otel::counter(
        &otel::get().status_changes,
        1,
        &[("presa.task.status", status)],
    );
}

/// Records that a task's run began (`1`) or stopped (`-1`) waiting for
/// input on this server.
pub(crate) fn parked(change: i64) {
    #[cfg(feature = "otel")]
    otel::get().parked.add(change, &[]);
    #[cfg(not(feature = "otel"))]
    let _ = change;
}

/// Records a task store operation that took `took`.
#[cfg(feature = "otel")]
pub(crate) fn store_operation(operation: &'static str, ok: bool, took: std::time::Duration) {
    otel::store_operation(operation, ok, took);
}

/// Records a request refused by `limit`.
pub(crate) fn refused(limit: &'static str) {
    #[cfg(feature = "otel")]
    otel::counter(&otel::get().refusals, 1, &[("presa.limit", limit)]);
    #[cfg(not(feature = "otel"))]
    let _ = limit;
}

/// Records a token validated (`valid`) or refused, and why.
#[cfg(feature = "oauth")]
pub(crate) fn token_validated(outcome: &'static str) {
    #[cfg(feature = "otel")]
    otel::counter(&otel::get().validations, 1, &[("presa.outcome", outcome)]);
    #[cfg(not(feature = "otel"))]
    let _ = outcome;
}

#[cfg(feature = "otel")]
mod otel {
    use std::sync::OnceLock;
    use std::time::Duration;

    use opentelemetry::KeyValue;
    use opentelemetry::metrics::{Counter, Histogram, UpDownCounter};

    use super::{EndedRequest, RequestOutcome};

    /// The instruments, made once from the global meter provider.
    pub(super) struct Instruments {
        pub duration: Histogram<f64>,
        pub requests: Counter<u64>,
        pub status_changes: Counter<u64>,
        pub parked: UpDownCounter<i64>,
        pub store: Histogram<f64>,
        pub refusals: Counter<u64>,
        #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
        pub validations: Counter<u64>,
    }

    /// The instruments. They bind to the meter provider installed when
    /// first used, which is why the provider goes in before serving.
    pub(super) fn get() -> &'static Instruments {
        static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
        INSTRUMENTS.get_or_init(|| {
            let meter = opentelemetry::global::meter("presa");
            Instruments {
                duration: meter
                    .f64_histogram("mcp.server.operation.duration")
                    .with_unit("s")
                    .with_description("How long the server took to answer a request")
                    .build(),
                requests: meter
                    .u64_counter("presa.server.requests")
                    .with_description("Requests answered, by method and outcome")
                    .build(),
                status_changes: meter
                    .u64_counter("presa.tasks.status_changes")
                    .with_description("Tasks that moved to a status")
                    .build(),
                parked: meter
                    .i64_up_down_counter("presa.tasks.parked")
                    .with_description("Tasks whose run waits for input on this server")
                    .build(),
                store: meter
                    .f64_histogram("presa.task_store.operation.duration")
                    .with_unit("s")
                    .with_description("How long a task store operation took")
                    .build(),
                refusals: meter
                    .u64_counter("presa.server.refusals")
                    .with_description("Requests refused by a limit")
                    .build(),
                validations: meter
                    .u64_counter("presa.oauth.token_validations")
                    .with_description("Access tokens validated, by outcome")
                    .build(),
            }
        })
    }

    pub(super) fn counter(counter: &Counter<u64>, n: u64, attributes: &[(&'static str, &str)]) {
        let attributes: Vec<KeyValue> = attributes
            .iter()
            .map(|(key, value)| KeyValue::new(*key, value.to_string()))
            .collect();
        counter.add(n, &attributes);
    }

    pub(super) fn request_ended(ended: EndedRequest) {
        let instruments = get();
        let method = KeyValue::new("mcp.method.name", ended.method.0);
        instruments.requests.add(
            1,
            &[
                method.clone(),
                KeyValue::new("presa.outcome", ended.outcome.name()),
            ],
        );
        let mut attributes = Vec::with_capacity(4);
        attributes.push(method);
        if let Some(tool) = ended.tool {
            attributes.push(KeyValue::new("gen_ai.tool.name", tool));
        }
        if let Some(version) = ended.protocol_version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.0));
        }
        match ended.outcome {
            RequestOutcome::Error(code) => {
                attributes.push(KeyValue::new("error.type", code.to_string()));
            }
            RequestOutcome::ToolError => {
                attributes.push(KeyValue::new("error.type", "tool_error"));
            }
            _ => {}
        }
        instruments
            .duration
            .record(ended.took.as_secs_f64(), &attributes);
    }

    pub(super) fn store_operation(operation: &'static str, ok: bool, took: Duration) {
        get().store.record(
            took.as_secs_f64(),
            &[
                KeyValue::new("presa.store.operation", operation),
                KeyValue::new("presa.outcome", if ok { "ok" } else { "error" }),
            ],
        );
    }
}

#[cfg(all(test, feature = "otel"))]
mod tests {
    use super::*;

    #[test]
    fn a_version_presa_speaks_is_a_static_label() {
        for version in ["2026-07-28", "2025-11-25", "2025-03-26"] {
            let Label(value) = version_label(version);
            assert_eq!(value.as_str(), version);
            assert!(format!("{value:?}").contains("Static"), "{value:?}");
        }
    }

    #[test]
    fn any_other_version_keeps_its_text() {
        let Label(value) = version_label("1999-01-01");
        assert_eq!(value.as_str(), "1999-01-01");
        let Label(value) = label("tasks/update".to_owned());
        assert_eq!(value.as_str(), "tasks/update");
    }
}
