//! The methods of the Tasks extension: `tasks/get`, `tasks/update` and
//! `tasks/cancel`, each a thin call into the task engine.
//!
//! Each needs the request to declare the extension (`-32021` otherwise,
//! before its params are read), names its task in `Mcp-Name` over
//! Streamable HTTP, and records the task on the request's `task` span
//! field.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::server::extension::{ExtensionMethod, MethodCall};
use crate::server::request::reply::to_value;
use crate::server::task_engine::TaskEngine;
use crate::wire::{
    EmptyResult, ErrorObject, MethodSpec, ResultType, TASKS_CANCEL, TASKS_GET, TASKS_UPDATE,
    TaskIdParams, UpdateTaskParams,
};

/// The three methods, served by `engine`.
pub(super) fn task_methods(engine: &Arc<TaskEngine>) -> Vec<ExtensionMethod> {
    vec![
        task_method(TASKS_GET, engine, get),
        task_method(TASKS_UPDATE, engine, update),
        task_method(TASKS_CANCEL, engine, cancel),
    ]
}

/// Method `spec`, running `operation` on `engine`.
fn task_method<F, Fut>(spec: MethodSpec, engine: &Arc<TaskEngine>, operation: F) -> ExtensionMethod
where
    F: Fn(Arc<TaskEngine>, MethodCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    let engine = Arc::clone(engine);
    let method = ExtensionMethod::new(spec.name, move |call: MethodCall| {
        let task = call.params.as_ref().and_then(|p| p.get("taskId"));
        if let Some(task) = task.and_then(Value::as_str) {
            tracing::Span::current().record("task", task);
        }
        operation(Arc::clone(&engine), call)
    })
    .declared_by_client();
    match spec.name_param {
        Some(field) => method.name_param(field),
        None => method,
    }
}

/// `tasks/get`: the task's current state.
async fn get(engine: Arc<TaskEngine>, call: MethodCall) -> Result<Value, ErrorObject> {
    let TaskIdParams { task_id } = call.params()?;
    let task = engine
        .get(&task_id, &call.request.caller, call.result_meta())
        .await?;
    Ok(to_value(task))
}

/// `tasks/update`: answers to the task's input requests.
async fn update(engine: Arc<TaskEngine>, call: MethodCall) -> Result<Value, ErrorObject> {
    let params: UpdateTaskParams = call.params()?;
    engine
        .update(
            &params.task_id,
            params.input_responses,
            &call.request.caller,
        )
        .await?;
    Ok(acknowledgement(&call))
}

/// `tasks/cancel`: stops the task.
async fn cancel(engine: Arc<TaskEngine>, call: MethodCall) -> Result<Value, ErrorObject> {
    let TaskIdParams { task_id } = call.params()?;
    engine.cancel(&task_id, &call.request.caller).await?;
    Ok(acknowledgement(&call))
}

/// The answer to `tasks/update` and `tasks/cancel`.
fn acknowledgement(call: &MethodCall) -> Value {
    to_value(EmptyResult {
        result_type: ResultType::Complete,
        meta: Some(call.result_meta().clone()),
    })
}
