//! The legacy handshake and the session-wide requests: `initialize` and
//! its result, `notifications/initialized`, `ping`, `logging/setLevel`,
//! `resources/subscribe` and `resources/unsubscribe`.
//!
//! What `initialize` declares holds for the whole session: the client's
//! capabilities here are what a modern client repeats in every request's
//! `_meta`, so [`LegacyClientCapabilities::to_modern`] turns them into the
//! [`ClientCapabilities`] the rest of presa reads.

use serde::{Deserialize, Deserializer, Serialize, de};
use serde_json::{Map, Value};

use crate::wire::extensions::UI_EXTENSION;
use crate::wire::jsonrpc::strict;
use crate::wire::protocol::{ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities};

/// Params of `initialize`: what the client is and can do, for the
/// whole session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeParams {
    /// The newest version the client speaks.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// What the client can do, for the whole session.
    pub capabilities: LegacyClientCapabilities,
    /// The client's name and version.
    #[serde(rename = "clientInfo")]
    pub client_info: Implementation,
    /// Request metadata (a progress token).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A legacy client's capabilities, as `initialize` declares them: the
/// modern [`ClientCapabilities`] fields, plus `tasks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LegacyClientCapabilities {
    /// The fields both eras share, at the same level on the wire. Of
    /// `extensions`, [`to_modern`](Self::to_modern) keeps only those
    /// legacy hosts declare here (MCP Apps).
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub core: ClientCapabilities,
    /// The client runs the server's requests as tasks (2025-11-25); presa
    /// never asks it to, and keeps the declaration as it came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Map<String, Value>>,
}

impl LegacyClientCapabilities {
    /// The same declaration as a modern request's `clientCapabilities`.
    ///
    /// Of the extensions, only MCP Apps (`io.modelcontextprotocol/ui`)
    /// carries over: its hosts declare it at `initialize`, whatever their
    /// version, and it changes only which tools are listed. Every other
    /// extension is dropped, since it may change the shape of answers a
    /// legacy client reads. Legacy tasks, above all, are asked for per
    /// request (the `task` param), not declared.
    pub fn to_modern(&self) -> ClientCapabilities {
        let extensions = self.core.extensions.as_ref().and_then(|declared| {
            let settings = declared.get(UI_EXTENSION)?;
            Some([(UI_EXTENSION.to_owned(), settings.clone())].into())
        });
        ClientCapabilities {
            extensions,
            ..self.core.clone()
        }
    }
}

/// What a legacy server offers, as its `InitializeResult` declares it:
/// the modern [`ServerCapabilities`] fields, plus `tasks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LegacyServerCapabilities {
    /// The fields both eras share, at the same level on the wire.
    /// `extensions` has no legacy form:
    /// [`from_modern`](Self::from_modern) leaves it `None`.
    #[serde(flatten, deserialize_with = "crate::wire::jsonrpc::strict::object")]
    pub core: ServerCapabilities,
    /// The server runs requests as tasks (2025-11-25).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "tasks_capability"
    )]
    pub tasks: Option<ServerTasksCapability>,
}

impl LegacyServerCapabilities {
    /// The legacy declaration of what `modern` offers: the same lists, no
    /// extensions (they have no legacy form), and `tasks` as given.
    pub fn from_modern(modern: ServerCapabilities, tasks: Option<ServerTasksCapability>) -> Self {
        LegacyServerCapabilities {
            core: ServerCapabilities {
                extensions: None,
                ..modern
            },
            tasks,
        }
    }
}

/// Reads `tasks` strictly: serde hands a field next to a flattened one
/// over from its own buffer, which [`strict`](crate::wire::strict) rule 1
/// cannot see into, so an array would otherwise be read by position.
fn tasks_capability<'de, D>(deserializer: D) -> Result<Option<ServerTasksCapability>, D::Error>
where
    D: Deserializer<'de>,
{
    match Option::<Value>::deserialize(deserializer)? {
        None => Ok(None),
        Some(value) => strict::from_value(value)
            .map(Some)
            .map_err(de::Error::custom),
    }
}

