//! Code generation that every handler macro shares: spans, literals, the
//! extractors, the state they need, and the completers.
//!
//! Everything the expansion names from the runtime goes through
//! `::presa::__private`, and everything from std through `::core` or
//! `::std`, so user items with the same names cannot interfere. Locals are
//! prefixed with `__` so that they cannot shadow the handler function
//! itself (which might well be called `args` or `ctx`).
//!
//! Trait bounds on user types (`FromContext` on extractors, the return
//! type's conversion, a completer's shape) are checked at code located at
//! the user's tokens, so that a failing bound is reported there, with the
//! runtime's `#[diagnostic::on_unimplemented]` message, and not at the
//! attribute.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, LitStr};

use super::ast::{HandlerFn, Kind, Param};

/// Call-site hygiene (so generated locals resolve), located at `tokens`
/// (so errors point there).
pub(crate) fn at(tokens: &impl Spanned) -> Span {
    Span::call_site().located_at(tokens.span())
}

/// `Some("text")` or `None`, as an `Option<&str>` expression.
pub(crate) fn option_str(text: Option<String>) -> TokenStream {
    match text {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// `Some(true)` or `None`, as an `Option<bool>` expression.
pub(crate) fn option_bool(flag: Option<bool>) -> TokenStream {
    match flag {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

/// The statements that make each extractor from `__ctx`, and the
/// expressions passed to the function, one per parameter in order; `arg`
/// gives the expression of an argument.
pub(crate) fn extractions(
    handler: &HandlerFn,
    arg: impl Fn(&Param) -> TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut extractions = Vec::new();
    let mut call_args = Vec::new();
    for param in &handler.params {
        call_args.push(match &param.kind {
            Kind::Extractor(extractor) => {
                let var = format_ident!("__extracted{}", extractions.len());
                let ty = &extractor.ty;
                let make = quote_spanned! {at(ty)=>
                    <#ty as ::presa::__private::FromContext>::from_context
                };
                extractions.push(quote!(let #var = #make(&__ctx)?;));
                match extractor.reference {
                    Some(_) => quote!(&#var),
                    None => quote!(#var),
                }
            }
            Kind::Arg => arg(param),
        });
    }
    (extractions, call_args)
}

/// `fn layers`, when the handler declares a layer. Located at the
/// expression, so that one that is not a layer is reported there.
pub(crate) fn layers(layer: Option<&Expr>) -> TokenStream {
    let Some(layer) = layer else {
        return TokenStream::new();
    };
    let with = quote_spanned! {at(layer)=>
        ::presa::__private::HandlerLayers::new().with(#layer)
    };
    quote! {
        fn layers(&self) -> ::presa::__private::HandlerLayers {
            #with
        }
    }
}

/// `fn scopes`, when the handler declares some.
pub(crate) fn scopes(scopes: Option<&[LitStr]>) -> TokenStream {
    match scopes {
        Some(scopes) if !scopes.is_empty() => quote! {
            fn scopes(&self) -> &'static [&'static str] {
                &[#(#scopes),*]
            }
        },
        _ => TokenStream::new(),
    }
}

/// `fn required_state`: what the extractors declare, when there are any.
/// Located at each type like the extraction, so that a type that is not an
/// extractor gives the same error at the same place twice, which the
/// compiler reports once.
pub(crate) fn required_state(handler: &HandlerFn) -> TokenStream {
    let declared: Vec<_> = handler
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            Kind::Extractor(extractor) => {
                let ty = &extractor.ty;
                Some(quote_spanned! {at(ty)=>
                    <#ty as ::presa::__private::FromContext>::required_state()
                })
            }
            Kind::Arg => None,
        })
        .collect();
    if declared.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn required_state(&self) -> ::std::vec::Vec<::presa::__private::StateType> {
            ::presa::__private::state_types([#(#declared),*])
        }
    }
}

/// `fn completer`: each argument's `#[param(complete = f)]`, when there are
/// any. A function of the wrong shape is reported at its path.
pub(crate) fn completer(handler: &HandlerFn) -> TokenStream {
    let arms: Vec<_> = handler
        .args()
        .filter_map(|(param, ident)| {
            let function = &param.attrs.complete.as_ref()?.function;
            let key = syn::ext::IdentExt::unraw(ident).to_string();
            let make = quote_spanned!(at(function)=> ::presa::__private::Completer::new(#function));
            Some(quote!(#key => ::core::option::Option::Some(#make),))
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn completer(
            &self,
            __argument: &str,
        ) -> ::core::option::Option<::presa::__private::Completer> {
            match __argument {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}
