//! [`Server::handle_legacy`]: one request of a legacy session, from its
//! method to its legacy response (rules 2 to 4 of the
//! [module docs](super)).

use std::mem;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::session::{LegacySession, session_caller};
use super::shared::SessionChange;
use super::tasks::{OneTaskOp, TaskOp};
use crate::server::caller::Caller;
use crate::server::handlers::tool::{TaskPolicy, ToolPolicy};
use crate::server::input::context::InputRoute;
use crate::server::methods::mrtr::request_info;
use crate::server::methods::subscriptions_listen::MAX_RESOURCE_SUBSCRIPTIONS;
use crate::server::request::reply::{
    invalid_request, method_not_found, parse_params, respond, to_value,
};
use crate::server::request::stream::ResponseStream;
use crate::server::router::{Routed, Server, measured};
use crate::telemetry::context;
use crate::util::Charge;
use crate::wire::legacy::lifecycle::{SetLevelParams, SubscribeParams};
use crate::wire::legacy::render::{
    legacy_error, legacy_result, legacy_tool, wrap_structured_content, wraps_output,
};
use crate::wire::legacy::tasks::TaskSupport;
use crate::wire::legacy::{INITIALIZE, LegacyMethod};
use crate::wire::{
    ErrorObject, Method, Outcome, PaginatedParams, Request, RequestId, RequestMeta, Response,
    TASKS_EXTENSION, Tool, codes,
};

impl Server {
    /// Handles `request` of a legacy `session`, holding `charge` of the
    /// memory budget until its handler ends, and returns the stream of
    /// messages that answer it, in the session's era. Over HTTP, where
    /// each request authenticates, `caller` is the request's own (with the
    /// scopes of the token it came with, which a step-up may have grown);
    /// elsewhere the session's.
    pub(crate) fn handle_legacy(
        &self,
        request: Request,
        session: &Arc<LegacySession>,
        caller: Option<&Caller>,
        charge: Charge,
    ) -> ResponseStream {
        let caller = &match caller {
            Some(caller) => session_caller(caller, session),
            None => session.caller().clone(),
        };
        let span = tracing::info_span!(
            "mcp.request",
            method = request.method,
            id = %request.id,
            subject = caller.subject.as_deref(),
            era = session.version(),
            tool = tracing::field::Empty,
            task = tracing::field::Empty,
        );
        // A client of this era may send trace context as HTTP headers
        // rather than in `_meta` (rule 2 of `telemetry`).
        let meta = request
            .params
            .as_ref()
            .and_then(|params| params.get("_meta"));
        let header = |name: &str| caller.http_header(name);
        context::continue_remote(&span, meta.and_then(Value::as_object), &header);
        let measure = measured(&request.method, &request.params, session.version());
        let stream = match LegacyMethod::parse(&request.method) {
            Some(method) => self.legacy_method(method, request, session, caller, charge),
            None => ready(request.id, Err(method_not_found(&request.method))),
        };
        measure(stream.map_response(legacy_response)).instrument(span)
    }

    fn legacy_method(
        &self,
        method: LegacyMethod,
        request: Request,
        session: &Arc<LegacySession>,
        caller: &Caller,
        charge: Charge,
    ) -> ResponseStream {
        let Request {
            id,
            method: name,
            params,
            ..
        } = request;
        let outcome = match method {
            LegacyMethod::Shared(method) => {
                return self.shared_method(method, id, params, session, caller, charge);
            }
            LegacyMethod::Initialize => Err(invalid_request(format!(
                "the session is already initialized; `{INITIALIZE}` comes once, first"
            ))),
            LegacyMethod::Ping => Ok(empty()),
            LegacyMethod::SetLevel => {
                let change = parse_params::<SetLevelParams>(params)
                    .map(|p| SessionChange::SetLogLevel(p.level));
                return changing(id, session, change);
            }
            LegacyMethod::Subscribe | LegacyMethod::Unsubscribe
                if !self.shared().registry.offers().resources =>
            {
                Err(method_not_found(&name))
            }
            LegacyMethod::Subscribe => {
                let change =
                    parse_params::<SubscribeParams>(params).map(|p| SessionChange::Subscribe {
                        uri: p.uri,
                        limit: MAX_RESOURCE_SUBSCRIPTIONS,
                    });
                return changing(id, session, change);
            }
            LegacyMethod::Unsubscribe => {
                let change = parse_params::<SubscribeParams>(params)
                    .map(|p| SessionChange::Unsubscribe(p.uri));
                return changing(id, session, change);
            }
            LegacyMethod::TasksResult => {
                // It waits for its task to end, which may need requests
                // still to be read: it holds no share of the budget.
                drop(charge);
                return self.legacy_task(TaskOp::OnTask(OneTaskOp::Result), id, params, session);
            }
            LegacyMethod::TasksList => return self.legacy_task(TaskOp::List, id, params, session),
            LegacyMethod::TasksGet => {
                return self.legacy_task(TaskOp::OnTask(OneTaskOp::Get), id, params, session);
            }
            LegacyMethod::TasksCancel => {
                let op = TaskOp::OnTask(OneTaskOp::Cancel);
                return self.legacy_task(op, id, params, session);
            }
        };
        ready(id, outcome)
    }

