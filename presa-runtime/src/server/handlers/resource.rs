//! Resources: the trait `#[resource]` implements, what a read receives,
//! and return-value conversion.

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;

use crate::server::handlers::completer::Completer;
use crate::server::handlers::tool::Json;
use crate::server::input::context::Context;
use crate::server::middleware::stack::HandlerLayers;
use crate::server::request::error::ToolError;
use crate::server::request::state::StateType;
use crate::wire::{CacheScope, ReadResourceResult, Resource, ResourceContents, ResourceTemplate};

/// What a resource handler serves: one URI, or a URI template.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceDefinition {
    /// A resource with a fixed URI, listed by `resources/list`.
    Fixed(Resource),
    /// A family of resources, listed by `resources/templates/list`.
    Template(ResourceTemplate),
}

/// How long a read's contents may be cached, and by whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadCache {
    /// The `ttlMs` of the result.
    pub ttl: Duration,
    /// The `cacheScope` of the result.
    pub scope: CacheScope,
}

impl ReadCache {
    /// Contents that may be cached for `ttl`, shared as `scope` says.
    pub fn new(ttl: Duration, scope: CacheScope) -> Self {
        ReadCache { ttl, scope }
    }
}

impl Default for ReadCache {
    /// Immediately stale, and private.
    fn default() -> Self {
        ReadCache {
            ttl: Duration::ZERO,
            scope: CacheScope::Private,
        }
    }
}

/// One `resources/read`, as its handler receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRequest {
    /// The URI read.
    pub uri: String,
    /// The values of the template's variables in `uri`, decoded; empty for
    /// a fixed resource.
    pub variables: BTreeMap<String, String>,
    /// The MIME type the resource declares.
    pub mime_type: Option<String>,
    /// How long the contents may be cached, and by whom.
    pub cache: ReadCache,
}

impl ReadRequest {
    /// A result of `contents`, cached as [`ReadRequest::cache`] says.
    pub fn result(&self, contents: Vec<ResourceContents>) -> ReadResourceResult {
        let mut result = ReadResourceResult::new(contents);
        result.ttl_ms = self.cache.ttl.as_millis() as u64;
        result.cache_scope = self.cache.scope;
        result
    }

    /// `text` as the contents of the URI read, with the declared MIME type.
    pub fn text(&self, text: impl Into<String>) -> ResourceContents {
        self.typed(ResourceContents::text(&self.uri, text))
    }

    /// `bytes` as the contents of the URI read, with the declared MIME type.
    pub fn bytes(&self, bytes: &[u8]) -> ResourceContents {
        self.typed(ResourceContents::bytes(&self.uri, bytes))
    }

    fn typed(&self, contents: ResourceContents) -> ResourceContents {
        match &self.mime_type {
            Some(mime_type) => contents.with_mime_type(mime_type),
            None => contents,
        }
    }
}

/// A resource or a resource template the server can list and read.
/// `#[resource]` on an `async fn` generates it; the trait is public so that
/// resources can also be built at run time (one per file found, say).
///
/// A resource is data the application reads by URI. It is either **fixed**,
/// one URI listed by `resources/list`, or a **template**, a family of URIs
/// that follow an RFC 6570 template (`users://{id}/profile`), listed by
/// `resources/templates/list`. `resources/read` finds a fixed resource by
/// its URI first, then the first template (in registration order) the URI
/// matches; the template's variables become the handler's typed
/// parameters, parsed like prompt arguments
/// ([`TextParam`](crate::server::TextParam)). See
/// [`UriTemplate`](crate::wire::UriTemplate) for the templates supported
/// and how a URI is matched.
///
/// A read may ask for input over MRTR as a tool call does; its
/// `requestState` is bound to `resources/read` and the URI. A read that
/// fails is a JSON-RPC error: `-32602` with `data.uri` for a
/// [`ToolError::new`] refusal (a variable that does not parse among them),
/// as for a URI that names no resource; `-32603` for anything else.
///
/// # Caching
///
/// Every read result carries `ttlMs` and `cacheScope`. A handler that
/// returns a whole [`ReadResourceResult`] sets them itself; otherwise they
/// come from the resource's [`ReadCache`], by default immediately stale and
/// private, since contents often depend on who reads them.
///
/// A hand implementation writes `#[async_trait::async_trait]` on its
/// `impl`, and `read` as an `async fn`.
#[async_trait]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource",
    label = "expected a resource here",
    note = "`#[resource] async fn readme` generates `ReadmeResource`: register that, or implement `ResourceHandler` yourself"
)]
pub trait ResourceHandler: Send + Sync + 'static {
    /// What the handler serves, and its listing.
    fn definition(&self) -> ResourceDefinition;

    /// How long a read's contents may be cached, and by whom, unless the
    /// handler returns a whole [`ReadResourceResult`]. The default is
    /// immediately stale and private.
    fn cache(&self) -> ReadCache {
        ReadCache::default()
    }

    /// Whether `resources/list` shows this fixed resource (the default).
    /// An unlisted one is still read by its URI, and is checked, hidden
    /// and layered as any other: use it for files a client learns of
    /// another way, such as the supporting files of a skill, which its
    /// manifest names. A template ignores it.
    fn listed(&self) -> bool {
        true
    }

    /// The completer of template variable `variable`, if it has one.
    fn completer(&self, variable: &str) -> Option<Completer> {
        let _ = variable;
        None
    }

    /// The OAuth scopes a caller must hold to use this (`scopes = [...]`
    /// on the macro; see `server::authorize` for the rules). The default is
    /// none.
    fn scopes(&self) -> &'static [&'static str] {
        &[]
    }

    /// The application state the handler reads (see
    /// [`ToolHandler::required_state`](crate::server::ToolHandler::required_state)).
    fn required_state(&self) -> Vec<StateType> {
        Vec::new()
    }

    /// The layers around this resource's runs, inside the server's (see
    /// [`middleware`](crate::server::middleware)): `layer = …` on the
    /// macro, or [`Layered`](crate::server::Layered). The server asks once,
    /// when the resource is registered. The default is none.
    fn layers(&self) -> HandlerLayers {
        HandlerLayers::new()
    }

    /// Reads the resource.
    async fn read(&self, ctx: Context, request: ReadRequest) -> ReadResult;
}

