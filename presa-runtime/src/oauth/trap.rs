//! [`Trap`]: a listener on loopback that records every connection made to
//! it, for tests that prove a URL was refused before any connection.
//!
//! A test may not reach the addresses it proves refused (the metadata
//! service, an intranet), not even when the check under test is broken.
//! So the fetcher a trap makes sends every `https` request through the
//! trap as its proxy: a request to `https://169.254.169.254/` that got
//! past the check arrives here as `CONNECT 169.254.169.254:443`, is
//! recorded, and is refused. A name the test's DNS resolves to loopback
//! may point at the trap's port too: a TLS connection that got past the
//! resolver is recorded as `TLS`.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::destinations::{Destinations, Lookup};
use super::fetch::HttpFetch;

/// A loopback listener that records what each connection asked, then
/// answers `403` (or closes, for TLS).
pub(crate) struct Trap {
    pub address: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Trap {
    /// A trap listening on a port of 127.0.0.1 the system chose.
    pub async fn start() -> Trap {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let record = record.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buffer = [0u8; 1024];
                    while let Ok(read @ 1..) = stream.read(&mut buffer).await {
                        head.extend_from_slice(&buffer[..read]);
                        // A TLS record starts 0x16: a direct connection.
                        if head[0] == 0x16 || head.windows(4).any(|w| w == b"\r\n\r\n") {
                            break;
                        }
                    }
                    let line = match head.first() {
                        Some(0x16) => "TLS".to_owned(),
                        _ => String::from_utf8_lossy(&head)
                            .lines()
                            .next()
                            .unwrap_or_default()
                            .to_owned(),
                    };
                    // Recorded before the answer, so before the client's
                    // request can end.
                    record.lock().unwrap().push(line);
                    let refused = b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n";
                    let _ = stream.write_all(refused).await;
                });
            }
        });
        Trap { address, seen }
    }

    /// What each connection asked, in order: a request line, or `TLS`.
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// A fetcher for `destinations` whose `https` requests all go through
    /// this trap, and whose DNS knows only `names`.
    pub fn fetcher(&self, destinations: Destinations, names: &[(&'static str, &str)]) -> HttpFetch {
        let answers = names
            .iter()
            .map(|(name, address)| (*name, vec![address.parse::<IpAddr>().unwrap()]))
            .collect();
        let proxy = reqwest::Proxy::https(format!("http://{}", self.address)).unwrap();
        let builder = HttpFetch::builder().proxy(proxy);
        HttpFetch::restricted_with(destinations, Lookup::Fixed(Arc::new(answers)), builder).unwrap()
    }

    /// A fetcher for `destinations` that connects directly, whose DNS
    /// knows only `names`.
    pub fn direct_fetcher(destinations: Destinations, names: &[(&'static str, &str)]) -> HttpFetch {
        let answers = names
            .iter()
            .map(|(name, address)| (*name, vec![address.parse::<IpAddr>().unwrap()]))
            .collect();
        let builder = HttpFetch::builder().no_proxy();
        HttpFetch::restricted_with(destinations, Lookup::Fixed(Arc::new(answers)), builder).unwrap()
    }
}
