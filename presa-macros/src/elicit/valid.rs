//! The rules an `Elicit` type must follow that a macro can check. Field
//! types are checked by the compiler, through the `ElicitField` assertion
//! the expansion emits.

use syn::Fields;

use super::ast::{Body, Input};
use crate::errors::Errors;

/// Reports every way `input` cannot derive `Elicit`.
pub(crate) fn check(input: &Input<'_>, errors: &mut Errors) {
    if !input.generics.params.is_empty() {
        errors.error(
            input.generics,
            "`#[derive(Elicit)]` does not support generics: a form's schema must be fixed",
        );
    }
    if let Body::Select(variants) = &input.body {
        if variants.is_empty() {
            errors.error(
                input.ident,
                "an elicitation enum needs at least one variant to choose from",
            );
        }
        for variant in variants {
            if !matches!(variant.fields, Fields::Unit) {
                errors.error(
                    variant,
                    format!(
                        "an elicitation enum is a choice between names, so its variants \
                         cannot carry data; make `{}` a unit variant",
                        variant.ident
                    ),
                );
            }
        }
    }
}
