//! Sending as a legacy session does: a request carries its params alone
//! (`initialize` fixed the rest for the session), and two sends the
//! modern era never needs: a notification of the client's own
//! (`notifications/initialized`), and a request nobody waits for (an
//! unsubscribe from a `Drop`).

use serde::Serialize;

use crate::client::connection::{Connection, request_line};
use crate::client::error::ClientError;
use crate::wire::JsonRpcVersion;

/// A notification as sent.
#[derive(Serialize)]
struct OutgoingNotification<'a, P: ?Sized> {
    jsonrpc: JsonRpcVersion,
    method: &'a str,
    params: &'a P,
}

/// Sends `method` as a notification with `params`.
pub(crate) async fn notify<P: Serialize + ?Sized>(
    connection: &Connection,
    method: &str,
    params: &P,
) -> Result<(), ClientError> {
    let frame = serde_json::to_string(&OutgoingNotification {
        jsonrpc: JsonRpcVersion,
        method,
        params,
    })
    .map_err(|e| ClientError::InvalidArguments(format!("params do not serialize: {e}")))?;
    connection
        .outgoing
        .send(frame)
        .await
        .map_err(|_| ClientError::Closed)
}

/// Sends a request without waiting for its answer, from code that cannot
/// wait (a `Drop`); the answer, when it comes, is dropped.
pub(crate) fn send_and_forget<P: Serialize + ?Sized>(
    connection: &Connection,
    method: &str,
    params: &P,
) {
    let id = connection.next_request_id();
    match request_line(&id, method, params, None) {
        Ok(frame) => connection.outgoing.send_detached(frame),
        Err(error) => tracing::debug!(%error, method, "could not send a request"),
    }
}
