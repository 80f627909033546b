//! A modern result or error in legacy clothes.
//!
//! The 2026-07-28 result shapes are the legacy ones plus fields, so a
//! result becomes legacy by taking away, by these rules:
//!
//! 1. the result's modern-only members go: `resultType`, the caching hints
//!    `ttlMs` and `cacheScope`, and the MRTR members `inputRequests` and
//!    `requestState` ([`MODERN_ONLY_FIELDS`]);
//! 2. so do the modern `io.modelcontextprotocol/*` keys of its `_meta`
//!    ([`MODERN_META_KEYS`]; a legacy session learnt the server's identity
//!    from `initialize`), and `_meta` itself when nothing else is left;
//!    every other `_meta` key passes through untouched;
//! 3. a tool listing gains `execution.taskSupport` ([`legacy_tool`]), and
//!    a modern `CreateTaskResult` (`resultType: task`, the task flat)
//!    becomes the legacy one, the task nested under `task`, in 2025-11-25
//!    fields;
//! 4. an error keeps its message but takes the legacy code where the eras
//!    differ ([`legacy_error`]): a missing resource is `-32002`, and a
//!    missing client capability, which has no code of its own before
//!    2026-07-28, is `-32600` without the modern `data`;
//! 5. structured output that is not an object is wrapped in one. 2026-07-28
//!    lets a tool's `outputSchema` be any schema and its
//!    `structuredContent` any value; 2025-11-25 wants an object schema
//!    (`"type": "object"` at its root) and an object, and its clients
//!    drop a tool whose listing breaks that, without a word. So a tool
//!    whose `outputSchema` is not an object schema ([`wraps_output`])
//!    shows a legacy peer `{"type": "object", "properties": {"result": S},
//!    "required": ["result"]}` ([`legacy_output_schema`], with `S`'s
//!    `$defs` lifted to the root, where its `$ref`s point), and each of
//!    its results carries `{"result": v}` ([`wrap_structured_content`]).
//!    The text content, which carries the JSON of `v`, is left as it is,
//!    and a tool whose schema is an object schema is never wrapped, so the
//!    rule follows the schema, never the value. In a tool listing, a
//!    boolean schema among the root `properties` of either schema takes
//!    its object form (`{}`, `{"not": {}}`), which 2025-11-25 requires
//!    there.
//!
//! The legacy result shapes allow extra members, so the schema alone would
//! not catch a leak: these rules are what keep the eras apart.

use serde_json::{Map, Value};

use super::tasks::{LegacyCreateTaskResult, LegacyTask, TaskSupport, ToolExecution};
use crate::wire::extensions::CreateTaskResult as ModernCreated;
use crate::wire::jsonrpc::{ErrorObject, codes};
use crate::wire::methods::RESOURCE_NOT_FOUND_MESSAGE;
use crate::wire::protocol::{
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION,
    META_SERVER_INFO, META_SUBSCRIPTION_ID, ResultType,
};

/// Result members only the modern era has.
pub const MODERN_ONLY_FIELDS: [&str; 5] = [
    "resultType",
    "ttlMs",
    "cacheScope",
    "inputRequests",
    "requestState",
];

