//! The client against a server of unknown era, over a stdio-like frame
//! channel: the `server/discover` probe, the fall back to `initialize` in
//! each case the spec names, version negotiation, and the errors a user
//! can hit on the way.
//!
//! Each test scripts the server (see `scripted/legacy.rs`); time is
//! paused, so the probe timeout elapses exactly and a hang shows up as a
//! guard timeout.

mod scripted;

use scripted::legacy::{LegacyPeer, connect_legacy, connect_legacy_over_bytes, initialize_result};
use scripted::*;

use std::time::Duration;

use presa_runtime::client::{Client, ClientBuilder, ClientError, Era};
use presa_runtime::wire::ElicitResult;
use serde_json::{Value, json};
use tokio::time::Instant;

/// A `DiscoverResult` listing `versions`.
fn discovered(versions: Value) -> Value {
    json!({"resultType": "complete", "supportedVersions": versions, "capabilities": {},
           "ttlMs": 0, "cacheScope": "public",
           "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}}})
}

/// Lists the tools in the background; the test plays the server.
fn list_tools(client: &Client) -> tokio::task::JoinHandle<Result<usize, ClientError>> {
    let client = client.clone();
    tokio::spawn(async move { client.list_tools().await.map(|tools| tools.len()) })
}

/// Answers a legacy `tools/list` with one tool, after checking it carries
/// no modern `_meta`.
async fn answer_legacy_list(peer: &mut LegacyPeer) {
    let list = peer.expect("tools/list").await;
    let meta = &list["params"]["_meta"];
    assert!(
        meta.get("io.modelcontextprotocol/protocolVersion")
            .is_none(),
        "a legacy request carries no modern _meta: {list}"
    );
    peer.reply(
        &list,
        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
    )
    .await;
}

/// Answers a modern `tools/list` with no tool, after checking it carries
/// the version the client settled on.
async fn answer_modern_list(peer: &mut LegacyPeer) {
    let list = peer.expect("tools/list").await;
    assert_eq!(
        list["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
        "{list}"
    );
    let empty = json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public"});
    peer.reply(&list, empty).await;
}

#[tokio::test(start_paused = true)]
async fn a_modern_server_is_probed_once_and_stays_modern() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    let second = list_tools(&client);
    let probe = peer.expect("server/discover").await;
    assert_eq!(
        probe["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    peer.reply(&probe, discovered(json!(["2026-07-28"]))).await;
    for _ in 0..2 {
        answer_modern_list(&mut peer).await;
    }
    assert_eq!(listing.await.unwrap(), Ok(0));
    assert_eq!(second.await.unwrap(), Ok(0));
    assert_eq!(client.era().await, Ok(Era::Modern));
    assert_eq!(peer.sent_next().await, None, "one probe for every request");
}

#[tokio::test(start_paused = true)]
async fn a_refused_version_on_the_probe_is_adopted_not_a_fall_back() {
    let builder = Client::builder().protocol_versions(
        ["2099-01-01", "2026-07-28", "2025-11-25"]
            .map(String::from)
            .into(),
    );
    let (client, mut peer) = connect_legacy(builder);
    let listing = list_tools(&client);
    let probe = peer.expect("server/discover").await;
    let refusal = json!({"code": -32022, "message": "Unsupported protocol version",
                         "data": {"supported": ["2026-07-28"], "requested": "2099-01-01"}});
    peer.reply_error(&probe, refusal).await;
    answer_modern_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(0));
    assert_eq!(client.era().await, Ok(Era::Modern));
}

#[tokio::test(start_paused = true)]
async fn any_other_error_on_the_probe_falls_back_to_initialize() {
    for error in [
        json!({"code": -32601, "message": "Method not found"}),
        json!({"code": -32602, "message": "Invalid params"}),
        json!({"code": -32000, "message": "Server not initialized"}),
    ] {
        let (client, mut peer) = connect_legacy(Client::builder());
        let listing = list_tools(&client);
        let probe = peer.expect("server/discover").await;
        peer.reply_error(&probe, error.clone()).await;
        let initialize = peer
            .accept_session("2025-11-25", json!({"tools": {}}))
            .await;
        assert_eq!(
            initialize["params"]["protocolVersion"], "2025-11-25",
            "{error}"
        );
        assert_eq!(initialize["params"]["clientInfo"]["name"], "presa-client");
        answer_legacy_list(&mut peer).await;
        assert_eq!(listing.await.unwrap(), Ok(1), "{error}");
        assert_eq!(client.era().await, Ok(Era::Legacy));
    }
}

#[tokio::test(start_paused = true)]
async fn a_result_that_is_no_discover_result_falls_back_too() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    let probe = peer.expect("server/discover").await;
    peer.reply(&probe, json!({})).await;
    peer.accept_session("2025-11-25", json!({"tools": {}}))
        .await;
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_is_legacy_once_the_probe_timeout_lapses() {
    let builder = Client::builder().probe_timeout(Duration::from_secs(3));
    let (client, mut peer) = connect_legacy(builder);
    let started = Instant::now();
    let listing = list_tools(&client);
    peer.expect("server/discover").await;
    let initialize = peer.expect("initialize").await;
    assert_eq!(started.elapsed(), Duration::from_secs(3));
    peer.reply(
        &initialize,
        initialize_result("2025-11-25", json!({"tools": {}})),
    )
    .await;
    let initialized = peer.recv().await;
    assert_eq!(
        initialized["method"], "notifications/initialized",
        "no cancellation of the probe a legacy server never took in"
    );
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

/// How long a client built by `builder` waits for a silent server to
/// answer its era probe before it sends `initialize`.
async fn probe_wait(builder: ClientBuilder) -> Duration {
    let (client, mut peer) = connect_legacy(builder);
    let started = Instant::now();
    let _listing = list_tools(&client);
    peer.expect("server/discover").await;
    peer.expect("initialize").await;
    started.elapsed()
}

#[tokio::test(start_paused = true)]
async fn the_default_probe_timeout_is_ten_seconds() {
    assert_eq!(probe_wait(Client::builder()).await, Duration::from_secs(10));
}

#[tokio::test(start_paused = true)]
async fn a_forced_era_skips_the_probe() {
    let (client, mut peer) = connect_legacy(Client::builder().force_era(Era::Legacy));
    let listing = list_tools(&client);
    peer.accept_session("2025-11-25", json!({"tools": {}}))
        .await;
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));

    let legacy_only = Client::builder().protocol_versions(vec!["2025-06-18".into()]);
    let (client, mut peer) = connect_legacy(legacy_only);
    let listing = list_tools(&client);
    let initialize = peer
        .accept_session("2025-06-18", json!({"tools": {}}))
        .await;
    assert_eq!(initialize["params"]["protocolVersion"], "2025-06-18");
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn the_session_declares_the_handlers_and_sets_the_log_level() {
    let builder = Client::builder()
        .tasks(true)
        .on_elicitation(|_| async { presa_runtime::wire::ElicitResult::decline() })
        .on_roots(|_| async { vec![] })
        .log_level(presa_runtime::wire::LoggingLevel::Warning);
    let (client, mut peer) = connect_legacy(builder);
    let listing = list_tools(&client);
    let initialize = peer.open_session(json!({"tools": {}, "logging": {}})).await;
    assert_eq!(
        initialize["params"]["capabilities"],
        json!({"elicitation": {"form": {}}, "roots": {}}),
        "legacy capabilities: no extensions"
    );
    let set_level = peer.expect("logging/setLevel").await;
    assert_eq!(set_level["params"], json!({"level": "warning"}));
    peer.reply(&set_level, json!({})).await;
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn a_request_the_server_sends_once_initialized_reaches_the_handlers() {
    let builder = Client::builder()
        .on_roots(|_| async { vec![] })
        .log_level(presa_runtime::wire::LoggingLevel::Warning);
    let (client, mut peer) = connect_legacy(builder);
    let listing = list_tools(&client);
    peer.open_session(json!({"tools": {}, "logging": {}})).await;
    // The handshake still waits for its log level when the server asks.
    let set_level = peer.expect("logging/setLevel").await;
    peer.ask(json!("r1"), "roots/list", json!({})).await;
    let roots = peer.recv().await;
    assert_eq!(
        roots,
        json!({"jsonrpc": "2.0", "id": "r1", "result": {"roots": []}})
    );
    peer.reply(&set_level, json!({})).await;
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn a_refused_log_level_fails_the_request_and_keeps_the_session() {
    let builder = Client::builder().log_level(presa_runtime::wire::LoggingLevel::Warning);
    let (client, mut peer) = connect_legacy(builder);
    let listing = list_tools(&client);
    peer.open_session(json!({"tools": {}, "logging": {}})).await;
    let set_level = peer.expect("logging/setLevel").await;
    let refusal = json!({"code": -32602, "message": "no such level"});
    peer.reply_error(&set_level, refusal).await;
    let error = listing.await.unwrap().unwrap_err();
    assert!(
        matches!(error, ClientError::SessionFailed { .. }),
        "{error}"
    );
    assert_eq!(client.era().await, Ok(Era::Legacy));

    let listing = list_tools(&client);
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1), "no second initialize");
}

#[tokio::test(start_paused = true)]
async fn an_offered_older_version_is_kept() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    peer.refuse_probe().await;
    let initialize = peer
        .accept_session("2025-03-26", json!({"tools": {}}))
        .await;
    assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
    let discovered = client.discover().await.unwrap();
    assert_eq!(discovered.supported_versions, ["2025-03-26"]);
    assert_eq!(discovered.server_info().unwrap().name, "legacy-server");
    assert_eq!(discovered.instructions.as_deref(), Some("be brief"));
}

#[tokio::test(start_paused = true)]
async fn a_refusal_naming_a_version_of_ours_is_retried_with_it() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    peer.refuse_probe().await;
    let first = peer.expect("initialize").await;
    let refusal = json!({"code": -32602, "message": "Unsupported protocol version",
                         "data": {"supported": ["2025-06-18"], "requested": "2025-11-25"}});
    peer.reply_error(&first, refusal).await;
    let second = peer
        .accept_session("2025-06-18", json!({"tools": {}}))
        .await;
    assert_eq!(second["params"]["protocolVersion"], "2025-06-18");
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn a_server_that_rejects_every_version_is_a_clear_error() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    peer.refuse_probe().await;
    let initialize = peer.expect("initialize").await;
    let refusal = json!({"code": -32602, "message": "Unsupported protocol version",
                         "data": {"supported": ["2024-11-05"], "requested": "2025-11-25"}});
    peer.reply_error(&initialize, refusal).await;
    let error = listing.await.unwrap().unwrap_err();
    let ClientError::UnsupportedVersion { supported, ours } = &error else {
        panic!("{error}");
    };
    assert_eq!(supported, &["2024-11-05"]);
    assert_eq!(ours, &["2025-11-25", "2025-06-18", "2025-03-26"]);
    assert!(error.to_string().contains("2024-11-05"), "{error}");
    assert_eq!(
        peer.sent_next().await,
        None,
        "no initialized after a refusal"
    );

    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    peer.refuse_probe().await;
    let initialize = peer.expect("initialize").await;
    peer.reply(&initialize, initialize_result("2024-11-05", json!({})))
        .await;
    let error = listing.await.unwrap().unwrap_err();
    assert!(
        matches!(&error, ClientError::UnsupportedVersion { supported, .. } if supported == &["2024-11-05"]),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_failed_handshake_says_why_and_the_next_request_tries_again() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    peer.refuse_probe().await;
    let initialize = peer.expect("initialize").await;
    peer.reply_error(
        &initialize,
        json!({"code": -32603, "message": "out of sessions"}),
    )
    .await;
    let error = listing.await.unwrap().unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, ClientError::SessionFailed { .. }),
        "{error}"
    );
    assert!(
        text.contains("Method not found") && text.contains("out of sessions"),
        "the error names the probe's answer and the refusal: {text}"
    );

    let listing = list_tools(&client);
    peer.open_session(json!({"tools": {}})).await;
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn a_modern_only_client_names_the_legacy_server_it_found() {
    let builder = Client::builder().protocol_versions(vec!["2026-07-28".into()]);
    let (client, mut peer) = connect_legacy(builder);
    let listing = list_tools(&client);
    peer.refuse_probe().await;
    let error = listing.await.unwrap().unwrap_err();
    assert!(matches!(error, ClientError::LegacyServer { .. }), "{error}");
    assert!(error.to_string().contains("2025-11-25"), "{error}");
    assert_eq!(peer.sent_next().await, None, "no initialize");
}

#[tokio::test(start_paused = true)]
async fn a_closed_connection_during_the_probe_is_closed_not_legacy() {
    let (client, peer) = connect_legacy(Client::builder());
    drop(peer);
    assert_eq!(client.list_tools().await, Err(ClientError::Closed));
}

#[tokio::test(start_paused = true)]
async fn tasks_update_says_it_is_modern_only_in_a_legacy_session() {
    let (client, mut peer) = connect_legacy(Client::builder().tasks(true));
    let era = {
        let client = client.clone();
        tokio::spawn(async move { client.era().await })
    };
    peer.open_session(json!({"tools": {}})).await;
    assert_eq!(era.await.unwrap(), Ok(Era::Legacy));
    let update = client
        .update_task("t1", Default::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&update, ClientError::NotInEra { method, era: Era::Legacy, .. } if method == "tasks/update"),
        "{update}"
    );
    assert!(update.to_string().contains("handlers"), "{update}");
    let stream = client.listen_tasks(vec!["t1".into()]).await.unwrap();
    assert!(
        stream.acknowledged().is_empty(),
        "a server without tasks sends no task states"
    );
    assert_eq!(peer.sent_next().await, None);
}

