//! The progress line on stderr while a task runs: a spinner, the time
//! since it started, and the task's status message. It draws only on a
//! terminal, and steps aside whenever `presa` asks the person something.
//! Its text holds the server's words (a task's id and status message), so
//! it is shown as one line, escaped (`shown::line`).

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::shown;

/// The line, shown between [`start`](Self::start) and
/// [`finish`](Self::finish).
#[derive(Default)]
pub struct StatusLine {
    bar: Mutex<Option<ProgressBar>>,
}

impl StatusLine {
    /// Shows the spinner, with `text` beside it.
    pub fn start(&self, text: &str) {
        let bar = ProgressBar::new_spinner().with_message(shown::line(text).to_string());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed:>4} {msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(100));
        *self.lock() = Some(bar);
    }

    /// Changes the text beside the spinner.
    pub fn show(&self, text: &str) {
        if let Some(bar) = self.lock().as_ref() {
            bar.set_message(shown::line(text).to_string());
        }
    }

    /// Clears the line for good.
    pub fn finish(&self) {
        if let Some(bar) = self.lock().take() {
            bar.finish_and_clear();
        }
    }

    /// Runs `f` with the line cleared, drawing it again after.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        let bar = self.lock().clone();
        match bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(line: &StatusLine) -> String {
        line.lock()
            .as_ref()
            .map(ProgressBar::message)
            .unwrap_or_default()
    }

    #[test]
    fn the_server_s_words_are_shown_on_one_line_escaped() {
        let line = StatusLine::default();
        line.start("task t\x1b[2J");
        assert_eq!(message(&line), r"task t\x1b[2J");
        line.show("task t: working: \x1b]52;c;eA==\x07\nnext\u{202e}");
        assert_eq!(
            message(&line),
            r"task t: working: \x1b]52;c;eA==\x07\nnext\u{202e}"
        );
        line.finish();
    }
}
