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
//! # Arguments and extractors
//!
//! A parameter is a JSON argument or an extractor, made from the call's
//! context by the runtime's `FromContext`. A macro cannot resolve a type, so
//! without `#[param(arg)]` or `#[param(extract)]` it goes by the type's
//! name: `Context`, `&Context` and `State<_>` are extractors. The guess is
//! never trusted: every extractor is made through `FromContext`, so a user's
//! own `Context` fails to compile at its type with the trait's message,
//! which points to `#[param(arg)]`, rather than being extracted as
//! something it is not.
//!
//! The same trait gives each extractor's state needs
//! (`FromContext::required_state`); the tool lists them, so that a server
//! missing a `.state(x)` fails when it is built rather than on a call.
//!
//! Parsing (`ast`, `attr`), validation (`valid`) and code generation
//! (`expand`) are separate so that every misuse is reported, at its own
//! span, before any code is generated.

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::errors::Errors;

/// Expands `#[tool(args)] input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: syn::Item = match syn::parse2(input) {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    let func = match item {
        syn::Item::Fn(func) => func,
        other => {
            let error = not_a_function(&other);
            return quote!(#other #error);
        }
    };

    let mut errors = Errors::default();
    let tool = ast::ToolFn::parse(func, args, &mut errors);
    valid::check(&tool, &mut errors);
    match errors.finish() {
        Ok(()) => expand::tool(&tool),
        // Keep the function so that its callers do not see a second,
        // misleading "cannot find function" error.
        Err(e) => {
            let mut out = tool.item.to_token_stream();
            out.extend(e.to_compile_error());
            out
        }
    }
}

/// The error for `#[tool]` on an item that is not a function, at the
/// item's keyword when it has one.
fn not_a_function(item: &syn::Item) -> TokenStream {
    let (at, what): (&dyn ToTokens, &str) = match item {
        syn::Item::Struct(i) => (&i.struct_token, "a struct"),
        syn::Item::Enum(i) => (&i.enum_token, "an enum"),
        syn::Item::Union(i) => (&i.union_token, "a union"),
        syn::Item::Impl(i) => (&i.impl_token, "an `impl` block"),
        syn::Item::Trait(i) => (&i.trait_token, "a trait"),
        syn::Item::Mod(i) => (&i.mod_token, "a module"),
        syn::Item::Const(i) => (&i.const_token, "a constant"),
        syn::Item::Static(i) => (&i.static_token, "a static"),
        syn::Item::Type(i) => (&i.type_token, "a type alias"),
        syn::Item::Use(i) => (&i.use_token, "a `use` item"),
        other => (other, "this item"),
    };
    syn::Error::new_spanned(
        at,
        format!("`#[tool]` goes on an `async fn`, not on {what}"),
    )
    .to_compile_error()
}
