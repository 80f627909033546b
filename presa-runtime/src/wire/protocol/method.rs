//! The request methods presa serves, named once.
//!
//! A server parses the method of a request into a [`Method`] exactly once,
//! while validating it; everything after that matches on the enum, so a
//! method string is never compared twice and a new method cannot be
//! forgotten in one place and handled in another.

use std::fmt;

/// A client request presa knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `server/discover`: versions, capabilities and identity.
    ServerDiscover,
    /// `tools/list`: one page of tools.
    ToolsList,
    /// `tools/call`: run a tool.
    ToolsCall,
    /// `prompts/list`: one page of prompts.
    PromptsList,
    /// `prompts/get`: resolve a prompt with arguments.
    PromptsGet,
    /// `resources/list`: one page of resources.
    ResourcesList,
    /// `resources/templates/list`: one page of resource templates.
    ResourceTemplatesList,
    /// `resources/read`: the contents of a resource.
    ResourcesRead,
    /// `completion/complete`: suggestions for an argument.
    CompletionComplete,
    /// `subscriptions/listen`: a long-lived notification stream.
    SubscriptionsListen,
    /// `tasks/get` (Tasks extension): a task's current state.
    TasksGet,
    /// `tasks/update` (Tasks extension): answers to a task's input requests.
    TasksUpdate,
    /// `tasks/cancel` (Tasks extension): stop a task.
    TasksCancel,
}

impl Method {
    /// Every method, in the order above.
    pub const ALL: [Method; 13] = [
        Method::ServerDiscover,
        Method::ToolsList,
        Method::ToolsCall,
        Method::PromptsList,
        Method::PromptsGet,
        Method::ResourcesList,
        Method::ResourceTemplatesList,
        Method::ResourcesRead,
        Method::CompletionComplete,
        Method::SubscriptionsListen,
        Method::TasksGet,
        Method::TasksUpdate,
        Method::TasksCancel,
    ];

    /// The wire name, such as `tools/call`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::ServerDiscover => "server/discover",
            Method::ToolsList => "tools/list",
            Method::ToolsCall => "tools/call",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesList => "resources/list",
            Method::ResourceTemplatesList => "resources/templates/list",
            Method::ResourcesRead => "resources/read",
            Method::CompletionComplete => "completion/complete",
            Method::SubscriptionsListen => "subscriptions/listen",
            Method::TasksGet => "tasks/get",
            Method::TasksUpdate => "tasks/update",
            Method::TasksCancel => "tasks/cancel",
        }
    }

    /// The method named `name`, if presa knows it. Names are case-sensitive.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// Whether the method belongs to the Tasks extension, and so exists
    /// only on a server that enables it.
    pub const fn is_tasks_extension(self) -> bool {
        matches!(
            self,
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel
        )
    }
}

impl Method {
    /// The field of `params` that the `Mcp-Name` header mirrors over
    /// Streamable HTTP, for the methods that have one.
    pub const fn name_param(self) -> Option<&'static str> {
        match self {
            Method::ToolsCall | Method::PromptsGet => Some("name"),
            Method::ResourcesRead => Some("uri"),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Some("taskId"),
            Method::ServerDiscover
            | Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::SubscriptionsListen => None,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::legacy::INITIALIZE;

    #[test]
    fn every_method_parses_back_from_its_name() {
        for method in Method::ALL {
            assert_eq!(Method::parse(method.as_str()), Some(method));
        }
        assert_eq!(Method::parse("Tools/Call"), None);
        assert_eq!(Method::parse(INITIALIZE), None);
    }
}
