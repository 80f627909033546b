//! `#[derive(Elicit)]`: form elicitation types, checked at compile time.
//!
//! Form elicitation only accepts a flat object of primitive fields. The
//! derive therefore does little code generation: on a struct it implements
//! `Elicit` and asserts that every field type is an `ElicitField`, at that
//! field, so a nested struct or a `Vec<String>` is rejected where it is
//! written; on a unit-only enum it implements `ElicitField` and
//! `ElicitEnum`, making the enum a select field.
//!
//! Either way the type must also derive `serde::Deserialize` and
//! `schemars::JsonSchema`. The derive asserts that at the type's name,
//! against a runtime trait with its own message, and makes the `Elicit`
//! impl conditional on it, so that a missing derive is one short error
//! rather than the unmet supertraits of `Elicit`.

mod ast;
mod expand;
mod valid;

use proc_macro2::TokenStream;

use crate::errors::Errors;

/// Expands `#[derive(Elicit)]` on `input`.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let form = match ast::Input::parse(&input) {
        Ok(form) => form,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    valid::check(&form, &mut errors);
    match errors.finish() {
        Ok(()) => expand::derive(&form),
        Err(e) => e.to_compile_error(),
    }
}
