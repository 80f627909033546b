//! A question a run asks, before it is a request on the wire.
//!
//! A run asks its questions again each time it runs, and on every run but
//! the first most of them are answered already: the answer is looked up,
//! and the question is never sent. What the run needs of an answered
//! question is only whether it is the one asked under its key before
//! (`InputBook::record`). So a question is turned into its wire request
//! only when it must be sent, and a form's digest is its message's and its
//! schema's, the schema's taken once when the form is compiled: an
//! answered form costs neither a copy of its schema nor a pass of SHA-256
//! over it.

use sha2::Digest;

use super::form::FormSchema;
use crate::util::{Digest256, HashWriter, json_digest};
use crate::wire::{ElicitRequestParams, InputRequest};

/// A question a run asks under a key.
pub(crate) enum Question {
    /// A form (`Context::elicit`, `Context::elicit_form`).
    Form { message: String, form: FormSchema },
    /// Any other request.
    Request(InputRequest),
}

/// The digest of a form question: its message and its schema's digest,
/// hashed as bytes. Through JSON, the schema's 32 bytes would be written
/// as an array of numbers, one small write each, which cost more than
/// the rest of an answered question. The leading NUL byte starts no JSON
/// text, so a form never has the digest of a request; the message's
/// length keeps message and schema apart.
fn form_digest(message: &str, schema: &Digest256) -> Digest256 {
    let mut hasher = HashWriter::new();
    hasher.0.update([0u8]);
    hasher.0.update((message.len() as u64).to_le_bytes());
    hasher.0.update(message.as_bytes());
    hasher.0.update(schema);
    hasher.finish()
}

impl Question {
    /// Equal for equal questions, and different for different ones: two
    /// forms with the same message and the same schema are the same
    /// question, and a form is never the same question as another kind.
    pub(crate) fn digest(&self) -> Digest256 {
        match self {
            Question::Form { message, form } => form_digest(message, form.digest()),
            Question::Request(request) => json_digest(request),
        }
    }

    /// The question as the request that asks it.
    pub(crate) fn into_request(self) -> InputRequest {
        match self {
            Question::Form { message, form } => InputRequest::Elicit(ElicitRequestParams::Form {
                message,
                requested_schema: form.schema().clone(),
            }),
            Question::Request(request) => request,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form(message: &str, schema: serde_json::Value) -> Question {
        Question::Form {
            message: message.into(),
            form: FormSchema::new(schema).unwrap(),
        }
    }

    fn object(property: &str) -> serde_json::Value {
        json!({"type": "object", "properties": {property: {"type": "boolean"}}})
    }

    #[test]
    fn forms_are_the_same_question_when_message_and_schema_are() {
        let digest = form("Build?", object("ok")).digest();
        assert_eq!(digest, form("Build?", object("ok")).digest());
        assert_ne!(digest, form("Deploy?", object("ok")).digest());
        assert_ne!(digest, form("Build?", object("yes")).digest());
    }

    #[test]
    fn a_form_is_not_the_request_it_becomes() {
        let question = form("Build?", object("ok"));
        let digest = question.digest();
        let request = question.into_request();
        assert!(matches!(
            &request,
            InputRequest::Elicit(ElicitRequestParams::Form { message, requested_schema })
                if message == "Build?" && *requested_schema == object("ok")
        ));
        assert_ne!(digest, Question::Request(request).digest());
    }
}
