//! [`UiResource`]: an HTML view, served as a `ui://` resource (MCP Apps,
//! "UI Resource Format").

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::server::handlers::resource::{
    ReadCache, ReadRequest, ReadResult, ResourceDefinition, ResourceHandler,
};
use crate::server::input::context::Context;
use crate::wire::{
    CacheScope, MCP_APP_MIME_TYPE, Resource, ResourceContents, UiCsp, UiPermissions,
    UiResourceMeta, UiUri,
};

/// How long a host may keep a view's HTML before reading it again: the
/// HTML is fixed when the server is built, and the same for every caller.
pub const UI_RESOURCE_TTL: Duration = Duration::from_secs(300);

/// An HTML view a host renders in a sandboxed iframe, registered with
/// [`ServerBuilder::ui`](crate::server::ServerBuilder::ui).
///
/// It is listed by `resources/list` and read with `resources/read`, with
/// the MIME type `text/html;profile=mcp-app`. Its `_meta.ui` goes on both
/// the listing and the contents: the origins the view may reach
/// ([`csp`](Self::csp)), the browser features it asks for
/// ([`permissions`](Self::permissions)), a dedicated
/// [`domain`](Self::domain) and whether it
/// [`prefers a border`](Self::prefers_border). A view that carries its
/// scripts and styles inline needs no `csp`: the host's default then lets
/// it load nothing from the network, which is the safest view there is.
///
/// ```
/// use presa_runtime::server::apps::UiResource;
/// use presa_runtime::wire::UiCsp;
///
/// let dashboard = UiResource::html(
///     "ui://jobs/dashboard",
///     "Jobs dashboard",
///     "<!doctype html><html><body><p id=jobs></p></body></html>",
/// )
/// .description("The builds of this server, and a button that starts one")
/// .csp(UiCsp::new().connect("https://api.example.com"));
/// assert_eq!(dashboard.uri().as_str(), "ui://jobs/dashboard");
/// ```
#[derive(Debug, Clone)]
pub struct UiResource {
    uri: UiUri,
    listing: Resource,
    html: Arc<str>,
    meta: UiResourceMeta,
}

impl UiResource {
    /// The view at `uri`, called `name` in listings, whose document is
    /// `html`. Embed the file with `include_str!("dashboard.html")` to ship
    /// it inside the binary.
    ///
    /// # Panics
    ///
    /// If `uri` does not start with `ui://`: the message says so. Use
    /// [`UiResource::new`] with a [`UiUri`] to handle that yourself.
    pub fn html(uri: &str, name: impl Into<String>, html: impl Into<String>) -> Self {
        let uri = UiUri::parse(uri).unwrap_or_else(|error| panic!("{error}"));
        UiResource::new(uri, name, html)
    }

    /// The view at `uri`, called `name` in listings, whose document is
    /// `html`.
    pub fn new(uri: UiUri, name: impl Into<String>, html: impl Into<String>) -> Self {
        let mut listing = Resource::new(uri.as_str(), name);
        listing.mime_type = Some(MCP_APP_MIME_TYPE.to_owned());
        UiResource {
            uri,
            listing,
            html: Arc::from(html.into()),
            meta: UiResourceMeta::default(),
        }
    }

    /// What the view is for, shown in the host's listing.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.listing.description = Some(description.into());
        self
    }

    /// A display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.listing.title = Some(title.into());
        self
    }

    /// The origins the view may reach. The host allows these and nothing
    /// else.
    pub fn csp(mut self, csp: UiCsp) -> Self {
        self.meta.csp = Some(csp);
        self
    }

    /// The browser features the view asks for. A host may refuse them.
    pub fn permissions(mut self, permissions: UiPermissions) -> Self {
        self.meta.permissions = (!permissions.is_empty()).then_some(permissions);
        self
    }

    /// A dedicated origin for the view's sandbox, in the form the host
    /// documents.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.meta.domain = Some(domain.into());
        self
    }

    /// Whether the host draws a border and background around the view.
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.meta.prefers_border = Some(border);
        self
    }

    /// The view's URI.
    pub fn uri(&self) -> &UiUri {
        &self.uri
    }

    /// The view's `_meta.ui`.
    pub fn meta(&self) -> &UiResourceMeta {
        &self.meta
    }
}

#[async_trait]
impl ResourceHandler for UiResource {
    fn definition(&self) -> ResourceDefinition {
        let mut listing = self.listing.clone();
        listing.size = Some(self.html.len() as u64);
        listing.meta = Some(self.meta.to_meta());
        ResourceDefinition::Fixed(listing)
    }

    fn cache(&self) -> ReadCache {
        ReadCache::new(UI_RESOURCE_TTL, CacheScope::Public)
    }

    async fn read(&self, _ctx: Context, request: ReadRequest) -> ReadResult {
        let mut contents = ResourceContents::text(self.uri.as_str(), &*self.html)
            .with_mime_type(MCP_APP_MIME_TYPE);
        contents.meta = Some(self.meta.to_meta());
        Ok(request.result(vec![contents]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(
        expected = "`jobs/dashboard` is not a UI resource URI: it must start with `ui://`"
    )]
    fn a_view_needs_a_ui_uri() {
        UiResource::html("jobs/dashboard", "Jobs", "<html></html>");
    }

    #[test]
    fn the_listing_carries_the_mime_type_size_and_meta() {
        let view = UiResource::html("ui://a/b", "A", "<html></html>")
            .title("The A view")
            .prefers_border(true);
        let ResourceDefinition::Fixed(listing) = view.definition() else {
            panic!("a view is a fixed resource");
        };
        assert_eq!(listing.mime_type.as_deref(), Some(MCP_APP_MIME_TYPE));
        assert_eq!(listing.size, Some(13));
        assert_eq!(listing.title.as_deref(), Some("The A view"));
        assert_eq!(
            serde_json::Value::Object(listing.meta.unwrap()),
            serde_json::json!({"ui": {"prefersBorder": true}})
        );
    }
}
