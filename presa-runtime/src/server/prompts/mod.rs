//! Prompts: what a prompt is ([`PromptHandler`](crate::server::PromptHandler))
//! and `prompts/get`.
//!
//! | file | what it holds |
//! |---|---|
//! | `prompt` | [`PromptHandler`](crate::server::PromptHandler) and its result |
//! | `get_prompt` | `prompts/get`: required arguments, then the MRTR pipeline |

pub(crate) mod get_prompt;
pub(crate) mod prompt;
