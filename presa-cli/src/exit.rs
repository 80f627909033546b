//! How `presa` ends: the exit status, and the failure that sets it.
//!
//! Scripts branch on the status, so each kind of ending has its own:
//! a tool that answered with an error is the server's answer, not a
//! failure to reach it, and neither is a mistake on the command line.

use presa::client::{ClientError, SkillError};

/// Every exit status, with what it means, as `--help` shows them. Each
/// command lists those it can end with ([`statuses`]).
const MEANINGS: [(Exit, &str); 8] = [
    (Exit::Success, "success"),
    (Exit::ToolError, "the tool answered with an error (isError)"),
    (
        Exit::Usage,
        "usage error: a bad command line or argument, or a server name that no config file \
         gives",
    ),
    (
        Exit::Protocol,
        "protocol or transport error: the server could not be reached, or answered with a \
         JSON-RPC error, or a task failed or was cancelled by someone else, or the call ended \
         on a sampling request that was declined, or a skill's file did not match its entry, \
         or presa could not use its config folder",
    ),
    (
        Exit::Unanswered,
        "a question went unanswered: no terminal to ask and no --answer for it",
    ),
    (
        Exit::Detached,
        "detached from a task. An HTTP server's task goes on (follow it again with `presa \
         task SERVER watch ID`); a stdio server's task stops with the server",
    ),
    (
        Exit::TimedOut,
        "no answer within --timeout: presa cancelled the request",
    ),
    (Exit::Cancelled, "cancelled with Ctrl-C"),
];

/// How wide a line of [`statuses`] may be, its indent included.
const WIDTH: usize = 78;

/// The `Exit status:` section of a command's `--help`: what each status
/// in `codes` means, wrapped to [`WIDTH`] under its status.
pub fn statuses(codes: &[Exit]) -> String {
    let indent = " ".repeat(7);
    let mut text = String::from("Exit status:");
    for (exit, meaning) in MEANINGS {
        if !codes.contains(&exit) {
            continue;
        }
        let mut line = format!("  {:<4} ", exit.code());
        for word in meaning.split(' ') {
            if line.len() + 1 + word.len() > WIDTH && line.trim_end().len() > indent.len() {
                text.push('\n');
                text.push_str(line.trim_end());
                line = indent.clone();
            }
            if !line.ends_with(' ') {
                line.push(' ');
            }
            line.push_str(word);
        }
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// An exit status of `presa`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything succeeded.
    Success = 0,
    /// The tool answered with `isError`.
    ToolError = 1,
    /// The command line was wrong.
    Usage = 2,
    /// The server could not be reached or answered with an error.
    Protocol = 3,
    /// A question needed a person and none could be asked.
    Unanswered = 4,
    /// The user detached from a task. An HTTP server's task goes on; a
    /// stdio server's stops with the server, which ends with `presa`.
    Detached = 5,
    /// A request got no answer within `--timeout`.
    TimedOut = 6,
    /// The user cancelled with Ctrl-C.
    Cancelled = 130,
}

impl Exit {
    /// Every status, in order.
    pub const ALL: [Exit; 8] = [
        Exit::Success,
        Exit::ToolError,
        Exit::Usage,
        Exit::Protocol,
        Exit::Unanswered,
        Exit::Detached,
        Exit::TimedOut,
        Exit::Cancelled,
    ];

    /// The statuses of a command that talks to a server and may be asked
    /// a question, but calls no tool: `tools`, `read` and the like.
    pub const OF_A_REQUEST: [Exit; 6] = [
        Exit::Success,
        Exit::Usage,
        Exit::Protocol,
        Exit::Unanswered,
        Exit::TimedOut,
        Exit::Cancelled,
    ];

    /// The statuses of a command that calls a tool and follows its task.
    pub const OF_A_CALL: [Exit; 8] = Exit::ALL;

    /// The status as the process reports it.
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// A command that could not finish: its exit status and what to tell the
/// user on stderr.
#[derive(Debug)]
pub struct Failure {
    /// The status to exit with.
    pub exit: Exit,
    /// The message, without the `presa:` prefix.
    pub message: String,
}

impl Failure {
    /// A mistake on the command line.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            exit: Exit::Usage,
            message: message.into(),
        }
    }

    /// The server could not be reached, or failed the request.
    pub fn protocol(message: impl Into<String>) -> Self {
        Failure {
            exit: Exit::Protocol,
            message: message.into(),
        }
    }

    /// The same failure, its message saying what it was about first,
    /// unless it already does.
    pub fn about(self, subject: &str) -> Self {
        let names_it = self
            .message
            .strip_prefix(subject)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']));
        if names_it {
            return self;
        }
        Failure {
            message: format!("{subject}: {}", self.message),
            ..self
        }
    }
}

