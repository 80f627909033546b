//! `tools/call`: from the validated request to its response, or to a task.
//!
//! A call goes through these steps, in order (steps 4 and 5 of the
//! validation map in the [server docs](crate::server)):
//!
//! 1. the tool is looked up (`-32602` when unknown);
//! 2. a fixed task policy is checked against the client's Tasks
//!    declaration (`-32021` for a `required` tool), which gives the
//!    [`CallMode`];
//! 3. the arguments are checked against the `inputSchema` (a tool error,
//!    `isError`, when they do not conform);
//! 4. earlier MRTR answers are recovered from the verified `requestState`;
//! 5. a per-call policy runs now, with the typed arguments, and may itself
//!    ask for input;
//! 6. the handler runs, synchronously or as a task, and its
//!    [`Verdict`] is rendered as the response or as the task's end.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::server::caller::{Caller, Scopes};
use crate::server::catalog::registered::RegisteredTool;
use crate::server::handlers::tool::{TaskPolicy, TaskStart, ToolPolicy, ToolResult};
use crate::server::input::context::{Context, ContextParts, InputRoute, RequestInfo};
use crate::server::input::verdict::Verdict;
use crate::server::methods::mrtr::{Carried, Completed, Inbound, RequestEnv, Round, Target};
use crate::server::middleware::invocation::{Handled, HandlerRun, HandlerService, Invocation};
use crate::server::middleware::stack::invoke;
use crate::server::request::error::{ErrorDetails, Failure, InputRequired, Origin};
use crate::server::request::reply::{
    internal_error, invalid_params, missing_capability, panic_message, parse_params,
    tasks_capability, to_value,
};
use crate::server::task_engine::store::{ResumableCall, StoredCall, TaskRecord};
use crate::server::task_engine::{CreateError, OrphanGuard, TaskEnd, TaskEngine, TaskLink};
use crate::util::{BoxFuture, Charge};
use crate::wire::{
    CallToolParams, CallToolResult, ClientCapabilities, ErrorObject, Method, ResultMeta,
    TASKS_EXTENSION,
};

/// How one call runs.
enum CallMode {
    /// Within the request; input goes over MRTR.
    Sync,
    /// As a task in this engine.
    Task(Arc<TaskEngine>),
}

/// A handler run, with a caught panic as `Err`.
type Run = BoxFuture<Result<ToolResult, Box<dyn std::any::Any + Send>>>;

/// A run of `tool`'s handler on `arguments`, inside the server's layers
/// (`layers`) and the tool's own. It holds the handler and the layers, so
/// that a task's run can outlive the request that started it.
fn handler_run(
    layers: Option<&HandlerService>,
    tool: &RegisteredTool,
    ctx: Context,
    arguments: Map<String, Value>,
) -> Run {
    let handler = Arc::clone(&tool.handler);
    if layers.is_none() && tool.layers.is_none() {
        return AssertUnwindSafe(async move { handler.call(ctx, arguments).await })
            .catch_unwind()
            .boxed();
    }
    let run: HandlerRun = Box::new(move |ctx, arguments| {
        async move { Handled::Tool(handler.call(ctx, arguments).await) }.boxed()
    });
    let invocation = Invocation::new(Method::ToolsCall, tool.name(), arguments, ctx, run);
    let (server, own) = (layers.cloned(), tool.layers.clone());
    AssertUnwindSafe(async move {
        invoke(server.as_ref(), own.as_ref(), invocation)
            .await
            .into_tool()
    })
    .catch_unwind()
    .boxed()
}

/// How an attempt to turn a call into a task went.
enum Creation {
    /// The task exists; this is the `CreateTaskResult`.
    Created(Value),
    /// No task could be created, and the policy allows running
    /// synchronously.
    Declined(Run),
    /// The call fails.
    Failed(ErrorObject),
}

