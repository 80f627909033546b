//! The values that messages carry: content blocks, icons, URLs, URI
//! templates and OAuth scope tokens.
//!
//! A value means the same thing in every method that carries it, so it
//! lives here, below the protocol envelope and the methods. A value type
//! knows no method and no `_meta`: it only checks its own shape (an
//! [`AbsoluteUrl`] is absolute, a [`UriTemplate`] parses), so that a
//! wrong value cannot be built.
//!
//! Layers, bottom up: icon, url, uri_template, scope, content.

mod content;
mod icon;
mod scope;
mod uri_template;
mod url;

pub use content::*;
pub use icon::*;
pub(crate) use scope::scope_token;
pub use uri_template::*;
pub use url::*;
