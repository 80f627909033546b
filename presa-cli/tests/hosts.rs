//! `presa servers` and servers by name, as a process: a home folder with
//! every host's config in its documented format (tests/hosts/README.md
//! cites the page of each), the environment pointing at it, and the
//! current folder inside its project. The jobs example is reached through
//! a name in presa's aliases file.

#[path = "../../tests/common/jobs_example.rs"]
mod jobs_example;
#[path = "../../tests/common/process_start.rs"]
mod process_start;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use process_start::finished;
use serde_json::{Value, json};

/// Secrets in the environment, which no listing may show.
const SECRET: &str = "gh-secret-5e1f";

/// A copy of tests/hosts/home in a folder of `test`'s own, with the
/// project's path where Claude Code keys its local scope.
struct Home {
    home: PathBuf,
}

impl Home {
    fn new(test: &str) -> Home {
        // Absolute as the system sees it: under Wine, with a drive letter.
        let tmp = std::path::absolute(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let root = tmp.join(format!("hosts-{test}"));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let project = home.join("src").join("shop");
        let escaped = serde_json::to_string(&project.display().to_string()).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hosts/home");
        copy(&fixtures, &home, escaped);
        Home { home }
    }

    fn presa_dir(&self) -> PathBuf {
        self.home.join(".config").join("presa")
    }

    /// `presa ARGS` from the project's `web` folder, every host's places
    /// under this home.
    fn presa(&self, args: &[&str]) -> Output {
        self.presa_with(args, &[])
    }

    /// [`Home::presa`], with `env` set too.
    fn presa_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let config = self.home.join(".config");
        let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
        command
            .args(args)
            .current_dir(self.home.join("src").join("shop").join("web"))
            .env("HOME", &self.home)
            .env("USERPROFILE", &self.home)
            .env("XDG_CONFIG_HOME", &config)
            .env("APPDATA", &config)
            .env("PRESA_CONFIG_DIR", self.presa_dir())
            .env("GITHUB_TOKEN", SECRET)
            .env("EXTERNAL_API_KEY", SECRET)
            .env("DB_CONNECTION_STRING", SECRET)
            .envs(env.iter().copied())
            .env_remove("PRESA_TOKEN")
            .env_remove("API_KEY")
            .stdin(Stdio::null());
        finished("presa", &mut command, |output| {
            let stderr = stderr(output);
            output.status.code() == Some(3)
                && (stderr.contains("the connection to the server is closed")
                    || stderr.contains("(os error 1359)"))
        })
    }
}

fn copy(from: &Path, to: &Path, project: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target, project);
        } else {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            std::fs::write(target, text.replace("__PROJECT__", project)).unwrap();
        }
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn servers_lists_every_host_s_servers_as_json_without_secrets() {
    let home = Home::new("json");
    let output = home.presa(&["servers", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}:{}",
                s["host"].as_str().unwrap(),
                s["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "presa:work",
            "claude-code:api-server",
            "claude-code:github",
            "claude-code:github",
            "claude-code:legacy",
            "claude-code:shared-server",
            "claude-code:shared-server",
            "claude-desktop:filesystem",
            "vscode:context7",
            "vscode:notes",
            "vscode:perplexity",
            "cursor:github",
            "cursor:remote-server",
            "cursor:server-name",
            "gemini:httpServerWithAuth",
            "gemini:pythonTools",
            "gemini:pythonTools",
            "gemini:sseServer",
        ]
    );
    let github = &listed[2];
    let file = home.home.join("src").join("shop").join(".mcp.json");
    assert_eq!(
        *github,
        json!({
            "name": "github",
            "host": "claude-code",
            "scope": "project",
            "file": file.display().to_string(),
            "shadowed": false,
            "problem": null,
            "transport": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": ["GITHUB_PERSONAL_ACCESS_TOKEN"],
            "cwd": null,
        })
    );
    assert_eq!(listed[3]["shadowed"], true);
    assert_eq!(listed[14]["headers"], json!(["Authorization"]));
    assert_eq!(
        listed[4]["problem"],
        "it uses the legacy HTTP+SSE transport, which presa does not speak"
    );
    let said = stdout(&output);
    for secret in [SECRET, "your-api-token", "\"value\""] {
        assert!(!said.contains(secret), "{secret} shown: {said}");
    }
    let warned = stderr(&output);
    let broken = Path::new(".claude").join(".claude.json");
    assert!(
        warned.contains(&broken.display().to_string()) && warned.contains("on line 5"),
        "{warned}"
    );
}

