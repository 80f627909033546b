//! [`Authorizer`]: the user-agent step of the authorization code grant.
//!
//! presa builds the authorization URL and checks what comes back; the
//! authorizer has a user visit the URL and returns the URL the
//! authorization server redirected the user-agent to. The default,
//! [`LoopbackAuthorizer`], prints the URL and listens on a loopback
//! redirect URI (RFC 8252 section 7.3). A CLI may open a browser first; a
//! test may follow the redirect itself.

use std::error::Error;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What an [`Authorizer`] may fail with: any error, which presa reports
/// as the authorization step's.
pub type AuthorizerError = Box<dyn Error + Send + Sync>;

/// Has a user (or a user-agent) visit an authorization URL and returns
/// where the authorization server sent it back.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an OAuth `Authorizer`",
    label = "this type does not implement `Authorizer`",
    note = "use `LoopbackAuthorizer::bind()`, or implement `Authorizer` for the user-agent step of your application"
)]
#[async_trait]
pub trait Authorizer: Send + Sync + 'static {
    /// The redirect URI the authorization server sends the user-agent
    /// back to; registered with the client, sent with each request.
    fn redirect_uri(&self) -> &str;

    /// Has the user-agent visit `authorization_url` and returns the full
    /// URL it was redirected to (with its `code`, `state` and `iss`).
    async fn authorize(&self, authorization_url: &str) -> Result<String, AuthorizerError>;
}

/// How long [`LoopbackAuthorizer`] waits for the redirect by default.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);

/// How long one connection to the redirect URI may take to send its
/// request line.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a request read: its request line is all that matters.
const MAX_REQUEST: usize = 8 * 1024;

/// The default [`Authorizer`]: prints the URL to open on standard error,
/// and takes the redirect on `http://127.0.0.1:PORT/callback`, a port the
/// system chose when it was bound.
///
/// The redirect taken is the one carrying this sign-in's `state`: a
/// browser's other requests, a stale tab's redirect from an earlier
/// attempt, and connections that send nothing are answered (or dropped)
/// without ending the wait, each on its own. A user who never comes back
/// ends the sign-in after [`timeout`](Self::timeout) ([`SIGN_IN_TIMEOUT`]
/// unless set).
#[derive(Debug)]
pub struct LoopbackAuthorizer {
    listener: tokio::sync::Mutex<tokio::net::TcpListener>,
    redirect_uri: String,
    timeout: Duration,
}

impl LoopbackAuthorizer {
    /// Binds the loopback port the redirect comes to.
    pub async fn bind() -> std::io::Result<Self> {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackAuthorizer {
            listener: tokio::sync::Mutex::new(listener),
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            timeout: SIGN_IN_TIMEOUT,
        })
    }

    /// How long a sign-in waits for the user to come back.
    #[must_use]
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// Takes connections until one brings the redirect with `state`; its
    /// request target.
    async fn redirect_with(&self, state: Option<&str>) -> Result<String, AuthorizerError> {
        let listener = self.listener.lock().await;
        // Each connection is read on its own, so that one that stalls
        // holds up no other; dropping this future drops them all.
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let (stream, _) = accepted?;
                    let state = state.map(str::to_owned);
                    connections.spawn(answer_connection(stream, state));
                }
                Some(done) = connections.join_next() => {
                    if let Ok(Some(target)) = done {
                        return Ok(target);
                    }
                }
            }
        }
    }
}

#[async_trait]
impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String, AuthorizerError> {
        eprintln!("To sign in, open this URL in a browser:\n\n  {authorization_url}\n");
        let state = url::Url::parse(authorization_url).ok().and_then(|url| {
            let (_, state) = url.query_pairs().find(|(key, _)| key == "state")?;
            Some(state.into_owned())
        });
        let target = tokio::time::timeout(self.timeout, self.redirect_with(state.as_deref()))
            .await
            .map_err(|_| {
                format!(
                    "nobody came back to {} within {} s",
                    self.redirect_uri,
                    self.timeout.as_secs()
                )
            })??;
        let origin = self.redirect_uri.trim_end_matches("/callback");
        Ok(format!("{origin}{target}"))
    }
}

