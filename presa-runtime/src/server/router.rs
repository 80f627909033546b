//! [`Server`]: the transport-agnostic core, and [`Server::handle`], which
//! validates one request and routes it by its [`Method`].

use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::caller::Caller;
use super::caller::authorize::{ListFilter, ScopeRules};
use super::catalog::registry::Registry;
use super::input::context::InputRoute;
use super::input::request_state::StateCodec;
use super::methods::completion_complete::complete;
use super::methods::mrtr::{Inbound, RequestEnv};
use super::methods::prompts_get::get_prompt;
use super::methods::resources_read::read_resource;
use super::methods::subscriptions_listen::{ListenEnv, listen};
use super::methods::tools_call::call_tool;
use super::request::error::ErrorDetails;
use super::request::reply::{
    internal_error, method_not_found, panic_message, parse_params, respond, tasks_not_declared,
    to_value,
};
use super::request::state::StateMap;
use super::request::stream::ResponseStream;
use super::request::validate::{Validated, validate};
use super::task_engine::{Resume, TaskEngine};
use crate::util::{Budget, Charge};
use crate::wire::{
    CacheScope, DiscoverResult, EmptyResult, ErrorObject, Implementation, Message, Method,
    PaginatedParams, Request, RequestId, RequestMeta, ResultMeta, ResultType, ServerCapabilities,
    TASKS_EXTENSION, TaskIdParams, UpdateTaskParams,
};

/// How many notifications a handler may queue before `progress`/`log` wait.
const NOTIFICATION_BUFFER: usize = 64;

/// An MCP server. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

/// Everything a built server holds: filled in by the builder, read-only
/// after, and seen by no module outside the server.
pub(super) struct Shared {
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    pub(super) registry: Registry,
    pub(super) supported_versions: Vec<String>,
    pub(super) discover_ttl: Duration,
    pub(super) codec: StateCodec,
    pub(super) state: Arc<StateMap>,
    pub(super) max_in_flight: usize,
    pub(super) max_message_size: usize,
    /// What all requests together may hold: the memory limit, less the
    /// task store's share.
    pub(super) budget: Budget,
    /// What the requests of one connection may hold.
    pub(super) connection_budget: usize,
    /// How long a closed connection's requests may take to finish.
    pub(super) drain_period: Duration,
    /// The largest answer accepted, in bytes of JSON.
    pub(super) max_answer_bytes: usize,
    pub(super) extensions: BTreeMap<String, Value>,
    pub(super) engine: Option<Arc<TaskEngine>>,
    /// The `_meta` every result carries: `serverInfo`. Shared, since a
    /// task keeps it until its handler ends.
    pub(super) result_meta: Arc<ResultMeta>,
    pub(super) error_details: ErrorDetails,
    /// The scope hierarchy, and what lists show.
    pub(super) scope_rules: ScopeRules,
}

impl Shared {
    /// What lists show `caller`.
    pub(super) fn list_filter<'a>(&'a self, caller: &'a Caller) -> ListFilter<'a> {
        ListFilter {
            rules: &self.scope_rules,
            caller,
        }
    }
}

impl Server {
    pub(super) fn from_shared(shared: Shared) -> Self {
        let shared = Arc::new(shared);
        if let Some(engine) = &shared.engine {
            engine.set_resume(resumer(Arc::downgrade(&shared)));
        }
        Server { shared }
    }

