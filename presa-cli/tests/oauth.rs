//! `presa` against a server that wants OAuth: the first command signs in
//! through the loopback redirect (the test plays the browser of a user
//! who consents), the next is signed in already from the kept tokens, in
//! a private folder, and `presa logout` forgets them. And a bearer token
//! read from a file, from stdin or from `PRESA_TOKEN`. And the sign-in as
//! a client registered beforehand, with its secret, and as the client
//! itself with no browser; a secret goes only to the `--issuer` named.
//! The authorization server is the workspace's test one
//! (`tests/common/oauth.rs`).

#[path = "../../tests/common/oauth.rs"]
mod issuer;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use issuer::{AuthServer, SignInServer, TestKey, WhoamiTool};
use jsonwebtoken::Algorithm;
use presa::prelude::*;
use presa::server::http::{OAuth, StreamableHttp};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// Longer than any command here takes; a command that waits for a
/// sign-in nobody gives fails the test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(60);

/// A resource server taking the tokens of the authorization server at
/// `issuer`; its URL.
async fn resource_server(issuer: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let oauth = OAuth::issuer(issuer.to_owned())
        .resource(url.clone())
        .build()
        .unwrap();
    let server = Server::builder("protected", "1.0.0")
        .tool(WhoamiTool)
        .build();
    tokio::spawn(StreamableHttp::new(server).oauth(oauth).serve_on(listener));
    url
}

/// An authorization server that signs users in, a resource server that
/// takes its tokens (its URL), and `presa`'s config folder `name`, empty.
async fn signing_in(name: &str) -> (SignInServer, String, PathBuf) {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = SignInServer::start(&key, 600).await;
    let url = resource_server(&authorization.issuer).await;
    let config = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&config);
    (authorization, url, config)
}

