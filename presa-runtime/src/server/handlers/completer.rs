//! Completers: what suggests values for a prompt argument or a resource
//! template variable while the user types it (`completion/complete`).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use async_trait::async_trait;

use crate::server::input::context::RequestInfo;
use crate::server::request::error::ToolError;
use crate::server::request::state::{State, StateMap};
use crate::wire::Completion;

/// What a completer knows besides the typed text: which argument it
/// completes, the values already chosen for the others, and who asks.
/// Cheap to clone.
#[derive(Clone)]
pub struct CompletionContext {
    inner: Arc<Inner>,
}

struct Inner {
    argument: String,
    arguments: BTreeMap<String, String>,
    request: RequestInfo,
    state: Arc<StateMap>,
}

impl CompletionContext {
    pub(crate) fn new(
        argument: String,
        arguments: BTreeMap<String, String>,
        request: RequestInfo,
        state: Arc<StateMap>,
    ) -> Self {
        CompletionContext {
            inner: Arc::new(Inner {
                argument,
                arguments,
                request,
                state,
            }),
        }
    }

    /// A context outside any server, for calling a completer directly (in
    /// a unit test, say): no state.
    pub fn standalone(
        argument: impl Into<String>,
        arguments: BTreeMap<String, String>,
        request: RequestInfo,
    ) -> Self {
        CompletionContext::new(argument.into(), arguments, request, Arc::default())
    }

    /// The argument or variable being completed.
    pub fn argument(&self) -> &str {
        &self.inner.argument
    }

    /// The values the client already has for the other arguments, by name
    /// (the request's `context.arguments`).
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.inner.arguments
    }

    /// Who is asking.
    pub fn request(&self) -> &RequestInfo {
        &self.inner.request
    }

    /// A clone of the application state of type `T`, registered with
    /// [`ServerBuilder::state`](crate::server::ServerBuilder::state).
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.state.get::<T>().cloned().map(State)
    }
}

impl fmt::Debug for CompletionContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionContext")
            .field("argument", &self.inner.argument)
            .field("arguments", &self.inner.arguments)
            .finish_non_exhaustive()
    }
}

/// The suggestions of one completer run, or why there are none.
pub type CompletionOutcome = Result<Completion, ToolError>;

/// What a completer returns.
///
/// Implemented for `Vec<String>` and `Vec<&'static str>` (every match, best
/// first), [`Completion`] (taken as is, cut at 100 values), and
/// `Result<T, E>` where `T` converts and `E: Into<ToolError>`; an error is
/// an internal failure of the request (`-32603`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completer",
    label = "this does not convert into completion values",
    note = "return `Vec<String>`, `Vec<&'static str>` or `Completion`, or a `Result<_, E>` of one of them where `E: Into<ToolError>`"
)]
pub trait IntoCompletion {
    /// The conversion.
    fn into_completion(self) -> CompletionOutcome;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> CompletionOutcome {
        Ok(Completion::from_matches(self))
    }
}

impl IntoCompletion for Vec<&'static str> {
    fn into_completion(self) -> CompletionOutcome {
        Ok(Completion::from_matches(
            self.into_iter().map(str::to_owned).collect(),
        ))
    }
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> CompletionOutcome {
        Ok(self.bounded())
    }
}

impl<T: IntoCompletion, E: Into<ToolError>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> CompletionOutcome {
        self.map_err(Into::into).and_then(T::into_completion)
    }
}

/// A function that completes an argument: `#[param(complete = some_fn)]`.
///
/// A completer is a plain function named on the parameter it completes,
/// `#[param(complete = languages)]`, in one of two shapes:
///
/// - `fn(&str, &CompletionContext) -> R`, for suggestions at hand;
/// - `async fn(String, CompletionContext) -> R`, for suggestions looked up
///   somewhere (a database through [`CompletionContext::state`], say);
///
/// where `R` is `Vec<String>`, `Vec<&'static str>`, a [`Completion`], or
/// a `Result` of one of them. The first argument is what the user typed
/// so far; the completer does its own matching (a prefix, a fuzzy
/// match), best suggestions first. The server keeps the first 100 and
/// says how many there were in all.
///
/// ```
/// use presa_runtime::server::CompletionContext;
///
/// /// Languages that start with what was typed; a framework's language
/// /// narrows them.
/// fn languages(typed: &str, ctx: &CompletionContext) -> Vec<String> {
///     let all = match ctx.arguments().get("framework").map(String::as_str) {
///         Some("django") => vec!["python"],
///         _ => vec!["python", "rust", "typescript"],
///     };
///     all.into_iter().filter(|l| l.starts_with(typed)).map(str::to_owned).collect()
/// }
/// ```
///
/// `Marker` only tells the two shapes apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completer",
    label = "expected a completer function here",
    note = "a completer is `fn(&str, &CompletionContext) -> Vec<String>` or `async fn(String, CompletionContext) -> Vec<String>` (or any return type that implements `IntoCompletion`)"
)]
#[async_trait]
pub trait CompleteFn<Marker>: Send + Sync + 'static {
    /// Suggests values for `typed`.
    async fn suggest(&self, typed: String, ctx: CompletionContext) -> CompletionOutcome;
}

