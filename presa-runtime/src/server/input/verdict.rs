//! The input of one run: what it asked, what it was answered, and the
//! verdict on the run once it ends.
//!
//! Every `ctx.elicit` (and `sample`, `list_roots`) writes to the run's
//! [`InputBook`]. When the handler returns, [`InputBook::verdict`] decides
//! what the call came to, by these rules, in order:
//!
//! 1. a run that broke its own input (one key for two different requests,
//!    a request that cannot be sent) failed: `-32603`, the cause logged;
//!    so did a run whose client, asked with a request of the server's own
//!    (a legacy session), answered with an error or not usably: the error
//!    says so;
//! 2. a run that needs input the client did not declare it can give
//!    failed: `-32021`, naming the capability;
//! 3. a run with requests still unanswered needs input, whatever the
//!    handler returned (registered input wins over the return value);
//! 4. otherwise the handler's own outcome stands: its result, `-32602` for
//!    a prompt or a resource read it refused, or `-32603` for an internal
//!    error or a panic.
//!
//! A plain call renders the verdict as its response (an
//! `InputRequiredResult` for rule 3); a task renders it as the task's end.
//! `prompts/get` and `resources/read` render it as their response too.
//! All of them use this one function, so the rules cannot drift apart.

use litemap::LiteMap;

use crate::server::request::error::{Failure, Origin};
use crate::server::request::reply::{internal_error, missing_capability, rejected};
use crate::util::Digest256;
use crate::wire::{
    ErrorObject, InputCapability, InputRequest, InputRequests, InputResponse, InputResponses,
};

/// Input requests and answers of one run.
#[derive(Default)]
pub(crate) struct InputBook {
    /// Answers available to this run, by key.
    answers: InputResponses,
    /// Every key this run asked about, answered or not, with the digest of
    /// its request (not the request: it may be large, and the digest is
    /// all a comparison needs). A sorted vector: a run asks few keys, and
    /// a parked task keeps its run's book.
    used: LiteMap<String, Digest256>,
    /// Requests registered during this run and not answered.
    pending: InputRequests,
    /// The first capability an input request needed that the client lacks.
    unanswerable: Option<InputCapability>,
    /// Why the run's input cannot be used, when the tool got it wrong.
    /// Boxed, as the next: rare, and a parked task keeps its run's book.
    broken: Option<Box<str>>,
    /// The error of a question a legacy client did not answer usably.
    refused: Option<Box<ErrorObject>>,
}

/// What a finished run came to; `T` is the result of the method (a
/// `CallToolResult`, a `GetPromptResult`, …).
#[derive(Debug)]
pub(crate) enum Verdict<T> {
    /// The handler's result stands (for a tool, it may be an `isError`
    /// result).
    Complete(T),
    /// The run needs these answers first. `carried` are the answers it
    /// already used, which the next round must not lose.
    InputRequired {
        requests: InputRequests,
        carried: InputResponses,
    },
    /// The call failed with this JSON-RPC error.
    Failed(ErrorObject),
}

impl InputBook {
    /// A book holding the answers gathered so far.
    pub fn with_answers(answers: InputResponses) -> Self {
        InputBook {
            answers,
            ..Default::default()
        }
    }

    /// Records that the run asks the question of `digest`
    /// (`Question::digest`) under `key`. A key names one question: asking
    /// something else under it breaks the run, and this returns `false`.
    pub fn record(&mut self, key: &str, digest: Digest256) -> bool {
        match self.used.get(key) {
            Some(earlier) if *earlier != digest => {
                let cause =
                    format!("input key `{key}` was used for two different requests in one run");
                self.break_with(cause);
                false
            }
            Some(_) => true,
            None => {
                if self.used.is_empty() {
                    // Room for the one key most runs ask, not for four.
                    self.used = LiteMap::with_capacity(1);
                }
                self.used.insert(key.to_owned(), digest);
                true
            }
        }
    }

    /// The answer given for `key`, if any.
    pub fn answer(&self, key: &str) -> Option<&InputResponse> {
        self.answers.get(key)
    }

    /// Forgets an answer that turned out unusable, so the key is asked again.
    pub fn discard_answer(&mut self, key: &str) {
        self.answers.remove(key);
    }

    /// Notes that the run needs `capability`, which the client lacks.
    pub fn unanswerable(&mut self, capability: InputCapability) {
        self.unanswerable.get_or_insert(capability);
    }

    /// Registers `request` to be sent to the client under `key`.
    pub fn defer(&mut self, key: String, request: InputRequest) {
        self.pending.entry(key).or_insert(request);
    }

    /// Marks the run's input unusable, for the logs to say why.
    pub fn break_with(&mut self, cause: String) {
        self.broken.get_or_insert(cause.into());
    }

    /// Notes that a question asked with a request of the server's own got
    /// no usable answer.
    pub fn refuse(&mut self, error: ErrorObject) {
        self.refused.get_or_insert(Box::new(error));
    }

    /// Every answer the run holds, used or not.
    pub fn answers(&self) -> &InputResponses {
        &self.answers
    }

