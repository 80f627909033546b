//! Code generation for `#[derive(Elicit)]`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{Body, Input};

/// The trait impls, and for a form the field assertions.
pub(crate) fn derive(input: &Input<'_>) -> TokenStream {
    let ident = input.ident;
    match &input.body {
        Body::Form(fields) => {
            // One call per field, located at the field's type, so that a
            // field that is not a form field is reported there.
            let checks = fields.iter().map(|ty| {
                let at = Span::call_site().located_at(ty.span());
                quote_spanned!(at=> __assert_field::<#ty>();)
            });
            quote! {
                impl ::presa::__private::Elicit for #ident {}

                const _: () = {
                    fn __assert_field<T: ::presa::__private::ElicitField + ?::core::marker::Sized>() {}
                    fn __check() {
                        #(#checks)*
                    }
                };
            }
        }
        Body::Select(_) => quote! {
            impl ::presa::__private::ElicitField for #ident {}
            impl ::presa::__private::ElicitEnum for #ident {}
        },
    }
}
