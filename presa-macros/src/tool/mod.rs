//! `#[tool]`: turns an `async fn` into an MCP tool.
//!
//! The attribute keeps the function as written (minus `#[param]`
//! attributes) and adds, for `async fn build`:
//!
//! - `BuildArgs`, a struct of the parameters that come from the call's JSON
//!   arguments, parsed field by field so that an error names the field;
//! - `BuildTool`, a unit struct implementing `ToolHandler`: its listing
//!   (name, description, input and output schemas), its task policy, the
//!   application state its extractors read, and a `call` that parses the
//!   arguments, makes the extractors, runs the function and converts what
//!   it returns.
//!
//! Reading the function, its `#[param]` options and the rules every handler
//! follows are shared with `#[prompt]` and `#[resource]` (see
//! [`handler`](crate::handler)); this module adds the `#[tool(...)]`
//! options (`attr`), the rules about the name, tasks and headers
//! (`valid`), and the code of the arguments struct and the tool
//! (`expand`).

mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::errors::Errors;
use crate::handler::ast::HandlerFn;
use crate::handler::{self, HandlerMacro, Macro};

/// `#[tool]`, as a [`HandlerMacro`].
pub(crate) struct Tool;

impl HandlerMacro for Tool {
    const KIND: Macro = Macro::Tool;
    type Attrs = attr::ToolAttrs;

    fn parse_attrs(func: &ItemFn, tokens: TokenStream, errors: &mut Errors) -> Self::Attrs {
        attr::tool_attrs(tokens, func, errors)
    }

    fn check(handler: &HandlerFn, attrs: &Self::Attrs, errors: &mut Errors) {
        valid::check(handler, attrs, errors);
    }

    fn expand(handler: &HandlerFn, attrs: &Self::Attrs) -> TokenStream {
        expand::tool(handler, attrs)
    }
}

/// Expands `#[tool(args)] input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    handler::expand::<Tool>(args, input)
}
