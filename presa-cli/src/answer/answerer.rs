//! [`Answerer`]: what answers one command's server's questions, by the
//! rules of `answer`, in order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use presa::client::{ClientBuilder, PendingInput};
use presa::wire::{CreateMessageParams, ElicitAction, ElicitRequestParams, ElicitResult, Root};
use serde_json::{Map, Value};

use super::beyond_forms;
use super::choices::Choices;
use super::ctrl_c::{self, Prompted};
use super::form;
use super::link::Link;
use super::presets::Presets;
use super::unanswered::Unanswered;
use crate::output::shown::{self, note};
use crate::output::status_line::StatusLine;

/// Answers the questions of one command's server.
pub struct Answerer {
    presets: Presets,
    /// Whether a person can be asked: stdin is a terminal.
    terminal: bool,
    /// Held while a person is asked, so that prompts never interleave.
    asking: Arc<tokio::sync::Mutex<()>>,
    /// Whether prompts read Ctrl-C as a key: SIGINT is caught.
    ctrl_c_is_a_key: AtomicBool,
    /// The person's choices of what a Ctrl-C means, which answers that a
    /// Ctrl-C cut short wait for.
    choices: Choices,
    unanswered: Mutex<Vec<Unanswered>>,
    status: Arc<StatusLine>,
}

impl Answerer {
    /// An answerer that knows `presets`, asking a person when `terminal`.
    pub fn new(presets: Presets, terminal: bool, status: Arc<StatusLine>) -> Arc<Self> {
        Arc::new(Answerer {
            presets,
            terminal,
            asking: Arc::default(),
            ctrl_c_is_a_key: AtomicBool::new(false),
            choices: Choices::default(),
            unanswered: Mutex::new(Vec::new()),
            status,
        })
    }

    /// `builder`, answering through this answerer (rule 3 for sampling).
    pub fn install(self: &Arc<Self>, builder: ClientBuilder) -> ClientBuilder {
        let elicit = Arc::clone(self);
        let roots = Arc::clone(self);
        let builder = builder
            .url_elicitation(true)
            .on_elicitation(move |input| {
                let answerer = Arc::clone(&elicit);
                async move { answerer.elicit(input).await }
            })
            .on_roots(move |_| {
                let answerer = Arc::clone(&roots);
                async move { answerer.roots().await }
            });
        if !self.terminal {
            return builder;
        }
        let sample = Arc::clone(self);
        builder.on_sampling(move |input: PendingInput<CreateMessageParams>| {
            let answerer = Arc::clone(&sample);
            async move {
                let params = input.params;
                answerer.answer(move || beyond_forms::sample(&params)).await
            }
        })
    }

    /// Whether a person can be asked.
    pub fn has_terminal(&self) -> bool {
        self.terminal
    }

    /// From now on, prompts read Ctrl-C as a key, which ends them; only
    /// once SIGINT is caught for good, since the prompt then raises it.
    pub fn read_ctrl_c_as_a_key(&self) {
        self.ctrl_c_is_a_key.store(true, Ordering::Release);
    }

    /// The count of the person's choices of what a Ctrl-C means.
    pub fn choices(&self) -> &Choices {
        &self.choices
    }

    /// The questions declined for want of a person, so far.
    pub fn unanswered(&self) -> Vec<Unanswered> {
        lock(&self.unanswered).clone()
    }

    /// The questions declined for want of a person, so far, forgotten.
    pub fn take_unanswered(&self) -> Vec<Unanswered> {
        std::mem::take(&mut *lock(&self.unanswered))
    }

    /// Asks the person to fill in `schema`'s fields, as a server's form
    /// question is asked (`presa shell` asks for a tool's required
    /// arguments so): the values, or `None` when the person declined.
    pub async fn fill_in(&self, message: String, schema: Value) -> Option<Map<String, Value>> {
        let answer = self
            .answer(move || form::fill(&message, &schema, Map::new()))
            .await;
        match answer.action {
            ElicitAction::Accept => Some(answer.content.unwrap_or_default()),
            _ => None,
        }
    }

