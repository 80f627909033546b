//! Changing what a running server offers: adding and removing tools,
//! prompts and resources, and telling listeners a resource changed.

use super::catalog::registered::{
    RegisteredPrompt, RegisteredResource, RegisteredTool, RegistrationError,
};
use super::catalog::registry::Requirements;
use super::handlers::prompt::PromptHandler;
use super::handlers::resource::ResourceHandler;
use super::handlers::tool::ToolHandler;
use super::router::{Server, Shared};

impl Server {
    /// Adds a tool, and tells the listeners following `toolsListChanged`.
    ///
    /// Every change of a running server (this method and its siblings)
    /// takes effect for the next request on every connection, and reaches
    /// the `subscriptions/listen` streams that follow it as a
    /// `notifications/*/list_changed`. An entry added here passes the
    /// checks [`ServerBuilder::build`](super::ServerBuilder::build) makes
    /// (its schemas, its state, its task policy, a name not taken yet), but
    /// a failure is a [`RegistrationError`] rather than a panic: a running
    /// server should not stop because a plugin is broken. To replace a tool,
    /// remove it first.
    ///
    /// ```
    /// use presa_runtime::server::{Server, ToolHandler};
    ///
    /// /// Replaces the plugin's tool with its new version.
    /// fn reload(server: &Server, plugin: impl ToolHandler) {
    ///     server.remove_tool("plugin");
    ///     if let Err(error) = server.add_tool(plugin) {
    ///         eprintln!("the plugin's tool is broken: {error}");
    ///     }
    /// }
    /// ```
    pub fn add_tool(&self, tool: impl ToolHandler) -> Result<(), RegistrationError> {
        let shared = self.shared();
        shared
            .registry
            .add_tool(RegisteredTool::new(tool)?, &requirements(shared))
    }

    /// Removes tool `name`, and tells the listeners; whether there was
    /// one. Calls and tasks already running it finish.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.shared().registry.remove_tool(name)
    }

    /// Adds a prompt, and tells the listeners following
    /// `promptsListChanged`. The first prompt makes the server offer
    /// prompts from then on.
    pub fn add_prompt(&self, prompt: impl PromptHandler) -> Result<(), RegistrationError> {
        let shared = self.shared();
        shared
            .registry
            .add_prompt(RegisteredPrompt::new(prompt)?, &requirements(shared))
    }

    /// Removes prompt `name`, and tells the listeners; whether there was
    /// one.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.shared().registry.remove_prompt(name)
    }

    /// Adds a resource or a resource template, and tells the listeners
    /// following `resourcesListChanged`. The first one makes the server
    /// offer resources from then on.
    pub fn add_resource(&self, resource: impl ResourceHandler) -> Result<(), RegistrationError> {
        let shared = self.shared();
        shared
            .registry
            .add_resource(RegisteredResource::new(resource)?, &requirements(shared))
    }

    /// Removes the resource at `uri`, or the resource template written
    /// `uri`, and tells the listeners; whether there was one.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.shared().registry.remove_resource(uri)
    }

    /// Tells the listeners that follow `uri` (`resourceSubscriptions`)
    /// that the resource changed, with `notifications/resources/updated`.
    /// The URI is compared exactly; a URI no stream follows reaches no one.
    ///
    /// Changes reach the streams through a bounded channel that keeps the
    /// last 64; a stream whose client reads too slowly to keep up is then
    /// told, once, that everything it follows changed: more than happened,
    /// never less.
    pub fn resource_updated(&self, uri: &str) {
        self.shared().registry.resource_updated(uri);
    }
}

/// What a new entry must find on this server.
fn requirements(shared: &Shared) -> Requirements<'_> {
    Requirements {
        state: &shared.state,
        tasks: shared.engine.is_some(),
    }
}
