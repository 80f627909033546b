//! Procedural macros for presa: `#[tool]`, `#[prompt]`, `#[resource]`,
//! `#[derive(Elicit)]` and `embed_skills!`.
//!
//! Use them through the facade, [`presa-mcp`](https://docs.rs/presa-mcp),
//! whose library is `presa` (`use presa::prelude::*;`). The expansions name
//! runtime items only as `::presa::__private::…`, the library's name, so
//! this crate is not useful on its own.
//!
//! Each macro follows the same three steps, in its own module, and each
//! step knows only the ones before it:
//!
//! 1. **parse** the input into a typed intermediate representation: the
//!    item (`ast.rs`) and the attribute's options (`attr.rs`). Each value
//!    is read into its type once, and kept with its span: a word such as
//!    `task_start = "explicit"` becomes an enum, a resource's URI its
//!    variables. A value that cannot be read is reported here.
//! 2. **validate** the representation (`valid.rs`): the rules that relate
//!    its parts, such as a task start needing a task policy, or a URI's
//!    variables being the function's parameters.
//! 3. **expand** it into code (`expand.rs`), only when the first two steps
//!    reported nothing.
//!
//! Both first steps report into one accumulator (`errors.rs`) and go on,
//! so the user sees all of their mistakes at once, each at the token that
//! caused it, instead of a panic or a single error at the macro call; and
//! expansion never has to handle bad input.
//!
//! `#[tool]`, `#[prompt]` and `#[resource]` all turn an `async fn` into a
//! handler, so they share one representation of the function, its
//! `#[param]` options, the rules every handler follows and the code that
//! makes its extractors (the `handler` module, whose `expand` runs the
//! steps); each adds only its own options (`attr.rs`), rules (`valid.rs`)
//! and generated handler (`expand.rs`). `#[derive(Elicit)]` takes no
//! options, so it has no `attr.rs`.

extern crate proc_macro;

mod elicit;
mod errors;
mod handler;
mod prompt;
mod resource;
mod skills;
mod tool;

use proc_macro::TokenStream;

/// Turns an `async fn` into an MCP tool.
///
/// ```text
/// /// Builds a target.
/// #[tool(task = "optional")]
/// async fn build(
///     ctx: Context,
///     State(db): State<Db>,
///     #[param(extract)] Subject(who): Subject,
///     #[param(description = "What to build")] target: String,
///     level: Option<u8>,
/// ) -> Result<String, ToolError> {
///     ...
/// }
/// ```
///
/// keeps the function and adds `BuildArgs` (a struct of the JSON
/// arguments, here `target` and `level`) and `BuildTool`, the tool to
/// register with `ServerBuilder::tool(BuildTool)`.
///
/// - The tool is named after the function and described by its doc comment.
/// - Each parameter is either a JSON argument or an **extractor**, a value
///   made from the call's context through `presa::server::FromContext`.
///   `Context` (or `&Context`), the call's context, and `State<T>`, a clone
///   of application state, are extractors; so is any `FromContext` type of
///   yours marked `#[param(extract)]` (`Subject` above). Everything else is
///   an argument: required unless its type is `Option<_>`, and its type
///   must implement `serde::Deserialize` and `schemars::JsonSchema`.
/// - A macro sees names, not types, so `Context` and `State` are recognised
///   by name. A type of your own with one of those names is taken for an
///   extractor, and fails to compile with a note saying so; mark it
///   `#[param(arg)]` to make it a JSON argument.
/// - The state that a tool's extractors read (`T` for `State<T>`, and what
///   a custom extractor declares) is listed by `ToolHandler::required_state`,
///   and `ServerBuilder::build` panics if any of it was not registered.
/// - The return type must implement `IntoToolResult`: `String`, `()`,
///   `Json<T>`, `CallToolResult`, a `Result` of one of them, and so on.
///
/// Options: `name = "..."`, `title = "..."`, `description = "..."`, and
/// `task = "sync"` (the default), `"optional"`, `"required"`, or a path to a
/// function that decides per call: `fn(&BuildArgs, &RequestInfo) ->
/// TaskPolicy`, or `fn(&BuildArgs, &Context) -> Result<TaskPolicy,
/// InputRequired>` to ask the user first (`ctx.elicit::<T>(..).now()?`, over
/// MRTR, before any task exists). With a task policy, `task_start = "explicit"` runs the handler
/// within the request until it calls `ctx.start_task().await`, so that it
/// can ask for input over MRTR (or return a plain result) before the task
/// exists; the default, `"immediate"`, creates the task before the handler
/// runs. `resumable` (with a task policy) lets another server run a task of
/// the tool again from the start when the server running it dies, and its
/// own server drop the handler while the task waits for input and run it
/// again when the answers come, every question already answered returning
/// its answer at once: the code before the last answered question must
/// have idempotent side effects. The
/// behaviour hints `read_only`, `destructive`, `idempotent` and
/// `open_world` are set bare (true) or as `destructive = false`, and become
/// the tool's `annotations`.
///
/// On a parameter, `#[param(...)]` takes:
///
/// - `description = "..."`: describes the argument in the input schema;
/// - `arg`: the parameter is a JSON argument, whatever its type is named;
/// - `extract`: the parameter is an extractor, of any `FromContext` type.
///
/// `arg` and `extract` exclude each other, and an extractor has no
/// description.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand(args.into(), input.into()).into()
}

