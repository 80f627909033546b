//! Every request and every task runs in a `tracing` span that says what it
//! is: the method, the request id, the tool, the task and the subject.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use presa::client::prelude::*;
use presa::prelude::*;
use serde_json::json;
use tracing::span::{Attributes, Id, Record};
use tracing::{Subscriber, field::Field, field::Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A closed span: its name and fields.
type Closed = (String, HashMap<String, String>);

/// Records every span's fields, and keeps them when the span closes.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<Closed>>>);

struct Fields(HashMap<String, String>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let mut fields = Fields(HashMap::new());
        attrs.record(&mut fields);
        ctx.span(id).unwrap().extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        let span = ctx.span(id).unwrap();
        let mut extensions = span.extensions_mut();
        values.record(extensions.get_mut::<Fields>().unwrap());
    }

    fn on_close(&self, id: Id, ctx: LayerContext<'_, S>) {
        let span = ctx.span(&id).unwrap();
        let fields = span.extensions().get::<Fields>().unwrap().0.clone();
        self.0.lock().unwrap().push((span.name().into(), fields));
    }
}

impl Spans {
    fn named(&self, name: &str) -> Vec<HashMap<String, String>> {
        let spans = self.0.lock().unwrap();
        spans
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
            .collect()
    }
}

#[tokio::test]
async fn requests_and_tasks_run_in_spans_that_name_them() {
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let f = common::fixture();
    let client = common::accepting(json!({"ok": true}))
        .tasks(true)
        .connect(in_process(&f.server, Caller::subject("alice")));
    let created = client
        .call_tool("build", json!({"target": "all"}))
        .await
        .unwrap();
    let task = created.task().unwrap().id().to_owned();
    client
        .await_task(&task, AwaitOptions::default())
        .await
        .unwrap();
    drop(client);

    let requests = spans.named("mcp.request");
    let call = requests
        .iter()
        .find(|f| f["method"] == "tools/call")
        .expect("a span for tools/call");
    assert_eq!(call["tool"], "build");
    assert_eq!(call["subject"], "alice");
    assert_eq!(call["task"], task);
    assert!(call.contains_key("id"));
    let get = requests
        .iter()
        .find(|f| f["method"] == "tasks/get")
        .expect("a span for tasks/get");
    assert_eq!(get["task"], task);
    let runs = spans.named("mcp.task");
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["task"], task);
    assert_eq!(runs[0]["tool"], "build");
    assert_eq!(runs[0]["subject"], "alice");
}
