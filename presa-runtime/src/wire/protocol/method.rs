//! The request methods of the core protocol, named once, and
//! [`MethodSpec`], what a peer needs to know of any method it sends.
//!
//! A server parses the method of a request into a [`Method`] exactly once,
//! while validating it; everything after that matches on the enum, so a
//! method string is never compared twice and a new method cannot be
//! forgotten in one place and handled in another. An extension's methods
//! are not [`Method`]s: the extension names them (the Tasks extension's
//! are [`TASKS_METHODS`](crate::wire::TASKS_METHODS)), so that adding one
//! touches the extension alone.

use std::fmt;

/// A request method of the core protocol.
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
}

impl Method {
    /// Every method, in the order above.
    pub const ALL: [Method; 10] = [
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
        }
    }

    /// The core method named `name`. Names are case-sensitive.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

impl Method {
    /// The field of `params` that the `Mcp-Name` header mirrors over
    /// Streamable HTTP, for the methods that have one.
    pub const fn name_param(self) -> Option<&'static str> {
        match self {
            Method::ToolsCall | Method::PromptsGet => Some("name"),
            Method::ResourcesRead => Some("uri"),
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

/// What a peer needs to know of a method it sends: its name, and the
/// params field that the `Mcp-Name` header mirrors over Streamable HTTP.
/// A core [`Method`] has one, and so does each method an extension names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MethodSpec {
    /// The wire name, such as `tasks/get`.
    pub name: &'static str,
    /// The params field `Mcp-Name` mirrors, for a method that has one.
    pub name_param: Option<&'static str>,
}

impl From<Method> for MethodSpec {
    fn from(method: Method) -> MethodSpec {
        MethodSpec {
            name: method.as_str(),
            name_param: method.name_param(),
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