    /// A method both eras share: through the modern core, with the
    /// session's `_meta`.
    fn shared_method(
        &self,
        method: Method,
        id: RequestId,
        mut params: Option<Value>,
        session: &Arc<LegacySession>,
        caller: &Caller,
        charge: Charge,
    ) -> ResponseStream {
        let mut meta = match session.request_meta(&mut params) {
            Ok(meta) => meta,
            Err(error) => return ready(id, Err(error)),
        };
        let mut task = false;
        let mut wraps = false;
        match method {
            Method::ToolsList => return ready(id, self.legacy_tools(params, &meta, caller)),
            Method::ToolsCall => {
                // A call asked to run as a task may still run synchronously
                // (at the task cap): its result is wrapped all the same.
                wraps = self.wraps_output(called_tool(&params));
                match self.asks_for_task(&mut params) {
                    Err(error) => return ready(id, Err(error)),
                    Ok(true) => {
                        task = true;
                        let extensions =
                            meta.client_capabilities.extensions.get_or_insert_default();
                        extensions.insert(TASKS_EXTENSION.to_owned(), Map::new());
                    }
                    Ok(false) => {}
                }
            }
            _ => {}
        }
        let request = Routed {
            method,
            id,
            meta,
            params,
        };
        let input = InputRoute::Legacy {
            peer: session.peer().clone(),
            task: None,
        };
        let mut stream = self.route(request, caller, charge, input);
        if wraps {
            stream = stream.map_response(wrap_structured_response);
        }
        match (&self.shared().engine, task) {
            (Some(engine), true) => {
                let (engine, session) = (Arc::clone(engine), Arc::clone(session));
                stream.inspect_response(move |response| {
                    session
                        .followers
                        .follow_created(response, &engine, session.caller());
                })
            }
            _ => stream,
        }
    }

    /// One page of tools, each telling whether it runs as a task.
    fn legacy_tools(
        &self,
        params: Option<Value>,
        meta: &RequestMeta,
        caller: &Caller,
    ) -> Result<Value, ErrorObject> {
        let shared = self.shared();
        let filter = shared.list_filter(caller);
        // What the session declared at `initialize` decides, as a modern
        // request's own capabilities do.
        let request = (!shared.extensions.is_empty()).then(|| request_info(meta, caller));
        let listed = |tool: &Tool| {
            request
                .as_ref()
                .is_none_or(|request| shared.extensions.lists_tool(tool, request))
        };
        let page = parse_params::<PaginatedParams>(params).and_then(|p| {
            shared
                .registry
                .tools_page(p, &shared.result_meta, &filter, listed)
        })?;
        let mut page = to_value(page);
        if let Some(tools) = page.get_mut("tools").and_then(Value::as_array_mut) {
            for tool in tools {
                let name = tool["name"].as_str().unwrap_or_default().to_owned();
                let support = self.task_support(&name).unwrap_or(TaskSupport::Forbidden);
                *tool = legacy_tool(mem::take(tool), support);
            }
        }
        Ok(page)
    }