/// Runs one `tools/call`.
pub(crate) async fn call_tool(
    env: &RequestEnv<'_>,
    params: Option<Value>,
    request: Inbound<'_>,
    mut charge: Charge,
) -> Result<Value, ErrorObject> {
    let params: CallToolParams = parse_params(params)?;
    tracing::Span::current().record("tool", params.name.as_str());
    let caller = request.caller;
    let tool = env.registry.tool(&params.name);
    let Some(tool) = tool.filter(|tool| env.visible(caller, tool.catalog_item())) else {
        return Err(invalid_params(format!("Unknown tool: `{}`", params.name)));
    };
    env.authorize(caller, &format!("tool `{}`", params.name), tool.scopes)?;
    let info = request.info();
    let fixed = match tool.policy {
        ToolPolicy::Fixed(policy) => {
            Some((policy, call_mode(policy, tool.name(), &info, env.engine)?))
        }
        ToolPolicy::PerCall => None,
    };
    let arguments = match tool.arguments.check(params.arguments.unwrap_or_default()) {
        Ok(arguments) => arguments,
        Err(error) => return Ok(to_value(error.into_result().completed(env.meta))),
    };
    let target = Target {
        method: Method::ToolsCall,
        origin: Origin::Tool(tool.name()),
        arguments: &arguments,
    };
    let carried = Carried {
        request_state: params.request_state,
        input_responses: params.input_responses,
    };
    let round = Round::open(env, target, carried, info, request)?;
    let ctx = &round.ctx;
    let (policy, mode) = match fixed {
        Some(decided) => decided,
        None => match tool.handler.task_policy(&arguments, ctx) {
            Ok(policy) => (
                policy,
                call_mode(policy, tool.name(), ctx.request(), env.engine)?,
            ),
            // The policy asked for input: MRTR, before any task exists.
            Err(InputRequired) => {
                return respond(&round, &tool, Err(Failure::InputRequired));
            }
        },
    };
    let call = matches!(mode, CallMode::Task(_))
        .then(|| resumable_call(&tool, &arguments, ctx.request()))
        .flatten();
    let run = handler_run(env.layers, &tool, ctx.clone(), arguments);
    let CallMode::Task(engine) = mode else {
        let outcome = settle(run.await, &tool, env.error_details);
        return respond(&round, &tool, outcome);
    };
    let call = TaskCall {
        engine: &engine,
        tool: &tool,
        policy,
        ctx,
        caller,
        charge: &mut charge,
        call,
    };
    match tool.start {
        TaskStart::Explicit => run_until_task_start(&round, call, run).await,
        TaskStart::Immediate => match create_task(env, call, run).await {
            Creation::Created(created) => Ok(created),
            Creation::Failed(error) => Err(error),
            Creation::Declined(run) => {
                let outcome = settle(run.await, &tool, env.error_details);
                respond(&round, &tool, outcome)
            }
        },
    }
}

/// How a call under `policy` runs for this client; `-32021` for a
/// `required` tool and a client without the Tasks extension.
fn call_mode(
    policy: TaskPolicy,
    tool: &str,
    info: &RequestInfo,
    engine: Option<&Arc<TaskEngine>>,
) -> Result<CallMode, ErrorObject> {
    let declared = info.client_capabilities.has_extension(TASKS_EXTENSION);
    match (policy, declared, engine) {
        (TaskPolicy::Sync, _, _) => Ok(CallMode::Sync),
        (TaskPolicy::Required, false, _) => Err(missing_capability(
            format!("Tool `{tool}` runs only as a task"),
            tasks_capability(),
        )),
        (TaskPolicy::Required, true, None) => Err(internal_error(
            tool,
            "the policy says `required`, but tasks are not enabled on the server \
             (ServerBuilder::tasks)",
        )),
        (TaskPolicy::Optional | TaskPolicy::Required, true, Some(engine)) => {
            Ok(CallMode::Task(Arc::clone(engine)))
        }
        (TaskPolicy::Optional, _, _) => Ok(CallMode::Sync),
    }
}

/// A call that may become a task.
struct TaskCall<'a> {
    engine: &'a Arc<TaskEngine>,
    tool: &'a Arc<RegisteredTool>,
    policy: TaskPolicy,
    ctx: &'a Context,
    caller: &'a Caller,
    /// What the request holds of the memory budget; a task takes the
    /// server's part of it along.
    charge: &'a mut Charge,
    /// The call, kept in the record when the tool is resumable.
    call: Option<StoredCall>,
}

