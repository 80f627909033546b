//! The benchmark server written with tower-mcp 0.25, as a user of its
//! public API would: the same `echo`, `work` and `ask` as
//! [`crate::presa_server`].
//!
//! - `echo` and `work` are plain `ToolBuilder` handlers; `work` declares
//!   optional task support, which tower-mcp's router honours when the
//!   client declares the Tasks extension.
//! - `ask` is an MRTR handler (`mrtr_handler`): without an answer it
//!   returns `input_required` with the form and a `requestState` sealed by
//!   tower-mcp's own `RequestStateCodec` (HMAC-SHA256, expiring); with one,
//!   it opens the state, reads the answer and completes. That is the work
//!   presa's `ask` does on the same request, so the MRTR figure compares
//!   like with like.
//!
//! The router serves 2026-07-28 only (`ProtocolSupport`), as the other two
//! servers do.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tower_mcp::protocol::{
    ElicitFieldValue, ElicitFormParams, ElicitFormSchema, ElicitRequestParams, InputRequest,
    InputRequiredResult, InputResponse, RequestOutcome, TaskSupportMode,
};
use tower_mcp::{
    CallToolResult, McpRouter, NoParams, ProtocolSupport, RequestContext, RequestStateCodec,
    ToolBuilder,
};

use crate::wire::{ASK_KEY, PROTOCOL_VERSION};

/// The arguments of `echo`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// What `ask`'s sealed `requestState` records: that the question was asked.
#[derive(Debug, Serialize, Deserialize)]
struct Asked {
    key: String,
}

/// The benchmark router.
pub fn router() -> McpRouter {
    let codec = Arc::new(
        RequestStateCodec::new([7u8; 32], Duration::from_secs(600))
            .expect("a 32-byte key and a positive TTL"),
    );
    McpRouter::new()
        .server_info("bench-tower-mcp", "1")
        .tool(echo_tool())
        .tool(work_tool())
        .tool(ask_tool(codec))
}

/// The only revision the benchmark servers speak.
pub fn protocol_support() -> ProtocolSupport {
    ProtocolSupport::try_new([PROTOCOL_VERSION]).expect("2026-07-28 is compiled in")
}

/// `echo`: answers with its `text`.
fn echo_tool() -> tower_mcp::Tool {
    ToolBuilder::new("echo")
        .description("Echoes its input.")
        .handler(|EchoArgs { text }: EchoArgs| async move { Ok(CallToolResult::text(text)) })
        .build()
}

/// `work`: returns at once; a task for clients that declare tasks.
fn work_tool() -> tower_mcp::Tool {
    ToolBuilder::new("work")
        .description("Returns at once; a task for clients that declare tasks.")
        .task_support(TaskSupportMode::Optional)
        .handler(|_: NoParams| async move { Ok(CallToolResult::text("done")) })
        .build()
}

/// `ask`: asks once whether to go ahead, through MRTR, then answers.
fn ask_tool(codec: Arc<RequestStateCodec>) -> tower_mcp::Tool {
    ToolBuilder::new("ask")
        .description("Asks once, then answers.")
        .mrtr_handler(move |ctx: RequestContext, _: NoParams| {
            let codec = codec.clone();
            async move { Ok(ask_round(&ctx, &codec)) }
        })
        .build()
}

/// One round of `ask`: complete with a verified answer, or ask.
fn ask_round(ctx: &RequestContext, codec: &RequestStateCodec) -> RequestOutcome<CallToolResult> {
    let verified = ctx
        .request_state()
        .is_some_and(|state| codec.decode::<Asked>(state).is_ok());
    if verified && let Some(ok) = answered_ok(ctx) {
        return RequestOutcome::Complete(CallToolResult::text(ok.to_string()));
    }
    let state = codec
        .encode(&Asked {
            key: ASK_KEY.to_owned(),
        })
        .expect("a small state encodes");
    let requests = BTreeMap::from([(ASK_KEY.to_owned(), confirm_request())]);
    RequestOutcome::input_required(
        InputRequiredResult::with_requests(requests).with_request_state(state),
    )
}

/// The `ok` field of an accepted answer to the question, if there is one.
fn answered_ok(ctx: &RequestContext) -> Option<bool> {
    let Some(InputResponse::Elicit(answer)) = ctx.input_responses()?.get(ASK_KEY) else {
        return None;
    };
    match answer.content.as_ref()?.get("ok")? {
        ElicitFieldValue::Boolean(ok) => Some(*ok),
        _ => None,
    }
}

/// The form `ask` sends: one required boolean, `ok`.
fn confirm_request() -> InputRequest {
    InputRequest::Elicit(ElicitRequestParams::Form(ElicitFormParams {
        mode: None,
        message: "Go ahead?".to_owned(),
        requested_schema: ElicitFormSchema::new().boolean_field("ok", None, true),
        meta: None,
    }))
}
