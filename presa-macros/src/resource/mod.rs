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
//! The URI is read at compile time (`template`): every template variable
//! must be a parameter of the function and every argument parameter a
//! variable, so a renamed variable fails the build instead of every read.
//! Variables are strings, parsed with `FromStr` like prompt arguments.

mod attr;
mod expand;
mod template;

use proc_macro2::{Span, TokenStream};
use syn::ItemFn;
use syn::ext::IdentExt;

use crate::errors::Errors;
use crate::handler::ast::HandlerFn;
use crate::handler::{self, HandlerMacro, Macro, valid};
use template::Uri;

/// `#[resource]`, as a [`HandlerMacro`].
pub(crate) struct Resource;

impl HandlerMacro for Resource {
    const KIND: Macro = Macro::Resource;
    type Attrs = attr::ResourceAttrs;

    fn parse_attrs(_func: &ItemFn, tokens: TokenStream, errors: &mut Errors) -> Self::Attrs {
        attr::resource_attrs(tokens, errors)
    }

    fn check(handler: &HandlerFn, attrs: &Self::Attrs, errors: &mut Errors) {
        check_uri(handler, attrs, errors);
        if let Some(scope) = &attrs.cache_scope
            && !matches!(scope.value().as_str(), "public" | "private")
        {
            errors.error(
                scope,
                format!(
                    "invalid cache scope {:?}; expected \"public\" (anyone may share a cached \
                     read) or \"private\" (only the same caller)",
                    scope.value()
                ),
            );
        }
        valid::check_returns(handler, "its contents", "String", errors);
    }

    fn expand(handler: &HandlerFn, attrs: &Self::Attrs) -> TokenStream {
        let uri = attrs
            .uri
            .as_ref()
            .map(syn::LitStr::value)
            .unwrap_or_default();
        let template = matches!(template::parse(&uri), Ok(Uri::Template(_)));
        expand::resource(handler, attrs, template)
    }
}

/// The URI is there, valid, and its variables are the function's
/// argument parameters.
fn check_uri(handler: &HandlerFn, attrs: &attr::ResourceAttrs, errors: &mut Errors) {
    let Some(literal) = &attrs.uri else {
        errors.push(syn::Error::new(
            Span::call_site(),
            "`#[resource]` needs the resource's URI, as in `#[resource(uri = \
             \"file:///notes.txt\")]`, or a URI template, as in `#[resource(uri = \
             \"notes://{id}\")]`",
        ));
        return;
    };
    let text = literal.value();
    let variables = match template::parse(&text) {
        Ok(Uri::Template(variables)) => variables,
        Ok(Uri::Fixed) => Vec::new(),
        Err(reason) => return errors.error(literal, format!("invalid resource URI: {reason}")),
    };
    for (param, ident) in handler.args() {
        let name = ident.unraw().to_string();
        if !variables.contains(&name) {
            let message = match variables.as_slice() {
                [] => format!(
                    "`{name}` is not a variable of the resource's URI {text:?}, which has none; \
                     a resource takes arguments from the variables of a URI template, as in \
                     `uri = \"notes://{{{name}}}\"`"
                ),
                _ => format!(
                    "`{name}` is not a variable of the URI template {text:?}, whose variables \
                     are `{}`; a resource's arguments are the variables of its URI",
                    variables.join("`, `")
                ),
            };
            errors.error(&param.pat, message);
        } else if let Some(inner) = param.optional_inner() {
            let inner = quote::ToTokens::to_token_stream(inner);
            errors.error(
                &param.ty,
                format!(
                    "a template variable is always present in a URI that matches; take it as \
                     `{inner}`, not `Option<{inner}>`"
                ),
            );
        }
    }
    for variable in &variables {
        if !handler
            .args()
            .any(|(_, ident)| ident.unraw() == variable.as_str())
        {
            errors.error(
                literal,
                format!(
                    "the variable `{variable}` has no parameter; add `{variable}: String` (or \
                     any type that implements `FromStr`) to the function"
                ),
            );
        }
    }
}

/// Expands `#[resource(args)] input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    handler::expand::<Resource>(args, input)
}
