//! The person's choices of what a Ctrl-C means, counted, so that an
//! answer that a Ctrl-C cut short waits for the choice.
//!
//! A prompt that reads Ctrl-C as a key ends declined and raises SIGINT
//! on its own thread. The task that follows the server's task hears of
//! the signal only when the runtime next reads its signals, which may be
//! after the declined answer went out: the server then takes the refusal
//! for the person's, and the task goes on without the question. So:
//!
//! 1. while a task is followed (a [`Following`] lives), an answer whose
//!    prompt Ctrl-C ended notes how many choices were made as the prompt
//!    ends, still holding the terminal, so that no choice can come in
//!    between;
//! 2. it is given only once one more choice was made: after cancelling,
//!    the refusal goes out; after detaching, the wait is dropped with
//!    the task's, and the question stays open;
//! 3. when no one follows (any more), no choice is coming, and the
//!    answer is given at once.

use tokio::sync::watch;

/// How many choices were made, and how many followers would ask for one.
#[derive(Clone, Copy, Default)]
struct Count {
    made: u64,
    following: usize,
}

/// The count of choices made, shared by the answerer and the follower.
#[derive(Clone)]
pub struct Choices(watch::Sender<Count>);

impl Default for Choices {
    fn default() -> Self {
        Choices(watch::Sender::new(Count::default()))
    }
}

/// How many choices were made when an answer's prompt ended (rule 1).
#[derive(Clone, Copy)]
pub struct Mark(u64);

impl Choices {
    /// Someone follows a task, and asks what each Ctrl-C means, until the
    /// guard is dropped (rule 3).
    pub fn following(&self) -> Following {
        self.0.send_modify(|count| count.following += 1);
        Following(self.clone())
    }

    /// Whether someone follows a task now, and so hears of each Ctrl-C.
    pub fn is_following(&self) -> bool {
        self.0.borrow().following > 0
    }

    /// The person made one more choice (rule 2).
    pub fn made(&self) {
        self.0.send_modify(|count| count.made += 1);
    }

    /// The count now, to wait from.
    pub fn mark(&self) -> Mark {
        Mark(self.0.borrow().made)
    }

    /// Waits for a choice made after `mark`, or for no one to follow.
    pub async fn after(&self, mark: Mark) {
        let mut count = self.0.subscribe();
        // The sender lives in `self`: the channel cannot close.
        let _ = count
            .wait_for(|count| count.following == 0 || count.made > mark.0)
            .await;
    }
}

/// A follower that will ask what a Ctrl-C means; dropped, it no longer
/// does, and answers waiting for its choice are given (rule 3).
pub struct Following(Choices);

impl Drop for Following {
    fn drop(&mut self) {
        self.0.0.send_modify(|count| count.following -= 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn ready(future: impl Future<Output = ()>) -> bool {
        let mut context = Context::from_waker(Waker::noop());
        pin!(future).poll(&mut context) == Poll::Ready(())
    }

    #[test]
    fn with_no_follower_an_answer_goes_at_once() {
        let choices = Choices::default();
        assert!(ready(choices.after(choices.mark())));
    }

    /// Checks that an answer marked while someone follows waits, and
    /// goes once `release` has run (what it returns kept until then).
    fn held_until(release: impl FnOnce(&Choices, Following) -> Option<Following>) {
        let choices = Choices::default();
        let following = choices.following();
        let mut waiting = pin!(choices.after(choices.mark()));
        let mut context = Context::from_waker(Waker::noop());
        assert!(waiting.as_mut().poll(&mut context).is_pending());
        let _kept = release(&choices, following);
        assert!(waiting.as_mut().poll(&mut context).is_ready());
    }

    #[test]
    fn a_follower_holds_the_answer_until_the_next_choice() {
        held_until(|choices, following| {
            choices.made();
            Some(following)
        });
    }

    #[test]
    fn a_choice_made_before_the_mark_does_not_count() {
        let choices = Choices::default();
        let _following = choices.following();
        choices.made();
        assert!(!ready(choices.after(choices.mark())));
    }

    #[test]
    fn a_follower_gone_gives_the_answer() {
        held_until(|_, following| {
            drop(following);
            None
        });
    }
}
