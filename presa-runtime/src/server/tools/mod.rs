//! Tools: what a tool is ([`ToolHandler`](crate::server::ToolHandler) and
//! its task policy), what its parameters are made from (its checked
//! arguments, and extractors from the request), and `tools/call`.
//!
//! | file | what it holds |
//! |---|---|
//! | `args` | argument checks, and the bound on text-valued arguments (prompts and resources use them too) |
//! | `extract` | extractor parameters: values taken from the request, not its arguments |
//! | `tool` | [`ToolHandler`](crate::server::ToolHandler), results, the task policy |
//! | `call` | `tools/call`: synchronously, or as a task |

pub(crate) mod args;
pub(crate) mod call;
pub(crate) mod extract;
pub(crate) mod tool;