/// Reads one connection's request and answers it: the request target when
/// it is the redirect with `state` (any redirect, when the authorization
/// URL had none), `None` for anything else.
async fn answer_connection(mut stream: TcpStream, state: Option<String>) -> Option<String> {
    let mut request = vec![0u8; MAX_REQUEST];
    let read = tokio::time::timeout(REQUEST_TIMEOUT, stream.read(&mut request))
        .await
        .ok()?
        .ok()?;
    let head = String::from_utf8_lossy(&request[..read]);
    let target = head
        .strip_prefix("GET ")
        .and_then(|rest| rest.split(' ').next())
        .filter(|target| target.starts_with("/callback"));
    let Some(target) = target else {
        // A browser's favicon or a stray connection.
        respond(&mut stream, "404 Not Found", "").await;
        return None;
    };
    if state.is_some() && state_of(target) != state {
        let page = "<!doctype html><title>Not this sign-in</title>\
                    <p>This page is from another sign-in attempt. Use the newest link.</p>";
        respond(&mut stream, "400 Bad Request", page).await;
        return None;
    }
    let page = "<!doctype html><title>Signed in</title><p>You can close this window.</p>";
    respond(&mut stream, "200 OK", page).await;
    Some(target.to_owned())
}

/// The `state` parameter of a request target.
fn state_of(target: &str) -> Option<String> {
    let url = url::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    let (_, state) = url.query_pairs().find(|(key, _)| key == "state")?;
    Some(state.into_owned())
}

/// Writes a whole answer and closes; a browser that left is no matter.
async fn respond(stream: &mut TcpStream, status: &str, page: &str) {
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `GET target` to the authorizer; the status line it answers.
    async fn visit(authorizer: &LoopbackAuthorizer, target: &str) -> String {
        let address = authorizer.redirect_uri.trim_start_matches("http://");
        let address = address.trim_end_matches("/callback");
        let mut stream = TcpStream::connect(address).await.unwrap();
        let request = format!("GET {target} HTTP/1.1\r\nhost: {address}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer.lines().next().unwrap_or_default().to_owned()
    }

    const URL: &str = "https://as.example/authorize?client_id=c&state=s1";

    #[tokio::test]
    async fn the_redirect_with_this_sign_ins_state_is_taken_past_stray_requests() {
        let authorizer = LoopbackAuthorizer::bind().await.unwrap();
        let origin = authorizer
            .redirect_uri
            .trim_end_matches("/callback")
            .to_owned();
        let sign_in = authorizer.authorize(URL);
        let browser = async {
            // Connected and silent: it must hold up nothing.
            let address = origin.trim_start_matches("http://");
            let _silent = TcpStream::connect(address).await.unwrap();
            assert_eq!(
                visit(&authorizer, "/favicon.ico").await,
                "HTTP/1.1 404 Not Found"
            );
            let stale = visit(&authorizer, "/callback?code=old&state=s0").await;
            assert_eq!(stale, "HTTP/1.1 400 Bad Request");
            let current = visit(&authorizer, "/callback?code=new&state=s1").await;
            assert_eq!(current, "HTTP/1.1 200 OK");
        };
        let (redirected, ()) = tokio::join!(sign_in, browser);
        assert_eq!(
            redirected.unwrap(),
            format!("{origin}/callback?code=new&state=s1")
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_user_who_never_comes_back_ends_the_sign_in_at_the_time_limit() {
        let authorizer = LoopbackAuthorizer::bind()
            .await
            .unwrap()
            .timeout(Duration::from_secs(60));
        let error = authorizer.authorize(URL).await.unwrap_err().to_string();
        assert!(
            error.starts_with("nobody came back to http://127.0.0.1:"),
            "{error}"
        );
        assert!(error.ends_with("within 60 s"), "{error}");
    }
}