    /// The scopes `request` needs that `caller` does not all hold: every
    /// scope of the tool, prompt or resource it names, when the caller
    /// lacks one (rule 2 of `authorize`); `None` when it may go on. The
    /// HTTP endpoint asks before dispatching, to answer `403` with the
    /// step-up challenge; the core checks again on its own.
    #[cfg(feature = "http-server")]
    pub(crate) fn lacking_scopes(
        &self,
        request: &Request,
        caller: &Caller,
    ) -> Option<&'static [&'static str]> {
        let param = |name| request.params.as_ref()?.get(name)?.as_str();
        let registry = &self.shared.registry;
        let scopes = match Method::parse(&request.method)? {
            Method::ToolsCall => registry.tool(param("name")?)?.scopes,
            Method::PromptsGet => registry.prompt(param("name")?)?.scopes,
            Method::ResourcesRead => registry.resolve(param("uri")?)?.0.scopes,
            Method::CompletionComplete => {
                let reference = request.params.as_ref()?.get("ref")?;
                let field = |name| reference.get(name)?.as_str();
                match field("type")? {
                    "ref/prompt" => registry.prompt(field("name")?)?.scopes,
                    "ref/resource" => registry.resource(field("uri")?)?.scopes,
                    _ => return None,
                }
            }
            _ => return None,
        };
        (!self.shared.scope_rules.permits(caller, scopes)).then_some(scopes)
    }

    /// Every scope some tool, prompt or resource declares, for the
    /// Protected Resource Metadata's `scopes_supported`.
    #[cfg(feature = "http-server")]
    pub(crate) fn declared_scopes(&self) -> std::collections::BTreeSet<&'static str> {
        self.shared.registry.declared_scopes()
    }

    /// Everything the server holds, for the files that extend it.
    pub(super) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.shared.info
    }

    /// The tool registered as `name`.
    #[cfg(feature = "http-server")]
    pub(crate) fn tool(
        &self,
        name: &str,
    ) -> Option<Arc<super::catalog::registered::RegisteredTool>> {
        self.shared.registry.tool(name)
    }

    /// How many requests one connection may run at once.
    pub(crate) fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight
    }

    /// The largest message the server accepts, in bytes.
    pub(crate) fn max_message_size(&self) -> usize {
        self.shared.max_message_size
    }

    /// The server's memory budget for requests.
    #[cfg(any(feature = "http-server", feature = "fuzzing"))]
    pub(crate) fn budget(&self) -> &Budget {
        &self.shared.budget
    }

    /// How long a closed connection's requests may take to finish.
    pub(crate) fn drain_period(&self) -> Duration {
        self.shared.drain_period
    }

    /// A new connection's memory budget, inside the server's.
    pub(crate) fn connection_budget(&self) -> Budget {
        self.shared.budget.nested(self.shared.connection_budget)
    }

    /// Handles one request: validates it, runs it, and returns the stream of
    /// messages that answer it. Nothing runs until the stream is polled.
    ///
    /// Nothing is charged to the server's memory budget: a transport of
    /// its own that wants the limits [`serve`](super::serve) and the HTTP
    /// endpoint keep must bound what it hands in.
    pub fn handle(&self, request: Request, caller: &Caller) -> ResponseStream {
        self.handle_charged(request, caller, Charge::none())
    }

    /// [`Server::handle`] for a request that holds `charge` of the memory
    /// budget: the request gives it back when its handler ends, and a call
    /// that becomes a task keeps the server's part of it while it runs.
    pub(crate) fn handle_charged(
        &self,
        request: Request,
        caller: &Caller,
        charge: Charge,
    ) -> ResponseStream {
        let id = request.id.clone();
        let Validated {
            method,
            meta,
            params,
        } = match validate(request, &self.shared.supported_versions) {
            Ok(valid) => valid,
            Err(error) => return ResponseStream::ready(respond(id, Err(error))),
        };
        let task = method
            .is_tasks_extension()
            .then(|| params.as_ref()?.get("taskId")?.as_str())
            .flatten();
        // `tool` is recorded by `tools/call`, and `task` when a call
        // becomes one.
        let span = tracing::info_span!(
            "mcp.request",
            method = %method,
            id = %id,
            subject = caller.subject.as_deref(),
            tool = tracing::field::Empty,
            task,
        );
        let request = Routed {
            method,
            id,
            meta,
            params,
        };
        self.route(request, caller, charge, InputRoute::Mrtr)
            .instrument(span)
    }

    /// Step 4 on: the method's own handling, with questions to the client
    /// going by `input`, which the request's era chose.
    pub(super) fn route(
        &self,
        request: Routed,
        caller: &Caller,
        charge: Charge,
        input: InputRoute,
    ) -> ResponseStream {
        let Routed {
            method,
            id,
            meta,
            params,
        } = request;
        let shared = &self.shared;
        let mut charge = Some(charge);
        if !shared.registry.offers().serves(method) {
            return ResponseStream::ready(respond(id, Err(method_not_found(method.as_str()))));
        }
        let registry = &shared.registry;
        let list_meta = &shared.result_meta;
        let caller = caller.clone();
        let filter = shared.list_filter(&caller);
        let stream = match method {
            Method::ServerDiscover => ResponseStream::ready(respond(id, Ok(shared.discover()))),
            Method::ToolsList => list(id, params, |p| registry.tools_page(p, list_meta, &filter)),
            Method::PromptsList => {
                list(id, params, |p| registry.prompts_page(p, list_meta, &filter))
            }
            Method::ResourcesList => list(id, params, |p| {
                registry.resources_page(p, list_meta, &filter)
            }),
            Method::ResourceTemplatesList => list(id, params, |p| {
                registry.templates_page(p, list_meta, &filter)
            }),
            Method::ToolsCall => {
                let charge = charge.take().unwrap_or_else(Charge::none);
                self.streamed(id, move |shared, notifier| async move {
                    let request = Inbound {
                        meta,
                        caller: &caller,
                        notifier,
                    };
                    call_tool(&shared.env(&input), params, request, charge).await
                })
            }
            Method::PromptsGet => self.streamed(id, move |shared, notifier| async move {
                let request = Inbound {
                    meta,
                    caller: &caller,
                    notifier,
                };
                get_prompt(&shared.env(&input), params, request).await
            }),
            Method::ResourcesRead => self.streamed(id, move |shared, notifier| async move {
                let request = Inbound {
                    meta,
                    caller: &caller,
                    notifier,
                };
                read_resource(&shared.env(&input), params, request).await
            }),
            Method::CompletionComplete => {
                let shared = Arc::clone(&self.shared);
                ResponseStream::deferred(async move {
                    let outcome =
                        complete(&shared.env(&InputRoute::Mrtr), params, meta, &caller).await;
                    respond(id, outcome)
                })
            }
            Method::SubscriptionsListen => {
                let env = ListenEnv {
                    engine: shared.engine.clone(),
                    meta: shared.result_meta.clone(),
                    offers: registry.offers(),
                    changes: registry.subscribe(),
                };
                let charge = charge.take().unwrap_or_else(Charge::none);
                listen(env, id, params, meta, caller, charge)
            }
            Method::TasksGet => self.on_task(TaskOperation::Get, id, params, meta, &caller),
            Method::TasksUpdate => self.on_task(TaskOperation::Update, id, params, meta, &caller),
            Method::TasksCancel => self.on_task(TaskOperation::Cancel, id, params, meta, &caller),
        };
        match charge {
            Some(charge) => stream.holding(charge),
            None => stream,
        }
    }

    /// A request that runs a handler (`tools/call`, `prompts/get`,
    /// `resources/read`): it runs on the response stream, with a channel
    /// for the handler's notifications.
    fn streamed<F, Fut>(&self, id: RequestId, run: F) -> ResponseStream
    where
        F: FnOnce(Arc<Shared>, mpsc::Sender<Message>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send,
    {
        let (tx, rx) = mpsc::channel(NOTIFICATION_BUFFER);
        let shared = Arc::clone(&self.shared);
        let handler = async move {
            // The handler has its own guard; this one catches a panicking
            // per-call policy or `Deserialize` impl.
            let outcome = AssertUnwindSafe(run(shared, tx))
                .catch_unwind()
                .await
                .unwrap_or_else(|panic| Err(internal_error("(dispatch)", &panic_message(&*panic))));
            respond(id, outcome)
        };
        ResponseStream::new(rx, handler.boxed())
    }

    /// A `tasks/*` request: `-32601` on a server without tasks, `-32021`
    /// for a client without the extension, else the operation.
    fn on_task(
        &self,
        operation: TaskOperation,
        id: RequestId,
        params: Option<Value>,
        meta: RequestMeta,
        caller: &Caller,
    ) -> ResponseStream {
        let method = operation.method();
        let Some(engine) = self.shared.engine.clone() else {
            return ResponseStream::ready(respond(id, Err(method_not_found(method.as_str()))));
        };
        if !meta.client_capabilities.has_extension(TASKS_EXTENSION) {
            return ResponseStream::ready(respond(id, Err(tasks_not_declared(method.as_str()))));
        }
        let caller = caller.clone();
        let result_meta = self.shared.result_meta.clone();
        ResponseStream::deferred(async move {
            let outcome = operation.run(&engine, params, &caller, result_meta).await;
            respond(id, outcome)
        })
    }
}

