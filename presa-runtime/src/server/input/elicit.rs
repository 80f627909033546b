//! Typed elicitation: the [`Elicit`] trait, its field rules, and the answer.
//!
//! Form elicitation only allows a flat object of primitives. presa enforces
//! that at compile time: `#[derive(Elicit)]` checks every field against
//! [`ElicitField`], which exists only for the allowed types.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A type a tool can ask the user for with `ctx.elicit::<T>(…)`.
///
/// Derive it with `#[derive(Deserialize, JsonSchema, Elicit)]` on a struct
/// whose fields are all [`ElicitField`]s.
pub trait Elicit: DeserializeOwned + JsonSchema + Send + 'static {
    /// The `requestedSchema` sent to the client, generated from the type.
    /// The server compiles it once per type
    /// ([`FormSchema::of`](crate::server::FormSchema::of)) and checks every answer
    /// against it.
    fn requested_schema() -> Value {
        crate::schema::elicitation_schema::<Self>()
    }
}

/// A type that may be a field of an elicitation form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a primitive form field",
    note = "form elicitation takes a flat object whose fields are `String`, `bool`, integers, floats, or a unit-only enum with `#[derive(Elicit)]`, each optionally in `Option`, or a `Vec` of such an enum for a multi-select"
)]
pub trait ElicitField {}

/// A unit-only enum usable as a single- or multi-select elicitation field.
/// `#[derive(Elicit)]` on such an enum implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation enum",
    note = "a multi-select field is a `Vec` of a unit-only enum with `#[derive(Elicit)]`"
)]
pub trait ElicitEnum: ElicitField {}

macro_rules! primitive_fields {
    ($($t:ty),*) => { $(impl ElicitField for $t {})* };
}
primitive_fields!(
    String, bool, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, f32, f64
);

impl<T: ElicitField> ElicitField for Option<T> {}
impl<T: ElicitEnum> ElicitField for Vec<T> {}

/// What the user did with an elicitation. A decline or a cancel is never an
/// accept: only [`Elicitation::Accepted`] carries data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form; here is its content.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The content, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the user accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Elicitation::Accepted(_))
    }
}
