//! The client the official MCP conformance suite drives: it runs the
//! scenario named in `MCP_CONFORMANCE_SCENARIO` against the server URL
//! given as the last argument, over Streamable HTTP, and exits non-zero
//! when the scenario's flow fails. `scripts/conformance.sh` runs it.
//!
//! Every scenario uses the same client: it declares elicitation, sampling
//! and roots, and answers each input request with plausible values built
//! from the request itself, so that MRTR flows run to the end. It does
//! not read the suite's `MCP_CONFORMANCE_PROTOCOL_VERSION`: it finds out
//! the era of each scenario's server itself, as any presa client does, so
//! the 2025-11-25 scenarios run it against legacy servers unchanged.
//!
//! The Skills scenarios play a host: it lists skills and reads nothing
//! (no model asked for one), or it loads each skill and reads its files,
//! each checked against the entry, and stops at the first that fails.

use std::process::ExitCode;

use presa::client::oauth::{
    Authorizer, AuthorizerError, ClientKey, IdentityProvider, OAuthClient, async_trait,
};
use presa::client::prelude::*;
use presa::client::{ClientTransport, HttpOptions, PendingInput};
use presa::wire::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, Role, Root, SamplingContent,
    Tool,
};
use serde_json::{Map, Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let options = match http_options(&scenario, &context, &url).await {
        Ok(options) => options,
        Err(error) => {
            eprintln!("cannot configure the client: {error}");
            return ExitCode::FAILURE;
        }
    };
    let client = match ClientTransport::http_with(&url, options) {
        Ok(transport) => client().connect(transport),
        Err(error) => {
            eprintln!("cannot start the HTTP client: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = run(&scenario, &client, &context).await;
    // Ends a legacy server's session (DELETE); nothing for a modern one.
    if let Err(error) = client.close().await {
        eprintln!("closing the client: {error}");
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("scenario {scenario:?} failed: {error}");
            ExitCode::FAILURE
        }
    }
}

type Outcome = Result<(), Box<dyn std::error::Error>>;

/// The client id the suite's Client ID Metadata Document scenarios expect.
const METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";

/// The HTTP options of `scenario`: OAuth for the `auth/` ones, with the
/// credentials the scenario's context gives, if any, bound to the
/// scenario's authorization server.
async fn http_options(
    scenario: &str,
    context: &Value,
    url: &str,
) -> Result<HttpOptions, Box<dyn std::error::Error>> {
    if !scenario.starts_with("auth/") {
        return Ok(HttpOptions::default());
    }
    if scenario == "auth/wif-jwt-bearer" {
        let assertion = context["valid_jwt"]
            .as_str()
            .ok_or("no valid_jwt in the context")?
            .to_owned();
        let mut oauth = OAuthClient::jwt_bearer(move || Ok(assertion.clone()));
        if let Some(client_id) = context["client_id"].as_str() {
            oauth = oauth.client_id(client_id);
        }
        let oauth = oauth.registered_with(scenario_issuer(context, url).await?);
        return Ok(HttpOptions::default().oauth(oauth));
    }
    if scenario == "auth/enterprise-managed-authorization" {
        let field = |name: &str| {
            context[name]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("no {name} in the context"))
        };
        let id_token = field("idp_id_token")?;
        let provider = IdentityProvider {
            token_endpoint: field("idp_token_endpoint")?,
            client_id: field("idp_client_id")?,
            id_token: Box::new(move || Ok(id_token.clone())),
        };
        let oauth = OAuthClient::enterprise(provider, field("client_id")?)
            .client_secret(field("client_secret")?)
            .registered_with(scenario_issuer(context, url).await?);
        return Ok(HttpOptions::default().oauth(oauth));
    }
    if scenario.starts_with("auth/client-credentials") {
        let client_id = context["client_id"]
            .as_str()
            .ok_or("no client_id in the context")?;
        let mut oauth = OAuthClient::client_credentials(client_id);
        if let Some(secret) = context["client_secret"].as_str() {
            oauth = oauth.client_secret(secret);
        }
        if let Some(pem) = context["private_key_pem"].as_str() {
            oauth = oauth.private_key_jwt(ClientKey::es256_pem(pem)?);
        }
        let oauth = oauth.registered_with(scenario_issuer(context, url).await?);
        return Ok(HttpOptions::default().oauth(oauth));
    }
    let mut oauth = OAuthClient::new(Redirected::new()?)
        .client_name("presa-conformance-client")
        .client_metadata_document(METADATA_DOCUMENT);
    if scenario.starts_with("auth/dpop") {
        oauth = oauth.dpop();
    }
    if let Some(client_id) = context["client_id"].as_str() {
        let issuer = scenario_issuer(context, url).await?;
        oauth = oauth.client_id(client_id);
        oauth = match context["client_secret"].as_str() {
            Some(secret) => oauth.client_secret(secret).registered_with(issuer),
            None => oauth.registered_with(issuer),
        };
    }
    Ok(HttpOptions::default().oauth(oauth))
}

/// The issuer of the authorization server the suite started for this
/// scenario: the context's `issuer`, else the first one the scenario's
/// resource metadata names.
///
/// The suite hands out credentials for that server without always naming
/// it, so this harness asks the scenario's server: the suite stands in
/// for the configuration a real client is given. A real client never
/// learns its issuer from the server it calls; that is the attack
/// `registered_with` stops.
async fn scenario_issuer(context: &Value, url: &str) -> Result<String, Box<dyn std::error::Error>> {
    if let Some(issuer) = context["issuer"].as_str() {
        return Ok(issuer.to_owned());
    }
    let url = reqwest::Url::parse(url)?;
    let path = url.path().trim_end_matches('/');
    let mut places = vec![url.join(&format!("/.well-known/oauth-protected-resource{path}"))?];
    places.push(url.join("/.well-known/oauth-protected-resource")?);
    for place in places {
        let reply = reqwest::get(place).await?;
        if !reply.status().is_success() {
            continue;
        }
        let metadata: Value = serde_json::from_slice(&reply.bytes().await?)?;
        if let Some(issuer) = metadata["authorization_servers"][0].as_str() {
            return Ok(issuer.to_owned());
        }
    }
    Err("the scenario's server names no authorization server".into())
}

/// The user-agent step without a user: the suite's authorization endpoint
/// redirects at once, so the client reads the redirect instead of
/// following it.
struct Redirected {
    http: reqwest::Client,
}

impl Redirected {
    fn new() -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Redirected { http })
    }
}

