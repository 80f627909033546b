//! Prompts: the trait `#[prompt]` implements, and return-value conversion.

use async_trait::async_trait;

use crate::server::handlers::completer::Completer;
use crate::server::input::context::Context;
use crate::server::middleware::stack::HandlerLayers;
use crate::server::request::error::ToolError;
use crate::server::request::state::StateType;
use crate::wire::{Content, GetPromptResult, Prompt, PromptArguments, PromptMessage};

/// A prompt the server can list and resolve. `#[prompt]` on an `async fn`
/// generates it; the trait is public so that prompts can also be built at
/// run time.
///
/// A prompt is a template of messages the user picks (a slash command,
/// say) and fills in with arguments; `prompts/get` resolves it. Its
/// arguments are strings on the wire, so a `#[prompt]` parameter is any
/// type that parses from one ([`TextParam`](crate::server::TextParam)), and
/// `Option<T>` for an optional argument.
///
/// Resolving a prompt may ask the user first: the handler runs with a
/// [`Context`] and `ctx.elicit` works exactly as in a tool, over MRTR, with
/// the same re-run rule. The `requestState` is bound to `prompts/get`, the
/// prompt's name and its arguments.
///
/// A prompt has no `isError`: a failure is a JSON-RPC error. A
/// [`ToolError::new`] message refuses the request with `-32602` (the code
/// of a bad argument), anything else propagated is `-32603`, its cause
/// logged.
///
/// A hand implementation writes `#[async_trait::async_trait]` on its
/// `impl`, and `get` as an `async fn`.
#[async_trait]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt",
    label = "expected a prompt here",
    note = "`#[prompt] async fn code_review` generates `CodeReviewPrompt`: register that, or implement `PromptHandler` yourself"
)]
pub trait PromptHandler: Send + Sync + 'static {
    /// The prompt's listing: name, description and arguments. The server
    /// checks that every argument listed as required is present before
    /// [`get`](Self::get) runs (`-32602` naming the argument otherwise).
    fn definition(&self) -> Prompt;

    /// The completer of argument `argument`, if it has one.
    fn completer(&self, argument: &str) -> Option<Completer> {
        let _ = argument;
        None
    }

    /// The OAuth scopes a caller must hold to use this (`scopes = [...]`
    /// on the macro; see `server::authorize` for the rules). The default is
    /// none.
    fn scopes(&self) -> &'static [&'static str] {
        &[]
    }

    /// The application state the prompt reads (see
    /// [`ToolHandler::required_state`](crate::server::ToolHandler::required_state)).
    fn required_state(&self) -> Vec<StateType> {
        Vec::new()
    }

    /// The layers around this prompt's runs, inside the server's (see
    /// [`middleware`](crate::server::middleware)): `layer = …` on the
    /// macro, or [`Layered`](crate::server::Layered). The server asks once,
    /// when the prompt is registered. The default is none.
    fn layers(&self) -> HandlerLayers {
        HandlerLayers::new()
    }

    /// Resolves the prompt with `arguments`.
    async fn get(&self, ctx: Context, arguments: PromptArguments) -> PromptResult;
}

/// The outcome of one run of a prompt, before it is put on the wire.
pub type PromptResult = Result<GetPromptResult, ToolError>;

/// Converts a prompt's return value into its messages.
///
/// Implemented for `String` and `&'static str` (one user text message),
/// [`Content`] (one user message), [`PromptMessage`],
/// `Vec<PromptMessage>`, [`GetPromptResult`] (taken as is, for a
/// description), and `Result<T, E>` where `T` converts and
/// `E: Into<ToolError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "this return type does not convert into prompt messages",
    note = "return `String`, `&'static str`, `Content`, `PromptMessage`, `Vec<PromptMessage>` or `GetPromptResult`, or a `Result<_, E>` of one of them where `E: Into<ToolError>`"
)]
pub trait IntoPromptResult {
    /// The conversion.
    fn into_prompt_result(self) -> PromptResult;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> PromptResult {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> PromptResult {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> PromptResult {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for Content {
    fn into_prompt_result(self) -> PromptResult {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> PromptResult {
        Content::text(self).into_prompt_result()
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> PromptResult {
        Content::text(self).into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Into<ToolError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> PromptResult {
        self.map_err(Into::into).and_then(T::into_prompt_result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Role;

    #[test]
    fn text_becomes_one_user_message() {
        let result = "Review this".into_prompt_result().unwrap();
        assert_eq!(result.messages.len(), 1);
        assert_eq!(result.messages[0].role, Role::User);
        assert_eq!(result.text(), Some("Review this"));
        let failed: Result<String, ToolError> = Err(ToolError::new("no"));
        assert!(failed.into_prompt_result().is_err());
    }
}
