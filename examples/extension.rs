//! Protocol extensions of your own, written only with presa's public API,
//! served over stdio.
//!
//! ```text
//! cargo run --example extension
//! ```
//!
//! Three extensions, each showing one part of the seam
//! (`presa::server::extension`):
//!
//! - **Skills** (`io.modelcontextprotocol/skills`) serves two methods of
//!   its own, `skills/list` and `skills/get`, that any request may call,
//!   and advertises `{"directoryRead": false}` in `server/discover`. The
//!   skill files themselves are ordinary `skill://` resources.
//! - **Apps** (`io.modelcontextprotocol/ui`) serves no method and
//!   advertises nothing: clients declare it. To a request that declares
//!   it with `text/html;profile=mcp-app`, `tools/list` shows the
//!   `weather` tool with `_meta.ui.resourceUri`, the page a host renders
//!   its results in.
//! - **Stats** (`com.example/stats`) is a vendor extension whose method,
//!   `stats/get`, a request must declare the extension to call: one that
//!   does not is answered `-32021`, naming the declaration it lacks. To a
//!   request that declares it, every result says in its `_meta` which
//!   method answered.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use presa::prelude::*;
use presa::server::extension::{Extension, ExtensionMethod, MethodCall};
use presa::wire::{ErrorObject, Tool, codes};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

// --- Skills ----------------------------------------------------------------

/// One skill: its `SKILL.md`, served as a resource at `uri`.
struct SkillFile {
    uri: &'static str,
    name: &'static str,
    description: &'static str,
    text: &'static str,
}

/// Every skill the server serves, in listing order.
const SKILLS: &[SkillFile] = &[
    SkillFile {
        uri: "skill://git-workflow/SKILL.md",
        name: "git-workflow",
        description: "Follow this team's Git conventions for branching and commits",
        text: "---\nname: git-workflow\ndescription: Follow this team's Git conventions for \
               branching and commits\n---\nBranch from main; one commit per change.\n",
    },
    SkillFile {
        uri: "skill://refunds/SKILL.md",
        name: "refunds",
        description: "Process customer refund requests per company policy",
        text: "---\nname: refunds\ndescription: Process customer refund requests per company \
               policy\n---\nRefund within 30 days of purchase; ask for the order number.\n",
    },
    SkillFile {
        uri: "skill://weather-report/SKILL.md",
        name: "weather-report",
        description: "Write a short weather report for a city",
        text: "---\nname: weather-report\ndescription: Write a short weather report for a \
               city\n---\nCall the `weather` tool, then summarise it in two sentences.\n",
    },
];

/// How many skills one page of `skills/list` holds.
const SKILLS_PAGE: usize = 2;

/// `git-workflow`'s `SKILL.md`.
#[resource(uri = "skill://git-workflow/SKILL.md", mime_type = "text/markdown")]
async fn git_workflow_skill() -> &'static str {
    SKILLS[0].text
}

/// `refunds`'s `SKILL.md`.
#[resource(uri = "skill://refunds/SKILL.md", mime_type = "text/markdown")]
async fn refunds_skill() -> &'static str {
    SKILLS[1].text
}

/// `weather-report`'s `SKILL.md`.
#[resource(uri = "skill://weather-report/SKILL.md", mime_type = "text/markdown")]
async fn weather_report_skill() -> &'static str {
    SKILLS[2].text
}

impl SkillFile {
    /// The skill's entry in `skills/list` and `skills/get`: its
    /// frontmatter, and its one file with the digest a host verifies.
    fn entry(&self) -> Value {
        let digest = Sha256::digest(self.text.as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        json!({
            "uri": self.uri,
            "frontmatter": {"name": self.name, "description": self.description},
            "resources": [{
                "uri": self.uri,
                "digest": format!("sha256:{hex}"),
                "size": self.text.len(),
            }],
        })
    }
}

/// The Skills extension.
struct Skills;

/// The params of `skills/list`.
#[derive(Deserialize)]
struct ListSkillsParams {
    cursor: Option<String>,
}

/// The params of `skills/get`.
#[derive(Deserialize)]
struct GetSkillParams {
    uri: String,
}

impl Extension for Skills {
    fn id(&self) -> &'static str {
        "io.modelcontextprotocol/skills"
    }