/// A request past steps 1 to 3: its method, id, `_meta` and the method's
/// own params.
pub(super) struct Routed {
    pub method: Method,
    pub id: RequestId,
    pub meta: RequestMeta,
    pub params: Option<Value>,
}

/// The operations of the Tasks extension's methods.
#[derive(Clone, Copy)]
enum TaskOperation {
    Get,
    Update,
    Cancel,
}

impl TaskOperation {
    fn method(self) -> Method {
        match self {
            TaskOperation::Get => Method::TasksGet,
            TaskOperation::Update => Method::TasksUpdate,
            TaskOperation::Cancel => Method::TasksCancel,
        }
    }

    async fn run(
        self,
        engine: &TaskEngine,
        params: Option<Value>,
        caller: &Caller,
        meta: Arc<ResultMeta>,
    ) -> Result<Value, ErrorObject> {
        match self {
            TaskOperation::Get => {
                let TaskIdParams { task_id } = parse_params(params)?;
                Ok(to_value(engine.get(&task_id, caller, &meta).await?))
            }
            TaskOperation::Update => {
                let params: UpdateTaskParams = parse_params(params)?;
                engine
                    .update(&params.task_id, params.input_responses, caller)
                    .await?;
                Ok(acknowledgement(&meta))
            }
            TaskOperation::Cancel => {
                let TaskIdParams { task_id } = parse_params(params)?;
                engine.cancel(&task_id, caller).await?;
                Ok(acknowledgement(&meta))
            }
        }
    }
}