#[tokio::test(start_paused = true)]
async fn a_legacy_ping_is_answered_and_a_request_to_a_modern_client_refused() {
    let (client, mut peer) = connect_legacy(Client::builder());
    let listing = list_tools(&client);
    peer.open_session(json!({"tools": {}})).await;
    let list = peer.expect("tools/list").await;
    peer.ask(json!("p1"), "ping", json!({})).await;
    let pong = peer.recv().await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
    peer.reply(&list, json!({"tools": []})).await;
    assert_eq!(listing.await.unwrap(), Ok(0));

    let (client, mut modern) = connect(Client::builder());
    let listing = tokio::spawn(async move { client.list_tools().await.map(|t| t.len()) });
    let list = modern.expect("tools/list").await;
    modern
        .send(
            json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create",
                     "params": {"message": "?", "requestedSchema": {"type": "object"}}}),
        )
        .await;
    let refusal = modern.recv().await;
    assert_eq!(refusal["id"], 9);
    assert_eq!(refusal["error"]["code"], -32601);
    modern
        .reply(
            &list,
            json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public"}),
        )
        .await;
    assert_eq!(listing.await.unwrap(), Ok(0));
}

#[tokio::test(start_paused = true)]
async fn the_fall_back_works_over_bytes_as_on_stdio() {
    let (client, mut peer) = connect_legacy_over_bytes(Client::builder());
    let listing = list_tools(&client);
    peer.open_session(json!({"tools": {}})).await;
    answer_legacy_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(1));
    assert_eq!(client.era().await, Ok(Era::Legacy));
}

