//! [`run`]: the command line's command, sent to the file that runs it.

use super::skills::{self, SkillOptions};
use super::{call, completing, completions, listing, reading, servers, task, utilities, watching};
use crate::auth::logout;
use crate::command_line::{Cli, Command};
use crate::exit::{Exit, Failure};
use crate::output::shown::{line, note};
use crate::session::Session;
use crate::target::Target;

/// What the client says when the server's end of the connection closed:
/// a stdio server that exited, whose stderr may say why.
const CLOSED: &str = "connection to the server is closed";

/// Runs the command `cli` gives.
pub async fn run(cli: Cli) -> Result<Exit, Failure> {
    let Cli {
        mut command,
        common,
    } = cli;
    let Some(server) = server_mut(&mut command) else {
        return match command {
            Command::Completions { shell } => completions::completions(shell),
            _ => servers::servers(common.json),
        };
    };
    // The command keeps an empty name: from here on, only `server` counts.
    let named = std::mem::replace(server, Target::Named(String::new()));
    let server = named.resolved()?;
    if let Command::Logout { .. } = &command {
        return match server.url() {
            Some(url) => logout(url, common.json).map(|()| Exit::Success),
            None => Err(Failure::usage("only an HTTP server signs in, and out")),
        };
    }
    let tasks = matches!(
        command,
        Command::Call { task: true, .. } | Command::Task { .. }
    );
    let session_target_is_stdio = server.url().is_none();
    let session = Session::open(&server, &common, tasks).await?;
    let settled = dispatch(&session, command).await;
    session.close().await;
    let quiet_stdio = session_target_is_stdio && !common.server_log;
    settled.map_err(
        |failure| match quiet_stdio && failure.message.contains(CLOSED) {
            true => Failure {
                message: format!(
                    "{}; --server-log shows what it wrote on stderr",
                    failure.message
                ),
                ..failure
            },
            false => failure,
        },
    )
}

/// Runs `command` on `session`, and settles its status by the questions
/// left unanswered. `logout` and `shell` are run before any session.
pub async fn dispatch(session: &Session, command: Command) -> Result<Exit, Failure> {
    let method = method(&command);
    let ran = match command {
        Command::Tools { .. } => listing::tools(session).await,
        Command::Prompts { .. } => listing::prompts(session).await,
        Command::Resources { .. } => listing::resources(session).await,
        Command::Discover { .. } => listing::discover(session).await,
        Command::Templates { .. } => listing::templates(session).await,
        Command::Complete {
            reference,
            argument,
            context,
            ..
        } => completing::complete(session, &reference, &argument, &context).await,
        Command::Ping { .. } => utilities::ping(session).await,
        Command::LogLevel { level, .. } => utilities::log_level(session, level).await,
        Command::Watch { resources, .. } => watching::watch(session, &resources).await,
        Command::Call {
            tool,
            pairs,
            json_args,
            ..
        } => call::call(session, &tool, &pairs, json_args.as_deref()).await,
        Command::Prompt { name, pairs, .. } => reading::prompt(session, &name, &pairs).await,
        Command::Read { uri, .. } => reading::read(session, &uri).await,
        Command::Skills { .. } => skills::skills(session).await,
        Command::Skill {
            name,
            save,
            force,
            allow_dynamic,
            ..
        } => {
            let options = SkillOptions {
                save: save.as_deref(),
                force,
                allow_dynamic,
            };
            skills::skill(session, &name, options).await
        }
        Command::Task {
            action, task_id, ..
        } => task::task(session, action, &task_id).await,
        Command::Logout { .. }
        | Command::Shell { .. }
        | Command::Servers
        | Command::Completions { .. } => {
            Err(Failure::usage("this command does not run on a session"))
        }
    };
    let ran = ran.map_err(|failure| match failure.exit {
        Exit::TimedOut => failure.about(method),
        _ => failure,
    });
    match ran {
        Ok(exit) => Ok(session.settle(exit)),
        Err(failure) if !session.answerer.unanswered().is_empty() => {
            note!("presa: {}", line(&failure.message));
            Ok(session.settle(failure.exit))
        }
        Err(failure) => Err(failure),
    }
}

/// The server a command talks to, to look it up; `None` for the
/// commands that talk to no server.
fn server_mut(command: &mut Command) -> Option<&mut Target> {
    match command {
        Command::Servers | Command::Completions { .. } => None,
        Command::Tools { server }
        | Command::Call { server, .. }
        | Command::Prompts { server }
        | Command::Prompt { server, .. }
        | Command::Resources { server }
        | Command::Read { server, .. }
        | Command::Skills { server }
        | Command::Skill { server, .. }
        | Command::Task { server, .. }
        | Command::Discover { server }
        | Command::Templates { server }
        | Command::Complete { server, .. }
        | Command::Ping { server }
        | Command::LogLevel { server, .. }
        | Command::Watch { server, .. }
        | Command::Logout { server }
        | Command::Shell { server } => Some(server),
    }
}

/// The request a command waits on, to name it when it times out.
fn method(command: &Command) -> &'static str {
    match command {
        Command::Tools { .. } => "tools/list",
        Command::Call { .. } => "tools/call",
        Command::Prompts { .. } => "prompts/list",
        Command::Prompt { .. } => "prompts/get",
        Command::Resources { .. } => "resources/list",
        Command::Read { .. } => "resources/read",
        Command::Templates { .. } => "resources/templates/list",
        Command::Complete { .. } => "completion/complete",
        Command::Skills { .. } | Command::Skill { .. } => "the skill's request",
        Command::Task { .. } => "the task's request",
        Command::Discover { .. } => "server/discover",
        Command::Ping { .. } => "ping",
        Command::LogLevel { .. } => "logging/setLevel",
        Command::Watch { .. } => "subscriptions/listen",
        Command::Logout { .. }
        | Command::Shell { .. }
        | Command::Servers
        | Command::Completions { .. } => "the request",
    }
}