/// The server's `tasks` capability (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTasksCapability {
    /// `tasks/list` works.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Map<String, Value>>,
    /// `tasks/cancel` works.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Map<String, Value>>,
    /// Which requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
}

impl ServerTasksCapability {
    /// Task-augmented `tools/call`, with `tasks/cancel`, and `tasks/list`
    /// when `list`.
    pub fn tool_calls(list: bool) -> Self {
        ServerTasksCapability {
            list: list.then(Map::new),
            cancel: Some(Map::new()),
            requests: Some(ServerTaskRequests {
                tools: Some(ToolTaskRequests {
                    call: Some(Map::new()),
                }),
            }),
        }
    }

    /// Whether `tools/call` may be task-augmented.
    pub fn allows_tool_calls(&self) -> bool {
        self.requests
            .as_ref()
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|t| t.call.is_some())
    }
}

/// The request kinds a server runs as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTaskRequests {
    /// Tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolTaskRequests>,
}

/// The tool requests a server runs as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolTaskRequests {
    /// `tools/call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Map<String, Value>>,
}

/// The result of `initialize`: the session's version, and what the
/// server is and offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeResult {
    /// The version the session speaks: the client's, if the server
    /// speaks it, else the server's newest.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: LegacyServerCapabilities,
    /// The server's name and version.
    #[serde(rename = "serverInfo")]
    pub server_info: Implementation,
    /// Guidance for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The result's free-form `_meta`; presa sends none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Params of `logging/setLevel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelParams {
    /// The lowest level the client wants to see from now on.
    pub level: LoggingLevel,
}