#[tokio::test(start_paused = true)]
async fn a_slow_modern_server_that_refuses_initialize_is_modern_after_all() {
    let builder = Client::builder().probe_timeout(Duration::from_secs(1));
    let (client, mut peer) = connect_legacy(builder);
    let listing = list_tools(&client);
    peer.expect("server/discover").await;
    let initialize = peer.expect("initialize").await;
    let refusal = json!({"code": -32601, "message": "initialize was removed; speak 2026-07-28",
                         "data": {"supported": ["2026-07-28"]}});
    peer.reply_error(&initialize, refusal).await;
    peer.speak_modern();
    answer_modern_list(&mut peer).await;
    assert_eq!(listing.await.unwrap(), Ok(0));
    assert_eq!(client.era().await, Ok(Era::Modern));
}

#[tokio::test(start_paused = true)]
async fn dropping_the_client_drops_a_settlement_under_way_and_closes_the_connection() {
    let (client, mut peer) = connect_legacy(Client::builder().force_era(Era::Legacy));
    let era = {
        let client = client.clone();
        tokio::spawn(async move { client.era().await })
    };
    peer.expect("initialize").await;
    era.abort();
    assert!(era.await.unwrap_err().is_cancelled());
    drop(client);
    peer.closed().await;

    let builder = Client::builder().on_elicitation(|_| async { ElicitResult::decline() });
    let (client, mut peer) = connect_legacy(builder);
    let era = {
        let client = client.clone();
        tokio::spawn(async move { client.era().await })
    };
    peer.open_session(json!({"tools": {}})).await;
    assert_eq!(era.await.unwrap(), Ok(Era::Legacy));
    drop(client);
    peer.closed().await;
}

#[tokio::test(start_paused = true)]
async fn a_shorter_request_timeout_shortens_the_probe() {
    let builder = Client::builder().request_timeout(Duration::from_secs(2));
    assert_eq!(
        probe_wait(builder).await,
        Duration::from_secs(2),
        "a client that gives up on a request after 2 s waits no longer for the probe"
    );
}

#[tokio::test(start_paused = true)]
async fn a_probe_timeout_set_outright_outlasts_the_request_timeout() {
    let builder = Client::builder()
        .request_timeout(Duration::from_secs(2))
        .probe_timeout(Duration::from_secs(5));
    assert_eq!(probe_wait(builder).await, Duration::from_secs(5));
}

#[tokio::test(start_paused = true)]
async fn a_longer_request_timeout_keeps_the_default_probe() {
    let builder = Client::builder().request_timeout(Duration::from_secs(60));
    assert_eq!(probe_wait(builder).await, Duration::from_secs(10));
}
