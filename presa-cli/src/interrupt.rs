//! What Ctrl-C means while `presa` follows a task: the person chooses
//! between cancelling the task and detaching from it.
//!
//! The rules, in order:
//!
//! 1. SIGINT is caught from the moment following begins, and from then on
//!    the answerer's prompts read Ctrl-C as a key: it ends the prompt that
//!    is up, which raises SIGINT, caught here like any other; its refusal
//!    waits for the choice, counted once made (`answer::Choices`);
//! 2. with no terminal to ask, Ctrl-C detaches;
//! 3. otherwise a choice list asks, detaching offered as the default: of
//!    the two it is the one that loses nothing. A second Ctrl-C ends the
//!    list, as Escape does, and means detach too;
//! 4. a list ended so shows the cursor again, which it hides while up and
//!    shows again only after a choice.

use dialoguer::Select;
use dialoguer::console::Term;
use dialoguer::theme::ColorfulTheme;

use crate::answer::{Answerer, Following};

/// What the person chose on Ctrl-C.
pub enum Interrupt {
    /// Cancel the task (`tasks/cancel`).
    Cancel,
    /// Leave the task running and stop following it.
    Detach,
}

/// SIGINT (on Windows, the console's Ctrl+C), caught (rule 1). tokio
/// keeps a handler it installed for the rest of the process, so the
/// signal stays caught after this is dropped: a prompt that still reads
/// Ctrl-C as a key cannot end `presa` by raising it.
pub struct Interrupts {
    #[cfg(unix)]
    caught: Option<tokio::signal::unix::Signal>,
    #[cfg(windows)]
    caught: Option<tokio::signal::windows::CtrlC>,
    /// While SIGINT is caught: a choice is asked for each Ctrl-C.
    _following: Option<Following>,
}

impl Interrupts {
    /// Catches SIGINT from now on, and has `answerer`'s prompts read
    /// Ctrl-C as a key. Where it cannot be caught, Ctrl-C does what it
    /// always does, and prompts leave it so.
    pub fn catch(answerer: &Answerer) -> Self {
        #[cfg(unix)]
        let caught = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
        #[cfg(windows)]
        let caught = tokio::signal::windows::ctrl_c().ok();
        let following = caught.is_some().then(|| {
            answerer.read_ctrl_c_as_a_key();
            answerer.choices().following()
        });
        Interrupts {
            caught,
            _following: following,
        }
    }

    /// Catches SIGINT from now on, and has `answerer`'s prompts read
    /// Ctrl-C as a key, with no task followed: `presa shell` so outlives
    /// every Ctrl-C, and a prompt that one ends is declined at once.
    pub fn catch_for_good(answerer: &Answerer) -> Self {
        #[cfg(unix)]
        let caught = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
        #[cfg(windows)]
        let caught = tokio::signal::windows::ctrl_c().ok();
        if caught.is_some() {
            answerer.read_ctrl_c_as_a_key();
        }
        Interrupts {
            caught,
            _following: None,
        }
    }

    /// Forgets every Ctrl-C caught so far and not yet waited for. SIGINT
    /// reaches every listener: one that the command answered (a task's
    /// choice) must not end the shell's next command as well.
    pub fn forget_caught(&mut self) {
        let Some(caught) = self.caught.as_mut() else {
            return;
        };
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        while let std::task::Poll::Ready(Some(())) = caught.poll_recv(&mut context) {}
    }

    /// Waits for the next Ctrl-C; forever, where none can be caught.
    pub async fn next(&mut self) {
        let caught = match self.caught.as_mut() {
            Some(signal) => signal.recv().await,
            None => None,
        };
        if caught.is_none() {
            std::future::pending::<()>().await;
        }
    }
}

/// The items of the list, in order, and the default's place (rule 3).
const CHOICES: [&str; 2] = ["cancel the task", "detach"];
const DETACH: usize = 1;

/// Asks the person what Ctrl-C means, through `answerer` so that the
/// question has the terminal to itself (rule 2 without one).
pub async fn ask(answerer: &Answerer) -> Interrupt {
    if !answerer.has_terminal() {
        return Interrupt::Detach;
    }
    let chosen = answerer.ask(choose).await;
    answerer.choices().made();
    match chosen {
        Some(0) => Interrupt::Cancel,
        _ => Interrupt::Detach,
    }
}

/// The list itself, on the prompt's thread: the index chosen, or `None`
/// for Escape, Ctrl-C and a terminal that failed.
fn choose() -> Option<usize> {
    let chosen = Select::with_theme(&ColorfulTheme::default())
        .with_prompt("Interrupted: cancel the task, or detach from it?")
        .items(CHOICES)
        .default(DETACH)
        .interact_opt();
    chosen.unwrap_or_else(|_| {
        // Rule 4; a terminal that fails here has nothing more to show.
        let _ = Term::stderr().show_cursor();
        None
    })
}