/// Creates the task, ties the context to it and hands the run to the
/// engine.
async fn create_task(env: &RequestEnv<'_>, call: TaskCall<'_>, run: Run) -> Creation {
    let TaskCall {
        engine,
        tool,
        policy,
        ctx,
        caller,
        charge,
        call,
    } = call;
    // Every verified answer travels with the task, whether or not the run
    // has used it yet; the book keeps them for a run that stays synchronous.
    let answers = ctx.with_input_book(|book| book.answers().clone());
    let mut orphan = OrphanGuard::default();
    let created = engine
        .create(
            tool.task_name(),
            caller.task_owner(),
            &answers,
            call,
            &mut orphan,
        )
        .await;
    let record = match created {
        Ok(record) => record,
        Err(error) => {
            // A store that failed may have kept the task: the armed guard
            // fails it, so that it never shows as running.
            if let CreateError::AtLimit(_) = error {
                orphan.disarm();
            }
            return declined(error, policy, run);
        }
    };
    let link = engine.link(&record.id);
    ctx.attach_task(link.clone());
    let end = end_task(
        Arc::clone(tool),
        ctx.clone(),
        run,
        Arc::clone(env.meta),
        env.error_details,
    );
    tracing::Span::current().record("task", record.id());
    engine.run(
        link,
        &record,
        tool.name().to_owned(),
        Box::pin(end),
        std::mem::replace(charge, Charge::none()).outer(),
    );
    orphan.disarm();
    Creation::Created(to_value(TaskEngine::created(&record, env.meta)))
}

/// What a call does when its task could not be created: an `optional`
/// tool runs synchronously, whether the server is at a limit or its store
/// is unavailable (the call needs no store then); a `required` tool fails
/// with the error (`-31000`, `-31002`). Any other store failure fails the
/// call.
fn declined(error: CreateError, policy: TaskPolicy, run: Run) -> Creation {
    match error {
        CreateError::AtLimit(_) | CreateError::Unavailable(_) if policy == TaskPolicy::Optional => {
            Creation::Declined(run)
        }
        CreateError::AtLimit(error)
        | CreateError::Unavailable(error)
        | CreateError::Store(error) => Creation::Failed(error),
    }
}

/// The call a resumable tool's task keeps; `None` for any other tool.
fn resumable_call(
    tool: &RegisteredTool,
    arguments: &Map<String, Value>,
    info: &RequestInfo,
) -> Option<StoredCall> {
    tool.resumable.then(|| {
        StoredCall::new(&ResumableCall {
            tool: tool.name().to_owned(),
            arguments: arguments.clone(),
            protocol_version: info.protocol_version.clone(),
            client_capabilities: ClientCapabilities::clone(&info.client_capabilities),
            client_info: info.client_info.as_deref().cloned(),
            subject: info.caller.subject.clone(),
            issuer: info.caller.issuer.as_deref().map(str::to_owned),
            scopes: (!info.caller.scopes.is_every())
                .then(|| info.caller.scopes.iter().map(str::to_owned).collect()),
            claims: info.caller.claims.as_deref().cloned(),
        })
    })
}

/// The caller a resumable call was made by, as its task resumes.
fn resumed_caller(call: &ResumableCall) -> Caller {
    let mut caller = match &call.subject {
        Some(subject) => Caller::subject(subject.clone()),
        None => Caller::anonymous(),
    };
    caller.issuer = call.issuer.as_deref().map(Into::into);
    caller.scopes = match &call.scopes {
        Some(scopes) => Scopes::from_iter(scopes.iter().cloned()),
        None => Scopes::every(),
    };
    caller.claims = call.claims.clone().map(Arc::new);
    caller
}

