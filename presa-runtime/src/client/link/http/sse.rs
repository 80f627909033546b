//! Server-Sent Events, read with a bound.
//!
//! The event stream format (HTML Living Standard, "Server-sent events"):
//! lines end in CRLF, LF or CR; a blank line dispatches the event; `data`
//! lines accumulate; `id` sets the last event id; `retry` sets the
//! reconnection time; a line starting with `:` is a comment. Two things
//! matter beyond the events themselves, so the reader keeps them:
//!
//! - the last event id and the retry time, which legacy Streamable HTTP
//!   resumes a stream with (`Last-Event-ID`, after waiting `retry`), even
//!   when they come in an event without data, as a server's priming event
//!   does;
//! - a bound: a line or an event larger than the limit is an error as soon
//!   as it is, so a server cannot make the client buffer without end.

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};

/// One dispatched event with data (events without data only update the
/// reader's [`last_event_id`](EventReader::last_event_id)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Event {
    /// The data lines, joined by `\n`.
    pub data: String,
}

/// Reads events from a stream of byte chunks.
pub(super) struct EventReader<S> {
    chunks: S,
    limit: usize,
    /// Received bytes not yet split into lines: at most one partial line.
    unread: Vec<u8>,
    /// The previous line ended in CR, so a leading LF belongs to it.
    after_cr: bool,
    started: bool,
    data: String,
    id: Option<String>,
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

impl<S> EventReader<S> {
    /// Reads `chunks`, refusing lines and events over `limit` bytes.
    pub fn new(chunks: S, limit: usize) -> Self {
        EventReader {
            chunks,
            limit,
            unread: Vec::new(),
            after_cr: false,
            started: false,
            data: String::new(),
            id: None,
            last_event_id: None,
            retry: None,
        }
    }

    /// The id of the last dispatched event that had one, if any.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection time the server asked for last, if it did.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }
}

impl<S, E> EventReader<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    /// The next event with data; `None` when the stream ends (a partial
    /// event at the end is dropped, as the format says), an error when it
    /// breaks or exceeds the limit.
    pub async fn next(&mut self) -> Option<Result<Event, String>> {
        loop {
            while let Some(line) = self.take_line() {
                if let Some(event) = self.read_line(&line) {
                    return Some(Ok(event));
                }
            }
            if self.unread.len() + self.data.len() > self.limit {
                let limit = self.limit;
                return Some(Err(format!("an event exceeds the {limit}-byte limit")));
            }
            match self.chunks.next().await? {
                Ok(chunk) => self.take_chunk(&chunk),
                Err(error) => return Some(Err(format!("the event stream broke: {error}"))),
            }
        }
    }

    fn take_chunk(&mut self, mut chunk: &[u8]) {
        if !self.started && !chunk.is_empty() {
            self.started = true;
            chunk = chunk.strip_prefix("\u{feff}".as_bytes()).unwrap_or(chunk);
        }
        self.unread.extend_from_slice(chunk);
    }

    /// The next complete line, without its end.
    fn take_line(&mut self) -> Option<String> {
        if self.after_cr && self.unread.first() == Some(&b'\n') {
            self.unread.remove(0);
        }
        self.after_cr = false;
        let end = self
            .unread
            .iter()
            .position(|b| *b == b'\n' || *b == b'\r')?;
        self.after_cr = self.unread[end] == b'\r';
        let line = String::from_utf8_lossy(&self.unread[..end]).into_owned();
        self.unread.drain(..=end);
        Some(line)
    }

    /// Applies one line; the event it dispatches, if any.
    fn read_line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok().map(Duration::from_millis);
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        if let Some(id) = self.id.take() {
            self.last_event_id = (!id.is_empty()).then_some(id);
        }
        let mut data = std::mem::take(&mut self.data);
        if data.is_empty() {
            return None;
        }
        data.pop();
        Some(Event { data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Chunks = futures::stream::Iter<std::vec::IntoIter<Result<Bytes, String>>>;

    fn reader(chunks: &[&str], limit: usize) -> EventReader<Chunks> {
        let chunks: Vec<Result<Bytes, String>> = chunks
            .iter()
            .map(|c| Ok(Bytes::copy_from_slice(c.as_bytes())))
            .collect();
        EventReader::new(futures::stream::iter(chunks), limit)
    }

    async fn all(mut events: EventReader<Chunks>) -> Vec<String> {
        let mut data = Vec::new();
        while let Some(event) = events.next().await {
            data.push(event.unwrap().data);
        }
        data
    }

    #[tokio::test]
    async fn events_split_on_every_line_ending_across_chunks() {
        let events = reader(
            &[
                "\u{feff}data: a\r",
                "\n\r\ndata:b\rdata: c\n",
                "\n: note\ndata: d\n\ndata: cut",
            ],
            1024,
        );
        assert_eq!(all(events).await, ["a", "b\nc", "d"]);
    }

    #[tokio::test]
    async fn a_priming_event_without_data_sets_the_id_and_retry() {
        let mut events = reader(&["id: e-1\nretry: 500\n\n", "id: e-2\ndata: {}\n\n"], 1024);
        let first = events.next().await.unwrap().unwrap();
        assert_eq!(first.data, "{}");
        assert_eq!(events.last_event_id(), Some("e-2"));
        assert_eq!(events.retry(), Some(Duration::from_millis(500)));

        let mut primed = reader(&["id: e-1\nretry: 250\ndata: \n\n"], 1024);
        assert_eq!(primed.next().await.unwrap().unwrap().data, "");
        assert_eq!(primed.last_event_id(), Some("e-1"));
        assert!(primed.next().await.is_none());

        let mut silent = reader(&["id: e-1\nretry: 7\n\n"], 1024);
        assert!(silent.next().await.is_none());
        assert_eq!(silent.last_event_id(), Some("e-1"));
        assert_eq!(silent.retry(), Some(Duration::from_millis(7)));
    }

    #[tokio::test]
    async fn a_line_or_event_over_the_limit_is_an_error_before_it_ends() {
        let endless = "x".repeat(100);
        let mut events = reader(&["data: ", &endless, &endless], 64);
        assert!(events.next().await.unwrap().is_err());
        let mut many = reader(&["data: 0123456789\n"; 10], 64);
        assert!(many.next().await.unwrap().is_err());
    }

    #[tokio::test]
    async fn a_broken_stream_is_an_error() {
        let chunks = vec![
            Ok(Bytes::from_static(b"data: a\n")),
            Err("reset".to_owned()),
        ];
        let mut events = EventReader::new(futures::stream::iter(chunks), 64);
        assert_eq!(
            events.next().await,
            Some(Err("the event stream broke: reset".into()))
        );
    }
}