    /// Whether tool `name`'s structured output is wrapped for a legacy
    /// client (rule 5 of [`render`](crate::wire::legacy::render)); `false`
    /// for a tool the server does not have.
    pub(super) fn wraps_output(&self, name: &str) -> bool {
        self.shared()
            .registry
            .tool(name)
            .is_some_and(|tool| wraps_output(tool.definition.output_schema.as_ref()))
    }

    /// How tool `name`'s policy reads to a legacy client (see `tasks`);
    /// `None` for a tool the server does not have.
    fn task_support(&self, name: &str) -> Option<TaskSupport> {
        let shared = self.shared();
        let policy = shared.registry.tool(name)?.policy;
        Some(match (&shared.engine, policy) {
            (None, _) | (_, ToolPolicy::Fixed(TaskPolicy::Sync)) => TaskSupport::Forbidden,
            (_, ToolPolicy::Fixed(TaskPolicy::Required)) => TaskSupport::Required,
            (_, ToolPolicy::Fixed(TaskPolicy::Optional) | ToolPolicy::PerCall) => {
                TaskSupport::Optional
            }
        })
    }

    /// Whether a `tools/call` asks to run as a task (its `task` param,
    /// which it loses); `-32601` for a task the tool cannot be, and for a
    /// tool that runs only as one, called without (rules 1 and 2 of
    /// `tasks`). An unknown tool is left to the call, which names it.
    fn asks_for_task(&self, params: &mut Option<Value>) -> Result<bool, ErrorObject> {
        let asked = params
            .as_mut()
            .and_then(Value::as_object_mut)
            .and_then(|p| p.remove("task"))
            .is_some();
        let name = called_tool(params);
        match (asked, self.task_support(name)) {
            (true, Some(TaskSupport::Forbidden)) => Err(ErrorObject::new(
                codes::METHOD_NOT_FOUND,
                format!("Tool `{name}` does not run as a task; call it without the `task` param"),
            )),
            (false, Some(TaskSupport::Required)) => Err(ErrorObject::new(
                codes::METHOD_NOT_FOUND,
                format!("Tool `{name}` runs only as a task; call it with the `task` param"),
            )),
            (asked, _) => Ok(asked),
        }
    }
}

/// The tool a `tools/call` names; empty when it names none, which the
/// call itself refuses.
fn called_tool(params: &Option<Value>) -> &str {
    params
        .as_ref()
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// A tool's result with its structured content wrapped for a legacy
/// client.
fn wrap_structured_response(mut response: Response) -> Response {
    if let Outcome::Result(Value::Object(result)) = &mut response.outcome {
        wrap_structured_content(result);
    }
    response
}

/// Rule 2's answers, and a short answer to the others.
fn ready(id: RequestId, outcome: Result<Value, ErrorObject>) -> ResponseStream {
    match outcome {
        Ok(result) => ResponseStream::ready(respond(id, Ok(result))),
        Err(error) => ResponseStream::ready(refused(id, error)),
    }
}

/// `logging/setLevel`, `resources/subscribe` or `unsubscribe`: makes
/// `change` to `session` (in the shared store, when replicas share it),
/// and answers `{}`.
fn changing(
    id: RequestId,
    session: &Arc<LegacySession>,
    change: Result<SessionChange, ErrorObject>,
) -> ResponseStream {
    let change = match change {
        Ok(change) => change,
        Err(error) => return ready(id, Err(error)),
    };
    let session = Arc::clone(session);
    ResponseStream::deferred(async move {
        let outcome = session.change(change).await.map(|()| empty());
        respond(id, outcome)
    })
}

/// A response of the modern core in legacy clothes (rule 4).
fn legacy_response(response: Response) -> Response {
    let outcome = match response.outcome {
        Outcome::Result(result) => Outcome::Result(legacy_result(result)),
        Outcome::Error(error) => Outcome::Error(legacy_error(error)),
    };
    Response {
        outcome,
        ..response
    }
}

/// The empty result of `ping`, `logging/setLevel` and the subscriptions.
fn empty() -> Value {
    Value::Object(Map::new())
}

/// A response that is the id's error `error`.
fn refused(id: RequestId, error: ErrorObject) -> Response {
    respond(id, Err(error))
}