#[async_trait]
impl Authorizer for Redirected {
    fn redirect_uri(&self) -> &str {
        "http://localhost:3000/callback"
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String, AuthorizerError> {
        let reply = self.http.get(authorization_url).send().await?;
        let location = reply
            .headers()
            .get(reqwest::header::LOCATION)
            .ok_or_else(|| {
                format!(
                    "the authorization endpoint answered {} without a redirect",
                    reply.status()
                )
            })?;
        Ok(location.to_str()?.to_owned())
    }
}

/// The client every scenario uses.
fn client() -> presa::client::ClientBuilder {
    Client::builder()
        .info("presa-conformance-client", env!("CARGO_PKG_VERSION"))
        .on_elicitation(|input| async move { answer_elicitation(input) })
        .url_elicitation(true)
        .on_sampling(|input| async move { answer_sampling(input) })
        .on_roots(|_| async {
            vec![Root {
                uri: "file:///test/root".into(),
                name: Some("Test Root".into()),
            }]
        })
}

/// Runs `scenario`; unknown scenarios discover the server and list its
/// tools.
async fn run(scenario: &str, client: &Client, context: &Value) -> Outcome {
    match scenario {
        "tools_call" => {
            client.list_tools().await?;
            client
                .call_tool("add_numbers", json!({"a": 2, "b": 3}))
                .await?;
        }
        "request-metadata" => {
            client.discover().await?;
            let tools = client.list_tools().await?;
            if let Some(tool) = tools.first() {
                client.call_tool(&tool.name, arguments_for(tool)).await?;
            }
        }
        "sep-2322-client-request-state"
        | "http-invalid-tool-headers"
        | "sse-retry"
        | "elicitation-sep1034-client-defaults" => {
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, arguments_for(&tool)).await?;
            }
        }
        "http-standard-headers" => standard_headers(client).await?,
        auth if auth.starts_with("auth/") => {
            client.discover().await?;
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, arguments_for(&tool)).await?;
            }
        }
        "http-custom-headers" => custom_headers(client, context).await?,
        "sep-2640-client-no-prefetch" => list_skills(client).await?,
        "sep-2640-client-verify-digest"
        | "sep-2640-client-verify-size"
        | "sep-2640-client-verify-frontmatter" => load_skills(client).await?,
        "json-schema-2020-12-preservation" => {
            let tools = client.list_tools().await?;
            let source = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            let schema = source.input_schema.clone();
            client
                .call_tool("json_schema_echo", json!({ "schema": schema }))
                .await?;
        }
        _ => {
            client.discover().await?;
            client.list_tools().await?;
        }
    }
    Ok(())
}

