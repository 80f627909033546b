//! The rest of the server surface, from the client: prompts, resources and
//! resource templates, completion, and listening for what changes.
//!
//! `prompts/get` and `resources/read` may answer `input_required`, as a
//! tool call does; [`Client::get_prompt`] and [`Client::read_resource`]
//! answer through the registered handlers and retry, with the answers and
//! the byte-identical `requestState`, until the result comes, at most
//! `max_rounds` times. Neither method runs as a task, so a `task` result
//! is an invalid response.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::client::{Client, every_page};
use super::legacy::LegacyClient;
use super::modern::ModernClient;
use super::subscription::Subscription;
use crate::client::connection::ServerEra;
use crate::client::error::ClientError;
use crate::client::protocol::{ResultKind, parse_result, result_kind};
use crate::wire::{
    CompleteParams, CompleteResult, Completion, GetPromptParams, GetPromptResult,
    InputRequiredResult, InputResponses, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, Method, PaginatedParams, Prompt, PromptArguments, ReadResourceParams,
    ReadResourceResult, Resource, ResourceTemplate, SubscriptionFilter,
};

/// The params of a request that may take input rounds.
trait Rounds: Serialize {
    /// Carries the answers to the last round, and its state.
    fn next_round(&mut self, answers: InputResponses, state: Option<String>);
}

impl Rounds for GetPromptParams {
    fn next_round(&mut self, answers: InputResponses, state: Option<String>) {
        self.input_responses = Some(answers);
        self.request_state = state;
    }
}

impl Rounds for ReadResourceParams {
    fn next_round(&mut self, answers: InputResponses, state: Option<String>) {
        self.input_responses = Some(answers);
        self.request_state = state;
    }
}

impl Client {
    /// One page of `prompts/list`.
    pub async fn list_prompts_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, ClientError> {
        self.request_complete(Method::PromptsList, &PaginatedParams { cursor, meta: None })
            .await
    }

    /// Every prompt, following `nextCursor` to the last page.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        let pages = every_page(Method::PromptsList, |cursor| async move {
            let page = self.list_prompts_page(cursor).await?;
            Ok((page.items.prompts, page.next_cursor))
        });
        pages.await
    }

    /// Resolves prompt `name` with `arguments` (a JSON object of strings, or
    /// `null` for none), answering input requests through the registered
    /// handlers until the server answers with the messages.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, ClientError> {
        let params = GetPromptParams {
            name: name.to_owned(),
            arguments: Some(prompt_arguments(arguments)?),
            input_responses: None,
            request_state: None,
            meta: None,
        };
        self.drive(Method::PromptsGet, params).await
    }

    /// One page of `resources/list`.
    pub async fn list_resources_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, ClientError> {
        self.request_complete(
            Method::ResourcesList,
            &PaginatedParams { cursor, meta: None },
        )
        .await
    }

    /// Every resource, following `nextCursor` to the last page.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        let pages = every_page(Method::ResourcesList, |cursor| async move {
            let page = self.list_resources_page(cursor).await?;
            Ok((page.items.resources, page.next_cursor))
        });
        pages.await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        let params = PaginatedParams { cursor, meta: None };
        self.request_complete(Method::ResourceTemplatesList, &params)
            .await
    }

    /// Every resource template, following `nextCursor` to the last page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        let pages = every_page(Method::ResourceTemplatesList, |cursor| async move {
            let page = self.list_resource_templates_page(cursor).await?;
            Ok((page.items.resource_templates, page.next_cursor))
        });
        pages.await
    }

    /// Reads the resource at `uri`, answering input requests through the
    /// registered handlers until the server answers with the contents.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let params = ReadResourceParams {
            uri: uri.to_owned(),
            input_responses: None,
            request_state: None,
            meta: None,
        };
        self.drive(Method::ResourcesRead, params).await
    }

    /// `completion/complete`: suggestions for an argument of a prompt or a
    /// resource template.
    ///
    /// ```no_run
    /// # async fn example(client: presa_runtime::client::Client) -> Result<(), presa_runtime::client::ClientError> {
    /// use presa_runtime::wire::{CompleteParams, CompletionReference};
    ///
    /// let request = CompleteParams::new(CompletionReference::prompt("code_review"), "language", "py")
    ///     .with_argument("framework", "django");
    /// let completion = client.complete(request).await?;
    /// println!("{:?} of {:?}", completion.values, completion.total);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn complete(&self, request: CompleteParams) -> Result<Completion, ClientError> {
        // The connection writes the `_meta` of every request itself.
        let request = CompleteParams {
            meta: None,
            ..request
        };
        let result: CompleteResult = self
            .request_complete(Method::CompletionComplete, &request)
            .await?;
        Ok(result.completion)
    }

    /// Opens a `subscriptions/listen` stream for what `filter` asks (list
    /// changes, resource updates, tasks) and waits for the server's
    /// acknowledgement, within the request timeout if one is set; see
    /// [`Subscription::acknowledged`] for what the server agreed to send.
    /// The stream stays open until the [`Subscription`] is dropped or the
    /// server ends it.
    ///
    /// A legacy server sends these notifications on its session instead:
    /// the stream then takes them from there, granted the lists whose
    /// changes the server announces, the resources `resources/subscribe`
    /// succeeded for, and the tasks of a server that runs tasks; it lasts
    /// until dropped, which unsubscribes from the resources.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        match self.server_era().await? {
            ServerEra::Modern { .. } => ModernClient { client: self }.listen(filter).await,
            ServerEra::Legacy(session) => LegacyClient::new(self, &session).listen(filter).await,
        }
    }

    /// Sends `method` with `params`, answering its input rounds, until it
    /// completes.
    async fn drive<P, T>(&self, method: Method, mut params: P) -> Result<T, ClientError>
    where
        P: Rounds,
        T: DeserializeOwned,
    {
        let method = method.as_str();
        for _ in 0..=self.max_rounds() {
            let result = self.request(method, &params).await?;
            let input: InputRequiredResult = match result_kind(method, &result)? {
                ResultKind::Complete => return parse_result(result),
                ResultKind::InputRequired => parse_result(result)?,
                ResultKind::Task => {
                    return Err(ClientError::InvalidResponse(format!(
                        "{method}: the server answered with resultType `task`, where only \
                         `complete` or `input_required` is valid"
                    )));
                }
            };
            let requests = input.input_requests.unwrap_or_default();
            let answers = self.answer_input_requests(requests).await?;
            params.next_round(answers, input.request_state);
        }
        Err(ClientError::TooManyRounds {
            max_rounds: self.max_rounds(),
        })
    }
}

/// Prompt arguments from a JSON object of strings, or `null`.
fn prompt_arguments(arguments: Value) -> Result<PromptArguments, ClientError> {
    let invalid = |what: String| {
        ClientError::InvalidArguments(format!(
            "prompt arguments must be a JSON object of strings (or null), not {what}"
        ))
    };
    let object = match arguments {
        Value::Object(object) => object,
        Value::Null => return Ok(PromptArguments::new()),
        other => return Err(invalid(other.to_string())),
    };
    object
        .into_iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name, text)),
            other => Err(invalid(format!("`{name}`: {other}"))),
        })
        .collect()
}
