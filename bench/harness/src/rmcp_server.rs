//! The benchmark server written with rmcp 3.11, as a user of its public API
//! would: the same `echo`, `work` and `ask` as [`crate::presa_server`].
//!
//! rmcp's `#[tool]` macro has no task option: a task-capable tool is a
//! `call_tool` of the server's own that checks the client's capabilities
//! and hands the work to a [`TaskManager`], which then answers `tasks/get`,
//! `tasks/update` and `tasks/cancel` through the handler's methods. So
//! `call_tool` is written by hand here, and plain calls go on to the router
//! the macros generate.
//!
//! Called without tasks, `ask` answers over MRTR, by hand as rmcp has it:
//! `call_tool` returns an `InputRequiredResult` with the form and a
//! `requestState` sealed by rmcp's `RequestStateCodec` (HMAC-SHA256, with
//! the same ten-minute expiry as presa's), and completes a retry whose
//! state opens and whose answer is there. rmcp's router lists only the
//! `#[tool]` methods, so its `tools/list` names `echo` and `work`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, ElicitRequest, ElicitRequestParams, ElicitationSchema, GetTaskParams,
    GetTaskResult, InputRequest, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, RequestStateCodec, SealOptions, ServerCapabilities, ServerConfig,
    UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, ServerHandler, tool, tool_router};
use serde::Deserialize;

use crate::wire::ASK_KEY;

/// The arguments of `echo`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// The benchmark server: the generated tool router, the task store and the
/// codec that seals `ask`'s `requestState`.
#[derive(Clone)]
pub struct RmcpBench {
    tool_router: ToolRouter<RmcpBench>,
    tasks: TaskManager,
    states: std::sync::Arc<RequestStateCodec>,
}

impl Default for RmcpBench {
    fn default() -> Self {
        RmcpBench::new()
    }
}

#[tool_router]
impl RmcpBench {
    /// A server with no tasks yet.
    pub fn new() -> Self {
        RmcpBench {
            tool_router: Self::tool_router(),
            tasks: TaskManager::new(),
            states: std::sync::Arc::new(
                RequestStateCodec::try_new([7u8; 32].to_vec())
                    .expect("a 32-byte key is long enough"),
            ),
        }
    }

    /// Echoes its input.
    #[tool(description = "Echoes its input.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Returns at once; a task for clients that declare tasks.
    #[tool(description = "Returns at once; a task for clients that declare tasks.")]
    async fn work(&self) -> String {
        "done".to_owned()
    }
}

impl RmcpBench {
    /// Starts `name` as a task, if it is one of the task-capable tools.
    fn start_task(&self, name: &str) -> Option<CreateTaskResult> {
        let options = TaskOptions::new().with_poll_interval_ms(20);
        let task = match name {
            "work" => self.tasks.spawn(options, |_| Box::pin(work_task())),
            "ask" => self.tasks.spawn(options, |ctx| Box::pin(ask_task(ctx))),
            _ => return None,
        };
        Some(CreateTaskResult::new(task))
    }
}

impl RmcpBench {
    /// One MRTR round of `ask`: complete with a verified answer, or ask.
    fn ask_round(&self, request: &CallToolRequestParams) -> CallToolResponse {
        let verified = request
            .request_state
            .as_deref()
            .is_some_and(|state| self.states.open(state).is_ok());
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(ASK_KEY));
        if verified && let Some(ok) = answer.and_then(|a| a["content"]["ok"].as_bool()) {
            return CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(
                ok.to_string(),
            )]));
        }
        let ttl = SealOptions::new().ttl(Duration::from_secs(600));
        let state = self.states.seal_with(ASK_KEY.as_bytes(), &ttl);
        let requests = BTreeMap::from([(ASK_KEY.to_owned(), confirm_request())]);
        CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// The body of `work` as a task.
async fn work_task() -> Result<CallToolResult, TaskExit> {
    Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
}

/// The body of `ask` as a task: one elicitation, answered through
/// `tasks/update`.
async fn ask_task(ctx: TaskContext) -> Result<CallToolResult, TaskExit> {
    let answer = ctx.request_input(ASK_KEY, confirm_request()).await?;
    let ok = answer["content"]["ok"].as_bool().unwrap_or(false);
    Ok(CallToolResult::success(vec![ContentBlock::text(
        ok.to_string(),
    )]))
}

/// The form `ask` sends: one required boolean, `ok`.
fn confirm_request() -> InputRequest {
    let schema = ElicitationSchema::builder()
        .required_bool("ok")
        .build()
        .expect("a one-field form is valid");
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Go ahead?".to_owned(),
            requested_schema: schema,
        },
    ))
}

impl ServerHandler for RmcpBench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[ProtocolVersion::V_2026_07_28])
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks_declared = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        if tasks_declared && let Some(created) = self.start_task(&request.name) {
            return Ok(CallToolResponse::Task(created));
        }
        if request.name == "ask" {
            return Ok(self.ask_round(&request));
        }
        let call = ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_router.list_all()))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }
}
