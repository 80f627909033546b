//! The rules of `#[prompt]` beyond those every handler follows: a name, if
//! given, is not empty, and the function returns the messages.

use super::attr::PromptAttrs;
use crate::errors::Errors;
use crate::handler::ast::HandlerFn;
use crate::handler::valid::check_returns;

/// Reports every way `prompt` breaks the rules of prompts.
pub(crate) fn check(prompt: &HandlerFn, attrs: &PromptAttrs, errors: &mut Errors) {
    if let Some(name) = &attrs.name
        && name.value().is_empty()
    {
        errors.error(name, "a prompt name cannot be empty");
    }
    check_returns(prompt, "its messages", "String", errors);
}
