//! [`Layered`]: a tool, prompt or resource with a layer of its own, added
//! where the handler is registered rather than on its macro.

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::completer::Completer;
use super::prompt::{PromptHandler, PromptResult};
use super::resource::{ReadCache, ReadRequest, ReadResult, ResourceDefinition, ResourceHandler};
use super::tool::{TaskPolicy, TaskStart, ToolHandler, ToolPolicy, ToolResult};
use crate::server::input::context::Context;
use crate::server::middleware::stack::{HandlerLayers, HandlerMiddleware};
use crate::server::request::error::InputRequired;
use crate::server::request::state::StateType;
use crate::wire::{Prompt, PromptArguments, Tool};

/// A handler with `layer` around its runs, outside the layers it brings
/// itself and inside the server's. It is the handler in every other way.
///
/// ```
/// use std::time::Duration;
///
/// use presa_runtime::server::{Layered, Server, ToolHandler};
/// # use presa_runtime::server::{Context, ToolResult};
/// # use presa_runtime::wire::{CallToolResult, Tool};
/// # struct BuildTool;
/// # #[async_trait::async_trait]
/// # impl ToolHandler for BuildTool {
/// #     fn definition(&self) -> Tool { Tool::new("build", serde_json::json!({"type": "object"})) }
/// #     async fn call(&self, _: Context, _: serde_json::Map<String, serde_json::Value>) -> ToolResult {
/// #         Ok(CallToolResult::from_text("built"))
/// #     }
/// # }
///
/// // `build` may take 30 seconds at most; other tools are not limited.
/// let timeout = tower::timeout::TimeoutLayer::new(Duration::from_secs(30));
/// let server = Server::builder("jobs", "1")
///     .tool(Layered::new(BuildTool, timeout))
///     .build();
/// ```
pub struct Layered<H> {
    handler: H,
    layers: HandlerLayers,
}

impl<H> Layered<H> {
    /// `handler`, with `layer` around it.
    pub fn new(handler: H, layer: impl HandlerMiddleware) -> Self {
        Layered {
            handler,
            layers: HandlerLayers::new().with(layer),
        }
    }

    /// This handler, with `layer` inside the layers already added here.
    pub fn layer(mut self, layer: impl HandlerMiddleware) -> Self {
        self.layers = self.layers.with(layer);
        self
    }
}

#[async_trait]
impl<H: ToolHandler> ToolHandler for Layered<H> {
    fn definition(&self) -> Tool {
        self.handler.definition()
    }

    fn policy(&self) -> ToolPolicy {
        self.handler.policy()
    }

    fn task_policy(
        &self,
        arguments: &Map<String, Value>,
        ctx: &Context,
    ) -> Result<TaskPolicy, InputRequired> {
        self.handler.task_policy(arguments, ctx)
    }

    fn typed_arguments(&self) -> bool {
        self.handler.typed_arguments()
    }

    fn task_start(&self) -> TaskStart {
        self.handler.task_start()
    }

    fn resumable(&self) -> bool {
        self.handler.resumable()
    }

    fn scopes(&self) -> &'static [&'static str] {
        self.handler.scopes()
    }

    fn required_state(&self) -> Vec<StateType> {
        self.handler.required_state()
    }

    fn layers(&self) -> HandlerLayers {
        self.layers.clone().with_all(self.handler.layers())
    }

    async fn call(&self, ctx: Context, arguments: Map<String, Value>) -> ToolResult {
        self.handler.call(ctx, arguments).await
    }
}

#[async_trait]
impl<H: PromptHandler> PromptHandler for Layered<H> {
    fn definition(&self) -> Prompt {
        self.handler.definition()
    }

    fn completer(&self, argument: &str) -> Option<Completer> {
        self.handler.completer(argument)
    }

    fn scopes(&self) -> &'static [&'static str] {
        self.handler.scopes()
    }

    fn required_state(&self) -> Vec<StateType> {
        self.handler.required_state()
    }

    fn layers(&self) -> HandlerLayers {
        self.layers.clone().with_all(self.handler.layers())
    }

    async fn get(&self, ctx: Context, arguments: PromptArguments) -> PromptResult {
        self.handler.get(ctx, arguments).await
    }
}

#[async_trait]
impl<H: ResourceHandler> ResourceHandler for Layered<H> {
    fn definition(&self) -> ResourceDefinition {
        self.handler.definition()
    }

    fn cache(&self) -> ReadCache {
        self.handler.cache()
    }

    fn completer(&self, variable: &str) -> Option<Completer> {
        self.handler.completer(variable)
    }

    fn scopes(&self) -> &'static [&'static str] {
        self.handler.scopes()
    }

    fn required_state(&self) -> Vec<StateType> {
        self.handler.required_state()
    }

    fn layers(&self) -> HandlerLayers {
        self.layers.clone().with_all(self.handler.layers())
    }

    async fn read(&self, ctx: Context, request: ReadRequest) -> ReadResult {
        self.handler.read(ctx, request).await
    }
}