/// `_meta` keys only the modern era has.
pub const MODERN_META_KEYS: [&str; 6] = [
    META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

/// `result` without its modern-only members (rules 1 and 2).
pub fn legacy_result(result: Value) -> Value {
    let Value::Object(mut members) = result else {
        return result;
    };
    if members.get("resultType").and_then(Value::as_str) == Some(ResultType::Task.as_str())
        && let Some(created) = created_task(&members)
    {
        return created;
    }
    for field in MODERN_ONLY_FIELDS {
        members.remove(field);
    }
    strip_modern_meta(&mut members);
    Value::Object(members)
}

/// A modern `CreateTaskResult` as the legacy one (rule 3); `None` when
/// `members` is not one.
fn created_task(members: &Map<String, Value>) -> Option<Value> {
    let modern: ModernCreated = serde_json::from_value(Value::Object(members.clone())).ok()?;
    let mut meta = Map::new();
    if let Some(modern_meta) = modern.meta {
        meta.insert("_meta".into(), serde_json::to_value(modern_meta).ok()?);
        strip_modern_meta(&mut meta);
    }
    let created = LegacyCreateTaskResult {
        task: LegacyTask::from(modern.task),
        meta: match meta.remove("_meta") {
            Some(Value::Object(kept)) => Some(kept),
            _ => None,
        },
    };
    serde_json::to_value(created).ok()
}

/// Takes the modern keys out of `object`'s `_meta`, and `_meta` out when
/// it is left empty.
pub fn strip_modern_meta(object: &mut Map<String, Value>) {
    let Some(Value::Object(meta)) = object.get_mut("_meta") else {
        return;
    };
    for key in MODERN_META_KEYS {
        meta.remove(key);
    }
    if meta.is_empty() {
        object.remove("_meta");
    }
}

/// A modern tool listing as a legacy one, declaring `support` (rule 3),
/// with its schemas in the legacy shape (rule 5).
pub fn legacy_tool(tool: Value, support: TaskSupport) -> Value {
    let Value::Object(mut members) = tool else {
        return tool;
    };
    let execution = ToolExecution {
        task_support: Some(support),
    };
    members.insert(
        "execution".into(),
        serde_json::to_value(execution).expect("an execution serializes"),
    );
    if let Some(output) = members.remove("outputSchema") {
        members.insert("outputSchema".into(), legacy_output_schema(output));
    }
    for schema in ["inputSchema", "outputSchema"] {
        if let Some(Value::Object(schema)) = members.get_mut(schema) {
            object_form_properties(schema);
        }
    }
    Value::Object(members)
}

/// The property a non-object structured output is wrapped in for a legacy
/// peer (rule 5).
pub const WRAPPED_OUTPUT: &str = "result";

/// Whether a tool with `output_schema` has its structured output wrapped
/// for a legacy peer: it declares a schema that is not an object schema
/// (rule 5).
pub fn wraps_output(output_schema: Option<&Value>) -> bool {
    output_schema.is_some_and(|schema| schema.get("type") != Some(&Value::from("object")))
}

/// `schema`, an `outputSchema`, as a legacy peer may read it: itself when
/// it is an object schema, otherwise an object schema with `schema` as
/// its one required property, [`WRAPPED_OUTPUT`] (rule 5).
pub fn legacy_output_schema(schema: Value) -> Value {
    if !wraps_output(Some(&schema)) {
        return schema;
    }
    let mut inner = match schema {
        Value::Object(inner) => inner,
        Value::Bool(accepts) => object_form(accepts),
        _ => Map::new(),
    };
    let mut wrapper = Map::new();
    // `$ref`s inside point at the root's definitions, so they move up.
    for lifted in ["$schema", "$defs", "definitions"] {
        if let Some(value) = inner.remove(lifted) {
            wrapper.insert(lifted.to_owned(), value);
        }
    }
    wrapper.insert("type".into(), "object".into());
    wrapper.insert(
        "properties".into(),
        Value::Object(Map::from_iter([(
            WRAPPED_OUTPUT.to_owned(),
            Value::Object(inner),
        )])),
    );
    wrapper.insert("required".into(), Value::Array(vec![WRAPPED_OUTPUT.into()]));
    Value::Object(wrapper)
}

/// Wraps the `structuredContent` of `result`, a `CallToolResult`, in
/// `{"result": …}` (rule 5); a result without structured content is left
/// as it is.
pub fn wrap_structured_content(result: &mut Map<String, Value>) {
    if let Some(structured) = result.remove("structuredContent") {
        let wrapped = Map::from_iter([(WRAPPED_OUTPUT.to_owned(), structured)]);
        result.insert("structuredContent".into(), Value::Object(wrapped));
    }
}

/// Gives the boolean schemas among `schema`'s root `properties` their
/// object form, as 2025-11-25 requires there (rule 5).
fn object_form_properties(schema: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        if let Value::Bool(accepts) = *property {
            *property = Value::Object(object_form(accepts));
        }
    }
}

/// The object form of a boolean schema: `{}` accepts everything, and
/// `{"not": {}}` nothing.
fn object_form(accepts: bool) -> Map<String, Value> {
    let mut schema = Map::new();
    if !accepts {
        schema.insert("not".into(), Value::Object(Map::new()));
    }
    schema
}

/// `error` with the code a legacy peer expects (rule 4).
pub fn legacy_error(error: ErrorObject) -> ErrorObject {
    match error.code {
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            ErrorObject::new(codes::INVALID_REQUEST, error.message)
        }
        codes::INVALID_PARAMS if is_missing_resource(&error) => ErrorObject {
            code: codes::LEGACY_RESOURCE_NOT_FOUND,
            ..error
        },
        _ => error,
    }
}