/// Params of `resources/subscribe` and `resources/unsubscribe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscribeParams {
    /// The resource.
    pub uri: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::legacy::schema_check::assert_valid;
    use crate::wire::protocol::{
        ElicitationCapability, PromptsCapability, ResourcesCapability, ToolsCapability,
    };
    use crate::wire::strict;
    use serde_json::json;

    #[test]
    fn legacy_server_capabilities_are_the_modern_ones_plus_tasks() {
        let wire = json!({
            "tools": {"listChanged": true},
            "prompts": {},
            "resources": {"listChanged": true, "subscribe": true},
            "completions": {},
            "logging": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
            "experimental": {"x": {"on": true}}
        });
        let typed = LegacyServerCapabilities {
            core: ServerCapabilities {
                tools: Some(ToolsCapability {
                    list_changed: Some(true),
                }),
                prompts: Some(PromptsCapability::default()),
                resources: Some(ResourcesCapability {
                    list_changed: Some(true),
                    subscribe: Some(true),
                }),
                completions: Some(Map::new()),
                logging: Some(Map::new()),
                extensions: None,
                experimental: Some([("x".to_owned(), json!({"on": true}))].into()),
            },
            tasks: Some(ServerTasksCapability::tool_calls(true)),
        };
        assert_eq!(serde_json::to_value(&typed).unwrap(), wire);
        assert_eq!(
            strict::from_value::<LegacyServerCapabilities>(wire).unwrap(),
            typed
        );
    }

    #[test]
    fn legacy_client_capabilities_are_the_modern_ones_plus_tasks() {
        let wire = json!({
            "elicitation": {"form": {}},
            "sampling": {},
            "roots": {"listChanged": true},
            "tasks": {"requests": {"sampling": {"createMessage": {}}}},
            "experimental": {"x": {}}
        });
        let typed = LegacyClientCapabilities {
            core: ClientCapabilities {
                elicitation: Some(ElicitationCapability {
                    form: Some(Map::new()),
                    url: None,
                }),
                sampling: Some(Map::new()),
                roots: Some(json!({"listChanged": true}).as_object().unwrap().clone()),
                extensions: None,
                experimental: Some([("x".to_owned(), Map::new())].into()),
            },
            tasks: Some(
                json!({"requests": {"sampling": {"createMessage": {}}}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        };
        assert_eq!(serde_json::to_value(&typed).unwrap(), wire);
        assert_eq!(
            strict::from_value::<LegacyClientCapabilities>(wire).unwrap(),
            typed
        );
    }

    #[test]
    fn legacy_capabilities_read_strictly_around_the_shared_fields() {
        let array_tools = json!({"tools": [true]});
        assert!(strict::from_value::<LegacyServerCapabilities>(array_tools).is_err());
        let array_tasks = json!({"tasks": [{}, {}]});
        let error = strict::from_value::<LegacyServerCapabilities>(array_tasks).unwrap_err();
        assert_eq!(error.path(), ".tasks", "{error}");
        let array_elicitation = json!({"elicitation": [{}]});
        assert!(strict::from_value::<LegacyClientCapabilities>(array_elicitation).is_err());
        let none: LegacyServerCapabilities = strict::from_value(json!({"tasks": null})).unwrap();
        assert_eq!(none, LegacyServerCapabilities::default());
    }

    #[test]
    fn an_initialize_result_matches_the_legacy_schema() {
        let modern = ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(true),
            }),
            resources: Some(ResourcesCapability {
                list_changed: Some(true),
                subscribe: Some(true),
            }),
            logging: Some(Map::new()),
            extensions: Some([("x.y/z".to_owned(), json!({}))].into()),
            ..Default::default()
        };
        let result = InitializeResult {
            protocol_version: "2025-11-25".into(),
            capabilities: LegacyServerCapabilities::from_modern(
                modern,
                Some(ServerTasksCapability::tool_calls(true)),
            ),
            server_info: Implementation::new("s", "1"),
            instructions: Some("be kind".into()),
            meta: None,
        };
        let value = serde_json::to_value(&result).unwrap();
        assert_valid("InitializeResult", &value);
        assert!(value["capabilities"].get("extensions").is_none());
        assert_eq!(
            value["capabilities"]["tasks"]["requests"]["tools"]["call"],
            json!({})
        );
        let back: InitializeResult = strict::from_value(value).unwrap();
        assert!(back.capabilities.tasks.unwrap().allows_tool_calls());
    }

    #[test]
    fn initialize_params_parse_and_serialize_to_the_legacy_schema() {
        let wire = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "roots": {"listChanged": true},
                "sampling": {},
                "elicitation": {"form": {}, "url": {}},
                "tasks": {"requests": {"elicitation": {"create": {}}}}
            },
            "clientInfo": {"name": "c", "version": "1"}
        });
        let params: InitializeParams = strict::from_value(wire.clone()).unwrap();
        let modern = params.capabilities.to_modern();
        assert!(modern.supports_form_elicitation() && modern.supports_url_elicitation());
        assert!(modern.sampling.is_some() && modern.roots.is_some());
        assert!(modern.extensions.is_none());
        let mut declaring = params.capabilities.clone();
        declaring.core.extensions = Some(
            [
                ("io.modelcontextprotocol/ui".to_owned(), Map::new()),
                ("io.modelcontextprotocol/tasks".to_owned(), Map::new()),
            ]
            .into(),
        );
        let kept = declaring.to_modern().extensions.unwrap();
        assert_eq!(
            kept.keys().collect::<Vec<_>>(),
            ["io.modelcontextprotocol/ui"]
        );
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": serde_json::to_value(&params).unwrap()});
        assert_valid("InitializeRequest", &request);
    }

    #[test]
    fn set_level_and_subscribe_params_read_strictly() {
        let level: SetLevelParams = strict::from_value(json!({"level": "warning"})).unwrap();
        assert_eq!(level.level, LoggingLevel::Warning);
        assert!(strict::from_value::<SetLevelParams>(json!({"level": "loud"})).is_err());
        assert!(strict::from_value::<SubscribeParams>(json!(["file:///a"])).is_err());
    }
}
