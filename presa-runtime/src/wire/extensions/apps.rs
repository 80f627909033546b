//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865): a
//! server ships HTML views that a host renders in a sandboxed iframe.
//!
//! The extension adds no method. Its views are ordinary resources with a
//! `ui://` URI and the MIME type [`MCP_APP_MIME_TYPE`] ("UI Resource
//! Format"); their `_meta.ui` ([`UiResourceMeta`]) asks the host for the
//! origins the view may reach and the browser features it may use. A
//! tool names its view in its own `_meta.ui` ([`ToolUi`], "Resource
//! Discovery"), and says there who may call it ([`UiVisibility`]). A host
//! declares the extension with the MIME types it renders
//! ([`UiClientSettings`], "Client<>Server Capability Negotiation"); the
//! server advertises nothing.
//!
//! The types refuse what the specification forbids: a [`UiUri`] always
//! starts with `ui://`, and a [`UiVisibility`] always names someone.

use std::fmt;
use std::ops::Not;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::wire::methods::Tool;

/// The extension identifier a host declares.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an HTML view: its resource's `mimeType`, and what a
/// host lists in [`UiClientSettings::mime_types`].
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The `_meta` key under which the extension's settings sit, on a tool
/// and on a UI resource.
pub const UI_META_KEY: &str = "ui";

/// The flat `_meta` key older hosts read a tool's view from. The
/// specification deprecates it for `_meta.ui.resourceUri`; a server may
/// send both while hosts move over.
pub const LEGACY_RESOURCE_URI_META_KEY: &str = "ui/resourceUri";

/// The URI of a UI resource: `ui://` and at least one more character.
///
/// The specification requires the scheme so that a host can tell views
/// from other resources. [`UiUri::parse`] is the only way to make one, so
/// a value of this type is always valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UiUri(String);

/// Why a string is not a [`UiUri`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{uri}` is not a UI resource URI: it must start with `ui://` and name the view, \
     such as `ui://jobs/dashboard`"
)]
pub struct UiUriError {
    /// The string refused.
    pub uri: String,
}

impl UiUri {
    /// The scheme every UI resource URI starts with.
    pub const SCHEME: &'static str = "ui://";

    /// `uri`, if it starts with `ui://` and names something after it, and
    /// holds no whitespace or control character.
    pub fn parse(uri: impl Into<String>) -> Result<UiUri, UiUriError> {
        let uri = uri.into();
        let valid = uri
            .strip_prefix(Self::SCHEME)
            .is_some_and(|rest| !rest.is_empty())
            && !uri.chars().any(|c| c.is_whitespace() || c.is_control());
        if valid {
            Ok(UiUri(uri))
        } else {
            Err(UiUriError { uri })
        }
    }

    /// The URI as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UiUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for UiUri {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for UiUri {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let uri = String::deserialize(deserializer)?;
        UiUri::parse(uri).map_err(serde::de::Error::custom)
    }
}

/// The origins a view may reach (`_meta.ui.csp`). The host builds the
/// view's Content Security Policy from them, and allows nothing else. An
/// empty list is the secure default: no origin at all. With no `csp`,
/// the view may load nothing from the network, and may only run the
/// scripts and styles it carries inline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiCsp {
    /// Origins for `fetch`, XHR and WebSockets (CSP `connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Origins for images, scripts, styles, fonts and media (CSP
    /// `img-src`, `script-src`, `style-src`, `font-src`, `media-src`);
    /// `https://*.example.com` matches the subdomains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Origins for nested iframes (CSP `frame-src`); none by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Allowed base URIs of the document (CSP `base-uri`); only the
    /// view's own origin by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
    /// Whether the view compiles WebAssembly (`'wasm-unsafe-eval'` in
    /// `script-src`); blocked by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wasm_unsafe_eval: bool,
}

impl UiCsp {
    /// No origin at all: the view runs only what it carries.
    pub fn new() -> Self {
        UiCsp::default()
    }

    /// Also lets the view connect to `origin` (`fetch`, XHR, WebSocket).
    pub fn connect(mut self, origin: impl Into<String>) -> Self {
        self.connect_domains.push(origin.into());
        self
    }