#[async_trait]
impl<F, R> CompleteFn<fn(&str, &CompletionContext) -> R> for F
where
    F: Fn(&str, &CompletionContext) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    async fn suggest(&self, typed: String, ctx: CompletionContext) -> CompletionOutcome {
        self(&typed, &ctx).into_completion()
    }
}

#[async_trait]
impl<F, Fut> CompleteFn<fn(String, CompletionContext) -> Fut> for F
where
    F: Fn(String, CompletionContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    async fn suggest(&self, typed: String, ctx: CompletionContext) -> CompletionOutcome {
        self(typed, ctx).await.into_completion()
    }
}

/// A completer for one argument, as a prompt or a resource template hands
/// it to the server. Cheap to clone.
#[derive(Clone)]
pub struct Completer(Arc<dyn Suggest>);

impl Completer {
    /// Wraps a completer function; see [`CompleteFn`] for the shapes.
    pub fn new<Marker: 'static>(complete: impl CompleteFn<Marker>) -> Self {
        Completer(Arc::new(Shaped(complete, PhantomData)))
    }

    /// Suggests values for `typed`.
    pub async fn suggest(&self, typed: String, ctx: CompletionContext) -> CompletionOutcome {
        self.0.suggest(typed, ctx).await
    }
}

/// A completer function of either shape, behind one trait object: what
/// [`Completer`] holds.
#[async_trait]
trait Suggest: Send + Sync {
    /// Suggests values for `typed`.
    async fn suggest(&self, typed: String, ctx: CompletionContext) -> CompletionOutcome;
}

/// A completer function with the marker of its shape, which the
/// function's [`CompleteFn`] impl is chosen by.
struct Shaped<F, Marker>(F, PhantomData<fn() -> Marker>);

#[async_trait]
impl<F: CompleteFn<Marker>, Marker: 'static> Suggest for Shaped<F, Marker> {
    async fn suggest(&self, typed: String, ctx: CompletionContext) -> CompletionOutcome {
        self.0.suggest(typed, ctx).await
    }
}

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completer")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> CompletionContext {
        use crate::server::Caller;
        let request = RequestInfo {
            protocol_version: "2026-07-28".into(),
            client_capabilities: Default::default(),
            client_info: None,
            caller: Caller::anonymous(),
        };
        let arguments = [("framework".to_owned(), "django".to_owned())].into();
        CompletionContext::standalone("language", arguments, request)
    }

    fn sync_completer(typed: &str, ctx: &CompletionContext) -> Vec<String> {
        vec![format!("{typed}:{}", ctx.arguments()["framework"])]
    }

    async fn async_completer(typed: String, ctx: CompletionContext) -> Vec<&'static str> {
        if typed.is_empty() && ctx.argument() == "language" {
            vec!["python"]
        } else {
            vec![]
        }
    }

    fn failing(_: &str, _: &CompletionContext) -> Result<Vec<String>, ToolError> {
        Err(ToolError::internal("the index is down"))
    }

    #[tokio::test]
    async fn both_shapes_complete() {
        let sync = Completer::new(sync_completer)
            .suggest("py".into(), ctx())
            .await;
        assert_eq!(sync.unwrap().values, ["py:django"]);
        let asynchronous = Completer::new(async_completer)
            .suggest(String::new(), ctx())
            .await;
        assert_eq!(asynchronous.unwrap().values, ["python"]);
        assert!(
            Completer::new(failing)
                .suggest(String::new(), ctx())
                .await
                .is_err()
        );
    }
}