    fn capability(&self) -> Option<Map<String, Value>> {
        let settings = json!({"directoryRead": false});
        settings.as_object().cloned()
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        vec![
            ExtensionMethod::new("skills/list", |call: MethodCall| async move {
                let ListSkillsParams { cursor } = call.params()?;
                let start = match cursor.as_deref() {
                    None => 0,
                    Some(cursor) => cursor
                        .parse::<usize>()
                        .ok()
                        .filter(|start| *start < SKILLS.len())
                        .ok_or_else(|| invalid_params(format!("Unknown cursor {cursor:?}")))?,
                };
                let end = (start + SKILLS_PAGE).min(SKILLS.len());
                let mut page = json!({
                    "skills": SKILLS[start..end].iter().map(SkillFile::entry).collect::<Vec<_>>(),
                    "ttlMs": 300_000,
                    "cacheScope": "public",
                });
                if end < SKILLS.len() {
                    page["nextCursor"] = json!(end.to_string());
                }
                Ok(call.complete(page))
            }),
            ExtensionMethod::new("skills/get", |call: MethodCall| async move {
                let GetSkillParams { uri } = call.params()?;
                let skill = SKILLS
                    .iter()
                    .find(|skill| skill.uri == uri)
                    .ok_or_else(|| invalid_params(format!("No skill at {uri:?}")))?;
                Ok(call.complete(json!({
                    "skill": skill.entry(),
                    "ttlMs": 300_000,
                    "cacheScope": "public",
                })))
            }),
        ]
    }
}

/// `-32602`, the error of params that name nothing the server has.
fn invalid_params(message: String) -> ErrorObject {
    ErrorObject::new(codes::INVALID_PARAMS, message)
}

// --- Apps ------------------------------------------------------------------

/// The extension identifier of MCP Apps.
const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The content type of an MCP App's page.
const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The page a host renders `weather`'s results in.
const WEATHER_PAGE: &str = "ui://weather/dashboard";

/// Today's weather in a city.
#[tool(read_only)]
async fn weather(city: String) -> String {
    format!("Sunny in {city}, 21 °C")
}

/// The page of the weather app.
#[resource(
    uri = "ui://weather/dashboard",
    mime_type = "text/html;profile=mcp-app"
)]
async fn weather_dashboard() -> &'static str {
    "<!doctype html><title>Weather</title><main id=\"forecast\"></main>"
}

/// The MCP Apps extension: the `weather` tool's results have a page.
struct Apps;

impl Extension for Apps {
    fn id(&self) -> &'static str {
        UI_EXTENSION
    }

    /// Clients declare MCP Apps; a server advertises nothing.
    fn capability(&self) -> Option<Map<String, Value>> {
        None
    }

    fn tool_meta(&self, tool: &Tool, request: &RequestInfo) -> Option<Map<String, Value>> {
        let declared = request
            .client_capabilities
            .extensions
            .as_ref()?
            .get(UI_EXTENSION)?;
        let shows_apps = declared
            .get("mimeTypes")
            .and_then(Value::as_array)
            .is_some_and(|types| types.iter().any(|t| t == APP_MIME_TYPE));
        if !shows_apps || tool.name != "weather" {
            return None;
        }
        json!({"ui": {"resourceUri": WEATHER_PAGE}})
            .as_object()
            .cloned()
    }
}

// --- Stats -----------------------------------------------------------------

/// How many times `stats/get` was called, shared through the server's
/// state.
#[derive(Clone, Default)]
struct Calls(Arc<AtomicU64>);

/// A vendor extension whose method a request must declare it to call.
struct Stats;

impl Extension for Stats {
    fn id(&self) -> &'static str {
        "com.example/stats"
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        let get = ExtensionMethod::new("stats/get", |call: MethodCall| async move {
            let State(Calls(calls)) = call.state::<Calls>()?;
            let seen = calls.fetch_add(1, Ordering::Relaxed) + 1;
            Ok(call.complete(json!({"statsCalls": seen})))
        });
        vec![get.declared_by_client()]
    }

    fn result_meta(&self, method: &str, request: &RequestInfo) -> Option<Map<String, Value>> {
        let declared = request.client_capabilities.has_extension(self.id());
        let added = json!({"com.example/stats": {"answeredBy": method}});
        declared.then(|| added.as_object().cloned()).flatten()
    }
}

#[tokio::main]
async fn main() {
    Server::builder("extension", env!("CARGO_PKG_VERSION"))
        .resource(GitWorkflowSkillResource)
        .resource(RefundsSkillResource)
        .resource(WeatherReportSkillResource)
        .resource(WeatherDashboardResource)
        .tool(WeatherTool)
        .state(Calls::default())
        .extension(Skills)
        .extension(Apps)
        .extension(Stats)
        .build()
        .serve_stdio()
        .await;
}
