//! The server's table of extensions: built once, when the server is
//! built, and read by every request after.
//!
//! Building it refuses what would make a request's meaning depend on
//! registration order: an identifier without its vendor prefix, one
//! identifier twice, a method the core or another extension serves, a
//! notification another extension sends.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde_json::{Map, Value};

use super::contract::Extension;
use super::method::ExtensionMethod;
use crate::server::input::context::RequestInfo;
use crate::wire::{Method, Tool};

/// Every extension of a server, and the methods they serve by name.
#[derive(Default)]
pub(crate) struct Extensions {
    /// In registration order.
    extensions: Vec<Box<dyn Extension>>,
    methods: HashMap<&'static str, Served>,
}

/// A method an extension serves, with the extension's identifier.
pub(crate) struct Served {
    pub extension: &'static str,
    pub method: ExtensionMethod,
}

/// Why the table refused an extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TableError {
    /// The identifier has no vendor prefix.
    NoPrefix(&'static str),
    /// Two extensions have one identifier.
    TwiceRegistered(&'static str),
    /// The method is one of the core protocol's.
    CoreMethod {
        extension: &'static str,
        method: &'static str,
    },
    /// Two extensions serve one method, or one serves it twice.
    MethodTwice {
        method: &'static str,
        first: &'static str,
        second: &'static str,
    },
    /// Two extensions send one notification.
    NotificationTwice {
        notification: &'static str,
        first: &'static str,
        second: &'static str,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::NoPrefix(id) => write!(
                f,
                "extension `{id}` has no vendor prefix; name it like `com.example/{id}`"
            ),
            TableError::TwiceRegistered(id) => write!(
                f,
                "extension `{id}` is registered twice; register each extension once"
            ),
            TableError::CoreMethod { extension, method } => write!(
                f,
                "extension `{extension}` serves `{method}`, a method of the core protocol; \
                 give the extension's method a name of its own"
            ),
            TableError::MethodTwice {
                method,
                first,
                second,
            } => write!(
                f,
                "extensions `{first}` and `{second}` both serve `{method}`; \
                 one method has one extension"
            ),
            TableError::NotificationTwice {
                notification,
                first,
                second,
            } => write!(
                f,
                "extensions `{first}` and `{second}` both send `{notification}`; \
                 one notification has one extension"
            ),
        }
    }
}

impl Extensions {
    /// The table of `extensions`, or why one of them cannot be served.
    pub fn new(extensions: Vec<Box<dyn Extension>>) -> Result<Extensions, TableError> {
        let mut methods: HashMap<&'static str, Served> = HashMap::new();
        let mut notifications: HashMap<&'static str, &'static str> = HashMap::new();
        let mut ids: Vec<&'static str> = Vec::new();
        for extension in &extensions {
            let id = extension.id();
            if !id.contains('/') {
                return Err(TableError::NoPrefix(id));
            }
            if ids.contains(&id) {
                return Err(TableError::TwiceRegistered(id));
            }
            ids.push(id);
            for method in extension.methods() {
                let name = method.name;
                if Method::parse(name).is_some() {
                    return Err(TableError::CoreMethod {
                        extension: id,
                        method: name,
                    });
                }
                if let Some(served) = methods.get(name) {
                    return Err(TableError::MethodTwice {
                        method: name,
                        first: served.extension,
                        second: id,
                    });
                }
                let served = Served {
                    extension: id,
                    method,
                };
                methods.insert(name, served);
            }
            for &notification in extension.notifications() {
                if let Some(first) = notifications.insert(notification, id) {
                    return Err(TableError::NotificationTwice {
                        notification,
                        first,
                        second: id,
                    });
                }
            }
        }
        Ok(Extensions {
            extensions,
            methods,
        })
    }

    /// Whether the server has no extension.
    pub fn is_empty(&self) -> bool {
        self.extensions.is_empty()
    }

    /// The extension method called `name`.
    pub fn method(&self, name: &str) -> Option<&Served> {
        self.methods.get(name)
    }

