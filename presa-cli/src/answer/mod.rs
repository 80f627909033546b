//! Answering the server's questions: elicitation forms and URLs, sampling,
//! roots.
//!
//! The rules, in order, for each question:
//!
//! 1. `--answer KEY.FIELD=VALUE` fills fields ahead (`presets`); a form
//!    whose required fields they all fill (at least one answer given) is
//!    accepted without asking; a URL that is not http or https is
//!    declined without asking, with a note (`link`);
//! 2. otherwise, with a terminal (stdin is one), the person answers the
//!    rest field by field (`form`), or visits the URL, or writes the
//!    sampled reply or declines to, or chooses whether to share a root
//!    (`beyond_forms`); one question at a time, the progress line
//!    stepping aside meanwhile;
//! 3. with no terminal the question is declined and remembered
//!    (`unanswered`): the command then ends with a message naming it and
//!    the `--answer` that would answer it, and a status of its own.
//!    Sampling is then not even declared, and roots are answered with
//!    none, with a note.
//!
//! The person is asked on blocking threads, since terminal prompts block.
//! While something catches SIGINT (a task is followed), prompts read
//! Ctrl-C as a key (`ctrl_c`): it ends the prompt, declining the
//! question, and whoever catches SIGINT hears of it. The refusal waits
//! for the person's choice of what the Ctrl-C means (`choices`).
//!
//! Layers, bottom up: ctrl_c, link, choices, presets, unanswered, form, beyond_forms, answerer.

mod answerer;
mod beyond_forms;
mod choices;
mod ctrl_c;
mod form;
mod link;
mod presets;
mod unanswered;

pub use answerer::Answerer;
pub use choices::Following;
pub use presets::Presets;
