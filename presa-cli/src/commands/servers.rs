//! `presa servers`: every server the hosts' configs name, and presa's own
//! aliases, as written in their files. The values of environment
//! variables and headers hold secrets, so only their names are shown;
//! variables in commands and URLs are shown unexpanded.

use serde_json::{Value, json};

use crate::exit::{Exit, Failure};
use crate::hosts::{Catalog, Configured, Launch, Places, why_not};
use crate::output::render;
use crate::output::shown::{line, note, say};

/// `presa servers`: a line per server, or with `json` one JSON array.
pub fn servers(json: bool) -> Result<Exit, Failure> {
    let places = Places::of_user().map_err(Failure::usage)?;
    let catalog = Catalog::gather(&places);
    for warning in &catalog.warnings {
        note!("presa: {}", line(warning));
    }
    let env = |variable: &str| std::env::var(variable).ok();
    let problem = |server: &Configured| why_not(server, &places.home, &env);
    if json {
        let listed: Vec<Value> = catalog
            .servers
            .iter()
            .map(|server| entry(server, problem(server)))
            .collect();
        render::json(&listed);
        return Ok(Exit::Success);
    }
    if catalog.servers.is_empty() {
        note!(
            "presa: no host on this machine names a server. Name one in presa's aliases \
             file, {}",
            line(&catalog.aliases.display().to_string())
        );
    }
    let width = catalog
        .servers
        .iter()
        .map(|s| s.qualified().chars().count())
        .max()
        .unwrap_or(0);
    for server in &catalog.servers {
        let mut said = format!(
            "{:<width$}  {:<7}  {}",
            server.qualified(),
            server.scope,
            reach(&server.launch)
        );
        if server.shadowed {
            said.push_str("  (hidden by an entry of higher scope)");
        } else if let Some(problem) = problem(server) {
            said.push_str(&format!("  (cannot be used: {problem})"));
        }
        said.push_str(&format!("  in {}", server.file.display()));
        say!("{}", line(&said));
    }
    Ok(Exit::Success)
}

/// How the server is reached, as one short line: no values of secrets.
fn reach(launch: &Launch) -> String {
    match launch {
        Launch::Stdio {
            command, args, env, ..
        } => {
            let words = std::iter::once(command).chain(args);
            let mut said = format!("stdio: {}", shell_words::join(words));
            if !env.is_empty() {
                let names: Vec<&str> = env.keys().map(String::as_str).collect();
                said.push_str(&format!("  env: {}", names.join(", ")));
            }
            said
        }
        Launch::Http { url, headers } => {
            let mut said = url.clone();
            if !headers.is_empty() {
                let names: Vec<&str> = headers.keys().map(String::as_str).collect();
                said.push_str(&format!("  headers: {}", names.join(", ")));
            }
            said
        }
        Launch::Unusable(_) => "-".to_owned(),
    }
}

/// The server as `--json` shows it.
fn entry(server: &Configured, problem: Option<String>) -> Value {
    let mut entry = json!({
        "name": server.name,
        "host": server.host,
        "scope": server.scope,
        "file": server.file.display().to_string(),
        "shadowed": server.shadowed,
        "problem": problem,
    });
    let reach = match &server.launch {
        Launch::Stdio {
            command,
            args,
            env,
            cwd,
        } => json!({
            "transport": "stdio",
            "command": command,
            "args": args,
            "env": env.keys().collect::<Vec<_>>(),
            "cwd": cwd,
        }),
        Launch::Http { url, headers } => json!({
            "transport": "http",
            "url": url,
            "headers": headers.keys().collect::<Vec<_>>(),
        }),
        Launch::Unusable(_) => json!({ "transport": null }),
    };
    if let (Some(entry), Value::Object(reach)) = (entry.as_object_mut(), reach) {
        entry.extend(reach);
    }
    entry
}