impl Shared {
    /// What a request that runs a handler needs of the server, with
    /// questions going by `route`.
    fn env<'a>(&'a self, route: &'a InputRoute) -> RequestEnv<'a> {
        RequestEnv {
            route,
            registry: &self.registry,
            codec: &self.codec,
            state: &self.state,
            engine: self.engine.as_ref(),
            meta: &self.result_meta,
            error_details: self.error_details,
            max_answer_bytes: self.max_answer_bytes,
            scope_rules: &self.scope_rules,
        }
    }

    fn discover(&self) -> Value {
        to_value(DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions: self.supported_versions.clone(),
            capabilities: ServerCapabilities {
                logging: Some(Map::new()),
                extensions: (!self.extensions.is_empty()).then(|| self.extensions.clone()),
                ..self.registry.offers().capabilities()
            },
            instructions: self.instructions.clone(),
            ttl_ms: self.discover_ttl.as_millis() as u64,
            cache_scope: CacheScope::Public,
            meta: Some(ResultMeta::clone(&self.result_meta)),
        })
    }
}

/// The answer to a list request: one page, from its params.
fn list<T: serde::Serialize>(
    id: RequestId,
    params: Option<Value>,
    page: impl FnOnce(PaginatedParams) -> Result<T, ErrorObject>,
) -> ResponseStream {
    let page = parse_params(params).and_then(page).map(to_value);
    ResponseStream::ready(respond(id, page))
}

/// The answer to `tasks/update` and `tasks/cancel`.
fn acknowledgement(meta: &ResultMeta) -> Value {
    to_value(EmptyResult {
        result_type: ResultType::Complete,
        meta: Some(meta.clone()),
    })
}

/// How the task engine runs a resumable task again: through the server's
/// own tools. Weak, since the engine it is given to lives in the server.
fn resumer(shared: std::sync::Weak<Shared>) -> Resume {
    Arc::new(move |record, link| {
        let shared = shared.upgrade()?;
        super::methods::tools_call::resume_task(&shared.env(&InputRoute::Mrtr), record, link)
    })
}