    /// Whether the run asked for input it did not get, or could not ask.
    pub fn has_unmet_input(&self) -> bool {
        !self.pending.is_empty()
            || self.unanswerable.is_some()
            || self.broken.is_some()
            || self.refused.is_some()
    }

    /// What the run came to, given the handler's own `outcome`; see the
    /// module docs for the rules. `origin` is what ran.
    pub fn verdict<T>(self, origin: Origin<'_>, outcome: Result<T, Failure>) -> Verdict<T> {
        if let Some(cause) = self.broken {
            return Verdict::Failed(internal_error(origin.name(), &cause));
        }
        if let Some(error) = self.refused {
            return Verdict::Failed(*error);
        }
        if let Some(capability) = self.unanswerable {
            let message = format!("{origin} needs input the client cannot give");
            return Verdict::Failed(missing_capability(message, capability.declaration()));
        }
        if !self.pending.is_empty() {
            let used = self.used;
            let carried = self
                .answers
                .into_iter()
                .filter(|(key, _)| used.contains_key(key))
                .collect();
            return Verdict::InputRequired {
                requests: self.pending,
                carried,
            };
        }
        match outcome {
            Ok(result) => Verdict::Complete(result),
            Err(Failure::Internal(cause)) => Verdict::Failed(internal_error(origin.name(), &cause)),
            Err(Failure::Rejected(message)) => Verdict::Failed(rejected(origin, message)),
            Err(Failure::InputRequired) => Verdict::Failed(internal_error(
                origin.name(),
                "the handler returned InputRequired without a pending input request",
            )),
        }
    }
}

impl<T> Verdict<T> {
    /// The verdict with its complete result turned into `U`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Verdict<U> {
        match self {
            Verdict::Complete(result) => Verdict::Complete(f(result)),
            Verdict::InputRequired { requests, carried } => {
                Verdict::InputRequired { requests, carried }
            }
            Verdict::Failed(error) => Verdict::Failed(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::input::question::Question;
    use crate::wire::{CallToolResult, ElicitResult, codes};

    const TOOL: Origin<'static> = Origin::Tool("t");

    fn roots() -> InputRequest {
        InputRequest::ListRoots
    }

    /// The digest `Context::ask` records `request` by.
    fn asked(request: &InputRequest) -> Digest256 {
        Question::Request(request.clone()).digest()
    }

    #[test]
    fn registered_input_wins_over_the_result() {
        let mut book = InputBook::default();
        assert!(book.record("k", asked(&roots())));
        book.defer("k".into(), roots());
        let verdict = book.verdict(TOOL, Ok(CallToolResult::from_text("ignored")));
        assert!(
            matches!(verdict, Verdict::InputRequired { ref requests, .. } if requests.contains_key("k"))
        );
    }

    #[test]
    fn a_broken_run_fails_before_anything_else() {
        let mut book = InputBook::default();
        book.unanswerable(InputCapability::Roots);
        book.defer("k".into(), roots());
        book.break_with("bad".into());
        let Verdict::Failed(error) = book.verdict(TOOL, Ok(CallToolResult::default())) else {
            panic!("expected a failure");
        };
        assert_eq!(error.code, codes::INTERNAL_ERROR);
    }

    #[test]
    fn a_missing_capability_comes_before_pending_input() {
        let mut book = InputBook::default();
        book.defer("k".into(), roots());
        book.unanswerable(InputCapability::Sampling);
        let Verdict::Failed(error) = book.verdict(TOOL, Ok(CallToolResult::default())) else {
            panic!("expected a failure");
        };
        assert_eq!(error.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);
    }

    #[test]
    fn only_used_answers_are_carried() {
        let answers = [
            ("used".to_owned(), ElicitResult::decline().into()),
            ("stray".to_owned(), ElicitResult::decline().into()),
        ]
        .into();
        let mut book = InputBook::with_answers(answers);
        book.record("used", asked(&roots()));
        book.record("next", asked(&roots()));
        book.defer("next".into(), roots());
        let Verdict::InputRequired { carried, .. } =
            book.verdict::<CallToolResult>(TOOL, Err(Failure::InputRequired))
        else {
            panic!("expected input");
        };
        assert_eq!(carried.keys().collect::<Vec<_>>(), ["used"]);
    }

    #[test]
    fn a_refused_resource_names_its_uri() {
        let book = InputBook::default();
        let outcome: Result<(), _> = Err(Failure::Rejected("no such user".into()));
        let Verdict::Failed(error) = book.verdict(Origin::Resource("users://9"), outcome) else {
            panic!("expected a failure");
        };
        assert_eq!(error.code, codes::INVALID_PARAMS);
        assert_eq!(error.message, "no such user");
        assert_eq!(error.data, Some(serde_json::json!({"uri": "users://9"})));
    }

    #[test]
    fn a_key_names_one_request() {
        let mut book = InputBook::default();
        assert!(book.record("k", asked(&roots())));
        assert!(book.record("k", asked(&roots())));
        let other = InputRequest::Other {
            method: "x".into(),
            params: None,
        };
        assert!(!book.record("k", asked(&other)));
        assert!(book.has_unmet_input());
    }
}