    /// Also lets the view load images, scripts, styles, fonts and media
    /// from `origin`.
    pub fn resources(mut self, origin: impl Into<String>) -> Self {
        self.resource_domains.push(origin.into());
        self
    }

    /// Also lets the view nest iframes from `origin`.
    pub fn frames(mut self, origin: impl Into<String>) -> Self {
        self.frame_domains.push(origin.into());
        self
    }

    /// Also lets the document's base URI be on `origin`.
    pub fn base_uri(mut self, origin: impl Into<String>) -> Self {
        self.base_uri_domains.push(origin.into());
        self
    }

    /// Lets the view compile WebAssembly.
    pub fn wasm(mut self) -> Self {
        self.wasm_unsafe_eval = true;
        self
    }
}

/// The browser features a view asks for (`_meta.ui.permissions`). A host
/// may grant them through the iframe's `allow` attribute, or not: a view
/// should detect what it got rather than assume.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiPermissions {
    /// The camera (Permission Policy `camera`).
    #[serde(default, skip_serializing_if = "Not::not", with = "requested")]
    pub camera: bool,
    /// The microphone (Permission Policy `microphone`).
    #[serde(default, skip_serializing_if = "Not::not", with = "requested")]
    pub microphone: bool,
    /// The position of the device (Permission Policy `geolocation`).
    #[serde(default, skip_serializing_if = "Not::not", with = "requested")]
    pub geolocation: bool,
    /// Writing to the clipboard (Permission Policy `clipboard-write`).
    #[serde(default, skip_serializing_if = "Not::not", with = "requested")]
    pub clipboard_write: bool,
}

/// A permission on the wire: `{}` when asked for, absent otherwise.
mod requested {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Map;

    pub fn serialize<S: Serializer>(_: &bool, serializer: S) -> Result<S::Ok, S::Error> {
        Map::new().serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
        let settings = Map::deserialize(deserializer)?;
        if settings.is_empty() {
            Ok(true)
        } else {
            Err(serde::de::Error::custom(
                "a permission is asked for with `{}`, which has no fields",
            ))
        }
    }
}

impl UiPermissions {
    /// Whether nothing is asked for.
    pub fn is_empty(&self) -> bool {
        *self == UiPermissions::default()
    }
}

/// A UI resource's `_meta.ui`: what the view needs from its host. It goes
/// on the `resources/list` entry and on the `resources/read` contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UiResourceMeta {
    /// The origins the view may reach; `None` for the host's restrictive
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// The browser features the view asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated origin for the view's sandbox, in the form the host
    /// documents (such as `a904794854a047f6.claudemcpcontent.com`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host draws a border and background around the view;
    /// `None` lets the host decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

impl UiResourceMeta {
    /// The settings as a `_meta` object: `{"ui": {...}}`.
    pub fn to_meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(UI_META_KEY.to_owned(), to_json(self));
        meta
    }
}

/// Who may call a tool linked to a view: never no one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum UiVisibility {
    /// The model and the view (`["model", "app"]`): the default.
    #[default]
    ModelAndApp,
    /// The model only (`["model"]`): the view may not call it.
    Model,
    /// The view only (`["app"]`): the host keeps it from its model.
    App,
}

impl UiVisibility {
    /// Whether the model sees the tool.
    pub fn model(self) -> bool {
        matches!(self, UiVisibility::ModelAndApp | UiVisibility::Model)
    }

    /// Whether the view may call the tool.
    pub fn app(self) -> bool {
        matches!(self, UiVisibility::ModelAndApp | UiVisibility::App)
    }

    /// The wire array: `["model", "app"]`, `["model"]` or `["app"]`.
    pub fn as_slice(self) -> &'static [&'static str] {
        match self {
            UiVisibility::ModelAndApp => &["model", "app"],
            UiVisibility::Model => &["model"],
            UiVisibility::App => &["app"],
        }
    }
}

