//! The rules of `#[resource]` beyond those every handler follows: the
//! URI's variables are the function's argument parameters, one for one,
//! and the function returns the contents.

use syn::ext::IdentExt;

use super::attr::{ResourceAttrs, ResourceUri};
use super::template::Uri;
use crate::errors::Errors;
use crate::handler::ast::HandlerFn;
use crate::handler::valid::check_returns;

/// Reports every way `resource` breaks the rules of resources.
pub(crate) fn check(resource: &HandlerFn, attrs: &ResourceAttrs, errors: &mut Errors) {
    // A missing or invalid URI was reported with the options; its
    // variables cannot be matched with the parameters.
    if let Some(uri) = &attrs.uri {
        check_params_are_variables(resource, uri, errors);
        check_variables_are_params(resource, uri, errors);
    }
    check_returns(resource, "its contents", "String", errors);
}

/// Every argument parameter is a variable of the URI, and present whenever
/// the URI matches.
fn check_params_are_variables(resource: &HandlerFn, uri: &ResourceUri, errors: &mut Errors) {
    let text = &uri.text;
    let variables = variables(uri);
    for (param, ident) in resource.args() {
        let name = ident.unraw().to_string();
        if !variables.contains(&name) {
            let message = match variables {
                [] => format!(
                    "`{name}` is not a variable of the resource's URI {text:?}, which has none; \
                     a resource takes arguments from the variables of a URI template, as in \
                     `uri = \"notes://{{{name}}}\"`"
                ),
                _ => format!(
                    "`{name}` is not a variable of the URI template {text:?}, whose variables \
                     are `{}`; a resource's arguments are the variables of its URI",
                    variables.join("`, `")
                ),
            };
            errors.error(&param.pat, message);
        } else if let Some(inner) = param.optional_inner() {
            let inner = quote::ToTokens::to_token_stream(inner);
            errors.error(
                &param.ty,
                format!(
                    "a template variable is always present in a URI that matches; take it as \
                     `{inner}`, not `Option<{inner}>`"
                ),
            );
        }
    }
}

/// Every variable of the URI has a parameter.
fn check_variables_are_params(resource: &HandlerFn, uri: &ResourceUri, errors: &mut Errors) {
    for variable in variables(uri) {
        if !resource
            .args()
            .any(|(_, ident)| ident.unraw() == variable.as_str())
        {
            errors.error(
                &uri.literal,
                format!(
                    "the variable `{variable}` has no parameter; add `{variable}: String` (or \
                     any type that implements `FromStr`) to the function"
                ),
            );
        }
    }
}

/// The URI's variables: none for a fixed URI.
fn variables(uri: &ResourceUri) -> &[String] {
    match &uri.shape {
        Uri::Template(variables) => variables,
        Uri::Fixed => &[],
    }
}
