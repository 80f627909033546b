//! Code generation for `#[derive(Elicit)]`.
//!
//! Every bound on the user's type is asserted by a call located at the
//! user's tokens (the type's name, or a field's type), against a runtime
//! trait whose `#[diagnostic::on_unimplemented]` says what to write, so
//! that a mistake is one message at its cause.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{Body, Input};

/// The trait impls, and the assertions on the type and its fields.
pub(crate) fn derive(input: &Input<'_>) -> TokenStream {
    let ident = input.ident;
    let derives = quote_spanned!(at(ident)=> __assert_derives::<#ident>(););
    let (impls, field_checks) = match &input.body {
        Body::Form(fields) => {
            // One call per field, located at the field's type, so that a
            // field that is not a form field is reported there.
            let checks = fields
                .iter()
                .map(|ty| quote_spanned!(at(ty)=> __assert_field::<#ty>();));
            (form_impl(input), checks.collect())
        }
        Body::Select(_) => (
            quote! {
                impl ::presa::__private::ElicitField for #ident {}
                impl ::presa::__private::ElicitEnum for #ident {}
            },
            Vec::new(),
        ),
    };
    quote! {
        #impls

        const _: () = {
            fn __assert_derives<T: ::presa::__private::ElicitDerives + ?::core::marker::Sized>() {}
            fn __assert_field<T: ::presa::__private::ElicitField + ?::core::marker::Sized>() {}
            fn __check() {
                #derives
                #(#field_checks)*
            }
        };
    }
}

/// `impl Elicit`, which holds only when the type has the derives.
///
/// `Elicit` requires `Deserialize` and `JsonSchema`, so a plain impl on a
/// type without them would fail with the compiler's own message, next to
/// the derives assertion. The `where` clause makes the impl conditional
/// instead; its `for<'__elicit>` keeps the bound from being "trivial" (one
/// without generics, which the compiler rejects when false), so that the
/// assertion is the only error.
fn form_impl(input: &Input<'_>) -> TokenStream {
    let ident = input.ident;
    quote! {
        impl ::presa::__private::Elicit for #ident
        where
            for<'__elicit> #ident: ::presa::__private::ElicitDerives,
        {
        }
    }
}

/// Call-site hygiene (so the generated names resolve), located at `tokens`
/// (so errors point there).
fn at(tokens: &impl Spanned) -> Span {
    Span::call_site().located_at(tokens.span())
}
