//! The client's answers to input requests, and the capabilities they imply.
//!
//! A client declares exactly the capabilities it has handlers for, so a
//! server never asks it for input it cannot give.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::try_join_all;
use serde_json::Map;

use super::error::ClientError;
use crate::util::BoxFuture;
use crate::wire::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationCapability, InputRequest, InputRequests, InputResponse,
    InputResponses, ListRootsResult, Root,
};

type Handler<Req, Res> = Arc<dyn Fn(Req) -> BoxFuture<Res> + Send + Sync>;

/// The registered input handlers.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub elicitation: Option<Handler<ElicitRequestParams, ElicitResult>>,
    pub url_elicitation: bool,
    pub sampling: Option<Handler<CreateMessageParams, CreateMessageResult>>,
    pub roots: Option<Handler<(), Vec<Root>>>,
}

pub(crate) fn boxed<Req, Res, F, Fut>(f: F) -> Handler<Req, Res>
where
    F: Fn(Req) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Res> + Send + 'static,
{
    Arc::new(move |req| f(req).boxed())
}

impl Handlers {
    /// The capabilities these handlers let the client declare.
    pub fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            elicitation: self.elicitation.as_ref().map(|_| ElicitationCapability {
                form: Some(Map::new()),
                url: self.url_elicitation.then(Map::new),
            }),
            sampling: self.sampling.as_ref().map(|_| Map::new()),
            roots: self.roots.as_ref().map(|_| Map::new()),
            ..Default::default()
        }
    }

    /// Answers every request, concurrently. Fails before asking anything
    /// if one of them has no handler, so that no answer the user gave is
    /// thrown away.
    pub async fn answer(&self, requests: InputRequests) -> Result<InputResponses, ClientError> {
        if let Some(request) = requests.values().find(|r| !self.handles(r)) {
            return Err(ClientError::NoHandler {
                method: request.method().to_owned(),
            });
        }
        let answers = requests.into_iter().map(|(key, request)| async move {
            Ok::<_, ClientError>((key, self.answer_one(request).await?))
        });
        Ok(try_join_all(answers).await?.into_iter().collect())
    }

    fn handles(&self, request: &InputRequest) -> bool {
        match request {
            InputRequest::Elicit(_) => self.elicitation.is_some(),
            InputRequest::Sample(_) => self.sampling.is_some(),
            InputRequest::ListRoots => self.roots.is_some(),
            InputRequest::Other { .. } => false,
        }
    }

    async fn answer_one(&self, request: InputRequest) -> Result<InputResponse, ClientError> {
        let no_handler = ClientError::NoHandler {
            method: request.method().to_owned(),
        };
        let response = match request {
            InputRequest::Elicit(params) => {
                let handler = self.elicitation.as_ref().ok_or(no_handler)?;
                handler(params).await.into()
            }
            InputRequest::Sample(params) => {
                let handler = self.sampling.as_ref().ok_or(no_handler)?;
                handler(params).await.into()
            }
            InputRequest::ListRoots => {
                let handler = self.roots.as_ref().ok_or(no_handler)?;
                ListRootsResult {
                    roots: handler(()).await,
                }
                .into()
            }
            InputRequest::Other { .. } => return Err(no_handler),
        };
        Ok(response)
    }
}