#[test]
fn servers_lists_one_line_per_server_without_secrets() {
    let home = Home::new("text");
    let output = home.presa(&["servers"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = stdout(&output);
    assert_eq!(said.lines().count(), 18, "{said}");
    let github = said
        .lines()
        .find(|line| line.starts_with("cursor:github "))
        .unwrap();
    assert!(
        github.contains(
            "project  stdio: docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN \
             ghcr.io/github/github-mcp-server  env: GITHUB_PERSONAL_ACCESS_TOKEN  in "
        ),
        "{github}"
    );
    let shown = said
        .lines()
        .find(|l| l.starts_with("cursor:server-name "))
        .unwrap();
    assert!(
        shown.contains(" user     stdio: npx -y mcp-server  env: API_KEY  in "),
        "{shown}"
    );
    let perplexity = said
        .lines()
        .find(|l| l.starts_with("vscode:perplexity "))
        .unwrap();
    assert!(
        perplexity.contains("(cannot be used: ${input:perplexity-key}"),
        "{perplexity}"
    );
    assert!(!said.contains(SECRET), "{said}");
    assert!(!said.contains("your-api-token"), "{said}");
}

#[test]
fn a_configured_name_reaches_the_jobs_example() {
    let home = Home::new("jobs");
    let aliases = json!({
        "mcpServers": {
            "jobs": { "command": "${JOBS_BIN}", "args": ["stdio"], "env": { "JOBS_NOTE": "x" } }
        }
    });
    std::fs::write(
        home.presa_dir().join("servers.json"),
        format!("// presa's aliases\n{aliases:#}\n"),
    )
    .unwrap();
    let jobs = jobs_example::jobs_binary();
    for name in ["jobs", "presa:jobs"] {
        let output = home.presa_with(&["tools", name, "--json"], &[("JOBS_BIN", &jobs)]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let tools: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(tools[0]["name"], "build", "{tools}");
    }
}

/// Each way a name can fail, with its message and status 2 (usage).
#[test]
fn a_name_that_cannot_be_used_is_a_usage_error_saying_why() {
    let home = Home::new("errors");
    let project_file = home.home.join("src").join("shop").join(".mcp.json");
    let cases = [
        (
            "githb",
            "presa: `githb` is no http:// or https:// URL, no stdio:COMMAND, and no server \
             named in the hosts' configs. Closest: github, "
                .to_owned(),
        ),
        (
            "github",
            "presa: several hosts name a server `github`, each launching it differently: say \
             which with claude-code:github, cursor:github"
                .to_owned(),
        ),
        (
            "api-server",
            format!(
                "presa: claude-code:api-server (in {}) cannot be used: the environment \
                 variable API_KEY is not set",
                project_file.display()
            ),
        ),
        (
            "perplexity",
            "cannot be used: ${input:perplexity-key} is a value VS Code asks for and keeps"
                .to_owned(),
        ),
        (
            "sseServer",
            "cannot be used: it uses the legacy HTTP+SSE transport, which presa does not speak"
                .to_owned(),
        ),
    ];
    for (name, message) in cases {
        let output = home.presa(&["tools", name]);
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {said}");
        assert!(said.contains(&message), "{name}: {said}");
        assert!(!said.contains(SECRET), "{said}");
    }
}

#[test]
fn with_no_config_anywhere_servers_says_where_to_name_one() {
    let home = Home::new("empty");
    std::fs::remove_dir_all(&home.home).unwrap();
    std::fs::create_dir_all(home.home.join("src").join("shop").join("web")).unwrap();
    let output = home.presa(&["servers"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let file = home.presa_dir().join("servers.json");
    assert!(
        stderr(&output).contains(&format!(
            "no host on this machine names a server. Name one in presa's aliases file, {}",
            file.display()
        )),
        "{}",
        stderr(&output)
    );
}

/// presa sends a configured entry's headers (tests/headers.rs shows
/// them arrive), but refuses one the transport sets itself, naming it
/// and never its value, nor the token beside it.
#[test]
fn a_configured_header_presa_cannot_send_is_named_and_its_value_is_not() {
    let home = Home::new("headers");
    let aliases = json!({
        "mcpServers": {
            "closed": {
                "type": "http",
                "url": "http://127.0.0.1:1/mcp",
                "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}", "Content-Type": "eu-west-9" }
            }
        }
    });
    std::fs::write(home.presa_dir().join("servers.json"), aliases.to_string()).unwrap();
    let output = home.presa(&["tools", "closed"]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("presa: cannot send the header `Content-Type`: the transport sets it"),
        "{said}"
    );
    assert!(
        !said.contains("eu-west-9") && !said.contains(SECRET),
        "{said}"
    );
}