impl From<ClientError> for Failure {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::TaskCancelled { task_id } => {
                Failure::protocol(format!("task {task_id} was cancelled"))
            }
            ClientError::InvalidArguments(message) => Failure::usage(message),
            ClientError::Timeout(limit) => Failure {
                exit: Exit::TimedOut,
                message: format!(
                    "no answer within {} s (--timeout); presa cancelled the request",
                    limit.as_secs_f64()
                ),
            },
            // A server silent to both the era probe and `initialize`
            // timed out too: it did not refuse to speak MCP.
            ClientError::SessionFailed { reason, cause } => match *cause {
                ClientError::Timeout(limit) => Failure {
                    exit: Exit::TimedOut,
                    message: format!(
                        "the server answered neither server/discover nor initialize within \
                         {} s (--timeout). Check that the command starts an MCP server, or \
                         give it longer",
                        limit.as_secs_f64()
                    ),
                },
                cause => Failure::protocol(
                    ClientError::SessionFailed {
                        reason,
                        cause: Box::new(cause),
                    }
                    .to_string(),
                ),
            },
            other => Failure::protocol(other.to_string()),
        }
    }
}

/// What to do about a skill file that does not match its entry.
const CHANGED: &str = "presa used none of it. The skill may have changed while presa read it: \
                       run the command again, and if it fails again, the server serves files \
                       that do not match what it lists";

impl From<SkillError> for Failure {
    fn from(error: SkillError) -> Self {
        match error {
            SkillError::Request(error) => Failure::from(error),
            SkillError::Dynamic { uri } => Failure::usage(format!(
                "{uri} is a dynamic skill: its entry lists no files and no digests, so presa \
                 cannot check what it serves. Pass --allow-dynamic to show it anyway"
            )),
            error @ (SkillError::NotASkillUri { .. } | SkillError::BadReference { .. }) => {
                Failure::usage(error.to_string())
            }
            SkillError::SizeMismatch { uri, expected, got } => Failure::protocol(format!(
                "{uri} does not match the skill's entry: the entry says {expected} bytes and \
                 the server sent {got}. {CHANGED}"
            )),
            SkillError::DigestMismatch { uri, expected, got } => Failure::protocol(format!(
                "{uri} does not match the skill's entry: the entry says {expected} and the \
                 content hashes to {got}. {CHANGED}"
            )),
            SkillError::FrontmatterMismatch { uri, fields } => Failure::protocol(format!(
                "{uri} does not match the skill's entry: the frontmatter differs in {}. {CHANGED}",
                fields.join(", ")
            )),
            other => Failure::protocol(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_cancelled_by_someone_else_is_no_ctrl_c() {
        let error = ClientError::TaskCancelled {
            task_id: "t1".into(),
        };
        let failure = Failure::from(error);
        assert_eq!(failure.exit, Exit::Protocol);
        assert_eq!(failure.message, "task t1 was cancelled");
    }

    #[test]
    fn a_failure_says_what_it_was_about_once() {
        let named = Failure::protocol("not found").about("task t1");
        assert_eq!(named.message, "task t1: not found");
        let again = Failure::protocol("task t1 was cancelled").about("task t1");
        assert_eq!(again.message, "task t1 was cancelled");
        let other = Failure::protocol("task t10 was cancelled").about("task t1");
        assert_eq!(other.message, "task t1: task t10 was cancelled");
    }
}
