//! `#[prompt]`: turns an `async fn` into an MCP prompt.
//!
//! The attribute keeps the function as written (minus `#[param]`
//! attributes) and adds, for `async fn code_review`, `CodeReviewPrompt`, a
//! unit struct implementing `PromptHandler`: its listing (name, title,
//! description, and one argument per argument parameter, required unless
//! its type is `Option<_>`), the completers named by
//! `#[param(complete = f)]`, the application state its extractors read,
//! and a `get` that parses the arguments from their text, makes the
//! extractors, runs the function and converts what it returns.
//!
//! Everything about reading the function is shared with `#[tool]` (see
//! [`handler`](crate::handler)); this module adds the `#[prompt(...)]`
//! options (`attr`), the rules about the name and the return type
//! (`valid`), and the code of the prompt (`expand`). What differs from a
//! tool: a prompt's arguments are strings, so each argument's type is
//! bound by `TextParam` (`FromStr`) at the type rather than by serde, and
//! the return type by `IntoPromptResult`.

mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::errors::Errors;
use crate::handler::ast::HandlerFn;
use crate::handler::{self, HandlerMacro, Macro};

/// `#[prompt]`, as a [`HandlerMacro`].
pub(crate) struct Prompt;

impl HandlerMacro for Prompt {
    const KIND: Macro = Macro::Prompt;
    type Attrs = attr::PromptAttrs;

    fn parse_attrs(_func: &ItemFn, tokens: TokenStream, errors: &mut Errors) -> Self::Attrs {
        attr::prompt_attrs(tokens, errors)
    }

    fn check(handler: &HandlerFn, attrs: &Self::Attrs, errors: &mut Errors) {
        valid::check(handler, attrs, errors);
    }

    fn expand(handler: &HandlerFn, attrs: &Self::Attrs) -> TokenStream {
        expand::prompt(handler, attrs)
    }
}

/// Expands `#[prompt(args)] input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    handler::expand::<Prompt>(args, input)
}