impl Serialize for UiVisibility {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for UiVisibility {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let names = Vec::<String>::deserialize(deserializer)?;
        let (mut model, mut app) = (false, false);
        for name in &names {
            match name.as_str() {
                "model" => model = true,
                "app" => app = true,
                other => {
                    return Err(D::Error::custom(format!(
                        "unknown visibility `{other}`; expected \"model\" or \"app\""
                    )));
                }
            }
        }
        match (model, app) {
            (true, true) => Ok(UiVisibility::ModelAndApp),
            (true, false) => Ok(UiVisibility::Model),
            (false, true) => Ok(UiVisibility::App),
            (false, false) => Err(D::Error::custom(
                "the visibility is empty; name \"model\", \"app\" or both",
            )),
        }
    }
}

/// A tool's `_meta.ui`: the view that renders its results, and who may
/// call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolUi {
    /// The view; `None` for a tool that only says who may call it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<UiUri>,
    /// Who may call the tool; absent means [`UiVisibility::ModelAndApp`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<UiVisibility>,
}

impl ToolUi {
    /// A tool whose results `view` renders, callable by the model and the
    /// view.
    pub fn new(view: UiUri) -> Self {
        ToolUi {
            resource_uri: Some(view),
            visibility: None,
        }
    }

    /// Who may call the tool.
    pub fn visibility(mut self, visibility: UiVisibility) -> Self {
        self.visibility = Some(visibility);
        self
    }

    /// Who may call the tool, with the default filled in.
    pub fn effective_visibility(&self) -> UiVisibility {
        self.visibility.unwrap_or_default()
    }

    /// The `_meta.ui` of `tool`: `Ok(None)` when it has none, and an error
    /// that says what is wrong when it is not a valid `ToolUi`.
    pub fn of(tool: &Tool) -> Result<Option<ToolUi>, serde_json::Error> {
        let Some(ui) = tool.meta.as_ref().and_then(|meta| meta.get(UI_META_KEY)) else {
            return Ok(None);
        };
        ToolUi::deserialize(ui).map(Some)
    }

    /// Writes this into `meta`: under `ui`, and under the deprecated flat
    /// `ui/resourceUri` for hosts that read only that. Other keys stay.
    pub fn write_to(&self, meta: &mut Map<String, Value>) {
        meta.insert(UI_META_KEY.to_owned(), to_json(self));
        if let Some(uri) = &self.resource_uri {
            meta.insert(
                LEGACY_RESOURCE_URI_META_KEY.to_owned(),
                Value::String(uri.to_string()),
            );
        }
    }
}

impl Tool {
    /// This tool, linked to a view by `ui` (see [`ToolUi`]). A
    /// hand-written [`ToolHandler`](crate::server::ToolHandler) calls it in
    /// its `definition`; `#[tool(ui = "ui://…")]` does it for you.
    pub fn with_ui(mut self, ui: &ToolUi) -> Self {
        ui.write_to(self.meta.get_or_insert_default());
        self
    }
}

/// What a host declares under `extensions["io.modelcontextprotocol/ui"]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiClientSettings {
    /// The content types the host renders; an Apps host lists
    /// [`MCP_APP_MIME_TYPE`].
    #[serde(default)]
    pub mime_types: Vec<String>,
}

impl UiClientSettings {
    /// A host that renders HTML views.
    pub fn html() -> Self {
        UiClientSettings {
            mime_types: vec![MCP_APP_MIME_TYPE.to_owned()],
        }
    }

    /// Whether the host renders HTML views.
    pub fn renders_html(&self) -> bool {
        self.mime_types.iter().any(|m| m == MCP_APP_MIME_TYPE)
    }

    /// The settings as the object a client declares.
    pub fn to_settings(&self) -> Map<String, Value> {
        match to_json(self) {
            Value::Object(settings) => settings,
            _ => Map::new(),
        }
    }
}