/// Runs a resumable tool's task again from its record, on this server,
/// tied to the task through `link`: the handler gets the call's arguments
/// and caller, and every answer the record holds, so that the questions
/// already answered return at once. The tool's name and the run; `None`
/// when the record keeps no call of a resumable tool this server has.
pub(crate) fn resume_task(
    env: &RequestEnv<'_>,
    record: &TaskRecord,
    link: TaskLink,
) -> Option<(String, BoxFuture<TaskEnd>)> {
    let call = match record.call.as_ref()?.parse() {
        Ok(call) => call,
        Err(e) => {
            tracing::warn!(task = record.id(), error = %e, "a stored call no longer parses");
            return None;
        }
    };
    let tool = env
        .registry
        .tool(&call.tool)
        .filter(|tool| tool.resumable)?;
    let answers = record
        .answers
        .iter()
        .filter_map(|(key, answer)| Some((key.to_owned(), answer.parse().ok()?)))
        .collect();
    let ctx = Context::new(ContextParts {
        info: RequestInfo {
            caller: resumed_caller(&call),
            protocol_version: call.protocol_version,
            client_capabilities: Arc::new(call.client_capabilities),
            client_info: call.client_info.map(Arc::new),
        },
        answers,
        notifier: None,
        progress_token: None,
        log_level: None,
        state: Arc::clone(env.state),
        route: InputRoute::Mrtr,
    });
    ctx.attach_task(link);
    let run = handler_run(env.layers, &tool, ctx.clone(), call.arguments);
    let end = end_task(
        Arc::clone(&tool),
        ctx,
        run,
        Arc::clone(env.meta),
        env.error_details,
    );
    Some((tool.name().to_owned(), Box::pin(end)))
}

/// What happened first in a tool with an explicit task start.
enum FirstEvent {
    Finished(Box<<Run as std::future::Future>::Output>),
    StartRequested(oneshot::Sender<()>),
}

/// Runs a tool declared with an explicit task start within the request
/// until it calls `ctx.start_task()`, then turns it into a task.
async fn run_until_task_start(
    round: &Round<'_>,
    call: TaskCall<'_>,
    mut run: Run,
) -> Result<Value, ErrorObject> {
    let (tool, ctx) = (call.tool, call.ctx);
    let mut requested = ctx.allow_start();
    let first = tokio::select! {
        outcome = &mut run => FirstEvent::Finished(Box::new(outcome)),
        Ok(started) = &mut requested => FirstEvent::StartRequested(started),
    };
    let outcome = match first {
        FirstEvent::Finished(outcome) => *outcome,
        FirstEvent::StartRequested(started) => {
            if ctx.with_input_book(|book| book.has_unmet_input()) {
                // Input registered before the start wins, as in any run.
                drop(run);
                return respond(round, tool, Err(Failure::InputRequired));
            }
            match create_task(round.env(), call, run).await {
                Creation::Created(created) => {
                    let _ = started.send(());
                    return Ok(created);
                }
                Creation::Failed(error) => return Err(error),
                Creation::Declined(run) => {
                    let _ = started.send(());
                    run.await
                }
            }
        }
    };
    let outcome = settle(outcome, tool, round.env().error_details);
    respond(round, tool, outcome)
}

/// A handler's outcome, with a caught panic as an internal failure.
fn settle(
    outcome: <Run as std::future::Future>::Output,
    tool: &RegisteredTool,
    details: ErrorDetails,
) -> Result<CallToolResult, Failure> {
    match outcome {
        Ok(result) => result.or_else(|error| error.settle(tool.name(), details)),
        Err(panic) => Err(Failure::Internal(panic_message(&*panic))),
    }
}

/// Renders a finished synchronous run as the response, once its result
/// passed the tool's `outputSchema`.
fn respond(
    round: &Round<'_>,
    tool: &RegisteredTool,
    outcome: Result<CallToolResult, Failure>,
) -> Result<Value, ErrorObject> {
    round.respond(outcome.and_then(|result| tool.check_output(result)))
}

/// Runs a task's handler and renders its verdict as the task's end.
async fn end_task(
    tool: Arc<RegisteredTool>,
    ctx: Context,
    run: Run,
    meta: Arc<ResultMeta>,
    details: ErrorDetails,
) -> TaskEnd {
    let outcome = settle(run.await, &tool, details).and_then(|result| tool.check_output(result));
    match ctx
        .take_input_book()
        .verdict(Origin::Tool(tool.name()), outcome)
    {
        Verdict::Complete(result) => TaskEnd::Completed(to_object(result.completed(&meta))),
        // Inside a task input requests park instead of registering; one
        // that registered anyway was made outside the task's context.
        Verdict::InputRequired { .. } => TaskEnd::Failed(internal_error(
            tool.name(),
            "input was requested outside the task's context",
        )),
        Verdict::Failed(error) => TaskEnd::Failed(error),
    }
}

/// A result as the JSON object a task record keeps.
fn to_object(result: CallToolResult) -> Map<String, Value> {
    serde_json::from_value(to_value(result)).expect("a tool result serializes to an object")
}
