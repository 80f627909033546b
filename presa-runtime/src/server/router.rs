//! [`Server`]: the transport-agnostic core, and [`Server::handle`], which
//! validates one request and routes it by its [`Method`], or to the
//! extension that serves it.

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
use super::extension::MethodCall;
use super::extension::table::Extensions;
use super::input::context::InputRoute;
use super::input::context::RequestInfo;
use super::input::request_state::StateCodec;
use super::methods::completion_complete::complete;
use super::methods::mrtr::{Inbound, RequestEnv, request_info};
use super::methods::prompts_get::get_prompt;
use super::methods::resources_read::read_resource;
use super::methods::subscriptions_listen::{ListenEnv, listen};
use super::methods::tools_call::call_tool;
use super::middleware::invocation::HandlerService;
use super::request::error::ErrorDetails;
use super::request::reply::{
    extension_not_declared, internal_error, method_not_found, panic_message, parse_params, respond,
    to_value,
};
use super::request::state::StateMap;
use super::request::stream::ResponseStream;
use super::request::validate::{CalledMethod, Validated, validate};
use super::task_engine::{Resume, TaskEngine};
use crate::telemetry::context;
use crate::util::{Budget, Charge};
use crate::wire::{
    CacheScope, DiscoverResult, ErrorObject, Implementation, Message, Method, PaginatedParams,
    Request, RequestId, RequestMeta, ResultMeta, ResultType, ServerCapabilities, Tool,
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
    /// The extensions, Tasks among them when it is on.
    pub(super) extensions: Extensions,
    pub(super) engine: Option<Arc<TaskEngine>>,
    /// The `_meta` every result carries: `serverInfo`. Shared, since a
    /// task keeps it until its handler ends.
    pub(super) result_meta: Arc<ResultMeta>,
    pub(super) error_details: ErrorDetails,
    /// The layers around every handler; `None` without any.
    pub(super) layers: Option<HandlerService>,
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
        let rules = &self.shared.scope_rules;
        // A handler hidden from the caller goes on to the core, which
        // answers it as unknown: a challenge would tell it is there.
        let scopes_of = |item: super::caller::authorize::CatalogItem<'_>| {
            rules.visible(caller, &item).then_some(item.scopes())
        };
        let scopes = match Method::parse(&request.method)? {
            Method::ToolsCall => scopes_of(registry.tool(param("name")?)?.catalog_item())?,
            Method::PromptsGet => scopes_of(registry.prompt(param("name")?)?.catalog_item())?,
            Method::ResourcesRead => scopes_of(registry.resolve(param("uri")?)?.0.catalog_item())?,
            Method::CompletionComplete => {
                let reference = request.params.as_ref()?.get("ref")?;
                let field = |name| reference.get(name)?.as_str();
                match field("type")? {
                    "ref/prompt" => scopes_of(registry.prompt(field("name")?)?.catalog_item())?,
                    "ref/resource" => scopes_of(registry.resource(field("uri")?)?.catalog_item())?,
                    _ => return None,
                }
            }
            _ => return None,
        };
        (!rules.permits(caller, scopes)).then_some(scopes)
    }

    /// The field of `method`'s params that the `Mcp-Name` header mirrors
    /// over Streamable HTTP: a core method's, or the extension method's.
    #[cfg(feature = "http-server")]
    pub(crate) fn name_param(&self, method: &str) -> Option<&'static str> {
        match Method::parse(method) {
            Some(method) => method.name_param(),
            None => self.shared.extensions.name_param(method),
        }
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
        // `tool` is recorded by `tools/call`, and `task` when a call
        // becomes one, or by the Tasks methods.
        let span = tracing::info_span!(
            "mcp.request",
            method = method.as_str(),
            id = %id,
            subject = caller.subject.as_deref(),
            tool = tracing::field::Empty,
            task = tracing::field::Empty,
        );
        // The modern era reads trace context from `_meta` alone: an HTTP
        // request's headers belong to the HTTP hop (rule 2 of `telemetry`).
        context::continue_remote(&span, Some(&meta.other), &|_| None);
        let measure = measured(method.as_str(), &params, &meta.protocol_version);
        let stream = match method {
            CalledMethod::Core(method) => {
                let request = Routed {
                    method,
                    id,
                    meta,
                    params,
                };
                self.route(request, caller, charge, InputRoute::Mrtr)
            }
            CalledMethod::Other(name) => self
                .extension_call(&name, id, meta, params, caller)
                .holding(charge),
        };
        measure(stream).instrument(span)
    }

    /// A request for a method no core method has: `-32601` when no
    /// extension serves it either, `-32021` when the method needs the
    /// extension declared and the request did not, else the method's
    /// handler.
    fn extension_call(
        &self,
        name: &str,
        id: RequestId,
        meta: RequestMeta,
        params: Option<Value>,
        caller: &Caller,
    ) -> ResponseStream {
        let shared = &self.shared;
        let Some(served) = shared.extensions.method(name) else {
            return ResponseStream::ready(respond(id, Err(method_not_found(name))));
        };
        if served.method.declared_by_client
            && !meta.client_capabilities.has_extension(served.extension)
        {
            let error = extension_not_declared(served.extension, name);
            return ResponseStream::ready(respond(id, Err(error)));
        }
        let request = request_info(&meta, caller);
        let decoration = self.decoration(served.method.name, || request.clone());
        let call = MethodCall {
            params,
            request,
            state: Arc::clone(&shared.state),
            result_meta: Arc::clone(&shared.result_meta),
            page_size: shared.registry.page_size(),
        };
        let handler = Arc::clone(&served.method.handler);
        let origin = served.method.name;
        ResponseStream::deferred(async move {
            let outcome = AssertUnwindSafe(async move { handler(call).await })
                .catch_unwind()
                .await
                .unwrap_or_else(|panic| Err(internal_error(origin, &panic_message(&*panic))));
            respond(id, decorated(decoration.as_ref(), outcome))
        })
    }

    /// What the extensions add to the results of `method` for the
    /// request; `None` when the server has no extension to ask, and then
    /// `request` does not run.
    fn decoration(
        &self,
        method: &'static str,
        request: impl FnOnce() -> RequestInfo,
    ) -> Option<Decoration> {
        (!self.shared.extensions.is_empty()).then(|| Decoration {
            shared: Arc::clone(&self.shared),
            method,
            request: request(),
        })
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
        let decoration = self.decoration(method.as_str(), || request_info(&meta, &caller));
        let decoration = decoration.as_ref();
        let stream = match method {
            Method::ServerDiscover => {
                let discovered = decorated(decoration, Ok(shared.discover()));
                ResponseStream::ready(respond(id, discovered))
            }
            Method::ToolsList => list(id, params, decoration, |p| {
                let listed = |tool: &Tool| match decoration {
                    Some(Decoration { request, .. }) => shared.extensions.lists_tool(tool, request),
                    None => true,
                };
                let mut page = registry.tools_page(p, list_meta, &filter, listed)?;
                if shared.extensions.lists_tools_per_request() {
                    page.cache_scope = CacheScope::Private;
                }
                if let Some(Decoration { request, .. }) = decoration {
                    for tool in &mut page.items.tools {
                        shared.extensions.decorate_tool(tool, request);
                    }
                }
                Ok(page)
            }),
            Method::PromptsList => list(id, params, decoration, |p| {
                registry.prompts_page(p, list_meta, &filter)
            }),
            Method::ResourcesList => list(id, params, decoration, |p| {
                registry.resources_page(p, list_meta, &filter)
            }),
            Method::ResourceTemplatesList => list(id, params, decoration, |p| {
                registry.templates_page(p, list_meta, &filter)
            }),
            Method::ToolsCall => {
                let charge = charge.take().unwrap_or_else(Charge::none);
                self.streamed(id, decoration, move |shared, notifier| async move {
                    let request = Inbound {
                        meta,
                        caller: &caller,
                        notifier,
                    };
                    call_tool(&shared.env(&input), params, request, charge).await
                })
            }
            Method::PromptsGet => {
                self.streamed(id, decoration, move |shared, notifier| async move {
                    let request = Inbound {
                        meta,
                        caller: &caller,
                        notifier,
                    };
                    get_prompt(&shared.env(&input), params, request).await
                })
            }
            Method::ResourcesRead => {
                self.streamed(id, decoration, move |shared, notifier| async move {
                    let request = Inbound {
                        meta,
                        caller: &caller,
                        notifier,
                    };
                    read_resource(&shared.env(&input), params, request).await
                })
            }
            Method::CompletionComplete => {
                let shared = Arc::clone(&self.shared);
                let decoration = decoration.cloned();
                ResponseStream::deferred(async move {
                    let outcome =
                        complete(&shared.env(&InputRoute::Mrtr), params, meta, &caller).await;
                    respond(id, decorated(decoration.as_ref(), outcome))
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
        };
        match charge {
            Some(charge) => stream.holding(charge),
            None => stream,
        }
    }

    /// A request that runs a handler (`tools/call`, `prompts/get`,
    /// `resources/read`): it runs on the response stream, with a channel
    /// for the handler's notifications.
    fn streamed<F, Fut>(
        &self,
        id: RequestId,
        decoration: Option<&Decoration>,
        run: F,
    ) -> ResponseStream
    where
        F: FnOnce(Arc<Shared>, mpsc::Sender<Message>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send,
    {
        let (tx, rx) = mpsc::channel(NOTIFICATION_BUFFER);
        let shared = Arc::clone(&self.shared);
        let decoration = decoration.cloned();
        let handler = async move {
            // The handler has its own guard; this one catches a panicking
            // per-call policy or `Deserialize` impl.
            let outcome = AssertUnwindSafe(run(shared, tx))
                .catch_unwind()
                .await
                .unwrap_or_else(|panic| Err(internal_error("(dispatch)", &panic_message(&*panic))));
            respond(id, decorated(decoration.as_ref(), outcome))
        };
        ResponseStream::new(rx, handler.boxed())
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

/// What the extensions add to the results of one request.
#[derive(Clone)]
struct Decoration {
    shared: Arc<Shared>,
    method: &'static str,
    request: RequestInfo,
}

/// `outcome`, a result of which gets what the extensions add to its
/// `_meta`.
fn decorated(
    decoration: Option<&Decoration>,
    mut outcome: Result<Value, ErrorObject>,
) -> Result<Value, ErrorObject> {
    if let (Some(decoration), Ok(result)) = (decoration, &mut outcome) {
        let Decoration {
            shared,
            method,
            request,
        } = decoration;
        shared.extensions.decorate_result(method, result, request);
    }
    outcome
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
            layers: self.layers.as_ref(),
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
                extensions: self.extensions.capabilities(),
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
    decoration: Option<&Decoration>,
    page: impl FnOnce(PaginatedParams) -> Result<T, ErrorObject>,
) -> ResponseStream {
    let page = parse_params(params).and_then(page).map(to_value);
    ResponseStream::ready(respond(id, decorated(decoration, page)))
}

/// How the task engine runs a resumable task again: through the server's
/// own tools. Weak, since the engine it is given to lives in the server.
fn resumer(shared: std::sync::Weak<Shared>) -> Resume {
    Arc::new(move |record, link| {
        let shared = shared.upgrade()?;
        super::methods::tools_call::resume_task(&shared.env(&InputRoute::Mrtr), record, link)
    })
}

/// What records a request's metrics as its response passes (see
/// `telemetry::metrics`): the method, the tool a `tools/call` names, and
/// the protocol version. Without telemetry it passes the stream through.
///
/// Every request pays for this even while no meter provider is installed,
/// so it copies as little as it can: a core method's name and a version
/// presa speaks are static strings, and only a tool's name is copied.
pub(super) fn measured(
    method: &str,
    params: &Option<Value>,
    protocol_version: &str,
) -> impl FnOnce(ResponseStream) -> ResponseStream + use<> {
    #[cfg(feature = "otel")]
    {
        use crate::telemetry::metrics::{EndedRequest, RequestOutcome, label, request_ended};
        let started = std::time::Instant::now();
        let core = Method::parse(method);
        let tool = (core == Some(Method::ToolsCall))
            .then(|| params.as_ref()?.get("name")?.as_str().map(str::to_owned))
            .flatten();
        let method = match core {
            Some(core) => label(core.as_str()),
            None => label(method.to_owned()),
        };
        let version = crate::telemetry::metrics::version_label(protocol_version);
        move |stream: ResponseStream| {
            stream.inspect_response(move |response| {
                request_ended(EndedRequest {
                    method,
                    tool,
                    protocol_version: Some(version),
                    outcome: RequestOutcome::of(response),
                    took: started.elapsed(),
                })
            })
        }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (method, params, protocol_version);
        |stream| stream
    }
}