fn is_missing_resource(error: &ErrorObject) -> bool {
    error.message.starts_with(RESOURCE_NOT_FOUND_MESSAGE)
        && error.data.as_ref().is_some_and(|d| d.get("uri").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::legacy::schema_check::assert_valid;
    use crate::wire::{
        CacheScope, CallToolResult, Content, ListToolsResult, ResultMeta, ResultType, Tool,
        ToolsPage,
    };
    use serde_json::json;

    fn server_meta() -> ResultMeta {
        let mut meta = ResultMeta {
            server_info: Some(crate::wire::Implementation::new("s", "1")),
            ..Default::default()
        };
        meta.other.insert("com.example/trace".into(), json!("t1"));
        meta
    }

    #[test]
    fn a_tool_result_loses_its_modern_members_and_keeps_foreign_meta() {
        let result = CallToolResult {
            result_type: ResultType::Complete,
            content: vec![Content::text("hi")],
            meta: Some(server_meta()),
            ..Default::default()
        };
        let legacy = legacy_result(serde_json::to_value(result).unwrap());
        assert_valid("CallToolResult", &legacy);
        assert!(legacy.get("resultType").is_none());
        assert_eq!(legacy["_meta"], json!({"com.example/trace": "t1"}));
    }

    #[test]
    fn a_tool_list_loses_caching_hints_and_gains_execution() {
        let tool = Tool {
            name: "t".into(),
            title: None,
            description: None,
            input_schema: json!({"type": "object"}),
            output_schema: None,
            annotations: None,
            meta: None,
        };
        let tool = legacy_tool(serde_json::to_value(tool).unwrap(), TaskSupport::Required);
        let list = ListToolsResult {
            result_type: ResultType::Complete,
            items: ToolsPage::default(),
            next_cursor: None,
            ttl_ms: 0,
            cache_scope: CacheScope::Public,
            meta: Some(ResultMeta {
                server_info: Some(crate::wire::Implementation::new("s", "1")),
                ..Default::default()
            }),
        };
        let mut legacy = legacy_result(serde_json::to_value(list).unwrap());
        legacy["tools"] = json!([tool]);
        assert_valid("ListToolsResult", &legacy);
        for gone in ["resultType", "ttlMs", "cacheScope", "_meta"] {
            assert!(legacy.get(gone).is_none(), "{gone}");
        }
        assert_eq!(legacy["tools"][0]["execution"]["taskSupport"], "required");
    }

    #[test]
    fn a_created_task_nests_its_task_in_legacy_fields() {
        let modern = json!({
            "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2025-11-25T10:30:00.000Z", "lastUpdatedAt": "2025-11-25T10:30:00.000Z",
            "ttlMs": 60000, "pollIntervalMs": 20,
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}
        });
        let legacy = legacy_result(modern);
        assert_valid("CreateTaskResult", &legacy);
        assert_eq!(legacy["task"]["ttl"], 60000);
        assert_eq!(legacy["task"]["pollInterval"], 20);
        assert!(legacy.get("_meta").is_none() && legacy.get("resultType").is_none());
    }

    #[test]
    fn errors_take_the_legacy_codes() {
        let missing = ErrorObject::new(codes::INVALID_PARAMS, "Resource not found: `x`")
            .with_data(json!({"uri": "x"}));
        let legacy = legacy_error(missing);
        assert_eq!(legacy.code, codes::LEGACY_RESOURCE_NOT_FOUND);
        assert_eq!(legacy.data, Some(json!({"uri": "x"})));
        let refused =
            ErrorObject::new(codes::INVALID_PARAMS, "no such user").with_data(json!({"uri": "x"}));
        assert_eq!(legacy_error(refused).code, codes::INVALID_PARAMS);
        let capability = ErrorObject::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "needs roots")
            .with_data(json!({"requiredCapabilities": {"roots": {}}}));
        let legacy = legacy_error(capability);
        assert_eq!(legacy.code, codes::INVALID_REQUEST);
        assert_eq!(legacy.message, "needs roots");
        assert_eq!(legacy.data, None);
        let response = json!({"jsonrpc": "2.0", "id": 1, "error": legacy});
        assert_valid("JSONRPCErrorResponse", &response);
    }

    #[test]
    fn a_non_object_output_schema_is_wrapped_with_its_definitions_lifted() {
        let list = json!({
            "type": "array",
            "items": {"$ref": "#/$defs/Note"},
            "$defs": {"Note": {"type": "object", "properties": {"id": {"type": "integer"}}}},
        });
        assert!(wraps_output(Some(&list)));
        let wrapped = legacy_output_schema(list);
        assert_eq!(
            wrapped,
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Note"}}},
                "required": ["result"],
                "$defs": {"Note": {"type": "object", "properties": {"id": {"type": "integer"}}}},
            })
        );
        let object = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
        assert!(!wraps_output(Some(&object)) && !wraps_output(None));
        assert_eq!(legacy_output_schema(object.clone()), object);
        let anything = legacy_output_schema(json!({}));
        assert_eq!(anything["properties"]["result"], json!({}));
    }

    #[test]
    fn a_listed_tool_has_legacy_schemas_and_wrapped_content_keeps_its_value() {
        let tool = json!({
            "name": "t",
            "inputSchema": {"type": "object", "properties": {"any": true, "none": false}},
            "outputSchema": {"type": "integer"},
        });
        let legacy = legacy_tool(tool, TaskSupport::Forbidden);
        assert_valid("Tool", &legacy);
        assert_eq!(
            legacy["inputSchema"]["properties"],
            json!({"any": {}, "none": {"not": {}}})
        );
        assert_eq!(
            legacy["outputSchema"]["properties"]["result"],
            json!({"type": "integer"})
        );
        let mut result = Map::new();
        result.insert("content".into(), json!([{"type": "text", "text": "7"}]));
        result.insert("structuredContent".into(), json!(7));
        wrap_structured_content(&mut result);
        assert_valid("CallToolResult", &Value::Object(result.clone()));
        assert_eq!(result["structuredContent"], json!({"result": 7}));
        let mut text_only = Map::new();
        text_only.insert("content".into(), json!([]));
        wrap_structured_content(&mut text_only);
        assert!(text_only.get("structuredContent").is_none());
    }
}