/// The outcome of one read, before it is put on the wire.
pub type ReadResult = Result<ReadResourceResult, ToolError>;

/// Converts a resource handler's return value into a read result.
///
/// Implemented for `String` and `&'static str` (text), `Vec<u8>` (binary,
/// sent in base64), [`Json<T>`] (the value as JSON text, `application/json`
/// unless the resource declares a MIME type), [`ResourceContents`] and
/// `Vec<ResourceContents>` (for several contents, or contents of other
/// URIs), [`ReadResourceResult`] (taken as is, caching hints included), and
/// `Result<T, E>` where `T` converts and `E: Into<ToolError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "this return type does not convert into resource contents",
    note = "return `String`, `&'static str`, `Vec<u8>`, `Json<T>`, `ResourceContents`, `Vec<ResourceContents>` or `ReadResourceResult`, or a `Result<_, E>` of one of them where `E: Into<ToolError>`"
)]
pub trait IntoReadResult {
    /// The conversion, for the read `request`.
    fn into_read_result(self, request: &ReadRequest) -> ReadResult;
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _request: &ReadRequest) -> ReadResult {
        Ok(self)
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        Ok(request.result(self))
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        vec![self].into_read_result(request)
    }
}

impl IntoReadResult for String {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        request.text(self).into_read_result(request)
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        request.text(self).into_read_result(request)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        request.bytes(&self).into_read_result(request)
    }
}

impl<T: Serialize + JsonSchema> IntoReadResult for Json<T> {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        let text = serde_json::to_string(&self.0).map_err(ToolError::internal)?;
        let mut contents = request.text(text);
        contents
            .mime_type
            .get_or_insert_with(|| "application/json".into());
        contents.into_read_result(request)
    }
}

impl<T: IntoReadResult, E: Into<ToolError>> IntoReadResult for Result<T, E> {
    fn into_read_result(self, request: &ReadRequest) -> ReadResult {
        self.map_err(Into::into)
            .and_then(|value| value.into_read_result(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mime_type: Option<&str>) -> ReadRequest {
        ReadRequest {
            uri: "notes://1".into(),
            variables: BTreeMap::new(),
            mime_type: mime_type.map(str::to_owned),
            cache: ReadCache {
                ttl: Duration::from_secs(60),
                scope: CacheScope::Public,
            },
        }
    }

    #[test]
    fn conversions_use_the_uri_type_and_cache_of_the_read() {
        let text = "hi"
            .into_read_result(&request(Some("text/markdown")))
            .unwrap();
        assert_eq!(text.contents[0].uri, "notes://1");
        assert_eq!(text.contents[0].mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(
            (text.ttl_ms, text.cache_scope),
            (60_000, CacheScope::Public)
        );
        let bytes = b"hi".to_vec().into_read_result(&request(None)).unwrap();
        assert_eq!(bytes.contents[0].as_blob(), Some("aGk="));
        let json = Json(vec![1]).into_read_result(&request(None)).unwrap();
        assert_eq!(json.text(), Some("[1]"));
        assert_eq!(
            json.contents[0].mime_type.as_deref(),
            Some("application/json")
        );
    }
}