/// Sends each kind of request whose headers the scenario records.
async fn standard_headers(client: &Client) -> Outcome {
    let tools = client.list_tools().await?;
    if let Some(tool) = tools.first() {
        client.call_tool(&tool.name, arguments_for(tool)).await?;
    }
    if let Some(resource) = client.list_resources().await?.first() {
        client.read_resource(&resource.uri).await?;
    }
    if let Some(prompt) = client.list_prompts().await?.first() {
        client.get_prompt(&prompt.name, json!({})).await?;
    }
    Ok(())
}

/// Lists the server's skills as a host builds its registry: entries
/// only, with no file read (no model has asked to load one yet).
async fn list_skills(client: &Client) -> Outcome {
    for skill in client.list_skills().await? {
        println!(
            "{} ({}): {}",
            skill.name(),
            skill.uri,
            skill.frontmatter.description()
        );
    }
    Ok(())
}

/// Lists the server's skills, loads each (its SKILL.md read and checked
/// against the entry), and reads each of its files, checked too. A file
/// that fails its check ends the scenario with the error, before any
/// other file is read.
async fn load_skills(client: &Client) -> Outcome {
    for entry in client.list_skills().await? {
        let skill = client.load_skill(entry).await?;
        let files: Vec<String> = skill
            .files()
            .unwrap_or_default()
            .iter()
            .map(|file| file.uri.clone())
            .collect();
        for uri in files {
            let file = skill.read(&uri).await?;
            println!("{uri}: {} bytes, verified", file.bytes.len());
        }
    }
    Ok(())
}

/// Calls the tools the scenario's context names, with its arguments.
async fn custom_headers(client: &Client, context: &Value) -> Outcome {
    client.list_tools().await?;
    let calls = context["toolCalls"].as_array().cloned().unwrap_or_default();
    for call in calls {
        let name = call["name"].as_str().ok_or("a tool call without a name")?;
        client.call_tool(name, call["arguments"].clone()).await?;
    }
    Ok(())
}

/// Arguments that satisfy `tool`'s required properties, by type.
fn arguments_for(tool: &Tool) -> Value {
    let schema = &tool.input_schema;
    let mut arguments = Map::new();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let kind = schema["properties"][name]["type"]
            .as_str()
            .unwrap_or("string");
        arguments.insert(name.to_owned(), sample_value(name, kind));
    }
    Value::Object(arguments)
}

/// A plausible value of JSON type `kind` for a field called `name`.
fn sample_value(name: &str, kind: &str) -> Value {
    match kind {
        "boolean" => json!(true),
        "integer" => json!(1),
        "number" => json!(1.5),
        "array" => json!([]),
        "object" => json!({}),
        _ if name.contains("region") => json!("us-west1"),
        _ if name.contains("name") => json!("Alice"),
        _ => json!("test"),
    }
}

/// Accepts a form with a value for each of its fields (its default when
/// it has one, else its first choice, else a sample); accepts going to a
/// URL.
fn answer_elicitation(input: PendingInput<ElicitRequestParams>) -> ElicitResult {
    match input.params {
        ElicitRequestParams::Form {
            requested_schema, ..
        } => {
            let properties = requested_schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let content: Map<String, Value> = properties
                .iter()
                .map(|(name, property)| {
                    let kind = property["type"].as_str().unwrap_or("string");
                    let value = match (property.get("default"), property["enum"].get(0)) {
                        (Some(default), _) => default.clone(),
                        (None, Some(first)) => first.clone(),
                        (None, None) => sample_value(name, kind),
                    };
                    (name.clone(), value)
                })
                .collect();
            ElicitResult::accept(Value::Object(content))
        }
        ElicitRequestParams::Url { .. } => ElicitResult {
            action: presa::wire::ElicitAction::Accept,
            content: None,
        },
        // A mode of a later revision, which this client cannot show.
        _ => ElicitResult::decline(),
    }
}

/// Answers as a model would, briefly.
fn answer_sampling(_: PendingInput<CreateMessageParams>) -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: SamplingContent::One(presa::wire::Content::text("Paris")),
        model: "presa-conformance-model".into(),
        stop_reason: Some("endTurn".into()),
    }
}
