//! `presa` against a server that wants OAuth: the first command signs in
//! through the loopback redirect (the test plays the browser of a user
//! who consents), the next is signed in already from the kept tokens, and
//! `presa logout` forgets them. The authorization server is the
//! workspace's test one (`tests/common/oauth.rs`).

#[path = "../../tests/common/oauth.rs"]
mod issuer;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use issuer::{SignInServer, TestKey, WhoamiTool};
use jsonwebtoken::Algorithm;
use presa::prelude::*;
use presa::server::http::{OAuth, StreamableHttp};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// Longer than any command here takes; a command that waits for a
/// sign-in nobody gives fails the test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(60);

/// A resource server taking `authorization`'s tokens; its URL.
async fn resource_server(authorization: &SignInServer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer(authorization.issuer.clone())
        .resource(url.clone())
        .build()
        .unwrap();
    let server = Server::builder("protected", "1.0.0")
        .tool(WhoamiTool)
        .build();
    tokio::spawn(StreamableHttp::new(server).oauth(oauth).serve_on(listener));
    url
}

/// `presa ARGS…` with its config (and so its tokens) in `config`.
fn presa(config: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command
        .args(args)
        .env("PRESA_CONFIG_DIR", config)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Runs `command` to its end.
async fn finished(mut command: Command) -> Output {
    let run = command.output();
    tokio::time::timeout(PATIENCE, run)
        .await
        .expect("presa finished")
        .expect("presa ran")
}

/// The browser: opens `url` at the authorization server, which redirects
/// at once, and follows the redirect to presa's loopback port.
async fn consent(url: &str) {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let reply = browser.get(url).send().await.unwrap();
    let location = reply.headers()["location"].to_str().unwrap().to_owned();
    let back = browser.get(&location).send().await.unwrap();
    assert!(back.status().is_success(), "{}", back.status());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presa_signs_in_keeps_its_tokens_and_logs_out() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization).await;
    let config = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oauth-sign-in");
    let _ = std::fs::remove_dir_all(&config);

    // The first command prints where to sign in, and waits for it.
    let mut first = presa(&config, &["call", &url, "whoami", "--json"])
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(first.stderr.take().unwrap()).lines();
    let mut said = String::new();
    let sign_in = loop {
        let line = tokio::time::timeout(PATIENCE, stderr.next_line())
            .await
            .expect("presa asked to sign in")
            .unwrap()
            .unwrap_or_else(|| panic!("presa ended without asking to sign in: {said}"));
        said.push_str(&line);
        said.push('\n');
        if let Some(url) = line.trim().strip_prefix(&authorization.issuer) {
            break format!("{}{url}", authorization.issuer);
        }
    };
    consent(&sign_in).await;
    let first = tokio::time::timeout(PATIENCE, first.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{}: {said}{text}", first.status);
    assert!(text.contains("alice"), "{text}");
    assert_eq!(authorization.asked().authorizations, 1);
    let kept = std::fs::read_dir(config.join("tokens")).unwrap().count();
    assert_eq!(kept, 1, "one file of tokens for the one server");

    // The next command is signed in already.
    let second = finished(presa(&config, &["call", &url, "whoami", "--json"])).await;
    let text = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{}: {text}", second.status);
    assert!(text.contains("alice"), "{text}");
    assert_eq!(authorization.asked().authorizations, 1, "no second sign-in");

    // Logging out forgets the tokens, and says so; once is enough.
    let out = finished(presa(&config, &["logout", &url])).await;
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.trim(), format!("signed out of {url}"));
    assert_eq!(std::fs::read_dir(config.join("tokens")).unwrap().count(), 0);
    let again = finished(presa(&config, &["logout", &url])).await;
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(said.trim(), format!("no sign-in to {url} was kept"));
}
