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
//! The synchronous `ask` is left out: it would elicit through an
//! `InputRequiredResult` round, which no figure measures.

use std::borrow::Cow;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, ElicitRequest, ElicitRequestParams, ElicitationSchema, GetTaskParams,
    GetTaskResult, InputRequest, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, ServerHandler, tool, tool_router};
use serde::Deserialize;

/// The arguments of `echo`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// The benchmark server: the generated tool router and the task store.
#[derive(Clone)]
pub struct RmcpBench {
    tool_router: ToolRouter<RmcpBench>,
    tasks: TaskManager,
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

/// The body of `work` as a task.
async fn work_task() -> Result<CallToolResult, TaskExit> {
    Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
}

/// The body of `ask` as a task: one elicitation, answered through
/// `tasks/update`.
async fn ask_task(ctx: TaskContext) -> Result<CallToolResult, TaskExit> {
    let answer = ctx.request_input("confirm", confirm_request()).await?;
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
