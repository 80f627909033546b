//! Extractors: parameters of a `#[tool]`, `#[prompt]` or `#[resource]`
//! function whose value comes from the request itself rather than from its
//! arguments.
//!
//! A macro sees names, not types, so the macros recognise the built-in
//! extractors by the name of their type: a parameter typed `Context`,
//! `&Context`, `State<_>`, `Scopes`, `Claims<_>` or `Headers` is an
//! extractor, anything else an argument. `#[param(arg)]` and `#[param(extract)]` override that guess. Whatever the
//! reason a parameter is an extractor, the generated code gets its value
//! through [`FromContext`], so a user type that only shares a name with
//! `Context` is not silently taken for the real one: it fails to compile,
//! at the type, with a note that says how to make it an argument.
//!
//! The trait is also how applications write their own extractors: the
//! caller's identity, a database handle looked up per tenant, anything that
//! a tool would otherwise compute from the [`Context`] in its first lines.
//!
//! Extractors declare the application state they read
//! ([`FromContext::required_state`]). The macros collect the declarations
//! of a handler's parameters, and
//! [`ServerBuilder::build`](crate::server::ServerBuilder::build) refuses a server
//! whose tools, prompts or resources need state that was never registered:
//! a forgotten `.state(x)` is found when the server starts, not by the
//! first caller.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::server::caller::Scopes;
use crate::server::input::context::Context;
use crate::server::request::error::ToolError;
use crate::server::request::state::{State, StateType};

/// A value a tool can take as a parameter, made from the call's
/// [`Context`] instead of its JSON arguments.
///
/// Implemented by [`Context`] (a clone: every clone is the same context)
/// and by [`State<T>`] (a clone of the state registered with
/// [`ServerBuilder::state`](crate::server::ServerBuilder::state)). A parameter of
/// `#[tool]`, `#[prompt]` or `#[resource]` takes your own extractor with
/// `#[param(extract)]`:
///
/// ```
/// use presa_runtime::server::{Context, FromContext, ToolError};
///
/// /// The authenticated caller; calls without one are refused.
/// struct Subject(String);
///
/// impl FromContext for Subject {
///     fn from_context(ctx: &Context) -> Result<Self, ToolError> {
///         ctx.request()
///             .caller
///             .subject
///             .clone()
///             .map(Subject)
///             .ok_or_else(|| ToolError::new("this tool needs an authenticated caller"))
///     }
/// }
/// ```
///
/// ```text
/// #[tool]
/// async fn whoami(#[param(extract)] Subject(who): Subject) -> String {
///     who
/// }
/// ```
///
/// An extractor that fails ends the call before the tool runs, with the
/// error it returned.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an extractor",
    label = "this parameter is an extractor, but `{Self}` does not implement `FromContext`",
    note = "an extractor is a parameter made from the call's context rather than from its JSON arguments: `Context`, `State<T>`, `Scopes`, `Claims<T>`, `Headers`, or a type of yours that implements `presa::server::FromContext`",
    note = "presa takes a parameter whose type is named `Context`, `State<_>`, `Scopes`, `Claims<_>` or `Headers` for an extractor; if this is a type of your own, `#[param(arg)]` makes it a JSON argument"
)]
pub trait FromContext: Sized + Send {
    /// Makes the value for one call.
    fn from_context(ctx: &Context) -> Result<Self, ToolError>;

    /// The application state [`from_context`](Self::from_context) reads,
    /// checked when the server is built. `State<T>` declares `T`; an
    /// extractor built on other extractors declares what they declare.
    fn required_state() -> Vec<StateType> {
        Vec::new()
    }
}

impl FromContext for Context {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        Ok(ctx.clone())
    }
}

impl<T: Clone + Send + Sync + 'static> FromContext for State<T> {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        ctx.state::<T>()
    }

    fn required_state() -> Vec<StateType> {
        vec![StateType::of::<T>()]
    }
}

impl FromContext for Scopes {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        Ok(ctx.request().caller.scopes.clone())
    }
}

/// The claims of the token that authenticated the caller, as a type of
/// yours: an extractor, for the claims a tool reads (an `email`, a tenant).
///
/// ```
/// use presa_runtime::server::{Claims, Context, FromContext};
///
/// #[derive(serde::Deserialize)]
/// struct Tenant {
///     tenant_id: String,
/// }
///
/// fn tenant_of(ctx: &Context) -> String {
///     match Claims::<Tenant>::from_context(ctx) {
///         Ok(Claims(tenant)) => tenant.tenant_id,
///         Err(_) => "public".into(),
///     }
/// }
/// ```
///
/// In a `#[tool]`, a parameter `Claims(tenant): Claims<Tenant>` does the
/// same. The call fails before the tool runs, saying why, when the caller
/// has no token (stdio, in-process, an anonymous HTTP request) or when the
/// claims do not deserialize as `T`; a parameter
/// `#[param(extract)] tenant: Option<Claims<Tenant>>` runs without them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims<T>(pub T);

impl<T: DeserializeOwned + Send> FromContext for Claims<T> {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        let Some(claims) = ctx.request().caller.claims.as_deref() else {
            return Err(ToolError::new(
                "this needs the claims of an access token, and the caller presented none",
            ));
        };
        T::deserialize(Value::Object(claims.clone()))
            .map(Claims)
            .map_err(|error| {
                tracing::debug!(%error, "the caller's token claims do not fit the tool's type");
                ToolError::new("the caller's access token lacks a claim this needs")
            })
    }
}

impl<T: DeserializeOwned + Send> FromContext for Option<Claims<T>> {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        match ctx.request().caller.claims {
            Some(_) => Claims::from_context(ctx).map(Some),
            None => Ok(None),
        }
    }
}

/// The headers of the HTTP request that made the call, without its
/// credentials (`Authorization`, `Cookie`, `Proxy-Authorization`): an
/// extractor, for the tenant header a gateway adds, a trace id, a client's
/// `User-Agent`.
///
/// ```
/// use presa_runtime::server::{Context, FromContext, Headers};
///
/// fn tenant(ctx: &Context) -> Option<String> {
///     let Headers(headers) = Headers::from_context(ctx).ok()?;
///     let tenant = headers.get("x-tenant")?.to_str().ok()?;
///     Some(tenant.to_owned())
/// }
/// ```
///
/// A call that did not come over HTTP (stdio, in-process) fails before the
/// tool runs, saying so; a parameter `#[param(extract)] headers:
/// Option<Headers>` gets `None` there instead. A task sees the headers of
/// the request that started it.
#[cfg(feature = "http-server")]
#[derive(Debug, Clone, PartialEq)]
pub struct Headers(pub axum::http::HeaderMap);

#[cfg(feature = "http-server")]
impl FromContext for Headers {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        match &ctx.request().caller.http_headers {
            Some(headers) => Ok(Headers(headers.as_ref().clone())),
            None => Err(ToolError::new(
                "this tool reads the headers of the HTTP request that called it, and this call \
                 did not come over HTTP",
            )),
        }
    }
}

#[cfg(feature = "http-server")]
impl FromContext for Option<Headers> {
    fn from_context(ctx: &Context) -> Result<Self, ToolError> {
        Ok(ctx
            .request()
            .caller
            .http_headers
            .as_deref()
            .map(|headers| Headers(headers.clone())))
    }
}