/// `value` as JSON; these types always serialize.
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_ui_uri_starts_with_ui_and_names_something() {
        assert_eq!(
            UiUri::parse("ui://jobs/dashboard").unwrap().as_str(),
            "ui://jobs/dashboard"
        );
        for bad in ["https://x", "ui://", "ui:/x", "UI//x", "ui://a b", ""] {
            let error = UiUri::parse(bad).unwrap_err();
            assert_eq!(error.uri, bad);
        }
        assert_eq!(
            UiUri::parse("jobs").unwrap_err().to_string(),
            "`jobs` is not a UI resource URI: it must start with `ui://` and name the view, \
             such as `ui://jobs/dashboard`"
        );
        assert!(serde_json::from_value::<UiUri>(json!("https://x")).is_err());
    }

    #[test]
    fn the_resource_meta_uses_the_schema_names() {
        let meta = UiResourceMeta {
            csp: Some(
                UiCsp::new()
                    .connect("https://api.example.com")
                    .resources("https://cdn.example.com")
                    .frames("https://player.example.com")
                    .base_uri("https://base.example.com")
                    .wasm(),
            ),
            permissions: Some(UiPermissions {
                camera: true,
                clipboard_write: true,
                ..Default::default()
            }),
            domain: Some("x.example.com".into()),
            prefers_border: Some(false),
        };
        let wire = json!({"ui": {
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://cdn.example.com"],
                "frameDomains": ["https://player.example.com"],
                "baseUriDomains": ["https://base.example.com"],
                "wasmUnsafeEval": true
            },
            "permissions": {"camera": {}, "clipboardWrite": {}},
            "domain": "x.example.com",
            "prefersBorder": false
        }});
        assert_eq!(Value::Object(meta.to_meta()), wire);
        let back: UiResourceMeta = serde_json::from_value(wire["ui"].clone()).unwrap();
        assert_eq!(back, meta);
        assert_eq!(
            Value::Object(UiResourceMeta::default().to_meta()),
            json!({"ui": {}})
        );
    }

    #[test]
    fn a_permission_is_an_empty_object() {
        let refused = serde_json::from_value::<UiPermissions>(json!({"camera": {"x": 1}}));
        assert!(refused.unwrap_err().to_string().contains("has no fields"));
        let refused = serde_json::from_value::<UiPermissions>(json!({"bluetooth": {}}));
        assert!(refused.unwrap_err().to_string().contains("bluetooth"));
    }

    #[test]
    fn a_visibility_names_someone() {
        let parse = |v: Value| serde_json::from_value::<UiVisibility>(v);
        assert_eq!(parse(json!(["app"])).unwrap(), UiVisibility::App);
        assert_eq!(parse(json!(["model"])).unwrap(), UiVisibility::Model);
        assert_eq!(
            parse(json!(["app", "model", "app"])).unwrap(),
            UiVisibility::ModelAndApp
        );
        assert!(
            parse(json!([]))
                .unwrap_err()
                .to_string()
                .contains("the visibility is empty")
        );
        assert!(
            parse(json!(["user"]))
                .unwrap_err()
                .to_string()
                .contains("unknown visibility `user`")
        );
        assert_eq!(json!(UiVisibility::ModelAndApp), json!(["model", "app"]));
        assert!(UiVisibility::App.app() && !UiVisibility::App.model());
        assert!(UiVisibility::Model.model() && !UiVisibility::Model.app());
    }

    #[test]
    fn a_tool_link_writes_both_keys_and_reads_back() {
        let link =
            ToolUi::new(UiUri::parse("ui://jobs/dashboard").unwrap()).visibility(UiVisibility::App);
        let tool = Tool::new("list_jobs", json!({"type": "object"})).with_ui(&link);
        assert_eq!(
            Value::Object(tool.meta.clone().unwrap()),
            json!({
                "ui": {"resourceUri": "ui://jobs/dashboard", "visibility": ["app"]},
                "ui/resourceUri": "ui://jobs/dashboard"
            })
        );
        assert_eq!(ToolUi::of(&tool).unwrap(), Some(link));
        let plain = Tool::new("build", json!({"type": "object"}));
        assert_eq!(ToolUi::of(&plain).unwrap(), None);
        let mut broken = plain.clone();
        broken.meta = json!({"ui": {"resourceUri": "https://x"}})
            .as_object()
            .cloned();
        assert!(ToolUi::of(&broken).is_err());
    }

    #[test]
    fn the_client_settings_name_the_mime_types() {
        let settings = UiClientSettings::html();
        assert!(settings.renders_html());
        assert_eq!(
            Value::Object(settings.to_settings()),
            json!({"mimeTypes": ["text/html;profile=mcp-app"]})
        );
        let other: UiClientSettings =
            serde_json::from_value(json!({"mimeTypes": ["text/uri-list"]})).unwrap();
        assert!(!other.renders_html());
    }
}