/// `presa ARGS…` with its config (and so its tokens) in `config`.
fn presa(config: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command
        .args(args)
        .env("PRESA_CONFIG_DIR", config)
        .env_remove("PRESA_TOKEN")
        .env_remove("PRESA_CLIENT_SECRET")
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
    let (authorization, url, config) = signing_in("oauth-sign-in").await;

    // The first command prints where to sign in, and waits for it.
    let (first, said) = signed_in(
        presa(&config, &["call", &url, "whoami", "--json"]),
        &authorization.issuer,
    )
    .await;
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{}: {said}{text}", first.status);
    assert!(text.contains("alice"), "{text}");
    assert_eq!(authorization.asked().authorizations, 1);
    let kept: Vec<_> = std::fs::read_dir(config.join("tokens"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(kept.len(), 1, "one file of tokens for the one server");
    let digest = kept[0].strip_suffix(".json").unwrap();
    assert!(
        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "the file is named by the URL's digest: {kept:?}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&config.join("tokens")), 0o700, "the folder is private");
        assert_eq!(mode(&config.join("tokens").join(&kept[0])), 0o600);
    }

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
    // With --json, the answer is one document on stdout.
    let json = finished(presa(&config, &["logout", &url, "--json"])).await;
    assert!(json.status.success());
    let said: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(said, serde_json::json!({"url": url, "signed_out": false}));
}

/// Runs `command`, which prints where to sign in at `issuer`; consents
/// there as the user's browser would, and waits for the command's end.
/// Its output, and what it said on stderr before the sign-in.
async fn signed_in(mut command: Command, issuer: &str) -> (Output, String) {
    let mut child = command.spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = String::new();
    let sign_in = loop {
        let line = tokio::time::timeout(PATIENCE, stderr.next_line())
            .await
            .expect("presa asked to sign in")
            .unwrap()
            .unwrap_or_else(|| panic!("presa ended without asking to sign in: {said}"));
        said.push_str(&line);
        said.push('\n');
        if let Some(url) = line.trim().strip_prefix(issuer) {
            break format!("{issuer}{url}");
        }
    };
    consent(&sign_in).await;
    let output = tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    (output, said)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presa_signs_in_as_a_client_registered_beforehand_with_its_secret() {
    let (authorization, url, config) = signing_in("oauth-client-id").await;
    authorization.register_client("team-app", "app-secret-71c4");
    std::fs::create_dir_all(&config).unwrap();
    let secret = config.join("secret");
    std::fs::write(&secret, "app-secret-71c4\n").unwrap();

    let mut command = presa(&config, &["call", &url, "whoami", "--json"]);
    command.args(["--client-id", "team-app", "--issuer", &authorization.issuer]);
    command.args(["--client-secret-file", secret.to_str().unwrap()]);
    let (output, said) = signed_in(command, &authorization.issuer).await;
    ran_as_alice(&output, &said);
    let asked = authorization.asked();
    assert_eq!(asked.registrations, 0, "presa did not register itself");
    assert!(
        !asked.client_ids.is_empty() && asked.client_ids.iter().all(|id| id == "team-app"),
        "every request was the given client's: {:?}",
        asked.client_ids
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_dpop_the_next_command_uses_the_bound_token_and_its_kept_key() {
    let (authorization, url, config) = signing_in("oauth-dpop").await;
    let call = ["call", url.as_str(), "whoami", "--json", "--dpop"];

    let (first, said) = signed_in(presa(&config, &call), &authorization.issuer).await;
    ran_as_alice(&first, &said);
    // A new process, with the token bound to the first one's key: the
    // resource takes it only with a proof of that key.
    ran_as_alice(&finished(presa(&config, &call)).await, "the second command");
    let asked = authorization.asked();
    assert_eq!(
        (asked.code_grants, asked.refresh_grants, asked.dpop_bound),
        (1, 0, 1),
        "one sign-in, one bound token, no refresh: {asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_document_is_the_client_id_where_the_server_takes_them() {
    let (authorization, url, config) = signing_in("oauth-metadata-document").await;
    authorization.with_metadata_documents();
    let document = "https://tools.example.com/presa-client.json";

    let mut command = presa(&config, &["call", &url, "whoami", "--json"]);
    command.args(["--client-metadata-url", document]);
    let (output, said) = signed_in(command, &authorization.issuer).await;
    ran_as_alice(&output, &said);
    let asked = authorization.asked();
    assert_eq!(asked.registrations, 0, "presa did not register itself");
    assert!(
        !asked.client_ids.is_empty() && asked.client_ids.iter().all(|id| id == document),
        "the document's URL was the client id: {:?}",
        asked.client_ids
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_signs_in_as_itself_with_no_browser() {
    let (authorization, url, config) = signing_in("oauth-client-credentials").await;
    authorization.register_client("build-robot", "robot-secret-0b9e");

    let mut command = presa(&config, &["call", &url, "whoami", "--json"]);
    command
        .args(["--client-credentials", "--client-id", "build-robot"])
        .args(["--issuer", &authorization.issuer])
        .env("PRESA_CLIENT_SECRET", "robot-secret-0b9e");
    let output = finished(command).await;
    let text = String::from_utf8_lossy(&output.stdout);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {said}{text}", output.status);
    assert!(
        text.contains("build-robot"),
        "the token is the client's own: {text}"
    );
    let asked = authorization.asked();
    assert_eq!(asked.authorizations, 0, "no browser, no person");
    assert_eq!(asked.client_credentials_grants, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_secret_goes_only_to_the_issuer_named() {
    let (authorization, url, config) = signing_in("oauth-client-secret").await;
    authorization.register_client("team-app", "app-secret-9d21");
    let call = [
        "call",
        url.as_str(),
        "whoami",
        "--json",
        "--client-id",
        "team-app",
    ];

    // Without --issuer, the secret is not used at all.
    let mut unbound = presa(&config, &call);
    unbound.env("PRESA_CLIENT_SECRET", "app-secret-9d21");
    let output = finished(unbound).await;
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("needs --issuer"), "{said}");
    assert!(!said.contains("app-secret"), "the secret is shown: {said}");

    // With another issuer named, the server's own is refused before any
    // request reaches it.
    let mut elsewhere = presa(&config, &call);
    elsewhere
        .env("PRESA_CLIENT_SECRET", "app-secret-9d21")
        .args(["--issuer", "https://login.example.com"]);
    let output = finished(elsewhere).await;
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(!said.contains("app-secret"), "the secret is shown: {said}");
    let asked = authorization.asked();
    assert_eq!(
        (asked.authorizations, asked.client_ids.len()),
        (0, 0),
        "nothing went to the authorization server not named: {said}"
    );
}

/// Runs `command`, writing `input` to its stdin first.
async fn fed(mut command: Command, input: &[u8]) -> Output {
    let mut child = command.stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).await.unwrap();
    drop(stdin);
    tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .expect("presa finished")
        .expect("presa ran")
}

/// Checks that `output` is of a command that ran as `alice`.
fn ran_as_alice(output: &Output, how: &str) {
    let text = String::from_utf8_lossy(&output.stdout);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{how}: {}: {said}", output.status);
    assert!(text.contains("alice"), "{how}: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_from_a_file_stdin_or_the_environment_is_sent() {
    let key = TestKey::rsa("k1", Algorithm::RS256);
    let authorization = AuthServer::start(&[&key]).await;
    let url = resource_server(&authorization.issuer).await;
    let token = key.sign(&authorization.claims(&url, "alice", ""));
    let config = Path::new(env!("CARGO_TARGET_TMPDIR")).join("token-sources");
    let _ = std::fs::remove_dir_all(&config);
    std::fs::create_dir_all(&config).unwrap();
    let file = config.join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    let file = file.to_str().unwrap();
    let call = ["call", url.as_str(), "whoami", "--json"];

    let mut from_file = presa(&config, &call);
    from_file.args(["--token-file", file]);
    ran_as_alice(&finished(from_file).await, "--token-file");

    let mut from_stdin = presa(&config, &call);
    from_stdin.args(["--token-file", "-"]);
    ran_as_alice(
        &fed(from_stdin, format!("{token}\n").as_bytes()).await,
        "stdin",
    );

    let mut from_environment = presa(&config, &call);
    from_environment.env("PRESA_TOKEN", &token);
    ran_as_alice(&finished(from_environment).await, "PRESA_TOKEN");

    // An option wins over the environment, whose token is not even read.
    let mut over = presa(&config, &call);
    over.env("PRESA_TOKEN", "not a token")
        .args(["--token-file", file]);
    ran_as_alice(&finished(over).await, "--token-file over PRESA_TOKEN");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_that_cannot_be_read_is_a_usage_error_that_says_why() {
    let config = Path::new(env!("CARGO_TARGET_TMPDIR")).join("token-errors");
    let _ = std::fs::remove_dir_all(&config);
    std::fs::create_dir_all(&config).unwrap();
    let empty = config.join("empty");
    std::fs::write(&empty, "").unwrap();
    let missing = config.join("missing");
    let server = "http://127.0.0.1:9/mcp";
    let cases: [(&[&str], Option<&str>, &str); 5] = [
        (&["--token-file", empty.to_str().unwrap()], None, "is empty"),
        (
            &["--token-file", missing.to_str().unwrap()],
            None,
            "cannot read the token file",
        ),
        (
            &["--token", "s3cret", "--token-file", "f"],
            None,
            "--token-file",
        ),
        (&[], Some(""), "PRESA_TOKEN is set but empty"),
        (&[], Some("s3cret two"), "PRESA_TOKEN has a space"),
    ];
    for (args, environment, says) in cases {
        let mut command = presa(&config, &["tools", server]);
        command.args(args);
        if let Some(value) = environment {
            command.env("PRESA_TOKEN", value);
        }
        let output = finished(command).await;
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(says), "{args:?}: {said}");
        assert!(!said.contains("s3cret"), "{args:?} shows the token: {said}");
    }
}
