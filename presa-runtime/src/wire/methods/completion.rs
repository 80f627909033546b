//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable while the user types it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::wire::protocol::{RequestMeta, ResultMeta, ResultType};

/// The most values one completion carries.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// What the argument belongs to.
    #[serde(
        rename = "ref",
        deserialize_with = "crate::wire::jsonrpc::strict::object"
    )]
    pub reference: CompletionReference,
    /// The argument being typed, and what has been typed so far.
    pub argument: CompletionArgument,
    /// The values of the other arguments, as far as they are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionRequestContext>,
    /// Request metadata; see [`PaginatedParams::meta`](crate::wire::PaginatedParams::meta).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl CompleteParams {
    /// Completes argument `name` of `reference`, of which `value` was
    /// typed so far.
    pub fn new(
        reference: CompletionReference,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteParams {
            reference,
            argument: CompletionArgument {
                name: name.into(),
                value: value.into(),
            },
            context: None,
            meta: None,
        }
    }

    /// Adds the value already chosen for another argument, `name`.
    pub fn with_argument(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.context
            .get_or_insert_with(Default::default)
            .arguments
            .get_or_insert_with(Default::default)
            .insert(name.into(), value.into());
        self
    }
}

/// The prompt or resource template whose argument is completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// `ref/prompt`: an argument of a prompt.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
        /// Its display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// `ref/resource`: a variable of a resource template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template, as listed in `uriTemplate`.
        uri: String,
    },
}

impl CompletionReference {
    /// An argument of prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        CompletionReference::Prompt {
            name: name.into(),
            title: None,
        }
    }

    /// A variable of the resource template `uri_template`.
    pub fn resource(uri_template: impl Into<String>) -> Self {
        CompletionReference::Resource {
            uri: uri_template.into(),
        }
    }
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The name of the prompt argument or template variable.
    pub name: String,
    /// What the user has typed so far.
    pub value: String,
}

/// The `context` of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionRequestContext {
    /// The values already chosen for the other arguments, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// The answer to `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// Always `complete`.
    #[serde(rename = "resultType", default)]
    pub result_type: ResultType,
    /// The suggestions.
    pub completion: Completion,
    /// Carries `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

/// Suggestions for one argument, best first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values.
    pub values: Vec<String>,
    /// How many matches there are in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more matches than `values` holds.
    #[serde(rename = "hasMore", default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// Every match, best first: the first [`MAX_COMPLETION_VALUES`] are
    /// kept, `total` counts them all and `hasMore` says whether some were
    /// left out.
    pub fn from_matches(mut matches: Vec<String>) -> Self {
        let total = matches.len();
        matches.truncate(MAX_COMPLETION_VALUES);
        Completion {
            values: matches,
            total: Some(total as u64),
            has_more: Some(total > MAX_COMPLETION_VALUES),
        }
    }

    /// The completion as it may be sent: a hand-made one with more than
    /// [`MAX_COMPLETION_VALUES`] values is cut there and says it has more.
    pub fn bounded(mut self) -> Self {
        if self.values.len() > MAX_COMPLETION_VALUES {
            let total = self.total.unwrap_or(self.values.len() as u64);
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.total = Some(total);
            self.has_more = Some(true);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_tagged_by_type() {
        let params: CompleteParams = serde_json::from_value(json!({
            "ref": {"type": "ref/resource", "uri": "file:///{path}"},
            "argument": {"name": "path", "value": "sr"},
            "context": {"arguments": {"root": "/"}}
        }))
        .unwrap();
        assert_eq!(
            params.reference,
            CompletionReference::resource("file:///{path}")
        );
        assert_eq!(params.context.unwrap().arguments.unwrap()["root"], "/");
        assert_eq!(
            serde_json::to_value(CompletionReference::prompt("p")).unwrap(),
            json!({"type": "ref/prompt", "name": "p"})
        );
        let unknown = json!({"ref": {"type": "ref/tool", "name": "t"},
                             "argument": {"name": "a", "value": ""}});
        assert!(serde_json::from_value::<CompleteParams>(unknown).is_err());
    }

    #[test]
    fn completions_hold_at_most_a_hundred_values() {
        let many: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let completion = Completion::from_matches(many.clone());
        assert_eq!(completion.values.len(), 100);
        assert_eq!(
            (completion.total, completion.has_more),
            (Some(150), Some(true))
        );
        let few = Completion::from_matches(vec!["a".into()]);
        assert_eq!((few.total, few.has_more), (Some(1), Some(false)));
        let bounded = Completion {
            values: many,
            ..Default::default()
        }
        .bounded();
        assert_eq!(bounded.values.len(), 100);
        assert_eq!((bounded.total, bounded.has_more), (Some(150), Some(true)));
    }
}
