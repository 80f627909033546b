//! What `#[tool]`, `#[prompt]` and `#[resource]` share: each turns an
//! `async fn` into a handler, and the three read the function the same way.
//!
//! A parameter is an argument of the request or an extractor, made from the
//! call's context by the runtime's `FromContext`. A macro cannot resolve a
//! type, so without `#[param(arg)]` or `#[param(extract)]` it goes by the
//! type's name: `Context`, `&Context` and `State<_>` are extractors. The
//! guess is never trusted: every extractor is made through `FromContext`,
//! so a user's own `Context` fails to compile at its type with the trait's
//! message, which points to `#[param(arg)]`, rather than being extracted as
//! something it is not. The same trait gives each extractor's state needs
//! (`FromContext::required_state`), so that a server missing a `.state(x)`
//! fails when it is built rather than on a call.
//!
//! This module holds the shared steps: the function's representation and
//! its parsing (`ast`), the `#[param]` options (`attr`), the rules every
//! handler function follows (`valid`), and the code for extractors and
//! completers (`expand`). Each macro adds its own options, rules and
//! generated handler through [`HandlerMacro`], and [`expand`] runs the
//! steps in order, so that every misuse is reported, at its own span,
//! before any code is generated.

pub(crate) mod ast;
pub(crate) mod attr;
pub(crate) mod expand;
pub(crate) mod valid;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ItemFn;

use crate::errors::Errors;
use ast::HandlerFn;

/// Which handler macro a function is under.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Macro {
    /// `#[tool]`: registers a function the model may call.
    Tool,
    /// `#[prompt]`: registers a message template the user picks.
    Prompt,
    /// `#[resource]`: registers data read by URI.
    Resource,
}

impl Macro {
    /// The attribute's name, as in `#[tool]`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Macro::Tool => "tool",
            Macro::Prompt => "prompt",
            Macro::Resource => "resource",
        }
    }

    /// Whether its arguments can have completers (`#[param(complete)]`).
    pub(crate) fn completes(self) -> bool {
        matches!(self, Macro::Prompt | Macro::Resource)
    }

    /// Whether its arguments can be mirrored into HTTP headers
    /// (`#[param(header = "…")]`): a tool's can.
    pub(crate) fn mirrors_headers(self) -> bool {
        matches!(self, Macro::Tool)
    }

    /// What an argument is: `JSON argument`.
    pub(crate) fn argument(self) -> &'static str {
        match self {
            Macro::Tool => "JSON argument",
            Macro::Prompt => "prompt argument",
            Macro::Resource => "template variable",
        }
    }

    /// An argument as the user calls it: `tool argument`.
    pub(crate) fn argument_noun(self) -> &'static str {
        match self {
            Macro::Tool => "tool argument",
            Macro::Prompt => "prompt argument",
            Macro::Resource => "template variable",
        }
    }

    /// Where the arguments are listed: `the tool's input schema`.
    pub(crate) fn listing(self) -> &'static str {
        match self {
            Macro::Tool => "the tool's input schema",
            Macro::Prompt => "the prompt's arguments",
            Macro::Resource => "the URI template",
        }
    }

    /// How an argument's name is used: `its JSON key`.
    pub(crate) fn argument_key(self) -> &'static str {
        match self {
            Macro::Tool => "its JSON key",
            Macro::Prompt => "its key in the prompt's arguments",
            Macro::Resource => "its name in the URI template",
        }
    }

    /// A typical argument: `target: String`.
    pub(crate) fn argument_example(self) -> &'static str {
        match self {
            Macro::Tool => "target: String",
            Macro::Prompt => "code: String",
            Macro::Resource => "id: String",
        }
    }

    /// What arguments are read from: `JSON`.
    pub(crate) fn source(self) -> &'static str {
        match self {
            Macro::Tool => "JSON",
            Macro::Prompt | Macro::Resource => "text",
        }
    }
}

/// One handler macro: its own part of each step, its options, its rules
/// and its expansion.
pub(crate) trait HandlerMacro {
    /// Which macro this is.
    const KIND: Macro;
    /// Its options, each read into its type.
    type Attrs;

    /// Parses the tokens inside the attribute; `func` is the function it
    /// is on, which messages may name.
    fn parse_attrs(func: &ItemFn, tokens: TokenStream, errors: &mut Errors) -> Self::Attrs;

    /// Reports what the macro's own rules find wrong, beyond those every
    /// handler function follows.
    fn check(handler: &HandlerFn, attrs: &Self::Attrs, errors: &mut Errors);

    /// The code for a valid function.
    fn expand(handler: &HandlerFn, attrs: &Self::Attrs) -> TokenStream;
}

/// Expands `#[M(args)] input`.
pub(crate) fn expand<M: HandlerMacro>(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: syn::Item = match syn::parse2(input) {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    let func = match item {
        syn::Item::Fn(func) => func,
        other => {
            let error = not_a_function(M::KIND, &other);
            return quote!(#other #error);
        }
    };

    let mut errors = Errors::default();
    let attrs = M::parse_attrs(&func, args, &mut errors);
    let handler = HandlerFn::parse(M::KIND, func, &mut errors);
    valid::check_signature(&handler, &mut errors);
    M::check(&handler, &attrs, &mut errors);
    valid::check_params(&handler, &mut errors);
    match errors.finish() {
        Ok(()) => M::expand(&handler, &attrs),
        // Keep the function so that its callers do not see a second,
        // misleading "cannot find function" error.
        Err(e) => {
            let mut out = handler.item.to_token_stream();
            out.extend(e.to_compile_error());
            out
        }
    }
}

/// The error for a handler macro on an item that is not a function, at the
/// item's keyword when it has one.
fn not_a_function(kind: Macro, item: &syn::Item) -> TokenStream {
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
        format!("`#[{}]` goes on an `async fn`, not on {what}", kind.name()),
    )
    .to_compile_error()
}
