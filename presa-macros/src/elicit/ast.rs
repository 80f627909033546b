//! The intermediate representation of a `#[derive(Elicit)]` input.

use syn::{Data, DeriveInput, Error, Fields, Generics, Ident, Type, Variant};

/// A type deriving `Elicit`.
pub(crate) struct Input<'a> {
    /// The type's name.
    pub ident: &'a Ident,
    /// Its generics, which must be empty.
    pub generics: &'a Generics,
    /// Its shape.
    pub body: Body<'a>,
}

/// The shapes the derive understands.
pub(crate) enum Body<'a> {
    /// A struct with named fields: a form.
    Form(Vec<&'a Type>),
    /// An enum: a select field, if its variants are all units.
    Select(Vec<&'a Variant>),
}

impl<'a> Input<'a> {
    /// Reads `input`; an error for shapes that are never valid: tuple and
    /// unit structs, and unions.
    pub(crate) fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let body = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => Body::Form(named.named.iter().map(|f| &f.ty).collect()),
                Fields::Unnamed(unnamed) => {
                    return Err(Error::new_spanned(
                        unnamed,
                        "`#[derive(Elicit)]` needs named fields: a form field's name is its key, \
                         as in `struct Confirm { ok: bool }`",
                    ));
                }
                Fields::Unit => {
                    return Err(Error::new_spanned(
                        &input.ident,
                        "`#[derive(Elicit)]` needs a struct with named fields, as in \
                         `struct Confirm { ok: bool }`",
                    ));
                }
            },
            Data::Enum(e) => Body::Select(e.variants.iter().collect()),
            Data::Union(u) => {
                return Err(Error::new_spanned(
                    u.union_token,
                    "`#[derive(Elicit)]` works on a struct with named fields (a form) or a \
                     unit-only enum (a select field), not on a union",
                ));
            }
        };
        Ok(Input {
            ident: &input.ident,
            generics: &input.generics,
            body,
        })
    }
}
