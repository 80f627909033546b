//! The bounds on the types presa describes: a tool parameter, and a form
//! that `#[derive(Elicit)]` reads.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A type that can be a tool parameter: deserializable and describable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "this parameter type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema + Send + 'static {}

// The diagnostic names `ToolParam` and its advice, rather than serde's and
// schemars' lists of every type that happens to implement their traits.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam for T {}

/// What a type deriving `Elicit` needs besides `Elicit`: a form is read
/// with serde and described with schemars.
///
/// `#[derive(Elicit)]` asserts it at the type's name, so that a missing
/// derive is one message there rather than the unmet supertraits of
/// [`Elicit`](crate::server::Elicit) with their lists of candidates.
#[diagnostic::on_unimplemented(
    message = "`#[derive(Elicit)]` needs `{Self}` to derive `serde::Deserialize` and `schemars::JsonSchema` too",
    label = "`{Self}` lacks `serde::Deserialize`, `schemars::JsonSchema` or both",
    note = "an elicitation form is read with serde and described with schemars: write `#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]`"
)]
pub trait ElicitDerives: DeserializeOwned + JsonSchema {}

// `do_not_recommend` makes the compiler report the unmet `ElicitDerives`
// itself, with the message above, instead of looking through this impl to
// the serde or schemars bound behind it.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ElicitDerives for T {}
