//! Entry points for the fuzz targets (the `fuzz/` crate at the repository's
//! root), to parts of the runtime that are not public. Compiled only with
//! the `fuzzing` feature, hidden from the docs, and no API: it changes
//! whenever the fuzz targets need it to.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::server::StateError;
use crate::server::input::request_state::{CallBinding, StateCodec};
use crate::server::{FormSchema, Server};
use crate::wire::{InputResponses, Method};

/// The server's `requestState` codec, with a key of the caller's choosing.
pub struct RequestStateCodec(StateCodec);

/// What a `requestState` binds to: the request it was issued for.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    /// The request's method.
    pub method: Method,
    /// The caller's subject; `None` for an anonymous caller.
    pub subject: Option<&'a str>,
    /// What the request names: a tool or prompt, or a resource URI.
    pub target: &'a str,
    /// The request's arguments.
    pub arguments: &'a Map<String, Value>,
}

impl Binding<'_> {
    fn call(&self) -> CallBinding<'_> {
        CallBinding::new(self.method, self.subject, self.target, self.arguments)
    }
}

impl RequestStateCodec {
    /// A codec signing with `key`, its states valid for `ttl`.
    pub fn new(key: [u8; 32], ttl: Duration) -> Self {
        RequestStateCodec(StateCodec::new(key, ttl))
    }

    /// A state for `binding` carrying `answers`, as a server issues it.
    pub fn seal(&self, binding: &Binding<'_>, answers: InputResponses) -> String {
        self.0.seal(&binding.call(), answers)
    }

    /// A state whose body is `payload`, whatever its bytes, with a valid
    /// tag: what reaches the payload's decoding past the signature check.
    pub fn sign(&self, payload: &[u8]) -> String {
        self.0.sign(payload)
    }

    /// Verifies and decodes `state` for `binding`, as a server does on a
    /// retry: the answers it carries.
    pub fn open(&self, state: &str, binding: &Binding<'_>) -> Result<InputResponses, StateError> {
        self.0.open(state, &binding.call())
    }
}

/// Checks an answer to `form` as the server checks a user's submission:
/// the field and reason of the first violation, if any.
pub fn check_form_answer(form: &FormSchema, content: &Value) -> Result<(), (String, String)> {
    form.check(content)
        .map_err(|violation| (violation.field, violation.reason))
}

/// A view of a server's memory budget that does not keep the server
/// alive (so its task sweeper still ends with it).
pub struct BudgetProbe(crate::util::Budget);

impl BudgetProbe {
    /// The probe of `server`'s budget.
    pub fn of(server: &Server) -> Self {
        BudgetProbe(server.budget().clone())
    }

    /// The bytes charged to the budget now: zero once every connection and
    /// every task has ended, or a charge leaked.
    pub fn in_use(&self) -> usize {
        self.0.used()
    }
}
