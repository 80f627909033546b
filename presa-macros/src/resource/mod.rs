//! `#[resource]`: turns an `async fn` into an MCP resource, or a resource
//! template when its URI has `{…}` variables.
//!
//! The attribute keeps the function as written (minus `#[param]`
//! attributes) and adds, for `async fn profile`, `ProfileResource`, a unit
//! struct implementing `ResourceHandler`: its listing (a fixed resource, or
//! a template), its caching hints, the completers of its variables, the
//! application state its extractors read, and a `read` that parses the
//! variables the URI matched, makes the extractors, runs the function and
//! converts what it returns.
//!
//! Everything about reading the function is shared with `#[tool]` (see
//! [`handler`](crate::handler)); this module adds the `#[resource(...)]`
//! options (`attr`), which read the URI once at compile time (`template`);
//! the rules (`valid`): every template variable must be a parameter of the
//! function and every argument parameter a variable, so a renamed variable
//! fails the build instead of every read; and the code of the resource
//! (`expand`). Variables are strings, parsed with `FromStr` like prompt
//! arguments.

mod attr;
mod expand;
mod template;
mod valid;

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::errors::Errors;
use crate::handler::ast::HandlerFn;
use crate::handler::{self, HandlerMacro, Macro};

/// `#[resource]`, as a [`HandlerMacro`].
pub(crate) struct Resource;

impl HandlerMacro for Resource {
    const KIND: Macro = Macro::Resource;
    type Attrs = attr::ResourceAttrs;

    fn parse_attrs(_func: &ItemFn, tokens: TokenStream, errors: &mut Errors) -> Self::Attrs {
        attr::resource_attrs(tokens, errors)
    }

    fn check(handler: &HandlerFn, attrs: &Self::Attrs, errors: &mut Errors) {
        valid::check(handler, attrs, errors);
    }

    fn expand(handler: &HandlerFn, attrs: &Self::Attrs) -> TokenStream {
        expand::resource(handler, attrs)
    }
}

/// Expands `#[resource(args)] input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    handler::expand::<Resource>(args, input)
}
