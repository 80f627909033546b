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

use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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

/// The default [`Authorizer`]: prints the URL to open on standard error,
/// and takes the redirect on `http://127.0.0.1:PORT/callback`, a port the
/// system chose when it was bound.
#[derive(Debug)]
pub struct LoopbackAuthorizer {
    listener: tokio::sync::Mutex<tokio::net::TcpListener>,
    redirect_uri: String,
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
        })
    }
}

#[async_trait]
impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String, AuthorizerError> {
        eprintln!("To sign in, open this URL in a browser:\n\n  {authorization_url}\n");
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) = listener.accept().await?;
            let mut request = vec![0u8; 8 * 1024];
            let read = stream.read(&mut request).await?;
            let head = String::from_utf8_lossy(&request[..read]);
            let Some(target) = head
                .strip_prefix("GET ")
                .and_then(|rest| rest.split(' ').next())
                .filter(|target| target.starts_with("/callback"))
            else {
                // A browser's favicon or a stray connection.
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            };
            let page = "<!doctype html><title>Signed in</title><p>You can close this window.</p>";
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            let origin = self.redirect_uri.trim_end_matches("/callback");
            return Ok(format!("{origin}{target}"));
        }
    }
}