    /// Runs the blocking prompt `f` for the person, alone on the terminal
    /// and with the progress line cleared.
    ///
    /// The prompt's thread holds the terminal, and lets go of it when the
    /// prompt ends: a question whose answer waits unread (`follow` stops
    /// reading the task's while it asks what Ctrl-C means) must not keep
    /// the next prompt waiting.
    pub async fn ask<R: Send + 'static>(&self, f: impl FnOnce() -> R + Send + 'static) -> R {
        let turn = Arc::clone(&self.asking).lock_owned().await;
        let status = Arc::clone(&self.status);
        let ctrl_c_is_a_key = self.ctrl_c_is_a_key.load(Ordering::Acquire);
        tokio::task::spawn_blocking(move || {
            let _alone = turn;
            let _keys = ctrl_c_is_a_key.then(ctrl_c::CtrlCAsKey::read);
            status.suspend(f)
        })
        .await
        .expect("a prompt does not panic")
    }

    /// Asks the person a server's question through `prompt`, as
    /// [`ask`](Self::ask) does. An answer that a Ctrl-C cut short is given
    /// only after the person chose what the Ctrl-C means; the count it
    /// waits from is read before the terminal is let go, so that no choice
    /// comes in between.
    async fn answer<R: Send + 'static>(
        &self,
        prompt: impl FnOnce() -> Prompted<R> + Send + 'static,
    ) -> R {
        let choices = self.choices.clone();
        let (prompted, mark) = self.ask(move || (prompt(), choices.mark())).await;
        if prompted.by_ctrl_c {
            self.choices.after(mark).await;
        }
        prompted.answer
    }

    async fn elicit(&self, input: PendingInput<ElicitRequestParams>) -> ElicitResult {
        match input.params {
            ElicitRequestParams::Form {
                message,
                requested_schema,
            } => self.form(&input.key, message, requested_schema).await,
            ElicitRequestParams::Url { message, url } => {
                let link = match Link::parse(url.as_str()) {
                    Ok(link) => link,
                    Err(refused) => {
                        self.ask(move || note!("presa: {refused}; declined")).await;
                        return ElicitResult::decline();
                    }
                };
                if !self.terminal {
                    return self.decline(Unanswered {
                        key: input.key,
                        message: format!("{message} (at {})", link.summary()),
                        answers: Vec::new(),
                    });
                }
                self.answer(move || beyond_forms::visit(&message, &link))
                    .await
            }
            _ => ElicitResult::decline(),
        }
    }

    /// A form question (rules 1 to 3).
    async fn form(&self, key: &str, message: String, schema: Value) -> ElicitResult {
        let given = self.presets.for_question(key, &schema).unwrap_or_else(|e| {
            note!("presa: {}; not taken", shown::line(&e));
            Map::new()
        });
        if !given.is_empty() && fills_required(&schema, &given) {
            return ElicitResult::accept(Value::Object(given));
        }
        if !self.terminal {
            return self.decline(Unanswered::form(key, &message, &schema, &given));
        }
        self.answer(move || form::fill(&message, &schema, given))
            .await
    }

    async fn roots(&self) -> Vec<Root> {
        match self.terminal {
            true => self.answer(beyond_forms::roots).await,
            false => beyond_forms::no_roots(),
        }
    }

    fn decline(&self, question: Unanswered) -> ElicitResult {
        lock(&self.unanswered).push(question);
        ElicitResult::decline()
    }
}

/// Whether `given` has every field `schema` requires.
fn fills_required(schema: &Value, given: &Map<String, Value>) -> bool {
    let required = schema.get("required").and_then(Value::as_array);
    let present = |name: &Value| name.as_str().is_some_and(|n| given.contains_key(n));
    required.is_none_or(|names| names.iter().all(present))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