/// Turns an `async fn` into an MCP prompt.
///
/// ```text
/// /// Asks for a review of a piece of code.
/// #[prompt(title = "Request a code review")]
/// async fn code_review(
///     ctx: Context,
///     #[param(description = "The code to review")] code: String,
///     #[param(complete = languages)] language: Option<Language>,
/// ) -> Result<Vec<PromptMessage>, ToolError> {
///     ...
/// }
/// ```
///
/// keeps the function and adds `CodeReviewPrompt`, the prompt to register
/// with `ServerBuilder::prompt(CodeReviewPrompt)`.
///
/// - The prompt is named after the function and described by its doc
///   comment.
/// - Parameters are arguments or extractors, as for `#[tool]`: `Context`,
///   `State<T>` and `#[param(extract)]` types are made from the request's
///   context, so `ctx.elicit` asks the user over MRTR as in a tool.
/// - Prompt arguments are strings on the wire: an argument's type must
///   implement `FromStr` (`String`, numbers, `bool`, an enum of yours), and
///   it is required unless its type is `Option<_>`. A missing required
///   argument, or one that does not parse, refuses the request with
///   `-32602` naming it, before the function runs.
/// - The return type must implement `IntoPromptResult`: `String` (one user
///   message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, a
///   `Result` of one of them, and so on. A `ToolError::new` message is a
///   `-32602`; any other error is `-32603`.
///
/// Options: `name = "..."`, `title = "..."`, `description = "..."`. On a
/// parameter, `#[param(...)]` takes `description = "..."`, `arg`,
/// `extract` (as for `#[tool]`), and `complete = some_fn`: the argument's
/// completer for `completion/complete`, `fn(&str, &CompletionContext) ->
/// Vec<String>` or `async fn(String, CompletionContext) -> Vec<String>`.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    prompt::expand(args.into(), input.into()).into()
}

/// Turns an `async fn` into an MCP resource, or a resource template when
/// its URI has variables.
///
/// ```text
/// /// A user's profile, as JSON.
/// #[resource(uri = "users://{id}/profile", mime_type = "application/json")]
/// async fn profile(
///     State(db): State<Db>,
///     #[param(complete = user_ids)] id: u64,
/// ) -> Result<Json<Profile>, ToolError> {
///     ...
/// }
/// ```
///
/// keeps the function and adds `ProfileResource`, to register with
/// `ServerBuilder::resource(ProfileResource)`.
///
/// - A URI without `{…}` is one resource, listed by `resources/list`; one
///   with variables is a template (RFC 6570 `{var}`, `{+var}`, `{#var}`),
///   listed by `resources/templates/list`, whose variables are the
///   function's argument parameters, by name. Every variable needs a
///   parameter and every argument parameter a variable, which is checked
///   at compile time. A variable's type must implement `FromStr`; one that
///   does not parse refuses the read with `-32602` and `data.uri`.
/// - Extractors (`Context`, `State<T>`, `#[param(extract)]`) work as in
///   `#[tool]`, `ctx.elicit` included.
/// - The resource is named after the function and described by its doc
///   comment.
/// - The return type must implement `IntoReadResult`: `String` (text),
///   `Vec<u8>` (binary), `Json<T>`, `ResourceContents`,
///   `Vec<ResourceContents>`, `ReadResourceResult`, or a `Result` of one
///   of them.
///
/// Options: `uri = "..."` (required), `name = "..."`, `title = "..."`,
/// `description = "..."`, `mime_type = "..."`, and the caching hints of
/// its reads, `ttl_ms = 60000` and `cache_scope = "public"` (by default a
/// read is immediately stale and private). On a variable,
/// `#[param(complete = some_fn)]` names its completer, as for `#[prompt]`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    resource::expand(args.into(), input.into()).into()
}

/// Makes a struct usable as an elicitation form (`ctx.elicit::<T>(…)`), or
/// a unit-only enum usable as a select field of one.
///
/// ```text
/// #[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
/// enum Color { Red, Green }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
/// struct Confirm { ok: bool, color: Option<Color>, note: String }
/// ```
///
/// The type must also derive `serde::Deserialize` and
/// `schemars::JsonSchema`, which is checked at the type's name. Forms are
/// flat: every field must be a form field (`String`, `bool`, a number, an
/// `Elicit` enum, one of those in an `Option`, or a `Vec` of an `Elicit`
/// enum), which is checked at compile time, at the field.
/// Embeds a folder of skills in the binary at compile time, for
/// `ServerBuilder::skills`.
///
/// ```text
/// let skills = presa::embed_skills!("skills")?;
/// let server = Server::builder("docs", "1.0").skills(skills).build();
/// ```
///
/// The folder is relative to the crate's `Cargo.toml`. The expansion is
/// a `Result<SkillLibrary, SkillLoadError>`: the runtime checks the
/// skills (frontmatter, names, limits) when it runs, with the rules of
/// `SkillLibrary::from_dir`. Each file is one `include_bytes!`, so cargo
/// rebuilds when a file changes; a file added to the folder is seen at
/// the crate's next build. A name starting with `.` is skipped, and a
/// symbolic link leading outside the folder is a compile error.
#[proc_macro]
pub fn embed_skills(input: TokenStream) -> TokenStream {
    skills::expand(input.into()).into()
}

#[proc_macro_derive(Elicit)]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    elicit::expand(input.into()).into()
}
