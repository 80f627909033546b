//! An accumulator for spanned errors.
//!
//! Validation reports every problem it finds rather than stopping at the
//! first, so a user fixing a tool does not have to recompile once per
//! mistake. `syn::Error` can hold several errors; this wraps the combining.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Errors collected while parsing and validating one macro input.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Records `message`, spanning the tokens of `at`.
    pub(crate) fn error(&mut self, at: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(at, message));
    }

    /// Records `message` at `span`, for a value kept with its span rather
    /// than its tokens.
    pub(crate) fn error_at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// `Err` with every recorded error, or `Ok` if there were none.
    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