    /// The params field `Mcp-Name` mirrors for extension method `name`.
    #[cfg(feature = "http-server")]
    pub fn name_param(&self, name: &str) -> Option<&'static str> {
        self.methods.get(name)?.method.name_param
    }

    /// What `server/discover` advertises under `capabilities.extensions`:
    /// `None` when no extension advertises anything.
    pub fn capabilities(&self) -> Option<BTreeMap<String, Value>> {
        let advertised: BTreeMap<String, Value> = self
            .extensions
            .iter()
            .filter_map(|e| Some((e.id().to_owned(), Value::Object(e.capability()?))))
            .collect();
        (!advertised.is_empty()).then_some(advertised)
    }

    /// Whether every extension lists `tool` in the `tools/list` answering
    /// `request`.
    pub fn lists_tool(&self, tool: &Tool, request: &RequestInfo) -> bool {
        self.extensions
            .iter()
            .all(|extension| extension.lists_tool(tool, request))
    }

    /// Whether any extension lists tools differently per request, which
    /// makes every `tools/list` page private.
    pub fn lists_tools_per_request(&self) -> bool {
        self.extensions
            .iter()
            .any(|extension| extension.lists_tools_per_request())
    }

    /// Merges what each extension adds into the `_meta` of `tool`.
    pub fn decorate_tool(&self, tool: &mut Tool, request: &RequestInfo) {
        for extension in &self.extensions {
            if let Some(added) = extension.tool_meta(tool, request) {
                tool.meta.get_or_insert_default().extend(added);
            }
        }
    }

    /// Merges what each extension adds into the `_meta` of `result`, the
    /// result of `method`. A result that is not an object is left alone.
    pub fn decorate_result(&self, method: &str, result: &mut Value, request: &RequestInfo) {
        let Value::Object(fields) = result else {
            return;
        };
        for extension in &self.extensions {
            if let Some(added) = extension.result_meta(method, request) {
                let meta = fields
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(meta) = meta {
                    meta.extend(added);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::extension::advertised::Advertised;
    use serde_json::json;

    /// An extension serving `methods` and sending `notifications`.
    struct Serving {
        id: &'static str,
        methods: &'static [&'static str],
        notifications: &'static [&'static str],
    }

    impl Extension for Serving {
        fn id(&self) -> &'static str {
            self.id
        }

        fn methods(&self) -> Vec<ExtensionMethod> {
            self.methods
                .iter()
                .map(|name| ExtensionMethod::new(name, |_| async { Ok(json!({})) }))
                .collect()
        }

        fn notifications(&self) -> &'static [&'static str] {
            self.notifications
        }
    }

    fn serving(
        id: &'static str,
        methods: &'static [&'static str],
        notifications: &'static [&'static str],
    ) -> Box<dyn Extension> {
        Box::new(Serving {
            id,
            methods,
            notifications,
        })
    }

    fn refusal(extensions: Vec<Box<dyn Extension>>) -> String {
        match Extensions::new(extensions) {
            Ok(_) => panic!("the table took extensions it should refuse"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn an_identifier_needs_a_vendor_prefix() {
        let message = refusal(vec![Box::new(Advertised::new("widgets", json!({})))]);
        assert_eq!(
            message,
            "extension `widgets` has no vendor prefix; name it like `com.example/widgets`"
        );
    }

    #[test]
    fn one_identifier_is_registered_once() {
        let message = refusal(vec![
            Box::new(Advertised::new("com.example/widgets", json!({}))),
            serving("com.example/widgets", &[], &[]),
        ]);
        assert!(
            message.contains("`com.example/widgets` is registered twice"),
            "{message}"
        );
    }

    #[test]
    fn no_extension_serves_a_core_method() {
        let message = refusal(vec![serving("com.example/x", &["tools/call"], &[])]);
        assert!(
            message.contains("`com.example/x` serves `tools/call`, a method of the core"),
            "{message}"
        );
    }

    #[test]
    fn one_method_has_one_extension() {
        let message = refusal(vec![
            serving("com.example/a", &["widgets/list"], &[]),
            serving("com.example/b", &["widgets/list"], &[]),
        ]);
        assert_eq!(
            message,
            "extensions `com.example/a` and `com.example/b` both serve `widgets/list`; \
             one method has one extension"
        );
        let message = refusal(vec![serving(
            "com.example/a",
            &["widgets/list", "widgets/list"],
            &[],
        )]);
        assert!(message.contains("both serve `widgets/list`"), "{message}");
    }

    #[test]
    fn one_notification_has_one_extension() {
        let message = refusal(vec![
            serving("com.example/a", &[], &["notifications/widgets"]),
            serving("com.example/b", &[], &["notifications/widgets"]),
        ]);
        assert!(
            message
                .contains("`com.example/a` and `com.example/b` both send `notifications/widgets`"),
            "{message}"
        );
    }

    #[test]
    fn the_table_finds_methods_and_advertises_capabilities() {
        let table = Extensions::new(vec![
            serving(
                "com.example/a",
                &["widgets/list"],
                &["notifications/widgets"],
            ),
            Box::new(Advertised::new("com.example/b", json!({"v": 1}))),
        ])
        .unwrap();
        assert_eq!(
            table.method("widgets/list").unwrap().extension,
            "com.example/a"
        );
        assert!(table.method("widgets/get").is_none());
        assert_eq!(
            Value::from(Map::from_iter(table.capabilities().unwrap())),
            json!({"com.example/a": {}, "com.example/b": {"v": 1}})
        );
        assert!(Extensions::default().capabilities().is_none());
    }
}
